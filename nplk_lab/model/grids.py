"""Decision values on a grid, user-added points, and regression lines."""

from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import budget
from .codec import MAX_POINTS
from .data import subsample_indices
from .settings_table import CLASSIFICATION, REGRESSION, Message, _msg, defaults

# ---------------------------------------------------------------------------
# decision functions on a grid
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """A ``resolution × resolution`` grid over the data's padded bounding box."""

    xs: np.ndarray
    ys: np.ndarray

    @property
    def points(self) -> np.ndarray:
        xx, yy = np.meshgrid(self.xs, self.ys)
        return np.column_stack([xx.ravel(), yy.ravel()])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.ys.size, self.xs.size)


def make_grid(X: np.ndarray, resolution: int = 100, pad: float = 0.1) -> Grid:
    """Grid over the bounding box of the first two columns of ``X``, padded by ``pad``."""
    X = np.asarray(X, dtype=float)
    if X.size == 0:
        lo, hi = np.array([-3.0, -3.0]), np.array([3.0, 3.0])
    else:
        lo, hi = X[:, :2].min(axis=0), X[:, :2].max(axis=0)
    span = np.maximum(hi - lo, 1e-6)
    lo, hi = lo - pad * span, hi + pad * span
    return Grid(np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution))


def decision_values(estimator: Any, X: np.ndarray, *, extension: str | None = None
                    ) -> np.ndarray:
    """The decision function (or prediction) of a fitted estimator at ``X``."""
    fn = getattr(estimator, "decision_function", None)
    if fn is None:
        fn = estimator.predict
    if extension is not None:
        try:
            if "extension" in inspect.signature(fn).parameters:
                return np.asarray(fn(X, extension=extension), dtype=float)
        except (TypeError, ValueError):
            pass
    out = np.asarray(fn(X), dtype=float)
    return out.ravel() if out.ndim > 1 and out.shape[1] == 1 else out


def rule_columns(rule: str, points: np.ndarray, X_train: np.ndarray,
                 sqdist: np.ndarray | None = None, *, sigma: float | None = None,
                 width: Any = "sigma") -> np.ndarray:
    """What every evaluation point takes from the training rows of F (or G) under an
    out-of-sample rule (:func:`nplk_core.extension.borrowing`): the training column
    ``j*(x)`` of ``"nearest"`` (argmin of the distance; ``sqdist``, points × training,
    saves recomputing it) or ``"reciprocal"`` (DANK §2.3, which depends on the whole
    set of evaluation points, as for the drawn surface), or the ``"smooth"`` rule's
    weights over every row (points × training; needs the kernel's ``sigma``, and
    ``width`` as the estimator's ``extension_width``)."""
    from nplk_core.extension import borrowing

    if rule == "smooth" and sigma is None:
        raise ValueError("the smooth rule needs the kernel's σ (its default width).")
    return borrowing(rule, np.asarray(X_train, dtype=float), np.asarray(points, dtype=float),
                     sigma=1.0 if sigma is None else float(sigma), width=width,
                     sqdist=sqdist)


def drawn_rule(method: str, extension: str | None) -> str | None:
    """The out-of-sample rule a page draws ``method`` with, from the ``extension`` view
    setting: DANK and DANK-SVR take the setting as it is; KNPL, whose paper has no
    reciprocal rule, takes the smooth rule when it is chosen and otherwise its own
    nearest-point rule (None: the estimator's own); None for every other method."""
    if method in ("dank", "dank_svr"):
        return extension
    if method == "knpl" and extension == "smooth":
        return "smooth"
    return None


