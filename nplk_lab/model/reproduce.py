"""Regenerate the seed papers' reproducible results: ``python -m nplk_lab.model.reproduce``.

This file is long because it holds one short experiment per paper result (17 rows, plus
10 real-data rows built by one function) next to the report writer; splitting them would
scatter each protocol away from its claim.

Every row runs the public estimators on the toy data of :mod:`nplk_core.datasets` (or on
data scikit-learn ships, :mod:`nplk_lab.model.realdata`), states the paper's number or claim,
ours (computed now, never stored) and a verdict: paired differences (method − baseline)
over 10 seeds or splits, their 95 % intervals (:mod:`nplk_lab.model.paired`), and *holds* /
*does not hold* / *inconclusive* from those intervals, labelled *by construction* where
the result follows from a parameter choice (docs/how-verdicts-are-made.md). ``--quick``
runs the same protocols and seeds on fewer points; it is the scale of the committed
report, which a test re-runs and compares verdict by verdict. Output: ``report.md``,
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

import nplk_lab.figures as figs
from nplk_core import datasets as ds

from . import cvgrid, realdata
from . import paired as P
from . import verdicts as V

DEFAULT_OUT = Path("reports/reproduce")
ROW_KEYS = ("id", "paper", "item", "claim", "paper_value", "ours", "holds", "verdict",
            "by_construction", "stats", "note", "preset", "figure")
PAPERS = {"000": "DANK", "001": "KNPL", "002": "SimpleNPKL", "003": "ONK", "004": "LAB RBF",
          "real": "real data"}


@dataclass
class Row:
    """One reproduced result (the ``results.json`` row plus its figure and run time).

    ``verdict`` is one of :data:`nplk_lab.model.paired.VERDICTS`, derived from the intervals of
    the judged comparisons in ``stats`` (:meth:`judge`); ``holds`` repeats it as
    True / False / None for older readers. ``by_construction`` says why a result follows
    from a parameter choice rather than from the data (empty when it does not).
    """

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
    verdict: str = P.SHOWN
    by_construction: str = ""
    stats: list = field(default_factory=list)
    fig: Any = field(default=None, repr=False)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ROW_KEYS}

    def judge(self, judged, context=(), *, extra: tuple[str, ...] = (),
              by_construction: str = "") -> None:
        """Set the verdict from the judged comparisons (and ``extra`` verdicts of parts that
        are not paired differences); ``context`` comparisons are recorded, not judged."""
        self.verdict = P.combine([p.verdict for p in judged] + list(extra))
        self.holds = P.legacy_holds(self.verdict)
        self.by_construction = by_construction
        self.stats = ([{**p.as_dict(), "judged": True} for p in judged]
                      + [{**p.as_dict(), "judged": False} for p in context])


@dataclass(frozen=True)
class Scale:
    """Sizes of one run. Both scales repeat every comparison over at least 10 seeds or
    splits (``seeds``); ``quick`` (the committed report, re-run by the tests) uses fewer
    points, the full scale the papers' sizes."""

    quick: bool
    n_clowns: int
    seeds: int
    sigmas: tuple[float, ...]
    n_fig4: int
    fig4_iter: int
    taus: tuple[float, ...]
    n_step: int
    n_harmonic: int
    n_sandwich: int
    onk_rhos: tuple[float, ...]
    n_spiral: int
    npkl_B: tuple[float, ...]
    npkl_p: tuple[float, ...]
    lab_ratios: tuple[float, ...]
    n_chirp: int
    real_n_max: int


FULL = Scale(False, 200, 10, (1.0, 4.0, 8.0), 140, 2500, (0.0, 1e-3, 1e-2, 1e-1, 1.0),
             200, 400, 200, (1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e6), 100,
             (1.0, 1.5, 2.0, 2.5, 3.0, 4.0), (1.5, 2.0, 2.5, 3.0, 4.0),
             (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9), 300, 300)
QUICK = Scale(True, 100, 10, (1.0, 4.0, 8.0), 70, 1500, (0.0, 1e-2, 1.0),
              60, 80, 100, (1e-2, 1.0, 100.0, 1e6), 100,
              (1.0, 4.0), (1.5, 2.0, 4.0), (0.05, 0.2, 0.6), 150, 150)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _pm(values, scale: float = 100.0, digits: int = 1) -> str:
    a = scale * np.asarray(values, dtype=float)
    return f"{a.mean():.{digits}f} ± {a.std():.{digits}f}"


def _acc(method, baseline, label: str, **kw) -> P.Paired:
    """Paired accuracy difference in percentage points (higher is better)."""
    return P.paired(method, baseline, label=label, unit="points", scale=100.0, **kw)


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


