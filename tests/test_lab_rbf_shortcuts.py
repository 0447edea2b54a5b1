"""LAB RBF's shortcuts against the slow dense computations they replace.

The staged fit searches the shared-bandwidth grid of a support set once per fit (the
last stage's start and the final check ask the same), finds the projected gradient's
largest entry in one pass for an interior iterate, and the page's grid of decision
values uses the Gaussian kernel's factorisation over the two features. The first two
must leave every fit the same to the last bit (the loss is far from convex: rounding
alone moves a fit to another optimum); the grid must equal the dense kernel's values up
to rounding and never change a sign that rounding cannot change.
"""

from __future__ import annotations

import numpy as np
import pytest
from _numeric import assert_same_lab_rbf_fit
from sklearn.datasets import make_circles, make_moons

import nplk_lab.model as lab
from nplk_core import _lab_rbf_core as core
from nplk_core.lab_rbf import LABRBFClassifier, LABRBFRegressor, _LABRBFBase


def _dense_projected_max(x, g, lo, hi):
    """The projected gradient's largest entry as the stage loop computed it before."""
    if g is None:
        return np.nan
    return float(np.max(np.abs(np.where(((x <= lo) & (g > 0)) | ((x >= hi) & (g < 0)),
                                        0.0, g)), initial=0.0))


def _no_memo(self, Xs, ys, Xt, yt, bounds, base):
    return self._search_global(Xs, ys, Xt, yt, bounds, base)


def test_projected_max_equals_the_dense_formula():
    rng = np.random.default_rng(8)
    for trial in range(200):
        n = int(rng.integers(1, 40))
        x = rng.uniform(0.0, 2.0, n)
        g = rng.normal(size=n)
        # some entries on each bound, with either sign of the gradient
        x[rng.random(n) < 0.2 * (trial % 3)] = 0.0
        x[rng.random(n) < 0.1 * (trial % 2)] = 2.0
        assert core._projected_max(x, g, 0.0, 2.0) == _dense_projected_max(x, g, 0.0, 2.0)
    assert np.isnan(core._projected_max(np.ones(3), None, 0.0, 1.0))
    assert core._projected_max(np.zeros(0), np.zeros(0), 0.0, 1.0) == 0.0
    # every entry held at its bound: nothing free to move
    assert core._projected_max(np.array([0.0, 1.0]), np.array([3.0, -2.0]), 0.0, 1.0) == 0.0


@pytest.mark.parametrize("make,n_support,lam", [
    (lambda: make_moons(130, noise=0.3, random_state=21), 70, 1e-4),
    (lambda: make_circles(120, noise=0.12, factor=0.5, random_state=4), 100, 0.05),
])
def test_classifier_fit_equals_the_fit_without_the_shortcuts(monkeypatch, make, n_support,
                                                             lam):
    X, y = make()
    searched = []
    real = _LABRBFBase._search_global

    def counting(self, *args):
        searched.append(args[0].shape[0])
        return real(self, *args)

    monkeypatch.setattr(_LABRBFBase, "_search_global", counting)
    fast = LABRBFClassifier(n_support=n_support, lam=lam, random_state=1).fit(X, y)
    n_fast = len(searched)
    monkeypatch.setattr(core, "_projected_max", _dense_projected_max)
    monkeypatch.setattr(_LABRBFBase, "_best_global", _no_memo)
    searched.clear()
    slow = LABRBFClassifier(n_support=n_support, lam=lam, random_state=1).fit(X, y)
    assert slow.stages_["support_size"].size > 2
    assert_same_lab_rbf_fit(fast, slow, X)
    # the final check's grid is the last stage's: searched once less, nothing else
    assert n_fast == len(searched) - 1
    assert sorted(set(searched)) == sorted(set(searched[:n_fast]))


@pytest.mark.parametrize("kernel", ["gaussian", "laplace"])
def test_regressor_fit_equals_the_fit_without_the_shortcuts(monkeypatch, kernel):
    rng = np.random.default_rng(13)
    x = np.sort(rng.uniform(0, 1, 140))
    y = np.sin(2 * np.pi * (1 + 6 * x) * x) + 0.1 * rng.normal(size=x.size)
    X = x[:, None]
    fast = LABRBFRegressor(n_support=45, kernel=kernel, random_state=0).fit(X, y)
    monkeypatch.setattr(core, "_projected_max", _dense_projected_max)
    monkeypatch.setattr(_LABRBFBase, "_best_global", _no_memo)
    slow = LABRBFRegressor(n_support=45, kernel=kernel, random_state=0).fit(X, y)
    assert_same_lab_rbf_fit(fast, slow, X)


@pytest.mark.parametrize("n_support,lam", [(25, 1e-3), (90, 1e-6), (200, 0.3)])
def test_grid_values_from_the_factorised_kernel_equal_the_dense_kernel(n_support, lam):
    X, y = make_moons(140, noise=0.3, random_state=33)
    est = LABRBFClassifier(n_support=n_support, lam=lam, random_state=0).fit(X, y)
    grid = lab.make_grid(X, 100)
    dense = est.decision_function(grid.points)
    F = est._grid_decision(grid.xs, grid.ys)
    assert F.shape == grid.shape
    scale = np.abs(est.dual_coef_).sum() + abs(est.intercept_)
    np.testing.assert_allclose(F.ravel(), dense, rtol=0, atol=1e-13 * scale)
    # the page's grid takes this route (on one BLAS thread: the product's rounding)
    calls = []
    real = est._grid_decision
    est._grid_decision = lambda xs, ys: calls.append(1) or real(xs, ys)
    Z, msgs = lab.grid_values(est, grid)
    assert not msgs and calls == [1]
    np.testing.assert_allclose(Z, F, rtol=0, atol=1e-13 * scale)
    # a sign moves only where rounding could move it
    flip = np.sign(F.ravel()) != np.sign(dense)
    assert np.all(np.abs(dense[flip]) <= 1e-13 * scale)