@dataclass(frozen=True)
class GridGeometry:
    """What every model on one grid over one training set shares: the squared
    distances from each grid point to each training point, and each grid point's
    nearest training point. Lets :func:`grid_values` evaluate DANK and KNPL (any of their
    out-of-sample rules) from kernel rows computed only for their support.
    The reciprocal rule's columns depend only on the grid and the training points, so
    :meth:`columns` computes them once per geometry, for the surface, the influence
    map and the eigenfunction maps alike.

    On a grid of two features (``axes``: the squared differences along each axis, grid
    values by training points) a Gaussian kernel row factorises over the two axes, so
    :meth:`kernel_rows` takes ``|S| (n_x + n_y)`` exponentials and one product per grid
    point instead of one exponential per grid point and support point."""

    X_train: np.ndarray
    sqdist: np.ndarray   # (grid points, n_train)
    nearest: np.ndarray  # (grid points,)
    points: np.ndarray | None = None  # the grid points (needed by the reciprocal rule)
    axes: tuple[np.ndarray, np.ndarray] | None = None  # (x: (n_x, n), y: (n_y, n))
    _rule_cache: dict = field(default_factory=dict, compare=False, repr=False)

    def columns(self, rule: str | None, *, sigma: float | None = None,
                width: Any = "sigma") -> np.ndarray:
        """:func:`rule_columns` of this grid (``None``: nearest); the reciprocal rule's
        are computed once, the smooth rule's weights (which depend on σ) every time."""
        if rule in (None, "nearest"):
            return self.nearest
        if rule == "smooth":
            return rule_columns(rule, self.points, self.X_train, self.sqdist, sigma=sigma,
                                width=width)
        if rule not in self._rule_cache:
            if self.points is None:
                raise ValueError("this geometry was built without its grid points")
            self._rule_cache[rule] = rule_columns(rule, self.points, self.X_train)
        return self._rule_cache[rule]

    def kernel_rows(self, S: np.ndarray, gamma: float) -> np.ndarray:
        """``exp(-gamma * |x_i - g|^2)`` for the training points ``S`` (rows) and every
        grid point ``g`` (columns, in ``points`` order): factorised over the axes when
        the geometry has them, else from ``sqdist``; the same values up to rounding."""
        S = np.asarray(S)
        if self.axes is None:
            K = self.sqdist[:, S].T
            K *= -gamma
            return np.exp(K, out=K)
        du, dv = self.axes
        Eu = np.exp(-gamma * du[:, S]).T       # (|S|, n_x)
        Ev = np.exp(-gamma * dv[:, S]).T       # (|S|, n_y)
        # grid point j * n_x + a is (xs[a], ys[j]): the y index is the outer one
        return (Ev[:, :, None] * Eu[:, None, :]).reshape(S.size, dv.shape[0] * du.shape[0])


def grid_geometry(grid: Grid, X_train: np.ndarray) -> GridGeometry:
    """The distances of every grid point to every training point. On two features each
    is ``(u - x)^2 + (v - y)^2`` from the two axes' squared differences (one addition per
    pair, exact to rounding: no product, no cancellation)."""
    X = np.asarray(X_train, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"the grid has two features; the training points have shape "
                         f"{X.shape}")
    du = np.subtract.outer(grid.xs, X[:, 0])
    du *= du
    dv = np.subtract.outer(grid.ys, X[:, 1])
    dv *= dv
    D = (dv[:, None, :] + du[None, :, :]).reshape(-1, X.shape[0])
    return GridGeometry(X, D, np.argmin(D, axis=1), grid.points, (du, dv))


def _geometry(geom: GridGeometry | Callable[[], GridGeometry]) -> GridGeometry:
    return geom() if callable(geom) else geom