def _one_nn(Xtr, ytr, Xte):
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(1).fit(Xtr, ytr).predict(Xte)


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
    """SVM, DANK (same sigma and C = 1), 1-NN and DANK with F off at test time on clowns
    splits, per sigma and seed; shared by Fig. 1 and Fig. 2."""
    if "clowns" in cache:
        return cache["clowns"]
    from nplk_core import DANKClassifier

    out: dict[float, dict[str, list]] = {}
    for sigma in sc.sigmas:
        r = out.setdefault(sigma, {"svm": [], "dank": [], "nn": [], "off": [], "agree": [],
                                   "rank": [], "dev": [], "n": [], "fits": []})
        for seed in range(sc.seeds):
            X, y = ds.make_clowns(sc.n_clowns, random_state=seed)
            Xtr, Xte, ytr, yte = _split(X, y, seed)
            svm = _svc(1.0, sigma).fit(Xtr, ytr)
            dank = DANKClassifier(C=1.0, sigma=sigma).fit(Xtr, ytr)
            pred, p_nn = dank.predict(Xte), _one_nn(Xtr, ytr, Xte)
            f_off = realdata.plain_kernel_decision(Xtr, dank.dual_u_, dank.intercept_, sigma,
                                                   Xte)
            r["svm"].append(svm.score(Xte, yte))
            r["dank"].append(float(np.mean(pred == yte)))
            r["nn"].append(float(np.mean(p_nn == yte)))
            r["off"].append(float(np.mean(dank.classes_[(f_off > 0).astype(int)] == yte)))
            r["agree"].append(float(np.mean(pred == p_nn)))
            r["rank"].append(dank.rank_)
            r["dev"].append(float(np.abs(dank.F_ - 1).max()))
            r["n"].append(dank.F_.shape[0])
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
    wide = [s for s in fits if s >= 4]
    judged = [_acc(fits[s]["dank"], fits[s]["svm"], f"DANK − SVM, σ = {s:g}") for s in wide]
    s0 = wide[0]
    context = [_acc(fits[s]["dank"], fits[s]["svm"], f"DANK − SVM, σ = {s:g}")
               for s in fits if s < 4]
    context += [_acc(fits[s0]["dank"], fits[s0]["nn"], f"DANK − 1-NN, σ = {s0:g}"),
                _acc(fits[s0]["off"], fits[s0]["svm"], f"DANK with F off − SVM, σ = {s0:g}")]
    row.judge(judged, context)
    row.ours = "; ".join(f"σ={s:g}: SVM {_pm(r['svm'])} → DANK {_pm(r['dank'])} % (1-NN "
                         f"{_pm(r['nn'])})" for s, r in fits.items())
    row.ours += f" (test, {sc.seeds} seeds, n={sc.n_clowns}, C=1)"
    X0, _ = ds.make_clowns(sc.n_clowns, random_state=0)
    span = float(np.mean(X0.max(axis=0) - X0.min(axis=0)))
    agree = 100 * np.mean(fits[s0]["agree"])
    off = context[-1]
    row.note = (f"At σ = {s0:g} DANK's test labels equal 1-NN's on {agree:.0f} % of test "
                "points (the out-of-sample rule borrows a training point's row of F); with F "
                f"switched off at test time (learned α, b, plain K) the score moves "
                f"{off.mean:+.1f} points from the SVM's (95 % CI {off.lo:+.1f} to {off.hi:+.1f}). "
                f"Scale: min-max scaled to [0, 1] like the paper's other data, its σ = 1 "
                f"would be σ ≈ {span:.1f} on our standardised clowns.")
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
    from nplk_core import DANKClassifier

    row = Row("dank_fig1b", "000", "DANK Fig. 1b",
              "Even at the cross-validated σ the learned kernel is more accurate than the "
              "SVM-CV.", "boundary only (σ = 0.07 by CV); no accuracy given",
              preset="dank_clowns")
    svm, dank, sig = [], [], []
    for seed in range(sc.seeds):
        X, y = ds.make_clowns(sc.n_clowns, random_state=seed)
        Xtr, Xte, ytr, yte = _split(X, y, seed)
        cv = cvgrid.fit_cv(Xtr, ytr, seed=seed)
        d = DANKClassifier(C=cv.best_C_, sigma=cv.best_sigma_).fit(Xtr, ytr)
        svm.append(cv.score(Xte, yte))
        dank.append(d.score(Xte, yte))
        sig.append(cv.best_sigma_)
    row.judge([_acc(dank, svm, "DANK − SVM-CV")])
    row.ours = (f"SVM-CV {_pm(svm)} → DANK {_pm(dank)} % at CV σ ∈ "
                f"{{{', '.join(f'{s:g}' for s in sorted(set(sig)))}}} ({len(svm)} seeds, "
                f"n={sc.n_clowns})")
    row.note = ("At the CV width the SVM already fits the clowns and F stays close to 11ᵀ; "
                "the paper shows this case as a figure only, without a number.")
    row.fig = figs.lines_figure(np.arange(len(svm)), {"SVM-CV": 100 * np.asarray(svm),
                                                      "DANK (same σ, C)": 100 * np.asarray(dank)},
                                x_title="seed", y_title="test accuracy (%)",
                                title="DANK vs SVM-CV at the cross-validated σ, C")
    return row


def row_dank_fig2(sc: Scale, cache: dict) -> Row:
    row = Row("dank_fig2", "000", "DANK Fig. 2",
              "The learned F stays near the all-one matrix and is low-rank.",
              "entries of F in 0.9–1.1; low rank", preset="dank_matrix")
    fits = _clowns_fits(sc, cache)
    parts, ok = [], True
    for sigma, r in fits.items():
        dev, frac = np.asarray(r["dev"]), np.asarray(r["rank"]) / np.asarray(r["n"])
        parts.append(f"σ={sigma:g}: max |F − 1| {dev.max():.3f}, rank(F) ≤ "
                     f"{int(np.max(r['rank']))} of {int(np.min(r['n']))}")
        ok &= bool(dev.max() <= 0.1 + 1e-9 and frac.max() <= 0.15)
    row.ours = "; ".join(parts) + f" (worst of {sc.seeds} seeds)"
    row.judge([], extra=(P.HOLDS if ok else P.FAILS,),
              by_construction="η = ‖α_SVM‖² (§6.1) makes Γ = D K D/(4η) small, so F = "
              "J(11ᵀ + Γ) stays within a few thousandths of 11ᵀ, and the nuclear-norm term "
              "(τ > 0) removes the small eigenvalues: the range and the low rank follow from "
              "η and τ, not from the data.")
    row.note = "'Low rank' is taken as rank ≤ 15 % of n, on every seed and σ."
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
    params = dict(C=1.0, sigma=4.0)
    levels = (1e-3, 1e-5)
    hits = {s: {lv: [] for lv in levels} for s in ("nesterov", "pg")}
    big = sc.fig4_iter + 1  # a run that never reached the level counts as max_iter + 1
    for seed in range(sc.seeds):
        X, y = ds.make_clowns(sc.n_fig4, random_state=seed)
        with _quiet():
            ref = DANKClassifier(**params, solver="apg", max_iter=20000, tol=1e-12).fit(X, y)
            h_ref = ref.objective_

            def done(it, state, elapsed, h_ref=h_ref):  # stop once 10x past the finest level
                return (h_ref - state["objective"]) <= 1e-6 * abs(h_ref)

            runs = {s: DANKClassifier(**params, solver=s, max_iter=sc.fig4_iter, tol=1e-12,
                                      callback=done).fit(X, y) for s in ("nesterov", "pg")}
        h_star = max(ref.objective_, *(float(np.max(r.history_["objective"]))
                                       for r in runs.values()))
        gaps = {}
        for s, r in runs.items():
            h = np.maximum.accumulate(np.asarray(r.history_["objective"], dtype=float))
            gaps[s] = np.maximum((h_star - h) / max(abs(h_star), 1e-12), 1e-16)
            for lv in levels:
                hits[s][lv].append(_first_below(gaps[s], lv) or big)
        if seed == 0:
            first = gaps
    judged = [P.paired(hits["nesterov"][lv], hits["pg"][lv], sign=-1, unit="iterations",
                       label=f"Nesterov − PG, iterations to a relative gap of {lv:g}")
              for lv in levels]
    row.judge(judged)
    row.ours = "; ".join(
        f"{lv:g}: Nesterov median {np.median(hits['nesterov'][lv]):.0f} vs PG "
        f"{np.median(hits['pg'][lv]):.0f} iterations" for lv in levels)
    row.ours += f" (clowns n={sc.n_fig4}, σ=4, C=1, {sc.seeds} seeds)"
    row.note = ("Relative gap (h* − max_{t≤k} h_t)/|h*|, h* from a converged APG run (tol "
                f"1e-12); a run that never reaches a level counts as {big} iterations. Clowns "
                "(σ = 4, where F is active) stands in for heart (not bundled).")
    it = {s: np.arange(1, g.size + 1) for s, g in first.items()}
    row.fig = figs.lines_figure(it["pg"] if it["pg"].size >= it["nesterov"].size
                                else it["nesterov"],
                                _pad({"Nesterov (Alg. 1)": first["nesterov"],
                                      "projected gradient": first["pg"]}),
                                x_title="iteration", y_title="relative gap in h",
                                log_y=True, title="DANK solvers on clowns (σ = 4, seed 0)")
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
    i0, i1 = sc.taus.index(0.0), sc.taus.index(1e-2)
    falls = bool(np.all(np.diff(mr) <= 1e-9) and mr[-1] < mr[0])
    row.judge([_acc(acc[i1], acc[i0], "τ = 0.01 − τ = 0")],
              [P.paired(rank[i1], rank[i0], label="rank(F), τ = 0.01 − τ = 0", sign=-1)],
              extra=(P.HOLDS if falls else P.FAILS,),
              by_construction="rank(F) falling with τ is the nuclear norm's job (the SVT "
              "threshold τ/2 removes more eigenvalues as τ grows); only the accuracy part "
              "depends on the data.")
    row.ours = ", ".join(f"τ={t:g} {_pm(acc[i])} ({mr[i]:.1f})" for i, t in enumerate(sc.taus))
    row.ours += f" (accuracy % (mean rank); clowns σ=4, {sc.seeds} seeds)"
    row.note = (f"rank(F) falls from {mr[0]:.1f} (τ=0) to {mr[-1]:.1f} (τ={sc.taus[-1]:g})"
                + ("" if falls else " but not monotonically") + ". The extra eigenvalues of F "
                "at τ = 0 are tiny, so F∘K barely changes.")
    x = np.array([t if t > 0 else min(t for t in sc.taus if t > 0) / 10 for t in sc.taus])
    row.fig = figs.sensitivity_figure(x, acc, ranks=rank, param_label="τ (0 drawn at the left)",
                                      title="DANK τ sweep on clowns (σ = 4)")
    return row


