"""Conventions every solver shares: iteration history, callbacks, parameter checks,
bias recovery.

* **History.** Every solver records every iteration (never a subsample) in an
  :class:`IterationLog`; estimators expose ``history_`` as a dict of equal-length
  numpy arrays with at least ``"objective"``, ``"step_norm"``, ``"rank"`` and
  ``"time"`` (seconds since the solve started) where those quantities exist.
* **Callback.** ``callback(iteration, state, elapsed)`` is called after every
  iteration with a small dict ``state`` (at least ``"objective"`` and the current
  iterate). Returning ``True`` stops the solve early (then ``converged_`` is False and
  no warning is emitted: the caller asked for it).
* **Limits.** Hitting ``max_iter`` emits :class:`sklearn.exceptions.ConvergenceWarning`
  and leaves ``converged_ = False``.
* **Snapshots.** Beside the history every iterative solver keeps the iterate itself
  (what is needed to evaluate the model then) at a bounded set of iterations,
  :class:`Snapshots`: at most :data:`SNAPSHOT_CAP`, dense early, always with the first
  and the final one; estimators expose them as ``snapshots_`` (the lab's training
  replay). Solvers pass ``snapshot=`` (a dict, or a function making one, called only at
  kept iterations) to :meth:`IterationLog.record`.
* **Parameters.** Each estimator declares ``_param_rules``; :func:`check_params`
  validates them in ``fit`` and raises ``ValueError`` saying which parameter, what
  value and what to do.
* **Several classes.** A classifier built on a binary solver (KNPL, ONK) takes
  :class:`_OneVsRestMixin`: one problem per class against the rest.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

Callback = Callable[[int, dict, float], Any]

_blas_lock = threading.Lock()
_blas_state: dict[str, Any] = {"users": 0, "limiter": None, "controller": None}


@contextmanager
def single_thread_blas() -> Iterator[None]:
    """Run BLAS/LAPACK single-threaded while the block runs.

    The solvers make many calls on small matrices, where threaded OpenBLAS only adds
    synchronisation: on a busy 2-core machine a 130 x 130 ``eigh`` took 300 ms threaded
    against 2 ms single-threaded. The limit is process-wide, so overlapping users (e.g.
    Streamlit sessions in threads) share one reference-counted limiter and the original
    setting comes back when the last one leaves.
    """
    with _blas_lock:
        if _blas_state["users"] == 0:
            if _blas_state["controller"] is None:
                from threadpoolctl import ThreadpoolController

                _blas_state["controller"] = ThreadpoolController()
            _blas_state["limiter"] = _blas_state["controller"].limit(limits=1,
                                                                     user_api="blas")
        _blas_state["users"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_state["users"] -= 1
            if _blas_state["users"] == 0:
                _blas_state["limiter"].restore_original_limits()
                _blas_state["limiter"] = None


#: the most iterates a solve keeps (:class:`Snapshots`)
SNAPSHOT_CAP = 60
#: growth of the gap between kept iterations: 0-9 all, then 10, 11, 12, 13, 15, ...
SNAPSHOT_RATIO = 1.12


class Snapshots:
    """The iterates of one solve at a bounded number of iterations, dense early.

    Iterations ``0, 1, 2, ...`` are kept on a geometric schedule (each next one
    ``max(i + 1, round(SNAPSHOT_RATIO * i))``: every iteration up to 9, about 26 up to
    50, 46 up to 500); the final iterate is added by :meth:`finish`. When a run is
    longer than the cap allows, the kept set is thinned (the interior iterate whose
    neighbours are closest on a log scale goes first), so it never exceeds ``cap`` and
    always holds the first and the newest iterate. Each snapshot is a dict with
    ``"iteration"`` (the row of the history it belongs to) and copies of the arrays.
    """

    def __init__(self, cap: int = SNAPSHOT_CAP, ratio: float = SNAPSHOT_RATIO) -> None:
        if cap < 2:
            raise ValueError(f"cap must be >= 2 (the first and the last iterate), got {cap}.")
        self.cap = int(cap)
        self.ratio = float(ratio)
        self.items: list[dict[str, Any]] = []
        self._next = 0

    def wants(self, iteration: int) -> bool:
        """Whether ``iteration`` is on the schedule (call once per iteration, in order)."""
        if iteration < self._next:
            return False
        while self._next <= iteration:
            self._next = max(self._next + 1, int(round(self._next * self.ratio)))
        return True

    def add(self, iteration: int, arrays: Mapping[str, Any]) -> None:
        """Keep ``arrays`` (copied) as the iterate of ``iteration``; replaces a snapshot
        of the same iteration."""
        snap = {"iteration": int(iteration)}
        for k, v in arrays.items():
            snap[k] = np.array(v, copy=True) if isinstance(v, np.ndarray) else v
        if self.items and self.items[-1]["iteration"] == snap["iteration"]:
            self.items[-1] = snap
        else:
            self.items.append(snap)
        while len(self.items) > self.cap:
            self._thin()

    def finish(self, iteration: int, arrays: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Add the final iterate (``iteration`` = the last history row) and return the
        kept snapshots in order."""
        self.add(iteration, arrays)
        return self.items

    def _thin(self) -> None:
        its = np.log1p([s["iteration"] for s in self.items])
        gaps = its[2:] - its[:-2]  # span left if interior item i+1 were dropped
        del self.items[int(np.argmin(gaps)) + 1]