def _fast_decision(estimator: Any, geom: GridGeometry | Callable[[], GridGeometry],
                   extension: str | None) -> np.ndarray | None:
    """The decision values on the grid from the shared geometry (or a function giving
    it, called only for a model that takes this path), for the models the
    classification page draws on every move whose out-of-sample rule needs the
    distances to the training points: exact binary DANK (any rule), binary KNPL
    (nearest or smooth rule), and a binary RBF ``SVC``; None when ``estimator`` is not
    one of them (or was fitted on other points): the caller then asks the estimator
    itself."""
    from sklearn.svm import SVC

    from nplk_core.dank import DANKClassifier
    from nplk_core.extension import RULES, extended_decision
    from nplk_core.kernels import sigma_to_gamma
    from nplk_core.knpl import KNPLClassifier

    if isinstance(estimator, SVC):
        if estimator.kernel != "rbf" or len(estimator.classes_) != 2 \
                or not isinstance(estimator.gamma, (int, float)):
            return None
        geom = _geometry(geom)
        if estimator.shape_fit_[0] != geom.X_train.shape[0] \
                or not np.array_equal(estimator.support_vectors_,
                                      geom.X_train[estimator.support_]):
            return None
        Kc = geom.kernel_rows(estimator.support_, float(estimator.gamma))
        return estimator.dual_coef_[0] @ Kc + estimator.intercept_[0]
    if isinstance(estimator, DANKClassifier):
        ext = estimator.extension if extension is None else extension
        if ext not in RULES or getattr(estimator, "ovr_", None) is not None \
                or estimator.n_clusters > 1:
            return None
        geom = _geometry(geom)
        if (ext == "reciprocal" and geom.points is None) \
                or not np.array_equal(estimator.X_fit_, geom.X_train):
            return None
        S = np.flatnonzero(estimator.dual_u_)
        taken = geom.columns(ext, sigma=float(estimator.sigma),
                             width=estimator.extension_width)
        return estimator._decision_from(
            taken, geom.kernel_rows(S, sigma_to_gamma(float(estimator.sigma))))
    if isinstance(estimator, KNPLClassifier):
        ext = estimator.extension if extension is None else extension
        if ext not in ("nearest", "smooth") or len(estimator.classes_) != 2:
            return None
        geom = _geometry(geom)
        if not np.array_equal(estimator.X_fit_, geom.X_train):
            return None
        coef = np.asarray(estimator.dual_coef_, dtype=float)
        S = np.flatnonzero(coef)
        taken = geom.columns(ext, sigma=float(estimator.sigma),
                             width=estimator.extension_width)
        return extended_decision(coef, estimator.G_, taken,
                                 geom.kernel_rows(S, sigma_to_gamma(float(estimator.sigma))),
                                 float(estimator.intercept_))
    return None


def _tensor_decision(estimator: Any, grid: Grid) -> np.ndarray | None:
    """The decision values on the grid from a Gaussian kernel, which factorises over the
    two features (``m (n_x + n_y)`` exponentials and one matrix product instead of
    ``m n_x n_y`` exponentials; the same values up to rounding), raveled as
    ``grid.points``: LAB RBF's kernel, a binary RBF ``SVC`` and the binary Optimal
    Neighborhood Kernel's SVM (its test points see the plain Gaussian kernel) on two
    features; None for every other model."""
    from sklearn.svm import SVC

    from nplk_core.kernels import sigma_to_gamma
    from nplk_core.lab_rbf import _LABRBFBase, lab_grid_values
    from nplk_core.onk import ONKClassifier

    if isinstance(estimator, _LABRBFBase):
        F = estimator._grid_decision(grid.xs, grid.ys)
        return None if F is None else F.ravel()
    if isinstance(estimator, SVC) and estimator.kernel == "rbf" \
            and len(estimator.classes_) == 2 and estimator.n_features_in_ == 2 \
            and isinstance(estimator.gamma, (int, float)) and estimator.gamma > 0:
        sv = estimator.support_vectors_
        width = np.full(sv.shape, np.sqrt(float(estimator.gamma)))
        F = lab_grid_values(sv, width, estimator.dual_coef_[0], grid.xs, grid.ys)
        return (F + estimator.intercept_[0]).ravel()
    if isinstance(estimator, ONKClassifier) and len(estimator.classes_) == 2 \
            and estimator.X_fit_.shape[1] == 2:
        coef = np.asarray(estimator.dual_coef_, dtype=float)
        S = np.flatnonzero(coef)
        sv = estimator.X_fit_[S]
        width = np.full(sv.shape, np.sqrt(sigma_to_gamma(float(estimator.sigma))))
        F = lab_grid_values(sv, width, coef[S], grid.xs, grid.ys)
        return (F + float(estimator.intercept_)).ravel()
    return None