def _svr_row(sc: Scale, which: str) -> Row:
    from sklearn.svm import SVR

    from nplk_core import DANKRegressor
    from nplk_core.kernels import sigma_to_gamma

    step = which == "step"
    row = Row(f"dank_svr_{which}", "000", "DANK §6.3 " + ("step function" if step else
                                                            "harmonic surface"),
              "DANK-SVR fits the test function with a lower relative squared error than "
              "SVR-CV.", "SVR-CV 0.013 vs DANK 0.004" if step else "SVR-CV 0.042 vs DANK 0.007",
              preset="dank_svr_" + which)
    n = sc.n_step if step else sc.n_harmonic
    make = ds.make_step if step else ds.make_harmonic
    cv_err, dk_err, cv_te, dk_te, w_svr, w_dank = [], [], [], [], [], []
    # σ and C by 5-fold CV on the first draw (an SVR grid search per draw costs minutes);
    # every draw samples the same noise-free function at n new points, so they carry over
    X0, y0 = make(n, random_state=0)
    sigma, C = cvgrid.cv_sigma_C(X0, y0, regression=True, seed=0)
    for seed in range(sc.seeds):
        X, y = make(n, random_state=seed)
        Xf, yf = make(200, random_state=10_000 + seed)  # fresh points of the same function
        cv = SVR(C=C, gamma=sigma_to_gamma(sigma)).fit(X, y)
        d = DANKRegressor(C=C, sigma=sigma).fit(X, y)
        cv_err.append(_rse(y, cv.predict(X)))
        dk_err.append(_rse(y, d.predict(X)))
        cv_te.append(_rse(yf, cv.predict(Xf)))
        dk_te.append(_rse(yf, d.predict(Xf)))
        s2 = 2 * sigma  # a twice-too-wide kernel, where F has something to correct
        svr2 = SVR(C=C, gamma=sigma_to_gamma(s2)).fit(X, y)
        d2 = DANKRegressor(C=C, sigma=s2).fit(X, y)
        w_svr.append(_rse(y, svr2.predict(X)))
        w_dank.append(_rse(y, d2.predict(X)))
        if seed == 0:
            first = (X, y, cv, d)
    judged = [P.paired(dk_err, cv_err, label="DANK − SVR-CV, error on the training points",
                       sign=-1)]
    context = [P.paired(dk_te, cv_te, label="DANK − SVR-CV, error on 200 fresh points",
                        sign=-1),
               P.paired(w_dank, w_svr, label="DANK − SVR at 2σ_CV, training error", sign=-1)]
    row.judge(judged, context)
    row.ours = (f"training RSE SVR-CV {np.mean(cv_err):.4f} vs DANK {np.mean(dk_err):.4f}; "
                f"fresh points {np.mean(cv_te):.4f} vs {np.mean(dk_te):.4f}; at 2σ_CV SVR "
                f"{np.mean(w_svr):.4f} vs DANK {np.mean(w_dank):.4f} (n={n}, {sc.seeds} seeds)")
    paper_cv = 0.013 if step else 0.042
    row.note = (f"Noise-free samples; σ = {sigma:g}, C = {C:g} by 5-fold CV on the first "
                "draw, used by the SVR and DANK on every draw. Our SVR-CV's error is "
                f"{paper_cv / max(np.mean(cv_err), 1e-12):.0f}× below the paper's {paper_cv}: "
                "at the CV width there is little left for F to fix; with a kernel twice too "
                f"wide DANK cuts the SVR's error {np.mean(w_svr) / max(np.mean(w_dank), 1e-12):.1f}"
                "-fold.")
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

def _sandwiches(sc: Scale, cache: dict) -> list:
    """Per seed: a sandwich draw, a fresh draw of the same size (test) and its SVM-CV."""
    if "sandwich" not in cache:
        out = []
        for seed in range(sc.seeds):
            X, y = ds.make_sandwich(sc.n_sandwich, random_state=seed)
            Xf, yf = ds.make_sandwich(sc.n_sandwich, random_state=10_000 + seed)
            out.append((X, y, Xf, yf, cvgrid.fit_cv(X, y, seed=seed)))
        cache["sandwich"] = out
    return cache["sandwich"]


