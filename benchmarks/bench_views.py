"""Linked and derived views: server time per view update, per view and method.

    python benchmarks/bench_views.py [--points 12] [--seed 0] [--only dank,knpl]

One table, one row per (view, method); views register in :data:`VIEWS` (the
influence view here; the eigenfunction maps add their rows to the same table).

**influence**. Each method runs on its page at the page's defaults (toy
size: 200 points, 140 for training; the 100 × 100 grid) in Streamlit's ``AppTest``; the
first run fits and fills the stores. Then ``--points`` random training points are
selected one after another (as a click does: ``focus_point`` set in the session's
state) and the page reruns with the fit cached: that rerun is the server time of one
view update (the ring on the surface, the framed matrix row, the new influence figure
and its serialisation, and everything else the page draws from its caches), in wall
time and in CPU time of the process (which a busy shared machine inflates less).
Beside it, outside Streamlit and uncached: the map alone (``InfluenceBasis.at``: one
gather and one exp over the grid) and the figure built and serialised to JSON; once per
fit the basis (the learned matrix; the grid-to-training distances are the surface's);
once per data set and grid the reciprocal rule's columns (DANK, ``dank:reciprocal``). A
trivial page's rerun is the floor.

Goal: p90 ≤ 0.5 s per view update at toy size on a 100 × 100 grid.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench_live import trivial_floor  # noqa: E402  (the same floor, one place)

PAGES = {"classification": ("pages/1_Classification.py", "method"),
         "regression": ("pages/2_Regression.py", "reg_method")}

def percentile(xs, q) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if len(xs) else float("nan")


def _open(page: str, method: str, query: dict | None = None):
    from streamlit.testing.v1 import AppTest

    script, key = PAGES[page]
    at = AppTest.from_file(str(ROOT / script), default_timeout=600)
    at.query_params[key] = method
    for k, v in (query or {}).items():
        at.query_params[k] = str(v)
    at.run()
    if at.exception:
        raise RuntimeError(f"{method}: {[e.value for e in at.exception]}")
    return at


# ---------------------------------------------------------------------------
# views
# ---------------------------------------------------------------------------

def bench_influence(method: str, page: str, count: int, rng: np.random.Generator) -> dict:
    """Reruns after selecting random training points, plus the map and figure alone.
    ``method`` may carry DANK's out-of-sample rule: ``"dank:reciprocal"``."""
    import nplk_lab.figures as fg
    import nplk_lab.model as lab
    import nplk_lab.ui
    from nplk_lab.model.influence import rule_columns

    method, _, rule = method.partition(":")
    at = _open(page, method, {"extension": rule} if rule else None)
    store = at.session_state[nplk_lab.ui.STORE]
    task = lab.METHODS[method].task
    data, _ = lab.prepare_data(dict(store), task)
    n = len(data.y_train)
    picks = rng.choice(n, size=min(count, n), replace=False)
    # LAB RBF draws a map only for its support points: pick among them
    P = {**lab.defaults(), **store}
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    sup = getattr(res.estimator, "support_", None)
    if method.startswith("lab_rbf") and sup is not None:
        picks = rng.choice(np.asarray(sup), size=min(count, len(sup)), replace=False)
    ext = P.get("extension") if method in ("dank", "dank_svr") else None
    t_cols = 0.0
    if data.n_features == 1:
        pts = lab.line_points(data.X)
        t = time.perf_counter()
        basis = lab.influence_basis(res.estimator, method, data.X_train, pts, extension=ext)
        t_basis = time.perf_counter() - t
    else:
        grid = lab.make_grid(data.X, 100)
        geom = lab.grid_geometry(grid, data.X_train)      # the page has it (the surface's)
        cols = geom.nearest
        if ext == "reciprocal":                          # once per data set and grid
            t = time.perf_counter()
            cols = rule_columns(ext, grid.points, data.X_train, geom.sqdist)
            t_cols = time.perf_counter() - t
        t = time.perf_counter()
        basis = lab.influence_basis(res.estimator, method, data.X_train, grid.points,
                                    extension=ext, sqdist=geom.sqdist, cols=cols)
        t_basis = time.perf_counter() - t
    reruns, cpus, maps, figs = [], [], [], []
    for i in picks:
        i = int(i)
        t = time.perf_counter()
        inf = basis.at(i)
        maps.append(time.perf_counter() - t)
        t = time.perf_counter()
        if data.n_features == 1:
            fig = fg.influence_curve(pts[:, 0], inf.plain, inf.learned, inf.change,
                                     X_train=data.X_train, index=i, axes=inf.axes)
        else:
            fig = fg.influence_figure(grid.xs, grid.ys, inf.plain, inf.learned, inf.change,
                                      X_train=data.X_train, y_train=data.y_train, index=i,
                                      axes=inf.axes, plain_axes=inf.plain_axes)
        fg.figure_json(fig)
        figs.append(time.perf_counter() - t)
        at.session_state[nplk_lab.ui.STORE]["focus_point"] = i
        t, c = time.perf_counter(), time.process_time()
        at.run(timeout=600)
        reruns.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        if at.exception:
            raise RuntimeError(f"{method} point {i}: {[e.value for e in at.exception]}")
        shown = [m.value for m in at.markdown if "Influence of training point" in m.value]
        if not shown or f"point {i}**" not in shown[0]:
            raise RuntimeError(f"{method}: point {i} not drawn ({shown})")
    return {"reruns": reruns, "cpus": cpus, "maps": maps, "figs": figs, "basis": t_basis,
            "cols": t_cols,
            "points": len(picks), "n": n}


