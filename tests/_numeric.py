"""Numerical references the tests hold fast paths against."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def central_differences(f: Callable[[np.ndarray], float], x: np.ndarray,
                        h: float = 1e-6) -> np.ndarray:
    """The gradient of the scalar ``f`` at ``x`` by central differences, entry by entry:
    (f(x + h eᵢ) − f(x − h eᵢ)) / 2h, in the shape of ``x``."""
    fd = np.zeros_like(x, dtype=float)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        fd[idx] = (f(xp) - f(xm)) / (2 * h)
    return fd


def assert_same_lab_rbf_fit(a, b, X: np.ndarray) -> None:
    """Two LAB RBF fits are the same to the last bit: iterations, every history column but
    the times, every stage, the supports, bandwidths, coefficients, intercept, fallback,
    convergence flag and the predictions at ``X``."""
    assert a.n_iter_ == b.n_iter_ > 0
    for key, col in b.history_.items():
        if key != "time":
            np.testing.assert_array_equal(a.history_[key], col, err_msg=key)
    for key, col in b.stages_.items():
        np.testing.assert_array_equal(a.stages_[key], col, err_msg=key)
    for key in ("support_", "bandwidths_", "dual_coef_", "intercept_", "fallback_global_",
                "converged_"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=key)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
