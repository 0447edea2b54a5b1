"""DANK-SVR by Newton's method: the exact Hessian against a dense reference and finite
differences, the box-constrained step against libsvm and its KKT conditions, and the
solver against Algorithm 1, projected gradient, SLSQP and scikit-learn's SVR, with its
history, stop rules and invariants (large eta included)."""


import numpy as np
import pytest
from _dank_references import (
    assert_callback_stops_and_max_iter_warns,
    assert_newton_history,
    dense_F,
    dense_grad_f,
    dense_hessian,
    slsqp_max,
)
from scipy.optimize import linprog, minimize
from sklearn.svm import SVR

from nplk_core import DANKRegressor
from nplk_core._dank_core import SOLVERS, DankProblem
from nplk_core._dank_newton import (
    AT_LOWER,
    AT_UPPER,
    FREE_NEG,
    FREE_POS,
    box_qp,
    dank_hessian,
    labels_of,
    solve_newton,
)
from nplk_core.dank import (
    AUTO_SVM_NEWTON_MAX_N,
    AUTO_SVR_NEWTON_MAX_N,
    _DANKBase,
    _plain_svm,
)
from nplk_core.datasets import make_step
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma

# ---------------------------------------------------------------------------
# references written here
# ---------------------------------------------------------------------------


def _svr_problem(n=30, C=1.0, eta=2.0, tau=0.01, eps=0.1, sigma=0.5, seed=1):
    X, y = make_step(n, noise=0.05, random_state=seed)
    K = gaussian_kernel(X, sigma=sigma)
    return DankProblem(K, None, np.r_[y - eps, -y - eps], C, eta, tau), X, y


def _slsqp_max(problem, starts):
    """SLSQP on -h over the stacked variable with the box and the equality."""
    return slsqp_max(problem, starts, problem.proj_labels)


def _assert_kkt(problem, beta, rtol=1e-6):
    """Feasible, complementary halves, and the KKT conditions of h in u = a_hat - a_check:
    one multiplier nu with g_i - nu = eps sign(u_i) where 0 < |u_i| < C, |g_i - nu| <= eps
    where u_i = 0, and the outward sign at +-C (g = y - (F o K) u)."""
    n, C = problem.n, problem.C
    ah, ac = beta[:n], beta[n:]
    assert ah.min() >= 0 and ac.min() >= 0 and max(ah.max(), ac.max()) <= C
    assert np.all(np.minimum(ah, ac) == 0)
    u = ah - ac
    assert abs(u.sum()) <= 1e-9 * max(C, 1.0) * n
    _, g2, _ = problem.evaluate(beta)
    eps = -0.5 * (problem.linear[:n] + problem.linear[n:])
    g = 0.5 * (g2[:n] - g2[n:])
    scale = max(1.0, np.abs(g).max())
    slack = 1e-9 * C
    free = (np.abs(u) > slack) & (np.abs(u) < C - slack)
    if free.any():
        nu = float(np.median(g[free] - eps[free] * np.sign(u[free])))
    else:  # middle of the interval the fixed ones allow
        nu = float(np.median(g))
    r = g - nu
    tol = rtol * scale
    assert np.all(np.abs(r[free] - eps[free] * np.sign(u[free])) <= tol)
    zero = np.abs(u) <= slack
    assert np.all(np.abs(r[zero]) <= eps[zero] + tol)
    assert np.all(r[u >= C - slack] >= eps[u >= C - slack] - tol)
    assert np.all(r[u <= -C + slack] <= -eps[u <= -C + slack] + tol)


# ---------------------------------------------------------------------------
# the Hessian
# ---------------------------------------------------------------------------

# (sigma, eta, tau, share of points in the support): a small and a large rank of F
# (both of the Hessian's routes), tau = 0, every point in the support, one point
HESSIAN_CASES = [(0.5, 2.0, 0.01, 0.5), (0.5, 0.01, 0.01, 0.7), (0.3, 1e5, 0.1, 1.0),
                 (1.0, 0.05, 0.0, 0.6), (0.2, 0.003, 1e-4, 1.0), (0.5, 0.3, 2.0, 0.3),
                 (0.7, 1.0, 0.05, 0.04)]


