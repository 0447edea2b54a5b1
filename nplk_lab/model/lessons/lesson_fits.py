"""Measuring a lesson step: the lab fitted at a state, as the pages fit it.

:func:`lesson_fit`, :func:`lesson_data` and :func:`lesson_pairwise` call
:func:`nplk_lab.model.data.prepare_data`, :func:`nplk_lab.model.methods.fit_method` and
:func:`nplk_lab.model.methods.fit_pairwise` (a small cache shared by the steps of a lesson and
by the sessions of one server); :func:`dank_gain` says where DANK's test score comes
from (DANK, DANK with F switched off at test time, the plain SVM, 1-NN, and DANK's
agreement with 1-NN). The comparison helpers count test points, so "about the same"
means "within one test point". Used by :mod:`nplk_lab.model.lessons.lessons`; no Streamlit, and
scikit-learn only inside the functions that fit.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import ablation
from ..data import LabData, prepare_data
from ..methods import fit_method, fit_pairwise
from ..results import LabResult, PairwiseResult
from ..settings_table import CLASSIFICATION, defaults

_CACHE: OrderedDict[tuple, Any] = OrderedDict()
_CACHE_SIZE = 48
_LOCK = threading.Lock()   # sessions of one server share the cache


def _key(params: Mapping[str, Any], *extra: Any) -> tuple:
    return (tuple(sorted((k, repr(v)) for k, v in params.items())),) + extra


def _cached(key: tuple, compute: Callable[[], Any]) -> Any:
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    value = compute()
    with _LOCK:
        _CACHE[key] = value
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return value


def lesson_data(params: Mapping[str, Any], task: str) -> LabData:
    """The data a state describes (ValueError when it cannot be made)."""
    def make():
        data, msgs = prepare_data(params, task)
        if data is None:
            raise ValueError("; ".join(m.text for m in msgs) or "no data")
        return data
    return _cached(_key(params, "data", task), make)


def lesson_fit(params: Mapping[str, Any], method: str, task: str = CLASSIFICATION
               ) -> tuple[LabData, LabResult]:
    """``method`` fitted at ``params`` as a page fits it (ValueError when it fails)."""
    p = {**defaults(), **params}
    data = lesson_data(p, task)

    def fit():
        res = fit_method(p, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method, data_key=data.key)
        if not res.ok:
            raise ValueError("; ".join(m.text for m in res.messages) or "the fit failed")
        return res
    return data, _cached(_key(p, "fit", method), fit)


def lesson_pairwise(params: Mapping[str, Any]) -> tuple[LabData, PairwiseResult]:
    p = {**defaults(), **params}
    data = lesson_data(p, CLASSIFICATION)

    def fit():
        res = fit_pairwise(p, data.X, data.y)
        if res.estimator is None:
            raise ValueError("; ".join(m.text for m in res.messages) or "the fit failed")
        return res
    return data, _cached(_key(p, "pairwise"), fit)


def draw_seeds(params: Mapping[str, Any], n: int) -> tuple[int, ...]:
    """The data seeds of ``n`` draws of the data that start at the state's own draw:
    its seed and the next ``n − 1``."""
    seed = int({**defaults(), **params}["seed"])
    return tuple(range(seed, seed + int(n)))


def at_draw(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The same state on another draw of the data (another data seed)."""
    return {**params, "seed": int(seed)}


_MORE = {1: "one more", 2: "the next two", 3: "the next three", 4: "the next four",
         5: "the next five", 6: "the next six", 7: "the next seven", 8: "the next eight",
         9: "the next nine"}


def draws_phrase(n: int) -> str:
    """"10 draws of the data (this one and the next nine)": what a spread counts over."""
    more = _MORE.get(n - 1, f"the next {n - 1}")
    return f"{n} draws of the data (this one and {more})"


