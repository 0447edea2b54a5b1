r"""Baselines (docs/the-maths-of-every-method.md, 'Baselines'): thin wrappers over scikit-learn.

* :class:`SVMCVClassifier` / :class:`SVRCVRegressor` — ``SVC`` / ``SVR`` with the Gaussian
  kernel ``exp(-||x - x'||^2 / (2 sigma^2))``, ``sigma`` and ``C`` chosen by ``cv``-fold
  cross-validation on the grid ``2^{-5..5}`` (*Learning Data-adaptive Non-parametric
  Kernels*, §6.1) with ``GridSearchCV`` (``gamma = 1 / (2 sigma^2)``).
* :class:`KernelRidgeBaseline` — ``KernelRidge(kernel="rbf", gamma=1/(2 sigma^2))``,
  optionally with ``sigma`` and ``alpha`` chosen by cross-validation.
* :class:`MKLUniformClassifier` — ``SVC`` on the uniform average of Gaussian kernels
  :math:`\bar K = \frac{1}{11} \sum_{s=-5}^{5} K_{\sigma = 2^s}` (precomputed kernel),
  ``C`` by cross-validation.

Nothing here re-implements what scikit-learn does: the wrappers translate ``sigma`` to
``gamma``, build the grid and forward the fitted model's attributes.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.svm import SVC, SVR
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ._base import (
    any_value,
    check_params,
    check_two_classes,
    nonnegative,
    optional,
    positive,
    positive_int,
)
from .kernels import sigma_to_gamma, squared_distances

__all__ = [
    "DEFAULT_GRID",
    "KernelRidgeBaseline",
    "MKLUniformClassifier",
    "SVMCVClassifier",
    "SVRCVRegressor",
    "uniform_mkl_kernel",
]

#: ``2^{-5}, ..., 2^5`` (the DANK paper's §6.1), a tuple so that it is a safe default value
DEFAULT_GRID: tuple[float, ...] = tuple(float(2.0 ** k) for k in range(-5, 6))
#: ridge grid of :class:`KernelRidgeBaseline` when cross-validating
DEFAULT_ALPHA_GRID: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)


# ---------------------------------------------------------------------------
# parameter rules and helpers
# ---------------------------------------------------------------------------

def _positive_grid(name: str, value) -> None:
    try:
        arr = np.asarray(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a non-empty sequence of numbers > 0, "
                         f"got {value!r}.") from None
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be a non-empty sequence of finite numbers > 0, "
                         f"got {value!r}.")


def _cv_folds(name: str, value) -> None:
    positive_int(name, value)
    if value < 2:
        raise ValueError(f"{name} must be an integer >= 2 (number of folds), got {value!r}.")


def _splitter(cv: int, random_state, classification: bool):
    """``cv`` folds, shuffled with ``random_state`` when it is given (else in order, as
    scikit-learn does for an integer ``cv``)."""
    kind = StratifiedKFold if classification else KFold
    if random_state is None:
        return kind(n_splits=cv)
    return kind(n_splits=cv, shuffle=True, random_state=random_state)


#: below this many samples the many small solves of a grid search run faster on one
#: BLAS thread (KRR-CV at n=200 on a busy 2-core machine: 12 s threaded, 1.4 s single)
_SINGLE_THREAD_BELOW = 2000


def _blas_for(n_samples: int):
    if n_samples <= _SINGLE_THREAD_BELOW:
        return threadpool_limits(limits=1, user_api="blas")
    return nullcontext()


def _sigma_of(gamma: float, sigmas) -> float:
    """The grid's ``sigma`` whose ``gamma`` was chosen (exact, no round trip)."""
    sig = np.asarray(sigmas, dtype=float).ravel()
    return float(sig[np.argmin(np.abs([sigma_to_gamma(s) - gamma for s in sig]))])


def _check_folds(n_samples: int, cv: int, name: str) -> None:
    if n_samples < cv:
        raise ValueError(f"{name} needs at least cv={cv} samples for {cv}-fold "
                         f"cross-validation, got n_samples={n_samples}; lower cv.")