def row_knpl_fig2(sc: Scale, cache: dict) -> Row:
    from nplk_core import KNPLClassifier

    row = Row("knpl_fig2", "001", "KNPL Fig. 2",
              "On the sandwich data KNPL fits the training set better than SVM-CV, with G "
              "fluctuating slightly around 1.",
              "training accuracy SVM-CV 86.87 % → KNPL 94.93 %; G in 0.95–1.05",
              preset="knpl_sandwich")
    tr_svm, tr_k, te_svm, te_k, te_nn, lo, hi = [], [], [], [], [], [], []
    for X, y, Xf, yf, cv in _sandwiches(sc, cache):
        with _quiet():
            k = KNPLClassifier(C=cv.best_C_, sigma=cv.best_sigma_).fit(X, y)
        tr_svm.append(cv.score(X, y))
        tr_k.append(k.score(X, y))
        te_svm.append(cv.score(Xf, yf))
        te_k.append(k.score(Xf, yf))
        te_nn.append(float(np.mean(_one_nn(X, y, Xf) == yf)))
        G = np.asarray(k.G_)
        lo.append(G.min())
        hi.append(G.max())
        first = (y, G)
    band = bool(min(lo) >= 0.9 and max(hi) <= 1.1)
    judged = [_acc(tr_k, tr_svm, "KNPL − SVM-CV, training accuracy")]
    context = [_acc(te_k, te_svm, "KNPL − SVM-CV, test accuracy (fresh draw)"),
               _acc(te_k, te_nn, "KNPL − 1-NN, test accuracy (fresh draw)")]
    row.judge(judged, context, extra=(P.HOLDS if band else P.FAILS,),
              by_construction="G's range is set by γ: the default γ = 5‖α_SVM‖∞² is chosen "
              "so that G − 11ᵀ stays within ±0.05 (it is always within 1 ± C²/γ); the G part "
              "of the claim says nothing about the data.")
    row.ours = (f"training accuracy SVM-CV {_pm(tr_svm)} → KNPL {_pm(tr_k)} %; test "
                f"{_pm(te_svm)} → {_pm(te_k)} %; G in [{min(lo):.3f}, {max(hi):.3f}] "
                f"(sandwich n={sc.n_sandwich}, {sc.seeds} draws, KNPL at SVM-CV's σ and C)")
    row.note = ("The paper's claim is about the training set; the test accuracy on a fresh "
                "draw of the same distribution is shown beside it.")
    row.fig = figs.matrix_heatmap(first[1], first[0], name="G", center=1.0,
                                  title="KNPL's G on sandwich (last draw)")
    return row


def row_knpl_fig3(sc: Scale, cache: dict) -> Row:
    from nplk_core import KNPLClassifier

    row = Row("knpl_fig3", "001", "KNPL Fig. 3",
              "ADMM reaches G* in a few iterations and the outer loop (Algorithm 2) settles "
              "within 10 rounds.", "ADMM ≈ 3 iterations; outer loop ≤ 10 rounds (heart)",
              preset="knpl_sandwich")
    settled, admm, first = [], [], None
    for X, y, _, _, cv in _sandwiches(sc, cache):
        with _quiet():
            k = KNPLClassifier(C=cv.best_C_, sigma=cv.best_sigma_, solver="alternating").fit(X, y)
        settled.append(bool(k.converged_ and k.n_iter_ <= 10))
        admm.append(float(np.nanmedian(np.asarray(k.history_.get("admm_iterations", [np.nan]),
                                                  dtype=float))))
        first = first or k
    n_ok = int(np.sum(settled))
    admm_ok = bool(np.nanmedian(admm) <= 5)
    row.judge([], extra=(P.HOLDS if n_ok == len(settled) else P.FAILS,
                         P.HOLDS if admm_ok else P.FAILS))
    row.ours = (f"Algorithm 2 settled within 10 rounds on {n_ok} of {len(settled)} draws; "
                f"ADMM iterations per round median {np.nanmedian(admm):.0f} (sandwich "
                f"n={sc.n_sandwich})")
    why = []
    if n_ok < len(settled):
        ch = np.asarray(first.history_.get("alpha_change", [np.nan]), dtype=float)
        why.append("where it does not settle the best-response alternation 2-cycles (first "
                   f"draw: last ‖Δα‖ {ch[-1]:.3g}); the default solver reaches the saddle "
                   "point instead")
    if not admm_ok:
        why.append(f"ADMM used a median {np.nanmedian(admm):.0f} iterations per round, not ≈ 3")
    row.note = "; ".join(why) + ("." if why else "")
    row.fig = figs.convergence_figure({"KNPL (Algorithm 2)": first.history_},
                                      title="KNPL outer rounds on sandwich (seed 0)")
    return row


def _iterations_to(history, f_star: float, level: float, cap: int) -> int:
    f = np.minimum.accumulate(np.asarray(history["objective"], dtype=float))
    gap = (f - f_star) / max(abs(f_star), 1e-12)
    idx = np.flatnonzero(gap <= level)
    return int(idx[0]) + 1 if idx.size else cap + 1


def row_onk_fig1(sc: Scale, cache: dict) -> Row:
    from nplk_core import ONKClassifier

    row = Row("onk_fig1", "003", "ONK Fig. 1",
              "Both the level method and constrained gradient descent converge fast; the level "
              "method takes fewer iterations.",
              "C = 1, ρ = 100: both converge fast, level fewer iterations (Liver, a4a)",
              preset=None)
    its = {"level": [], "cgd": []}
    secs = {"level": [], "cgd": []}
    conv = []
    level, cap = 1e-4, 1000
    for seed in range(sc.seeds):
        X, y = ds.make_clowns(sc.n_clowns, random_state=seed)
        fits = {}
        with _quiet():
            for s in ("level", "cgd"):
                t0 = time.perf_counter()
                fits[s] = ONKClassifier(C=1.0, sigma=1.0, rho=100.0, solver=s, tol=1e-8,
                                        max_iter=cap).fit(X, y)
                secs[s].append(time.perf_counter() - t0)
        f_star = min(float(np.min(f.history_["objective"])) for f in fits.values())
        for s, f in fits.items():
            its[s].append(_iterations_to(f.history_, f_star, level, cap))
        conv.append(all(f.converged_ for f in fits.values()))
        if seed == 0:
            first = fits
    judged = [P.paired(its["level"], its["cgd"], sign=-1, unit="iterations",
                       label=f"level − CGD, iterations to a relative gap of {level:g}")]
    row.judge(judged, extra=(P.HOLDS if all(conv) else P.FAILS,))
    ratio = np.asarray(secs["level"]) / np.asarray(secs["cgd"])
    row.ours = (f"iterations to a relative gap of {level:g}: level median "
                f"{np.median(its['level']):.0f}, CGD {np.median(its['cgd']):.0f}; both "
                f"converged on {int(np.sum(conv))} of {len(conv)} draws; wall time level/CGD "
                f"median {np.median(ratio):.1f}× (clowns n={sc.n_clowns}, σ=1, {sc.seeds} draws)")
    row.note = ("Both solvers are run to tol 1e-8 and judged at the same accuracy of f "
                "(relative gap to the better of the two final values), not by their own stop "
                "rules. An iteration of the level method solves an LP and a QP, so fewer "
                "iterations need not mean less time (ratio above).")
    row.fig = figs.convergence_figure({s: f.history_ for s, f in first.items()},
                                      panels=["objective"], title="ONK solvers on clowns (seed 0)")
    return row


