"""A class opening the lab at once: time to the first decision surface for 1 and for k
sessions started together on a fresh server.

Each round launches a new ``streamlit run app.py`` (cold: nothing imported, nothing
cached), waits until it answers, then opens ``k`` browser contexts (separate sessions,
empty caches) on the Classification page at the same moment and records, for each, the
seconds from opening the page to its decision surface being drawn. Rounds alternate
between k = 1 and k = ``--sessions`` so both see the same machine.

    python benchmarks/bench_sessions.py [--sessions 6] [--rounds 2] [--floor] [--no-snapshot]

The servers find the first-paint snapshot of the page's default state on disk (written
here first if missing, as the first run after an install or an edit does); with
``--no-snapshot`` each server imports scikit-learn and fits the first model itself.

Target: the k sessions reach their first charts within 3× a single session's
time.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

SERVER_DONE: list[float] = []  # per round: the server's last first run ended (s)

# Added to every page before it loads: record the time (epoch ms) at which a decision
# surface is first on the page, seen by a MutationObserver (Plotly adds its nodes after
# it has set the plot's data), so the page times itself and nothing polls it.
SURFACE_AT_JS = """
(() => {
  const drawn = () => (SURFACE_FINGERPRINT_JS)() !== null;
  const watch = () => {
    const obs = new MutationObserver(() => {
      if (window.__surfaceAt === undefined && drawn()) {
        window.__surfaceAt = performance.timeOrigin + performance.now();
        obs.disconnect();
      }
    });
    obs.observe(document.documentElement, {childList: true, subtree: true});
  };
  if (document.documentElement) watch();
  else document.addEventListener('readystatechange', watch, {once: true});
})();
"""


def _surface_at_js() -> str:
    """:data:`SURFACE_AT_JS` with the tests' surface probe (drawn: a fingerprint)."""
    from _browser import SURFACE_FINGERPRINT_JS

    return SURFACE_AT_JS.replace("SURFACE_FINGERPRINT_JS", SURFACE_FINGERPRINT_JS)


# The servers' page runs end (the NPLK_LAB_TIMING log line) around the time their charts
# draw; wait for the line rather than for a fixed time.
RUN_END = re.compile(r"run classification: [\d.]+ → ([\d.]+) \(epoch s\)")


def run_ends(log: Path, k: int, timeout_s: float = 60.0) -> list[float]:
    """The end times of the first ``k`` page runs the server logged, once it has logged
    them (checked every 20 ms up to ``timeout_s``: the log file announces nothing)."""
    deadline = time.monotonic() + timeout_s
    while True:
        ends = [float(e) for e in RUN_END.findall(log.read_text(errors="replace"))]
        if len(ends) >= k or time.monotonic() > deadline:
            return ends[:k]
        time.sleep(0.02)


def one_round(pw, chromium: str, k: int, tmp: Path, r: int, floor: bool = False
              ) -> list[float]:
    from _browser import (
        CLASSIFICATION_PATH,
        VIEWPORT,
        StreamlitServer,
        launch_browser,
    )

    browser = launch_browser(pw, chromium)
    if floor:  # the cold-start floor page of bench_app.py (one slider, a 3-point chart)
        from bench_app import COLD_FLOOR_PAGE

        (tmp / "cold_floor.py").write_text(textwrap.dedent(COLD_FLOOR_PAGE))
        server = StreamlitServer("cold_floor.py", cwd=tmp,
                                 log=tmp / f"floor-sessions-{k}-{r}.log")
    else:
        server = StreamlitServer("app.py", cwd=ROOT, log=tmp / f"sessions-{k}-{r}.log")
    try:
        server.start()
        server.wait_healthy()
        pages = []
        for _ in range(k):
            ctx = browser.new_context(viewport=VIEWPORT)
            ctx.add_init_script(_surface_at_js())
            pages.append(ctx.new_page())
        t0_epoch = time.time()
        for p in pages:
            p.goto(server.url + ("/" if floor else CLASSIFICATION_PATH), wait_until="commit")
        done = []
        for i, p in enumerate(pages):  # each page timed itself; these only wait
            try:
                p.wait_for_function("() => window.__surfaceAt !== undefined",
                                    timeout=300_000, polling=100)
            except Exception as e:
                raise TimeoutError(f"session {i + 1} of {k} drew no surface in 300 s") from e
            done.append(p.evaluate("() => window.__surfaceAt") / 1000 - t0_epoch)
        if not floor:  # the server's share: when its last first page run ended
            ends = run_ends(server.log_path, k)
            SERVER_DONE.append(max(ends) - t0_epoch if ends else float("nan"))
        return done
    finally:
        server.stop()
        browser.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--floor", action="store_true",
                    help="also the cold-start floor page of bench_app.py (one slider, a "
                         "3-point chart), single and k sessions, alternating")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="servers without the first-paint snapshot (nplk_lab/serve/firstpaint.py): "
                         "every server imports scikit-learn and fits")
    args = ap.parse_args()
    from _browser import find_chromium
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        print("no chromium: apt-get install chromium")
        return 1
    os.environ["NPLK_LAB_TIMING"] = "1"  # the servers log their page runs
    if args.no_snapshot:
        os.environ["NPLK_LAB_FIRST_PAINT"] = "0"  # the servers inherit it
        print("first-paint snapshot: off (NPLK_LAB_FIRST_PAINT=0)", file=sys.stderr)
    else:
        from bench_app import prepare_snapshot

        print(f"first-paint snapshot: {prepare_snapshot()}", file=sys.stderr)
    single, many, f_single, f_many = [], [], [], []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            single += one_round(pw, chromium, 1, Path(tmp), r)
            many.append(one_round(pw, chromium, args.sessions, Path(tmp), r))
            print(f"round {r}: single {single[-1]:.1f} s; {args.sessions} sessions "
                  f"{', '.join(f'{t:.1f}' for t in many[-1])} s", file=sys.stderr)
            if args.floor:
                f_single += one_round(pw, chromium, 1, Path(tmp), r, floor=True)
                f_many.append(one_round(pw, chromium, args.sessions, Path(tmp), r,
                                        floor=True))
                print(f"round {r} floor page: single {f_single[-1]:.1f} s; "
                      f"{args.sessions} sessions "
                      f"{', '.join(f'{t:.1f}' for t in f_many[-1])} s", file=sys.stderr)
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
    if f_single:
        fs, fm = float(np.median(f_single)), float(np.median([max(m) for m in f_many]))
        print(f"| floor page, 1 | {fs:.1f} | 1.00 | |")
        print(f"| floor page, {args.sessions} | {fm:.1f} | {fm / fs:.2f} | (what "
              f"{args.sessions} browsers on this machine cost a page that computes "
              "nothing) |")
    srv = [t for t in SERVER_DONE[1::2] if np.isfinite(t)]
    if srv:
        print(f"\nThe server's share with {args.sessions} sessions: its last first page run "
              f"ended {float(np.median(srv)):.1f} s after the pages were opened (median over "
              f"rounds; all: {', '.join(f'{t:.1f}' for t in srv)} s); the rest is the "
              "browsers' loading and drawing.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