def spread_counts(labels: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """How many draws gave each outcome, the most frequent first (ties: first seen)."""
    order = {lab: i for i, lab in reversed(list(enumerate(labels)))}
    return tuple(sorted(Counter(labels).items(), key=lambda kv: (-kv[1], order[kv[0]])))


def spread_text(labels: Sequence[str]) -> str:
    """"At 10 draws of the data (this one and the next nine): “lower” at 7, “about the
    same” at 3." — the outcomes of a step at several draws, counted."""
    counts = ", ".join(f"“{lab}” at {k}" for lab, k in spread_counts(labels))
    return f"At {draws_phrase(len(labels))}: {counts}."


def _count(score: float, m: int) -> int:
    return int(round(score * m))


def _compare(a: float, b: float, m: int) -> int:
    """0 when accuracy ``a`` beats ``b`` by more than one of ``m`` test points, 2 when it
    is lower by more than one, 1 when they are within one test point."""
    d = _count(a, m) - _count(b, m)
    return 0 if d > 1 else 2 if d < -1 else 1


def _acc(score: float, m: int) -> str:
    return f"{score:.3f} ({_count(score, m)} of {m} test points)"


def _share(frac: float, lo: float = 0.1, hi: float = 0.9) -> int:
    """0: over ``hi``, 2: under ``lo``, 1: between (options 'almost all / some / few')."""
    return 0 if frac > hi else 2 if frac < lo else 1


def _pct(x: float) -> str:
    """A share as a percentage with two significant digits (0.00026 % stays visible)."""
    return f"{100 * x:.2g} %"


def _size(rel: float) -> int:
    """0: under 1 %, 1: 1–10 %, 2: over 10 %."""
    return 0 if rel < 0.01 else 1 if rel <= 0.10 else 2


def f_off_scores(res: LabResult, data: LabData) -> np.ndarray:
    """DANK's decision values on the test points with F switched off at test time:
    the same trained dual vector and bias with the plain kernel (the score table's
    :func:`.ablation.off_decision`)."""
    return ablation.off_decision(res.estimator, data.X_test)


def nearest_neighbour_labels(data: LabData) -> np.ndarray:
    """A 1-nearest-neighbour classifier's test labels (the score table's rule)."""
    return ablation.nearest_labels(data.X_train, data.y_train, data.X_test)


def dank_gain(params: Mapping[str, Any]) -> dict[str, float]:
    """Where DANK's test score comes from at ``params``: DANK, DANK with F switched off
    at test time, DANK with the smooth rule (a test point takes an average of all rows of
    F; ``smooth``, and its agreement with 1-NN ``smooth_nn``), the plain SVM with the
    same σ and C, 1-NN, DANK's agreement with 1-NN and with the SVM on the test points,
    F's largest distance from all-ones, and DANK's difference from the plain SVM in
    points with its 95 % interval over the test points (``diff``, ``lo``, ``hi``). The
    scores and the interval are the Classification page's score table's
    (:func:`.ablation.ablation`, on the same fits): a lesson and the page its "Try it
    yourself" opens say the same."""
    data, dank = lesson_fit({**params, "method": "dank"}, "dank")
    _, svm = lesson_fit({**params, "method": "svm"}, "svm")
    y = data.y_test
    pred = dank.estimator.predict(data.X_test)
    svm_pred = svm.estimator.predict(data.X_test)
    table = ablation.ablation("dank", dank.estimator, data.X_train, data.y_train,
                              data.X_test, y, plain=svm.estimator)
    vs = table.vs_plain("method")
    nn = nearest_neighbour_labels(data)
    smooth = ablation.smooth_predict(dank.estimator, data.X_test)
    return {"dank": table.score("method"), "svm": table.score("plain"),
            "smooth": float(np.mean(smooth == y)), "smooth_nn": float(np.mean(smooth == nn)),
            "f_off": table.score("off"), "nn": table.score("nn"),
            "agree_nn": table.follows_nn, "agree_svm": float(np.mean(pred == svm_pred)),
            "f_dev": float(np.max(np.abs(dank.matrix - 1.0))), "m": float(len(y)),
            "diff": vs.mean, "lo": vs.lo, "hi": vs.hi}


def interval_words(g: Mapping[str, float], name: str = "DANK") -> str:
    """" The difference, +11.7 points, has a 95 % interval of −0.1 to +23.4 …": a
    method's difference from the plain SVM as the Classification page's score table
    gives it, and whether this one draw's test points can tell the two apart. "" when
    ``g`` has no interval."""
    if "lo" not in g or not np.isfinite(g["lo"]):
        return ""
    def pts(v: float) -> str:
        return f"{v:+.1f}".replace("-", "−")
    side = ("so on this draw's test points it is clearly ahead" if g["lo"] > 0 else
            "so on this draw's test points it is clearly behind" if g["hi"] < 0 else
            "so this draw's test points alone cannot tell the two apart")
    return (f" {name} minus the plain SVM: {pts(g['diff'])} points, 95 % interval "
            f"{pts(g['lo'])} to {pts(g['hi'])} (as in the Classification page's score "
            f"table), {side}.")
