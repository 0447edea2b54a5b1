"""The rows of KNPL (its paper's Fig. 2, G and the sandwich; Fig. 3, its solvers) and ONK
(its paper's Fig. 1, its solvers; Fig. 3, accuracy against ρ)."""

from __future__ import annotations

import time

import numpy as np

import nplk_lab.figures as figs
from nplk_core import datasets as ds

from .. import cvgrid
from .. import paired as P
from .row import Row, Scale
from .scoring import _acc, _one_nn, _pm, _quiet, _split, _svc


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
