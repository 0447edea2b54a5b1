r"""The atlas: where a learned kernel's gain holds, measured over data sets, σ, C and seeds.

    python -m nplk_lab.model.atlas                 # the full atlas (about 15 min, 2 cores)
    python -m nplk_lab.model.atlas --quick         # re-measure a few cells, compare verdicts
    python -m nplk_lab.model.atlas --dask tcp://host:8786   # on a Dask cluster

For every method (DANK, KNPL, ONK on classification; DANK-SVR, LAB RBF on regression),
every data set of :mod:`.atlas_data`, every σ of :data:`SIGMAS` and C of :data:`CS`, and
data seeds 0–9, one split is scored six ways (the lab's score table, :mod:`.ablation`):

* ``method`` — the method with its paper's out-of-sample rule;
* ``off`` — the same learned α and b with the learned matrix switched off at test time
  (DANK, DANK-SVR: F = 11ᵀ; KNPL: G = 11ᵀ; ONK's learned kernel never reaches a test
  point, so ``off`` equals ``method`` there; LAB RBF: the paper's model with one
  shared bandwidth on the same support points, its coefficients refitted);
* ``nn`` — 1-nearest neighbour (k-NN regression with k = 1);
* ``plain`` — the plain SVM / SVR with the same σ and C (also at 10 C and 100 C, to ask
  whether a gain with the matrix off is what a larger C would give);
* ``cv`` — the tuned baseline: SVM-CV / SVR-CV, σ and C by 5-fold CV on the training
  split only (one per data set and seed);
* and how often the method's, the off model's and the plain baseline's labels agree with
  1-NN's (regression: closeness 1 − Σ(ŷ − ŷ₁ₙₙ)² / Σ(y − ȳ)²).

Scores are test accuracy (classification) or test R² = 1 − relative error (regression),
in points (× 100). Each cell's comparisons are paired over the seeds with a 95 %
t-interval (:func:`nplk_lab.model.paired.paired`), and a cell's *region* follows from
them (:func:`region`). LAB RBF takes neither σ nor C: its row is the same at every cell
of a data set and seed, only the baselines move.

The full table is committed as ``reports/atlas/atlas.csv`` (one row per cell) and
``reports/atlas/seeds.csv.gz`` (one row per cell and seed), with the command and the
time it took in ``reports/atlas/README.md``. ``tests/test_atlas.py`` re-runs the quick
cells and fails when a committed verdict changes. Never imports streamlit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from .. import paired as P
from ..settings_table import CLASSIFICATION, REGRESSION
from .atlas_cache import cache_path, cell_of, read_cached, write_cached  # noqa: F401
from .atlas_data import SETS, load
from .atlas_files import DEFAULT_OUT, load_atlas, read_csv, table_path, write_csv  # noqa: F401

SIGMAS = (0.1, 0.2, 0.5, 1.0, 2.0, 4.5, 10.0, 20.0)
CS = (0.1, 1.0, 10.0, 100.0)
SEEDS = tuple(range(10))
#: the methods and the task each is measured on (LAB RBF: its regression estimator)
METHODS = {"dank": CLASSIFICATION, "knpl": CLASSIFICATION, "onk": CLASSIFICATION,
           "dank_svr": REGRESSION, "lab_rbf_reg": REGRESSION}
#: methods whose test points borrow the learned matrix's row of a nearest training point
NN_RULE_METHODS = ("dank", "knpl", "dank_svr")

#: the predictions every cell and seed scores (``score_<name>``; the keys of
#: :func:`measure_set`'s predictions), and those whose agreement with 1-NN is kept too
#: (``agree_<name>``). A new column of the atlas (another out-of-sample rule, say) is a
#: prediction in :func:`measure_set`, its name here and its comparisons below; a run's
#: cache then measures it everywhere (:mod:`.atlas_cache`)
SCORED = ("method", "off", "nn", "plain", "plain10", "plain100", "cv")
AGREED = ("method", "off", "plain")

#: the paired comparisons of a cell: name -> (minuend, subtrahend), scores in points
COMPARISONS = {
    "gain": ("method", "plain"),            # the method against the same-(σ, C) baseline
    "off_gain": ("off", "plain"),           # the learned matrix switched off, same baseline
    "method_vs_nn": ("method", "nn"),
    "method_vs_off": ("method", "off"),     # what the learned part adds at test time
    "cv_gap": ("cv", "method"),             # the tuned baseline against the method
    "cv_best": ("cv", "best_other"),        # the tuned baseline against the best of the rest
    "agree_gap": ("agree_method", "agree_plain"),  # who follows 1-NN more
    "off_vs_plain10": ("off", "plain10"),
    "off_vs_plain100": ("off", "plain100"),
    "off_vs_cv": ("off", "cv"),
}

#: the regions of a map, in the order they take precedence
REGIONS = ("matrix_alone", "nn_rule", "gain_other", "tuned_best", "worse", "none")
REGION_WORDS = {
    "matrix_alone": "the learned matrix alone beats the same baseline (gain survives "
                    "with it switched off)",
    "nn_rule": "the method beats the baseline and follows 1-NN more than it does "
               "(the nearest-neighbour rule carries the gain)",
    "gain_other": "the method beats the baseline; neither the matrix alone nor the "
                  "1-NN rule explains it clearly",
    "tuned_best": "the tuned baseline beats every other row",
    "worse": "the method scores below the same baseline",
    "none": "no difference the seeds can tell",
}

#: the cells ``--quick`` re-measures (method, data set, σ, C): the states the issue
#: names, the presets' states and one cell of every method
QUICK_CELLS = (
    ("dank", "clowns", 10.0, 10.0),
    ("dank", "clowns", 1.0, 1.0),
    ("dank", "sandwich", 4.5, 10.0),
    ("knpl", "sandwich", 1.0, 1.0),
    ("onk", "moons", 1.0, 1.0),
    ("dank_svr", "step", 10.0, 10.0),
    ("lab_rbf_reg", "chirp", 1.0, 1.0),
)


# ---------------------------------------------------------------------------
# one data set at one seed
# ---------------------------------------------------------------------------

def _fit(method: str, params: dict, X, y):
    """A fitted estimator of the lab's registry (the page's defaults for every other
    parameter) and whether it warned that it did not converge."""
    from sklearn.exceptions import ConvergenceWarning

    from ..methods import make_estimator

    est, _ = make_estimator(method, params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return est, warned


def _scores(task: str, y: np.ndarray, p: np.ndarray, nn: np.ndarray) -> tuple[float, float]:
    """(score, agreement with 1-NN) of predictions ``p``."""
    from ..ablation import _closeness
    from ..methods import relative_error

    p = np.asarray(p)
    if task == CLASSIFICATION:
        return float(np.mean(p == y)), float(np.mean(p == nn))
    return 1.0 - relative_error(y, p), _closeness(y, p, nn)


def _lab_rbf_off(est, X_train: np.ndarray, y_train: np.ndarray, X: np.ndarray
                 ) -> np.ndarray:
    """LAB RBF with its learned part switched off: the paper's model with one shared
    bandwidth on the same support points, coefficients refitted to the support labels,
    the width chosen on LAB RBF's own validation points
    (:func:`nplk_lab.model.lab_rbf_halves.shared_bandwidth`). Keeping the learned
    coefficients with the shared width instead is no model at all (their R² reaches
    −10⁶: they were fitted to narrow kernels)."""
    from ..lab_rbf_halves import shared_bandwidth

    predict, _ = shared_bandwidth(est, X_train, y_train)
    return predict(X)


def measure_set(name: str, seed: int, cells: Sequence[tuple[str, float, float]]
                ) -> list[dict]:
    """One row per ``(method, σ, C)`` of ``cells`` on data set ``name`` at data seed
    ``seed`` (the job one worker runs: the data, 1-NN and the tuned baseline are shared
    by all its cells)."""
    from ..ablation import nearest_labels, off_predict, smooth_predict

    task = SETS[name].task
    d = load(name, seed)
    y = np.asarray(d.y_test)
    nn = nearest_labels(d.X_train, d.y_train, d.X_test)
    base = "svm" if task == CLASSIFICATION else "svr"
    t0 = time.perf_counter()
    cv, _ = _fit(base + "_cv", {"seed": seed}, d.X_train, d.y_train)
    cv_pred = cv.predict(d.X_test)
    plain: dict[tuple[float, float], np.ndarray] = {}

    def plain_pred(sigma: float, C: float) -> np.ndarray:
        if (sigma, C) not in plain:
            est, _ = _fit(base, {"sigma": sigma, "C": C, "seed": seed}, d.X_train, d.y_train)
            plain[(sigma, C)] = est.predict(d.X_test)
        return plain[(sigma, C)]

    lab_rbf = None
    rows = []
    for method, sigma, C in cells:
        sigma, C = float(sigma), float(C)
        row = {"method": method, "dataset": name, "task": task, "sigma": sigma, "C": C,
               "seed": int(seed), "n_test": int(len(y)), "error": ""}
        t1 = time.perf_counter()
        try:
            if method == "lab_rbf_reg":   # takes neither σ nor C: one fit per job
                if lab_rbf is None:
                    est, warned = _fit(method, {"seed": seed}, d.X_train, d.y_train)
                    lab_rbf = est, warned, _lab_rbf_off(est, d.X_train, d.y_train,
                                                        d.X_test)
                est, warned, off = lab_rbf
            else:
                est, warned = _fit(method, {"sigma": sigma, "C": C, "seed": seed},
                                   d.X_train, d.y_train)
                off = off_predict(est, d.X_test, task)
            pred = est.predict(d.X_test)
            smooth = smooth_predict(est, d.X_test) if method in SMOOTH_METHODS else None
        except (ValueError, np.linalg.LinAlgError, FloatingPointError) as exc:
            row.update(error=f"{type(exc).__name__}: {str(exc)[:200]}", warned=False,
                       fit_s=time.perf_counter() - t1)
            rows.append(row)
            continue
        row["fit_s"] = time.perf_counter() - t1
        row["warned"] = bool(warned)
        preds = {"method": pred, "off": off, "plain": plain_pred(sigma, C),
                 "plain10": plain_pred(sigma, 10 * C), "plain100": plain_pred(sigma, 100 * C),
                 "cv": cv_pred, "nn": nn}
        for key, p in preds.items():
            s, a = _scores(task, y, p, nn)
            row["score_" + key] = s
            if key in AGREED:
                row["agree_" + key] = a
        row.update(per_point_intervals(method, y, preds))
        # the smooth rule's column: NaN for a method without the rule, so every row of
        # a run has every column (a run's cache counts a row complete by its columns)
        row["score_smooth"], row["agree_smooth"] = (
            _scores(task, y, smooth, nn) if smooth is not None else (np.nan, np.nan))
        rows.append(row)
    for row in rows:
        row["set_s"] = time.perf_counter() - t0
    return rows


#: the score table's intervals over one split's test points, kept per cell and seed so
#: its paragraph (:func:`nplk_lab.model.ablation.verdict`) can be written again at every
#: cell and seed: name -> the :class:`~nplk_lab.model.ablation.Ablation` field it reads
POINT_INTERVALS = {"pt_gain": "method", "pt_off_gain": "off", "pt_edge": "nn_edge",
                   "pt_vs_off": "vs_off"}


def per_point_intervals(method: str, y: np.ndarray, preds: dict) -> dict[str, float]:
    """The score table's paired intervals over the test points (points of accuracy, or
    R²) for the methods with a score table (:data:`NN_RULE_METHODS`): the method and its
    off model against the plain baseline, the method's agreement with 1-NN against the
    baseline's, and the method against its off model (NaN for the other methods)."""
    from ..ablation import from_predictions

    out = {f"{k}_{p}": float("nan") for k in POINT_INTERVALS for p in ("mean", "lo", "hi")}
    if method not in NN_RULE_METHODS or preds.get("off") is None:
        return out
    a = from_predictions(method, y, {k: ("", preds[k]) for k in ("method", "off", "nn",
                                                                 "plain")})
    for k, field in POINT_INTERVALS.items():
        pr = a.vs_plain(field) if field in ("method", "off") else getattr(a, field)
        if pr is not None:
            out.update({f"{k}_mean": pr.mean, f"{k}_lo": pr.lo, f"{k}_hi": pr.hi})
    return out


