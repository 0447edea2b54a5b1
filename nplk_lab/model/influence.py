r"""A training point's learned influence on the plane, without Streamlit.

For a fitted method and a training point :math:`x_i` the view draws the learned
similarity

.. math:: x \mapsto \tilde k(x_i, x) = \tilde F(x_i, x)\, k(x_i, x)

beside the plain Gaussian :math:`k(x_i, x)`, where :math:`\tilde F(x_i, x) = F_{i, j^*(x)}`
takes the column of the training point :math:`j^*(x)` that the selected out-of-sample
rule assigns to ``x`` (DANK: ``"nearest"`` or ``"reciprocal"``, DANK §2.3; KNPL: the
nearest training point, eq. 23), or under the smooth rule (either method) the weighted
average :math:`\sum_l p_l(x) F_{il}` of every column. So at a training point
:math:`x_j` (nearest rule) the map is the row entry :math:`(F\circ K)_{ij}`. The other
learned kernels:

* ONK: :math:`G = K + (Y\alpha)(Y\alpha)^\top/(2\rho)` is additive, so the map is
  :math:`k(x_i, x) + (G - K)_{i, j^*(x)}` with the nearest rule: the row of ``G`` at
  the training points. (ONK itself predicts with the *given* ``k``: an unlabeled point
  has no label part; the map shows where ``G`` moved the similarity.)
* LAB RBF: a support point carries its own bandwidths :math:`\theta_i` and its influence
  is its kernel :math:`k_{\theta_i}(x_i, x) = \exp(-\|\theta_i\circ(x_i - x)\|^2)`
  (``exp(-‖·‖)`` for the Laplacian form), drawn against the one shared bandwidth the
  fit started from; its :math:`e^{-1}` ellipse has semi-axes :math:`1/\theta_{il}`.
  A point outside the support set has no kernel of its own.
* No learned kernel (plain SVM, SVM-CV, MKL-uniform): only the kernel the model uses.

Cost: :func:`influence_basis` holds what one fit shares on one set of evaluation points
(the squared distances to the training points, the rule's column per point, the learned
matrix); :meth:`InfluenceBasis.at` is then one gather and one ``exp`` over the ``m``
evaluation points per selected point (LAB RBF: one weighted distance, ``O(m d)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .grids import rule_columns, valid_clicks

#: how close (as a fraction of each axis' span) a click must land to select a point
CLICK_TOLERANCE = 0.03

#: methods whose influence view exists, by page (classification: every method has at
#: least its kernel; regression: where a learned kernel exists)
INFLUENCE_METHODS = {
    "classification": ("dank", "knpl", "onk", "lab_rbf", "svm", "svm_cv", "mkl_uniform"),
    "regression": ("dank_svr", "lab_rbf_reg"),
}


@dataclass(frozen=True)
class Influence:
    """One point's influence on the evaluation points.

    ``learned`` is None for a model without a learned kernel (or a LAB RBF point outside
    the support set); ``change`` is what learning did: the factor :math:`\\tilde F`
    (``change_kind == "ratio"``, neutral value 1) or :math:`\\tilde k - k`
    (``"difference"``, neutral 0); ``axes`` the LAB RBF point's :math:`1/\\theta_i`
    (None otherwise) and ``plain_axes`` those of the shared starting bandwidth."""

    index: int
    point: np.ndarray
    plain: np.ndarray
    learned: np.ndarray | None
    change: np.ndarray | None
    change_kind: str
    learned_name: str
    plain_name: str
    note: str = ""
    axes: np.ndarray | None = None
    plain_axes: np.ndarray | None = None


@dataclass
class InfluenceBasis:
    """What every point's influence map shares for one fit on one set of points.

    ``kind``: ``"multiplier"`` (DANK's F, KNPL's G: ``k̃ = M[i, j*]·k``), ``"additive"``
    (ONK: ``k̃ = k + D[i, j*]``, ``D = G − K``), ``"bandwidth"`` (LAB RBF) or ``"plain"``.
    """

    kind: str
    X_train: np.ndarray
    points: np.ndarray
    sqdist: np.ndarray | None = None        # (m, n) evaluation-to-training distances²
    gammas: tuple[float, ...] = ()          # the plain kernel: mean of exp(−γ d²) over γ
    cols: np.ndarray | None = None          # (m,) training column per evaluation point,
    #                                         or (m, n) the smooth rule's weights
    matrix: np.ndarray | None = None        # (n, n): M or D
    name: str = "F"
    rule: str = "nearest"
    plain_name: str = "k"
    note: str = ""
    # LAB RBF: support indices, raw-unit bandwidths per support point, the shared one
    support: np.ndarray | None = None
    bandwidths: np.ndarray | None = None
    theta0: np.ndarray | None = None
    laplace: bool = False
    _pos: dict[int, int] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return int(self.X_train.shape[0])

    def plain_row(self, i: int) -> np.ndarray:
        """``k(x_i, x)`` at every evaluation point (the kernel the plain model uses)."""
        if self.kind == "bandwidth":
            return _lab_kernel(self.X_train[i], self.theta0, self.points, self.laplace)
        d2 = self.sqdist[:, i]
        if len(self.gammas) == 1:
            return np.exp(-self.gammas[0] * d2)
        return np.mean([np.exp(-g * d2) for g in self.gammas], axis=0)

    def at(self, i: int) -> Influence:
        """The influence of training point ``i`` (0-based row of the training data)."""
        i = int(i)
        if not 0 <= i < self.n:
            raise ValueError(f"training point index must lie in 0..{self.n - 1}, got {i}.")
        k = self.plain_row(i)
        point = self.X_train[i].copy()
        if self.kind == "multiplier":
            from nplk_core.extension import borrowed_rows

            factor = borrowed_rows(self.matrix, self.cols, [i])[0]
            return Influence(i, point, k, factor * k, factor, "ratio",
                             f"{self.name}̃ × k ({self.rule} rule)", "k", self.note)
        if self.kind == "additive":
            delta = self.matrix[i, self.cols]
            return Influence(i, point, k, k + delta, delta, "difference",
                             f"{self.name} ({self.rule} rule)", "k", self.note)
        if self.kind == "bandwidth":
            axes0 = _axes(self.theta0)
            pos = self._pos.get(i)
            if pos is None:
                return Influence(i, point, k, None, None, "difference", "k_θᵢ",
                                 self.plain_name, "Not a support point: it has no kernel "
                                 "of its own. Select a ringed point.", None, axes0)
            theta = self.bandwidths[pos]
            learned = _lab_kernel(point, theta, self.points, self.laplace)
            return Influence(i, point, k, learned, learned - k, "difference", "k_θᵢ",
                             self.plain_name, self.note, _axes(theta), axes0)
        return Influence(i, point, k, None, None, "ratio", "", self.plain_name, self.note)


def _axes(theta: np.ndarray) -> np.ndarray:
    """Semi-axes ``1/θ`` of the e⁻¹ level set (inf where θ = 0)."""
    theta = np.abs(np.asarray(theta, dtype=float))
    with np.errstate(divide="ignore"):
        return np.where(theta > 0, 1.0 / np.where(theta > 0, theta, 1.0), np.inf)


def _lab_kernel(center: np.ndarray, theta: np.ndarray, X: np.ndarray, laplace: bool
                ) -> np.ndarray:
    """``exp(−‖θ∘(center − x)‖²)`` (or ``exp(−‖·‖)``) for every row x of ``X``."""
    W = (np.asarray(X, dtype=float) - center) * theta
    q = np.einsum("ij,ij->i", W, W)
    return np.exp(-np.sqrt(q)) if laplace else np.exp(-q)


def squared_distances_to(points: np.ndarray, X_train: np.ndarray) -> np.ndarray:
    """``(m, n)`` squared distances from evaluation points to training points."""
    from nplk_core.kernels import squared_distances

    return squared_distances(np.asarray(points, dtype=float), np.asarray(X_train, dtype=float))


def influence_basis(estimator: Any, method: str, X_train: np.ndarray, points: np.ndarray, *,
                    extension: str | None = None, sqdist: np.ndarray | None = None,
                    cols: np.ndarray | None = None) -> InfluenceBasis:
    """Everything per fit: the learned matrix, the rule's columns and the distances.

    ``points`` are the evaluation points (a grid's points, a line, or the training points
    themselves); ``sqdist`` (``(m, n)``, e.g. a :class:`~nplk_lab.model.grids.GridGeometry`'s)
    and ``cols`` (:func:`rule_columns` of the rule in use, e.g. the geometry's
    ``nearest``; ONK and KNPL use the nearest rule) skip recomputing them: both depend
    on the points only, not on the fit.
    Raises ValueError when the estimator has no per-point kernel to show (a multi-class
    fit, a fit on other points)."""
    X_train = np.asarray(X_train, dtype=float)
    points = np.asarray(points, dtype=float)
    est = estimator
    n = X_train.shape[0]
    fitted = getattr(est, "X_fit_", None)
    if fitted is not None and np.shape(fitted) != X_train.shape:
        raise ValueError("the model was fitted on other points (a subsample); the influence "
                         "view needs the training points it was fitted on.")
    if method in ("lab_rbf", "lab_rbf_reg"):
        return _lab_basis(est, X_train, points)

    def dists() -> np.ndarray:
        return squared_distances_to(points, X_train) if sqdist is None else sqdist

    from nplk_core.kernels import sigma_to_gamma

    if method in ("dank", "dank_svr", "knpl"):
        attr = "G_" if method == "knpl" else "F_"
        M = getattr(est, attr, None)
        if M is None or np.shape(M) != (n, n):
            raise ValueError("this fit has no single learned matrix (more than two "
                             "classes, or the scalable decomposition).")
        rule = (("smooth" if extension == "smooth" else "nearest") if method == "knpl"
                else (extension or est.extension))
        D = dists()
        if cols is None:
            cols = rule_columns(rule, points, X_train, D, sigma=float(est.sigma),
                                width=est.extension_width)
        return InfluenceBasis("multiplier", X_train, points, D,
                              (sigma_to_gamma(float(est.sigma)),), np.asarray(cols),
                              np.asarray(M, dtype=float), attr.rstrip("_"), rule)
    if method == "onk":
        G, K = getattr(est, "G_", None), getattr(est, "K_", None)
        if G is None or np.shape(G) != (n, n):
            raise ValueError("this fit has no single learned kernel (more than two classes).")
        D = dists()
        if cols is None:
            cols = rule_columns("nearest", points, X_train, D)
        return InfluenceBasis("additive", X_train, points, D,
                              (sigma_to_gamma(float(est.sigma)),), np.asarray(cols),
                              np.asarray(G, dtype=float) - np.asarray(K, dtype=float), "G",
                              "nearest", note="ONK predicts with the given k (an unlabeled "
                              "point has no label part); G's row is extended to the plane "
                              "by the nearest training point.")
    gammas = _plain_gammas(est)
    if gammas is None:
        raise ValueError(f"{type(est).__name__} has no Gaussian kernel to show.")
    return InfluenceBasis("plain", X_train, points, dists(), gammas,
                          plain_name="k" if len(gammas) == 1 else "mean of 11 Gaussians",
                          note="No learned kernel: the map is the kernel the model uses.")


def _plain_gammas(est: Any) -> tuple[float, ...] | None:
    """γ = 1/(2σ²) of the Gaussian(s) a plain model uses (SVC, SVM-CV, MKL-uniform)."""
    from nplk_core.kernels import sigma_to_gamma

    inner = getattr(est, "best_estimator_", est)
    sigmas = getattr(est, "sigmas", None)
    if getattr(inner, "kernel", None) == "precomputed" and sigmas is not None:
        return tuple(sigma_to_gamma(float(s)) for s in np.ravel(sigmas))
    gamma = getattr(inner, "gamma", None)
    if getattr(inner, "kernel", None) == "rbf" and isinstance(gamma, (int, float)):
        return (float(gamma),)
    return None


def _lab_basis(est: Any, X_train: np.ndarray, points: np.ndarray) -> InfluenceBasis:
    """LAB RBF: bandwidths in raw units (θ / the fit's feature scale)."""
    support = np.asarray(est.support_, dtype=int)
    scale = np.asarray(est.x_scale_, dtype=float)
    if not np.allclose(est.support_vectors_, X_train[support]):
        raise ValueError("the model was fitted on other points (a subsample).")
    theta0 = float(est.bandwidth_init_) / scale
    laplace = getattr(est, "kernel", "gaussian") == "laplace"
    return InfluenceBasis(
        "bandwidth", X_train, points, support=support,
        bandwidths=np.asarray(est.bandwidths_, dtype=float), theta0=theta0,
        laplace=laplace, plain_name="k_θ₀ (shared start)",
        note="Beside it: the one shared bandwidth θ₀ the fit started from.",
        _pos={int(s): k for k, s in enumerate(support)})


# ---------------------------------------------------------------------------
# picking a point: clicks on the surface and on the matrix heatmap
# ---------------------------------------------------------------------------

def nearest_point(xy: tuple[float, float], P: np.ndarray, spans: Sequence[float],
                  tol: float = CLICK_TOLERANCE) -> int | None:
    """Index of the row of ``P`` (n × 2) nearest to ``xy`` in units of each axis' span,
    if it lies within ``tol`` of them; else None."""
    P = np.asarray(P, dtype=float).reshape(-1, 2)
    if not len(P):
        return None
    w = np.maximum(np.abs(np.asarray(spans, dtype=float)), 1e-12)
    d = np.sqrt((((P - np.asarray(xy, dtype=float)) / w) ** 2).sum(axis=1))
    j = int(np.argmin(d))
    return j if d[j] <= tol else None


def point_from_clicks(clicks: Any, P: np.ndarray, spans: Sequence[float], *,
                      seen: float = 0.0, tol: float = CLICK_TOLERANCE
                      ) -> tuple[int | None, float]:
    """The training point the newest click landed on (None when it landed on none) and
    the newest click id. ``P`` holds the points as drawn (n × 2)."""
    pts, newest = valid_clicks(clicks, seen)
    if not pts:
        return None, newest
    return nearest_point(pts[-1], P, spans, tol), newest


def row_from_clicks(clicks: Any, order: Sequence[int] | np.ndarray, *, seen: float = 0.0
                    ) -> tuple[int | None, float]:
    """The training point of the matrix row clicked last: the click's ``y`` is the drawn
    row's position (:func:`nplk_lab.figures.linked_matrix`), and ``order`` (the points in
    drawn order, :func:`nplk_lab.figures.class_order`) maps it back to the point."""
    pts, newest = valid_clicks(clicks, seen)
    if not pts:
        return None, newest
    order = np.asarray(order)
    r = int(np.floor(pts[-1][1] + 0.5))
    return (int(order[r]) if 0 <= r < order.size else None), newest


__all__ = ["CLICK_TOLERANCE", "INFLUENCE_METHODS", "Influence", "InfluenceBasis",
           "influence_basis", "nearest_point", "point_from_clicks", "row_from_clicks",
           "rule_columns", "squared_distances_to"]
