"""Live everywhere: server time of a slider move for every method, at random slider values.

For each method, on its page with that page's default data, the page runs in Streamlit's
``AppTest``; then ``--moves`` times one of the method's sliders (in turn) is set to a
value drawn at random from its range (log-uniform on log sliders: uniform over the
slider's log-spaced stops) and the page reruns with the stores emptied, so every move is
a fresh fit, grid, figure and serialisation, as for a user who moves to a value nobody
visited. Printed per method: p50 / p90 / max of the rerun time (wall; and the p90 of
the process's CPU time over the rerun, which a shared machine's load inflates less),
p50 / p90 of the fit alone,
moves over 0.5 s and over 5 s, and the slowest setting; a trivial page's rerun (one
slider, nothing computed) is measured in the same run as the floor.

Floor per move: right after each move's rerun, scikit-learn's plain SVC (classification
page) or SVR (regression page) is fitted on the page's training data at the page's
current C and σ (and ε), the values the sliders hold after the move; the table gives its
p50 and the ratio of the method's rerun p90 to it (the pairwise page has no plain
counterpart: "–").

    python benchmarks/bench_live.py [--moves 12] [--seed 0] [--only dank,knpl] [--detail]

Before / after in one run: ``--before DIR`` measures each method twice, in child
processes, once with the code and pages of the checkout ``DIR`` (e.g. a ``git worktree``
of main) and once with this one, alternating which goes first from one method to the
next, with the same random moves; the table then has both:

    git worktree add --detach /tmp/base 6029498
    python benchmarks/bench_live.py --seed 1 --moves 24 --before /tmp/base

``--root DIR`` measures the checkout ``DIR`` instead of this one (what the children use).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if "--root" in sys.argv[:-1]:  # the checkout to measure: its code, not this one's
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
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


_FLOOR_DATA: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def _floor_fit(page: str, at) -> float:
    """Seconds of scikit-learn's plain SVC / SVR fit on the page's default training data
    at the page's current C, sigma (and epsilon); NaN on the pairwise page."""
    import nplk_lab.model as lab

    if page not in ("classification", "regression"):
        return float("nan")
    from sklearn.svm import SVC, SVR

    from nplk_core.kernels import sigma_to_gamma

    task = lab.CLASSIFICATION if page == "classification" else lab.REGRESSION
    if page not in _FLOOR_DATA:
        data, _ = lab.prepare_data(lab.defaults(), task)
        _FLOOR_DATA[page] = (data.X_train, data.y_train)
    X, y = _FLOOR_DATA[page]
    values = {}
    for name in ("C", "sigma", "epsilon"):
        try:
            values[name] = float(_widget(at, name).value)
        except (KeyError, TypeError, ValueError):
            values[name] = float(lab.defaults()[name])
    gamma = sigma_to_gamma(values["sigma"])
    est = (SVC(C=values["C"], gamma=gamma) if page == "classification" else
           SVR(C=values["C"], gamma=gamma, epsilon=values["epsilon"]))
    t = time.perf_counter()
    est.fit(X, y)
    return time.perf_counter() - t


def _state(at, names: list[str]) -> str:
    out = []
    for name in names:
        try:
            v = _widget(at, name).value
        except KeyError:
            continue
        out.append(f"{name}={v:g}" if isinstance(v, float) else f"{name}={v}")
    return ", ".join(out)


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
    times, fits, settings, floors, states, cpus = [], [], [], [], [], []
    timer = FitTimer()
    try:
        for i in range(moves):
            name = names[i % len(names)]
            value = _draw(name, rng)
            stores.cache.clear()
            _widget(at, name).set_value(value)
            timer.total = 0.0
            t, c = time.perf_counter(), time.process_time()
            at.run(timeout=600)
            times.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            fits.append(timer.total)
            settings.append(f"{name}={value:g}" if isinstance(value, float)
                            else f"{name}={value}")
            if at.exception:
                raise RuntimeError(f"{method} {settings[-1]}: "
                                   f"{[e.value for e in at.exception]}")
            floors.append(_floor_fit(page, at))
            states.append(_state(at, names))
    finally:
        timer.close()
    worst = int(np.argmax(times))
    return {"method": method, "page": page, "times": times, "fits": fits,
            "worst": settings[worst], "sliders": names, "floors": floors,
            "moves": settings, "states": states, "cpus": cpus}


