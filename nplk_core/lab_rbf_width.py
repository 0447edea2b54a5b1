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
factor of ``P`` and one small symmetric tridiagonalisation, and every ridge then costs
a tridiagonal solve:

with ``P ~= L L^T`` (pivots ``J``, every diagonal of the PSD residual below
``rtol``), the Nystrom identity ``Phi = Phi_J L_J^{-T} L^T`` holds to the same accuracy
(``Phi_J`` the pivots' columns, ``L_J`` the pivots' rows of ``L``), so with
``w = L^T a`` the problem is a plain ridge on the ``k = rank`` features
``B = Phi_J L_J^{-T}``: ``w = (B^T B + mu I)^{-1} B^T r``. With the Householder
tridiagonalisation ``B^T B = Q T Q^T`` whose ``Q e_1`` lies along ``g = B^T r`` (LAPACK
``dsytrd`` on ``B^T B`` bordered by ``g``; ``Q`` from ``dorghr``) the validation
predictions for all ridges are ``B_val Q (T + mu I)^{-1} |g| e_1``: one tridiagonal solve
per ridge (``dptsv``), about a quarter of the time of the eigendecomposition
``B^T B = W diag(s) W^T`` used before (kept as the tests' reference). Where ``P`` has
full numerical rank this is the direct solve exactly (up to round-off); where it has
not, the directions dropped are functions whose values are everywhere below
``sqrt(rtol)`` (their norm in the kernel's space is), the same directions a
least-squares solve with LAPACK's default cut-off drops from the ill-conditioned system.

When every fitted point is a centre and the fitted points are the validation points
(LAB RBF with as many support points as training points: nothing is held out),
:func:`ridge_path_errors_on_centres` gives the same errors for less: there ``B B^T`` is
the Nystrom ``P~ = L L^T`` among the centres themselves and the validation residual is
``mu (P~ + mu I)^{-1} r``, so its squared norm is ``mu^2 r^T (P~ + mu I)^{-2} r``: one
Householder tridiagonalisation ``P~ = Q T Q^T`` with ``Q e_1`` along ``r`` per width
(LAPACK ``dsytrd`` on ``P~`` bordered by ``r``), and per ridge one tridiagonal solve of
``T + mu I``, in place of the features, their Gram matrix, its eigendecomposition and the
predictions. Where ``P`` keeps full numerical rank ``P~`` is ``P``; below it the residual
splits into the part outside the factor's span (exact, from a QR factor of ``[L, r]``)
and the part inside, tridiagonalised on ``k x k``. Pure numpy and SciPy.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from .spectral import pivoted_cholesky

_dpstrf = scipy.linalg.lapack.dpstrf
_sytrd = scipy.linalg.lapack.dsytrd
_ptsv = scipy.linalg.lapack.dptsv
_orghr = scipy.linalg.lapack.dorghr
_trtrs = scipy.linalg.lapack.dtrtrs
_geqrf = scipy.linalg.lapack.dgeqrf

__all__ = ["ridge_path_errors", "ridge_path_errors_on_centres", "ridge_path_fit"]

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
    return _path_errors(S_fit, S_cc, y_fit, S_val, y_val, thetas, mus, rtol,
                        _ridge_predictions)


def _ridge_path_errors_eigh(S_fit: NDArray, S_cc: NDArray, y_fit: NDArray, S_val: NDArray,
                            y_val: NDArray, thetas: NDArray, mus: NDArray, *,
                            rtol: float = RIDGE_PATH_RTOL) -> NDArray[np.float64]:
    """:func:`ridge_path_errors` by one eigendecomposition of ``B^T B`` per width (the
    route before the tridiagonal one; the tests' reference)."""
    return _path_errors(S_fit, S_cc, y_fit, S_val, y_val, thetas, mus, rtol,
                        _ridge_predictions_eigh)


def _path_errors(S_fit, S_cc, y_fit, S_val, y_val, thetas, mus, rtol, predictions):
    S_fit = np.asarray(S_fit, dtype=float)
    S_val = np.asarray(S_val, dtype=float)
    y_fit = np.asarray(y_fit, dtype=float)
    y_val = np.asarray(y_val, dtype=float)
    mus = np.asarray(mus, dtype=float)
    b = float(y_fit.mean())
    r = y_fit - b
    out = np.full((len(thetas), mus.size), np.inf)
    with np.errstate(all="ignore"):
        for i, t, P in _centre_kernels(S_cc, thetas):
            p = t * t
            LJ, J = _pivoted_factor(P, rtol)
            if J.size == 0:  # every centre's kernel vanishes: the fit is the mean
                out[i] = np.mean((b - y_val) ** 2)
                continue
            Bf = _features(S_fit, J, p, LJ)
            Bv = Bf if S_val is S_fit else _features(S_val, J, p, LJ)
            fitted = predictions(Bf, Bv, r, mus)
            if fitted is None:  # a shifted tridiagonal was not positive definite
                fitted = _ridge_predictions_eigh(Bf, Bv, r, mus)
            err = np.mean((fitted + b - y_val[:, None]) ** 2, axis=0)
            out[i] = np.where(np.isfinite(err), err, np.inf)
    return out


def _ridge_predictions_eigh(Bf: NDArray, Bv: NDArray, r: NDArray, mus: NDArray) -> NDArray:
    """``Bv (Bf^T Bf + mu I)^{-1} Bf^T r`` for every ``mu`` (columns), from the
    eigendecomposition ``Bf^T Bf = W diag(s) W^T``."""
    s, W = np.linalg.eigh(Bf.T @ Bf)
    s = np.maximum(s, 0.0)
    proj = W.T @ (Bf.T @ r)
    return (Bv @ W) @ (proj[:, None] / (s[:, None] + mus[None, :]))


def _ridge_predictions(Bf: NDArray, Bv: NDArray, r: NDArray, mus: NDArray) -> NDArray | None:
    """:func:`_ridge_predictions_eigh` from the Householder tridiagonalisation
    ``Bf^T Bf = Q T Q^T`` with ``Q e_1`` along ``g = Bf^T r`` (``dsytrd`` on the Gram
    matrix bordered by ``g``, ``Q`` formed by ``dorghr``): ``(T + mu I)^{-1} |g| e_1`` is
    one tridiagonal solve per ridge, then ``Bv Q`` times those. None if a shifted
    tridiagonal was not positive definite."""
    k = Bf.shape[1]
    A = np.empty((k + 1, k + 1))
    A[0, 0] = 0.0
    A[1:, 0] = Bf.T @ r
    A[1:, 1:] = Bf.T @ Bf
    a, d, e, tau, info = _sytrd(A, lower=1)
    if info != 0:  # pragma: no cover (LAPACK failure)
        return None
    Y = _shifted_solves(d[1:], e[1:], e[0], mus)
    if Y is None:
        return None
    Q, info = _orghr(a, tau)
    if info != 0:  # pragma: no cover (LAPACK failure)
        return None
    return Bv @ (Q[1:, 1:] @ Y)


def _shifted_solves(diag: NDArray, off: NDArray, head: float, mus: NDArray
                    ) -> NDArray | None:
    """Columns ``(T + mu I)^{-1} head e_1`` for every ``mu``, ``T`` the symmetric
    tridiagonal ``(diag, off)`` (LAPACK ``dptsv``); None if a shift is not positive
    definite."""
    k = diag.size
    if not (np.all(np.isfinite(diag)) and np.all(np.isfinite(off)) and np.isfinite(head)):
        return None
    rhs = np.zeros(k)
    rhs[0] = head
    Y = np.empty((k, mus.size))
    for j, mu in enumerate(mus):
        if k == 1:
            if not diag[0] + mu > 0:
                return None
            Y[:, j] = rhs / (diag + mu)
            continue
        _, _, x, info = _ptsv(diag + mu, off, rhs)
        if info != 0:
            return None
        Y[:, j] = x
    return Y


def ridge_path_errors_on_centres(S_cc: NDArray, y_c: NDArray, thetas: NDArray, mus: NDArray,
                                 *, rtol: float = RIDGE_PATH_RTOL) -> NDArray[np.float64]:
    r""":func:`ridge_path_errors` when the fitted points and the validation points are both
    exactly the centres (``ridge_path_errors(S_cc, S_cc, y_c, S_cc, y_c, ...)``): the same
    model, the same errors up to round-off, by one tridiagonalisation per width instead of
    an eigendecomposition (see the module's notes).

    Parameters
    ----------
    S_cc : array (N, N)
        Squared distances among the centres.
    y_c : array (N,)
        The targets at the centres, in the centres' order.
    thetas, mus : the widths ``t`` and ridges ``mu`` of the grid (every ``mu > 0``)

    Returns
    -------
    errors : array (len(thetas), len(mus)); ``inf`` where a width's kernel is not finite.
    """
    S_cc = np.asarray(S_cc, dtype=float)
    y_c = np.asarray(y_c, dtype=float)
    mus = np.asarray(mus, dtype=float)
    n = y_c.size
    r = y_c - float(y_c.mean())
    out = np.full((len(thetas), mus.size), np.inf)
    with np.errstate(all="ignore"):
        for i, t, P in _centre_kernels(S_cc, thetas):
            c, piv, k, info = _dpstrf(P, tol=rtol, lower=1)
            if info < 0 or k < 0:  # pragma: no cover (LAPACK failure): the general route
                out[i] = _ridge_path_errors_eigh(S_cc, S_cc, y_c, S_cc, y_c, [t], mus,
                                                rtol=rtol)[0]
                continue
            if k == 0:  # every centre's kernel vanishes: the fit is the mean
                out[i] = np.mean(r ** 2)
                continue
            errs = _residual_norms(P, c, piv - 1, k, r, mus)
            if errs is None:  # a shifted tridiagonal was not positive: the general route
                errs = _ridge_path_errors_eigh(S_cc, S_cc, y_c, S_cc, y_c, [t], mus,
                                               rtol=rtol)[0]
            else:
                errs = errs / n
            out[i] = np.where(np.isfinite(errs), errs, np.inf)
    return out


def _residual_norms(P: NDArray, c: NDArray, piv: NDArray, k: int, r: NDArray,
                    mus: NDArray) -> NDArray | None:
    r"""``||mu (P~ + mu I)^{-1} r||^2`` for every ``mu``, ``P~ = L L^T`` the pivoted factor
    (``c``, ``piv``, rank ``k`` from ``dpstrf``); None if a shifted tridiagonal was not
    positive definite. At full rank ``P~`` is ``P``: ``P`` bordered by ``r`` is reduced
    directly. Below it, ``[L, r_piv] = Q [[R, z], [0, rho]]`` splits ``r`` into ``rho``
    outside the span of ``L`` (left as it is by every ridge) and ``z`` inside, where
    ``P~`` is ``R R^T``."""
    n = r.size
    outside = 0.0
    if k == n:
        M, z = P, r
    else:
        # LAPACK's geqrf directly (SciPy's qr wrapper cost as much as the factor here)
        R, _, _, info = _geqrf(np.column_stack([np.tril(c[:, :k]), r[piv]]),
                               lwork=64 * (k + 1), overwrite_a=1)
        if info != 0:  # pragma: no cover (LAPACK's own argument check)
            return None
        outside = float(R[k, k]) ** 2
        R11 = np.triu(R[:k, :k])
        M, z = R11 @ R11.T, R[:k, k]
    A = np.empty((k + 1, k + 1))
    A[0, 0] = 0.0
    A[1:, 0] = z
    A[1:, 1:] = M
    _, d, e, _, info = _sytrd(A, lower=1)
    # Q e_1 = z / |e[0]|: z^T f(M) z = e[0]^2 (f(T))_{11}
    Y = _shifted_solves(d[1:], e[1:], e[0], mus) if info == 0 else None
    if Y is None:
        return None
    return outside + mus * mus * np.sum(Y * Y, axis=0)


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


def _centre_kernels(S_cc: NDArray, thetas: NDArray):
    """``(i, t_i, exp(-t_i^2 S_cc))`` for each width of the grid whose kernel among the
    centres is finite (a width whose kernel is not keeps its ``inf`` errors)."""
    for i, t in enumerate(thetas):
        t = float(t)
        P = np.exp(-(t * t) * S_cc)
        if np.all(np.isfinite(P)):
            yield i, t, P


def _features(S: NDArray, J: NDArray, p: float, LJ: NDArray) -> NDArray:
    """``B = exp(-p S[:, J]) L_J^{-T}``: the whitened features on the pivots. LAPACK's
    ``trtrs`` called as ``scipy.linalg.solve_triangular`` calls it (on the transpose of
    a C-ordered ``L_J``), without the wrapper's cost (about a tenth of the search): the
    same numbers, bit for bit."""
    K = np.exp(-p * S[:, J])
    if LJ.flags.f_contiguous:
        X, info = _trtrs(LJ, K.T, lower=1, trans=0)
    else:
        X, info = _trtrs(LJ.T, K.T, lower=0, trans=1)
    if info != 0:  # pragma: no cover (a zero pivot: dpstrf keeps none)
        return scipy.linalg.solve_triangular(LJ, K.T, lower=True, check_finite=False).T
    return X.T


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
