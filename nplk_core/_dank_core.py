r"""Numerical core of DANK: the inner solution F(alpha), the objective
h(alpha) = H(alpha, F(alpha)), its gradient, and the solvers that maximise h.

The paper: Liu et al., *Learning Data-adaptive Non-parametric Kernels*, JMLR 2020.

(This file is long because the four solvers share the problem's evaluation and its
support trick; splitting them would only spread one algorithm over two files.)

The saddle problem is

.. math::

    \max_{\beta \in A} \min_{F \succeq 0}\; c^\top\beta - \tfrac12 u^\top (F\circ K) u
    + \eta \|F - 11^\top\|_F^2 + \tau\eta \|F\|_*,\qquad u = A_u \beta,

which covers SVM (``beta = alpha``, ``u = y * alpha``, ``c = 1``) and SVR
(``beta = [a_hat; a_check]``, ``u = a_hat - a_check``, ``c = [y - eps; -y - eps]``).

**The support trick.** ``F(u) = J_{tau/2}(11^T + Gamma)`` with
``Gamma = diag(u) K diag(u) / (4 eta)``. ``Gamma`` vanishes outside the rows and
columns of the support ``S = {i : u_i != 0}``, so ``11^T + Gamma = P M P^T`` exactly,
where ``P = [e_S, 1_{S^c}/sqrt(c)]`` has orthonormal columns (``c = n - |S|``) and
``M = p p^T + blkdiag(Gamma_SS, 0)`` with ``p = P^T 1 = [1_S; sqrt(c)]`` is only
``(|S|+1) x (|S|+1)``. Hence ``F = P J_{tau/2}(M) P^T``: one small dense
eigendecomposition per evaluation instead of an ``n x n`` one, with no approximation.
``F`` is constant on the ``S^c x S^c`` block and constant along each row of the
``S x S^c`` block, which gives the objective and gradient in ``O(n |S| + |S|^3)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from ._base import IterationLog
from .projection import project_box, project_dual_from
from .spectral import eigh_above


def _eigh_above(M: np.ndarray, s: float, expected: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of the symmetric ``M`` with eigenvalue ``> s`` (ascending); only those
    (a value subset) when ``expected``, the rank at the solver's previous evaluation, is
    a small share of the size (see :func:`nplk_core.spectral.eigh_above`)."""
    return eigh_above(M, s, expected=expected)


@dataclass
class InnerSolution:
    """``F(u)`` in support-restricted form (see module docstring)."""

    S: np.ndarray        # support indices, u[S] != 0
    W: np.ndarray        # J_{tau/2}(M), (m+1)x(m+1) or (n x n) when c == 0
    eigvals: np.ndarray  # nonzero eigenvalues of F, descending
    n: int

    @property
    def c(self) -> int:
        return self.n - self.S.size

    @property
    def rank(self) -> int:
        return int(self.eigvals.size)

    def dense(self) -> np.ndarray:
        """The full ``n x n`` matrix F."""
        n, S, W, c = self.n, self.S, self.W, self.c
        m = S.size
        if c == 0:
            return W.copy()
        F = np.empty((n, n))
        rest = np.ones(n, dtype=bool)
        rest[S] = False
        Sc = np.flatnonzero(rest)
        F[np.ix_(Sc, Sc)] = W[m, m] / c
        cross = W[:m, m] / math.sqrt(c)
        F[np.ix_(S, Sc)] = cross[:, None]
        F[np.ix_(Sc, S)] = cross[None, :]
        F[np.ix_(S, S)] = W[:m, :m]
        return F


def inner_F(u: np.ndarray, K: np.ndarray, eta: float, tau: float,
            K_S: np.ndarray | None = None, expected_rank: int | None = None
            ) -> InnerSolution:
    r"""``F(u) = J_{tau/2}(11^T + diag(u) K diag(u)/(4 eta))``, exactly, via the support trick."""
    n = u.size
    S = np.flatnonzero(u)
    m = S.size
    c = n - m
    uS = u[S]
    KSS = K[np.ix_(S, S)] if K_S is None else K_S[S]
    G = KSS * np.outer(uS, uS)
    G *= 1.0 / (4.0 * eta)
    if c > 0:
        p = np.ones(m + 1)
        p[m] = math.sqrt(c)
        M = np.outer(p, p)
        M[:m, :m] += G
    else:
        M = G + 1.0
    s = 0.5 * tau
    lam, V = _eigh_above(M, s, expected_rank)
    w = lam - s
    W = (V * w) @ V.T
    return InnerSolution(S=S, W=W, eigvals=w[::-1].copy(), n=n)