# ---------------------------------------------------------------------------
# the grid, run on a pool
# ---------------------------------------------------------------------------

def full_cells(methods: Iterable[str] = METHODS, sets: Iterable[str] | None = None,
               sigmas: Sequence[float] = SIGMAS, Cs: Sequence[float] = CS
               ) -> dict[str, list[tuple[str, float, float]]]:
    """Data set -> its cells ``(method, σ, C)`` (every method of the set's task)."""
    methods = list(methods)
    out: dict[str, list[tuple[str, float, float]]] = {}
    for name in (sets if sets is not None else SETS):
        task = SETS[name].task
        cells = [(m, s, C) for m in methods if METHODS[m] == task for s in sigmas for C in Cs]
        if cells:
            out[name] = cells
    return out


def _by_set(cells: Iterable[tuple[str, str, float, float]]
            ) -> dict[str, list[tuple[str, float, float]]]:
    out: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for m, name, s, C in cells:
        if (m, s, C) not in out[name]:
            out[name].append((m, s, C))
    return dict(out)


def quick_cells() -> dict[str, list[tuple[str, float, float]]]:
    """The cells ``--quick`` re-measures, by data set."""
    return _by_set(QUICK_CELLS)


def claim_cells() -> dict[str, list[tuple[str, float, float]]]:
    """The cells the lab's sentences speak of (:mod:`nplk_lab.model.claims`), by data set:
    measured again at data seeds the atlas did not use (``--first-seed 10``)."""
    from ..claims import CLAIM_CELLS
    return _by_set(QUICK_CELLS + CLAIM_CELLS)