class _GridForwarding:
    """Forwarding of the refitted model's attributes and the chosen parameters."""

    def _store_search(self, search: GridSearchCV) -> None:
        self.search_ = search
        self.best_estimator_ = search.best_estimator_
        self.cv_results_ = search.cv_results_
        self.best_score_ = float(search.best_score_)
        self.best_params_ = dict(search.best_params_)

    def _store_svm(self, search: GridSearchCV) -> None:
        """The search, the chosen sigma and C, and the winning libsvm model's attributes."""
        self._store_search(search)
        best = search.best_estimator_
        self.best_sigma_ = _sigma_of(best.gamma, self.sigma_grid)
        self.best_C_ = float(best.C)
        for name in ("support_", "support_vectors_", "dual_coef_", "intercept_", "n_support_"):
            setattr(self, name, getattr(best, name))


# ---------------------------------------------------------------------------
# SVM-CV / SVR-CV
# ---------------------------------------------------------------------------

class SVMCVClassifier(_GridForwarding, ClassifierMixin, BaseEstimator):
    r"""SVC with the Gaussian kernel, ``sigma`` and ``C`` by cross-validation.

    .. math::

        \min_{f, b}\ \tfrac12\|f\|_{\mathcal H}^2 + C \sum_i \max(0, 1 - y_i (f(x_i) + b)),
        \quad k(x, x') = \exp(-\|x - x'\|^2 / (2\sigma^2)),

    with ``(sigma, C)`` maximising the ``cv``-fold accuracy over ``sigma_grid x C_grid``
    (``GridSearchCV`` over ``SVC(gamma=1/(2 sigma^2))``; ties go to the first grid
    point, as in scikit-learn).

    Parameters
    ----------
    sigma_grid, C_grid : sequence of float > 0, default ``2^{-5..5}``
    cv : int >= 2, default=5
        Number of stratified folds.
    n_jobs : int or None
        Parallel fits of ``GridSearchCV`` (joblib: ``None`` follows
        ``joblib.parallel_config``, e.g. ``backend="dask"`` runs the folds on Dask
        workers).
    random_state : int or None
        None: folds in data order (scikit-learn's default for an integer ``cv``);
        otherwise shuffled folds with this seed.

    Attributes
    ----------
    best_sigma_, best_C_ : float
    best_estimator_ : SVC
        Refitted on all data with the chosen parameters.
    cv_results_, best_score_, best_params_, search_ : from the ``GridSearchCV``
    classes_, support_, support_vectors_, dual_coef_, intercept_, n_support_ :
        forwarded from ``best_estimator_``.

    References
    ----------
    SVM-CV, the baseline of the paper's §6.1, with its grid of ``sigma`` and ``C``.

    .. [1] F. Liu, X. Huang, C. Gong, J. Yang and L. Li, "Learning Data-adaptive
       Non-parametric Kernels", Journal of Machine Learning Research 21, 2020.
    """

    _param_rules = {
        "sigma_grid": _positive_grid,
        "C_grid": _positive_grid,
        "cv": _cv_folds,
        "n_jobs": any_value,
        "random_state": any_value,
    }

    def __init__(self, *, sigma_grid=DEFAULT_GRID, C_grid=DEFAULT_GRID, cv: int = 5,
                 n_jobs: int | None = None, random_state=None) -> None:
        self.sigma_grid = sigma_grid
        self.C_grid = C_grid
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _grid(self) -> dict:
        sigmas = np.asarray(self.sigma_grid, dtype=float).ravel()
        return {"gamma": [sigma_to_gamma(s) for s in sigmas],
                "C": [float(c) for c in np.asarray(self.C_grid, dtype=float).ravel()]}

    def fit(self, X, y) -> SVMCVClassifier:
        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y)
        _check_folds(X.shape[0], self.cv, type(self).__name__)
        check_classification_targets(y)
        check_two_classes(y)
        search = GridSearchCV(SVC(kernel="rbf"), self._grid(),
                              cv=_splitter(self.cv, self.random_state, True),
                              n_jobs=self.n_jobs, refit=True)
        search.fit(X, y)
        self._store_svm(search)
        self.classes_ = search.best_estimator_.classes_
        return self

    def decision_function(self, X) -> NDArray[np.float64]:
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, reset=False)
        return self.best_estimator_.decision_function(X)

    def predict(self, X) -> NDArray:
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, reset=False)
        return self.best_estimator_.predict(X)


