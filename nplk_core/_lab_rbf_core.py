r"""The maths of LAB RBF (:mod:`nplk_core.lab_rbf`): the asymmetric kernel, its ridge
solves, and the bandwidth loss with its adjoint gradient, as pure functions.

Every support point :math:`x_i` (``i = 1..m``) carries its own bandwidth vector
:math:`\theta_i \in \mathbb{R}^d_{\ge 0}` and the kernel belongs to it:

.. math::

    k_\theta(x_i, x) = \exp(-\|\theta_i \circ (x_i - x)\|^2)
    \quad\text{(``kind="gaussian"``, the paper's form)}, \qquad
    k_\theta(x_i, x) = \exp(-\|\theta_i \circ (x_i - x)\|)
    \quad\text{(``kind="laplace"``, the authors' code)}.

The kernel is asymmetric, :math:`k_\theta(x_i, x_j) \ne k_\theta(x_j, x_i)`.
Asymmetric kernel ridge regression on the support set (Thm 1, eq. 8) gives, with
:math:`K_{sv}[i, j] = k_\theta(x_i, x_j)` and :math:`\beta_0 = \operatorname{mean}(y_{sv})`,

.. math::

    \alpha = (K_{sv}^\top + \lambda I)^{-1} (y_{sv} - \beta_0), \qquad
    f(x) = \sum_i \alpha_i k_\theta(x_i, x) + \beta_0 ,

so :math:`f(x_j) = y_j - \lambda \alpha_j` on the support points (interpolation as
:math:`\lambda \to 0`). The bandwidths are trained on the remaining data (eq. 9):

.. math::

    \min_{\theta \ge 0} L(\theta) = \frac{1}{n_t} \sum_{j \in T}
    \big(f_\theta(x_j) - y_j\big)^2 .

**Gradient (adjoint trick).** With :math:`A = K_{sv}^\top + \lambda I`,
:math:`e = K_{t}^\top \alpha + \beta_0 - y_t` (``K_t[i, j] = k_\theta(x_i, x_j)``,
``j ∈ T``) and :math:`g = 2e / n_t`,

.. math::

    dL = \alpha^\top dK_t\, g - \mu^\top dK_{sv}^\top \alpha, \qquad
    \mu = A^{-\top} K_t g ,

one extra solve with the same LU factors. Row ``i`` of both kernel matrices depends
only on :math:`\theta_i`, so with weights :math:`W_t = \alpha g^\top`,
:math:`W_{sv} = -\alpha \mu^\top` and :math:`D_{ijl} = (x_{il} - x_{jl})^2`

.. math::

    \partial L / \partial \theta_{il} = -2\theta_{il} \sum_j W_{ij} K_{ij} D_{ijl}
    \ \text{(gaussian)}, \qquad
    -\theta_{il} \sum_j W_{ij} K_{ij} D_{ijl} / r_{ij}
    \ \text{(laplace, } r_{ij} = \|\theta_i \circ (x_i - x_j)\|,\ 0 \text{ where } r = 0).

Cost per evaluation: :math:`O(m n d + m^3)`. A training stage evaluates the loss a few
hundred times on one support set, so :class:`_Problem` keeps what does not depend on
:math:`\theta` (the squared coordinate differences, the support targets) and shares one
kernel pass between the support, training and validation columns; the validation loss of
an iterate then needs no solve of its own (6-8x less CPU per evaluation than building
every matrix per call).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg.lapack import get_lapack_funcs
from scipy.optimize import minimize

KINDS = ("gaussian", "laplace")
# element count up to which a stage keeps its squared coordinate differences (d x m x n
# float64: 4M elements = 32 MB); above it they are recomputed per feature on every call
_CACHE_ELEMENTS = 1 << 22
_getrf, _getrs = get_lapack_funcs(("getrf", "getrs"), dtype=np.float64)
# L-BFGS-B stage convergence: the loss decreased by less than tol * max(|f|, 1) on this
# many consecutive iterations
_STALL = 2


def _weighted_sq_dist(Xs: NDArray, theta: NDArray, X: NDArray) -> NDArray:
    """``Q[i, j] = ||theta_i o (Xs_i - X_j)||^2``, accumulated feature by feature from
    differences (exact 0 for coinciding points, no cancellation, no m x n x d array)."""
    T2 = theta * theta
    Q = np.zeros((Xs.shape[0], X.shape[0]))
    for col in range(Xs.shape[1]):
        diff = np.subtract.outer(Xs[:, col], X[:, col])
        diff *= diff
        diff *= T2[:, col, None]
        Q += diff
    return Q



def _kernel_from_q(Q: NDArray, kind: str) -> NDArray:
    if kind == "gaussian":
        return np.exp(-Q)
    return np.exp(-np.sqrt(Q))


def lab_grid_values(Xs: NDArray, theta: NDArray, coef: NDArray, xs: NDArray, ys: NDArray
                    ) -> NDArray[np.float64]:
    r"""``F[b, a] = sum_i coef_i k_theta(Xs_i, (xs_a, ys_b))`` on the tensor grid of two
    features, Gaussian kernel: the kernel factorises over the features,
    :math:`e^{-\theta_{i0}^2 (x_{i0} - u)^2 - \theta_{i1}^2 (x_{i1} - v)^2} =
    e^{-\theta_{i0}^2 (x_{i0} - u)^2}\, e^{-\theta_{i1}^2 (x_{i1} - v)^2}`, so the grid
    needs ``m (n_x + n_y)`` exponentials and one matrix product instead of
    ``m n_x n_y`` exponentials (equal to :func:`lab_kernel`'s values up to rounding)."""
    T2 = theta * theta
    du = np.subtract.outer(Xs[:, 0], xs)
    dv = np.subtract.outer(Xs[:, 1], ys)
    Eu = np.exp(-(du * du) * T2[:, :1])
    Ev = np.exp(-(dv * dv) * T2[:, 1:2])
    return (Ev.T * coef) @ Eu


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}.")