def grid_values(estimator: Any, grid: Grid, *, extension: str | None = None,
                geometry: GridGeometry | Callable[[], GridGeometry] | None = None
                ) -> tuple[np.ndarray | None, list[Message]]:
    """Decision values on ``grid`` as a ``grid.shape`` array; messages instead of errors.

    ``geometry`` (from :func:`grid_geometry` for this grid and the training points)
    lets DANK (either rule) reuse the grid-to-training distances and the rule's
    columns; a function giving it is called only for a model that needs it (the SVM and
    LAB RBF take the factorised Gaussian kernel instead)."""
    from nplk_core._base import single_thread_blas

    try:
        # kernel columns of 10,000 grid points against ~100 training points: threaded
        # BLAS only adds synchronisation on the 2-core machine
        with warnings.catch_warnings(), np.errstate(all="ignore"), single_thread_blas():
            warnings.simplefilter("ignore")
            z = _tensor_decision(estimator, grid)
            if z is None and geometry is not None:
                z = _fast_decision(estimator, geometry, extension)
            if z is None:
                z = decision_values(estimator, grid.points, extension=extension)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, TypeError, MemoryError) as exc:
        return None, [_msg("warning", f"Could not evaluate the model on the grid: {exc}")]
    if z.ndim != 1:
        return None, [_msg("info", "The decision surface needs a two-class model.")]
    Z = z.reshape(grid.shape)
    if not np.all(np.isfinite(Z)):
        return None, [_msg("warning", "The model gave non-finite values on the grid.")]
    return Z, []


