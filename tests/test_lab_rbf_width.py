"""The fast one-width ridge over a grid (nplk_core.lab_rbf_width) against the direct
least-squares solve it replaces and against a slow dense reference of the same model,
and the comparison that uses it (nplk_lab.model.lab_rbf_halves.one_bandwidth_ridge)
against a loop over the grid."""

import numpy as np
import pytest
import scipy.linalg

from nplk_core.datasets import make_chirp, make_step
from nplk_core.lab_rbf import LABRBFRegressor, lab_kernel, lab_ridge_coef
from nplk_core.lab_rbf_width import (
    ridge_path_errors,
    ridge_path_errors_on_centres,
    ridge_path_fit,
)
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


# ---------------------------------------------------------------------------
# every fitted point a centre, fitted points = validation points
# ---------------------------------------------------------------------------

def _agree(E_fast, E_ref, mus, N):
    """The routes compute the same residual by different factorisations; each is
    backward stable, so they differ by round-off amplified by the ridge problem's
    condition number, at most ||P|| / mu <= N / mu: relative eps * N / mu (times 20)."""
    eps = np.finfo(float).eps
    tol = 1e-12 + 20 * eps * N / np.asarray(mus)[None, :]
    rel = np.abs(E_fast - E_ref) / np.maximum(E_ref, 1e-300)
    assert np.all(np.isfinite(E_fast) == np.isfinite(E_ref))
    ok = np.isfinite(E_ref)
    assert np.all((rel <= tol)[ok]), float(np.max((rel / tol)[ok]))


def _first_best(E):
    return np.unravel_index(int(np.argmin(E)), E.shape)


