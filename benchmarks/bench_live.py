"""Live everywhere: server time of a slider move for every method, at random slider values.

For each method, on its page with that page's default data, the page runs in Streamlit's
``AppTest``; then ``--moves`` times one of the method's sliders (in turn) is set to a
value drawn at random from its range (log-uniform on log sliders: uniform over the
slider's log-spaced stops) and the page reruns with the stores emptied, so every move is
a fresh fit, grid, figure and serialisation, as for a user who moves to a value nobody
visited. Printed per method: p50 / p90 / max of the rerun time and of the fit alone,
moves over 0.5 s and over 5 s, and the slowest setting; a trivial page's rerun (one
slider, nothing computed) is measured in the same run as the floor.

    python benchmarks/bench_live.py [--moves 12] [--seed 0] [--only dank,knpl]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGES = {
    "classification": ("pages/1_Classification.py", "method"),
    "regression": ("pages/2_Regression.py", "reg_method"),
    "pairwise": ("pages/3_Pairwise_constraints.py", None),
}

TRIVIAL = """
import streamlit as st
v = st.slider("x", 0.0, 1.0, 0.5)
st.write(v)
"""

#: What each move may change: the method's own numeric settings plus the kernel's.
NUMERIC = ("float", "float_auto", "int")


def _sliders(method: str) -> list[str]:
    import nplk_lab.model as lab

    spec = lab.METHODS[method]
    defaults = lab.defaults()
    out = []
    for name in spec.params:
        s = lab.setting(name)
        shown = all(defaults.get(k) == v for k, v in s.when)  # e.g. KNPL's ADMM controls
        if shown and s.kind in NUMERIC and name != "max_iter" and \
                (s.min is not None or s.options):
            out.append(name)
    return out


def _draw(name: str, rng: np.random.Generator):
    """A random slider value: a random stop of a log slider (log-uniform), else uniform
    over the range on the slider's step."""
    import nplk_lab.model as lab

    s = lab.setting(name)
    grid = list(s.grid())
    if grid:
        return grid[int(rng.integers(len(grid)))]
    if s.kind == "int":
        return int(rng.integers(int(s.min), int(s.max) + 1))
    step = s.step or (s.max - s.min) / 100
    k = int(rng.integers(int(round((s.max - s.min) / step)) + 1))
    return float(np.round(s.min + k * step, 10))


def _widget(at, name: str):
    key = f"w_{name}"
    for finder in (at.select_slider, at.slider, at.number_input):
        try:
            w = finder(key=key)
        except KeyError:
            continue
        return w
    raise KeyError(key)


def percentile(xs, q) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if len(xs) else float("nan")


class FitTimer:
    """Wraps ``lab.fit_method`` and ``lab.fit_pairwise`` to add up the time spent fitting
    during one rerun."""

    def __init__(self) -> None:
        import nplk_lab.model as lab

        self.lab = lab
        self.total = 0.0
        self.orig = {n: getattr(lab, n) for n in ("fit_method", "fit_pairwise")}
        for name, fn in self.orig.items():
            setattr(lab, name, self._wrap(fn))

    def _wrap(self, fn):
        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.total += time.perf_counter() - t
        return timed

    def close(self) -> None:
        for name, fn in self.orig.items():
            setattr(self.lab, name, fn)


def trivial_floor(moves: int) -> list[float]:
    from streamlit.testing.v1 import AppTest

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "trivial.py"
        path.write_text(TRIVIAL)
        at = AppTest.from_file(str(path), default_timeout=60)
        at.run()
        out = []
        for i in range(moves):
            at.slider[0].set_value(0.1 + 0.8 * (i % 2))
            t = time.perf_counter()
            at.run()
            out.append(time.perf_counter() - t)
    return out


def bench_method(method: str, moves: int, rng: np.random.Generator) -> dict:
    from streamlit.testing.v1 import AppTest

    import nplk_lab.model as lab
    from nplk_lab.serve import stores

    page = {"classification": "classification", "regression": "regression",
            "clustering": "pairwise"}[lab.METHODS[method].task]
    script, key = PAGES[page]
    at = AppTest.from_file(str(ROOT / script), default_timeout=600)
    if key:
        at.query_params[key] = method
    at.run()
    if at.exception:
        raise RuntimeError(f"{method}: {[e.value for e in at.exception]}")
    names = _sliders(method)
    times, fits, settings = [], [], []
    timer = FitTimer()
    try:
        for i in range(moves):
            name = names[i % len(names)]
            value = _draw(name, rng)
            stores.cache.clear()
            _widget(at, name).set_value(value)
            timer.total = 0.0
            t = time.perf_counter()
            at.run(timeout=600)
            times.append(time.perf_counter() - t)
            fits.append(timer.total)
            settings.append(f"{name}={value:g}" if isinstance(value, float)
                            else f"{name}={value}")
            if at.exception:
                raise RuntimeError(f"{method} {settings[-1]}: "
                                   f"{[e.value for e in at.exception]}")
    finally:
        timer.close()
    worst = int(np.argmax(times))
    return {"method": method, "page": page, "times": times, "fits": fits,
            "worst": settings[worst], "sliders": names}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated method names")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    os.chdir(ROOT)
    import nplk_lab.model as lab

    methods = [m for m in lab.METHODS if m not in ("svm_cv", "svr_cv", "mkl_uniform")]
    if args.only:
        methods = [m for m in methods if m in args.only.split(",")]
    rng = np.random.default_rng(args.seed)
    floor = trivial_floor(args.moves)
    rows = []
    for m in methods:
        t0 = time.perf_counter()
        rows.append(bench_method(m, args.moves, rng))
        print(f"  {m}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    load = os.getloadavg()[0]
    print(f"\nServer time per slider move, {args.moves} random moves per method (seed "
          f"{args.seed}), stores emptied before each; load average {load:.1f} on "
          f"{os.cpu_count()} cores. Floor: a trivial page's rerun, p50 "
          f"{percentile(floor, 50) * 1000:.0f} ms.\n")
    print("| method | page | sliders | rerun p50 (s) | p90 (s) | max (s) | fit p50 (s) | "
          "fit p90 (s) | > 0.5 s | > 5 s | slowest move | p90 ≤ 0.5 s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, f = r["times"], r["fits"]
        p90 = percentile(t, 90)
        print(f"| {r['method']} | {r['page']} | {', '.join(r['sliders'])} | "
              f"{percentile(t, 50):.3f} | {p90:.3f} | {max(t):.3f} | "
              f"{percentile(f, 50):.3f} | {percentile(f, 90):.3f} | "
              f"{sum(x > 0.5 for x in t)} | {sum(x > 5 for x in t)} | {r['worst']} | "
              f"{'met' if p90 <= 0.5 else 'missed'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
