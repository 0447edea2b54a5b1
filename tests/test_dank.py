"""DANK (*Learning Data-adaptive Non-parametric Kernels*): closed forms, dense references,
finite differences, scikit-learn equivalences and invariants.

Long (about 600 lines) because each of the four solvers and both tasks is checked
against its own reference written here (dense formulas, SLSQP, linprog, SVC/SVR)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog, minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, SVR
from sklearn.utils.estimator_checks import parametrize_with_checks

from nplk_core import DANKClassifier, DANKRegressor
from nplk_core._dank_core import (
    SOLVERS,
    DankProblem,
    LowRankInner,
    _shrink_start,
    _SvrOracle,
    inner_F,
    linear_max,
    penalty_terms,
    quad_grad,
)
from nplk_core.dank import _lazy_factor, _plain_svm, nearest_index, reciprocal_index
from nplk_core.datasets import make_clowns, make_moons, make_step
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma
from nplk_core.scalable import (
    block_F,
    fit_scalable,
    gradient_bar,
    nearest_center,
    q_pi,
    scalable_decision,
    screen_non_support,
    theorem6_bound,
)
from nplk_core.spectral import pivoted_cholesky, svt


@pytest.fixture(scope="module")
def clowns():
    X, y = make_clowns(200, random_state=0)
    return X, y.astype(float)


def _random_alpha(n, seed, frac=0.3, C=1.0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, C, n) * (rng.uniform(size=n) < frac)
    return a


def _dense_h(alpha, y, K, eta, tau):
    """The slow dense reference: n x n SVT and the objective of eq. (4)."""
    u = y * alpha
    n = y.size
    F = svt(np.ones((n, n)) + np.outer(u, u) * K / (4 * eta), tau / 2)[0]
    H = alpha.sum() - 0.5 * u @ ((F * K) @ u) + eta * np.sum((F - 1) ** 2) \
        + tau * eta * np.trace(F)
    return H, F, 1 - y * ((F * K) @ u)


# ---------------------------------------------------------------------------
# F(alpha), h and its gradient against dense references
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("tau", [0.0, 0.01, 0.5])
def test_inner_F_matches_dense_svt_and_optimality(clowns, tau):
    X, y = clowns
    X, y = X[:80], y[:80]
    K = gaussian_kernel(X, sigma=1.0)
    eta = 3.0
    a = _random_alpha(80, 1)
    u = y * a
    H_ref, F_ref, g_ref = _dense_h(a, y, K, eta, tau)
    inner = inner_F(u, K, eta, tau)
    F = inner.dense()
    np.testing.assert_allclose(F, F_ref, atol=1e-12)
    # first-order optimality of the inner problem:
    # F - 11^T - Gamma + (tau/2) I = Z / (2 eta), Z PSD, Z F = 0
    Gamma = np.outer(u, u) * K / (4 * eta)
    Z = F - 1.0 - Gamma + 0.5 * tau * np.eye(80)
    assert np.linalg.eigvalsh(Z).min() > -1e-10
    np.testing.assert_allclose(Z @ F, 0.0, atol=1e-9)
    assert np.linalg.eigvalsh(F).min() > -1e-10
    fro, nuc = penalty_terms(inner)
    assert fro == pytest.approx(np.sum((F_ref - 1) ** 2), rel=1e-10, abs=1e-10)
    assert nuc == pytest.approx(np.trace(F_ref), rel=1e-10)
    np.testing.assert_allclose(quad_grad(inner, u, K), (F_ref * K) @ u, atol=1e-10)
    problem = DankProblem(K, y, np.ones(80), 1.0, eta, tau)
    h, g, _ = problem.evaluate(a)
    assert h == pytest.approx(H_ref, rel=1e-12)
    np.testing.assert_allclose(g, g_ref, atol=1e-10)


def test_low_rank_path_matches_exact(clowns):
    X, y = clowns
    K = gaussian_kernel(X, sigma=1.0)
    Phi, _ = pivoted_cholesky(K, tol=1e-12)
    a = _random_alpha(200, 2, frac=0.9)
    exact = DankProblem(K, y, np.ones(200), 1.0, 20.0, 0.01)
    fast = DankProblem(K, y, np.ones(200), 1.0, 20.0, 0.01, factor=Phi, factor_ratio=1.0)
    h1, g1, i1 = exact.evaluate(a)
    h2, g2, i2 = fast.evaluate(a)
    assert isinstance(i2, LowRankInner)
    assert h2 == pytest.approx(h1, rel=1e-10)
    np.testing.assert_allclose(g2, g1, atol=1e-8)
    np.testing.assert_allclose(i2.dense(), i1.dense(), atol=1e-10)
    np.testing.assert_allclose(i2.eigvals, i1.eigvals, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["svm", "svr", "lowrank"])
def test_gradient_matches_finite_differences(clowns, kind):
    X, y = clowns
    n = 60 if kind != "lowrank" else 200
    X, y = X[:n], y[:n]
    K = gaussian_kernel(X, sigma=1.0)
    rng = np.random.default_rng(3)
    if kind == "svr":
        target = rng.normal(size=n)
        problem = DankProblem(K, None, np.r_[target - 0.1, -target - 0.1], 1.0, 2.0, 0.01)
        beta = np.r_[_random_alpha(n, 4), _random_alpha(n, 5)]
    else:
        factor = pivoted_cholesky(K, tol=1e-13)[0] if kind == "lowrank" else None
        problem = DankProblem(K, y, np.ones(n), 1.0, 2.0, 0.01, factor=factor,
                              factor_ratio=1.0)
        beta = _random_alpha(n, 4, frac=0.95 if kind == "lowrank" else 0.4)
    h, g, _ = problem.evaluate(beta)
    # directional derivatives along random directions that keep the support (h is
    # smooth; along a fixed support the finite difference is clean)
    for k in range(5):
        d = rng.normal(size=beta.size) * (beta != 0)
        eps = 1e-6
        hp = problem.evaluate(beta + eps * d, gradient=False)[0]
        hm = problem.evaluate(beta - eps * d, gradient=False)[0]
        fd = (hp - hm) / (2 * eps)
        assert fd == pytest.approx(g @ d, rel=1e-5, abs=1e-6), k


# ---------------------------------------------------------------------------
# solvers
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_all_solvers_reach_the_same_h(clowns):
    X, y = clowns
    X, y = X[::2], y[::2]  # n = 100 keeps projected gradient affordable
    K = gaussian_kernel(X, sigma=1.0)
    eta = 10.0
    problem = DankProblem(K, y, np.ones(100), 1.0, eta, 0.01)
    L = problem.lipschitz(np.linalg.eigvalsh(K)[-1])
    results = {}
    for name, solve in SOLVERS.items():
        res = solve(problem, np.zeros(100), L, max_iter=30000, tol=1e-5)
        assert res.converged, name
        results[name] = res.objective
        # every iterate is feasible
        a = res.beta
        assert a.min() >= 0 and a.max() <= 1.0 and abs(a @ y) < 1e-9
    best = max(results.values())
    for name, h in results.items():
        assert h == pytest.approx(best, rel=1e-4), (name, results)
    # h rises from h(0) = n * eta * 0 ... to the optimum: the ascent sign is right
    assert best > problem.evaluate(np.zeros(100))[0] + 1.0


@pytest.mark.slow
def test_monotone_variant_never_decreases_and_ascends(clowns):
    X, y = clowns
    model = DANKClassifier(solver="nesterov-monotone", tol=1e-5).fit(X, y)
    obj = model.history_["objective"]
    assert np.all(np.diff(obj) >= -1e-12)
    fast = DANKClassifier(solver="apg", tol=1e-6).fit(X, y)
    assert model.objective_ == pytest.approx(fast.objective_, rel=1e-4)
    assert np.all(np.diff(fast.history_["objective"]) >= -1e-9)


@pytest.mark.slow
def test_nesterov_estimator_matches_fast_solver_on_clowns(clowns):
    X, y = clowns
    a1 = DANKClassifier(solver="nesterov").fit(X, y)
    a2 = DANKClassifier(solver="auto").fit(X, y)
    assert a2.solver_ == "apg"
    assert a2.objective_ == pytest.approx(a1.objective_, rel=1e-4)
    assert a2.n_iter_ < a1.n_iter_ / 5
    assert np.mean(a1.predict(X) == a2.predict(X)) > 0.99


def test_history_and_invariants(clowns):
    X, y = clowns
    m = DANKClassifier().fit(X, y)
    h = m.history_
    assert {"objective", "step_norm", "rank", "time"} <= set(h)
    lengths = {len(v) for v in h.values()}
    assert lengths == {m.n_iter_}
    assert np.all(np.diff(h["time"]) >= 0)
    assert m.converged_
    ypm = np.where(y == m.classes_[1], 1.0, -1.0)
    assert m.alpha_.min() >= 0 and m.alpha_.max() <= m.C
    assert abs(m.alpha_ @ ypm) < 1e-9
    assert np.linalg.eigvalsh(m.F_).min() > -1e-8
    assert m.rank_ == np.sum(np.linalg.eigvalsh(m.F_) > 1e-9)
    assert h["rank"][-1] == m.rank_
    np.testing.assert_array_equal(m.support_, np.flatnonzero(m.alpha_ > 0))
    spec = m.spectra()
    for key in ("K", "F", "FK"):
        assert spec[key].shape == (200,)
        assert np.all(np.diff(spec[key]) <= 1e-9)
    np.testing.assert_allclose(spec["F"], np.sort(np.linalg.eigvalsh(m.F_))[::-1], atol=1e-8)


def test_eta_to_infinity_gives_the_plain_svm(clowns):
    X, y = make_clowns(80, random_state=5)
    Xt, _ = make_clowns(100, random_state=1)
    m = DANKClassifier(C=1.0, sigma=1.0, eta=1e9, tau=0.0, tol=1e-7, max_iter=20000).fit(X, y)
    svc = SVC(C=1.0, gamma=sigma_to_gamma(1.0), tol=1e-8).fit(X, y)
    np.testing.assert_allclose(m.F_, 1.0, atol=1e-6)
    np.testing.assert_array_equal(m.predict(Xt), svc.predict(Xt))
    np.testing.assert_allclose(m.decision_function(Xt, extension="nearest"),
                               svc.decision_function(Xt), atol=2e-3)
    a_svc = np.zeros(80)
    a_svc[svc.support_] = np.abs(svc.dual_coef_[0])
    np.testing.assert_allclose(m.alpha_, a_svc, atol=2e-3)


@pytest.mark.slow
def test_larger_tau_never_raises_rank(clowns):
    X, y = clowns
    ranks = [DANKClassifier(tau=t, eta=5.0).fit(X, y).rank_ for t in (0, 1e-3, 1e-2, 1e-1, 1)]
    assert all(a >= b for a, b in zip(ranks[:-1], ranks[1:], strict=True)), ranks
    assert ranks[0] > ranks[-1]


def test_eta_auto_is_norm_of_svm_dual(clowns):
    X, y = clowns
    m = DANKClassifier(C=0.5, sigma=0.7).fit(X, y)
    svc = SVC(C=0.5, gamma=sigma_to_gamma(0.7)).fit(X, y)
    assert m.eta_ == pytest.approx(float(np.sum(svc.dual_coef_ ** 2)), rel=1e-6)
    assert m.eta == "auto"  # the user's parameter is never overwritten


def test_callback_stops_and_convergence_warning(clowns):
    X, y = clowns
    seen = []

    def cb(it, state, elapsed):
        seen.append((it, state["objective"], elapsed))
        return it >= 4

    m = DANKClassifier(callback=cb).fit(X, y)
    assert len(seen) == 5 and m.n_iter_ == 5 and not m.converged_
    assert len(m.history_["objective"]) == 5
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        m = DANKClassifier(solver="nesterov", max_iter=3).fit(X, y)
    assert not m.converged_


def test_warm_start_needs_fewer_iterations(clowns):
    X, y = clowns
    m = DANKClassifier(C=1.0, warm_start=True).fit(X, y)
    cold = m.n_iter_
    m.set_params(C=1.05)
    m.fit(X, y)
    assert m.n_iter_ < cold
    ref = DANKClassifier(C=1.05).fit(X, y)
    assert m.objective_ == pytest.approx(ref.objective_, rel=1e-4)


def test_multiclass_is_one_vs_rest():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 4,
              rng.normal(size=(30, 2)) + [4, -4]]
    y = np.repeat([0, 1, 2], 30)
    m = DANKClassifier().fit(X, y)
    assert len(m.estimators_) == 3
    assert m.decision_function(X).shape == (90, 3)
    assert m.score(X, y) > 0.95


# ---------------------------------------------------------------------------
# out-of-sample extension
# ---------------------------------------------------------------------------

def _reciprocal_bruteforce(Xtr, Xte):
    D = ((Xtr[:, None, :] - Xte[None, :, :]) ** 2).sum(-1)
    n, m = D.shape
    out = []
    for j in range(m):
        best, arg = None, None
        for i in range(n):
            r = 1 + np.sum(D[i] < D[i, j])
            s = 1 + np.sum(D[:, j] < D[i, j])
            key = (r * s, s)
            if best is None or key < best:
                best, arg = key, i
        out.append(arg)
    return np.array(out)


def test_reciprocal_and_nearest_index():
    rng = np.random.default_rng(0)
    Xtr, Xte = rng.normal(size=(25, 2)), rng.normal(size=(15, 2))
    np.testing.assert_array_equal(reciprocal_index(Xtr, Xte), _reciprocal_bruteforce(Xtr, Xte))
    np.testing.assert_array_equal(reciprocal_index(Xtr, Xtr), np.arange(25))
    D = ((Xte[:, None] - Xtr[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(nearest_index(Xtr, Xte), D.argmin(1))


def test_decision_on_training_points_uses_learned_kernel(clowns):
    X, y = clowns
    m = DANKClassifier().fit(X, y)
    ypm = np.where(y == m.classes_[1], 1.0, -1.0)
    expected = (m.F_ * m.K_) @ (ypm * m.alpha_) + m.intercept_
    for ext in ("nearest", "reciprocal"):
        np.testing.assert_allclose(m.decision_function(X, extension=ext), expected, atol=1e-9)


# ---------------------------------------------------------------------------
# regression
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_regressor_fits_step_and_matches_svr_in_the_limit():
    X, y = make_step(60, noise=0.05, random_state=0)
    m = DANKRegressor(C=10.0, sigma=0.5, epsilon=0.05).fit(X, y)
    assert m.converged_
    beta = m.beta_
    assert beta.min() >= 0 and beta.max() <= 10.0
    assert abs(beta[:60].sum() - beta[60:].sum()) < 1e-8
    svr = SVR(C=10.0, gamma=sigma_to_gamma(0.5), epsilon=0.05).fit(X, y)
    assert m.score(X, y) >= svr.score(X, y) - 1e-3
    lim = DANKRegressor(C=10.0, sigma=0.5, epsilon=0.05, eta=1e9, tau=0.0, tol=1e-6,
                        max_iter=50000).fit(X, y)
    Xt = np.linspace(-5, 5, 57)[:, None]
    np.testing.assert_allclose(lim.predict(Xt), svr.predict(Xt), atol=2e-2)


@pytest.mark.slow
def test_regressor_solvers_agree():
    X, y = make_step(40, noise=0.05, random_state=1)
    objs = [DANKRegressor(C=5.0, sigma=0.5, solver=s, tol=1e-5, max_iter=20000)
            .fit(X, y).objective_ for s in ("nesterov", "apg")]
    assert objs[0] == pytest.approx(objs[1], rel=1e-4)


# ---------------------------------------------------------------------------
# DANK at scale
# ---------------------------------------------------------------------------

def test_one_cluster_equals_the_exact_box_problem():
    X, y = make_clowns(60, random_state=3)
    y = y.astype(float)
    eta = 8.0
    res = fit_scalable(X, y, n_clusters=1, C=1.0, sigma=1.0, eta=eta, tol=1e-8)
    K = gaussian_kernel(X, sigma=1.0)
    problem = DankProblem(K, y, np.ones(60), 1.0, eta, 0.0, bias=False)
    L = problem.lipschitz(np.linalg.eigvalsh(K)[-1])
    ref = SOLVERS["apg"](problem, np.zeros(60), L, max_iter=20000, tol=1e-9)
    assert res.objective == pytest.approx(ref.objective, rel=1e-7)
    np.testing.assert_allclose(res.alpha, ref.beta, atol=1e-3)
    # the closed-form quartic is H(alpha, F(alpha)) at tau = 0
    assert problem.evaluate(res.alpha)[0] == pytest.approx(res.objective, rel=1e-10)


@pytest.mark.slow
def test_subproblems_run_in_parallel():
    X, y = make_clowns(4000, random_state=0)
    y = y.astype(float)
    fit_scalable(X[:400], y[:400], n_clusters=2, n_jobs=2, eta=50.0, random_state=0)  # pool up
    res = fit_scalable(X, y, n_clusters=8, n_jobs=2, eta=50.0, random_state=0)
    pids = {w[0] for w in res.workers}
    assert len(pids) == 2
    spans = sorted((s, e) for _, s, e in res.workers)
    # at least one pair of sub-problems ran at the same time
    assert any(spans[k + 1][0] < spans[k][1] for k in range(len(spans) - 1))


def test_scalable_classifier_and_theorems():
    X, y = make_moons(160, noise=0.15, random_state=0)
    y = y.astype(float)
    m = DANKClassifier(n_clusters=3, eta=10.0, random_state=0).fit(X, y)
    assert m.score(X, y) > 0.8
    assert set(np.unique(m.cluster_labels_)) == {0, 1, 2}
    res = m.scalable_
    K = gaussian_kernel(X, sigma=1.0)
    ypm = np.where(y == m.classes_[1], 1.0, -1.0)
    exact = fit_scalable(X, ypm, n_clusters=1, eta=10.0, tol=1e-9)
    gap = exact.objective - res.objective
    F_exact = block_F(exact.alpha, ypm, K, 10.0)
    F_bar = block_F(res.alpha, ypm, K, 10.0, labels=res.labels)
    b = theorem6_bound(K, res.labels, 1.0, F_exact, F_bar)
    assert b["Q"] == pytest.approx(q_pi(K, res.labels))
    assert q_pi(K, np.zeros(160, int)) == 0.0
    assert -1e-6 <= gap <= b["bound"]
    # Theorem 7: every certified point is a non-support vector of the whole problem
    mask = screen_non_support(res, B1=b["B1"], B2=b["B2"])
    assert np.all(exact.alpha[mask] < 1e-6)
    assert gradient_bar(res).shape == (160,)


# ---------------------------------------------------------------------------
# scikit-learn contract and bad input
# ---------------------------------------------------------------------------

@pytest.mark.slow
@parametrize_with_checks([DANKClassifier(max_iter=300), DANKRegressor(max_iter=300)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.mark.parametrize("params, match", [
    ({"sigma": 0}, "sigma"), ({"sigma": -1.0}, "sigma"), ({"C": 0}, "C must"),
    ({"eta": 0.0}, "eta"), ({"eta": -2.0}, "eta"), ({"tau": -0.1}, "tau"),
    ({"solver": "magic"}, "solver"), ({"max_iter": 0}, "max_iter"),
    ({"extension": "far"}, "extension"), ({"eta": "big"}, "eta"),
])
def test_bad_parameters(clowns, params, match):
    X, y = clowns
    with pytest.raises(ValueError, match=match):
        DANKClassifier(**params).fit(X, y)


def test_bad_data(clowns):
    X, y = clowns
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DANKClassifier().fit(Xn, y)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DANKClassifier().fit(Xi, y)
    with pytest.raises(ValueError, match="two classes"):
        DANKClassifier().fit(X, np.ones(200))
    with pytest.raises(ValueError, match="sample"):
        DANKClassifier().fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="NaN"):
        DANKRegressor().fit(Xn, y)


# ---------------------------------------------------------------------------
# the accelerated solver: SVR, small eta, large C, the Frank-Wolfe stop
# ---------------------------------------------------------------------------

def _svr_problem(n=30, C=1.0, eta=2.0, tau=0.01, eps=0.1, sigma=0.5, seed=1):
    X, y = make_step(n, noise=0.05, random_state=seed)
    K = gaussian_kernel(X, sigma=sigma)
    return DankProblem(K, None, np.r_[y - eps, -y - eps], C, eta, tau), K


@pytest.mark.slow
def test_svr_apg_reaches_algorithm1_and_long_pg():
    problem, K = _svr_problem()
    n = problem.n
    L = problem.lipschitz(np.linalg.eigvalsh(K)[-1])
    ref = SOLVERS["nesterov"](problem, np.zeros(2 * n), L, max_iter=100000, tol=1e-9)
    pg = SOLVERS["pg"](problem, np.zeros(2 * n), L, max_iter=100000, tol=1e-9)
    fast = SOLVERS["apg"](problem, np.zeros(2 * n), L, max_iter=2000, tol=1e-8)
    assert ref.converged and pg.converged and fast.converged
    assert fast.objective == pytest.approx(ref.objective, rel=1e-6)
    assert fast.objective == pytest.approx(pg.objective, rel=1e-6)
    assert fast.n_iter < ref.n_iter / 10
    # feasible, complementary halves (u-space iterates), and KKT of the stacked problem:
    # the Frank-Wolfe gap, from an LP solved here by scipy, vanishes at the optimum
    b = fast.beta
    assert b.min() >= 0 and b.max() <= problem.C
    assert abs(b[:n].sum() - b[n:].sum()) < 1e-9
    assert np.all(np.minimum(b[:n], b[n:]) == 0)
    h, g, _ = problem.evaluate(b)
    assert h == pytest.approx(fast.objective, rel=1e-12)
    lp = linprog(-g, A_eq=problem.proj_labels[None], b_eq=[0.0],
                 bounds=[(0, problem.C)] * (2 * n))
    assert -lp.fun - g @ b <= 1e-6 * abs(h)
    # the history records the gap certificate; the last one meets the stop rule unless
    # the step rule stopped first
    gaps = fast.log.as_dict()["gap"]
    assert np.isfinite(gaps[-1]) and gaps[-1] >= 0


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["apg", "newton"])
def test_svr_estimator_apg_matches_nesterov_at_1e6(solver):
    X, y = make_step(40, noise=0.05, random_state=2)
    kw = dict(C=1.0, sigma=0.7, epsilon=0.05, eta=5.0, tau=0.01)
    a1 = DANKRegressor(solver="nesterov", tol=1e-8, max_iter=100000, **kw).fit(X, y)
    a2 = DANKRegressor(solver=solver, **kw).fit(X, y)
    assert a2.solver_ == solver and a2.converged_ and a1.converged_
    assert a2.objective_ == pytest.approx(a1.objective_, rel=1e-6)
    np.testing.assert_allclose(a2.predict(X), a1.predict(X), atol=1e-2)


def _slsqp_max(problem, starts):
    """An independent reference: SLSQP on -h with the box and the equality constraint."""
    n = starts[0].size
    best = -np.inf
    for s in starts:
        r = minimize(lambda a: tuple(-v for v in problem.evaluate(a)[:2]), s, jac=True,
                     method="SLSQP", bounds=[(0, problem.C)] * n,
                     constraints=[{"type": "eq", "fun": lambda a: a @ problem.proj_labels,
                                   "jac": lambda a: problem.proj_labels}],
                     options={"maxiter": 1000, "ftol": 1e-15})
        best = max(best, -r.fun)
    return best


def test_svr_plain_step_stop_and_shrunk_start_reach_the_optimum():
    """DANK-SVR at a slider setting of the lab's slow moves (narrow kernel, large C, small
    eta): the accelerated solver starts from the plain SVR's dual, shrunk towards 0 while
    h rises, and stops when a plain proximal gradient step from its iterate is shorter
    than tol. Both shortcuts must leave the optimum where a long solve from 0 and SLSQP
    find it."""
    n, C, eps, sigma, eta, tau = 30, 200.0, 0.02, 0.2, 0.3, 0.0015
    X, y = make_step(n, noise=0.05, random_state=0)
    K = gaussian_kernel(X, sigma=sigma)
    problem = DankProblem(K, None, np.r_[y - eps, -y - eps], C, eta, tau)
    beta0, _ = _plain_svm(C, sigma, X, y, regression=True, epsilon=eps)
    L = problem.lipschitz(np.linalg.eigvalsh(K)[-1])
    # the shrunk start: a power of 1/2 times the SVR's dual, with a far higher h
    oracle = _SvrOracle(problem)
    u0 = oracle.start(beta0)
    h0, f0, g0, inner0 = oracle.evaluate(u0)
    u1, h1 = _shrink_start(oracle, u0, h0, f0, g0, inner0)[:2]
    c = np.linalg.norm(u1) / np.linalg.norm(u0)
    assert c < 0.5 and np.log2(c) == pytest.approx(round(np.log2(c)))
    assert h1 > h0 + 1e6
    fast = SOLVERS["apg"](problem, beta0, L, max_iter=2000, tol=1e-4)
    hist = fast.log.as_dict()
    # it stopped by the plain step: neither the momentum step nor the gap was small
    assert fast.converged and fast.n_iter < 100
    assert hist["step_norm"][-1] > 1e-4 and hist["gap"][-1] > 1e-7 * abs(fast.objective)
    long = SOLVERS["apg"](problem, np.zeros(2 * n), L, max_iter=20000, tol=1e-10)
    ref = max(long.objective, _slsqp_max(problem, [np.zeros(2 * n), fast.beta]))
    assert fast.objective == pytest.approx(ref, rel=1e-7)
    assert fast.objective <= ref + 1e-9 * abs(ref)  # the true h of a feasible point
    b = fast.beta
    assert b.min() >= 0 and b.max() <= C and abs(b[:n].sum() - b[n:].sum()) < 1e-8


@pytest.mark.parametrize("C, eta, sigma", [(100.0, 0.002, 0.1), (15.0, 0.0015, 0.25),
                                           (1000.0, 0.01, 1.0)])
@pytest.mark.slow
def test_small_eta_large_C_reaches_the_optimum_in_few_iterations(C, eta, sigma):
    X, y = make_clowns(40, random_state=4)
    y = np.where(y > 0, 1.0, -1.0)
    m = DANKClassifier(C=C, eta=eta, sigma=sigma, tau=0.01).fit(X, y)
    assert m.converged_ and m.n_iter_ < 300
    K = gaussian_kernel(X, sigma=sigma)
    problem = DankProblem(K, y, np.ones(40), C, eta, 0.01)
    ref = _slsqp_max(problem, [np.zeros(40), m.alpha_])
    assert m.objective_ >= ref - 1e-7 * abs(ref)
    assert m.objective_ <= ref + 1e-7 * abs(ref)  # h is the true h of a feasible point
    assert m.alpha_.min() >= 0 and m.alpha_.max() <= C and abs(m.alpha_ @ y) < 1e-8


def test_apg_does_not_stop_at_a_tiny_first_step():
    """The global bound of Lemma 1 is C^2/eta-large; the step rule used to stop after one
    step of length < tol (h = -5514 where the optimum is 19.5 on the lab's data)."""
    X, y = make_clowns(40, random_state=4)
    y = np.where(y > 0, 1.0, -1.0)
    K = gaussian_kernel(X, sigma=0.05)
    problem = DankProblem(K, y, np.ones(40), 120.0, 0.002, 1.9)
    L = problem.lipschitz(np.abs(K).sum(1).max())
    start = np.where(y > 0, 2.0, 2.0)  # far from the optimum, feasible (balanced)
    res = SOLVERS["apg"](problem, start, L, max_iter=2000, tol=1e-4)
    ref = _slsqp_max(problem, [np.zeros(40)])
    assert res.converged
    assert res.objective == pytest.approx(ref, rel=1e-7)


def test_capped_solve_is_honest():
    X, y = make_clowns(60, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        m = DANKClassifier(C=1000.0, eta=0.001, sigma=0.2, max_iter=3).fit(X, y)
    assert not m.converged_ and m.n_iter_ == 3
    assert len(m.history_["objective"]) == 3 and np.all(np.isfinite(m.history_["gap"]))


def test_linear_max_matches_linprog():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 15))
        g, labels, C = rng.normal(size=n), rng.choice([-1.0, 1.0], n), rng.uniform(0.1, 3)
        r = linprog(-g, A_eq=labels[None], b_eq=[0.0], bounds=[(0, C)] * n)
        assert linear_max(g, labels, C) == pytest.approx(-r.fun, abs=1e-9)
        assert linear_max(g, labels, C, bias=False) == pytest.approx(
            C * np.maximum(g, 0).sum())


