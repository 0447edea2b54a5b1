"""KNPL (SPEC §4): the ADMM projection, the outer alternation, eq. 23, the contract."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_info

from nplk_core._base import single_thread_blas
from nplk_core.datasets import make_clowns
from nplk_core.kernels import gaussian_kernel, sigma_to_gamma
from nplk_core.knpl import (
    KNPLClassifier,
    knpl_admm,
    knpl_gamma_matrix,
    knpl_objective,
)

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
    ("extension", "reciprocal"), ("callback", 3),
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
# scikit-learn contract (n_outer=3 keeps the ~40 checks fast; the rounds then end
# without settling, which only adds a ConvergenceWarning)
# ---------------------------------------------------------------------------

@parametrize_with_checks([KNPLClassifier(n_outer=3)])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)
