"""Studies over many fits: sensitivity sweeps, the scaling study, timing."""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import budget
from .data import LabData, prepare_data
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
              data_fn: Callable[[int], tuple[LabData | None, list[Message]]] | None = None
              ) -> SweepResult:
    """Fit ``method`` for every value of ``param`` and every seed ``seed … seed+repeats-1``.

    Each seed draws its own data and split. ``progress(done, total)`` is called after
    every fit (returning True stops the sweep early). Each value warm-starts from the
    previous one when the swept parameter is continuous. ``fit`` (default
    :func:`fit_method`, same signature) and ``data_fn(seed)`` let a caller cache the
    individual fits and draws.
    """
    fit = fit or fit_method
    spec = METHODS[method]
    values = np.asarray(values)
    shape = (values.size, max(int(repeats), 1))
    scores = np.full(shape, np.nan)
    train = np.full(shape, np.nan)
    ranks = np.full(shape, np.nan)
    times = np.full(shape, np.nan)
    messages: list[Message] = []
    seen: set[str] = set()
    base_seed = int(params.get("seed", 0))
    total, done = shape[0] * shape[1], 0
    for r in range(shape[1]):
        data, msgs = data_fn(base_seed + r) if data_fn is not None else \
            prepare_data(params, spec.task, seed=base_seed + r, csv=csv)
        if data is None:
            messages.extend(msgs)
            break
        if r == 0:
            verdict = budget.sweep_verdict(method, len(data.y_train), total,
                                           data.X_train.shape[1], params, label=spec.label)
            if not verdict.ok:
                messages.append(_msg("error", verdict.message))
                break
        prev = None
        for i, v in enumerate(values):
            p = {**params, param: v.item() if hasattr(v, "item") else v}
            # neighbouring values warm-start each other (only continuous parameters)
            warm = prev if prev is not None and prev.ok and \
                can_warm_start(prev.params, p, method) else None
            res = fit(p, data.X_train, data.y_train, data.X_test, data.y_test,
                      method=method, data_key=data.key, warm_from=warm)
            prev = res
            for m in res.messages:
                if m.text not in seen and m.level != "info":
                    seen.add(m.text)
                    messages.append(_msg(m.level, f"{setting(param).format(p[param])}: {m}"))
            if res.ok:
                scores[i, r] = res.test_score
                train[i, r] = res.train_score
                ranks[i, r] = np.nan if res.rank is None else res.rank
                times[i, r] = res.fit_time
            done += 1
            if progress is not None and progress(done, total):
                return SweepResult(method, param, values, res.metric, scores, train, ranks,
                                   times, messages)
    metric = "accuracy" if spec.task == CLASSIFICATION else "relative error"
    return SweepResult(method, param, values, metric, scores, train, ranks, times, messages)


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
                  progress: Callable[[int, int], Any] | None = None) -> ScalingStudy | None:
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
                        chosen.alpha > 0, eta, messages)


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
        models = {names[0]: dank_cls(C=p["C"], sigma=p["sigma"], tau=p["tau"],
                                     callback=callback),
                  names[1]: dank_cls(C=p["C"], sigma=p["sigma"], n_clusters=int(v),
                                     random_state=int(p["seed"])),
                  names[2]: SVC(C=p["C"], gamma=sigma_to_gamma(p["sigma"]))}
        for name, model in models.items():
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
