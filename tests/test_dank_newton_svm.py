"""DANK in SVM by Newton's method: the Hessian of the SVM form against a dense reference
and finite differences, the step's one-signed program against libsvm's SVC and its KKT
conditions, and the solver against Algorithm 1, projected gradient, SLSQP, a long
accelerated solve and scikit-learn's SVC, with its history, stop rules and warm start."""


import numpy as np
import pytest
from _dank_references import (
    assert_callback_stops_and_max_iter_warns,
    assert_newton_history,
    dense_hessian,
    slsqp_max,
)
from scipy.optimize import linprog, minimize
from sklearn.svm import SVC

from nplk_core import DANKClassifier
from nplk_core._dank_core import SOLVERS, DankProblem
from nplk_core._dank_newton import AT_UPPER, AT_ZERO, box_qp, dank_hessian, solve_newton
from nplk_core.dank import AUTO_SVM_NEWTON_MAX_N, _plain_svm
from nplk_core.datasets import make_clowns
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma


def _clowns(n, seed=0):
    X, y = make_clowns(n, random_state=seed)
    return X, np.where(y > 0, 1.0, -1.0)


def _svm_problem(n=30, C=1.0, eta=2.0, tau=0.01, sigma=0.5, seed=0):
    X, y = _clowns(n, seed)
    K = gaussian_kernel(X, sigma=sigma)
    return DankProblem(K, y, np.ones(n), C, eta, tau), X, y


def _slsqp_max(problem, starts):
    """SLSQP on -h over alpha with the box and y^T alpha = 0."""
    return slsqp_max(problem, starts, problem.labels)


def _assert_kkt(problem, alpha, rtol=1e-6):
    """Feasible, and the KKT conditions of h in alpha: one multiplier nu of the equality
    with r = g - nu y zero where 0 < alpha < C, <= 0 at 0 and >= 0 at C
    (g = 1 - y o (F o K)(y o alpha), h's gradient)."""
    C, y = problem.C, problem.labels
    assert alpha.min() >= 0 and alpha.max() <= C
    assert abs(alpha @ y) <= 1e-9 * max(C, 1.0) * problem.n
    _, g, _ = problem.evaluate(alpha)
    slack = 1e-9 * C
    free = (alpha > slack) & (alpha < C - slack)
    yg = y * g
    nu = float(np.median(yg[free])) if free.any() else float(np.median(yg))
    r = g - nu * y
    tol = rtol * max(1.0, np.abs(g).max())
    assert np.all(np.abs(r[free]) <= tol)
    assert np.all(r[alpha <= slack] <= tol)
    assert np.all(r[alpha >= C - slack] >= -tol)


# ---------------------------------------------------------------------------
# the Hessian of the SVM form
# ---------------------------------------------------------------------------

# (sigma, eta, tau, share of points in the support, share of those at C)
SVM_HESSIAN_CASES = [(0.5, 2.0, 0.01, 0.5, 0.2), (0.3, 0.01, 0.001, 0.8, 0.5),
                     (1.0, 1e4, 0.1, 1.0, 1.0), (0.2, 0.05, 0.0, 0.3, 0.0)]


