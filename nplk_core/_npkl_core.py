r"""The maths of SimpleNPKL (*A Family of Simple Non-Parametric Kernel Learning Algorithms*,
Zhuang, Tsang, Hoi, JMLR 2011) as pure functions: the neighbour-graph Laplacian,
the closed form, Algorithm 1, the low-rank kernel and the constraints drawn from labels.
The estimator over them is :class:`nplk_core.simple_npkl.SimpleNPKL`.

Given must-link pairs :math:`\mathcal S`, cannot-link pairs :math:`\mathcal D`, the
constraint matrix :math:`T` (:math:`T_{ij} = +1` on :math:`\mathcal S`, :math:`-1` on
:math:`\mathcal D`, 0 elsewhere; symmetric) and the normalised graph Laplacian
:math:`L` of the mutual k-nearest-neighbour graph (eq. 9), SimpleNPKL learns an
:math:`n \times n` kernel matrix

.. math::

    \min_{K \succeq 0,\ \operatorname{tr} K^p \le B}\;
    \operatorname{tr}(LK) + C \sum_{(i,j)} \ell(T_{ij} K_{ij}).

The sum runs over the *ordered* pairs, i.e. the nonzeros of the symmetric ``T`` (each
unordered pair counts twice); this is the reading under which the paper's formulas
:math:`A = C\,T - L` and :math:`\nabla J_{ij} = 1 - T_{ij}K_{ij} - \alpha_{ij}/C` agree.

* ``loss="linear"`` (:math:`\ell(z) = -z`) has the closed form of Prop. 1 (eq. 14):
  :math:`A = C\,T - L`,
  :math:`K^* = (B / \operatorname{tr} A_+^{p/(p-1)})^{1/p} A_+^{1/(p-1)}`, where
  :math:`A_+` is the positive part of ``A``, found with sparse Lanczos (``eigsh``).
* ``"square_hinge"`` (:math:`\ell(z) = \tfrac12\max(0, 1-z)^2`), ``"hinge"``
  (:math:`\max(0, 1-z)`) and ``"square"`` (:math:`\tfrac12(1-z)^2`) are solved in the
  saddle-point form (eq. 24) by Algorithm 1: for dual variables :math:`\alpha` on the
  pairs, :math:`K(\alpha)` is the same closed form with
  :math:`A = \sum \alpha_{ij} T_{ij} - L`, and :math:`\alpha` moves along
  :math:`\nabla J_{ij} = 1 - T_{ij}K_{ij} - \alpha_{ij}/C` (no :math:`\alpha/C` term for
  the hinge), then is projected (:math:`\alpha \ge 0`; hinge :math:`0 \le \alpha \le C`;
  square: no projection).

The learned kernel is low rank, :math:`K = V \operatorname{diag}(\lambda) V^\top`; the
factor :math:`V \operatorname{diag}(\lambda)^{1/2}` is an exact embedding, so k-means
on it *is* kernel k-means on ``K`` (docs/the-maths-of-every-method.md, 'SimpleNPKL — A Family of
Simple Non-Parametric Kernel Learning Algorithms').
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

from . import _base as rules
from ._base import IterationLog

LOSSES = ("linear", "square_hinge", "hinge", "square")
EIGEN_SOLVERS = ("auto", "arpack", "dense")

#: ``eigen_solver="auto"`` uses a dense ``eigh`` up to this many points, Lanczos above.
#: Measured (benchmarks/bench_simple_npkl.py, one thread): dense is 2-8x faster up to
#: n = 2000, because the wanted eigenvalues of ``A`` sit next to the dense cluster of small
#: Laplacian eigenvalues, which makes Lanczos restart many times.
_DENSE_BELOW = 2000
#: eigenvalues of ``A`` at or below ``_EIG_RTOL * max |sigma|`` count as zero
_EIG_RTOL = 1e-10


# ---------------------------------------------------------------------------
# graph Laplacian (eq. 9)
# ---------------------------------------------------------------------------

#: neighbour graphs of :func:`knn_laplacian`
GRAPHS = ("mutual", "union")


def knn_laplacian(X: ArrayLike, n_neighbors: int = 5, *, graph: str = "mutual"
                  ) -> sp.csr_array:
    r"""Normalised Laplacian of the k-nearest-neighbour graph (the SimpleNPKL paper, eq. 9).

    .. math::

        S_{ij} = 1 \iff j \in N_k(i) \text{ and } i \in N_k(j),\qquad
        L = I - D^{-1/2} S D^{-1/2},\quad D = \operatorname{diag}(S\mathbf 1),

    where :math:`N_k(i)` are the ``n_neighbors`` nearest points to :math:`x_i`
    (Euclidean, the point itself excluded; ties broken by scikit-learn's neighbour
    search). ``graph="union"`` links i and j when *either* is among the other's k
    nearest (:math:`S_{ij} = 1 \iff j \in N_k(i) \text{ or } i \in N_k(j)`), the usual
    symmetric k-NN graph: every point then has at least k neighbours and none is
    isolated (on Iris, k = 5, the mutual graph leaves 8 of 150 points isolated).
    ``L`` is the matrix of the locality regulariser (eq. 8)
    :math:`\operatorname{tr}(LK) = \tfrac12 \sum_{ij} S_{ij}
    \|v_i/\sqrt{D_i} - v_j/\sqrt{D_j}\|^2` for :math:`K = V^\top V`.

    **Isolated points** (no mutual neighbour, :math:`D_i = 0`) contribute nothing to
    the regulariser (eq. 8), so their row and column of ``L`` are zero, ``L_ii = 0``
    included — the convention of ``scipy.sparse.csgraph.laplacian(normed=True)``. Each
    isolated point is then its own connected component: a null vector of ``L``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    n_neighbors : int, 1 <= n_neighbors < n
    graph : {"mutual", "union"}
        Mutual neighbours (the default) or the union of the k-NN relations.

    Returns
    -------
    L : scipy.sparse.csr_array of shape (n, n)
        Symmetric, positive semidefinite, eigenvalues in [0, 2], at most
        ``n_neighbors`` off-diagonal nonzeros per row.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}.")
    n = X.shape[0]
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) \
            or not 1 <= n_neighbors < n:
        raise ValueError(f"n_neighbors must be an integer with 1 <= n_neighbors < n_samples "
                         f"= {n}, got {n_neighbors!r}. Lower n_neighbors or add points.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity; remove or impute those values.")
    if graph not in GRAPHS:
        raise ValueError(f"graph must be one of {GRAPHS}, got {graph!r}.")
    # The neighbour graph does not change when every coordinate is scaled by the same
    # factor; at extreme scales (|x| ~ 1e300) squared distances overflow to inf and the
    # neighbour search breaks, so such data are brought to unit scale first.
    scale = float(np.max(np.abs(X))) if X.size else 0.0
    if scale > 1e100 or 0.0 < scale < 1e-100:
        X = X / scale
    knn = NearestNeighbors(n_neighbors=int(n_neighbors)).fit(X)
    G = sp.csr_array(knn.kneighbors_graph(mode="connectivity"))  # self excluded
    if graph == "mutual":
        S = G.multiply(G.T).tocsr()  # mutual neighbours only
    else:
        S = sp.csr_array(((G + G.T) > 0).astype(float))  # either is a neighbour
    S.eliminate_zeros()
    deg = np.asarray(S.sum(axis=1)).ravel()
    inv_sqrt = np.zeros(n)
    nz = deg > 0
    inv_sqrt[nz] = 1.0 / np.sqrt(deg[nz])
    Dm = sp.diags_array(inv_sqrt)
    L = sp.diags_array(nz.astype(float)) - Dm @ S @ Dm
    L = sp.csr_array(L)
    L.sum_duplicates()
    L.sort_indices()
    return L


