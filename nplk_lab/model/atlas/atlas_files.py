"""The atlas's files: its CSV tables (``.csv`` or ``.csv.gz``), written byte for byte the
same for the same rows, read back with numbers as floats, and where the committed ones
are (:mod:`nplk_lab.model.atlas.atlas` measures them). Pure Python and numpy.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path("reports/atlas")


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if not np.isfinite(v) else f"{v:.6g}"
    return str(v)


def write_csv(rows: Iterable[dict], columns: Sequence[str], path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_fmt(r.get(c, "")) for c in columns])
    data = buf.getvalue().encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        with open(path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
            gz.write(data)
    else:
        path.write_bytes(data)


_NUMERIC_TEXT = {"method", "dataset", "task", "region", "smooth_region", "error"}


def read_csv(path: Path) -> list[dict]:
    """Rows of an atlas CSV (``.csv`` or ``.csv.gz``): numbers as floats, True/False as
    bools, verdicts and names as text."""
    path = Path(path)
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    rows = []
    for r in csv.DictReader(io.StringIO(raw.decode())):
        out = {}
        for k, v in r.items():
            if k in _NUMERIC_TEXT or k.endswith("_verdict"):
                out[k] = v
            elif v in ("True", "False"):
                out[k] = v == "True"
            elif v == "":                     # a column this row has no value in
                out[k] = float("nan")
            else:
                try:
                    out[k] = float(v)
                except ValueError:
                    out[k] = v
        rows.append(out)
    return rows


def table_path(name: str = "atlas.csv") -> Path:
    """Where a committed atlas table is: ``reports/atlas/<name>`` of the checkout the lab
    runs from, else of the working directory (an installed lab has no checkout)."""
    path = Path(__file__).resolve().parents[3] / DEFAULT_OUT / name
    return path if path.exists() else Path.cwd() / DEFAULT_OUT / name


def load_atlas(path: Path | None = None) -> list[dict]:
    """The committed atlas (one row per cell); [] when it is missing."""
    p = Path(path) if path else table_path("atlas.csv")
    return read_csv(p) if p.exists() else []


__all__ = ["DEFAULT_OUT", "load_atlas", "read_csv", "table_path", "write_csv"]