def row_onk_fig3(sc: Scale, cache: dict) -> Row:
    from nplk_core import ONKClassifier

    row = Row("onk_fig3", "003", "ONK Fig. 3",
              "Small ρ hurts, a wide middle range beats the given kernel, and ρ → ∞ gives the "
              "plain SVM.", "Liver/Diabetes: accuracy vs ρ tends to the pre-specified kernel's",
              preset="onk_rho")
    rhos = sc.onk_rhos
    acc = np.zeros((len(rhos), sc.seeds))
    svm_acc, agree = np.zeros(sc.seeds), np.zeros(sc.seeds)
    for j in range(sc.seeds):
        X, y = ds.make_clowns(sc.n_clowns, random_state=j)
        Xtr, Xte, ytr, yte = _split(X, y, j, test_size=0.8)  # the paper trains on 20 %
        svm = _svc(1.0, 4.0).fit(Xtr, ytr)
        svm_acc[j] = svm.score(Xte, yte)
        with _quiet():
            for i, rho in enumerate(rhos):
                m = ONKClassifier(C=1.0, sigma=4.0, rho=rho).fit(Xtr, ytr)
                acc[i, j] = m.score(Xte, yte)
                if i == len(rhos) - 1:
                    agree[j] = np.mean(m.predict(Xte) == svm.predict(Xte))
    mid = rhos.index(100.0)
    small = _acc(svm_acc, acc[0], f"SVM − ONK at ρ = {rhos[0]:g} (small ρ hurts)")
    middle = _acc(acc[mid], svm_acc, f"ONK at ρ = {rhos[mid]:g} − SVM (the middle range "
                  "beats the given kernel)")
    limit = _acc(acc[-1], svm_acc, f"ONK at ρ = {rhos[-1]:g} − SVM (equal within ±0.5 "
                 "points)", margin=0.5)
    row.judge([small, middle, limit],
              [_acc(acc[i], svm_acc, f"ONK at ρ = {r:g} − SVM")
               for i, r in enumerate(rhos) if i not in (0, mid, len(rhos) - 1)],
              by_construction="ρ → ∞ giving the SVM is a property of the objective (the "
              "(αᵀα)²/(4ρ) term vanishes and G → K), not a finding; it is checked, not "
              "counted as evidence.")
    row.ours = (", ".join(f"ρ={r:g} {100 * acc[i].mean():.1f}" for i, r in enumerate(rhos))
                + f" % vs SVM {_pm(svm_acc)} %; predictions at ρ={rhos[-1]:g} agree "
                f"with the SVM on {100 * agree.mean():.1f} % (clowns σ=4, 20 % train, "
                f"{sc.seeds} seeds)")
    row.note = ("The middle of the range is judged at the paper's ρ = 100 (Fig. 1's "
                "setting), fixed before looking: picking the best ρ on the test points "
                "would flatter it.")
    row.fig = figs.sensitivity_figure(np.asarray(rhos), acc, param_label="ρ",
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


def _kmeans_rand(X, y, seed: int, k: int) -> float:
    from sklearn.cluster import KMeans

    from nplk_core.simple_npkl import clustering_accuracy

    return clustering_accuracy(y, KMeans(k, n_init=10, random_state=seed).fit_predict(X))


#: the spiral of the SimpleNPKL rows: the paper's generator is not given (Table 1: two
#: classes, 100 points); one turn keeps 50 points per arm as dense as its figures suggest
SPIRAL = {"n_turns": 1.0, "noise": 0.05}
#: C of the spiral rows: the paper uses "several constant values in (0, 1]" on the
#: Table 1 sets; 0.1 is the estimator's default
NPKL_C = 0.1
#: the paper's Iris protocol (seed 002 §7.1): k = 5, r = 70 % connected components
#: (constraint_fraction 0.3), B = 1, p = 2, C = 1 with each constrained pair counted once,
#: which is C = 0.5 in our objective (it sums over ordered pairs); the usual symmetric
#: k-NN graph (the mutual graph of SPEC §6 isolates 8 of Iris' 150 points)
IRIS = {"constraint_fraction": 0.3, "C": 0.5, "B": 1.0, "p": 2.0, "n_neighbors": 5,
        "neighbor_graph": "union", "n_clusters": 3}


def _iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


def row_npkl_table2(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table2", "002", "SimpleNPKL Table 2 (spiral)",
              "The kernel learned from pairwise constraints clusters the spiral far better "
              "than k-means.", "Rand index: k-means 50.1, SimpleNPKL+LL 92.2, +SHL 94.1",
              preset="npkl_spiral")
    km, ll, shl, km15, ll15 = [], [], [], [], []
    for s in range(sc.seeds):
        X, y = ds.make_spiral(sc.n_spiral, random_state=s, **SPIRAL)
        km.append(_kmeans_rand(X, y, s, 2))
        a, m = _npkl_rand(X, y, s, loss="linear", C=NPKL_C)
        ll.append(a)
        shl.append(_npkl_rand(X, y, s, loss="square_hinge", C=NPKL_C)[0])
        X2, y2 = ds.make_spiral(sc.n_spiral, random_state=s, **{**SPIRAL, "n_turns": 1.5})
        km15.append(_kmeans_rand(X2, y2, s, 2))
        ll15.append(_npkl_rand(X2, y2, s, loss="linear", C=NPKL_C)[0])
        if s == 0:
            first = (X, y, m)
    judged = [_acc(ll, km, "SimpleNPKL+LL − k-means, Rand index"),
              _acc(shl, km, "SimpleNPKL+SHL − k-means, Rand index")]
    row.judge(judged, [_acc(ll15, km15, "SimpleNPKL+LL − k-means, 1.5 turns")])
    row.ours = (f"1 turn: k-means {_pm(km)}, SimpleNPKL+LL {_pm(ll)}, +SHL {_pm(shl)}; 1.5 "
                f"turns: k-means {_pm(km15)}, LL {_pm(ll15)} (spiral n={sc.n_spiral}, "
                f"C={NPKL_C:g}, {sc.seeds} seeds)")
    row.note = ("The paper's spiral generator is not given; the claim is judged on one turn "
                "(50 points per arm). With 1.5 turns (the app's default) 100 points are too "
                "sparse for the 5-NN graph to follow the arms.")
    X, y, m = first
    row.fig = figs.partition_figure(X, m.labels_, y=y,
                                    title="SimpleNPKL+LL clusters on the spiral (seed 0)")
    return row


def _iris_runs(sc: Scale, cache: dict) -> dict:
    """Rand indices on Iris over the seeds: k-means and SimpleNPKL at several protocols."""
    if "iris" in cache:
        return cache["iris"]
    X, y = _iris()
    settings = {
        "LL": dict(IRIS, loss="linear"),
        "SHL": dict(IRIS, loss="square_hinge"),
        "SHL, mutual graph": dict(IRIS, loss="square_hinge", neighbor_graph="mutual"),
        "SHL, mutual graph, C = 0.1": dict(IRIS, loss="square_hinge",
                                           neighbor_graph="mutual", C=0.1),
        "SHL, lab defaults at C = 1": dict(loss="square_hinge", C=1.0, n_clusters=3),
    }
    out = {"k-means": [_kmeans_rand(X, y, s, 3) for s in range(sc.seeds)]}
    for name, params in settings.items():
        out[name] = [_npkl_rand(X, y, s, **params)[0] for s in range(sc.seeds)]
    out["_first"] = _npkl_rand(X, y, 0, **settings["SHL"])[1]
    cache["iris"] = out
    return out


def row_npkl_iris(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_iris", "002", "SimpleNPKL Table 2 (Iris)",
              "On Iris the kernel learned from pairwise constraints clusters better than "
              "k-means.", "Rand index: k-means 84.5, SimpleNPKL+LL 97.4, +SHL 97.4",
              preset=None)
    r = _iris_runs(sc, cache)
    judged = [_acc(r["LL"], r["k-means"], "SimpleNPKL+LL − k-means, Rand index"),
              _acc(r["SHL"], r["k-means"], "SimpleNPKL+SHL − k-means, Rand index")]
    context = [_acc(r[k], r["k-means"], f"SimpleNPKL+{k} − k-means")
               for k in ("SHL, mutual graph", "SHL, mutual graph, C = 0.1",
                         "SHL, lab defaults at C = 1")]
    row.judge(judged, context)
    row.ours = (f"k-means {_pm(r['k-means'])}, SimpleNPKL+LL {_pm(r['LL'])}, +SHL "
                f"{_pm(r['SHL'])}; mutual graph {_pm(r['SHL, mutual graph'])}, at C = 0.1 "
                f"{_pm(r['SHL, mutual graph, C = 0.1'])}; the lab's defaults at C = 1 "
                f"{_pm(r['SHL, lab defaults at C = 1'])} (Iris, raw features, {sc.seeds} seeds)")
    row.note = ("Paper protocol: 5-NN graph, constraints until 70 % of n connected "
                "components remain, B = 1, p = 2, C = 1 counted once per pair (our C = 0.5), "
                "3 clusters, k-means with 10 restarts. The gap to the lab's defaults comes "
                "from the graph (the mutual 5-NN graph isolates 8 points, which then cost "
                "nothing in tr(LK) and get kernel spikes from C ≈ 0.5 on) and the constraint "
                "count (0.1 n instead of 0.3 n must-links): docs/simplenpkl-on-iris.md.")
    X, y = _iris()
    m = r["_first"]
    row.fig = figs.partition_figure(m.embedding_[:, :2], m.labels_, y=y,
                                    title="SimpleNPKL+SHL clusters on Iris (learned embedding)")
    return row


def _iris_sweep(sc: Scale, values, key: str) -> np.ndarray:
    X, y = _iris()
    acc = np.zeros((len(values), sc.seeds))
    for s in range(sc.seeds):
        for i, v in enumerate(values):
            acc[i, s] = _npkl_rand(X, y, s, **{**IRIS, "loss": "square_hinge", key: v})[0]
    return acc


def row_npkl_table4(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table4", "002", "SimpleNPKL Table 4 (Iris)",
              "SimpleNPKL+SHL is not sensitive to the capacity B (p = 2).",
              "Iris 94.8–95.7 %, Protein 73.6–74.5 % over B = 1…4 (C = 1)",
              preset=None)
    Bs = sc.npkl_B
    acc = _iris_sweep(sc, Bs, "B")
    mean = 100 * acc.mean(axis=1)
    judged = [_acc(acc[-1], acc[0], f"B = {Bs[-1]:g} − B = {Bs[0]:g} (equal within ±2 "
                   "points)", margin=2.0)]
    row.judge(judged, [_acc(acc[i], acc[0], f"B = {b:g} − B = {Bs[0]:g}")
                       for i, b in enumerate(Bs[1:-1], start=1)])
    row.ours = ", ".join(f"B={b:g} {mean[i]:.1f}" for i, b in enumerate(Bs)) + \
        f" % (Iris, the paper's protocol, {sc.seeds} seeds)"
    row.note = ("'Not sensitive' is read as: the paired difference between the largest and "
                "the smallest B lies within ±2 points (the paper's spread is 0.9).")
    row.fig = figs.sensitivity_figure(np.asarray(Bs), acc, param_label="B", log_x=False,
                                      metric="Rand index", title="SimpleNPKL+SHL against B (Iris)")
    return row


def row_npkl_table5(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table5", "002", "SimpleNPKL Table 5 (Iris)",
              "With p < 2 the clustering accuracy drops; p ≥ 2 is stable (B = 1).",
              "Iris p=1.5 58.6 % vs p=2 94.8 %; Protein 72.8 vs 74.5 (C = 1)",
              preset=None)
    ps = sc.npkl_p
    acc = _iris_sweep(sc, ps, "p")
    mean = 100 * acc.mean(axis=1)
    i15, i2 = ps.index(1.5), ps.index(2.0)
    row.judge([_acc(acc[i2], acc[i15], "p = 2 − p = 1.5 (p < 2 drops)")],
              [_acc(acc[-1], acc[i2], f"p = {ps[-1]:g} − p = 2")])
    row.ours = ", ".join(f"p={p:g} {mean[i]:.1f}" for i, p in enumerate(ps)) + \
        f" % (Iris, the paper's protocol, {sc.seeds} seeds)"
    row.note = "Square hinge loss, B = 1, C = 0.5 (the paper's C = 1, pairs counted once)."
    row.fig = figs.sensitivity_figure(np.asarray(ps), acc, param_label="p", log_x=False,
                                      metric="Rand index", title="SimpleNPKL+SHL against p (Iris)")
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
    lab, same, full, n_sup = [], [], [], []
    xg = np.linspace(0, 1, 1000)[:, None]
    g = ds.chirp_function(xg[:, 0])
    for s in range(sc.seeds):
        X, y = ds.make_chirp(sc.n_chirp, noise=0.1, random_state=s)
        with _quiet():
            m = LABRBFRegressor(random_state=s).fit(X, y)
        lab.append(_r2(g, m.predict(xg)))
        Xs, ys = X[m.support_], y[m.support_]
        n_sup.append(len(m.support_))
        same.append(max(_r2(g, KernelRidgeBaseline(sigma=sg).fit(Xs, ys).predict(xg))
                        for sg in sigmas))
        full.append(_r2(g, KernelRidgeBaseline(cv=5, random_state=s).fit(X, y).predict(xg)))
        if s == 0:
            first = (X, y, m)
    judged = [P.paired(lab, same, label="LAB RBF − best single-σ KRR on the same support "
                       "points, R²"),
              P.paired(lab, full, label=f"LAB RBF − KRR-CV on all {sc.n_chirp} points, R²")]
    row.judge(judged)
    row.ours = (f"R² on a 1,000-point grid: LAB RBF ({int(np.median(n_sup))} supports) "
                f"{np.mean(lab):.3f}; best single-σ KRR on the same supports "
                f"{np.mean(same):.3f}; KRR-CV (σ and ridge by 5-fold CV) on all {sc.n_chirp} "
                f"points {np.mean(full):.3f} (chirp, noise 0.1, {sc.seeds} seeds)")
    row.note = ("'Every global bandwidth' is judged against both: the same support points "
                "with the best σ (chosen on the test grid, an upper bound for that model) and "
                "a global-σ kernel ridge that may use all the training points, as a user "
                "would fit it.")
    X, y, m = first
    row.fig = figs.regression_curve(X, y, xg[:, 0], m.predict(xg), support=m.support_vectors_,
                                    others={"true g": g},
                                    name="LAB RBF", title="LAB RBF on the chirp (seed 0)")
    return row


def row_lab_rbf_fig4(sc: Scale, cache: dict) -> Row:
    from nplk_core import LABRBFRegressor

    row = Row("lab_rbf_fig4", "004", "LAB RBF Fig. 4",
              "Test error is lowest at an intermediate share of support data: too few underfit, "
              "too many overfit.", "RSSE against the support ratio has an interior minimum "
              "(200 train / 800 test, Cherkassky functions)", preset="lab_rbf_support")
    ratios = sc.lab_ratios
    rsse = np.zeros((len(ratios), sc.seeds))
    for s in range(sc.seeds):
        X, y = ds.make_harmonic(1000, random_state=100 + s)
        rng = np.random.default_rng(s)
        y = y + rng.normal(0, math.sqrt(0.1 * y.var()), y.size)  # noise variance 10 % of y's
        Xtr, Xte, ytr, yte = X[:200], X[200:], y[:200], y[200:]
        for i, r in enumerate(ratios):
            with _quiet():
                m = LABRBFRegressor(n_support=max(2, int(round(r * 200))), random_state=s)
                m.fit(Xtr, ytr)
            rsse[i, s] = _rse(yte, m.predict(Xte))
    mean = rsse.mean(axis=1)
    best = int(np.argmin(mean))
    interior = 0 < best < len(ratios) - 1
    b = best if interior else (1 if len(ratios) > 2 else 0)
    judged = [P.paired(rsse[b], rsse[0], sign=-1,
                       label=f"{int(100 * ratios[b])} % − {int(100 * ratios[0])} % support, "
                       "test RSSE"),
              P.paired(rsse[b], rsse[-1], sign=-1,
                       label=f"{int(100 * ratios[b])} % − {int(100 * ratios[-1])} % support, "
                       "test RSSE")]
    row.judge(judged, extra=(P.HOLDS if interior else P.FAILS,))
    row.ours = ", ".join(f"{int(100 * r)} % {mean[i]:.3f}" for i, r in enumerate(ratios))
    row.ours += f" (RSSE on 800 test points, harmonic, {sc.seeds} seeds)"
    row.note = (f"Minimum of the mean at {int(100 * ratios[best])} % support data"
                + ("" if interior else " (an end of the range, not an interior minimum)")
                + "; the interior ratio is picked on the same test errors, which favours "
                "the claim.")
    row.fig = figs.sensitivity_figure(np.asarray(ratios), rsse, param_label="support ratio",
                                      log_x=False, metric="test RSSE",
                                      title="LAB RBF against the support ratio (harmonic)")
    return row


# ---------------------------------------------------------------------------
# real data shipped with scikit-learn (nplk_lab.model.realdata)
# ---------------------------------------------------------------------------

#: per real-data row: (data set, method, paper of the method)
REAL_CLASSIFIERS = (("DANK", "000"), ("KNPL", "001"), ("ONK", "003"), ("LAB RBF", "004"))
REAL_REGRESSORS = (("DANK-SVR", "000"), ("LAB RBF", "004"))


def _real(sc: Scale, cache: dict, name: str) -> realdata.Scores:
    key = f"real:{name}"
    if key not in cache:
        fn = realdata.classification if name in realdata.CLASSIFICATION else realdata.regression
        cache[key] = fn(name, sc.seeds, sc.real_n_max)
    return cache[key]


def _real_row(sc: Scale, cache: dict, name: str, method: str, paper: str) -> Row:
    res = _real(sc, cache, name)
    cls = name in realdata.CLASSIFICATION
    base = "SVM-CV" if cls else "SVR-CV"
    kw = {"test_fraction": res.test_fraction}
    title = realdata.TITLES[name]
    row = Row(f"real_{name}_{method.lower().replace(' ', '_').replace('-', '_')}", "real",
              f"{method} on {title}",
              f"The learned kernel ({method}) predicts held-out data better than the "
              f"cross-validated {base}" + ("" if cls else " and kernel ridge") + ".",
              "not in the paper (a data set scikit-learn ships)", preset=None)

    def diff(a, b, label, **extra):
        if cls:
            return _acc(res.array(a), res.array(b), label, **kw, **extra)
        return P.paired(res.array(a), res.array(b), label=label + ", R²", **kw, **extra)

    judged = [diff(method, base, f"{method} − {base}")]
    if not cls:
        judged.append(diff(method, "KRR-CV", f"{method} − KRR-CV"))
    context = [diff(method, "1-NN", f"{method} − 1-NN")]
    if f"{method}, F off" in res.scores:
        context.append(diff(f"{method}, F off", base, f"{method} with F off − {base}"))
    row.judge(judged, context)
    unit = "accuracy %" if cls else "R²"
    fmt = (lambda v: _pm(v)) if cls else (lambda v: _pm(v, 1.0, 3))
    shown = [base] + ([] if cls else ["KRR-CV"]) + ["1-NN", method] + \
        [k for k in (f"{method}, F off",) if k in res.scores]
    row.ours = "; ".join(f"{k} {fmt(res.array(k))}" for k in shown)
    sig = sorted({p[0] for p in res.params})
    row.ours += (f" ({unit}, {len(res.params)} random 70/30 splits, n_train = {res.n_train}, "
                 f"CV σ ∈ {{{', '.join(f'{v:g}' for v in sig)}}})")
    notes = [f"{method} uses the CV baseline's σ and C on each split" if method not in
             ("LAB RBF",) else "LAB RBF with its defaults (30 support points)",
             "intervals use the corrected resampled variance of repeated splits"]
    if method in res.agree_1nn:
        notes.append(f"test labels equal 1-NN's on {100 * np.mean(res.agree_1nn[method]):.0f} "
                     "% of test points")
    row.note = "; ".join(notes) + "."
    if any(st["judged"] and V.is_loss(st) for st in row.stats):
        row.note = "A loss: " + row.note
    return row


def _real_row_fn(name: str, method: str, paper: str):
    def fn(sc: Scale, cache: dict) -> Row:
        return _real_row(sc, cache, name, method, paper)

    fn.__name__ = f"row_real_{name}_{method.lower().replace(' ', '_').replace('-', '_')}"
    return fn


REAL_ROWS = tuple(_real_row_fn(name, m, p) for name in realdata.CLASSIFICATION
                  for m, p in REAL_CLASSIFIERS) + \
    tuple(_real_row_fn(name, m, p) for name in realdata.REGRESSION for m, p in REAL_REGRESSORS)


ROWS: tuple[Callable[[Scale, dict], Row], ...] = (
    row_dank_fig1, row_dank_fig1b, row_dank_fig2, row_dank_fig4, row_dank_table5,
    row_dank_svr_step, row_dank_svr_harmonic, row_knpl_fig2, row_knpl_fig3, row_onk_fig1,
    row_onk_fig3, row_npkl_table2, row_npkl_iris, row_npkl_table4, row_npkl_table5,
    row_lab_rbf_fig1, row_lab_rbf_fig4) + REAL_ROWS


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


def _row_verdict(r: Row) -> str:
    return V.verdict_text(r.verdict, r.by_construction, r.stats)


def table_markdown(rows: list[Row], *, with_figures: bool = True) -> str:
    head = "| paper | item | paper's value | ours | verdict | judged on (mean [95 % CI]) |"
    lines = [head, "|---|---|---|---|---|---|"]
    for r in rows:
        judged = V.judged_summary(r.as_dict())
        lines.append("| " + " | ".join(_cell(c) for c in (
            f"{r.paper} {PAPERS.get(r.paper, '')}".strip(), r.item, r.paper_value, r.ours,
            _row_verdict(r), judged)) + " |")
    return "\n".join(lines)


def write_report(rows: list[Row], out, *, quick: bool, seconds: float,
                 command: str | None = None) -> Path:
    """Write ``report.md``, ``results.json`` and the PNGs into ``out``; return report.md."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    png_note = _write_pngs(rows, out)
    command = command or "python -m nplk_lab.model.reproduce" + (" --quick" if quick else "")
    data = {"generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command, "quick": bool(quick), "seconds": round(float(seconds), 1),
            "rows": [r.as_dict() for r in rows]}
    (out / "results.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    counts = {v: sum(r.verdict == v for r in rows) for v in P.VERDICTS}
    n_bc = sum(bool(r.by_construction) for r in rows)
    scale = ("quick scale: 10 seeds or splits per comparison, fewer points" if quick else
             "full scale: 10 seeds or splits per comparison, the papers' sizes")
    md = [f"# Seed results reproduced ({scale})", "",
          f"`{command}` · {data['generated']} · {seconds:.0f} s · {len(rows)} rows: "
          f"{counts[P.HOLDS]} hold ({n_bc} of all rows by construction), {counts[P.FAILS]} "
          f"do not hold, {counts[P.INCONCLUSIVE]} inconclusive, {counts[P.SHOWN]} shown only.",
          "", "Every verdict comes from 95 % t-intervals of paired differences (method − "
          "baseline) over the seeds or splits: *holds* when the interval lies on the claimed "
          "side of 0, *does not hold* when it lies on the other side or at 0 (a loss is "
          "called a loss), *inconclusive* when it contains 0; see "
          "docs/how-verdicts-are-made.md.", ""]
    if png_note:
        md += [f"> {png_note}", ""]
    md += [table_markdown(rows), "", "## Rows", ""]
    for r in rows:
        md += [f"### {r.item} (`{r.id}`)", "", f"- **Claim:** {r.claim}",
               f"- **Paper:** {r.paper_value}", f"- **Ours:** {r.ours}",
               f"- **Verdict:** {_row_verdict(r)}"]
        md += [f"  - {line}" for line in V.stat_lines(r.as_dict())]
        if r.by_construction:
            md.append(f"- **By construction:** {r.by_construction}")
        if r.note:
            md.append(f"- **Note:** {r.note}")
        md += [f"- **Preset:** `{r.preset}`" if r.preset else "- **Preset:** none",
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


def verdict_signature(results: dict) -> dict[str, tuple]:
    """Per row id: the verdict, whether it holds by construction, and the verdicts of its
    judged comparisons (label -> verdict) — what :func:`compare_verdicts` compares."""
    out = {}
    for r in results.get("rows", []):
        judged = tuple(sorted((st["label"], st["verdict"]) for st in r.get("stats", [])
                              if st.get("judged")))
        out[r["id"]] = (r.get("verdict"), bool(r.get("by_construction")), judged)
    return out


def compare_verdicts(committed: dict, fresh: dict) -> list[str]:
    """Where a fresh run's verdicts differ from the committed report's (empty: none).

    Compared: the set of rows, each row's verdict and by-construction label, and the
    verdict of each judged comparison. The numbers themselves may move in the last digits
    between machines (BLAS, thread counts); a verdict may not."""
    a, b = verdict_signature(committed), verdict_signature(fresh)
    diffs = [f"row {rid}: only in the committed report" for rid in a.keys() - b.keys()]
    diffs += [f"row {rid}: only in the fresh run" for rid in b.keys() - a.keys()]
    for rid in sorted(a.keys() & b.keys()):
        if a[rid] != b[rid]:
            diffs.append(f"row {rid}: committed {a[rid]!r}, fresh {b[rid]!r}")
    if bool(committed.get("quick")) != bool(fresh.get("quick")):
        diffs.append("the two runs are at different scales (quick / full)")
    return sorted(diffs)


def _plain_table(rows: list[Row]) -> str:
    out = []
    for r in rows:
        out.append(f"[{_row_verdict(r)}] {r.item}\n    paper: {r.paper_value}\n"
                   f"    ours:  {r.ours}")
        out += [f"    - {line}" for line in V.stat_lines(r.as_dict())]
        if r.note:
            out.append(f"    note:  {r.note}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nplk_lab.model.reproduce",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer points, the same 10 seeds/splits (the committed report)")
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
    cmd = "python -m nplk_lab.model.reproduce" + (" --quick" if args.quick else "")
    path = write_report(rows, args.out, quick=args.quick, seconds=seconds, command=cmd)
    print(_plain_table(rows))
    print(f"\n{len(rows)} rows in {seconds:.0f} s (+ figures); report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
