"""'Export as code': a short Python script that reproduces a page's fit outside the lab.

:func:`export_script` writes, for the Classification or Regression page's current state,
a script that makes the same data (the same ``nplk_core.datasets.make_dataset`` call and
seed and the same train/test split; CSV data and clicked points are written into the
script), fits the same estimator with the same parameters, and prints the same scores as
the lab (accuracy, or the relative squared error and R²), with the plain SVM / SVR beside
it when the page draws one. It needs only ``nplk_core``, NumPy and scikit-learn.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

import numpy as np

from .data import dataset_params
from .methods import METHODS, _estimator_kwargs, shows_baseline
from .settings_table import CLASSIFICATION, REGRESSION, defaults

#: rows above which data are regenerated rather than written out, when they can be
_INLINE_LIMIT = 2000


def _py(v: Any) -> str:
    """A value as Python source (NumPy scalars as plain numbers)."""
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v))
    if isinstance(v, (int, np.integer)):
        return repr(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(_py(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


def _array(name: str, a: np.ndarray) -> str:
    """``name = np.array([...])`` with every float exactly (repr round-trips)."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        body = ", ".join(repr(float(v)) for v in a)
        return f"{name} = np.array([{body}])"
    rows = ",\n    ".join("[" + ", ".join(repr(float(v)) for v in r) + "]" for r in a)
    return f"{name} = np.array([\n    {rows},\n]).reshape(-1, {a.shape[1]})"


def _regenerable(params: Mapping[str, Any], task: str) -> str | None:
    """The toy dataset's name when the page's data come from ``make_dataset`` alone
    (no CSV, no clicked points)."""
    name = params["reg_dataset"] if task == REGRESSION else params["dataset"]
    if name in ("csv", "drawn"):
        return None
    if task == CLASSIFICATION and params.get("points"):
        return None
    return name


def _data_lines(params: Mapping[str, Any], data: Any, task: str) -> list[str]:
    name = _regenerable(params, task)
    n_train, n_test = len(data.y_train), len(data.y_test)
    if name is not None:
        n, seed = int(params["n_samples"]), int(params["seed"])
        dp = dataset_params(name, params)
        args = "".join(f", {k}={_py(v)}" for k, v in sorted(dp.items()))
        lines = ["# the data: the lab's toy set, drawn with the same seed",
                 f"X, y = make_dataset({name!r}, {n}, random_state={seed}{args})[:2]",
                 "X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)"]
        strat = "None"
        if task == CLASSIFICATION:
            lines += ["if set(np.unique(y)) <= {-1.0, 0.0, 1.0}:  # two classes: -1 / +1",
                      "    y = np.where(y > 0, 1.0, -1.0)"]
            _, counts = np.unique(data.y_train if not n_test else
                                  np.concatenate([data.y_train, data.y_test]),
                                  return_counts=True)
            if counts.size > 1 and counts.min() >= 2:
                strat = "y"
        if n_test:
            lines += ["X_train, X_test, y_train, y_test = train_test_split(",
                      f"    X, y, test_size={n_test}, random_state={seed}, stratify={strat})"]
        else:
            lines += ["X_train, X_test, y_train, y_test = X, X[:0], y, y[:0]"]
        return lines
    if n_train + n_test > _INLINE_LIMIT:
        raise ValueError(f"{n_train + n_test} rows are too many to write into a script; "
                         "save the data as CSV and load it there.")
    return ["# the data as the lab used them (uploaded or clicked points), already split",
            _array("X_train", data.X_train), _array("y_train", data.y_train),
            _array("X_test", data.X_test), _array("y_test", data.y_test)]


def _estimator_source(method: str, params: Mapping[str, Any]) -> tuple[str, str, str]:
    """(import line, class name, keyword arguments) of ``method`` at ``params``, as
    :func:`nplk_lab.model.methods.make_estimator` builds it."""
    spec = METHODS[method]
    module, cls_name = spec.target.split(":")
    cls = spec.load()
    kw = _estimator_kwargs(spec, params)
    accepted = set(cls().get_params())
    kw = {k: v for k, v in kw.items() if k in accepted}
    if "random_state" in accepted and "random_state" not in kw:
        kw["random_state"] = int(params.get("seed", 0))
    args = ", ".join(f"{k}={_py(v)}" for k, v in kw.items())
    return f"from {module} import {cls_name}", cls_name, args


