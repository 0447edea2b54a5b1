r"""Spectral building blocks: PSD parts, singular value thresholding, spectra.

For a symmetric PSD matrix :math:`M = V \operatorname{diag}(\lambda) V^\top` the
singular value thresholding operator is
:math:`J_s(M) = V \operatorname{diag}(\max(\lambda - s, 0)) V^\top`. Only eigenpairs
with :math:`\lambda > s` contribute, so partial eigensolvers are the fast route for
large ``n``; :func:`svt` picks dense ``eigh`` for small matrices and Lanczos
(``scipy.sparse.linalg.eigsh``) when a rank bound is given.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from scipy.linalg.lapack import dsyevr as _dsyevr
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

#: LAPACK drivers tried in turn by :func:`eigh_full`: divide and conquer first (the
#: fastest full solver at the sizes used here), then MRRR, then the QR algorithm.
_FULL_DRIVERS = ("evd", "evr", "ev")


def eigh_full(M: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """All eigenpairs of a symmetric matrix (ascending), robust to LAPACK driver failures.

    NumPy's ``eigh`` (LAPACK ``syevd``, divide and conquer) first: the same driver as
    SciPy's ``"evd"`` with a fifth of its call overhead, which is most of the cost below
    100 x 100 (DANK's support-trick matrices; 30 % of a DANK map's eigendecomposition
    time). LAPACK's drivers fail on some well-posed inputs (e.g. ``evr`` with a value
    subset on ``11^T + 1e-3 I`` raises "Internal Error"), so on failure each of
    SciPy's drivers in turn is tried and the first answer is returned; only if all of
    them fail is the last ``LinAlgError`` raised.
    """
    M = np.asarray(M, dtype=float)
    try:
        return np.linalg.eigh(M)
    except np.linalg.LinAlgError as e:
        err: Exception = e
    for driver in _FULL_DRIVERS:
        try:
            return scipy.linalg.eigh(M, check_finite=False, driver=driver)
        except (np.linalg.LinAlgError, ValueError) as e:
            err = e
    raise np.linalg.LinAlgError(
        f"every symmetric eigensolver failed on a {M.shape[0]} x {M.shape[0]} "
        f"matrix ({err}); the matrix is probably not finite.") from err


#: :func:`eigh_above` computes only the eigenpairs above the threshold when the caller
#: expects at most this share of them (measured on DANK's support-trick matrices, one
#: BLAS thread: at a share below 5 % the value subset costs half the full decomposition,
#: at 10-20 % the same, above 30 % twice as much)
PARTIAL_SHARE = 0.1
#: ... and only from this size on (below it the call overhead dominates either way)
PARTIAL_MIN_SIZE = 24


def eigh_above(M: ArrayLike, s: float, *, expected: int | None = None
               ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Eigenpairs of a symmetric matrix with eigenvalue ``> s`` (ascending).

    By default the full decomposition, filtered: LAPACK's value-subset route
    (``evr`` with ``subset_by_value``) uses bisection and inverse iteration or MRRR on
    the wanted part only, which is 2x slower than a full divide and conquer when many
    eigenvalues are above ``s`` and fails outright on some inputs (the same "Internal Error").
    ``expected`` (e.g. the count found at the previous, nearby iterate of a solver)
    switches to the value subset when it is at most :data:`PARTIAL_SHARE` of the size:
    then only the few eigenpairs above ``s`` are computed (``s < lambda``, the same set
    as the filter), with the full decomposition as the fallback if LAPACK fails. A
    wrong guess costs time, never accuracy.
    """
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    if expected is not None and n >= PARTIAL_MIN_SIZE and expected <= PARTIAL_SHARE * n:
        # LAPACK's dsyevr itself: SciPy's ``eigh`` wrapper costs a fifth of the call at
        # these sizes (its checks and options), which this solver calls thousands of times
        # (it does not check its input: a non-finite M goes to the full route, which raises)
        if np.isfinite(M).all():
            lam, V, m, _, info = _dsyevr(M, compute_v=1, range="V", vl=s, vu=np.inf,
                                         lower=1)
            if info == 0 and np.all(np.isfinite(lam[:m])):
                return lam[:m], V[:, :m]
    lam, V = eigh_full(M)
    keep = lam > s
    return lam[keep], V[:, keep]


