"""LAB RBF with validation-chosen settings (nplk_core/lab_rbf_select.py): the choice is the
validation argmin, the refit is the chosen LABRBFRegressor, bad grids are named, the
scikit-learn contract; never worse than the training mean on real data, and
the measured (unmet) claim against one bandwidth."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from nplk_core.datasets import chirp_function, make_chirp
from nplk_core.lab_rbf import LABRBFRegressor
from nplk_core.lab_rbf_select import LABRBFRegressorCV

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _small(seed=0, n=120):
    return make_chirp(n, f0=1.0, f1=6.0, noise=0.1, random_state=seed)


@pytest.mark.slow
@pytest.mark.parametrize("cv", [None, 3])
def test_choice_is_the_validation_argmin_and_the_refit_is_that_estimator(cv):
    X, y = _small()
    m = LABRBFRegressorCV(lam_grid=(1e-3, 1e-1, 10.0), support_selection_grid=("random",),
                          n_support_grid=(8, 15), cv=cv, rule="min", max_iter=60,
                          random_state=3).fit(X, y)
    res = m.cv_results_
    assert len(res["params"]) == 6
    # recompute every candidate's validation error from scratch
    n = y.size
    perm = np.random.RandomState(3).permutation(n)
    vals = [perm[:round(0.2 * n)]] if cv is None else np.array_split(perm, cv)
    assert np.array_equal(m.validation_, np.sort(vals[0]))
    for params, mse in zip(res["params"], res["val_mse"], strict=True):
        sse = 0.0
        for v in vals:
            tr = np.setdiff1d(np.arange(n), v)
            f = LABRBFRegressor(max_iter=60, random_state=m.candidate_seed_, **params)
            sse += np.sum((f.fit(X[tr], y[tr]).predict(X[v]) - y[v]) ** 2)
        assert mse == pytest.approx(sse / sum(len(v) for v in vals), rel=1e-10)
    best = int(np.argmin(res["val_mse"]))
    assert m.best_params_ == res["params"][best]
    ref = LABRBFRegressor(max_iter=60, random_state=m.candidate_seed_, **m.best_params_)
    np.testing.assert_array_equal(m.predict(X), ref.fit(X, y).predict(X))
    np.testing.assert_array_equal(m.support_, ref.support_)


@pytest.mark.slow
def test_one_se_rule_picks_the_most_regularised_candidate_within_one_standard_error():
    X, y = _small(4)
    kw = dict(lam_grid=(1e-3, 1e-2, 1e-1, 1.0, 10.0), support_selection_grid=("random",),
              n_support_grid=(15,), max_iter=60, random_state=5)
    m_min = LABRBFRegressorCV(rule="min", **kw).fit(X, y)
    m_1se = LABRBFRegressorCV(rule="1se", **kw).fit(X, y)
    mse = np.asarray(m_min.cv_results_["val_mse"])
    np.testing.assert_array_equal(mse, m_1se.cv_results_["val_mse"])  # same candidates
    best = int(np.argmin(mse))
    # rebuild the per-point squared errors of the chosen and the best candidate
    n, v = y.size, m_1se.validation_
    tr = np.setdiff1d(np.arange(n), v)

    def sq(params):
        f = LABRBFRegressor(max_iter=60, random_state=m_1se.candidate_seed_, **params)
        return (f.fit(X[tr], y[tr]).predict(X[v]) - y[v]) ** 2
    params = m_1se.cv_results_["params"]
    chosen = params.index(m_1se.best_params_)
    diff = sq(params[chosen]) - sq(params[best])
    assert mse[chosen] <= mse[best] + diff.std(ddof=1) / np.sqrt(diff.size)
    assert m_1se.best_params_["lam"] >= m_min.best_params_["lam"]
    # no larger lambda is within one standard error
    for i, p in enumerate(params):
        if p["lam"] > m_1se.best_params_["lam"]:
            d = sq(p) - sq(params[best])
            assert mse[i] > mse[best] + d.std(ddof=1) / np.sqrt(d.size)


def test_large_ridge_shrinks_to_the_mean_of_the_support_labels():
    """Why a validation-chosen lambda protects against noise: f(x_j) = y_j - lam alpha_j on
    the supports, and as lam grows f tends to the constant mean(y_sv)."""
    X, y = _small(1)
    spreads = []
    for lam in (1e-3, 1.0, 1e3):
        m = LABRBFRegressor(n_support=15, lam=lam, max_iter=60, random_state=0).fit(X, y)
        spreads.append(np.ptp(m.predict(X)))
        assert m.intercept_ == pytest.approx(y[m.support_].mean())
    assert spreads[0] > spreads[1] > spreads[2]
    assert spreads[2] < 0.01 * spreads[0]


@pytest.mark.parametrize("params, match", [
    ({"lam_grid": ()}, "lam_grid"),
    ({"lam_grid": (1.0, -1.0)}, "lam_grid"),
    ({"lam_grid": "1"}, "lam_grid"),
    ({"support_selection_grid": ("nearest",)}, "support_selection_grid"),
    ({"n_support_grid": (1,)}, "n_support_grid"),
    ({"cv": 1}, "cv"),
    ({"rule": "max"}, "rule"),
    ({"validation_fraction": 1.0}, "validation_fraction"),
])
def test_bad_parameters_name_the_parameter(params, match):
    X, y = _small()
    with pytest.raises(ValueError, match=match):
        LABRBFRegressorCV(**params).fit(X, y)


def test_too_few_samples_for_the_folds_says_what_to_do():
    X, y = _small(n=10)
    with pytest.raises(ValueError, match="Lower cv or add data"):
        LABRBFRegressorCV(cv=5).fit(X, y)


@parametrize_with_checks([
    LABRBFRegressorCV(lam_grid=(1e-2, 1.0), support_selection_grid=("random",),
                      n_support_grid=(8,), max_iter=15, random_state=0),
])
@pytest.mark.slow
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


# ---------------------------------------------------------------------------
# never worse than the training mean on real data
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", ["diabetes", "friedman1"])
def test_never_worse_than_the_training_mean_on_real_data(name):
    """Held-out R² > 0 on each of 10 random 70/30 splits (scikit-learn's
    diabetes, 442 x 10, and Friedman #1, 600 x 10 with noise 1). The paper's defaults
    (lambda = 1e-3) fall below the mean on 4 of the 10 diabetes splits (down to -0.23):
    the coefficients interpolate 30 noisy labels."""
    X, y = load_diabetes(return_X_y=True) if name == "diabetes" else \
        make_friedman1(600, noise=1.0, random_state=0)
    r2s = []
    for s in range(10):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=s)
        m = LABRBFRegressorCV(random_state=s).fit(Xtr, ytr)
        r2s.append(r2_score(yte, m.predict(Xte)))
    assert min(r2s) > 0, np.round(r2s, 3)


def _sor(C, X, y, gamma, lam):
    """Subset-of-regressors ridge on centres C (benchmarks/bench_lab_rbf.py --against):
    ``a = (K_nm^T K_nm + lam K_mm)^-1 K_nm^T (y - mean y)``."""
    def k(A, B):
        return np.exp(-gamma * (A[:, None, 0] - B[None, :, 0]) ** 2)
    Knm = k(X, C)
    A = Knm.T @ Knm + lam * k(C, C)
    A[np.diag_indices_from(A)] += 1e-10 * np.trace(A) / len(C)
    b = y.mean()
    a = np.linalg.solve(A, Knm.T @ (y - b))
    return lambda Z: k(Z, C) @ a + b


def test_one_bandwidth_reference_is_kernel_ridge_when_every_point_is_a_centre():
    """With the centres = the data, (K^2 + lam K) a = K y gives KernelRidge's (K + lam I)^-1 y."""
    X, y = _small(2, n=40)
    Z = np.linspace(0, 1, 50)[:, None]
    for gamma, lam in ((5.0, 1e-1), (30.0, 1e-2)):
        ref = KernelRidge(kernel="rbf", gamma=gamma, alpha=lam).fit(X, y - y.mean())
        np.testing.assert_allclose(_sor(X, X, y, gamma, lam)(Z), ref.predict(Z) + y.mean(),
                                   rtol=0, atol=2e-4)  # K^2 squares the condition number


def _one_bandwidth_r2(C, X, y, val, Xte, yte):
    """Best one-bandwidth SoR ridge on centres C, gamma and lam chosen on ``val`` (fit on
    the rest), refitted on all of X; R² on the test grid."""
    tr = np.setdiff1d(np.arange(y.size), val)
    best = max(((r2_score(y[val], _sor(C, X[tr], y[tr], g, lam)(X[val])), g, lam)
                for g in np.logspace(-1, 6, 36) for lam in 10.0 ** np.arange(-8, 3)),
               key=lambda t: t[0])
    return r2_score(yte, _sor(C, X, y, best[1], best[2])(Xte))


@pytest.mark.slow
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "the claim against one bandwidth, NOT met (docs/lab-rbf-against-one-bandwidth.md): "
    "on the chirp, "
    "n = 300, noise 0.1, 30 supports, LAB RBF CV is at or above the one-bandwidth ridge on "
    "its supports at 0-2 of seeds 0-9; even the bandwidths trained on the noiseless "
    "function itself fall short, because the coefficients interpolate 30 noisy labels. "
    "Strict: this test starts failing (XPASS) the day the claim holds."))
def test_at_least_8_of_10_seeds_above_the_best_one_bandwidth_ridge_on_the_chirp():
    grid = np.linspace(0.0, 1.0, 1000)[:, None]
    g = chirp_function(grid[:, 0], 1.0, 10.0)
    wins = 0
    for seed in range(10):
        X, y = make_chirp(300, f0=1.0, f1=10.0, noise=0.1, random_state=seed)
        m = LABRBFRegressorCV(random_state=seed).fit(X, y)
        lab = r2_score(g, m.predict(grid))
        wins += lab >= _one_bandwidth_r2(X[m.support_], X, y, m.validation_, grid, g)
        if wins + (9 - seed) < 8:
            break  # cannot reach 8 any more
    assert wins >= 8
