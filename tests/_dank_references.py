"""Dense references for DANK's Newton solver, written without the support trick: F by
an n x n singular value thresholding, the Hessian by the Daleckii-Krein formula as
written (every eigenpair, every pair, every coordinate in a loop)."""

from __future__ import annotations

import numpy as np

from nplk_core.spectral import svt


def dense_F(u, K, eta, tau):
    """F(u) by an n x n singular value thresholding (no support trick)."""
    n = u.size
    return svt(np.ones((n, n)) + np.outer(u, u) * K / (4 * eta), tau / 2)[0]


def dense_hessian(u, K, eta, tau):
    """F o K + eta sum_ij omega_ij (v_i' E_a v_j)(v_i' E_b v_j) over ALL n eigenpairs of
    the n x n M, every pair (i, j) and every (a, b) in a plain loop over a: the
    Daleckii-Krein formula as written, no support trick, no split of the pairs."""
    n = u.size
    s = tau / 2
    M = np.ones((n, n)) + np.outer(u, u) * K / (4 * eta)
    lam, V = np.linalg.eigh(M)
    dpsi = 2 * np.maximum(lam - s, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        omega = (dpsi[:, None] - dpsi[None, :]) / (lam[:, None] - lam[None, :])
    same = np.abs(lam[:, None] - lam[None, :]) < 1e-13 * max(1.0, abs(lam).max())
    second = 2.0 * (lam > s)
    omega[same] = np.broadcast_to(second[:, None], omega.shape)[same]
    T = np.empty((n, n, n))  # T[a] = V' E_a V
    for a in range(n):
        w = u * K[:, a] / (4 * eta)  # E_a = dM/du_a = e_a w^T + w e_a^T
        E = np.outer(np.eye(n)[a], w) + np.outer(w, np.eye(n)[a])
        T[a] = V.T @ E @ V
    D = eta * np.einsum("aij,bij,ij->ab", T, T, omega)
    return dense_F(u, K, eta, tau) * K + D


def dense_grad_f(u, K, eta, tau):
    """(F(u) o K) u, the derivative of the smooth part's -1/2 u'(F o K)u term (Danskin)."""
    return (dense_F(u, K, eta, tau) * K) @ u


def assert_callback_stops_and_max_iter_warns(cls, X, y, **kw):
    """A DANK estimator ``cls(**kw)`` (Newton's solver) stops when its callback says so,
    without a ConvergenceWarning, after two iterations; with ``max_iter=1`` it warns,
    is not converged and records one iteration."""
    import warnings

    import pytest
    from sklearn.exceptions import ConvergenceWarning

    stopped = cls(callback=lambda it, s, t: it >= 1, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        stopped.fit(X, y)
    assert stopped.n_iter_ == 2 and not stopped.converged_
    capped = cls(max_iter=1, **kw)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        capped.fit(X, y)
    assert not capped.converged_ and capped.n_iter_ == 1
    assert len(capped.history_["objective"]) == 1


def slsqp_max(problem, starts, labels):
    """The largest h SLSQP reaches from ``starts`` (the best of them): -h minimised over
    the box [0, C] of the problem's variable with the equality ``labels @ x = 0`` (the SVM
    form's y, the regression form's stacked signs)."""
    from scipy.optimize import minimize

    best = -np.inf
    for s0 in starts:
        r = minimize(lambda a: tuple(-v for v in problem.evaluate(a)[:2]), s0, jac=True,
                     method="SLSQP", bounds=[(0, problem.C)] * s0.size,
                     constraints=[{"type": "eq", "fun": lambda a: a @ labels,
                                   "jac": lambda a: labels}],
                     options={"maxiter": 1000, "ftol": 1e-15})
        best = max(best, -r.fun)
    return best


def assert_newton_history(m, calls):
    """A fitted DANK estimator's Newton history (``calls``: the callback's (iteration,
    objective) pairs): every iteration recorded and reported, the objective never going
    down, the time never back, the last objective the fitted one."""
    import pytest

    assert m.solver_ == "newton" and m.converged_
    hist = m.history_
    assert {"objective", "step_norm", "rank", "time", "gap", "damping"} <= set(hist)
    assert {len(v) for v in hist.values()} == {m.n_iter_}
    assert [c[0] for c in calls] == list(range(m.n_iter_))
    np.testing.assert_allclose([c[1] for c in calls], hist["objective"])
    assert np.all(np.diff(hist["objective"]) >= 0)
    assert np.all(np.diff(hist["time"]) >= 0)
    assert hist["objective"][-1] == pytest.approx(m.objective_)
