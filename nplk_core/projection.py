r"""Exact Euclidean projections onto the dual feasible sets of SVM-type problems.

The SVM dual set is :math:`A = \{\alpha : 0 \le \alpha \le C,\ \alpha^\top y = 0\}`.
Its projection is :math:`P_A(v)_i = \mathrm{clip}(v_i - \lambda^* y_i, 0, C)` where
:math:`\lambda^*` is the root of the monotone non-increasing, piecewise-linear

.. math:: \varphi(\lambda) = \sum_i y_i\, \mathrm{clip}(v_i - \lambda y_i, 0, C)

(ONK, Theorem 3). We sort the ``2n`` breakpoints, integrate the slope to locate the
linear piece that holds the root, and solve that piece exactly: ``O(n log n)``, no
iteration, machine precision. With labels ``+1`` for :math:`\hat\alpha` and ``-1`` for
:math:`\check\alpha` the same routine projects the SVR set (see :func:`project_svr`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def project_box(v: ArrayLike, C: float | ArrayLike) -> NDArray[np.float64]:
    """Projection onto the box ``{0 <= alpha <= C}`` (DANK at scale, eq. 18)."""
    return np.clip(np.asarray(v, dtype=float), 0.0, C)


def _phi(lam: float, v: np.ndarray, y: np.ndarray, C) -> float:
    return float(y @ np.clip(v - lam * y, 0.0, C))


def dual_multiplier(v: ArrayLike, y: ArrayLike, C: float | ArrayLike) -> float:
    r"""The multiplier :math:`\lambda^*` of the equality constraint in :func:`project_dual`."""
    v = np.asarray(v, dtype=float)
    y = np.asarray(y, dtype=float)
    C_arr = np.broadcast_to(np.asarray(C, dtype=float), v.shape)
    n_pos = np.count_nonzero(y > 0)
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        # alpha^T y = 0 with alpha >= 0 and one sign of y forces alpha = 0: any
        # lambda beyond every breakpoint gives it.
        s = float(np.max(y * v)) if v.size else 0.0
        return s
    # term i is y_i clip(v_i - lam y_i, 0, C_i); it is linear with slope -1 between
    # its breakpoints y_i (v_i - C_i) and y_i v_i (whichever is smaller is "lo").
    b1 = y * v
    b2 = y * (v - C_arr)
    lo = np.minimum(b1, b2)
    hi = np.maximum(b1, b2)
    pts = np.concatenate([lo, hi])
    dslope = np.concatenate([-np.ones_like(lo), np.ones_like(hi)])
    order = np.argsort(pts, kind="mergesort")
    pts = pts[order]
    slope = np.cumsum(dslope[order])  # slope of phi just right of pts[k]
    # phi at the smallest breakpoint: every term is saturated at its left value
    phi0 = float(np.sum(C_arr[y > 0]))
    phis = phi0 + np.concatenate([[0.0], np.cumsum(slope[:-1] * np.diff(pts))])
    k = int(np.searchsorted(-phis, 0.0, side="left"))  # first k with phi(pts[k]) <= 0
    if k == 0:
        return float(pts[0])
    k -= 1  # root lies in [pts[k], pts[k+1]]
    lam_lo, lam_hi = pts[k], pts[k + 1]
    # recompute the piece exactly (not from the accumulated sums) for machine precision
    f_lo = _phi(lam_lo, v, y, C_arr)
    mid = 0.5 * (lam_lo + lam_hi)
    active = np.count_nonzero((lo < mid) & (hi > mid))
    if active == 0 or f_lo <= 0.0:
        return float(lam_lo)
    lam = lam_lo + f_lo / active
    return float(min(max(lam, lam_lo), lam_hi))


def project_dual(v: ArrayLike, y: ArrayLike, C: float | ArrayLike) -> NDArray[np.float64]:
    r"""Exact projection onto :math:`\{\alpha: 0 \le \alpha \le C,\ \alpha^\top y = 0\}`.

    Parameters
    ----------
    v : array of shape (n,)
        Point to project.
    y : array of shape (n,)
        Labels in ``{-1, +1}``.
    C : float > 0 or array of shape (n,)
        Upper bound(s) of the box.

    Returns
    -------
    alpha : ndarray of shape (n,)
        ``argmin ||alpha - v||`` over the set. If all labels share one sign the set is
        ``{0}`` and the zero vector is returned.

    Examples
    --------
    >>> import numpy as np
    >>> a = project_dual(np.array([2.0, -1.0, 0.5]), np.array([1, -1, -1]), 1.0)
    >>> float(a @ np.array([1, -1, -1]))
    0.0
    """
    v = np.asarray(v, dtype=float)
    y = np.asarray(y, dtype=float)
    if v.shape != y.shape or v.ndim != 1:
        raise ValueError(f"v and y must be 1-D of the same length, got {v.shape} and {y.shape}.")
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must contain only -1 and +1.")
    if np.any(np.asarray(C) <= 0):
        raise ValueError(f"C must be > 0, got {C!r}.")
    if np.all(y > 0) or np.all(y < 0):
        return np.zeros_like(v)
    lam = dual_multiplier(v, y, C)
    return np.clip(v - lam * y, 0.0, C)


def project_dual_from(v: np.ndarray, y: np.ndarray, C: float, lam: float, *,
                      steps: int = 4) -> tuple[NDArray[np.float64], float]:
    r""":func:`project_dual` started from a guess ``lam`` of the multiplier; returns the
    projection and its multiplier (for the next call). For solvers whose successive
    points have nearly the same multiplier; ``v`` and ``y`` are trusted (float arrays,
    labels +-1 of both signs, ``C > 0``).

    Newton steps on the piecewise-linear :math:`\varphi(\lambda) =
    y^\top\mathrm{clip}(v - \lambda y, 0, C)`: when a step lands on the same linear piece
    (every coordinate at the same bound, or free, at both ends), :math:`\varphi` is
    linear in between and the step is its exact root. Otherwise, after ``steps`` steps
    or with no free coordinate, the sorting routine (exact, ``O(n log n)``).
    """
    t = v - lam * y
    state = (t > 0).view(np.int8) + (t >= C).view(np.int8)  # 0 lower, 1 free, 2 upper
    for _ in range(steps):
        m = np.count_nonzero(state == 1)
        if m == 0:
            break
        lam += float(y @ np.clip(t, 0.0, C)) / m
        t = v - lam * y
        new = (t > 0).view(np.int8) + (t >= C).view(np.int8)
        if np.array_equal(new, state):
            return np.clip(t, 0.0, C, out=t), lam
        state = new
    lam = dual_multiplier(v, y, C)
    return np.clip(v - lam * y, 0.0, C), lam


def project_svr(v_hat: ArrayLike, v_check: ArrayLike, C: float
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Projection onto the SVR set :math:`\{0 \le \hat\alpha, \check\alpha \le C,\
    1^\top\hat\alpha = 1^\top\check\alpha\}` (labels +1 / -1 on the stacked vector)."""
    v_hat = np.asarray(v_hat, dtype=float)
    v_check = np.asarray(v_check, dtype=float)
    n = v_hat.size
    z = project_dual(np.concatenate([v_hat, v_check]),
                     np.concatenate([np.ones(n), -np.ones(n)]), C)
    return z[:n], z[n:]
