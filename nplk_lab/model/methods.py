"""The method registry, estimator construction and the fit runner (never raises)."""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import budget
from .data import subsample_indices
from .method_spec import MethodSpec
from .results import LabResult, PairwiseResult
from .settings_table import (
    CLASSIFICATION,
    CLUSTERING,
    REGRESSION,
    Message,
    _msg,
    defaults,
    settings,
)

# ---------------------------------------------------------------------------
# the method registry
# ---------------------------------------------------------------------------

#: iterations of each LAB RBF stage before the one at the support count, on the
#: Classification page: about half the CPU of running them to the tolerance, the same
#: held-out accuracy on five classification data sets the cap was not chosen on
#: (docs/lab-rbf-stage-iterations.md). The Regression page keeps every stage to its
#: tolerance: the atlas's cells and the LAB RBF lesson are measured on its fit, and its
#: time goes into the four-fit comparison, not the fit
LAB_RBF_STAGE_ITER = 50


_SV = ("surface",)
METHODS: dict[str, MethodSpec] = {m.name: m for m in (
    MethodSpec("dank", "DANK", CLASSIFICATION, "nplk_core.dank:DANKClassifier",
               ("C", "sigma", "tau", "eta", "solver", "max_iter"),
               _SV + ("matrix", "spectra", "convergence"), "F_",
               "Learns a matrix F that reweights the Gaussian kernel entry by entry (F is "
               "positive semidefinite: no negative eigenvalues) "
               "(“Learning Data-adaptive Non-parametric Kernels”). F is learned on the "
               "training points; a test point borrows the row of F of its (reciprocal) "
               "nearest training point."),
    MethodSpec("knpl", "KNPL", CLASSIFICATION, "nplk_core.knpl:KNPLClassifier",
               ("C", "sigma", "gamma", "knpl_solver", "admm_rho", "n_outer"),
               _SV + ("matrix", "spectra", "convergence"), "G_",
               "Nonlinear pairwise layer: learns a matrix G that multiplies the Gaussian "
               "kernel entry by entry (G has no negative eigenvalues and its rows sum to "
               "n), solved as a min-max problem (“Nonlinear Pairwise Layer and Its "
               "Training for Kernel Learning”). A test point borrows the row of G of its "
               "nearest training point."),
    MethodSpec("onk", "ONK", CLASSIFICATION, "nplk_core.onk:ONKClassifier",
               ("C", "sigma", "onk_rho", "onk_solver"),
               _SV + ("matrix", "spectra", "convergence"), "G_",
               "Optimal neighbourhood kernel: the best kernel within ρ of K (Learning the "
               "Optimal Neighborhood Kernel)."),
    MethodSpec("lab_rbf", "LAB RBF", CLASSIFICATION, "nplk_core.lab_rbf:LABRBFClassifier",
               ("n_support", "lam"), _SV + ("bandwidth", "convergence"), None,
               "A bandwidth vector per support point, learned by gradient (Asymmetric "
               "Locally-Adaptive Kernels).", fixed=(("stage_max_iter", LAB_RBF_STAGE_ITER),)),
    MethodSpec("svm", "SVM", CLASSIFICATION, "sklearn.svm:SVC", ("C", "sigma"),
               _SV + ("matrix", "spectra"), None, "Plain SVC with the Gaussian kernel."),
    MethodSpec("svm_cv", "SVM-CV", CLASSIFICATION, "nplk_core.baselines:SVMCVClassifier", (),
               _SV, None, "SVC with σ and C chosen by 5-fold CV on 2^−5…2^5."),
    MethodSpec("mkl_uniform", "MKL-uniform", CLASSIFICATION,
               "nplk_core.baselines:MKLUniformClassifier", (), _SV, None,
               "SVC on the average of 11 Gaussian kernels, σ = 2^−5…2^5."),
    MethodSpec("dank_svr", "DANK-SVR", REGRESSION, "nplk_core.dank:DANKRegressor",
               ("C", "epsilon", "sigma", "tau", "eta", "solver", "max_iter"),
               ("curve", "matrix", "spectra", "convergence"), "F_",
               "DANK for regression: an ε-SVR whose kernel is reweighted entry by entry by a "
               "learned matrix F (“Learning Data-adaptive Non-parametric Kernels”); a test "
               "point borrows the row of F of its nearest training point."),
    MethodSpec("lab_rbf_reg", "LAB RBF", REGRESSION, "nplk_core.lab_rbf:LABRBFRegressor",
               ("n_support", "lam"), ("curve", "bandwidth", "convergence"), None,
               "Locally adaptive bandwidths per support point (Asymmetric Locally-Adaptive "
               "Kernels)."),
    MethodSpec("svr", "SVR", REGRESSION, "sklearn.svm:SVR", ("C", "epsilon", "sigma"),
               ("curve", "matrix", "spectra"), None, "Plain ε-SVR with the Gaussian kernel."),
    MethodSpec("svr_cv", "SVR-CV", REGRESSION, "nplk_core.baselines:SVRCVRegressor",
               ("epsilon",), ("curve",), None, "SVR with σ and C chosen by 5-fold CV."),
    MethodSpec("krr", "Kernel ridge", REGRESSION, "nplk_core.baselines:KernelRidgeBaseline",
               ("sigma", "lam"), ("curve",), None,
               "Kernel ridge regression (λ: the ridge penalty).",
               rename=(("lam", "alpha"),)),
    MethodSpec("simple_npkl", "SimpleNPKL", CLUSTERING, "nplk_core.simple_npkl:SimpleNPKL",
               ("npkl_loss", "npkl_C", "B", "p", "n_neighbors", "constraint_fraction",
                "active_selection", "n_clusters_npkl"),
               ("constraints", "embedding", "spectra", "convergence"), "kernel_",
               "A kernel from must-link / cannot-link pairs and a k-NN graph (Simple "
               "Non-Parametric Kernel Learning)."),
)}