class SVRCVRegressor(_GridForwarding, RegressorMixin, BaseEstimator):
    r"""epsilon-SVR with the Gaussian kernel, ``sigma`` and ``C`` by cross-validation.

    .. math::

        \min_{f, b}\ \tfrac12\|f\|_{\mathcal H}^2
        + C \sum_i \max(0, |y_i - f(x_i) - b| - \varepsilon),

    ``(sigma, C)`` maximising the ``cv``-fold R² over ``sigma_grid x C_grid``
    (``GridSearchCV`` over ``SVR(gamma=1/(2 sigma^2), epsilon=epsilon)``).

    Parameters
    ----------
    sigma_grid, C_grid : sequence of float > 0, default ``2^{-5..5}``
    epsilon : float >= 0, default=0.1
    cv : int >= 2, default=5
    n_jobs : int or None
    random_state : int or None
        None: folds in data order; otherwise shuffled folds with this seed.

    Attributes
    ----------
    best_sigma_, best_C_ : float
    best_estimator_ : SVR
    cv_results_, best_score_, best_params_, search_
    support_, support_vectors_, dual_coef_, intercept_, n_support_ : forwarded.

    References
    ----------
    SVR-CV, the baseline of the paper's regression experiments (§6.3).

    .. [1] F. Liu, X. Huang, C. Gong, J. Yang and L. Li, "Learning Data-adaptive
       Non-parametric Kernels", Journal of Machine Learning Research 21, 2020.
    """

    _param_rules = {
        "sigma_grid": _positive_grid,
        "C_grid": _positive_grid,
        "epsilon": nonnegative,
        "cv": _cv_folds,
        "n_jobs": any_value,
        "random_state": any_value,
    }

    def __init__(self, *, sigma_grid=DEFAULT_GRID, C_grid=DEFAULT_GRID, epsilon: float = 0.1,
                 cv: int = 5, n_jobs: int | None = None, random_state=None) -> None:
        self.sigma_grid = sigma_grid
        self.C_grid = C_grid
        self.epsilon = epsilon
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    _grid = SVMCVClassifier._grid

    def fit(self, X, y) -> SVRCVRegressor:
        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y, y_numeric=True)
        _check_folds(X.shape[0], self.cv, type(self).__name__)
        search = GridSearchCV(SVR(kernel="rbf", epsilon=float(self.epsilon)), self._grid(),
                              cv=_splitter(self.cv, self.random_state, False),
                              n_jobs=self.n_jobs, refit=True)
        search.fit(X, y)
        self._store_svm(search)
        return self

    def predict(self, X) -> NDArray[np.float64]:
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, reset=False)
        return self.best_estimator_.predict(X)


# ---------------------------------------------------------------------------
# kernel ridge regression
# ---------------------------------------------------------------------------

