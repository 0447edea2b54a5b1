"""A fit as a worker process runs it for a page (``nplk_lab.serve.workers``): the same
:func:`fit_method`, plus the views a page draws from it (the training kernel, the
spectra, the rank), computed in the worker so the page's process only draws."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .methods import fit_method
from .results import LabResult


def fit_for_page(params: Mapping[str, Any], X_train: np.ndarray, y_train: np.ndarray,
                 X_test: np.ndarray, y_test: np.ndarray, *, method: str,
                 warm_from: LabResult | None = None, data_key: str = "",
                 callback: Callable | None = None) -> LabResult:
    """:func:`fit_method` (``callback``: the worker's, reporting the iteration through
    shared memory and stopping when nobody waits), its estimator then freed of callables
    so it pickles back, and its lazy views filled."""
    res = fit_method(params, X_train, y_train, X_test, y_test, method=method,
                     warm_from=warm_from, data_key=data_key, callback=callback)
    if res.ok:
        est = res.estimator
        if "callback" in getattr(est, "get_params", dict)():
            est.set_params(callback=None)
        _ = res.kernel, res.spectra, res.rank
    return res
