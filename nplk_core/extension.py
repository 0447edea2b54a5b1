r"""Out-of-sample rules: how a matrix learned on the training points reaches a new point.

DANK's ``F`` and KNPL's ``G`` are defined on the training points only. A decision at a
new point :math:`x` needs the learned multiplier between :math:`x` and each training
point :math:`x_i`; each rule gives it as a row :math:`\tilde M(x, \cdot)` built from the
training rows of ``M``, and the model predicts

.. math::

    f(x) = \sum_i u_i\, \tilde M(x, x_i)\, k(x_i, x) + b .

* **reciprocal** (DANK's paper, §2.3): the row of the reciprocal nearest neighbour
  :func:`reciprocal_index`, which depends on the whole set of new points;
* **nearest** (KNPL's paper, eq. 23): the row of the nearest training point
  :func:`nearest_index`;
* **smooth** (the lab's, not the papers'): a kernel-weighted average of *all* the
  training rows,

  .. math::

      \tilde M_h(x, x_i) = \sum_l p_l(x)\, M_{l i},\qquad
      p_l(x) = \frac{\exp(-\|x - x_l\|^2 / (2h^2))}{\sum_{l'} \exp(-\|x - x_{l'}\|^2 / (2h^2))},

  the Nadaraya–Watson estimate of each column of ``M`` at :math:`x` (E. A. Nadaraya,
  *On estimating regression*, 1964; G. S. Watson, *Smooth regression analysis*, 1964).
  With :math:`M = V \operatorname{diag}(\mu) V^\top` it is the same as extending each
  eigenvector of ``M`` by that average, :math:`\tilde M_h(x, x_i) = \sum_j \mu_j
  \tilde v_j(x) v_{ij}` with :math:`\tilde v_j(x) = \sum_l p_l(x) v_{lj}`: the
  row-normalised kernel whose eigenvectors Bengio et al. extend to new points in
  *Out-of-sample extensions for LLE, Isomap, MDS, Eigenmaps, and Spectral Clustering*
  (NIPS 2004). Why not the Nyström extension of ``F∘K`` itself (Williams and Seeger,
  *Using the Nyström method to speed up kernel machines*, NIPS 2001): it needs the
  learned kernel between the new point and the training points, which is the very
  thing missing (the lab's eigenfunction maps take it from the borrowed row, i.e. from
  one of the papers' rules).

The smooth rule's properties (the first three checked in ``tests/test_extension.py``):

* with :math:`M = 11^\top` every weighted row is all ones, so the model gives the plain
  kernel's decision :math:`\sum_i u_i k(x_i, x) + b` exactly;
* as :math:`h \to 0` the weights go to the nearest training point (the shifted
  exponent keeps them finite), so the rule tends to the nearest-point rule;
* it depends on :math:`x` alone (not on the other new points) and is deterministic;
* its width: ``"sigma"`` (the default) takes :math:`h = \sigma`, the width of the kernel
  ``M`` multiplies: the rule does not resolve ``M`` finer than ``k`` itself resolves the
  plane. A width chosen by leave-one-out on the training rows of ``F`` comes out at
  σ/64 to σ/8 wherever ``F`` changes the test labels, and there the rule gives
  1-nearest neighbour's label on 90–100 % of the test points: it copies neighbours
  again (``docs/out-of-sample-rules.md``).

Pure numpy; never imports streamlit.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from ._base import single_thread_blas
from .kernels import squared_distances

#: every out-of-sample rule, the papers' two first
RULES = ("reciprocal", "nearest", "smooth")
#: the smooth rule's default width: the model's own σ
WIDTH_OF_SIGMA = "sigma"


def nearest_index(X_train: np.ndarray, X_test: np.ndarray) -> np.ndarray:
    """For each test point the index of its nearest training point."""
    return np.argmin(squared_distances(X_test, X_train), axis=1)


def reciprocal_index(X_train: np.ndarray, X_test: np.ndarray) -> np.ndarray:
    r"""Reciprocal nearest neighbour of every test point.

    From *Learning Data-adaptive Non-parametric Kernels*, §2.3.

    ``M_ij = 1/(r_ij s_ij)`` where ``r_ij`` is the rank of test point j among all
    test points by distance to training point i, and ``s_ij`` the rank of training
    point i among the training points by distance to test point j (1 = nearest);
    returns ``j* = argmax_i M_ij`` for every test point j. Ties go to the nearer
    training point. The answer depends on the whole test set (by design of the paper).
    """
    D = squared_distances(X_train, X_test)  # (n, m)
    n, m = D.shape
    # r_ij: rank along the test axis (row-wise ranks)
    order = np.argsort(D, axis=1, kind="stable")
    r = np.empty_like(order)
    rows = np.arange(n)[:, None]
    r[rows, order] = np.arange(1, m + 1)[None, :]
    # s_ij: rank along the training axis (column-wise ranks)
    order_t = np.argsort(D, axis=0, kind="stable")
    s = np.empty_like(order_t)
    s[order_t, np.arange(m)[None, :]] = np.arange(1, n + 1)[:, None]
    score = r.astype(float) * s  # minimise r*s; tie-break by s (nearer training point)
    score += s / (n + 1.0)
    return np.argmin(score, axis=0)


def resolve_width(width: Any, sigma: float) -> float:
    """The smooth rule's width ``h``: ``sigma`` for ``"sigma"``, else ``width`` (> 0)."""
    h = float(sigma) if isinstance(width, str) and width == WIDTH_OF_SIGMA else width
    if isinstance(h, bool) or not isinstance(h, Real) or not np.isfinite(h) or h <= 0:
        raise ValueError(f"the smooth rule's width must be a number > 0 or "
                         f"{WIDTH_OF_SIGMA!r} (the kernel's σ), got {width!r}.")
    return float(h)