def lab_kernel(Xs: ArrayLike, theta: ArrayLike, X: ArrayLike, kind: str = "gaussian"
               ) -> NDArray[np.float64]:
    r"""LAB RBF kernel matrix ``K[i, j] = k_theta(Xs_i, X_j)``.

    ``exp(-||theta_i o (Xs_i - X_j)||^2)`` for ``kind="gaussian"``,
    ``exp(-||theta_i o (Xs_i - X_j)||)`` for ``kind="laplace"``.

    Parameters
    ----------
    Xs : array of shape (m, d)
        Support points (the bandwidth belongs to them).
    theta : array of shape (m, d)
        One bandwidth vector per support point (row ``i`` for ``Xs[i]``).
    X : array of shape (n, d)
        Points where the kernel is evaluated.
    kind : {"gaussian", "laplace"}

    Returns
    -------
    K : ndarray of shape (m, n)
    """
    _check_kind(kind)
    Xs = np.asarray(Xs, dtype=float)
    theta = np.asarray(theta, dtype=float)
    X = np.asarray(X, dtype=float)
    if theta.shape != Xs.shape:
        raise ValueError(f"theta must have the shape of Xs {Xs.shape}, got {theta.shape}.")
    return _kernel_from_q(_weighted_sq_dist(Xs, theta, X), kind)


def _factor(K_sv: NDArray, lam: float):
    """LU factors of ``A = K_sv^T + lam I`` (LAPACK getrf on the F-ordered transpose of
    ``K_sv + lam I``, which is ``A`` itself: no copy)."""
    At = K_sv + lam * np.eye(K_sv.shape[0])
    lu, piv, _ = _getrf(At.T, overwrite_a=True)
    return lu, piv


def lab_fit_alpha(Xs: ArrayLike, ys: ArrayLike, theta: ArrayLike, *, lam: float = 1e-3,
                  kind: str = "gaussian") -> tuple[NDArray[np.float64], float]:
    r"""Asymmetric KRR on the support set (the LAB RBF paper, eq. 8).

    ``beta0 = mean(ys)``, ``alpha = (K_sv^T + lam I)^{-1} (ys - beta0)`` with
    ``K_sv[i, j] = k_theta(Xs_i, Xs_j)``; then ``f(x) = sum_i alpha_i k_theta(Xs_i, x)
    + beta0`` satisfies ``f(Xs_j) = ys_j - lam alpha_j``.

    Returns
    -------
    alpha : ndarray of shape (m,)
    beta0 : float
    """
    _check_kind(kind)
    Xs = np.asarray(Xs, dtype=float)
    ys = np.asarray(ys, dtype=float)
    theta = np.asarray(theta, dtype=float)
    K_sv = lab_kernel(Xs, theta, Xs, kind)
    beta0 = float(ys.mean())
    alpha = _getrs(*_factor(K_sv, lam), ys - beta0)[0]
    return alpha, beta0


