"""NPLK core: non-parametric and locally adaptive kernel learning solvers.

The estimators and their building blocks, and the toy datasets: pure numerics (numpy,
scipy, scikit-learn); this package imports nothing of the project above it (the app
model ``nplk_lab.model``, the figures ``nplk_lab.figures``, the Streamlit layer ``nplk_lab.ui``).
Public estimators are loaded lazily so that ``import nplk_core`` stays cheap for the
app's cold start.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS: dict[str, str] = {
    "DANKClassifier": "dank",
    "DANKRegressor": "dank",
    "KNPLClassifier": "knpl",
    "ONKClassifier": "onk",
    "SimpleNPKL": "simple_npkl",
    "LABRBFRegressor": "lab_rbf",
    "LABRBFClassifier": "lab_rbf",
    "LABRBFRegressorCV": "lab_rbf_select",
    "SVMCVClassifier": "baselines",
    "SVRCVRegressor": "baselines",
    "KernelRidgeBaseline": "baselines",
    "MKLUniformClassifier": "baselines",
    "project_dual": "projection",
    "gaussian_kernel": "kernels",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'nplk_core' has no attribute {name!r}") from None
    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
