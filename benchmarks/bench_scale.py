"""Scalable DANK at n = 20k, 100k, 1M: local processes vs a 2-worker Dask cluster vs SVC.

    python benchmarks/bench_scale.py                               # everything below
    python benchmarks/bench_scale.py --sizes 20000 100000 --data clowns --svc-max 100000

For each data set and n: scalable ``DANKClassifier`` (sigma, C as below, eta="auto",
``n_clusters = n / cluster_size``, default 1,000 points per cluster) fitted
- "local": ``n_jobs=2`` (``--workers``) on joblib's default (loky) processes;
- "dask": ``joblib.parallel_config(backend="dask")`` with a ``LocalCluster`` of 2
  (``--workers``) worker processes, 1 thread each, started beforehand;
- "svc": scikit-learn's ``SVC`` with the same kernel and C on all the data, only up to
  ``--svc-max`` points (its time grows about as n^2: 1M would take hours).
Fit time (wall), peak memory (the largest sum of RSS over this process and all its
child processes -- loky workers, Dask nanny and workers -- sampled every 50 ms; it
includes the data and the idle pools, about 1.3 GB here), prediction time on the test
set (20,000 points, blockwise) and test accuracy. A warm-up fit on 2,000 points starts
each pool first.

Data: "clowns" (2-D, sigma = 1, C = 1) and "covtype-like": d = 54 as the UCI covertype
table (10 standardised continuous features, a 4-way and a 40-way one-hot), a
non-linear boundary in 4 of the continuous features plus the categories, 5 % flipped
labels; sigma = 3, C = 1.

``--variants``: "paper" is the decomposition as in the paper (box ``C`` per cluster,
the nearest centre's local model predicts); "tuned" adds ``cluster_C="scaled"`` (box
``C n / n_c``), 4,000 points per cluster and ``vote=3`` (the three nearest centres'
local models summed); see :func:`nplk_core.scalable.fit_scalable`. ``--vote`` and
``--tuned-cluster-size`` change the tuned variant.

    python benchmarks/bench_scale.py --sizes 100000 --data covtype --variants paper tuned \
        --modes local svc                 # the before/after rows of the README

Goals: 100k in <= 1x SVC's time at equal accuracy (within 1 point); 1M in
under 10 minutes with peak memory under 8 GB.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
import warnings

import joblib
import numpy as np
import psutil
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from nplk_core import DANKClassifier
from nplk_core.datasets import make_clowns
from nplk_core.kernels import sigma_to_gamma

DATA = {"clowns": {"sigma": 1.0, "C": 1.0}, "covtype": {"sigma": 3.0, "C": 1.0}}


def make_covtype_like(n: int, random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A d = 54 stand-in for covertype: 10 continuous, one-hot 4 + 40 categories."""
    rng = np.random.default_rng(random_state)
    cont = rng.normal(size=(n, 10))
    cont[:, 0] = np.abs(cont[:, 0]) ** 1.5            # skewed, like elevation offsets
    wild = rng.integers(0, 4, n)
    soil = np.minimum(rng.geometric(0.12, n) - 1, 39)  # a few common soils, a long tail
    score = (np.sin(2 * cont[:, 1]) + cont[:, 2] * cont[:, 3] - 0.6 * cont[:, 0]
             + 0.4 * (wild - 1.5) + 0.05 * (soil - 6))
    y = (score > 0).astype(int)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    cont = (cont - cont.mean(axis=0)) / cont.std(axis=0)
    X = np.hstack([cont, np.eye(4)[wild], np.eye(40)[soil]])
    return X, y


def load(name: str, n: int, seed: int):
    if name == "clowns":
        return make_clowns(n, random_state=seed)
    return make_covtype_like(n, random_state=seed)


class PeakRSS:
    """Largest summed RSS of this process and its descendants while active."""

    def __init__(self, every: float = 0.05):
        self.every, self.peak, self._stop = every, 0, threading.Event()

    def _total(self) -> int:
        me = psutil.Process()
        total = me.memory_info().rss
        for c in me.children(recursive=True):
            try:
                total += c.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._total())
            self._stop.wait(self.every)

    def __enter__(self):
        self.peak = self._total()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, self._total())


