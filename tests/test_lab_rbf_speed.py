"""LAB RBF's direct L-BFGS-B loop against the same run through scipy.optimize.minimize.

The direct loop (``_lbfgsb_loop``) drives SciPy's own L-BFGS-B kernel without minimize's
wrappers; it must give the same iterates to the last bit, so every fit through it is the
fit minimize gives: the same history, stages, support set, bandwidths, coefficients and
predictions. Checked on data the loop was not tuned on (two moons, a noisy chirp, the
Laplace kernel, Adam untouched), with the callback's stop and the iteration limit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _numeric import assert_same_lab_rbf_fit
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from nplk_core import _lab_rbf_core as core
from nplk_core.lab_rbf import LABRBFClassifier, LABRBFRegressor

pytestmark = pytest.mark.skipif(core._SETULB is None,
                                reason="SciPy before 1.15: minimize is the only route")


def _fit_both(monkeypatch, make, X, y):
    """The estimator fitted through the direct loop, then through minimize."""
    direct = make().fit(X, y)
    monkeypatch.setattr(core, "_SETULB", None)
    slow = make().fit(X, y)
    monkeypatch.setattr(core, "_SETULB", core._c_lbfgsb())
    return direct, slow


def _chirp(n, seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 1, n))
    return x[:, None], np.sin(2 * np.pi * (1 + 8 * x) * x) + 0.1 * rng.normal(size=n)


@pytest.mark.parametrize("n_support,lam", [(25, 1e-3), (60, 1e-5), (90, 0.3)])
def test_classifier_same_fit_through_the_direct_loop(monkeypatch, n_support, lam):
    X, y = make_moons(120, noise=0.25, random_state=11)
    grid = np.random.default_rng(3).uniform(X.min(0) - 0.5, X.max(0) + 0.5, (500, 2))
    a, b = _fit_both(monkeypatch, lambda: LABRBFClassifier(n_support=n_support, lam=lam,
                                                           random_state=2), X, y)
    assert a.stages_["support_size"].size > 1  # several stages, each a run of the loop
    assert_same_lab_rbf_fit(a, b, grid)
    np.testing.assert_array_equal(a.decision_function(grid), b.decision_function(grid))


@pytest.mark.parametrize("kernel", ["gaussian", "laplace"])
def test_regressor_same_fit_through_the_direct_loop(monkeypatch, kernel):
    X, y = _chirp(150, seed=7)
    a, b = _fit_both(monkeypatch, lambda: LABRBFRegressor(n_support=40, kernel=kernel,
                                                          random_state=0), X, y)
    assert_same_lab_rbf_fit(a, b, np.linspace(-0.1, 1.1, 301)[:, None])


def test_same_stop_by_callback_and_same_iteration_limit(monkeypatch):
    X, y = _chirp(100, seed=4)

    def stop_at_57(it, state, elapsed):
        return it >= 57

    a, b = _fit_both(monkeypatch, lambda: LABRBFRegressor(n_support=30, callback=stop_at_57,
                                                          random_state=0), X, y)
    assert a.n_iter_ == 58 and not a.converged_
    assert_same_lab_rbf_fit(a, b, X)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a, b = _fit_both(monkeypatch, lambda: LABRBFRegressor(
            n_support=20, support_selection="sorted", max_iter=7, tol=0.0,
            validation_fraction=None, random_state=0), X, y)
    assert a.n_iter_ == 7 and not a.converged_
    assert sum(issubclass(w.category, ConvergenceWarning) for w in caught) == 2
    assert_same_lab_rbf_fit(a, b, X)


def test_direct_loop_status_and_optimum_on_a_convex_problem():
    """On a box-constrained quadratic the loop ends converged (status 0) at the
    minimiser, which is known in closed form: the clipped unconstrained minimiser of a
    diagonal quadratic."""
    rng = np.random.default_rng(5)
    h = rng.uniform(0.5, 4.0, 12)
    c = rng.normal(0.5, 1.5, 12)

    def fg(x):
        r = x - c
        return float(0.5 * np.sum(h * r * r)), h * r

    seen = []
    x, status, n_iter = core._lbfgsb_loop(fg, np.full(12, 0.3), 0.0, 1.0,
                                          lambda x, f, g: seen.append(f),
                                          max_iter=200, gtol=1e-10)
    assert status == 0 and n_iter == len(seen) > 0
    np.testing.assert_allclose(x, np.clip(c, 0.0, 1.0), atol=1e-9)
    assert all(b <= a + 1e-15 for a, b in zip(seen[:-1], seen[1:], strict=True))  # descent
    x2, status2, n_iter2 = core._lbfgsb_minimize(fg, np.full(12, 0.3), 0.0, 1.0,
                                                 lambda x, f, g: None, max_iter=200,
                                                 gtol=1e-10)
    np.testing.assert_array_equal(x, x2)
    assert (status, n_iter) == (status2, n_iter2)