def run(cells: dict[str, list[tuple[str, float, float]]], seeds: Sequence[int] = SEEDS, *,
        n_jobs: int | None = None, dask: str | None = None, progress=None,
        cache: Path | None = None) -> tuple[list[dict], dict]:
    """Every ``(data set, seed)`` job on joblib's process pool (loky; ``n_jobs`` workers,
    default every core) or on the Dask cluster at ``dask``. Returns the per-seed rows and
    how the run went (seconds, jobs, backend, workers, jobs taken from the cache).

    With ``cache`` (a folder), each job's rows are written there as it finishes
    (:func:`cache_path`) and a later run measures only the cells a job's file lacks, or
    whose rows lack a column of :data:`SEED_COLUMNS` (a column added to the atlas is
    measured again everywhere): an interrupted run resumes where it stopped."""
    from nplk_core.parallel import dask_backend, dask_client, iter_fits

    t0 = time.perf_counter()
    rows: list[dict] = []
    tasks: list[tuple[str, int, list]] = []
    kept: dict[tuple[str, int], list[dict]] = {}
    for name, cs in cells.items():
        for seed in seeds:
            have = read_cached(cache, name, int(seed), SEED_COLUMNS) if cache else []
            done = {cell_of(r) for r in have}
            todo = [c for c in cs if (c[0], float(c[1]), float(c[2])) not in done]
            wanted = {(m, float(s), float(C)) for m, s, C in cs}
            rows.extend(r for r in have if cell_of(r) in wanted)
            if todo:
                tasks.append((name, int(seed), todo))
                kept[(name, int(seed))] = have
    n_jobs = n_jobs or os.cpu_count() or 1
    backend = "loky"

    def collect(it):
        for i, (k, out) in enumerate(it, 1):
            rows.extend(out)
            if cache:
                name, seed, _ = tasks[k]
                write_cached(cache, name, seed, kept[(name, seed)] + out)
            if progress is not None:
                progress(i, len(tasks))

    if dask and tasks:
        client = dask_client(dask)
        backend = "dask"
        with dask_backend(client):
            collect(iter_fits(measure_set, tasks, n_jobs=-1))
    elif tasks:
        collect(iter_fits(measure_set, tasks, n_jobs=n_jobs))
    rows.sort(key=_row_key)
    n_all = len(cells) * len(seeds)
    info = {"seconds": time.perf_counter() - t0, "jobs": n_all, "backend": backend,
            "workers": n_jobs if not dask else "dask", "fits": len(rows),
            "cached_jobs": n_all - len(tasks)}
    return rows, info


