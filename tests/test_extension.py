"""The out-of-sample rules of a learned matrix, above all the smooth rule (a kernel-weighted
average of the training rows): a dense reference, the plain kernel at F = 11ᵀ, the limit
towards the nearest-point rule, determinism, and scikit-learn's estimator contract."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from nplk_core import DANKClassifier, DANKRegressor
from nplk_core.datasets import make_clowns, make_step
from nplk_core.extension import (
    borrowed_rows,
    borrowing,
    extended_decision,
    resolve_width,
    smooth_weights,
)
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma, squared_distances
from nplk_core.knpl import KNPLClassifier


@pytest.fixture(scope="module")
def clowns():
    X, y = make_clowns(120, random_state=3)
    rng = np.random.default_rng(0)
    Xt = rng.uniform(X.min(0), X.max(0), size=(40, 2))
    return X, y.astype(float), Xt


@pytest.fixture(scope="module")
def step():
    X, y = make_step(60, noise=0.05, random_state=0)
    Xt = np.linspace(X.min(), X.max(), 37)[:, None]
    return X, y, Xt


def _fitted(kind, data, **kw):
    X, y, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if kind == "dank":
            return DANKClassifier(C=10.0, sigma=3.0, **kw).fit(X, y)
        if kind == "dank_svr":
            return DANKRegressor(C=10.0, sigma=1.0, epsilon=0.05, **kw).fit(X, y)
        return KNPLClassifier(C=10.0, sigma=3.0, **kw).fit(X, y)


def _decision(est, X, **kw):
    if isinstance(est, DANKRegressor):
        return est.predict(X, **kw)
    return est.decision_function(X, **kw)


def _matrix(est):
    return est.G_ if hasattr(est, "G_") else est.F_


def _coef(est):
    return est.dual_coef_ if hasattr(est, "dual_coef_") else est.dual_u_


KINDS = ("dank", "dank_svr", "knpl")


@pytest.fixture(scope="module")
def models(clowns, step):
    return {k: (_fitted(k, step if k == "dank_svr" else clowns),
                step if k == "dank_svr" else clowns) for k in KINDS}


# ---------------------------------------------------------------------------
# the pure functions
# ---------------------------------------------------------------------------

def test_weights_are_the_normalised_gaussian_and_stay_finite_as_the_width_shrinks():
    rng = np.random.default_rng(1)
    Xtr, X = rng.normal(size=(30, 3)), rng.normal(size=(12, 3))
    D = squared_distances(X, Xtr)
    h = 0.8
    raw = np.exp(-D / (2 * h * h))
    np.testing.assert_allclose(smooth_weights(D, h), raw / raw.sum(1, keepdims=True),
                               rtol=1e-12)
    # far below the spacing of the points exp(-D/2h^2) underflows to 0 for every point;
    # the shifted weights still put everything on the nearest one
    W = smooth_weights(D, 1e-6)
    assert np.all(np.isfinite(W))
    np.testing.assert_array_equal(W, np.eye(30)[D.argmin(1)])


def test_exact_ties_share_the_weight():
    Xtr = np.array([[-1.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    W = smooth_weights(squared_distances(np.zeros((1, 2)), Xtr), 1e-8)
    np.testing.assert_allclose(W, [[0.5, 0.5, 0.0]])


def test_smooth_rows_are_the_eigenvectors_of_M_extended_by_the_same_average():
    """M~(x, x_i) = sum_j mu_j v~_j(x) v_ij with v~_j = sum_l p_l(x) v_lj: the rule is
    the Nadaraya-Watson extension of M's eigenvectors (the module docstring's claim)."""
    rng = np.random.default_rng(2)
    Xtr, X = rng.normal(size=(25, 2)), rng.normal(size=(9, 2))
    B = rng.normal(size=(25, 4))
    M = np.ones((25, 25)) + B @ B.T / 10
    W = borrowing("smooth", Xtr, X, sigma=0.7)
    mu, V = np.linalg.eigh(M)
    S = np.array([0, 3, 4, 17])
    expected = (V[S] * mu) @ (W @ V).T
    np.testing.assert_allclose(borrowed_rows(M, W, S), expected, atol=1e-12)
    # the papers' rules take one column: M[S, j*]
    cols = borrowing("nearest", Xtr, X, sigma=0.7)
    np.testing.assert_array_equal(borrowed_rows(M, cols, S), M[np.ix_(S, cols)])


def test_extended_decision_against_a_slow_reference():
    rng = np.random.default_rng(3)
    Xtr, X = rng.normal(size=(20, 2)), rng.normal(size=(7, 2))
    B = rng.normal(size=(20, 3))
    M = np.ones((20, 20)) + B @ B.T / 5
    u = rng.normal(size=20) * (rng.uniform(size=20) < 0.6)
    sigma, h, b = 0.9, 0.5, -0.3
    W = borrowing("smooth", Xtr, X, sigma=sigma, width=h)
    S = np.flatnonzero(u)
    got = extended_decision(u, M, W, gaussian_kernel(Xtr[S], X, sigma=sigma), b)
    for j, x in enumerate(X):
        p = np.array([np.exp(-np.sum((x - xl) ** 2) / (2 * h * h)) for xl in Xtr])
        p /= p.sum()
        f = b
        for i in range(20):
            m = sum(p[k] * M[i, k] for k in range(20))
            f += u[i] * m * np.exp(-np.sum((x - Xtr[i]) ** 2) / (2 * sigma ** 2))
        assert got[j] == pytest.approx(f, abs=1e-12)


@pytest.mark.parametrize("width", [0, -1.0, np.inf, np.nan, "auto", None, True])
def test_a_bad_width_says_what_is_allowed(width):
    with pytest.raises(ValueError, match="width must be a number > 0 or 'sigma'"):
        resolve_width(width, 1.0)


def test_an_unknown_rule_says_the_rules():
    with pytest.raises(ValueError, match="reciprocal, nearest, smooth"):
        borrowing("far", np.zeros((3, 2)), np.zeros((1, 2)), sigma=1.0)


# ---------------------------------------------------------------------------
# the estimators
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_all_ones_matrix_gives_the_plain_kernel_exactly(models, kind):
    """F = 11^T (G = 11^T): every weighted row is all ones, so the smooth rule's decision
    is the model's own alpha and b with the plain Gaussian kernel."""
    est, (X, _, Xt) = models[kind]
    est = _copy_with_ones(est)
    u, b = _coef(est), est.intercept_
    plain = u @ gaussian_kernel(X, Xt, sigma=est.sigma) + b
    for width in ("sigma", 0.05, 10.0):
        est.set_params(extension_width=width)
        np.testing.assert_allclose(_decision(est, Xt, extension="smooth"), plain,
                                   rtol=0, atol=1e-12)


