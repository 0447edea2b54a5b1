r"""KNPL: a kernel with a nonlinear pairwise layer.

The paper: Liu et al., *Nonlinear Pairwise Layer and Its Training for Kernel Learning*,
AAAI 2018; the maths: docs/the-maths-of-every-method.md, 'KNPL — Nonlinear Pairwise
Layer and Its Training for Kernel Learning'.

.. math::

    \max_{\alpha\in A}\ \min_{G\succeq 0,\ G1 = n1}\
    H(\alpha, G) = 1^\top\alpha - \tfrac12\,\alpha^\top Y(G\circ K)Y\alpha
    + \gamma\,\|G\|_F^2,
    \qquad A = \{0 \le \alpha \le C,\ \alpha^\top y = 0\}.

For fixed :math:`\alpha` the inner problem is the projection (eq. 13)

.. math:: G^* = \arg\min_{G\succeq 0,\ G1=n1} \|G - \Gamma\|_F^2, \qquad
          \Gamma = \tfrac{1}{4\gamma}\,\mathrm{diag}(Y\alpha)\,K\,\mathrm{diag}(Y\alpha),

which has the closed form :math:`G^* = 11^\top + [P\Gamma P]_+`, :math:`P = I -
11^\top/n` (:func:`knpl_inner`); with ``K`` PSD (the Gaussian kernel always is) the
PSD part is the identity. The default solver therefore maximises the concave
:math:`h(\alpha) = H(\alpha, G^*(\alpha))` directly (:class:`_KNPLSaddle`, with DANK's
accelerated projected gradient): the saddle point of eq. (4). The paper's route is kept
as ``solver="alternating"``: ``G`` by the ADMM of Algorithm 1 (:func:`knpl_admm`), then
``alpha`` by SMO (scikit-learn's :class:`~sklearn.svm.SVC` on the precomputed kernel
:math:`G\circ K`), for ``n_outer`` rounds (Algorithm 2); it can cycle. Test points
borrow the column of ``G`` that belongs to their nearest training point (eq. 23), or
the smooth rule's average of all its columns (:mod:`nplk_core.extension`).

Facts used below (all checked by the tests):

* Every matrix the ADMM touches maps :math:`\mathbb{R}^n` into
  :math:`V = \mathrm{span}(\{e_i: \alpha_i \ne 0\} \cup \{1\})`. The ADMM therefore
  runs, exactly, on :math:`(s+1)\times(s+1)` matrices (``s`` = number of support
  vectors) instead of ``n x n``: same iterates, same residuals, far cheaper eigensolves.
* Algorithm 1 converges to :math:`11^\top + [P\Gamma P]_+` (compared with Dykstra's
  alternating projections).
* :math:`h(\alpha) = 1^\top\alpha - \frac12 u^\top K u + \gamma n^2 -
  \gamma\|P\Gamma P\|_F^2` (:math:`u = y\circ\alpha`): the plain SVM dual minus a
  quartic, and :math:`\nabla h = 1 - y\circ(G^*\circ K)u` by Danskin's theorem.
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ._base import (
    IterationLog,
    _OneVsRestMixin,
    any_value,
    bias_from_residual,
    callable_or_none,
    one_of,
    positive,
    positive_int,
    positive_or,
    recover_bias,
    single_thread_blas,
    warn_not_converged,
)
from ._dank_core import solve_apg
from .extension import WIDTH_OF_SIGMA, borrowing, extended_decision
from .kernels import sigma_to_gamma, squared_distances
from .projection import project_dual_from
from .spectral import psd_part

BETA_MAX = 1e8  # cap of the ADMM penalty (eq. 22)


# ---------------------------------------------------------------------------
# Algorithm 1: ADMM for the projection onto {G >= 0, G1 = n1}
# ---------------------------------------------------------------------------

def _fro(M: np.ndarray) -> float:
    """Frobenius norm without BLAS: ``np.linalg.norm`` calls a threaded ``dot`` that
    costs far more than the sum itself on these small matrices when cores are busy."""
    return float(np.sqrt(np.einsum("ij,ij->", M, M)))


def _psd_part_fast(M: np.ndarray) -> np.ndarray:
    """``[M]_+`` of a symmetric matrix, skipping the eigendecomposition when ``M`` is
    already PSD.

    A Cholesky factorisation of ``M + delta I`` with ``delta = p eps max|M|`` succeeds
    iff no eigenvalue lies below about ``-delta``: then ``M`` differs from ``[M]_+`` by
    less than the backward error of ``eigh`` itself, and ``M`` is returned. In KNPL
    (``K`` PSD) this is every iteration: the PSD constraint is inactive and the
    negative eigenvalues seen are rounding (~1e-16 relative).
    """
    p = M.shape[0]
    delta = p * np.finfo(float).eps * max(float(M.max(initial=0.0)),
                                          -float(M.min(initial=0.0)))
    diag = M.diagonal().copy()
    M.flat[::p + 1] += delta
    try:
        np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        M.flat[::p + 1] = diag
        return psd_part(M)
    M.flat[::p + 1] = diag
    return M


def _admm_core(Gam: np.ndarray, w: np.ndarray, G0: np.ndarray | None, rho: float,
               max_iter: int, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 in coordinates where the all-ones vector is ``w`` (``n = w.w``).

    Written with in-place updates (the ``n = s + 1 = 200`` case is memory-bound)."""
    n = float(w @ w)
    Q = np.outer(w, w) if G0 is None else G0.copy()
    Z = np.outer(w, w)
    G = Q
    beta = 1.0
    residuals = np.empty(max_iter)
    k = 0
    for k in range(max_iter):  # noqa: B007 - k is used after the loop
        c = 1.0 / (1.0 + beta)
        # Step 1 (eq. 16): G = [(beta Q + Z + Gamma) / (1 + beta)]_+
        M = beta * Q
        M += Z
        M += Gam
        M *= c
        G = _psd_part_fast(M)
        # Step 2 (eq. 17): Q = P_B(Xi), Xi = (beta G - Z + Gamma) / (1 + beta). P_B is
        # the exact projection onto the symmetric matrices with Q1 = n1:
        # Xi + (r w^T + w r^T)/n - (w^T r/n^2) w w^T = Xi + u w^T + w u^T with
        # r = n w - Xi w and u = r/n - (w^T r/(2 n^2)) w (every row sum becomes n).
        Q_new = beta * G
        Q_new -= Z
        Q_new += Gam
        Q_new *= c
        r = n * w - Q_new @ w
        u = r / n - ((w @ r) / (2.0 * n * n)) * w
        T = np.outer(u, w)
        Q_new += T
        Q_new += T.T
        # Step 3 (eqs. 21-22): Z <- Z - beta (G - Q); ||dZ|| = beta ||G - Q||
        D = G - Q_new
        dz = beta * _fro(D)
        D *= beta
        Z = Z - D
        residuals[k] = max(_fro(Q_new - Q), dz)
        Q = Q_new
        beta = min(rho * beta, BETA_MAX)
        if residuals[k] <= tol:
            break
    return G, residuals[:k + 1]


