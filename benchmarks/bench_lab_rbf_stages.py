"""What capping LAB RBF's intermediate stages costs in held-out accuracy, and saves in CPU.

    python benchmarks/bench_lab_rbf_stages.py --cap 50 --seeds 10 11 12 13 14 15

Every data set is drawn fresh per seed (140 training points, as the lab's pages, and
1,000 test points from the same distribution); on each, LAB RBF is fitted at support
counts 30, 70, 110 and 140 (140: every training point) and λ = 10⁻³ and 10⁻⁵, once with
every stage run to its tolerance (``stage_max_iter=None``) and once with the stages
before the one at the support count capped (``stage_max_iter=--cap``). Beside them, in
the same run, the simplest things that could give the same accuracy: kernel ridge with
one shared bandwidth (σ and the ridge by 5-fold CV, fitted to ±1 labels on
classification) and the SVM (SVC / SVR, σ and C by 5-fold CV).

Printed per data set: mean (and median) test accuracy (classification) or R²
(regression) of each, the capped fit minus the full one (mean, a 95 % interval over the
paired fits, the median, and how many are lower / higher by more than 0.01; a few
fits far off make a mean R² meaningless, the median is the summary there), the share of
test points whose predicted class moves (classification), the CPU of the LAB RBF fits,
and a summary over every fit. The data sets and seeds are not the ones the cap was
chosen on (the Classification page's clowns data, timing only).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.datasets import make_circles, make_classification, make_moons
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC, SVR

from nplk_core.lab_rbf import LABRBFClassifier, LABRBFRegressor

N_TRAIN, N_TEST = 140, 1000
SUPPORTS = (30, 70, 110, 140)
LAMS = (1e-3, 1e-5)


def _xor(n, rng):
    X = rng.uniform(-1, 1, (n, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    flip = rng.random(n) < 0.05
    return X, np.where(flip, 1 - y, y)


def _spiral(n, rng):
    t = rng.uniform(0.5, 3 * np.pi, n)
    c = rng.integers(0, 2, n)
    r = t / (3 * np.pi)
    X = np.column_stack([r * np.cos(t + np.pi * c), r * np.sin(t + np.pi * c)])
    return X + 0.04 * rng.normal(size=X.shape), c


CLASSIFICATION = {
    "moons": lambda n, rng: make_moons(n, noise=0.3, random_state=rng.integers(1 << 30)),
    "circles": lambda n, rng: make_circles(n, noise=0.15, factor=0.5,
                                           random_state=rng.integers(1 << 30)),
    "xor": _xor,
    "two spirals": _spiral,
    "four clusters": lambda n, rng: make_classification(
        n, n_features=2, n_redundant=0, n_informative=2, n_clusters_per_class=2,
        flip_y=0.05, random_state=rng.integers(1 << 30)),
}


def _curve(f, noise):
    def make(n, rng):
        x = rng.uniform(0, 1, n)
        return x[:, None], f(x) + noise * rng.normal(size=n)
    return make


REGRESSION = {
    "chirp": _curve(lambda x: np.sin(2 * np.pi * (1 + 8 * x) * x), 0.1),
    "sin 2x³": _curve(lambda x: np.sin(2 * (4 * x - 2) ** 3), 0.1),
    "step": _curve(lambda x: np.where(x > 0.4, 1.0, -1.0) + 0.3 * np.sin(9 * x), 0.1),
    "two widths": _curve(lambda x: np.where(x < 0.5, np.sin(40 * x), np.sin(6 * x)), 0.05),
}

_SIGMAS = 2.0 ** np.arange(-5, 4)


def _baselines(X, y, Xt, yt, classify):
    gammas = 1.0 / (2 * _SIGMAS ** 2)
    krr = GridSearchCV(KernelRidge(kernel="rbf"), {"gamma": gammas,
                                                   "alpha": [1e-4, 1e-3, 1e-2, 0.1, 1]},
                       cv=5).fit(X, np.where(y == y.max(), 1.0, -1.0) if classify else y)
    svm = GridSearchCV(SVC() if classify else SVR(), {"gamma": gammas,
                                                      "C": 10.0 ** np.arange(-1, 4)},
                       cv=5).fit(X, y)
    if classify:
        k = np.where(krr.predict(Xt) > 0, y.max(), y.min())
        return float(np.mean(k == yt)), float(np.mean(svm.predict(Xt) == yt))
    return krr.score(Xt, yt), svm.score(Xt, yt)


def _lab(cls, X, y, Xt, yt, classify, n_support, lam, cap):
    est = cls(n_support=n_support, lam=lam, stage_max_iter=cap, random_state=0)
    c0 = time.process_time()
    est.fit(X, y)
    cpu = time.process_time() - c0
    pred = est.predict(Xt)
    return (float(np.mean(pred == yt)) if classify else est.score(Xt, yt)), cpu, pred


def study(sets, classify, seeds, cap):
    cls = LABRBFClassifier if classify else LABRBFRegressor
    unit = "accuracy" if classify else "R²"
    print(f"\n| data | {unit}: full stages | capped at {cap} | capped − full: mean [95 %] "
          f"| median | lower / higher by > 0.01 | classes moved | one bandwidth (KRR-CV) | "
          f"SVM-CV | CPU full / capped p50 (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    every = []
    for name, make in sets.items():
        full, capped, moved, cpus, base = [], [], [], [], []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            X, y = make(N_TRAIN + N_TEST, rng)
            X, Xt, y, yt = X[:N_TRAIN], X[N_TRAIN:], y[:N_TRAIN], y[N_TRAIN:]
            base.append(_baselines(X, y, Xt, yt, classify))
            for n_support in SUPPORTS:
                for lam in LAMS:
                    a, ca, pa = _lab(cls, X, y, Xt, yt, classify, n_support, lam, None)
                    b, cb, pb = _lab(cls, X, y, Xt, yt, classify, n_support, lam, cap)
                    full.append(a)
                    capped.append(b)
                    cpus.append((ca, cb))
                    moved.append(float(np.mean(pa != pb)) if classify else np.nan)
        d = np.array(capped) - np.array(full)
        every.extend(d)
        half = 1.96 * d.std(ddof=1) / np.sqrt(d.size)
        cpus = np.array(cpus)
        base = np.array(base)
        print(f"| {name} | {np.mean(full):.3f} (median {np.median(full):.3f}) | "
              f"{np.mean(capped):.3f} (median {np.median(capped):.3f}) | {d.mean():+.4f} "
              f"[{d.mean() - half:+.4f}, {d.mean() + half:+.4f}] | {np.median(d):+.4f} | "
              f"{int(np.sum(d < -0.01))} / {int(np.sum(d > 0.01))} of {d.size} | "
              + (f"{np.mean(moved):.3f}" if classify else "–")
              + f" | {base[:, 0].mean():.3f} | {base[:, 1].mean():.3f} | "
              f"{np.median(cpus[:, 0]):.3f} / {np.median(cpus[:, 1]):.3f} |")
    every = np.array(every)
    half = 1.96 * every.std(ddof=1) / np.sqrt(every.size)
    print(f"\nOver all {every.size} paired fits: capped − full {every.mean():+.4f} "
          f"[{every.mean() - half:+.4f}, {every.mean() + half:+.4f}], median "
          f"{np.median(every):+.4f}, lower by > 0.01 at "
          f"{int(np.sum(every < -0.01))}, higher by > 0.01 at {int(np.sum(every > 0.01))}.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, default=50)
    ap.add_argument("--seeds", type=int, nargs="+", default=[10, 11, 12, 13, 14, 15])
    ap.add_argument("--only", choices=("classification", "regression"), default=None)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    print(f"# load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; seeds "
          f"{args.seeds}; support counts {SUPPORTS}; λ {LAMS}")
    if args.only != "regression":
        study(CLASSIFICATION, True, args.seeds, args.cap)
    if args.only != "classification":
        study(REGRESSION, False, args.seeds, args.cap)


if __name__ == "__main__":
    main()
