r"""Where a learned kernel's test score comes from: the method against itself with the
learned matrix switched off at test time, a 1-nearest-neighbour rule and the plain SVM.

DANK (its paper's §2.3) and KNPL (its paper's eq. 23) learn a matrix on the training points only; a
test point x borrows the row of its nearest (or reciprocal-nearest) training point j*:

.. math::

    f(x) = \sum_i u_i\, F_{i j^*(x)}\, k(x_i, x) + b .

So two things differ from the plain SVM at test time: the learned α, b (trained with
F∘K) and the borrowed row of F. This module separates them, on the page's own split:

* ``method`` — the method as the paper defines it (its out-of-sample rule);
* ``off`` — the same α and b with the learned matrix switched off at test time
  (F = 11ᵀ: :math:`\sum_i u_i k(x_i, x) + b`);
* ``smooth`` — the same model with the smooth rule, which copies no row: x takes a
  Gaussian-weighted average of all the rows of F, of width σ
  (:mod:`nplk_core.extension`);
* ``nn`` — 1-nearest neighbour (k-NN regression with k = 1): the label of j*(x);
* ``plain`` — the plain SVM / SVR with the same σ and C (and ε);
* ``cv`` — SVM-CV / SVR-CV (σ and C by 5-fold cross-validation), when it was fitted.

Scores: test accuracy (classification); test R² and relative error (regression). For
classification each row also says on what share of test points its label equals 1-NN's;
for regression how close its predictions lie to 1-NN's (1 − Σ(ŷ − ŷ₁ₙₙ)² / Σ(y − ȳ)²).
Each row is compared with the plain SVM/SVR point by point on the same test points
(:func:`point_values`), with a 95 % t-interval (:func:`nplk_lab.model.paired.paired`),
and so is the method's agreement with 1-NN against the plain one's. :func:`verdict`
turns these intervals into a short paragraph: a difference is spoken of only when its
interval lies wholly on one side of 0, so the words follow the numbers. The intervals
are over the test points of this one split: they say what these test points can tell,
not what another draw of the data would give.

Pure numpy (scikit-learn only through the fitted estimators it is handed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import paired as P
from .settings_table import CLASSIFICATION

#: methods whose learned matrix reaches test points through a nearest-neighbour rule
ABLATION_METHODS = ("dank", "knpl", "dank_svr")

#: "follows 1-NN": the method's test labels equal 1-NN's on at least this share
#: (classification), or its predictions lie this close to 1-NN's, 1 − Σ(ŷ − ŷ₁ₙₙ)² /
#: Σ(y − ȳ)² (regression)
FOLLOWS_NN_AT = 0.9


def matrix_symbol(method: str) -> str:
    """The learned matrix's symbol: F (DANK, DANK-SVR) or G (KNPL)."""
    return "G" if method == "knpl" else "F"


