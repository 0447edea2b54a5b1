"""Two-parameter maps: a method's test score, spread, rank and fit time over a grid of
two of its parameters, beside the plain baseline with the same σ and C, 1-NN, and the
learned matrix's own share (the score with it switched off at test time).

A map is a set of *lines*: the cells that share one seed and one value of the
parameter that is not warm-started, fitted one after the other along the other
parameter, each cell warm-starting from its neighbour when the method allows it
(:func:`nplk_lab.model.methods.can_warm_start`: a continuous parameter other than σ). A line
is exactly what the one-parameter sweep fits for that seed (same order, same warm
starts), so a map equals the matching sweeps cell by cell. Lines are independent tasks:
in process one after the other (progress per cell), or through
:func:`nplk_core.parallel.iter_fits` on the active joblib backend (loky processes, or
the operator's Dask cluster), each returning a few numbers per cell.

The learned matrix switched off ("F off"): DANK and KNPL predict a test point with a row
of the learned F (G) picked by an out-of-sample rule; with F' = 11ᵀ at test time the
prediction is the learned α and b with the plain kernel, f(x) = Σᵢ αᵢyᵢ k(xᵢ, x) + b.
Its score minus the baseline's is the part of the gain that something learned carries
by itself, apart from the test-time rule (which makes DANK's labels follow the nearest
training point's). :func:`f_off_predict` is :mod:`nplk_lab.model.ablation`'s, the
same one the Classification page's score table uses.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import budget
from .data import LabData, prepare_data
from .methods import METHODS, can_warm_start, fit_method, relative_error
from .results import LabResult
from .settings_table import CLASSIFICATION, Message, _msg, setting

#: The baseline drawn beside each method's map: the plain kernel machine with the same
#: σ and C (ε for SVR, λ for kernel ridge). Methods without σ or C take the page's.
BASELINES: dict[str, str] = {
    "dank": "svm", "knpl": "svm", "onk": "svm", "lab_rbf": "svm",
    "dank_svr": "svr", "lab_rbf_reg": "krr",
}

#: Methods whose learned matrix can be switched off at test time (:func:`f_off_predict`).
F_OFF_METHODS = ("dank", "dank_svr", "knpl")


# ---------------------------------------------------------------------------
# the learned matrix switched off, 1-NN
# ---------------------------------------------------------------------------

def f_off_predict(estimator: Any, X: np.ndarray, task: str) -> np.ndarray | None:
    """Predictions of a fitted DANK / DANK-SVR / KNPL model with its learned matrix
    switched off at test time (the learned α and b with the plain kernel):
    :func:`nplk_lab.model.ablation.off_predict`, the one the Classification page's score table
    uses. None for a model without a learned matrix."""
    from .ablation import off_predict
    return off_predict(estimator, X, task)


def _metric(task: str, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) == 0:
        return float("nan")
    if task == CLASSIFICATION:
        return float(np.mean(np.asarray(y_pred, dtype=float) == y_true))
    return relative_error(y_true, y_pred)


def one_nn_score(data: LabData) -> float:
    """The 1-nearest-neighbour test score on the same split (accuracy, or relative error
    for regression): what DANK's test-time rule tends to when F matters."""
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    cls = KNeighborsClassifier if data.task == CLASSIFICATION else KNeighborsRegressor
    if len(data.y_test) == 0 or len(data.y_train) == 0:
        return float("nan")
    model = cls(n_neighbors=1).fit(data.X_train, data.y_train)
    return _metric(data.task, np.asarray(data.y_test, dtype=float),
                   model.predict(data.X_test))


# ---------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------