def penalty_terms(inner: InnerSolution) -> tuple[float, float]:
    """``(||F - 11^T||_F^2, ||F||_*)`` from the compact form."""
    W, c = inner.W, inner.c
    m = inner.S.size
    trace = float(inner.eigvals.sum())
    if c == 0:
        return float(np.sum((W - 1.0) ** 2)), trace
    rc = math.sqrt(c)
    fro = float(np.sum((W[:m, :m] - 1.0) ** 2))
    fro += 2.0 * c * float(np.sum((W[:m, m] / rc - 1.0) ** 2))
    fro += c * c * (W[m, m] / c - 1.0) ** 2
    return fro, trace


def quad_grad(inner: InnerSolution, u: np.ndarray, K: np.ndarray,
              K_S: np.ndarray | None = None) -> np.ndarray:
    """``(F o K) u`` for the F of ``inner`` (u must vanish outside ``inner.S``)."""
    S, W, c = inner.S, inner.W, inner.c
    m = S.size
    if m == 0:
        return np.zeros(inner.n)
    if K_S is None:
        K_S = K[:, S]
    uS = u[S]
    if c > 0:
        out = K_S @ (W[m, :m] * (uS / math.sqrt(c)))
    else:
        out = np.empty(inner.n)
    out[S] = (W[:m, :m] * K_S[S]) @ uS
    return out


class LowRankInner:
    r"""``F(u)`` through an exact-to-``tol`` factor ``K ~= Phi Phi^T``.

    ``11^T + Gamma = B B^T`` with ``B = [1 | diag(u) Phi / (2 sqrt(eta))]``
    (docs/the-maths-of-every-method.md, 'DANK — Learning Data-adaptive Non-parametric
    Kernels'), so with ``B^T B = U diag(lambda) U^T``, ``F = J_{tau/2}(B B^T) = B Omega B^T`` where
    ``Omega = U diag((lambda - tau/2)_+ / lambda) U^T``: one ``(r+1) x (r+1)``
    eigendecomposition whatever the support size.
    """

    def __init__(self, u, Phi, eta, tau, expected_rank=None):
        n = u.size
        self.n = n
        self.S = np.flatnonzero(u)
        scale = 1.0 / (2.0 * math.sqrt(eta))
        BS = np.empty((self.S.size, Phi.shape[1] + 1))
        BS[:, 0] = 1.0
        np.multiply(Phi[self.S], (u[self.S] * scale)[:, None], out=BS[:, 1:])
        G = BS.T @ BS
        G[0, 0] = float(n)  # rows outside S contribute [1, 0, ..., 0]
        s = 0.5 * tau
        lam_k, Uk = _eigh_above(G, s, expected_rank)
        self.eigvals = (lam_k - s)[::-1].copy()
        self.Omega = (Uk * ((lam_k - s) / lam_k)) @ Uk.T
        self.BS = BS
        self.G0 = G[:, 0].copy()
        self.Gcols = G[:, 1:]
        self.Phi = Phi
        self.scale = scale
        self.u = u

    @property
    def rank(self) -> int:
        return int(self.eigvals.size)

    def B(self) -> np.ndarray:
        B = np.zeros((self.n, self.BS.shape[1]))
        B[:, 0] = 1.0
        B[self.S] = self.BS
        return B

    def dense(self) -> np.ndarray:
        B = self.B()
        F = B @ self.Omega @ B.T
        return 0.5 * (F + F.T)

    def penalty_terms(self) -> tuple[float, float]:
        w = self.eigvals
        one_F_one = float(self.G0 @ self.Omega @ self.G0)
        fro = float(w @ w) - 2.0 * one_F_one + float(self.n) ** 2
        return max(fro, 0.0), float(w.sum())

    def quad_grad(self, u, K_S=None) -> np.ndarray:
        r"""``(F o K) u`` with ``K ~= Phi Phi^T`` in the Hadamard product too:
        ``out_i = sum_{a,c} B_ia Phi_ic Z_ac`` with ``Z = Omega B^T diag(u) Phi``, and
        ``B^T diag(u) Phi = G[:, 1:] / scale`` is already known: ``O(|S| r^2 + n r)``."""
        if self.S.size == 0:
            return np.zeros(self.n)
        Z = self.Omega @ (self.Gcols / self.scale)      # (r+1, r)
        out = self.Phi @ Z[0]                           # rows outside S: B_i = [1, 0, ...]
        out[self.S] = np.einsum("ij,ij->i", self.BS @ Z, self.Phi[self.S])
        return out


