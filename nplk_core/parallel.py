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

from collections.abc import Callable, Iterable, Mapping
from typing import Any

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