def lab_ridge_coef(Phi: ArrayLike, P: ArrayLike, y: ArrayLike, *, lam: float
                   ) -> tuple[NDArray[np.float64], float]:
    r"""Coefficients fitted to every row of a feature map (the lab's extension, not the
    paper's).

    ``b = mean(y)`` and ``a`` solves :math:`(\Phi^\top \Phi + \lambda P)\, a =
    \Phi^\top (y - b)`; ``f(x) = \Phi(x) a + b``. With ``P`` symmetric positive
    definite this is ridge regression with the penalty :math:`\lambda a^\top P a`
    (subset of regressors when ``P`` is the kernel among the centres).

    Parameters
    ----------
    Phi : array of shape (n, m)
        Feature map of the fitted points, ``Phi[j, i] = k(x_i, x_j)``.
    P : array of shape (m, m)
        Penalty matrix (:func:`lab_fit_alpha_all`: the asymmetric ``K_sv``).
    y : array of shape (n,)
    lam : float >= 0

    Returns
    -------
    a : ndarray of shape (m,)
    b : float
    """
    G, rhs, b = _ridge_system(Phi, y)
    return _ridge_solve(G, np.asarray(P, dtype=float), rhs, lam), b


def lab_ridge_coefs(Phi: ArrayLike, P: ArrayLike, y: ArrayLike, lams: ArrayLike
                    ) -> tuple[list[NDArray[np.float64] | None], float]:
    """:func:`lab_ridge_coef` at every ridge of ``lams``, the Gram matrix and the
    right-hand side formed once (the same numbers, bit for bit, as one call per ridge);
    ``None`` where the least-squares solve did not converge. Returns ``(coefs, b)``."""
    G, rhs, b = _ridge_system(Phi, y)
    P = np.asarray(P, dtype=float)
    coefs: list[NDArray[np.float64] | None] = []
    for lam in np.asarray(lams, dtype=float):
        try:
            coefs.append(_ridge_solve(G, P, rhs, float(lam)))
        except np.linalg.LinAlgError:
            coefs.append(None)
    return coefs, b


def _ridge_system(Phi: ArrayLike, y: ArrayLike) -> tuple[NDArray, NDArray, float]:
    """``(Phi^T Phi, Phi^T (y - b), b)``, ``b = mean(y)``."""
    Phi = np.asarray(Phi, dtype=float)
    y = np.asarray(y, dtype=float)
    b = float(y.mean())
    return Phi.T @ Phi, Phi.T @ (y - b), b


def _ridge_solve(G: NDArray, P: NDArray, rhs: NDArray, lam: float) -> NDArray[np.float64]:
    """``a`` of ``(G + lam P) a = rhs`` by least squares."""
    # least squares, not solve: a support point whose bandwidth is 0 has a constant
    # kernel, and two of them make identical columns of Phi and identical rows of K_sv
    # (measured: 9 of 30 on the noisy chirp, seed 0); the minimum-norm solution splits
    # their coefficient evenly and equals solve's wherever A is invertible
    return np.linalg.lstsq(G + lam * P, rhs, rcond=None)[0]


def lab_fit_alpha_all(Xs: ArrayLike, theta: ArrayLike, X: ArrayLike, y: ArrayLike, *,
                      lam: float = 1e-3, kind: str = "gaussian"
                      ) -> tuple[NDArray[np.float64], float]:
    r"""LAB RBF's learned kernel with its coefficients fitted to ALL the points ``X``
    (the lab's extension, not the paper's).

    With the feature map :math:`\Phi_{ji} = k_{\theta_i}(Xs_i, X_j)` and
    :math:`K_{sv}[i, j] = k_{\theta_i}(Xs_i, Xs_j)`, ``b = mean(y)`` and

    .. math::

        (\Phi^\top \Phi + \lambda K_{sv})\, a = \Phi^\top (y - b),

    the paper's equations (:func:`lab_fit_alpha`) with the support rows replaced by all
    rows: when ``X`` is the support set, :math:`\Phi = K_{sv}^\top` and the system is
    :math:`K_{sv}(K_{sv}^\top + \lambda I) a = K_{sv} (y - b)`, the paper's solution
    whenever ``K_sv`` is invertible. With more points than support points the
    coefficients average the label noise instead of interpolating it.

    Returns
    -------
    a : ndarray of shape (m,)
    b : float
    """
    _check_kind(kind)
    Xs = np.asarray(Xs, dtype=float)
    theta = np.asarray(theta, dtype=float)
    Phi = lab_kernel(Xs, theta, X, kind).T
    return lab_ridge_coef(Phi, lab_kernel(Xs, theta, Xs, kind), y, lam=lam)


