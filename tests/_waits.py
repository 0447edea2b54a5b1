"""Waiting in tests: on events, never on sleeps or wall-clock margins.

* :class:`OutputLines` — a child process's output (stdout with stderr), read line by
  line by a thread that copies it to a log file and wakes every test waiting for a line
  (a server's "You can now view ..." or a log line of the lab). The end of the output
  (the process died) wakes them too, so a dead server is reported at once.

There is no poll loop here: a state the tests need to see is announced by the server (a
log line the lab writes when it happens). A deadline is never what makes a test pass: on
expiry a wait raises ``TimeoutError``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


class OutputLines:
    """The output of a child process, line by line (see the module doc).

    ``stream`` is the child's ``stdout`` pipe (``subprocess.PIPE`` with
    ``stderr=subprocess.STDOUT``); ``log``, if given, receives every line as it comes
    (flushed, so a person can ``tail -f`` it). The pipe is always drained, so the child
    never blocks on a full pipe."""

    def __init__(self, stream: IO[bytes], log: str | Path | None = None) -> None:
        self._lines: list[str] = []
        self._ended = False
        self._cond = threading.Condition()
        if log is not None:
            Path(log).parent.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._pump, args=(stream, log),
                                        name="test-output-lines", daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[bytes], log: str | Path | None) -> None:
        out = open(log, "w", encoding="utf-8") if log is not None else None  # noqa: SIM115
        try:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if out is not None:
                    out.write(line + "\n")
                    out.flush()
                with self._cond:
                    self._lines.append(line)
                    self._cond.notify_all()
        finally:
            stream.close()
            if out is not None:
                out.close()
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def mark(self) -> int:
        """The number of lines so far: pass it as ``start`` to look only at later ones."""
        with self._cond:
            return len(self._lines)

    def lines(self, start: int = 0) -> list[str]:
        with self._cond:
            return self._lines[start:]

    def text(self) -> str:
        return "\n".join(self.lines())

    def tail(self, n: int = 30) -> str:
        return "\n".join(self.lines()[-n:]) or "(no output)"

    def wait_line(self, match: Callable[[str], Any], *, timeout_s: float, what: str,
                  start: int = 0) -> Any:
        """The first truthy ``match(line)`` over the lines from ``start`` on, waiting for
        new lines as they come. Raises ``EOFError`` when the output ends first (the
        process is gone) and ``TimeoutError`` after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        i = start
        with self._cond:
            while True:
                while i < len(self._lines):
                    found = match(self._lines[i])
                    if found:
                        return found
                    i += 1
                if self._ended:
                    raise EOFError(f"the output ended before {what}:\n{self._tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {what} within {timeout_s:.0f} s:\n"
                                       + self._tail())
                self._cond.wait(left)

    def _tail(self, n: int = 30) -> str:
        return "\n".join(self._lines[-n:]) or "(no output)"

    def wait_ended(self, timeout_s: float) -> bool:
        """Whether the output ended (every holder of the pipe closed it) in time."""
        self._thread.join(timeout_s)
        return not self._thread.is_alive()


def wait_gone(pids, timeout_s: float, what: str = "the processes") -> None:
    """Return once every process in ``pids`` (``(pid, start time)`` pairs from
    :func:`_procs.snapshot`, so a reused pid is not mistaken for it) has exited. Waits on
    a pidfd per process (readable when it exits, also for a process that is not our
    child): no polling. Raises ``TimeoutError`` naming those still there."""
    import os
    import select

    from _procs import alive

    deadline = time.monotonic() + timeout_s
    fds = {}
    try:
        for pid, start in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            if alive(pid, start):
                fds[fd] = pid
            else:
                os.close(fd)
        while fds:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{what} still there after {timeout_s:.0f} s: "
                                   f"{sorted(fds.values())}")
            ready, _, _ = select.select(list(fds), [], [], left)
            for fd in ready:
                fds.pop(fd)
                os.close(fd)
    finally:
        for fd in fds:
            os.close(fd)
