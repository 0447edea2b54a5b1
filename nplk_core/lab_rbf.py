r"""LAB RBF: RBF kernels with locally adaptive bandwidths: the two estimators and their
shared staged fit.

The paper: He et al., *Enhancing Kernel Flexibility via Learning Asymmetric
Locally-Adaptive Kernels*, 2023; the maths: docs/the-maths-of-every-method.md,
'LAB RBF — Enhancing Kernel Flexibility via Learning Asymmetric Locally-Adaptive
Kernels'.

Every support point carries its own bandwidth vector and the kernel belongs to it; an
asymmetric kernel ridge regression on the support set gives the model, and the
bandwidths are trained on the remaining data by gradient. The maths (the kernel, its
solves, the loss and its adjoint gradient) is :mod:`nplk_core._lab_rbf_core`.
"""

from __future__ import annotations

import math
import warnings
from numbers import Real

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import (
    IterationLog,
    any_value,
    callable_or_none,
    check_params,
    check_two_classes,
    nonnegative,
    one_of,
    optional,
    positive,
    positive_int,
    positive_or,
    single_thread_blas,
    warn_not_converged,
)

# the maths, re-exported here where the lab and its users import it
from ._lab_rbf_core import (  # noqa: F401 (_kernel_from_q: the lab imports it here)
    KINDS,
    _kernel_from_q,
    _loss_grad,
    _Problem,
    _weighted_sq_dist,
    adam_descent,
    lab_fit_alpha,
    lab_fit_alpha_all,
    lab_grid_values,
    lab_kernel,
    lab_loss_and_grad,
    lab_ridge_coef,
    lab_ridge_coefs,
    lbfgs_descent,
)
from ._lab_rbf_docs import _ATTRS_DOC, _PARAMS_DOC, _REFERENCES, _TRAINING_NOTE

__all__ = [
    "LABRBFClassifier",
    "LABRBFRegressor",
    "lab_fit_alpha",
    "lab_fit_alpha_all",
    "lab_kernel",
    "lab_ridge_coef",
    "lab_ridge_coefs",
    "lab_loss_and_grad",
]

# bandwidth_init="auto": global bandwidths sqrt(30 / d) * 2^(k/2), k = -6..10
_AUTO_FACTORS = 2.0 ** (np.arange(-6, 11) / 2.0)
# bandwidth_bounds="auto": theta in [_BOUND_LO, _BOUND_HI / h], h the median
# nearest-neighbour distance of the training data (internal units)
_BOUND_LO = 0.0
_BOUND_HI = 3.0


# ---------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------

class _StopRequested(Exception):
    pass


def open_unit(name, value):
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value) \
            or not 0 < value < 1:
        raise ValueError(f"{name} must be a number in (0, 1) or None, got {value!r}.")


