"""The one-vs-rest plumbing KNPL and ONK share: ``fit`` / ``decision_function`` /
``predict`` around a solver of one two-class problem. Never imports streamlit."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import check_params, check_two_classes


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
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _decide(self, X: np.ndarray, *prepare_args: Any) -> NDArray[np.float64]:
        prep = self._prepare(X, *prepare_args)
        if self.classes_.size == 2:
            return self._decision_binary(prep, None)
        return np.column_stack([self._decision_binary(prep, k)
                                for k in range(self.classes_.size)])

    def _labels(self, d: np.ndarray) -> np.ndarray:
        if d.ndim == 1:
            return self.classes_[(d > 0).astype(int)]
        return self.classes_[np.argmax(d, axis=1)]
