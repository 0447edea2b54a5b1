"""What the rows share to split, fit and score: a seeded split, the plain SVM at a given
σ and C, 1-NN, relative squared error and R², paired accuracy differences, the
mean ± sd text, a grid over 2-D data, and silencing the warnings of short runs."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from .. import paired as P


def _pm(values, scale: float = 100.0, digits: int = 1) -> str:
    a = scale * np.asarray(values, dtype=float)
    return f"{a.mean():.{digits}f} ± {a.std():.{digits}f}"


def _acc(method, baseline, label: str, **kw) -> P.Paired:
    """Paired accuracy difference in percentage points (higher is better)."""
    return P.paired(method, baseline, label=label, unit="points", scale=100.0, **kw)


def _split(X, y, seed: int, test_size: float = 0.3, stratify: bool = True):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=test_size, random_state=seed,
                            stratify=y if stratify else None)


def _svc(C: float, sigma: float):
    from sklearn.svm import SVC

    from nplk_core.kernels import sigma_to_gamma

    return SVC(C=C, gamma=sigma_to_gamma(sigma))


def _rse(y, pred) -> float:
    """Relative squared error of the DANK paper's §6.3:
    sum (g(x_i) - y_i)^2 / sum (y_i - mean y)^2."""
    y = np.asarray(y, dtype=float)
    return float(np.sum((np.asarray(pred) - y) ** 2) / np.sum((y - y.mean()) ** 2))


def _grid(X, steps: int = 120, pad: float = 0.3):
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    xs, ys = np.linspace(lo[0], hi[0], steps), np.linspace(lo[1], hi[1], steps)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def _one_nn(Xtr, ytr, Xte):
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(1).fit(Xtr, ytr).predict(Xte)


@contextlib.contextmanager
def _quiet():
    """Silence the warnings of deliberately short or fixed-length runs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _r2(y, pred) -> float:
    return 1.0 - _rse(y, pred)
