"""The first picture of a new server without scikit-learn: a disk snapshot of what a
page's default run stored.

A new server's first page run used to import scikit-learn (1.2–2 s here, most of it the
``scipy.stats`` and ``pandas`` that ``sklearn.utils`` pulls in) and fit before anything
was drawn. The stores (:mod:`.stores`) are keyed by content (data hash, every parameter),
so a run at a page's default state can be replayed from the values it stored: the first
run of a page at its defaults records which store entries it read or wrote (also those
the fit pool's thread stored for it: ``recorder.on_behalf`` in :mod:`.stores`), and writes
them to ``<cache dir>/<page>-<hash>.pkl`` (the hash covers the state, the source of the
lab's packages and the versions of numpy, scipy, scikit-learn, plotly and streamlit, so
an edit or an upgrade makes a new file). The next server restores them into its stores
when a session opens that page at that state, and the page's ordinary code then finds
every value stored: nothing is fitted, scikit-learn is not imported, and the figures are
the same as a fresh computation's (``tests/test_ui_cache.py`` checks both in a fresh
process).

Fitted estimators are scikit-learn objects: they are stored pickled and restored as a
:class:`LazyEstimator`, which unpickles the real one on first use. Once the server has
been idle for a moment (5 s after the last page run), :func:`warm_up` imports
scikit-learn and swaps the real estimators in, so the first slider move does not pay the
import either; then the fit pool's workers start (:func:`_start_pool`), for the same
reason. Figures are rebuilt without plotly's validation (they were validated when
built; 1–3 ms instead of ~100 ms).

What a first run still costs with a snapshot: importing the lab's modules (~0.3 s) and
the page's own Streamlit calls (~0.1 s); the rest of a cold start is the browser's.

``NPLK_LAB_CACHE_DIR`` sets the directory (default ``~/.cache/nplk-lab``);
``NPLK_LAB_FIRST_PAINT=0`` turns the snapshot off; ``NPLK_LAB_WARM_UP_AFTER`` sets the
idle seconds before the warm-up (default 5). The files are pickles: the directory
must be as trusted as the code (it is the user's own cache).
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import threading
import time
import types
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import nplk_lab.model as lab

from .stores import cache, recorder

_ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = ("nplk_core", "nplk_lab")
_VERSIONS = ("numpy", "scipy", "scikit-learn", "plotly", "streamlit")
_SKIP = {"geometry"}  # intermediates of a computation, never read by a stored run
_FORMAT = 1


def enabled() -> bool:
    return os.environ.get("NPLK_LAB_FIRST_PAINT", "1") not in ("0", "false", "no", "off")


def cache_dir() -> Path:
    env = os.environ.get("NPLK_LAB_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "nplk-lab"


_VERSION: list[str] = []


def code_version() -> str:
    """A hash of the lab's source and of the numeric packages' versions (once per process)."""
    if not _VERSION:
        h = hashlib.blake2b(digest_size=12)
        h.update(str(_FORMAT).encode())
        files = []
        for pkg in _PACKAGES:
            files += sorted((_ROOT / pkg).rglob("*.py"))
        for f in files:
            try:
                h.update(f.name.encode() + b"\0" + f.read_bytes())
            except OSError:
                pass
        for dist in _VERSIONS:
            try:
                h.update(f"{dist}={metadata.version(dist)}".encode())
            except metadata.PackageNotFoundError:
                h.update(f"{dist}=-".encode())
        h.update(sys.version.encode())
        _VERSION.append(h.hexdigest())
    return _VERSION[0]


def _state_key(page: str, P: Mapping[str, Any]) -> str:
    h = hashlib.blake2b(digest_size=12)
    h.update(code_version().encode())
    h.update(page.encode())
    h.update(repr(sorted((str(k), repr(v)) for k, v in P.items())).encode())
    return h.hexdigest()


def snapshot_path(page: str, P: Mapping[str, Any]) -> Path:
    return cache_dir() / f"{page}-{_state_key(page, P)}.pkl"


# ---------------------------------------------------------------------------
# estimators and figures in the snapshot
# ---------------------------------------------------------------------------

class LazyEstimator:
    """A pickled estimator, unpickled (importing scikit-learn) on first use.

    Attribute access, ``isinstance`` (through ``__class__``), copies and pickling all
    act on the real estimator."""

    __slots__ = ("_blob", "_real", "_lock")
    _nplk_lazy = True  # seen by stores.nbytes without loading

    @property
    def nbytes(self) -> int:
        return len(object.__getattribute__(self, "_blob"))

    def __init__(self, blob: bytes) -> None:
        object.__setattr__(self, "_blob", blob)
        object.__setattr__(self, "_real", None)
        object.__setattr__(self, "_lock", threading.Lock())

    def load(self) -> Any:
        real = object.__getattribute__(self, "_real")
        if real is None:
            with object.__getattribute__(self, "_lock"):
                real = object.__getattribute__(self, "_real")
                if real is None:
                    real = pickle.loads(object.__getattribute__(self, "_blob"))
                    object.__setattr__(self, "_real", real)
        return real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.load(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.load(), name, value)

    @property  # type: ignore[misc]
    def __class__(self):  # noqa: D105 (isinstance sees the real class)
        return type(self.load())

    def __reduce__(self):
        return (pickle.loads, (object.__getattribute__(self, "_blob"),))

    def __repr__(self) -> str:
        return repr(self.load())


def _none() -> None:
    return None


def _figure(cls: type, spec: dict) -> Any:
    return cls(spec, _validate=False)


class _EstimatorPickler(pickle.Pickler):
    """Pickles an estimator; a callback closure it holds (the page's progress line)
    becomes None."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, types.FunctionType) and (
                "<locals>" in obj.__qualname__ or obj.__name__ == "<lambda>"):
            return (_none, ())
        return NotImplemented


