"""KNPL (*Nonlinear Pairwise Layer and Its Training for Kernel Learning*): the ADMM
projection, the outer alternation, the saddle-point solver against independent
references, eq. 23, the contract.

Long (about 700 lines) because each solver is checked against its own independent
reference written here (Dykstra, the full-size ADMM, SLSQP, dense formulas).
"""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_info, threadpool_limits

from nplk_core._base import single_thread_blas
from nplk_core.datasets import list_datasets, make_clowns, make_dataset
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma
from nplk_core.knpl import (
    KNPLClassifier,
    _KNPLSaddle,
    knpl_admm,
    knpl_gamma_matrix,
    knpl_inner,
    knpl_objective,
)
from nplk_core.projection import project_dual

# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------


def _psd_projection(M):
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    return (V * np.maximum(w, 0.0)) @ V.T


def _affine_projector(n):
    """Projection onto {G symmetric, G 1 = n 1} as a least-squares problem on vec(G)."""
    rows, rhs = [], []
    for i in range(n):
        r = np.zeros((n, n))
        r[i, :] = 1.0
        rows.append(r.ravel())
        rhs.append(float(n))
    for i in range(n):
        for j in range(i + 1, n):
            r = np.zeros((n, n))
            r[i, j], r[j, i] = 1.0, -1.0
            rows.append(r.ravel())
            rhs.append(0.0)
    A, b = np.array(rows), np.array(rhs)
    A_pinv = np.linalg.pinv(A)

    def project(M):
        x = M.ravel()
        return (x - A_pinv @ (A @ x - b)).reshape(n, n)
    return project


def _dykstra(Gamma, n_iter=3000):
    """Dykstra's alternating projections onto PSD ∩ {G1 = n1}, run to convergence."""
    n = Gamma.shape[0]
    affine = _affine_projector(n)
    X = Gamma.copy()
    p = np.zeros_like(X)
    q = np.zeros_like(X)
    for _ in range(n_iter):
        Y = _psd_projection(X + p)
        p = X + p - Y
        X_new = affine(Y + q)
        q = Y + q - X_new
        X = X_new
    return X


def _admm_full(Gamma, rho, max_iter, tol, G0=None):
    """Algorithm 1 on the full n x n matrices (no compression), for comparison."""
    n = Gamma.shape[0]
    one = np.ones(n)
    J = np.ones((n, n))
    Q = J.copy() if G0 is None else G0.copy()
    Z = J.copy()
    beta = 1.0
    res = []
    G = Q
    for _ in range(max_iter):
        G = _psd_projection((beta * Q + Z + Gamma) / (1 + beta))
        Xi = (beta * G - Z + Gamma) / (1 + beta)
        r = n * one - Xi @ one
        Q_new = Xi + (np.outer(r, one) + np.outer(one, r)) / n - (one @ r) / n**2 * J
        Z_new = Z - beta * (G - Q_new)
        res.append(max(np.linalg.norm(Q_new - Q), np.linalg.norm(Z_new - Z)))
        Q, Z = Q_new, Z_new
        beta = min(rho * beta, 1e8)
        if res[-1] <= tol:
            break
    return G, np.array(res)