def _within_budget(method: str, X: np.ndarray, y: np.ndarray, task: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The reference model drawn beside the fit stays live: above the interactive
    budget it is fitted on a random subsample of the size that stays live."""
    verdict = budget.fit_verdict(method, len(y), X.shape[1])
    if verdict.level == "live":
        return X, y
    keep = subsample_indices(y, verdict.n_max, task=task)
    return X[keep], y[keep]


def fit_baseline_svm(X_train: np.ndarray, y_train: np.ndarray, *, C: float, sigma: float
                     ) -> Any | None:
    """Plain SVC with the same σ and C (the gallery's reference boundary)."""
    from sklearn.svm import SVC

    from nplk_core.kernels import sigma_to_gamma
    if np.unique(y_train).size < 2:
        return None
    X_train, y_train = _within_budget("svm", X_train, y_train, CLASSIFICATION)
    try:
        return SVC(C=float(C), gamma=sigma_to_gamma(float(sigma))).fit(X_train, y_train)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# user-added points
# ---------------------------------------------------------------------------

def click_grid(grid: Grid, step: int = 4) -> np.ndarray:
    """The (sub-sampled) grid nodes for ``figures.decision_surface(click_targets=...)``
    (a selectable layer; the lab's pages now take clicks from the live chart instead)."""
    xs, ys = grid.xs[::step], grid.ys[::step]
    xx, yy = np.meshgrid(xs, ys)
    return np.column_stack([xx.ravel(), yy.ravel()])


def add_points(points: Sequence, new: Sequence) -> tuple[tuple[float, float, int], ...]:
    """Append new points, keeping at most :data:`MAX_POINTS`."""
    return tuple(tuple(p) for p in (list(points) + list(new))[-MAX_POINTS:])


def valid_clicks(clicks: Any, seen: float = 0.0, *, axes: Sequence[str] = ("x", "y"),
                 limit: int = 50) -> tuple[list[tuple[float, ...]], float]:
    """The clicks a live chart reported that are newer than ``seen``, oldest first (by
    id), as tuples of their ``axes`` values, and the newest id.

    ``clicks`` comes from the browser (a list of ``{"id", "x", "y"}`` in data
    coordinates; the chart resends clicks until the page acknowledges them, so ids up to
    ``seen`` are skipped). Anything malformed or not a finite number is dropped; at most
    ``limit`` entries are read."""
    out: list[tuple[float, tuple[float, ...]]] = []
    newest = float(seen)
    if not isinstance(clicks, (list, tuple)):
        return [], newest
    for c in clicks[:limit]:
        if not isinstance(c, Mapping):
            continue
        try:
            cid = float(c["id"])
            vals = tuple(float(c[a]) for a in axes)
        except (KeyError, TypeError, ValueError):
            continue
        if not (np.isfinite(cid) and all(np.isfinite(vals))) or cid <= seen:
            continue
        newest = max(newest, cid)
        out.append((cid, vals))
    out.sort(key=lambda item: item[0])
    return [vals for _, vals in out], newest


def points_from_clicks(clicks: Any, label: int, *, seen: float = 0.0,
                       bounds: tuple[tuple[float, float], tuple[float, float]] | None = None,
                       limit: int = 50) -> tuple[list[tuple[float, float, int]], float]:
    """New points from the clicks a live chart reports, and the newest click id.

    ``clicks`` is a list of ``{"id": number, "x": float, "y": float}`` (data
    coordinates of a click on the plot area; the chart resends clicks until the page
    acknowledges them, so ids up to ``seen`` are skipped). Coordinates are kept to 4
    significant digits, as the URL writes them; a click that is not a finite number or
    lies outside ``bounds`` ((x_lo, x_hi), (y_lo, y_hi)) is dropped. Anything malformed
    adds nothing (the payload comes from the browser)."""
    xy, newest = valid_clicks(clicks, seen, limit=limit)
    out: list[tuple[float, float, int]] = []
    for x, y in xy:
        if bounds is not None and not (min(bounds[0]) <= x <= max(bounds[0])
                                       and min(bounds[1]) <= y <= max(bounds[1])):
            continue
        out.append((float(f"{x:.4g}"), float(f"{y:.4g}"), 1 if label > 0 else -1))
    return out, newest
    for c in clicks[:limit]:
        if not isinstance(c, Mapping):
            continue
        try:
            cid, x, y = float(c["id"]), float(c["x"]), float(c["y"])
        except (KeyError, TypeError, ValueError):
            continue
        if not (np.isfinite(cid) and np.isfinite(x) and np.isfinite(y)) or cid <= seen:
            continue
        newest = max(newest, cid)
        if bounds is not None and not (min(bounds[0]) <= x <= max(bounds[0])
                                       and min(bounds[1]) <= y <= max(bounds[1])):
            continue
        out.append((float(f"{x:.4g}"), float(f"{y:.4g}"), 1 if label > 0 else -1))
    return out, newest


def added_rows(X_train: np.ndarray, points: Sequence) -> int:
    """How many of the last rows of ``X_train`` are the user-added ``points`` (all of
    them, as :func:`prepare_data` appends them, or 0 when they do not match)."""
    k = len(points)
    if not k or X_train.ndim != 2 or X_train.shape[0] < k or X_train.shape[1] != 2:
        return 0
    P = np.asarray(points, dtype=float).reshape(-1, 3)[:, :2]
    return k if np.array_equal(X_train[-k:], P) else 0


def canvas_grid(X_base: np.ndarray, X_added: np.ndarray | None = None,
                resolution: int = 100, pad: float = 0.1) -> Grid:
    """The grid (and so the axes) of a surface one can add points to: over the padded
    extent of the data without the added points, widened to every point only when an
    added point lies outside it. A point clicked inside the plot never moves the axes.
    """
    X_base = np.asarray(X_base, dtype=float).reshape(-1, 2)
    grid = make_grid(X_base, resolution, pad)
    if X_added is None or not len(X_added):
        return grid
    A = np.asarray(X_added, dtype=float).reshape(-1, 2)
    inside = ((A[:, 0] >= grid.xs[0]) & (A[:, 0] <= grid.xs[-1])
              & (A[:, 1] >= grid.ys[0]) & (A[:, 1] <= grid.ys[-1]))
    if inside.all():
        return grid
    if not len(X_base):
        # no data but points outside the default canvas: the canvas grows to hold them
        lo = np.minimum(A.min(axis=0), [grid.xs[0], grid.ys[0]])
        hi = np.maximum(A.max(axis=0), [grid.xs[-1], grid.ys[-1]])
        return make_grid(np.array([lo, hi]), resolution, pad)
    return make_grid(np.vstack([X_base, A]), resolution, pad)


# ---------------------------------------------------------------------------
# regression helpers
# ---------------------------------------------------------------------------

def true_function(name: str, params: Mapping[str, Any]
                  ) -> Callable[[np.ndarray], np.ndarray] | None:
    """The noiseless function behind a regression dataset (None for CSV data)."""
    try:
        ds = importlib.import_module("nplk_core.datasets")
    except ImportError:
        return None
    p = {**defaults(), **params}
    if name == "step" and hasattr(ds, "step_function"):
        return lambda X: ds.step_function(np.asarray(X)[:, 0], p.get("step_s", 3.0),
                                          p.get("step_w", 2.0), p.get("step_a", 0.05))
    if name == "chirp" and hasattr(ds, "chirp_function"):
        return lambda X: ds.chirp_function(np.asarray(X)[:, 0], p.get("chirp_f0", 1.0),
                                           p.get("chirp_f1", 10.0))
    if name == "harmonic" and hasattr(ds, "harmonic_function"):
        return lambda X: ds.harmonic_function(np.asarray(X)[:, 0], np.asarray(X)[:, 1])
    return None


def line_points(X: np.ndarray, n: int = 400, pad: float = 0.02) -> np.ndarray:
    """``n`` evenly spaced points (as a column) over the padded range of 1-D data."""
    x = np.asarray(X, dtype=float)[:, 0]
    lo, hi = float(x.min()), float(x.max())
    span = max(hi - lo, 1e-6)
    return np.linspace(lo - pad * span, hi + pad * span, n)[:, None]


def fit_baseline_svr(X_train: np.ndarray, y_train: np.ndarray, *, C: float, sigma: float,
                     epsilon: float) -> Any | None:
    """Plain ε-SVR with the same σ, C and ε (the regression baseline curve)."""
    from sklearn.svm import SVR

    from nplk_core.kernels import sigma_to_gamma
    X_train, y_train = _within_budget("svr", X_train, y_train, REGRESSION)
    try:
        return SVR(C=float(C), epsilon=float(epsilon),
                   gamma=sigma_to_gamma(float(sigma))).fit(X_train, y_train)
    except ValueError:
        return None


def predict_values(estimator: Any, X: np.ndarray, *, extension: str | None = None
                   ) -> tuple[np.ndarray | None, list[Message]]:
    """``estimator.predict`` (with the out-of-sample rule when it takes one); messages
    instead of errors, None on non-finite output."""
    fn = estimator.predict
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if extension is not None and "extension" in inspect.signature(fn).parameters:
                out = np.asarray(fn(X, extension=extension), dtype=float)
            else:
                out = np.asarray(fn(X), dtype=float)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, TypeError, MemoryError) as exc:
        return None, [_msg("warning", f"Could not evaluate the model: {exc}")]
    if not np.all(np.isfinite(out)):
        return None, [_msg("warning", "The model gave non-finite values.")]
    return out, []


def cluster_regions(X: np.ndarray, labels: np.ndarray, resolution: int = 120
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, ys, Z): a grid over the 2-D points ``X`` and, per cell, the cluster label of
    the nearest point (the clusters a transductive method found, drawn on the plane)."""
    X = np.asarray(X, dtype=float)[:, :2]
    labels = np.asarray(labels)
    from nplk_core._base import single_thread_blas
    from nplk_core.kernels import squared_distances

    grid = make_grid(X, resolution)
    # a product with two inner columns: threaded BLAS only adds synchronisation (14,400
    # cells x 200 points: 89 ms threaded, 44 ms on one thread, the same values, load 6)
    with single_thread_blas():
        d = squared_distances(grid.points, X)
    Z = labels[np.argmin(d, axis=1)].astype(float).reshape(grid.shape)
    return grid.xs, grid.ys, Z
