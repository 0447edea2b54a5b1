"""The fast one-width ridge over a grid (nplk_core.lab_rbf_width) against the direct
least-squares solve it replaces and against a slow dense reference of the same model,
and the comparison that uses it (nplk_lab.model.lab_rbf_halves.one_bandwidth_ridge)
against a loop over the grid."""

import numpy as np
import pytest

from nplk_core.datasets import make_chirp, make_step
from nplk_core.lab_rbf import LABRBFRegressor, lab_kernel, lab_ridge_coef
from nplk_core.lab_rbf_width import ridge_path_errors, ridge_path_fit
from nplk_core.spectral import pivoted_cholesky
from nplk_lab.model import lab_rbf_halves as lh


def _setting(seed=0, n=120, N=25, d=1):
    """Centres among the points (as LAB RBF's support points are), a fit / validation
    split, on [-1, 1]^d."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(4 * X[:, 0]) + (X[:, 1] ** 2 if d > 1 else 0) + 0.1 * rng.normal(size=n)
    C = X[rng.choice(n, N, replace=False)]
    val = np.arange(0, n, 5)
    fit = np.setdiff1d(np.arange(n), val)
    return X, y, C, fit, val


def _sq(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)


def _direct(X, y, C, fit, val, t, mu):
    """The solve the comparison used before: lab_ridge_coef (least squares on
    Phi^T Phi + mu P) per pair."""
    Phi = lab_kernel(C, np.full(C.shape, t), X).T
    P = lab_kernel(C, np.full(C.shape, t), C)
    a, b = lab_ridge_coef(Phi[fit], P, y[fit], lam=mu)
    return float(np.mean((Phi[val] @ a + b - y[val]) ** 2)), Phi @ a + b, P, Phi


def _dense_reference(X, y, C, fit, val, t, mu, rtol):
    """The same model by other means: the centres kept by the lab's own greedy pivoted
    Cholesky loop (every dropped centre's kernel function within sqrt(rtol) of their
    span), an orthonormal basis of that span from the eigendecomposition of its kernel
    matrix, and the ridge as a stacked least-squares problem [B; sqrt(mu) I] w = [r; 0]
    (no normal equations)."""
    P = np.exp(-t * t * _sq(C, C))
    _, J = pivoted_cholesky(P, tol=rtol)
    lam, U = np.linalg.eigh(P[np.ix_(J, J)])
    B = np.exp(-t * t * _sq(X, C[J])) @ U / np.sqrt(lam)
    b = y[fit].mean()
    k = J.size
    A = np.vstack([B[fit], np.sqrt(mu) * np.eye(k)])
    w = np.linalg.lstsq(A, np.r_[y[fit] - b, np.zeros(k)], rcond=None)[0]
    pred = B @ w + b
    return float(np.mean((pred[val] - y[val]) ** 2)), pred


@pytest.mark.parametrize("seed, d", [(0, 1), (1, 2), (2, 1)])
def test_matches_the_direct_solve_where_it_is_well_conditioned(seed, d):
    X, y, C, fit, val = _setting(seed, d=d)
    thetas = np.array([0.3, 1.0, 2.0, 4.0, 8.0, 20.0, 50.0])
    mus = np.array([1e-6, 1e-3, 1e-1, 1.0, 10.0])
    S = _sq(X, C)
    E = ridge_path_errors(S[fit], _sq(C, C), y[fit], S[val], y[val], thetas, mus)
    checked = 0
    for i, t in enumerate(thetas):
        for j, mu in enumerate(mus):
            err, _, P, Phi = _direct(X, y, C, fit, val, t, mu)
            if np.linalg.cond(Phi[fit].T @ Phi[fit] + mu * P) > 1e10:
                continue  # the direct solve itself is not accurate there
            checked += 1
            assert E[i, j] == pytest.approx(err, rel=1e-7), (t, mu)
    assert checked >= 10  # the grid reaches well-posed pairs at every seed


@pytest.mark.parametrize("seed, d", [(0, 1), (3, 2)])
def test_matches_a_dense_reference_of_the_same_model_on_the_whole_grid(seed, d):
    """The comparison's own grids against the eigendecomposition-and-stacked-lstsq
    reference of the same model, small (ill-conditioned) widths included. Below a ridge
    of 1e-5 the ridge problem itself, in an orthonormal basis, has a condition number
    above 1e7 (largest feature eigenvalue ~ 100 over the ridge), which amplifies the
    round-off of the basis to more than 1e-7 of the answer in any double-precision
    route: there the two are only required to be finite."""
    X, y, C, fit, val = _setting(seed, d=d)
    thetas, mus = lh.THETA_GRID[::4], lh.MU_GRID
    S = _sq(X, C)
    rtol = 1e-13
    E = ridge_path_errors(S[fit], _sq(C, C), y[fit], S[val], y[val], thetas, mus, rtol=rtol)
    spread = float(np.var(y[val]))
    for i, t in enumerate(thetas):
        for j, mu in enumerate(mus):
            ref, _ = _dense_reference(X, y, C, fit, val, t, mu, rtol)
            assert np.isfinite(E[i, j])
            if mu >= 1e-5:
                assert abs(E[i, j] - ref) <= 1e-7 * spread, (t, mu, E[i, j], ref)


def test_the_fit_at_one_pair_predicts_what_its_error_scored():
    X, y, C, fit, val = _setting(4)
    S = _sq(X, C)
    thetas, mus = np.array([0.5, 3.0, 12.0]), np.array([1e-8, 1e-4, 1.0])
    E = ridge_path_errors(S[fit], _sq(C, C), y[fit], S[val], y[val], thetas, mus)
    for i, t in enumerate(thetas):
        for j, mu in enumerate(mus):
            J, a, b = ridge_path_fit(S[fit], _sq(C, C), y[fit], t, mu)
            pred = np.exp(-t * t * S[val][:, J]) @ a + b
            assert np.mean((pred - y[val]) ** 2) == pytest.approx(E[i, j], rel=1e-6)
    # where P has full numerical rank every centre is a pivot and the fit is the direct
    J, a, b = ridge_path_fit(S, _sq(C, C), y, 12.0, 1e-2)
    assert J.size == C.shape[0]
    _, pred_direct, _, _ = _direct(X, y, C, np.arange(len(y)), np.arange(len(y)), 12.0,
                                   1e-2)
    np.testing.assert_allclose(np.exp(-144.0 * S[:, J]) @ a + b, pred_direct, atol=1e-8)


def test_a_width_whose_kernel_vanishes_predicts_the_mean():
    X, y, C, fit, val = _setting(5)
    S = _sq(X, C)
    S_cc = _sq(C, C)
    E = ridge_path_errors(S[fit], np.full_like(S_cc, np.inf), y[fit], S[val], y[val],
                          [1.0], [1e-3])
    assert E[0, 0] == pytest.approx(np.mean((y[fit].mean() - y[val]) ** 2))
    assert np.all(np.isinf(ridge_path_errors(S[fit], S_cc * np.nan, y[fit], S[val], y[val],
                                             [1.0], [1e-3])))


def _loop_choice(m, X, y):
    """The comparison's choice as a loop over the grid with the dense reference model."""
    Z = m._scale(X)
    C = Z[m.support_]
    fit, val = lh._split(m, y.size)
    best = (np.inf, None, None)
    for t in lh._thetas(m):
        for mu in lh.MU_GRID:
            err, _ = _dense_reference(Z, y, C, fit, val, t, mu, 1e-13)
            if err < best[0]:
                best = (err, t, mu)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("maker, N", [("chirp", 30), ("step", 60), ("chirp", 100)])
