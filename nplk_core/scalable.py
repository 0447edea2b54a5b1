r"""DANK at scale: k-means decomposition, Q(pi), Theorem 6 and 7.

From *Learning Data-adaptive Non-parametric Kernels* (Liu et al., JMLR 2020), §4.

Without the nuclear norm (``tau = 0``) and the bias (box constraint only, eq. 18),
``F(alpha) = 11^T + Gamma(alpha)`` is already PSD, and ``h`` has the closed form

.. math::

    h(\alpha) = 1^\top\alpha - \tfrac12 u^\top K u
    - \tfrac{1}{16\eta} (u\circ u)^\top (K\circ K) (u\circ u),\qquad u = y\circ\alpha,

a smooth concave quartic maximised over the box ``0 <= alpha <= C`` by L-BFGS-B.
The data are split by k-means into ``v`` clusters; each sub-problem (eq. 19) is solved
independently (in parallel with joblib) and the solutions are concatenated. A new
point is predicted by the local model of its nearest cluster centre.

Reading of Theorem 6 used here: the decomposed solution is optimal for problem (20),
whose kernel ``K_bar`` zeroes the cross-cluster entries; with ``tau = 0`` its value is
``sum_c h_c(alpha_c)``. The gap ``h(alpha*) - sum_c h_c(alpha_bar_c)`` is bounded by
``B C^2 Q(pi) / 2`` with ``Q(pi) = sum_{pi(i) != pi(j)} |K_ij|``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.svm import SVC

from ._base import single_thread_blas, warn_not_converged
from .kernels import gaussian_kernel, sigma_to_gamma, squared_distances
from .parallel import map_fits


def quartic_objective(alpha: np.ndarray, y: np.ndarray, K: np.ndarray, eta: float,
                      K2: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """``h(alpha)`` of the box-constrained, ``tau = 0`` problem and its gradient."""
    u = y * alpha
    K2 = K * K if K2 is None else K2
    Ku = K @ u
    a2 = alpha * alpha
    P = K2 @ a2
    h = alpha.sum() - 0.5 * (u @ Ku) - (a2 @ P) / (16.0 * eta)
    g = 1.0 - y * Ku - alpha * P / (4.0 * eta)
    return float(h), g


def solve_box_quartic(y: np.ndarray, K: np.ndarray, C: float, eta: float, *,
                      alpha0: np.ndarray | None = None, max_iter: int = 2000,
                      tol: float = 1e-4) -> tuple[np.ndarray, float, int, bool, list[float]]:
    """Maximise the quartic ``h`` over ``0 <= alpha <= C`` (L-BFGS-B on ``-h``)."""
    n = y.size
    K2 = K * K
    trace: list[float] = []

    def neg(a):
        h, g = quartic_objective(a, y, K, eta, K2)
        return -h, -g

    x0 = np.zeros(n) if alpha0 is None else np.clip(alpha0, 0, C)
    res = minimize(neg, x0, jac=True, method="L-BFGS-B", bounds=[(0.0, C)] * n,
                   callback=lambda xk: trace.append(-neg(xk)[0]),
                   options={"maxiter": max_iter, "ftol": 1e-15, "gtol": tol * 1e-2,
                            "maxcor": 20})
    alpha = np.clip(res.x, 0.0, C)
    alpha[alpha < 1e-10 * C] = 0.0
    return alpha, -float(res.fun), int(res.nit), bool(res.success), trace


def solve_box_quartic_active(X: np.ndarray, y: np.ndarray, C: float, eta: float, sigma: float,
                             *, start: np.ndarray | None = None, max_iter: int = 2000,
                             tol: float = 1e-4, max_rounds: int = 100
                             ) -> tuple[np.ndarray, float, int, bool, list[float]]:
    r"""The same maximisation by a working set: exact, without the full kernel.

    Only the support vectors carry ``alpha > 0`` (a few percent of a cluster), so solve
    the quartic on a working set ``W`` (L-BFGS-B, warm-started), then check the KKT
    conditions of the full box problem with ``K[:, W]`` only: a point with
    ``alpha_i = 0`` is optimal iff ``dh/dalpha_i <= 0``. Add the worst violators to ``W``
    and repeat until none is left (to ``tol * 1e-2``). Returns what
    :func:`solve_box_quartic` returns.
    """
    n = y.size
    kkt_tol = tol * 1e-2
    alpha = np.zeros(n)
    if start is not None and np.any(start > 0):
        W = np.flatnonzero(start > 0)
        alpha[W] = np.clip(start[W], 0.0, C)
    else:
        W = np.sort(np.random.default_rng(0).choice(n, size=min(n, 20), replace=False))
    trace: list[float] = []
    n_iter = 0
    converged = False
    h = 0.0
    for _ in range(max_rounds):
        KW = gaussian_kernel(X, X[W], sigma=sigma)          # (n, |W|)
        a_W, h, nit, ok, tr = solve_box_quartic(y[W], KW[W], C, eta, alpha0=alpha[W],
                                                max_iter=max_iter, tol=tol)
        n_iter += nit
        trace.extend(tr)
        alpha[:] = 0.0
        alpha[W] = a_W
        # the full gradient needs only the working-set columns
        g = 1.0 - y * (KW @ (y[W] * a_W)) - alpha * ((KW * KW) @ (a_W * a_W)) / (4.0 * eta)
        outside = np.ones(n, dtype=bool)
        outside[W] = False
        viol = np.flatnonzero(outside & (g > kkt_tol))
        if viol.size == 0:
            converged = ok
            break
        worst = viol[np.argsort(g[viol])[::-1][: max(20, W.size // 2)]]
        keep = W[a_W > 0]
        W = np.union1d(keep if keep.size else W, worst)
    return alpha, float(h), n_iter, converged, trace


def _solve_cluster(Xc, yc, C, start=None, *, sigma, eta, max_iter, tol):
    """One sub-problem (eq. 19) on its own cluster's rows. Returns only what is small:
    the cluster's non-zero ``alpha`` (positions within the cluster and values), its
    objective and the worker's pid and clock (the kernel never leaves the worker)."""
    t0 = time.perf_counter()
    with single_thread_blas():  # small products; also keeps n_jobs=1 off BLAS threads
        alpha, h, nit, ok, _ = solve_box_quartic_active(Xc, yc, C, eta, sigma,
                                                         start=_dense(start, yc.size),
                                                         max_iter=max_iter, tol=tol)
    nz = np.flatnonzero(alpha)
    return {"nz": nz, "alpha": alpha[nz], "objective": h, "n_iter": nit, "converged": ok,
            "pid": os.getpid(), "start": t0, "end": time.perf_counter()}