def legend(method: str, estimator: Any = None) -> str:
    """What the rows of the table are, in words (the page's caption under it)."""
    from .methods import METHODS

    name, sym = METHODS[method].label, matrix_symbol(method)
    base = "SVR" if METHODS[method].task != CLASSIFICATION else "SVM"
    # the rule the method's paper defines is its default; the other is the lab's option
    whose = "the paper's" if rule_key(method, estimator) == rule_key(method) else \
        "not the paper's"
    return (f"{name}: test points take the row of {sym} of their "
            f"{method_rule(method, estimator)} (the "
            f"{rule_name(rule_key(method, estimator))}, {whose}). {sym} off: the same "
            f"learned α and b with the plain kernel at test time ({sym} = all ones). Smooth "
            f"rule: every test point takes an average of all the rows of {sym}, weighted by "
            f"the kernel of width σ, so it copies no training point's row. 1-nearest "
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


#: the one name of each out-of-sample rule, wherever the lab shows it (figure title, the
#: rule chooser, the score table's row)
RULE_NAMES = {"reciprocal": "reciprocal-neighbour rule", "nearest": "nearest-point rule",
              "smooth": "smooth rule"}


def rule_key(method: str, estimator: Any = None, *, extension: str | None = None) -> str:
    """The out-of-sample rule the method's test score uses: "reciprocal" or "nearest".

    ``extension`` (a fit's own setting) answers without touching ``estimator``: a first
    picture drawn from the prepared snapshot then never unpickles its model."""
    ext = (extension or getattr(estimator, "extension", None)
           or ("nearest" if method != "dank" else "reciprocal"))
    return "reciprocal" if ext == "reciprocal" else "nearest"


def rule_name(key: str) -> str:
    """The rule's name on screen (:data:`RULE_NAMES`)."""
    return RULE_NAMES.get(key, RULE_NAMES["nearest"])


def method_rule(method: str, estimator: Any = None) -> str:
    """The out-of-sample rule the method's test score uses, in words."""
    return ("reciprocal nearest neighbours" if rule_key(method, estimator) == "reciprocal"
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


def smooth_predict(estimator: Any, X: np.ndarray) -> np.ndarray | None:
    """The fitted model's predictions with the smooth rule (every point takes a
    weighted average of all the rows of its learned matrix; :mod:`nplk_core.extension`).
    None for a model without that rule: no learned matrix, DANK one-vs-rest (its
    per-class models keep their own rule) or DANK's scalable mode."""
    if "extension_width" not in getattr(estimator, "get_params", dict)() \
            or getattr(estimator, "ovr_", None) is not None \
            or getattr(estimator, "n_clusters", 1) > 1:
        return None
    return np.asarray(estimator.predict(np.asarray(X, dtype=float), extension="smooth"))


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
    (regression), the share of test points where its label equals 1-NN's
    (classification) or how close its predictions lie to 1-NN's (regression), and its
    paired difference from the plain SVM/SVR over the test points (None for the plain
    row itself, or when there is no plain row)."""

    key: str
    label: str
    score: float
    rel_error: float = float("nan")
    agree_nn: float = float("nan")
    vs_plain: P.Paired | None = None


@dataclass(frozen=True)
class Ablation:
    """The score table of one fit on one split, and what it says in words.

    ``nn_edge``: how much more often the method agrees with 1-NN than the plain SVM/SVR
    does, per test point, with its 95 % interval (None without a plain row);
    ``vs_off``: the method's score against itself with the learned matrix switched off,
    per test point, with its 95 % interval (what the matrix adds at test time)."""

    method: str
    task: str
    rows: tuple[Row, ...]
    n_test: int
    #: classification: share of test points where the method's label equals 1-NN's;
    #: regression: 1 − Σ(ŷ − ŷ₁ₙₙ)² / Σ(y − ȳ)², how close its predictions lie to 1-NN's
    follows_nn: float
    verdict: str
    nn_edge: P.Paired | None = None
    vs_off: P.Paired | None = None

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)

    def score(self, key: str) -> float:
        r = self.row(key)
        return float("nan") if r is None else r.score

    def vs_plain(self, key: str) -> P.Paired | None:
        """The row's paired difference from the plain SVM/SVR (None when there is none)."""
        r = self.row(key)
        return None if r is None else r.vs_plain

    @property
    def metric(self) -> str:
        return "accuracy" if self.task == CLASSIFICATION else "R²"

    def table(self) -> list[dict[str, str]]:
        """The rows as plain-text cells (what the page shows)."""
        cls = self.task == CLASSIFICATION
        base = "SVM" if cls else "SVR"
        diff_col = f"against the plain {base} (95 % interval)"
        out = []
        for r in self.rows:
            if cls:
                cells = {"model": r.label, "test accuracy": _num(r.score, 3),
                         "same label as 1-NN": _pct(r.agree_nn)}
            else:
                cells = {"model": r.label, "test R²": _num(r.score, 3),
                         "rel. error": _num(r.rel_error, 3, general=True),
                         "closeness to 1-NN": _num(r.agree_nn, 3)}
            cells[diff_col] = _interval(r.vs_plain, cls, "points" if cls else "")
            out.append(cells)
        return out


def _num(v: float, digits: int, general: bool = False) -> str:
    if v is None or not np.isfinite(v):
        return "—"
    return f"{v:.{digits}g}" if general and abs(v) < 10 ** -(digits - 1) else \
        f"{v:.{digits}f}"


def _pct(v: float) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{100 * v:.0f} %"


def _signed(v: float, cls: bool) -> str:
    """A difference: points with one decimal (classification), R² with three."""
    if not np.isfinite(v):
        return "—"
    text = f"{v:+.1f}" if cls else f"{v:+.3f}"
    return text.replace("-0.0", "0.0").replace("+0.0", "0.0") if abs(v) < (
        0.05 if cls else 0.0005) else text


def _share(share: float) -> str:
    """A part of a whole in per cent: never "100 %" or "0 %" for a part that is neither."""
    pct = 100 * share
    if 99 < pct < 100 and f"{pct:.0f}" == "100":
        return "over 99 %"
    if 0 < pct < 1 and f"{pct:.0f}" == "0":
        return "under 1 %"
    return f"{pct:.0f} %"


def _interval(p: P.Paired | None, cls: bool, unit: str = "") -> str:
    """``+8.3 points (+1.2 to +15.5)``: a paired difference, ``unit`` and its 95 %
    interval."""
    if p is None:
        return "—"
    unit = f" {unit}" if unit else ""
    return f"{_signed(p.mean, cls)}{unit} ({_signed(p.lo, cls)} to {_signed(p.hi, cls)})"


def point_values(task: str, y: np.ndarray, p: np.ndarray, nn: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    r"""Per test point, two numbers whose means are the row's score and its agreement
    with 1-NN, so that rows can be compared point by point (paired):

    * classification: ``[p_i = y_i]`` and ``[p_i = nn_i]`` (means: accuracy, share of
      labels equal to 1-NN's);
    * regression, with :math:`s = \sum_j (y_j - \bar y)^2 / m` the spread of the ``m``
      test targets: :math:`1 - (p_i - y_i)^2 / s` and :math:`1 - (p_i - nn_i)^2 / s`
      (means: R² = 1 − relative error, and the closeness to 1-NN). NaN when the
      targets do not vary.
    """
    if task == CLASSIFICATION:
        return ((np.asarray(p) == np.asarray(y)).astype(float),
                (np.asarray(p) == np.asarray(nn)).astype(float))
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    spread = float(np.mean((y - y.mean()) ** 2)) if y.size else 0.0
    if spread <= 0:
        nan = np.full(y.shape, np.nan)
        return nan, nan
    return 1.0 - (p - y) ** 2 / spread, 1.0 - (p - np.asarray(nn, dtype=float)) ** 2 / spread


def _paired(task: str, a: np.ndarray, b: np.ndarray, label: str) -> P.Paired | None:
    """``a − b`` per test point with its 95 % interval: points (× 100) for
    classification, R² units for regression. None when the values are not finite."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return None
    cls = task == CLASSIFICATION
    return P.paired(a, b, label=label, unit="points" if cls else "R²",
                    scale=100.0 if cls else 1.0)


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
    ("plain", "cv"); the rows and their intervals are :func:`from_predictions`'. None
    when there are no test points or the model has no learned matrix to switch off."""
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
    rule = rule_name(rule_key(method, estimator))
    preds: dict[str, tuple[str, np.ndarray]] = {
        "method": (f"{name} ({rule})", pred),
        "off": (f"{name}, {sym} off at test time", off)}
    smooth = smooth_predict(estimator, X_test)
    if smooth is not None:
        preds["smooth"] = (f"{name} ({rule_name('smooth')})", smooth)
    preds["nn"] = ("1-nearest neighbour", nn)
    base = "SVM" if task == CLASSIFICATION else "SVR"
    for key, model, default in (("plain", plain, f"{base}, same σ and C"),
                                ("cv", cv, f"{base}-CV")):
        if model is not None:
            preds[key] = (labels.get(key, default), np.asarray(model.predict(X_test)))
    return from_predictions(method, y_test, preds, method_label=name)


def from_predictions(method: str, y_test: np.ndarray,
                     predictions: Mapping[str, tuple[str, np.ndarray]], *,
                     method_label: str | None = None) -> Ablation:
    """The score table from the test predictions themselves: ``predictions`` maps the
    row keys (``"method"``, ``"off"``, ``"nn"`` — all three needed — and optionally
    ``"smooth"``, ``"plain"``, ``"cv"``) to (label, predictions on the test points). Every row but
    the plain one carries its paired difference from the plain row over the test points
    (:func:`point_values`), and the table the difference in agreement with 1-NN between
    the method and the plain row."""
    from .methods import METHODS

    task = METHODS[method].task
    name = method_label or METHODS[method].label
    base = "SVM" if task == CLASSIFICATION else "SVR"
    y_test = np.asarray(y_test)
    nn = np.asarray(predictions["nn"][1])
    per_point = {key: point_values(task, y_test, p, nn)
                 for key, (_, p) in predictions.items()}
    ref = per_point.get("plain")
    rows = []
    for key, (label, p) in predictions.items():
        p = np.asarray(p)
        vs = None if ref is None or key == "plain" else \
            _paired(task, per_point[key][0], ref[0], f"{label} − plain {base}")
        if task == CLASSIFICATION:
            rows.append(Row(key, label, float(np.mean(p == y_test)),
                            agree_nn=float(np.mean(p == nn)), vs_plain=vs))
        else:
            err = _rel_error(y_test, p)
            rows.append(Row(key, label, 1.0 - err, rel_error=err,
                            agree_nn=_closeness(y_test, p, nn), vs_plain=vs))
    edge = None if ref is None else _paired(task, per_point["method"][1], ref[1],
                                            f"agreement with 1-NN: {name} − plain {base}")
    sym = matrix_symbol(method)
    vs_off = _paired(task, per_point["method"][0], per_point["off"][0],
                     f"{name} − {name} with {sym} off")
    rows_t = tuple(rows)
    follows = _row_of(rows_t, "method").agree_nn
    n = int(len(y_test))
    return Ablation(method, task, rows_t, n, follows,
                    verdict(method, task, rows_t, n, follows, method_label=name,
                            nn_edge=edge, vs_off=vs_off), nn_edge=edge, vs_off=vs_off)


# ---------------------------------------------------------------------------
# the words (generated from the numbers)
# ---------------------------------------------------------------------------

def _row_of(rows: Sequence[Row], key: str) -> Row | None:
    return next((r for r in rows if r.key == key), None)


def _score_of(rows: Sequence[Row], key: str) -> float:
    r = _row_of(rows, key)
    return float("nan") if r is None else r.score


def _side(p: P.Paired | None) -> str:
    """Where a paired difference's 95 % interval lies: ``"above"`` (wholly above 0),
    ``"below"`` (wholly below) or ``"level"`` (it contains 0, or every difference is 0)."""
    if p is None or not (np.isfinite(p.lo) and np.isfinite(p.hi)):
        return "level"
    if p.lo > 0:
        return "above"
    if p.hi < 0:
        return "below"
    return "level"


def verdict(method: str, task: str, rows: Sequence[Row], n_test: int, follows_nn: float,
            *, method_label: str | None = None, nn_edge: P.Paired | None = None,
            vs_off: P.Paired | None = None) -> str:
    """A short paragraph in plain words that follows the numbers of the table.

    Every comparison is judged on its paired 95 % interval over the test points (the
    rows' :attr:`Row.vs_plain`; ``nn_edge`` for the agreement with 1-NN): a difference
    counts when its interval lies wholly on one side of 0. In particular:

    * when the plain SVM/SVR agrees with 1-NN as much as the method (``nn_edge``'s
      interval is not wholly above 0), the paragraph says the test points cannot tell
      the nearest-neighbour rule and a reshaped kernel apart;
    * when the method with its learned matrix switched off beats the plain SVM/SVR
      (its interval wholly above 0) it never says that the gain is not a reshaped
      kernel's; it says that *part* of the gain survives, with its share, only when the
      method also beats the plain baseline and its own off model (``vs_off``), that the
      whole gain survives when it does not beat its off model, and that the off model
      beats the baseline on its own when the method itself does not;
    * "the rest" and "its gain comes from the nearest-neighbour rule" need the method
      above its own off model beyond the interval: switching the rule off must lose
      something.

    "Follows 1-NN" when the agreement is at least :data:`FOLLOWS_NN_AT`."""
    from .methods import METHODS

    name = method_label or METHODS[method].label
    sym = matrix_symbol(method)
    cls = task == CLASSIFICATION
    base = "SVM" if cls else "SVR"
    m, off, nn, plain = (_score_of(rows, k) for k in ("method", "off", "nn", "plain"))
    plain_row = _row_of(rows, "plain")
    plain_agree = float("nan") if plain_row is None else plain_row.agree_nn
    follows = bool(np.isfinite(follows_nn) and follows_nn >= FOLLOWS_NN_AT)
    parts = []
    if cls:
        also = f", the plain {base} on {100 * plain_agree:.0f} %" \
            if np.isfinite(plain_agree) else ""
        parts.append(f"Here {name} gives the same label as 1-nearest neighbour on "
                     f"{100 * follows_nn:.0f} % of the {n_test} test points{also}; 1-NN "
                     f"scores {nn:.3f}, {name} {m:.3f}.")
    elif not np.isfinite(follows_nn):
        return (f"Here the {n_test} test targets are all equal, so R² and the closeness "
                f"to 1-nearest neighbour are not defined.")
    else:
        near = "lie close to" if follows else "differ from"
        also = f" (the plain {base}'s: {100 * (1 - plain_agree):.1f} %)" \
            if np.isfinite(plain_agree) else ""
        parts.append(f"Here {name}'s test predictions {near} 1-nearest neighbour's: "
                     f"their squared difference is {100 * (1 - follows_nn):.1f} % of the "
                     f"spread of the {n_test} test targets{also}. Test R²: {name} "
                     f"{m:.3f}, 1-NN {nn:.3f}, {sym} switched off {off:.3f}"
                     + (f", plain {base} {plain:.3f}." if np.isfinite(plain) else "."))
    gain = None if _row_of(rows, "method") is None else _row_of(rows, "method").vs_plain
    off_gain = None if _row_of(rows, "off") is None else _row_of(rows, "off").vs_plain
    if gain is None or off_gain is None or not np.isfinite(plain):
        if not cls:
            return " ".join(parts)
        parts.append(f"With {sym} switched off at test time it scores {off:.3f}.")
        return " ".join(parts)
    unit = "points" if cls else ""
    who, them = (name, f"the plain {base}") if cls else (f"{name}'s R²", f"the plain {base}'s")

    # the method against the plain baseline
    g_side = _side(gain)
    if g_side == "level":
        parts.append(f"{who} is level with {them} ({plain:.3f}) within the 95 % interval "
                     f"over the test points: {_interval(gain, cls, unit)}.")
    else:
        size = _signed(abs(gain.mean), cls).lstrip("+") + (f" {unit}" if unit else "")
        parts.append(f"{who} is {size} {g_side} {them} ({plain:.3f}; 95 % interval over "
                     f"the test points {_signed(gain.lo, cls)} to {_signed(gain.hi, cls)}).")
    # the learned matrix switched off at test time
    o_side = _side(off_gain)
    against = {"above": f"above the plain {base} beyond its interval",
               "below": f"below the plain {base} beyond its interval",
               "level": f"level with the plain {base} within its interval"}
    off_words = against[o_side]
    parts.append(f"With {sym} switched off at test time (its own α and b, the plain "
                 f"kernel) it scores {off:.3f}, {off_words} ({_interval(off_gain, cls, unit)}).")
    smooth = _row_of(rows, "smooth")
    if smooth is not None and smooth.vs_plain is not None:
        parts.append(f"With the smooth rule, which copies no row of {sym}, it scores "
                     f"{smooth.score:.3f}, {against[_side(smooth.vs_plain)]} "
                     f"({_interval(smooth.vs_plain, cls, unit)}).")
    # the explanation: each clause is said only where its premise holds
    e_side = _side(nn_edge)
    v_side = _side(vs_off)              # the method against itself with the matrix off
    agree_unit = "points of agreement" if cls else "in closeness"
    pts = f" {unit}" if unit else ""
    vs_words = "" if vs_off is None else \
        f"{name} − {sym} off: {_interval(vs_off, cls, unit)}"
    if o_side == "above" and g_side != "above":
        parts.append(f"So the α and b learned with {sym} × K beat the plain {base} on "
                     f"their own, with the plain kernel at test time, while {name} itself, "
                     f"with the nearest-neighbour rule, is not above the plain {base} "
                     f"beyond the interval.")
    elif o_side == "above" and v_side == "above":
        share = off_gain.mean / gain.mean
        parts.append(f"So part of the gain survives with {sym} switched off: the α and "
                     f"b learned with {sym} × K keep {_signed(off_gain.mean, cls)} of its "
                     f"{_signed(gain.mean, cls)}{pts} ({_share(share)}), without the "
                     f"nearest-neighbour rule.")
        if e_side == "above" and follows:
            parts.append(f"The rest comes with the nearest-neighbour rule at test time: "
                         f"with {sym} switched off {name} loses "
                         f"{_interval(vs_off, cls, unit)}.")
    elif o_side == "above":
        cost = v_side == "below"
        parts.append(f"So the gain survives with {sym} switched off: the α and b learned "
                     f"with {sym} × K score {_signed(off_gain.mean, cls)}{pts} against the "
                     f"plain {base} on their own, and {name} with its nearest-neighbour "
                     f"rule {_signed(gain.mean, cls)}{pts}; the rule "
                     + ("costs points here" if cost else "adds nothing the test points can "
                        "tell") + (f" ({vs_words})." if vs_words else "."))
    elif e_side != "above":
        edge = "" if nn_edge is None else f" ({_interval(nn_edge, cls, agree_unit)})"
        much = "at least as much as" if e_side == "below" else "as much as"
        parts.append(f"The plain {base} agrees with 1-NN {much} {name} does here"
                     f"{edge}, so these test points cannot tell the explanations apart: "
                     f"the nearest-neighbour rule and a reshaped kernel would give the same "
                     f"{'labels' if cls else 'predictions'}.")
    elif follows and g_side == "above" and v_side == "above":
        why = ("so not from a reshaped kernel" if o_side == "below" or
               off_gain.verdict == P.FAILS else
               "so these test points show no gain from a reshaped kernel alone")
        parts.append(f"So its gain comes from the nearest-neighbour rule at test time: it "
                     f"follows 1-NN more closely than the plain {base} does "
                     f"({_interval(nn_edge, cls, agree_unit)}), and with {sym} switched "
                     f"off it loses {_interval(vs_off, cls, unit)} and is not above the "
                     f"plain {base}, {why}.")
    elif follows and g_side == "above":
        parts.append(f"It follows 1-NN more closely than the plain {base} does "
                     f"({_interval(nn_edge, cls, agree_unit)}), but these test points cannot "
                     f"say how much of its gain the nearest-neighbour rule carries: with "
                     f"{sym} switched off it is neither above the plain {base} nor clearly "
                     f"below {name}" + (f" ({vs_words})." if vs_words else "."))
    elif follows:
        parts.append(f"It follows 1-NN more closely than the plain {base} does "
                     f"({_interval(nn_edge, cls, agree_unit)}): the nearest-neighbour "
                     f"rule decides its {'labels' if cls else 'predictions'}, though it "
                     f"does not beat the plain {base} beyond the interval.")
    else:
        what = (f"Its labels differ from 1-NN's on {100 * (1 - follows_nn):.0f} % of the "
                f"test points" if cls else "Its predictions are not close to 1-NN's")
        parts.append(f"{what}, so the rule does not decide everything here.")
    return " ".join(parts)


__all__ = ["ABLATION_METHODS", "FOLLOWS_NN_AT", "RULE_NAMES", "Ablation", "Row", "ablation",
           "from_predictions", "legend", "matrix_symbol", "method_rule", "nearest_labels",
           "nn_grid", "off_decision", "off_predict", "point_values", "rule_key", "rule_name",
           "smooth_predict", "verdict"]