def export_script(params: Mapping[str, Any], data: Any, method: str) -> str:
    """A runnable Python script that reproduces ``method``'s fit at ``params`` on the
    page's ``data`` (a ``LabData``) and prints its train/test scores (and the plain
    SVM's / SVR's when the page draws it), as the lab computes them.

    Raises ``ValueError`` for a method or data the script cannot reproduce."""
    p = {**defaults(), **dict(params)}
    spec = METHODS.get(method)
    if spec is None or spec.task not in (CLASSIFICATION, REGRESSION):
        raise ValueError(f"No script export for {method!r}: Classification and Regression "
                         "methods only.")
    task = spec.task
    imp, cls_name, args = _estimator_source(method, p)
    lines = [f'"""NPLK Lab: {spec.label} on the {_data_name(p, task)} — reproduces the lab\'s '
             "fit and scores.",
             "",
             f"Exported {_dt.date.today().isoformat()}. Needs nplk_core (this repository: "
             "pip install -e .), NumPy and",
             'scikit-learn. Run: python this_file.py"""',
             "",
             "import numpy as np"]
    regen = _regenerable(p, task) is not None
    base = shows_baseline(method, p)
    third = sorted(({"from sklearn.model_selection import train_test_split"} if regen
                    else set())
                   | ({"from sklearn.svm import SVC" if task == CLASSIFICATION
                       else "from sklearn.svm import SVR"} if base else set())
                   | ({imp} if imp.startswith("from sklearn") else set()))
    ours = sorted(({"from nplk_core.datasets import make_dataset"} if regen else set())
                  | ({"from nplk_core.kernels import sigma_to_gamma"} if base else set())
                  | ({imp} if not imp.startswith("from sklearn") else set()))
    lines += third + ([""] if ours else []) + ours + ["", ""]
    if task == CLASSIFICATION:
        lines += ["def score(model, X, y):",
                  '    """Accuracy: the share of points classified correctly."""',
                  "    return float(np.mean(model.predict(X) == y)) if len(y) else float('nan')"]
        metric = "accuracy"
    else:
        lines += ["def score(model, X, y):",
                  '    """Relative squared error sum((f(x) - y)^2) / sum((y - mean y)^2); '
                  'R^2 = 1 - it."""',
                  "    if not len(y):",
                  "        return float('nan')",
                  "    return float(np.sum((model.predict(X) - y) ** 2) / "
                  "np.sum((y - y.mean()) ** 2))"]
        metric = "relative error"
    lines += ["", ""]
    lines += _data_lines(p, data, task)
    lines += ["", f"# {spec.label}, with the lab's parameters",
              f"model = {cls_name}({args})", "model.fit(X_train, y_train)"]
    lines += _print_lines("model", spec.label, metric)
    if base:
        C, sigma = float(p["C"]), float(p["sigma"])
        if task == CLASSIFICATION:
            ctor = f"SVC(C={C!r}, gamma=sigma_to_gamma({sigma!r}))"
            name = "plain SVM"
        else:
            ctor = (f"SVR(C={C!r}, epsilon={float(p['epsilon'])!r}, "
                    f"gamma=sigma_to_gamma({sigma!r}))")
            name = "plain SVR"
        lines += ["", f"# the {name} with the same σ and C, on the same split",
                  f"plain = {ctor}.fit(X_train, y_train)"]
        lines += _print_lines("plain", name, metric)
    return "\n".join(lines) + "\n"


def _print_lines(var: str, label: str, metric: str) -> list[str]:
    out = [f"train_{var}, test_{var} = score({var}, X_train, y_train), "
           f"score({var}, X_test, y_test)"]
    if metric == "accuracy":
        out.append(f'print(f"{label}: train accuracy {{train_{var}:.6f}}, '
                   f'test accuracy {{test_{var}:.6f}}")')
    else:
        out.append(f'print(f"{label}: train relative error {{train_{var}:.6g}}, '
                   f'test relative error {{test_{var}:.6g}}, test R^2 {{1 - test_{var}:.6f}}")')
    return out


def _data_name(p: Mapping[str, Any], task: str) -> str:
    name = p["reg_dataset"] if task == REGRESSION else p["dataset"]
    return {"csv": "uploaded CSV", "drawn": "clicked points"}.get(name, f"{name} data")