def _rows_in_child(root: Path, method: str, args) -> dict:
    """One method's moves in a child process measuring the checkout ``root``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--root", str(root), "--only",
           method, "--moves", str(args.moves), "--seed", str(args.seed), "--json"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt_row(r: dict) -> str:
    t, f = r["times"], r["fits"]
    p90 = percentile(t, 90)
    floor = percentile([x for x in r["floors"] if np.isfinite(x)], 50)
    ratio = f"{p90 / floor:,.0f}" if np.isfinite(floor) and floor > 0 else "–"
    floor_ms = f"{floor * 1000:.1f}" if np.isfinite(floor) else "–"
    return (f"{percentile(t, 50):.3f} | {p90:.3f} | {max(t):.3f} | "
            f"{percentile(r['cpus'], 90):.3f} | "
            f"{percentile(f, 50):.3f} | {percentile(f, 90):.3f} | {floor_ms} | {ratio} | "
            f"{sum(x > 0.5 for x in t)} | {sum(x > 5 for x in t)} | {r['worst']} | "
            f"{'met' if p90 <= 0.5 else 'missed'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated method names")
    ap.add_argument("--root", default=None, help="measure this checkout's code and pages")
    ap.add_argument("--before", default=None,
                    help="also measure this checkout (before), alternating, in child "
                         "processes")
    ap.add_argument("--detail", action="store_true", help="print every move")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    os.chdir(ROOT)
    import nplk_lab.model as lab

    methods = [m for m in lab.METHODS if m not in ("svm_cv", "svr_cv", "mkl_uniform")]
    if args.only:
        methods = [m for m in methods if m in args.only.split(",")]
    if args.json:
        res = bench_method(methods[0], args.moves, np.random.default_rng(args.seed))
        print(json.dumps(res))
        return 0
    load0 = os.getloadavg()[0]
    floor = trivial_floor(args.moves)
    rows, before = [], {}
    for i, m in enumerate(methods):
        t0 = time.perf_counter()
        if args.before:
            # the same moves for both (each child draws them from --seed); which code
            # goes first alternates, so a load that drifts falls on both alike
            order = [("before", Path(args.before)), ("after", ROOT)]
            got = {tag: _rows_in_child(root, m, args)
                   for tag, root in (order if i % 2 == 0 else order[::-1])}
            before[m] = got["before"]
            rows.append(got["after"])
        else:
            rows.append(bench_method(m, args.moves, np.random.default_rng(args.seed)))
        print(f"  {m}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    load = os.getloadavg()[0]
    print(f"\nServer time per slider move, {args.moves} random moves per method (seed "
          f"{args.seed}), stores emptied before each; load average {load0:.1f} at the start, "
          f"{load:.1f} at the end, on {os.cpu_count()} cores. Floors: a trivial page's "
          f"rerun, p50 {percentile(floor, 50) * 1000:.0f} ms; per move, the plain SVC / SVR "
          "fit at the page's C, σ (ε) after the move.\n")
    head = ("rerun p50 (s) | p90 (s) | max (s) | CPU p90 (s) | fit p50 (s) | fit p90 (s) | "
            "floor p50 (ms) | p90 / floor | > 0.5 s | > 5 s | slowest move | p90 ≤ 0.5 s")
    ncol = head.count("|") + 1
    if args.before:
        print(f"| method | code | {head} |")
        print("|---" * (ncol + 2) + "|")
        for r in rows:
            print(f"| {r['method']} | before | {_fmt_row(before[r['method']])} |")
            print(f"| {r['method']} | after | {_fmt_row(r)} |")
    else:
        print(f"| method | page | sliders | {head} |")
        print("|---" * (ncol + 3) + "|")
        for r in rows:
            print(f"| {r['method']} | {r['page']} | {', '.join(r['sliders'])} | "
                  f"{_fmt_row(r)} |")
    if args.detail:
        for r in rows:
            runs = [("", r)] + ([("before: ", before[r["method"]])] if args.before else [])
            for tag, rr in runs:
                print(f"\n{tag}{rr['method']}:")
                moves = zip(rr["times"], rr["fits"], rr["floors"], strict=True)
                for k, (t, f, fl) in enumerate(moves):
                    print(f"  {k:2d} {t:7.3f} s (fit {f:6.3f}, floor {fl * 1e3:6.1f} ms) "
                          f"{rr['moves'][k]:24s} -> {rr['states'][k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
