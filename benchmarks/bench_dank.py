"""DANK fit time per solver on clowns against scikit-learn's SVC, in one run.

    python benchmarks/bench_dank.py                      # n = 200, 1000, 2000 + scalable 20,000
    python benchmarks/bench_dank.py --sizes 200 --repeats 15 --no-scalable
    PYTHONPATH=. python benchmarks/bench_dank.py --grid [--grid-seeds 3]   # the σ × C map
    PYTHONPATH=. python benchmarks/bench_dank.py --svr-slider            # DANK-SVR, tiny τ

``--grid``: the Sensitivity page's 10 × 10 σ × C map of DANK on the clowns (n = 200,
3 seeds: 300 DANK fits plus 300 SVM baselines, ``benchmarks/bench_maps.py``), once in two
loky processes with the pool warm and once in process on one BLAS thread (what the
workers use); CPU seconds of this process and its workers, wall seconds, the solver's
evaluations and eigendecompositions (in-process run), and one SVC fit as the floor, all
in the same run. Run it with ``PYTHONPATH`` at another checkout for the "before" row.
``--svr-slider``: the DANK-SVR fit of the slowest slider move of
``bench_live.py --seed 1`` (step function, C = 1.5, ε = 0.05, σ = 0.2, τ = 3e-4,
η = auto, then η = 2): CPU, iterations, evaluations per iteration, eigenproblem size and
rank of F.

For each n: median wall time of ``DANKClassifier(solver=...)`` (sigma = 1, C = 1,
tau = 0.01, eta = "auto", tol = 1e-4; the fit includes the kernel, eta's plain SVM,
and the bias), SVC with the same kernel and C timed alternately in the same run, their
ratio, iterations and the final h = H(alpha, F(alpha)). "dh" is the relative gap to the
best h found by any solver at that n (the solvers must agree to 1e-4). The slow
reference solvers (Algorithm 1, its monotone variant, projected gradient) run once at
n >= 1000. The scalable row (the DANK paper's decomposition for large data) is DANK with
20 k-means clusters and n_jobs = 2 on n = 20,000 against one SVC on all the data.

Targets: n = 200 default solver <= 60 ms median, n = 1000 <= 1.5 s,
n = 2000 <= 5 s, scalable at 20,000 <= 4x SVC.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from nplk_core import DANKClassifier
from nplk_core.datasets import make_clowns
from nplk_core.kernels import sigma_to_gamma

SOLVERS = ["auto", "nesterov", "nesterov-monotone", "pg"]
TARGETS_S = {200: 0.060, 1000: 1.5, 2000: 5.0}


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench_size(n: int, repeats: int, solvers: list[str]) -> list[dict]:
    X, y = make_clowns(n, random_state=0)
    svc = SVC(C=1.0, gamma=sigma_to_gamma(1.0))
    rows = []
    for solver in solvers:
        reps = repeats if (solver == "auto" or n < 1000) else 1
        t_dank, t_svc, model = [], [], None
        for _ in range(reps):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                dt, model = _timed(lambda s=solver: DANKClassifier(solver=s).fit(X, y))
            t_dank.append(dt)
            t_svc.append(_timed(lambda: svc.fit(X, y))[0])
        md, ms = float(np.median(t_dank)), float(np.median(t_svc))
        rows.append({"n": n, "solver": model.solver_ if solver != "auto" else "auto (apg)",
                     "fit_s": md, "svc_s": ms, "ratio": md / ms, "iters": model.n_iter_,
                     "h": model.objective_, "converged": model.converged_, "runs": reps})
    best = max(r["h"] for r in rows)
    for r in rows:
        r["dh"] = (best - r["h"]) / abs(best)
    return rows


def bench_scalable(n: int, clusters: int, n_jobs: int) -> dict:
    X, y = make_clowns(n, random_state=0)
    t_svc, _ = _timed(lambda: SVC(C=1.0, gamma=sigma_to_gamma(1.0)).fit(X, y))
    # one warm-up so that joblib's worker pool start is not billed to the decomposition
    DANKClassifier(n_clusters=2, n_jobs=n_jobs, random_state=0).fit(X[:400], y[:400])
    t_dank, m = _timed(lambda: DANKClassifier(n_clusters=clusters, n_jobs=n_jobs,
                                              random_state=0).fit(X, y))
    return {"n": n, "solver": f"scalable ({clusters} clusters, n_jobs={n_jobs})",
            "fit_s": t_dank, "svc_s": t_svc, "ratio": t_dank / t_svc, "iters": m.n_iter_,
            "h": m.scalable_.objective, "converged": m.converged_, "runs": 1, "dh": np.nan,
            "acc": m.score(X, y)}


def _cpu() -> float:
    import psutil
    total = 0.0
    me = psutil.Process()
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


class _Counter:
    """Counts DankProblem evaluations and the sizes/ranks of their eigenproblems."""

    def __init__(self):
        from nplk_core import _dank_core as dc
        self.dc, self.sizes, self.kept, self.evals = dc, [], [], 0
        self._eig, self._ev = dc._eigh_above, dc.DankProblem.evaluate
        counter = self

        def eig(M, s, *a, **k):
            lam, V = counter._eig(M, s, *a, **k)
            counter.sizes.append(M.shape[0])
            counter.kept.append(lam.size)
            return lam, V

        def ev(problem, *a, **k):
            counter.evals += 1
            return counter._ev(problem, *a, **k)

        dc._eigh_above, dc.DankProblem.evaluate = eig, ev

    def close(self):
        self.dc._eigh_above, self.dc.DankProblem.evaluate = self._eig, self._ev


def bench_grid(seeds: int, points: int) -> None:
    """The σ × C map of DANK (see the module docstring)."""
    from threadpoolctl import threadpool_limits

    import nplk_core
    import nplk_lab.model as lab
    from nplk_lab.model import maps

    P = {**lab.defaults(), "n_samples": 200, "sweep_method": "dank"}
    sig = lab.sweep_values("sigma", None, None, points)
    Cs = lab.sweep_values("C", None, None, points)
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION, seed=0)
    svc = SVC(C=10.0, gamma=sigma_to_gamma(10.0))
    t_svc = float(np.median([_timed(lambda: svc.fit(data.X_train, data.y_train))[0]
                             for _ in range(21)]))
    fits = sig.size * Cs.size * seeds
    load0 = os.getloadavg()[0]
    rows = []
    # warm the pool (worker start-up and imports are not the solver's)
    maps.run_map(P, "dank", "sigma", sig[:2], "C", Cs[:2], repeats=1, parallel=True,
                 n_jobs=2, workers=2)
    c0, t0 = _cpu(), time.perf_counter()
    par = maps.run_map(P, "dank", "sigma", sig, "C", Cs, repeats=seeds, parallel=True,
                       n_jobs=2, workers=2)
    rows.append(("2 processes (loky, warm pool)", time.perf_counter() - t0, _cpu() - c0,
                 int(np.nansum(par.iterations)), None, None))
    with threadpool_limits(1):
        maps.run_map(P, "dank", "sigma", sig[:2], "C", Cs[:2], repeats=1)
        count = _Counter()
        try:
            c0, t0 = _cpu(), time.perf_counter()
            ser = maps.run_map(P, "dank", "sigma", sig, "C", Cs, repeats=seeds)
            wall, cpu = time.perf_counter() - t0, _cpu() - c0
        finally:
            count.close()
    it = int(np.nansum(ser.iterations))
    rows.append(("in process, 1 BLAS thread", wall, cpu, it, count, None))
    same = bool(np.allclose(par.scores, ser.scores, equal_nan=True))
    where = os.path.dirname(os.path.dirname(nplk_core.__file__))
    print(f"# DANK σ × C map: {sig.size} × {Cs.size} cells × {seeds} seeds = {fits} fits, "
          f"n = 200, code from {where}; load average {load0:.1f} → "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; one SVC fit "
          f"{t_svc * 1e3:.2f} ms; parallel map equals serial: {same}\n")
    print("| run | wall (s) | CPU (s) | CPU / SVC fit | iterations | evaluations / iteration "
          "| eigenproblem size (mean) | rank of F (mean) | mean score |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, wall, cpu, it, cnt, _ in rows:
        extra = (f"{cnt.evals / it:.2f} | {np.mean(cnt.sizes):.1f} | {np.mean(cnt.kept):.1f}"
                 if cnt else " | | ")
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {cpu / t_svc:,.0f} | {it:,} | {extra} | "
              f"{np.nanmean(par.scores):.6f} |")


def bench_svr_slider() -> None:
    """DANK-SVR at the slider state of bench_live's slowest move (module docstring)."""
    from threadpoolctl import threadpool_limits

    import nplk_lab.model as lab
    from nplk_core.dank import DANKRegressor

    P = {**lab.defaults(), "reg_method": "dank_svr", "C": 1.5, "epsilon": 0.05,
         "sigma": 0.2, "tau": 3e-4}
    data, _ = lab.prepare_data(P, lab.REGRESSION, seed=0)
    X, y = data.X_train, data.y_train
    from sklearn.svm import SVR
    t_svr = float(np.median([_timed(lambda: SVR(C=1.5, epsilon=0.05, gamma=sigma_to_gamma(
        0.2)).fit(X, y))[0] for _ in range(21)]))
    print(f"# DANK-SVR, step function, n train {len(y)}, C = 1.5, ε = 0.05, σ = 0.2; one "
          f"SVR fit {t_svr * 1e3:.2f} ms; load average {os.getloadavg()[0]:.1f}\n")
    print("| τ | η | CPU (s) | CPU / SVR fit | iterations | evaluations / iteration | "
          "eigenproblem size (median) | rank of F | h |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tau, eta in [(3e-4, "auto"), (3e-4, 2.0), (0.01, "auto"), (0.1, "auto")]:
        with threadpool_limits(1):
            count = _Counter()
            try:
                c0 = time.process_time()
                m = DANKRegressor(C=1.5, epsilon=0.05, sigma=0.2, tau=tau, eta=eta).fit(X, y)
                cpu = time.process_time() - c0
            finally:
                count.close()
        print(f"| {tau:g} | {eta} | {cpu:.3f} | {cpu / t_svr:,.0f} | {m.n_iter_} | "
              f"{count.evals / m.n_iter_:.2f} | {np.median(count.sizes):.0f} | "
              f"{m.rank_} | {m.objective_:.6f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 1000, 2000])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--solvers", nargs="+", default=SOLVERS)
    ap.add_argument("--no-scalable", action="store_true")
    ap.add_argument("--scalable-n", type=int, default=20000)
    ap.add_argument("--grid", action="store_true", help="the σ × C map's fits only")
    ap.add_argument("--grid-seeds", type=int, default=3)
    ap.add_argument("--grid-points", type=int, default=10)
    ap.add_argument("--svr-slider", action="store_true", help="DANK-SVR at tiny τ only")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.grid or args.svr_slider:
        if args.svr_slider:
            bench_svr_slider()
        if args.grid:
            bench_grid(args.grid_seeds, args.grid_points)
        return

    print(f"# DANK on clowns (sigma=1, C=1, tau=0.01, eta=auto); load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores\n")
    print("| n | solver | fit (s) | SVC (s) | ratio | iterations | h | rel. gap to best h "
          "| target |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for n in args.sizes:
        rows += bench_size(n, args.repeats, args.solvers)
    if not args.no_scalable:
        rows.append(bench_scalable(args.scalable_n, 20, 2))
    for r in rows:
        if r["solver"].startswith("auto") and r["n"] in TARGETS_S:
            tgt = TARGETS_S[r["n"]]
            target = f"<= {tgt:g} s: {'met' if r['fit_s'] <= tgt else 'MISSED'}"
        elif r["solver"].startswith("scalable"):
            target = f"<= 4x SVC: {'met' if r['ratio'] <= 4 else 'MISSED'}"
        else:
            target = ""
        dh = "" if np.isnan(r["dh"]) else f"{r['dh']:.1e}"
        conv = "" if r["converged"] else " (max_iter)"
        print(f"| {r['n']} | {r['solver']} | {r['fit_s']:.3f} | {r['svc_s']:.3f} | "
              f"{r['ratio']:.1f} | {r['iters']}{conv} | {r['h']:.6f} | {dh} | {target} |")
    for r in rows:
        if "acc" in r:
            print(f"\nscalable training accuracy {r['acc']:.4f}")


if __name__ == "__main__":
    main()