def available(method: str) -> tuple[bool, str]:
    """Whether ``method``'s estimator can be imported now, and why not."""
    spec = METHODS.get(method)
    if spec is None:
        return False, f"Unknown method “{method}”."
    try:
        spec.load()
    except (ImportError, AttributeError):
        return False, f"{spec.label} is not available yet (its solver has not landed)."
    return True, ""


def methods_for(task: str) -> list[str]:
    return [m for m, s in METHODS.items() if s.task == task]


def _estimator_kwargs(spec: MethodSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    table = settings()
    kw: dict[str, Any] = {}
    rename = dict(spec.rename)
    for name in spec.params:
        kw[rename.get(name, table[name].estimator_param)] = params.get(name,
                                                                     table[name].default)
    kw.update(dict(spec.fixed))
    if kw.get("active_selection") == 0:
        kw["active_selection"] = None  # 0 in the UI = every constraint
    if spec.target.startswith("sklearn.svm:"):
        from nplk_core.kernels import sigma_to_gamma
        kw["gamma"] = sigma_to_gamma(kw.pop("sigma"))
    return kw


def make_estimator(method: str, params: Mapping[str, Any], *,
                   callback: Callable | None = None, random_state: int | None = None
                   ) -> tuple[Any, list[Message]]:
    """Build ``method``'s estimator from lab ``params``.

    Parameters the estimator does not accept are dropped with a message (so the lab
    keeps working if a solver's signature drifts). Raises ImportError if the solver
    is not available.
    """
    spec = METHODS[method]
    cls = spec.load()
    kw = _estimator_kwargs(spec, params)
    accepted = set(cls().get_params())
    messages = [_msg("info", f"{spec.label} does not take “{k}”; ignored.")
                for k in kw if k not in accepted]
    kw = {k: v for k, v in kw.items() if k in accepted}
    if callback is not None and "callback" in accepted:
        kw["callback"] = callback
    if "random_state" in accepted and "random_state" not in kw:
        kw["random_state"] = params.get("seed", 0) if random_state is None else random_state
    return cls(**kw), messages


def method_params(method: str) -> tuple[str, ...]:
    """Lab settings that apply to ``method``."""
    return METHODS[method].params


def can_warm_start(old: Mapping[str, Any], new: Mapping[str, Any], method: str) -> bool:
    """True when only continuous parameters of ``method`` changed (TF Playground rule),
    except the kernel width: a new sigma is a new kernel, and the previous alpha is then a
    worse start than the plain SVM's (measured: DANK at n=200 needed 52-73 warm-started
    iterations against 40-46 from the SVM start)."""
    table = settings()
    changed = [n for n in METHODS[method].params if old.get(n) != new.get(n)]
    if any(table[n].estimator_param == "sigma" for n in changed):
        return False
    return bool(changed) and all(table[n].continuous for n in changed)


def relative_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    r"""Relative squared error :math:`\sum(\hat g - y)^2 / \sum(y - \bar y)^2` (the DANK
    paper's §6.3)."""
    y_true = np.asarray(y_true, dtype=float)
    if y_true.size == 0:
        return float("nan")
    den = float(np.sum((y_true - y_true.mean()) ** 2))
    num = float(np.sum((np.asarray(y_pred, dtype=float) - y_true) ** 2))
    return num / den if den > 0 else float("nan")


def score(estimator: Any, X: np.ndarray, y: np.ndarray, task: str) -> float:
    if len(y) == 0:
        return float("nan")
    pred = np.asarray(estimator.predict(X), dtype=float)
    if task == CLASSIFICATION:
        return float(np.mean(pred == y))
    return relative_error(y, pred)


def _support_points(est: Any, X_train: np.ndarray) -> np.ndarray | None:
    sv = getattr(est, "support_vectors_", None)
    if sv is not None and np.ndim(sv) == 2:
        return np.asarray(sv, dtype=float)
    idx = getattr(est, "support_", None)
    if idx is not None:
        idx = np.asarray(idx)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        if idx.size and idx.max() < len(X_train):
            return X_train[idx]
        return X_train[:0]
    return None


def fit_method(params: Mapping[str, Any], X_train: np.ndarray, y_train: np.ndarray,
               X_test: np.ndarray, y_test: np.ndarray, *, method: str | None = None,
               warm_from: LabResult | None = None, callback: Callable | None = None,
               data_key: str = "") -> LabResult:
    """Fit ``method`` (default ``params["method"]``) and collect what the views need.

    Never raises for bad data or solver trouble: errors, ConvergenceWarning and
    non-finite outputs become :class:`Message` entries, and ``estimator`` stays None
    when nothing usable came out. ``warm_from`` (a previous result of the same
    method on the same data) warm-starts estimators that support ``warm_start``.
    """
    method = method or params.get("method", "dank")
    spec = METHODS.get(method)
    p = {**defaults(), **params}
    task = spec.task if spec else CLASSIFICATION
    res = LabResult(method=method, task=task, params=dict(p), spec=spec,
                    metric="accuracy" if task == CLASSIFICATION else "relative error",
                    data_key=data_key)
    if spec is None:
        res.messages.append(_msg("error", f"Unknown method “{method}”."))
        return res
    ok, why = available(method)
    if not ok:
        res.messages.append(_msg("info", why))
        return res
    X_train = np.asarray(X_train, dtype=float)
    y_train = np.asarray(y_train, dtype=float)
    X_test = np.asarray(X_test, dtype=float)
    y_test = np.asarray(y_test, dtype=float)
    if task == CLASSIFICATION:
        classes, counts = np.unique(y_train, return_counts=True)
        if classes.size < 2:
            res.messages.append(_msg(
                "error", "The training data have only one class; add points of the other "
                         "class or pick another dataset."))
            return res
        if counts.min() < 2 and method in ("svm_cv", "mkl_uniform"):
            res.messages.append(_msg("error", "Cross-validation needs at least 2 points of "
                                              "each class (better: 5)."))
            return res
    if len(y_train) < 3:
        res.messages.append(_msg("error", "Too few training points: add more."))
        return res
    verdict = budget.fit_verdict(method, len(y_train), X_train.shape[1], p, label=spec.label)
    res.verdict = verdict
    if not verdict.ok:
        keep = subsample_indices(y_train, verdict.n_max, task=task, seed=int(p["seed"]))
        X_train, y_train = X_train[keep], y_train[keep]
        res.messages.append(_msg("warning", verdict.message.split(", so it was")[0]
            + f", so it was fitted on a random subsample of {keep.size:,} of the training "
            + "points (seed " + str(int(p["seed"]))
            + (", classes in proportion)" if task == CLASSIFICATION else ")")
            + f", the size that stays live. Up to {verdict.n_fit:,} points can run when "
            + "you lower the sample size or upload fewer rows."
            + (f" {budget.scalable_route(method)}." if budget.scalable_route(method) else "")))
    elif verdict.level == "patient":
        res.messages.append(_msg("info", verdict.message))
    try:
        est, msgs = make_estimator(method, p, callback=callback)
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        res.messages.append(_msg("error", f"Could not build {spec.label}: {exc}"))
        return res
    res.messages.extend(msgs)
    if warm_from is not None and warm_from.ok and warm_from.method == method and \
            "warm_start" in est.get_params() and \
            getattr(warm_from.estimator, "n_features_in_", None) == X_train.shape[1] and \
            (not data_key or warm_from.data_key == data_key):
        warm = copy.deepcopy(warm_from.estimator)
        warm.set_params(**{k: v for k, v in est.get_params().items() if k != "warm_start"},
                        warm_start=True)
        est = warm
        res.warm_started = True
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught, \
                np.errstate(all="ignore"):
            warnings.simplefilter("always")
            est.fit(X_train, y_train)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, RuntimeError, TypeError,
            IndexError, KeyError) as exc:
        text = str(exc).strip().split("\n")[0][:300] or type(exc).__name__
        res.messages.append(_msg("error", f"{spec.label} failed: {text}"))
        return res
    res.fit_time = time.perf_counter() - t0
    res.messages.extend(_warning_messages(caught, spec.label))
    res.estimator = est
    try:
        res.train_score = score(est, X_train, y_train, task)
        res.test_score = score(est, X_test, y_test, task)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
        res.messages.append(_msg("error", f"{spec.label} could not predict: {exc}"))
        res.estimator = None
        return res
    if not np.isfinite(res.train_score):
        res.messages.append(_msg("error", f"{spec.label} produced non-finite predictions; "
                                          "try a larger σ or η, or a smaller C."))
        res.estimator = None
        return res
    res.n_iter = _as_int(getattr(est, "n_iter_", None))
    conv = getattr(est, "converged_", None)
    res.converged = None if conv is None else bool(conv)
    res.history = {k: np.asarray(v, dtype=float) for k, v in
                   (getattr(est, "history_", None) or {}).items()
                   if np.ndim(v) == 1}
    if spec.matrix is not None and getattr(est, spec.matrix, None) is not None:
        res.matrix = np.asarray(getattr(est, spec.matrix), dtype=float)
        res.matrix_name = spec.matrix.rstrip("_")
    res.X_train = X_train
    res.y_train = y_train
    res.support_points = _support_points(est, X_train)
    return res


