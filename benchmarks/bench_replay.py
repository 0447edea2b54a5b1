"""Training replay: server time to build the frames and the browser's playback rate,
per method at the page defaults.

    python benchmarks/bench_replay.py [--runs 3] [--no-browser]

Server (median of ``--runs``): the fit, ``replay_frames`` (the model at every kept
iteration on the page's 100 × 100 grid or 400-point line, with scores and the pooled
learned matrix), ``replay_figure`` + ``replay_json`` (the figure with its frames) and
the payload sent to the browser once.

Browser (headless Chromium, Debian's, through Playwright; skipped when missing): the
player (``nplk_lab/ui/components/replay.js``) on a static page with the same Plotly.js,
fed each method's JSON: the time to paint one frame (all frames back to back, median ms) and the
playback rate of Play at the player's 15 frames/s (frames drawn / elapsed). The real
page is measured by ``tests/test_browser_replay.py`` (prints its rate).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import nplk_lab.figures as fg  # noqa: E402
import nplk_lab.model as lab  # noqa: E402

METHODS = [("dank", lab.CLASSIFICATION), ("knpl", lab.CLASSIFICATION),
           ("onk", lab.CLASSIFICATION), ("lab_rbf", lab.CLASSIFICATION),
           ("dank_svr", lab.REGRESSION), ("lab_rbf_reg", lab.REGRESSION)]


def server_row(method: str, task: str, runs: int) -> dict:
    P = {**lab.defaults(), "method": method, "reg_method": method}
    data, _ = lab.prepare_data(P, task)
    grid = lab.make_grid(data.X, 100) if data.n_features == 2 else lab.line_points(data.X)
    fit_t, frame_t, fig_t = [], [], []
    for _ in range(runs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                                 method=method)
            t1 = time.perf_counter()
            rp = lab.replay_frames(res, data, grid, P)
            t2 = time.perf_counter()
            text = fg.replay_json(fg.replay_figure(rp, data.X_train, data.y_train,
                                                   data.X_test, data.y_test))
            t3 = time.perf_counter()
        fit_t.append(t1 - t0)
        frame_t.append(t2 - t1)
        fig_t.append(t3 - t2)
    return {"method": lab.METHODS[method].label + (" (reg.)" if task == lab.REGRESSION
                                                   and method == "lab_rbf_reg" else ""),
            "iterations": rp.n_iter, "frames": len(rp.frames),
            "grid": "100×100" if data.n_features == 2 else f"{len(grid)} pts",
            "fit": statistics.median(fit_t), "frames_s": statistics.median(frame_t),
            "figure_s": statistics.median(fig_t), "mb": len(text) / 1e6, "json": text,
            "notes": "; ".join(m.text for m in rp.messages)}


HARNESS = """<html><body style="background:white"><div id="p" style="width:1200px"></div>
<script src="file://{plotly}"></script><script>{player}</script></body></html>"""


def browser_rows(rows: list[dict]) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("(no Playwright: browser columns skipped)")
        return
    from _browser import find_chromium, launch_browser

    import nplk_lab.ui.components.chart as chart_component
    from nplk_lab.ui.components import browser_files

    chromium = find_chromium()
    if chromium is None:
        print("(no chromium: browser columns skipped)")
        return
    plotly = Path(chart_component._plotly_js_folder()) / "plotly.min.js"
    player = browser_files.script("replay.js")   # the player, its entry playReplay
    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "replay.html"
        page_path.write_text(HARNESS.format(plotly=plotly, player=player))
        with sync_playwright() as pw:
            browser = launch_browser(pw, chromium)
            pg = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            pg.goto(page_path.as_uri())
            pg.wait_for_function("window.Plotly !== undefined")
            for row in rows:
                pg.evaluate("""([fig]) => { const p = document.getElementById('p');
                  p.innerHTML = '';
                  playReplay({data: {src: '', figure: fig, step: -1, height: 560,
                                          config: {}, fps: 15},
                                   parentElement: p, setStateValue: () => {}}); }""",
                            [row["json"]])
                pg.wait_for_selector(".nplk-replay[data-drawn]")
                row["paint_ms"] = pg.evaluate("""() => {
                  const root = document.querySelector('.nplk-replay');
                  const n = root.__fig.frames.length, ts = [];
                  for (let r = 0; r < 3; r++) for (let k = 0; k < n; k++) {
                    const t = performance.now(); draw(root, k); ts.push(performance.now() - t);
                  }
                  ts.sort((a, b) => a - b); return ts[Math.floor(ts.length / 2)]; }""")
                pg.evaluate("""() => { const root = document.querySelector('.nplk-replay');
                  step(root, 0, false); start(root); }""")
                pg.wait_for_function("() => !document.querySelector('.nplk-replay').__playing",
                                     timeout=60_000)
                s = pg.evaluate("() => window.__nplkReplay")
                row["fps"] = (s["drawn"] - 1) / max((s["t1"] - s["t0"]) / 1000, 1e-9)
            browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rows = [server_row(m, t, args.runs) for m, t in METHODS]
    if not args.no_browser:
        browser_rows(rows)
    head = ("| method | iterations | frames | grid | fit | frames (server) | figure + JSON "
            "| payload | paint / frame | playback |")
    print(head)
    print("|---" * 10 + "|")
    for r in rows:
        print(f"| {r['method']} | {r['iterations']} | {r['frames']} | {r['grid']} "
              f"| {r['fit'] * 1e3:.0f} ms | {r['frames_s'] * 1e3:.0f} ms "
              f"| {r['figure_s'] * 1e3:.0f} ms | {r['mb']:.2f} MB "
              f"| {r.get('paint_ms', float('nan')):.1f} ms "
              f"| {r.get('fps', float('nan')):.1f} frames/s |")
        if r["notes"]:
            print(f"|   ({r['notes']}) |")


if __name__ == "__main__":
    main()