class _Problem:
    r"""The bandwidth-training loss of one support set, ready to be evaluated many times.

    Columns ``0..m-1`` are the support points, then the ``n_t`` training points, then the
    ``n_v`` validation points (whose residual comes with every evaluation for free: it
    needs only ``alpha``). What does not depend on theta is computed once: the squared
    coordinate differences ``D[l, i, j] = (Xs_il - X_jl)^2`` (while ``d m n`` stays under
    ``_CACHE_ELEMENTS``; above, they are rebuilt one feature at a time per call, never
    an m x n x d array), the centred support targets, the index arrays.

    One evaluation: ``Q = sum_l theta_l^2 D_l``, ``K = exp(-Q)`` (one pass over m x n),
    one LU of ``A = K_sv^T + lam I`` (LAPACK ``getrf`` on the F-ordered transpose of
    ``K_sv + lam I``, no copy), ``alpha = A^{-1} r``, ``mu = A^{-T} K_t g``, and the
    gradient ``dL/dtheta_il = c theta_il alpha_i sum_j K'_ij D_ijl w_j`` with
    ``w = (-mu, g)`` over the support and training columns (``c = -2`` and ``K' = K``
    for the Gaussian; ``c = -1`` and ``K' = K / r`` (0 where ``r = 0``) for the Laplace
    kernel): one contraction per feature, no outer products.
    """

    def __init__(self, Xs: NDArray, ys: NDArray, Xt: NDArray, yt: NDArray, lam: float,
                 kind: str, Xv: NDArray | None = None, yv: NDArray | None = None) -> None:
        self.m, self.d = Xs.shape
        self.n_t = Xt.shape[0]
        self.n_v = 0 if Xv is None else Xv.shape[0]
        self.lam, self.kind = float(lam), kind
        self.Xs = Xs
        self.X = np.vstack([Xs, Xt] + ([Xv] if self.n_v else []))
        self.beta0 = float(ys.mean())
        self.r = ys - self.beta0
        self.yt = yt
        self.yv = yv if self.n_v else np.empty(0)
        n = self.X.shape[0]
        self.D = None
        if self.d * self.m * n <= _CACHE_ELEMENTS:
            self.D = np.empty((self.d, self.m, n))
            for col in range(self.d):
                np.subtract.outer(Xs[:, col], self.X[:, col], out=self.D[col])
            self.D *= self.D
        self.diag = np.arange(self.m)
        self.last = None  # (theta bytes, loss, val_loss, alpha) of the latest evaluation

    def _sqdiff(self, col: int, stop: int | None = None) -> NDArray:
        if self.D is not None:
            return self.D[col, :, :stop]
        diff = np.subtract.outer(self.Xs[:, col], self.X[:stop, col])
        diff *= diff
        return diff

    def _q(self, T2: NDArray) -> NDArray:
        if self.D is not None:
            return np.einsum("il,lij->ij", T2, self.D)
        Q = np.zeros((self.m, self.X.shape[0]))
        for col in range(self.d):
            diff = self._sqdiff(col)
            diff *= T2[:, col, None]
            Q += diff
        return Q

    def evaluate(self, theta: NDArray, need_grad: bool = True):
        """(loss, grad or None); also keeps ``self.last`` for :meth:`val_loss`."""
        m, n_t = self.m, self.n_t
        Q = self._q(theta * theta)
        if self.kind == "gaussian":
            K = np.exp(np.negative(Q, out=Q), out=Q)  # exp(-Q) without two temporaries
        else:
            R = np.sqrt(Q)
            K = np.exp(-R)
        # A^T = K_sv + lam I; its F-ordered transpose is A itself
        At = K[:, :m].copy()
        At[self.diag, self.diag] += self.lam
        lu, piv, _ = _getrf(At.T, overwrite_a=True)
        alpha = _getrs(lu, piv, self.r)[0]
        pred = alpha @ K[:, m:]
        pred += self.beta0
        e = pred[:n_t] - self.yt
        loss = float(e @ e) / n_t
        val = np.nan
        if self.n_v:
            ev = pred[n_t:] - self.yv
            val = float(ev @ ev) / self.n_v
        self.last = (np.ascontiguousarray(theta).tobytes(), loss, val, alpha)
        if not need_grad:
            return loss, None
        g = (2.0 / n_t) * e
        Kt = K[:, m:m + n_t]
        mu = _getrs(lu, piv, Kt @ g, trans=1)[0]
        w = np.concatenate([-mu, g])
        stop = m + n_t
        if self.kind == "gaussian":
            M = K[:, :stop] * w
            factor = -2.0
        else:
            Rs = R[:, :stop]
            with np.errstate(divide="ignore", invalid="ignore"):
                M = np.where(Rs > 0, K[:, :stop] / Rs, 0.0)
            M *= w
            factor = -1.0
        if self.D is not None:
            S = np.einsum("ij,lij->il", M, self.D[:, :, :stop])
        else:
            S = np.empty((m, self.d))
            for col in range(self.d):
                S[:, col] = np.einsum("ij,ij->i", M, self._sqdiff(col, stop))
        S *= (factor * alpha)[:, None]
        S *= theta
        return loss, S

    def val_loss(self, theta: NDArray) -> float:
        """Validation loss at ``theta`` (from the latest evaluation when it was there)."""
        if self.last is None or self.last[0] != np.ascontiguousarray(theta).tobytes():
            self.evaluate(theta, need_grad=False)
        return self.last[2]