class _LABRBFBase(BaseEstimator):
    r"""Shared fitting code of :class:`LABRBFRegressor` and :class:`LABRBFClassifier`."""

    _param_rules = {
        "n_support": positive_int,
        "lam": positive,
        "kernel": one_of(*KINDS),
        "bandwidth_init": positive_or("auto", None),
        "optimizer": one_of("lbfgs", "adam"),
        "max_iter": positive_int,
        "stage_max_iter": optional(positive_int),
        "tol": nonnegative,
        "support_selection": one_of("dynamic", "sorted", "random"),
        "n_initial": optional(positive_int),
        "error_tol": optional(nonnegative),
        "learning_rate": positive,
        "batch_size": positive_int,
        "clip": optional(positive),
        "validation_fraction": optional(open_unit),
        "bandwidth_bounds": one_of("auto", None),
        "callback": callable_or_none,
        "random_state": any_value,
    }

    def __init__(self, *, n_support: int = 30, lam: float = 1e-3, kernel: str = "gaussian",
                 bandwidth_init: float | str | None = "auto", optimizer: str = "lbfgs",
                 max_iter: int = 1000, stage_max_iter: int | None = None, tol: float = 1e-6,
                 support_selection: str = "dynamic",
                 n_initial: int | None = None, error_tol: float | None = None,
                 learning_rate: float = 1e-2, batch_size: int = 128,
                 clip: float | None = 10.0, validation_fraction: float | None = 0.2,
                 bandwidth_bounds: str | None = "auto", callback=None,
                 random_state=None) -> None:
        self.n_support = n_support
        self.lam = lam
        self.kernel = kernel
        self.bandwidth_init = bandwidth_init
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.stage_max_iter = stage_max_iter
        self.tol = tol
        self.support_selection = support_selection
        self.n_initial = n_initial
        self.error_tol = error_tol
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.clip = clip
        self.validation_fraction = validation_fraction
        self.bandwidth_bounds = bandwidth_bounds
        self.callback = callback
        self.random_state = random_state

    # -- helpers ------------------------------------------------------------

    def _scale(self, X: NDArray) -> NDArray:
        return (X - self.x_center_) / self.x_scale_

    def _initial_support(self, y: NDArray, n_first: int, rng) -> NDArray:
        n = y.size
        if self.support_selection == "random":
            return np.sort(rng.choice(n, size=n_first, replace=False))
        order = np.argsort(y, kind="stable")
        if n_first == 1:
            pos = np.array([(n - 1) // 2])
        else:
            pos = np.round(np.linspace(0, n - 1, n_first)).astype(int)
        return order[pos]

    def _resolve_n_support(self, n: int) -> int:
        if self.n_support <= n:
            return int(self.n_support)
        warnings.warn(
            f"n_support={self.n_support} exceeds the number of training samples "
            f"(n_samples={n}); using n_support={n}. Lower n_support or add data.",
            UserWarning, stacklevel=5)
        return n

    def _resolve_n_initial(self, n_support: int) -> int:
        if self.support_selection != "dynamic":
            return n_support
        if self.n_initial is None:
            return min(n_support, max(10, n_support // 3))
        if self.n_initial > self.n_support:
            raise ValueError(
                f"n_initial={self.n_initial} exceeds n_support={self.n_support}; "
                "the dynamic selection starts with n_initial support points and grows "
                "to n_support. Lower n_initial or raise n_support.")
        return min(int(self.n_initial), n_support)

    def _validation_split(self, n: int, n_support: int) -> NDArray:
        """Indices held out for model selection: ``round(validation_fraction * (n -
        n_support))`` points at evenly spaced positions of the data order (deterministic;
        empty when fewer than 2 points would remain to train the bandwidths)."""
        if self.validation_fraction is None:
            return np.empty(0, dtype=int)
        n_val = int(round(self.validation_fraction * (n - n_support)))
        if n_val < 1 or n - n_support - n_val < 2:
            return np.empty(0, dtype=int)
        return np.unique(np.floor((np.arange(n_val) + 0.5) * n / n_val).astype(int))

    def _bounds(self, Xz: NDArray) -> tuple[float, float]:
        """Bounds on every ``theta_il`` (internal units)."""
        if self.bandwidth_bounds is None or Xz.shape[0] < 2:
            return 0.0, np.inf
        # A Gaussian narrower than the spacing of the data touches no training point but
        # its own: the loss cannot see it, and a spike there only interpolates noise.
        # theta * h = _BOUND_HI puts exp(-(theta h)^2) at the median nearest-neighbour
        # distance h below exp(-_BOUND_HI^2).
        sq = _weighted_sq_dist(Xz, np.ones_like(Xz), Xz)
        np.fill_diagonal(sq, np.inf)
        nn = np.sqrt(sq.min(axis=1))
        h = float(np.median(nn[np.isfinite(nn) & (nn > 0)])) if np.any(nn > 0) else 1.0
        return _BOUND_LO, _BOUND_HI / h

    def _resolve_bandwidth_init(self, Xs, ys, Xt, yt, bounds) -> float:
        d = Xs.shape[1]
        base = np.sqrt(30.0 / d)
        if self.bandwidth_init is None:
            return float(np.clip(base, *bounds))
        if self.bandwidth_init != "auto":
            return float(np.clip(self.bandwidth_init, *bounds))
        # the LAB RBF paper, §3: "use the global bandwidth of a general RBF kernel, tuned on the
        # training data, as the initial parameter": the loss of the initial support set
        # with one shared theta, on a log grid around the authors' sqrt(30 / d).
        if yt.size == 0:
            return float(np.clip(base, *bounds))
        return self._best_global(Xs, ys, Xt, yt, bounds, base)[0]

    def _best_global(self, Xs, ys, Xt, yt, bounds, base):
        """(theta, loss) of the shared bandwidth on the grid with the smallest loss on
        (Xt, yt). Within one fit the support set is fixed by its size (stages only
        append) and the training points are the rest of the pool, so the grid of a
        support size and base is searched once: the last stage's start and the final
        shared-bandwidth check ask the same."""
        grids = getattr(self, "_grids", None)
        key = (Xs.shape[0], Xt.shape[0], float(base))
        if grids is not None and key in grids:
            return grids[key]
        got = self._search_global(Xs, ys, Xt, yt, bounds, base)
        if grids is not None:
            grids[key] = got
        return got

    def _search_global(self, Xs, ys, Xt, yt, bounds, base):
        best, best_loss = float(np.clip(base, *bounds)), np.inf
        prob = _Problem(Xs, ys, Xt, yt, float(self.lam), self.kernel)  # one for the grid
        for factor in _AUTO_FACTORS:
            t = float(np.clip(base * factor, *bounds))
            loss = self._eval_loss(np.full(Xs.shape, t), Xs, ys, Xt, yt, prob)
            if loss < best_loss:
                best, best_loss = t, loss
        return best, best_loss

    def _eval_loss(self, theta, Xs, ys, Xt, yt, prob: _Problem | None = None) -> float:
        """The training loss at ``theta`` (``prob``: the problem of these data, when the
        caller evaluates it more than once)."""
        if prob is None:
            prob = _Problem(Xs, ys, Xt, yt, float(self.lam), self.kernel)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            loss, _ = prob.evaluate(theta, need_grad=False)
        return loss if np.isfinite(loss) else np.inf

    # -- one training stage ---------------------------------------------------

    def _stage_start(self, theta, Xs, ys, Xt, yt, bounds, stage):
        """Starting bandwidths of a stage: the ones inherited from the previous stage (the
        added points with their nearest support point's), or one shared bandwidth on the
        new support set (the grid of ``bandwidth_init="auto"``; else ``bandwidth_init_``)
        if that has the smaller training loss. Returns (theta, whether shared).

        The loss is far from convex and the inherited start can sit in a poor basin: after
        the points with the largest errors join, their bandwidths can put ``K_sv^T + lam I``
        near singular (training loss 42.5 on standardised y, chirp seed 1 stage 2), and
        L-BFGS-B then ends wherever its path happens to go. That path changed with SciPy
        1.15's C port of L-BFGS-B (same start, chirp n = 100 seed 0 stage 1: loss 0.026
        with SciPy 1.13, 0.206 with 1.15-1.17, R² 0.98 vs 0.70). Stage 0 already starts
        from the best shared bandwidth (the LAB RBF paper, §3); every later stage may too."""
        if stage == 0:
            return theta, False
        start = np.clip(theta, *bounds)
        inherited = self._eval_loss(start, Xs, ys, Xt, yt)
        if self.bandwidth_init == "auto":
            t, loss = self._best_global(Xs, ys, Xt, yt, bounds, self.bandwidth_init_)
        else:
            t = self.bandwidth_init_
            loss = self._eval_loss(np.full(theta.shape, t), Xs, ys, Xt, yt)
        if loss < inherited:
            return np.full(theta.shape, t), True
        return start, False

    @staticmethod
    def _val_loss(prob: _Problem, x: NDArray) -> float:
        """Validation loss at the iterate ``x`` (the optimiser's last evaluation, as a
        rule: then it costs nothing). Called only inside :meth:`_train_stage`, which has
        set the floating-point error state for the whole stage."""
        val = prob.val_loss(x.reshape(prob.m, prob.d))
        return val if math.isfinite(val) else np.inf

    def _objective(self, prob: _Problem):
        # called only inside _train_stage, which sets np.errstate once for the stage
        # (entering it per evaluation cost a tenth of an evaluation)
        def fun(theta_flat, need_grad=True):
            theta = theta_flat.reshape(prob.m, prob.d)
            loss, grad = prob.evaluate(theta, need_grad)
            if not np.isfinite(loss) or (grad is not None and not np.all(np.isfinite(grad))):
                return np.inf, np.zeros_like(theta_flat)
            return loss, (None if grad is None else grad.ravel())
        return fun

    def _train_stage(self, *args):
        """:meth:`_train_stage_quiet`, where overflow to an infinite loss is expected."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._train_stage_quiet(*args)

    def _train_stage_quiet(self, theta, Xs, ys, Xt, yt, Xv, yv, bounds, log, stage, rng,
                           max_iter):
        """Train the bandwidths of one support set; returns (theta, info dict).

        With a validation set (Xv, yv non-empty) the iterate with the smallest validation
        loss is returned (the stage's start included). The optimiser still runs to its
        own tolerance: stopping after 20 or 50 iterations without a better validation
        loss left one toy seed below the shared-bandwidth reference (measured with
        ``benchmarks/bench_lab_rbf.py``, see the estimators' Notes)."""
        use_val = yv.size > 0
        prob = _Problem(Xs, ys, Xt, yt, float(self.lam), self.kernel,
                        *((Xv, yv) if use_val else ()))
        fun = self._objective(prob)
        x0 = np.clip(theta.ravel(), *bounds)
        loss0, _ = fun(x0, need_grad=False)
        val0 = self._val_loss(prob, x0) if use_val else np.nan
        info = {"loss_start": loss0, "n_iter": 0, "converged": False, "stopped": False,
                "hit_max_iter": False, "val_start": val0}
        m = Xs.shape[0]
        last_finite = {"x": x0.copy(), "loss": loss0}
        best = {"x": x0.copy(), "val": val0, "loss": loss0}

        def record(x, loss, **extra):
            dx = x - last_finite["x"]
            step = float(np.sqrt(dx @ dx))
            if np.isfinite(loss):
                last_finite["x"] = x.copy()
                last_finite["loss"] = loss
            info["n_iter"] += 1
            val = np.nan
            if use_val:
                val = self._val_loss(prob, x)
                if val < best["val"]:
                    best.update(x=x.copy(), val=val, loss=loss)
            stop = log.record(state={"theta": x.reshape(theta.shape), "stage": stage},
                              loss=loss, step_norm=step, support_size=m, stage=stage,
                              val_loss=val, **extra,
                              snapshot=lambda: self._snapshot(x.reshape(theta.shape), Xs, ys))
            if stop:
                info["stopped"] = True
                raise _StopRequested

        try:
            x = self._run_optimizer(fun, x0, Xs, ys, Xt, yt, bounds, record, info, rng,
                                    max_iter)
        except _StopRequested:
            x = last_finite["x"]

        loss, _ = fun(x, need_grad=False)
        if not np.isfinite(loss):
            warnings.warn(
                f"LAB RBF bandwidth training hit a non-finite loss (stage {stage}); stepping "
                "back to the last finite bandwidths. Raise lam or lower bandwidth_init.",
                RuntimeWarning, stacklevel=5)
            x, loss = last_finite["x"], last_finite["loss"]
        if use_val:
            x, loss = best["x"], best["loss"]
        info["loss_end"] = loss
        info["val_end"] = best["val"]
        return x.reshape(theta.shape), info

    def _run_optimizer(self, fun, x0, Xs, ys, Xt, yt, bounds, record, info, rng, max_iter):
        """L-BFGS-B (bounds theta >= 0) or projected minibatch Adam from ``x0``, for at
        most ``max_iter`` iterations (epochs)."""
        if self.optimizer == "lbfgs":
            return lbfgs_descent(fun, x0, bounds, record, info, max_iter=max_iter,
                                 tol=self.tol)
        lam, kind = float(self.lam), self.kernel

        def batch(x, b):
            return _loss_grad(x.reshape(Xs.shape), Xs, ys, Xt[b], yt[b], lam, kind)
        return adam_descent(fun, batch, x0, Xt.shape[0], bounds, record, info, rng,
                            learning_rate=float(self.learning_rate),
                            batch_size=self.batch_size, clip=self.clip,
                            max_iter=max_iter, tol=self.tol)

    # -- the whole fit ------------------------------------------------------------

    def _fit_scaled(self, X: NDArray, y: NDArray):
        check_params(self, self._param_rules)
        # The matrices are small (m x m, m x n): multithreaded BLAS only adds
        # synchronisation cost, which dominates L-BFGS-B's tiny vector operations
        # (measured 10 ms instead of 0.05 ms per step on a loaded 2-core machine). The
        # shared limiter: threadpoolctl's own context scans the loaded libraries on every
        # entry (1.7-30 ms per fit, the most in a page's process with many loaded).
        self._grids = {}
        try:
            with single_thread_blas():
                return self._fit_single_thread(X, y)
        finally:
            del self._grids

    def _fit_single_thread(self, X: NDArray, y: NDArray):
        n, d = X.shape
        n_support = self._resolve_n_support(n)
        n_first = self._resolve_n_initial(n_support)
        rng = check_random_state(self.random_state)

        lo, hi = X.min(axis=0), X.max(axis=0)
        self.x_center_ = (hi + lo) / 2.0
        half = (hi - lo) / 2.0
        half[half <= 0] = 1.0
        self.x_scale_ = half
        Xz = self._scale(X)
        y_mean = float(y.mean())
        y_std = float(y.std())
        if not np.isfinite(y_std) or y_std <= 0:
            y_std = 1.0
        yz = (y - y_mean) / y_std
        val = self._validation_split(n, n_support)
        pool = np.setdiff1d(np.arange(n), val)
        Xv, yv = Xz[val], yz[val]
        bounds = self._bounds(Xz)
        support = pool[self._initial_support(yz[pool], n_first, rng)]
        rest = np.setdiff1d(pool, support)
        theta0 = self._resolve_bandwidth_init(Xz[support], yz[support], Xz[rest], yz[rest],
                                              bounds)
        self.bandwidth_init_ = theta0
        self.bandwidth_bounds_ = bounds
        self.validation_ = val
        theta = np.full((support.size, d), theta0)
        log = IterationLog(self.callback)
        stage_rows = {k: [] for k in ("support_size", "loss_start", "loss", "n_iter",
                                      "first_iteration", "max_abs_error", "converged",
                                      "val_loss", "shared_start")}
        snapshots = []
        stopped = False
        last_info = {"converged": True, "hit_max_iter": False}
        stage = 0
        while True:
            rest = np.setdiff1d(pool, support)
            Xs, ys = Xz[support], yz[support]
            first = len(log)
            if rest.size == 0:
                warnings.warn(
                    "Every training point is a support point (n_support = n_samples): no "
                    "data left to train the bandwidths, which stay at bandwidth_init. "
                    "Lower n_support.", UserWarning, stacklevel=3)
                info = {"loss_start": np.nan, "loss_end": np.nan, "n_iter": 0,
                        "converged": True, "stopped": False, "hit_max_iter": False,
                        "val_end": np.nan, "shared_start": False}
            else:
                theta, shared = self._stage_start(theta, Xs, ys, Xz[rest], yz[rest], bounds,
                                                  stage)
                # a stage before the one at n_support only picks the next points and
                # gives the next stage its start: stage_max_iter iterations at most
                cap = self.max_iter
                if self.stage_max_iter is not None and support.size < n_support:
                    cap = min(cap, int(self.stage_max_iter))
                theta, info = self._train_stage(theta, Xs, ys, Xz[rest], yz[rest], Xv, yv,
                                                bounds, log, stage, rng, cap)
                info["shared_start"] = shared
            last_info = info
            stopped = info["stopped"]
            alpha, beta0 = lab_fit_alpha(Xs, ys, theta, lam=self.lam, kind=self.kernel)
            snapshots.append((support.copy(), theta.copy(), alpha * y_std,
                              y_mean + y_std * beta0, Xs))
            if rest.size:
                err = (lab_kernel(Xs, theta, Xz[rest], self.kernel).T @ alpha + beta0
                       - yz[rest]) * y_std
                max_err = float(np.max(np.abs(err)))
            else:
                err, max_err = None, np.nan
            for key, val_ in (("support_size", support.size),
                              ("loss_start", info["loss_start"]), ("loss", info["loss_end"]),
                              ("n_iter", info["n_iter"]), ("first_iteration", first),
                              ("max_abs_error", max_err), ("converged", info["converged"]),
                              ("val_loss", info["val_end"]),
                              ("shared_start", info["shared_start"])):
                stage_rows[key].append(float(val_))
            if (stopped or self.support_selection != "dynamic"
                    or support.size >= n_support or err is None):
                break
            if self.error_tol is not None and max_err < self.error_tol:
                break
            N = support.size
            k = min(max(10, N // 10), n_support - N, rest.size)
            new = rest[np.argsort(-np.abs(err), kind="stable")[:k]]
            theta = np.vstack([theta, self._new_theta(theta, Xs, Xz[new])])
            support = np.concatenate([support, new])
            stage += 1

        # the guarantee: one shared bandwidth on the final support set (the best of the
        # grid on the training points) replaces the trained bandwidths if it does better
        # on the validation points
        self.fallback_global_ = False
        rest = np.setdiff1d(pool, support)
        if yv.size and rest.size and not stopped:
            tg = self._best_global(Xz[support], yz[support], Xz[rest], yz[rest], bounds,
                                   theta0)[0]
            tg = np.full(theta.shape, tg)
            if (self._eval_loss(tg, Xz[support], yz[support], Xv, yv)
                    < stage_rows["val_loss"][-1]):
                theta = tg
                self.fallback_global_ = True

        alpha, beta0 = lab_fit_alpha(Xz[support], yz[support], theta, lam=self.lam,
                                     kind=self.kernel)
        self.support_ = support
        self.support_vectors_ = X[support]
        self._support_scaled = Xz[support]
        self.bandwidths_scaled_ = theta
        self.bandwidths_ = theta / self.x_scale_
        self.dual_coef_ = alpha * y_std
        self.intercept_ = y_mean + y_std * beta0
        self.history_ = log.as_dict()
        self.snapshots_ = [{**s, "alpha": s["alpha"] * y_std, "bias": y_mean + y_std * s["bias"],
                            "bandwidths": s["bandwidths_scaled"] / self.x_scale_}
                           for s in log.snapshots.finish(max(len(log) - 1, 0), {
                               "bandwidths_scaled": theta, "alpha": alpha, "bias": beta0})]
        for key in ("loss", "step_norm", "support_size", "stage", "grad_norm", "batch_loss",
                    "val_loss"):
            self.history_.setdefault(key, np.full(len(log), np.nan))
        self.stages_ = {k: np.asarray(v, dtype=float) for k, v in stage_rows.items()}
        self._snapshots = snapshots
        self.n_iter_ = len(log)
        self.converged_ = bool(last_info["converged"]) and not stopped
        if last_info["hit_max_iter"] and not stopped:
            warn_not_converged(type(self).__name__, self.max_iter,
                               "Raise max_iter or tol (max_iter counts iterations per "
                               "support stage).")
        return self

    def _snapshot(self, theta: NDArray, Xs: NDArray, ys: NDArray) -> dict:
        """The iterate the training replay keeps (internal units; the fit rescales it):
        the bandwidths and the ridge solution they give. The support is the first
        ``len(alpha)`` entries of ``support_`` (stages only append to it)."""
        alpha, beta0 = lab_fit_alpha(Xs, ys, theta, lam=self.lam, kind=self.kernel)
        return {"bandwidths_scaled": theta, "alpha": alpha, "bias": beta0}

    @staticmethod
    def _new_theta(theta: NDArray, Xs: NDArray, Xnew: NDArray) -> NDArray:
        """Bandwidths of the points the dynamic selection adds: those of the nearest
        current support point (Alg. 1 uses the mean of all of them, which one spike
        or one flat kernel drags far from every local value)."""
        sq = _weighted_sq_dist(Xnew, np.ones_like(Xnew), Xs)
        return theta[np.argmin(sq, axis=1)]

    def _decision(self, X) -> NDArray:
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False)
        K = lab_kernel(self._support_scaled, self.bandwidths_scaled_, self._scale(X),
                       self.kernel)
        return K.T @ self.dual_coef_ + self.intercept_

    def _grid_decision(self, xs: NDArray, ys: NDArray) -> NDArray | None:
        """``f`` on the grid ``(xs[a], ys[b])`` as a ``(len(ys), len(xs))`` array, from
        the kernel's factorisation over two features (:func:`lab_grid_values`); None
        where it does not factorise (the Laplace kernel, not two features)."""
        check_is_fitted(self, "dual_coef_")
        if self.kernel != "gaussian" or self.n_features_in_ != 2:
            return None
        u = (np.asarray(xs, dtype=float) - self.x_center_[0]) / self.x_scale_[0]
        v = (np.asarray(ys, dtype=float) - self.x_center_[1]) / self.x_scale_[1]
        F = lab_grid_values(self._support_scaled, self.bandwidths_scaled_, self.dual_coef_,
                            u, v)
        return F + self.intercept_

    def _staged_decision(self, X):
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False)
        Xz = self._scale(X)
        for _, theta, coef, intercept, Xs in self._snapshots:
            yield lab_kernel(Xs, theta, Xz, self.kernel).T @ coef + intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags




class LABRBFRegressor(RegressorMixin, _LABRBFBase):
    __doc__ = r"""Kernel regression with locally adaptive bandwidths (LAB RBF).

    .. math::

        f(x) = \sum_{i=1}^{N} \alpha_i \exp(-\|\theta_i \circ (x_i - x)\|^2) + \beta_0,
        \quad \alpha = (K_{sv}^\top + \lambda I)^{-1}(y_{sv} - \beta_0),

    with the bandwidths trained by
    :math:`\min_{\theta \ge 0} \frac{1}{n_t} \sum_{j \notin sv} (f(x_j) - y_j)^2`
    (exact gradients through the solve) and the support set grown by Alg. 1.
    """ + _PARAMS_DOC + _ATTRS_DOC + _TRAINING_NOTE + _REFERENCES

    def fit(self, X, y) -> LABRBFRegressor:
        X, y = validate_data(self, X, y, ensure_min_samples=2, y_numeric=True)
        return self._fit_scaled(X, np.asarray(y, dtype=float))

    def predict(self, X) -> NDArray[np.float64]:
        """``f(x) = sum_i dual_coef_[i] k_theta(x_i, x) + intercept_``."""
        return self._decision(X)

    def staged_predict(self, X):
        """Yield the prediction of the model after each support stage (R² vs support
        count)."""
        yield from self._staged_decision(X)


class LABRBFClassifier(ClassifierMixin, _LABRBFBase):
    __doc__ = r"""Binary classification by LAB RBF regression on ±1 labels.

    Fits :class:`LABRBFRegressor`'s model to ``y = +1`` for ``classes_[1]`` and ``-1``
    for ``classes_[0]`` and thresholds ``f`` at 0 (docs/the-maths-of-every-method.md,
    'LAB RBF — Enhancing Kernel Flexibility via Learning Asymmetric Locally-Adaptive
    Kernels').
    """ + _PARAMS_DOC + _ATTRS_DOC + """
    classes_ : ndarray of shape (2,)
""" + _TRAINING_NOTE + _REFERENCES

    def fit(self, X, y) -> LABRBFClassifier:
        X, y = validate_data(self, X, y, ensure_min_samples=2)
        check_classification_targets(y)
        classes = check_two_classes(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
            raise ValueError(
                "Only binary classification is supported. The type of the target is "
                f"{y_type} ({classes.size} classes); wrap LABRBFClassifier in "
                "sklearn.multiclass.OneVsRestClassifier for more classes.")
        self.classes_ = classes
        y_pm = np.where(y == classes[1], 1.0, -1.0)
        return self._fit_scaled(X, y_pm)

    def decision_function(self, X) -> NDArray[np.float64]:
        """``f(x)``; positive values predict ``classes_[1]``."""
        return self._decision(X)

    def predict(self, X) -> NDArray:
        d = self._decision(X)
        return self.classes_[(d > 0).astype(int)]

    def staged_decision_function(self, X):
        """Yield ``f`` after each support stage."""
        yield from self._staged_decision(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