class KernelRidgeBaseline(RegressorMixin, BaseEstimator):
    r"""RBF kernel ridge regression (scikit-learn ``KernelRidge``), ``sigma`` given or by CV.

    .. math::

        \min_{a}\ \|y - K a\|^2 + \alpha\, a^\top K a, \quad
        K_{ij} = \exp(-\|x_i - x_j\|^2 / (2\sigma^2)), \qquad a = (K + \alpha I)^{-1} y .

    Parameters
    ----------
    sigma : float > 0, default=1.0
        Kernel width when ``cv`` is None.
    alpha : float > 0, default=1e-3
        Ridge when ``cv`` is None.
    cv : int >= 2 or None, default=None
        None: fit ``KernelRidge(gamma=1/(2 sigma^2), alpha=alpha)`` directly. An int:
        choose ``(sigma, alpha)`` on ``sigma_grid x alpha_grid`` by ``cv``-fold CV (R²).
    sigma_grid : sequence of float > 0, default ``2^{-5..5}``
    alpha_grid : sequence of float > 0, default ``(1e-4, ..., 1)``
    n_jobs : int or None
    random_state : int or None
        Shuffles the CV folds when given.

    Attributes
    ----------
    best_estimator_ : KernelRidge
        The fitted scikit-learn model.
    best_sigma_, best_alpha_ : float
        The parameters used (chosen by CV when ``cv`` is set).
    cv_results_ : dict or None
        ``GridSearchCV.cv_results_`` when ``cv`` is set.
    dual_coef_, X_fit_ : forwarded from ``best_estimator_``.

    References
    ----------
    RBF kernel ridge regression, the symmetric model whose asymmetric form LAB RBF
    learns, and one of the paper's compared methods.

    .. [1] F. He, M. He, L. Shi, X. Huang and J. A. K. Suykens, "Enhancing Kernel
       Flexibility via Learning Asymmetric Locally-Adaptive Kernels", arXiv:2310.05236,
       2023.
    """

    _param_rules = {
        "sigma": positive,
        "alpha": positive,
        "cv": optional(_cv_folds),
        "sigma_grid": _positive_grid,
        "alpha_grid": _positive_grid,
        "n_jobs": any_value,
        "random_state": any_value,
    }

    def __init__(self, *, sigma: float = 1.0, alpha: float = 1e-3, cv: int | None = None,
                 sigma_grid=DEFAULT_GRID, alpha_grid=DEFAULT_ALPHA_GRID,
                 n_jobs: int | None = None, random_state=None) -> None:
        self.sigma = sigma
        self.alpha = alpha
        self.cv = cv
        self.sigma_grid = sigma_grid
        self.alpha_grid = alpha_grid
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y) -> KernelRidgeBaseline:
        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y, y_numeric=True, multi_output=True)
        if self.cv is None:
            with _blas_for(X.shape[0]):
                model = KernelRidge(kernel="rbf", gamma=sigma_to_gamma(self.sigma),
                                    alpha=float(self.alpha)).fit(X, y)
            self.cv_results_ = None
        else:
            _check_folds(X.shape[0], self.cv, type(self).__name__)
            grid = {"gamma": [sigma_to_gamma(s) for s in np.ravel(self.sigma_grid)],
                    "alpha": [float(a) for a in np.ravel(self.alpha_grid)]}
            search = GridSearchCV(KernelRidge(kernel="rbf"), grid,
                                  cv=_splitter(self.cv, self.random_state, False),
                                  n_jobs=self.n_jobs, refit=True)
            with _blas_for(X.shape[0]):
                search.fit(X, y)
            model = search.best_estimator_
            self.cv_results_ = search.cv_results_
        self.best_estimator_ = model
        self.best_sigma_ = (float(self.sigma) if self.cv is None
                            else _sigma_of(model.gamma, self.sigma_grid))
        self.best_alpha_ = float(model.alpha)
        self.dual_coef_ = model.dual_coef_
        self.X_fit_ = model.X_fit_
        return self

    def predict(self, X) -> NDArray[np.float64]:
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, reset=False)
        return self.best_estimator_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


# ---------------------------------------------------------------------------
# uniform multiple kernel learning
# ---------------------------------------------------------------------------

