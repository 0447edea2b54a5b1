"""The main module of the fit pool's worker processes: they start here, never from the
page that happened to start the pool.

Python's ``spawn`` start method prepares each child by importing the parent's main
module first, so that functions defined there can be unpickled
(``multiprocessing.spawn.get_preparation_data`` sends the main module's name when it
has a spec, else its file, and the child runs it as ``__mp_main__``). Inside a Streamlit
server ``sys.modules["__main__"]`` is the script being run: Streamlit installs each
run's page module there. So every worker of the pool, started from a page run, ran
``app.py`` or a page outside ``streamlit run``: on a new server, each worker did a whole
Home run (its DANK figure included, with about 120 "missing ScriptRunContext" warnings)
while competing for the cores with the first page it was there to help.

The pool's context (:func:`context`) starts its processes with this module as their main
module: the child runs this file (the standard library only), then unpickles the work it
is given (module-level functions of the lab), so nothing of a page runs there.
Neither another executable (``multiprocessing.set_executable``) nor the ``forkserver``
method would do: both still send the main module's path to every child. The switch
holds only while one of this pool's processes is being launched, and only in the thread
launching it: any other process started by the server at that moment (joblib's, Dask's)
is prepared as before, and ``sys.modules["__main__"]``, which Streamlit's script threads
set, is never touched.
"""

from __future__ import annotations

import multiprocessing.context
import multiprocessing.spawn
import sys
import threading
from typing import Any

#: the module a worker runs as its main module (this one)
MAIN = "nplk_lab.serve.worker_main"

_LAUNCHING = threading.local()
_INSTALL_LOCK = threading.Lock()
_ORIGINAL: list = []


def _preparation_data(name: str) -> dict:
    """``multiprocessing.spawn.get_preparation_data``; for a process of this pool being
    launched in this thread, with this module as the child's main module."""
    data = _ORIGINAL[0](name)
    if getattr(_LAUNCHING, "active", False):
        data.pop("init_main_from_path", None)
        data["init_main_from_name"] = MAIN
    return data


def _install() -> None:
    with _INSTALL_LOCK:
        if not _ORIGINAL:
            _ORIGINAL.append(multiprocessing.spawn.get_preparation_data)
            multiprocessing.spawn.get_preparation_data = _preparation_data


class WorkerProcess(multiprocessing.context.SpawnProcess):
    """A spawned process whose child starts from :data:`MAIN`."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        _install()
        _LAUNCHING.active = True
        try:
            return multiprocessing.context.SpawnProcess._Popen(process_obj)
        finally:
            _LAUNCHING.active = False


class WorkerContext(multiprocessing.context.SpawnContext):
    """The ``spawn`` context with :class:`WorkerProcess` as its processes."""

    Process = WorkerProcess


def context() -> WorkerContext:
    """The multiprocessing context of the fit pool."""
    return WorkerContext()


def started_from(callback: Any = None) -> dict:
    """In a worker: the main module it started from (its name, or its file when run as
    a script) and its process id; the tests ask a worker this (``callback``: what the
    pool hands every job, unused)."""
    import os

    main = sys.modules.get("__mp_main__") or sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return {"main": getattr(spec, "name", None) or getattr(main, "__file__", None),
            "pid": os.getpid()}
