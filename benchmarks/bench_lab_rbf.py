"""LAB RBF on a 1-D chirp: training time and test R² against the support count, with
scikit-learn RBF kernel ridge regression at its best single bandwidth in the same run.

    python benchmarks/bench_lab_rbf.py [--n 300] [--f1 10] [--noise 0] [--runs 5]

Columns: support count N; LAB RBF fit time (median of ``--runs`` fits, default options:
dynamic support selection, L-BFGS-B) and its test R² (noise-free chirp on 2,000 test
points); RBF KRR on all ``n`` training points at the (gamma, alpha) that is best on the
TEST set (an oracle: an upper bound for any tuned single-bandwidth KRR), its fit time
(median) and R²; and the same oracle KRR fitted on LAB's own N support points only.
Everything runs with one BLAS thread.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import r2_score
from threadpoolctl import threadpool_limits

from nplk_core.datasets import chirp_function, make_chirp
from nplk_core.lab_rbf import LABRBFRegressor

GAMMAS = np.logspace(-1, 6, 36)
ALPHAS = (1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)


def oracle_krr(X, y, Xte, yte):
    """(r2, gamma, alpha) of the best RBF KRR on the test set."""
    best = (-np.inf, None, None)
    for g in GAMMAS:
        for a in ALPHAS:
            r2 = r2_score(yte, KernelRidge(kernel="rbf", gamma=g, alpha=a).fit(X, y)
                          .predict(Xte))
            best = max(best, (r2, g, a), key=lambda t: t[0])
    return best


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--f0", type=float, default=1.0)
    ap.add_argument("--f1", type=float, default=10.0)
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--supports", type=int, nargs="+", default=[10, 20, 30, 50, 80])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    X, y = make_chirp(args.n, f0=args.f0, f1=args.f1, noise=args.noise,
                      random_state=args.seed)
    Xte = np.linspace(0.0, 1.0, 2000)[:, None]
    yte = chirp_function(Xte[:, 0], args.f0, args.f1)

    r2_krr, g, a = oracle_krr(X, y, Xte, yte)
    t_krr, _ = median_time(lambda: KernelRidge(kernel="rbf", gamma=g, alpha=a).fit(X, y),
                           args.runs)

    print(f"chirp f0={args.f0} f1={args.f1} n={args.n} noise={args.noise} "
          f"runs={args.runs}; oracle KRR (all points): gamma={g:.3g} alpha={a:g}")
    head = (f"{'N':>4} | {'LAB time [s]':>12} | {'LAB R2':>8} | {'stages':>6} | "
            f"{'KRR time [s]':>12} | {'KRR R2':>8} | {'KRR on LAB sv R2':>16}")
    print(head)
    print("-" * len(head))
    for N in args.supports:
        if N > args.n:
            continue

        def fit(N=N):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return LABRBFRegressor(n_support=N, random_state=0).fit(X, y)

        t_lab, model = median_time(fit, args.runs)
        r2_lab = r2_score(yte, model.predict(Xte))
        sv = model.support_
        r2_sv = oracle_krr(X[sv], y[sv], Xte, yte)[0]
        print(f"{N:>4} | {t_lab:>12.3f} | {r2_lab:>8.4f} | {len(model.stages_['loss']):>6} | "
              f"{t_krr:>12.4f} | {r2_krr:>8.4f} | {r2_sv:>16.4f}")


if __name__ == "__main__":
    # one BLAS thread for both methods (LAB RBF limits itself anyway; at these sizes
    # threaded BLAS only adds synchronisation cost on a busy machine)
    with threadpool_limits(limits=1, user_api="blas"):
        main()