def _row_key(r: dict):
    return (list(METHODS).index(r["method"]), list(SETS).index(r["dataset"]),
            float(r["sigma"]), float(r["C"]), int(r.get("seed", -1)))


# ---------------------------------------------------------------------------
# a cell's comparisons and region
# ---------------------------------------------------------------------------

def _column(rows: list[dict], key: str) -> np.ndarray:
    if key == "best_other":
        return np.max(np.column_stack([_column(rows, k) for k in
                                       ("score_method", "score_off", "score_nn",
                                        "score_plain")]), axis=1)
    return np.array([float(r.get(key, np.nan)) for r in rows], dtype=float)


def _key(name: str) -> str:
    return name if name.startswith("agree_") or name == "best_other" else "score_" + name


def summarize(seed_rows: Iterable[dict]) -> list[dict]:
    """One row per cell: mean scores, each comparison's paired mean, 95 % interval and
    verdict over the seeds, and the cell's region."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in seed_rows:
        groups[(r["method"], r["dataset"], float(r["sigma"]), float(r["C"]))].append(r)
    out = []
    for (method, name, sigma, C), rs in groups.items():
        ok = [r for r in rs if not r.get("error")]
        row = {"method": method, "dataset": name, "task": SETS[name].task, "sigma": sigma,
               "C": C, "n_seeds": len(ok), "errors": len(rs) - len(ok),
               "warned": sum(bool(r.get("warned")) for r in ok),
               "fit_s": float(np.mean(_column(ok, "fit_s"))) if ok else float("nan")}
        for k in SCORED:
            row["score_" + k] = float(np.mean(_column(ok, "score_" + k))) if ok else np.nan
        for k in AGREED:
            row["agree_" + k] = float(np.mean(_column(ok, "agree_" + k))) if ok else np.nan
        for name_c, (a, b) in COMPARISONS.items():
            if len(ok) < 2:
                row.update({f"{name_c}_mean": np.nan, f"{name_c}_lo": np.nan,
                            f"{name_c}_hi": np.nan, f"{name_c}_verdict": P.SHOWN})
                continue
            p = P.paired(_column(ok, _key(a)), _column(ok, _key(b)), label=name_c,
                         unit="points", scale=100.0)
            row.update({f"{name_c}_mean": p.mean, f"{name_c}_lo": p.lo,
                        f"{name_c}_hi": p.hi, f"{name_c}_verdict": p.verdict})
        row["region"] = region(row)
        summarize_smooth(row, ok)
        out.append(row)
    out.sort(key=_row_key)
    return out


#: methods whose learned matrix the smooth rule carries to test points instead of a
#: borrowed row (:mod:`nplk_core.extension`): an extra column of the atlas
SMOOTH_METHODS = NN_RULE_METHODS
#: the smooth rule's comparisons: against the same baseline, what its F adds at test
#: time beyond F switched off, the tuned baseline against it, and who follows 1-NN more
SMOOTH_COMPARISONS = {
    "smooth_gain": ("smooth", "plain"),
    "smooth_vs_off": ("smooth", "off"),
    "smooth_cv_gap": ("cv", "smooth"),
    "smooth_agree_gap": ("agree_smooth", "agree_plain"),
}
#: the smooth rule's regions, in the order they take precedence (their words:
#: :data:`nplk_lab.model.atlas.atlas_report.SMOOTH_REGION_WORDS`)
SMOOTH_REGIONS = ("no_copy", "tuned_better", "worse", "none")


def summarize_smooth(row: dict, ok: list[dict]) -> None:
    """Add the smooth rule's mean score, agreement with 1-NN, paired comparisons
    (:data:`SMOOTH_COMPARISONS`) and region (:func:`smooth_region`) to a summary
    ``row`` from its seeds' rows ``ok``; nothing for a method without the rule or rows
    measured before it had one."""
    if row["method"] not in SMOOTH_METHODS or not ok or \
            not np.all(np.isfinite(_column(ok, "score_smooth"))):
        return
    row["score_smooth"] = float(np.mean(_column(ok, "score_smooth")))
    row["agree_smooth"] = float(np.mean(_column(ok, "agree_smooth")))
    for name_c, (a, b) in SMOOTH_COMPARISONS.items():
        if len(ok) < 2:
            row.update({f"{name_c}_mean": np.nan, f"{name_c}_lo": np.nan,
                        f"{name_c}_hi": np.nan, f"{name_c}_verdict": P.SHOWN})
            continue
        p = P.paired(_column(ok, _key(a)), _column(ok, _key(b)), label=name_c,
                     unit="points", scale=100.0)
        row.update({f"{name_c}_mean": p.mean, f"{name_c}_lo": p.lo,
                    f"{name_c}_hi": p.hi, f"{name_c}_verdict": p.verdict})
    row["smooth_region"] = smooth_region(row)


def smooth_region(row: dict) -> str:
    """The cell's region under the smooth rule, the first of :data:`SMOOTH_REGIONS`
    whose rule holds:

    * ``no_copy`` — with the smooth rule the method beats the same-(σ, C) baseline
      (``smooth_gain``) and the tuned baseline is not better (``smooth_cv_gap`` does not
      hold): the learned kernel helps at test time without copying a training row;
    * ``tuned_better`` — it beats the same baseline, but the tuned one beats it;
    * ``worse`` — it scores below the same baseline;
    * ``none`` — no difference the seeds can tell.
    """
    if holds(row, "smooth_gain"):
        return "tuned_better" if holds(row, "smooth_cv_gap") else "no_copy"
    if is_loss(row, "smooth_gain"):
        return "worse"
    return "none"


def holds(row: dict, comparison: str) -> bool:
    """Whether ``comparison``'s whole interval lies above 0 in a summary row."""
    return row.get(f"{comparison}_verdict") == P.HOLDS


