"""Studies over many fits: sensitivity sweeps, the scaling study, timing."""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import budget
from .data import LabData, prepare_data, subsample_indices
from .methods import METHODS, _warning_messages, available, can_warm_start, fit_method
from .results import LabResult, ScalingStudy, SweepResult
from .settings_table import CLASSIFICATION, Message, _msg, clip, defaults, setting

# ---------------------------------------------------------------------------
# sensitivity sweeps
# ---------------------------------------------------------------------------


def sweep_values(name: str, lo: float | None = None, hi: float | None = None,
                 n_points: int = 7) -> np.ndarray:
    """``n_points`` values of setting ``name`` between ``lo`` and ``hi`` (log-spaced if
    the setting is on a log scale; integers rounded and de-duplicated)."""
    s = setting(name)
    lo = float(s.min if lo is None else lo)
    hi = float(s.max if hi is None else hi)
    if s.log and lo > 0:
        vals = np.geomspace(lo, hi, n_points)
    else:
        vals = np.linspace(lo, hi, n_points)
    if s.kind == "int":
        vals = np.unique(np.round(vals).astype(int))
    else:
        vals = np.array([float(f"{v:.4g}") for v in vals])
    return vals


def run_sweep(params: Mapping[str, Any], method: str, param: str, values: Sequence[float],
              *, repeats: int = 1, progress: Callable[[int, int], Any] | None = None,
              csv: Any = None, fit: Callable[..., LabResult] | None = None,
              data_fn: Callable[[int], tuple[LabData | None, list[Message]]] | None = None,
              parallel: bool = False, n_jobs: int | None = None,
              known: Callable[[Mapping[str, Any], str], dict | None] | None = None,
              on_result: Callable[[Mapping[str, Any], str, dict], Any] | None = None,
              fit_missing: bool = True) -> SweepResult:
    """Fit ``method`` for every value of ``param`` and every seed ``seed … seed+repeats-1``.

    Each seed draws its own data and split. ``progress(done, total)`` is called after
    every fit (returning True stops the sweep early). ``data_fn(seed)`` lets a caller
    cache the draws.

    In process (default): the fits run one after the other, each value warm-starting
    from the previous one when the swept parameter is continuous; ``fit`` (default
    :func:`fit_method`, same signature) lets a caller cache the individual fits.

    ``parallel=True``: every (value, seed) fit is an independent task of
    :func:`nplk_core.parallel.iter_fits` (cold start, :func:`sweep_task`), run by the
    active joblib backend, ``n_jobs`` as there (one job in this process outside any
    ``joblib.parallel_config``; Dask workers under ``parallel_config(backend="dask")``).
    Each seed's data are drawn here and are the same objects for all of its tasks, so
    joblib's Dask backend scatters them once; a task returns only a small summary
    (scores, rank, time, messages). ``known(p, data_key)`` returns a summary already
    computed (a cache) and ``on_result(p, data_key, summary)`` receives each new one;
    ``fit_missing=False`` collects only the known ones. A True from ``progress`` stops
    handing out tasks (those running finish).
    """
    fit = fit or fit_method
    spec = METHODS[method]
    values = np.asarray(values)
    shape = (values.size, max(int(repeats), 1))
    out = _SweepArrays(shape, param)
    base_seed = int(params.get("seed", 0))
    total, done = shape[0] * shape[1], 0
    draws = []
    for r in range(shape[1]):
        data, msgs = data_fn(base_seed + r) if data_fn is not None else \
            prepare_data(params, spec.task, seed=base_seed + r, csv=csv)
        if data is None:
            out.messages.extend(msgs)
            break
        if r == 0:
            verdict = budget.sweep_verdict(method, len(data.y_train), total,
                                           data.X_train.shape[1], params, label=spec.label)
            if not verdict.ok:
                out.messages.append(_msg("error", verdict.message))
                break
        if parallel:
            draws.append(data)
            continue
        prev = None
        for i, v in enumerate(values):
            p = {**params, param: v.item() if hasattr(v, "item") else v}
            # neighbouring values warm-start each other (only continuous parameters)
            warm = prev if prev is not None and prev.ok and \
                can_warm_start(prev.params, p, method) else None
            res = fit(p, data.X_train, data.y_train, data.X_test, data.y_test,
                      method=method, data_key=data.key, warm_from=warm)
            prev = res
            out.record(i, r, p, summarize(res))
            done += 1
            if progress is not None and progress(done, total):
                return out.result(method, res.metric, values)
    if parallel and draws:
        _run_parallel(out, draws, params, method, param, values, progress=progress,
                      n_jobs=n_jobs, known=known, on_result=on_result,
                      fit_missing=fit_missing)
    metric = "accuracy" if spec.task == CLASSIFICATION else "relative error"
    return out.result(method, metric, values)