def _estimator_blob(obj: Any) -> bytes:
    buf = io.BytesIO()
    _EstimatorPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


class _SnapshotPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, LazyEstimator):
            return (LazyEstimator, (object.__getattribute__(obj, "_blob"),))
        if isinstance(obj, type):
            return NotImplemented
        mod = type(obj).__module__.split(".")[0]
        if mod in ("sklearn", "nplk_core") and hasattr(obj, "get_params"):
            return (LazyEstimator, (_estimator_blob(obj),))
        if mod == "plotly" and hasattr(obj, "to_plotly_json") and hasattr(obj, "_layout"):
            return (_figure, (type(obj), obj.to_dict()))
        return NotImplemented


# ---------------------------------------------------------------------------
# write (first run at a page's defaults) and restore (a new server)
# ---------------------------------------------------------------------------

_TIMING = os.environ.get("NPLK_LAB_TIMING") == "1"
_RUN_START = threading.local()


def start(page: str) -> None:
    """Called by :func:`nplk_lab.ui.state.page_setup`: record this run's store accesses.
    Waits while the warm-up imports scikit-learn (see :func:`_schedule_warm_up`)."""
    with _GATE:
        _ACTIVE[threading.get_ident()] = threading.current_thread()
        _LAST_RUN[0] = time.monotonic()
    _RUN_START.t = time.time()
    recorder.start() if enabled() else recorder.stop()


def finish(page: str, P: Mapping[str, Any]) -> None:
    """Called at the end of a page run: write the snapshot when this run started at the
    page's defaults and none exists yet. The snapshot is keyed by the state the run
    started from (what :func:`restore` looks up), not the one it ended in: a page may
    settle a setting during its run (the Regression page's view, for DANK-SVR), and its
    default run would then never have written one."""
    _LAST_RUN[0] = time.monotonic()
    _ACTIVE.pop(threading.get_ident(), None)
    if _TIMING:  # benchmarks/bench_app.py: where a cold start's server time goes
        from streamlit.logger import get_logger
        get_logger("nplk_lab.timing").info(
            "run %s: %.3f → %.3f (epoch s); scikit-learn imported: %s", page,
            getattr(_RUN_START, "t", float("nan")), time.time(), "sklearn" in sys.modules)
    seen = recorder.stop()
    started = getattr(_RUN_START, "P", None)
    _RUN_START.P = None
    if not seen or not enabled() or started != lab.defaults():
        return
    path = snapshot_path(page, started)
    if path.exists():
        return
    entries = []
    for kind, key in seen:
        if isinstance(key, tuple) and key and key[0] in _SKIP:
            continue
        value = cache(kind).get(key, _MISS)
        if value is _MISS:
            return  # evicted meanwhile: a later run writes it
        if getattr(value, "stopped", False) or getattr(value, "ok", True) is False:
            return  # a stopped or failed fit is no picture to start from
        entries.append((kind, key, value))
    try:
        buf = io.BytesIO()
        _SnapshotPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(entries)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
        _prune(path.parent, page)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return  # a snapshot is an optimisation: never a reason for a page to fail


