"""The atlas's SimpleNPKL part: where kernel k-means on the kernel learned from pairs
beats plain k-means, over data sets, the share of labels the pairs come from and C.

    python -m nplk_lab.model.atlas.atlas_npkl            # about 10 min on two cores

SimpleNPKL ("A Family of Simple Non-Parametric Kernel Learning Algorithms") has no σ or
C of a classifier: it learns a kernel from must-link and cannot-link pairs drawn from a
share of the labels, with its own C. Each cell (data set, share of labels, C) is scored
as the Pairwise constraints page scores it (:func:`nplk_lab.model.methods.fit_pairwise`:
the Rand index of the learned kernel's clusters and of plain k-means against the true
classes, on every point) at data seeds 0–9; the paired difference over the seeds with its
95 % interval decides the cell's region. Written to ``reports/atlas/simple_npkl.csv``
(one row per cell) and ``simple_npkl_seeds.csv.gz`` (one row per cell and seed).
Never imports streamlit.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from .. import paired as P
from .atlas import DEFAULT_OUT, SEEDS, read_csv, write_csv
from .atlas_data import SETS, load

#: the pairs' share of labels and SimpleNPKL's C
FRACTIONS = (0.02, 0.05, 0.1, 0.2, 0.3)
NPKL_CS = (0.01, 0.1, 1.0, 10.0)
#: two-class sets the Pairwise constraints page's k-means (two clusters) applies to
NPKL_SETS = ("clowns", "sandwich", "moons", "circles", "chessboard", "spiral",
             "sk_classification", "sk_blobs_xor")
NPKL_REGIONS = ("beats_kmeans", "kmeans_better", "none")
NPKL_REGION_WORDS = {"beats_kmeans": "the learned kernel's clusters beat plain k-means",
                     "kmeans_better": "plain k-means beats the learned kernel's clusters",
                     "none": "no difference the draws can tell"}
#: cells ``tests/test_atlas_npkl.py`` re-measures (data set, share, C)
QUICK = (("spiral", 0.3, 0.1), ("clowns", 0.05, 10.0))


def _points(name: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every point of ``name`` at ``seed`` (the page clusters them all)."""
    spec = SETS[name]
    if spec.source == "lab":
        from ..data import prepare_data
        data, msgs = prepare_data({"dataset": name, "seed": int(seed)}, spec.task)
        if data is None:
            raise ValueError(f"could not make {name} at seed {seed}: {msgs}")
        return data.X, data.y
    d = load(name, seed)
    return np.vstack([d.X_train, d.X_test]), np.concatenate([d.y_train, d.y_test])


def measure_npkl_set(name: str, seed: int, cells: Sequence[tuple[float, float]]
                     ) -> list[dict]:
    """One row per ``(share of labels, C)`` on ``name`` at data seed ``seed``."""
    from ..methods import fit_pairwise

    X, y = _points(name, seed)
    rows = []
    for frac, C in cells:
        res = fit_pairwise({"dataset": name if SETS[name].on_a_page else "clowns",
                            "seed": int(seed), "constraint_fraction": float(frac),
                            "npkl_C": float(C)}, X, y)
        err = "; ".join(m.text for m in res.messages if m.level == "error")[:200]
        rows.append({"dataset": name, "fraction": float(frac), "C": float(C),
                     "seed": int(seed), "rand": float(res.rand) if res.ok else np.nan,
                     "rand_kmeans": float(res.rand_kmeans) if res.ok else np.nan,
                     "fit_s": float(res.fit_time or 0.0), "error": err})
    return rows


def run_npkl(cells: dict[str, list[tuple[float, float]]], seeds: Sequence[int] = SEEDS, *,
             n_jobs: int | None = None) -> tuple[list[dict], float]:
    """Every (data set, seed) job on joblib's process pool; the rows and the seconds."""
    import os

    from nplk_core.parallel import iter_fits

    tasks = [(name, int(s), cs) for name, cs in cells.items() for s in seeds]
    t0 = time.perf_counter()
    rows: list[dict] = []
    for i, (_, out) in enumerate(iter_fits(measure_npkl_set, tasks,
                                           n_jobs=n_jobs or os.cpu_count() or 1), 1):
        rows.extend(out)
        print(f"\r{i}/{len(tasks)} jobs", end="", file=sys.stderr, flush=True)
    rows.sort(key=lambda r: (NPKL_SETS.index(r["dataset"]), r["fraction"], r["C"],
                             r["seed"]))
    return rows, time.perf_counter() - t0