def summarize(res: LabResult) -> dict:
    """What a sweep keeps of one fit (small: no estimator, no matrix)."""
    import os
    return {"ok": res.ok, "test": res.test_score, "train": res.train_score,
            "rank": None if not res.ok or res.rank is None else res.rank,
            "time": res.fit_time, "metric": res.metric, "pid": os.getpid(),
            "messages": [m for m in res.messages if m.level != "info"]}


def sweep_task(p: Mapping[str, Any], X_train, y_train, X_test, y_test, *, method: str,
               data_key: str = "") -> dict:
    """One sweep fit as a self-contained task (module level, so a worker process can
    import it): a cold :func:`fit_method` and its :func:`summarize` (the pid says
    where it ran)."""
    return summarize(fit_method(p, X_train, y_train, X_test, y_test, method=method,
                                data_key=data_key))


def _run_parallel(out, draws, params, method, param, values, *, progress, n_jobs, known,
                  on_result, fit_missing) -> None:
    from nplk_core.parallel import iter_fits

    total = out.scores.size
    jobs, done = [], 0
    for r, data in enumerate(draws):
        for i, v in enumerate(values):
            p = {**params, param: v.item() if hasattr(v, "item") else v}
            hit = known(p, data.key) if known is not None else None
            if hit is not None:
                out.record(i, r, p, hit)
                done += 1
            else:
                jobs.append((i, r, p, data))
    if done and progress is not None and progress(done, total):
        return
    if not fit_missing or not jobs:
        return
    tasks = [(p, d.X_train, d.y_train, d.X_test, d.y_test, d.key) for _, _, p, d in jobs]
    gen = iter_fits(_sweep_task, tasks, n_jobs=n_jobs, shared={"method": method})
    try:
        for j, summary in gen:
            i, r, p, data = jobs[j]
            out.record(i, r, p, summary)
            if on_result is not None:
                on_result(p, data.key, summary)
            done += 1
            if progress is not None and progress(done, total):
                return
    finally:
        gen.close()


def _sweep_task(p, X_train, y_train, X_test, y_test, data_key, *, method):
    return sweep_task(p, X_train, y_train, X_test, y_test, method=method, data_key=data_key)


class _SweepArrays:
    """The sweep's arrays, filled fit by fit, and its de-duplicated messages."""

    def __init__(self, shape, param):
        self.param = param
        self.scores, self.train, self.ranks, self.times = (np.full(shape, np.nan)
                                                           for _ in range(4))
        self.messages: list[Message] = []
        self.seen: set[str] = set()

    def record(self, i: int, r: int, p: Mapping[str, Any], s: dict) -> None:
        for m in s["messages"]:
            if m.text not in self.seen and m.level != "info":
                self.seen.add(m.text)
                self.messages.append(_msg(m.level,
                                          f"{setting(self.param).format(p[self.param])}: {m}"))
        if s["ok"]:
            self.scores[i, r] = s["test"]
            self.train[i, r] = s["train"]
            self.ranks[i, r] = np.nan if s["rank"] is None else s["rank"]
            self.times[i, r] = s["time"]

    def result(self, method, metric, values) -> SweepResult:
        return SweepResult(method, self.param, values, metric, self.scores, self.train,
                           self.ranks, self.times, self.messages)


def sweep_table(sweep: SweepResult):
    """A Table-5-like summary: value, test metric mean ± std, rank, fit time."""
    import pandas as pd
    s = setting(sweep.param)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m, sd = np.nanmean(sweep.scores, axis=1), np.nanstd(sweep.scores, axis=1)
        rk = np.nanmean(sweep.ranks, axis=1)
        t = np.nanmean(sweep.times, axis=1)
    rows = {
        s.label: [s.format(v.item() if hasattr(v, "item") else v) for v in sweep.values],
        f"test {sweep.metric}": [f"{a:.3f} ± {b:.3f}" if np.isfinite(a) else "—"
                                 for a, b in zip(m, sd, strict=True)],
        "rank": [f"{a:.1f}" if np.isfinite(a) else "—" for a in rk],
        "fit time (s)": [f"{a:.3f}" if np.isfinite(a) else "—" for a in t],
    }
    return pd.DataFrame(rows)


def sweepable(method: str) -> list[str]:
    """The swept-parameter choices that apply to ``method``."""
    return [p for p in setting("sweep_param").options if p in METHODS[method].params]


