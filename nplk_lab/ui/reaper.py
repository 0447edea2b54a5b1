"""Memory back to idle after a class: stale cache entries expire, and once no session
has been connected for a while the stores are emptied, the fit workers stop and the
freed memory is handed back to the operating system.

The stores (:mod:`.stores`) are bounded by entries and bytes (about 700 MB in all), and
they stayed full after the students left: with the memory glibc keeps in its arenas
after a burst of threads, 838 MB stayed held. A daemon thread (one per server process,
started by the first page run) checks every few seconds:

* entries not used for ``NPLK_LAB_CACHE_TTL`` seconds (default 600) are dropped;
* when the server has had no session for ``NPLK_LAB_IDLE_RELEASE`` seconds (default
  30), every store is emptied, the worker processes (:mod:`.workers`) are shut down,
  the garbage collector runs and ``malloc_trim(0)`` returns freed heap to the system.
"""

from __future__ import annotations

import ctypes
import gc
import os
import threading
import time
from collections.abc import Callable

from streamlit.logger import get_logger

from .stores import STORES

_LOG = get_logger("nplk_lab.reaper")
_STARTED = threading.Event()
_LOCK = threading.Lock()


def _env(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def active_sessions() -> int | None:
    """Sessions connected to this server (None outside a server)."""
    try:
        from streamlit import runtime

        if not runtime.exists() or type(runtime.get_instance()) is not runtime.Runtime:
            return None                               # no server (AppTest: a mock)
        mgr = runtime.get_instance()._session_mgr
        return int(mgr.num_active_sessions())
    except (AttributeError, TypeError, ValueError):
        return None


def trim_heap() -> None:
    """Hand freed heap back to the OS (glibc keeps it in its arenas otherwise)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def release_all() -> None:
    """Empty every store, stop the fit workers, trim the heap."""
    for store in list(STORES):
        store.clear()
    from . import workers
    workers.shutdown()
    trim_heap()


class Reaper:
    """The checks above, one step at a time (``step`` is what the thread calls; tests
    call it with their own clock and session count)."""

    def __init__(self, sessions: Callable[[], int | None] = active_sessions, *,
                 ttl: float | None = None, idle: float | None = None) -> None:
        self.sessions = sessions
        self.ttl = _env("NPLK_LAB_CACHE_TTL", 600) if ttl is None else ttl
        self.idle = _env("NPLK_LAB_IDLE_RELEASE", 30) if idle is None else idle
        self.empty_since: float | None = None
        self.released = False

    def step(self, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        expired = sum(store.expire(self.ttl, now) for store in list(STORES))
        n = self.sessions()
        if n is None or n > 0:
            self.empty_since, self.released = None, False
            if expired:
                trim_heap()
            return "expired" if expired else "busy"
        if self.empty_since is None:
            self.empty_since = now
        if not self.released and now - self.empty_since >= self.idle:
            release_all()
            self.released = True
            _LOG.info("No session for %.0f s: caches emptied, workers stopped, heap "
                      "trimmed", now - self.empty_since)
            return "released"
        return "idle"


def start(period: float = 5.0) -> None:
    """Start the reaper thread of this server process (once)."""
    if _STARTED.is_set():
        return
    with _LOCK:
        if _STARTED.is_set() or active_sessions() is None:
            return
        _STARTED.set()
        reaper = Reaper()

        def loop() -> None:
            while True:
                time.sleep(period)
                try:
                    reaper.step()
                except Exception:  # never let the thread die silently
                    _LOG.exception("reaper step failed")
        threading.Thread(target=loop, name="nplk-reaper", daemon=True).start()
