"""The atlas run's cache: each job's rows (one data set at one data seed) in a file of
their own, so a run stopped part-way resumes where it stopped
(:func:`nplk_lab.model.atlas.atlas.run`).

A file holds the rows as JSON (numbers, NaN, text and booleans as the run made them) and
is written atomically. A row counts as cached only when it has every column the atlas
measures now, so a column added to the atlas is measured again everywhere. Pure Python.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path


def cell_of(r: dict) -> tuple[str, float, float]:
    """(method, σ, C) of a per-seed row."""
    return (r["method"], float(r["sigma"]), float(r["C"]))


def complete(r: dict, columns: Sequence[str]) -> bool:
    """Whether a cached row has every one of ``columns`` (a failed fit's row has its
    error instead of scores)."""
    return bool(r.get("error")) or all(c in r for c in columns if c != "error")


def cache_path(cache: Path, name: str, seed: int) -> Path:
    """The file of one job's rows in a run's cache folder."""
    return Path(cache) / f"{name}-seed{int(seed)}.json"


def read_cached(cache: Path, name: str, seed: int, columns: Sequence[str]) -> list[dict]:
    """The complete rows a cache holds for data set ``name`` at ``seed`` ([] if none)."""
    path = cache_path(cache, name, seed)
    try:
        rows = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return [r for r in rows if isinstance(r, dict) and complete(r, columns)]


def write_cached(cache: Path, name: str, seed: int, rows: list[dict]) -> None:
    """Write one job's rows (atomically: a killed run leaves the old file or the new)."""
    path = cache_path(cache, name, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(rows))
    os.replace(tmp, path)


__all__ = ["cache_path", "cell_of", "complete", "read_cached", "write_cached"]