def _copy_with_ones(est):
    import copy

    est = copy.deepcopy(est)
    attr = "G_" if hasattr(est, "G_") else "F_"
    setattr(est, attr, np.ones_like(getattr(est, attr)))
    return est


def test_knpl_in_the_svm_limit_gives_libsvm_decision_under_the_smooth_rule(clowns):
    """gamma -> inf: G = 11^T to rounding and KNPL is scikit-learn's SVC (the same
    solve); the smooth rule then gives the SVC's decision values."""
    X, y, Xt = clowns
    est = KNPLClassifier(C=1.5, sigma=0.7, gamma=1e15, solver="alternating",
                         extension="smooth").fit(X, y)
    svc = SVC(C=1.5, gamma=sigma_to_gamma(0.7)).fit(X, y)
    np.testing.assert_allclose(est.decision_function(Xt), svc.decision_function(Xt),
                               atol=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_the_smooth_rule_tends_to_the_nearest_point_rule_as_its_width_shrinks(models, kind):
    """f_h(x) - f_nearest(x) = sum_i u_i k(x_i, x) sum_{l != j*} p_l(x) (M_il - M_ij*), so
    |f_h - f_nearest| <= (1 - p_j*(x)) max_l sum_i |u_i| k(x_i, x) |M_il - M_ij*|, and
    1 - p_j*(x) <= (n - 1) exp(-gap(x) / (2 h^2)) (gap: the second-smallest squared
    distance minus the smallest): the gap closes geometrically as h -> 0."""
    est, (X, _, Xt) = models[kind]
    M, u = _matrix(est), _coef(est)
    nearest = _decision(est, Xt, extension="nearest")
    D = squared_distances(Xt, X)
    js = D.argmin(1)
    Kx = gaussian_kernel(X, Xt, sigma=est.sigma)                       # (n, m)
    # spread[x] = max_l sum_i |u_i| k(x_i, x) |M_il - M_ij*(x)|
    spread = np.array([np.max((np.abs(u) * Kx[:, j]) @ np.abs(M - M[:, [js[j]]]))
                       for j in range(len(Xt))])
    second = np.sort(D, axis=1)[:, 1] - D.min(1)
    try:
        for h in est.sigma * 4.0 ** -np.arange(0, 8):
            est.set_params(extension_width=float(h))
            gap = np.abs(_decision(est, Xt, extension="smooth") - nearest)
            others = np.exp(-(D - D.min(1, keepdims=True)) / (2 * h * h)).sum(1) - 1.0
            bound = others / (1.0 + others) * spread
            assert np.all(gap <= bound + 1e-12)
            assert np.all(others <= (len(X) - 1) * np.exp(-second / (2 * h * h)) + 1e-300)
        assert gap.max() <= 1e-12          # at σ/4^7 the nearest point takes it all here
    finally:
        est.set_params(extension_width="sigma")


@pytest.mark.parametrize("kind", KINDS)
def test_the_smooth_rule_is_deterministic_and_pointwise(models, kind):
    """Unlike the reciprocal rule, a point's value does not depend on the other new
    points: the same on its own, in another order, and on every call."""
    est, (_, _, Xt) = models[kind]
    est.set_params(extension="smooth")
    try:
        d = _decision(est, Xt)
        np.testing.assert_array_equal(d, _decision(est, Xt))
        order = np.random.default_rng(4).permutation(len(Xt))
        np.testing.assert_allclose(_decision(est, Xt[order]), d[order], rtol=0, atol=1e-12)
        np.testing.assert_allclose(_decision(est, Xt[:1]), d[:1], rtol=0, atol=1e-12)
    finally:
        est.set_params(extension="reciprocal" if kind == "dank" else "nearest")


def test_the_estimators_own_setting_and_the_per_call_override_agree(models):
    est, (_, _, Xt) = models["dank"]
    by_call = est.decision_function(Xt, extension="smooth")
    est.set_params(extension="smooth")
    try:
        np.testing.assert_array_equal(est.decision_function(Xt), by_call)
        assert np.array_equal(est.predict(Xt), np.where(by_call > 0, *est.classes_[::-1]))
    finally:
        est.set_params(extension="reciprocal")


def test_knpl_refuses_the_reciprocal_rule_per_call(models):
    est, (_, _, Xt) = models["knpl"]
    with pytest.raises(ValueError, match="'nearest' or 'smooth'"):
        est.decision_function(Xt, extension="reciprocal")


@pytest.mark.parametrize("make", [DANKClassifier, DANKRegressor, KNPLClassifier])
@pytest.mark.parametrize("width", [0.0, -2.0, "wide"])
def test_a_bad_width_is_refused_at_fit(clowns, make, width):
    X, y, _ = clowns
    with pytest.raises(ValueError, match="extension_width"):
        make(extension="smooth", extension_width=width).fit(X, y)


def test_multiclass_knpl_takes_the_smooth_rule_for_every_class():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(c, 0.4, size=(15, 2)) for c in ((0, 0), (2, 0), (0, 2))])
    y = np.repeat([0, 1, 2], 15)
    est = KNPLClassifier(C=1.0, sigma=1.0, extension="smooth").fit(X, y)
    Xt = rng.normal(1, 1, size=(10, 2))
    d = est.decision_function(Xt)
    W = smooth_weights(squared_distances(Xt, X), 1.0)
    K = gaussian_kernel(X, Xt, sigma=1.0)
    for k in range(3):
        expected = est.dual_coef_[k] @ ((est.G_[k] @ W.T) * K) + est.intercept_[k]
        np.testing.assert_allclose(d[:, k], expected, atol=1e-10)


@pytest.mark.slow
@parametrize_with_checks([DANKClassifier(max_iter=300, extension="smooth"),
                          DANKRegressor(max_iter=300, extension="smooth"),
                          KNPLClassifier(extension="smooth", extension_width=0.5)])
def test_sklearn_contract_with_the_smooth_rule(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)
