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

import numpy as np

from nplk_lab.model.lesson_seeds import measure_lessons, summary, table

_THETAS = np.geomspace(0.3, 300, 40)     # inverse widths, in the chirp's x units
_LAMS = (1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1)


def _ridge(Xs, theta, X, y, lam):
    from nplk_core.lab_rbf import lab_kernel
    th = np.full_like(Xs, theta)
    K = lab_kernel(Xs, th, X).T
    Kmm = lab_kernel(Xs, th, Xs)
    mean = y.mean()
    A = K.T @ K + lam * len(y) * (Kmm + Kmm.T) / 2 + 1e-10 * np.eye(len(Xs))
    return np.linalg.solve(A, K.T @ (y - mean)), mean


def lab_rbf_halves(seeds: range) -> None:
    """LAB RBF against one shared width inside its model and a ridge on all points."""
    from nplk_core.lab_rbf import lab_fit_alpha, lab_kernel
    from nplk_lab.model import lessons as L
    from nplk_lab.model.lesson_fits import lesson_fit

    step = L.lesson(5).steps[6]
    rows = []
    print("| draw | LAB RBF | one shared width, same model | ridge, same centres, all "
          "points |\n|---|---|---|---|")
    for seed in seeds:
        data, r = lesson_fit({**step.params, "seed": seed}, "lab_rbf_reg", "regression")
        est = r.estimator
        Xs = np.asarray(est.support_vectors_, dtype=float)
        Xtr, ytr, Xte, yte = data.X_train, data.y_train, data.X_test, data.y_test
        idx = [int(np.argmin(np.abs(Xtr[:, 0] - x))) for x in Xs[:, 0]]
        rest = np.ones(len(ytr), bool)
        rest[idx] = False

        def mse(f, yte=yte):
            return float(np.mean((f - yte) ** 2))

        lab = mse(est.predict(Xte))
        best = None
        for t in _THETAS:
            th = np.full_like(Xs, t)
            a, b0 = lab_fit_alpha(Xs, ytr[idx], th, lam=est.lam)
            e = float(np.mean((a @ lab_kernel(Xs, th, Xtr[rest]) + b0 - ytr[rest]) ** 2))
            if best is None or e < best[0]:
                best = (e, th, a, b0)
        _, th, a, b0 = best
        shared = mse(a @ lab_kernel(Xs, th, Xte) + b0)
        perm = np.random.default_rng(seed).permutation(len(ytr))
        va, tr = perm[:len(ytr) // 5], perm[len(ytr) // 5:]
        best = None
        for t in _THETAS:
            for lam in _LAMS:
                c, m = _ridge(Xs, t, Xtr[tr], ytr[tr], lam)
                e = float(np.mean((c @ lab_kernel(Xs, np.full_like(Xs, t), Xtr[va]) + m
                                   - ytr[va]) ** 2))
                if best is None or e < best[0]:
                    best = (e, t, lam)
        _, t, lam = best
        c, m = _ridge(Xs, t, Xtr, ytr, lam)
        ridge = mse(c @ lab_kernel(Xs, np.full_like(Xs, t), Xte) + m)
        rows.append((lab, shared, ridge))
        print(f"| {seed} | {lab:.2e} | {shared:.2e} | {ridge:.2e} |", flush=True)
    a = np.array(rows)
    print(f"\nLAB RBF below one shared width in its own model at "
          f"{int((a[:, 0] < a[:, 1]).sum())} of {len(a)} draws; the ridge on all points "
          f"below LAB RBF at {int((a[:, 2] < a[:, 0]).sum())} of {len(a)}.")


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