def _loss_grad(theta: NDArray, Xs: NDArray, ys: NDArray, Xt: NDArray, yt: NDArray,
               lam: float, kind: str, need_grad: bool = True):
    return _Problem(Xs, ys, Xt, yt, lam, kind).evaluate(theta, need_grad)


def lab_loss_and_grad(theta: ArrayLike, Xs: ArrayLike, ys: ArrayLike, Xt: ArrayLike,
                      yt: ArrayLike, *, lam: float = 1e-3, kind: str = "gaussian"
                      ) -> tuple[float, NDArray[np.float64]]:
    r"""Bandwidth-training loss (the LAB RBF paper, eq. 9) and its exact gradient.

    :math:`L(\theta) = \frac{1}{n_t}\sum_j (f_\theta(Xt_j) - yt_j)^2` where
    :math:`f_\theta` is the asymmetric KRR fit of :func:`lab_fit_alpha` on
    ``(Xs, ys)``; the gradient flows through the solve by the adjoint trick (module
    docstring): one extra solve with the same LU factors.

    Parameters
    ----------
    theta : array of shape (m, d)
        Bandwidths, one row per support point.
    Xs, ys : arrays of shape (m, d) and (m,)
        Support data.
    Xt, yt : arrays of shape (n_t, d) and (n_t,)
        Training data the loss is measured on.
    lam : float > 0
    kind : {"gaussian", "laplace"}

    Returns
    -------
    loss : float
    grad : ndarray of shape (m, d)
    """
    _check_kind(kind)
    arrs = [np.asarray(a, dtype=float) for a in (theta, Xs, ys, Xt, yt)]
    theta, Xs, ys, Xt, yt = arrs
    if theta.shape != Xs.shape:
        raise ValueError(f"theta must have the shape of Xs {Xs.shape}, got {theta.shape}.")
    if yt.size == 0:
        raise ValueError("Xt is empty: the loss needs at least one training point.")
    return _loss_grad(theta, Xs, ys, Xt, yt, float(lam), kind)


