"""Live at every point: server time of a page rerun at random points of each method's
whole slider space, beside the plain SVC / SVR, in one run.

For each method (the cross-validated baselines have no sliders of their own and are left
out), on its page with the page's default data, the page runs in Streamlit's
``AppTest``; then ``--points`` times EVERY slider of the method is set at once to a value
drawn at random over its whole range and the page reruns with the stores emptied (a
fresh fit, grid, figure and serialisation, as for a user who lands on a setting nobody
visited), after one untimed move (the first fit after opening imports scikit-learn). A
log slider draws one of its stops with equal chance (log-uniform; "auto" is one stop of
η); a linear slider draws uniformly over its range (``--linear log``: log-uniform there
too). The points are drawn from ``--seed`` per method, the same for
before and after, and printed with ``--detail``.

Printed per method: p50 / p90 / max of the rerun's wall time and the p90 of its CPU time,
the fit's p50 / p90, points over 0.25 s and over 0.5 s, and the slowest point; beside
them the floor of the same run: scikit-learn's plain SVC (classification) or SVR
(regression) fitted after every point on the page's training data at the point's C, σ
(and ε), p50 and max (the pairwise page has none: "–"); and the rerun of a trivial page.
The SVM and SVR rows are the plain methods on their pages at the same kind of points.
LAB RBF on the regression page also counts the points where its comparison of four fits
was drawn ("panel").

    python benchmarks/bench_slider_space.py                        # 100 points, seed 0
    python benchmarks/bench_slider_space.py --points 100 --seed 0 --only dank_svr,lab_rbf_reg

Before / after in one run (``--before DIR``: a checkout of the code before, e.g. a
``git worktree`` of main): each method is measured twice, in child processes, once with
each checkout's code and pages and the same points, alternating which goes first:

    git worktree add --detach /tmp/base main
    python benchmarks/bench_slider_space.py --before /tmp/base

Targets (issue: live at every point): every method p90 <= 0.25 s and max <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_live as bl  # noqa: E402 (its import puts the measured checkout on the path)

ROOT = bl.ROOT
#: what the issue asks of every method over its points
P90_TARGET, MAX_TARGET = 0.25, 0.5
#: the markdown LAB RBF's comparison table starts with (its header)
PANEL_MARK = "relative test error"


def draw_point(names: list[str], rng: np.random.Generator, linear: str) -> dict:
    """One value per slider: a random stop of a log slider (its options, "auto"
    included), uniform (or log-uniform with ``linear="log"``) over a linear one."""
    import nplk_lab.model as lab

    point = {}
    for name in names:
        s = lab.setting(name)
        grid = list(s.grid())
        if s.kind == "float_auto":
            grid = ["auto", *grid]
        if grid:
            point[name] = grid[int(rng.integers(len(grid)))]
        elif s.kind == "int":
            lo, hi = int(s.min), int(s.max)
            if linear == "log":
                point[name] = int(round(np.exp(rng.uniform(np.log(lo), np.log(hi)))))
            else:
                point[name] = int(rng.integers(lo, hi + 1))
        else:
            step = s.step or (s.max - s.min) / 100
            if linear == "log" and s.min > 0:
                v = np.exp(rng.uniform(np.log(s.min), np.log(s.max)))
                k = int(round((v - s.min) / step))
            else:
                k = int(rng.integers(int(round((s.max - s.min) / step)) + 1))
            point[name] = float(np.round(s.min + k * step, 10))
    return point


def _fmt(point: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in point.items())


def bench_points(method: str, points: int, seed: int, linear: str) -> dict:
    from streamlit.testing.v1 import AppTest

    import nplk_lab.model as lab
    from nplk_lab.serve import stores

    page = {"classification": "classification", "regression": "regression",
            "clustering": "pairwise"}[lab.METHODS[method].task]
    script, key = bl.PAGES[page]
    at = AppTest.from_file(str(ROOT / script), default_timeout=600)
    if key:
        at.query_params[key] = method
    at.run()
    if at.exception:
        raise RuntimeError(f"{method}: {[e.value for e in at.exception]}")
    names = bl._sliders(method)
    rng = np.random.default_rng(seed)
    drawn = [draw_point(names, rng, linear) for _ in range(points)]
    # one untimed move first: a page whose first run came from the first-paint snapshot
    # imports scikit-learn on its first fit (1-2 s), a cost of the first move after
    # opening, not of the point it moves to
    for name, value in draw_point(names, np.random.default_rng(seed + 10_000),
                                  linear).items():
        bl._widget(at, name).set_value(value)
    at.run(timeout=600)
    out = {"method": method, "page": page, "sliders": names, "points": [], "times": [],
           "cpus": [], "fits": [], "floors": [], "panel": []}
    timer = bl.FitTimer()
    try:
        for point in drawn:
            stores.cache.clear()
            for name, value in point.items():
                bl._widget(at, name).set_value(value)
            timer.total = 0.0
            t, c = time.perf_counter(), time.process_time()
            at.run(timeout=600)
            out["times"].append(time.perf_counter() - t)
            out["cpus"].append(time.process_time() - c)
            out["fits"].append(timer.total)
            out["points"].append(_fmt(point))
            if at.exception:
                raise RuntimeError(f"{method} {_fmt(point)}: "
                                   f"{[e.value for e in at.exception]}")
            out["floors"].append(bl._floor_fit(page, at))
            out["panel"].append(any(PANEL_MARK in (m.value or "") for m in at.markdown))
    finally:
        timer.close()
    return out


def _child(root: Path, method: str, args) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--root", str(root), "--only",
           method, "--points", str(args.points), "--seed", str(args.seed), "--linear",
           args.linear, "--json"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"{method} in {root}: {res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _row(r: dict) -> str:
    t, p = np.asarray(r["times"]), bl.percentile
    floors = [x for x in r["floors"] if np.isfinite(x)]
    floor = (f"{p(floors, 50) * 1e3:.1f} / {max(floors) * 1e3:.1f}" if floors else "–")
    worst = int(np.argmax(t))
    met = p(t, 90) <= P90_TARGET and t.max() <= MAX_TARGET
    panel = (f"{sum(r['panel'])} / {len(t)}" if r["method"] == "lab_rbf_reg" else "–")
    return (f"{p(t, 50):.3f} | {p(t, 90):.3f} | {t.max():.3f} | {p(r['cpus'], 90):.3f} | "
            f"{p(r['fits'], 50):.3f} | {p(r['fits'], 90):.3f} | {floor} | "
            f"{int(np.sum(t > 0.25))} | {int(np.sum(t > 0.5))} | {panel} | "
            f"{r['points'][worst]} | {'met' if met else 'missed'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--linear", choices=("uniform", "log"), default="uniform",
                    help="how a linear slider (the support count) is drawn")
    ap.add_argument("--only", default="", help="comma-separated method names")
    ap.add_argument("--root", default=None, help="measure this checkout's code and pages")
    ap.add_argument("--before", default=None,
                    help="also measure this checkout (before), alternating, in child "
                         "processes")
    ap.add_argument("--detail", action="store_true", help="print every point")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    os.chdir(ROOT)
    import nplk_lab.model as lab

    methods = [m for m in lab.METHODS if m not in ("svm_cv", "svr_cv", "mkl_uniform")]
    if args.only:
        methods = [m for m in methods if m in args.only.split(",")]
    if args.json:
        print(json.dumps(bench_points(methods[0], args.points, args.seed, args.linear)))
        return 0
    opts = (f"--points {args.points} --seed {args.seed} --linear {args.linear}"
            + (f" --only {args.only}" if args.only else "")
            + (f" --before {args.before}" if args.before else ""))
    load0 = os.getloadavg()
    floor = bl.trivial_floor(20)
    rows, before = [], {}
    for i, m in enumerate(methods):
        t0 = time.perf_counter()
        if args.before:
            order = [("before", Path(args.before)), ("after", ROOT)]
            got = {tag: _child(root, m, args)
                   for tag, root in (order if i % 2 == 0 else order[::-1])}
            before[m] = got["before"]
            rows.append(got["after"])
        else:
            rows.append(bench_points(m, args.points, args.seed, args.linear))
        print(f"  {m}: {time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}",
              file=sys.stderr)
    load1 = os.getloadavg()
    print(f"\n`python benchmarks/bench_slider_space.py {opts}`: {args.points} points per "
          f"method over all its sliders at once (seed {args.seed}; linear sliders "
          f"{args.linear}), stores emptied before each. Load average (1, 5, 15 min) "
          f"{load0[0]:.1f}, {load0[1]:.1f}, {load0[2]:.1f} at the start, {load1[0]:.1f}, "
          f"{load1[1]:.1f}, {load1[2]:.1f} at the end, on {os.cpu_count()} cores. A trivial "
          f"page's rerun: p50 {bl.percentile(floor, 50) * 1e3:.0f} ms. Targets: p90 ≤ "
          f"{P90_TARGET} s and max ≤ {MAX_TARGET} s.\n")
    head = ("rerun p50 (s) | p90 (s) | max (s) | CPU p90 (s) | fit p50 (s) | fit p90 (s) | "
            "plain SVC/SVR fit p50 / max (ms) | > 0.25 s | > 0.5 s | panel | slowest point "
            "| target")
    ncol = head.count("|") + 1
    if args.before:
        print(f"| method | code | {head} |")
        print("|---" * (ncol + 2) + "|")
        for r in rows:
            print(f"| {r['method']} | before | {_row(before[r['method']])} |")
            print(f"| {r['method']} | after | {_row(r)} |")
    else:
        print(f"| method | sliders | {head} |")
        print("|---" * (ncol + 2) + "|")
        for r in rows:
            print(f"| {r['method']} | {', '.join(r['sliders'])} | {_row(r)} |")
    if args.detail:
        for r in rows:
            runs = [("", r)] + ([("before: ", before[r["method"]])] if args.before else [])
            for tag, rr in runs:
                print(f"\n{tag}{rr['method']}:")
                for k, (t, f) in enumerate(zip(rr["times"], rr["fits"], strict=True)):
                    print(f"  {k:3d} {t:7.3f} s (fit {f:6.3f}) {rr['points'][k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
