r"""DANK at scale (seed 000 §4): k-means decomposition, Q(pi), Theorem 6 and 7.

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
from joblib import Parallel, delayed
from scipy.optimize import minimize
from sklearn.cluster import KMeans
from sklearn.svm import SVC

from ._base import warn_not_converged
from .kernels import gaussian_kernel, sigma_to_gamma, squared_distances


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


def _solve_cluster(idx, X, y, C, sigma, eta, max_iter, tol, start=None):
    t0 = time.perf_counter()
    alpha, h, nit, ok, trace = solve_box_quartic_active(X, y, C, eta, sigma, start=start,
                                                         max_iter=max_iter, tol=tol)
    return {"idx": idx, "alpha": alpha, "objective": h, "n_iter": nit, "converged": ok,
            "trace": trace, "pid": os.getpid(), "start": t0, "end": time.perf_counter()}


def _cluster_svm(X, y, C, sigma):
    """Plain SVM on one cluster: ``(||alpha_SVM||^2, alpha_SVM)`` (0 and None for a
    one-class cluster). Gives the global eta and each sub-problem's starting set."""
    if np.unique(y).size < 2:
        return 0.0, None
    svm = SVC(C=C, gamma=sigma_to_gamma(sigma)).fit(X, y)
    alpha = np.zeros(y.size)
    alpha[svm.support_] = np.abs(svm.dual_coef_[0])
    return float(alpha @ alpha), alpha


def _partition(X, n_clusters, random_state):
    """k-means partition; above 5,000 points the centres are fitted on a 5,000-point
    sample and every point goes to its nearest centre (the partition, not the k-means
    objective, is what the decomposition needs)."""
    rng = np.random.default_rng(random_state if isinstance(random_state, int) else None)
    fit_on = X if X.shape[0] <= 5000 else X[rng.choice(X.shape[0], 5000, replace=False)]
    km = KMeans(n_clusters=n_clusters, n_init=3, random_state=random_state).fit(fit_on)
    centers = km.cluster_centers_
    labels = np.argmin(squared_distances(X, centers), axis=1)
    return labels, centers


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


def fit_scalable(X: np.ndarray, y: np.ndarray, *, n_clusters: int, C: float = 1.0,
                 sigma: float = 1.0, eta="auto", n_jobs=None, random_state=None,
                 max_iter: int = 2000, tol: float = 1e-4) -> ScalableResult:
    """Solve DANK by the decomposition of §4 (``tau = 0``, no bias).

    ``eta="auto"`` is one global ``eta = sum_c ||alpha_SVM^(c)||^2`` from plain SVMs on
    the clusters (a full-data SVM would cost what the decomposition saves).
    ``n_clusters=1`` solves the exact box-constrained problem (18).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if n_clusters == 1:
        labels = np.zeros(X.shape[0], dtype=int)
        centers = X.mean(axis=0, keepdims=True)
    else:
        labels, centers = _partition(X, n_clusters, random_state)
    groups = [np.flatnonzero(labels == c) for c in range(centers.shape[0])]
    groups = [g for g in groups if g.size]
    par = Parallel(n_jobs=n_jobs)
    svms = par(delayed(_cluster_svm)(X[g], y[g], C, sigma) for g in groups)
    eta_value = (float(sum(e for e, _ in svms)) or 1.0) if eta == "auto" else float(eta)
    outs = par(delayed(_solve_cluster)(g, X[g], y[g], C, sigma, eta_value, max_iter, tol,
                                       start)
               for g, (_, start) in zip(groups, svms, strict=True))
    alpha = np.zeros(X.shape[0])
    for o in outs:
        alpha[o["idx"]] = o["alpha"]
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
                          history=history)


def scalable_decision(res: ScalableResult, X: np.ndarray) -> np.ndarray:
    """Local model of the nearest centre: ``sum_{i in c} u_i F_{i,j*} k(x_i, x)`` with
    ``F = 11^T + Gamma`` of cluster c and ``j*`` the nearest training point in c."""
    X = np.asarray(X, dtype=float)
    which = np.argmin(squared_distances(X, res.centers), axis=1)
    out = np.zeros(X.shape[0])
    u = res.y * res.alpha
    for c in np.unique(which):
        rows = np.flatnonzero(which == c)
        members = np.flatnonzero(res.labels == c)
        S = members[u[members] != 0]
        if S.size == 0:
            continue
        Xm = res.X[members]
        jstar = members[np.argmin(squared_distances(X[rows], Xm), axis=1)]
        Kt = gaussian_kernel(res.X[S], X[rows], sigma=res.sigma)       # (|S|, r)
        Kj = gaussian_kernel(res.X[S], res.X[jstar], sigma=res.sigma)  # K_{i, j*}
        F = 1.0 + (u[S][:, None] * Kj * u[jstar][None, :]) / (4.0 * res.eta)
        out[rows] = u[S] @ (F * Kt)
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