def _invariant_split(Gamma: np.ndarray, G0: np.ndarray | None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``T`` and ``N`` such that every input has identical rows on ``N``
    (zero rows of ``Gamma``; equal rows of ``G0``): then all ADMM iterates live on
    ``span({e_i: i in T} ∪ {1_N})``."""
    on_n = ~np.any(Gamma != 0.0, axis=1)
    if G0 is not None:
        cand = np.flatnonzero(on_n)
        if cand.size:
            same = np.all(G0[cand] == G0[cand[0]], axis=1)
            on_n[cand[~same]] = False
    return np.flatnonzero(~on_n), np.flatnonzero(on_n)


def knpl_admm(Gamma: ArrayLike, *, rho: float = 1.1, max_iter: int = 15,
              tol: float = 1e-4, G0: ArrayLike | None = None
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Algorithm 1 of KNPL: ADMM for :math:`\min_{G\succeq 0,\ G1=n1}\|G-\Gamma\|_F^2`.

    Splitting :math:`G = Q` with :math:`G \succeq 0`, :math:`Q1 = n1` (eq. 14), from
    :math:`G = Q = Z = 11^\top`, :math:`\beta_0 = 1`:

    .. math::

        G &\leftarrow [(\beta Q + Z + \Gamma)/(1+\beta)]_+ \\
        Q &\leftarrow P_B((\beta G - Z + \Gamma)/(1+\beta)) \\
        Z &\leftarrow Z - \beta (G - Q), \qquad \beta \leftarrow \min(\rho\beta, 10^8)

    until ``max_iter`` iterations or
    :math:`\max(\|Q_{k+1}-Q_k\|_F, \|Z_{k+1}-Z_k\|_F) \le` ``tol``.

    :math:`P_B` is the exact projection onto the symmetric matrices whose rows all sum
    to ``n``: :math:`\Xi + (r1^\top + 1r^\top)/n - (1^\top r/n^2)\,11^\top` with
    :math:`r = n1 - \Xi 1`. (The paper's per-column rule :math:`q = \xi + ((n-1^\top\xi)/n)1`
    fixes column sums and leaves ``Q`` asymmetric, while eq. 15 takes
    :math:`Z \in S^n`; both ADMMs have the same limit.)

    Parameters
    ----------
    Gamma : array of shape (n, n), symmetric
        The target :math:`\Gamma = \frac{1}{4\gamma}\mathrm{diag}(Y\alpha)K\mathrm{diag}(Y\alpha)`.
    rho : float >= 1
        Growth factor of the ADMM penalty :math:`\beta` (paper: 1.1; 1 keeps
        :math:`\beta = 1`). Not the :math:`\rho` of ONK.
    max_iter : int
        :math:`k_{max}` (paper: 15).
    tol : float
        Stopping threshold on the residual (paper: 1e-4).
    G0 : array of shape (n, n), optional
        Starting value of ``Q`` (the first ``G`` is computed from it; default
        :math:`11^\top`, the paper's); ``Z`` always starts at :math:`11^\top`.

    Returns
    -------
    G : ndarray of shape (n, n)
        The last ``G`` iterate: PSD up to rounding (an eigen-reconstruction, or a
        matrix whose Cholesky with a ``p eps max|M|`` shift succeeded).
    residuals : ndarray of shape (n_iterations,)
        :math:`\max(\|\Delta Q\|_F, \|\Delta Z\|_F)` per iteration (Fig. 3a).

    Notes
    -----
    Rows where ``Gamma`` vanishes (non-support vectors) stay identical in every
    iterate, so the iteration runs exactly on :math:`(s+1)\times(s+1)` matrices in the
    orthonormal basis :math:`\{e_i: i \in T\} \cup \{1_N/\sqrt{|N|}\}`; Frobenius norms,
    hence residuals, are unchanged. For PSD ``Gamma`` the limit is
    :math:`11^\top + P\Gamma P`, :math:`P = I - 11^\top/n`.
    """
    Gamma = np.asarray(Gamma, dtype=float)
    if Gamma.ndim != 2 or Gamma.shape[0] != Gamma.shape[1]:
        raise ValueError(f"Gamma must be a square matrix, got shape {Gamma.shape}.")
    if not np.all(np.isfinite(Gamma)):
        raise ValueError("Gamma contains NaN or inf; check alpha, K and gamma.")
    if isinstance(rho, bool) or not isinstance(rho, Real) or not np.isfinite(rho) or rho < 1:
        raise ValueError(f"rho (ADMM penalty growth) must be a finite number >= 1, "
                         f"got {rho!r}.")
    positive_int("max_iter", max_iter)
    positive("tol", tol)
    n = Gamma.shape[0]
    Gamma = 0.5 * (Gamma + Gamma.T)
    if G0 is not None:
        G0 = np.asarray(G0, dtype=float)
        if G0.shape != Gamma.shape:
            raise ValueError(f"G0 must have shape {Gamma.shape}, got {G0.shape}.")
        G0 = 0.5 * (G0 + G0.T)
    T, N = _invariant_split(Gamma, G0)
    m, s = N.size, T.size
    if m <= 1:  # nothing to compress
        return _admm_core(Gamma, np.ones(n), G0, rho, max_iter, tol)
    root = np.sqrt(m)
    p = s + 1
    w = np.ones(p)
    w[s] = root
    Gam = np.zeros((p, p))
    Gam[:s, :s] = Gamma[np.ix_(T, T)]
    G0r = None
    if G0 is not None:
        G0r = np.empty((p, p))
        G0r[:s, :s] = G0[np.ix_(T, T)]
        G0r[:s, s] = G0r[s, :s] = root * G0[T, N[0]]
        G0r[s, s] = m * G0[N[0], N[0]]
    Gr, residuals = _admm_core(Gam, w, G0r, rho, max_iter, tol)
    return _expand(Gr, T, N), residuals


def _expand(Gr: np.ndarray, T: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Back from the basis ``{e_T, 1_N/sqrt(m)}`` to the full ``n x n`` matrix."""
    s, m = T.size, N.size
    G = np.empty((s + m, s + m))
    root = np.sqrt(m)
    G[np.ix_(T, T)] = Gr[:s, :s]
    edge = Gr[:s, s] / root
    G[np.ix_(T, N)] = edge[:, None]
    G[np.ix_(N, T)] = edge[None, :]
    G[np.ix_(N, N)] = Gr[s, s] / m
    return G


def knpl_objective(alpha: ArrayLike, y: ArrayLike, K: ArrayLike, G: ArrayLike, *,
                   gamma: float) -> float:
    r"""The saddle function :math:`H(\alpha, G) = 1^\top\alpha - \frac12\alpha^\top
    Y(G\circ K)Y\alpha + \gamma\|G\|_F^2` (eq. 4)."""
    alpha = np.asarray(alpha, dtype=float)
    u = alpha * np.asarray(y, dtype=float)
    G = np.asarray(G, dtype=float)
    return float(alpha.sum() - 0.5 * u @ ((G * np.asarray(K, dtype=float)) @ u)
                 + gamma * np.sum(G * G))


def knpl_gamma_matrix(alpha: ArrayLike, y: ArrayLike, K: ArrayLike, *, gamma: float
                      ) -> NDArray[np.float64]:
    r""":math:`\Gamma = \frac{1}{4\gamma}\mathrm{diag}(Y\alpha)\,K\,\mathrm{diag}(Y\alpha)`."""
    u = np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)
    return (u[:, None] * np.asarray(K, dtype=float)) * (u[None, :] / (4.0 * gamma))


# ---------------------------------------------------------------------------
# The inner minimiser in closed form and the concave outer problem
# ---------------------------------------------------------------------------

def knpl_inner(alpha: ArrayLike, y: ArrayLike, K: ArrayLike, *, gamma: float,
               kernel_psd: bool = False) -> NDArray[np.float64]:
    r"""The exact inner minimiser :math:`G^*(\alpha) = 11^\top + [P\Gamma P]_+`.

    :math:`\min_{G\succeq 0, G1=n1}\|G-\Gamma\|_F^2`: every feasible ``G`` is
    :math:`11^\top + M` with :math:`M = PMP \succeq 0` (``1/sqrt(n)`` is an eigenvector
    of ``G`` with eigenvalue ``n``), and :math:`\Gamma - P\Gamma P` is orthogonal to every
    such ``M``, so :math:`M^* = [P\Gamma P]_+` (its range stays orthogonal to ``1``).
    With ``K`` PSD, :math:`\Gamma` and :math:`P\Gamma P` are PSD and no eigendecomposition
    is needed; an indefinite ``K`` gets the PSD part (one ``eigh``). The PSD-ness is
    tested (a shifted Cholesky, :math:`O(n^3/3)`) unless ``kernel_psd=True`` promises it
    (the estimator's Gaussian kernel: then ``G`` is PSD up to rounding of ``K``).
    """
    Gamma = knpl_gamma_matrix(alpha, y, K, gamma=gamma)
    Gamma = 0.5 * (Gamma + Gamma.T)
    v = Gamma.mean(axis=1)
    M = Gamma - v[:, None] - v[None, :] + v.mean()
    G = M if kernel_psd or not M.shape[0] else _psd_part_fast(M)
    G += 1.0
    return G


class _SaddleInner:
    """What one evaluation of :class:`_KNPLSaddle` leaves behind for the solver's log and
    for the bias: ``Qu = (G* o K) u``; ``rank`` = rank of ``G*`` = ``min(|S| + 1, n)``
    (``K`` strictly PD, i.e. distinct points)."""

    __slots__ = ("Qu", "rank")

    def __init__(self, Qu: np.ndarray, rank: int) -> None:
        self.Qu = Qu
        self.rank = rank


class _KNPLSaddle:
    r"""The concave outer problem :math:`\max_{\alpha\in A} h(\alpha)` in the interface
    of :mod:`nplk_core._dank_core`'s solvers (``project``, ``evaluate``).

    With :math:`u = y\circ\alpha`, :math:`c = 1/(4\gamma)`, :math:`\Gamma = c\,D_u K D_u`,
    :math:`v = \Gamma 1 = c\,u\circ Ku`:

    .. math::

        h(\alpha) &= 1^\top\alpha - \tfrac12 u^\top K u + \gamma n^2
                     - \gamma\|P\Gamma P\|_F^2,\\
        \|P\Gamma P\|_F^2 &= c^2 (u\circ u)^\top (K\circ K)(u\circ u) - 2\|v\|^2/n
                             + (1^\top v)^2/n^2,\\
        (G^*\circ K)u &= (1 + 1^\top v/n^2)\,Ku + c\,u\circ (K\circ K)(u\circ u)
                         - (v\circ Ku + K(v\circ u))/n,

    and :math:`\nabla h = 1 - y\circ(G^*\circ K)u` (Danskin: :math:`G^*` is the unique
    inner minimiser). Three matrix-vector products per evaluation, no ``n x n`` matrix
    is formed. Needs ``K`` PSD (then :math:`G^* = 11^\top + P\Gamma P`); the estimator's
    Gaussian kernel always is. With an indefinite ``K``, :math:`G^*` would need the PSD
    part of :math:`P\Gamma P` (an eigendecomposition per evaluation, as
    :func:`knpl_inner` does) and ``h`` would no longer be concave, so the problem is not
    offered for it. ``evaluate`` returns :math:`h - \gamma n^2` (add ``offset``).
    """

    def __init__(self, K: np.ndarray, y: np.ndarray, C: float, gamma: float) -> None:
        self.K = K
        self.K2 = K * K
        self.y = y
        self.n = y.size
        self.C = float(C)
        self.gamma = float(gamma)
        #: gamma n^2, left out of ``evaluate``: at large gamma it would swamp the
        #: variable part of h in rounding (and the solver's ascent tests with it)
        self.offset = self.gamma * self.n ** 2
        self.n_evals = 0
        self._lam = 0.0  # last multiplier of the projection (warm start)

    def project(self, v: np.ndarray) -> np.ndarray:
        r"""Exact projection onto ``A``, :math:`\mathrm{clip}(v - \lambda^* y, 0, C)`.

        Successive iterates have nearly the same multiplier, so the search starts from
        the last one (:func:`~nplk_core.projection.project_dual_from`)."""
        alpha, self._lam = project_dual_from(v, self.y, self.C, self._lam)
        return alpha

    def evaluate(self, alpha: np.ndarray, *, gradient: bool = True
                 ) -> tuple[float, np.ndarray | None, _SaddleInner]:
        self.n_evals += 1
        n, g4 = self.n, self.gamma
        c = 0.25 / g4
        u = alpha * self.y
        Ku = self.K @ u
        w = u * u
        K2w = self.K2 @ w
        v = c * (u * Ku)
        sv = float(v.sum())
        pgp2 = c * c * float(w @ K2w) - 2.0 * float(v @ v) / n + sv * sv / (n * n)
        h = float(alpha.sum() - 0.5 * (u @ Ku) - g4 * pgp2)  # + self.offset
        Qu = (1.0 + sv / (n * n)) * Ku
        Qu += c * (u * K2w)
        Qu -= (v * Ku + self.K @ (v * u)) / n
        grad = 1.0 - self.y * Qu if gradient else None
        return h, grad, _SaddleInner(Qu, min(int(np.count_nonzero(u)) + 1, n))

    def snapshot(self, alpha: np.ndarray, inner: _SaddleInner) -> dict:
        """The iterate the training replay keeps: ``alpha`` (which defines ``G*``) and
        its bias (the SVM bias rule of docs/the-maths-of-every-method.md, 'Shared pieces', on
        ``G* o K``, from ``Qu``)."""
        return {"alpha": alpha,
                "bias": bias_from_residual(alpha, self.y, self.y - inner.Qu, self.C)}

    def lipschitz(self) -> float:
        r"""An upper bound on the curvature of ``h`` along any segment with
        :math:`|u_i| \le 2C` (the momentum point of APG may leave ``A`` by up to one
        step): :math:`\lambda + (2C)^2 (2 r_2 + \lambda^2)/(4\gamma)`, with
        :math:`\lambda` the Gershgorin bound on :math:`\lambda_{max}(K)` and
        :math:`r_2 = \max_i \sum_j K_{ij}^2` (second derivative of the quartic term
        :math:`\gamma\|P\Gamma P\|_F^2`, bounded by Schur's product theorem)."""
        lam = float(np.abs(self.K).sum(axis=1).max())
        r2 = float(self.K2.sum(axis=1).max())
        C2 = 4.0 * self.C ** 2
        return lam + C2 * (2.0 * r2 + lam * lam) / (4.0 * self.gamma)


# ---------------------------------------------------------------------------
# helpers of the estimator
# ---------------------------------------------------------------------------

def _rule_admm_growth(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value) \
            or value < 1:
        raise ValueError(
            f"{name} is the ADMM penalty growth (beta <- min({name} * beta, 1e8)) and must "
            f"be a finite number >= 1 (1 keeps beta fixed; the paper uses 1.1), got "
            f"{value!r}.")


def _svc_alpha(svc: SVC, y: np.ndarray) -> np.ndarray:
    """Full-length dual vector from a fitted binary SVC (zeros off the support)."""
    alpha = np.zeros(y.size)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha


# ---------------------------------------------------------------------------
# estimator
# ---------------------------------------------------------------------------

class KNPLClassifier(_OneVsRestMixin, ClassifierMixin, BaseEstimator):
    r"""SVM with a learned nonlinear pairwise layer ``G`` (KNPL).

    .. math::

        \max_{\alpha\in A}\ \min_{G\succeq 0,\ G1=n1}\
        1^\top\alpha - \tfrac12\,\alpha^\top Y(G\circ K)Y\alpha + \gamma\|G\|_F^2

    with the Gaussian kernel :math:`K_{ij} = \exp(-\|x_i-x_j\|^2/(2\sigma^2))`.

    ``solver="apg"`` (default) reaches the saddle point: the inner minimiser is
    :math:`G^*(\alpha) = 11^\top + P\Gamma(\alpha)P` in closed form (``K`` is PSD; see
    :func:`knpl_inner`), so the outer problem is the concave
    :math:`h(\alpha) = H(\alpha, G^*(\alpha))`, maximised over ``A`` by the accelerated
    projected gradient of DANK (:func:`nplk_core._dank_core.solve_apg`, backtracking and
    restarts) from the plain SVM's dual vector, at :math:`O(n^2)` per step
    (:class:`_KNPLSaddle`). ``solver="alternating"`` is the paper's Algorithm 2: each of
    ``n_outer`` rounds computes ``G`` by the ADMM of :func:`knpl_admm` (from
    :math:`11^\top`) and then :math:`\alpha` by SMO on :math:`G\circ K` (libsvm). It is a
    best-response iteration, not an ascent on ``h``: on the clowns (n = 80, six settings
    of sigma, C, gamma) it 2-cycles with ``h`` 3.8 to 600 below the optimum and
    :math:`\alpha` up to 0.93 C away from it, and warns.

    Parameters
    ----------
    C : float > 0
        Box constraint of the SVM.
    sigma : float > 0
        Width of the Gaussian kernel.
    gamma : float > 0 or "auto"
        Weight of :math:`\|G\|_F^2`. Large ``gamma`` shrinks :math:`\Gamma` to 0, ``G``
        to :math:`11^\top` and the model to the plain SVM. ``"auto"`` (default) uses
        :math:`5\|\alpha_{SVM}\|_\infty^2` (dual vector of the plain SVM with the same
        sigma and C; ``5 C^2`` whenever a support vector is at the bound): the largest
        entry of :math:`\Gamma`, :math:`\alpha_i\alpha_j K_{ij}/(4\gamma)`, is then 0.05
        at that vector, and ``G - 11^T`` = :math:`P\Gamma P` stays in the band
        0.95-1.05 of the paper's Fig. 2 (always within :math:`1 \pm C^2/\gamma`, as
        :math:`P\Gamma P` is PSD with diagonal at most :math:`4\max_i\Gamma_{ii}`).
        Measured at the page defaults (sigma = 1, C = 1, 140 training points), G spans
        0.950-1.052 on all six built-in data sets, while ``gamma = 1`` (the old default)
        gives 0.85-1.25 and ``gamma = ||alpha_SVM||^2`` (DANK's eta rule) 0.992-1.008. The
        boundary still moves: test accuracy against the plain SVM 0.933 / 0.817
        (sandwich), 0.983 / 0.933 (moons), 0.867 / 0.550 (chessboard), 0.983 / 0.617
        (spiral), equal on clowns and circles (``G o K`` adds a term
        :math:`\propto D(K\circ K)D`, a Gaussian of width :math:`\sigma/\sqrt2`).
    solver : {"apg", "alternating"}
        The saddle point by accelerated projected gradient on ``h`` (default), or the
        paper's Algorithm 2 (can cycle; then it warns).
    max_iter : int
        Iteration cap of ``"apg"``.
    tol : float > 0
        ``"apg"``: stop when :math:`\|\alpha_{k+1}-\alpha_k\| \le`
        ``tol`` :math:`\cdot\max(\|\alpha_{SVM}\|, 1)` (Algorithm 1 of DANK's rule, made
        scale-free), or when a plain gradient step no longer raises ``h`` (stationary to
        round-off). ``"alternating"``: the rounds stop once :math:`\|\alpha_t-\alpha_{t-1}\|
        \le` ``tol`` :math:`\cdot\max(\|\alpha_t\|, 1)` (the paper always runs
        ``n_outer`` rounds).
    rho : float >= 1
        ``"alternating"`` only: ADMM penalty growth, :math:`\beta \leftarrow
        \min(\rho\beta, 10^8)` (paper: 1.1). Not the neighbourhood penalty of ONK.
    n_outer : int
        ``"alternating"`` only: rounds ``T`` of Algorithm 2 (paper: 10).
    admm_max_iter : int
        ``"alternating"`` only: iterations :math:`k_{max}` of each ADMM (paper: 15).
    admm_tol : float > 0
        ``"alternating"`` only: ADMM stopping threshold on
        :math:`\max(\|\Delta Q\|_F, \|\Delta Z\|_F)` (paper: 1e-4).
    extension : {"nearest", "smooth"}
        Out-of-sample rule: a test point uses the column of ``G`` of its nearest
        training point (eq. 23), or (``"smooth"``, the lab's, not the paper's) the
        Nadaraya–Watson average of all columns, :math:`\tilde G(x, x_i) = \sum_l
        p_l(x) G_{li}`, :math:`p_l(x) \propto \exp(-\|x - x_l\|^2/(2h^2))`
        (:mod:`nplk_core.extension`); ``G = 11^T`` then gives the plain kernel's
        decision exactly. ``decision_function(X, extension=...)`` overrides it per call.
    extension_width : float > 0 or "sigma"
        The smooth rule's width ``h``; ``"sigma"`` (default) is the kernel's own σ.
    callback : callable, optional
        ``callback(iteration, state, elapsed)`` after every iteration (``"apg"``) or outer
        round (``"alternating"``); ``state`` holds the recorded scalars plus ``"alpha"``
        (and ``"G"`` for ``"alternating"``). Returning True stops the fit.
    random_state : None
        Unused (the algorithm is deterministic); accepted for a uniform API.

    Attributes
    ----------
    G_ : ndarray (n, n)
        Learned pairwise matrix (PSD, row sums ``n``; exactly :math:`G^*(\alpha)` for
        ``"apg"``, up to the ADMM tolerance for ``"alternating"``).
    K_ : ndarray (n, n)
        Gaussian kernel on the training points.
    alpha_ : ndarray (n,)
        Dual vector, zeros off the support.
    dual_coef_ : ndarray (n,)
        :math:`\alpha_i y_i` with ``y`` in ``{-1, +1}``.
    intercept_ : float
        Bias: the SVM bias rule of docs/the-maths-of-every-method.md, 'Shared pieces', on
        :math:`G\circ K` (``"apg"``), libsvm's (``"alternating"``).
    gamma_ : float
        The ``gamma`` used.
    objective_ : float
        :math:`H(\alpha, G)` at the returned pair (eq. 4).
    support_ : ndarray of int
        Indices of the support vectors.
    classes_ : ndarray
        Class labels; ``classes_[1]`` is the ``+1`` class of a binary problem.
    history_ : dict of arrays, one entry per iteration / round
        ``"objective"`` :math:`H(\alpha_t, G_t)` (includes the constant-like
        :math:`\gamma\|G\|_F^2 \approx \gamma n^2`) and ``"time"``. ``"apg"`` adds
        ``"step_norm"`` :math:`\|\alpha_{k+1}-\alpha_k\|` and ``"rank"`` (of
        :math:`G^*`, :math:`\min(|S|+1, n)`); ``"alternating"`` adds ``"svm_dual"``,
        ``"alpha_change"``, ``"G_change"``, ``"admm_iterations"``, ``"admm_residual"``
        and ``"n_support"`` (Fig. 3b).
    admm_history_ : dict of arrays (``"alternating"`` only)
        ``"round"``, ``"iteration"``, ``"residual"`` per ADMM iteration (Fig. 3a).
    n_iter_ : int
        Iterations (``"apg"``) or outer rounds (``"alternating"``) run.
    converged_ : bool
        Whether the stop rule of ``tol`` was met. Otherwise (``max_iter`` / ``n_outer``
        reached) a ConvergenceWarning is raised; a callback stop never warns.

    Notes
    -----
    Multi-class data are handled one-vs-rest: one binary KNPL (its own ``G``) per
    class ``c`` with labels ``+1`` for ``c`` and ``-1`` for the rest; the class with
    the largest decision value wins. Then ``G_`` has shape (n_classes, n, n),
    ``alpha_`` (n_classes, n), ``intercept_``, ``gamma_`` and ``n_iter_`` (n_classes,),
    and the histories gain an ``"estimator"`` column.

    References
    ----------
    .. [1] F. Liu et al., "Nonlinear Pairwise Layer and Its Training for Kernel
       Learning", Proceedings of the AAAI Conference on Artificial Intelligence, 2018.
    """

    _param_rules = {
        "C": positive,
        "sigma": positive,
        "gamma": positive_or("auto"),
        "solver": one_of("apg", "alternating"),
        "max_iter": positive_int,
        "tol": positive,
        "rho": _rule_admm_growth,
        "n_outer": positive_int,
        "admm_max_iter": positive_int,
        "admm_tol": positive,
        "extension": one_of("nearest", "smooth"),
        "extension_width": positive_or(WIDTH_OF_SIGMA),
        "callback": callable_or_none,
        "random_state": any_value,
    }
    _history_attributes = ("history_", "admm_history_")

    def __init__(self, C: float = 1.0, *, sigma: float = 1.0, gamma: float | str = "auto",
                 solver: str = "apg", max_iter: int = 2000, tol: float = 1e-6,
                 rho: float = 1.1, n_outer: int = 10, admm_max_iter: int = 15,
                 admm_tol: float = 1e-4, extension: str = "nearest",
                 extension_width: float | str = "sigma", callback=None,
                 random_state=None) -> None:
        self.C = C
        self.sigma = sigma
        self.gamma = gamma
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.rho = rho
        self.n_outer = n_outer
        self.admm_max_iter = admm_max_iter
        self.admm_tol = admm_tol
        self.extension = extension
        self.extension_width = extension_width
        self.callback = callback
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> KNPLClassifier:
        """Learn ``G`` and the SVM (the saddle point, or Algorithm 2's last round)."""
        X, y = self._validate_fit(X, y)
        K = squared_distances(X)
        K *= -sigma_to_gamma(self.sigma)
        np.exp(K, out=K)
        self.K_ = K
        if hasattr(self, "admm_history_"):  # from an earlier "alternating" fit
            del self.admm_history_
        with single_thread_blas():
            self._fit_all(K, y)
        return self

    def _fit_binary(self, K: np.ndarray, y: np.ndarray) -> dict:
        alpha_svm = None
        if self.gamma == "auto" or self.solver == "apg":
            alpha_svm = _svc_alpha(SVC(kernel="precomputed", C=self.C).fit(K, y), y)
        gamma = (max(5.0 * float(alpha_svm.max()) ** 2, 1e-12) if self.gamma == "auto"
                 else float(self.gamma))
        if self.solver == "alternating":
            return self._fit_alternating(K, y, gamma)
        return self._fit_apg(K, y, gamma, alpha_svm)

    def _fit_apg(self, K: np.ndarray, y: np.ndarray, gamma: float,
                 alpha_svm: np.ndarray) -> dict:
        problem = _KNPLSaddle(K, y, self.C, gamma)
        tol = self.tol * max(float(np.linalg.norm(alpha_svm)), 1.0)
        callback = self.callback
        if callback is not None:  # the solver sees h - gamma n^2; the callback sees h
            def callback(it, state, elapsed, user=self.callback, offset=problem.offset):
                state["objective"] += offset
                return user(it, state, elapsed)
        result = solve_apg(problem, alpha_svm, problem.lipschitz(), max_iter=self.max_iter,
                           tol=tol, callback=callback)
        if not np.isfinite(result.objective):
            raise ValueError(
                f"KNPL's objective became non-finite (C={self.C}, sigma={self.sigma}, "
                f"gamma={gamma:g}); try a larger gamma or sigma, or rescale the features.")
        if not (result.converged or result.stopped):
            warn_not_converged("KNPLClassifier (apg)", self.max_iter,
                               "Increase max_iter or tol.")
        alpha = result.beta
        history = result.log.as_dict()
        history["objective"] += problem.offset
        G = knpl_inner(alpha, y, K, gamma=gamma, kernel_psd=True)  # Gaussian K
        GK = G * K
        return {
            "G_": G, "alpha_": alpha, "dual_coef_": alpha * y,
            "intercept_": recover_bias(alpha, y, GK, self.C),
            "support_": np.flatnonzero(alpha > 0), "gamma_": gamma,
            "objective_": float(result.objective + problem.offset), "history_": history,
            "n_iter_": result.n_iter, "converged_": bool(result.converged),
            "snapshots_": result.log.snapshots.finish(
                len(result.log) - 1, problem.snapshot(alpha, result.inner)),
        }

    def _fit_alternating(self, K: np.ndarray, y: np.ndarray, gamma: float) -> dict:
        n = y.size
        log = IterationLog(self.callback)
        admm_rows: dict[str, list] = {"round": [], "iteration": [], "residual": []}
        alpha = np.zeros(n)
        G = np.ones((n, n))
        svc = None
        objective = np.nan
        stopped = settled = False
        t = 0
        for t in range(self.n_outer):  # noqa: B007 - t is used after the loop
            Gamma = knpl_gamma_matrix(alpha, y, K, gamma=gamma)
            G_new, residuals = knpl_admm(Gamma, rho=self.rho, max_iter=self.admm_max_iter,
                                         tol=self.admm_tol)
            GK = G_new * K
            svc = SVC(kernel="precomputed", C=self.C).fit(GK, y)
            alpha_new = _svc_alpha(svc, y)
            u = alpha_new * y
            svm_dual = float(alpha_new.sum() - 0.5 * u @ (GK @ u))
            objective = svm_dual + gamma * float(np.sum(G_new * G_new))
            d_alpha = float(np.linalg.norm(alpha_new - alpha))
            d_G = _fro(G_new - G)
            admm_rows["round"].extend([t] * residuals.size)
            admm_rows["iteration"].extend(range(residuals.size))
            admm_rows["residual"].extend(residuals)
            settled = t > 0 and d_alpha <= self.tol * max(np.linalg.norm(alpha_new), 1.0)
            alpha, G = alpha_new, G_new
            stopped = log.record(
                state={"alpha": alpha, "G": G}, objective=objective, svm_dual=svm_dual,
                alpha_change=d_alpha, G_change=d_G, admm_iterations=residuals.size,
                admm_residual=residuals[-1], n_support=svc.support_.size)
            if stopped or settled:
                break
        if not (stopped or settled):
            # warn_not_converged would say "max_iter"; the parameter here is n_outer
            warnings.warn(
                f"KNPLClassifier (alternating, the paper's Algorithm 2) ran all "
                f"n_outer={self.n_outer} rounds without alpha settling (tol={self.tol}); "
                "the result is the last round. The alternation of G and alpha can "
                "oscillate (see history_['alpha_change']); solver='apg' reaches the "
                "saddle point.",
                ConvergenceWarning, stacklevel=4)
        return {
            "G_": G, "alpha_": alpha, "dual_coef_": alpha * y,
            "intercept_": float(svc.intercept_[0]), "support_": svc.support_.copy(),
            "gamma_": gamma, "objective_": float(objective),
            "history_": log.as_dict(),
            "admm_history_": {k: np.asarray(v, dtype=float) for k, v in admm_rows.items()},
            "n_iter_": t + 1, "converged_": settled,
            "snapshots_": None,  # G comes from an ADMM, not from alpha: no replay
        }

    def decision_function(self, X: ArrayLike, *, extension: str | None = None
                          ) -> NDArray[np.float64]:
        """Signed distance to the boundary: shape (n,) for two classes, else
        (n, n_classes) one-vs-rest scores (largest wins); ``extension`` overrides the
        out-of-sample rule for this call."""
        return self._decide(self._checked(X), extension)

    def predict(self, X: ArrayLike, *, extension: str | None = None) -> np.ndarray:
        """Class labels: the sign of the decision (binary) or the largest OvR score."""
        return self._labels(self.decision_function(X, extension=extension))

    def _prepare(self, X: np.ndarray, extension: str | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        D = squared_distances(self.X_fit_, X)  # (n_train, m)
        rule = self.extension if extension is None else extension
        if rule not in ("nearest", "smooth"):
            raise ValueError(f"KNPL's out-of-sample rule must be 'nearest' or 'smooth', "
                             f"got {rule!r}.")
        taken = borrowing(rule, self.X_fit_, X, sigma=self.sigma,
                          width=self.extension_width, sqdist=D.T)
        D *= -sigma_to_gamma(self.sigma)
        return np.exp(D, out=D), taken

    def _decision_binary(self, prep, k: int | None) -> np.ndarray:
        Kt, taken = prep
        coef = self.dual_coef_ if k is None else self.dual_coef_[k]
        G = self.G_ if k is None else self.G_[k]
        b = self.intercept_ if k is None else self.intercept_[k]
        # f(x) = sum_i alpha_i y_i G~(x, x_i) k(x_i, x) + b   (eq. 23 for the nearest rule)
        S = np.flatnonzero(coef)
        return extended_decision(coef, G, taken, Kt[S], b)
