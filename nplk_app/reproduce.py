"""Regenerate the seed papers' reproducible results: ``python -m nplk_app.reproduce``.

This file is long because it holds one short experiment per paper result (16 rows) next to
the report writer; splitting them would scatter each protocol away from its claim.

Every row runs the public estimators on the toy data of :mod:`nplk_core.datasets`, states
the paper's number or claim, ours (computed now, never stored), whether the claim holds
(``True``/``False``, ``None`` for a qualitative result that is only shown) and, when it does
not hold, why. ``--quick`` runs the same protocols on fewer points and seeds (a smoke run,
under 2 minutes on 2 quiet cores); the default is the benchmark scale. Output: ``report.md``,
``results.json`` and one ``fig_<row id>.png`` per row (kaleido; skipped with a note when no
Chrome/Chromium is available). Never imports streamlit.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import nplk_figures as figs
from nplk_core import datasets as ds

DEFAULT_OUT = Path("reports/reproduce")
ROW_KEYS = ("id", "paper", "item", "claim", "paper_value", "ours", "holds", "note", "preset",
            "figure")
PAPERS = {"000": "DANK", "001": "KNPL", "002": "SimpleNPKL", "003": "ONK", "004": "LAB RBF"}


@dataclass
class Row:
    """One reproduced result (the ``results.json`` row plus its figure and run time)."""

    id: str
    paper: str
    item: str
    claim: str
    paper_value: str
    ours: str = ""
    holds: bool | None = None
    note: str = ""
    preset: str | None = None
    figure: str | None = None
    fig: Any = field(default=None, repr=False)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ROW_KEYS}


@dataclass(frozen=True)
class Scale:
    """Sizes of one run: the paper's protocol at ``full``, a smoke version at ``quick``."""

    quick: bool
    n_clowns: int
    seeds: int
    sigmas: tuple[float, ...]
    n_fig4: int
    fig4_iter: int
    taus: tuple[float, ...]
    n_step: int
    n_harmonic: int
    svr_seeds: int
    n_sandwich: int
    onk_rhos: tuple[float, ...]
    n_spiral: int
    npkl_B: tuple[float, ...]
    npkl_p: tuple[float, ...]
    lab_ratios: tuple[float, ...]
    lab_seeds: int


FULL = Scale(False, 200, 10, (1.0, 4.0, 8.0), 140, 2500, (0.0, 1e-3, 1e-2, 1e-1, 1.0),
             200, 400, 1, 200, (1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e6), 100,
             (1.0, 1.5, 2.0, 2.5, 3.0, 4.0), (1.5, 2.0, 2.5, 3.0, 4.0),
             (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9), 3)
QUICK = Scale(True, 100, 3, (1.0, 4.0, 8.0), 70, 1500, (0.0, 1e-2, 1.0),
              60, 80, 1, 100, (1e-2, 1.0, 100.0, 1e6), 100,
              (1.0, 4.0), (1.5, 2.0, 4.0), (0.05, 0.2, 0.9), 1)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _pm(values, scale: float = 100.0, digits: int = 1) -> str:
    a = scale * np.asarray(values, dtype=float)
    return f"{a.mean():.{digits}f} ± {a.std():.{digits}f}"


def _paired(a, b) -> str:
    """Paired difference b - a in points, with wins/ties/losses of b over the seeds."""
    d = 100 * (np.asarray(b, dtype=float) - np.asarray(a, dtype=float))
    return (f"{d.mean():+.1f} ± {d.std():.1f} points, {int(np.sum(d > 1e-9))} wins / "
            f"{int(np.sum(np.abs(d) <= 1e-9))} ties / {int(np.sum(d < -1e-9))} losses")


def _clear_gain(a, b) -> bool:
    """Whether b beats a over the seeds by more than chance: the paired mean difference
    exceeds twice its standard error (with a single seed: any gain)."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if d.size < 2:
        return bool(d.sum() > 0)
    return bool(d.mean() > 2.0 * d.std(ddof=1) / math.sqrt(d.size))


def _split(X, y, seed: int, test_size: float = 0.3, stratify: bool = True):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=test_size, random_state=seed,
                            stratify=y if stratify else None)


def _svc(C: float, sigma: float):
    from sklearn.svm import SVC

    from nplk_core.kernels import sigma_to_gamma

    return SVC(C=C, gamma=sigma_to_gamma(sigma))


def _rse(y, pred) -> float:
    """Relative squared error of seed 000 §6.3: sum (g(x_i) - y_i)^2 / sum (y_i - mean y)^2."""
    y = np.asarray(y, dtype=float)
    return float(np.sum((np.asarray(pred) - y) ** 2) / np.sum((y - y.mean()) ** 2))


def _grid(X, steps: int = 120, pad: float = 0.3):
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    xs, ys = np.linspace(lo[0], hi[0], steps), np.linspace(lo[1], hi[1], steps)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


@contextlib.contextmanager
def _quiet():
    """Silence the warnings of deliberately short or fixed-length runs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ---------------------------------------------------------------------------
# DANK (seed 000)
# ---------------------------------------------------------------------------

def _clowns_fits(sc: Scale, cache: dict) -> dict:
    """SVM and DANK (same sigma and C = 1) on clowns splits, per sigma and seed; shared by
    Fig. 1 and Fig. 2."""
    if "clowns" in cache:
        return cache["clowns"]
    from nplk_core import DANKClassifier

    out: dict[float, dict[str, list]] = {}
    for sigma in sc.sigmas:
        r = out.setdefault(sigma, {"svm": [], "dank": [], "rank": [], "fits": []})
        for seed in range(sc.seeds):
            X, y = ds.make_clowns(sc.n_clowns, random_state=seed)
            Xtr, Xte, ytr, yte = _split(X, y, seed)
            svm = _svc(1.0, sigma).fit(Xtr, ytr)
            dank = DANKClassifier(C=1.0, sigma=sigma).fit(Xtr, ytr)
            r["svm"].append(svm.score(Xte, yte))
            r["dank"].append(dank.score(Xte, yte))
            r["rank"].append(dank.rank_)
            if seed == 0:
                r["fits"] = [(Xtr, ytr, Xte, yte, svm, dank)]
    cache["clowns"] = out
    return out