class DankProblem:
    r"""One instance of the DANK saddle problem, evaluated through :func:`inner_F`.

    Parameters
    ----------
    K : (n, n) training kernel
    labels : (n,) array of +-1 for SVM; ``None`` for SVR (then the variable is the
        stacked ``[a_hat; a_check]`` of length 2n).
    linear : the linear coefficient ``c`` of the objective (length of the variable)
    C, eta, tau : model parameters
    bias : if False the equality constraint is dropped (box only, scalable DANK)
    factor : optional ``(n, r)`` factor with ``K ~= Phi Phi^T``; evaluations whose
        support exceeds ``factor_ratio * r`` use :class:`LowRankInner` (the exact support
        trick otherwise)
    """

    def __init__(self, K, labels, linear, C, eta, tau, *, bias=True, factor=None,
                 factor_ratio=1.5):
        self.K = K
        self.factor = factor
        self.factor_ratio = factor_ratio
        self.n = K.shape[0]
        self.labels = labels
        self.svr = labels is None
        self.linear = np.asarray(linear, dtype=float)
        self.C = float(C)
        self.eta = float(eta)
        self.tau = float(tau)
        self.bias = bias
        if self.svr:
            self.proj_labels = np.concatenate([np.ones(self.n), -np.ones(self.n)])
        else:
            self.proj_labels = np.asarray(labels, dtype=float)
        self.n_evals = 0
        #: multiplier of the last projection: successive points of a solver have nearly
        #: the same one, so the next projection starts its search there
        self._lam = 0.0
        #: rank of F at the last evaluation: the next one, at a nearby point, computes
        #: only the eigenpairs above tau/2 when this is a small share of its size
        self.last_rank: int | None = None
        #: ``bias_of(beta, Qu)``: the bias implied by ``beta`` given ``Qu = (F o K) u``
        #: (set by the estimator; used for the snapshots of the training replay)
        self.bias_of = None

    def snapshot(self, beta: np.ndarray, inner) -> dict:
        """The iterate the training replay keeps: ``beta`` and its bias, from
        ``(F(u) o K) u`` of ``inner`` (O(n |S|); F itself is rebuilt from ``beta``)."""
        u = self.u_of(beta)
        Qu = inner.quad_grad(u) if isinstance(inner, LowRankInner) else \
            quad_grad(inner, u, self.K)
        return {"alpha": beta, "bias": 0.0 if self.bias_of is None
                else float(self.bias_of(beta, Qu))}

    # variable <-> u
    def u_of(self, beta: np.ndarray) -> np.ndarray:
        if self.svr:
            return beta[: self.n] - beta[self.n:]
        return self.labels * beta

    def grad_from_u(self, gu: np.ndarray) -> np.ndarray:
        """Chain rule: the gradient of ``-1/2 u^T Q u`` w.r.t. beta from ``Q u``."""
        if self.svr:
            return self.linear - np.concatenate([gu, -gu])
        return self.linear - self.labels * gu

    def project(self, v: np.ndarray) -> np.ndarray:
        if not self.bias:
            return project_box(v, self.C)
        beta, self._lam = project_dual_from(v, self.proj_labels, self.C, self._lam)
        return beta

    def _factor_for(self, m: int) -> np.ndarray | None:
        """The factor when a support of size ``m`` should use it, else None. It pays off
        only when the support is well beyond its rank: the exact route's gradient is a
        cheap (n x |S|) product, the factored one is not. ``factor.shape[1]`` may be an
        optimistic guess (a lazy factor not yet computed, computed here on first need)
        or infinite (a factor not exact to its tolerance, never used)."""
        f = self.factor
        if f is None or m <= self.factor_ratio * f.shape[1]:
            return None
        phi = np.asarray(getattr(f, "array", f))
        return phi if m > self.factor_ratio * f.shape[1] else None

    def evaluate(self, beta: np.ndarray, *, gradient: bool = True):
        """Return ``(h, grad, inner)`` at ``beta``."""
        self.n_evals += 1
        u = self.u_of(beta)
        S = np.flatnonzero(u)
        phi = self._factor_for(S.size)
        if phi is not None:
            inner = LowRankInner(u, phi, self.eta, self.tau, self.last_rank)
            Qu = inner.quad_grad(u)
            fro, nuc = inner.penalty_terms()
        else:
            K_S = self.K[:, S]
            inner = inner_F(u, self.K, self.eta, self.tau, K_S=K_S,
                            expected_rank=self.last_rank)
            Qu = quad_grad(inner, u, self.K, K_S=K_S)
            fro, nuc = penalty_terms(inner)
        self.last_rank = inner.rank
        h = float(self.linear @ beta - 0.5 * (u @ Qu) + self.eta * fro
                  + self.tau * self.eta * nuc)
        g = self.grad_from_u(Qu) if gradient else None
        return h, g, inner

    def lipschitz(self, lam_max_K: float) -> float:
        """``L = n - tau/2 + n C^2 lambda_max(K) / (4 eta)`` (after Lemma 1); 2L for SVR."""
        L = self.n - 0.5 * self.tau + self.n * self.C ** 2 * lam_max_K / (4.0 * self.eta)
        return 2.0 * L if self.svr else L