def test_one_bandwidth_ridge_chooses_the_loop_s_best_pair(maker, N):
    if maker == "chirp":
        X, y = make_chirp(200, f0=1.0, f1=10.0, noise=0.1, random_state=1)
    else:
        X, y = make_step(200, noise=0.3, random_state=1)
    m = LABRBFRegressor(n_support=N, random_state=0).fit(X, y)
    predict, (t, mu) = lh.one_bandwidth_ridge(m, X, y)
    err, t_ref, mu_ref = _loop_choice(m, X, y)
    Z = m._scale(X)
    fit, val = lh._split(m, y.size)
    chosen, _ = _dense_reference(Z, y, Z[m.support_], fit, val, t, mu, 1e-13)
    # the same validation error (a tie between neighbours may pick either)
    assert chosen == pytest.approx(err, rel=1e-5, abs=1e-9 * np.var(y))
    # and it predicts with that pair refitted on all training points (to 1e-3 of the
    # targets' spread: the chosen ridge can be 1e-6, where round-off is amplified ~1e8)
    _, pred = _dense_reference(Z, y, Z[m.support_], np.arange(y.size), np.arange(y.size),
                               t, mu, 1e-13)
    np.testing.assert_allclose(predict(X), pred, atol=1e-3 * np.std(y))