def _dense(sparse, n):
    if sparse is None:
        return None
    a = np.zeros(n)
    a[sparse[0]] = sparse[1]
    return a


def _cluster_svm(X, y, C, *, sigma):
    """Plain SVM on one cluster: ``(||alpha_SVM||^2, (support, alpha_support))`` (0 and
    None for a one-class cluster). Gives the global eta and each sub-problem's starting
    set."""
    if np.unique(y).size < 2:
        return 0.0, None
    svm = SVC(C=C, gamma=sigma_to_gamma(sigma)).fit(X, y)
    a = np.abs(svm.dual_coef_[0])
    return float(a @ a), (np.asarray(svm.support_), a)


def _svm_and_solve(Xc, yc, C, *, sigma, eta, max_iter, tol):
    """Both steps of one cluster in one task (a numeric ``eta`` needs no global
    reduction between them, so the cluster's rows travel once)."""
    _, start = _cluster_svm(Xc, yc, C, sigma=sigma)
    return _solve_cluster(Xc, yc, C, start, sigma=sigma, eta=eta, max_iter=max_iter,
                          tol=tol)


#: above this many points k-means runs mini-batch (see :func:`_partition`)
MINIBATCH_ABOVE = 50_000
#: rows per block when points are assigned to their nearest centre
_ASSIGN_ROWS = 65_536


