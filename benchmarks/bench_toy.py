"""One row per algorithm at toy size, with scikit-learn's SVC/KRR timed in the same run.

    python benchmarks/bench_toy.py [--repeats 7]

Classification methods fit clowns (n = 200, sigma = 1, C = 1, defaults otherwise);
SimpleNPKL clusters the spiral (n = 200, 10% constraints); LAB RBF trains 30 support
points on the 1-D chirp (n = 300). Each method and its scikit-learn reference are timed
alternately so both see the same machine load. Targets: DANK <= 60 ms;
KNPL, ONK, SimpleNPKL <= 150 ms; LAB RBF (30 support points, chirp 300) <= 1 s.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import r2_score
from sklearn.svm import SVC

from nplk_core import (
    DANKClassifier,
    KNPLClassifier,
    LABRBFRegressor,
    MKLUniformClassifier,
    ONKClassifier,
    SimpleNPKL,
    SVMCVClassifier,
)
from nplk_core.datasets import make_chirp, make_clowns, make_spiral
from nplk_core.simple_npkl import clustering_accuracy


def _median_time(fit, reference, repeats):
    t_fit, t_ref, model = [], [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        model = fit()
        t_fit.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        reference()
        t_ref.append(time.perf_counter() - t0)
    return float(np.median(t_fit)), float(np.median(t_ref)), model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)

    X, y = make_clowns(200, random_state=0)
    Xs, ys = make_spiral(200, random_state=0)
    Xc, yc = make_chirp(300, random_state=0)
    svc = lambda: SVC(C=1.0, gamma=0.5).fit(X, y)  # noqa: E731
    krr = lambda: KernelRidge(kernel="rbf", gamma=200.0, alpha=1e-3).fit(Xc, yc)  # noqa: E731

    rows = []
    classifiers = [
        ("DANK (apg)", lambda: DANKClassifier().fit(X, y), 0.060),
        ("KNPL", lambda: KNPLClassifier().fit(X, y), 0.150),
        ("ONK (cgd)", lambda: ONKClassifier().fit(X, y), 0.150),
        ("MKL-uniform (C by 5-fold CV)", lambda: MKLUniformClassifier().fit(X, y), None),
    ]
    for name, fit, target in classifiers:
        tf, tr, m = _median_time(fit, svc, args.repeats)
        rows.append((name, "clowns 200", tf, "SVC", tr, m.score(X, y), "train acc",
                     getattr(m, "n_iter_", ""), target))
    tf, tr, m = _median_time(lambda: SVMCVClassifier().fit(X, y), svc, 1)
    rows.append(("SVM-CV (11x11 grid, 5 folds)", "clowns 200", tf, "SVC", tr, m.score(X, y),
                 "train acc", "", None))
    for loss in ("linear", "square_hinge", "hinge", "square"):
        tf, tr, m = _median_time(
            lambda loss=loss: SimpleNPKL(loss=loss, random_state=0).fit(Xs, ys),
            lambda: SVC(C=1.0, gamma=0.5).fit(Xs, ys), args.repeats)
        rows.append((f"SimpleNPKL ({loss})", "spiral 200", tf, "SVC", tr,
                     clustering_accuracy(ys, m.labels_), "Rand index", m.n_iter_, 0.150))
    tf, tr, m = _median_time(lambda: LABRBFRegressor(n_support=30, random_state=0).fit(Xc, yc),
                             krr, args.repeats)
    rows.append(("LAB RBF (30 support points)", "chirp 300", tf, "KRR", tr,
                 r2_score(yc, m.predict(Xc)), "R^2", m.n_iter_, 1.0))

    print(f"# Toy-size fits; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores\n")
    print("| method | data | fit (ms) | reference | ref. (ms) | ratio | score | iterations "
          "| target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, data, tf, ref, tr, score, sname, iters, target in rows:
        tgt = "" if target is None else \
            f"<= {target * 1e3:g} ms: {'met' if tf <= target else 'MISSED'}"
        print(f"| {name} | {data} | {tf * 1e3:.1f} | {ref} | {tr * 1e3:.1f} | {tf / tr:.1f} | "
              f"{sname} {score:.3f} | {iters} | {tgt} |")


if __name__ == "__main__":
    main()