def smooth_weights(sqdist: np.ndarray, width: float) -> np.ndarray:
    r"""The smooth rule's weights :math:`p_l(x)` (rows sum to 1), from the squared
    distances ``sqdist`` (new points × training points) and the width ``h``.

    The exponent is shifted by each row's smallest distance, so the nearest training
    point's weight stays finite as ``h -> 0`` (all the weight goes to it; exact ties
    share it)."""
    D = np.asarray(sqdist, dtype=float)
    if D.ndim != 2 or D.shape[1] == 0:
        raise ValueError(f"the smooth rule needs distances to at least one training point, "
                         f"got an array of shape {D.shape}.")
    W = D - D.min(axis=1, keepdims=True)
    W *= -0.5 / (float(width) ** 2)
    np.exp(W, out=W)
    W /= W.sum(axis=1, keepdims=True)
    return W


def borrowing(rule: str, X_train: np.ndarray, X: np.ndarray, *, sigma: float,
              width: Any = WIDTH_OF_SIGMA, sqdist: np.ndarray | None = None) -> np.ndarray:
    """What each point of ``X`` takes from the training rows under ``rule``: the index
    of one training row (``"nearest"``, ``"reciprocal"``: shape (m,), integers) or the
    weights of every row (``"smooth"``: shape (m, n), rows summing to 1).
    ``sqdist`` (m × n squared distances) saves recomputing them (nearest, smooth)."""
    if rule == "reciprocal":
        return reciprocal_index(X_train, X)
    if rule not in ("nearest", "smooth"):
        raise ValueError(f"the out-of-sample rule must be one of {', '.join(RULES)}; "
                         f"got {rule!r}.")
    D = squared_distances(X, X_train) if sqdist is None else sqdist
    if rule == "nearest":
        return np.argmin(D, axis=1)
    return smooth_weights(D, resolve_width(width, sigma))


def borrowed_rows(M: np.ndarray, taken: np.ndarray, S: np.ndarray | None = None
                  ) -> np.ndarray:
    r"""The learned multiplier between training points ``S`` and the new points,
    shape (|S|, m): ``M[S, j*(x)]`` for a row index per point (the papers' rules),
    :math:`\sum_l M_{S, l}\, p_l(x)` for weights (the smooth rule; ``taken`` from
    :func:`borrowing`). ``S`` defaults to every training point."""
    M = np.asarray(M, dtype=float)
    taken = np.asarray(taken)
    if taken.ndim == 1:
        return M[np.ix_(S, taken)] if S is not None else M[:, taken]
    return (M if S is None else M[S]) @ taken.T


def extended_decision(u: np.ndarray, M: np.ndarray, taken: np.ndarray,
                      K_support: np.ndarray, b: float) -> np.ndarray:
    r""":math:`f(x) = \sum_{i \in S} u_i \tilde M(x, x_i) k(x_i, x) + b` with ``S`` the
    support of ``u`` (``taken`` from :func:`borrowing`; ``K_support`` the kernel rows
    of the support, shape (|S|, m)).

    Single-threaded BLAS (:func:`nplk_core._base.single_thread_blas`): the smooth rule's
    product of a support-by-training block with the weights took 4–24 ms threaded on
    the busy 2-core machine against 0.2 ms single-threaded (60 test points)."""
    u = np.asarray(u, dtype=float)
    S = np.flatnonzero(u)
    if S.size == 0:
        return np.full(len(taken), float(b))
    with single_thread_blas():
        return u[S] @ (borrowed_rows(M, taken, S) * K_support) + b


__all__ = ["RULES", "WIDTH_OF_SIGMA", "borrowed_rows", "borrowing", "extended_decision",
           "nearest_index", "reciprocal_index", "resolve_width", "smooth_weights"]