def summarize_npkl(seed_rows: Iterable[dict]) -> list[dict]:
    """One row per cell: mean Rand indices, the paired difference (learned − k-means, in
    points of the Rand index) with its 95 % interval and verdict, and the region."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in seed_rows:
        groups[(r["dataset"], float(r["fraction"]), float(r["C"]))].append(r)
    out = []
    for (name, frac, C), rs in groups.items():
        ok = [r for r in rs if not r.get("error") and np.isfinite(float(r["rand"]))]
        row = {"dataset": name, "fraction": frac, "C": C, "n_seeds": len(ok),
               "errors": len(rs) - len(ok)}
        a = np.array([float(r["rand"]) for r in ok])
        b = np.array([float(r["rand_kmeans"]) for r in ok])
        row["rand"] = float(a.mean()) if ok else np.nan
        row["rand_kmeans"] = float(b.mean()) if ok else np.nan
        if len(ok) >= 2:
            p = P.paired(a, b, label="SimpleNPKL − k-means", unit="points", scale=100.0)
            row.update(diff_mean=p.mean, diff_lo=p.lo, diff_hi=p.hi, diff_verdict=p.verdict)
        else:
            row.update(diff_mean=np.nan, diff_lo=np.nan, diff_hi=np.nan,
                       diff_verdict=P.SHOWN)
        row["region"] = npkl_region(row)
        out.append(row)
    out.sort(key=lambda r: (NPKL_SETS.index(r["dataset"]), r["fraction"], r["C"]))
    return out


def npkl_region(row: dict) -> str:
    """``beats_kmeans`` when the whole interval is above 0, ``kmeans_better`` when it is
    below 0, else ``none``."""
    if row.get("diff_verdict") == P.HOLDS:
        return "beats_kmeans"
    try:
        if float(row["diff_hi"]) < 0:
            return "kmeans_better"
    except (KeyError, TypeError, ValueError):
        pass
    return "none"


SEED_COLUMNS = ("dataset", "fraction", "C", "seed", "rand", "rand_kmeans", "fit_s", "error")
COLUMNS = ("dataset", "fraction", "C", "n_seeds", "errors", "rand", "rand_kmeans",
           "diff_mean", "diff_lo", "diff_hi", "diff_verdict", "region")


def full_npkl_cells() -> dict[str, list[tuple[float, float]]]:
    return {name: [(f, C) for f in FRACTIONS for C in NPKL_CS] for name in NPKL_SETS}


def load_npkl(path: Path | None = None) -> list[dict]:
    """The committed SimpleNPKL table; [] when it is missing."""
    from .atlas import table_path
    p = Path(path) if path else table_path("simple_npkl.csv")
    return read_csv(p) if p.exists() else []


def totals_text(cells: Sequence[dict]) -> str:
    """How many cells fall in each region, per data set, in words."""
    lines = []
    for name in NPKL_SETS:
        rs = [r for r in cells if r["dataset"] == name]
        if not rs:
            continue
        counts = {k: sum(r["region"] == k for r in rs) for k in NPKL_REGIONS}
        lines.append(f"{name}: of {len(rs)} settings, learned kernel better in "
                     f"{counts['beats_kmeans']}, k-means better in {counts['kmeans_better']}, "
                     f"no difference in {counts['none']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nplk_lab.model.atlas.atlas_npkl",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=len(SEEDS))
    a = ap.parse_args(argv)
    rows, seconds = run_npkl(full_npkl_cells(), tuple(range(a.seeds)), n_jobs=a.workers)
    print(file=sys.stderr)
    cells = summarize_npkl(rows)
    write_csv(rows, SEED_COLUMNS, a.out / "simple_npkl_seeds.csv.gz")
    write_csv(cells, COLUMNS, a.out / "simple_npkl.csv")
    print(totals_text(cells))
    print(f"{len(cells)} cells, {len(rows)} fits, {seconds:.0f} s; written to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
