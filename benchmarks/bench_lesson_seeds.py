"""Every lesson step's statement at many draws of the data (issue 29 §5).

    python benchmarks/bench_lesson_seeds.py                  # data seeds 0–9
    python benchmarks/bench_lesson_seeds.py --seeds 10-49    # seeds the lessons were not
                                                             # written at

For each step with a question: the statement (the question and the option the lesson's
sentences rely on), at how many of the seeds the numbers choose that option, and the
spread of the outcomes (by the options' short names, or the finer words a step's measure
gives). A step holds at 9 or more of 10 (✗ marks one that does not). A step about several
draws measures, at seed s, the draws s, s + 1, …. The fits are those of the Lessons page
(:mod:`nplk_lab.model.lesson_seeds`), one process, cached within the run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from nplk_lab.model.lesson_seeds import measure_lessons, summary, table


def _seeds(text: str) -> range:
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0-9", help="first-last data seed (default 0-9)")
    args = ap.parse_args(argv)
    seeds = _seeds(args.seeds)
    t0 = time.perf_counter()
    rows = measure_lessons(seeds)
    s = summary(rows)
    print(f"data seeds {seeds.start}–{seeds.stop - 1}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{time.perf_counter() - t0:.1f} s wall")
    print()
    print(table(rows, width=400))
    print()
    print(f"{s['holding']:.0f} of {s['steps']:.0f} steps hold at ≥ 90 % of the seeds")
    return 0 if s["holding"] == s["steps"] else 1


if __name__ == "__main__":
    sys.exit(main())