@dataclass
class SolveResult:
    beta: np.ndarray
    objective: float
    inner: InnerSolution | LowRankInner
    n_iter: int
    converged: bool
    stopped: bool
    log: IterationLog


# ---------------------------------------------------------------------------
# solvers: each maximises h over the feasible set and records every iteration
# ---------------------------------------------------------------------------

def _stop(converged: bool, stopped: bool, h: float) -> bool:
    """The shared stop rule: converged, asked to stop by the callback, or non-finite h
    (the caller then reports the last iterate and the estimator raises)."""
    return converged or stopped or not np.isfinite(h)


def solve_nesterov(problem: DankProblem, beta0: np.ndarray, L: float, *, max_iter: int,
                   tol: float, callback=None, monotone: bool = False) -> SolveResult:
    r"""Algorithm 1 of the DANK paper (Nesterov's smooth method, ascent form).

    ``theta_t = P(a_t + g_t/L)``, ``beta_t = P(a_0 + (1/2L) sum_{i<=t} (i+1) g_i)``,
    ``a_{t+1} = (t+1)/(t+3) theta_t + 2/(t+3) beta_t``; stop when
    ``||a_{t+1} - a_t|| <= tol``. With ``monotone=True`` (§3.2) ``theta_t`` is the best
    of ``{theta_{t-1}, P(a_t + g_t/L), a_t}`` and the recorded objective is ``h(theta_t)``,
    which then never decreases; the returned point is ``theta``.
    """
    log = IterationLog(callback)
    a0 = problem.project(beta0)
    a = a0
    h, g, inner = problem.evaluate(a)
    gsum = np.zeros_like(a)
    best = (h, a, inner)  # theta_{t-1} for the monotone variant
    converged = stopped = False
    t = 0
    for t in range(max_iter):  # noqa: B007 (t is the iteration count after the loop)
        theta = problem.project(a + g / L)
        if monotone:
            h_th, _, inner_th = problem.evaluate(theta, gradient=False)
            cands = [best, (h_th, theta, inner_th), (h, a, inner)]
            best = max(cands, key=lambda z: z[0])
            theta = best[1]
        gsum += (t + 1) * g
        bt = problem.project(a0 + gsum / (2.0 * L))
        a_new = ((t + 1) * theta + 2.0 * bt) / (t + 3)
        step = float(np.linalg.norm(a_new - a))
        a = a_new
        h, g, inner = problem.evaluate(a)
        rec_h, rec_inner = (best[0], best[2]) if monotone else (h, inner)
        stopped = log.record({"alpha": best[1] if monotone else a}, objective=rec_h,
                             step_norm=step, rank=rec_inner.rank,
                             snapshot=partial(problem.snapshot,
                                              best[1] if monotone else a, rec_inner))
        converged = step <= tol and bool(np.isfinite(h))
        if _stop(converged, stopped, h):
            break
    if monotone:
        h, a, inner = best
    return SolveResult(a, h, inner, t + 1, converged, stopped, log)


def solve_pg(problem: DankProblem, beta0: np.ndarray, L: float, *, max_iter: int,
             tol: float, callback=None) -> SolveResult:
    """Projected gradient, eq. (17): ``a_{t+1} = P(a_t + g_t / L)``."""
    log = IterationLog(callback)
    a = problem.project(beta0)
    h, g, inner = problem.evaluate(a)
    converged = stopped = False
    t = 0
    for t in range(max_iter):  # noqa: B007 (t is the iteration count after the loop)
        a_new = problem.project(a + g / L)
        step = float(np.linalg.norm(a_new - a))
        a = a_new
        h, g, inner = problem.evaluate(a)
        stopped = log.record({"alpha": a}, objective=h, step_norm=step, rank=inner.rank,
                             snapshot=partial(problem.snapshot, a, inner))
        converged = step <= tol and bool(np.isfinite(h))
        if _stop(converged, stopped, h):
            break
    return SolveResult(a, h, inner, t + 1, converged, stopped, log)


