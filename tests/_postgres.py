"""A throwaway PostgreSQL server for tests: Debian's ``initdb`` + ``pg_ctl`` in a
temporary folder on a free port (as the ``postgres`` user when the tests run as root,
since ``initdb`` refuses root), started once per test process and stopped when it exits.

:func:`server` gives its URL or raises :class:`Unavailable` saying why there is none
(no psycopg, no server installed, initdb or pg_ctl failed); tests skip with that reason.
:func:`new_schema` gives a URL whose tables live in a schema of their own: a test's
store apart from every other test's, far cheaper than a database each.
:func:`class_store_place` is the body of the class store tests' ``where`` fixture.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _ports import free_port


class Unavailable(RuntimeError):
    """No PostgreSQL server can be started here (the message says why)."""


_state: dict[str, str] = {}


def _bindir() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
                   key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    return found[-1].parent if found else None


def server() -> str:
    """``postgresql://nplk@127.0.0.1:PORT`` of this process's server (started now if it
    is not yet)."""
    if "url" in _state:
        return _state["url"]
    if "why" in _state:
        raise Unavailable(_state["why"])
    try:
        _state["url"] = _start()
    except Unavailable as e:
        _state["why"] = str(e)
        raise
    return _state["url"]


def _start() -> str:
    try:
        import psycopg  # noqa: F401
    except ImportError as e:
        raise Unavailable("psycopg is not installed (pip install 'nplk[postgres]')") from e
    bindir = _bindir()
    if bindir is None:
        raise Unavailable("PostgreSQL's server is not installed (apt-get install postgresql)")
    as_user: list[str] = []
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError as e:
            raise Unavailable("running as root with no 'postgres' user to run initdb") from e
        as_user = ["runuser", "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="nplk-pg-"))
    if as_user:
        shutil.chown(root, "postgres")
    data, log = root / "data", root / "log"
    init = subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(data), "-U", "nplk",
                           "-A", "trust", "--no-sync", "-E", "UTF8", "--no-locale"],
                          capture_output=True, text=True)
    if init.returncode:
        shutil.rmtree(root, ignore_errors=True)
        raise Unavailable(f"initdb failed: {init.stderr.strip()[-300:]}")

    def stop() -> None:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast",
                        "-w", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)

    why = ""
    for _ in range(3):   # a free port may be taken before the server binds it
        port = free_port()
        # fsync off: the tests kill clients, never the server; it spares a shared disk
        started = subprocess.run(
            [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w",
             "-t", "60", "-o",
             f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
            capture_output=True, text=True)
        if started.returncode == 0:
            atexit.register(stop)
            return f"postgresql://nplk@127.0.0.1:{port}"
        why = started.stderr.strip()[-200:] + " " + (
            log.read_text(errors="replace")[-300:] if log.exists() else "")
    stop()
    raise Unavailable(f"could not start PostgreSQL: {why}")


def new_schema(base: str) -> tuple[str, Callable[[], None]]:
    """A URL on ``base``'s server whose tables go to a new schema, and what drops it."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")

    def drop() -> None:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {name} CASCADE")
    return f"{base}/postgres?options=-csearch_path%3D{name}", drop


def class_store_place(backend: str, folder: Path) -> Iterator[str]:
    """Where a fresh class store lives, for a fixture to ``yield from``: a folder under
    ``folder`` ("sqlite"), or a new schema on this process's server ("postgresql";
    the test skips, saying why, where no server can start), dropped afterwards."""
    if backend == "sqlite":
        yield str(folder / "classes")
        return
    try:
        base = server()
    except Unavailable as e:
        pytest.skip(str(e))
    url, drop = new_schema(base)
    yield url
    drop()
