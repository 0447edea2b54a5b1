"""Independent fits through joblib, so that any joblib backend can run them.

Every parallel loop of the core goes through :func:`map_fits` (or a plain
``joblib.Parallel``), never through a backend of its own. The backend is therefore the
caller's choice::

    fits = map_fits(fit_one, [(C,) for C in grid], shared={"X": X, "y": y})  # local

    from dask.distributed import Client          # pip install -e ".[dask]"
    client = Client("tcp://scheduler:8786")      # or Client(LocalCluster(...))
    with joblib.parallel_config(backend="dask"):
        fits = map_fits(fit_one, [(C,) for C in grid], shared={"X": X, "y": y})

How the data travel. ``shared`` values are passed as the *same objects* to every task:
joblib's Dask backend scatters an argument above 1 kB once per call (it keys the
scattered copy by the object's identity) and every task then refers to that copy; the
loky backend memory-maps an array above 1 MB once; threads share memory. Task-specific
data (``tasks``) travel with their task. Results come back to the caller, so a task
should return what is small (coefficients, scores), not kernel matrices.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import joblib
from joblib import Parallel, delayed


def map_fits(fn: Callable[..., Any], tasks: Iterable[tuple], *, n_jobs: int | None = None,
             shared: Mapping[str, Any] | None = None) -> list[Any]:
    """``[fn(*task, **shared) for task in tasks]``, run by the active joblib backend.

    ``n_jobs=None`` follows ``joblib.parallel_config`` (one job outside a config block;
    under ``parallel_config(backend="dask")`` every Dask worker thread). Results come in
    the order of ``tasks``.
    """
    shared = {} if shared is None else dict(shared)
    todo = [tuple(t) for t in tasks]
    if not todo:
        return []
    return Parallel(n_jobs=n_jobs)(delayed(fn)(*t, **shared) for t in todo)


class _Indexed:
    """``fn`` returning ``(i, result)``; named like ``fn`` (Dask names a task after its
    function, so the task stream shows the fit, not this wrapper)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "fit")

    def __call__(self, i, *args, **kwargs):
        return i, self.fn(*args, **kwargs)


def iter_fits(fn: Callable[..., Any], tasks: Iterable[tuple], *, n_jobs: int | None = None,
              shared: Mapping[str, Any] | None = None) -> Iterator[tuple[int, Any]]:
    """``(i, fn(*tasks[i], **shared))`` pairs in the order the fits *finish*, run by the
    active joblib backend (as :func:`map_fits`, whose data rules apply).

    For progress per fit and for stopping: closing the generator (``break``, an
    exception in the consumer, ``.close()``) tells the backend to start no further task;
    tasks already running finish and their results are dropped. Only about
    ``2 x n_jobs`` tasks are handed out ahead of the results (joblib's ``pre_dispatch``).
    With one job the fits run one by one in this process, each when the consumer asks.
    """
    shared = {} if shared is None else dict(shared)
    todo = [tuple(t) for t in tasks]
    if not todo:
        return
    gen = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(_Indexed(fn))(i, *t, **shared) for i, t in enumerate(todo))
    try:
        yield from gen
    finally:
        gen.close()


# ---------------------------------------------------------------------------
# a Dask scheduler named by the operator
# ---------------------------------------------------------------------------

_CLIENTS: dict[str, Any] = {}
_CLIENTS_LOCK = threading.Lock()


def dask_client(address: str, *, timeout: float = 5.0):
    """A ``dask.distributed.Client`` connected to the scheduler at ``address``, one per
    address and process (reused while it stays connected).

    Raises ``ImportError`` when ``dask.distributed`` is not installed and ``OSError``
    (connection refused, no scheduler within ``timeout`` seconds) when nothing answers;
    the caller decides whether to fall back to local work.
    """
    from dask.distributed import Client

    with _CLIENTS_LOCK:
        client = _CLIENTS.get(address)
        if client is not None and client.status == "running":
            return client
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
        try:
            client = Client(address, timeout=f"{timeout}s", set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise OSError(f"no Dask scheduler answered at {address} within {timeout:g} s "
                          f"({type(exc).__name__}: {str(exc).strip()[:160]})") from exc
        _CLIENTS[address] = client
        return client


@contextlib.contextmanager
def dask_backend(client) -> Iterator[Any]:
    """``joblib.parallel_config(backend="dask")`` bound to ``client`` (not to the
    process's default client): every :func:`map_fits` / :func:`iter_fits` inside runs on
    that cluster's workers."""
    with joblib.parallel_config(backend="dask", client=client):
        yield client


def active_backend() -> tuple[str, int]:
    """Name and ``n_jobs`` setting of the joblib backend a ``Parallel()`` would use here
    (``("loky", None)`` outside any config block, ``("dask", None)`` inside
    ``parallel_config(backend="dask")``)."""
    from joblib.parallel import get_active_backend

    backend, n_jobs = get_active_backend()
    name = type(backend).__name__.replace("Backend", "").lower()
    return _SHORT.get(name, name), n_jobs


_SHORT = {"daskdistributed": "dask", "multiprocessing": "multiprocessing",
          "threading": "threading", "loky": "loky", "sequential": "sequential"}
