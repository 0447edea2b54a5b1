"""The stores shared by the sessions of this server, and one computation per key.

A session that waits for another session's computation says so through the line its
caller hands in (``waiting``): the pages' progress line with its Stop button
(:mod:`nplk_lab.ui.sharing`), which this package does not draw."""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import streamlit as st

# ---------------------------------------------------------------------------
# caches (one LRU per kind, shared by the sessions of this server)
# ---------------------------------------------------------------------------


def nbytes(obj: Any, depth: int = 4) -> int:
    """Rough memory of a cached value: the numpy arrays reachable in a few hops."""
    if getattr(type(obj), "_nplk_lazy", False):  # an estimator still pickled
        return obj.nbytes  # (``isinstance`` below would unpickle it)
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if depth == 0 or isinstance(obj, (str, bytes, int, float, type(None))):
        return 0
    if isinstance(obj, dict):
        return sum(nbytes(v, depth - 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v, depth - 1) for v in obj[:64])
    d = getattr(obj, "__dict__", None)
    return nbytes(d, depth - 1) if isinstance(d, dict) else 0


class _Recorder(threading.local):
    """The ``(store, key)`` pairs read or written by the running script thread
    (:mod:`.firstpaint` snapshots a page's default run from them), and by the callbacks
    other threads run on its behalf (:meth:`on_behalf`)."""

    seen: set | None = None

    def start(self) -> None:
        self.seen = set()

    def stop(self) -> set:
        """The pairs recorded, copied (a callback of the pool may still add to the
        run's own set)."""
        seen, self.seen = self.seen or set(), None
        return set(seen)

    def note(self, name: str, key: Any) -> None:
        if self.seen is not None and name:
            self.seen.add((name, key))

    def on_behalf(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, recording the store accesses it makes into this thread's run,
        whichever thread calls it.

        The fit pool (:mod:`.workers`) stores a page's fit from its own thread when the
        worker's result comes back: without this the page's run never saw that store
        entry, its first-paint snapshot lacked the fit, and every new server refitted
        the default model before drawing. A callback that runs after the page
        run ended records into a set nobody reads any more."""
        seen = self.seen
        if seen is None:
            return fn

        def run(*args: Any, **kwargs: Any) -> Any:
            outer, self.seen = self.seen, seen
            try:
                return fn(*args, **kwargs)
            finally:
                self.seen = outer
        return run


recorder = _Recorder()

#: every store of this process (nplk_lab/serve/reaper.py expires and clears them)
STORES: weakref.WeakSet = weakref.WeakSet()


class LRU:
    """A small thread-safe least-recently-used map bounded by entries and bytes.

    Hand-written because no library at hand does both bounds: ``st.cache_data`` and
    ``st.cache_resource`` bound entries (``max_entries``) but not bytes, and
    ``st.cache_data`` pickles every hit (a copy of each fit); ``cachetools.LRUCache``
    with ``getsizeof`` bounds bytes but is not among Streamlit's dependencies (checked
    for streamlit 1.50), so it would be a new dependency for these 40 lines. The single
    flight below (one computation per key across sessions, reporting progress while it
    waits) is what none of them does."""

    def __init__(self, maxsize: int = 64, max_bytes: int = 200 * 2 ** 20,
                 name: str = "") -> None:
        self.name = name
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._d: OrderedDict = OrderedDict()
        self._sizes: dict = {}
        self._used: dict = {}          # key -> time.monotonic() of the last get or put
        self._lock = threading.Lock()
        STORES.add(self)

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                self._used[key] = time.monotonic()
                recorder.note(self.name, key)
                return self._d[key]
        return default

    def expire(self, ttl: float, now: float | None = None) -> int:
        """Drop the entries not used for ``ttl`` seconds; return how many."""
        now = time.monotonic() if now is None else now
        with self._lock:
            old = [k for k in self._d if now - self._used.get(k, now) > ttl]
            for k in old:
                self._d.pop(k, None)
                self._sizes.pop(k, None)
                self._used.pop(k, None)
        return len(old)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._sizes.clear()
            self._used.clear()

    @property
    def bytes(self) -> int:
        with self._lock:
            return sum(self._sizes.values())

    def put(self, key: Any, value: Any) -> Any:
        """Store and return ``value``; a value larger than the whole byte budget is
        returned but not kept (it would evict everything else and stay)."""
        size = nbytes(value)
        recorder.note(self.name, key)
        with self._lock:
            if size > self.max_bytes:
                self._d.pop(key, None)
                self._sizes.pop(key, None)
                return value
            self._d[key] = value
            self._sizes[key] = size
            self._used[key] = time.monotonic()
            self._d.move_to_end(key)
            while self._d and (len(self._d) > self.maxsize or
                               sum(self._sizes.values()) > self.max_bytes):
                old, _ = self._d.popitem(last=False)
                self._sizes.pop(old, None)
                self._used.pop(old, None)
        return value

    def __len__(self) -> int:
        return len(self._d)


# The stores' shares of the process's cache memory: by default 300 MB for fits and
# 100 MB for each other store; ``NPLK_LAB_CACHE_MB`` sets the total (``nplk-lab
# classroom`` does, for each of its workers).
_SHARES = {"data": 1, "fits": 3, "grids": 1, "figs": 1, "sweeps": 1}
_DEFAULT_TOTAL_MB = 700


def cache_bytes(name: str) -> int:
    """The byte bound of the store ``name``."""
    try:
        total = float(os.environ.get("NPLK_LAB_CACHE_MB", _DEFAULT_TOTAL_MB))
    except ValueError:
        total = _DEFAULT_TOTAL_MB
    if not total > 0:  # also NaN
        total = _DEFAULT_TOTAL_MB
    return int(total * 2 ** 20 * _SHARES.get(name, 1) / sum(_SHARES.values()))


#: the stores :func:`_held` holds now, by name: what :func:`cache` answers without
#: asking Streamlit's cache, whose look-up hashes the name on every call (about 15 calls
#: and 1 ms of a worker's interpreter per page run)
_HELD: dict[str, LRU] = {}
_HELD_LOCK = threading.Lock()


def _released(store: LRU) -> None:
    """Streamlit let ``store`` go (``cache.clear()``, ``st.cache_resource.clear()``):
    :func:`cache` asks for a new one."""
    with _HELD_LOCK:
        if _HELD.get(store.name) is store:
            del _HELD[store.name]


@st.cache_resource(show_spinner=False, on_release=_released)
def _held(name: str) -> LRU:
    store = LRU({"figs": 128, "map-lines": 1024}.get(name, 64),
               max_bytes=cache_bytes(name), name=name)
    with _HELD_LOCK:
        _HELD[name] = store
    return store


def cache(name: str) -> LRU:
    """The LRU store ``name`` ("data", "fits", "grids", "figs", "sweeps", "map-lines":
    the maps' finished lines, a few numbers each): one per server, held by
    ``st.cache_resource`` (``cache.clear()`` and ``st.cache_resource.clear()`` drop
    them all) and read from :data:`_HELD` while it holds them."""
    store = _HELD.get(name)
    return store if store is not None else _held(name)


cache.clear = _held.clear   # type: ignore[attr-defined]  (the stores' one public clear)


class Waiting(Protocol):
    """The line of a session that waits for the same computation in another session."""

    def report(self, text: str) -> Any: ...

    def done(self) -> None: ...


def cached(kind: str, key: Any, compute: Callable[[], Any], *,
           waiting: Callable[[], Waiting] | None = None) -> Any:
    """``compute()`` once per ``key`` in the store ``kind``, also across sessions that
    ask at the same moment (see :func:`single_flight`)."""
    store = cache(kind)
    hit = store.get(key, MISS)
    if hit is not MISS:
        return hit
    return single_flight(kind, key, lambda: store.put(key, compute()), waiting=waiting)


_FLIGHTS: dict[Any, threading.Lock] = {}
_FLIGHTS_LOCK = threading.Lock()


def single_flight(kind: str, key: Any, compute: Callable[[], Any], *,
                  waiting: Callable[[], Waiting] | None = None) -> Any:
    """Run ``compute()`` for ``(kind, key)`` in one session at a time; a session that asks
    for a value another session is computing waits for it and reads it from the store.

    Without this, six students opening the same page at once made six identical fits
    compete for two cores. The waiting session makes its line (``waiting()``, made when
    it finds the computation in flight) and reports through it each 0.2 s: in a page that
    Streamlit call is where a new widget value or a closed tab ends the wait.
    (``st.cache_data`` does the same for its own entries, but the lab's stores are
    byte-bounded LRUs shared with the fit runner, which reports progress as it goes.)"""
    with _FLIGHTS_LOCK:
        lock = _FLIGHTS.setdefault((kind, key), threading.Lock())
    if not lock.acquire(blocking=False):
        line = waiting() if waiting is not None else None
        while not lock.acquire(timeout=0.2):
            if line is not None:
                line.report("it will be shared with this page")
        if line is not None:
            line.done()
        hit = cache(kind).get(key, MISS)
        if hit is not MISS:
            lock.release()
            return hit
    try:
        return compute()
    finally:
        lock.release()
        with _FLIGHTS_LOCK:
            if _FLIGHTS.get((kind, key)) is lock and not lock.locked():
                _FLIGHTS.pop((kind, key), None)


#: what a store answers for a key it does not hold (``store.get(key, MISS)``)
MISS = object()
