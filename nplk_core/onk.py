r"""Optimal Neighborhood Kernel (ONK).

The paper: Liu, Chen, Chen, Ye, *Learning the Optimal Neighborhood Kernel for
Classification*, IJCAI 2009; the maths: docs/the-maths-of-every-method.md, 'ONK —
Learning the Optimal Neighborhood Kernel for Classification'.

.. math::

    \min_{\alpha\in A} f(\alpha) = -2\alpha^\top 1 + \alpha^\top YKY\alpha
    + \frac{1}{4\rho}(\alpha^\top\alpha)^2,
    \qquad G^* = K + \frac{1}{2\rho}(Y\alpha)(Y\alpha)^\top,

over :math:`A = \{0 \le \alpha \le C,\ \alpha^\top y = 0\}` (eq. 7, Theorem 1). The
learned kernel is the given one plus a rank-one term; as :math:`\rho\to\infty` it
returns to ``K`` and the problem to the SVM dual (scaled by 2).

Two solvers, one result type (:class:`ONKSolution`):

* :func:`onk_cgd` — constrained gradient descent (Algorithm 2) with Armijo–Goldstein
  steps and the exact projection :func:`~nplk_core.projection.project_dual`;
* :func:`onk_level` — the level method (Algorithm 1): cutting-plane model, LP lower
  bound by HiGHS, projection onto the level set through its dual.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog, minimize
from sklearn.base import BaseEstimator, ClassifierMixin

from ._base import (
    Callback,
    IterationLog,
    Snapshots,
    _OneVsRestMixin,
    any_value,
    bias_from_residual,
    callable_or_none,
    one_of,
    positive,
    positive_int,
    recover_bias,
    single_thread_blas,
    warn_not_converged,
)
from .kernels import gaussian_kernel
from .projection import project_dual

_GAMMA_MAX = 1e300  # the Armijo search gives up beyond this (non-finite objective)


@dataclass
class ONKSolution:
    """Result of an ONK solver: the minimiser, its objective, status and the log."""

    alpha: NDArray[np.float64]
    objective: float
    n_iter: int
    converged: bool
    stopped: bool = False  # the callback asked to stop
    history: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    snapshots: Snapshots | None = None  # the kept iterates (training replay)


def _snapshot(alpha: np.ndarray, Qa: np.ndarray, y: np.ndarray, C: float, rho: float
              ) -> dict:
    """The iterate the training replay keeps: ``alpha`` (with ``y`` it defines ``G``)
    and its bias on ``G = K + uu^T/(2 rho)``: ``G u = y*(Q alpha) + u |alpha|^2/(2 rho)``."""
    u = alpha * y
    g = y - (y * Qa + u * (float(alpha @ alpha) / (2.0 * rho)))
    return {"alpha": alpha, "bias": bias_from_residual(alpha, y, g, C)}


def onk_objective(alpha: ArrayLike, Q: ArrayLike, rho: float) -> float:
    r""":math:`f(\alpha) = -2\alpha^\top 1 + \alpha^\top Q\alpha + (\alpha^\top\alpha)^2/(4\rho)`,
    ``Q = YKY``."""
    alpha = np.asarray(alpha, dtype=float)
    return _objective(alpha, np.asarray(Q, dtype=float) @ alpha, rho)


def onk_gradient(alpha: ArrayLike, Q: ArrayLike, rho: float) -> NDArray[np.float64]:
    r""":math:`\nabla f(\alpha) = -2\cdot 1 + 2Q\alpha + (\alpha^\top\alpha)\,\alpha/\rho`."""
    alpha = np.asarray(alpha, dtype=float)
    return _gradient(alpha, np.asarray(Q, dtype=float) @ alpha, rho)


def _objective(alpha: np.ndarray, Qa: np.ndarray, rho: float) -> float:
    aa = alpha @ alpha
    return float(-2.0 * alpha.sum() + alpha @ Qa + aa * aa / (4.0 * rho))


def _gradient(alpha: np.ndarray, Qa: np.ndarray, rho: float) -> np.ndarray:
    return -2.0 + 2.0 * Qa + ((alpha @ alpha) / rho) * alpha


def _start(alpha0: ArrayLike | None, y: np.ndarray, C: float) -> np.ndarray:
    if alpha0 is None:
        return np.zeros(y.size)
    return project_dual(np.asarray(alpha0, dtype=float), y, C)


def onk_cgd(Q: ArrayLike, y: ArrayLike, C: float, rho: float, *,
            alpha0: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-5,
            callback: Callback | None = None) -> ONKSolution:
    r"""Constrained gradient descent for ONK (Algorithm 2 of the ONK paper).

    Minimises :math:`f(\alpha) = -2\alpha^\top 1 + \alpha^\top Q\alpha +
    (\alpha^\top\alpha)^2/(4\rho)` over :math:`A = \{0\le\alpha\le C,\ \alpha^\top y=0\}`:

    .. math:: \alpha_{k+1} = \pi_A\bigl(\alpha_k - f'(\alpha_k)/\gamma_k\bigr)

    with :math:`\gamma_k` "appropriate" (eq. 13, Armijo–Goldstein):
    :math:`f(\alpha_{k+1}) \le f(\alpha_k) + \langle f'(\alpha_k), \alpha_{k+1}-\alpha_k
    \rangle + \frac{\gamma_k}{2}\|\alpha_{k+1}-\alpha_k\|^2`. Each search starts from
    the curvature of the last step, :math:`\langle s, f'(\alpha_k)-f'(\alpha_{k-1})\rangle
    / \|s\|^2` with :math:`s = \alpha_k-\alpha_{k-1}` (Barzilai–Borwein; the first from
    :math:`\gamma = 1`), and doubles :math:`\gamma` until the test holds, so :math:`f`
    never increases. (Starting from :math:`\gamma_{k-1}` instead is just as valid but
    needs thousands of iterations on the ill-conditioned kernels of large ``rho``.)
    Stops when
    :math:`\|\alpha_{k+1}-\alpha_k\| \le` ``tol`` :math:`\cdot\max(\|\alpha_k\|, 1)`.

    Parameters
    ----------
    Q : array (n, n)
        :math:`YKY`.
    y : array (n,)
        Labels in ``{-1, +1}``.
    C, rho : float > 0
    alpha0 : array (n,), optional
        Start (projected onto ``A``); default 0.
    max_iter : int
    tol : float
    callback : callable, optional
        ``callback(k, state, elapsed)``, ``state`` with ``"alpha"`` and the scalars.

    Returns
    -------
    ONKSolution
        History keys: ``objective``, ``step_norm``, ``armijo_gamma``,
        ``line_search_evals``, ``time``.
    """
    Q = np.asarray(Q, dtype=float)
    y = np.asarray(y, dtype=float)
    alpha = _start(alpha0, y, C)
    Qa = Q @ alpha
    f = _objective(alpha, Qa, rho)
    g = _gradient(alpha, Qa, rho)
    gam = 1.0
    log = IterationLog(callback)
    converged = stopped = False
    d = g_old = None
    k = 0
    for k in range(max_iter):  # noqa: B007 - k is used after the loop
        if d is not None:
            ss = d @ d
            curv = (d @ (g - g_old)) / ss if ss > 0 else 0.0
            gam = min(max(curv, 1e-12), 1e12) if curv > 0 else 0.5 * gam
        evals = 0
        while True:
            p = project_dual(alpha - g / gam, y, C)
            d = p - alpha
            Qp = Q @ p
            fp = _objective(p, Qp, rho)
            evals += 1
            model = f + g @ d + 0.5 * gam * (d @ d)
            # a few ulps of slack: near the optimum both sides agree to rounding
            if fp <= model + 1e-13 * max(abs(f), 1.0):
                break
            gam *= 2.0
            if not np.isfinite(gam) or gam > _GAMMA_MAX:
                warnings.warn("onk_cgd: the Armijo search found no step (non-finite "
                              "objective?); returning the last finite iterate. Increase "
                              "rho or check the kernel.", RuntimeWarning, stacklevel=2)
                return ONKSolution(alpha, f, k, False, False, log.as_dict())
        step = float(np.sqrt(d @ d))
        ref = max(float(np.sqrt(alpha @ alpha)), 1.0)
        alpha, f, g_old = p, fp, g
        g = _gradient(alpha, Qp, rho)
        stopped = log.record(state={"alpha": alpha}, objective=f, step_norm=step,
                             armijo_gamma=gam, line_search_evals=evals,
                             snapshot=partial(_snapshot, alpha, Qp, y, C, rho))
        if step <= tol * ref:
            converged = True
            break
        if stopped:
            break
    return ONKSolution(alpha, f, k + 1, converged, stopped and not converged,
                       log.as_dict(), log.snapshots)


def _level_projection(a: np.ndarray, cuts: np.ndarray, c: np.ndarray, y: np.ndarray,
                      C: float) -> np.ndarray:
    r"""Projection of ``a`` onto :math:`\{\alpha\in A: \text{cuts}\,\alpha \le c\}`.

    Dual: :math:`\max_{\mu\ge 0} \min_{\alpha\in A} \frac12\|\alpha-a\|^2 +
    \mu^\top(\text{cuts}\,\alpha - c)`, whose inner minimiser is
    :math:`\alpha(\mu) = \pi_A(a - \text{cuts}^\top\mu)` and whose gradient is
    :math:`\text{cuts}\,\alpha(\mu) - c` (Danskin); the concave dual is maximised by
    L-BFGS-B. :math:`\alpha(\mu)` is always exactly in ``A``. (Warm-starting
    :math:`\mu` from the previous level set costs more evaluations, not fewer.)
    """
    def neg_dual(mu):
        alpha = project_dual(a - cuts.T @ mu, y, C)
        slack = cuts @ alpha - c
        diff = alpha - a
        return -(0.5 * diff @ diff + mu @ slack), -slack

    res = minimize(neg_dual, np.zeros(c.size), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, None)] * c.size,
                   options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-11})
    return project_dual(a - cuts.T @ res.x, y, C)


def onk_level(Q: ArrayLike, y: ArrayLike, C: float, rho: float, *,
              alpha0: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-5,
              level: float = 0.5, callback: Callback | None = None) -> ONKSolution:
    r"""Level method for ONK (Algorithm 1 of the ONK paper).

    Minimises the same :math:`f` as :func:`onk_cgd` with the cutting-plane model
    :math:`f_i(\alpha) = \max_{j\le i} f(\alpha_j) + f'(\alpha_j)^\top(\alpha-\alpha_j)`:

    1. upper bound :math:`\bar f_i = \min_{j\le i} f(\alpha_j)`, lower bound
       :math:`\underline f_i = \min_{\alpha\in A} f_i(\alpha)` (an LP in
       :math:`(\alpha, t)`, solved by HiGHS), gap :math:`\Delta_i = \bar f_i -
       \underline f_i`;
    2. level :math:`l_i = \underline f_i + \lambda\Delta_i` (``level`` = :math:`\lambda`,
       paper 0.5);
    3. :math:`\alpha_{i+1}` = projection of :math:`\alpha_i` onto
       :math:`\{\alpha \in A: f_i(\alpha)\le l_i\}` (a small QP, solved through its
       dual, see :func:`_level_projection`).

    Stops when :math:`\Delta_i \le` ``tol`` :math:`\cdot\max(|\bar f_i|, 1)` and returns
    the best iterate. History keys: ``objective`` (f at the iterate), ``upper``,
    ``lower``, ``gap``, ``step_norm``, ``time``.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}.")
    # the LP, the QP and L-BFGS-B work on small matrices: threaded BLAS only adds
    # contention (measured 10x slower on a busy 2-core machine)
    with single_thread_blas():
        return _level(np.asarray(Q, dtype=float), np.asarray(y, dtype=float), C, rho,
                      alpha0, max_iter, tol, level, callback)


