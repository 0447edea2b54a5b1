"""Processes seen through /proc (Linux): who descends from whom, without psutil.

A process is named by ``(pid, start time)``: the start time (field 22 of
``/proc/<pid>/stat``, clock ticks since boot) tells a process from a later one that
got the same pid."""

from __future__ import annotations

import os
from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces
    return [str(pid), text[text.index("(") + 1:text.rindex(")")],
            *text[text.rindex(")") + 2:].split()]


def table() -> dict[int, tuple[int, int, int]]:
    """``pid -> (parent pid, process group, start time)`` of every process now."""
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                out[int(name)] = (int(st[3]), int(st[4]), int(st[21]))
    return out


def start_time(pid: int) -> int | None:
    st = _stat(pid)
    return None if st is None else int(st[21])


def alive(pid: int, start: int) -> bool:
    """Whether the process ``(pid, start)`` still exists (a zombie counts as gone)."""
    st = _stat(pid)
    return st is not None and int(st[21]) == start and st[2] != "Z"


def descendants(pid: int) -> list[tuple[int, int]]:
    """``(pid, start time)`` of every process below ``pid`` now (children, their
    children ...), ``pid`` itself not included."""
    t = table()
    kids: dict[int, list[int]] = {}
    for p, (ppid, _, _) in t.items():
        kids.setdefault(ppid, []).append(p)
    out, todo = [], list(kids.get(pid, []))
    while todo:
        p = todo.pop()
        out.append((p, t[p][2]))
        todo.extend(kids.get(p, []))
    return out


def snapshot(pids) -> list[tuple[int, int]]:
    """``(pid, start time)`` for each of ``pids`` that exists now."""
    out = []
    for p in pids:
        s = start_time(p)
        if s is not None:
            out.append((p, s))
    return out


def in_group(pgid: int) -> list[int]:
    """Every live (not zombie) process whose process group is ``pgid``."""
    out = []
    for p, (_, g, start) in table().items():
        if g == pgid and alive(p, start):
            out.append(p)
    return out
