"""SimpleNPKL fit time per loss against plain k-means, in one run.

Target (issue 3): at n = 200 with default parameters every loss fits in <= 150 ms
(median of >= 5 runs). The table lists loss, n, median fit time, iterations, number of
constraints, the Rand index of the learned clustering, and plain k-means on the raw
points (time and Rand index) measured in the same run. A second table compares the
two eigen-solvers behind ``eigen_solver="auto"`` (dense below 500 points, Lanczos above).

Run: ``python benchmarks/bench_simple_npkl.py [--repeats 7] [--n 200] [--dataset spiral]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

from nplk_core.datasets import make_chessboard, make_spiral
from nplk_core.simple_npkl import (
    LOSSES,
    SimpleNPKL,
    _pair_matrix,
    _positive_eigs,
    clustering_accuracy,
    draw_constraints,
    knn_laplacian,
    prop4_rank,
)

DATASETS = {"spiral": make_spiral, "chessboard": make_chessboard}


def _median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def loss_table(n: int, dataset: str, repeats: int, seed: int = 0) -> list[dict]:
    X, y = DATASETS[dataset](n, random_state=seed)
    rows = []
    km_time, km = _median_time(
        lambda: KMeans(n_clusters=2, n_init=10, random_state=seed).fit(X), repeats)
    km_ri = clustering_accuracy(y, km.labels_)
    SimpleNPKL(random_state=seed).fit(X, y)  # warm imports / thread pools
    for loss in LOSSES:
        t, est = _median_time(lambda loss=loss: SimpleNPKL(loss=loss, random_state=seed)
                              .fit(X, y), repeats)
        rows.append(dict(loss=loss, n=n, ms=1e3 * t, iters=est.n_iter_,
                         constraints=est.n_constraints_,
                         rand=clustering_accuracy(y, est.labels_), km_ms=1e3 * km_time,
                         km_rand=km_ri))
    return rows


def solver_table(sizes, repeats: int, seed: int = 0) -> list[dict]:
    """Time one positive-part computation of A = C T - L, dense vs Lanczos."""
    rows = []
    for n in sizes:
        X, y = make_spiral(n, random_state=seed)
        L = knn_laplacian(X, 5)
        ml, cl = draw_constraints(y, 0.1, seed)
        pairs = np.vstack([ml, cl])
        signs = np.concatenate([np.ones(len(ml)), -np.ones(len(cl))])
        A = (0.1 * _pair_matrix(n, pairs, signs) - L).tocsr()
        k0 = prop4_rank(len(pairs))
        reps = repeats if n <= 1000 else 2
        td, (wd, _) = _median_time(lambda A=A, k0=k0: _positive_eigs(A, k0, solver="dense"),
                                   reps)
        ta, (wa, _) = _median_time(lambda A=A, k0=k0: _positive_eigs(A, k0, solver="arpack"),
                                   reps)
        err = float(np.max(np.abs(wd - wa))) if wd.size == wa.size else float("nan")
        rows.append(dict(n=n, m=len(pairs), rank=wd.size, dense_ms=1e3 * td,
                         arpack_ms=1e3 * ta, max_eig_diff=err))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--dataset", choices=sorted(DATASETS), default="spiral")
    parser.add_argument("--sizes", type=int, nargs="*", default=[200, 500, 1000, 2000])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"\nSimpleNPKL defaults on {args.dataset}, median of {args.repeats} fits "
          "(target <= 150 ms at n = 200)")
    print(f"{'loss':>13} {'n':>5} {'fit ms':>8} {'iters':>6} {'#constr':>8} {'Rand':>6}"
          f" | {'k-means ms':>10} {'Rand':>6}")
    worst = 0.0
    for r in loss_table(args.n, args.dataset, args.repeats):
        worst = max(worst, r["ms"])
        print(f"{r['loss']:>13} {r['n']:>5} {r['ms']:>8.1f} {r['iters']:>6} "
              f"{r['constraints']:>8} {r['rand']:>6.3f} | {r['km_ms']:>10.1f} "
              f"{r['km_rand']:>6.3f}")
    verdict = "meets" if worst <= 150 else "MISSES"
    print(f"slowest loss: {worst:.1f} ms -> {verdict} the 150 ms target")
    print("\npositive part of A = 0.1 T - L (one eigen-decomposition), dense vs Lanczos")
    print(f"{'n':>6} {'m':>5} {'rank':>5} {'dense ms':>9} {'arpack ms':>10} {'max|diff|':>10}")
    for r in solver_table(args.sizes, args.repeats):
        print(f"{r['n']:>6} {r['m']:>5} {r['rank']:>5} {r['dense_ms']:>9.1f} "
              f"{r['arpack_ms']:>10.1f} {r['max_eig_diff']:>10.1e}")


if __name__ == "__main__":
    main()