@pytest.mark.parametrize("seed, n, d", [(0, 60, 1), (1, 90, 2), (2, 140, 1), (3, 45, 3)])
def test_on_centres_matches_the_general_route_on_the_whole_grid(seed, n, d):
    """Every width of the comparison's grid (ranks from 1-3 at the smallest widths to
    full at the largest) and every ridge: the tridiagonal route against the features,
    Gram and eigendecomposition route with the centres as fitted and validation points,
    the centres in a shuffled order (as LAB RBF's support points are)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(4 * X[:, 0]) + 0.1 * rng.normal(size=n) + 3.0
    S = _sq(X, X)
    thetas, mus = lh.THETA_GRID, lh.MU_GRID
    E_ref = ridge_path_errors(S, S, y, S, y, thetas, mus)
    E = ridge_path_errors_on_centres(S, y, thetas, mus)
    _agree(E, E_ref, mus, n)
    assert _first_best(E) == _first_best(E_ref)
    ranks = [scipy.linalg.lapack.dpstrf(np.exp(-t * t * S), tol=1e-13, lower=1)[2]
             for t in thetas]
    assert min(ranks) < n // 2 and max(ranks) == n  # the reduced and the full-rank route both ran


def test_on_centres_at_full_rank_is_kernel_ridge_on_the_training_points():
    """Where P keeps full rank the Nystrom kernel is P itself and the one-width ridge on
    the centres is kernel ridge, residual mu (P + mu I)^-1 r: scikit-learn's KernelRidge
    (gamma = t^2) scored on its own training points."""
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, (50, 1))
    y = np.cos(3 * X[:, 0]) + 0.2 * rng.normal(size=50)
    S = _sq(X, X)
    thetas, mus = np.array([20.0, 40.0]), np.array([1e-4, 1e-2, 1.0])
    assert all(scipy.linalg.lapack.dpstrf(np.exp(-t * t * S), tol=1e-13, lower=1)[2] == 50
               for t in thetas)
    E = ridge_path_errors_on_centres(S, y, thetas, mus)
    for i, t in enumerate(thetas):
        for j, mu in enumerate(mus):
            krr = KernelRidge(kernel="rbf", gamma=t * t, alpha=mu).fit(X, y - y.mean())
            ref = np.mean((krr.predict(X) + y.mean() - y) ** 2)
            assert E[i, j] == pytest.approx(ref, rel=1e-8), (t, mu)


def test_on_centres_when_a_shift_is_not_positive_takes_the_general_route():
    """A shifted tridiagonal that is not positive definite (here a negative ridge) is
    left to the general route, width by width; vanishing and non-finite kernels as
    there."""
    from nplk_core import lab_rbf_width as lw

    rng = np.random.default_rng(8)
    X = rng.uniform(-1, 1, (30, 1))
    y = X[:, 0] ** 2 + 0.1 * rng.normal(size=30)
    S = _sq(X, X)
    P = np.exp(-100.0 * S)
    c, piv, k, _ = scipy.linalg.lapack.dpstrf(P, tol=1e-13, lower=1)
    assert lw._residual_norms(P, c, piv - 1, k, y - y.mean(), np.array([-5.0])) is None
    mus = np.array([-5.0, 1e-3])
    np.testing.assert_allclose(ridge_path_errors_on_centres(S, y, [10.0], mus),
                               ridge_path_errors(S, S, y, S, y, [10.0], mus), rtol=1e-9)
    assert ridge_path_errors_on_centres(np.full_like(S, np.inf), y, [1.0], [1e-3])[0, 0] \
        == pytest.approx(np.mean((y - y.mean()) ** 2))
    assert np.all(np.isinf(ridge_path_errors_on_centres(S * np.nan, y, [1.0], [1e-3])))


@pytest.mark.parametrize("name", [pytest.param(k, marks=[] if k == "step" else pytest.mark.slow)
                                  for k in lh.SETS])
def test_on_centres_on_the_measured_data_sets(name):
    """The halves measurement's data sets (seed 0), every training point a centre (its
    own fits hold points out and take the general route): the same errors and the same
    first best pair on the comparison's grids, features scaled to [-1, 1] as the fit
    does."""
    X, y, _, _, _ = lh.draw(name, 0)
    lo, hi = X.min(axis=0), X.max(axis=0)
    Z = 2 * (X - lo) / np.where(hi > lo, hi - lo, 1.0) - 1
    S = _sq(Z, Z)
    thetas = lh.THETA_GRID[lh.THETA_GRID <= 100.0]
    E_ref = ridge_path_errors(S, S, y, S, y, thetas, lh.MU_GRID)
    E = ridge_path_errors_on_centres(S, y, thetas, lh.MU_GRID)
    _agree(E, E_ref, lh.MU_GRID, y.size)
    assert _first_best(E) == _first_best(E_ref)


# ---------------------------------------------------------------------------
# the general route against the eigendecomposition route it replaced
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed, n, N, n_val, d", [(0, 140, 135, 1, 1), (1, 140, 120, 7, 1),
                                                   (2, 120, 30, 24, 2), (3, 90, 60, 30, 3)])
def test_tridiagonal_route_matches_the_eigendecomposition_route(seed, n, N, n_val, d):
    """Centres among the fitted points (as LAB RBF's support points are), a few or many
    validation points, every width and ridge of the comparison's grids: the same errors
    up to round-off and the same first best pair."""
    from nplk_core.lab_rbf_width import _ridge_path_errors_eigh

    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(4 * X[:, 0]) + 0.1 * rng.normal(size=n)
    val = rng.choice(n, n_val, replace=False)
    fit = np.setdiff1d(np.arange(n), val)
    sv = rng.permutation(fit)[:N]
    C = X[sv]
    S = _sq(X, C)
    args = (S[fit], _sq(C, C), y[fit], S[val], y[val], lh.THETA_GRID, lh.MU_GRID)
    E_ref = _ridge_path_errors_eigh(*args)
    E = ridge_path_errors(*args)
    _agree(E, E_ref, lh.MU_GRID, n)
    assert _first_best(E) == _first_best(E_ref)



def test_the_features_are_solve_triangular_s_bit_for_bit():
    """The features call LAPACK's trtrs directly: the same numbers as
    scipy.linalg.solve_triangular, for a C-ordered factor (as dpstrf's block is) and an
    F-ordered one."""
    from nplk_core.lab_rbf_width import _features, _pivoted_factor

    X, _, C, _, _ = _setting(9, N=40)
    S, S_cc = _sq(X, C), _sq(C, C)
    for t in (0.5, 3.0, 30.0):
        LJ, J = _pivoted_factor(np.exp(-t * t * S_cc), 1e-13)
        ref = scipy.linalg.solve_triangular(LJ, np.exp(-t * t * S[:, J]).T, lower=True).T
        np.testing.assert_array_equal(_features(S, J, t * t, LJ), ref)
        np.testing.assert_array_equal(_features(S, J, t * t, np.asfortranarray(LJ)), ref)