@pytest.mark.parametrize("sigma, eta, tau, share, at_c", SVM_HESSIAN_CASES)
def test_hessian_in_alpha_matches_the_dense_formula_and_finite_differences(
        sigma, eta, tau, share, at_c):
    """In u = y o alpha the SVM form's smooth part is DANK-SVR's with the labels for the
    targets, so minus its Hessian in alpha is Y H Y: checked against the dense formula
    and against central differences of the problem's own gradient in alpha (the SVM
    form's evaluation, support trick and all)."""
    n, C = 22, 2.0
    problem, _, y = _svm_problem(n=n, C=C, eta=eta, tau=tau, sigma=sigma, seed=1)
    rng = np.random.default_rng(4)
    alpha = rng.uniform(0, C, n) * (rng.uniform(size=n) < share)
    alpha[rng.uniform(size=n) < at_c * share] = C
    u = y * alpha
    H = dank_hessian(u, problem.K, eta, tau)
    ref = dense_hessian(u, problem.K, eta, tau)
    np.testing.assert_allclose(H, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    h = 1e-6
    fd = np.empty((n, n))
    for a in range(n):
        e = np.zeros(n)
        e[a] = h
        fd[:, a] = (problem.evaluate(alpha + e)[1] - problem.evaluate(alpha - e)[1]) / (2 * h)
    # g = grad_alpha h, so -dg/dalpha = Y H Y
    np.testing.assert_allclose(np.outer(y, y) * H, -0.5 * (fd + fd.T), rtol=0,
                               atol=1e-6 * np.abs(H).max())


# ---------------------------------------------------------------------------
# the step's program with one-signed variables
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_one_signed_box_qp_is_libsvm_s_svc_and_meets_kkt(seed):
    """With c = y and signs y the program is the SVC dual in u = y o alpha:
    max 1^T alpha - 1/2 alpha^T Y G Y alpha, 0 <= alpha <= C, y^T alpha = 0."""
    rng = np.random.default_rng(seed)
    n = 26
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    G = gaussian_kernel(X, sigma=[0.3, 1.0, 3.0][seed % 3]) + 1e-3 * np.eye(n)
    C = [0.05, 2.0, 50.0][seed // 2]
    out = box_qp(G, y.copy(), np.zeros(n), C, np.zeros(n, dtype=int), signs=y, max_iter=200)
    assert out is not None, "the places settle from a cold start"
    v, nu, lab, _ = out
    ref = SVC(kernel="precomputed", C=C, tol=1e-12).fit(G, y)
    w = np.zeros(n)
    w[ref.support_] = ref.dual_coef_[0]   # y_i alpha_i
    np.testing.assert_allclose(v, w, atol=1e-5 * C)
    # feasible: each variable on its label's side, the box, the equality
    assert np.all(y * v >= 0) and np.all(y * v <= C) and abs(v.sum()) < 1e-10 * C * n
    r = y - G @ v - nu
    free = np.abs(lab) == 1
    np.testing.assert_allclose(r[free], 0.0, atol=1e-9)
    # at 0 the reduced gradient may only point away from the label's side
    zero = lab == AT_ZERO
    assert np.all(y[zero] * r[zero] <= 1e-9)
    assert np.all(r[lab == AT_UPPER] >= -1e-9)


def test_one_signed_box_qp_with_any_linear_term_beats_slsqp():
    rng = np.random.default_rng(11)
    n, C = 18, 1.5
    A = rng.normal(size=(n, n))
    G = A @ A.T / n + 0.05 * np.eye(n)
    c = 2 * rng.normal(size=n)
    signs = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
    v, nu, lab, _ = box_qp(G, c, np.zeros(n), C, np.zeros(n, dtype=int), signs=signs)
    assert np.all(signs * v >= 0) and np.all(signs * v <= C) and abs(v.sum()) < 1e-10
    value = float(c @ v - 0.5 * v @ G @ v)
    bounds = [(0, C) if s > 0 else (-C, 0) for s in signs]
    for x0 in (np.zeros(n), v):
        res = minimize(lambda x: -(c @ x - 0.5 * x @ G @ x), x0, method="SLSQP",
                       bounds=bounds, constraints=[{"type": "eq", "fun": lambda x: x.sum()}],
                       options={"maxiter": 500, "ftol": 1e-14})
        assert -res.fun <= value + 1e-7


def test_signs_of_zero_are_the_two_sided_program_bit_for_bit():
    rng = np.random.default_rng(2)
    n = 15
    X = rng.normal(size=(n, 2))
    G = gaussian_kernel(X, sigma=0.7) + 1e-3 * np.eye(n)
    c, eps = rng.normal(size=n), np.full(n, 0.05)
    a = box_qp(G, c, eps, 1.0, np.zeros(n, dtype=int))
    b = box_qp(G, c, eps, 1.0, np.zeros(n, dtype=int), signs=np.zeros(n))
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_newton_reaches_algorithm1_and_projected_gradient():
    problem, X, y = _svm_problem(n=20, C=5.0, eta=1.0, tau=0.01, sigma=0.5)
    n = problem.n
    L = problem.lipschitz(np.linalg.eigvalsh(problem.K)[-1])
    ref = SOLVERS["nesterov"](problem, np.zeros(n), L, max_iter=100000, tol=1e-7)
    pg = SOLVERS["pg"](problem, np.zeros(n), L, max_iter=100000, tol=1e-7)
    assert ref.converged and pg.converged
    for start in (np.zeros(n), ref.beta):
        fast = solve_newton(problem, start, L, max_iter=100, tol=1e-8)
        assert fast.converged
        assert fast.objective >= max(ref.objective, pg.objective) - 1e-12
        assert fast.objective == pytest.approx(ref.objective, rel=1e-6)
        assert fast.objective == pytest.approx(pg.objective, rel=1e-6)
        assert fast.n_iter < ref.n_iter / 50
        _assert_kkt(problem, fast.beta)


@pytest.mark.parametrize("C, eta, tau, sigma", [
    (1000.0, 15.0, 0.015, 0.2),    # the Classification page's slowest first-order fit
    (2.0, 1.5, 0.02, 0.2),         # a narrow kernel, a moderate C
    (20.0, 2.0, 0.0015, 0.3),
    pytest.param(150.0, 2e4, 0.00015, 0.5,  # large eta: F o K close to an
                 marks=pytest.mark.slow),     # ill-conditioned K (SLSQP takes 7 s)
    (50.0, 0.02, 0.00015, 0.3),    # small eta: F far from 11^T
    (0.05, 100.0, 0.1, 1.0),       # almost every point at C
])
def test_newton_reaches_slsqp_and_a_long_accelerated_solve(C, eta, tau, sigma):
    problem, X, y = _svm_problem(n=40, C=C, eta=eta, tau=tau, sigma=sigma)
    n = problem.n
    L = problem.lipschitz(np.linalg.eigvalsh(problem.K)[-1])
    alpha0, _ = _plain_svm(C, sigma, X, y)
    fast = solve_newton(problem, alpha0, L, max_iter=200, tol=1e-8)
    assert fast.converged and fast.n_iter < 40
    long = SOLVERS["apg"](problem, np.zeros(n), L, max_iter=20000, tol=1e-10)
    slsqp = _slsqp_max(problem, [np.zeros(n), fast.beta])
    # Newton's h is the highest (the others stop short of the optimum, never beyond it)
    for other in (long.objective, slsqp):
        assert fast.objective >= other - 1e-9 * abs(fast.objective)
        assert fast.objective == pytest.approx(other, rel=1e-7)
    h, g, _ = problem.evaluate(fast.beta)
    assert h == pytest.approx(fast.objective, rel=1e-12)  # the true h of the point
    _assert_kkt(problem, fast.beta)
    # the Frank-Wolfe certificate by an independent linear program
    lp = linprog(-g, A_eq=y[None], b_eq=[0.0], bounds=[(0, C)] * n)
    assert -lp.fun - g @ fast.beta <= 1e-6 * abs(h)


def test_an_optimal_start_ends_in_one_step():
    """A small C puts every point at C in the plain SVM, which is then DANK's optimum
    too (the step's program is singular there: every variable at a bound, a nearly
    constant kernel): one iteration, at the start, with its KKT conditions."""
    problem, X, y = _svm_problem(n=40, C=0.02, eta=5.0, tau=0.2, sigma=7.0)
    alpha0, _ = _plain_svm(0.02, 7.0, X, y)
    res = solve_newton(problem, alpha0, 1.0, max_iter=50, tol=1e-4)
    assert res.converged and res.n_iter == 1
    np.testing.assert_allclose(res.beta, problem.project(alpha0), atol=1e-12)
    _assert_kkt(problem, res.beta)


def test_estimator_records_every_iteration_and_never_descends():
    X, y = _clowns(60, seed=3)
    calls = []
    m = DANKClassifier(C=100.0, sigma=0.3, eta=2.0, tau=0.005,
                       callback=lambda it, state, t: calls.append((it, state["objective"])))
    m.fit(X, y)
    assert_newton_history(m, calls)
    assert m.n_iter_ >= 3 and np.all(m.history_["rank"] >= 1)
    np.testing.assert_array_equal(m.snapshots_[-1]["alpha"], m.alpha_)
    # the fitted model is the SVM form's: alpha in the box, y^T alpha = 0
    assert m.alpha_.min() >= 0 and m.alpha_.max() <= 100.0
    assert abs(m.alpha_ @ np.where(y > 0, 1.0, -1.0)) < 1e-8


def test_callback_stops_and_max_iter_warns():
    X, y = _clowns(50, seed=4)
    kw = dict(C=1000.0, sigma=0.2, eta=15.0, tau=0.015, solver="newton")
    assert_callback_stops_and_max_iter_warns(DANKClassifier, X, y, **kw)


def test_matches_scikit_learn_svc_as_eta_grows():
    """tau = 0 and eta -> infinity: F -> 11^T, DANK in SVM is the plain SVM (the same
    dual and decision values to the SVC's own tolerance)."""
    X, y = _clowns(60, seed=0)
    svc = SVC(C=10.0, gamma=sigma_to_gamma(0.5), tol=1e-10).fit(X, y)
    lim = DANKClassifier(C=10.0, sigma=0.5, eta=1e9, tau=0.0, solver="newton",
                         tol=1e-8).fit(X, y)
    assert lim.converged_
    u = np.zeros(60)
    u[svc.support_] = svc.dual_coef_[0]
    np.testing.assert_allclose(lim.dual_u_, u, atol=1e-4)
    np.testing.assert_allclose(lim.F_, 1.0, atol=1e-6)
    Xt = np.random.default_rng(1).normal(size=(50, 2))
    np.testing.assert_allclose(lim.decision_function(Xt, extension="smooth"),
                               svc.decision_function(Xt), atol=1e-4)


def test_warm_start_refit_reaches_the_cold_optimum():
    X, y = _clowns(50, seed=5)
    warm = DANKClassifier(C=5.0, sigma=0.4, eta=3.0, tau=0.01, warm_start=True,
                          solver="newton")
    warm.fit(X, y)
    warm.set_params(C=50.0).fit(X, y)
    cold = DANKClassifier(C=50.0, sigma=0.4, eta=3.0, tau=0.01, solver="newton").fit(X, y)
    assert warm.converged_ and cold.converged_
    assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-9)
    np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X),
                               atol=1e-5)


def test_auto_is_newton_on_the_page_s_size_and_agrees_with_the_accelerated_solver():
    X, y = _clowns(140, seed=2)
    assert 140 <= AUTO_SVM_NEWTON_MAX_N
    kw = dict(C=20.0, sigma=0.3, eta=2.0, tau=0.0015)
    auto = DANKClassifier(**kw).fit(X, y)
    apg = DANKClassifier(solver="apg", **kw).fit(X, y)
    assert auto.solver_ == "newton" and apg.solver_ == "apg"
    assert auto.n_iter_ < apg.n_iter_
    # the accelerated solver stops within 1e-7 of h (its Frank-Wolfe gap); Newton at
    # least as high
    assert auto.objective_ >= apg.objective_ - 1e-10 * abs(apg.objective_)
    assert auto.objective_ == pytest.approx(apg.objective_, rel=1e-6)
    np.testing.assert_array_equal(auto.predict(X), apg.predict(X))