#: the largest factor by which :func:`solve_apg` lowers its step constant between two
#: iterations (towards the local curvature measured along the last step)
APG_MAX_DECREASE = 8.0


#: the next trial step constant of :func:`solve_apg` is this multiple of the curvature
#: measured along the last step: the curvature at the next point is rarely lower, and a
#: trial that fails costs a whole evaluation (1.3 saved a fifth of the evaluations of a
#: DANK sigma x C map against 1.0, with the same h to 1e-9; benchmarks/bench_dank.py)
APG_CURVATURE_MARGIN = 1.3


def _raised_step_constant(fn: float, fz: float, gz: np.ndarray, d: np.ndarray,
                          L: float) -> float:
    """The step constant after a failed trial: the secant curvature the quadratic model
    needed along ``d`` (``2 (f(z) + <g, d> - f(z + d)) / ||d||^2``) with a 20 % margin,
    and at least 1.5 ``L`` so that backtracking ends; ``2 L`` when the trial value is not
    finite. A doubling instead overshoots the needed constant by up to 2x, and the step
    it then takes is up to half as long as it could be."""
    dd = float(d @ d)
    if not np.isfinite(fn) or dd == 0.0:
        return 2.0 * L
    need = 2.0 * (fz + float(gz @ d) - fn) / dd
    return max(1.5 * L, 1.2 * need) if np.isfinite(need) else 2.0 * L


def _model_holds(fn: float, fz: float, gz: np.ndarray, d: np.ndarray, L: float) -> bool:
    """The quadratic lower model ``f(z + d) >= f(z) + <g, d> - (L/2)||d||^2``, with a
    round-off slack of 1e-12 of the objectives' size."""
    slack = 1e-12 * max(abs(fz), abs(fn), 1e-300)
    return bool(fn >= fz + gz @ d - 0.5 * L * (d @ d) - slack)


#: :func:`solve_apg` also stops when the Frank-Wolfe gap certifies ``h`` to this
#: relative accuracy (the step rule alone can take hundreds of iterations to see a
#: flat, ill-conditioned optimum that ``h`` reached long before)
APG_GAP_RTOL = 1e-7


def linear_max(g: np.ndarray, labels: np.ndarray, C: float, *, bias: bool = True) -> float:
    r"""``max g^T a`` over ``{0 <= a <= C, labels^T a = 0}`` (labels +-1), or over the box
    alone when ``bias`` is False: the linear program of a Frank-Wolfe step.

    By LP duality it is ``min_nu C sum_i max(labels_i (b_i - nu), 0)`` with
    ``b_i = labels_i g_i``, a convex piecewise-linear function of ``nu`` whose minimum
    lies at one of the ``b_i``; all of them are evaluated with sorted cumulative sums.
    """
    g = np.asarray(g, dtype=float)
    if not bias:
        return float(C * np.maximum(g, 0.0).sum())
    pos = np.sort(g[labels > 0])
    neg = np.sort(-g[labels < 0])  # b_i = -g_i for label -1
    if pos.size == 0 or neg.size == 0:
        return 0.0  # the set is {0}
    nus = np.concatenate([pos, neg])
    # sum over label +1 of max(b - nu, 0) and over label -1 of max(nu - b, 0)
    k_pos = np.searchsorted(pos, nus, side="right")
    cpos = np.concatenate([[0.0], np.cumsum(pos)])
    above = (cpos[-1] - cpos[k_pos]) - nus * (pos.size - k_pos)
    k_neg = np.searchsorted(neg, nus, side="right")
    cneg = np.concatenate([[0.0], np.cumsum(neg)])
    below = nus * k_neg - cneg[k_neg]
    return float(C * np.min(above + below))


def frank_wolfe_gap(problem, beta: np.ndarray, g: np.ndarray) -> float:
    """``max_{b in A} <grad h(beta), b - beta>``: an upper bound on ``h* - h(beta)`` for
    the concave ``h`` (``inf`` when ``problem`` does not describe its feasible set)."""
    labels = getattr(problem, "proj_labels", None)
    C = getattr(problem, "C", None)
    if labels is None or C is None:
        return math.inf
    lp = linear_max(g, labels, C, bias=getattr(problem, "bias", True))
    return max(lp - float(g @ beta), 0.0)