def test_grid_values_fall_back_to_the_dense_kernel_where_it_does_not_factorise():
    X, y = make_moons(80, noise=0.3, random_state=3)
    grid = lab.make_grid(X, 30)
    lap = LABRBFClassifier(n_support=20, kernel="laplace", random_state=0).fit(X, y)
    assert lap._grid_decision(grid.xs, grid.ys) is None
    Z, _ = lab.grid_values(lap, grid)
    np.testing.assert_array_equal(Z.ravel(), lap.decision_function(grid.points))
    X3 = np.column_stack([X, np.cos(X[:, 0])])
    three = LABRBFClassifier(n_support=20, random_state=0).fit(X3, y)
    assert three._grid_decision(grid.xs, grid.ys) is None


def test_stage_max_iter_caps_every_stage_but_the_last():
    X, y = make_moons(140, noise=0.3, random_state=41)
    full = LABRBFClassifier(n_support=90, random_state=0).fit(X, y)
    n_iter = full.stages_["n_iter"]
    assert n_iter[:-1].max() > 20  # the cap below binds
    capped = LABRBFClassifier(n_support=90, stage_max_iter=20, random_state=0).fit(X, y)
    assert capped.stages_["support_size"][-1] == 90
    assert capped.stages_["n_iter"][:-1].max() <= 20
    assert capped.n_iter_ < full.n_iter_
    # the history's stage column counts the same iterations
    stages, counts = np.unique(capped.history_["stage"], return_counts=True)
    np.testing.assert_array_equal(counts, capped.stages_["n_iter"][stages.astype(int)])
    # a cap no stage reaches leaves the fit as it was, to the last bit
    loose = LABRBFClassifier(n_support=90, stage_max_iter=int(n_iter.max()) + 1,
                             random_state=0).fit(X, y)
    assert_same_lab_rbf_fit(loose, full, X)


def test_stage_max_iter_is_checked():
    X, y = make_moons(40, noise=0.3, random_state=1)
    for bad in (0, -3, 2.5, "50"):
        with pytest.raises(ValueError, match="stage_max_iter"):
            LABRBFClassifier(n_support=10, stage_max_iter=bad).fit(X, y)


@pytest.mark.parametrize("C,sigma", [(1.0, 0.3), (50.0, 1.5)])
def test_svm_grid_from_the_factorised_kernel_and_the_geometry_only_when_needed(C, sigma):
    """The plain SVM's surface (the reference boundary on every classification page)
    takes the same factorisation: the SVC's decision function within rounding, and the
    grid-to-training distances are not computed for it, only for DANK."""
    X, y = make_circles(140, noise=0.15, factor=0.5, random_state=9)
    grid = lab.make_grid(X, 100)
    svm = lab.fit_baseline_svm(X, y, C=C, sigma=sigma)
    asked = []

    def geometry():
        asked.append(1)
        return lab.grid_geometry(grid, X)

    Z, msgs = lab.grid_values(svm, grid, geometry=geometry)
    assert not msgs and asked == []
    ref = svm.decision_function(grid.points)
    scale = np.abs(svm.dual_coef_).sum() + abs(svm.intercept_[0])
    np.testing.assert_allclose(Z.ravel(), ref, rtol=0, atol=1e-13 * scale)
    res = lab.fit_method({**lab.defaults(), "sigma": sigma}, X, y, X[:5], y[:5],
                         method="dank")
    Zd, _ = lab.grid_values(res.estimator, grid, extension="nearest", geometry=geometry)
    assert asked == [1]
    np.testing.assert_allclose(Zd.ravel(), res.estimator.decision_function(
        grid.points, extension="nearest"), rtol=1e-10, atol=1e-10)


def test_the_classification_page_caps_the_stages_before_the_support_count():
    """The Classification page's LAB RBF is the estimator with stage_max_iter (the
    exported code builds the same one): every stage before the one at the support count
    within the cap, the same fit as the estimator built by hand."""
    cls, lam = LABRBFClassifier, 1e-4
    data, _ = lab.prepare_data({**lab.defaults()}, lab.CLASSIFICATION)
    P = {**lab.defaults(), "n_support": 100, "lam": lam}
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="lab_rbf")
    est = res.estimator
    cap = lab.methods.LAB_RBF_STAGE_ITER
    assert est.stage_max_iter == cap
    assert est.stages_["n_iter"][:-1].max() <= cap
    ref = cls(n_support=100, lam=lam, stage_max_iter=cap,
              random_state=est.random_state).fit(data.X_train, data.y_train)
    assert_same_lab_rbf_fit(est, ref, data.X_test)
    uncapped = cls(n_support=100, lam=lam,
                   random_state=est.random_state).fit(data.X_train, data.y_train)
    assert uncapped.stages_["n_iter"][:-1].max() > cap  # the cap binds at this point


def test_the_regression_page_runs_every_stage_to_its_tolerance():
    """The Regression page's LAB RBF is the estimator as it comes (no stage cap): the
    atlas's cells and the LAB RBF lesson are measured on this fit."""
    data, _ = lab.prepare_data({**lab.defaults()}, lab.REGRESSION)
    P = {**lab.defaults(), "n_support": 60, "lam": 1e-5}
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="lab_rbf_reg")
    assert res.estimator.stage_max_iter is None
    ref = LABRBFRegressor(n_support=60, lam=1e-5,
                          random_state=res.estimator.random_state).fit(data.X_train,
                                                                       data.y_train)
    assert_same_lab_rbf_fit(res.estimator, ref, data.X_test)
