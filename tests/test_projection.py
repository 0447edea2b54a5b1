"""Exact projection onto the SVM / SVR dual sets against brute-force QP references."""

import numpy as np
import pytest
from scipy.optimize import minimize

from nplk_core.projection import (
    dual_multiplier,
    project_box,
    project_dual,
    project_dual_from,
    project_svr,
)


def _reference(v, y, C):
    """Brute force: SLSQP on min ||a - v||^2 s.t. a^T y = 0, 0 <= a <= C, polished by
    the KKT form so that the reference reaches 1e-10."""
    n = v.size
    res = minimize(lambda a: 0.5 * np.sum((a - v) ** 2), np.clip(v, 0, C) * 0,
                   jac=lambda a: a - v, bounds=[(0, C)] * n,
                   constraints=[{"type": "eq", "fun": lambda a: a @ y, "jac": lambda a: y}],
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000})
    return res.x


def _kkt_residual(a, v, y, C, lam):
    # stationarity: a = clip(v - lam y, 0, C) is the KKT form of the projection
    return np.max(np.abs(a - np.clip(v - lam * y, 0, C)))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n", [2, 7, 30])
def test_matches_bruteforce_qp(seed, n):
    rng = np.random.default_rng(seed)
    v = rng.normal(scale=2.0, size=n)
    y = rng.choice([-1.0, 1.0], size=n)
    y[0], y[-1] = 1.0, -1.0
    C = float(rng.uniform(0.3, 2.0))
    a = project_dual(v, y, C)
    ref = _reference(v, y, C)
    # the reference solver is accurate to ~1e-8; compare objective and point
    assert np.sum((a - v) ** 2) <= np.sum((ref - v) ** 2) + 1e-10
    np.testing.assert_allclose(a, ref, atol=1e-6)
    # the exact answer is feasible to machine precision
    assert abs(a @ y) < 1e-12 * max(1, np.abs(v).sum())
    assert a.min() >= 0 and a.max() <= C


@pytest.mark.parametrize("seed", range(20))
def test_kkt_conditions_hold_to_machine_precision(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 400))
    v = rng.normal(scale=3.0, size=n)
    y = rng.choice([-1.0, 1.0], size=n)
    y[0], y[1] = 1.0, -1.0
    C = float(rng.uniform(0.1, 5.0))
    a = project_dual(v, y, C)
    lam = dual_multiplier(v, y, C)
    assert _kkt_residual(a, v, y, C, lam) < 1e-12
    assert abs(a @ y) < 1e-9
    # optimality: no feasible direction improves; check against many random feasible points
    pts = np.array([project_dual(rng.normal(scale=3, size=n), y, C) for _ in range(50)])
    d_star = np.sum((a - v) ** 2)
    assert np.all(np.sum((pts - v) ** 2, axis=1) >= d_star - 1e-9)


def test_exactly_matches_lp_over_vertices_small():
    """For n = 2 the set is a segment; the projection is its closest point."""
    v = np.array([0.3, 0.9])
    y = np.array([1.0, -1.0])
    a = project_dual(v, y, 1.0)  # segment a1 = a2 in [0, 1]
    np.testing.assert_allclose(a, [0.6, 0.6], atol=1e-15)


def test_all_one_label_gives_zero():
    v = np.array([0.5, 2.0, -1.0])
    np.testing.assert_array_equal(project_dual(v, np.ones(3), 1.0), np.zeros(3))
    np.testing.assert_array_equal(project_dual(v, -np.ones(3), 1.0), np.zeros(3))


def test_ties_and_degenerate_breakpoints():
    # many equal entries: the breakpoints coincide
    v = np.full(10, 0.5)
    y = np.array([1.0] * 5 + [-1.0] * 5)
    a = project_dual(v, y, 1.0)
    np.testing.assert_allclose(a, v)
    v = np.array([2.0, 2.0, 2.0, -3.0, -3.0])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    a = project_dual(v, y, 1.0)
    np.testing.assert_allclose(a, _reference(v, y, 1.0), atol=1e-6)
    assert abs(a @ y) < 1e-14


def test_fixed_point_for_feasible_input():
    rng = np.random.default_rng(3)
    y = rng.choice([-1.0, 1.0], size=50)
    a0 = project_dual(rng.normal(size=50), y, 0.7)
    np.testing.assert_allclose(project_dual(a0, y, 0.7), a0, atol=1e-14)


def test_box_and_svr_variants():
    np.testing.assert_array_equal(project_box([-1, 0.5, 3], 2.0), [0, 0.5, 2.0])
    rng = np.random.default_rng(5)
    vh, vc = rng.normal(size=6), rng.normal(size=6)
    ah, ac = project_svr(vh, vc, 0.8)
    assert abs(ah.sum() - ac.sum()) < 1e-12
    ref = _reference(np.concatenate([vh, vc]), np.r_[np.ones(6), -np.ones(6)], 0.8)
    np.testing.assert_allclose(np.r_[ah, ac], ref, atol=1e-6)


def test_bad_input():
    with pytest.raises(ValueError, match="C must be > 0"):
        project_dual([1.0, 2.0], [1, -1], 0.0)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        project_dual([1.0, 2.0], [1, 0], 1.0)
    with pytest.raises(ValueError, match="same length"):
        project_dual([1.0, 2.0], [1, -1, 1], 1.0)


@pytest.mark.parametrize("seed", range(6))
def test_warm_started_projection_equals_the_sorting_one(seed):
    """``project_dual_from`` gives the sorting routine's projection from any starting
    multiplier: the last one (the solvers' case), a far one, and one on a breakpoint;
    the multiplier it returns reproduces the projection."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    y = np.where(rng.random(n) < 0.4, -1.0, 1.0)
    y[:2] = [1.0, -1.0]
    C = float(rng.uniform(0.1, 10.0))
    lam = 0.0
    for k in range(25):
        v = rng.normal(scale=C, size=n) + (0.3 * k if seed % 2 else 0.0)
        if k % 5 == 4:
            v[: n // 3] = np.round(v[: n // 3])  # ties among the breakpoints
        starts = [lam, 1e6 * (-1) ** k, float(y[0] * v[0])]
        want = project_dual(v, y, C)
        for lam0 in starts:
            got, lam1 = project_dual_from(v, y, C, lam0)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * max(C, 1.0))
            np.testing.assert_allclose(np.clip(v - lam1 * y, 0.0, C), got, rtol=0,
                                       atol=1e-12 * max(C, 1.0))
        lam = dual_multiplier(v, y, C)