def _prune(folder: Path, page: str, keep: int = 6) -> None:
    """Keep the newest ``keep`` snapshots of ``page`` (older code versions')."""
    files = sorted(folder.glob(f"{page}-*.pkl"), key=lambda f: f.stat().st_mtime,
                   reverse=True)
    for f in files[keep:]:
        try:
            f.unlink()
        except OSError:
            pass


_RESTORED: dict[Path, list] = {}
_RESTORE_LOCK = threading.Lock()
_LAST_RUN = [0.0]


def restore(page: str, P: Mapping[str, Any]) -> bool:
    """Put a snapshot's entries for ``(page, P)`` into the stores where missing; True
    when a snapshot was found. Loaded once per process; a missing or unreadable file
    costs one ``stat``."""
    _RUN_START.P = dict(P)  # the state this run starts from (see finish)
    if not enabled():
        return False
    path = snapshot_path(page, P)
    with _RESTORE_LOCK:
        entries = _RESTORED.get(path)
        if entries is None:
            try:
                with open(path, "rb") as f:
                    entries = pickle.load(f)
            except FileNotFoundError:
                return False
            except Exception:  # noqa: BLE001 (a stale or damaged file: ignore and rewrite)
                try:
                    path.unlink()
                except OSError:
                    pass
                return False
            _RESTORED[path] = entries
            _schedule_warm_up()
    for kind, key, value in entries:
        store = cache(kind)
        if store.get(key, _MISS) is _MISS:
            store.put(key, value)
    return True


_WARM = threading.Event()
_GATE = threading.Lock()
_ACTIVE: dict[int, threading.Thread] = {}  # script threads inside a page run


def _schedule_warm_up(idle: float | None = None) -> None:
    """Import scikit-learn and unpickle the restored estimators once no page run is in
    flight and none started for ``idle`` seconds.

    Not earlier: after the server's run the browser still loads script chunks from this
    server and draws for 1–5 s, and the import (1–3 s of CPU, holding the interpreter
    that serves those chunks) measurably delayed the first chart. A user reads the
    page for a few seconds before the first move, which then finds scikit-learn
    imported. And not beside a page run: scikit-learn imports pandas, and plotly's
    validators take a half-imported pandas from ``sys.modules`` (an AttributeError in
    the page). A run that starts meanwhile waits at :func:`start` (the gate) until the
    import is done."""
    if _WARM.is_set():
        return
    _WARM.set()
    if idle is None:
        try:
            idle = float(os.environ.get("NPLK_LAB_WARM_UP_AFTER", "5"))
        except ValueError:
            idle = 5.0

    def run() -> None:
        while True:
            time.sleep(0.1)
            if time.monotonic() - _LAST_RUN[0] < idle:
                continue
            with _GATE:
                for ident, thread in list(_ACTIVE.items()):
                    if not thread.is_alive():  # a run that ended by an exception
                        _ACTIVE.pop(ident, None)
                if _ACTIVE:
                    continue
                warm_up()
            _start_pool()
            return
    threading.Thread(target=run, name="nplk-warm-up", daemon=True).start()


def _start_pool() -> None:
    """Start the fit pool's workers (:meth:`.workers.Pool.start`) after the warm-up, not
    before the first picture: the first picture needs no fit, and the workers' start
    (about 2 s of CPU each here, importing the solvers) would compete with it. Without
    this the first move of a new server paid that start (2.0–3.8 s)."""
    from . import workers

    try:
        p = workers.pool()
    except Exception:  # noqa: BLE001 (outside a server: nothing to start)
        return
    if p is not None:
        p.start()


def warm_up() -> None:
    """Import scikit-learn and swap the real estimators into the restored results."""
    try:
        import sklearn.svm  # noqa: F401  (what every fit needs; pulls in pandas)
    except ImportError:
        return
    with _RESTORE_LOCK:
        entries = [e for es in _RESTORED.values() for e in es]
    for _kind, _key, value in entries:
        objs = value if isinstance(value, tuple) else (value,)
        for obj in objs:
            est = getattr(obj, "__dict__", {}).get("estimator")
            if type(est) is LazyEstimator:  # noqa: E721 (not isinstance: that would load)
                try:
                    obj.estimator = est.load()
                except Exception:  # noqa: BLE001 (left lazy; its first use will say why)
                    pass


_MISS = object()
