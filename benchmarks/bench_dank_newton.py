"""DANK's Newton solver against the accelerated solver at the page's random slider points:
CPU per fit, and how far the two solutions differ.

    python benchmarks/bench_dank_newton.py                       # Classification, 100 points
    python benchmarks/bench_dank_newton.py --method dank_svr --points 100 --seed 0
    python benchmarks/bench_dank_newton.py --method dank_svr --root /tmp/base  # main's code

On the method's page data (the page's defaults: 140 training points), ``--points``
settings are drawn exactly as the whole-slider-space benchmark draws them
(``bench_slider_space.draw_point``: a random stop of every slider of the method, "auto"
one stop of η; the same points for the same ``--seed``). Each point is fitted with
``solver="apg"`` and ``solver="newton"`` (alternating which goes first), the rest of the
page's settings at their defaults, BLAS on one thread as in the lab. Printed: CPU seconds
per fit (``time.process_time``; p50 / p90 / max) and iterations of each solver, and over
all points the largest differences of the solutions: the objective h (relative, Newton
minus accelerated: positive where Newton's is higher), the decision values (predictions
for DANK-SVR) on the test points and on a 40 x 40 grid over the data (absolute, and
relative to the largest decision value at that point), and the test accuracy (R² for
DANK-SVR); with ``--detail`` every point. With ``--reference`` each point is also fitted
by a long accelerated solve (tol 1e-12, its Frank-Wolfe stop at 1e-14 of h, 50,000
iterations at most; not timed), and each solver's largest difference from it is printed:
which of the two is nearer the optimum where they differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_live as bl  # noqa: E402 (its import puts the checkout on the path)
from bench_slider_space import draw_point  # noqa: E402

SOLVERS = ("apg", "newton")


def _grid(X: np.ndarray, side: int = 40) -> np.ndarray:
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.1 * (hi - lo)
    axes = [np.linspace(a - p, b + p, side) for a, b, p in zip(lo, hi, pad, strict=True)]
    return np.stack([m.ravel() for m in np.meshgrid(*axes[:2])], axis=1)


def _fit(method: str, params: dict, solver: str, data, **extra):
    import nplk_lab.model as lab

    est, _ = lab.make_estimator(method, {**params, "solver": solver})
    est.set_params(**extra)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        c = time.process_time()
        est.fit(data.X_train, data.y_train)
        cpu = time.process_time() - c
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return est, cpu, warned


def _outputs(est, regression: bool, data, grid):
    f = est.predict if regression else est.decision_function
    test, on_grid = f(data.X_test), f(grid)
    score = est.score(data.X_test, data.y_test)
    return np.concatenate([test, on_grid]), float(score)


def _reference(method: str, params: dict, data):
    """A long accelerated solve: the optimum to the accuracy the first-order stop allows."""
    import nplk_core._dank_core as core

    rtol = core.APG_GAP_RTOL
    core.APG_GAP_RTOL = 1e-14
    try:
        est, _, _ = _fit(method, params, "apg", data, tol=1e-12, max_iter=50_000)
    finally:
        core.APG_GAP_RTOL = rtol
    return est


def run(method: str, points: int, seed: int, reference: bool = False) -> list[dict]:
    import nplk_lab.model as lab
    from nplk_core._base import single_thread_blas

    task = lab.METHODS[method].task
    regression = task == lab.REGRESSION
    data, _ = lab.prepare_data(lab.defaults(), task)
    grid = _grid(data.X_train)
    names = bl._sliders(method)
    rng = np.random.default_rng(seed)
    drawn = [draw_point(names, rng, "linear") for _ in range(points)]
    rows = []
    for i, point in enumerate(drawn):
        params = {**lab.defaults(), **point}
        res = {}
        order = SOLVERS if i % 2 == 0 else SOLVERS[::-1]
        with single_thread_blas():
            for solver in order:
                est, cpu, warned = _fit(method, params, solver, data)
                out, score = _outputs(est, regression, data, grid)
                res[solver] = {"est": est, "cpu": cpu, "warned": warned, "out": out,
                               "score": score}
            ref = _outputs(_reference(method, params, data), regression, data, grid)[0] \
                if reference else None
        a, n = res["apg"], res["newton"]
        ha, hn = a["est"].objective_, n["est"].objective_
        diff = np.abs(n["out"] - a["out"])
        if ref is not None:
            scale = max(np.abs(ref).max(), 1e-300)
            for s in SOLVERS:
                res[s]["ref_rel"] = float(np.abs(res[s]["out"] - ref).max() / scale)
        rows.append({
            "ref_apg": res["apg"].get("ref_rel"), "ref_newton": res["newton"].get("ref_rel"),
            "point": point, "cpu_apg": a["cpu"], "cpu_newton": n["cpu"],
            "it_apg": a["est"].n_iter_, "it_newton": n["est"].n_iter_,
            "conv_apg": a["est"].converged_, "conv_newton": n["est"].converged_,
            "warned": a["warned"] or n["warned"],
            "h_rel": (hn - ha) / max(abs(ha), 1e-300),
            "out_abs": float(diff.max()),
            "out_rel": float(diff.max() / max(np.abs(a["out"]).max(), 1e-300)),
            "score_diff": n["score"] - a["score"],
        })
    return rows


def _pct(v) -> str:
    v = np.asarray(v)
    return f"{np.percentile(v, 50):.3f} / {np.percentile(v, 90):.3f} / {v.max():.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default="dank", choices=("dank", "dank_svr"))
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--detail", action="store_true", help="print every point")
    ap.add_argument("--root", default=None,
                    help="measure this checkout's code (e.g. a worktree of main)")
    ap.add_argument("--reference", action="store_true",
                    help="compare both with a long accelerated solve at every point")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    rows = run(args.method, args.points, args.seed, args.reference)
    print(f"# {args.method}: {args.points} page slider points of seed {args.seed}; load "
          f"average {load0:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores\n")
    print("| solver | CPU p50 / p90 / max (s) | iterations median / max | converged |")
    print("|---|---|---|---|")
    for s in SOLVERS:
        its = np.array([r[f"it_{s}"] for r in rows])
        print(f"| {s} | {_pct([r[f'cpu_{s}'] for r in rows])} | {int(np.median(its))} / "
              f"{its.max()} | {sum(r[f'conv_{s}'] for r in rows)} of {len(rows)} |")
    h = np.array([r["h_rel"] for r in rows])
    score = np.array([r["score_diff"] for r in rows])
    what = "R²" if args.method == "dank_svr" else "accuracy"
    print(f"\nh, Newton minus accelerated, relative: min {h.min():.2e}, max {h.max():.2e}")
    print(f"decision values, largest difference: {max(r['out_abs'] for r in rows):.2e} "
          f"(relative to the largest value {max(r['out_rel'] for r in rows):.2e})")
    print(f"test {what}, largest difference: {np.abs(score).max():.4f} "
          f"(points where it differs: {int(np.sum(score != 0))})")
    print(f"points with a ConvergenceWarning: {sum(r['warned'] for r in rows)}")
    if args.reference:
        for s in SOLVERS:
            v = np.array([r[f"ref_{s}"] for r in rows])
            print(f"{s} against the long solve, decision values relative to the largest: "
                  f"median {np.median(v):.1e}, max {v.max():.1e}")
    if args.detail:
        print()
        for r in sorted(rows, key=lambda r: -max(r["cpu_apg"], r["cpu_newton"])):
            p = ", ".join(f"{k}={v}" for k, v in r["point"].items())
            print(f"  apg {r['cpu_apg']:.3f} s ({r['it_apg']:4d} it)  newton "
                  f"{r['cpu_newton']:.3f} s ({r['it_newton']:3d} it)  dh {r['h_rel']:+.1e}  "
                  f"dout {r['out_rel']:.1e}  {p}")


if __name__ == "__main__":
    main()
