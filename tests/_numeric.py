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
