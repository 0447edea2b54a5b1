"""Every lesson step's statement at many draws of the data.

    python benchmarks/bench_lesson_seeds.py                  # data seeds 0–9
    python benchmarks/bench_lesson_seeds.py --seeds 10-49    # seeds the lessons were not
                                                             # written at

For each step with a question: the statement (the question and the option the lesson's
sentences rely on), at how many of the seeds the numbers choose that option, and the
spread of the outcomes (by the options' short names, or the finer words a step's measure
gives). A step holds at 9 or more of 10 (✗ marks one that does not). A step about several
draws measures, at seed s, the draws s, s + 1, …. The fits are those of the Lessons page
(:mod:`nplk_lab.model.lessons.lesson_seeds`), one process, cached within the run.

    python benchmarks/bench_lesson_seeds.py --lab-rbf-halves --seeds 0-29

A diagnostic for lesson 5 ("both halves"): on the lesson's noiseless chirp,
at each draw, LAB RBF (30 support points, the paper's model) beside the fits of
:mod:`nplk_lab.model.lab_rbf_halves` on the same support points: one shared width inside
the paper's model, a one-width ridge fitted to all training points, and the learned
widths with a ridge on all points (the lab's extension). Relative test error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from nplk_lab.model.lessons.lesson_seeds import measure_lessons, summary, table


def lab_rbf_halves(seeds: range) -> None:
    """LAB RBF on lesson 5's state against the fits of :mod:`.lab_rbf_halves` (one shared
    width inside its model, a one-width ridge on all points, the lab's extension)."""
    from nplk_lab.model.lab_rbf_halves import halves
    from nplk_lab.model.lessons import lessons as L
    from nplk_lab.model.lessons.lesson_fits import lesson_fit

    step = L.lesson(5).steps[6]
    keys = ("learned", "shared", "ridge", "extension")
    rows = []
    print("| draw | LAB RBF (learned widths) | one shared width, same model | one-width "
          "ridge, all points | learned widths, ridge on all points |\n|---|---|---|---|---|")
    for seed in seeds:
        data, r = lesson_fit({**step.params, "seed": seed}, "lab_rbf_reg", "regression")
        e = halves(r.estimator, data.X_train, data.y_train, data.X_test, data.y_test).errors
        rows.append([e[k] for k in keys])
        print(f"| {seed} | " + " | ".join(f"{e[k]:.2e}" for k in keys) + " |", flush=True)
    a = np.array(rows)
    n = len(a)
    print(f"\nRelative test error on the lesson's noiseless chirp. LAB RBF below one shared "
          f"width in its own model at {int((a[:, 0] < a[:, 1]).sum())} of {n} draws; the "
          f"one-width ridge on all points below LAB RBF at "
          f"{int((a[:, 2] < a[:, 0]).sum())} of {n}.")


def _seeds(text: str) -> range:
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0-9", help="first-last data seed (default 0-9)")
    ap.add_argument("--lab-rbf-halves", action="store_true",
                    help="lesson 5's diagnostic: LAB RBF against one shared width in its "
                         "model and against a ridge on all points")
    args = ap.parse_args(argv)
    seeds = _seeds(args.seeds)
    if args.lab_rbf_halves:
        lab_rbf_halves(seeds)
        return 0
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