#: view name -> (methods by page, benchmark function(method, page, count, rng) -> dict)
VIEWS: dict[str, tuple[dict[str, tuple[str, ...]], Callable]] = {
    "influence": ({"classification": ("dank", "dank:reciprocal", "knpl", "onk", "lab_rbf",
                                      "svm", "mkl_uniform"),
                   "regression": ("dank_svr", "lab_rbf_reg")}, bench_influence),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated method names")
    ap.add_argument("--views", default="", help="comma-separated view names")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    os.chdir(ROOT)
    rng = np.random.default_rng(args.seed)
    floor = trivial_floor(args.points)
    rows = []
    for view, (by_page, fn) in VIEWS.items():
        if args.views and view not in args.views.split(","):
            continue
        for page, methods in by_page.items():
            for m in methods:
                if args.only and m.split(":")[0] not in args.only.split(","):
                    continue
                t0 = time.perf_counter()
                rows.append((view, m, page, fn(m, page, args.points, rng)))
                print(f"  {view} {m}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    load = os.getloadavg()[0]
    print(f"\nServer time per view update, {args.points} random points per method (seed "
          f"{args.seed}); load average {load:.1f} on {os.cpu_count()} cores. Floor: a "
          f"trivial page's rerun, p50 {percentile(floor, 50) * 1000:.0f} ms.\n")
    print("| view | method | page | points | rerun p50 (s) | rerun p90 (s) | max (s) | "
          "CPU p90 (s) | map p50 (ms) | map p90 (ms) | figure+JSON p50 (ms) | p90 (ms) | "
          "per fit (ms) | per data (ms) | p90 ≤ 0.5 s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for view, m, page, r in rows:
        t = r["reruns"]
        p90 = percentile(t, 90)
        print(f"| {view} | {m} | {page} | {r['points']} | {percentile(t, 50):.3f} | "
              f"{p90:.3f} | {max(t):.3f} | {percentile(r['cpus'], 90):.3f} | "
              f"{percentile(r['maps'], 50) * 1e3:.2f} | "
              f"{percentile(r['maps'], 90) * 1e3:.2f} | "
              f"{percentile(r['figs'], 50) * 1e3:.1f} | {percentile(r['figs'], 90) * 1e3:.1f} "
              f"| {r['basis'] * 1e3:.0f} | {r['cols'] * 1e3:.0f} | "
              f"{'met' if p90 <= 0.5 else 'missed'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