def _as_int(v: Any) -> int | None:
    try:
        return None if v is None else int(np.max(v))
    except (TypeError, ValueError):
        return None


def _warning_messages(caught: list, label: str) -> list[Message]:
    from sklearn.exceptions import ConvergenceWarning
    out, seen = [], set()
    for w in caught:
        text = str(w.message).strip().split("\n")[0][:300]
        if text in seen:
            continue
        seen.add(text)
        if issubclass(w.category, ConvergenceWarning):
            out.append(_msg("warning", f"{label} did not converge: {text}"))
        elif issubclass(w.category, (RuntimeWarning, UserWarning)):
            out.append(_msg("warning", f"{label}: {text}"))
    return out


def fit_pairwise(params: Mapping[str, Any], X: np.ndarray, y: np.ndarray, *,
                 callback: Callable | None = None) -> PairwiseResult:
    """SimpleNPKL with constraints drawn from ``y``; Rand index of its clusters and of
    plain k-means (same number of clusters) against ``y``. Never raises."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import rand_score
    res = PairwiseResult()
    ok, why = available("simple_npkl")
    if not ok:
        res.messages.append(_msg("info", why))
        return res
    p = {**defaults(), **params}
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if np.unique(y).size < 2:
        res.messages.append(_msg("error", "The data have only one class, so no cannot-link "
                                          "pairs can be drawn; pick other data."))
        return res
    try:
        est, msgs = make_estimator("simple_npkl", p, callback=callback)
    except (ImportError, TypeError, ValueError) as exc:
        res.messages.append(_msg("error", f"Could not build SimpleNPKL: {exc}"))
        return res
    res.messages.extend(msgs)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            est.fit(X, y)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, RuntimeError, TypeError,
            IndexError) as exc:
        text = str(exc).strip().split("\n")[0][:300] or type(exc).__name__
        res.messages.append(_msg("error", f"SimpleNPKL failed: {text}"))
        return res
    res.fit_time = time.perf_counter() - t0
    res.messages.extend(_warning_messages(caught, "SimpleNPKL"))
    if not np.all(np.isfinite(est.kernel_)):
        res.messages.append(_msg("error", "SimpleNPKL produced a non-finite kernel; try a "
                                          "smaller C or a larger B."))
        return res
    res.estimator = est
    res.rand = float(rand_score(y, est.labels_))
    km = KMeans(n_clusters=int(p["n_clusters_npkl"]), n_init=10,
                random_state=int(p["seed"])).fit(X)
    res.kmeans_labels = km.labels_
    res.rand_kmeans = float(rand_score(y, km.labels_))
    return res


# ---------------------------------------------------------------------------
# the plain model drawn beside the fit, and its score
# ---------------------------------------------------------------------------

# methods that are themselves the plain model: nothing to compare with
_PLAIN = {CLASSIFICATION: "svm", REGRESSION: "svr"}


@dataclass(frozen=True)
class BaselineScore:
    """The plain SVM's (or SVR's) scores on the same split as the method's: ``train`` and
    ``test`` in the page's metric (accuracy, or relative error), ``name`` as drawn."""

    name: str
    metric: str
    train: float
    test: float
    estimator: Any = None

    @property
    def test_r2(self) -> float:
        """R² on the test points (1 − relative error; regression only)."""
        return 1.0 - self.test if self.metric == "relative error" else float("nan")


