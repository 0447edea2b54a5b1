r"""Where a learned kernel's test score comes from: the method against itself with the
learned matrix switched off at test time, a 1-nearest-neighbour rule and the plain SVM.

DANK (seed 000 §2.3) and KNPL (eq. 23) learn a matrix on the training points only; a
test point x borrows the row of its nearest (or reciprocal-nearest) training point j*:

.. math::

    f(x) = \sum_i u_i\, F_{i j^*(x)}\, k(x_i, x) + b .

So two things differ from the plain SVM at test time: the learned α, b (trained with
F∘K) and the borrowed row of F. This module separates them, on the page's own split:

* ``method`` — the method as the paper defines it (its out-of-sample rule);
* ``off`` — the same α and b with the learned matrix switched off at test time
  (F = 11ᵀ: :math:`\sum_i u_i k(x_i, x) + b`);
* ``nn`` — 1-nearest neighbour (k-NN regression with k = 1): the label of j*(x);
* ``plain`` — the plain SVM / SVR with the same σ and C (and ε);
* ``cv`` — SVM-CV / SVR-CV (σ and C by 5-fold cross-validation), when it was fitted.

Scores: test accuracy (classification); test R² and relative error (regression). For
classification each row also says on what share of test points its label equals 1-NN's;
for regression how close its predictions lie to 1-NN's (1 − Σ(ŷ − ŷ₁ₙₙ)² / Σ(y − ȳ)²).
:func:`verdict` turns the numbers into a short paragraph; its thresholds are the
``*_AT`` constants below, so the words follow the numbers and are never written in.

Pure numpy (scikit-learn only through the fitted estimators it is handed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .settings_table import CLASSIFICATION

#: methods whose learned matrix reaches test points through a nearest-neighbour rule
ABLATION_METHODS = ("dank", "knpl", "dank_svr")

#: "follows 1-NN": the method's test labels equal 1-NN's on at least this share
#: (classification), or its predictions lie this close to 1-NN's, 1 − Σ(ŷ − ŷ₁ₙₙ)² /
#: Σ(y − ȳ)² (regression)
FOLLOWS_NN_AT = 0.9
#: a regression gain counts when the relative error drops by at least this factor
REG_FACTOR_AT = 0.8


def matrix_symbol(method: str) -> str:
    """The learned matrix's symbol: F (DANK, DANK-SVR) or G (KNPL)."""
    return "G" if method == "knpl" else "F"


def legend(method: str, estimator: Any = None) -> str:
    """What the rows of the table are, in words (the page's caption under it)."""
    from .methods import METHODS

    name, sym = METHODS[method].label, matrix_symbol(method)
    base = "SVR" if METHODS[method].task != CLASSIFICATION else "SVM"
    return (f"{name}: test points take the row of {sym} of their "
            f"{method_rule(method, estimator)} (the paper's rule). {sym} off: the same "
            f"learned α and b with the plain kernel at test time ({sym} = 11ᵀ). 1-nearest "
            f"neighbour: every test point takes the {'label' if base == 'SVM' else 'target'}"
            f" of its nearest training point. {base}: the plain {base} with the same σ and "
            f"C; {base}-CV: σ and C by 5-fold cross-validation.")


def nn_grid(nearest: np.ndarray, y_train: np.ndarray) -> np.ndarray | None:
    """1-nearest neighbour's labels as ±1 (+1 for the larger class label) at points
    whose nearest training points are ``nearest`` (e.g. a grid's
    :attr:`~nplk_lab.model.grids.GridGeometry.nearest`); None unless there are two classes."""
    y = np.asarray(y_train)
    classes = np.unique(y)
    if classes.size != 2:
        return None
    return np.where(y[np.asarray(nearest)] == classes[1], 1.0, -1.0)


def method_rule(method: str, estimator: Any = None) -> str:
    """The out-of-sample rule the method's test score uses, in words."""
    ext = getattr(estimator, "extension", None) or ("nearest" if method != "dank"
                                                    else "reciprocal")
    return ("reciprocal nearest neighbours" if ext == "reciprocal"
            else "nearest training point")


# ---------------------------------------------------------------------------
# the three predictions a fitted DANK / KNPL model is compared with
# ---------------------------------------------------------------------------

