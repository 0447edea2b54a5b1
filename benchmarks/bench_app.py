"""Speed of the Streamlit app against its targets: a rerun, a browser redraw and a cold start.

    python benchmarks/bench_app.py [--moves 15] [--cold-repeats 3] [--no-browser]

At defaults (clowns n = 200, 100×100 grid):

1. **Server time of a rerun after a slider move** (target ≤ 150 ms median). Streamlit's
   ``AppTest`` runs ``pages/1_Classification.py``; one continuous slider (σ, C, τ: one
   row each) alternates between its default and the next grid value and ``at.run()`` is
   timed. Before each timed run the lab's server-wide stores are emptied
   (``nplk_lab.serve.stores.cache.clear()``, Streamlit's public clear of that cached
   function) so every move is a *fresh* value, as on a slider the user has not visited yet.
   Each timed move is prepared by an untimed run at the starting value (so its data, baseline SVM
   and fit are stored, and its fit is the warm start, as for a user sitting there);
   the timed run then does what a never-visited value needs: the fit (warm-started,
   as in the app), grid values, figures. A "revisited value" row times the same moves
   served from the stores. The second table says where a fresh σ move's time goes.
2. **Browser: slider move → updated chart** (target ≤ 1.5× a trivial page). Headless
   Chromium (Playwright, Debian's ``chromium``) presses ArrowRight/ArrowLeft on a
   focused slider; the page itself stamps ``performance.now()`` at ``keydown`` and at
   the first animation frame where the decision surface's data differ (for the trivial
   page: the written value). The trivial page (one slider + ``st.write`` of its value)
   runs on a second ``streamlit run`` and its moves alternate with the app's so both see
   the same machine load. App rows: walking τ upward (fresh values), and σ alternating
   between two values (served from the server's stores after the first visit). A
   WebSocket hook splits each move into "until the last message before the redraw"
   (server + transport, an upper bound: a busy main thread delays message events) and
   the rest (Plotly drawing the new figures). Floors: the same trivial page with a
   3-point Plotly chart (any page whose chart changes), and the Classification page cut
   down to its method controls and the decision surface (same lab code and caches,
   nothing else on the page). Diagnostics: whether a move
   re-creates the charts, and the redraw cost of the page's own figures (taken from the
   live page) drawn with plotly.py's bundled Plotly.js, as sent and with ``scattergl``
   traces drawn as SVG ``scatter``.
3. **Cold start**: from launching ``streamlit run app.py`` to the decision surface drawn
   on the Classification page (browser already running, fresh browser context);
   target ≤ 3 s, and ≤ 1.25× its floor, alternating with it: a page with one
   slider and a 3-point ``st.plotly_chart``, nothing computed (Streamlit's own start,
   frontend and Plotly). The app finds the first-paint snapshot of the page's default
   state on disk (``nplk_lab/serve/firstpaint.py``; written first if missing, as the first run
   after an install or an edit does); an info row starts it without
   (``NPLK_LAB_FIRST_PAINT=0``: scikit-learn imported and the model fitted). A
   timeline (health, page load, WebSocket messages, Plotly chunk, the server's first
   page run) and the imports and first script run timed in a fresh process say where
   it goes. The browser rows also give each app move against the cut-down page
   (≤ 1.2×). The browser half lives in ``_app_browser.py``.

The machine's load average is printed with the tables: on a shared 2-core machine the
absolute times scale with it, the browser ratio much less.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from _app_browser import WS_HOOK_JS, browser_bench, next_value  # noqa: E402

PAGE = "pages/1_Classification.py"
SERVER_TARGET_MS = 150.0
BROWSER_TARGET_RATIO = 1.5
COLD_TARGET_S = 3.0
FLOOR_TARGET_RATIO = 1.2  # slider move ≤ 1.2× the cut-down surface page
COLD_TARGET_RATIO = 1.25  # cold start ≤ 1.25× the cold-start floor page


# Floor of the cold start: a page with one slider and a 3-point chart (no
# computation, nothing but Streamlit and Plotly). The trace name makes the tests'
# surface probe find it.
COLD_FLOOR_PAGE = """
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(layout="wide")
with st.sidebar:
    st.slider("x", 0, 10, 5)
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 0], name="decision function")))
"""


def median(xs) -> float:
    return float(statistics.median(xs))


def p90(xs) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), 90))


def load() -> str:
    a, b, c = os.getloadavg()
    return f"{a:.2f} / {b:.2f} / {c:.2f} (1/5/15 min) on {os.cpu_count()} cores"


# ---------------------------------------------------------------------------
# 1. server time (AppTest) and where it goes
# ---------------------------------------------------------------------------

class PieceTimer:
    """Wraps module functions so each rerun records the time spent in them."""

    def __init__(self) -> None:
        self.acc: dict[str, float] = defaultdict(float)
        self.fit_info: list[tuple[float, int | None, bool]] = []
        self._undo: list[tuple[object, str, object]] = []

    def wrap(self, mod, name: str, label: str | None = None, key=None) -> None:
        f = getattr(mod, name, None)
        if f is None:
            return
        label = label or name

        @functools.wraps(f)
        def timed(*a, **k):
            t = time.perf_counter()
            try:
                out = f(*a, **k)
            finally:
                lab_ = label if key is None else f"{label} [{key(*a, **k)}]"
                self.acc[lab_] += time.perf_counter() - t
            if name == "fit_method" and out is not None:
                self.fit_info.append((getattr(out, "fit_time", float("nan")),
                                      getattr(out, "n_iter", None),
                                      bool(getattr(out, "warm_started", False))))
            return out

        setattr(mod, name, timed)
        self._undo.append((mod, name, f))

    def install(self) -> None:
        import nplk_lab.figures as fg
        import nplk_lab.model as lab
        import nplk_lab.ui

        for n in ("prepare_data", "fit_method", "fit_baseline_svm", "make_grid",
                  "click_grid"):
            self.wrap(lab, n, f"lab.{n}")
        self.wrap(lab, "grid_values", "lab.grid_values",
                  key=lambda est, grid, **k: type(est).__name__)
        for n in ("decision_surface", "matrix_triptych", "matrix_heatmap", "spectra_figure",
                  "convergence_figure"):
            self.wrap(fg, n, f"figures.{n}")
        self.wrap(nplk_lab.ui, "chart", "nplk_lab.ui.chart (serialise + send)")

    def uninstall(self) -> None:
        for mod, name, f in reversed(self._undo):
            setattr(mod, name, f)
        self._undo.clear()

    def reset(self) -> None:
        self.acc.clear()
        self.fit_info.clear()


def server_bench(moves: int) -> tuple[list[dict], dict[str, list[float]], list]:
    import warnings

    from streamlit.testing.v1 import AppTest

    from nplk_lab.serve import stores

    warnings.filterwarnings("ignore")
    timer = PieceTimer()
    timer.install()
    rows, pieces, fits = [], defaultdict(list), []
    try:
        at = AppTest.from_file(str(ROOT / PAGE), default_timeout=300)
        at.run()
        if at.exception:
            raise RuntimeError(f"{PAGE} raised: {[e.value for e in at.exception]}")
        for name in ("sigma", "C", "tau"):
            v0 = at.select_slider(key=f"w_{name}").value
            v1 = next_value(name, v0)
            fresh, revisit = [], []
            for i in range(moves):
                src, dst = (v0, v1) if i % 2 == 0 else (v1, v0)
                # a user sitting at `src` (everything for it computed and stored, the
                # previous fit kept for warm starts) moves to `dst`, never visited
                stores.cache.clear()
                at.select_slider(key=f"w_{name}").set_value(src)
                at.run()
                timer.reset()
                at.select_slider(key=f"w_{name}").set_value(dst)
                t = time.perf_counter()
                at.run()
                dt = time.perf_counter() - t
                if at.exception:
                    raise RuntimeError(f"{name}: {[e.value for e in at.exception]}")
                fresh.append(dt)
                if name == "sigma":
                    pieces["TOTAL rerun"].append(dt)
                    for k, v in timer.acc.items():
                        pieces[k].append(v)
                    fits.extend(timer.fit_info)
            # the same two values again: now served from the stores
            for i in range(moves):
                at.select_slider(key=f"w_{name}").set_value(v1 if i % 2 == 0 else v0)
                t = time.perf_counter()
                at.run()
                revisit.append(time.perf_counter() - t)
            rows.append({"slider": name, "values": (v0, v1), "fresh": fresh,
                         "revisit": revisit})
            at.select_slider(key=f"w_{name}").set_value(v0)
            at.run()
    finally:
        timer.uninstall()
    return rows, pieces, fits


# ---------------------------------------------------------------------------
# 2. browser latency
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# 3. cold start
# ---------------------------------------------------------------------------

COLD_TIMELINE_JS = """() => {
  const o = performance.timeOrigin, n = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const plotly = res.filter(r => /PlotlyChart|plotly[.]min[.]js/.test(r.name))
    .map(r => r.responseEnd);
  const scripts = res.filter(r => /[.]js$/.test(r.name)).map(r => r.responseEnd);
  const m = window.__msgs || [];
  return {"page requested": o, "HTML + first scripts loaded (DOMContentLoaded)":
            o + n.domContentLoadedEventEnd,
          "first WebSocket message": m.length ? o + m[0] : null,
          "Plotly chunk loaded": plotly.length ? o + Math.max(...plotly) : null,
          "last script chunk loaded": scripts.length ? o + Math.max(...scripts) : null,
          "last WebSocket message": m.length ? o + m[m.length - 1] : null};
}"""


PREPARE_SNAPSHOT = r"""
import sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.filterwarnings("ignore")
from nplk_lab.serve import firstpaint
import nplk_lab.model as lab
path = firstpaint.snapshot_path("classification", lab.defaults())
existed = path.exists()
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1] + "/pages/1_Classification.py", default_timeout=300)
at.run()
print(("present: " if existed else "written now: ") + str(path) if path.exists()
      else "could not be written")