def adam_descent(fun, batch, x0: NDArray, n_t: int, bounds, record, info: dict, rng, *,
                 learning_rate: float, batch_size: int, clip: float | None, max_iter: int,
                 tol: float) -> NDArray:
    """Projected minibatch Adam on the bandwidths from ``x0`` (``optimizer="adam"``).

    ``batch(x, rows)`` is the loss and gradient on the training rows ``rows``, ``fun(x,
    need_grad=False)`` the whole loss (recorded after each pass over the ``n_t`` rows);
    each step is clipped to ``clip`` in norm and projected onto ``bounds``. A pass whose
    loss changes by at most ``tol`` relative ends it (``info["converged"]``); so does a
    non-finite loss or gradient (the last finite iterate is returned; the caller checks
    the loss again). ``max_iter`` passes without that set ``info["hit_max_iter"]``."""
    lr, b1, b2, eps = float(learning_rate), 0.9, 0.999, 1e-8
    x = x0.copy()
    m1 = np.zeros_like(x)
    v = np.zeros_like(x)
    t = 0
    prev = fun(x, need_grad=False)[0]
    for _ in range(max_iter):
        perm = rng.permutation(n_t)
        batch_losses = []
        for start in range(0, n_t, batch_size):
            b = perm[start:start + batch_size]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                bl, g = batch(x, b)
            g = g.ravel()
            if not (np.isfinite(bl) and np.all(np.isfinite(g))):
                return x  # last finite iterate; the caller re-checks the loss
            gn = float(np.linalg.norm(g))
            if clip is not None and gn > clip:
                g *= clip / gn
            t += 1
            m1 = b1 * m1 + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            step = lr * (m1 / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
            x = np.clip(x - step, *bounds)
            batch_losses.append(bl)
        loss = fun(x, need_grad=False)[0]
        record(x, loss, batch_loss=float(np.mean(batch_losses)))
        if not np.isfinite(loss):
            return x
        if abs(prev - loss) <= tol * max(abs(prev), abs(loss), 1.0):
            info["converged"] = True
            return x
        prev = loss
    info["hit_max_iter"] = True
    return x


def _c_lbfgsb():
    """SciPy's L-BFGS-B kernel ``setulb`` as SciPy 1.15 and later call it (the C port), or
    None (older SciPy, or a kernel that is no longer where it was)."""
    import scipy

    try:
        major, minor = (int(p) for p in scipy.__version__.split(".")[:2])
        from scipy.optimize import _lbfgsb
    except (ImportError, ValueError):
        return None
    return _lbfgsb.setulb if (major, minor) >= (1, 15) and hasattr(_lbfgsb, "setulb") else None


_SETULB = _c_lbfgsb()


def _lbfgsb_loop(fg, x0: NDArray, lo: float, hi: float, callback, *, max_iter: int,
                 gtol: float, maxcor: int = 10, maxls: int = 20, maxfun: int = 15000):
    """L-BFGS-B from ``x0`` within ``[lo, hi]``: SciPy's own kernel, driven the way
    ``minimize(method="L-BFGS-B", jac=True, options={"ftol": 0, "gtol": gtol})`` drives it
    (the same calls with the same arrays, so the same iterates to the last bit:
    ``tests/test_lab_rbf_speed.py``), without the wrappers around every evaluation and
    every iteration that cost as much as the loss itself at the lab's sizes.

    ``fg(x)`` is (loss, gradient); ``callback(x, f, g)`` runs after every iteration with
    the loss and gradient there and may raise StopIteration to end the run (minimize's
    rule). Returns (x, status, iterations): status 0 converged, 1 an iteration or
    evaluation limit, 2 stopped otherwise (the callback among them)."""
    n = x0.size
    low = np.full(n, lo, dtype=np.float64)
    upp = np.full(n, hi, dtype=np.float64)
    x = np.clip(np.asarray(x0, dtype=np.float64).ravel(), low, upp)
    nbd = np.full(n, 2, dtype=np.int32)  # both bounds finite
    f = np.array(0.0, dtype=np.float64)
    g = np.zeros(n, dtype=np.float64)
    wa = np.zeros(2 * maxcor * n + 5 * n + 11 * maxcor * maxcor + 8 * maxcor, np.float64)
    iwa = np.zeros(3 * n, dtype=np.int32)
    task = np.zeros(2, dtype=np.int32)
    ln_task = np.zeros(2, dtype=np.int32)
    lsave = np.zeros(4, dtype=np.int32)
    isave = np.zeros(44, dtype=np.int32)
    dsave = np.zeros(29, dtype=np.float64)
    # minimize evaluates at the start when it builds its function object
    x_eval = x.copy()
    f_eval, g_eval = fg(x.copy())
    nfev = 1
    n_iter = 0
    while True:
        g = g.astype(np.float64)
        _SETULB(maxcor, x, low, upp, nbd, f, g, 0.0, gtol, wa, iwa, task, lsave, isave,
                dsave, maxls, ln_task)
        if task[0] == 3:  # evaluate at x
            if not np.array_equal(x, x_eval):
                x_eval = x.copy()
                f_eval, g_eval = fg(x.copy())
                nfev += 1
            f, g = f_eval, g_eval
        elif task[0] == 1:  # a new iterate
            n_iter += 1
            try:
                callback(x, f, g_eval)
            except StopIteration:
                task[0], task[1] = 5, 505
            if n_iter >= max_iter:
                task[0], task[1] = 5, 504
            elif nfev > maxfun:
                task[0], task[1] = 5, 502
        else:
            break
    if task[0] == 4:
        status = 0
    elif nfev > maxfun or n_iter >= max_iter:
        status = 1
    else:
        status = 2
    return x, status, n_iter


def _lbfgsb_minimize(fg, x0: NDArray, lo: float, hi: float, callback, *, max_iter: int,
                     gtol: float):
    """The same run through ``scipy.optimize.minimize`` (SciPy before 1.15, and the
    reference the direct loop is tested against)."""
    cache = {"x": None, "g": None}

    def fun(x):
        loss, grad = fg(x)
        cache["x"], cache["g"] = x.tobytes(), grad
        return loss, grad

    def cb(intermediate_result):
        x = np.asarray(intermediate_result.x, dtype=float)
        callback(x, float(intermediate_result.fun),
                 cache["g"] if cache["x"] == x.tobytes() else None)

    res = minimize(fun, x0, jac=True, method="L-BFGS-B",
                   bounds=[(lo, hi)] * x0.size, callback=cb,
                   options={"maxiter": max_iter, "ftol": 0.0, "gtol": gtol})
    return res.x, res.status, res.nit


def _projected_max(x: NDArray, g: NDArray | None, lo: float, hi: float) -> float:
    """The largest entry of the projected gradient on the box [lo, hi] (the L-BFGS-B
    stopping measure): ``|g_i|`` over the entries not held at a bound by the sign of
    ``g_i``; NaN without a gradient. An interior iterate (the usual case) needs one pass
    over ``|g|``; the maximum of the same numbers either way."""
    if g is None:
        return np.nan
    if g.size == 0:
        return 0.0
    if x.min() > lo and x.max() < hi:
        return float(np.abs(g).max())
    held = ((x <= lo) & (g > 0)) | ((x >= hi) & (g < 0))
    return float(np.abs(np.where(held, 0.0, g)).max())


def lbfgs_descent(fun, x0: NDArray, bounds, record, info: dict, *, max_iter: int,
                  tol: float, direct: bool | None = None) -> NDArray:
    """L-BFGS-B on the bandwidths from ``x0`` within ``bounds`` (``optimizer="lbfgs"``);
    ``fun(x)`` is the loss and its gradient, ``record(x, loss, grad_norm=...)`` is called
    at every iteration with the projected gradient's largest entry.

    Stopping rule. L-BFGS-B's own objective test ends a stage at the first iteration
    whose decrease is below ftol * max(|f|, 1), however large the gradient: one short
    line-search step did that after 5 and 11 iterations with the projected gradient at
    0.02 (chirp n = 100 seed 4, n = 300 seed 1: R² 0.71 and 0.48 instead of 0.90 and
    0.98). Here the decrease must stay below tol * max(|f|, 1) on ``_STALL`` consecutive
    iterations; the projected-gradient test (gtol = tol) is L-BFGS-B's.

    ``direct``: drive SciPy's L-BFGS-B kernel directly (:func:`_lbfgsb_loop`; the default
    where SciPy has its C port) or through ``minimize`` (False); both give the same
    iterates."""
    lo, hi = bounds
    losses = []
    done = {"flag": False, "run": 0}

    def cb(x, f, g):
        record(x, f, grad_norm=_projected_max(x, g, lo, hi))
        small = bool(losses) and losses[-1] - f <= tol * max(abs(f), 1.0)
        losses.append(f)
        done["run"] = done["run"] + 1 if small else 0
        if done["run"] >= _STALL:
            done["flag"] = True
            raise StopIteration

    if direct is None:
        direct = _SETULB is not None
    run = _lbfgsb_loop if direct else _lbfgsb_minimize
    x, status, _ = run(fun, np.asarray(x0, dtype=float), lo, min(hi, 1e300), cb,
                       max_iter=max_iter, gtol=tol)
    info["converged"] = status == 0 or done["flag"]
    info["hit_max_iter"] = status == 1 and not done["flag"]
    return x
