"""Data preparation: dataset or CSV to standardised train/test arrays, subsampled."""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .codec import MIN_ROWS
from .settings_table import (
    CLASSIFICATION,
    REGRESSION,
    Message,
    _dataset_settings,
    _msg,
    clip,
    defaults,
)

# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

#: The largest CSV the lab reads, in MB. The server takes uploads up to four times this
#: (``maxUploadSize`` in .streamlit/config.toml, checked by tests/test_bad_input.py), so
#: a file a little too large reaches the lab and gets its message; only a file above the
#: server's limit gets the browser's own "File must be … or smaller".
MAX_CSV_MB = 5
MAX_CSV_BYTES = MAX_CSV_MB * 10 ** 6  # MB as the browser shows a file's size


@dataclass
class LabData:
    """Train/test arrays plus a key that identifies them for caching."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    task: str
    key: str
    feature_names: tuple[str, ...] = ("x1", "x2")
    label_name: str = "y"
    messages: list[Message] = field(default_factory=list)

    @property
    def X(self) -> np.ndarray:
        return np.vstack([self.X_train, self.X_test])

    @property
    def y(self) -> np.ndarray:
        return np.concatenate([self.y_train, self.y_test])

    @property
    def n_features(self) -> int:
        return int(self.X_train.shape[1])


def array_key(*arrays: np.ndarray) -> str:
    """A short content hash of arrays (for cache keys)."""
    h = hashlib.blake2b(digest_size=10)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.shape).encode())
        h.update(str(a.dtype).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def datasets_available() -> tuple[bool, str]:
    try:
        mod = importlib.import_module("nplk_core.datasets")
        mod.make_dataset  # noqa: B018
    except (ImportError, AttributeError):
        return False, "The toy datasets are not available yet (nplk_core.datasets has not landed)."
    return True, ""


def dataset_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The dataset's own parameters (noise, scale, …) from the lab params."""
    out = {}
    for s in _dataset_settings():
        if s.datasets == (name,):
            out[s.estimator_param] = params.get(s.name, s.default)
    return out