class IterationLog:
    """Per-iteration record of a solve.

    ``record(objective=..., step_norm=..., rank=...)`` appends one row (the wall time
    since the log was created is added as ``"time"``) and calls the callback;
    ``as_dict()`` returns equal-length float arrays, NaN where a row lacked a key.
    """

    def __init__(self, callback: Callback | None = None) -> None:
        self._t0 = time.perf_counter()
        self._rows: dict[str, list[float]] = {"time": []}
        self._n = 0
        self.callback = callback
        self.snapshots = Snapshots()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def __len__(self) -> int:
        return self._n

    def record(self, state: Mapping[str, Any] | None = None, *,
               snapshot: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
               **values: float) -> bool:
        """Append one iteration; return True if the callback asked to stop.

        ``values`` are scalars stored in the history; ``state`` holds extra objects
        (e.g. the iterate) that are passed to the callback but not stored. ``snapshot``
        is the iterate to keep (:class:`Snapshots`): a dict of arrays, or a function
        returning one, called only when this iteration is kept.
        """
        if snapshot is not None and self.snapshots.wants(self._n):
            self.snapshots.add(self._n, snapshot() if callable(snapshot) else snapshot)
        elapsed = self.elapsed
        values["time"] = elapsed
        rows = self._rows
        if rows.keys() == values.keys():  # the usual row: the same keys as the last
            for key, value in values.items():
                rows[key].append(float(value))
        else:
            for key in rows.keys() | values.keys():
                col = rows.setdefault(key, [np.nan] * self._n)
                col.append(float(values.get(key, np.nan)))
        self._n += 1
        if self.callback is None:
            return False
        info = dict(values)
        if state:
            info.update(state)
        return bool(self.callback(self._n - 1, info, elapsed))

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, dtype=float) for k, v in self._rows.items()}


def warn_not_converged(name: str, max_iter: int, hint: str = "") -> None:
    msg = (f"{name} reached max_iter={max_iter} without meeting its tolerance; "
           f"the result is the last iterate.")
    if hint:
        msg += " " + hint
    from sklearn.exceptions import ConvergenceWarning  # lazy: sklearn costs ~1 s to import

    warnings.warn(msg, ConvergenceWarning, stacklevel=3)


# ---------------------------------------------------------------------------
# parameter rules
# ---------------------------------------------------------------------------

def positive(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value) \
            or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}.")


def nonnegative(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value) \
            or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}.")


def positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")


def one_of(*options: Any) -> Callable[[str, Any], None]:
    def rule(name: str, value: Any) -> None:
        if value not in options:
            raise ValueError(f"{name} must be one of {list(options)}, got {value!r}.")
    return rule


def positive_or(*options: Any) -> Callable[[str, Any], None]:
    def rule(name: str, value: Any) -> None:
        if isinstance(value, str) or value is None:
            if value not in options:
                raise ValueError(f"{name} must be a number > 0 or one of {list(options)}, "
                                 f"got {value!r}.")
            return
        positive(name, value)
    return rule


def greater_than(bound: float) -> Callable[[str, Any], None]:
    def rule(name: str, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, Real) or \
                not np.isfinite(value) or value <= bound:
            raise ValueError(f"{name} must be a finite number > {bound}, got {value!r}.")
    return rule


def optional(rule: Callable[[str, Any], None]) -> Callable[[str, Any], None]:
    def wrapped(name: str, value: Any) -> None:
        if value is not None:
            rule(name, value)
    return wrapped


def any_value(name: str, value: Any) -> None:
    return None


def callable_or_none(name: str, value: Any) -> None:
    if value is not None and not callable(value):
        raise ValueError(f"{name} must be callable or None, got {value!r}.")


def check_params(estimator: Any, rules: Mapping[str, Callable[[str, Any], None]]) -> None:
    """Validate ``estimator``'s parameters against its declared rules."""
    for name, rule in rules.items():
        rule(name, getattr(estimator, name))


def check_two_classes(y: np.ndarray) -> np.ndarray:
    """Return the sorted classes; raise a clear error when fewer than two."""
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"Classification needs at least two classes; y has only one ({classes[0]!r}). "
            "Add points of another class or pick another dataset.")
    return classes


# ---------------------------------------------------------------------------
# bias recovery
# ---------------------------------------------------------------------------

def recover_bias(alpha: np.ndarray, y: np.ndarray, Kt: np.ndarray, C: float,
                 *, rtol: float = 1e-8) -> float:
    r"""Bias of an SVM from its dual solution (docs/the-maths-of-every-method.md, 'Shared pieces').

    ``b = mean_{i: 0<alpha_i<C} (y_i - sum_j alpha_j y_j Kt_ij)``; if no alpha is
    strictly inside the box, the midpoint of the KKT interval.
    """
    alpha = np.asarray(alpha, dtype=float)
    y = np.asarray(y, dtype=float)
    return bias_from_residual(alpha, y, y - Kt @ (alpha * y), C, rtol=rtol)