@dataclass
class MapResult:
    """A two-parameter map. Arrays are ``(len(values2), len(values1), repeats)``: row =
    the second parameter's value (the map's y), column = the first's (x), last axis the
    seed; NaN where a fit failed or has not run (a stopped map)."""

    method: str
    param1: str
    values1: np.ndarray
    param2: str
    values2: np.ndarray
    metric: str
    scores: np.ndarray
    train_scores: np.ndarray
    ranks: np.ndarray
    times: np.ndarray
    baseline: np.ndarray | None          # the baseline's test score, same shape
    f_off: np.ndarray | None             # the method's score with F switched off
    knn: np.ndarray                      # (repeats,) 1-NN test score per seed
    baseline_method: str | None = None
    warm_param: str | None = None        # the parameter the lines run along
    seeds: tuple[int, ...] = ()
    messages: list[Message] = field(default_factory=list)
    stopped: bool = False
    iterations: np.ndarray | None = None  # solver iterations per fit (NaN: none reported)
    finished: np.ndarray | None = None    # which fits ran (failed ones included)

    @property
    def ok(self) -> bool:
        return bool(np.isfinite(self.scores).any())

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.values2.size), int(self.values1.size)

    @property
    def done(self) -> int:
        """Fits finished (cells × seeds), failed ones included."""
        return int(self.finished.sum()) if self.finished is not None else \
            int(np.isfinite(self.times).sum())

    @property
    def total(self) -> int:
        return int(self.scores.size)

    def mean(self, A: np.ndarray | None) -> np.ndarray | None:
        """Mean over seeds (NaN where no seed finished)."""
        if A is None:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(A, axis=2)

    def spread(self, A: np.ndarray | None) -> np.ndarray | None:
        """Standard deviation over seeds (0 with one seed)."""
        if A is None:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanstd(A, axis=2)

    @property
    def difference(self) -> np.ndarray | None:
        """Method − baseline per cell (mean over seeds of the paired difference)."""
        return None if self.baseline is None else self.mean(self.scores - self.baseline)

    @property
    def f_share(self) -> np.ndarray | None:
        """The learned matrix's own share: score with F off − the baseline's."""
        if self.f_off is None or self.baseline is None:
            return None
        return self.mean(self.f_off - self.baseline)


def _takes_warm_start(method: str) -> bool:
    """Whether ``method``'s estimator can start from a previous fit."""
    try:
        return "warm_start" in METHODS[method].load()().get_params()
    except (ImportError, AttributeError, TypeError):
        return False


def baseline_of(method: str) -> str | None:
    """The baseline method of ``method``'s map (None when the method is a baseline)."""
    return BASELINES.get(method)


def warm_axis(method: str, param1: str, param2: str) -> int:
    """Which parameter the lines run along: 0 (the first) when neighbouring values of it
    may warm-start each other (:func:`can_warm_start`: continuous, not σ), else 1 when
    the second's may, else 0 (every cell a cold fit)."""
    for axis, p in enumerate((param1, param2)):
        s = setting(p)
        if p in METHODS[method].params and s.continuous and s.estimator_param != "sigma":
            return axis
    return 0


# ---------------------------------------------------------------------------
# one line of cells (a task)
# ---------------------------------------------------------------------------

