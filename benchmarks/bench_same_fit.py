"""Does the same scalable DANK fit give the same answer on every run and backend?

Fits ``DANKClassifier(n_clusters=8)`` on 5,000 clowns several times in each mode and
compares every run's test predictions (20,000 points), alphas and k-means centres with
the first serial run (which the serial row counts too). Modes: in this process
(serial), 2 loky processes, 2 threads, a 2-worker Dask ``LocalCluster`` (sub-problems
on the workers), and the whole fit inside a Dask worker (where OpenMP has one thread).
Seeds: none (the default call) and 0.

    PYTHONPATH=. python benchmarks/bench_same_fit.py --runs 3       # needs ".[dask]"

Run it with another checkout on ``PYTHONPATH`` for a before/after table. Prints markdown.
"""

from __future__ import annotations

import argparse
import os
import sys

import joblib
import numpy as np


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="fits per mode and seed")
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--clusters", type=int, default=8)
    ap.add_argument("--no-dask", action="store_true")
    a = ap.parse_args(argv)

    from nplk_core import DANKClassifier
    from nplk_core.datasets import make_clowns

    X, y = make_clowns(a.n, random_state=0)
    Xt, _ = make_clowns(20_000, random_state=1)
    client = cluster = None
    if not a.no_dask:
        from dask.distributed import Client, LocalCluster
        cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                               host="127.0.0.1", dashboard_address=None,
                               env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")})
        client = Client(cluster)

    def fit(mode, seed):
        est = DANKClassifier(n_clusters=a.clusters, random_state=seed)
        if mode == "serial":
            return est.fit(X, y)
        if mode == "loky, 2 processes":
            return est.set_params(n_jobs=2).fit(X, y)
        if mode == "threads, 2":
            with joblib.parallel_config(backend="threading", n_jobs=2):
                return est.fit(X, y)
        if mode == "dask, 2 workers":
            with joblib.parallel_config(backend="dask"):
                return est.fit(X, y)
        return client.submit(est.fit, X, y, pure=False).result()   # whole fit on a worker

    modes = ["serial", "loky, 2 processes", "threads, 2"]
    if client is not None:
        modes += ["dask, 2 workers", "whole fit in a dask worker"]
    print(f"n = {a.n:,}, {a.clusters} clusters, 20,000 test points, {a.runs} runs per row; "
          f"load average {os.getloadavg()[0]:.1f}; code from "
          f"{os.environ.get('PYTHONPATH') or sys.path[0]}\n")
    print("| seed | mode | prediction agreement with run 1, min / mean | "
          "runs with identical α / centres | largest α difference |")
    print("|---|---|---|---|---|")
    try:
        for seed in (None, 0):
            ref = None
            for mode in modes:
                agree, same, centres, diff = [], 0, 0, 0.0
                for _ in range(a.runs):
                    m = fit(mode, seed)
                    p = m.predict(Xt)
                    if ref is None:
                        ref = (m.alpha_, p, m.scalable_.centers)
                    agree.append(float(np.mean(p == ref[1])))
                    centres += bool(np.array_equal(m.scalable_.centers, ref[2]))
                    if m.alpha_.shape == ref[0].shape:
                        same += bool(np.array_equal(m.alpha_, ref[0]))
                        diff = max(diff, float(np.abs(m.alpha_ - ref[0]).max()))
                    else:
                        diff = float("nan")
                print(f"| {'none' if seed is None else seed} | {mode} | "
                      f"{100 * min(agree):.2f} % / {100 * np.mean(agree):.2f} % | "
                      f"{same} / {centres} of {a.runs} | {diff:.2g} |", flush=True)
    finally:
        if client is not None:
            client.close()
            cluster.close()


if __name__ == "__main__":
    main()
