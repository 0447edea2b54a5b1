"""DANK and DANK-SVR fit time over random slider points, against scikit-learn, in one run.

    python benchmarks/bench_sliders.py                    # 12 points per method, n = 200
    python benchmarks/bench_sliders.py --points 24 --n 300 --cap 20
    python benchmarks/bench_sliders.py --methods dank_svr --solver apg newton \
        --n 200 400 600 1000                              # DANK-SVR's solvers by size
    python benchmarks/bench_sliders.py --methods dank_svr --n 100 200 300 400 430 500 \
        600 1000 --points 20 --fit-cost              # the budget's DANK-SVR cost model

With several ``--n`` and ``--solver`` every pair is measured on the same points (each
size draws its data, the points are the same for every size and solver).

The core-level version of the lab's slider-move benchmark. For each DANK method on its
page's default data (DANK: clowns, DANK-SVR: step function; ``n`` points drawn, the page's 30% test
split, so 140 training points at n = 200), ``--points`` random slider settings are drawn
from the sliders' ranges (log-uniform, as the sliders are log): C in [0.01, 1000],
sigma in [0.05, 20], tau in [1e-4, 10], eta in [1e-3, 1e5] or "auto" (one point in
four), epsilon in [1e-3, 2] (DANK-SVR). Every point is fitted with the default solver
("auto") and max_iter = 2000, and, alternately in the same run, scikit-learn's SVC / SVR
with the same C, sigma (and epsilon). The table gives p50 / p90 / max fit time of both,
the ratio of the medians, and how many fits stopped at max_iter (honestly: converged_ is
False and a ConvergenceWarning is raised). A fit that runs past ``--cap`` seconds is
stopped through its callback and counted as "capped" (its time is then a lower bound).
Each row is given twice: wall time, and CPU time of the process (``time.process_time``),
which a busy shared machine inflates much less (DANK runs its BLAS single-threaded).

Goal: p90 <= 0.5 s and no fit over 5 s at toy size (n <= 300).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, SVR

import nplk_lab.model as lab
from nplk_core.dank import DANKClassifier, DANKRegressor
from nplk_core.kernels import sigma_to_gamma

RANGES = {"C": (0.01, 1000.0), "sigma": (0.05, 20.0), "tau": (1e-4, 10.0),
          "eta": (1e-3, 1e5), "epsilon": (1e-3, 2.0)}


def draw_points(rng: np.random.Generator, count: int, regression: bool) -> list[dict]:
    names = ["C", "sigma", "tau", "eta"] + (["epsilon"] if regression else [])
    points = []
    for _ in range(count):
        p = {k: float(np.exp(rng.uniform(*np.log(RANGES[k])))) for k in names}
        if rng.random() < 0.25:
            p["eta"] = "auto"
        points.append(p)
    return points


def _data(task: str, n: int):
    params = {**lab.defaults(), "n_samples": n}
    data, _ = lab.prepare_data(params, task)
    return data.X_train, data.y_train


def run(method: str, n: int, count: int, cap: float, seed: int, solver: str) -> dict:
    regression = method == "dank_svr"
    X, y = _data(lab.REGRESSION if regression else lab.CLASSIFICATION, n)
    rng = np.random.default_rng(seed)
    rows = []
    for p in draw_points(rng, count, regression):
        capped = []

        def stop(it, state, elapsed, capped=capped):
            if elapsed > cap:
                capped.append(it)
                return True
            return False

        est = (DANKRegressor if regression else DANKClassifier)(solver=solver, callback=stop,
                                                                 **p)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            t0, c0 = time.perf_counter(), time.process_time()
            est.fit(X, y)
            t_fit, c_fit = time.perf_counter() - t0, time.process_time() - c0
        warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
        gamma = sigma_to_gamma(p["sigma"])
        base = (SVR(C=p["C"], gamma=gamma, epsilon=p["epsilon"]) if regression
                else SVC(C=p["C"], gamma=gamma))
        t0, c0 = time.perf_counter(), time.process_time()
        base.fit(X, y)
        t_base, c_base = time.perf_counter() - t0, time.process_time() - c0
        rows.append({**p, "t": t_fit, "t_base": t_base, "cpu": c_fit,
                     "cpu_base": c_base, "iters": est.n_iter_,
                     "converged": est.converged_, "warned": warned, "capped": bool(capped)})
    return {"method": method, "n_train": X.shape[0], "rows": rows}


def summary(res: dict, clock: str) -> str:
    t = np.array([r["t" if clock == "wall" else "cpu"] for r in res["rows"]])
    b = np.array([r["t_base" if clock == "wall" else "cpu_base"] for r in res["rows"]])
    iters = np.array([r["iters"] for r in res["rows"]])
    capped = sum(r["capped"] for r in res["rows"])
    at_max = sum((not r["converged"]) and r["warned"] for r in res["rows"])
    p50, p90, mx = np.percentile(t, 50), np.percentile(t, 90), t.max()
    goal = "met" if p90 <= 0.5 and mx <= 5.0 and not capped else "MISSED"
    return (f"| {res['method']} | {clock} | {res['n_train']} | {len(t)} | {p50:.3f} | {p90:.3f} | "
            f"{mx:.3f} | {np.percentile(b, 50) * 1e3:.1f} / {np.percentile(b, 90) * 1e3:.1f} "
            f"/ {b.max() * 1e3:.1f} | {p50 / np.percentile(b, 50):.0f} | "
            f"{int(np.median(iters))} / {int(iters.max())} | {at_max} | {capped} | {goal} |")


def route(method: str, solver: str, n_train: int) -> str:
    """The solver a fit ran with: ``solver``, or the one "auto" resolves to (DANK-SVR:
    Newton's method up to ``AUTO_SVR_NEWTON_MAX_N`` training points, else accelerated)."""
    if solver != "auto":
        return solver
    from nplk_core.dank import AUTO_SVR_NEWTON_MAX_N
    return "newton" if method == "dank_svr" and n_train <= AUTO_SVR_NEWTON_MAX_N else "apg"


def cost_fit(results: list[dict], solvers: list[str]) -> str:
    """The budget's cost model ``t200 * (n / 200) ** power`` (``nplk_lab/model/budget.py``)
    fitted by least squares on log(CPU p90) against log(n train / 200), per method and
    route, over the sizes measured (two or more)."""
    groups: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for res, solver in zip(results, solvers):
        n = res["n_train"]
        cpu = np.array([r["cpu"] for r in res["rows"]])
        key = (res["method"].split(" ")[0], route(res["method"].split(" ")[0], solver, n))
        groups.setdefault(key, []).append((n, float(np.percentile(cpu, 90))))
    lines = ["| method | route | n train | CPU p90 (s) | t200 (s) | power | t200 at power 2 (s) |",
             "|---|---|---|---|---|---|---|"]
    for (method, how), pts in groups.items():
        if len(pts) < 2:
            continue
        n = np.array([p[0] for p in pts], dtype=float)
        t = np.array([p[1] for p in pts])
        power, log_t200 = np.polyfit(np.log(n / 200.0), np.log(t), 1)
        # the power of one iteration's cost (n x n products), fitting t200 alone: where
        # the p90 over a few points is not monotone in n (iterations vary by point)
        t200_sq = float(np.exp(np.mean(np.log(t) - 2.0 * np.log(n / 200.0))))
        lines.append(f"| {method} | {how} | {', '.join(str(int(v)) for v in n)} | "
                     f"{', '.join(f'{v:.3f}' for v in t)} | {np.exp(log_t200):.3f} | "
                     f"{power:.2f} | {t200_sq:.3f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=12)
    ap.add_argument("--n", type=int, nargs="+", default=[200])
    ap.add_argument("--cap", type=float, default=20.0, help="stop a fit after this many s")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--solver", nargs="+", default=["auto"])
    ap.add_argument("--methods", nargs="+", default=["dank", "dank_svr"])
    ap.add_argument("--detail", action="store_true", help="print every point")
    ap.add_argument("--fit-cost", action="store_true",
                    help="fit the budget's cost model t200 * (n / 200) ** power to the CPU "
                         "p90 per method and solver route")
    args = ap.parse_args()
    print(f"# random slider points, solver={', '.join(args.solver)}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores\n")
    results, solvers = [], []
    for m in args.methods:
        for n in args.n:
            for solver in args.solver:
                res = run(m, n, args.points, args.cap, args.seed, solver)
                res["method"] = m if len(args.solver) == 1 else f"{m} ({solver})"
                results.append(res)
                solvers.append(solver)
    print("| method | clock | n train | points | p50 (s) | p90 (s) | max (s) | sklearn p50 / p90 / "
          "max (ms) | p50 ratio | iterations median / max | at max_iter | capped | goal |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for res in results:
        for clock in ("wall", "cpu"):
            print(summary(res, clock))
    if args.detail:
        for res in results:
            print(f"\n{res['method']}:")
            for r in sorted(res["rows"], key=lambda r: -r["t"]):
                eta = r["eta"] if r["eta"] == "auto" else f"{r['eta']:.3g}"
                eps = f" eps={r['epsilon']:.3g}" if "epsilon" in r else ""
                print(f"  {r['t']:7.3f} s (cpu {r['cpu']:6.3f})  iters={r['iters']:5d} "
                      f"conv={r['converged']!s:5} C={r['C']:.3g} sigma={r['sigma']:.3g} "
                      f"tau={r['tau']:.3g} eta={eta}{eps}")
    if args.fit_cost:
        print("\n" + cost_fit(results, solvers))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
