"""A class through ``nplk-lab classroom``: k students opening the Classification page at
once, served by one Streamlit process (the floor: what ``streamlit run app.py`` gives)
and by ``nplk-lab classroom --workers N`` (N processes behind HAProxy).

Each round starts a fresh server of each kind, waits until it answers, opens k browser
contexts (k students: separate cookies and sessions) on the page at the same moment and
records, per student, the seconds from opening the page to the decision surface being
drawn; then the resident memory of the server's processes (workers and HAProxy, psutil).
The kinds alternate within a round so both see the same machine.

    python benchmarks/bench_classroom_workers.py [--students 6] [--workers 2] [--rounds 2]

The ratio classroom / one process is what matters: absolute seconds depend on the
machine's load. Needs HAProxy, Chromium, Playwright and psutil.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

SURFACE_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].some(
    g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'))"""


def rss_mb(pid: int) -> float:
    import psutil

    proc = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)]) / 2**20


def students(pw, chromium: str, url: str, k: int) -> list[float]:
    from _browser import CLASSIFICATION_PATH, VIEWPORT, launch_browser

    browser = launch_browser(pw, chromium)
    try:
        pages = [browser.new_context(viewport=VIEWPORT).new_page() for _ in range(k)]
        starts = []
        for pg in pages:
            starts.append(time.perf_counter())
            pg.goto(url + CLASSIFICATION_PATH, wait_until="commit")
        out = []
        for pg, t0 in zip(pages, starts, strict=True):
            pg.wait_for_function(SURFACE_JS, timeout=300_000, polling=50)
            out.append(time.perf_counter() - t0)
        return out
    finally:
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=6)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

    from _browser import StreamlitServer, find_chromium
    from playwright.sync_api import sync_playwright
    from test_browser_classroom import Classroom

    import nplk_lab.serve.command as command

    chromium = find_chromium()
    if chromium is None or command.find_proxy() is None:
        sys.exit("needs chromium and haproxy (apt-get install chromium haproxy)")
    import test_browser_classroom as tbc

    tbc.WORKERS = args.workers
    rows: dict[str, list] = {"one process": [], f"classroom, {args.workers} workers": []}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        for r in range(args.rounds):
            for kind in rows:
                if kind == "one process":
                    server = StreamlitServer("app.py", cwd=ROOT,
                                             log=Path(tmp) / f"one-{r}.log").__enter__()
                    url, pid, stop = server.url, server.proc.pid, server.stop
                else:
                    room = Classroom(Path(tmp) / f"classroom-{r}.log")
                    room.start()
                    url, pid, stop = room.url, room.proc.pid, room.stop
                try:
                    times = students(pw, chromium, url, args.students)
                    rows[kind].append((times, rss_mb(pid)))
                finally:
                    stop()
                print(f"round {r + 1}, {kind}: median {np.median(times):.1f} s, "
                      f"last {max(times):.1f} s, {rows[kind][-1][1]:.0f} MB", flush=True)

    print(f"\n{args.students} students open Classification at once "
          f"({args.rounds} rounds; seconds from opening to the decision surface)\n")
    print("| server | median s | last student s | ratio (last) | memory MB |")
    print("|---|---|---|---|---|")
    floor = np.median([max(t) for t, _ in rows["one process"]])
    for kind, rs in rows.items():
        med = np.median([np.median(t) for t, _ in rs])
        last = np.median([max(t) for t, _ in rs])
        mem = np.median([m for _, m in rs])
        print(f"| {kind} | {med:.1f} | {last:.1f} | {last / floor:.2f} | {mem:.0f} |")


if __name__ == "__main__":
    main()
