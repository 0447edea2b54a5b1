"""SimpleNPKL fit time per loss against plain k-means, in one run.

Target: at n = 200 with default parameters every loss fits in <= 150 ms
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
from threadpoolctl import threadpool_limits

from nplk_core._npkl_core import (
    LOSSES,
    _pair_matrix,
    _positive_eigs,
    draw_constraints,
    knn_laplacian,
    prop4_rank,
)
from nplk_core.datasets import make_chessboard, make_spiral
from nplk_core.simple_npkl import SimpleNPKL, clustering_accuracy

DATASETS = {"spiral": make_spiral, "chessboard": make_chessboard}


def _median_time(fn, repeats: int, cpu: bool = False):
    """Median wall time (and, with ``cpu``, median process CPU time) of ``fn()``."""
    times, cpus, out = [], [], None
    for _ in range(repeats):
        c = time.process_time()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    if cpu:
        return float(np.median(times)), float(np.median(cpus)), out
    return float(np.median(times)), out


def loss_table(n: int, dataset: str, repeats: int, seed: int = 0) -> list[dict]:
    X, y = DATASETS[dataset](n, random_state=seed)
    rows = []
    km_time, km_cpu, km = _median_time(
        lambda: KMeans(n_clusters=2, n_init=10, random_state=seed).fit(X), repeats, cpu=True)
    km_ri = clustering_accuracy(y, km.labels_)
    SimpleNPKL(random_state=seed).fit(X, y)  # warm imports / thread pools
    for loss in LOSSES:
        t, c, est = _median_time(lambda loss=loss: SimpleNPKL(loss=loss, random_state=seed)
                                 .fit(X, y), repeats, cpu=True)
        rows.append(dict(loss=loss, n=n, ms=1e3 * t, cpu_ms=1e3 * c, iters=est.n_iter_,
                         constraints=est.n_constraints_,
                         rand=clustering_accuracy(y, est.labels_), km_ms=1e3 * km_time,
                         km_cpu_ms=1e3 * km_cpu, km_rand=km_ri))
    return rows


def c_table(n: int, dataset: str, seed: int = 0) -> list[tuple[float, float, int]]:
    """Rand index of the linear loss against C (why the default is C = 0.1)."""
    X, y = DATASETS[dataset](n, random_state=seed)
    out = []
    for C in (0.01, 0.03, 0.1, 0.3, 1.0):
        est = SimpleNPKL(C=C, random_state=seed).fit(X, y)
        out.append((C, clustering_accuracy(y, est.labels_), est.eigenvalues_.size))
    return out


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
        with threadpool_limits(limits=1):
            td, cd, (wd, _) = _median_time(
                lambda A=A, k0=k0: _positive_eigs(A, k0, solver="dense"), reps, cpu=True)
            ta, ca, (wa, _) = _median_time(
                lambda A=A, k0=k0: _positive_eigs(A, k0, solver="arpack"), reps, cpu=True)
        err = float(np.max(np.abs(wd - wa))) if wd.size == wa.size else float("nan")
        rows.append(dict(n=n, m=len(pairs), rank=wd.size, dense_ms=1e3 * td,
                         dense_cpu=1e3 * cd, arpack_ms=1e3 * ta, arpack_cpu=1e3 * ca,
                         max_eig_diff=err))
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
    print("(wall = median wall-clock time; cpu = median process CPU time, which does not "
          "grow when other jobs share the cores)")
    print(f"{'loss':>13} {'n':>5} {'wall ms':>8} {'cpu ms':>7} {'iters':>6} {'#constr':>8} "
          f"{'Rand':>6} | {'k-means wall':>12} {'cpu':>6} {'Rand':>6}")
    worst = 0.0
    for r in loss_table(args.n, args.dataset, args.repeats):
        worst = max(worst, r["ms"])
        print(f"{r['loss']:>13} {r['n']:>5} {r['ms']:>8.1f} {r['cpu_ms']:>7.1f} "
              f"{r['iters']:>6} {r['constraints']:>8} {r['rand']:>6.3f} | "
              f"{r['km_ms']:>12.1f} {r['km_cpu_ms']:>6.1f} {r['km_rand']:>6.3f}")
    verdict = "meets" if worst <= 150 else "MISSES"
    print(f"slowest loss: {worst:.1f} ms wall -> {verdict} the 150 ms target")
    print(f"\nlinear loss, Rand index against C ({args.dataset}, n = {args.n})")
    print(f"{'C':>6} {'Rand':>6} {'rank':>5}")
    for C, ri, rank in c_table(args.n, args.dataset):
        print(f"{C:>6} {ri:>6.3f} {rank:>5}")
    print("\npositive part of A = 0.1 T - L (one eigen-decomposition, one thread), "
          "dense vs Lanczos")
    print(f"{'n':>6} {'m':>5} {'rank':>5} {'dense ms':>9} {'cpu':>7} {'arpack ms':>10} "
          f"{'cpu':>7} {'max|diff|':>10}")
    for r in solver_table(args.sizes, args.repeats):
        print(f"{r['n']:>6} {r['m']:>5} {r['rank']:>5} {r['dense_ms']:>9.1f} "
              f"{r['dense_cpu']:>7.1f} {r['arpack_ms']:>10.1f} {r['arpack_cpu']:>7.1f} "
              f"{r['max_eig_diff']:>10.1e}")


if __name__ == "__main__":
    main()