def is_loss(row: dict, comparison: str) -> bool:
    """Whether ``comparison``'s whole interval lies below 0 (a loss, not a tie)."""
    try:
        return float(row[f"{comparison}_hi"]) < 0
    except (KeyError, TypeError, ValueError):
        return False


def region(row: dict) -> str:
    """The cell's region, the first of :data:`REGIONS` whose rule holds:

    * ``matrix_alone`` — the off model beats the same-(σ, C) baseline (``off_gain``);
    * ``nn_rule`` — the method beats it, its test rule borrows a nearest training
      point's row (:data:`NN_RULE_METHODS`) and it agrees with 1-NN more than the
      baseline does (``gain`` and ``agree_gap``);
    * ``gain_other`` — the method beats it, for neither of those reasons;
    * ``tuned_best`` — the tuned baseline beats the best of the other rows (``cv_best``);
    * ``worse`` — the method scores below the same baseline;
    * ``none`` — none of these can be told apart over the seeds.
    """
    if holds(row, "off_gain"):
        return "matrix_alone"
    if holds(row, "gain"):
        nn_rule = row["method"] in NN_RULE_METHODS and holds(row, "agree_gap")
        return "nn_rule" if nn_rule else "gain_other"
    if holds(row, "cv_best"):
        return "tuned_best"
    if is_loss(row, "gain"):
        return "worse"
    return "none"