def nearest_labels(X_train: np.ndarray, y_train: np.ndarray, X: np.ndarray) -> np.ndarray:
    """1-nearest neighbour: each point of ``X`` takes the target of its nearest training
    point (ties: the first). Classification and regression alike (k-NN with k = 1)."""
    from nplk_core.dank import nearest_index

    X_train = np.asarray(X_train, dtype=float)
    return np.asarray(y_train)[nearest_index(X_train, np.asarray(X, dtype=float))]


def _plain_kernel(est: Any, X_fit: np.ndarray, X: np.ndarray, S: np.ndarray) -> np.ndarray:
    from nplk_core.kernels import gaussian_kernel
    return gaussian_kernel(X_fit[S], X, sigma=float(est.sigma))


def _binary_off(coef: np.ndarray, b: float, est: Any, X_fit: np.ndarray, X: np.ndarray
                ) -> np.ndarray:
    coef = np.asarray(coef, dtype=float)
    S = np.flatnonzero(coef)
    if S.size == 0:
        return np.full(len(X), float(b))
    return coef[S] @ _plain_kernel(est, X_fit, X, S) + float(b)


def off_decision(estimator: Any, X: np.ndarray) -> np.ndarray | None:
    r"""The fitted model's learned α and b with the plain kernel at test time (its
    learned matrix switched off, F = 11ᵀ): :math:`\sum_i u_i k(x_i, x) + b`, with
    ``u`` the signed dual vector. Shape (m,) for two classes or regression, (m, c) one
    score per class for one-vs-rest. None for a model without a learned matrix (or
    DANK's scalable mode, whose local models have no single α)."""
    X = np.asarray(X, dtype=float)
    ovr = getattr(estimator, "ovr_", None)
    if ovr is not None:                        # DANK one-vs-rest: one model per class
        cols = [off_decision(e, X) for e in estimator.estimators_]
        return None if any(c is None for c in cols) else np.column_stack(cols)
    if getattr(estimator, "n_clusters", 1) > 1:
        return None
    if hasattr(estimator, "F_") and hasattr(estimator, "dual_u_"):
        return _binary_off(estimator.dual_u_, estimator.intercept_, estimator,
                           estimator.X_fit_, X)
    if hasattr(estimator, "G_") and hasattr(estimator, "dual_coef_") and \
            hasattr(estimator, "X_fit_"):      # KNPL (one row per class beyond two)
        coef = np.asarray(estimator.dual_coef_, dtype=float)
        if coef.ndim == 1:
            return _binary_off(coef, estimator.intercept_, estimator, estimator.X_fit_, X)
        b = np.ravel(estimator.intercept_)
        return np.column_stack([_binary_off(coef[k], b[k], estimator, estimator.X_fit_, X)
                                for k in range(coef.shape[0])])
    return None


