"""The sample CSV files under ``sample_data/``: every registry data set at its defaults,
and three bad files whose errors the lab names by row and column.

``python -m nplk_core.datasets [directory]`` (re)writes them (default: ``sample_data/``
next to the package).
"""

from __future__ import annotations

import os
from pathlib import Path

from .csv_files import dataset_to_csv
from .generators import make_clowns
from .registry import DATASETS, make_dataset

SAMPLE_DATA_DIR = Path(__file__).resolve().parents[2] / "sample_data"


_SAMPLE_COLUMNS = {"step": (["x"], "y"), "chirp": (["x"], "y"), "harmonic": (["u", "v"], "y")}


def write_sample_data(directory: str | os.PathLike | None = None) -> list[Path]:
    """Write every registry data set (defaults, ``random_state=0``) and the bad examples.

    Returns the paths written. Features get 8 significant digits.
    """
    out = Path(directory) if directory is not None else SAMPLE_DATA_DIR
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in DATASETS:
        X, y = make_dataset(name, random_state=0)
        cols, label = _SAMPLE_COLUMNS.get(name, (None, "label"))
        path = out / f"{name}.csv"
        path.write_text(dataset_to_csv(X, y, feature_names=cols, label_name=label,
                                       precision=8))
        written.append(path)

    X, y = make_clowns(30, random_state=1)
    good = dataset_to_csv(X, y, precision=6).splitlines()

    def bad(fname: str, row: int, col: int, value: str, lines: list[str]) -> None:
        lines = list(lines)
        cells = lines[row - 1].split(",")
        cells[col - 1] = value
        lines[row - 1] = ",".join(cells)
        path = out / fname
        path.write_text("\n".join(lines) + "\n")
        written.append(path)

    bad("bad_nan.csv", 5, 2, "nan", good)        # row 5, column x2
    bad("bad_text.csv", 8, 1, "two", good)       # row 8, column x1
    one_class = [good[0]] + [ln.rsplit(",", 1)[0] + ",1" for ln in good[1:]]
    path = out / "bad_one_class.csv"
    path.write_text("\n".join(one_class) + "\n")
    written.append(path)
    return written