class _PlainOracle:
    """The variable of :func:`solve_apg` is ``beta`` itself: the step is a projection and
    the smooth part ``f`` is all of ``h``. Uses only ``problem.project`` and
    ``problem.evaluate``, so any problem with those two methods can be solved."""

    def __init__(self, problem):
        self.problem = problem

    def start(self, beta0: np.ndarray) -> np.ndarray:
        return self.problem.project(beta0)

    def l1(self, x: np.ndarray) -> float:
        return 0.0

    def step(self, v: np.ndarray, L: float) -> np.ndarray:
        return self.problem.project(v)

    def evaluate(self, x: np.ndarray):
        """``(h, f, grad f, inner)``."""
        h, g, inner = self.problem.evaluate(x)
        return h, h, g, inner

    def beta(self, x: np.ndarray) -> np.ndarray:
        return x

    def gap(self, x: np.ndarray, g: np.ndarray) -> float:
        return frank_wolfe_gap(self.problem, x, g)


class _SvrOracle:
    r"""DANK-SVR in ``u = a_hat - a_check`` (n variables instead of 2n).

    For a given ``u`` the best split is ``a_hat = u_+``, ``a_check = u_-`` (it minimises
    ``eps 1^T (a_hat + a_check)`` and is feasible iff ``|u| <= C``), so the SVR form of
    eq. (4) is ``max_u f(u) - eps ||u||_1`` over ``{|u| <= C, 1^T u = 0}`` with the smooth
    ``f(u) = y^T u - 1/2 u^T (F o K) u + eta ||F - 11^T||^2 + tau eta ||F||_*``: the same
    optimum and the same h. The proximal step
    ``argmin 1/2 ||u - v||^2 + (eps/L) ||u||_1`` over that set is exactly
    ``a_hat - a_check`` of the stacked projection of ``[v - eps/L; -v - eps/L]`` (per
    coordinate ``clip(soft(v_i - nu, eps/L), -C, C)`` with one multiplier ``nu``). Two
    things make this faster than accelerating the stacked variable: the stacked
    Hessian has curvature ``2 lambda`` along ``(d, -d)`` (the 2L of Lemma 1), and the
    direction ``(d, d)``, which raises both halves, has slope ``-2 eps`` and no curvature,
    so with a small ``eps`` the stacked iterates crawl along it.
    """

    def __init__(self, problem: DankProblem):
        self.problem = problem
        self.n = problem.n
        # linear = [y - eps; -y - eps] (eps may vary per point, as long as it is >= 0)
        self.epsilon = -0.5 * (problem.linear[: self.n] + problem.linear[self.n:])

    @staticmethod
    def applies(problem) -> bool:
        """The split argument needs ``eps >= 0`` (else raising both halves pays)."""
        if not getattr(problem, "svr", False):
            return False
        n = problem.n
        return bool(np.all(problem.linear[:n] + problem.linear[n:] <= 0.0))

    def l1(self, u: np.ndarray) -> float:
        """The non-smooth part ``eps ||u||_1`` (its slope along ``u`` itself)."""
        return float(self.epsilon @ np.abs(u))

    def stack(self, u: np.ndarray) -> np.ndarray:
        return np.concatenate([np.maximum(u, 0.0), np.maximum(-u, 0.0)])

    def start(self, beta0: np.ndarray) -> np.ndarray:
        beta = self.problem.project(beta0)
        return self.step(beta[: self.n] - beta[self.n:], math.inf)

    def step(self, v: np.ndarray, L: float) -> np.ndarray:
        shrink = self.epsilon / L
        beta = self.problem.project(np.concatenate([v - shrink, -v - shrink]))
        return beta[: self.n] - beta[self.n:]

    def evaluate(self, u: np.ndarray):
        beta = self.stack(u)
        h, g, inner = self.problem.evaluate(beta)
        # g = [y - eps - Qu; -y - eps + Qu]: the smooth part's gradient is y - Qu
        grad_f = 0.5 * (g[: self.n] - g[self.n:])
        return h, h + float(self.epsilon @ np.abs(u)), grad_f, inner

    def beta(self, u: np.ndarray) -> np.ndarray:
        return self.stack(u)

    def gap(self, u: np.ndarray, grad_f: np.ndarray) -> float:
        """The Frank-Wolfe gap of the stacked problem at ``stack(u)`` (its gradient there
        is ``[grad_f - eps; -grad_f - eps]``)."""
        g = np.concatenate([grad_f - self.epsilon, -grad_f - self.epsilon])
        return frank_wolfe_gap(self.problem, self.stack(u), g)