"""


def prepare_snapshot() -> str:
    """The first-paint snapshot of the Classification page at its defaults (what the
    first run after an install or an edit writes; see nplk_lab/serve/firstpaint.py)."""
    r = subprocess.run([sys.executable, "-c", PREPARE_SNAPSHOT, str(ROOT)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    return (r.stdout.strip().splitlines() or ["failed: " + r.stderr[-300:]])[-1]


def cold_start(repeats: int, chromium: str, script: str = "app.py",
               cwd: str | Path = ROOT, path: str | None = None,
               env: dict[str, str] | None = None) -> list[dict[str, float]]:
    """Each repeat: a new server process and a fresh browser context (empty cache).
    Returns per repeat the seconds since the launch of ``streamlit run`` of each event.
    ``env``: variables set for the server process."""
    from _browser import (
        CLASSIFICATION_PATH,
        VIEWPORT,
        StreamlitServer,
        launch_browser,
        wait_surface,
    )
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        browser = launch_browser(pw, chromium)
        for r in range(repeats):
            ctx = browser.new_context(viewport=VIEWPORT)
            ctx.add_init_script(WS_HOOK_JS)
            page = ctx.new_page()
            server = StreamlitServer(script, cwd=cwd, log=Path(tmp) / f"cold{r}.log")
            env = {"NPLK_LAB_TIMING": "1", **(env or {})}
            saved = {k: os.environ.get(k) for k in env}
            try:
                os.environ.update(env)
                t0 = time.time()
                try:
                    server.start()
                finally:  # the server process has its own copy now
                    for k, v in saved.items():
                        os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
                healthy = server.wait_healthy()
                page.goto(server.url + (CLASSIFICATION_PATH if path is None else path),
                          wait_until="commit")
                wait_surface(page, timeout_ms=120_000)
                t_end = time.time()
                events = page.evaluate(COLD_TIMELINE_JS)
            finally:
                server.stop()
                ctx.close()
            line = {"server answers /_stcore/health": healthy}
            runs = re.findall(r"run \w+: ([\d.]+) → ([\d.]+) \(epoch s\)",
                              (Path(tmp) / f"cold{r}.log").read_text(errors="replace"))
            if runs:
                line["server: first page run starts (after its imports)"] = \
                    float(runs[0][0]) - t0
                line["server: first page run ends"] = float(runs[0][1]) - t0
            for k, v in events.items():
                if v is not None:
                    line[k] = v / 1e3 - t0
            line["decision surface drawn"] = t_end - t0
            out.append(line)
        browser.close()
    return out


COLD_PIECES = r"""
import json, sys, time, warnings
t0 = time.perf_counter()
import streamlit
t1 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import nplk_lab.ui
t2 = time.perf_counter()
from streamlit.testing.v1 import AppTest
warnings.filterwarnings("ignore")
at = AppTest.from_file(sys.argv[1] + "/pages/1_Classification.py", default_timeout=300)
t3 = time.perf_counter()
at.run()
t4 = time.perf_counter()
at.run()
t5 = time.perf_counter()
print(json.dumps({"import streamlit": t1 - t0,
                  "import nplk_lab.ui (its components, model, figures; no sklearn)": t2 - t1,
                  "scikit-learn imported by the first run": "sklearn" in sys.modules,
                  "first run of the page (from the first-paint snapshot when present)": t4 - t3,
                  "second run (cached)": t5 - t4}))