# ---------------------------------------------------------------------------
# constraint matrix and closed form (Prop. 1 / Prop. 2)
# ---------------------------------------------------------------------------

def constraint_matrix(n: int, must_link: ArrayLike | None = None,
                      cannot_link: ArrayLike | None = None,
                      weights: ArrayLike | None = None) -> sp.csr_array:
    r"""Symmetric sparse ``T`` (eq. 7): :math:`+w` at must-link pairs, :math:`-w` at
    cannot-link pairs, both :math:`(i,j)` and :math:`(j,i)`. ``weights`` (one per pair,
    must-links first) defaults to 1."""
    ml = np.zeros((0, 2), dtype=np.intp) if must_link is None else \
        np.asarray(must_link, dtype=np.intp).reshape(-1, 2)
    cl = np.zeros((0, 2), dtype=np.intp) if cannot_link is None else \
        np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2)
    pairs = np.vstack([ml, cl])
    signs = np.concatenate([np.ones(len(ml)), -np.ones(len(cl))])
    return _pair_matrix(n, pairs, signs if weights is None else signs * np.asarray(weights))


def _pair_matrix(n: int, pairs: NDArray, values: NDArray) -> sp.csr_array:
    """Symmetric sparse matrix with ``values`` at (i, j) and (j, i) of every pair."""
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
    vals = np.concatenate([values, values]).astype(float)
    return sp.csr_array(sp.coo_array((vals, (rows, cols)), shape=(n, n)))