def row_dank_fig1(sc: Scale, cache: dict) -> Row:
    row = Row("dank_fig1", "000", "DANK Fig. 1",
              "At a kernel width too wide for the data, DANK's learned F∘K gives a more "
              "accurate boundary than the SVM with the same K.",
              "boundaries only (σ = 1 pre-given, σ = 0.07 by CV; data scale not stated); no "
              "accuracy given", preset="dank_clowns")
    fits = _clowns_fits(sc, cache)
    parts, gains = [], {}
    for sigma, r in fits.items():
        parts.append(f"σ={sigma:g}: SVM {_pm(r['svm'])} → DANK {_pm(r['dank'])} %")
        gains[sigma] = float(np.mean(r["dank"]) - np.mean(r["svm"]))
    row.ours = "; ".join(parts) + f" (test, {sc.seeds} seeds, n={sc.n_clowns}, C=1)"
    wide = [s for s in gains if s >= 4]
    row.holds = bool(wide) and all(_clear_gain(fits[s]["svm"], fits[s]["dank"])
                                   for s in wide)
    X0, _ = ds.make_clowns(sc.n_clowns, random_state=0)
    span = float(np.mean(X0.max(axis=0) - X0.min(axis=0)))
    row.note = (f"Scale: min-max scaled to [0, 1] like the paper's other data (§6.1.1), its "
                f"σ = 1 would be σ ≈ {span:.1f} and its CV σ = 0.07 σ ≈ {0.07 * span:.2f} on "
                f"our standardised clowns. Our σ = 1 is a well-fitting width (gain "
                f"{100 * gains.get(1.0, float('nan')):+.1f} points); Fig. 1a's setting, a "
                "kernel too wide for the data, is σ = 4–8 here.")
    row.note += " Paired DANK − SVM: " + "; ".join(
        f"σ={s:g} {_paired(r['svm'], r['dank'])}" for s, r in fits.items()) + "."
    if not row.holds:
        row.note += (" DANK did not beat the SVM at every wide σ by more than twice the "
                     "standard error over the seeds.")
    sigma = 4.0 if 4.0 in fits else max(fits)
    Xtr, ytr, Xte, yte, svm, dank = fits[sigma]["fits"][0]
    xs, ys, G = _grid(np.vstack([Xtr, Xte]))
    Z = dank.decision_function(G, extension="nearest").reshape(len(ys), len(xs))
    Zs = svm.decision_function(G).reshape(len(ys), len(xs))
    row.fig = figs.decision_surface(
        xs, ys, Z, Xtr, ytr, Xte, yte, baseline=Zs, baseline_name="SVM (same σ, C)",
        test_score=dank.score(Xte, yte),
        title=f"DANK vs SVM on clowns, σ = {sigma:g} (seed 0)")
    return row