def scaling_study(X: np.ndarray, y: np.ndarray, *, C: float, sigma: float, v: int,
                  max_v: int, seed: int = 0,
                  progress: Callable[[int, int], Any] | None = None,
                  work_budget: budget.Budget | None = None) -> ScalingStudy | None:
    """Solve the ``tau = 0`` box problem exactly and by v-cluster decomposition for
    v = 1 … max_v (one η for all, from the exact solve) and collect Q(π), the bound
    ``½ B C² Q(π)``, the actual gap ``h(α*) − h̄(ᾱ)`` and the Theorem 7 screening."""
    try:
        sc = importlib.import_module("nplk_core.scalable")
        from nplk_core.kernels import gaussian_kernel
    except ImportError:
        return None
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    messages: list[Message] = []
    verdict = budget.study_verdict(len(y), max(int(max_v), int(v)), X.shape[1],
                                   budget=work_budget)
    if not verdict.ok:
        n_keep = max(verdict.n_max, max(int(max_v), int(v)))
        keep = subsample_indices(y, n_keep, seed=seed)
        X, y = X[keep], y[keep]
        messages.append(_msg("warning", f"{verdict.message}, so it ran on a random "
                                        f"subsample of {keep.size:,} points (seed {seed}, "
                                        "classes in proportion)."))
    K = gaussian_kernel(X, sigma=sigma)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = sc.fit_scalable(X, y, n_clusters=1, C=C, sigma=sigma, eta="auto",
                                random_state=seed)
        eta = exact.eta
        F_exact = sc.block_F(exact.alpha, y, K, eta)
        vs = np.arange(1, max(int(max_v), int(v)) + 1)
        q, bound, gap = (np.zeros(vs.size) for _ in range(3))
        chosen = exact
        for i, vv in enumerate(vs):
            r = exact if vv == 1 else sc.fit_scalable(X, y, n_clusters=int(vv), C=C,
                                                      sigma=sigma, eta=eta,
                                                      random_state=seed)
            F_bar = sc.block_F(r.alpha, y, K, eta, r.labels)
            b = sc.theorem6_bound(K, r.labels, C, F_exact, F_bar)
            q[i], bound[i] = b["Q"], b["bound"]
            gap[i] = exact.objective - r.objective
            if vv == v:
                chosen = r
            if progress is not None:
                progress(i + 1, vs.size)
        screened = sc.screen_non_support(chosen)
    messages.extend(_warning_messages(caught, "Scalable DANK"))
    return ScalingStudy(vs, q, bound, gap, chosen.labels, chosen.centers, screened,
                        chosen.alpha > 0, eta, messages, X=X, y=y)


def timing_study(params: Mapping[str, Any], ns: Sequence[int], *, v: int,
                 progress: Callable[[int, int], Any] | None = None,
                 callback: Callable | None = None
                 ) -> tuple[dict[str, np.ndarray], list[Message]]:
    """Fit time against n for exact DANK, scalable DANK (v clusters) and SVC."""
    from sklearn.svm import SVC

    from nplk_core.kernels import sigma_to_gamma
    p = {**defaults(), **params}
    ok, why = available("dank")
    names = ["exact DANK", f"scalable DANK (v={v})", "SVC"]
    times = {k: np.full(len(ns), np.nan) for k in names}
    if not ok:
        return times, [_msg("info", why)]
    dank_cls = METHODS["dank"].load()
    messages: list[Message] = []
    total, done = 3 * len(ns), 0
    for i, n in enumerate(ns):
        data, msgs = prepare_data({**p, "n_samples": int(n), "test_size": 0.1,
                                   "points": ()}, CLASSIFICATION)
        if data is None:
            return times, msgs
        X, y = data.X_train, data.y_train
        exact_ok = budget.fit_verdict("dank", len(y), X.shape[1], p).ok
        if not exact_ok:
            messages.append(_msg("warning", f"Exact DANK at n = {n} is above the lab's "
                                            "work budget and was not timed."))
        models = {names[0]: dank_cls(C=p["C"], sigma=p["sigma"], tau=p["tau"],
                                     callback=callback),
                  names[1]: dank_cls(C=p["C"], sigma=p["sigma"], n_clusters=int(v),
                                     random_state=int(p["seed"])),
                  names[2]: SVC(C=p["C"], gamma=sigma_to_gamma(p["sigma"]))}
        for name, model in models.items():
            if name == names[0] and not exact_ok:
                done += 1
                continue
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X, y)
                times[name][i] = time.perf_counter() - t0
            except (ValueError, ArithmeticError, np.linalg.LinAlgError, MemoryError) as exc:
                messages.append(_msg("warning", f"{name} at n={n} failed: {clip(exc, 120)}"))
            done += 1
            # only an explicit True stops (a progress bar's update returns a truthy
            # element: that stopped the study after its first fit)
            if progress is not None and progress(done, total) is True:
                return times, messages
    return times, messages