def bias_from_residual(alpha: np.ndarray, y: np.ndarray, g: np.ndarray, C: float,
                       *, rtol: float = 1e-8) -> float:
    """:func:`recover_bias` given ``g = y - Kt (alpha * y)`` (``y_i - f_noBias(x_i)``),
    for a solver that has the product already (the snapshots of an iterate)."""
    alpha = np.asarray(alpha, dtype=float)
    y = np.asarray(y, dtype=float)
    eps = rtol * max(C, 1.0)
    free = (alpha > eps) & (alpha < C - eps)
    if np.any(free):
        return float(np.mean(g[free]))
    # KKT: alpha_i = 0 -> y_i f(x_i) >= 1 ; alpha_i = C -> y_i f(x_i) <= 1 ; f = (y-g)... +b
    # y_i (sum + b) >= 1 <=> b >= g_i for y=+1, b <= g_i for y=-1 (alpha=0); reversed at C.
    at_zero = alpha <= eps
    at_c = alpha >= C - eps
    lower = np.concatenate([g[at_zero & (y > 0)], g[at_c & (y < 0)]])
    upper = np.concatenate([g[at_zero & (y < 0)], g[at_c & (y > 0)]])
    lo = float(lower.max()) if lower.size else -np.inf
    hi = float(upper.min()) if upper.size else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    if np.isfinite(lo):
        return lo
    if np.isfinite(hi):
        return hi
    return 0.0


# ---------------------------------------------------------------------------
# one classifier from binary problems, one class against the rest
# ---------------------------------------------------------------------------
# scikit-learn is imported where it is used: the toy data sets import this module, and a
# page's first paint must not wait for scikit-learn.

class _OneVsRestMixin:
    """``fit`` / ``decision_function`` / ``predict`` around a binary solver.

    Subclasses implement ``_fit_binary(K, y) -> dict`` (fitted attributes of one
    ``±1`` problem), ``_prepare(X)`` (what every class needs on test points) and
    ``_decision_binary(prep, k)`` (``k`` = class index, ``None`` when binary). With more
    than two classes, class ``c`` is fitted against the rest (labels ``+1`` for ``c``),
    array attributes gain a leading class axis, ``support_`` is the union of support
    sets, ``n_iter_`` is an array, ``converged_`` is True only if every problem
    converged and history dicts are concatenated with an ``"estimator"`` column.
    """

    _history_attributes: tuple[str, ...] = ("history_",)

    def _validate_fit(self, X, y):
        from sklearn.utils.multiclass import check_classification_targets
        from sklearn.utils.validation import validate_data

        check_params(self, self._param_rules)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_ = check_two_classes(y)
        self.X_fit_ = X
        return X, y

    def _fit_all(self, K: np.ndarray, y: np.ndarray) -> None:
        classes = self.classes_
        if classes.size == 2:
            fits = [self._fit_binary(K, np.where(y == classes[1], 1.0, -1.0))]
        else:
            fits = [self._fit_binary(K, np.where(y == c, 1.0, -1.0)) for c in classes]
        if len(fits) == 1:
            for key, value in fits[0].items():
                setattr(self, key, value)
            return
        for key in fits[0]:
            values = [f[key] for f in fits]
            if key in self._history_attributes:
                merged = {}
                for name in values[0]:
                    merged[name] = np.concatenate([v[name] for v in values])
                merged["estimator"] = np.concatenate(
                    [np.full(len(next(iter(v.values()))), i, dtype=float)
                     for i, v in enumerate(values)])
                setattr(self, key, merged)
            elif key == "support_":
                setattr(self, key, np.unique(np.concatenate(values)))
            elif key == "converged_":
                setattr(self, key, bool(all(values)))
            elif key == "snapshots_":
                setattr(self, key, values)  # one list per class
            else:
                setattr(self, key, np.stack([np.asarray(v) for v in values]))

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Signed distance to the boundary: shape (n,) for two classes, else
        (n, n_classes) one-vs-rest scores (largest wins)."""
        return self._decide(self._checked(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels: the sign of the decision (binary) or the largest OvR score."""
        return self._labels(self.decision_function(X))

    def _checked(self, X: ArrayLike) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted, validate_data

        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _decide(self, X: np.ndarray, *prepare_args: Any) -> NDArray[np.float64]:
        """The decision on checked points; ``prepare_args`` go to ``_prepare`` (KNPL's
        out-of-sample rule for one call)."""
        prep = self._prepare(X, *prepare_args)
        if self.classes_.size == 2:
            return self._decision_binary(prep, None)
        return np.column_stack([self._decision_binary(prep, k)
                                for k in range(self.classes_.size)])

    def _labels(self, d: np.ndarray) -> np.ndarray:
        if d.ndim == 1:
            return self.classes_[(d > 0).astype(int)]
        return self.classes_[np.argmax(d, axis=1)]
