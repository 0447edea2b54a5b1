r"""DANK: data-adaptive non-parametric kernel learning as scikit-learn estimators.

The paper: Liu et al., *Learning Data-adaptive Non-parametric Kernels*, JMLR 2020.

The SVM form (eq. 4) learns a PSD matrix ``F`` that reweights the Gaussian kernel
entry by entry:

.. math::

    \max_{\alpha \in A} \min_{F \succeq 0}\; 1^\top\alpha
    - \tfrac12 \alpha^\top Y (F \circ K) Y \alpha + \eta \|F - 11^\top\|_F^2
    + \tau\eta \|F\|_*,\qquad A = \{0 \le \alpha \le C,\ \alpha^\top y = 0\}.

``F(alpha) = J_{tau/2}(11^T + Gamma(alpha))`` in closed form, so the learner maximises
the concave ``h(alpha) = H(alpha, F(alpha))``. See :mod:`nplk_core._dank_core` for the
solvers and the exact support trick that makes every evaluation cheap.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC, SVR
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _base as rules
from ._base import (
    bias_from_residual,
    check_params,
    check_two_classes,
    recover_bias,
    single_thread_blas,
    warn_not_converged,
)
from ._dank_core import SOLVERS, DankProblem, InnerSolution, LowRankInner
from ._dank_newton import solve_newton
from .extension import (
    RULES,
    WIDTH_OF_SIGMA,
    borrowing,
    extended_decision,
    nearest_index,
    reciprocal_index,
)
from .kernels import gaussian_kernel, sigma_to_gamma
from .spectral import pivoted_cholesky

#: the solver ``solver="auto"`` resolves to above Newton's sizes (fastest first-order
#: solver that reaches Algorithm 1's optimum; see benchmarks/bench_dank.py)
AUTO_SOLVER = "apg"
#: every solver of the exact problem: the first-order ones and Newton's method
#: (:mod:`nplk_core._dank_newton`), which needs the equality constraint (not the
#: scalable decomposition's box alone)
DANK_SOLVERS = {**SOLVERS, "newton": solve_newton}
#: ``solver="auto"`` of the regression form is Newton's method up to this many training
#: points and the accelerated solver beyond: Newton's Hessian costs O(n^2 k r) per
#: iteration (k the rank of F), so its fits grow faster with n. Over random slider
#: points its p90 was a quarter of the accelerated solver's at 140 points and 0.7 of it
#: at 280, but 1.5 times it at 420 (`benchmarks/bench_sliders.py --methods dank_svr
#: --solver apg newton --n 200 400 600 1000`, docs/slider-latency-on-every-page.md)
AUTO_SVR_NEWTON_MAX_N = 300
#: the same switch for the SVM form. Its Hessian costs more there (small eta gives F a
#: high rank over a large support): over random slider points Newton's CPU p90 was 0.6
#: to 0.8 of the accelerated solver's at 140 points (the Classification page's), but
#: 1.1-1.3 times it at 175 and 2.3 at 280 (`benchmarks/bench_sliders.py --methods dank
#: --solver apg newton --n 200 250 320 400 600`, docs/slider-latency-on-every-page.md)
AUTO_SVM_NEWTON_MAX_N = 160


#: libsvm iterations per training point of the plain SVR that only starts Newton's method
#: (eta given): an ill-conditioned SVR needs up to 500 per point (74,000 SMO steps,
#: 0.4 s, at C = 700, sigma = 0.5, eps = 0.0015 on the step data), which Newton's method
#: then does not need; its iterates are feasible, so a capped one is a start like any
START_SMO_STEPS_PER_POINT = 20


def _plain_svm(C, sigma, X, target, *, regression=False, epsilon=0.1, max_iter=-1):
    """The plain SVM/SVR with the same sigma and C, and its dual vector (``max_iter``
    libsvm steps at most, -1 for none: then the dual vector is the SVR's own)."""
    gamma = sigma_to_gamma(sigma)
    if regression:
        with warnings.catch_warnings():  # a capped start is meant to stop early
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm = SVR(C=C, gamma=gamma, epsilon=epsilon, max_iter=max_iter).fit(X, target)
        n = X.shape[0]
        beta = np.zeros(2 * n)
        coef = svm.dual_coef_[0]
        beta[svm.support_] = np.maximum(coef, 0.0)
        beta[n + svm.support_] = np.maximum(-coef, 0.0)
        u = beta[:n] - beta[n:]
    else:
        svm = SVC(C=C, gamma=gamma).fit(X, target)
        beta = np.zeros(X.shape[0])
        beta[svm.support_] = np.abs(svm.dual_coef_[0])
        u = beta
    return beta, float(u @ u)


def _lambda_max(K: np.ndarray, exact: bool) -> float:
    """Largest eigenvalue of K: exact (Algorithm 1's L needs it) or the Gershgorin
    bound max_i sum_j |K_ij| (enough as the cap of a backtracking step size)."""
    n = K.shape[0]
    if not exact:
        return float(np.abs(K).sum(axis=1).max())
    if n <= 400:
        return float(scipy.linalg.eigvalsh(K, subset_by_index=(n - 1, n - 1),
                                           check_finite=False)[0])
    return _power_lambda_max(K)


class _DANKBase(BaseEstimator):
    """Shared parameter handling and solving for the SVM and SVR forms."""

    _param_rules = {
        "C": rules.positive,
        "sigma": rules.positive,
        "tau": rules.nonnegative,
        "eta": rules.positive_or("auto"),
        "solver": rules.one_of("auto", *DANK_SOLVERS),
        "max_iter": rules.positive_int,
        "tol": rules.positive,
        "n_clusters": rules.positive_int,
        "n_jobs": rules.any_value,
        "warm_start": rules.one_of(True, False),
        "callback": rules.callable_or_none,
        "random_state": rules.any_value,
    }

    def _fit_dank(self, X, target, *, labels, linear, previous):
        """Kernel, eta, start and solve, shared by the SVM form (``labels`` = +-1) and the
        SVR form (``labels`` None, stacked variable). ``previous`` is the last fit's dual
        variable, used when ``warm_start`` and the size matches."""
        K = gaussian_kernel(X, sigma=self.sigma)
        beta0 = np.zeros(linear.size)
        warm = self.warm_start and previous is not None and previous.shape == beta0.shape
        beta_svm = None
        if self.eta == "auto" or (not warm and self.solver in ("auto", "apg", "newton")):
            newton = labels is None and (self.solver == "newton" or (
                self.solver == "auto" and X.shape[0] <= AUTO_SVR_NEWTON_MAX_N))
            capped = newton and self.eta != "auto"  # the SVR only starts the solve
            beta_svm, eta_svm = _plain_svm(
                self.C, self.sigma, X, target, regression=labels is None,
                epsilon=getattr(self, "epsilon", 0.1),
                max_iter=START_SMO_STEPS_PER_POINT * X.shape[0] if capped else -1)
        self.eta_ = max(eta_svm, 1e-12) if self.eta == "auto" else float(self.eta)
        # the solvers' many small eigenproblems and products only lose to threaded BLAS
        with single_thread_blas():
            problem = DankProblem(K, labels, linear, self.C, self.eta_, self.tau,
                                  factor=_lazy_factor(K))
            problem.bias_of = self._snapshot_bias(target, labels)
            return K, self._solve(problem, previous if warm else beta0, beta_svm)

    def _solve(self, problem: DankProblem, beta0: np.ndarray, beta_svm: np.ndarray | None):
        """Run the chosen solver. Algorithm 1 and PG start from 0 (the paper's choice)
        unless warm-started; the accelerated solver starts from the plain SVM's dual
        vector, which ``eta="auto"`` has computed anyway and which is already close."""
        solver_name = self._auto_solver(problem) if self.solver == "auto" else self.solver
        fast = solver_name in ("apg", "newton")
        if fast and beta_svm is not None and not np.any(beta0):
            beta0 = beta_svm
        L = problem.lipschitz(_lambda_max(problem.K, exact=not fast))
        result = DANK_SOLVERS[solver_name](problem, beta0, L, max_iter=self.max_iter,
                                          tol=self.tol, callback=self.callback)
        if not np.isfinite(result.objective):
            raise ValueError(
                "DANK's objective became non-finite; the data or parameters are degenerate "
                f"(C={self.C}, sigma={self.sigma}, eta={problem.eta:g}). Try a larger eta or "
                "sigma, or rescale the features.")
        if not result.converged and not result.stopped:
            warn_not_converged(f"DANK ({solver_name})", self.max_iter,
                               "Increase max_iter or tol.")
        self.solver_ = solver_name
        self.history_ = result.log.as_dict()
        self.n_iter_ = result.n_iter
        self.converged_ = bool(result.converged)
        self.objective_ = float(result.objective)
        self.lipschitz_ = float(L)
        self.snapshots_ = result.log.snapshots.finish(
            len(result.log) - 1, problem.snapshot(result.beta, result.inner))
        return result

    @staticmethod
    def _auto_solver(problem: DankProblem) -> str:
        """``"auto"``: Newton's method up to :data:`AUTO_SVR_NEWTON_MAX_N` points for the
        regression form and :data:`AUTO_SVM_NEWTON_MAX_N` for the SVM form (with its
        equality), else the accelerated solver."""
        limit = AUTO_SVR_NEWTON_MAX_N if problem.svr else (
            AUTO_SVM_NEWTON_MAX_N if getattr(problem, "bias", True) else 0)
        return "newton" if problem.n <= limit else AUTO_SOLVER

    def _snapshot_bias(self, target, labels):
        """``bias_of(beta, Qu)`` for :meth:`DankProblem.snapshot` (the SVM's or the SVR's
        KKT rule, as the fitted ``intercept_``)."""
        if labels is not None:
            return lambda beta, Qu: bias_from_residual(beta, labels, labels - Qu, self.C)
        return lambda beta, Qu: _svr_bias(beta, target, None, self.C, self.epsilon, f=Qu)

    def _store_inner(self, inner: InnerSolution | LowRankInner) -> None:
        self.inner_ = inner
        self.F_ = inner.dense()
        self.rank_ = inner.rank

    def spectra(self) -> dict[str, np.ndarray]:
        """Sorted (descending) eigenvalues of ``K``, ``F`` and ``F o K`` (eigen-decay view)."""
        check_is_fitted(self, "F_")
        n = self.K_.shape[0]
        f = np.zeros(n)
        f[: self.inner_.eigvals.size] = self.inner_.eigvals
        return {
            "K": scipy.linalg.eigvalsh(self.K_, check_finite=False)[::-1],
            "F": f,
            "FK": scipy.linalg.eigvalsh(self.F_ * self.K_, check_finite=False)[::-1],
        }

    def _extension_columns(self, X: np.ndarray, extension: str | None) -> np.ndarray:
        """What each point of ``X`` takes from the training rows of ``F`` under the rule
        (:func:`nplk_core.extension.borrowing`): a row index (the papers' rules) or the
        smooth rule's weights over every row."""
        ext = self.extension if extension is None else extension
        return borrowing(ext, self.X_fit_, X, sigma=self.sigma, width=self.extension_width)

    def _raw_decision(self, X: np.ndarray, extension: str | None) -> np.ndarray:
        """``sum_i u_i F~(x, x_i) k(x_i, x) + b`` over the support of u."""
        S = np.flatnonzero(self.dual_u_)
        if S.size == 0:
            return np.full(X.shape[0], self.intercept_)
        cols = self._extension_columns(X, extension)
        return self._decision_from(cols, gaussian_kernel(self.X_fit_[S], X, sigma=self.sigma))

    def _decision_from(self, cols: np.ndarray, K_support: np.ndarray) -> np.ndarray:
        """The decision values given what each point takes from the training rows
        (``cols``: :meth:`_extension_columns`) and the kernel rows of the support of u
        (``K_support``, shape ``(|S|, m)``); lets a caller that keeps the distances to
        the training points (the app's grid) skip recomputing them."""
        return extended_decision(self.dual_u_, self.F_, cols, K_support, self.intercept_)


class DANKClassifier(ClassifierMixin, _DANKBase):
    r"""DANK in SVM (the DANK paper, §2-3): an SVM whose Gaussian kernel is reweighted by a
    learned PSD matrix ``F``.

    .. math::

        \max_{\alpha\in A}\min_{F\succeq 0} 1^\top\alpha - \tfrac12\alpha^\top Y(F\circ K)Y\alpha
        + \eta\|F-11^\top\|_F^2 + \tau\eta\|F\|_*

    Parameters
    ----------
    C : float > 0
        Box constraint of the SVM.
    sigma : float > 0
        Gaussian kernel width, ``k(x,x') = exp(-||x-x'||^2 / (2 sigma^2))``.
    tau : float >= 0
        Weight of the nuclear norm: larger ``tau`` gives a lower-rank ``F``.
    eta : float > 0 or "auto"
        How strongly ``F`` is pulled to ``11^T``; ``eta -> inf`` gives the plain SVM.
        ``"auto"`` uses ``||alpha_SVM||^2`` of a plain SVM with the same sigma and C
        (§6.1); the value used is ``eta_``.
    solver : {"auto", "apg", "newton", "nesterov", "nesterov-monotone", "pg"}
        ``"nesterov"`` is Algorithm 1, ``"nesterov-monotone"`` its monotone variant
        (§3.2), ``"pg"`` projected gradient (eq. 17), ``"apg"`` accelerated projected
        gradient with backtracking and adaptive restart (ours; same optimum, 10-20x
        fewer iterations), ``"newton"`` Newton's method with the exact Hessian of h and
        a box-constrained quadratic step (ours, :mod:`nplk_core._dank_newton`; 3-10
        iterations). ``"auto"`` is ``"newton"`` up to :data:`AUTO_SVM_NEWTON_MAX_N`
        training points and ``"apg"`` beyond.
    max_iter, tol : stop after ``max_iter`` iterations or when ``||a_{t+1} - a_t|| <= tol``.
    extension : {"reciprocal", "nearest", "smooth"}
        Out-of-sample rule (:mod:`nplk_core.extension`): a new point takes the row of
        ``F`` of its reciprocal nearest neighbour (§2.3), of its nearest training point
        (KNPL's eq. 23), or (``"smooth"``, the lab's, not the paper's) the
        Nadaraya–Watson average of all rows, :math:`\tilde F(x, x_i) = \sum_l p_l(x)
        F_{li}` with :math:`p_l(x) \propto \exp(-\|x - x_l\|^2 / (2h^2))` (Nadaraya,
        *On estimating regression*, 1964; Watson, *Smooth regression analysis*, 1964).
        ``F = 11^T`` gives the plain kernel's decision exactly under it; ``h -> 0`` gives
        the nearest-point rule. ``decision_function(X, extension=...)`` overrides it per
        call.
    extension_width : float > 0 or "sigma"
        The smooth rule's width ``h``; ``"sigma"`` (default) is the kernel's own σ.
    n_clusters : int >= 1
        ``> 1`` switches to the scalable decomposition (§4): k-means partition, one
        sub-problem per cluster solved in parallel (``tau = 0``, no bias), prediction
        by the local model of the nearest centre. See :mod:`nplk_core.scalable`.
    n_jobs : int or None
        Parallel jobs for the sub-problems (joblib).
    cluster_C : {"same", "scaled"}
        Scalable mode: each sub-problem's box bound, ``C`` (eq. 19) or ``C n / n_c``
        (the whole problem's weighting; not in the paper). See :func:`fit_scalable`.
    vote : int >= 1
        Scalable mode: sum the local models of the ``vote`` nearest centres (the paper: 1).
    warm_start : bool
        Start from the previous ``alpha_`` when refitting on data of the same size.
    callback : callable ``callback(iteration, state, elapsed) -> bool | None``
        Called every iteration; returning True stops the solve.
    random_state : int, RandomState or None
        Seeds k-means in the scalable mode (the exact solve is deterministic). ``None``
        is a fixed seed, so a fit is the same on every run and on every joblib backend
        (:func:`nplk_core.scalable.partition_seed`); pass another integer for another
        partition.

    Attributes
    ----------
    alpha_ : (n,) dual vector; support_ : indices with alpha > 0
    F_ : (n, n) learned matrix; rank_ : rank of F_; K_ : (n, n) training kernel
    intercept_ : bias b; eta_ : the eta used; objective_ : h at the solution
    history_ : dict of per-iteration arrays "objective", "step_norm", "rank", "time" (and,
        for "apg", "gap": the Frank-Wolfe gap, an upper bound on ``h* - h``)
    n_iter_, converged_, solver_ (the solver actually run)

    Notes
    -----
    More than two classes: one-vs-rest through scikit-learn's ``OneVsRestClassifier``
    (the per-class models are in ``estimators_``; ``F_`` and the other matrices are then
    not defined on this object).

    References
    ----------
    .. [1] F. Liu, X. Huang, C. Gong, J. Yang and L. Li, "Learning Data-adaptive
       Non-parametric Kernels", Journal of Machine Learning Research 21, 2020.
    """

    def __init__(self, C=1.0, *, sigma=1.0, tau=0.01, eta="auto", solver="auto",
                 max_iter=2000, tol=1e-4, extension="reciprocal", extension_width="sigma",
                 n_clusters=1, n_jobs=None, cluster_C="same", vote=1, warm_start=False,
                 callback=None, random_state=None):
        self.C = C
        self.sigma = sigma
        self.tau = tau
        self.eta = eta
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.extension = extension
        self.extension_width = extension_width
        self.n_clusters = n_clusters
        self.n_jobs = n_jobs
        self.cluster_C = cluster_C
        self.vote = vote
        self.warm_start = warm_start
        self.callback = callback
        self.random_state = random_state

    _param_rules = {**_DANKBase._param_rules,
                    "extension": rules.one_of(*RULES),
                    "extension_width": rules.positive_or(WIDTH_OF_SIGMA),
                    "cluster_C": rules.one_of("same", "scaled"), "vote": rules.positive_int}

    def fit(self, X, y):
        """Learn ``alpha`` and ``F`` on ``(X, y)``."""
        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_ = check_two_classes(y)
        if self.classes_.size > 2:
            self.ovr_ = OneVsRestClassifier(clone(self).set_params(warm_start=False))
            self.ovr_.fit(X, y)
            self.estimators_ = self.ovr_.estimators_
            self.n_iter_ = max(e.n_iter_ for e in self.estimators_)
            self.converged_ = all(e.converged_ for e in self.estimators_)
            return self
        self.ovr_ = None
        ypm = np.where(y == self.classes_[1], 1.0, -1.0)
        if self.n_clusters > 1:
            from .scalable import fit_scalable

            res = fit_scalable(X, ypm, n_clusters=self.n_clusters, C=self.C, sigma=self.sigma,
                               eta=self.eta, n_jobs=self.n_jobs, random_state=self.random_state,
                               max_iter=self.max_iter, tol=self.tol,
                               cluster_C=self.cluster_C, vote=self.vote)
            self.scalable_ = res
            self.X_fit_, self.y_pm_ = X, ypm
            self.alpha_ = res.alpha
            self.dual_u_ = ypm * res.alpha
            self.support_ = np.flatnonzero(res.alpha > 0)
            self.intercept_ = 0.0
            self.eta_ = res.eta
            self.cluster_labels_ = res.labels
            self.cluster_centers_ = res.centers
            self.history_ = res.history
            self.n_iter_ = res.n_iter
            self.converged_ = res.converged
            self.solver_ = "scalable"
            return self

        with single_thread_blas():  # small products: threads only add contention
            K, result = self._fit_dank(X, ypm, labels=ypm, linear=np.ones(X.shape[0]),
                                       previous=getattr(self, "alpha_", None))
            alpha = result.beta
            self.X_fit_, self.y_pm_, self.K_ = X, ypm, K
            self.alpha_ = alpha
            self.dual_u_ = ypm * alpha
            self.support_ = np.flatnonzero(alpha > 0)
            self._store_inner(result.inner)
            self.intercept_ = recover_bias(alpha, ypm, self.F_ * K, self.C)
        return self

    def decision_function(self, X, *, extension=None):
        """Signed distance-like score; positive means ``classes_[1]``."""
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.ovr_ is not None:
            return self.ovr_.decision_function(X)
        if self.n_clusters > 1:
            from .scalable import scalable_decision

            return scalable_decision(self.scalable_, X)
        return self._raw_decision(X, extension)

    def predict(self, X, *, extension=None):
        if getattr(self, "ovr_", None) is not None:
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return self.ovr_.predict(X)
        d = self.decision_function(X, extension=extension)
        return self.classes_[(d > 0).astype(int)]


class DANKRegressor(RegressorMixin, _DANKBase):
    r"""DANK in SVR (the DANK paper, §5): epsilon-SVR with a learned kernel ``F o K``.

    .. math::

        \max_{\hat\alpha,\check\alpha}\min_{F\succeq 0}
        -\tfrac12 (\hat\alpha-\check\alpha)^\top(F\circ K)(\hat\alpha-\check\alpha)
        + (\hat\alpha-\check\alpha)^\top y - \epsilon(\hat\alpha+\check\alpha)^\top 1
        + \eta\|F-11^\top\|_F^2 + \tau\eta\|F\|_*

    subject to ``0 <= a_hat, a_check <= C`` and ``1^T (a_hat - a_check) = 0``.
    Parameters and attributes as :class:`DANKClassifier`; ``alpha_`` is
    ``a_hat - a_check``; ``eta="auto"`` uses ``||a_hat - a_check||^2`` of a plain SVR.
    Out-of-sample: the nearest-training-point column of ``F`` by default
    (``extension``, ``extension_width``: the same three rules as the classifier). The
    scalable decomposition (``n_clusters``) is defined for the SVM form only. The
    solvers are the classifier's; ``"auto"`` is Newton's method up to
    :data:`AUTO_SVR_NEWTON_MAX_N` training points, the accelerated solver (``"apg"``)
    beyond. Both work in ``u = a_hat - a_check`` with
    the exact proximal step of ``eps ||u||_1`` (see
    :class:`nplk_core._dank_core._SvrOracle`): the same optimum as Algorithm 1 on the
    stacked variable.

    References
    ----------
    DANK in SVR is the paper's §5.

    .. [1] F. Liu, X. Huang, C. Gong, J. Yang and L. Li, "Learning Data-adaptive
       Non-parametric Kernels", Journal of Machine Learning Research 21, 2020.
    """

    _param_rules = {**{k: v for k, v in _DANKBase._param_rules.items()
                       if k not in ("n_clusters", "n_jobs")},
                    "epsilon": rules.nonnegative,
                    "extension": rules.one_of(*RULES),
                    "extension_width": rules.positive_or(WIDTH_OF_SIGMA)}

    def __init__(self, C=1.0, *, epsilon=0.1, sigma=1.0, tau=0.01, eta="auto", solver="auto",
                 max_iter=2000, tol=1e-4, extension="nearest", extension_width="sigma",
                 warm_start=False, callback=None, random_state=None):
        self.C = C
        self.epsilon = epsilon
        self.sigma = sigma
        self.tau = tau
        self.eta = eta
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.extension = extension
        self.extension_width = extension_width
        self.warm_start = warm_start
        self.callback = callback
        self.random_state = random_state

    def fit(self, X, y):
        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=True)
        y = np.asarray(y, dtype=float)
        n = X.shape[0]
        with single_thread_blas():  # small products: threads only add contention
            K, result = self._fit_dank(
                X, y, labels=None, linear=np.concatenate([y - self.epsilon, -y - self.epsilon]),
                previous=getattr(self, "beta_", None))
            beta = result.beta
            self.X_fit_, self.K_, self.beta_ = X, K, beta
            u = beta[:n] - beta[n:]
            self.alpha_ = u
            self.dual_u_ = u
            self.support_ = np.flatnonzero(u != 0)
            self._store_inner(result.inner)
            self.intercept_ = _svr_bias(beta, y, self.F_ * K, self.C, self.epsilon)
        return self

    def predict(self, X, *, extension=None):
        check_is_fitted(self, "alpha_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._raw_decision(X, extension)


def _svr_bias(beta, y, Kt, C, epsilon, f=None):
    """Bias of epsilon-SVR from KKT: free a_hat gives b = y - f - eps, free a_check
    b = y - f + eps; else the midpoint of the feasible interval. ``f`` (= ``Kt u``)
    may be given instead of ``Kt``."""
    n = y.size
    ah, ac = beta[:n], beta[n:]
    f = Kt @ (ah - ac) if f is None else f
    tol = 1e-8 * max(C, 1.0)
    vals = []
    free_h = (ah > tol) & (ah < C - tol)
    free_c = (ac > tol) & (ac < C - tol)
    vals.extend((y - f - epsilon)[free_h])
    vals.extend((y - f + epsilon)[free_c])
    if vals:
        return float(np.mean(vals))
    r = y - f
    lo = np.max(np.r_[r[ah >= C - tol] - epsilon, r[ac <= tol] - epsilon, -np.inf])
    hi = np.min(np.r_[r[ac >= C - tol] + epsilon, r[ah <= tol] + epsilon, np.inf])
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    return float(np.median(r))


#: entrywise accuracy of the kernel factor used by the fast path (K - Phi Phi^T is PSD
#: with every entry below this); 1e-10 moves h by ~1e-10 relative, far below any tol.
FACTOR_TOL = 1e-10


class _LazyFactor:
    """Pivoted-Cholesky factor of K, computed on first use (most large problems keep
    their support below the factor's rank and never need it).

    The factor is used only if it is exact to :data:`FACTOR_TOL`: when the rank bound
    (``n/2``) stops the factorisation first, ``shape`` reports an infinite rank and
    :class:`DankProblem` keeps the exact route.
    """

    def __init__(self, K: np.ndarray, *, eager: bool = False):
        self.K = K
        self._phi: np.ndarray | None = None
        self._exact = True
        self._rank_bound = max(K.shape[0] // 2, 1)
        if eager:
            self.array  # noqa: B018 (computes the factor)

    @property
    def shape(self) -> tuple[int, float]:
        if self._phi is None:
            # before it exists, report an optimistic rank so that only large supports
            # trigger the factorisation
            return (self.K.shape[0], max(self._rank_bound // 2, 100))
        return (self._phi.shape[0], self._phi.shape[1] if self._exact else math.inf)

    def __getitem__(self, idx):
        return self.array[idx]

    @property
    def array(self) -> np.ndarray:
        if self._phi is None:
            phi, _ = pivoted_cholesky(self.K, tol=FACTOR_TOL, max_rank=self._rank_bound)
            if phi.shape[1] >= self._rank_bound:
                resid = np.diag(self.K) - np.einsum("ij,ij->i", phi, phi)
                self._exact = bool(resid.max() <= FACTOR_TOL)
            self._phi = phi
        return self._phi


#: up to this many points the factor is computed at once (it costs < 3 ms there, and a
#: smooth kernel's rank, e.g. 28 for the step data at sigma = 1, is far below the
#: support's size, so every evaluation's eigenproblem shrinks from |S|+1 to r+1)
EAGER_FACTOR_N = 400


def _lazy_factor(K: np.ndarray) -> _LazyFactor:
    """The kernel factor: eager for small n, lazy (computed when a support first exceeds
    its optimistic rank) above :data:`EAGER_FACTOR_N`."""
    return _LazyFactor(K, eager=K.shape[0] <= EAGER_FACTOR_N)


def _power_lambda_max(K: np.ndarray, iters: int = 100, rtol: float = 1e-6) -> float:
    """Largest eigenvalue of a PSD matrix by power iteration (an upper estimate)."""
    v = np.ones(K.shape[0]) / math.sqrt(K.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = K @ v
        lam_new = float(np.linalg.norm(w))
        v = w / lam_new
        if abs(lam_new - lam) <= rtol * lam_new:
            break
        lam = lam_new
    return lam_new * (1.0 + 10 * rtol)


__all__ = ["DANKClassifier", "DANKRegressor", "nearest_index", "reciprocal_index",
           "AUTO_SOLVER", "DANK_SOLVERS"]
