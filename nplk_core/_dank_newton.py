r"""DANK by Newton's method, in SVR and in SVM: the exact Hessian of ``h`` and a
box-constrained quadratic step (docs/the-maths-of-every-method.md, 'DANK — Learning
Data-adaptive Non-parametric Kernels'; see :mod:`nplk_core._dank_core` for ``h`` and the
first-order solvers).

In ``u = a_hat - a_check`` DANK-SVR maximises ``h(u) = f(u) - eps ||u||_1`` over
``{|u| <= C, 1^T u = 0}`` (:class:`nplk_core._dank_core._SvrOracle`); in ``u = y o alpha``
DANK in SVM maximises the same ``f`` (``y`` then the labels, no ``eps`` term) over
``{0 <= y_i u_i <= C, 1^T u = 0}`` (:class:`_SvmOracle`: each variable keeps the sign of
its label). The smooth part is

.. math::

    f(u) = y^\top u + \eta n^2 - \eta \sum_i \psi(\lambda_i(M(u))),\qquad
    \psi(\lambda) = (\lambda - s)_+^2,\quad s = \tau/2,\quad
    M(u) = 11^\top + \operatorname{diag}(u) K \operatorname{diag}(u) / (4\eta),

because ``min_F ||F - 11^T||^2 - 2<F, Gamma> + tau ||F||_*`` over PSD ``F`` is
``n^2 - ||J_s(M)||_F^2`` at ``F = J_s(M)``. Its gradient is ``y - (F o K) u`` (eq. 25
corrected) and its Hessian is ``-(F o K + D)``, where ``D`` is the curvature of ``F``
itself (the Daleckii-Krein formula for the spectral function ``sum psi(lambda_i)``):

.. math::

    D_{ab} = \eta \sum_{i,j} \omega_{ij}\, (v_i^\top E_a v_j)(v_i^\top E_b v_j),\qquad
    E_a = \partial M / \partial u_a,\qquad
    \omega_{ij} = \frac{\psi'(\lambda_i) - \psi'(\lambda_j)}{\lambda_i - \lambda_j}

(``omega_ii = psi''``: 2 above ``s``, 0 below) over the eigenpairs ``(lambda_i, v_i)`` of
``M``. ``omega`` vanishes where both eigenvalues are at most ``s``, so with ``k`` of them
above (the rank of ``F``) ``D`` costs ``O(n^2 k r)`` on the support trick's
``r = |S| + 1`` eigenvectors, or ``O(n^2 (r - k) r)`` through the complement when ``k``
is most of ``r``; the null space of ``M`` adds one ``O(n^2 k)`` term. ``D`` is what
makes the first-order solvers slow at a large ``eta``: there ``F o K`` is close to an
ill-conditioned kernel whose flat directions only ``D`` curves, and the fixed-``F``
model alone (an SVR with kernel ``F o K``) overshoots along them.

**The step.** At ``u_k`` the model ``g^T d - 1/2 d^T (H + rho I) d - eps ||u_k + d||_1``
(``H = F o K + D``) is maximised over the feasible set exactly, by primal-dual active
sets (:func:`box_qp`: each pass solves the free variables' equality-constrained
system, warm-started from the previous step's partition, so near the optimum one pass
is usual). The step is taken when ``h`` rises by at least a tenth of the model's
prediction; otherwise ``rho`` rises to the curvature the failed trial measured (a
Levenberg-Marquardt damping, which also makes the step's quadratic program easy when
its active sets do not settle) and the step is solved again.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dsyrk as _syrk

from ._base import IterationLog
from ._dank_core import DankProblem, SolveResult, _shrink_start, _SvrOracle, frank_wolfe_gap
from .spectral import eigh_full

#: the solve stops when the model's largest increase of ``h`` is below this share of
#: ``|h|``: the quadratic model is exact to second order, so ``h`` is then final to
#: about this accuracy (the first-order solvers stop within ~1e-7 of it)
NEWTON_RTOL = 1e-11
#: the solve also stops when the Frank-Wolfe gap, an upper bound on ``h* - h``, is below
#: this share of ``|h|`` (the accelerated solver's bound, 1e-7, would stop a Newton
#: iteration short of the accuracy the next one reaches)
NEWTON_GAP_RTOL = 1e-10
#: a step is taken when ``h`` rises by at least this share of the model's prediction
NEWTON_ACCEPT = 0.1
#: the damping ``rho`` never falls below this share of the mean diagonal of ``H``
NEWTON_RHO_FLOOR = 1e-10
#: the stop tests (a step shorter than ``tol``, a model increase below
#: :data:`NEWTON_RTOL`) count only when the step's damping is at most this share of the
#: mean diagonal of ``H``: a step damped more is short because of the damping
NEWTON_RHO_TRUST = 1e-3
#: when the step's active sets do not settle, ``rho`` rises to at least this share of
#: the mean diagonal of ``H`` (then the step is close to a scaled gradient step)
NEWTON_RHO_RESCUE = 1e-4
#: beyond this share of the mean diagonal of ``H`` a damped step is shorter than
#: round-off: if it still cannot raise ``h`` the solve ends (unconverged)
NEWTON_RHO_CEILING = 1e12
#: passes of the active-set method before a step counts as unsettled
BOX_QP_MAX_ITER = 50
#: violations of a place's conditions smaller than this share of the data's scale are
#: round-off (:func:`box_qp`)
BOX_QP_SLACK = 1e-12


# ---------------------------------------------------------------------------
# the exact Hessian
# ---------------------------------------------------------------------------

def dank_hessian(u: np.ndarray, K: np.ndarray, eta: float, tau: float) -> np.ndarray:
    r"""``H = F(u) o K + D(u)``: minus the Hessian of DANK's smooth part ``f`` in ``u``
    (module docstring; the same in SVM and in SVR), exactly, through the support trick of
    :func:`nplk_core._dank_core.inner_F` with all its eigenpairs.

    With ``V`` the ``n x r`` eigenvectors of ``M`` in its range (``P V_c``),
    ``Z = K diag(u) V / (4 eta)`` and ``T = {i : lambda_i > s}``,
    ``v_i^T E_a v_j = V_ai Z_aj + Z_ai V_aj``; the null space of ``M`` (vectors on the
    points outside the support, orthogonal to their all-ones vector) has ``Z = 0`` there
    and contributes ``eta Pi o (Z_T diag(4 (lambda_i - s) / lambda_i) Z_T^T)``.
    """
    u = np.asarray(u, dtype=float)
    n = u.size
    s = 0.5 * tau
    S = np.flatnonzero(u)
    m = S.size
    if m == 0:  # F = J_s(11^T): rank one, and Gamma's derivative vanishes at u = 0
        return max(n - s, 0.0) / n * K
    c = n - m
    uS = u[S]
    G = K[np.ix_(S, S)] * np.outer(uS, uS) / (4.0 * eta)
    if c > 0:
        p = np.ones(m + 1)
        p[m] = math.sqrt(c)
        Mc = np.outer(p, p)
        Mc[:m, :m] += G
    else:
        Mc = G + 1.0
    lam, Vc = eigh_full(0.5 * (Mc + Mc.T))
    w = np.maximum(lam - s, 0.0)
    inner = inner_F_from(S, Vc, w, n)
    H = inner.dense() * K
    top = lam > s
    k = int(top.sum())
    if k == 0:
        return H
    # eigenvectors of M in R^n and Z = K diag(u) V / (4 eta)
    V = np.empty((n, Vc.shape[1]))
    V[S] = Vc[:m]
    if c > 0:
        rest = np.ones(n, dtype=bool)
        rest[S] = False
        V[rest] = Vc[m] / math.sqrt(c)
    Z = K[:, S] @ (uS[:, None] * Vc[:m]) / (4.0 * eta)
    r = lam.size
    if k <= r - k:
        D = _pairs(V, Z, np.flatnonzero(top), _weights_top(lam, top, s))
    else:
        W = K * (u[:, None] / (4.0 * eta))            # diag(u) K / (4 eta): rows on S
        WS = W[S]
        PP = np.zeros((n, n))
        PP[S, S] = 1.0
        if c > 0:
            PP[np.ix_(rest, rest)] = 1.0 / c
        total = 2.0 * (PP * (WS.T @ WS) + W * W.T)      # sum over every pair (i, j)
        D = 2.0 * total - _pairs(V, Z, np.flatnonzero(~top), _weights_rest(lam, top, s))
    if c > 1:
        lt = lam[top]
        ZT = Z[:, top]
        null = (ZT * (4.0 * (lt - s) / lt)) @ ZT.T
        sub = null[np.ix_(rest, rest)]
        D[np.ix_(rest, rest)] += _null_part(sub, c)
    H += eta * D
    return 0.5 * (H + H.T)


def _null_part(sub: np.ndarray, c: int) -> np.ndarray:
    """``Pi o sub`` on the points outside the support, ``Pi = I - 11^T / c`` there."""
    out = sub * (-1.0 / c)
    out[np.diag_indices_from(out)] += np.diag(sub)
    return out


def inner_F_from(S: np.ndarray, Vc: np.ndarray, w: np.ndarray, n: int):
    """The compact ``F`` of :func:`nplk_core._dank_core.inner_F` from a full
    eigendecomposition of its matrix (``w``: thresholded eigenvalues, ascending)."""
    from ._dank_core import InnerSolution

    keep = w > 0
    W = (Vc[:, keep] * w[keep]) @ Vc[:, keep].T
    return InnerSolution(S=S, W=W, eigvals=w[keep][::-1].copy(), n=n)


def _weights_top(lam: np.ndarray, top: np.ndarray, s: float) -> np.ndarray:
    """Weights of the pairs ``(i in T, j)``: 2 when ``j`` is in ``T`` too, else
    ``4 (lambda_i - s) / (lambda_i - lambda_j)`` (the pair and its mirror)."""
    lt = lam[top][:, None]
    with np.errstate(divide="ignore", invalid="ignore"):  # j in T: replaced below
        out = 4.0 * (lt - s) / (lt - lam[None, :])
    out[:, top] = 2.0
    return out


def _weights_rest(lam: np.ndarray, top: np.ndarray, s: float) -> np.ndarray:
    """Weights of the pairs ``(i not in T, j)`` in ``2 - omega``: 2 when ``j`` is not in
    ``T`` either, else ``4 (s - lambda_i) / (lambda_j - lambda_i)`` (pair and mirror)."""
    lb = lam[~top][:, None]
    out = np.full((lb.size, lam.size), 2.0)
    out[:, top] = 4.0 * (s - lb) / (lam[None, top] - lb)
    return out


def _pairs(V: np.ndarray, Z: np.ndarray, rows: np.ndarray, weights: np.ndarray
           ) -> np.ndarray:
    """``sum_{i in rows, j} weights_ij T_a(i, j) T_b(i, j)`` with
    ``T_a(i, j) = V_ai Z_aj + Z_ai V_aj`` and ``weights >= 0``: one symmetric rank-k
    update ``A A^T`` of the ``n x (|rows| r)`` matrix ``A = T sqrt(weights)``."""
    n, r = V.shape
    if rows.size == 0:
        return np.zeros((n, n))
    A = np.empty((n, rows.size, r))
    np.multiply(V[:, rows, None], Z[:, None, :], out=A)
    A += Z[:, rows, None] * V[:, None, :]
    A *= np.sqrt(weights)[None]
    A = A.reshape(n, -1)
    # dsyrk on the F-ordered A^T: C = (A^T)^T (A^T), upper triangle
    out = _syrk(1.0, A.T, trans=1, lower=0)
    return np.triu(out) + np.triu(out, 1).T


# ---------------------------------------------------------------------------
# the step: a box-constrained quadratic program by primal-dual active sets
# ---------------------------------------------------------------------------

#: the five places a variable of the step can be: at -C, free below 0, at 0, free above
#: 0, at +C
AT_LOWER, FREE_NEG, AT_ZERO, FREE_POS, AT_UPPER = -2, -1, 0, 1, 2


def labels_of(v: np.ndarray, C: float) -> np.ndarray:
    """The place of every variable of ``v`` (:data:`AT_LOWER` ... :data:`AT_UPPER`)."""
    lab = np.sign(v).astype(int)
    lab[v >= C] = AT_UPPER
    lab[v <= -C] = AT_LOWER
    return lab


def box_qp(G: np.ndarray, c: np.ndarray, eps: np.ndarray, C: float, labels: np.ndarray,
           *, signs: np.ndarray | None = None, max_iter: int = BOX_QP_MAX_ITER):
    r"""``max c^T v - 1/2 v^T G v - sum_i eps_i |v_i|`` over ``{|v| <= C, 1^T v = 0}``
    (``G`` symmetric positive semidefinite, ``eps >= 0``) by primal-dual active sets.
    With ``signs`` (+1, -1 or 0 per variable) a variable of sign +1 is kept in
    ``[0, C]`` and one of sign -1 in ``[-C, 0]`` (the SVM form in ``u = y o alpha``):
    0 is then its bound, the place it cannot leave for the other side.

    Each pass fixes every variable's place (``labels``, :func:`labels_of`): the ones at
    a bound or at 0 are fixed there and the free ones, with a multiplier ``nu`` of the
    equality, solve ``G_FF v_F + nu 1 = c_F - eps_F sign_F - G_FN v_N``,
    ``1^T v_F = -1^T v_N``; then a free variable that left its interval moves to the
    bound it crossed, and a fixed one whose reduced gradient ``r = c - G v - nu 1``
    points inward frees itself. When no place changes, ``v`` satisfies every KKT
    condition of the program (feasible, stationary on the free set, the right signs on
    the fixed ones) to round-off (:data:`BOX_QP_SLACK`): it is the maximiser. When the
    places come back to an earlier set (the update cycles), each further pass moves only
    the variable that violates its conditions most. Returns ``(v, nu, labels, passes)``,
    or None when that cycles too, a system is singular or ``max_iter`` passes pass.
    """
    n = c.size
    signs = np.zeros(n) if signs is None else np.asarray(signs, dtype=float)
    seen = {labels.tobytes()}
    one_at_a_time = False
    # a place changes only on a violation beyond round-off (ties at a threshold would
    # otherwise make the places cycle)
    tv = BOX_QP_SLACK * C
    tr = BOX_QP_SLACK * max(float(np.abs(c).max()), float(eps.max()), 1.0)
    for it in range(1, max_iter + 1):
        v = np.zeros(n)
        v[labels == AT_UPPER] = C
        v[labels == AT_LOWER] = -C
        F = np.flatnonzero(np.abs(labels) == 1)
        fixed = np.flatnonzero(np.abs(labels) == 2)
        if F.size:
            m = F.size
            A = np.empty((m + 1, m + 1))
            A[:m, :m] = G[np.ix_(F, F)]
            # the equality's row scaled like G's diagonal (unknown nu / beta): a border
            # of ones beside a heavily damped G would make the system look singular
            beta = max(float(np.mean(np.diag(A)[:m])), 1e-300)
            A[:m, m] = beta
            A[m, :m] = beta
            A[m, m] = 0.0
            rhs = np.empty(m + 1)
            rhs[:m] = c[F] - eps[F] * labels[F] - G[np.ix_(F, fixed)] @ v[fixed]
            rhs[m] = -beta * v.sum()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
                    sol = scipy.linalg.solve(A, rhs, assume_a="sym", check_finite=False)
            except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning, ValueError):
                return None
            if not np.all(np.isfinite(sol)):
                return None
            v[F] = sol[:m]
            nu = float(sol[m]) * beta
            r = c - G @ v - nu
        elif abs(v.sum()) > BOX_QP_SLACK * C * n:
            # the fixed values alone break the equality: free the ones at the bounds
            new = labels.copy()
            new[labels == AT_UPPER] = FREE_POS
            new[labels == AT_LOWER] = FREE_NEG
            if new.tobytes() in seen:
                return None
            seen.add(new.tobytes())
            labels = new
            continue
        else:
            r0 = c - G @ v
            nu = _free_multiplier(r0, labels, eps, signs)
            r = r0 - nu
        new, violation = _moves(labels, v, r, eps, C, tv, tr, signs)
        if violation is None:
            # within round-off of the box (and of the sign) already
            free = np.abs(labels) == 1
            v[free] = np.clip(v[free], np.where(signs[free] > 0, 0.0, -C),
                              np.where(signs[free] < 0, 0.0, C))
            return v, nu, labels, it
        if new.tobytes() in seen or one_at_a_time:
            # the places came back (the full update cycles, as it can on an
            # ill-conditioned program): from now on move only the worst violator,
            # the classical active-set rule
            one_at_a_time = True
            worst = int(np.argmax(violation))
            new = labels.copy()
            new[worst] = _moves(labels, v, r, eps, C, tv, tr, signs)[0][worst]
            if new.tobytes() in seen:
                return None
        seen.add(new.tobytes())
        labels = new
    return None


def _moves(labels, v, r, eps, C, tv, tr, signs):
    """The places after one active-set update, and each variable's violation (in units
    of ``C`` for a free variable out of its interval, of ``eps``'s scale for a fixed one
    whose reduced gradient points inward; None when nothing moves). A variable at 0
    frees itself only to the side its sign allows."""
    new = labels.copy()
    viol = np.zeros(labels.size)
    pos, neg = labels == FREE_POS, labels == FREE_NEG
    for mask, cond, to, amount in (
            (pos, v > C + tv, AT_UPPER, (v - C) / C), (pos, v < -tv, AT_ZERO, -v / C),
            (neg, v < -C - tv, AT_LOWER, (-v - C) / C), (neg, v > tv, AT_ZERO, v / C)):
        hit = mask & cond
        new[hit] = to
        viol[hit] = amount[hit]
    rs = max(float(np.abs(r).max()), float(eps.max()), 1e-300)
    zero, up, lo = labels == AT_ZERO, labels == AT_UPPER, labels == AT_LOWER
    for mask, cond, to, amount in (
            (zero & (signs >= 0), r > eps + tr, FREE_POS, (r - eps) / rs),
            (zero & (signs <= 0), r < -eps - tr, FREE_NEG, (-r - eps) / rs),
            (up, r < eps - tr, FREE_POS, (eps - r) / rs),
            (lo, r > -eps + tr, FREE_NEG, (r + eps) / rs)):
        hit = mask & cond
        new[hit] = to
        viol[hit] = amount[hit]
    return new, (viol if np.any(new != labels) else None)


def _free_multiplier(r0: np.ndarray, labels: np.ndarray, eps: np.ndarray,
                     signs: np.ndarray) -> float:
    """With no free variable the equality's multiplier is any ``nu`` that keeps every
    fixed variable's sign condition; the middle of that interval (or of the nearest one
    when it is empty, so that the next pass frees what violates it). A variable at 0
    that may only be positive (``signs`` +1) bounds ``nu`` from below only, one that may
    only be negative from above only."""
    low = ((labels == AT_ZERO) & (signs >= 0)) | (labels == AT_LOWER)
    high = ((labels == AT_ZERO) & (signs <= 0)) | (labels == AT_UPPER)
    lo = np.concatenate([r0[low] + eps[low] * np.where(labels[low] == AT_LOWER, 1, -1),
                         [-np.inf]])
    hi = np.concatenate([r0[high] + eps[high] * np.where(labels[high] == AT_UPPER, -1, 1),
                         [np.inf]])
    a, b = float(lo.max()), float(hi.min())
    if np.isfinite(a) and np.isfinite(b):
        return 0.5 * (a + b)
    return a if np.isfinite(a) else (b if np.isfinite(b) else 0.0)


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------

class _SvmOracle:
    r"""DANK in SVM in ``u = y o alpha``: ``1^T alpha = y^T u`` and
    ``alpha^T Y (F o K) Y alpha = u^T (F o K) u``, so ``h`` is the smooth ``f`` of the
    module docstring with ``y`` the labels and no ``eps`` term, over
    ``{u_i in [0, C] (y_i = +1), u_i in [-C, 0] (y_i = -1), 1^T u = 0}`` (``1^T u =
    y^T alpha``): the same ``f``, the same Hessian, a box with one-sided places.
    The interface of :class:`nplk_core._dank_core._SvrOracle` (``alpha`` for ``beta``)."""

    def __init__(self, problem: DankProblem):
        self.problem = problem
        self.y = np.asarray(problem.labels, dtype=float)

    @staticmethod
    def applies(problem) -> bool:
        """The SVM form with its equality (the scalable decomposition drops it)."""
        return not getattr(problem, "svr", True) and bool(getattr(problem, "bias", False))

    def l1(self, u: np.ndarray) -> float:
        return 0.0

    def start(self, alpha0: np.ndarray) -> np.ndarray:
        return self.y * self.problem.project(alpha0)

    def evaluate(self, u: np.ndarray):
        """``(h, f, grad f, inner)`` in ``u``: ``grad f = y o grad_alpha h = y - (F o K) u``."""
        h, g, inner = self.problem.evaluate(self.beta(u))
        return h, h, self.y * g, inner

    def beta(self, u: np.ndarray) -> np.ndarray:
        # y o u is in [0, C] on a feasible u; the maximum clears a -0.0
        return np.maximum(self.y * u, 0.0)

    def gap(self, u: np.ndarray, grad_f: np.ndarray) -> float:
        return frank_wolfe_gap(self.problem, self.beta(u), self.y * grad_f)


def solve_newton(problem: DankProblem, beta0: np.ndarray, L: float, *, max_iter: int,
                 tol: float, callback=None) -> SolveResult:
    r"""Newton's method for DANK in SVM and in SVR (module docstring): at each iteration
    the exact Hessian ``H`` of ``h``'s smooth part, the step ``argmax`` of the damped
    quadratic model over the feasible set (:func:`box_qp`), taken when ``h`` rises by at
    least :data:`NEWTON_ACCEPT` of the model's prediction, else damped more and solved
    again.

    Works in ``u`` like :func:`nplk_core._dank_core.solve_apg`: ``u = a_hat - a_check``
    for the SVR (returning the stacked ``[a_hat; a_check]``), ``u = y o alpha`` for the
    SVM (:class:`_SvmOracle`, returning ``alpha``), from the same start (``beta0``,
    shrunk towards 0 while that raises ``h``). Every iteration records ``h``, the step
    length, the rank of ``F``, the Frank-Wolfe gap (an upper bound on ``h* - h``) and the
    damping ``rho``; ``h`` never decreases. Stops when the Frank-Wolfe gap is below
    :data:`NEWTON_GAP_RTOL` ``|h|``, or, with a damping of at most
    :data:`NEWTON_RHO_TRUST` of ``H``'s scale, when the step is shorter than ``tol``
    (Algorithm 1's rule) or the model can raise ``h`` by at most :data:`NEWTON_RTOL`
    ``|h|``. A step damped to round-off that still cannot raise ``h``
    ends the solve unconverged (the estimator then warns). ``L`` is not used (the
    model's curvature is exact).
    """
    if _SvrOracle.applies(problem):
        oracle, signs = _SvrOracle(problem), None
        eps = np.broadcast_to(np.asarray(oracle.epsilon, dtype=float), (problem.n,))
    elif _SvmOracle.applies(problem):
        oracle = _SvmOracle(problem)
        signs, eps = oracle.y, np.zeros(problem.n)
    else:
        raise ValueError(
            "The Newton solver needs the equality y^T alpha = 0 (the SVM form with a bias) "
            "or the regression form with a tube width epsilon >= 0; use solver='apg' for "
            "the scalable decomposition.")
    n, C, K = problem.n, problem.C, problem.K
    log = IterationLog(callback)

    def record(x, h, step, inner, gap, rho) -> bool:
        snap = getattr(problem, "snapshot", None)
        return log.record({"alpha": oracle.beta(x)}, objective=h, step_norm=step,
                          rank=inner.rank, gap=gap, damping=rho,
                          snapshot=lambda: snap(oracle.beta(x), inner) if snap else
                          {"alpha": oracle.beta(x)})

    u = oracle.start(beta0)
    h, f, g, inner = oracle.evaluate(u)
    u, h, f, g, inner = _shrink_start(oracle, u, h, f, g, inner)
    labels = labels_of(u, C)
    rho = scale = 0.0
    H = None
    converged = stopped = False
    k = 0
    for k in range(max_iter):  # noqa: B007 (k is the iteration count after the loop)
        if H is None:
            H = dank_hessian(u, K, problem.eta, problem.tau)
            scale = max(float(np.trace(H)) / n, 1e-300)
        rho = max(rho, NEWTON_RHO_FLOOR * scale)
        step, stuck, final = 0.0, False, False
        while True:
            if rho > NEWTON_RHO_CEILING * scale:
                # damped to round-off: the step is a scaled gradient step shorter than
                # round-off, and h still does not rise (or its program does not settle)
                stuck = True
                break
            G = H.copy()
            G[np.diag_indices(n)] += rho
            out = box_qp(G, g + G @ u, eps, C, labels, signs=signs)
            if out is None:  # the active sets did not settle: damp and solve again
                rho = max(10.0 * rho, NEWTON_RHO_RESCUE * scale)
                continue
            v, _, new_labels, _ = out
            d = v - u
            dd = float(d @ d)
            lin = float(g @ d) - float(eps @ (np.abs(v) - np.abs(u)))
            quad = float(d @ (H @ d))
            predicted = lin - 0.5 * (quad + rho * dd)
            if dd == 0.0:
                final = True
                break
            hn, _, gn, inn = oracle.evaluate(v)
            if predicted <= NEWTON_RTOL * max(abs(h), 1.0):
                # h is final to round-off; the step still sharpens the point (its KKT
                # residual falls as Newton's does) unless round-off makes h lower there
                final = True
                step = math.sqrt(dd) if np.isfinite(hn) and hn >= h else 0.0
                break
            if np.isfinite(hn) and hn - h >= NEWTON_ACCEPT * predicted:
                step = math.sqrt(dd)
                break
            # raise the damping to the curvature the trial needed along d beyond the
            # model's (at least 4x)
            need = (2.0 * (lin - (hn - h)) - quad) / dd if np.isfinite(hn) else math.inf
            rho = max(4.0 * rho, 1.5 * need) if np.isfinite(need) else 1e3 * max(rho, scale)
        trusted = rho <= NEWTON_RHO_TRUST * scale
        if step > 0.0:
            good = hn - h >= 0.75 * predicted and not final
            u, h, g, inner, labels, H = v, hn, gn, inn, new_labels, None
            if good:  # the model held: trust it further
                rho /= 10.0
        if final and not trusted:
            # the damped model is too timid to judge: loosen it (after a step too, else
            # each step of a model damped just beyond trust raises h by round-off and the
            # solve crawls: 46 such steps at C = 2, sigma = 1, tau = 0.7, eta = 5e4)
            rho /= 100.0
        gap = oracle.gap(u, g)
        stopped = record(u, h, step, inner, gap, rho)
        converged = (trusted and (final or step <= tol)) or gap <= NEWTON_GAP_RTOL * abs(h)
        if converged or stopped or stuck or not np.isfinite(h):
            break
    return SolveResult(oracle.beta(u), h, inner, k + 1, converged, stopped, log)
