"""Baselines (docs/the-maths-of-every-method.md, "Baselines") reproduce the scikit-learn
objects they wrap."""

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.svm import SVC, SVR
from sklearn.utils.estimator_checks import parametrize_with_checks

from nplk_core.baselines import (
    DEFAULT_GRID,
    KernelRidgeBaseline,
    MKLUniformClassifier,
    SVMCVClassifier,
    SVRCVRegressor,
    uniform_mkl_kernel,
)
from nplk_core.kernels import gaussian_kernel

SMALL = (0.25, 1.0, 4.0)


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(120, noise=0.25, random_state=0)
    Xte, _ = make_moons(200, noise=0.25, random_state=1)
    return X, y, Xte


@pytest.fixture(scope="module")
def wave():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (100, 2))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.1 * rng.normal(size=100)
    return X, y, rng.uniform(-3, 3, (150, 2))


def test_default_grid_is_two_to_the_minus_five_to_five():
    np.testing.assert_array_equal(DEFAULT_GRID, 2.0 ** np.arange(-5, 6))


@pytest.mark.slow
@pytest.mark.parametrize("random_state, k", [(None, np.arange(-5, 6)), (3, np.arange(-3, 4))])
def test_svm_cv_equals_hand_built_grid_search(moons, random_state, k):
    X, y, Xte = moons
    grid_values = tuple(2.0 ** k)
    ours = SVMCVClassifier(sigma_grid=grid_values, C_grid=grid_values, cv=3,
                           random_state=random_state).fit(X, y)
    folds = (StratifiedKFold(3) if random_state is None
             else StratifiedKFold(3, shuffle=True, random_state=random_state))
    grid = {"gamma": [1 / (2 * s ** 2) for s in grid_values], "C": list(grid_values)}
    ref = GridSearchCV(SVC(kernel="rbf"), grid, cv=folds).fit(X, y)
    assert ours.best_C_ == ref.best_params_["C"]
    assert 1 / (2 * ours.best_sigma_ ** 2) == pytest.approx(ref.best_params_["gamma"])
    assert ours.best_sigma_ in grid_values
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(Xte))
    np.testing.assert_array_equal(ours.support_, ref.best_estimator_.support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.best_estimator_.dual_coef_)
    # the refitted model is an SVC with the chosen parameters
    direct = SVC(gamma=1 / (2 * ours.best_sigma_ ** 2), C=ours.best_C_).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(Xte), direct.decision_function(Xte))


def test_svr_cv_equals_hand_built_grid_search(wave):
    X, y, Xte = wave
    ours = SVRCVRegressor(sigma_grid=SMALL, C_grid=SMALL, epsilon=0.05, cv=4,
                          random_state=1).fit(X, y)
    ref = GridSearchCV(SVR(epsilon=0.05), {"gamma": [1 / (2 * s ** 2) for s in SMALL],
                                           "C": list(SMALL)},
                       cv=KFold(4, shuffle=True, random_state=1)).fit(X, y)
    assert (ours.best_sigma_, ours.best_C_) == (
        SMALL[[1 / (2 * s ** 2) for s in SMALL].index(ref.best_params_["gamma"])],
        ref.best_params_["C"])
    np.testing.assert_allclose(ours.predict(Xte), ref.predict(Xte))
    np.testing.assert_allclose(ours.intercept_, ref.best_estimator_.intercept_)
    assert ours.score(X, y) > 0.8


def test_kernel_ridge_baseline_is_kernel_ridge(wave):
    X, y, Xte = wave
    ours = KernelRidgeBaseline(sigma=0.7, alpha=1e-2).fit(X, y)
    ref = KernelRidge(kernel="rbf", gamma=1 / (2 * 0.7 ** 2), alpha=1e-2).fit(X, y)
    np.testing.assert_allclose(ours.predict(Xte), ref.predict(Xte), rtol=1e-12)
    assert isinstance(ours.best_estimator_, KernelRidge) and ours.cv_results_ is None
    # and KernelRidge is (K + alpha I)^{-1} y with the paper's Gaussian kernel
    a = np.linalg.solve(gaussian_kernel(X, sigma=0.7) + 1e-2 * np.eye(len(X)), y)
    np.testing.assert_allclose(ours.predict(Xte), gaussian_kernel(Xte, X, sigma=0.7) @ a,
                               rtol=1e-8, atol=1e-10)


