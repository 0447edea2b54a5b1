"""LAB RBF's fit on the Classification page's data at random slider points: the bandwidth
stages through the direct L-BFGS-B loop and through ``scipy.optimize.minimize``, in one run.

    python benchmarks/bench_lab_rbf_loop.py --points 40 --seed 0

The page's default data (clowns, 140 training points); each point draws the support count
uniformly over its slider's range and λ from its slider's stops (as
``bench_slider_space.py`` does); the same fit runs through both routes, alternating which
goes first, one BLAS thread (the estimator's own limit). Printed: CPU p50 / p90 / max of
one fit per route, the ratio of the medians, L-BFGS iterations, and how many fits differ
between the routes in anything (history, support, bandwidths, coefficients; expected: 0).

    python benchmarks/bench_lab_rbf_loop.py --tolerances

What a looser stopping tolerance (fewer iterations) would change instead: the share of a
grid over the data where the sign of the decision function moves, at 18 settings.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

import nplk_lab.model as lab
from nplk_core import _lab_rbf_core as core
from nplk_core.lab_rbf import LABRBFClassifier


def _fit(X, y, point, direct):
    core._SETULB = core._c_lbfgsb() if direct else None
    est = LABRBFClassifier(**point, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c0 = time.process_time()
        est.fit(X, y)
        return est, time.process_time() - c0


def _same(a, b) -> bool:
    hist = all(np.array_equal(a.history_[k], b.history_[k], equal_nan=True)
               for k in a.history_ if k != "time")
    return hist and all(np.array_equal(getattr(a, k), getattr(b, k)) for k in (
        "support_", "bandwidths_", "dual_coef_", "intercept_"))


def tolerances(X, y, X_test, y_test) -> None:
    """What a looser stopping tolerance would change: the share of a 60 x 60 grid over the
    data whose sign of f differs from the default tolerance's, test accuracy, iterations
    and CPU, at support counts 20-160 and three ridges."""
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    g0, g1 = np.linspace(lo[0], hi[0], 60), np.linspace(lo[1], hi[1], 60)
    G = np.array(np.meshgrid(g0, g1)).reshape(2, -1).T
    print("| support count | λ | tol | CPU (s) | iterations | test accuracy | "
          "grid share whose sign differs from tol = 1e-6 |")
    print("|---|---|---|---|---|---|---|")
    for n_support in (20, 45, 70, 100, 130, 160):
        for lam in (1e-5, 1e-3, 0.1):
            ref = None
            for tol in (1e-6, 1e-5, 1e-4):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = LABRBFClassifier(n_support=n_support, lam=lam, tol=tol,
                                           random_state=0)
                    c0 = time.process_time()
                    est.fit(X, y)
                    cpu = time.process_time() - c0
                d = est.decision_function(G)
                ref = d if ref is None else ref
                print(f"| {n_support} | {lam:g} | {tol:g} | {cpu:.3f} | {est.n_iter_} | "
                      f"{np.mean(est.predict(X_test) == y_test):.3f} | "
                      f"{np.mean(np.sign(d) != np.sign(ref)):.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tolerances", action="store_true",
                    help="instead: what a looser stopping tolerance changes")
    args = ap.parse_args()
    if args.tolerances:
        data, _ = lab.prepare_data({**lab.defaults()}, lab.CLASSIFICATION)
        return tolerances(data.X_train, data.y_train, data.X_test, data.y_test)
    if core._SETULB is None:
        raise SystemExit("SciPy before 1.15: there is no direct loop to compare")
    data, _ = lab.prepare_data({**lab.defaults()}, lab.CLASSIFICATION)
    X, y = data.X_train, data.y_train
    ns, lam = lab.setting("n_support"), lab.setting("lam")
    lams = list(lam.grid())
    rng = np.random.default_rng(args.seed)
    cpu = {True: [], False: []}
    iters, differ = [], 0
    print(f"# load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, "
          f"{len(y)} training points")
    for i in range(args.points):
        point = {"n_support": int(rng.integers(int(ns.min), int(ns.max) + 1)),
                 "lam": float(lams[int(rng.integers(len(lams)))])}
        got = {}
        for direct in ((True, False) if i % 2 == 0 else (False, True)):
            got[direct] = _fit(X, y, point, direct)
            cpu[direct].append(got[direct][1])
        iters.append(got[True][0].n_iter_)
        differ += not _same(got[True][0], got[False][0])
    core._SETULB = core._c_lbfgsb()
    print("| route | fits | CPU p50 (s) | p90 (s) | max (s) | L-BFGS iterations median / max |")
    print("|---|---|---|---|---|---|")
    for direct, name in ((False, "minimize"), (True, "direct loop")):
        t = np.array(cpu[direct])
        print(f"| {name} | {t.size} | {np.percentile(t, 50):.3f} | {np.percentile(t, 90):.3f} "
              f"| {t.max():.3f} | {int(np.median(iters))} / {max(iters)} |")
    ratio = np.median(np.array(cpu[True]) / np.array(cpu[False]))
    print(f"\nmedian ratio direct / minimize per point: {ratio:.2f}; fits that differ: "
          f"{differ} of {args.points}; load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
