r"""SimpleNPKL: simple non-parametric kernel learning from pairwise constraints, as a
scikit-learn estimator.

The paper: Zhuang, Tsang, Hoi, *A Family of Simple Non-Parametric Kernel Learning
Algorithms*, JMLR 2011.

It learns an :math:`n \times n` kernel from must-link and cannot-link pairs and the
neighbour graph of the points, then clusters it with kernel k-means. The objective,
the closed form and Algorithm 1 are in :mod:`nplk_core._npkl_core`.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.metrics import rand_score
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from . import _base as rules
from ._base import IterationLog, check_params, warn_not_converged
from ._npkl_core import (
    EIGEN_SOLVERS,
    GRAPHS,
    LOSSES,
    LowRankKernel,
    NPKLResult,
    _kernel_from_A,
    _pair_matrix,
    constraint_matrix,
    draw_constraints,
    dual_objective,
    knn_laplacian,
    point_margins,
    primal_objective,
    prop4_rank,
    simple_npkl_closed_form,
    simple_npkl_solve,
)

__all__ = [
    "EIGEN_SOLVERS", "GRAPHS", "LOSSES", "LowRankKernel", "NPKLResult", "SimpleNPKL",
    "clustering_accuracy", "constraint_matrix", "draw_constraints", "dual_objective",
    "knn_laplacian", "point_margins", "primal_objective", "prop4_rank",
    "simple_npkl_closed_form", "simple_npkl_solve",
]

#: fits up to this size run with one BLAS/OpenMP thread (faster, and immune to
#: oversubscription when the machine is busy)
_SINGLE_THREAD_BELOW = 500

_THREADPOOL: Any = None


def _single_threaded():
    """Context limiting BLAS and OpenMP to one thread (controller built once)."""
    global _THREADPOOL
    if _THREADPOOL is None:
        from threadpoolctl import ThreadpoolController
        _THREADPOOL = ThreadpoolController()
    return _THREADPOOL.limit(limits=1)


# ---------------------------------------------------------------------------
# the user's constraints, checked
# ---------------------------------------------------------------------------

def _as_pairs(name: str, pairs: Any, n: int) -> NDArray:
    """Validate index pairs and return them canonically (i < j, sorted, unique)."""
    if pairs is None:
        return np.zeros((0, 2), dtype=np.intp)
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be an array of index pairs of shape (m, 2), got "
                         f"shape {arr.shape}.")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or \
                np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must hold integer point indices, got dtype "
                             f"{arr.dtype}.")
    arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= n)
    if np.any(bad):
        row = int(np.nonzero(bad.any(axis=1))[0][0])
        raise ValueError(f"{name} refers to points that do not exist: pair {row} is "
                         f"{tuple(int(v) for v in arr[row])} but X has {n} points "
                         f"(valid indices 0..{n - 1}).")
    self_pairs = arr[:, 0] == arr[:, 1]
    if np.any(self_pairs):
        row = int(np.nonzero(self_pairs)[0][0])
        raise ValueError(f"{name} contains the self-pair {tuple(int(v) for v in arr[row])}; "
                         "a constraint must join two different points.")
    arr = np.sort(arr, axis=1)
    return np.unique(arr, axis=0).astype(np.intp)


def _check_contradictions(ml: NDArray, cl: NDArray, n: int) -> None:
    if len(ml) == 0 or len(cl) == 0:
        return
    both = np.intersect1d(ml[:, 0] * n + ml[:, 1], cl[:, 0] * n + cl[:, 1])
    if both.size:
        i, j = divmod(int(both[0]), n)
        raise ValueError(f"Contradictory constraints: the pair ({i}, {j}) is both a "
                         f"must-link and a cannot-link ({both.size} such pair(s)). Remove "
                         "it from one of the two lists.")


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------

def clustering_accuracy(y_true: ArrayLike, labels: ArrayLike) -> float:
    r"""Clustering accuracy of the SimpleNPKL paper, §7.2: the Rand index, the share of point pairs
    on which the two partitions agree,
    :math:`\sum_{i>j} \mathbf 1\{[c_i = c_j] = [\hat c_i = \hat c_j]\} / \binom n2`."""
    return float(rand_score(np.asarray(y_true), np.asarray(labels)))


class SimpleNPKL(ClusterMixin, BaseEstimator):
    r"""Simple non-parametric kernel learning from pairwise constraints (SimpleNPKL).

    .. math::

        \min_{K \succeq 0,\ \operatorname{tr}K^p \le B}\;
        \operatorname{tr}(LK) + C \sum_{(i,j) \in \mathcal S \cup \mathcal D}
        \ell(T_{ij}K_{ij})

    ``L``: normalised Laplacian of the mutual ``n_neighbors``-NN graph
    (:func:`knn_laplacian`); ``T``: +1 must-link, -1 cannot-link. The linear loss is
    solved in closed form (Prop. 1), the others by Algorithm 1 (see
    :func:`simple_npkl_solve`). The learned kernel is transductive (one row/column per
    training point); ``labels_`` come from kernel k-means on it.

    Parameters
    ----------
    loss : {"linear", "square_hinge", "hinge", "square"}
    C : float > 0
        Weight of the constraint loss. Keep it well below 1: the single-pair vector
        :math:`(e_i \pm e_j)/\sqrt2` has Rayleigh quotient :math:`\approx C - 1` in
        :math:`A = C\,T - L` (``L_ii = 1``), so from ``C`` near 1 on every constraint
        adds its own localised positive eigenvector, the kernel spikes on the constrained
        points and k-means splits those off (Rand index ~0.5 on the spirals at ``C = 1``,
        0.88-0.94 at 0.1-0.3; 0.94 on Iris at 0.1, the paper's Table 4 value). The paper
        tunes C in (0, 1]; the default is 0.1. The loss is summed over ordered pairs
        (``A = C T - L`` with T symmetric, docs/the-maths-of-every-method.md, 'SimpleNPKL
        — A Family of Simple Non-Parametric Kernel Learning Algorithms'), so this C is
        twice the paper's, which counts each pair once: the paper's C = 1 is C = 0.5 here.
    B : float > 0
        Capacity: :math:`\operatorname{tr}K^p \le B` (the paper: 1 on small data, ``n`` on
        Adult).
    p : float > 1
        Power of the capacity term (the paper's Table 5: accuracy drops for ``p < 2``).
    G : float > 0 or None
        If given, use the penalised form of Prop. 2,
        :math:`+\tfrac{G}{p}\operatorname{tr}K^p` in the objective, instead of the
        constraint ``tr K^p <= B`` (``B`` is then ignored).
    n_neighbors : int
        ``k`` of the k-NN graph (the paper: 5).
    neighbor_graph : {"mutual", "union"}
        The graph of the Laplacian (:func:`knn_laplacian`): mutual k-NN (as in the paper, default)
        or the usual symmetric k-NN graph (either point among the other's k nearest).
        On Iris the mutual graph isolates 8 of 150 points; a constrained isolated point
        costs nothing in ``tr(LK)``, and from ``C`` ≈ 0.5 such points get kernel spikes
        that k-means splits off (docs/simplenpkl-on-iris.md).
    constraint_fraction : float in (0, 1]
        Used only when constraints are drawn from ``y``: pairs are drawn until the
        must-link graph has ``(1 - constraint_fraction) n`` connected components
        (the paper's §7.1 with ``r = 1 - constraint_fraction``; the paper uses 0.3). See
        :func:`draw_constraints`.
    active_selection : int or None
        Active constraint selection (§5.3): first the linear-loss kernel is computed
        with all constraints (one eigen-decomposition); then the ``active_selection``
        constrained points with the smallest margin
        :math:`|\tfrac{1}{l_i}\sum_j T_{ij}K_{ij}|` are chosen, only the constraints
        touching one of them are kept, and the model is solved once more on that
        subset. A single selection round, as in the paper.
    n_clusters : int
        Clusters for kernel k-means (``labels_``).
    step_size : "auto", "lemma5" or float > 0
        Step rule of Algorithm 1 (see :func:`simple_npkl_solve`).
    eigen_solver : {"auto", "arpack", "dense"}
        Positive part of ``A``: Lanczos (``eigsh``, Prop. 4 rank guess, grown until the
        smallest computed eigenvalue is not positive), LAPACK, or ``"auto"`` = dense for
        ``n <= 2000`` (2-8x faster at those sizes, measured), Lanczos above.
    max_iter : int
        Iterations of Algorithm 1 (ignored by the linear loss).
    tol : float > 0
        Stop Algorithm 1 when the relative duality gap
        :math:`(P(K_t) - J(\alpha_t)) / \max(1, |J(\alpha_t)|)` is at most ``tol``.
    n_init : int
        k-means restarts.
    callback : callable or None
        ``callback(iteration, state, elapsed)`` after every iteration; return True to
        stop.
    random_state : int, RandomState or None
        Seeds the constraint drawing, Lanczos start perturbations and k-means.

    Attributes
    ----------
    kernel_ : ndarray (n, n)
        The learned PSD kernel.
    embedding_ : ndarray (n, max(r, 2))
        :math:`V \operatorname{diag}(\lambda)^{1/2}`, columns by descending eigenvalue
        (``embedding_ @ embedding_.T == kernel_``); padded with zero columns to width 2 so
        the first two columns are always the 2-D view.
    eigenvalues_ : ndarray (r,)
        Nonzero spectrum of ``kernel_`` (descending; the other ``n - r`` are 0).
    labels_ : ndarray (n,) int
        Kernel k-means clusters.
    laplacian_ : scipy.sparse.csr_array (n, n)
    must_link_, cannot_link_ : ndarray (m, 2) int
        The pairs the solver used (rows ``i < j``).
    constraint_pairs_, constraint_signs_ : ndarray
        All candidate pairs (must-links first) and their signs +1/-1.
    active_constraints_ : ndarray (m_all,) bool
        Which candidate pairs were used (all True without active selection).
    active_points_ : ndarray or None
        The points chosen by active selection.
    n_constraints_ : int
        Number of pairs used.
    alpha_ : ndarray (n_constraints_,)
        Dual variables per used pair (must-links first); ``C`` for the linear loss.
    G_ : float
        The Prop. 2 trade-off equivalent to the learned kernel.
    history_ : dict of arrays
        Per iteration ``objective`` (dual :math:`J`), ``primal``, ``gap``,
        ``step_norm``, ``step_size``, ``rank``, ``G``, ``n_backtracks``, ``time``. The
        linear loss records one row (the closed form; objective = primal).
    n_iter_ : int
    converged_ : bool
    fit_time_ : float
        Seconds spent learning the kernel (constraints, graph, solve; not k-means).

    References
    ----------
    .. [1] J. Zhuang, I. W. Tsang and S. C. H. Hoi, "A Family of Simple Non-Parametric
       Kernel Learning Algorithms", Journal of Machine Learning Research 12, 2011.
    """

    _param_rules = {
        "loss": rules.one_of(*LOSSES),
        "C": rules.positive,
        "B": rules.positive,
        "p": rules.greater_than(1.0),
        "G": rules.optional(rules.positive),
        "n_neighbors": rules.positive_int,
        "neighbor_graph": rules.one_of(*GRAPHS),
        "constraint_fraction": rules.positive,
        "active_selection": rules.optional(rules.positive_int),
        "n_clusters": rules.positive_int,
        "step_size": rules.positive_or("auto", "lemma5"),
        "eigen_solver": rules.one_of(*EIGEN_SOLVERS),
        "max_iter": rules.positive_int,
        "tol": rules.positive,
        "n_init": rules.positive_int,
        "callback": rules.callable_or_none,
        "random_state": rules.any_value,
    }

    def __init__(self, *, loss: str = "linear", C: float = 0.1, B: float = 1.0,
                 p: float = 2.0, G: float | None = None, n_neighbors: int = 5,
                 neighbor_graph: str = "mutual", constraint_fraction: float = 0.1,
                 active_selection: int | None = None,
                 n_clusters: int = 2, step_size: str | float = "auto",
                 eigen_solver: str = "auto", max_iter: int = 100, tol: float = 1e-5,
                 n_init: int = 10, callback=None, random_state=None) -> None:
        self.loss = loss
        self.C = C
        self.B = B
        self.p = p
        self.G = G
        self.n_neighbors = n_neighbors
        self.neighbor_graph = neighbor_graph
        self.constraint_fraction = constraint_fraction
        self.active_selection = active_selection
        self.n_clusters = n_clusters
        self.step_size = step_size
        self.eigen_solver = eigen_solver
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.callback = callback
        self.random_state = random_state

    # -- helpers -----------------------------------------------------------------
    def _constraints(self, n, y, must_link, cannot_link, rng):
        if must_link is not None or cannot_link is not None:
            ml = _as_pairs("must_link", must_link, n)
            cl = _as_pairs("cannot_link", cannot_link, n)
            _check_contradictions(ml, cl, n)
        elif y is not None:
            y = column_or_1d(y, warn=True)
            if y.shape[0] != n:
                raise ValueError(f"y has {y.shape[0]} labels but X has {n} points.")
            check_classification_targets(y)
            ml, cl = draw_constraints(y, self.constraint_fraction, rng)
        else:
            raise ValueError(
                "SimpleNPKL requires y to be passed, but the target y is None and no "
                "must_link / cannot_link pairs were given. Pass labels y (constraints are "
                "then drawn from them at constraint_fraction) or the index pairs.")
        if len(ml) + len(cl) == 0:
            raise ValueError(
                "SimpleNPKL got no pairwise constraints: the given lists are empty, or y "
                "yields none (every point in its own class, or constraint_fraction too "
                "small). Give at least one must-link or cannot-link pair.")
        return ml, cl

    def fit(self, X: ArrayLike, y: ArrayLike | None = None, *,
            must_link: ArrayLike | None = None,
            cannot_link: ArrayLike | None = None) -> SimpleNPKL:
        """Learn the kernel from constraints and cluster it.

        Parameters
        ----------
        X : array-like (n, d)
        y : array-like (n,), optional
            Class labels; constraints are drawn from them (see ``constraint_fraction``)
            unless ``must_link``/``cannot_link`` are given, which take precedence.
        must_link, cannot_link : array-like (m, 2) of int, optional
            Index pairs into ``X``.
        """
        check_params(self, self._param_rules)
        if self.constraint_fraction > 1:
            raise ValueError(f"constraint_fraction must be in (0, 1], got "
                             f"{self.constraint_fraction!r}.")
        X = validate_data(self, X, dtype=float, ensure_min_samples=2)
        n = X.shape[0]
        if self.n_neighbors >= n:
            raise ValueError(f"n_neighbors must be < n_samples = {n}, got "
                             f"{self.n_neighbors}. Lower n_neighbors or add points.")
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds n_samples={n}.")
        # At this size single-threaded BLAS/OpenMP is faster than 2+ threads and immune to
        # oversubscription (KMeans' OpenMP threads spin when the machine is busy).
        with _single_threaded() if n <= _SINGLE_THREAD_BELOW else contextlib.nullcontext():
            self._fit(X, y, must_link, cannot_link)
        return self

    def _fit(self, X, y, must_link, cannot_link) -> None:
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        t0 = time.perf_counter()
        ml, cl = self._constraints(n, y, must_link, cannot_link, rng)
        pairs_all = np.vstack([ml, cl])
        signs_all = np.concatenate([np.ones(len(ml)), -np.ones(len(cl))])
        L = knn_laplacian(X, self.n_neighbors, graph=self.neighbor_graph)
        p = float(self.p)
        B = float(self.B)
        G = None if self.G is None else float(self.G)
        C = float(self.C)
        seed_rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))

        # active constraint selection (§5.3): score with the linear-loss kernel
        active = np.ones(len(pairs_all), dtype=bool)
        self.active_points_ = None
        lin_all = None
        if self.active_selection is not None:
            A_all = sp.csr_array(C * _pair_matrix(n, pairs_all, signs_all) - L)
            lin_all = _kernel_from_A(A_all, p=p, B=None if G is not None else B, G=G,
                                     k0=prop4_rank(len(pairs_all)),
                                     solver=self.eigen_solver)
            margins = point_margins(lin_all, pairs_all, signs_all, n)
            candidates = np.nonzero(np.isfinite(margins))[0]
            if self.active_selection < candidates.size:
                order = np.argsort(margins[candidates], kind="stable")
                chosen = np.sort(candidates[order[: self.active_selection]])
                mask = np.zeros(n, dtype=bool)
                mask[chosen] = True
                active = mask[pairs_all[:, 0]] | mask[pairs_all[:, 1]]
                self.active_points_ = chosen
            else:
                self.active_points_ = candidates
        pairs = pairs_all[active]
        signs = signs_all[active]

        if self.loss == "linear":
            if lin_all is not None and active.all():
                sol = lin_all
            else:
                T = _pair_matrix(n, pairs, signs)
                sol = _kernel_from_A(sp.csr_array(C * T - L), p=p,
                                     B=None if G is not None else B, G=G,
                                     k0=prop4_rank(len(pairs)), solver=self.eigen_solver)
            alpha = np.full(len(pairs), C)
            log = IterationLog(self.callback)
            obj = primal_objective("linear", sol, L, pairs, signs, C, G)
            log.record({"alpha": alpha, "kernel": sol}, objective=obj, primal=obj, gap=0.0,
                       step_norm=0.0, step_size=np.nan, rank=sol.rank, G=sol.G,
                       n_backtracks=0)
            history, n_iter, converged = log.as_dict(), 1, True
        else:
            res = simple_npkl_solve(L, pairs, signs, loss=self.loss, C=C, B=B, p=p, G=G,
                                    step_size=self.step_size, max_iter=self.max_iter,
                                    tol=self.tol, eigen_solver=self.eigen_solver,
                                    callback=self.callback, rng=seed_rng)
            sol, alpha, history = res.solution, res.alpha, res.history
            n_iter, converged = res.n_iter, res.converged
            if not res.converged and not res.stopped:
                warn_not_converged(f"SimpleNPKL (loss={self.loss!r})", self.max_iter,
                                   "Increase max_iter or tol.")
        if sol.rank == 0:
            warnings.warn(
                "SimpleNPKL found no positive eigenvalue in A = sum alpha T - L, so the "
                "learned kernel is 0 (the optimum: no kernel aligns with the constraints "
                "at less cost than the graph Laplacian charges) and every point gets "
                "label 0. Increase C, add must-link constraints, or change n_neighbors.",
                RuntimeWarning, stacklevel=3)

        self.laplacian_ = L
        self.constraint_pairs_ = pairs_all
        self.constraint_signs_ = signs_all
        self.active_constraints_ = active
        self.must_link_ = pairs[signs > 0]
        self.cannot_link_ = pairs[signs < 0]
        self.n_constraints_ = int(len(pairs))
        self.alpha_ = alpha
        self.G_ = float(sol.G)
        self.eigenvalues_ = sol.eigenvalues
        emb = sol.eigenvectors * np.sqrt(sol.eigenvalues)
        if emb.shape[1] < 2:
            emb = np.hstack([emb, np.zeros((n, 2 - emb.shape[1]))])
        self.embedding_ = emb
        self.kernel_ = sol.kernel
        self.history_ = history
        self.n_iter_ = int(n_iter)
        self.converged_ = bool(converged)
        self.fit_time_ = time.perf_counter() - t0
        km_seed = int(seed_rng.integers(np.iinfo(np.int32).max))
        if sol.rank == 0:
            self.labels_ = np.zeros(n, dtype=np.int64)
        else:
            km = KMeans(n_clusters=self.n_clusters, n_init=self.n_init, random_state=km_seed)
            self.labels_ = km.fit_predict(self.embedding_).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # fit(X) alone has nothing to learn from: y (to draw pairs) or the pairs are needed
        tags.target_tags.required = True
        return tags

    def fit_predict(self, X: ArrayLike, y: ArrayLike | None = None, **constraints
                    ) -> NDArray:
        """``fit(X, y, **constraints)`` and return ``labels_``."""
        return self.fit(X, y, **constraints).labels_