def uniform_mkl_kernel(X: ArrayLike, Z: ArrayLike | None = None, *,
                       sigmas=DEFAULT_GRID) -> NDArray[np.float64]:
    r"""The uniform average of Gaussian kernels
    :math:`\bar K = \frac{1}{S}\sum_{s} \exp(-\|x - z\|^2 / (2\sigma_s^2))`.

    One squared-distance matrix, ``S`` exponentials. PSD when ``Z`` is None (a convex
    combination of PSD kernels).

    Parameters
    ----------
    X : array of shape (n, d)
    Z : array of shape (m, d), optional
    sigmas : sequence of float > 0, default ``2^{-5..5}``

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    _positive_grid("sigmas", sigmas)
    D = squared_distances(X, Z)
    sig = np.asarray(sigmas, dtype=float).ravel()
    K = np.zeros_like(D)
    for s in sig:
        K += np.exp(-sigma_to_gamma(s) * D)
    K /= sig.size
    return K


class MKLUniformClassifier(_GridForwarding, ClassifierMixin, BaseEstimator):
    r"""SVC on the uniform average of Gaussian kernels ("MKL-uniform").

    .. math::

        \bar K = \frac{1}{S}\sum_{s=1}^{S} K_{\sigma_s}, \qquad
        \min_{f, b}\ \tfrac12\|f\|_{\bar K}^2 + C \sum_i \max(0, 1 - y_i (f(x_i) + b)),

    ``C`` by ``cv``-fold cross-validation (``GridSearchCV`` over
    ``SVC(kernel="precomputed")``, which slices the training kernel per fold).
    Prediction uses the averaged cross-kernel :math:`\bar K(X_\text{new}, X_\text{train})`.

    Parameters
    ----------
    sigmas : sequence of float > 0, default ``2^{-5..5}`` (11 kernels)
    C_grid : sequence of float > 0, default ``2^{-5..5}``
    cv : int >= 2, default=5
    n_jobs : int or None
    random_state : int or None
        Shuffles the stratified folds when given.

    Attributes
    ----------
    best_C_ : float
    best_estimator_ : SVC (kernel="precomputed")
    kernel_weights_ : ndarray of shape (S,)
        ``1 / S`` each.
    X_fit_ : ndarray
        Training data (needed for the cross-kernel).
    cv_results_, best_score_, best_params_, search_ : from the ``GridSearchCV``.
    classes_, support_, dual_coef_, intercept_, n_support_ : forwarded.

    References
    ----------
    MKL-uniform, the baseline of the paper's §6.1: 11 equally weighted Gaussian
    kernels, ``C`` by 5-fold cross-validation.

    .. [1] F. Liu, X. Huang, C. Gong, J. Yang and L. Li, "Learning Data-adaptive
       Non-parametric Kernels", Journal of Machine Learning Research 21, 2020.
    """

    _param_rules = {
        "sigmas": _positive_grid,
        "C_grid": _positive_grid,
        "cv": _cv_folds,
        "n_jobs": any_value,
        "random_state": any_value,
    }

    def __init__(self, *, sigmas=DEFAULT_GRID, C_grid=DEFAULT_GRID, cv: int = 5,
                 n_jobs: int | None = None, random_state=None) -> None:
        self.sigmas = sigmas
        self.C_grid = C_grid
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y) -> MKLUniformClassifier:
        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y)
        _check_folds(X.shape[0], self.cv, type(self).__name__)
        check_classification_targets(y)
        check_two_classes(y)
        K = uniform_mkl_kernel(X, sigmas=self.sigmas)
        grid = {"C": [float(c) for c in np.ravel(self.C_grid)]}
        search = GridSearchCV(SVC(kernel="precomputed"), grid,
                              cv=_splitter(self.cv, self.random_state, True),
                              n_jobs=self.n_jobs, refit=True).fit(K, y)
        self._store_search(search)
        best = search.best_estimator_
        self.best_C_ = float(best.C)
        n_k = np.ravel(self.sigmas).size
        self.kernel_weights_ = np.full(n_k, 1.0 / n_k)
        self.X_fit_ = X
        self.classes_ = best.classes_
        self.support_ = best.support_
        self.dual_coef_ = best.dual_coef_
        self.intercept_ = best.intercept_
        self.n_support_ = best.n_support_
        return self

    def _cross_kernel(self, X) -> NDArray[np.float64]:
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, reset=False)
        return uniform_mkl_kernel(X, self.X_fit_, sigmas=self.sigmas)

    def decision_function(self, X) -> NDArray[np.float64]:
        K = self._cross_kernel(X)
        return self.best_estimator_.decision_function(K)

    def predict(self, X) -> NDArray:
        K = self._cross_kernel(X)
        return self.best_estimator_.predict(K)
