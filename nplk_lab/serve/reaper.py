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
  the garbage collector runs and ``malloc_trim(0)`` returns freed heap to the system;
* while no tab is connected, the closed tabs' sessions whose lifetime has passed are
  dropped (Streamlit's store would keep them until its next write), and once a drop
  has removed any, the heap is trimmed again.
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
# closed tabs' sessions the reaps removed and no step has seen yet (counted on the event
# loop, read by the reaper's thread)
_DROPPED_LOCK = threading.Lock()
_dropped = [0]


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


def held_sessions() -> int | None:
    """Sessions this server still holds, connected or not: a closed tab's session (its
    state, its results) stays for ``server.disconnectedSessionTTL`` seconds in case the
    tab reconnects (None outside a server)."""
    try:
        from streamlit import runtime

        if not runtime.exists() or type(runtime.get_instance()) is not runtime.Runtime:
            return None
        # read from this thread while the event loop may change the store: a session
        # removed mid-read makes this step skip the count (the next step reads again)
        return len(runtime.get_instance()._session_mgr.list_sessions())
    except (AttributeError, KeyError, RuntimeError, TypeError, ValueError):
        return None


def reap_closed_sessions() -> bool:
    """Make Streamlit drop the sessions of closed tabs whose lifetime has passed.

    Its session store only *hides* an expired session: the entry is removed on the
    store's next write or length query, and after a class has left nothing writes, so
    thirty students' sessions stayed in memory for good (about 300 MB a minute after the
    class, docs/a-class-on-one-link.md). The removal runs on the server's event loop,
    the thread that owns the store, and counts what it removed for
    :func:`dropped_sessions`. Returns whether it was scheduled."""
    try:
        from streamlit import runtime

        if not runtime.exists() or type(runtime.get_instance()) is not runtime.Runtime:
            return False
        rt = runtime.get_instance()
        cache = rt._session_mgr._session_storage._cache

        def drop() -> None:
            try:
                removed = len(cache.expire() or ())
            except (AttributeError, TypeError):  # a store without expire(): a length
                len(cache)                       # query removes them, uncounted
                return
            if removed:
                with _DROPPED_LOCK:
                    _dropped[0] += removed
        rt._get_async_objs().eventloop.call_soon_threadsafe(drop)
        return True
    except (AttributeError, RuntimeError, TypeError, ValueError):
        return False


def dropped_sessions() -> int:
    """How many closed tabs' sessions the reaps removed since the last call."""
    with _DROPPED_LOCK:
        n, _dropped[0] = _dropped[0], 0
    return n


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
                 ttl: float | None = None, idle: float | None = None,
                 held: Callable[[], int | None] = held_sessions,
                 reap: Callable[[], object] = reap_closed_sessions,
                 dropped: Callable[[], int] = dropped_sessions) -> None:
        self.sessions = sessions
        self.held = held
        self.reap = reap
        self.dropped = dropped
        self.ttl = _env("NPLK_LAB_CACHE_TTL", 600) if ttl is None else ttl
        self.idle = _env("NPLK_LAB_IDLE_RELEASE", 30) if idle is None else idle
        self.empty_since: float | None = None
        self.released = False
        #: a reap removed closed tabs' sessions while the server was idle and the heap
        #: has not been trimmed since the release
        self.trim_pending = False

    def step(self, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        expired = sum(store.expire(self.ttl, now) for store in list(STORES))
        n = self.sessions()
        # what the reaps scheduled at earlier steps removed (the count the event loop
        # kept as it removed them, not a guess from a count of sessions)
        dropped = self.dropped()
        if n is None or n > 0:
            self.empty_since, self.released, self.trim_pending = None, False, False
            if expired:
                trim_heap()
            return "expired" if expired else "busy"
        if self.empty_since is None:
            self.empty_since = now
        pending = self.trim_pending or dropped > 0
        self.trim_pending = False
        self.reap()  # the closed tabs' sessions expired by now go (counted next step)
        if not self.released and now - self.empty_since >= self.idle:
            release_all()
            self.released = True
            self.trim_pending = pending  # logged (and trimmed again) at the next step
            _LOG.info("No session for %.0f s: caches emptied, workers stopped, heap "
                      "trimmed", now - self.empty_since)
            return "released"
        if self.released and pending:
            trim_heap()
            _LOG.info("Closed tabs' sessions dropped (%s still held): heap trimmed",
                      self.held())
            return "trimmed"
        self.trim_pending = pending  # kept for after the release
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