def signature(row: dict) -> tuple:
    """What ``--quick`` compares: the region and the judged comparisons' verdicts."""
    return (row["region"],) + tuple(str(row.get(f"{c}_verdict")) for c in
                                    ("gain", "off_gain", "agree_gap", "cv_best"))


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------

SEED_COLUMNS = (("method", "dataset", "task", "sigma", "C", "seed", "n_test")
                + tuple(f"score_{k}" for k in SCORED) + tuple(f"agree_{k}" for k in AGREED)
                + tuple(f"{k}_{p}" for k in POINT_INTERVALS for p in ("mean", "lo", "hi"))
                + ("fit_s", "set_s", "warned", "error", "score_smooth", "agree_smooth"))


def summary_columns() -> tuple[str, ...]:
    return (("method", "dataset", "task", "sigma", "C", "n_seeds", "errors", "warned",
             "fit_s") + tuple(f"score_{k}" for k in SCORED)
            + tuple(f"agree_{k}" for k in AGREED)
            + tuple(f"{c}_{p}" for c in COMPARISONS for p in ("mean", "lo", "hi", "verdict"))
            + ("region", "score_smooth", "agree_smooth")
            + tuple(f"{c}_{p}" for c in SMOOTH_COMPARISONS
                    for p in ("mean", "lo", "hi", "verdict"))
            + ("smooth_region",))


def compare(committed: Iterable[dict], fresh: Iterable[dict]) -> list[str]:
    """Plain-text lines for each fresh cell whose :func:`signature` differs from the
    committed one (or that the committed atlas lacks)."""
    index = {(r["method"], r["dataset"], float(r["sigma"]), float(r["C"])): r
             for r in committed}
    out = []
    for r in fresh:
        key = (r["method"], r["dataset"], float(r["sigma"]), float(r["C"]))
        old = index.get(key)
        if old is None:
            out.append(f"{key}: not in the committed atlas")
        elif signature(old) != signature(r):
            out.append(f"{key}: committed {signature(old)}, now {signature(r)}")
    return out


from .atlas_report import headline_markdown, write_report  # noqa: E402