def _initial_step_constant(oracle, x: np.ndarray, g: np.ndarray, L: float) -> float:
    """The first trial step constant of :func:`solve_apg`: the curvature of ``h`` along
    a short (projected or proximal) gradient step from ``x`` (one extra evaluation).

    The global bound ``L`` can exceed the curvature near ``x`` by many orders of
    magnitude (``C^2 / eta`` in Lemma 1: 7e8 at C = 120, eta = 0.002); a first step of
    ``g / L`` is then shorter than ``tol`` and the stop rule would end the solve at its
    start. Falls back to ``0.05 L`` when the probe measures no curvature.
    """
    fallback = min(L, max(1e-8, 0.05 * L))
    xp = oracle.step(x + g / L, L)
    d = xp - x
    dd = float(d @ d)
    if dd == 0.0:
        return fallback
    _, _, gp, _ = oracle.evaluate(xp)
    curvature = -float((gp - g) @ d) / dd
    return min(curvature, L) if np.isfinite(curvature) and curvature > 0 else fallback


def _plain_step_length(oracle, x: np.ndarray, g: np.ndarray, L: float) -> float:
    """Length of a plain projected (proximal) gradient step ``P(x + g/L) - x`` from
    ``x`` with the solver's current step constant ``L``: Algorithm 1's and eq. (17)'s
    stop measure taken at ``x`` itself, without the momentum. (One projection, no
    evaluation of h.)"""
    return float(np.linalg.norm(oracle.step(x + g / L, L) - x))


def _shrink_start(oracle, x, hx, fx, gx, inner, max_halvings: int = 20):
    """The start, halved towards 0 while that raises ``h``: ``(x, h, f, grad f, inner)``.

    The accelerated solver starts from the plain SVM's (SVR's) dual vector. At a small
    eta that point lies far out: ``Gamma`` grows with the square of alpha, so ``F`` and
    ``eta ||F - 11^T||^2`` explode (h = -1.7e9 at C = 200, eta = 0.3 on the step data,
    where the optimum is 167), and the first twenty iterations only walk back towards 0.
    ``h`` is concave on the segment from 0 (feasible) to the start, so halving while it
    rises finds the best of these points in a few evaluations; it runs only when ``h``
    falls along the start direction there (slope ``<grad f, x> - eps ||x||_1 < 0``).
    """
    best = (x, hx, fx, gx, inner)
    if not float(gx @ x) - oracle.l1(x) < 0:
        return best
    for _ in range(max_halvings):
        xc = 0.5 * best[0]
        hc, fc, gc, ic = oracle.evaluate(xc)
        if not (np.isfinite(hc) and hc > best[1]):
            break
        best = (xc, hc, fc, gc, ic)
    return best


