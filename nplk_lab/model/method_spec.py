"""What a method of the lab is: :class:`MethodSpec`, the registry's entry type.

Its own module so that :mod:`.methods` (which builds results) and :mod:`.results` (which
reads a method's spec) both import it and not each other."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MethodSpec:
    """A method of the lab: how to build it from ``params`` and what it can show.

    ``target`` is ``"module:Class"`` (imported lazily, so a solver that has not
    landed just reports itself unavailable); ``params`` are the lab settings that
    apply; ``fixed`` extra keyword arguments; ``views`` the figures it supports;
    ``matrix`` the fitted attribute holding the learned matrix.
    """

    name: str
    label: str
    task: str
    target: str
    params: tuple[str, ...]
    views: tuple[str, ...]
    matrix: str | None = None
    description: str = ""
    fixed: tuple[tuple[str, Any], ...] = ()
    rename: tuple[tuple[str, str], ...] = ()  # (setting, estimator parameter) overrides

    def load(self) -> type:
        module, cls = self.target.split(":")
        return getattr(importlib.import_module(module), cls)
