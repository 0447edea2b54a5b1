"""ONK (*Learning the Optimal Neighborhood Kernel for Classification*): objective, both
solvers, the rank-one kernel, the SVM limit."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from nplk_core.datasets import make_clowns
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma
from nplk_core.onk import (
    ONKClassifier,
    onk_cgd,
    onk_gradient,
    onk_level,
    onk_objective,
)
from nplk_core.projection import project_dual
from nplk_core.spectral import numerical_rank


@pytest.fixture(scope="module")
def clowns():
    X, y = make_clowns(40, random_state=0)
    Xt, yt = make_clowns(300, random_state=1)
    return X, y.astype(float), Xt, yt


def _problem(X, y, sigma=1.0):
    K = gaussian_kernel(X, sigma=sigma)
    return (y[:, None] * K) * y[None, :]


def _feasible(alpha, y, C, atol=1e-10):
    return (alpha.min() >= -atol and alpha.max() <= C + atol
            and abs(alpha @ y) <= atol * max(1.0, np.abs(alpha).sum()))


# ---------------------------------------------------------------------------
# objective and gradient
# ---------------------------------------------------------------------------

def test_objective_is_the_quartic_of_eq7():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 6))
    Q = A @ A.T
    a = rng.random(6)
    rho = 3.0
    expected = -2 * a.sum() + a @ Q @ a + (a @ a) ** 2 / (4 * rho)
    assert onk_objective(a, Q, rho) == pytest.approx(expected, rel=1e-14)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    n = 12
    A = rng.normal(size=(n, n))
    Q = A @ A.T / n
    a = rng.random(n)
    rho = 0.7
    g = onk_gradient(a, Q, rho)
    h = 1e-6
    fd = np.array([(onk_objective(a + h * e, Q, rho) - onk_objective(a - h * e, Q, rho))
                   / (2 * h) for e in np.eye(n)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-7)


def test_objective_equals_inner_saddle_value(clowns):
    """Theorem 1: f(alpha) = -(2a'1 - a'YGYa + rho||G-K||^2) at G = K + (Ya)(Ya)'/(2rho)."""
    X, y, _, _ = clowns
    K = gaussian_kernel(X)
    a = project_dual(np.random.default_rng(2).random(len(y)), y, 1.0)
    rho = 5.0
    u = a * y
    G = K + np.outer(u, u) / (2 * rho)
    saddle = 2 * a.sum() - u @ G @ u + rho * np.sum((G - K) ** 2)
    assert onk_objective(a, (y[:, None] * K) * y[None, :], rho) == pytest.approx(
        -saddle, rel=1e-12)


# ---------------------------------------------------------------------------
# solvers
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def solved(clowns):
    X, y, _, _ = clowns
    Q = _problem(X, y)
    C, rho = 1.0, 2.0
    iterates = {"cgd": [], "level": []}

    def keeper(name):
        def cb(it, state, elapsed):
            iterates[name].append(state["alpha"].copy())
        return cb

    cgd = onk_cgd(Q, y, C, rho, tol=1e-10, max_iter=20000, callback=keeper("cgd"))
    level = onk_level(Q, y, C, rho, tol=1e-8, max_iter=500, callback=keeper("level"))
    return Q, y, C, rho, cgd, level, iterates


@pytest.mark.slow
def test_cgd_and_level_reach_the_same_objective(solved):
    Q, y, C, rho, cgd, level, _ = solved
    assert cgd.converged and level.converged
    assert abs(cgd.objective - level.objective) <= 1e-5 * abs(cgd.objective)
    # the level method's lower bound certifies both
    lower = level.history["lower"][-1]
    assert lower <= cgd.objective + 1e-9 and lower <= level.objective + 1e-9
    assert cgd.objective - lower <= 1e-6 * abs(lower)


def test_solution_is_a_fixed_point_of_the_projected_gradient(solved):
    Q, y, C, rho, cgd, _, _ = solved
    a = cgd.alpha
    step = project_dual(a - onk_gradient(a, Q, rho) / 10.0, y, C) - a
    assert np.linalg.norm(step) <= 1e-6 * max(1.0, np.linalg.norm(a))


def test_every_iterate_is_feasible(solved):
    _, y, C, _, cgd, level, iterates = solved
    assert len(iterates["cgd"]) == cgd.n_iter and len(iterates["level"]) == level.n_iter
    for name in ("cgd", "level"):
        assert all(_feasible(a, y, C) for a in iterates[name]), name


def test_cgd_objective_never_increases(solved):
    _, _, _, _, cgd, _, _ = solved
    f = cgd.history["objective"]
    assert f.size == cgd.n_iter
    assert np.all(np.diff(f) <= 1e-12 * np.abs(f[1:]))
    assert f[-1] < f[0]


def test_level_bounds_bracket_and_tighten(solved):
    _, _, _, _, _, level, _ = solved
    h = level.history
    assert np.all(h["lower"] <= h["upper"] + 1e-12)
    assert np.all(np.diff(h["upper"]) <= 0) and np.all(np.diff(h["lower"]) >= 0)
    np.testing.assert_allclose(h["gap"], h["upper"] - h["lower"])
    assert h["gap"][-1] <= 1e-8 * abs(h["upper"][-1])
    assert np.all(h["objective"] >= h["upper"] - 1e-12)