def test_kernel_ridge_baseline_cv(wave):
    X, y, Xte = wave
    ours = KernelRidgeBaseline(cv=3, sigma_grid=SMALL, alpha_grid=(1e-3, 1e-1)).fit(X, y)
    ref = GridSearchCV(KernelRidge(kernel="rbf"),
                       {"gamma": [1 / (2 * s ** 2) for s in SMALL], "alpha": [1e-3, 1e-1]},
                       cv=KFold(3)).fit(X, y)
    assert ours.best_alpha_ == ref.best_params_["alpha"]
    np.testing.assert_allclose(ours.predict(Xte), ref.predict(Xte))
    assert ours.best_sigma_ in SMALL


def test_uniform_mkl_kernel_is_the_mean_and_psd(moons):
    X, _, Xte = moons
    K = uniform_mkl_kernel(X)
    ref = np.mean([gaussian_kernel(X, sigma=s) for s in 2.0 ** np.arange(-5, 6)], axis=0)
    np.testing.assert_allclose(K, ref, rtol=1e-12)
    np.testing.assert_allclose(K, K.T, atol=0)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    np.testing.assert_allclose(np.diag(K), 1.0)
    cross = uniform_mkl_kernel(Xte, X)
    ref_cross = np.mean([gaussian_kernel(Xte, X, sigma=s) for s in 2.0 ** np.arange(-5, 6)],
                        axis=0)
    np.testing.assert_allclose(cross, ref_cross, rtol=1e-12)


def test_mkl_uniform_equals_precomputed_svc(moons):
    X, y, Xte = moons
    ours = MKLUniformClassifier(cv=3).fit(X, y)
    K = uniform_mkl_kernel(X)
    ref = GridSearchCV(SVC(kernel="precomputed"), {"C": list(2.0 ** np.arange(-5, 6))},
                       cv=StratifiedKFold(3)).fit(K, y)
    assert ours.best_C_ == ref.best_params_["C"]
    Kte = uniform_mkl_kernel(Xte, X)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Kte))
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(Kte))
    np.testing.assert_allclose(ours.kernel_weights_, np.full(11, 1 / 11))
    assert ours.score(X, y) > 0.85
    # new data of another size works (the cross-kernel is rectangular)
    assert ours.predict(Xte[:7]).shape == (7,)


def test_labels_are_kept(moons):
    X, y, Xte = moons
    labels = np.array(["a", "b"])[y]
    for est in (SVMCVClassifier(sigma_grid=SMALL, C_grid=SMALL, cv=2),
                MKLUniformClassifier(C_grid=SMALL, cv=2)):
        est.fit(X, labels)
        np.testing.assert_array_equal(est.classes_, ["a", "b"])
        assert set(est.predict(Xte)) <= {"a", "b"}


@pytest.mark.parametrize("est, match", [
    (SVMCVClassifier(sigma_grid=()), "sigma_grid"),
    (SVMCVClassifier(C_grid=(1.0, -2.0)), "C_grid"),
    (SVMCVClassifier(cv=1), "cv"),
    (SVRCVRegressor(epsilon=-0.1), "epsilon"),
    (KernelRidgeBaseline(sigma=0.0), "sigma"),
    (KernelRidgeBaseline(alpha=-1.0), "alpha"),
    (MKLUniformClassifier(sigmas=(1.0, np.inf)), "sigmas"),
])
def test_bad_parameters_name_the_parameter(est, match, moons):
    X, y, _ = moons
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_data():
    X, y = make_moons(40, random_state=0)
    Xbad = X.copy()
    Xbad[0, 0] = np.nan
    for est in (SVMCVClassifier(cv=2), MKLUniformClassifier(cv=2), SVRCVRegressor(cv=2),
                KernelRidgeBaseline()):
        with pytest.raises(ValueError, match="NaN"):
            est.fit(Xbad, y)
    for est in (SVMCVClassifier(cv=2), MKLUniformClassifier(cv=2)):
        with pytest.raises(ValueError, match="only one"):
            est.fit(X, np.zeros(40))
    with pytest.raises(ValueError, match="at least cv=5"):
        SVRCVRegressor().fit(X[:3], y[:3])


@parametrize_with_checks([
    SVMCVClassifier(sigma_grid=(0.5, 2.0), C_grid=(1.0, 10.0), cv=2),
    SVRCVRegressor(sigma_grid=(0.5, 2.0), C_grid=(1.0, 10.0), cv=2),
    KernelRidgeBaseline(),
    KernelRidgeBaseline(cv=2, sigma_grid=(0.5, 2.0), alpha_grid=(1e-2, 1.0)),
    MKLUniformClassifier(C_grid=(1.0, 10.0), cv=2),
])
@pytest.mark.slow
def test_sklearn_compatible(estimator, check):
    check(estimator)