def test_factor_is_used_only_when_exact():
    X, _ = make_step(120, random_state=0)
    smooth = _lazy_factor(gaussian_kernel(X, sigma=1.0))   # rank ~ 28 < 60
    rough = _lazy_factor(gaussian_kernel(X, sigma=0.05))   # needs more than n/2 columns
    assert smooth.shape[1] < 60
    assert rough.shape[1] == np.inf
    assert np.abs(smooth.array @ smooth.array.T - smooth.K).max() <= 1e-9


@pytest.mark.parametrize("n", [14, 20, 30])
def test_raw_unit_features_fit(n):
    """Features in raw units 1e2-1e4 make K ~ I and 11^T + Gamma ~ 11^T + c I, on which
    LAPACK's evr value subset fails with 'Internal Error'."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, 2)) * np.array([1e2, 1e4])
        y = np.r_[np.zeros(n // 2), np.ones(n - n // 2)]
        m = DANKClassifier().fit(X, y)
        assert m.converged_ and np.isfinite(m.objective_)
        r = DANKRegressor().fit(X, rng.normal(size=n))
        assert r.converged_ and np.isfinite(r.objective_)


# ---------------------------------------------------------------------------
# scalable DANK at large n: mini-batch k-means, blockwise assignment and prediction
# ---------------------------------------------------------------------------

def test_scalable_prediction_in_blocks_matches_a_pointwise_reference():
    X, y = make_moons(600, noise=0.2, random_state=1)
    Xt, _ = make_moons(700, noise=0.2, random_state=2)
    m = DANKClassifier(n_clusters=4, random_state=0).fit(X, y)
    res = m.scalable_
    u = res.y * res.alpha
    ref = np.empty(len(Xt))
    for t, x in enumerate(Xt):                      # the local model, one point at a time
        c = np.argmin(((res.centers - x) ** 2).sum(axis=1))
        mem = np.flatnonzero(res.labels == c)
        j = mem[np.argmin(((res.X[mem] - x) ** 2).sum(axis=1))]
        S = mem[u[mem] != 0]
        k = np.exp(-((res.X[S] - x) ** 2).sum(axis=1) / (2 * res.sigma ** 2))
        kj = np.exp(-((res.X[S] - res.X[j]) ** 2).sum(axis=1) / (2 * res.sigma ** 2))
        ref[t] = np.sum(u[S] * (1.0 + u[S] * kj * u[j] / (4 * res.eta)) * k)
    # 64-row blocks (the smallest) against one block for all 700 rows
    small = scalable_decision(res, Xt, max_bytes=1)
    np.testing.assert_allclose(small, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.decision_function(Xt), ref, rtol=1e-10, atol=1e-12)


def test_nearest_center_in_blocks():
    rng = np.random.default_rng(0)
    X, centers = rng.normal(size=(1000, 3)), rng.normal(size=(7, 3))
    full = np.argmin(((X[:, None, :] - centers[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(nearest_center(X, centers, rows=13), full)


@pytest.mark.slow
def test_large_n_partition_is_mini_batch(monkeypatch):
    import nplk_core.scalable as sc

    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])
    truth = np.repeat(np.arange(4), 500)
    X = means[truth] + rng.normal(scale=0.5, size=(2000, 2))

    def no_lloyd(*a, **k):
        raise AssertionError("Lloyd's KMeans used above the mini-batch threshold")

    monkeypatch.setattr(sc, "MINIBATCH_ABOVE", 1000)
    monkeypatch.setattr(sc, "KMeans", no_lloyd)
    labels, centers = sc._partition(X, 4, 0)
    assert centers.shape == (4, 2)
    # the four blobs are recovered, and every point sits with its nearest centre
    assert all(np.unique(labels[truth == b]).size == 1 for b in range(4))
    assert np.unique(labels).size == 4
    np.testing.assert_array_equal(labels, nearest_center(X, centers))
    # the scalable fit takes that route end to end
    ypm = np.where(X[:, 0] + rng.normal(scale=2, size=2000) > 5, 1.0, -1.0)
    res = fit_scalable(X, ypm, n_clusters=4, eta=50.0, random_state=0, sigma=2.0)
    assert res.converged and res.alpha.shape == (2000,) and np.all(res.alpha >= 0)