def _print_claims(out: Path) -> int:
    """Every claim's numbers from the committed tables in ``out`` (the atlas and
    ``held-out/``) and what its check finds, to update
    :data:`nplk_lab.model.claims.NUMBERS` after a new run."""
    from ..claims import CLAIMS, NPKL_CLAIMS

    atlas = load_atlas(out / "atlas.csv")
    held = load_atlas(out / "held-out" / "atlas.csv")
    for c in CLAIMS:
        print(f"{c.key}: {c.values(atlas, held)}; {c.check(atlas, held) or 'holds'}")
    npkl = read_csv(out / "simple_npkl.csv") if (out / "simple_npkl.csv").exists() else []
    for c in NPKL_CLAIMS:
        print(f"{c.key}: {c.values(npkl, [])}")
    return 0


def _report_only(out: Path) -> int:
    """``out/README.md`` from ``out/atlas.csv`` and ``out/run.json``, with the held-out
    table's changes when ``out/held-out/atlas.csv`` exists."""
    cells = read_csv(out / "atlas.csv")
    info = json.loads((out / "run.json").read_text())
    held_path = out / "held-out" / "atlas.csv"
    held = read_csv(held_path) if held_path.exists() else []
    write_report(cells, info, out / "README.md", command=info["command"],
                 seeds=info["seeds"], note=info.get("note", ""), held=held)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nplk_lab.model.atlas",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="re-measure the quick cells and compare with the committed atlas")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    ap.add_argument("--dask", default=None, help="a Dask scheduler's address")
    ap.add_argument("--methods", nargs="*", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--sets", nargs="*", default=None, choices=list(SETS))
    ap.add_argument("--seeds", type=int, default=len(SEEDS), help="how many data seeds")
    ap.add_argument("--first-seed", type=int, default=0,
                    help="the first data seed (10 with --seeds 10: the held-out draws)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="a folder for each job's rows: a run stopped part-way resumes "
                         "from it (default: <out>/.cache; --no-cache to measure afresh)")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--claims", action="store_true",
                    help="print the numbers of every sentence of nplk_lab/model/claims.py "
                         "from the committed tables (no fitting)")
    ap.add_argument("--report", action="store_true",
                    help="write README.md again from the committed tables and run.json "
                         "(no fitting)")
    ap.add_argument("--cells", choices=("all", "quick", "claims"), default="all",
                    help="which cells: the whole grid, the quick cells, or the cells the "
                         "lab's sentences speak of")
    a = ap.parse_args(argv)
    seeds = tuple(range(a.first_seed, a.first_seed + a.seeds))

    def progress(i, n):
        print(f"\r{i}/{n} jobs", end="", file=sys.stderr, flush=True)

    if a.quick:
        rows, info = run(quick_cells(), seeds, n_jobs=a.workers, dask=a.dask,
                         progress=progress)
        fresh = summarize(rows)
        print(file=sys.stderr)
        diffs = compare(load_atlas(a.out / "atlas.csv"), fresh)
        print(headline_markdown(fresh, cells_only=True))
        print(f"{len(fresh)} cells, {info['seconds']:.0f} s on {info['backend']} "
              f"({info['workers']} workers)")
        print("\n".join(diffs) if diffs else "every verdict as committed")
        return 1 if diffs else 0
    chosen = {"all": lambda: full_cells(a.methods, a.sets), "quick": quick_cells,
              "claims": claim_cells}[a.cells]()
    if a.report:
        return _report_only(a.out)
    if a.claims:
        return _print_claims(a.out)
    cache = None if a.no_cache else (a.cache or a.out / ".cache")
    rows, info = run(chosen, seeds, n_jobs=a.workers, dask=a.dask, progress=progress,
                     cache=cache)
    print(file=sys.stderr)
    cells = summarize(rows)
    write_csv(rows, SEED_COLUMNS, a.out / "seeds.csv.gz")
    write_csv(cells, summary_columns(), a.out / "atlas.csv")
    info = {**info, "command": " ".join(argv if argv is not None else sys.argv[1:]),
            "seeds": list(seeds)}
    (a.out / "run.json").write_text(json.dumps(info, indent=1) + "\n")
    _report_only(a.out)
    print(headline_markdown(cells))
    print(f"{len(cells)} cells, {len(rows)} fits, {info['seconds']:.0f} s on "
          f"{info['backend']} ({info['workers']} workers); written to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