def prop4_rank(m: int) -> int:
    r"""Largest ``r`` with :math:`r(r+1)/2 \le m` (Prop. 4, Pataki's rank bound), >= 1."""
    m = max(int(m), 1)
    return max(int((math.isqrt(8 * m + 1) - 1) // 2), 1)


def _dense_positive(A) -> tuple[NDArray, NDArray]:
    Ad = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
    try:
        w, V = scipy.linalg.eigh(Ad, subset_by_value=(0.0, np.inf), check_finite=False,
                                 driver="evr")
    except (np.linalg.LinAlgError, ValueError):  # evr's value subset fails on some inputs
        from .spectral import eigh_above  # the full decomposition, filtered

        w, V = eigh_above(Ad, 0.0)
    return w[::-1], V[:, ::-1]


def _positive_eigs(A: sp.sparray, k0: int, v0: NDArray | None = None,
                   solver: str = "auto") -> tuple[NDArray, NDArray]:
    r"""Positive eigenpairs :math:`(\sigma_+, P)` of a sparse symmetric ``A``, descending.

    ``solver="arpack"``: Lanczos (``eigsh``, ``which="LA"``) for the ``k`` largest
    eigenvalues, starting from the rank guess ``k0`` (Prop. 4) and doubling ``k`` while
    the smallest computed eigenvalue is still positive (then more positive ones may
    exist); dense when ``k`` grows past ``n/3`` or ARPACK fails. ``"dense"``: LAPACK
    ``evr`` restricted to the eigenvalues in :math:`(0, \infty)`. ``"auto"``: dense for
    ``n <= 2000`` (faster there: see benchmarks/bench_simple_npkl.py), else Lanczos.
    Eigenvalues at or below ``1e-10 * max|sigma|`` count as zero.
    """
    n = A.shape[0]
    if solver == "auto":
        solver = "dense" if n <= _DENSE_BELOW else "arpack"
    k = int(min(max(k0, 1), n))
    while True:
        if solver == "dense" or n < 16 or k >= n // 3:
            w, V = _dense_positive(A)
            if w.size == 0:
                return w, V
            break
        try:
            w, V = eigsh(A, k=k, which="LA", v0=v0)
        except (ArpackNoConvergence, ArpackError):
            solver = "dense"
            continue
        order = np.argsort(w)[::-1]
        w, V = w[order], V[:, order]
        scale = max(float(np.max(np.abs(w))), 1e-300)
        if w[-1] <= _EIG_RTOL * scale:
            break
        k = 2 * k
    scale = max(float(np.max(np.abs(w))), 1e-300)
    keep = w > _EIG_RTOL * scale
    return w[keep], V[:, keep]


@dataclass(frozen=True)
class LowRankKernel:
    r"""A learned kernel :math:`K = V \operatorname{diag}(\lambda) V^\top` and the
    spectral data of the :math:`A` it came from.

    Attributes
    ----------
    eigenvalues : ndarray (r,)
        :math:`\lambda > 0`, descending (the rest of the spectrum of ``K`` is 0).
    eigenvectors : ndarray (n, r)
        Orthonormal :math:`V` (the positive eigenvectors of ``A``).
    sigma : ndarray (r,)
        The positive eigenvalues :math:`\sigma_+` of ``A``.
    G : float
        The Prop. 2 trade-off giving the same kernel,
        :math:`G = (\operatorname{tr} A_+^{q} / B)^{1/q}`, :math:`q = p/(p-1)`
        (0 when :math:`A_+ = 0`); the given ``G`` in the penalised form.
    support : float
        :math:`\max_{K}\operatorname{tr}(AK)` over the feasible set (constrained form),
        or :math:`\max_K \operatorname{tr}(AK) - \tfrac{G}{p}\operatorname{tr}K^p`
        (penalised form).
    """

    eigenvalues: NDArray
    eigenvectors: NDArray
    sigma: NDArray
    G: float
    support: float
    p: float = 2.0
    B: float | None = 1.0
    extra: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def rank(self) -> int:
        return int(self.eigenvalues.size)

    @property
    def kernel(self) -> NDArray:
        """The dense ``n x n`` kernel matrix (exactly symmetric)."""
        V = self.eigenvectors
        K = (V * self.eigenvalues) @ V.T
        return 0.5 * (K + K.T)

    def entries(self, pairs: NDArray) -> NDArray:
        """``K[i, j]`` for every row ``(i, j)`` of ``pairs`` in O(m r)."""
        V = self.eigenvectors
        return np.einsum("ij,ij->i", V[pairs[:, 0]] * self.eigenvalues, V[pairs[:, 1]])

    def trace_with(self, M: sp.sparray) -> float:
        r""":math:`\operatorname{tr}(MK) = \sum_k \lambda_k v_k^\top M v_k`."""
        V = self.eigenvectors
        return float(np.sum(self.eigenvalues * np.einsum("ij,ij->j", V, M @ V)))


def _kernel_from_A(A: sp.sparray | NDArray, *, p: float, B: float | None,
                   G: float | None, k0: int, v0: NDArray | None = None,
                   solver: str = "auto") -> LowRankKernel:
    """Closed form of Prop. 1 (``B`` given) or Prop. 2 (``G`` given) for a symmetric
    ``A`` (sparse, or dense for the dense solver)."""
    if isinstance(A, np.ndarray):
        sigma, P = _dense_positive(A)
        keep = sigma > _EIG_RTOL * max(float(np.max(np.abs(sigma), initial=0.0)), 1e-300)
        sigma, P = sigma[keep], P[:, keep]
    else:
        sigma, P = _positive_eigs(A, k0, v0, solver)
    q = p / (p - 1.0)
    if sigma.size == 0:
        return LowRankKernel(np.zeros(0), np.zeros((A.shape[0], 0)), sigma, 0.0, 0.0, p, B)
    if G is None:
        # eq. 14 in the scale-free form lambda = (B / sum s^q)^(1/p) s^(1/(p-1)) with
        # s = sigma / sigma_max (the sigma_max powers cancel), safe for p close to 1
        smax = float(sigma[0])
        s = sigma / smax
        sum_q = float(np.sum(s ** q))  # >= 1
        lam = (B / sum_q) ** (1.0 / p) * s ** (1.0 / (p - 1.0))
        G_eq = smax * (sum_q / B) ** (1.0 / q)
        support = B ** (1.0 / p) * smax * sum_q ** (1.0 / q)
    else:
        ratio = sigma / G
        lam = ratio ** (1.0 / (p - 1.0))
        G_eq = float(G)
        support = G * float(np.sum(ratio ** q)) / q  # = tr A_+^q G^(-1/(p-1)) / q
    nz = lam > 0  # for p near 1 the small eigenvalues underflow to exactly 0
    return LowRankKernel(lam[nz], P[:, nz], sigma[nz], float(G_eq), float(support), p, B)


def simple_npkl_closed_form(T: ArrayLike | sp.sparray, L: ArrayLike | sp.sparray,
                            C: float = 1.0, B: float = 1.0, p: float = 2.0, *,
                            G: float | None = None, rank: int | None = None,
                            v0: ArrayLike | None = None, eigen_solver: str = "arpack"
                            ) -> LowRankKernel:
    r"""SimpleNPKL with linear loss in closed form (Prop. 1, eq. 14).

    .. math::

        K^* = \arg\min_{K \succeq 0,\ \operatorname{tr}K^p \le B}
        \operatorname{tr}\big((L - C\,T) K\big)
        = \Big(\frac{B}{\operatorname{tr}A_+^{p/(p-1)}}\Big)^{1/p} A_+^{1/(p-1)},
        \qquad A = C\,T - L.

    With ``G`` given, the penalised form of Prop. 2 instead:
    :math:`\min_{K \succeq 0} \operatorname{tr}((L - CT)K) + \tfrac{G}{p}
    \operatorname{tr}K^p`, solved by :math:`K^* = (A_+/G)^{1/(p-1)}` (``B`` ignored).

    Parameters
    ----------
    T : sparse or dense (n, n), symmetric
        Pairwise constraints: +1 must-link, -1 cannot-link, 0 elsewhere.
    L : sparse or dense (n, n), symmetric
        Graph Laplacian (e.g. :func:`knn_laplacian`).
    C, B : float > 0
    p : float > 1
    G : float > 0, optional
        Use the penalised form of Prop. 2.
    rank : int, optional
        Initial number of eigenpairs for Lanczos; default the Prop. 4 guess
        ``r(r+1)/2 <= m`` with ``m`` the number of constrained pairs. It is doubled until
        the smallest computed eigenvalue of ``A`` is no longer positive.
    v0 : array (n,), optional
        Lanczos start vector (warm start).
    eigen_solver : {"arpack", "dense", "auto"}
        How the positive part of ``A`` is found: Lanczos (default here), LAPACK, or
        dense for ``n <= 2000`` and Lanczos above.

    Returns
    -------
    LowRankKernel
        ``.kernel`` is the dense :math:`K^*`; ``.eigenvalues``/``.eigenvectors`` its
        nonzero spectrum. If ``A`` has no positive eigenvalue, :math:`K^* = 0`.
    """
    _check_closed_form_params(C, B, p, G)
    rules.one_of(*EIGEN_SOLVERS)("eigen_solver", eigen_solver)
    T = sp.csr_array(T)
    L = sp.csr_array(L)
    if T.shape != L.shape or T.shape[0] != T.shape[1]:
        raise ValueError(f"T and L must be square of the same shape, got {T.shape} and "
                         f"{L.shape}.")
    A = sp.csr_array(C * T - L)
    k0 = prop4_rank(sp.triu(T, k=1).nnz) if rank is None else int(rank)
    v0 = None if v0 is None else np.asarray(v0, dtype=float)
    return _kernel_from_A(A, p=float(p), B=None if G is not None else float(B), G=G,
                          k0=k0, v0=v0, solver=eigen_solver)


def _check_closed_form_params(C, B, p, G) -> None:
    rules.positive("C", C)
    if G is None:
        rules.positive("B", B)
    else:
        rules.positive("G", G)
    rules.greater_than(1.0)("p", p)


# ---------------------------------------------------------------------------
# Algorithm 1 for the (square) hinge and square losses
# ---------------------------------------------------------------------------

@dataclass
class NPKLResult:
    """Outcome of :func:`simple_npkl_solve`: the kernel, the duals and the log."""

    solution: LowRankKernel
    alpha: NDArray
    history: dict
    n_iter: int
    converged: bool
    stopped: bool


def dual_objective(loss: str, sol: LowRankKernel, alpha: NDArray, C: float) -> float:
    r"""Dual value :math:`J(\alpha)` of eq. (24), ``alpha`` one value per unordered pair.

    :math:`J = -\max_K \operatorname{tr}(A_\alpha K) + \sum_{ij} \alpha_{ij}
    - \tfrac{1}{2C}\sum_{ij}\alpha_{ij}^2` over ordered pairs (each unordered pair twice;
    no quadratic term for the hinge). In the penalised form the max includes
    :math:`-\tfrac{G}{p}\operatorname{tr}K^p`.
    """
    J = -sol.support + 2.0 * float(np.sum(alpha))
    if loss != "hinge":
        J -= float(alpha @ alpha) / C
    return J


def primal_objective(loss: str, sol: LowRankKernel, L: sp.sparray, pairs: NDArray,
                     signs: NDArray, C: float, G: float | None = None) -> float:
    r"""Primal value :math:`\operatorname{tr}(LK) + C\sum_{(i,j)}\ell(T_{ij}K_{ij})` at
    ``sol`` (sum over ordered pairs; plus :math:`\tfrac{G}{p}\operatorname{tr}K^p` in
    the penalised form)."""
    z = signs * sol.entries(pairs)
    if loss == "linear":
        loss_sum = -float(np.sum(z))
    elif loss == "hinge":
        loss_sum = float(np.sum(np.maximum(1.0 - z, 0.0)))
    elif loss == "square_hinge":
        loss_sum = 0.5 * float(np.sum(np.maximum(1.0 - z, 0.0) ** 2))
    else:  # square
        loss_sum = 0.5 * float(np.sum((1.0 - z) ** 2))
    value = sol.trace_with(L) + 2.0 * C * loss_sum
    if G is not None:
        value += G / sol.p * float(np.sum(sol.eigenvalues ** sol.p))
    return value


def _project(loss: str, alpha: NDArray, C: float) -> NDArray:
    if loss == "hinge":
        return np.clip(alpha, 0.0, C)
    if loss == "square_hinge":
        return np.maximum(alpha, 0.0)
    return alpha


def simple_npkl_solve(L: sp.sparray, pairs: NDArray, signs: NDArray, *,
                      loss: str = "square_hinge", C: float = 1.0, B: float = 1.0,
                      p: float = 2.0, G: float | None = None,
                      step_size: str | float = "auto", max_iter: int = 100,
                      tol: float = 1e-4, alpha0: NDArray | None = None,
                      eigen_solver: str = "auto", callback=None,
                      rng: np.random.Generator | None = None) -> NPKLResult:
    r"""Algorithm 1 of the SimpleNPKL paper: projected gradient ascent on the dual of eq. (24).

    .. math::

        \max_{\alpha \in \mathcal A}\; J(\alpha) = \min_{K \in \mathcal K}
        \operatorname{tr}\Big(\big(L - \textstyle\sum_{(i,j)}\alpha_{ij}T_{ij}\big)K\Big)
        + \sum_{(i,j)}\alpha_{ij} - \frac{1}{2C}\sum_{(i,j)}\alpha_{ij}^2

    with :math:`\mathcal K = \{K \succeq 0, \operatorname{tr}K^p \le B\}` (or the
    penalised Prop. 2 form when ``G`` is given), :math:`\mathcal A = \{\alpha \ge 0\}`
    (square hinge), :math:`[0, C]` (hinge, no quadratic term) or all reals (square).

    Each iteration: :math:`A = \sum \alpha_{ij}T_{ij} - L`, :math:`K_t` by the closed
    form, :math:`\nabla J_{ij} = 1 - T_{ij}K_{ij} - \alpha_{ij}/C`,
    :math:`\alpha \leftarrow P_{\mathcal A}(\alpha + \eta_t\nabla J)`.

    **Step size.** ``"auto"``: :math:`\eta_t = 1/(1/G_t + 1/C)` (``1/G_t`` alone for the
    hinge), the Lipschitz constant of :math:`\nabla J` at the current
    :math:`G_t` (Lemma 5). Lemma 5 states :math:`m/G + 1/C`; its proof bounds
    :math:`\|\sum \Delta\alpha_{ij}T_{ij}\|_F \le \|\Delta\alpha\|\,\|T\|_F`, but the
    :math:`T_{ij}` are distinct single entries of size 1, so the norm is exactly
    :math:`\|\Delta\alpha\|` and :math:`1/G + 1/C` is already a Lipschitz constant
    (``p = 2``, fixed ``G``). ``"lemma5"``: the paper's literal :math:`1/(m/G_t + 1/C)`,
    ``m`` = nonzeros of ``T``. In the trace-constrained form (and for ``p != 2``) ``G_t``
    varies with :math:`\alpha`, so the constant is local; both rules then halve
    :math:`\eta` (for the rest of the solve) whenever :math:`J` would decrease, which
    keeps the ascent monotone as Prop. 6 guarantees for fixed ``G``. A float is used
    as a fixed step, without that safeguard.

    **Start.** :math:`\alpha^0 = C` on every pair, i.e. :math:`A^0 = C\,T - L`: the
    linear-loss solution (Prop. 1).

    **Stop.** When the duality gap is small,
    :math:`P(K_t) - J(\alpha_t) \le \mathrm{tol}\cdot\max(1, |J(\alpha_t)|)`, where
    :math:`P` is the primal objective (weak duality makes the gap >= 0 and it vanishes
    at the saddle point), or when :math:`\alpha` stops moving. The gap does not depend
    on the step size, so tiny steps (``"lemma5"``) cannot fake convergence.

    **Eigen-decompositions.** Only the ``2m`` constraint entries of ``A`` change between
    iterations; ``A`` is updated in place (CSR data vector for Lanczos, a dense array
    for the dense solver). Lanczos is warm-started (``v0`` = the previous positive
    eigenvectors weighted by :math:`\sqrt{\sigma}`, ``k`` = previous rank + 2).

    Returns
    -------
    NPKLResult
        ``history`` has per iteration ``objective`` (:math:`J(\alpha_t)`, increasing),
        ``primal`` (the primal objective at :math:`K_t`), ``gap`` (primal - dual >= 0),
        ``step_norm``, ``step_size``, ``rank``, ``G``, ``n_backtracks`` and ``time``.
    """
    if loss not in LOSSES[1:]:
        raise ValueError(f"loss must be one of {list(LOSSES[1:])} for the iterative solver, "
                         f"got {loss!r}.")
    rng = np.random.default_rng() if rng is None else rng
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    signs = np.asarray(signs, dtype=float)
    n = L.shape[0]
    m_pairs = len(pairs)
    if m_pairs == 0:
        raise ValueError("simple_npkl_solve needs at least one constraint pair.")
    B_ = None if G is not None else B
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
    solver = eigen_solver
    if solver == "auto":
        solver = "dense" if n <= _DENSE_BELOW else "arpack"
    sgn2 = np.concatenate([signs, signs])
    quad = loss != "hinge"
    k_rank = prop4_rank(m_pairs)
    # A = sum alpha T - L is assembled once; only its 2m constraint entries change.
    if solver == "dense":
        base_dense = -L.toarray()
        flat = rows * n + cols  # distinct: pairs are unique with i != j
    else:
        # L's CSR pattern plus explicit zeros at the constraint entries, so the data
        # vector can be updated in place
        Lc = sp.coo_array(L)
        base = sp.coo_array((np.concatenate([-Lc.data, np.zeros(2 * m_pairs)]),
                             (np.concatenate([Lc.row, rows]),
                              np.concatenate([Lc.col, cols]))),
                            shape=(n, n)).tocsr()  # keeps the explicit zeros
        base.sum_duplicates()
        base.sort_indices()
        pos = _csr_positions(base, rows, cols)  # where (i, j) and (j, i) sit in .data
        if not np.array_equal(base.indices[pos], cols):
            raise RuntimeError("internal error: constraint entries missing from A's pattern")
        base_data = base.data.copy()

    def kernel_at(alpha, v0, k0):
        vals = sgn2 * np.concatenate([alpha, alpha])
        if solver == "dense":
            A = base_dense.copy()
            A.flat[flat] += vals
        else:
            data = base_data.copy()
            data[pos] += vals
            A = sp.csr_array((data, base.indices, base.indptr), shape=(n, n))
        return _kernel_from_A(A, p=p, B=B_, G=G, k0=k0, v0=v0, solver=solver)

    def warm(sol):
        if sol.rank == 0:
            return None, k_rank
        v0 = sol.eigenvectors @ np.sqrt(sol.sigma)
        v0 = v0 + 1e-3 * np.linalg.norm(v0) / math.sqrt(n) * rng.standard_normal(n)
        return v0, max(k_rank, sol.rank + 2)

    alpha = np.full(m_pairs, float(C)) if alpha0 is None else \
        _project(loss, np.asarray(alpha0, dtype=float).copy(), C)
    sol = kernel_at(alpha, None, k_rank)
    J = dual_objective(loss, sol, alpha, C)
    if not np.isfinite(J):
        raise ValueError("SimpleNPKL's objective is not finite at the start; check X, C and "
                         "B for extreme values.")
    log = IterationLog(callback)
    shrink = 1.0
    converged = stopped = False
    for _ in range(max_iter):
        z = signs * sol.entries(pairs)
        grad = 1.0 - z
        if quad:
            grad -= alpha / C
        adaptive = isinstance(step_size, str)
        if adaptive:
            inv_g = 1.0 / sol.G if sol.G > 0 else 0.0
            if step_size == "lemma5":
                inv_g *= 2 * m_pairs
            lip = inv_g + (1.0 / C if quad else 0.0)
            if lip <= 0:  # hinge with A_+ = 0: no curvature information; use C
                lip = 1.0 / C
            eta = shrink / lip
        else:
            eta = float(step_size)
        v0, k0 = warm(sol)
        n_back = 0
        while True:
            alpha_new = _project(loss, alpha + eta * grad, C)
            sol_new = kernel_at(alpha_new, v0, k0)
            J_new = dual_objective(loss, sol_new, alpha_new, C)
            ok = np.isfinite(J_new) and J_new >= J - 1e-12 * max(1.0, abs(J))
            if ok or not adaptive or n_back >= 40:
                break
            eta *= 0.5
            shrink *= 0.5
            n_back += 1
        if not np.isfinite(J_new):
            warnings.warn("SimpleNPKL produced a non-finite objective; keeping the last "
                          "finite iterate. Try a smaller step_size or larger C.",
                          RuntimeWarning, stacklevel=2)
            break
        step = float(np.linalg.norm(alpha_new - alpha))
        alpha, sol, J = alpha_new, sol_new, J_new
        primal = primal_objective(loss, sol, L, pairs, signs, C, G)
        stop = log.record({"alpha": alpha, "kernel": sol}, objective=J, primal=primal,
                          gap=primal - J, step_norm=step, step_size=eta, rank=sol.rank,
                          G=sol.G, n_backtracks=n_back)
        if primal - J <= tol * max(1.0, abs(J)) or step == 0.0:
            converged = True
            break
        if stop:
            stopped = True
            break
    return NPKLResult(sol, alpha, log.as_dict(), len(log), converged, stopped)


def _csr_positions(M: sp.csr_array, rows: NDArray, cols: NDArray) -> NDArray:
    """Index into ``M.data`` of each (row, col) (must be stored; indices sorted)."""
    # column indices are sorted within each row, so (row, col) keys are sorted globally
    keys = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr)) * M.shape[1] + M.indices
    return np.searchsorted(keys, np.asarray(rows) * M.shape[1] + np.asarray(cols))