def _level(Q: np.ndarray, y: np.ndarray, C: float, rho: float, alpha0, max_iter: int,
           tol: float, level: float, callback) -> ONKSolution:
    n = y.size
    alpha = _start(alpha0, y, C)
    cuts: list[np.ndarray] = []
    offsets: list[float] = []  # cut j: g_j^T alpha - t <= g_j^T alpha_j - f_j
    best_f, best = np.inf, alpha
    lower = -np.inf
    log = IterationLog(callback)
    converged = stopped = False
    previous = alpha
    A_eq = np.append(y, 0.0)[None, :]
    bounds = [(0.0, C)] * n + [(None, None)]
    cost = np.zeros(n + 1)
    cost[n] = 1.0
    i = 0
    for i in range(max_iter):  # noqa: B007 - i is used after the loop
        Qa = Q @ alpha
        f = _objective(alpha, Qa, rho)
        g = _gradient(alpha, Qa, rho)
        if f < best_f:
            best_f, best = f, alpha
        cuts.append(g)
        offsets.append(float(g @ alpha - f))
        G = np.asarray(cuts)
        h = np.asarray(offsets)
        lp = linprog(cost, A_ub=np.column_stack([G, -np.ones(len(h))]), b_ub=h,
                     A_eq=A_eq, b_eq=[0.0], bounds=bounds, method="highs")
        if lp.status != 0:
            warnings.warn(f"onk_level: the LP for the lower bound failed ({lp.message}); "
                          "returning the best iterate.", RuntimeWarning, stacklevel=2)
            break
        lower = max(lower, float(lp.fun))
        gap = best_f - lower
        step = float(np.linalg.norm(alpha - previous))
        stopped = log.record(state={"alpha": alpha}, objective=f, upper=best_f,
                             lower=lower, gap=gap, step_norm=step,
                             snapshot=partial(_snapshot, alpha, Qa, y, C, rho))
        if gap <= tol * max(abs(best_f), 1.0):
            converged = True
            break
        if stopped:
            break
        lvl = lower + level * gap
        previous = alpha
        alpha = _level_projection(alpha, G, lvl + h, y, C)
    return ONKSolution(best, best_f, i + 1, converged, stopped and not converged,
                       log.as_dict(), log.snapshots)


