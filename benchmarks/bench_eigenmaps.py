"""Eigenfunction maps: server time of the eigen-decay view when j changes
and when a slider moves, at toy size on the 100 × 100 grid, in one run.

    python benchmarks/bench_eigenmaps.py [--moves 12] [--seed 0] [--n 200]

Four kinds of rows, each over ``--moves`` random points:

* ``core, new data set``: the grid-to-training distances and the rule's columns, which
  the page keeps per data set (one timing per rule);
* ``core, cold fit``: for a fit at a random slider point (C, σ, τ and η of DANK drawn as
  in ``bench_sliders.py``; C, σ for the others; n = 200, the page's 30 % test split,
  so 140 training points) the eigenpairs of K, the learned kernel and F, their
  Nyström extension to the 100 × 100 grid for the leading six and a random j, the
  figure and its JSON — everything the view adds to a refit (distances and columns
  from the row above, as on the page);
* ``core, new j``: the same fit, another j (uniform on 1 … 40, where the decay plot
  shows eigenvalues): eigenpairs kept on the fit, maps and figure anew;
* ``page, new j`` / ``page, slider``: the Classification page (``AppTest``) in the
  eigen-decay view: the rerun after typing a random j in the number input (the same
  rerun a click on the plot causes; the click handler itself only parses a list), and
  the rerun after a random σ / τ move with the stores emptied (refit, surface, decay
  plot and maps), each with the share of the eigen panel itself (the decay plot
  marked at j, the eigenpairs, the maps and their figure; the decay plot's spectra are
  computed before it, as without this view). A trivial page's rerun is the floor.

The issue's bound: p90 ≤ 0.5 s per view update.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

RANGES = {"C": (0.01, 1000.0), "sigma": (0.05, 20.0), "tau": (1e-4, 10.0),
          "eta": (1e-3, 1e5)}
CORE = (("dank", "nearest"), ("dank", "reciprocal"), ("knpl", None), ("onk", None),
        ("svm", None))
J_MAX = 40


def percentile(xs, q) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if len(xs) else float("nan")


def _point(method: str, rng: np.random.Generator) -> dict:
    names = ["C", "sigma"] + (["tau", "eta"] if method == "dank" else [])
    p = {k: float(np.exp(rng.uniform(*np.log(RANGES[k])))) for k in names}
    if method == "dank" and rng.random() < 0.25:
        p["eta"] = "auto"
    return p


def _view_once(res, data, grid, j, rule, shared):
    import nplk_lab.figures as fg
    import nplk_lab.model as lab

    t = time.perf_counter()
    maps = lab.eigenfunction_maps(res, grid.points, lab.map_indices(j, len(res.X_train)),
                                  extension=rule, **shared)
    fig = fg.eigenfunction_figure(grid.xs, grid.ys, maps.maps, maps.values, maps.indices,
                                  min(j, len(res.X_train)), null=maps.null,
                                  X=res.X_train, y=data.y_train,
                                  subtitle=lab.eigenmaps.describe(maps, j))
    text = fg.figure_json(fig)
    return time.perf_counter() - t, len(text)


def bench_core(method: str, rule: str | None, moves: int, n: int,
               rng: np.random.Generator) -> list[dict]:
    import nplk_core.dank  # noqa: F401 (imported by the page long before; not timed here)
    import nplk_lab.model as lab
    from nplk_core.kernels import squared_distances

    P0 = {**lab.defaults(), "method": method, "n_samples": n}
    data, _ = lab.prepare_data(P0, lab.CLASSIFICATION)
    grid = lab.make_grid(data.X)
    # what the page keeps per data set (nplk_lab.ui.running.grid_geometry and the reciprocal
    # columns): timed apart, once per data set
    t = time.perf_counter()
    D = squared_distances(grid.points, data.X_train)
    cols = lab.eigenmaps.rule_columns(rule or "nearest", grid.points, data.X_train, D)
    per_data = [time.perf_counter() - t]
    shared = dict(sqdist=D, columns=cols)
    cold, warm, sizes, fits = [], [], [], []
    for _ in range(moves):
        P = {**P0, **_point(method, rng), "max_iter": 2000}
        t = time.perf_counter()
        res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                             method=method)
        fits.append(time.perf_counter() - t)
        if not res.ok:
            continue
        res.kernel  # noqa: B018 (the training kernel: the page has it from the decay plot)
        dt, size = _view_once(res, data, grid, int(rng.integers(1, J_MAX + 1)), rule,
                              shared)
        cold.append(dt)
        sizes.append(size)
        dt, _ = _view_once(res, data, grid, int(rng.integers(1, J_MAX + 1)), rule, shared)
        warm.append(dt)
    label = method + (f" ({rule} rule)" if rule else "")
    out = [dict(view="core, cold fit", method=label, times=cold, extra=max(sizes)),
           dict(view="core, new j", method=label, times=warm, extra=max(sizes))]
    if method == "dank":
        out.insert(0, dict(view="core, new data set: distances + rule columns (once)",
                           method=label, times=per_data, extra=None))
    return out


class PanelTimer:
    """Adds up the time spent in the eigen panel (``nplk_lab.ui.charts.eigen_panel``) during
    one rerun: the view's own share of the page's server time."""

    def __init__(self, charts) -> None:
        self.charts, self.orig, self.total = charts, charts.eigen_panel, 0.0

        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return self.orig(*a, **k)
            finally:
                self.total += time.perf_counter() - t
        charts.eigen_panel = timed

    def close(self) -> None:
        self.charts.eigen_panel = self.orig


def bench_page(moves: int, rng: np.random.Generator) -> list[dict]:
    from bench_live import FitTimer, _draw, _widget, trivial_floor
    from streamlit.testing.v1 import AppTest

    import nplk_lab.ui.charts
    from nplk_lab.serve import stores

    panel = PanelTimer(nplk_lab.ui.charts)
    at = AppTest.from_file(str(ROOT / "pages/1_Classification.py"), default_timeout=600)
    at.query_params["view"] = "spectra"
    at.run()
    if at.exception:
        raise RuntimeError([e.value for e in at.exception])
    n = int(_widget(at, "eigen_index").max)
    clicks, moves_t, click_panel, move_panel = [], [], [], []
    for _ in range(moves):
        j = int(rng.integers(1, min(J_MAX, n) + 1))
        _widget(at, "eigen_index").set_value(j)
        panel.total = 0.0
        t = time.perf_counter()
        at.run(timeout=600)
        clicks.append(time.perf_counter() - t)
        click_panel.append(panel.total)
        assert not at.exception, [e.value for e in at.exception]
    timer, fits = FitTimer(), []
    try:
        for i in range(moves):
            name = ("sigma", "tau")[i % 2]
            stores.cache.clear()
            _widget(at, name).set_value(_draw(name, rng))
            timer.total = panel.total = 0.0
            t = time.perf_counter()
            at.run(timeout=600)
            moves_t.append(time.perf_counter() - t)
            fits.append(timer.total)
            move_panel.append(panel.total)
            assert not at.exception, [e.value for e in at.exception]
    finally:
        timer.close()
        panel.close()
    floor = trivial_floor(moves)
    return [dict(view="page, new j (number input = click)", method="dank", times=clicks,
                 extra=None),
            dict(view="… of which the eigen panel (marked decay plot, maps, figures)",
                 method="dank", times=click_panel, extra=None),
            dict(view="page, slider (σ/τ), stores emptied", method="dank", times=moves_t,
                 extra=None),
            dict(view="… of which the DANK fit", method="dank", times=fits, extra=None),
            dict(view="… of which the eigen panel (eigenpairs, maps, figures)",
                 method="dank", times=move_panel, extra=None),
            dict(view="page, trivial rerun (floor)", method="—", times=floor, extra=None)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--no-page", action="store_true", help="core rows only")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    os.chdir(ROOT)
    rng = np.random.default_rng(args.seed)
    rows = []
    for method, rule in CORE:
        rows += bench_core(method, rule, args.moves, args.n, rng)
    if not args.no_page:
        rows += bench_page(args.moves, rng)
    load = os.getloadavg()[0]
    print(f"\nEigenfunction view, {args.moves} random points per row (seed {args.seed}), "
          f"n = {args.n} (140 training points), 100 × 100 grid; load average {load:.1f} "
          f"on {os.cpu_count()} cores.\n")
    print("| view | method | p50 (s) | p90 (s) | max (s) | figure JSON (kB) | "
          "p90 ≤ 0.5 s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        t = r["times"]
        p90 = percentile(t, 90)
        size = "—" if r["extra"] is None else f"{r['extra'] / 1024:.0f}"
        print(f"| {r['view']} | {r['method']} | {percentile(t, 50):.3f} | {p90:.3f} | "
              f"{max(t):.3f} | {size} | {'met' if p90 <= 0.5 else 'missed'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
