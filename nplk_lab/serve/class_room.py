"""Where this process finds the class store: one :class:`ClassStore` per
process, opened on first use from ``NPLK_LAB_CLASS_STORE`` (a folder for SQLite or a
``postgresql://`` URL; ``nplk-lab classroom`` sets it for every worker), else the
folder ``classes`` in the lab's cache directory, so a plain ``streamlit run app.py``
needs nothing else. :func:`tidy` runs the store's purge at most once a minute per process.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command (standard library only) imports ENV and default_folder
    from .class_store import ClassStore

ENV = "NPLK_LAB_CLASS_STORE"
PURGE_EVERY_S = 60.0

_lock = threading.Lock()
_store: ClassStore | None = None
_where: str | None = None
_last_purge = 0.0


def default_folder() -> Path:
    """The store's folder when ``NPLK_LAB_CLASS_STORE`` is not set."""
    cache = os.environ.get("NPLK_LAB_CACHE_DIR")   # as nplk_lab.serve.firstpaint
    return (Path(cache) if cache else Path.home() / ".cache" / "nplk-lab") / "classes"


def where() -> str:
    return os.environ.get(ENV) or str(default_folder())


def store() -> ClassStore:
    """This process's store (opened again when the setting changed, e.g. in tests)."""
    global _store, _where
    from .class_store import ClassStore
    w = where()
    with _lock:
        if _store is None or _where != w:
            if _store is not None:
                _store.close()
            _store, _where = ClassStore(w), w
        return _store


def tidy(now: float | None = None, *, force: bool = False) -> None:
    """End idle classes and delete expired ones, at most every PURGE_EVERY_S here."""
    global _last_purge
    t = time.monotonic()
    with _lock:
        if not force and t - _last_purge < PURGE_EVERY_S and _last_purge:
            return
        _last_purge = t
    store().purge(now)