ONK_SOLVERS = {"cgd": onk_cgd, "level": onk_level}


class ONKClassifier(_OneVsRestMixin, ClassifierMixin, BaseEstimator):
    r"""SVM with the optimal neighbourhood kernel (ONK).

    .. math::

        \min_{\alpha\in A} -2\alpha^\top 1 + \alpha^\top YKY\alpha
        + \frac{1}{4\rho}(\alpha^\top\alpha)^2,
        \qquad G = K + \frac{1}{2\rho}(Y\alpha)(Y\alpha)^\top,

    ``K`` the Gaussian kernel :math:`\exp(-\|x-x'\|^2/(2\sigma^2))`. ``G`` is the
    kernel the SVM effectively trains with; a new point has no label, its feature is
    :math:`(\phi(x), 0)`, so predictions use the learned :math:`\alpha` with the
    *given* kernel: :math:`f(x) = \sum_i \alpha_i y_i k(x_i, x) + b`. The bias comes
    from the KKT conditions on the training kernel ``G`` (docs/the-maths-of-every-method.md, 'Shared
    pieces').

    Parameters
    ----------
    C : float > 0
        Box constraint.
    sigma : float > 0
        Gaussian kernel width.
    rho : float > 0
        Penalty on :math:`\|G-K\|_F^2`; :math:`\rho\to\infty` gives the plain SVM.
    solver : {"cgd", "level"}
        Constrained gradient descent (:func:`onk_cgd`) or the level method
        (:func:`onk_level`, slower per iteration).
    max_iter : int
        Iteration limit of the solver.
    tol : float > 0
        CGD: relative step :math:`\|\alpha_{k+1}-\alpha_k\|/\max(\|\alpha_k\|,1)`;
        level method: relative gap :math:`\Delta/\max(|\bar f|,1)`.
    callback : callable, optional
        ``callback(iteration, state, elapsed)``; ``state["alpha"]`` is the iterate.
        Returning True stops the solve.
    random_state : None
        Unused (deterministic); accepted for a uniform API.

    Attributes
    ----------
    G_ : ndarray (n, n)
        Learned kernel :math:`K + (Y\alpha)(Y\alpha)^\top/(2\rho)`.
    K_ : ndarray (n, n)
        Given kernel on the training points.
    alpha_ : ndarray (n,)
        Minimiser of :math:`f`.
    dual_coef_ : ndarray (n,)
        :math:`\alpha_i y_i`, ``y`` in ``{-1, +1}`` (``+1`` is ``classes_[1]``).
    intercept_ : float
    support_ : ndarray of int
        Indices with :math:`\alpha_i > 0`.
    classes_ : ndarray
    objective_ : float
        :math:`f(\alpha)`.
    history_ : dict of arrays, one entry per iteration
        See :func:`onk_cgd` / :func:`onk_level`.
    n_iter_ : int
    converged_ : bool

    Notes
    -----
    More than two classes: one-vs-rest, one binary ONK (own ``G``) per class with
    labels ``+1`` for the class and ``-1`` for the rest; the largest decision value
    wins. Array attributes then gain a leading class axis and ``history_`` an
    ``"estimator"`` column.

    References
    ----------
    .. [1] J. Liu, J. Chen, S. Chen and J. Ye, "Learning the Optimal Neighborhood Kernel
       for Classification", Proceedings of the International Joint Conference on
       Artificial Intelligence (IJCAI), 2009.
    """

    _param_rules = {
        "C": positive,
        "sigma": positive,
        "rho": positive,
        "solver": one_of(*ONK_SOLVERS),
        "max_iter": positive_int,
        "tol": positive,
        "callback": callable_or_none,
        "random_state": any_value,
    }

    def __init__(self, C: float = 1.0, *, sigma: float = 1.0, rho: float = 100.0,
                 solver: str = "cgd", max_iter: int = 1000, tol: float = 1e-5,
                 callback=None, random_state=None) -> None:
        self.C = C
        self.sigma = sigma
        self.rho = rho
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> ONKClassifier:
        """Learn :math:`\\alpha` (and ``G``) with the chosen solver."""
        X, y = self._validate_fit(X, y)
        self.K_ = gaussian_kernel(X, sigma=self.sigma)
        self._fit_all(self.K_, y)
        return self

    def _fit_binary(self, K: np.ndarray, y: np.ndarray) -> dict:
        C, rho = float(self.C), float(self.rho)
        Q = (y[:, None] * K) * y[None, :]
        sol = ONK_SOLVERS[self.solver](Q, y, C, rho, max_iter=self.max_iter, tol=self.tol,
                                       callback=self.callback)
        if not (sol.converged or sol.stopped):
            warn_not_converged(f"ONKClassifier(solver={self.solver!r})", self.max_iter,
                               "Raise max_iter or loosen tol.")
        alpha = sol.alpha
        u = alpha * y
        G = K + np.outer(u, u) / (2.0 * rho)
        snaps = None if sol.snapshots is None else sol.snapshots.finish(
            max(len(sol.history.get("objective", ())) - 1, 0),
            _snapshot(alpha, Q @ alpha, y, C, rho))
        return {
            "G_": G, "alpha_": alpha, "dual_coef_": u,
            "intercept_": recover_bias(alpha, y, G, C),
            "support_": np.flatnonzero(alpha > 0), "objective_": sol.objective,
            "history_": sol.history, "n_iter_": sol.n_iter, "converged_": sol.converged,
            "snapshots_": snaps,
        }

    def _prepare(self, X: np.ndarray) -> np.ndarray:
        return gaussian_kernel(self.X_fit_, X, sigma=self.sigma)

    def _decision_binary(self, Kt: np.ndarray, k: int | None) -> np.ndarray:
        coef = self.dual_coef_ if k is None else self.dual_coef_[k]
        b = self.intercept_ if k is None else self.intercept_[k]
        S = np.flatnonzero(coef)
        return coef[S] @ Kt[S] + b