def split(X: np.ndarray, y: np.ndarray, *, task: str, test_size: float, seed: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Train/test split, stratified for classification when every class has 2+ points."""
    from sklearn.model_selection import train_test_split
    n = len(y)
    n_test = int(round(test_size * n))
    if n < 4 or n_test < 1 or n - n_test < 2:
        return X, X[:0], y, y[:0]  # (X_train, X_test, y_train, y_test), as below
    strat = None
    if task == CLASSIFICATION:
        _, counts = np.unique(y, return_counts=True)
        if counts.size > 1 and counts.min() >= 2:
            strat = y
    try:
        return tuple(train_test_split(X, y, test_size=n_test, random_state=seed,
                                      stratify=strat))
    except ValueError:
        return tuple(train_test_split(X, y, test_size=n_test, random_state=seed))


def standardize_features(X: np.ndarray, mode: str = "auto") -> tuple[np.ndarray, str]:
    """Columns rescaled to mean 0 and standard deviation 1 when ``mode`` is ``"on"``, or
    ``"auto"`` and the scales differ by orders of magnitude (a column's standard
    deviation above 100 or below 0.01, or two columns' ratio above 100); returns the data
    and a note for the user ("" when nothing was done or suggested)."""
    X = np.asarray(X, dtype=float)
    if X.size == 0 or not np.all(np.isfinite(X)):
        return X, ""
    big = np.maximum(np.abs(X).max(axis=0), np.finfo(float).tiny)
    sd = (X / big).std(axis=0) * big  # no overflow for values near the float limit
    live = sd[sd > 0]
    uneven = live.size > 0 and (live.max() > 100 or live.min() < 0.01
                                or live.max() / live.min() > 100)
    if mode == "on" or (mode == "auto" and uneven):
        scale = np.where(sd > 0, sd, 1.0)
        spread = ", ".join(f"{v:.3g}" for v in sd[:6]) + (" …" if sd.size > 6 else "")
        why = "their scales differ by orders of magnitude" if uneven else "as asked"
        return ((X / big - (X / big).mean(axis=0)) * big) / scale, (
            f"Features standardised to mean 0 and standard deviation 1 ({why}: standard "
            f"deviations {spread}); figures and σ are in standardised units. Set "
            f"“Standardise features” to “never” to use raw units.")
    if uneven:
        return X, ("The features' scales differ by orders of magnitude; one σ cannot suit "
                   "them all. Set “Standardise features” to “always” to rescale them.")
    return X, ""


def subsample_indices(y: np.ndarray, n: int, *, task: str = CLASSIFICATION, seed: int = 0
                      ) -> np.ndarray:
    """Sorted indices of a random subsample of ``n`` of the points (stratified by class
    for classification, at least one point of each class), for fits above the budget."""
    y = np.asarray(y)
    n = int(min(max(n, 2), y.size))
    rng = np.random.default_rng(seed)
    if task != CLASSIFICATION:
        return np.sort(rng.choice(y.size, size=n, replace=False))
    classes, inverse = np.unique(y, return_inverse=True)
    quota = np.maximum(np.floor(n * np.bincount(inverse) / y.size).astype(int), 1)
    parts = [rng.choice(np.flatnonzero(inverse == k), size=min(q, int((inverse == k).sum())),
                        replace=False) for k, q in enumerate(quota)]
    return np.sort(np.concatenate(parts))


def prepare_data(params: Mapping[str, Any], task: str = CLASSIFICATION, *,
                 seed: int | None = None, csv: Any = None, label_column: str | None = None
                 ) -> tuple[LabData | None, list[Message]]:
    """Draw (or load) the data the params describe, split into train and test.

    ``csv`` is the uploaded file (bytes or text) when the dataset is ``"csv"``. User
    points (``params["points"]``) are appended to the training set. Returns
    ``(data, messages)``; ``data`` is None (and a message says why) when no data can
    be made. Never raises.
    """
    p = {**defaults(), **params}
    seed = int(p["seed"] if seed is None else seed)
    name = p["reg_dataset"] if task == REGRESSION else p["dataset"]
    n = int(p["n_samples"])
    test_size = float(p["test_size"])
    messages: list[Message] = []
    feature_names: tuple[str, ...] = ("x1", "x2")
    label_name = "y"
    if name == "csv":
        if csv is None:
            return None, [_msg("info", "Upload a CSV file (features in columns, the label in "
                                       "the last column or a column named “y”/“label”).")]
        ok, why = datasets_available()
        if not ok:
            return None, [_msg("error", why)]
        ds = importlib.import_module("nplk_core.datasets")
        try:
            loaded = ds.load_csv(csv, task=task, label_column=label_column,
                                 max_bytes=MAX_CSV_BYTES)
        except ValueError as exc:
            return None, [_msg("error", f"Could not read the CSV: {exc}")]
        X = np.asarray(loaded.X, dtype=float)
        X, note = standardize_features(X, str(p.get("standardize", "auto")))
        if note:
            messages.append(_msg("info", note))
        if task == CLASSIFICATION:
            try:
                y_pm, classes = ds.to_pm1(loaded.y)
            except ValueError as exc:
                return None, [_msg("error", f"The lab's classifiers need two classes: {exc}")]
            y = y_pm.astype(float)
            if not (classes[0] == -1 and classes[1] == 1):
                messages.append(_msg("info", f"Classes mapped: {clip(classes[0], 20)} → −1, "
                                             f"{clip(classes[1], 20)} → +1."))
        else:
            y = np.asarray(loaded.y, dtype=float)
        if X.shape[0] < MIN_ROWS:
            need = ("2 or more of each class to train on and some to test"
                    if task == CLASSIFICATION else "enough to train on and some to test")
            return None, [_msg("error", f"The CSV has {X.shape[0]} data rows; the lab needs "
                                        f"at least {MIN_ROWS} ({need}). Add rows and upload "
                                        "it again.")]
        feature_names = tuple(getattr(loaded, "feature_names", ()) or
                              (f"x{i + 1}" for i in range(X.shape[1])))
        label_name = getattr(loaded, "label_name", "y") or "y"
        key = "csv-" + array_key(X, y)
    elif name == "drawn":
        X = np.zeros((0, 2))
        y = np.zeros(0)
        key = "drawn"
    else:
        ok, why = datasets_available()
        if not ok:
            return None, [_msg("error", why)]
        ds = importlib.import_module("nplk_core.datasets")
        dparams = dataset_params(name, p)
        try:
            X, y = ds.make_dataset(name, n, random_state=seed, **dparams)[:2]
        except (ValueError, TypeError, KeyError) as exc:
            return None, [_msg("error", f"Could not make the {name} data: {exc}")]
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        key = f"{name}-n{n}-s{seed}-" + "-".join(f"{k}{v!r}" for k, v in
                                                   sorted(dparams.items()))
    if task == CLASSIFICATION and y.size:
        y = np.where(y > 0, 1.0, -1.0) if set(np.unique(y)) <= {-1.0, 0.0, 1.0} else y
    Xtr, Xte, ytr, yte = split(X, y, task=task, test_size=test_size, seed=seed) \
        if y.size else (X, X, y, y)
    key += f"-t{test_size!r}"
    points = p.get("points", ()) if task == CLASSIFICATION else ()
    if points:
        if X.shape[1] != 2:
            messages.append(_msg("warning", "Added points need 2-D data; they are ignored."))
        else:
            P = np.asarray(points, dtype=float).reshape(-1, 3)
            Xtr = np.vstack([Xtr, P[:, :2]])
            ytr = np.concatenate([ytr, P[:, 2]])
            key += "-p" + array_key(P)
    if ytr.size == 0:
        return None, [_msg("info", "No points yet: click the plot to add points of both "
                                   "classes.")]
    if not (np.all(np.isfinite(Xtr)) and np.all(np.isfinite(ytr))):
        return None, [_msg("error", "The data contain NaN or infinite values; clean them "
                                    "and upload again.")]
    return LabData(Xtr, ytr, Xte, yte, task, key, feature_names, label_name,
                   messages), messages