def solve_apg(problem: DankProblem, beta0: np.ndarray, L: float, *, max_iter: int,
              tol: float, callback=None) -> SolveResult:
    r"""Accelerated projected gradient with backtracking, a curvature step rule and
    adaptive restart.

    FISTA in ascent form: ``x_{k+1} = P(z_k + grad h(z_k)/L_k)`` where ``L_k`` satisfies
    the quadratic lower model ``h(x) >= h(z) + <g, x - z> - (L/2)||x - z||^2``
    (backtracking raises ``L_k`` until it does, to the curvature the failed trial
    needed, see :func:`_raised_step_constant`), momentum
    ``z = x_{k+1} + (t_k - 1)/t_{k+1} (x_{k+1} - x_k)`` and a restart of the momentum
    whenever ``h`` decreases (O'Donoghue & Candes). The objective recorded is ``h(x_k)``;
    the stop rule is Algorithm 1's ``||x_{k+1} - x_k|| <= tol`` or a Frank-Wolfe gap (an
    upper bound on ``h* - h(x)``, recorded as ``"gap"``) below :data:`APG_GAP_RTOL`
    ``|h|``. For SVR the variable is
    ``u = a_hat - a_check`` and the step is proximal (see :class:`_SvrOracle`); the
    returned ``beta`` is always the stacked ``[a_hat; a_check]``, with the stop rule on
    ``u``. A third stop test is the length of a plain projected (proximal) gradient step
    from ``x_k`` with the current step constant, ``||P(x_k + grad/L_k) - x_k|| <= tol``:
    the measure of Algorithm 1 and eq. (17) taken without the momentum, whose steps keep
    drifting along the flat directions of a narrow kernel long after ``h`` has settled
    (DANK-SVR at sigma = 0.2, C = 200, eta = 0.3: 209 iterations with h final to 1e-8 from
    the 75th; 58 with this test and the shrunk start). ``L_k`` is a local curvature
    estimate, far below the bound of Lemma 1 where that bound is loose, so the step it
    measures is then longer than eq. (17)'s and the test stricter. The start is shrunk
    towards 0 first while that raises ``h`` (:func:`_shrink_start`).

    **Step rule.** ``L`` (the global bound of Lemma 1, or any upper estimate) only sets
    the length of a probe step whose measured curvature is the first trial (see
    :func:`_initial_step_constant`). After each accepted step the next trial is
    :data:`APG_CURVATURE_MARGIN` times the curvature measured along it,
    ``-<g(x) - g(z), x - z> / ||x - z||^2``, but at most
    :data:`APG_MAX_DECREASE` times below the accepted ``L_k``. The curvature of ``h``
    varies by orders of magnitude over the box when ``eta`` is small (the inner ``F``
    then makes ``h`` close to a quartic in ``alpha``): a step constant that can only
    shrink by 10% per iteration spent a hundred iterations walking down from the
    curvature at the start. Backtracking never gives up at a cap: a step is taken only
    where the model holds, so a decrease of ``h`` after a plain (restarted) step means
    ``x`` is stationary to round-off.
    """
    svr = _SvrOracle.applies(problem)
    oracle = _SvrOracle(problem) if svr else _PlainOracle(problem)
    if svr:
        L = 0.5 * L  # the stacked variable's 2L (Lemma 1) is L in u
    log = IterationLog(callback)

    def record(x, h, step, inner, gap) -> bool:
        snap = getattr(problem, "snapshot", None)
        return log.record({"alpha": oracle.beta(x)}, objective=h, step_norm=step,
                          rank=inner.rank, gap=gap,
                          snapshot=lambda: snap(oracle.beta(x), inner) if snap else
                          {"alpha": oracle.beta(x)})

    x = oracle.start(beta0)
    hx, fx, gx, inner = oracle.evaluate(x)
    x, hx, fx, gx, inner = _shrink_start(oracle, x, hx, fx, gx, inner)
    z, fz, gz = x, fx, gx
    t = 1.0
    L = _initial_step_constant(oracle, x, gx, L)
    converged = stopped = False
    k = 0
    for k in range(max_iter):  # noqa: B007 (k is the iteration count after the loop)
        while True:
            xn = oracle.step(z + gz / L, L)
            hn, fn, gn, inn = oracle.evaluate(xn)
            d = xn - z
            if (np.isfinite(hn) and _model_holds(fn, fz, gz, d, L)) or not np.any(d) \
                    or L > 1e300:
                break
            L = _raised_step_constant(fn, fz, gz, d, L)
        dd = float(d @ d)
        curvature = -float((gn - gz) @ d) / dd if dd > 0 else 0.0
        step = float(np.linalg.norm(xn - x))
        if hn < hx:
            if z is x:
                # a plain (proximal) gradient step from x, with the quadratic lower
                # model satisfied, no longer raises h: x is stationary to round-off
                stopped = record(x, hx, 0.0, inner, oracle.gap(x, gx))
                converged = True
                break
            # momentum overshot: restart from the better point
            t = 1.0
            if step > tol:
                z, fz, gz = x, fx, gx
                stopped = record(x, hx, 0.0, inner, oracle.gap(x, gx))
                if stopped:
                    break
                continue
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        z = xn + ((t - 1.0) / t_new) * (xn - x)
        x, hx, fx, gx, inner = xn, hn, fn, gn, inn
        t = t_new
        gap = oracle.gap(x, gx)
        stopped = record(x, hx, step, inner, gap)
        converged = (step <= tol or gap <= APG_GAP_RTOL * abs(hx)
                     or _plain_step_length(oracle, x, gx, L) <= tol) and bool(np.isfinite(hx))
        if _stop(converged, stopped, hx):
            break
        if t > 1.0 and np.any(z != x):
            _, fz, gz, _ = oracle.evaluate(z)
        else:
            z, fz, gz = x, fx, gx
        L = max(min(L, APG_CURVATURE_MARGIN * curvature), L / APG_MAX_DECREASE, 1e-12)
    return SolveResult(oracle.beta(x), hx, inner, k + 1, converged, stopped, log)


SOLVERS = {
    "nesterov": solve_nesterov,
    "nesterov-monotone": lambda *a, **k: solve_nesterov(*a, monotone=True, **k),
    "pg": solve_pg,
    "apg": solve_apg,
}
