"""The out-of-sample rules of DANK, DANK-SVR and KNPL: what each costs against the fit, and
which width of the smooth rule the training points would pick, in one run.

    python benchmarks/bench_extension.py [--seeds 10] [--part cost width]

``cost``: at the page's defaults (σ = 10, C = 10; n = 200 with 30 % test, so 140
training points; clowns for DANK and KNPL, the step function for DANK-SVR), for data
seeds 0 … seeds−1: the fit's time, then each rule's whole prediction (distances to the
training points included) on the 60 test points and on the 100 × 100 grid the page draws
(10,000 points on a line for the 1-D step function). The smooth rule's bound: its time
on the test points at most the fit's again (ratio ≤ 1); on the grid, where the distances
and the kernel of 10,000 points cost every rule more than the fit, what it adds to the
nearest-point rule.

``width``: for every state of :data:`WIDTH_CELLS` the width h a leave-one-out choice on
the training split would give the smooth rule, h* = argmin over h ∈ σ·2^−6 … σ·2² of
Σⱼ Σ_{i≠j} (F̃₋ⱼ(xⱼ, xᵢ) − Fⱼᵢ)² (each training point's row of F predicted from the other
points' rows, its own weight left out), and the test scores and agreement with 1-NN of
the smooth rule at h* and at h = σ, beside the method (nearest-point rule), F off and
1-NN. It is why the default width is σ (``nplk_core/extension.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COST_STATES = (("dank", "clowns"), ("dank_svr", "step"), ("knpl", "clowns"))
RULES = {"dank": ("reciprocal", "nearest", "smooth"), "dank_svr": ("nearest", "smooth"),
         "knpl": ("nearest", "smooth")}
WIDTH_CELLS = (("dank", "clowns", 10.0, 10.0), ("dank", "clowns", 1.0, 1.0),
               ("dank", "sandwich", 4.5, 10.0), ("dank", "moons", 10.0, 10.0),
               ("dank", "circles", 10.0, 1.0), ("dank", "chessboard", 1.0, 10.0),
               ("dank", "spiral", 1.0, 10.0), ("knpl", "sandwich", 1.0, 1.0))


def _fit(method, params, X, y):
    from nplk_lab.model.methods import make_estimator

    est, _ = make_estimator(method, params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        est.fit(X, y)
    return est, time.perf_counter() - t


def _predict(est, X, rule):
    fn = est.decision_function if hasattr(est, "decision_function") else est.predict
    t = time.perf_counter()
    out = fn(X, extension=rule)
    return out, time.perf_counter() - t


def cost(seeds: int) -> None:
    from nplk_lab.model.atlas.atlas_data import load
    from nplk_lab.model.grids import make_grid

    print("| method (data) | fit (ms) | rule | test points (ms) | test / fit "
          "| grid 100×100 (ms) | grid / fit |")
    print("|---|---|---|---|---|---|---|")
    for method, name in COST_STATES:
        fits, times = [], {r: ([], []) for r in RULES[method]}
        for seed in range(seeds):
            d = load(name, seed)
            est, t_fit = _fit(method, {"seed": seed}, d.X_train, d.y_train)
            fits.append(t_fit)
            if d.X_train.shape[1] == 2:
                grid = make_grid(d.X_train, 100).points
            else:
                lo, hi = d.X_train.min(), d.X_train.max()
                grid = np.linspace(lo, hi, 10_000)[:, None]
            for rule in RULES[method]:
                times[rule][0].append(_predict(est, d.X_test, rule)[1])
                times[rule][1].append(_predict(est, grid, rule)[1])
        f = 1000 * float(np.median(fits))
        for i, rule in enumerate(RULES[method]):
            t, g = (1000 * float(np.median(v)) for v in times[rule])
            head = f"| {method} ({name}) | {f:.1f}" if i == 0 else "| | "
            print(f"{head} | {rule} | {t:.2f} | {t / f:.3f} | {g:.1f} | {g / f:.2f} |")
    print(f"\nmedians over data seeds 0–{seeds - 1}; load {os.getloadavg()[0]:.1f}")


def loo_width(est) -> float:
    """The leave-one-out width of the smooth rule on the training rows of F (or G)."""
    from nplk_core.kernels import squared_distances

    X = est.X_fit_
    M = est.G_ if hasattr(est, "G_") else est.F_
    D = squared_distances(X)
    np.fill_diagonal(D, np.inf)
    best = (np.inf, float(est.sigma))
    for h in float(est.sigma) * 2.0 ** np.arange(-6, 3):
        W = np.exp(-(D - D.min(1, keepdims=True)) / (2 * h * h))
        W /= W.sum(1, keepdims=True)
        E = W @ M - M
        np.fill_diagonal(E, 0.0)
        err = float(np.sum(E * E))
        if err < best[0]:
            best = (err, float(h))
    return best[1]


def width(seeds: int) -> None:
    from nplk_lab.model.ablation import nearest_labels, off_predict
    from nplk_lab.model.atlas.atlas_data import load

    print("| method | data | σ | C | h* / σ (median, range) | method | F off | 1-NN "
          "| smooth, h = σ | smooth, h = h* | agree 1-NN: h = σ | agree 1-NN: h = h* |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for method, name, sigma, C in WIDTH_CELLS:
        acc = {k: [] for k in ("method", "off", "nn", "sig", "loo")}
        agree = {k: [] for k in ("sig", "loo")}
        ratios = []
        for seed in range(seeds):
            d = load(name, seed)
            est, _ = _fit(method, {"sigma": sigma, "C": C, "seed": seed}, d.X_train, d.y_train)
            y, nn = d.y_test, nearest_labels(d.X_train, d.y_train, d.X_test)
            acc["method"].append(np.mean(est.predict(d.X_test, extension="nearest") == y))
            acc["off"].append(np.mean(off_predict(est, d.X_test, "classification") == y))
            acc["nn"].append(np.mean(nn == y))
            h = loo_width(est)
            ratios.append(h / sigma)
            for key, w in (("sig", "sigma"), ("loo", h)):
                est.set_params(extension_width=w)
                p = est.predict(d.X_test, extension="smooth")
                acc[key].append(np.mean(p == y))
                agree[key].append(np.mean(p == nn))
        r = np.log2(np.asarray(ratios)).round().astype(int)
        cells = " | ".join(f"{np.mean(acc[k]):.3f}" for k in ("method", "off", "nn", "sig",
                                                              "loo"))
        print(f"| {method} | {name} | {sigma:g} | {C:g} | 2^{int(np.median(r))} "
              f"(2^{r.min()} … 2^{r.max()}) | {cells} | "
              f"{100 * np.mean(agree['sig']):.0f} % | {100 * np.mean(agree['loo']):.0f} % |")
    print(f"\nmeans over data seeds 0–{seeds - 1}; load {os.getloadavg()[0]:.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--part", nargs="*", choices=("cost", "width"), default=["cost", "width"])
    a = ap.parse_args(argv)
    if "cost" in a.part:
        cost(a.seeds)
    if "width" in a.part:
        print()
        width(a.seeds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
