"""What a fit, a sweep, the pairwise view and the scaling study hand to a page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import budget
from .settings_table import Message, _msg, setting

if TYPE_CHECKING:
    from .method_spec import MethodSpec


# ---------------------------------------------------------------------------
# one fit
# ---------------------------------------------------------------------------

@dataclass
class LabResult:
    """Everything a page needs from one fit; ``estimator`` is None when it failed."""

    method: str
    task: str
    params: dict[str, Any]
    estimator: Any = None
    train_score: float = float("nan")
    test_score: float = float("nan")
    metric: str = "accuracy"
    fit_time: float = float("nan")
    matrix: np.ndarray | None = None
    matrix_name: str | None = None
    history: dict[str, np.ndarray] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    n_iter: int | None = None
    converged: bool | None = None
    support_points: np.ndarray | None = None
    warm_started: bool = False
    stopped: bool = False  # the user stopped the fit: nothing to show but the last result
    data_key: str = ""
    X_train: np.ndarray | None = field(default=None, repr=False)
    #: the labels the model was fitted on (a subsample's when the budget cut the data)
    y_train: np.ndarray | None = field(default=None, repr=False)
    spec: MethodSpec | None = field(default=None, repr=False)  # set by methods.fit_method
    verdict: budget.Verdict | None = field(default=None, repr=False)  # the work budget
    _lazy: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return self.estimator is not None

    # Spectra, the training kernel and the rank cost eigendecompositions that only the
    # matrix and spectra views need: computed on first use, then kept.
    def _views(self, what: str) -> Any:
        if what not in self._lazy:
            value = {} if what == "spectra" else None
            spec = getattr(self, "spec", None)  # None in a result pickled before it existed
            if self.ok and self.X_train is not None and spec is not None:
                from nplk_core._base import single_thread_blas

                try:
                    # small eigendecompositions: threaded OpenBLAS only adds
                    # synchronisation (tens of ms each on the 2-core machine)
                    with single_thread_blas():
                        value = self._compute_view(what, spec)
                except (ValueError, np.linalg.LinAlgError) as exc:
                    self.messages.append(_msg("warning", f"{what} unavailable: {exc}"))
            self._lazy[what] = value
        return self._lazy[what]

    def _compute_view(self, what: str, spec: MethodSpec) -> Any:
        if what == "kernel":
            return _kernel_of(self.estimator, spec, self.X_train, self.params)
        return _spectra_of(self.estimator, spec, self.kernel)

    @property
    def spectra(self) -> dict[str, np.ndarray]:
        """Descending eigenvalues of K, the learned matrix and their product."""
        return self._views("spectra")

    @property
    def kernel(self) -> np.ndarray | None:
        """The given (training) kernel K."""
        return self._views("kernel")

    @property
    def rank(self) -> int | None:
        """rank of the learned matrix (the estimator's ``rank_`` when it has one)."""
        if "rank" not in self._lazy:
            rank = getattr(self.estimator, "rank_", None)
            if rank is None and self.matrix is not None:
                from nplk_core.spectral import numerical_rank
                lam = self.spectra.get(self.matrix_name)
                rank = None if lam is None else numerical_rank(lam)
            self._lazy["rank"] = None if rank is None or np.ndim(rank) else int(rank)
        return self._lazy["rank"]

    def labels(self, y_data: np.ndarray) -> np.ndarray:
        """The labels of the rows the model (and its K, F, G) was fitted on: the
        subsample's when the work budget cut the data, else ``y_data``."""
        if self.y_train is not None:
            return self.y_train
        return y_data

    @property
    def errors(self) -> list[Message]:
        return [m for m in self.messages if m.level == "error"]


@dataclass
class SweepResult:
    """Metric, rank and fit time per swept value, over repeated seeds."""

    method: str
    param: str
    values: np.ndarray
    metric: str
    scores: np.ndarray      # (n_values, n_repeats) test metric
    train_scores: np.ndarray
    ranks: np.ndarray       # (n_values, n_repeats), NaN when the method has no rank
    times: np.ndarray       # (n_values, n_repeats) seconds
    messages: list[Message] = field(default_factory=list)

    @property
    def log(self) -> bool:
        return setting(self.param).log

# ---------------------------------------------------------------------------
# pairwise constraints (SimpleNPKL)
# ---------------------------------------------------------------------------


@dataclass
class PairwiseResult:
    """SimpleNPKL fitted on all points, with plain k-means for comparison."""

    estimator: Any = None
    rand: float = float("nan")
    rand_kmeans: float = float("nan")
    kmeans_labels: np.ndarray | None = None
    fit_time: float = float("nan")
    messages: list[Message] = field(default_factory=list)
    stopped: bool = False

    @property
    def ok(self) -> bool:
        return self.estimator is not None


# ---------------------------------------------------------------------------
# scaling (DANK §4)
# ---------------------------------------------------------------------------

@dataclass
class ScalingStudy:
    """Q(π), the Theorem 6 bound and the actual gap for v = 1 … max_v, and the
    partition, screening and solution for the chosen v."""

    vs: np.ndarray
    q: np.ndarray
    bound: np.ndarray
    gap: np.ndarray
    labels: np.ndarray
    centers: np.ndarray
    screened: np.ndarray
    support: np.ndarray
    eta: float
    messages: list[Message] = field(default_factory=list)
    #: the points the study ran on (a subsample when the work budget cut the data)
    X: np.ndarray | None = field(default=None, repr=False)
    y: np.ndarray | None = field(default=None, repr=False)


# ---------------------------------------------------------------------------
# the views a LabResult computes on first use
# ---------------------------------------------------------------------------

def _kernel_of(est: Any, spec: MethodSpec, X_train: np.ndarray, params: Mapping[str, Any]
               ) -> np.ndarray | None:
    """The training kernel K the method started from (None without a single σ)."""
    K = getattr(est, "K_", None)
    if K is not None:
        return np.asarray(K, dtype=float)
    if "sigma" not in spec.params:
        return None
    from nplk_core.kernels import gaussian_kernel
    return gaussian_kernel(X_train, sigma=float(params.get("sigma", 1.0)))


def _spectra_of(est: Any, spec: MethodSpec, K: np.ndarray | None) -> dict[str, np.ndarray]:
    """Descending spectra of K, the learned matrix and (KNPL, DANK) their product."""
    from nplk_core.spectral import spectrum
    if hasattr(est, "spectra"):
        return {k: np.asarray(v, dtype=float) for k, v in est.spectra().items()}
    if K is None:
        return {}
    out = {"K": spectrum(K)}
    M = getattr(est, spec.matrix, None) if spec.matrix is not None else None
    if M is not None and np.shape(M) == K.shape:
        G = np.asarray(M, dtype=float)
        name = spec.matrix.rstrip("_")
        out[name] = spectrum(G)
        if spec.name == "knpl":
            out[f"{name} × K"] = spectrum(G * K)
    return out