"""


def cold_pieces() -> dict[str, float]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", COLD_PIECES, str(ROOT)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    wall = time.perf_counter() - t
    pieces = json.loads(r.stdout.strip().splitlines()[-1])
    # the slowest top-level imports (self + children, cumulative microseconds)
    tops = []
    for line in r.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].startswith(" ") and not parts[2].startswith("  "):
            try:
                tops.append((int(parts[1]), parts[2].strip()))
            except ValueError:
                pass
    pieces["__top_imports"] = sorted(tops, reverse=True)[:8]
    pieces["__wall"] = wall
    return pieces


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------

def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("pass" if ok else "FAIL")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=15, help="slider moves per row (≥ 15)")
    ap.add_argument("--cold-repeats", type=int, default=3)
    ap.add_argument("--no-browser", action="store_true", help="server rows only")
    ap.add_argument("--no-bare-cold", action="store_true",
                    help="skip the cold starts without the first-paint snapshot")
    ap.add_argument("--only", choices=("server", "browser", "cold"), action="append",
                    help="run only these parts (repeatable); default: all")
    args = ap.parse_args()
    parts = set(args.only or ("server", "browser", "cold"))
    if args.no_browser:
        parts &= {"server"}

    print(f"load average at start: {load()}\n")
    table: list[tuple[str, str, str, str]] = []

    # 1. server
    rows, pieces, fits = server_bench(args.moves) if "server" in parts else ([], {}, [])
    for r in rows:
        f = np.asarray(r["fresh"]) * 1e3
        v0, v1 = r["values"]
        ok = median(f) <= SERVER_TARGET_MS
        table.append((f"server rerun, {r['slider']} {v0:g}↔{v1:g}, fresh value "
                      f"(median / p90, n={f.size})",
                      f"{median(f):.0f} / {p90(f):.0f} ms", f"≤ {SERVER_TARGET_MS:.0f} ms",
                      verdict(ok)))
    for r in rows:
        f = np.asarray(r["revisit"]) * 1e3
        v0, v1 = r["values"]
        table.append((f"server rerun, {r['slider']} {v0:g}↔{v1:g}, revisited value "
                      f"(median / p90, n={f.size})",
                      f"{median(f):.0f} / {p90(f):.0f} ms", "(info)", ""))
    print(f"load average after the server rows: {load()}")

    # 2 + 3. browser
    from _browser import find_chromium

    chromium = None
    if parts & {"browser", "cold"}:
        try:
            import playwright.sync_api  # noqa: F401
            chromium = find_chromium()
        except ImportError:
            chromium = None
        if chromium is None:
            print("browser rows skipped: Playwright or chromium missing")
    cold, binfo = None, {}
    if chromium and "browser" in parts:
        lat, binfo = browser_bench(args.moves, chromium)
        triv = median(lat["trivial"])
        for name, label in (("tau_fresh", "τ walking up, fresh values"),
                            ("sigma_revisit", "σ one stop either side, revisited values")):
            xs = lat[name]
            if not xs:
                continue
            ratio = median(xs) / triv
            table.append((f"browser: slider → updated chart, {label} (median, n={len(xs)})",
                          f"{median(xs):.0f} ms = {ratio:.2f}× trivial",
                          f"≤ {BROWSER_TARGET_RATIO}× trivial",
                          verdict(ratio <= BROWSER_TARGET_RATIO)))
            if lat["lab_floor"]:
                r_floor = median(xs) / median(lat["lab_floor"])
                table.append(("  the same against the cut-down surface page (floor row "
                              "below)", f"{r_floor:.2f}× the cut-down page",
                              f"≤ {FLOOR_TARGET_RATIO}×", verdict(r_floor <= FLOOR_TARGET_RATIO)))
            data = lat[name + ":data"]
            draw = [a - b for a, b in zip(xs, data, strict=True)]
            table.append((f"  of which: keydown → last message before the redraw / "
                          f"→ redraw ({name})",
                          f"{median(data):.0f} / {median(draw):.0f} ms", "(info)", ""))
        table.append((f"browser: trivial page round trip (median / p90, "
                      f"n={len(lat['trivial'])})",
                      f"{triv:.0f} / {p90(lat['trivial']):.0f} ms", "(reference)", ""))
        tc = lat["trivial_chart"]
        table.append((f"browser: trivial page + 3-point Plotly chart (median, n={len(tc)})",
                      f"{median(tc):.0f} ms = {median(tc) / triv:.2f}× trivial", "(floor)",
                      ""))
        lf = lat["lab_floor"]
        table.append((f"browser: the page cut to its method controls + decision surface, "
                      f"σ one stop either side, revisited (median, n={len(lf)})",
                      f"{median(lf):.0f} ms = {median(lf) / triv:.2f}× trivial", "(floor)",
                      ""))
        print(f"load average after the browser rows: {load()}")
    if chromium and "cold" in parts:
        # the app and the floor page alternate, so both see the same machine load
        print(f"first-paint snapshot: {prepare_snapshot()}")
        cold, floor, bare = [], [], []
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "cold_floor.py").write_text(textwrap.dedent(COLD_FLOOR_PAGE))
            for _ in range(args.cold_repeats):
                cold += cold_start(1, chromium)
                floor += cold_start(1, chromium, "cold_floor.py", cwd=tmp, path="/")
                if not args.no_bare_cold:
                    bare += cold_start(1, chromium, env={"NPLK_LAB_FIRST_PAINT": "0"})
        tot = [c["decision surface drawn"] for c in cold]
        ftot = [c["decision surface drawn"] for c in floor]
        ratio = median(tot) / median(ftot)
        table.append((f"cold start: launch → first chart, snapshot on disk (median of "
                      f"{len(tot)}; all: {', '.join(f'{t:.1f}' for t in tot)} s)",
                      f"{median(tot):.2f} s = {ratio:.2f}× floor",
                      f"≤ {COLD_TARGET_RATIO}× floor", verdict(ratio <= COLD_TARGET_RATIO)))
        if bare:
            btot = [c["decision surface drawn"] for c in bare]
            table.append((f"cold start without the snapshot (NPLK_LAB_FIRST_PAINT=0: imports "
                          f"scikit-learn and fits; median of {len(btot)}; "
                          f"all: {', '.join(f'{t:.1f}' for t in btot)} s)",
                          f"{median(btot):.2f} s = {median(btot) / median(ftot):.2f}× floor",
                          "(info)", ""))
        table.append((f"cold start floor: a page with one slider and a 3-point Plotly "
                      f"chart, nothing computed (median of {len(ftot)}; "
                      f"all: {', '.join(f'{t:.1f}' for t in ftot)} s)",
                      f"{median(ftot):.2f} s", "(floor)", ""))
        print(f"load average after the cold starts: {load()}")

    print("\n| metric | value | target | result |\n|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")

    # where the time of a fresh σ move goes
    if pieces:
        _print_pieces(pieces, fits)
    _print_browser_info(chromium, binfo, cold)
    print(f"\nload average at the end: {load()}")
    return 0


def _print_pieces(pieces: dict, fits: list) -> None:
    print("\nWhere a fresh σ move's server time goes (median ms per rerun; "
          "pieces can nest: lab.fit_method includes the estimator fit)\n")
    print("| piece | median ms | share of total |\n|---|---|---|")
    total = median(pieces["TOTAL rerun"]) * 1e3
    measured = 0.0
    for k, v in sorted(pieces.items(), key=lambda kv: -median(kv[1])):
        m = median(v) * 1e3
        if k != "TOTAL rerun" and len(v) == len(pieces["TOTAL rerun"]):
            measured += m
        print(f"| {k} | {m:.1f} | {m / total:.0%} |")
    if fits:
        ft = [f[0] * 1e3 for f in fits]
        its = [f[1] for f in fits if f[1] is not None]
        print(f"| (inside lab.fit_method: estimator .fit) | {median(ft):.1f} | "
              f"{median(ft) / total:.0%} |")
        print(f"\nσ-move fits: iterations {sorted(set(its))}, warm-started: "
              f"{sum(f[2] for f in fits)}/{len(fits)}")
    print(f"\nrest of the script (widgets, state, URL, exports, AppTest): "
          f"≈ {total - measured:.1f} ms")


def _print_browser_info(chromium, binfo: dict, cold) -> None:
    if chromium and binfo:
        if "remount" in binfo:
            new_, all_, gl = binfo["remount"]
            print(f"\nBrowser: one σ move re-created {new_} of {all_} Plotly charts "
                  f"(new DOM nodes) and {gl} WebGL contexts.")
        if "redraw" in binfo:
            print(f"\nBrowser redraw cost of the page's figures (Plotly.newPlot into a "
                  f"fresh div, median of 5, plotly.js {binfo.get('plotly.js')}):\n")
            print("| figure | ms |\n|---|---|")
            for k, v in binfo["redraw"].items():
                print(f"| {k} | {v:.0f} |")
    if cold is not None:
        print("\nCold start timeline (s since `streamlit run`, median over repeats):\n")
        keys = [k for k in cold[0] if all(k in c for c in cold)]
        for k in sorted(keys, key=lambda k: median([c[k] for c in cold])):
            print(f"- {k}: {median([c[k] for c in cold]):.2f}")
        pieces_c = cold_pieces()
        print("\nCold-start pieces of the server in a fresh process (s):\n")
        for k, v in pieces_c.items():
            if not k.startswith("__"):
                print(f"- {k}: {('yes' if v else 'no') if isinstance(v, bool) else f'{v:.2f}'}")
        print("- slowest top-level imports (cumulative, s): " + ", ".join(
            f"{name} {us / 1e6:.2f}" for us, name in pieces_c["__top_imports"]))


if __name__ == "__main__":
    sys.exit(main())