@pytest.mark.parametrize("sigma, eta, tau, share", HESSIAN_CASES)
def test_hessian_matches_the_dense_formula_and_finite_differences(sigma, eta, tau, share):
    n = 24
    X, _ = make_step(n, noise=0.05, random_state=0)
    K = gaussian_kernel(X, sigma=sigma)
    rng = np.random.default_rng(3)
    u = rng.uniform(-3, 3, n) * (rng.uniform(size=n) < share)
    if not np.any(u):
        u[5] = 1.3
    H = dank_hessian(u, K, eta, tau)
    ref = dense_hessian(u, K, eta, tau)
    np.testing.assert_allclose(H, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    # central differences of (F o K) u, from the dense F: the Hessian of -f
    h = 1e-6
    fd = np.empty((n, n))
    for a in range(n):
        e = np.zeros(n)
        e[a] = h
        fd[:, a] = (dense_grad_f(u + e, K, eta, tau) - dense_grad_f(u - e, K, eta, tau)) / (2 * h)
    np.testing.assert_allclose(H, 0.5 * (fd + fd.T), rtol=0, atol=1e-6 * np.abs(H).max())
    # minus the Hessian of a concave function
    assert np.linalg.eigvalsh(H).min() >= -1e-9 * np.abs(H).max()


def test_hessian_at_zero_is_the_thresholded_kernel():
    X, _ = make_step(12, noise=0.05, random_state=0)
    K = gaussian_kernel(X, sigma=0.5)
    np.testing.assert_allclose(dank_hessian(np.zeros(12), K, 3.0, 0.4),
                               (12 - 0.2) / 12 * K)


def test_hessian_curvature_of_F_fades_as_eta_grows():
    """D is O(1/eta): at eta = 1e5 the Hessian is F o K to 1e-4 of its size, at eta = 1
    it is not (the curvature the fixed-F model misses)."""
    X, _ = make_step(20, noise=0.05, random_state=1)
    K = gaussian_kernel(X, sigma=0.5)
    u = np.linspace(-2, 2, 20)
    for eta, small in ((1e5, True), (1.0, False)):
        H = dank_hessian(u, K, eta, 0.01)
        FK = dense_F(u, K, eta, 0.01) * K
        rel = np.abs(H - FK).max() / np.abs(FK).max()
        assert (rel < 1e-4) == small, (eta, rel)


# ---------------------------------------------------------------------------
# the step's quadratic program
# ---------------------------------------------------------------------------

def _qp_value(G, c, eps, v):
    return float(c @ v - 0.5 * v @ G @ v - eps @ np.abs(v))


@pytest.mark.parametrize("seed", range(6))
def test_box_qp_is_libsvm_s_maximiser_and_meets_kkt(seed):
    rng = np.random.default_rng(seed)
    n = 25
    X = rng.normal(size=(n, 2))
    G = gaussian_kernel(X, sigma=[0.3, 1.0, 3.0][seed % 3]) + 1e-3 * np.eye(n)
    c = rng.normal(size=n) * 2
    eps_val, C = [0.0, 0.1, 0.5][seed % 3], [0.5, 2.0, 20.0][seed // 2]
    eps = np.full(n, eps_val)
    out = box_qp(G, c, eps, C, np.zeros(n, dtype=int), max_iter=200)
    assert out is not None, "the places settle from a cold start"
    v, nu, lab, passes = out
    ref = SVR(kernel="precomputed", C=C, epsilon=eps_val, tol=1e-10).fit(G, c)
    w = np.zeros(n)
    w[ref.support_] = ref.dual_coef_[0]
    assert _qp_value(G, c, eps, v) >= _qp_value(G, c, eps, w) - 1e-8
    np.testing.assert_allclose(v, w, atol=1e-5 * C)
    # KKT by hand: feasibility, stationarity on the free set, signs elsewhere
    assert np.abs(v).max() <= C and abs(v.sum()) < 1e-10 * C * n
    r = c - G @ v - nu
    free = np.abs(lab) == 1
    np.testing.assert_allclose(r[free], eps[free] * lab[free], atol=1e-9)
    assert np.all(np.abs(r[lab == 0]) <= eps[lab == 0] + 1e-9)
    assert np.all(r[lab == AT_UPPER] >= eps[lab == AT_UPPER] - 1e-9)
    assert np.all(r[lab == AT_LOWER] <= -eps[lab == AT_LOWER] + 1e-9)
    assert set(np.unique(labels_of(v, C))) <= {AT_LOWER, FREE_NEG, 0, FREE_POS, AT_UPPER}


def test_box_qp_with_a_point_dependent_tube_meets_kkt():
    rng = np.random.default_rng(7)
    n, C = 20, 3.0
    A = rng.normal(size=(n, n))
    G = A @ A.T / n + 0.1 * np.eye(n)
    c = rng.normal(size=n)
    eps = rng.uniform(0, 0.5, n)
    v, nu, lab, _ = box_qp(G, c, eps, C, np.zeros(n, dtype=int))
    r = c - G @ v - nu
    free = np.abs(lab) == 1
    np.testing.assert_allclose(r[free], eps[free] * lab[free], atol=1e-9)
    assert np.all(np.abs(r[lab == 0]) <= eps[lab == 0] + 1e-9)
    # and no feasible point does better: SLSQP from the answer and from 0
    cons = [{"type": "eq", "fun": lambda x: x.sum()}]
    for x0 in (np.zeros(n), v):
        res = minimize(lambda x: -_qp_value(G, c, eps, x), x0, method="SLSQP",
                       bounds=[(-C, C)] * n, constraints=cons,
                       options={"maxiter": 500, "ftol": 1e-14})
        assert -res.fun <= _qp_value(G, c, eps, v) + 1e-7


def test_box_qp_gives_up_rather_than_answering_wrong_on_a_singular_program():
    """A rank-one G with every variable free: the system is singular, so the step reports
    no answer (the solver then damps); it never returns a point that breaks KKT."""
    n = 10
    g = np.linspace(1, 2, n)
    G = np.outer(g, g)
    c = np.linspace(-1, 1, n)
    out = box_qp(G, c, np.zeros(n), 100.0, np.ones(n, dtype=int))
    if out is not None:
        v, nu, lab, _ = out
        r = c - G @ v - nu
        free = np.abs(lab) == 1
        np.testing.assert_allclose(r[free], 0.0, atol=1e-8)


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_newton_reaches_algorithm1_and_projected_gradient():
    problem, X, y = _svr_problem(n=20)
    n = problem.n
    L = problem.lipschitz(np.linalg.eigvalsh(problem.K)[-1])
    ref = SOLVERS["nesterov"](problem, np.zeros(2 * n), L, max_iter=100000, tol=1e-7)
    pg = SOLVERS["pg"](problem, np.zeros(2 * n), L, max_iter=100000, tol=1e-7)
    for start in (np.zeros(2 * n), ref.beta):
        fast = solve_newton(problem, start, L, max_iter=100, tol=1e-8)
        assert ref.converged and pg.converged and fast.converged
        assert fast.objective >= max(ref.objective, pg.objective) - 1e-12
        assert fast.objective == pytest.approx(ref.objective, rel=1e-6)
        assert fast.objective == pytest.approx(pg.objective, rel=1e-6)
        assert fast.n_iter < ref.n_iter / 50
        _assert_kkt(problem, fast.beta)


@pytest.mark.slow
@pytest.mark.parametrize("C, eta, tau, eps, sigma", [
    (200.0, 0.3, 0.0015, 0.02, 0.2),   # narrow kernel, large C, small eta
    (20.0, 500.0, 0.003, 0.1, 0.2),    # large eta: the slow corner of the first order
    (15.0, 1e5, 0.007, 0.0015, 0.7),   # eta at the slider's end, a tiny tube
    (0.02, 1000.0, 0.07, 0.05, 1.0),   # almost every point at +-C
])
def test_newton_reaches_slsqp_and_a_long_accelerated_solve(C, eta, tau, eps, sigma):
    problem, X, y = _svr_problem(C=C, eta=eta, tau=tau, eps=eps, sigma=sigma)
    n = problem.n
    L = problem.lipschitz(np.linalg.eigvalsh(problem.K)[-1])
    beta0, _ = _plain_svm(C, sigma, X, y, regression=True, epsilon=eps)
    fast = solve_newton(problem, beta0, L, max_iter=200, tol=1e-8)
    assert fast.converged and fast.n_iter < 40
    long = SOLVERS["apg"](problem, np.zeros(2 * n), L, max_iter=20000, tol=1e-10)
    slsqp = _slsqp_max(problem, [np.zeros(2 * n), fast.beta])
    # Newton's h is the highest (the others stop short of the optimum, never beyond it)
    # and they agree to their own accuracy
    for other in (long.objective, slsqp):
        assert fast.objective >= other - 1e-9 * abs(fast.objective)
        assert fast.objective == pytest.approx(other, rel=1e-7)
    h, g, _ = problem.evaluate(fast.beta)
    assert h == pytest.approx(fast.objective, rel=1e-12)  # the true h of the point
    _assert_kkt(problem, fast.beta)
    lp = linprog(-g, A_eq=problem.proj_labels[None], b_eq=[0.0], bounds=[(0, C)] * (2 * n))
    assert -lp.fun - g @ fast.beta <= 1e-6 * abs(h)


def test_large_eta_needs_few_newton_iterations_where_the_first_order_crawls():
    """eta = 1e5, the slider's end (the lab's slowest corner before): Newton stops in a
    handful of iterations at the optimum; the accelerated solver, from the same start,
    takes many times more iterations and stops lower."""
    problem, X, y = _svr_problem(n=40, C=20.0, eta=1e5, tau=0.015, eps=0.015, sigma=0.15)
    beta0, _ = _plain_svm(20.0, 0.15, X, y, regression=True, epsilon=0.015)
    newton = solve_newton(problem, beta0, 1.0, max_iter=100, tol=1e-4)
    apg = SOLVERS["apg"](problem, beta0, problem.lipschitz(40.0), max_iter=20000, tol=1e-4)
    assert newton.converged and newton.n_iter <= 15
    assert apg.n_iter > 3 * newton.n_iter
    assert newton.objective >= apg.objective - 1e-12 * abs(apg.objective)
    _assert_kkt(problem, newton.beta)


def test_estimator_records_every_iteration_and_never_descends():
    X, y = make_step(60, noise=0.1, random_state=3)
    calls = []
    m = DANKRegressor(C=50.0, sigma=0.7, epsilon=0.02, eta=3000.0, tau=0.1,
                      callback=lambda it, state, t: calls.append((it, state["objective"])))
    m.fit(X, y)
    assert_newton_history(m, calls)
    its = [snap["iteration"] for snap in m.snapshots_]
    assert its[0] == 0 and its[-1] == m.n_iter_ - 1
    np.testing.assert_array_equal(m.snapshots_[-1]["alpha"], m.beta_)


def test_callback_stops_and_max_iter_warns():
    X, y = make_step(50, noise=0.1, random_state=4)
    kw = dict(C=100.0, sigma=1.0, epsilon=0.15, eta=3000.0, tau=1.5, solver="newton")
    assert_callback_stops_and_max_iter_warns(DANKRegressor, X, y, **kw)


def test_matches_scikit_learn_svr_as_eta_grows():
    """tau = 0 and eta -> infinity: F -> 11^T + Gamma -> 11^T, DANK-SVR is the plain SVR
    (same dual up to the SVR's own tolerance)."""
    X, y = make_step(60, noise=0.05, random_state=0)
    svr = SVR(C=10.0, gamma=sigma_to_gamma(0.5), epsilon=0.05, tol=1e-10).fit(X, y)
    lim = DANKRegressor(C=10.0, sigma=0.5, epsilon=0.05, eta=1e9, tau=0.0,
                        solver="newton", tol=1e-8).fit(X, y)
    assert lim.converged_
    u = np.zeros(60)
    u[svr.support_] = svr.dual_coef_[0]
    np.testing.assert_allclose(lim.alpha_, u, atol=1e-4)
    Xt = np.linspace(-5, 5, 57)[:, None]
    np.testing.assert_allclose(lim.predict(Xt), svr.predict(Xt), atol=1e-4)


def test_warm_start_refit_reaches_the_cold_optimum():
    X, y = make_step(50, noise=0.1, random_state=5)
    warm = DANKRegressor(C=5.0, sigma=0.5, epsilon=0.05, eta=100.0, warm_start=True)
    warm.fit(X, y)
    warm.set_params(C=20.0).fit(X, y)
    cold = DANKRegressor(C=20.0, sigma=0.5, epsilon=0.05, eta=100.0).fit(X, y)
    assert warm.solver_ == cold.solver_ == "newton"
    assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-9)


def test_newton_needs_the_equality_constraint():
    """The step's program keeps 1^T u = 0: the scalable decomposition's box alone (no
    bias) is refused with a clear error, not solved wrongly."""
    X, _ = make_step(20, noise=0.1, random_state=0)
    labels = np.where(np.arange(20) % 2 == 0, 1.0, -1.0)
    problem = DankProblem(gaussian_kernel(X), labels, np.ones(20), 1.0, 1.0, 0.0, bias=False)
    with pytest.raises(ValueError, match="apg"):
        solve_newton(problem, np.zeros(20), 1.0, max_iter=5, tol=1e-4)


def test_auto_is_newton_up_to_its_size_and_accelerated_beyond():
    class _Stub:
        svr, bias = True, True

    def stub(svr, n, bias=True):
        s = _Stub()
        s.svr, s.n, s.bias = svr, n, bias
        return s

    assert _DANKBase._auto_solver(stub(True, AUTO_SVR_NEWTON_MAX_N)) == "newton"
    assert _DANKBase._auto_solver(stub(True, AUTO_SVR_NEWTON_MAX_N + 1)) == "apg"
    assert _DANKBase._auto_solver(stub(False, AUTO_SVM_NEWTON_MAX_N)) == "newton"
    assert _DANKBase._auto_solver(stub(False, AUTO_SVM_NEWTON_MAX_N + 1)) == "apg"
    assert _DANKBase._auto_solver(stub(False, 10, bias=False)) == "apg"


def test_a_capped_svr_start_reaches_the_same_optimum():
    """With eta given, Newton's method starts from the plain SVR stopped after
    START_SMO_STEPS_PER_POINT libsvm steps per point (a feasible point: SMO keeps the
    box and the equality): at an ill-conditioned setting where the SVR needs many more
    steps, the optimum is the one reached from the SVR's own dual vector."""
    from nplk_core.dank import START_SMO_STEPS_PER_POINT

    X, y = make_step(80, noise=0.05, random_state=0)
    kw = dict(C=700.0, sigma=0.5, epsilon=0.0015, tau=0.15, eta=0.005)
    full = SVR(C=700.0, gamma=sigma_to_gamma(0.5), epsilon=0.0015).fit(X, y)
    assert full.n_iter_ > START_SMO_STEPS_PER_POINT * 80  # the cap binds here
    m = DANKRegressor(**kw).fit(X, y)
    assert m.solver_ == "newton" and m.converged_
    problem = DankProblem(gaussian_kernel(X, sigma=0.5), None,
                          np.r_[y - 0.0015, -y - 0.0015], 700.0, 0.005, 0.15)
    beta0, _ = _plain_svm(700.0, 0.5, X, y, regression=True, epsilon=0.0015)
    ref = solve_newton(problem, beta0, 1.0, max_iter=100, tol=1e-4)
    assert m.objective_ == pytest.approx(ref.objective, rel=1e-9)