def nearest_center(X: np.ndarray, centers: np.ndarray, *, rows: int = _ASSIGN_ROWS
                   ) -> np.ndarray:
    """Index of the nearest centre of each row, ``rows`` rows at a time (memory
    ``rows x k``, not ``n x k``)."""
    out = np.empty(X.shape[0], dtype=np.intp)
    for a in range(0, X.shape[0], rows):
        out[a:a + rows] = np.argmin(squared_distances(X[a:a + rows], centers), axis=1)
    return out


#: the k-means seed when none is given: a fit without ``random_state`` is the same fit on
#: every run (a seed drawn from the operating system made the partition, and so the
#: predictions, change from run to run: 99.5-99.8 % agreement at n = 5,000, 8 clusters)
DEFAULT_SEED = 0


def partition_seed(random_state) -> int:
    """The one integer that seeds the partition (the sample and k-means).

    ``None`` is :data:`DEFAULT_SEED` (the same partition on every run); an integer (numpy
    integers included) is itself; a ``RandomState`` or ``Generator`` gives one draw, so a
    seeded generator gives the same partition each time it is seeded alike."""
    if random_state is None:
        return DEFAULT_SEED
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    raise ValueError(f"random_state must be None, an integer, a numpy RandomState or "
                     f"Generator; got {random_state!r}.")


def _partition(X, n_clusters, random_state):
    """k-means partition (the partition, not the k-means objective, is what the
    decomposition needs).

    Up to :data:`MINIBATCH_ABOVE` (50,000) points: Lloyd's k-means (3 starts) on a
    5,000-point sample (all points when fewer), as before. Beyond, a fixed sample
    would hold ever fewer points per centre (k grows with n to keep clusters small), so
    ``MiniBatchKMeans`` (batches of 4,096, 3 initialisations) sees all the data in
    passes of ``O(batch x k)`` memory, independent of n; Lloyd's on all of a large n
    costs ``n x k x d`` per iteration and per start. Every point then goes to its
    nearest centre, in blocks.

    The same data and seed give the same partition bit for bit, whatever process runs
    it: the seed is :func:`partition_seed` (never the operating system's), and Lloyd's
    k-means runs on one OpenMP thread, because scikit-learn sums each thread's share of
    a centre separately, so its centres change in the last bits with the thread count
    (2 threads in this process, 1 in a Dask or loky worker). On one thread it is also
    faster at this size (5,000 points: 0.03 s against 0.7-1.6 s on 2 busy cores).
    Mini-batch k-means updates each centre on one thread; its centres were measured
    the same on 1 and 2 threads (200,000 clowns, 200 clusters).
    """
    from threadpoolctl import threadpool_limits

    n = X.shape[0]
    seed = partition_seed(random_state)
    if n <= MINIBATCH_ABOVE:
        rng = np.random.default_rng(seed)
        fit_on = X if n <= 5000 else X[rng.choice(n, 5000, replace=False)]
        with threadpool_limits(limits=1, user_api="openmp"):
            km = KMeans(n_clusters=n_clusters, n_init=3, random_state=seed).fit(fit_on)
    else:
        km = MiniBatchKMeans(n_clusters=n_clusters, batch_size=4096, n_init=3,
                             init_size=max(3 * 4096, 3 * n_clusters),
                             random_state=seed).fit(X)
    centers = km.cluster_centers_
    return nearest_center(X, centers), centers


