"""The classification page's decision surfaces from the grid's shared geometry and the
Gaussian kernel factorised over the two axes: each model's surface is its own decision
function on the grid points (within rounding), and the grid-to-training distances are
computed only for the models whose out-of-sample rule needs them."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_circles

import nplk_lab.model as lab
from nplk_lab.model import grids


@pytest.fixture(scope="module")
def circles():
    X, y = make_circles(140, noise=0.15, factor=0.5, random_state=4)
    return X, y


def _fit(method, X, y, **params):
    P = {**lab.defaults(), **params}
    res = lab.fit_method(P, X, y, X[:5], y[:5], method=method)
    assert res.ok, res.messages
    return res.estimator


def test_the_geometry_is_the_plain_pairwise_distance_to_the_last_bit(circles):
    X, _ = circles
    grid = lab.make_grid(X, 60)
    geom = lab.grid_geometry(grid, X)
    direct = ((grid.points[:, None, :] - X[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(geom.sqdist, direct)
    np.testing.assert_array_equal(geom.nearest, np.argmin(direct, axis=1))
    with pytest.raises(ValueError, match="two features"):
        lab.grid_geometry(grid, np.c_[X, X[:, :1]])


@pytest.mark.parametrize("gamma", [0.05, 1.0, 40.0])
def test_factorised_kernel_rows_are_the_exponentials_of_the_distances(circles, gamma):
    X, _ = circles
    geom = lab.grid_geometry(lab.make_grid(X, 50), X)
    S = np.array([0, 3, 7, 50, 139, 3])
    direct = np.exp(-gamma * geom.sqdist[:, S].T)
    np.testing.assert_allclose(geom.kernel_rows(S, gamma), direct, rtol=1e-13, atol=1e-300)
    bare = grids.GridGeometry(geom.X_train, geom.sqdist, geom.nearest, geom.points)
    np.testing.assert_array_equal(bare.kernel_rows(S, gamma), direct)
    assert geom.kernel_rows(np.array([], dtype=int), gamma).shape == (0, 2500)


@pytest.mark.parametrize("method,ext,params", [
    ("knpl", "nearest", {"C": 1.0, "sigma": 0.5}),
    ("knpl", "smooth", {"C": 10.0, "sigma": 1.0}),
    ("dank", "nearest", {"C": 2.0, "sigma": 0.3, "tau": 0.05}),
    ("dank", "smooth", {"C": 1.0, "sigma": 1.0, "tau": 0.05}),
])
def test_rule_models_take_the_geometry_and_match_their_decision(circles, method, ext,
                                                                params):
    """KNPL and DANK borrow learned rows by the distances to the training points: their
    surfaces come from the geometry (asked for once), equal to the estimator's own
    decision function."""
    X, y = circles
    est = _fit(method, X, y, **params)
    grid = lab.make_grid(X, 100)
    asked = []

    def geometry():
        asked.append(1)
        return lab.grid_geometry(grid, X)

    Z, msgs = lab.grid_values(est, grid, extension=ext, geometry=geometry)
    assert msgs == [] and asked == [1]
    ref = est.decision_function(grid.points, extension=ext)
    np.testing.assert_allclose(Z.ravel(), ref, rtol=1e-10, atol=1e-10)
    assert grids._fast_decision(est, geometry, ext) is not None
    # fitted on other points: the estimator answers for itself
    other = lab.grid_geometry(grid, X[::-1].copy())
    assert grids._fast_decision(est, other, ext) is None


@pytest.mark.parametrize("params", [{"C": 1.0, "sigma": 0.4}, {"C": 100.0, "sigma": 2.0},
                                    {"C": 0.05, "sigma": 0.1}])
def test_the_neighbourhood_kernel_surface_is_factorised_and_needs_no_distances(circles,
                                                                               params):
    """The Optimal Neighborhood Kernel's test points see the plain Gaussian kernel, so
    its surface factorises over the axes like the SVM's: its decision function within
    rounding, and the grid-to-training distances are never computed for it."""
    X, y = circles
    est = _fit("onk", X, y, **params)
    grid = lab.make_grid(X, 100)
    asked = []

    def geometry():
        asked.append(1)
        return lab.grid_geometry(grid, X)

    assert grids._tensor_decision(est, grid) is not None
    Z, msgs = lab.grid_values(est, grid, geometry=geometry)
    assert msgs == [] and asked == []
    ref = est.decision_function(grid.points)
    scale = np.abs(est.dual_coef_).sum() + abs(float(est.intercept_))
    np.testing.assert_allclose(Z.ravel(), ref, rtol=0, atol=1e-13 * scale)


def test_models_without_a_shortcut_never_compute_the_distances():
    """Three classes (no surface shortcut for one-vs-rest scores): KNPL, ONK and DANK fall
    back to the estimator without the geometry being built."""
    X, y = make_blobs(90, centers=3, random_state=2)
    grid = lab.make_grid(X, 30)
    asked = []

    def geometry():
        asked.append(1)
        return lab.grid_geometry(grid, X)

    for method in ("knpl", "onk"):
        est = _fit(method, X, y.astype(float))
        assert grids._tensor_decision(est, grid) is None
        assert grids._fast_decision(est, geometry, None) is None
    assert asked == []