def baseline_name(task: str, params: Mapping[str, Any]) -> str:
    """How the plain model is named in legends: "plain SVM (σ = 10, C = 10)"."""
    what = "SVM" if task == CLASSIFICATION else "SVR"
    extra = f", ε = {float(params['epsilon']):g}" if task == REGRESSION else ""
    return (f"plain {what} (σ = {float(params['sigma']):g}, C = {float(params['C']):g}"
            f"{extra})")


def baseline_scores(params: Mapping[str, Any], X_train: np.ndarray, y_train: np.ndarray,
                    X_test: np.ndarray, y_test: np.ndarray, *, task: str
                    ) -> BaselineScore | None:
    """The plain SVM / ε-SVR with the page's σ and C (and ε) fitted on the same training
    points and scored on the same test points as the method (None when it cannot be
    fitted, e.g. one class)."""
    from .grids import fit_baseline_svm, fit_baseline_svr
    p = {**defaults(), **dict(params)}
    if task == CLASSIFICATION:
        est = fit_baseline_svm(X_train, y_train, C=p["C"], sigma=p["sigma"])
    elif task == REGRESSION:
        est = fit_baseline_svr(X_train, y_train, C=p["C"], sigma=p["sigma"],
                               epsilon=p["epsilon"])
    else:
        return None
    if est is None:
        return None
    metric = "accuracy" if task == CLASSIFICATION else "relative error"
    return BaselineScore(baseline_name(task, p), metric, score(est, X_train, y_train, task),
                         score(est, X_test, y_test, task), est)


def plain_method(task: str) -> str | None:
    """The plain model of a task ("svm", "svr"), or None."""
    return _PLAIN.get(task)


def shows_baseline(method: str, params: Mapping[str, Any]) -> bool:
    """Whether the page draws the plain model beside ``method`` (its toggle is on and the
    method is not the plain model itself)."""
    spec = METHODS.get(method)
    return bool(params.get("show_baseline")) and spec is not None and \
        spec.task in _PLAIN and method != _PLAIN[spec.task]