def _knpl_gamma(n=30, n_sv=9, gamma=0.05, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    K = gaussian_kernel(X, sigma=1.0)
    alpha = np.zeros(n)
    alpha[rng.choice(n, n_sv, replace=False)] = rng.uniform(0.1, 1.0, n_sv)
    return knpl_gamma_matrix(alpha, y, K, gamma=gamma)


@pytest.fixture(scope="module")
def clowns():
    X, y = make_clowns(80, random_state=0)
    Xt, yt = make_clowns(200, random_state=1)
    return X, y, Xt, yt


# ---------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["knpl", "indefinite"])
def test_admm_result_is_psd_with_row_sums_n(kind):
    rng = np.random.default_rng(3)
    n = 25
    if kind == "knpl":
        Gamma = _knpl_gamma(n, gamma=0.02)
    else:  # an indefinite target makes the PSD constraint active
        A = rng.normal(size=(n, n))
        Gamma = A + A.T
    G, res = knpl_admm(Gamma)  # the paper's settings: rho 1.1, 15 iterations, tol 1e-4
    assert np.allclose(G, G.T)
    assert np.linalg.eigvalsh(G).min() >= -1e-9 * np.abs(G).max()
    assert np.abs(G.sum(axis=1) - n).max() <= 1e-3
    assert 1 <= res.size <= 15


@pytest.mark.parametrize("kind", ["knpl", "indefinite"])
def test_admm_matches_dykstra_projection(kind):
    n = 8
    if kind == "knpl":
        Gamma = _knpl_gamma(n, n_sv=5, gamma=0.01, seed=4)
    else:
        A = np.random.default_rng(5).normal(size=(n, n))
        Gamma = 0.5 * (A + A.T)
    ref = _dykstra(Gamma)
    # the reference is the projection: feasible and optimal against random feasible points
    assert np.linalg.eigvalsh(ref).min() >= -1e-10
    assert np.abs(ref.sum(axis=1) - n).max() <= 1e-10
    rng = np.random.default_rng(6)
    P = np.eye(n) - 1.0 / n
    for _ in range(20):  # variational inequality <Gamma - ref, F - ref> <= 0, F feasible
        B = rng.normal(size=(n, 3))
        F = 1.0 + P @ B @ B.T @ P
        assert np.sum((Gamma - ref) * (F - ref)) <= 1e-8
    G, res = knpl_admm(Gamma, rho=1.0, max_iter=5000, tol=1e-13)
    np.testing.assert_allclose(G, ref, atol=1e-8)
    # the paper's budget (rho = 1.1, 15 iterations) is already close
    G15, _ = knpl_admm(Gamma)
    assert np.abs(G15 - ref).max() <= 1e-3 * max(1.0, np.abs(Gamma).max())


def test_projection_of_psd_target_is_closed_form():
    """For PSD Gamma the PSD constraint is inactive: G* = 11^T + P Gamma P."""
    n = 30
    Gamma = _knpl_gamma(n, gamma=0.05)
    P = np.eye(n) - 1.0 / n
    G, _ = knpl_admm(Gamma, rho=1.0, max_iter=5000, tol=1e-13)
    np.testing.assert_allclose(G, 1.0 + P @ Gamma @ P, atol=1e-9)


@pytest.mark.parametrize("warm", [False, True])
def test_compressed_admm_equals_full_iteration(warm):
    """Rows of Gamma that vanish (non-SVs) let the ADMM run on (s+1)x(s+1) matrices:
    the iterates and residuals must be those of the full-size iteration."""
    n = 40
    Gamma = _knpl_gamma(n, n_sv=7, gamma=0.1)
    G0 = None
    if warm:  # a previous solution with a different support (rows equal off it)
        G0, _ = knpl_admm(_knpl_gamma(n, n_sv=6, gamma=0.1, seed=9))
    G_ref, res_ref = _admm_full(Gamma, 1.1, 25, 1e-12, G0)
    G, res = knpl_admm(Gamma, rho=1.1, max_iter=25, tol=1e-12, G0=G0)
    np.testing.assert_allclose(res, res_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(G, G_ref, atol=1e-11)


def test_admm_on_zero_target_is_all_ones():
    G, res = knpl_admm(np.zeros((12, 12)))
    np.testing.assert_allclose(G, np.ones((12, 12)), atol=1e-14)
    assert res.size == 1 and res[0] <= 1e-12


@pytest.mark.parametrize("kw", [{"rho": 0.9}, {"rho": 0.0}, {"rho": -1.0},
                                {"rho": np.nan}, {"max_iter": 0}, {"tol": 0.0}])
def test_admm_rejects_bad_parameters(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        knpl_admm(np.eye(4), **kw)


def test_admm_rejects_non_finite_target():
    Gamma = np.eye(4)
    Gamma[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        knpl_admm(Gamma)


# ---------------------------------------------------------------------------
# the closed-form inner solution and the concave outer problem (default solver)
# ---------------------------------------------------------------------------

def _dense_h(alpha, y, K, gamma):
    """h(alpha) = H(alpha, G*) and its Danskin gradient, written with explicit n x n
    matrices (P = I - 11^T/n) as an independent check of the O(n^2) formulas."""
    n = y.size
    P = np.eye(n) - np.ones((n, n)) / n
    u = alpha * y
    G = np.ones((n, n)) + P @ (np.outer(u, u) * K / (4.0 * gamma)) @ P
    GK = G * K
    return alpha.sum() - 0.5 * u @ GK @ u + gamma * np.sum(G * G), 1.0 - y * (GK @ u), G


def _dual_upper_bound(alpha, y, K, C, gamma):
    """A proven upper bound on max h over {0 <= a <= C, a^T y = 0}, from any alpha.

    h is concave, so h(a*) <= h(alpha) + g^T (a* - alpha) with g = grad h(alpha), and for
    every multiplier lam, g^T a <= lam y^T a + C sum_i (g_i - lam y_i)_+ = C sum_i (...)_+
    on the feasible set (weak duality of the linear program). The right-hand side is
    convex and piecewise linear in lam with kinks at lam = g_i y_i (y_i = +-1), so the
    minimum over those n kinks is the exact value of the linear program."""
    h, g, _ = _dense_h(alpha, y, K, gamma)
    kinks = g * y
    lp = min(C * float(np.maximum(g - lam * y, 0.0).sum()) for lam in kinks)
    return h + lp - float(g @ alpha)


def _slsqp_reference(y, K, C, gamma):
    """max h over {0 <= alpha <= C, alpha^T y = 0} by scipy's SLSQP from alpha = 0 (a
    different algorithm from the estimator's: sequential quadratic programming),
    certified by the duality bound above: returns (alpha, h(alpha), upper) with
    h(alpha) <= max h <= upper, and asserts the bracket is tight.

    SLSQP's own flag is not the certificate: asked for ftol=1e-15, at the optimum its
    line search finds no decrease in floating point and scipy >= 1.16 (the C port of
    SLSQP) reports status 8, "Positive directional derivative for linesearch", where the
    Fortran code reported success (clowns, gamma=5: status 8 at a point within 1e-8
    relative of the bound)."""
    n = y.size

    def negative(a):
        h, g, _ = _dense_h(a, y, K, gamma)
        return -h, -g
    with threadpool_limits(1):  # SLSQP's many tiny products crawl with threaded BLAS
        res = minimize(negative, np.zeros(n), jac=True, method="SLSQP",
                       bounds=[(0.0, C)] * n,
                       constraints=[{"type": "eq", "fun": lambda a: a @ y,
                                     "jac": lambda a: y}],
                       options={"ftol": 1e-15, "maxiter": 1000})
    assert res.status in (0, 8), res.message  # 8: no further decrease representable
    alpha = np.clip(res.x, 0.0, C)
    assert abs(alpha @ y) <= 1e-12 * C * n
    h = _dense_h(alpha, y, K, gamma)[0]
    upper = _dual_upper_bound(alpha, y, K, C, gamma)
    # the bracket is tight on the variable part of h (gamma n^2 is a constant)
    assert upper - h <= 2e-6 * abs(h - gamma * n * n), (h, upper)
    return alpha, h, upper


def _small_problem(name, sigma, n=40, seed=1):
    X, labels = make_dataset(name, n, random_state=seed)
    y = np.where(labels == np.unique(labels)[1], 1.0, -1.0)
    return X, labels, y, gaussian_kernel(X, sigma=sigma)


@pytest.mark.parametrize("kind", ["knpl", "indefinite"])
def test_inner_closed_form_is_the_projection(kind):
    """G*(alpha) = 11^T + [P Gamma P]_+ is the projection of eq. 13: equal to Dykstra's
    alternating projections and to Algorithm 1 run to convergence."""
    n = 8
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 2))
    y = np.where(np.arange(n) % 2, 1.0, -1.0)
    K = gaussian_kernel(X, sigma=1.0)
    if kind == "indefinite":  # the PSD constraint is active: the PSD part is needed
        A = rng.normal(size=(n, n))
        K = 0.5 * (A + A.T)
    alpha = rng.uniform(0.0, 1.0, n)
    G = knpl_inner(alpha, y, K, gamma=0.02)
    Gamma = knpl_gamma_matrix(alpha, y, K, gamma=0.02)
    np.testing.assert_allclose(G, _dykstra(Gamma), atol=1e-8)
    G_admm, _ = knpl_admm(Gamma, rho=1.0, max_iter=5000, tol=1e-13)
    np.testing.assert_allclose(G, G_admm, atol=1e-8)
    assert np.linalg.eigvalsh(G).min() >= -1e-10
    np.testing.assert_allclose(G.sum(axis=1), n, rtol=1e-12)
    if kind == "knpl":
        P = np.eye(n) - 1.0 / n
        np.testing.assert_allclose(G, 1.0 + P @ Gamma @ P, atol=1e-13)
        np.testing.assert_allclose(knpl_inner(alpha, y, K, gamma=0.02, kernel_psd=True), G,
                                   atol=1e-13)


def test_saddle_objective_and_gradient_match_dense_formulas_and_differences():
    """h, (G* o K) u and grad h = 1 - y o (G* o K) y alpha (Danskin) from the O(n^2)
    evaluation equal the dense formulas, and the gradient matches central differences."""
    X, _, y, K = _small_problem("moons", 1.0, n=30)
    problem = _KNPLSaddle(K, y, 1.0, 0.1)
    rng = np.random.default_rng(2)
    for _ in range(3):
        alpha = rng.uniform(0.0, 1.0, y.size) * (rng.random(y.size) < 0.6)
        h, g, inner = problem.evaluate(alpha)
        h_ref, g_ref, G = _dense_h(alpha, y, K, 0.1)
        assert h + problem.offset == pytest.approx(h_ref, rel=1e-13)
        assert h + problem.offset == pytest.approx(
            knpl_objective(alpha, y, K, knpl_inner(alpha, y, K, gamma=0.1), gamma=0.1),
            rel=1e-13)
        np.testing.assert_allclose(inner.Qu, (G * K) @ (alpha * y), atol=1e-12)
        np.testing.assert_allclose(g, g_ref, atol=1e-12)
        eps = 1e-6
        fd = np.array([(problem.evaluate(alpha + eps * e)[0]
                        - problem.evaluate(alpha - eps * e)[0]) / (2 * eps)
                       for e in np.eye(y.size)])
        np.testing.assert_allclose(fd, g, atol=1e-7 * max(1.0, np.abs(g).max()))
    # rank(G*) = min(|S| + 1, n) for distinct points (K strictly PD; well conditioned at
    # a small sigma)
    _, _, y, K = _small_problem("moons", 0.1, n=30)
    problem = _KNPLSaddle(K, y, 1.0, 0.1)
    for n_sv in (0, 5, 29, 30):
        alpha = np.zeros(y.size)
        alpha[:n_sv] = rng.uniform(0.1, 1.0, n_sv)
        G = knpl_inner(alpha, y, K, gamma=0.1)
        assert problem.evaluate(alpha)[2].rank == np.linalg.matrix_rank(G, tol=1e-10) \
            == min(n_sv + 1, y.size)


def test_saddle_projection_is_the_exact_projection():
    """The warm-started Newton projection of the adapter equals the sorting routine
    (and its fallback is taken when Newton cannot settle: a far-away multiplier)."""
    rng = np.random.default_rng(12)
    y = np.where(rng.random(50) < 0.4, -1.0, 1.0)
    problem = _KNPLSaddle(np.eye(50), y, 1.5, 1.0)
    v = rng.normal(0.7, 1.0, 50)
    for step in range(60):
        v = v + rng.normal(0, 0.05 if step % 10 else 5.0, 50)  # small moves, some jumps
        a = problem.project(v)
        np.testing.assert_allclose(a, project_dual(v, y, 1.5), atol=1e-12)
        assert abs(a @ y) <= 1e-12 and a.min() >= 0.0 and a.max() <= 1.5


def test_saddle_objective_is_concave_with_the_stated_curvature_bound():
    """h is concave (min over G of functions concave in alpha): midpoint inequality and
    non-positive second differences; its gradient is Lipschitz with the bound the solver
    uses as the cap of its backtracking, on the region |alpha| <= 2C it claims."""
    for name, sigma, gamma in [("clowns", 1.0, 0.05), ("sandwich", 0.5, 2.0)]:
        _, _, y, K = _small_problem(name, sigma, n=30)
        C = 1.0
        problem = _KNPLSaddle(K, y, C, gamma)
        L = problem.lipschitz()
        rng = np.random.default_rng(4)
        for _ in range(50):
            a, b = rng.uniform(0, C, (2, y.size))
            ha, ga, _ = problem.evaluate(a)
            hb, gb, _ = problem.evaluate(b)
            assert problem.evaluate(0.5 * (a + b))[0] >= 0.5 * (ha + hb) - 1e-9 * abs(ha)
            d = rng.normal(size=y.size)
            d *= 1e-3 / np.linalg.norm(d)
            second = problem.evaluate(a + d)[0] - 2 * ha + problem.evaluate(a - d)[0]
            assert second <= 1e-9 * abs(ha)
            a2, b2 = rng.uniform(-C, 2 * C, (2, y.size))
            g1, g2 = problem.evaluate(a2)[1], problem.evaluate(b2)[1]
            assert np.linalg.norm(g1 - g2) <= L * np.linalg.norm(a2 - b2)


@pytest.mark.parametrize("name, C, sigma, gamma", [
    ("clowns", 1.0, 1.0, 5.0), ("clowns", 1.0, 1.0, 0.1), ("moons", 10.0, 0.5, 20.0),
    ("sandwich", 1.0, 1.0, 0.1), ("sandwich", 10.0, 0.5, 20.0),
])
@pytest.mark.slow
def test_default_solver_matches_convex_reference(name, C, sigma, gamma):
    """The default fit reaches max h: the objective agrees with an independent SLSQP
    solve to 1e-6 relative *on its variable part* h - gamma n^2 (the constant alone
    would make 1e-6 trivial), and (alpha, G) is a saddle point: G is the inner minimiser
    (Algorithm 1 run to convergence) and alpha is optimal for the SVM with the fixed
    kernel G o K (libsvm to 1e-12), both to the same tolerance."""
    X, labels, y, K = _small_problem(name, sigma)
    n = y.size
    _, h_ref, h_upper = _slsqp_reference(y, K, C, gamma)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = KNPLClassifier(C=C, sigma=sigma, gamma=gamma).fit(X, labels)
    scale = abs(h_ref - gamma * n * n)
    assert abs(est.objective_ - h_ref) <= 1e-6 * scale
    # a feasible alpha cannot beat the proven maximum (rounding of h aside)
    assert abs(est.alpha_ @ y) <= 1e-12 * C * n
    assert est.alpha_.min() >= 0.0 and est.alpha_.max() <= C
    assert est.objective_ <= h_upper + 1e-12 * abs(h_upper)
    assert est.objective_ == pytest.approx(
        knpl_objective(est.alpha_, y, K, est.G_, gamma=gamma), rel=1e-12)
    G_admm, _ = knpl_admm(knpl_gamma_matrix(est.alpha_, y, K, gamma=gamma), rho=1.0,
                          max_iter=5000, tol=1e-13)
    assert abs(knpl_objective(est.alpha_, y, K, G_admm, gamma=gamma)
               - est.objective_) <= 1e-9 * scale
    svc = SVC(kernel="precomputed", C=C, tol=1e-12).fit(est.G_ * K, y)
    alpha_svc = np.zeros(n)
    alpha_svc[svc.support_] = np.abs(svc.dual_coef_[0])
    # (the SVM's alpha need not be unique: G o K can be numerically singular)
    assert knpl_objective(alpha_svc, y, K, est.G_, gamma=gamma) \
        <= est.objective_ + 1e-6 * scale


def test_alternating_stays_below_the_saddle_value():
    """Algorithm 2's last round is a feasible alpha: its h is below the maximum, and on
    these settings far below (it cycles); the default reaches the maximum."""
    X, labels, y, K = _small_problem("clowns", 1.0, n=40)
    _, h_ref, _ = _slsqp_reference(y, K, 1.0, 0.1)
    with pytest.warns(ConvergenceWarning, match="alternating"):
        alt = KNPLClassifier(gamma=0.1, solver="alternating").fit(X, labels)
    problem = _KNPLSaddle(K, y, 1.0, 0.1)
    h_alt = problem.evaluate(alt.alpha_)[0] + problem.offset
    assert h_alt < h_ref - 1.0
    est = KNPLClassifier(gamma=0.1).fit(X, labels)
    assert est.objective_ >= h_alt


def test_saddle_history_callback_and_max_iter(clowns):
    X, y, _, _ = clowns
    seen = []

    def keep(it, state, elapsed):
        seen.append((it, state["alpha"].copy(), state["objective"]))

    est = KNPLClassifier(gamma=0.5, callback=keep).fit(X, y)
    h = est.history_
    assert est.converged_ and est.n_iter_ == len(seen) == h["objective"].size
    assert {"objective", "step_norm", "rank", "time"} <= set(h)
    assert np.all(np.diff(h["time"]) >= 0)
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    problem = _KNPLSaddle(est.K_, ypm, 1.0, 0.5)
    for t, alpha, obj in seen:
        assert h["objective"][t] == obj
        assert obj == pytest.approx(problem.evaluate(alpha)[0] + problem.offset, rel=1e-12)
    np.testing.assert_array_equal(seen[-1][1], est.alpha_)
    assert est.objective_ == h["objective"][-1]
    # a callback stop never warns; hitting max_iter warns and reports not converged
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        stopped = KNPLClassifier(gamma=0.5, callback=lambda *a: True).fit(X, y)
    assert stopped.n_iter_ == 1 and not stopped.converged_
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        short = KNPLClassifier(gamma=0.5, max_iter=2).fit(X, y)
    assert short.n_iter_ == 2 and not short.converged_


def test_saddle_bias_follows_spec_rule(clowns):
    """b = mean over 0 < alpha_i < C of y_i - ((G o K) Y alpha)_i
    (docs/the-maths-of-every-method.md, "Shared pieces"), and training decisions are
    (G o K) Y alpha + b (eq. 23: a training point is its own neighbour)."""
    X, y, _, _ = clowns
    est = KNPLClassifier(C=2.0, gamma=0.5).fit(X, y)
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    f0 = (est.G_ * est.K_) @ est.dual_coef_
    free = (est.alpha_ > 1e-8) & (est.alpha_ < 2.0 - 1e-8)
    assert free.sum() >= 2
    assert est.intercept_ == pytest.approx(np.mean(ypm[free] - f0[free]), abs=1e-12)
    np.testing.assert_allclose(est.decision_function(X), f0 + est.intercept_, atol=1e-10)
    # KKT at the saddle: free support vectors sit on the margin y f = 1
    np.testing.assert_allclose(ypm[free] * (f0[free] + est.intercept_), 1.0, atol=1e-3)


@pytest.mark.parametrize("name", list_datasets("classification"))
def test_default_fit_converges_without_warning_on_builtin_data(name):
    """Page defaults (n = 200, 30 % test, sigma = 1, C = 1, gamma auto): no warning,
    converged, and G in the paper's band (Fig. 2: 0.95-1.05; the auto rule puts the
    largest Gamma entry at 0.05)."""
    X, labels = make_dataset(name, 200, random_state=0)
    X_train, _, y_train, _ = train_test_split(X, labels, test_size=60, random_state=0,
                                              stratify=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = KNPLClassifier().fit(X_train, y_train)
    assert est.converged_
    ypm = np.where(y_train == est.classes_[1], 1.0, -1.0)
    svc = SVC(kernel="precomputed", C=1.0).fit(est.K_, ypm)
    assert est.gamma_ == pytest.approx(5.0 * np.abs(svc.dual_coef_).max() ** 2)
    assert 0.93 <= est.G_.min() and est.G_.max() <= 1.07


def test_auto_gamma_bounds_G():
    """|G - 1| <= C^2 / gamma for every alpha in A: P Gamma P is PSD with diagonal at
    most 4 max_i Gamma_ii <= C^2 / gamma."""
    _, _, y, K = _small_problem("spiral", 0.3, n=40)
    rng = np.random.default_rng(8)
    for gamma in (0.5, 5.0):
        for _ in range(20):
            alpha = rng.uniform(0, 1.0, y.size) * (rng.random(y.size) < 0.3) + 0.0
            alpha[rng.integers(y.size)] = 1.0
            G = knpl_inner(alpha, y, K, gamma=gamma)
            assert np.abs(G - 1.0).max() <= 1.0 / gamma


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_single_thread_blas_is_reference_counted():
    """Overlapping users (threads) leave in any order; the last one restores."""
    before = _blas_threads()
    first, second = single_thread_blas(), single_thread_blas()
    first.__enter__()
    second.__enter__()
    assert all(t == 1 for t in _blas_threads())
    first.__exit__(None, None, None)  # the first user leaves while the second works
    assert all(t == 1 for t in _blas_threads())
    second.__exit__(None, None, None)
    assert _blas_threads() == before


# ---------------------------------------------------------------------------
# Algorithm 2 and the estimator
# ---------------------------------------------------------------------------

def test_objective_recorded_per_round(clowns):
    X, y, _, _ = clowns
    states = []

    def keep(it, state, elapsed):
        states.append((it, state["alpha"].copy(), state["G"].copy()))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KNPLClassifier(gamma=0.5, solver="alternating", n_outer=6,
                             callback=keep).fit(X, y)
    h = est.history_
    assert est.n_iter_ == len(states) == h["objective"].size
    assert [s[0] for s in states] == list(range(est.n_iter_))
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    for t, alpha, G in states:
        assert h["objective"][t] == pytest.approx(
            knpl_objective(alpha, ypm, est.K_, G, gamma=0.5), rel=1e-12)
    np.testing.assert_array_equal(states[-1][1], est.alpha_)
    np.testing.assert_array_equal(states[-1][2], est.G_)
    assert np.all(np.diff(h["time"]) >= 0)
    # one ADMM residual row per inner iteration, grouped by round
    a = est.admm_history_
    assert a["residual"].size == int(h["admm_iterations"].sum())
    assert np.array_equal(np.unique(a["round"]), np.arange(est.n_iter_))
    np.testing.assert_array_equal(
        a["residual"][a["iteration"] == 0][1:] > 0, True)


def test_first_round_is_the_plain_svm(clowns):
    """alpha starts at 0, so Gamma = 0, G = 11^T and round 0 is an SVC on K."""
    X, y, _, _ = clowns
    first = {}

    def grab(it, state, elapsed):
        first.update(alpha=state["alpha"].copy(), G=state["G"].copy())
        return True  # stop after round 0

    est = KNPLClassifier(C=2.0, sigma=0.8, solver="alternating", callback=grab)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # a callback stop never warns
        est.fit(X, y)
    assert est.n_iter_ == 1 and not est.converged_
    np.testing.assert_allclose(first["G"], 1.0, rtol=0, atol=1e-14)
    svc = SVC(C=2.0, gamma=sigma_to_gamma(0.8)).fit(X, y)
    ref = np.zeros(len(y))
    ref[svc.support_] = np.abs(svc.dual_coef_[0])
    np.testing.assert_allclose(est.alpha_, ref, atol=1e-10)


def test_large_gamma_reduces_to_svc(clowns):
    """gamma -> inf: Gamma -> 0, G -> 11^T, and KNPL is the SVM with the Gaussian kernel."""
    X, y, Xt, _ = clowns
    est = KNPLClassifier(C=1.5, sigma=0.7, gamma=1e9, solver="alternating").fit(X, y)
    assert est.converged_ and est.n_iter_ == 2
    assert np.abs(est.G_ - 1.0).max() < 1e-6
    svc = SVC(C=1.5, gamma=sigma_to_gamma(0.7)).fit(X, y)
    # libsvm stops at its tolerance 1e-3, and a 1e-10 change of the kernel can change
    # the SMO path: decisions agree to that tolerance, labels away from the boundary
    d, d_svc = est.decision_function(Xt), svc.decision_function(Xt)
    np.testing.assert_allclose(d, d_svc, atol=1e-2)
    clear = np.abs(d_svc) > 1e-2
    np.testing.assert_array_equal(est.predict(Xt)[clear], svc.predict(Xt)[clear])
    # in the exact limit (G = 11^T to rounding) the two are the same solve
    exact = KNPLClassifier(C=1.5, sigma=0.7, gamma=1e15, solver="alternating").fit(X, y)
    np.testing.assert_allclose(exact.decision_function(Xt), d_svc, atol=1e-9)


@pytest.mark.parametrize("gamma", [1e9, 1e15])
def test_large_gamma_saddle_is_the_svm_optimum(clowns, gamma):
    """The saddle solver solves the SVM dual to its own tolerance: against libsvm run to
    1e-12 the decisions agree and its dual value is at least libsvm's."""
    X, y, Xt, _ = clowns
    est = KNPLClassifier(C=1.5, sigma=0.7, gamma=gamma).fit(X, y)
    assert est.converged_ and np.abs(est.G_ - 1.0).max() < 1e-6
    svc = SVC(C=1.5, gamma=sigma_to_gamma(0.7), tol=1e-12).fit(X, y)
    np.testing.assert_allclose(est.decision_function(Xt), svc.decision_function(Xt),
                               atol=1e-4)
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    ref = np.zeros(len(y))
    ref[svc.support_] = np.abs(svc.dual_coef_[0])

    def dual(a):
        u = a * ypm
        return a.sum() - 0.5 * u @ est.K_ @ u
    assert dual(est.alpha_) >= dual(ref) - 1e-9 * abs(dual(ref))


def test_sign_conventions_match_libsvm_with_string_labels(clowns):
    X, y, _, _ = clowns
    labels = np.where(y > 0, "plus", "minus")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KNPLClassifier(gamma=0.3, solver="alternating", n_outer=3).fit(X, labels)
    assert list(est.classes_) == ["minus", "plus"]
    GK = est.G_ * est.K_
    svc = SVC(kernel="precomputed", C=1.0).fit(GK, np.where(labels == "plus", 1, -1))
    # on training points the nearest neighbour is the point itself: eq. 23 gives G∘K
    np.testing.assert_allclose(est.decision_function(X), svc.decision_function(GK),
                               atol=1e-8)
    ypm = np.where(labels == "plus", 1.0, -1.0)
    np.testing.assert_allclose(est.dual_coef_, est.alpha_ * ypm)
    assert np.all(est.alpha_ >= 0) and np.all(est.alpha_ <= 1.0 + 1e-12)
    assert abs(est.alpha_ @ ypm) < 1e-8


def test_out_of_sample_uses_column_of_nearest_training_point(clowns):
    X, y, Xt, _ = clowns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KNPLClassifier(gamma=0.2, n_outer=4, sigma=0.9).fit(X, y)
    Xq = Xt[:25]
    expected = []
    for x in Xq:
        j = int(np.argmin(((X - x) ** 2).sum(axis=1)))
        k = np.exp(-((X - x) ** 2).sum(axis=1) / (2 * 0.9**2))
        expected.append(np.sum(est.dual_coef_ * est.G_[:, j] * k) + est.intercept_)
    np.testing.assert_allclose(est.decision_function(Xq), expected, atol=1e-10)


def test_learned_G_is_feasible_and_fits_training_data_better(clowns):
    X, y, _, _ = clowns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KNPLClassifier(gamma=0.05).fit(X, y)
    n = len(y)
    assert np.linalg.eigvalsh(est.G_).min() >= -1e-8
    assert np.abs(est.G_.sum(axis=1) - n).max() <= 1e-3
    svc = SVC(gamma=0.5).fit(X, y)
    assert est.score(X, y) >= svc.score(X, y)


def test_oscillating_rounds_warn_and_report_not_converged(clowns):
    """The alternation can cycle (the seed claims convergence); then all rounds run,
    converged_ is False and a ConvergenceWarning is raised."""
    X, y, _, _ = clowns
    with pytest.warns(ConvergenceWarning, match="KNPLClassifier"):
        est = KNPLClassifier(gamma=0.05, solver="alternating", n_outer=5).fit(X, y)
    assert est.n_iter_ == 5 and not est.converged_
    assert est.history_["alpha_change"][-1] > 1e-4 * np.linalg.norm(est.alpha_)


def test_multiclass_one_vs_rest():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [3, 0], [0, 3]])
    X = np.vstack([c + 0.6 * rng.normal(size=(20, 2)) for c in centers])
    y = np.repeat(["a", "b", "c"], 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KNPLClassifier(gamma=1.0, n_outer=3).fit(X, y)
    assert est.G_.shape == (3, 60, 60) and est.alpha_.shape == (3, 60)
    assert est.intercept_.shape == (3,) and est.n_iter_.shape == (3,)
    assert est.decision_function(X).shape == (60, 3)
    assert est.score(X, y) > 0.95
    assert set(np.unique(est.history_["estimator"])) == {0.0, 1.0, 2.0}
    # each one-vs-rest column is the binary KNPL of that class
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        b = KNPLClassifier(gamma=1.0, n_outer=3).fit(X, y == "b")
    np.testing.assert_allclose(est.decision_function(X)[:, 1], b.decision_function(X),
                               atol=1e-10)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("param, value", [
    ("C", 0.0), ("C", -1.0), ("sigma", 0.0), ("sigma", -2.0), ("gamma", 0.0),
    ("gamma", -1.0), ("rho", 0.99), ("rho", 0.0), ("rho", -1.1), ("rho", np.inf),
    ("n_outer", 0), ("admm_max_iter", 0), ("admm_tol", 0.0), ("tol", -1.0),
    ("extension", "reciprocal"), ("callback", 3), ("gamma", "fast"), ("solver", "smo"),
    ("max_iter", 0),
])
def test_bad_parameters_raise_clear_value_error(clowns, param, value):
    X, y, _, _ = clowns
    with pytest.raises(ValueError, match=param):
        KNPLClassifier(**{param: value}).fit(X, y)


def test_rho_one_is_valid(clowns):
    X, y, _, _ = clowns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KNPLClassifier(rho=1.0, solver="alternating", n_outer=2).fit(X, y)
    assert np.abs(est.G_.sum(axis=1) - len(y)).max() <= 1e-3


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_data_raise(clowns, bad):
    X, y, _, _ = clowns
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        KNPLClassifier().fit(X, y)


def test_one_class_raises(clowns):
    X, _, _, _ = clowns
    with pytest.raises(ValueError, match="two classes"):
        KNPLClassifier().fit(X, np.ones(len(X)))


# ---------------------------------------------------------------------------
# scikit-learn contract (for Algorithm 2, n_outer=3 keeps the ~40 checks fast; the
# rounds then end without settling, which only adds a ConvergenceWarning)
# ---------------------------------------------------------------------------

@pytest.mark.slow
@parametrize_with_checks([KNPLClassifier(), KNPLClassifier(solver="alternating", n_outer=3)])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)