def eigh_top(M: ArrayLike, k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``k`` largest eigenpairs (ascending) by LAPACK's index subset, falling back to
    the full decomposition when the subset driver fails (LinAlgError or ValueError)."""
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    try:
        return scipy.linalg.eigh(M, subset_by_index=(n - k, n - 1), check_finite=False,
                                 driver="evr")
    except (np.linalg.LinAlgError, ValueError):
        w, V = eigh_full(M)
        return w[n - k:], V[:, n - k:]


def sym_eigh(M: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Eigen-decomposition of a symmetric matrix, eigenvalues descending."""
    w, V = eigh_full(M)
    return w[::-1], V[:, ::-1]


def top_eigh(M: ArrayLike, k: int, *, v0: ArrayLike | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``k`` largest eigenpairs of a symmetric matrix, descending.

    Dense ``eigh`` restricted to the top ``k`` (LAPACK ``evr`` subset) when ``k`` is a
    large share of ``n``; Lanczos otherwise. Falls back to dense on ARPACK failure.
    """
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    k = int(min(max(k, 1), n))
    if k >= n // 4 or n <= 300:
        w, V = eigh_top(M, k)
        return w[::-1], V[:, ::-1]
    try:
        w, V = eigsh(M, k=k, which="LA", v0=v0)
    except ArpackNoConvergence:
        return top_eigh(M + 0.0, n // 4 + k) if n // 4 + k < n else sym_eigh(M)
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]


def svt(M: ArrayLike, s: float, *, max_rank: int | None = None
        ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""Singular value thresholding :math:`J_s(M)` of a symmetric matrix.

    Parameters
    ----------
    M : array of shape (n, n), symmetric
    s : float >= 0
        Threshold subtracted from every eigenvalue; negative results are zeroed.
    max_rank : int, optional
        Upper bound on the number of eigenvalues above ``s``; enables a partial
        eigensolver. If the bound turns out too small it is doubled until the
        ``max_rank``-th eigenvalue drops below ``s``.

    Returns
    -------
    J : ndarray (n, n)
        The thresholded matrix, exactly symmetric.
    w : ndarray (r,)
        Its nonzero eigenvalues ``lambda - s > 0``, descending.
    V : ndarray (n, r)
        The matching orthonormal eigenvectors.
    """
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    if max_rank is None or max_rank >= n:
        lam, V = sym_eigh(M)
    else:
        k = max(int(max_rank), 1)
        while True:
            lam, V = top_eigh(M, k)
            if lam[-1] <= s or k >= n:
                break
            k = min(2 * k, n)
    keep = lam > s
    w = lam[keep] - s
    V = V[:, keep]
    J = (V * w) @ V.T
    J = 0.5 * (J + J.T)
    return J, w, V


def psd_part(M: ArrayLike) -> NDArray[np.float64]:
    """The projection of a symmetric matrix onto the PSD cone, ``[M]_+ = J_0(M)``."""
    return svt(0.5 * (np.asarray(M, float) + np.asarray(M, float).T), 0.0)[0]


def spectrum(M: ArrayLike) -> NDArray[np.float64]:
    """Eigenvalues of a symmetric matrix, sorted descending (for eigen-decay views)."""
    M = np.asarray(M, dtype=float)
    try:
        return scipy.linalg.eigvalsh(M, check_finite=False)[::-1]
    except (np.linalg.LinAlgError, ValueError):
        return eigh_full(M)[0][::-1]


def numerical_rank(w: ArrayLike, *, rtol: float = 1e-10) -> int:
    """Number of eigenvalues above ``rtol * max|w|`` (0 for an empty or zero spectrum)."""
    w = np.asarray(w, dtype=float)
    if w.size == 0:
        return 0
    top = float(np.max(np.abs(w)))
    if top == 0.0:
        return 0
    return int(np.count_nonzero(w > rtol * top))


def pivoted_cholesky(K: ArrayLike, *, tol: float = 1e-10, max_rank: int | None = None
                     ) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    r"""Low-rank factor ``K ~= Phi Phi^T`` of a PSD matrix by greedy pivoted Cholesky.

    Stops when the largest remaining diagonal of ``K - Phi Phi^T`` is ``<= tol`` (so
    every entry of the residual is below ``tol`` in absolute value, the residual being
    PSD) or at ``max_rank`` columns. Costs ``O(n r^2)``.

    Returns
    -------
    Phi : ndarray (n, r)
    pivots : ndarray (r,) the pivot order
    """
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    r_max = n if max_rank is None else min(int(max_rank), n)
    d = np.diag(K).copy()
    Phi = np.zeros((n, min(r_max, 64)))
    pivots = []
    r = 0
    while r < r_max:
        j = int(np.argmax(d))
        if d[j] <= tol:
            break
        if r == Phi.shape[1]:
            Phi = np.hstack([Phi, np.zeros((n, min(Phi.shape[1], r_max - r)))])
        col = K[:, j] - Phi[:, :r] @ Phi[j, :r]
        col /= np.sqrt(d[j])
        Phi[:, r] = col
        d -= col * col
        d[j] = 0.0
        pivots.append(j)
        r += 1
    return Phi[:, :r].copy(), np.asarray(pivots, dtype=np.intp)