def _py(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def line_params(params: Mapping[str, Any], line_param: str, line_values: Sequence,
                fixed: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The parameters of each cell of a line."""
    return [{**params, **fixed, line_param: _py(v)} for v in line_values]


def summarize_cell(res: LabResult, X_test: np.ndarray, y_test: np.ndarray,
                   base: LabResult | None) -> dict:
    """What a map keeps of one fit: scores, rank, time, the baseline's score and the
    score with the learned matrix switched off (small: no estimator)."""
    off = float("nan")
    if res.ok and res.method in F_OFF_METHODS:
        pred = f_off_predict(res.estimator, X_test, res.task)
        if pred is not None:
            off = _metric(res.task, np.asarray(y_test, dtype=float), pred)
    return {"ok": res.ok, "test": res.test_score, "train": res.train_score,
            "rank": None if not res.ok or res.rank is None else int(res.rank),
            "time": res.fit_time, "off": off, "iterations": res.n_iter,
            "base": float("nan") if base is None or not base.ok else base.test_score,
            "messages": [m for m in res.messages if m.level != "info"]
            + ([] if base is None else [m for m in base.messages if m.level == "error"]),
            "pid": os.getpid()}


def run_line(params: Mapping[str, Any], method: str, line_param: str, line_values: Sequence,
             fixed: Mapping[str, Any], X_train, y_train, X_test, y_test, *,
             data_key: str = "", baseline: str | None = None,
             on_cell: Callable[[int, dict], Any] | None = None,
             callback: Callable | None = None, warm_starts: bool = True) -> list[dict]:
    """Fit ``method`` at every value of ``line_param`` (the other parameters ``fixed``)
    in order, each warm-starting from the previous cell when only a continuous parameter
    other than σ moved (the one-parameter sweep's rule); also the ``baseline`` with the
    same parameters (fitted once per distinct σ, C, ε, λ). ``on_cell(j, summary)`` after
    each cell; a True from it stops the line (the cells done are returned).
    ``warm_starts=False``: every cell a cold fit (for the benchmark's comparison)."""
    out: list[dict] = []
    prev: LabResult | None = None
    base_fits: dict[tuple, LabResult] = {}
    for j, p in enumerate(line_params(params, line_param, line_values, fixed)):
        warm = prev if warm_starts and prev is not None and prev.ok and \
            can_warm_start(prev.params, p, method) else None
        res = fit_method(p, X_train, y_train, X_test, y_test, method=method,
                         data_key=data_key, warm_from=warm, callback=callback)
        prev = res
        base = None
        if baseline is not None:
            bkey = tuple((n, p.get(n)) for n in METHODS[baseline].params)
            base = base_fits.get(bkey)
            if base is None:
                base = base_fits[bkey] = fit_method(p, X_train, y_train, X_test, y_test,
                                                    method=baseline, data_key=data_key)
        s = summarize_cell(res, X_test, y_test, base)
        out.append(s)
        if on_cell is not None and on_cell(j, s):
            break
    return out


def line_task(params, method, line_param, line_values, fixed, X_train, y_train, X_test,
              y_test, data_key, *, baseline=None, warm_starts=True) -> list[dict]:
    """:func:`run_line` as a self-contained task (module level, so a worker process can
    import it)."""
    return run_line(params, method, line_param, line_values, fixed, X_train, y_train,
                    X_test, y_test, data_key=data_key, baseline=baseline,
                    warm_starts=warm_starts)


def line_key(method: str, params: Mapping[str, Any], line_param: str, line_values: Sequence,
             fixed: Mapping[str, Any], data_key: str, baseline: str | None) -> tuple:
    """A cache key of one line: the method's parameters (the line's own and the fixed
    ones), the line's values in order (warm starts depend on it), the data and the
    baseline."""
    names = set(METHODS[method].params) | (set(METHODS[baseline].params) if baseline else set())
    p = {**params, **fixed}
    return ("map-line", method, data_key, line_param,
            tuple(_py(v) for v in line_values),
            tuple(sorted((n, p.get(n)) for n in names if n != line_param)), baseline,
            p.get("seed"))


# ---------------------------------------------------------------------------
# the map
# ---------------------------------------------------------------------------

class _MapArrays:
    def __init__(self, method, param1, values1, param2, values2, repeats, metric,
                 baseline, f_off):
        shape = (values2.size, values1.size, repeats)
        self.method, self.param1, self.param2 = method, param1, param2
        self.values1, self.values2, self.metric = values1, values2, metric
        self.scores, self.train, self.ranks, self.times, self.iters = (
            np.full(shape, np.nan) for _ in range(5))
        self.base = np.full(shape, np.nan) if baseline else None
        self.off = np.full(shape, np.nan) if f_off else None
        self.done = np.zeros(shape, dtype=bool)
        self.knn = np.full(repeats, np.nan)
        self.baseline = baseline
        self.messages: list[Message] = []
        self.seen: set[str] = set()
        self.seeds: list[int] = []
        self.warm_param: str | None = None

    def record(self, i2: int, i1: int, r: int, p: Mapping[str, Any], s: dict) -> None:
        for m in s["messages"]:
            if m.text not in self.seen and m.level != "info":
                self.seen.add(m.text)
                where = (f"{setting(self.param1).format(p[self.param1])}, "
                         f"{setting(self.param2).format(p[self.param2])}")
                self.messages.append(_msg(m.level, f"{where}: {m}"))
        self.done[i2, i1, r] = True
        if s["ok"]:
            self.scores[i2, i1, r] = s["test"]
            self.train[i2, i1, r] = s["train"]
            self.ranks[i2, i1, r] = np.nan if s["rank"] is None else s["rank"]
            self.times[i2, i1, r] = s["time"]
            it = s.get("iterations")
            self.iters[i2, i1, r] = np.nan if it is None else it
            if self.off is not None:
                self.off[i2, i1, r] = s["off"]
        if self.base is not None:
            self.base[i2, i1, r] = s["base"]

    def result(self, stopped: bool = False) -> MapResult:
        off = self.off if self.off is not None and np.isfinite(self.off).any() else None
        out = MapResult(self.method, self.param1, self.values1, self.param2, self.values2,
                        self.metric, self.scores.copy(), self.train.copy(),
                        self.ranks.copy(), self.times.copy(),
                        None if self.base is None else self.base.copy(),
                        None if off is None else off.copy(), self.knn.copy(),
                        self.baseline, self.warm_param, tuple(self.seeds),
                        list(self.messages), stopped, self.iters.copy(),
                        self.done.copy())
        return out


def run_map(params: Mapping[str, Any], method: str, param1: str, values1: Sequence,
            param2: str, values2: Sequence, *, repeats: int = 1,
            progress: Callable[[int, int, MapResult], Any] | None = None,
            data_fn: Callable[[int], tuple[LabData | None, list[Message]]] | None = None,
            csv: Any = None, parallel: bool = False, n_jobs: int | None = None,
            known: Callable[[tuple], list[dict] | None] | None = None,
            on_result: Callable[[tuple, list[dict]], Any] | None = None,
            fit_missing: bool = True, callback: Callable | None = None,
            workers: int = 1, warm_starts: bool = True) -> MapResult:
    """Fit ``method`` at every pair (``values1`` × ``values2``) of ``param1`` and
    ``param2`` on seeds ``seed … seed+repeats-1`` (each seed its own data draw and
    split), with the baseline of :data:`BASELINES` at the same σ and C, the score with
    the learned matrix switched off (DANK, DANK-SVR, KNPL) and 1-NN per seed.

    ``progress(done, total, partial)`` after every finished cell (in process) or line
    (``parallel``), with the map so far; a True from it stops (the cells done are kept,
    ``stopped`` is set). ``known(key)`` returns a line already computed (a cache; keys
    from :func:`line_key`) and ``on_result(key, cells)`` receives each new one;
    ``fit_missing=False`` collects only known lines. ``parallel=True`` runs the lines
    as tasks of :func:`nplk_core.parallel.iter_fits` under the active joblib backend
    (``n_jobs`` as there). The work budget (:func:`budget.map_verdict`, with
    ``workers``) refuses maps that are too large, with a message.
    ``warm_starts=False`` fits every cell cold (the benchmark compares both).
    """
    spec = METHODS[method]
    values1, values2 = np.asarray(values1), np.asarray(values2)
    repeats = max(int(repeats), 1)
    metric = "accuracy" if spec.task == CLASSIFICATION else "relative error"
    baseline = baseline_of(method)
    out = _MapArrays(method, param1, values1, param2, values2, repeats, metric, baseline,
                     method in F_OFF_METHODS)
    axis = warm_axis(method, param1, param2)
    line_param, line_values, other, other_values = (
        (param1, values1, param2, values2) if axis == 0 else
        (param2, values2, param1, values1))
    out.warm_param = line_param if _takes_warm_start(method) and any(
        can_warm_start({**params, line_param: _py(a)}, {**params, line_param: _py(b)}, method)
        for a, b in zip(line_values[:-1], line_values[1:], strict=True)) else None
    if param1 == param2:
        out.messages.append(_msg("error", "Pick two different parameters for a map."))
        return out.result()
    base_seed = int(params.get("seed", 0))
    total = out.scores.size
    draws: list[LabData] = []
    for r in range(repeats):
        data, msgs = data_fn(base_seed + r) if data_fn is not None else \
            prepare_data(params, spec.task, seed=base_seed + r, csv=csv)
        if data is None:
            out.messages.extend(msgs)
            break
        if r == 0:
            verdict = budget.map_verdict(method, len(data.y_train),
                                         (values1.size, values2.size), repeats,
                                         data.X_train.shape[1], params, label=spec.label,
                                         workers=workers)
            if not verdict.ok:
                out.messages.append(_msg("error", verdict.message))
                return out.result()
        draws.append(data)
        out.seeds.append(base_seed + r)
        out.knn[r] = one_nn_score(data)

    def cell_index(k: int, j: int) -> tuple[int, int]:
        # k indexes the other parameter's values, j the line's
        return (k, j) if axis == 0 else (j, k)

    jobs = []
    for r, data in enumerate(draws):
        for k, ov in enumerate(other_values):
            fixed = {other: _py(ov)}
            key = line_key(method, params, line_param, line_values, fixed, data.key,
                           baseline)
            jobs.append((r, k, fixed, data, key))

    done = 0

    def record_line(r, k, fixed, cells) -> None:
        nonlocal done
        ps = line_params(params, line_param, line_values, fixed)
        for j, s in enumerate(cells):
            i2, i1 = cell_index(k, j)
            out.record(i2, i1, r, ps[j], s)
            done += 1

    todo = []
    for job in jobs:
        hit = known(job[4]) if known is not None else None
        if hit is not None:
            record_line(job[0], job[1], job[2], hit)
        else:
            todo.append(job)
    if done and progress is not None and progress(done, total, out.result()):
        return out.result(stopped=True)
    if not fit_missing or not todo:
        return out.result(stopped=bool(todo))
    if parallel:
        return _run_parallel(out, todo, params, method, line_param, line_values, baseline,
                             record_line, progress, on_result, n_jobs, total,
                             lambda: done, warm_starts)
    for r, k, fixed, data, key in todo:
        ps = line_params(params, line_param, line_values, fixed)
        cells: list[dict] = []
        stop = {"now": False}

        def on_cell(j, s, r=r, k=k, ps=ps, cells=cells, stop=stop):
            nonlocal done
            cells.append(s)
            i2, i1 = cell_index(k, j)
            out.record(i2, i1, r, ps[j], s)
            done += 1
            if progress is not None and progress(done, total, out.result()):
                stop["now"] = True
            return stop["now"]

        run_line(params, method, line_param, line_values, fixed, data.X_train, data.y_train,
                 data.X_test, data.y_test, data_key=data.key, baseline=baseline,
                 on_cell=on_cell, callback=callback, warm_starts=warm_starts)
        if len(cells) == len(line_values) and on_result is not None:
            on_result(key, cells)
        if stop["now"]:
            return out.result(stopped=True)
    return out.result()


def _run_parallel(out, todo, params, method, line_param, line_values, baseline, record_line,
                  progress, on_result, n_jobs, total, done_count, warm_starts=True
                  ) -> MapResult:
    from nplk_core.parallel import iter_fits

    tasks = [(params, method, line_param, tuple(_py(v) for v in line_values), fixed,
              d.X_train, d.y_train, d.X_test, d.y_test, d.key) for _, _, fixed, d, _ in todo]
    gen = iter_fits(line_task, tasks, n_jobs=n_jobs,
                    shared={"baseline": baseline, "warm_starts": warm_starts})
    finished = 0
    try:
        for i, cells in gen:
            r, k, fixed, _, key = todo[i]
            record_line(r, k, fixed, cells)
            finished += 1
            if on_result is not None:
                on_result(key, cells)
            if progress is not None and progress(done_count(), total, out.result()):
                return out.result(stopped=finished < len(todo))
    finally:
        gen.close()
    return out.result()


def map_values(name: str, lo: float | None, hi: float | None, n_points: int) -> np.ndarray:
    """The values of one map axis: :func:`nplk_lab.model.studies.sweep_values` (log grids for
    log settings), at most 15."""
    from .studies import sweep_values
    return sweep_values(name, lo, hi, int(min(max(int(n_points), 2), 15)))


def map_table(m: MapResult):
    """One row per cell: both values, the method's test score (mean, spread over seeds),
    train score, rank, fit time, the baseline's score, the difference, the score with
    the learned matrix off and its share, 1-NN, and how many seeds finished."""
    import pandas as pd
    s1, s2 = setting(m.param1), setting(m.param2)
    label = METHODS[m.method].label
    base_label = METHODS[m.baseline_method].label if m.baseline_method else None
    mean, sd = m.mean(m.scores), m.spread(m.scores)
    cols: dict[str, list] = {s1.label: [], s2.label: [],
                             f"{label} test {m.metric} (mean)": [],
                             f"{label} test {m.metric} (std over seeds)": [],
                             f"{label} train {m.metric} (mean)": [],
                             "rank (mean)": [], "fit time (s, mean)": []}
    extra = []
    if m.baseline is not None:
        extra += [(f"{base_label} test {m.metric} (mean)", m.mean(m.baseline)),
                  (f"{label} − {base_label} (mean)", m.difference)]
    if m.f_off is not None:
        extra += [(f"{label} with F off at test time (mean)", m.mean(m.f_off))]
        if m.f_share is not None:
            extra += [(f"F's own share: F off − {base_label} (mean)", m.f_share)]
    for name, _ in extra:
        cols[name] = []
    cols["1-NN test " + m.metric + " (mean over seeds)"] = []
    cols["seeds finished"] = []
    rank, time_, train = m.mean(m.ranks), m.mean(m.times), m.mean(m.train_scores)
    knn = float(np.nanmean(m.knn)) if np.isfinite(m.knn).any() else float("nan")
    finished = np.isfinite(m.scores).sum(axis=2)
    for i2, v2 in enumerate(m.values2):
        for i1, v1 in enumerate(m.values1):
            cols[s1.label].append(_py(v1))
            cols[s2.label].append(_py(v2))
            cols[f"{label} test {m.metric} (mean)"].append(mean[i2, i1])
            cols[f"{label} test {m.metric} (std over seeds)"].append(sd[i2, i1])
            cols[f"{label} train {m.metric} (mean)"].append(train[i2, i1])
            cols["rank (mean)"].append(rank[i2, i1])
            cols["fit time (s, mean)"].append(time_[i2, i1])
            for name, A in extra:
                cols[name].append(A[i2, i1])
            cols["1-NN test " + m.metric + " (mean over seeds)"].append(knn)
            cols["seeds finished"].append(int(finished[i2, i1]))
    return pd.DataFrame(cols)


def cell_from_clicks(clicks: Any, shape: tuple[int, int], *, seen: float = 0.0
                     ) -> tuple[tuple[int, int] | None, float]:
    """The map cell ``(i2, i1)`` (row of the second parameter, column of the first) a
    click on a map picks, and the newest click id. The maps are drawn on index axes
    (cell centres at 0, 1, …), so the newest valid click's x and y are rounded; a click
    outside the grid picks nothing. Anything malformed picks nothing (the payload comes
    from the browser)."""
    from .grids import valid_clicks
    xy, newest = valid_clicks(clicks, seen)
    if not xy:
        return None, newest
    x, y = xy[-1]
    i1, i2 = int(np.floor(x + 0.5)), int(np.floor(y + 0.5))
    if not (0 <= i2 < shape[0] and 0 <= i1 < shape[1]):
        return None, newest
    return (i2, i1), newest


def cell_params(m: MapResult, cell: tuple[int, int]) -> dict[str, Any]:
    """The two parameters' values of a cell, as the settings take them."""
    i2, i1 = cell
    return {m.param1: _py(m.values1[i1]), m.param2: _py(m.values2[i2])}