def row_dank_fig1b(sc: Scale, cache: dict) -> Row:
    from nplk_core import DANKClassifier, SVMCVClassifier

    row = Row("dank_fig1b", "000", "DANK Fig. 1b",
              "Even at the cross-validated σ the learned kernel is more accurate than the "
              "SVM-CV.", "boundary only (σ = 0.07 by CV); no accuracy given",
              preset="dank_clowns")
    svm, dank, sig = [], [], []
    for seed in range(max(2, sc.seeds // 2)):
        X, y = ds.make_clowns(sc.n_clowns, random_state=seed)
        Xtr, Xte, ytr, yte = _split(X, y, seed)
        cv = SVMCVClassifier(random_state=seed).fit(Xtr, ytr)
        d = DANKClassifier(C=cv.best_C_, sigma=cv.best_sigma_).fit(Xtr, ytr)
        svm.append(cv.score(Xte, yte))
        dank.append(d.score(Xte, yte))
        sig.append(cv.best_sigma_)
    gain = 100 * (np.mean(dank) - np.mean(svm))
    row.ours = (f"SVM-CV {_pm(svm)} → DANK {_pm(dank)} % at CV σ ∈ "
                f"{{{', '.join(f'{s:g}' for s in sorted(set(sig)))}}} ({len(svm)} seeds)")
    row.holds = _clear_gain(svm, dank)
    row.note = f"Paired DANK − SVM-CV: {_paired(svm, dank)}."
    if gain > 0 and not row.holds:
        row.note += (" The mean gain is smaller than twice its standard error over the "
                     "seeds: not a gain we can tell from chance.")
    row.fig = figs.lines_figure(np.arange(len(svm)), {"SVM-CV": 100 * np.asarray(svm),
                                                      "DANK (same σ, C)": 100 * np.asarray(dank)},
                                x_title="seed", y_title="test accuracy (%)",
                                title="DANK vs SVM-CV at the cross-validated σ, C")
    if gain <= 0:
        row.note += (f" At the CV width the SVM already fits the clowns and DANK's F stays so "
                    f"close to 11ᵀ that the boundaries nearly coincide (gain {gain:+.1f} "
                    "points); the paper shows this case as a figure only, without a number.")
    return row


def row_dank_fig2(sc: Scale, cache: dict) -> Row:
    row = Row("dank_fig2", "000", "DANK Fig. 2",
              "The learned F stays near the all-one matrix and is low-rank.",
              "entries of F in 0.9–1.1; low rank", preset="dank_matrix")
    fits = _clowns_fits(sc, cache)
    parts, ok = [], True
    for sigma, r in fits.items():
        *_, dank = r["fits"][0]
        F, n = dank.F_, dank.F_.shape[0]
        parts.append(f"σ={sigma:g}: F ∈ [{F.min():.3f}, {F.max():.3f}], rank {dank.rank_}/{n}")
        ok &= bool(np.abs(F - 1).max() <= 0.1 + 1e-9 and dank.rank_ <= 0.15 * n)
    row.ours = "; ".join(parts) + " (seed 0)"
    row.holds = ok
    row.note = ("F deviates from 1 by less than the paper's ±0.1 with η = ‖α_SVM‖² (§6.1); "
                "'low rank' is taken as rank ≤ 15 % of n.")
    if not ok:
        row.note = "F left 0.9–1.1 or its rank exceeded 15 % of n at some σ."
    sigma = 4.0 if 4.0 in fits else max(fits)
    Xtr, ytr, *_, dank = fits[sigma]["fits"][0]
    row.fig = figs.matrix_heatmap(dank.F_, ytr, name="F", center=1.0,
                                  title=f"Learned F on clowns, σ = {sigma:g}")
    return row


def _first_below(gap: np.ndarray, level: float) -> int | None:
    idx = np.flatnonzero(gap <= level)
    return int(idx[0]) + 1 if idx.size else None


def row_dank_fig4(sc: Scale, cache: dict) -> Row:
    from nplk_core import DANKClassifier

    row = Row("dank_fig4", "000", "DANK Fig. 4",
              "Nesterov's method (Algorithm 1) reaches the optimum of h(α) in fewer iterations "
              "than projected gradient.",
              "Nesterov converges faster than PG on heart; ‖Δα‖ decays within ~500 iterations",
              preset="dank_solvers")
    X, y = ds.make_clowns(sc.n_fig4, random_state=0)
    params = dict(C=1.0, sigma=4.0)
    with _quiet():
        ref = DANKClassifier(**params, solver="apg", max_iter=20000, tol=1e-12).fit(X, y)
        h_ref = ref.objective_

        def done(it, state, elapsed):  # stop a run once it is 10x past the finest level
            return (h_ref - state["objective"]) <= 1e-6 * abs(h_ref)

        runs = {s: DANKClassifier(**params, solver=s, max_iter=sc.fig4_iter, tol=1e-12,
                                  callback=done).fit(X, y) for s in ("nesterov", "pg")}
    h_star = max(ref.objective_, *(float(np.max(r.history_["objective"]))
                                   for r in runs.values()))
    gaps, hits = {}, {}
    for s, r in runs.items():
        h = np.maximum.accumulate(np.asarray(r.history_["objective"], dtype=float))
        gaps[s] = np.maximum((h_star - h) / max(abs(h_star), 1e-12), 1e-16)
        hits[s] = {lv: _first_below(gaps[s], lv) for lv in (1e-3, 1e-5)}

    def fmt(v):
        return str(v) if v is not None else f">{sc.fig4_iter}"

    row.ours = "; ".join(
        f"1e-{k}: Nesterov {fmt(hits['nesterov'][lv])} vs PG {fmt(hits['pg'][lv])} iterations"
        for k, lv in ((3, 1e-3), (5, 1e-5))) + f" (clowns n={sc.n_fig4}, σ=4, C=1)"
    big = sc.fig4_iter + 1
    row.holds = all(hits["nesterov"][lv] is not None
                    and hits["nesterov"][lv] < (hits["pg"][lv] or big) for lv in (1e-3, 1e-5))
    row.note = ("Relative gap (h* − max_{t≤k} h_t)/|h*|, h* from a converged APG run (tol "
                "1e-12); each run stops at 1e-6 or after max_iter. Clowns (σ = 4, where F "
                "is active) stands in for heart (not bundled).")
    if not row.holds:
        row.note += " Nesterov was not faster at both levels."
    it = {s: np.arange(1, g.size + 1) for s, g in gaps.items()}
    row.fig = figs.lines_figure(it["pg"] if it["pg"].size >= it["nesterov"].size
                                else it["nesterov"],
                                _pad({"Nesterov (Alg. 1)": gaps["nesterov"],
                                      "projected gradient": gaps["pg"]}),
                                x_title="iteration", y_title="relative gap in h",
                                log_y=True, title="DANK solvers on clowns (σ = 4)")
    return row


def _pad(series: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    m = max(v.size for v in series.values())
    return {k: np.r_[v, np.full(m - v.size, np.nan)] for k, v in series.items()}


def row_dank_table5(sc: Scale, cache: dict) -> Row:
    from nplk_core import DANKClassifier

    row = Row("dank_table5", "000", "DANK Table 5",
              "A larger τ lowers rank(F); dropping the nuclear norm (τ = 0) costs accuracy "
              "against τ = 0.01.",
              "heart: τ=0 84.9 (rank 109), 0.001 87.3 (5), 0.01 87.9 (3), 0.1 86.5 (2), "
              "1 85.4 (1); τ = 0 loses 1–3 % on most sets", preset="tau_sweep")
    acc = np.zeros((len(sc.taus), sc.seeds))
    rank = np.zeros_like(acc)
    for j in range(sc.seeds):
        X, y = ds.make_clowns(sc.n_clowns, random_state=j)
        Xtr, Xte, ytr, yte = _split(X, y, j)
        for i, tau in enumerate(sc.taus):
            d = DANKClassifier(C=1.0, sigma=4.0, tau=tau).fit(Xtr, ytr)
            acc[i, j], rank[i, j] = d.score(Xte, yte), d.rank_
    mr = rank.mean(axis=1)
    row.ours = ", ".join(f"τ={t:g} {_pm(acc[i])} ({mr[i]:.1f})" for i, t in enumerate(sc.taus))
    row.ours += f" (clowns σ=4, {sc.seeds} seeds)"
    falls = bool(np.all(np.diff(mr) <= 1e-9) and mr[-1] < mr[0])
    i0, i1 = sc.taus.index(0.0), sc.taus.index(1e-2)
    better = bool(acc[i1].mean() > acc[i0].mean())
    row.holds = falls and better
    why = []
    if not falls:
        why.append("rank(F) did not fall monotonically with τ")
    if not better:
        why.append("τ = 0 costs no accuracy here: the extra eigenvalues of F at τ = 0 are "
                   "tiny, F ∘ K barely changes")
    diff = 100 * (acc[i1] - acc[i0])
    row.note = ("; ".join(why) + ". " if why else "") + (
        f"rank(F) falls from {mr[0]:.1f} (τ=0) to {mr[-1]:.1f} (τ={sc.taus[-1]:g}); paired "
        f"accuracy difference τ=0.01 − τ=0: {diff.mean():+.1f} ± {diff.std():.1f} points.")
    x = np.array([t if t > 0 else min(t for t in sc.taus if t > 0) / 10 for t in sc.taus])
    row.fig = figs.sensitivity_figure(x, acc, ranks=rank, param_label="τ (0 drawn at the left)",
                                      title="DANK τ sweep on clowns (σ = 4)")
    return row


def _svr_row(sc: Scale, which: str) -> Row:
    from sklearn.svm import SVR

    from nplk_core import DANKRegressor, SVRCVRegressor
    from nplk_core.kernels import sigma_to_gamma

    step = which == "step"
    row = Row(f"dank_svr_{which}", "000", "DANK §6.3 " + ("step function" if step else
                                                            "harmonic surface"),
              "DANK-SVR fits the test function with a lower relative squared error than "
              "SVR-CV.", "SVR-CV 0.013 vs DANK 0.004" if step else "SVR-CV 0.042 vs DANK 0.007",
              preset="dank_svr_" + which)
    n = sc.n_step if step else sc.n_harmonic
    cv_err, dk_err, wide = [], [], []
    for seed in range(sc.svr_seeds):
        X, y = ds.make_step(n, random_state=seed) if step else ds.make_harmonic(
            n, random_state=seed)
        cv = SVRCVRegressor(random_state=0).fit(X, y)
        d = DANKRegressor(C=cv.best_C_, sigma=cv.best_sigma_).fit(X, y)
        cv_err.append(_rse(y, cv.predict(X)))
        dk_err.append(_rse(y, d.predict(X)))
        if not sc.quick:  # a twice-too-wide kernel, where F has something to correct
            s2 = 2 * cv.best_sigma_
            svr2 = SVR(C=cv.best_C_, gamma=sigma_to_gamma(s2)).fit(X, y)
            d2 = DANKRegressor(C=cv.best_C_, sigma=s2).fit(X, y)
            wide.append((_rse(y, svr2.predict(X)), _rse(y, d2.predict(X))))
        if seed == 0:
            first = (X, y, cv, d)
    row.ours = (f"SVR-CV {np.mean(cv_err):.4f} vs DANK {np.mean(dk_err):.4f} at the CV (σ, C) "
                f"(n={n}, {sc.svr_seeds} seed{'s' * (sc.svr_seeds > 1)})")
    paper_cv = 0.013 if step else 0.042
    if wide:
        w = np.mean(wide, axis=0)
        row.ours += f"; at 2×σ_CV: SVR {w[0]:.4f} vs DANK {w[1]:.4f}"
    row.holds = bool(np.mean(dk_err) < np.mean(cv_err))
    row.note = ("Errors on the n training points (the paper's 'over n data points'), noise-free "
                "samples; DANK uses SVR-CV's σ and C.")
    if not row.holds:
        row.note += (f" At the CV width both fit the samples almost exactly "
                     f"({np.mean(cv_err):.4f} vs {np.mean(dk_err):.4f}; our SVR-CV is "
                     f"{paper_cv / max(np.mean(cv_err), 1e-12):.0f}× better than the paper's "
                     f"{paper_cv}): no room for F.")
    if wide:
        row.note += (f" With a kernel twice too wide DANK cuts the SVR's error "
                     f"{w[0] / max(w[1], 1e-12):.1f}-fold ({w[0]:.4f} → {w[1]:.4f}; paper "
                     f"{paper_cv / (0.004 if step else 0.007):.1f}-fold): F's effect is real "
                     "where the kernel is too wide.")
    X, y, cv, d = first
    if step:
        xl = np.linspace(-5, 5, 600)[:, None]
        row.fig = figs.regression_curve(X, y, xl[:, 0], d.predict(xl),
                                        others={"SVR-CV": cv.predict(xl),
                                                "true g": ds.step_function(xl[:, 0])},
                                        name="DANK-SVR", train_score=dk_err[0],
                                        title="Step function: DANK-SVR vs SVR-CV")
    else:
        g = np.linspace(0, 1, 50)
        gu, gv = np.meshgrid(g, g)
        Z = d.predict(np.column_stack([gu.ravel(), gv.ravel()])).reshape(gu.shape)
        row.fig = figs.regression_surface(g, g, Z, X, y, train_score=dk_err[0],
                                          title="Harmonic function: DANK-SVR fit")
    return row


def row_dank_svr_step(sc: Scale, cache: dict) -> Row:
    return _svr_row(sc, "step")


def row_dank_svr_harmonic(sc: Scale, cache: dict) -> Row:
    return _svr_row(sc, "harmonic")


# ---------------------------------------------------------------------------
# KNPL (seed 001) and ONK (seed 003)
# ---------------------------------------------------------------------------

def _sandwich(sc: Scale, cache: dict):
    if "sandwich" not in cache:
        from nplk_core import SVMCVClassifier

        X, y = ds.make_sandwich(sc.n_sandwich, random_state=0)
        cache["sandwich"] = (X, y, SVMCVClassifier(random_state=0).fit(X, y))
    return cache["sandwich"]


def row_knpl_fig2(sc: Scale, cache: dict) -> Row:
    from nplk_core import KNPLClassifier

    row = Row("knpl_fig2", "001", "KNPL Fig. 2",
              "On the sandwich data KNPL fits the training set better than SVM-CV, with G "
              "fluctuating slightly around 1.",
              "training accuracy SVM-CV 86.87 % → KNPL 94.93 %; G in 0.95–1.05",
              preset="knpl_sandwich")
    X, y, cv = _sandwich(sc, cache)
    with _quiet():
        k = KNPLClassifier(C=cv.best_C_, sigma=cv.best_sigma_).fit(X, y)
    a_svm, a_k = cv.score(X, y), k.score(X, y)
    G = np.asarray(k.G_)
    row.ours = (f"training accuracy SVM-CV {100 * a_svm:.2f} % → KNPL {100 * a_k:.2f} %; "
                f"G in [{G.min():.3f}, {G.max():.3f}] (n={sc.n_sandwich}, σ={cv.best_sigma_:g},"
                f" C={cv.best_C_:g})")
    near = bool(G.min() >= 0.9 and G.max() <= 1.1)
    row.holds = bool(a_k > a_svm) and near
    why = []
    if a_k <= a_svm:
        why.append(f"KNPL's training accuracy is not above SVM-CV's ({100 * (a_k - a_svm):+.2f})")
    if not near:
        why.append("G leaves 0.9–1.1 with the default γ (the paper's γ is not stated)")
    row.note = "; ".join(why)
    row.fig = figs.matrix_heatmap(G, y, name="G", center=1.0, title="KNPL's G on sandwich")
    return row


def row_knpl_fig3(sc: Scale, cache: dict) -> Row:
    from nplk_core import KNPLClassifier

    row = Row("knpl_fig3", "001", "KNPL Fig. 3",
              "ADMM reaches G* in a few iterations and the outer loop (Algorithm 2) settles "
              "within 10 rounds.", "ADMM ≈ 3 iterations; outer loop ≤ 10 rounds (heart)",
              preset="knpl_sandwich")
    X, y, cv = _sandwich(sc, cache)
    extra = {"solver": "alternating"} if "solver" in KNPLClassifier().get_params() else {}
    with _quiet():
        k = KNPLClassifier(C=cv.best_C_, sigma=cv.best_sigma_, **extra).fit(X, y)
    h = k.history_
    admm = np.asarray(h.get("admm_iterations", [np.nan]), dtype=float)
    row.ours = (f"{k.n_iter_} rounds, converged {bool(k.converged_)}; ADMM iterations per "
                f"round median {np.nanmedian(admm):.0f} (sandwich n={sc.n_sandwich})")
    outer_ok = bool(k.converged_ and k.n_iter_ <= 10)
    admm_ok = not np.isfinite(np.nanmedian(admm)) or bool(np.nanmedian(admm) <= 5)
    row.holds = outer_ok and admm_ok
    why = []
    if not outer_ok:
        ch = np.asarray(h.get("alpha_change", [np.nan]), dtype=float)
        why.append("Algorithm 2 did not settle within 10 rounds: the best-response "
                   f"alternation 2-cycles (last ‖Δα‖ {ch[-1]:.3g}; issue 10 §1)")
    if not admm_ok:
        why.append(f"ADMM used a median {np.nanmedian(admm):.0f} iterations per round "
                   "(its cap), not ≈ 3")
    row.note = "; ".join(why)
    row.fig = figs.convergence_figure({"KNPL (Algorithm 2)": h},
                                      title="KNPL outer rounds on sandwich")
    return row


def row_onk_fig1(sc: Scale, cache: dict) -> Row:
    from nplk_core import ONKClassifier

    row = Row("onk_fig1", "003", "ONK Fig. 1",
              "Both the level method and constrained gradient descent converge fast; the level "
              "method takes fewer iterations.",
              "C = 1, ρ = 100: both converge fast, level fewer iterations (Liver, a4a)",
              preset=None)
    X, y = ds.make_clowns(sc.n_clowns, random_state=0)
    with _quiet():
        fits = {s: ONKClassifier(C=1.0, sigma=1.0, rho=100.0, solver=s).fit(X, y)
                for s in ("level", "cgd")}
    row.ours = "; ".join(f"{s}: {f.n_iter_} iterations, converged {bool(f.converged_)}"
                         for s, f in fits.items()) + f" (clowns n={sc.n_clowns}, σ=1)"
    row.holds = bool(all(f.converged_ for f in fits.values())
                     and fits["level"].n_iter_ < fits["cgd"].n_iter_)
    if not row.holds:
        row.note = ("The level method did not take fewer iterations than CGD, or one did not "
                    "converge.")
    row.fig = figs.convergence_figure({s: f.history_ for s, f in fits.items()},
                                      panels=["objective"], title="ONK solvers on clowns")
    return row


def row_onk_fig3(sc: Scale, cache: dict) -> Row:
    from nplk_core import ONKClassifier

    row = Row("onk_fig3", "003", "ONK Fig. 3",
              "Small ρ hurts, a wide middle range beats the given kernel, and ρ → ∞ gives the "
              "plain SVM.", "Liver/Diabetes: accuracy vs ρ tends to the pre-specified kernel's",
              preset="onk_rho")
    seeds = max(2, sc.seeds // 2)
    acc = np.zeros((len(sc.onk_rhos), seeds))
    svm_acc, agree = np.zeros(seeds), np.zeros(seeds)
    for j in range(seeds):
        X, y = ds.make_clowns(sc.n_clowns, random_state=j)
        Xtr, Xte, ytr, yte = _split(X, y, j, test_size=0.8)  # the paper trains on 20 %
        svm = _svc(1.0, 4.0).fit(Xtr, ytr)
        svm_acc[j] = svm.score(Xte, yte)
        with _quiet():
            for i, rho in enumerate(sc.onk_rhos):
                m = ONKClassifier(C=1.0, sigma=4.0, rho=rho).fit(Xtr, ytr)
                acc[i, j] = m.score(Xte, yte)
                if i == len(sc.onk_rhos) - 1:
                    agree[j] = np.mean(m.predict(Xte) == svm.predict(Xte))
    mean = acc.mean(axis=1)
    row.ours = (", ".join(f"ρ={r:g} {100 * mean[i]:.1f}" for i, r in enumerate(sc.onk_rhos))
                + f" % vs SVM {_pm(svm_acc)} %; predictions at ρ={sc.onk_rhos[-1]:g} agree "
                f"with the SVM on {100 * agree.mean():.1f} % (clowns σ=4, 20 % train, "
                f"{seeds} seeds)")
    tends = bool(abs(mean[-1] - svm_acc.mean()) <= 0.005 and agree.mean() >= 0.99)
    row.holds = tends
    base = svm_acc.mean()
    row.note = ("ρ → ∞ holds. " if tends else "The largest ρ did not match the SVM. ") + (
        f"Best middle ρ: {100 * mean[1:-1].max():.1f} % "
        f"({'above' if mean[1:-1].max() > base else 'not above'} the SVM's {100 * base:.1f} %); "
        f"smallest ρ {100 * mean[0]:.1f} % "
        f"({'below' if mean[0] < base else 'not below'} the SVM, paper: small ρ hurts).")
    row.fig = figs.sensitivity_figure(np.asarray(sc.onk_rhos), acc, param_label="ρ",
                                      baseline=float(svm_acc.mean()),
                                      title="ONK accuracy against ρ on clowns (σ = 4)")
    return row


# ---------------------------------------------------------------------------
# SimpleNPKL (seed 002)
# ---------------------------------------------------------------------------

def _npkl_rand(X, y, seed: int, **params) -> tuple[float, Any]:
    from nplk_core import SimpleNPKL
    from nplk_core.simple_npkl import clustering_accuracy

    with _quiet():
        m = SimpleNPKL(random_state=seed, **params).fit(X, y)
    return clustering_accuracy(y, m.labels_), m


#: the spiral of the SimpleNPKL rows: the paper's generator is not given (Table 1: two
#: classes, 100 points); one turn keeps 50 points per arm as dense as its figures suggest
SPIRAL = {"n_turns": 1.0, "noise": 0.05}
#: C of the SimpleNPKL rows: the paper uses "several constant values in (0, 1]" on the
#: Table 1 sets; 0.1 is the estimator's default
NPKL_C = 0.1


def row_npkl_table2(sc: Scale, cache: dict) -> Row:
    from sklearn.cluster import KMeans

    from nplk_core.simple_npkl import clustering_accuracy

    row = Row("npkl_table2", "002", "SimpleNPKL Table 2 (spiral)",
              "The kernel learned from pairwise constraints clusters the spiral far better "
              "than k-means.", "Rand index: k-means 50.1, SimpleNPKL+LL 92.2, +SHL 94.1",
              preset="npkl_spiral")
    seeds = max(2, sc.seeds // 2)
    res: dict[str, dict[str, list]] = {}
    for label, spiral in (("1 turn", SPIRAL), ("1.5 turns", {**SPIRAL, "n_turns": 1.5})):
        r = res.setdefault(label, {"km": [], "ll": [], "shl": []})
        for s in range(seeds):
            X, y = ds.make_spiral(sc.n_spiral, random_state=s, **spiral)
            r["km"].append(clustering_accuracy(
                y, KMeans(2, n_init=10, random_state=s).fit_predict(X)))
            a, m = _npkl_rand(X, y, s, loss="linear", C=NPKL_C)
            r["ll"].append(a)
            r["shl"].append(_npkl_rand(X, y, s, loss="square_hinge", C=NPKL_C)[0])
            if s == 0 and label == "1 turn":
                first = (X, y, m)
    row.ours = "; ".join(f"{lb}: k-means {_pm(r['km'])}, SimpleNPKL+LL {_pm(r['ll'])}, +SHL "
                         f"{_pm(r['shl'])}" for lb, r in res.items())
    row.ours += f" (spiral n={sc.n_spiral}, C={NPKL_C:g}, {seeds} seeds)"
    r = res["1 turn"]
    same = all(np.allclose(v["ll"], v["shl"]) for v in res.values())
    row.holds = bool(np.mean(r["ll"]) > np.mean(r["km"]) + 0.1
                     and np.mean(r["shl"]) > np.mean(r["km"]) + 0.1)
    row.note = ("The paper's spiral generator is not given; the claim is judged on one turn "
                "(50 points per arm). With 1.5 turns (the app's default) 100 points are too "
                "sparse for the 5-NN graph to follow the arms."
                + (" LL and SHL gave identical partitions at C = 0.1." if same else ""))
    if not row.holds:
        row.note = "SimpleNPKL did not beat k-means by 10 points with both losses. " + row.note
    X, y, m = first
    row.fig = figs.partition_figure(X, m.labels_, y=y,
                                    title="SimpleNPKL+LL clusters on the spiral (seed 0)")
    return row


def _npkl_sweep(sc: Scale, values, key: str, C: float = NPKL_C):
    seeds = max(2, sc.seeds // 2)
    acc = np.zeros((len(values), seeds))
    for s in range(seeds):
        X, y = ds.make_spiral(sc.n_spiral, random_state=s, **SPIRAL)
        for i, v in enumerate(values):
            params = {"loss": "square_hinge", "C": C, "B": 1.0, "p": 2.0, key: v}
            acc[i, s] = _npkl_rand(X, y, s, **params)[0]
    return acc


def row_npkl_table4(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table4", "002", "SimpleNPKL Table 4 (spiral)",
              "SimpleNPKL+SHL is not sensitive to the capacity B (p = 2).",
              "Iris 94.8–95.7 %, Protein 73.6–74.5 % over B = 1…4 (C = 1)",
              preset="npkl_spiral")
    acc = _npkl_sweep(sc, sc.npkl_B, "B")
    acc1 = _npkl_sweep(sc, sc.npkl_B[:1], "B", C=1.0)
    mean = 100 * acc.mean(axis=1)
    row.ours = ", ".join(f"B={b:g} {mean[i]:.1f}" for i, b in enumerate(sc.npkl_B)) + \
        f" % (spiral n={sc.n_spiral}, C={NPKL_C:g}); at C=1: {100 * acc1.mean():.1f} %"
    spread = float(mean.max() - mean.min())
    row.holds = spread <= 2.0
    row.note = (f"Spread over B {spread:.1f} points (paper ≤ 0.9). C = 0.1 instead of the "
                "paper's 1: at C = 1 the square hinge loss dominates the Laplacian on the "
                "spiral and the clusters fall to k-means' level.")
    row.fig = figs.sensitivity_figure(np.asarray(sc.npkl_B), acc, param_label="B", log_x=False,
                                      metric="Rand index", title="SimpleNPKL+SHL against B")
    return row


def row_npkl_table5(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table5", "002", "SimpleNPKL Table 5 (spiral)",
              "With p < 2 the clustering accuracy drops; p ≥ 2 is stable (B = 1).",
              "Iris p=1.5 58.6 % vs p=2 94.8 %; Protein 72.8 vs 74.5 (C = 1)",
              preset="npkl_spiral")
    acc = _npkl_sweep(sc, sc.npkl_p, "p")
    mean = 100 * acc.mean(axis=1)
    row.ours = ", ".join(f"p={p:g} {mean[i]:.1f}" for i, p in enumerate(sc.npkl_p)) + \
        f" % (spiral n={sc.n_spiral}, C={NPKL_C:g})"
    i15, i2 = sc.npkl_p.index(1.5), sc.npkl_p.index(2.0)
    drop = float(mean[i2] - mean[i15])
    row.holds = drop > 1.0
    row.note = f"p=1.5 is {drop:.1f} points below p=2" if row.holds else (
        f"No drop below p = 2 on the spiral (p=2 minus p=1.5: {drop:+.1f} points); the "
        "paper's drop is on Iris/Protein.")
    row.fig = figs.sensitivity_figure(np.asarray(sc.npkl_p), acc, param_label="p", log_x=False,
                                      metric="Rand index", title="SimpleNPKL+SHL against p")
    return row


# ---------------------------------------------------------------------------
# LAB RBF (seed 004)
# ---------------------------------------------------------------------------

def _r2(y, pred) -> float:
    return 1.0 - _rse(y, pred)


def row_lab_rbf_fig1(sc: Scale, cache: dict) -> Row:
    from nplk_core import KernelRidgeBaseline, LABRBFRegressor

    row = Row("lab_rbf_fig1", "004", "LAB RBF Fig. 1",
              "On a function whose frequency varies, locally adaptive bandwidths beat every "
              "single global bandwidth.",
              "figure: a small bandwidth misses the fast part, a large one overfits the smooth "
              "part, LAB RBF fits both", preset="lab_rbf_chirp")
    sigmas = (0.01, 0.02, 0.05, 0.1, 0.2)
    lab, same, full = [], [], []
    for s in range(sc.lab_seeds):
        X, y = ds.make_chirp(300, noise=0.1, random_state=s)
        xg = np.linspace(0, 1, 1000)[:, None]
        g = ds.chirp_function(xg[:, 0])
        with _quiet():
            m = LABRBFRegressor(random_state=s).fit(X, y)
        lab.append(_r2(g, m.predict(xg)))
        Xs, ys = X[m.support_], y[m.support_]
        same.append(max(_r2(g, KernelRidgeBaseline(sigma=sg).fit(Xs, ys).predict(xg))
                        for sg in sigmas))
        full.append(_r2(g, KernelRidgeBaseline(cv=5, random_state=s).fit(X, y).predict(xg)))
        if s == 0:
            first = (X, y, xg, m)
    m_s = len(first[3].support_)
    row.ours = (f"R² on a 1,000-point grid: LAB RBF ({m_s} supports) {np.mean(lab):.3f}; best "
                f"single-σ KRR on the same supports {np.mean(same):.3f}; KRR-CV on all 300 "
                f"points {np.mean(full):.3f} (chirp, noise 0.1)")
    row.holds = bool(np.mean(lab) > np.mean(same))
    row.note = ("The like-for-like baseline is KRR on the same support points with the best "
                "global σ (chosen on the test grid, an upper bound).")
    if not row.holds:
        row.note += " LAB RBF was below it."
    X, y, xg, m = first
    row.fig = figs.regression_curve(X, y, xg[:, 0], m.predict(xg), support=m.support_vectors_,
                                    others={"true g": ds.chirp_function(xg[:, 0])},
                                    name="LAB RBF", title="LAB RBF on the chirp")
    return row


def row_lab_rbf_fig4(sc: Scale, cache: dict) -> Row:
    from nplk_core import LABRBFRegressor

    row = Row("lab_rbf_fig4", "004", "LAB RBF Fig. 4",
              "Test error is lowest at an intermediate share of support data: too few underfit, "
              "too many overfit.", "RSSE against the support ratio has an interior minimum "
              "(200 train / 800 test, Cherkassky functions)", preset="lab_rbf_support")
    rsse = np.zeros((len(sc.lab_ratios), sc.lab_seeds))
    for s in range(sc.lab_seeds):
        X, y = ds.make_harmonic(1000, random_state=100 + s)
        rng = np.random.default_rng(s)
        y = y + rng.normal(0, math.sqrt(0.1 * y.var()), y.size)  # noise variance 10 % of y's
        Xtr, Xte, ytr, yte = X[:200], X[200:], y[:200], y[200:]
        for i, r in enumerate(sc.lab_ratios):
            with _quiet():
                m = LABRBFRegressor(n_support=max(2, int(round(r * 200))), random_state=s)
                m.fit(Xtr, ytr)
            rsse[i, s] = _rse(yte, m.predict(Xte))
    mean = rsse.mean(axis=1)
    best = int(np.argmin(mean))
    row.ours = ", ".join(f"{int(100 * r)} % {mean[i]:.3f}" for i, r in enumerate(sc.lab_ratios))
    row.ours += f" (RSSE on 800 test points, harmonic, {sc.lab_seeds} seed(s))"
    interior = 0 < best < len(sc.lab_ratios) - 1
    # an interior minimum that stands out from the seed spread at both ends
    row.holds = interior and bool(_clear_gain(rsse[best], rsse[0])
                                  and _clear_gain(rsse[best], rsse[-1])) \
        if sc.lab_seeds > 1 else interior
    row.note = f"Minimum at {int(100 * sc.lab_ratios[best])} % support data" + (
        "" if interior else " (an end of the range, not an interior minimum)") + "."
    if interior and not row.holds:
        row.note += (" It is not lower than both ends by more than twice the standard "
                     "error over the seeds.")
    ups = int(np.sum(np.diff(np.sign(np.diff(mean))) != 0))
    if ups > 1:
        row.note += (f" The curve is not U-shaped ({ups} changes of direction): the spread "
                     f"over seeds (std up to {rsse.std(axis=1).max():.3f}) is as large as the "
                     "differences.")
    row.fig = figs.sensitivity_figure(np.asarray(sc.lab_ratios), rsse, param_label="support ratio",
                                      log_x=False, metric="test RSSE",
                                      title="LAB RBF against the support ratio (harmonic)")
    return row


ROWS: tuple[Callable[[Scale, dict], Row], ...] = (
    row_dank_fig1, row_dank_fig1b, row_dank_fig2, row_dank_fig4, row_dank_table5,
    row_dank_svr_step, row_dank_svr_harmonic, row_knpl_fig2, row_knpl_fig3, row_onk_fig1,
    row_onk_fig3, row_npkl_table2, row_npkl_table4, row_npkl_table5, row_lab_rbf_fig1,
    row_lab_rbf_fig4)


# ---------------------------------------------------------------------------
# running and reporting
# ---------------------------------------------------------------------------

def run(quick: bool = False, progress=None, only: list[str] | None = None) -> list[Row]:
    """Run every row (``only``: row function names without ``row_``, for debugging).

    ``progress(i, n, row_id)`` is called before each row. A row that raises is kept, with
    ``holds=None`` and the error as its note, so one broken solver does not hide the rest.
    """
    sc = QUICK if quick else FULL
    fns = [f for f in ROWS if only is None or f.__name__[4:] in only]
    cache: dict = {}
    rows = []
    for i, fn in enumerate(fns):
        rid = fn.__name__[4:]
        if progress is not None:
            progress(i, len(fns), rid)
        t0 = time.perf_counter()
        try:
            row = fn(sc, cache)
        except Exception as exc:  # noqa: BLE001 - reported in the table, not swallowed
            row = Row(rid, "?", rid, "(row failed)", "(row failed)", ours="(error)",
                      note=f"{type(exc).__name__}: {exc}")
        row.seconds = time.perf_counter() - t0
        rows.append(row)
    return rows


def _write_pngs(rows: list[Row], out: Path) -> str:
    """Write each row's figure with kaleido; return a note ('' when all were written)."""
    todo = [r for r in rows if r.fig is not None]
    if not todo:
        return ""
    try:
        import plotly.io as pio

        paths = [out / f"fig_{r.id}.png" for r in todo]
        pio.write_images([r.fig for r in todo], paths, width=800, height=560)
    except Exception as exc:  # noqa: BLE001 - no browser / no kaleido is a documented state
        return (f"PNG figures were not written ({type(exc).__name__}: {str(exc)[:200]}). "
                "kaleido 1.x needs Chrome or Chromium: install one (e.g. `apt install "
                "chromium` or `plotly_get_chrome`) and rerun.")
    for r, p in zip(todo, paths, strict=True):
        r.figure = p.name if p.exists() else None
    return ""


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _holds(h: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "shown"}[h]


def table_markdown(rows: list[Row], *, with_figures: bool = True) -> str:
    head = "| paper | item | paper's value | ours | holds | note |"
    lines = [head, "|---|---|---|---|---|---|"]
    for r in rows:
        note = r.note + (f" ([figure]({r.figure}))" if with_figures and r.figure else "")
        lines.append("| " + " | ".join(_cell(c) for c in (
            f"{r.paper} {PAPERS.get(r.paper, '')}".strip(), r.item, r.paper_value, r.ours,
            _holds(r.holds), note)) + " |")
    return "\n".join(lines)


def write_report(rows: list[Row], out, *, quick: bool, seconds: float,
                 command: str | None = None) -> Path:
    """Write ``report.md``, ``results.json`` and the PNGs into ``out``; return report.md."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    png_note = _write_pngs(rows, out)
    command = command or "python -m nplk_app.reproduce" + (" --quick" if quick else "")
    data = {"generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command, "quick": bool(quick), "seconds": round(float(seconds), 1),
            "rows": [r.as_dict() for r in rows]}
    (out / "results.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    n_yes = sum(r.holds is True for r in rows)
    n_no = sum(r.holds is False for r in rows)
    md = [f"# Seed results reproduced{' (QUICK run: fewer points and seeds)' if quick else ''}",
          "", f"`{command}` · {data['generated']} · {seconds:.0f} s · {len(rows)} rows: "
          f"{n_yes} hold, {n_no} do not, {len(rows) - n_yes - n_no} shown only.", ""]
    if quick:
        md += ["> This is the `--quick` smoke run (small n, 1–3 seeds); the numbers are noisy. "
               "Run without `--quick` for the benchmark scale.", ""]
    if png_note:
        md += [f"> {png_note}", ""]
    md += [table_markdown(rows), "", "## Rows", ""]
    for r in rows:
        md += [f"### {r.item} (`{r.id}`)", "", f"- **Claim:** {r.claim}",
               f"- **Paper:** {r.paper_value}", f"- **Ours:** {r.ours}",
               f"- **Holds:** {_holds(r.holds)}" + (f" — {r.note}" if r.note else ""),
               f"- **Preset:** `{r.preset}`" if r.preset else "- **Preset:** none",
               f"- **Time:** {r.seconds:.1f} s", ""]
        if r.figure:
            md += [f"![{r.item}]({r.figure})", ""]
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path


def load_results(path=None) -> dict | None:
    """The last run's ``results.json`` (default ``reports/reproduce``), or None if absent."""
    p = Path(path) if path is not None else DEFAULT_OUT / "results.json"
    if p.is_dir():
        p = p / "results.json"
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def _plain_table(rows: list[Row]) -> str:
    out = []
    for r in rows:
        mark = {True: "yes", False: "NO", None: "shown"}[r.holds]
        out.append(f"[{mark:>5}] {r.item}\n    paper: {r.paper_value}\n"
                   f"    ours:  {r.ours}" + (f"\n    note:  {r.note}" if r.note else ""))
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nplk_app.reproduce",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: fewer points and seeds (< 2 min on 2 quiet cores)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output directory")
    parser.add_argument("--only", nargs="*", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    start = time.perf_counter()

    def progress(i, n, rid):
        print(f"[{i + 1}/{n}] {rid} ... (t = {time.perf_counter() - start:.0f} s)",
              file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    rows = run(quick=args.quick, progress=progress, only=args.only)
    seconds = time.perf_counter() - t0
    cmd = "python -m nplk_app.reproduce" + (" --quick" if args.quick else "")
    path = write_report(rows, args.out, quick=args.quick, seconds=seconds, command=cmd)
    print(_plain_table(rows))
    print(f"\n{len(rows)} rows in {seconds:.0f} s (+ figures); report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
