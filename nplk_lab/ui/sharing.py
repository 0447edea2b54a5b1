"""The shared stores (:mod:`nplk_lab.serve.stores`) as the pages' panels use them: a
session that waits for the same computation in another session says so in its progress
line, whose Stop button ends the wait."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nplk_lab.serve import stores

from .progress import Progress


def _waiting() -> Progress:
    return Progress("Waiting for the same computation in another session")


def cached(kind: str, key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per ``key`` in the store ``kind``, shared with every session
    (:func:`nplk_lab.serve.stores.cached`)."""
    return stores.cached(kind, key, compute, waiting=_waiting)


def single_flight(kind: str, key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` for ``(kind, key)`` in one session at a time
    (:func:`nplk_lab.serve.stores.single_flight`)."""
    return stores.single_flight(kind, key, compute, waiting=_waiting)