def off_predict(estimator: Any, X: np.ndarray, task: str) -> np.ndarray | None:
    """:func:`off_decision` as predictions: class labels (sign, or the largest
    one-vs-rest score) or regression values."""
    d = off_decision(estimator, X)
    if d is None or task != CLASSIFICATION:
        return d
    classes = np.asarray(estimator.classes_)
    if d.ndim == 1:
        return classes[(d > 0).astype(int)]
    return classes[np.argmax(d, axis=1)]


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One model of the table: its test score (accuracy, or R²), its relative error
    (regression), and the share of test points where its label equals 1-NN's
    (classification; NaN otherwise)."""

    key: str
    label: str
    score: float
    rel_error: float = float("nan")
    agree_nn: float = float("nan")


@dataclass(frozen=True)
class Ablation:
    """The score table of one fit on one split, and what it says in words."""

    method: str
    task: str
    rows: tuple[Row, ...]
    n_test: int
    #: classification: share of test points where the method's label equals 1-NN's;
    #: regression: 1 − Σ(ŷ − ŷ₁ₙₙ)² / Σ(y − ȳ)², how close its predictions lie to 1-NN's
    follows_nn: float
    verdict: str

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)

    def score(self, key: str) -> float:
        r = self.row(key)
        return float("nan") if r is None else r.score

    @property
    def metric(self) -> str:
        return "accuracy" if self.task == CLASSIFICATION else "R²"

    def table(self) -> list[dict[str, str]]:
        """The rows as plain-text cells (what the page shows)."""
        out = []
        for r in self.rows:
            if self.task == CLASSIFICATION:
                out.append({"model": r.label, "test accuracy": _num(r.score, 3),
                            "same label as 1-NN": _pct(r.agree_nn)})
            else:
                out.append({"model": r.label, "test R²": _num(r.score, 3),
                            "rel. error": _num(r.rel_error, 3, general=True),
                            "closeness to 1-NN": _num(r.agree_nn, 3)})
        return out


def _num(v: float, digits: int, general: bool = False) -> str:
    if v is None or not np.isfinite(v):
        return "—"
    return f"{v:.{digits}g}" if general and abs(v) < 10 ** -(digits - 1) else \
        f"{v:.{digits}f}"


def _pct(v: float) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{100 * v:.0f} %"


def _closeness(y: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    r"""How close the predictions ``p`` lie to ``q`` on the scale of the targets:
    :math:`1 - \sum (p - q)^2 / \sum (y - \bar y)^2` (an R² of ``p`` against ``q``
    measured with the spread of ``y``; 1 when they coincide)."""
    y = np.asarray(y, dtype=float)
    den = float(np.sum((y - y.mean()) ** 2))
    if den <= 0:
        return float("nan")
    return 1.0 - float(np.sum((np.asarray(p, float) - np.asarray(q, float)) ** 2)) / den


def _rel_error(y: np.ndarray, p: np.ndarray) -> float:
    from .methods import relative_error
    return relative_error(y, p)


def ablation(method: str, estimator: Any, X_train: np.ndarray, y_train: np.ndarray,
             X_test: np.ndarray, y_test: np.ndarray, *, plain: Any = None,
             cv: Any = None, labels: Mapping[str, str] | None = None,
             method_label: str | None = None) -> Ablation | None:
    """The score table of ``estimator`` (a fitted DANK, KNPL or DANK-SVR) on the split.

    ``X_train, y_train`` are the points the model was fitted on (1-NN uses the same);
    ``plain`` the fitted plain SVM / SVR with the same σ and C, ``cv`` the fitted
    SVM-CV / SVR-CV (rows left out when None); ``labels`` overrides the row labels
    ("plain", "cv"). None when there are no test points or the model has no learned
    matrix to switch off."""
    from .methods import METHODS

    spec = METHODS[method]
    task = spec.task
    X_test = np.asarray(X_test, dtype=float)
    y_test = np.asarray(y_test)
    if len(y_test) == 0 or estimator is None:
        return None
    pred = np.asarray(estimator.predict(X_test))
    off = off_predict(estimator, X_test, task)
    if off is None:
        return None
    nn = nearest_labels(X_train, y_train, X_test)
    sym = matrix_symbol(method)
    name = method_label or spec.label
    labels = dict(labels or {})
    rule = method_rule(method, estimator).split(" ")[0]          # "reciprocal" / "nearest"
    preds: list[tuple[str, str, np.ndarray]] = [
        ("method", f"{name} ({rule} rule)", pred),
        ("off", f"{name}, {sym} off at test time", off),
        ("nn", "1-nearest neighbour", nn)]
    base = "SVM" if task == CLASSIFICATION else "SVR"
    for key, model, default in (("plain", plain, f"{base}, same σ and C"),
                                ("cv", cv, f"{base}-CV")):
        if model is not None:
            preds.append((key, labels.get(key, default), np.asarray(model.predict(X_test))))
    rows = []
    for key, label, p in preds:
        if task == CLASSIFICATION:
            rows.append(Row(key, label, float(np.mean(p == y_test)),
                            agree_nn=float(np.mean(p == nn))))
        else:
            err = _rel_error(y_test, p)
            rows.append(Row(key, label, 1.0 - err, rel_error=err,
                            agree_nn=_closeness(y_test, p, nn)))
    follows = rows[0].agree_nn
    rows_t = tuple(rows)
    return Ablation(method, task, rows_t, int(len(y_test)), follows,
                    verdict(method, task, rows_t, int(len(y_test)), follows,
                            method_label=name))


# ---------------------------------------------------------------------------
# the words (generated from the numbers)
# ---------------------------------------------------------------------------

def _score_of(rows: Sequence[Row], key: str) -> float:
    r = next((r for r in rows if r.key == key), None)
    return float("nan") if r is None else r.score


def verdict(method: str, task: str, rows: Sequence[Row], n_test: int, follows_nn: float,
            *, method_label: str | None = None) -> str:
    """A short paragraph in plain words that follows the numbers of the table.

    Classification: a difference counts when it is at least one test point (1 / n_test);
    "follows 1-NN" when the labels agree on at least :data:`FOLLOWS_NN_AT` of the test
    points. Regression: a gain counts when the relative error falls by the factor
    :data:`REG_FACTOR_AT` or more."""
    from .methods import METHODS

    name = method_label or METHODS[method].label
    sym = matrix_symbol(method)
    m, off, nn, plain = (_score_of(rows, k) for k in ("method", "off", "nn", "plain"))
    base = "SVM" if task == CLASSIFICATION else "SVR"
    parts = []
    if task == CLASSIFICATION:
        step = 1.0 / max(n_test, 1)
        tol = step / 2

        def cmp(a: float, b: float) -> str:
            if not (np.isfinite(a) and np.isfinite(b)):
                return "?"
            return "above" if a > b + tol else ("below" if a < b - tol else "level")

        parts.append(f"Here {name} gives the same label as 1-nearest neighbour on "
                     f"{100 * follows_nn:.0f} % of the {n_test} test points; 1-NN scores "
                     f"{nn:.3f}, {name} {m:.3f}.")
        if np.isfinite(plain):
            gain = m - plain
            rel = cmp(m, plain)
            parts.append(
                f"{name} is {abs(gain) * 100:.1f} points "
                f"{'above' if gain > 0 else 'below'} the plain {base} ({plain:.3f})."
                if rel != "level" else f"{name} scores like the plain {base} ({plain:.3f}).")
            off_rel = cmp(off, plain)
            off_words = {"above": f"still above the plain {base}",
                         "below": f"below the plain {base}",
                         "level": f"the plain {base}'s level"}.get(off_rel, "")
            parts.append(f"With {sym} switched off at test time (its own α and b, the "
                         f"plain kernel) it scores {off:.3f}, {off_words}.")
            follows = follows_nn >= FOLLOWS_NN_AT
            if rel == "above" and follows and m - off >= (m - plain) / 2:
                parts.append("So its gain comes from the nearest-neighbour rule at test "
                             "time, not from a reshaped kernel: its test labels are "
                             "1-NN's.")
            elif rel == "above" and off_rel == "above":
                parts.append(f"Part of the gain survives with {sym} switched off: the α "
                             f"and b learned with {sym}∘K carry it, not only the "
                             f"nearest-neighbour rule.")
            elif follows:
                parts.append("Its test labels are 1-NN's: the nearest-neighbour rule "
                             "decides them, not a reshaped kernel.")
            else:
                parts.append(f"Its labels differ from 1-NN's on "
                             f"{100 * (1 - follows_nn):.0f} % of the test points, so the "
                             f"rule does not decide everything here.")
    else:
        err = {k: 1.0 - _score_of(rows, k) for k in ("method", "off", "nn", "plain")}

        def better(a: float, b: float) -> bool:
            return np.isfinite(a) and np.isfinite(b) and a <= REG_FACTOR_AT * b

        near = "lie close to" if follows_nn >= FOLLOWS_NN_AT else "differ from"
        parts.append(f"Here {name}'s test predictions {near} 1-nearest neighbour's: "
                     f"their squared difference is {100 * (1 - follows_nn):.1f} % of the "
                     f"spread of the {n_test} test targets. Relative "
                     f"error: {name} {err['method']:.3g}, 1-NN {err['nn']:.3g}, {sym} "
                     f"switched off {err['off']:.3g}"
                     + (f", plain {base} {err['plain']:.3g}." if np.isfinite(plain) else "."))
        gain = better(err["method"], err["plain"])
        off_gain = better(err["off"], err["plain"])
        follows = follows_nn >= FOLLOWS_NN_AT
        if gain and follows and not off_gain:
            parts.append(f"So its gain over the plain {base} comes from the "
                         f"nearest-neighbour rule at test time (the row of {sym} of the "
                         f"nearest training point), not from a reshaped kernel: with "
                         f"{sym} switched off it is back at the plain {base}'s level.")
        elif gain and off_gain:
            parts.append(f"Part of the gain survives with {sym} switched off: the α and b "
                         f"learned with {sym}∘K carry it.")
        elif gain:
            parts.append(f"{name} beats the plain {base}, but with {sym} switched off it "
                         f"does not: the borrowed row of {sym} at test time makes the "
                         f"difference.")
        else:
            parts.append(f"{name} does not beat the plain {base} by a factor "
                         f"{1 / REG_FACTOR_AT:.2g} or more here.")
    return " ".join(parts)


__all__ = ["ABLATION_METHODS", "FOLLOWS_NN_AT", "REG_FACTOR_AT", "Ablation", "Row",
           "ablation", "legend", "matrix_symbol", "method_rule", "nearest_labels",
           "nn_grid", "off_decision", "off_predict", "verdict"]
