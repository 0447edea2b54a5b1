"""CPU of one Classification page run in a Streamlit worker, the stores warm: what a
student's slider move costs the worker's interpreter when its fit and figures are
already there (the students who follow the teacher share them).

Streamlit's ``AppTest`` runs ``pages/1_Classification.py`` in this process. The moves
are τ and σ back and forth over two values each (every fit, grid and figure computed in
the first round, then served from the stores). Each timed run's CPU is the script
thread's CPU time (``time.thread_time`` around Streamlit's ``ScriptRunner._run_script``):
what one page run costs, without the websocket and the event loop (those run in the
worker's main thread; ``bench_classroom.py --profile --gil`` sees them). Under
``AppTest`` there is no Streamlit runtime, so the components are declared again on each
run (in a server, once: ``once_per_runtime``); that part is the same before and after.

    python benchmarks/bench_page_run_cpu.py [--runs 40] [--fresh] [--profile FILE]
        [--root CHECKOUT]

``--fresh``: each timed move goes to a τ not visited before, as an explorer's does: its
fit (in the fit pool's process when the pool runs it, else in this thread), grid values,
score table and figures are new.

``--root CHECKOUT``: that checkout's page and lab (imported first), e.g. main's for a
before/after pair run with the same interpreter and the same load.

``--profile FILE``: the timed runs under cProfile, the 80 functions with the most
cumulative time, then the lab's 60, written to FILE.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if "--root" in sys.argv:        # before anything of the lab is imported
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
PAGE = "pages/1_Classification.py"


def moves() -> list[tuple[str, str]]:
    """(widget key, value) of the moves, two values of τ and of σ, alternating."""
    return [("w_tau", 0.01), ("w_tau", 0.1), ("w_sigma", 10.0), ("w_sigma", 1.0)]


def run(n: int, profile: str = "", fresh: bool = False) -> list[float]:
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.testing.v1 import AppTest

    prof = cProfile.Profile() if profile else None
    cpu: list[float] = []
    timing = [False]
    original = script_runner.ScriptRunner._run_script

    def timed(self, *a, **k):            # in the script thread
        if not timing[0]:
            return original(self, *a, **k)
        c = time.thread_time()
        if prof is not None:
            prof.enable()
        try:
            return original(self, *a, **k)
        finally:
            if prof is not None:
                prof.disable()
            cpu.append(time.thread_time() - c)

    script_runner.ScriptRunner._run_script = timed

    warnings.filterwarnings("ignore")
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=300)
    at.run()
    seq = moves()

    def move(i: int) -> None:
        key, value = seq[i % len(seq)]
        w = at.select_slider(key=key)
        w.set_value(value)
        at.run()
        if at.exception:
            raise RuntimeError([e.value for e in at.exception])

    for i in range(2 * len(seq)):     # every value's fit and figures stored
        move(i)
    if fresh:                         # each timed move to a τ not visited before
        from nplk_lab.model import setting
        seq = [("w_tau", v) for v in setting("tau").grid() if v not in (0.01, 0.1)]
    timing[0] = True
    try:
        for i in range(n):
            move(i)
    finally:
        script_runner.ScriptRunner._run_script = original
    if prof is not None:
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out)
        stats.sort_stats("cumulative").print_stats(80)
        stats.sort_stats("cumulative").print_stats("nplk_lab|pages", 60)
        Path(profile).write_text(out.getvalue())
    return cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--profile", default="")
    ap.add_argument("--fresh", action="store_true",
                    help="each timed move to a τ not visited before (a new fit, its figures)")
    ap.add_argument("--root", default="", help="the checkout whose page and lab run")
    args = ap.parse_args()
    cpu = run(args.runs, args.profile, args.fresh)
    import nplk_lab
    print(f"lab: {Path(nplk_lab.__file__).parent}")
    ms = sorted(1e3 * c for c in cpu)
    print(f"| page runs | CPU per run: median (ms) | p10 | p90 |\n|---|---|---|---|\n"
          f"| {len(ms)} | {statistics.median(ms):.1f} | {ms[len(ms) // 10]:.1f} | "
          f"{ms[(9 * len(ms)) // 10]:.1f} |")


if __name__ == "__main__":
    main()
