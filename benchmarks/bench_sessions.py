"""A class opening the lab at once: time to the first decision surface for 1 and for k
sessions started together on a fresh server.

Each round launches a new ``streamlit run app.py`` (cold: nothing imported, nothing
cached), waits until it answers, then opens ``k`` browser contexts (separate sessions,
empty caches) on the Classification page at the same moment and records, for each, the
seconds from opening the page to its decision surface being drawn. Rounds alternate
between k = 1 and k = ``--sessions`` so both see the same machine.

    python benchmarks/bench_sessions.py [--sessions 6] [--rounds 2] [--no-snapshot]

The servers find the first-paint snapshot of the page's default state on disk (written
here first if missing, as the first run after an install or an edit does); with
``--no-snapshot`` each server imports scikit-learn and fits the first model itself.

Target (issue 11): the k sessions reach their first charts within 3× a single session's
time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

SURFACE_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].some(
    g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'))"""


def one_round(pw, chromium: str, k: int, tmp: Path, r: int) -> list[float]:
    from test_browser import (
        CLASSIFICATION_PATH,
        VIEWPORT,
        StreamlitServer,
        launch_browser,
    )

    browser = launch_browser(pw, chromium)
    server = StreamlitServer("app.py", cwd=ROOT, log=tmp / f"sessions-{k}-{r}.log")
    try:
        server.start()
        server.wait_healthy()
        pages = []
        for _ in range(k):
            ctx = browser.new_context(viewport=VIEWPORT)
            pages.append(ctx.new_page())
        t0 = time.perf_counter()
        for p in pages:
            p.goto(server.url + CLASSIFICATION_PATH, wait_until="commit")
        done: dict[int, float] = {}
        deadline = t0 + 300
        while len(done) < k and time.perf_counter() < deadline:
            for i, p in enumerate(pages):
                if i not in done and p.evaluate(SURFACE_JS):
                    done[i] = time.perf_counter() - t0
            time.sleep(0.05)
        if len(done) < k:
            raise TimeoutError(f"{k - len(done)} of {k} sessions drew no surface in 300 s")
        return [done[i] for i in range(k)]
    finally:
        server.stop()
        browser.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-snapshot", action="store_true",
                    help="servers without the first-paint snapshot (lab_ui/firstpaint.py): "
                         "every server imports scikit-learn and fits")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    from test_browser import find_chromium

    chromium = find_chromium()
    if chromium is None:
        print("no chromium: apt-get install chromium")
        return 1
    if args.no_snapshot:
        os.environ["NPLK_LAB_FIRST_PAINT"] = "0"  # the servers inherit it
        print("first-paint snapshot: off (NPLK_LAB_FIRST_PAINT=0)", file=sys.stderr)
    else:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_app import prepare_snapshot

        print(f"first-paint snapshot: {prepare_snapshot()}", file=sys.stderr)
    single, many = [], []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            single += one_round(pw, chromium, 1, Path(tmp), r)
            many.append(one_round(pw, chromium, args.sessions, Path(tmp), r))
            print(f"round {r}: single {single[-1]:.1f} s; {args.sessions} sessions "
                  f"{', '.join(f'{t:.1f}' for t in many[-1])} s", file=sys.stderr)
    s = float(np.median(single))
    last = float(np.median([max(m) for m in many]))
    load = os.getloadavg()[0]
    print(f"\nFresh server each round, Classification page, {args.rounds} rounds, "
          f"first-paint snapshot {'off' if args.no_snapshot else 'on disk'}; load "
          f"average {load:.1f} on {os.cpu_count()} cores.\n")
    print("| sessions opened together | first surface: median of the slowest session (s) "
          "| ratio to one session | target |")
    print("|---|---|---|---|")
    print(f"| 1 | {s:.1f} | 1.00 | |")
    print(f"| {args.sessions} | {last:.1f} | {last / s:.2f} | ≤ 3: "
          f"{'met' if last <= 3 * s else 'missed'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