@dataclass
class ScalableResult:
    """The decomposed DANK solution and what the views need."""

    X: np.ndarray
    y: np.ndarray
    alpha: np.ndarray
    labels: np.ndarray
    centers: np.ndarray
    eta: float
    sigma: float
    C: float
    objective: float                 # sum of sub-problem objectives = H_bar(alpha_bar)
    n_iter: int
    converged: bool
    cluster_objectives: np.ndarray
    workers: list = field(default_factory=list)   # (pid, start, end) per cluster
    history: dict = field(default_factory=dict)
    vote: int = 1                    # local models summed at prediction (nearest centres)
    cluster_C: np.ndarray | None = None   # each sub-problem's box bound (C, or C n / n_c)


def fit_scalable(X: np.ndarray, y: np.ndarray, *, n_clusters: int, C: float = 1.0,
                 sigma: float = 1.0, eta="auto", n_jobs=None, random_state=None,
                 max_iter: int = 2000, tol: float = 1e-4, cluster_C: str = "same",
                 vote: int = 1) -> ScalableResult:
    """Solve DANK by the decomposition of §4 (``tau = 0``, no bias).

    Two additions to the paper, both off by default (the paper's rule):

    - ``cluster_C="scaled"``: sub-problem c has the box ``0 <= alpha <= C n / n_c``
      instead of ``C`` (eq. 19). Each local model then weighs its loss against the
      regulariser as the whole problem (18) does (``C`` per point of ``n``, not of
      ``n_c``), the choice of divide-and-conquer averaging (Zhang et al. 2013, cited by
      the paper beside its scheme); with ``C`` a local model of ``n_c`` points is
      ``n / n_c`` times more regularised than the whole problem.
    - ``vote=p``: a new point is predicted by the sum of the decision values of the local
      models of its ``p`` nearest centres (the paper: ``p = 1``); near a cluster border
      the neighbouring clusters' models count too.

    ``eta="auto"`` is one global ``eta = sum_c ||alpha_SVM^(c)||^2`` from plain SVMs on
    the clusters (a full-data SVM would cost what the decomposition saves).
    ``n_clusters=1`` solves the exact box-constrained problem (18).

    The clusters are independent tasks of :func:`nplk_core.parallel.map_fits`, run by
    whatever joblib backend is active: ``n_jobs`` local processes by default, Dask
    workers inside ``joblib.parallel_config(backend="dask")`` with a connected
    ``dask.distributed.Client``. Each task receives its own cluster's rows (every point
    travels to one task, once per round: two rounds for ``eta="auto"``, whose global
    eta sums the clusters' SVMs, one for a numeric eta) and returns the cluster's
    non-zero alphas; kernel matrices never leave the workers. Above
    :data:`MINIBATCH_ABOVE` points k-means is mini-batch.

    References
    ----------
    The decomposition is the paper's §4 (eq. 18-20, Theorems 6 and 7).

    .. [1] F. Liu, X. Huang, C. Gong, J. Yang and L. Li, "Learning Data-adaptive
       Non-parametric Kernels", Journal of Machine Learning Research 21, 2020.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if n_clusters == 1:
        labels = np.zeros(X.shape[0], dtype=int)
        centers = X.mean(axis=0, keepdims=True)
    else:
        labels, centers = _partition(X, n_clusters, random_state)
    order = np.argsort(labels, kind="stable")      # one pass, not one per cluster
    bounds = np.searchsorted(labels[order], np.arange(centers.shape[0] + 1))
    groups = [order[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    # each cluster's rows are one task's own data, built once and reused by both
    # rounds (the same objects: joblib's Dask backend scatters each once per round)
    if cluster_C not in ("same", "scaled"):
        raise ValueError(f"cluster_C must be 'same' (eq. 19) or 'scaled' (C n / n_c); "
                         f"got {cluster_C!r}.")
    if int(vote) < 1:
        raise ValueError(f"vote must be a positive number of local models; got {vote!r}.")
    Cs = np.array([C * X.shape[0] / g.size if cluster_C == "scaled" else C for g in groups],
                  dtype=float)
    parts = [(X[g], y[g], float(c)) for g, c in zip(groups, Cs, strict=True)]
    if eta == "auto":
        svms = map_fits(_cluster_svm, parts, n_jobs=n_jobs, shared={"sigma": sigma})
        eta_value = float(sum(e for e, _ in svms)) or 1.0
        outs = map_fits(_solve_cluster, [(*p, s) for p, (_, s) in zip(parts, svms, strict=True)],
                        n_jobs=n_jobs, shared={"sigma": sigma, "eta": eta_value,
                                               "max_iter": max_iter, "tol": tol})
    else:
        eta_value = float(eta)
        outs = map_fits(_svm_and_solve, parts, n_jobs=n_jobs,
                        shared={"sigma": sigma, "eta": eta_value,
                                "max_iter": max_iter, "tol": tol})
    del parts
    for g, o in zip(groups, outs, strict=True):
        o["idx"] = g
    alpha = np.zeros(X.shape[0])
    for o in outs:
        alpha[o["idx"][o["nz"]]] = o["alpha"]
    objs = np.array([o["objective"] for o in outs])
    converged = all(o["converged"] for o in outs)
    if not converged:
        warn_not_converged("Scalable DANK (L-BFGS-B per cluster)", max_iter)
    history = {
        "objective": np.cumsum(objs),
        "cluster_size": np.array([o["idx"].size for o in outs], dtype=float),
        "n_iter": np.array([o["n_iter"] for o in outs], dtype=float),
        "time": np.array([o["end"] - o["start"] for o in outs]),
        "step_norm": np.full(len(outs), np.nan),
        "rank": np.full(len(outs), np.nan),
    }
    return ScalableResult(X=X, y=y, alpha=alpha, labels=labels, centers=centers,
                          eta=eta_value, sigma=float(sigma), C=float(C),
                          objective=float(objs.sum()),
                          n_iter=int(max(o["n_iter"] for o in outs)), converged=converged,
                          cluster_objectives=objs,
                          workers=[(o["pid"], o["start"], o["end"]) for o in outs],
                          history=history, vote=int(vote), cluster_C=Cs)


def scalable_decision(res: ScalableResult, X: np.ndarray, *,
                      max_bytes: int = 64 * 2**20) -> np.ndarray:
    """Local model of the nearest centre: ``sum_{i in c} u_i F_{i,j*} k(x_i, x)`` with
    ``F = 11^T + Gamma`` of cluster c and ``j*`` the nearest training point in c; with
    ``res.vote = p > 1`` the sum of the local models of the ``p`` nearest centres.

    Runs over ``X`` in blocks of rows so that each block's largest matrix (rows x the
    largest cluster, or rows x k centres) stays near ``max_bytes``: memory is bounded
    whatever the number of test points.
    """
    X = np.asarray(X, dtype=float)
    out = np.zeros(X.shape[0])
    u = res.y * res.alpha
    k = res.centers.shape[0]
    p = min(int(getattr(res, "vote", 1) or 1), k)
    order = np.argsort(res.labels, kind="stable")
    bounds = np.searchsorted(res.labels[order], np.arange(k + 1))
    members = [order[bounds[c]:bounds[c + 1]] for c in range(k)]
    widest = max(k, max(m.size for m in members))
    rows = max(64, int(max_bytes // (8 * 3 * widest)))
    for a in range(0, X.shape[0], rows):
        Xb = X[a:a + rows]
        if p == 1:
            near = nearest_center(Xb, res.centers)[:, None]
        else:
            near = np.argsort(squared_distances(Xb, res.centers), axis=1)[:, :p]
        for j in range(near.shape[1]):
            which = near[:, j]
            for c in np.unique(which):
                m = members[c]
                S = m[u[m] != 0]
                if S.size == 0:
                    continue
                r = np.flatnonzero(which == c)
                jstar = m[np.argmin(squared_distances(Xb[r], res.X[m]), axis=1)]
                Kt = gaussian_kernel(res.X[S], Xb[r], sigma=res.sigma)        # (|S|, r)
                Kj = gaussian_kernel(res.X[S], res.X[jstar], sigma=res.sigma)  # K_{i, j*}
                F = 1.0 + (u[S][:, None] * Kj * u[jstar][None, :]) / (4.0 * res.eta)
                out[a + r] += u[S] @ (F * Kt)
    return out


def q_pi(K: np.ndarray, labels: np.ndarray) -> float:
    """``Q(pi) = sum_{pi(i) != pi(j)} |K_ij|`` (Theorem 6)."""
    labels = np.asarray(labels)
    cross = labels[:, None] != labels[None, :]
    return float(np.abs(K)[cross].sum())


def block_F(alpha: np.ndarray, y: np.ndarray, K: np.ndarray, eta: float,
            labels: np.ndarray | None = None) -> np.ndarray:
    """``F = 11^T + Gamma`` (tau = 0), with ``Gamma`` built on ``K_bar`` when ``labels``
    are given (cross-cluster entries of ``K`` zeroed)."""
    u = y * alpha
    Kb = K if labels is None else K * (labels[:, None] == labels[None, :])
    return 1.0 + np.outer(u, u) * Kb / (4.0 * eta)


def theorem6_bound(K: np.ndarray, labels: np.ndarray, C: float, F_exact: np.ndarray,
                   F_bar: np.ndarray) -> dict[str, float]:
    """The bound ``B C^2 Q(pi) / 2`` with ``B = B2 - B1`` read off the two solutions:
    ``B1 <= max(F*_ij, F_bar_ij) <= B2`` for all entries."""
    M = np.maximum(F_exact, F_bar)
    B1, B2 = float(M.min()), float(M.max())
    Q = q_pi(K, labels)
    return {"Q": Q, "B1": B1, "B2": B2, "bound": 0.5 * (B2 - B1) * C ** 2 * Q}


def screen_non_support(res: ScalableResult, *, B1: float | None = None,
                       B2: float | None = None, kappa: float = 1.0) -> np.ndarray:
    r"""Theorem 7: points certified as non-support vectors of the whole problem.

    ``alpha_bar_i = 0`` and ``[grad H_bar(alpha_bar, F_bar)]_i <= -(B + B2) C
    (||K_bar_i||_1 + kappa)``. ``B1, B2`` bound the entries of ``F*`` and ``F_bar``;
    by default they are read off ``F_bar`` alone (an estimate: ``F*`` is what the
    decomposition avoids computing). Returns a boolean mask over the training points.
    """
    X, y, alpha, labels = res.X, res.y, res.alpha, res.labels
    n = X.shape[0]
    grad = np.empty(n)
    l1 = np.empty(n)
    fmin, fmax = np.inf, -np.inf
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        K = gaussian_kernel(X[idx], sigma=res.sigma)
        F = block_F(alpha[idx], y[idx], K, res.eta)
        fmin, fmax = min(fmin, F.min()), max(fmax, F.max())
        grad[idx] = 1.0 - y[idx] * ((F * K) @ (y[idx] * alpha[idx]))
        l1[idx] = np.abs(K).sum(axis=0)
    B1 = fmin if B1 is None else B1
    B2 = fmax if B2 is None else B2
    threshold = -((B2 - B1) + B2) * res.C * (l1 + kappa)
    return (alpha == 0) & (grad <= threshold)


def gradient_bar(res: ScalableResult) -> np.ndarray:
    """``grad_alpha H_bar(alpha_bar, F_bar)`` per training point (for the Fig. 5c view)."""
    n = res.X.shape[0]
    g = np.empty(n)
    for c in np.unique(res.labels):
        idx = np.flatnonzero(res.labels == c)
        K = gaussian_kernel(res.X[idx], sigma=res.sigma)
        F = block_F(res.alpha[idx], res.y[idx], K, res.eta)
        g[idx] = 1.0 - res.y[idx] * ((F * K) @ (res.y[idx] * res.alpha[idx]))
    return g