def run_one(mode, name, X, y, Xt, yt, cluster_size, workers=2, *, cluster_C="same",
            vote=1) -> dict:
    p = DATA[name]
    n = X.shape[0]
    k = max(2, n // cluster_size)
    if mode == "svc":
        model = SVC(C=p["C"], gamma=sigma_to_gamma(p["sigma"]))
    else:
        model = DANKClassifier(C=p["C"], sigma=p["sigma"], n_clusters=k, random_state=0,
                               n_jobs=workers if mode == "local" else None,
                               cluster_C=cluster_C, vote=vote)
    ctx = joblib.parallel_config(backend="dask") if mode == "dask" else _null()
    with PeakRSS() as mem, ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t0 = time.perf_counter()
        model.fit(X, y)
        fit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        acc = float(np.mean(model.predict(Xt) == yt))
        pred_s = time.perf_counter() - t0
    label = mode if mode == "svc" or cluster_C == "same" and vote == 1 else \
        f"{mode}, C n/n_c, vote {vote}"
    return {"data": name, "n": n, "mode": label, "clusters": "" if mode == "svc" else k,
            "fit_s": fit_s, "pred_s": pred_s, "peak_gb": mem.peak / 2**30, "acc": acc,
            "converged": getattr(model, "converged_", True)}


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000, 1_000_000])
    ap.add_argument("--data", nargs="+", default=["clowns", "covtype"], choices=list(DATA))
    ap.add_argument("--modes", nargs="+", default=["local", "dask", "svc"],
                    choices=["local", "dask", "svc"])
    ap.add_argument("--svc-max", type=int, default=100_000,
                    help="skip SVC above this n (its time grows about as n^2)")
    ap.add_argument("--cluster-size", type=int, default=1000)
    ap.add_argument("--variants", nargs="+", default=["paper"], choices=["paper", "tuned"])
    ap.add_argument("--vote", type=int, default=3, help="local models summed (tuned)")
    ap.add_argument("--tuned-cluster-size", type=int, default=4000)
    ap.add_argument("--test", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2,
                    help="local n_jobs and the number of Dask worker processes")
    args = ap.parse_args()

    client = cluster = None
    if "dask" in args.modes:
        from dask.distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    print(f"# scalable DANK vs SVC; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores; cluster size {args.cluster_size} (tuned: "
          f"{args.tuned_cluster_size}); "
          f"{args.workers} local jobs / Dask workers\n", flush=True)
    head = ("| data | n | mode | clusters | fit (s) | predict 20k (s) | peak RSS (GB) "
            "| test acc. | load |")
    print(head + "\n|---|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    for name in args.data:
        Xw, yw = load(name, 2000, 5)
        for mode in args.modes:                       # warm the pools up
            if mode != "svc":
                run_one(mode, name, Xw, yw, Xw[:10], yw[:10], args.cluster_size, args.workers)
        Xt, yt = load(name, args.test, 1)
        variants = [("same", 1, args.cluster_size) if v == "paper" else
                    ("scaled", args.vote, args.tuned_cluster_size) for v in args.variants]
        for n in args.sizes:
            X, y = load(name, n, 0)
            runs = [(m, *v) for m in args.modes if m != "svc" for v in variants]
            runs += [("svc", "same", 1, 0)] if "svc" in args.modes else []
            for mode, cluster_C, vote, size in runs:
                if mode == "svc" and n > args.svc_max:
                    print(f"| {name} | {n:,} | svc | | skipped (n > {args.svc_max:,}) "
                          "| | | |", flush=True)
                    continue
                r = run_one(mode, name, X, y, Xt, yt, size or args.cluster_size, args.workers,
                            cluster_C=cluster_C, vote=vote)
                rows.append(r)
                conv = "" if r["converged"] else " (max_iter)"
                print(f"| {name} | {n:,} | {r['mode']} | {r['clusters']} | {r['fit_s']:.1f}{conv} "
                      f"| {r['pred_s']:.2f} | {r['peak_gb']:.2f} | {r['acc']:.4f} "
                      f"| {os.getloadavg()[0]:.1f} |",
                      flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    if client is not None:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