# ---------------------------------------------------------------------------
# constraints drawn from labels, and the margins of active selection (§5.3)
# ---------------------------------------------------------------------------

def draw_constraints(y: ArrayLike, constraint_fraction: float,
                     random_state: Any = None) -> tuple[NDArray, NDArray]:
    r"""Random pairwise constraints from labels, following the SimpleNPKL paper, §7.1.

    The paper (after Xing et al. 2003 and Hoi et al. 2007) draws random pairs of points,
    labels each must-link (same class) or cannot-link (different classes), and controls
    their number by the number of connected components of the must-link graph, which
    it keeps at :math:`r \approx 70\%` of ``n``. Here ``constraint_fraction = 1 - r``:
    distinct pairs are drawn uniformly at random until the must-link graph has at most
    ``round((1 - constraint_fraction) * n)`` components (never fewer than the number of
    classes, the least reachable; at least one merge). Roughly
    ``constraint_fraction * n`` must-links result, with the cannot-links drawn along the
    way (about as many again for two balanced classes). The paper's setting is
    ``constraint_fraction = 0.3``.

    Returns
    -------
    must_link, cannot_link : int arrays of shape (m_s, 2), (m_d, 2), rows ``i < j``.
    """
    y = np.asarray(y)
    n = y.shape[0]
    rng = check_random_state(random_state)
    _, codes = np.unique(y, return_inverse=True)
    n_classes = int(codes.max()) + 1 if n else 0
    target = min(int(round((1.0 - constraint_fraction) * n)), n - 1)
    target = max(target, n_classes)
    parent = np.arange(n)

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    components = n
    seen: set[int] = set()
    ml: list[tuple[int, int]] = []
    cl: list[tuple[int, int]] = []
    total = n * (n - 1) // 2
    while components > target and len(seen) < total:
        batch = rng.randint(0, n, size=(max(64, n), 2))
        for a, b in batch:
            if components <= target:
                break
            if a == b:
                continue
            i, j = (int(a), int(b)) if a < b else (int(b), int(a))
            key = i * n + j
            if key in seen:
                continue
            seen.add(key)
            if codes[i] == codes[j]:
                ml.append((i, j))
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[ri] = rj
                    components -= 1
            else:
                cl.append((i, j))
    ml_arr = np.array(ml, dtype=np.intp).reshape(-1, 2)
    cl_arr = np.array(cl, dtype=np.intp).reshape(-1, 2)
    return ml_arr, cl_arr


def point_margins(sol: LowRankKernel, pairs: NDArray, signs: NDArray, n: int) -> NDArray:
    r"""Uncertainty of every point (§5.3): :math:`|\tfrac{1}{l_i}\sum_j T_{ij}K_{ij}|`,
    :math:`l_i` = number of constraints on point ``i``; ``inf`` where :math:`l_i = 0`."""
    vals = signs * sol.entries(pairs)
    s = np.bincount(pairs[:, 0], vals, minlength=n) + np.bincount(pairs[:, 1], vals,
                                                                   minlength=n)
    cnt = np.bincount(pairs[:, 0], minlength=n) + np.bincount(pairs[:, 1], minlength=n)
    out = np.full(n, np.inf)
    has = cnt > 0
    out[has] = np.abs(s[has] / cnt[has])
    return out