def test_solver_callback_stops_early(clowns):
    X, y, _, _ = clowns
    Q = _problem(X, y)
    for solver in (onk_cgd, onk_level):
        sol = solver(Q, y, 1.0, 1.0, callback=lambda it, s, t: it >= 2)
        assert sol.n_iter == 3 and sol.stopped and not sol.converged


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("solver", ["cgd", "level"])
def test_learned_kernel_is_K_plus_the_rank_one_term(clowns, solver):
    X, y, _, _ = clowns
    est = ONKClassifier(C=0.8, sigma=0.9, rho=0.5, solver=solver).fit(X, y)
    u = est.alpha_ * np.where(y == est.classes_[1], 1.0, -1.0)
    E = est.G_ - est.K_
    np.testing.assert_allclose(E, np.outer(u, u) / (2 * 0.5), rtol=1e-12, atol=1e-15)
    assert numerical_rank(np.linalg.eigvalsh(E), rtol=1e-8) == 1
    np.testing.assert_allclose(est.K_, gaussian_kernel(X, sigma=0.9))
    np.testing.assert_allclose(est.dual_coef_, u)
    np.testing.assert_array_equal(est.support_, np.flatnonzero(est.alpha_ > 0))
    assert est.history_["objective"].size == est.n_iter_ and est.converged_


def test_prediction_uses_the_given_kernel(clowns):
    X, y, Xt, _ = clowns
    est = ONKClassifier(rho=0.3).fit(X, y)
    Kt = gaussian_kernel(X, Xt)
    np.testing.assert_allclose(est.decision_function(Xt),
                               est.dual_coef_ @ Kt + est.intercept_, atol=1e-12)
    # the bias satisfies the KKT conditions of the SVM trained with G
    free = (est.alpha_ > 1e-6) & (est.alpha_ < 1.0 - 1e-6)
    assert free.any()
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    margins = ypm[free] * (est.G_[free] @ est.dual_coef_ + est.intercept_)
    np.testing.assert_allclose(margins, 1.0, atol=1e-3)


def test_huge_rho_gives_the_svm(clowns):
    X, y, Xt, _ = clowns
    X, y = make_clowns(60, spread=1.3, random_state=3)
    est = ONKClassifier(C=1.0, sigma=0.8, rho=1e6, tol=1e-9, max_iter=50000).fit(X, y)
    svc = SVC(C=1.0, gamma=sigma_to_gamma(0.8), tol=1e-8).fit(X, y)
    d, d_svc = est.decision_function(Xt), svc.decision_function(Xt)
    np.testing.assert_allclose(d, d_svc, atol=1e-4)
    np.testing.assert_array_equal(est.predict(Xt), svc.predict(Xt))
    np.testing.assert_array_equal(est.support_, np.sort(svc.support_))


def test_small_rho_moves_the_kernel_away_from_K(clowns):
    X, y, _, _ = clowns
    near = ONKClassifier(rho=1e4).fit(X, y)
    far = ONKClassifier(rho=0.05).fit(X, y)
    assert np.linalg.norm(far.G_ - far.K_) > 100 * np.linalg.norm(near.G_ - near.K_)


def test_max_iter_warns(clowns):
    X, y, _, _ = clowns
    with pytest.warns(ConvergenceWarning, match="ONKClassifier"):
        est = ONKClassifier(max_iter=2, tol=1e-12).fit(X, y)
    assert not est.converged_ and est.n_iter_ == 2


def test_callback_stop_does_not_warn(clowns):
    X, y, _, _ = clowns
    seen = []

    def stop(it, state, elapsed):
        seen.append(state["objective"])
        return it == 1

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = ONKClassifier(callback=stop).fit(X, y)
    assert est.n_iter_ == 2 and not est.converged_ and len(seen) == 2


def test_multiclass_one_vs_rest():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [3, 0], [0, 3]])
    X = np.vstack([c + 0.6 * rng.normal(size=(20, 2)) for c in centers])
    y = np.repeat([7, 8, 9], 20)
    est = ONKClassifier(rho=10.0).fit(X, y)
    assert est.G_.shape == (3, 60, 60) and est.alpha_.shape == (3, 60)
    assert est.decision_function(X).shape == (60, 3)
    assert est.score(X, y) > 0.95
    single = ONKClassifier(rho=10.0).fit(X, y == 9)
    np.testing.assert_allclose(est.decision_function(X)[:, 2],
                               single.decision_function(X), atol=1e-12)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("param, value", [
    ("rho", 0.0), ("rho", -1.0), ("rho", np.nan), ("C", 0.0), ("C", -2.0),
    ("sigma", 0.0), ("sigma", -1.0), ("solver", "newton"), ("max_iter", 0),
    ("tol", 0.0), ("callback", "print"),
])
def test_bad_parameters_raise_clear_value_error(clowns, param, value):
    X, y, _, _ = clowns
    with pytest.raises(ValueError, match=param):
        ONKClassifier(**{param: value}).fit(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_data_raise(clowns, bad):
    X, y, _, _ = clowns
    X = X.copy()
    X[0, 0] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        ONKClassifier().fit(X, y)


def test_one_class_raises(clowns):
    X, _, _, _ = clowns
    with pytest.raises(ValueError, match="two classes"):
        ONKClassifier().fit(X, np.zeros(len(X)))


def test_level_rejects_bad_level(clowns):
    X, y, _, _ = clowns
    with pytest.raises(ValueError, match="level"):
        onk_level(_problem(X, y), y, 1.0, 1.0, level=1.0)


# ---------------------------------------------------------------------------
# scikit-learn contract (the level method solves an LP and a QP per iteration; the
# checks run with the default CGD solver, the level method is covered above)
# ---------------------------------------------------------------------------

@pytest.mark.slow
@parametrize_with_checks([ONKClassifier()])
def test_sklearn_contract(estimator, check):
    check(estimator)
