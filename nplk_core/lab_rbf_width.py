r"""One shared Gaussian width and a ridge on all points, over a grid of both, fast.

The comparison beside LAB RBF (:mod:`nplk_lab.model.lab_rbf_halves`) needs, for every
width :math:`t` of a grid and every ridge :math:`\mu` of another, the validation error
of the subset-of-regressors ridge on fixed centres :math:`c_1..c_N`:

.. math::

    a = (\Phi^\top\Phi + \mu P)^{-1} \Phi^\top (y - \bar y),\qquad
    \Phi_{ji} = e^{-t^2 \|x_j - c_i\|^2},\quad P_{ik} = e^{-t^2 \|c_i - c_k\|^2},

(:func:`nplk_core.lab_rbf.lab_ridge_coef`), scored as ``mean((Phi_val a + ybar -
y_val)^2)``. Solved directly that is one least-squares solve on ``N x N`` per pair (61
widths x 12 ridges: 17 s at N = 200). Here each width costs one pivoted Cholesky
factor of ``P`` and one small symmetric eigendecomposition, and every ridge then costs
a product:

with ``P ~= L L^T`` (pivots ``J``, every diagonal of the PSD residual below
``rtol``), the Nystrom identity ``Phi = Phi_J L_J^{-T} L^T`` holds to the same accuracy
(``Phi_J`` the pivots' columns, ``L_J`` the pivots' rows of ``L``), so with
``w = L^T a`` the problem is a plain ridge on the ``k = rank`` features
``B = Phi_J L_J^{-T}``: ``w = (B^T B + mu I)^{-1} B^T r``, and with
``B^T B = W diag(s) W^T`` the validation predictions for all ridges are
``B_val W diag(1 / (s + mu)) W^T B^T r``. Where ``P`` has full numerical rank this is
the direct solve exactly (up to round-off); where it has not, the directions dropped
are functions whose values are everywhere below ``sqrt(rtol)`` (their norm in the
kernel's space is), the same directions a least-squares solve with LAPACK's default
cut-off drops from the ill-conditioned system. Pure numpy and SciPy.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from .spectral import pivoted_cholesky

_dpstrf = scipy.linalg.lapack.dpstrf

__all__ = ["ridge_path_errors", "ridge_path_fit"]

#: residual diagonal (relative to P's, which is 1) at which the factor of P stops
RIDGE_PATH_RTOL = 1e-13


def ridge_path_errors(S_fit: NDArray, S_cc: NDArray, y_fit: NDArray, S_val: NDArray,
                      y_val: NDArray, thetas: NDArray, mus: NDArray, *,
                      rtol: float = RIDGE_PATH_RTOL) -> NDArray[np.float64]:
    r"""Validation mean squared error of the one-width ridge for every width and ridge.

    Parameters
    ----------
    S_fit, S_val : arrays (n_fit, N), (n_val, N)
        Squared distances ``||x_j - c_i||^2`` of the fitted and the validation points to
        the centres: the kernel at width ``t`` is ``exp(-t^2 S)``.
    S_cc : array (N, N)
        The same among the centres.
    y_fit, y_val : targets
    thetas, mus : the widths ``t`` and ridges ``mu`` of the grid

    Returns
    -------
    errors : array (len(thetas), len(mus)); ``inf`` where a width's kernel is not finite.
    """
    S_fit = np.asarray(S_fit, dtype=float)
    S_val = np.asarray(S_val, dtype=float)
    y_fit = np.asarray(y_fit, dtype=float)
    y_val = np.asarray(y_val, dtype=float)
    mus = np.asarray(mus, dtype=float)
    b = float(y_fit.mean())
    r = y_fit - b
    out = np.full((len(thetas), mus.size), np.inf)
    with np.errstate(all="ignore"):
        for i, t in enumerate(thetas):
            p = float(t) * float(t)
            P = np.exp(-p * S_cc)
            if not np.all(np.isfinite(P)):
                continue
            LJ, J = _pivoted_factor(P, rtol)
            if J.size == 0:  # every centre's kernel vanishes: the fit is the mean
                out[i] = np.mean((b - y_val) ** 2)
                continue
            Bf = _features(S_fit, J, p, LJ)
            Bv = Bf if S_val is S_fit else _features(S_val, J, p, LJ)
            s, W = np.linalg.eigh(Bf.T @ Bf)
            s = np.maximum(s, 0.0)
            proj = W.T @ (Bf.T @ r)
            pred = (Bv @ W) @ (proj[:, None] / (s[:, None] + mus[None, :])) + b
            err = np.mean((pred - y_val[:, None]) ** 2, axis=0)
            out[i] = np.where(np.isfinite(err), err, np.inf)
    return out


def ridge_path_fit(S_fit: NDArray, S_cc: NDArray, y_fit: NDArray, t: float, mu: float,
                   *, rtol: float = RIDGE_PATH_RTOL) -> tuple[NDArray, NDArray, float]:
    """The one-width ridge of :func:`ridge_path_errors` at one width and ridge, as
    ``(J, a, b)``: ``f(x) = sum_j a_j exp(-t^2 ||x - c_J[j]||^2) + b`` on the pivots
    ``J`` of the centres (the same model whose errors :func:`ridge_path_errors` gave)."""
    y_fit = np.asarray(y_fit, dtype=float)
    b = float(y_fit.mean())
    p = float(t) * float(t)
    with np.errstate(all="ignore"):
        LJ, J = _pivoted_factor(np.exp(-p * np.asarray(S_cc, dtype=float)), rtol)
        if J.size == 0:
            return J, np.zeros(0), b
        Bf = _features(np.asarray(S_fit, dtype=float), J, p, LJ)
        s, W = np.linalg.eigh(Bf.T @ Bf)
        w = W @ ((W.T @ (Bf.T @ (y_fit - b))) / (np.maximum(s, 0.0) + mu))
        a = scipy.linalg.solve_triangular(LJ, w, lower=True, trans="T", check_finite=False)
    return J, a, b


def _features(S: NDArray, J: NDArray, p: float, LJ: NDArray) -> NDArray:
    """``B = exp(-p S[:, J]) L_J^{-T}``: the whitened features on the pivots."""
    K = np.exp(-p * S[:, J])
    return scipy.linalg.solve_triangular(LJ, K.T, lower=True, check_finite=False).T


def _pivoted_factor(P: NDArray, rtol: float) -> tuple[NDArray, NDArray]:
    """``(L_J, J)``: the pivots ``J`` of a Cholesky factorisation of the PSD ``P`` with
    complete pivoting, stopped when every remaining diagonal is at most ``rtol``, and the
    factor's lower-triangular block on them (``P[J][:, J] = L_J L_J^T``). LAPACK's
    ``dpstrf``; the lab's own greedy loop when LAPACK reports an error."""
    c, piv, rank, info = _dpstrf(P, tol=rtol, lower=1)
    if info >= 0 and rank >= 0:
        J = piv[:rank] - 1
        return np.tril(c[:rank, :rank]), J
    L, J = pivoted_cholesky(P, tol=rtol)  # pragma: no cover (LAPACK failure)
    return L[J], J
