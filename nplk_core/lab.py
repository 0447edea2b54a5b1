r"""The lab's state and plumbing: one declared table of every setting, URL and JSON
round trips, the method registry, and a fit that never raises.

This module is long because it is still the whole app model in one place: the settings
table, the URL and JSON codec, data preparation, the method registry and fit runner, and
the studies. Issue 12 moves it into a package of its own, split by job.

Pure Python/numpy (no Streamlit): the pages only draw widgets from :data:`SETTINGS`,
collect one ``params`` dict and call :func:`prepare_data` and :func:`fit_method`; what
comes back is a :class:`LabResult` that the figure builders in
:mod:`nplk_figures` turn into plots.

Modelled on TensorFlow Playground's ``state.ts``: every setting has a name (its URL
key), a type, a default, a range, a log-scale flag, the methods and pages it applies
to, and a label with the paper's symbol. :func:`encode_query` / :func:`decode_query`
turn a ``params`` dict into URL query values and back; bad values fall back to the
defaults with a message instead of an exception.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import json
import math
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from . import budget

PAGES = ("classification", "regression", "pairwise", "sensitivity", "scaling")
CLASSIFICATION, REGRESSION, CLUSTERING = "classification", "regression", "clustering"

#: Query keys written by Streamlit itself; silently ignored when decoding.
_FOREIGN_KEYS = frozenset({"embed", "embed_options"})

MAX_POINTS = 300  # user-added points kept in the state (and the URL)
MAX_COORD = 1e6  # |x| of a user-added point (a click lands on the plotted data)
MAX_CONFIG_BYTES = 64 * 1024  # a saved configuration is ~2 KB; 300 points ~12 KB
MAX_CONFIG_DEPTH = 8  # {"params": {"points": [[x1, x2, c], ...]}} is 4 deep
MAX_NOTES = 5  # per-entry notes about one link or configuration; the rest are counted
MIN_ROWS = 6  # data rows a CSV needs: 2+ per class for training plus a test point


# ---------------------------------------------------------------------------
# messages
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Message:
    """A short note for the page: ``level`` is "error", "warning" or "info"."""

    level: str
    text: str

    def __str__(self) -> str:
        return self.text


def _msg(level: str, text: str) -> Message:
    return Message(level, text)


def clip(text: Any, limit: int = 40) -> str:
    """User-supplied text (a URL key or value, a CSV header, a config key) cut to
    ``limit`` characters with "…", control characters and line breaks as spaces, so a
    message quoting it stays one short line. Plain text: the page escapes it."""
    t = "".join(" " if (ord(ch) < 32 or 127 <= ord(ch) < 160) else ch
                for ch in str(text)[:limit + 1])
    return t if len(t) <= limit else t[:limit - 1] + "…"


# ---------------------------------------------------------------------------
# the settings table
# ---------------------------------------------------------------------------

def log_options(lo: float, hi: float, mantissas: Sequence[float] = (1, 1.5, 2, 3, 5, 7)
                ) -> tuple[float, ...]:
    """Round values from ``lo`` to ``hi`` spaced evenly on a log scale (1-1.5-2-3-5-7)."""
    out = []
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in mantissas:
            v = float(f"{m * 10.0 ** e:.6g}")
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class Setting:
    """One user-facing setting.

    ``kind`` is one of ``"float"``, ``"int"``, ``"choice"``, ``"bool"``,
    ``"float_auto"`` (a float or the string ``"auto"``), ``"range"`` (a pair of
    floats) or ``"points"`` (user-added points, rows ``(x1, x2, label)``).
    ``methods`` lists the methods the setting applies to (``None``: not method
    specific); ``pages`` the pages that show it; ``param`` the estimator parameter it
    feeds (defaults to ``name``); ``continuous`` whether a change allows a warm start.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str = ""
    min: float | None = None
    max: float | None = None
    step: float | None = None
    log: bool = False
    options: tuple = ()
    option_labels: tuple[tuple[Any, str], ...] = ()
    methods: tuple[str, ...] | None = None
    pages: tuple[str, ...] = ()
    group: str = "method"
    param: str | None = None
    continuous: bool = False
    datasets: tuple[str, ...] | None = None
    when: tuple[tuple[str, Any], ...] = ()  # shown only while these settings have these values

    @property
    def estimator_param(self) -> str:
        return self.param or self.name

    def grid(self) -> tuple:
        """The discrete values a slider offers (log-spaced for log settings)."""
        if self.options:
            return self.options
        if self.kind in ("float", "float_auto", "range") and self.log:
            return log_options(self.min, self.max)
        if self.kind == "int" and self.log:
            vals = sorted({int(round(v)) for v in log_options(self.min, self.max)})
            return tuple(v for v in vals if self.min <= v <= self.max)
        return ()

    def format(self, value: Any) -> str:
        """Human-readable value for labels and option lists."""
        for opt, lab in self.option_labels:
            if opt == value:
                return lab
        if value == "auto":
            return "auto"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)

    def applies(self, method: str | None = None, page: str | None = None,
                dataset: str | None = None) -> bool:
        if page is not None and self.pages and page not in self.pages:
            return False
        if method is not None and self.methods is not None and method not in self.methods:
            return False
        if self.datasets is not None and dataset is not None and dataset not in self.datasets:
            return False
        return True


# method groups used in the table
_DANK = ("dank", "dank_svr")
_SVM_LIKE = ("dank", "knpl", "onk", "svm", "dank_svr", "svr")
_SIGMA = ("dank", "knpl", "onk", "svm", "dank_svr", "svr", "krr")
_LAB = ("lab_rbf", "lab_rbf_reg")

_C_PAGES = ("classification", "sensitivity", "scaling")
_R_PAGES = ("regression", "sensitivity")
_ALL_FIT_PAGES = ("classification", "regression", "sensitivity")

CLASSIFICATION_METHODS = ("dank", "knpl", "onk", "lab_rbf", "svm", "svm_cv", "mkl_uniform")
REGRESSION_METHODS = ("dank_svr", "lab_rbf_reg", "svr", "svr_cv", "krr")

CLASSIFICATION_DATASETS = ("clowns", "sandwich", "moons", "circles", "chessboard", "spiral",
                           "csv", "drawn")
REGRESSION_DATASETS = ("step", "harmonic", "chirp", "csv")

_STATIC_SETTINGS: tuple[Setting, ...] = (
    # ---- data -------------------------------------------------------------------------
    Setting("dataset", "choice", "clowns", "Dataset", group="data",
            options=CLASSIFICATION_DATASETS,
            option_labels=(("csv", "CSV upload"), ("drawn", "your points (click to add)")),
            pages=("classification", "pairwise", "sensitivity", "scaling"),
            help="Toy data from the papers' figures, your own CSV, or points you add by "
                 "clicking the plot."),
    Setting("reg_dataset", "choice", "step", "Dataset", group="data",
            options=REGRESSION_DATASETS, option_labels=(("csv", "CSV upload"),),
            pages=_R_PAGES, help="Regression data: step function, 2-D harmonic surface, "
                                 "chirp, or your own CSV."),
    Setting("n_samples", "int", 200, "Sample size n", group="data", min=20, max=1000,
            step=10, pages=PAGES, help="Number of points drawn (train + test)."),
    Setting("test_size", "float", 0.3, "Test fraction", group="data", min=0.1, max=0.7,
            step=0.05, pages=_ALL_FIT_PAGES,
            help="Share of the points held out for the test score."),
    Setting("seed", "int", 0, "Seed", group="data", min=0, max=9999, step=1, pages=PAGES,
            help="Random seed for the data draw and the train/test split."),
    Setting("standardize", "choice", "auto", "Standardise features", group="data",
            options=("auto", "on", "off"),
            option_labels=(("auto", "when scales differ by orders of magnitude"),
                           ("on", "always"), ("off", "never (raw units)")),
            pages=PAGES, datasets=("csv",),
            help="Rescale each CSV feature to mean 0 and standard deviation 1. The "
                 "Gaussian kernel's σ is one length for every feature, so features in raw "
                 "units of 10²–10⁴ make every kernel entry 0 or 1."),
    Setting("points", "points", (), "Added points", group="data",
            pages=("classification",),
            help="Points you added by clicking (x1, x2, class)."),
    # ---- method choice ------------------------------------------------------------------
    Setting("method", "choice", "dank", "Method", group="method",
            options=CLASSIFICATION_METHODS,
            option_labels=(("dank", "DANK"), ("knpl", "KNPL"), ("onk", "ONK"),
                           ("lab_rbf", "LAB RBF"), ("svm", "SVM"), ("svm_cv", "SVM-CV"),
                           ("mkl_uniform", "MKL-uniform")),
            pages=("classification",), help="The classifier to fit."),
    Setting("reg_method", "choice", "dank_svr", "Method", group="method",
            options=REGRESSION_METHODS,
            option_labels=(("dank_svr", "DANK-SVR"), ("lab_rbf_reg", "LAB RBF"),
                           ("svr", "SVR"), ("svr_cv", "SVR-CV"), ("krr", "Kernel ridge")),
            pages=("regression",), help="The regressor to fit."),
    # ---- method parameters ----------------------------------------------------------------
    Setting("solver", "choice", "auto", "Solver", methods=_DANK, pages=_ALL_FIT_PAGES,
            options=("auto", "nesterov", "nesterov-monotone", "pg", "apg"),
            option_labels=(("auto", "auto (fastest)"), ("nesterov", "Nesterov (Alg. 1)"),
                           ("nesterov-monotone", "Nesterov, monotone"),
                           ("pg", "projected gradient"), ("apg", "accelerated PG")),
            help="DANK's solver for the concave dual h(α); all reach the same optimum."),
    Setting("C", "float", 10.0, "C (box constraint)", min=0.01, max=1000.0, log=True,
            methods=("dank", "knpl", "onk", "svm", "dank_svr", "svr", "mkl_uniform"),
            pages=PAGES, continuous=True,
            help="Upper bound on the dual variables α: larger C fits the training data "
                 "harder."),
    Setting("sigma", "float", 8.0, "σ (Gaussian kernel width)", min=0.05, max=20.0, log=True,
            methods=_SIGMA, pages=PAGES, continuous=True,
            help="k(x, x′) = exp(−‖x − x′‖² / (2σ²)). Small σ: wiggly boundary; large σ: "
                 "nearly linear."),
    Setting("tau", "float", 0.01, "τ (nuclear-norm weight)", min=1e-4, max=10.0, log=True,
            methods=_DANK, pages=_ALL_FIT_PAGES, continuous=True,
            help="Weight of τη‖F‖*: larger τ gives a lower-rank F (DANK eq. 4)."),
    Setting("eta", "float_auto", "auto", "η (closeness of F to 11ᵀ)", min=1e-3, max=1e5,
            log=True, methods=_DANK, pages=_ALL_FIT_PAGES, continuous=True,
            help="Weight of η‖F − 11ᵀ‖²: large η keeps F near all-ones (plain SVM); "
                 "auto = ‖α_SVM‖² as in the paper."),
    Setting("max_iter", "int", 2000, "Max iterations", min=10, max=5000, log=False,
            options=(10, 20, 50, 100, 200, 500, 1000, 2000, 5000),
            methods=_DANK, pages=_ALL_FIT_PAGES,
            help="Iteration cap (the paper uses 2000)."),
    Setting("extension", "choice", "nearest", "Out-of-sample rule (drawn surface)",
            group="view", options=("nearest", "reciprocal"),
            option_labels=(("reciprocal", "reciprocal neighbours (DANK §2.3)"),
                           ("nearest", "nearest training point (KNPL eq. 23)")),
            methods=_DANK, pages=("classification", "regression"),
            help="How F is extended to the grid the surface is drawn on. The paper's "
                 "reciprocal rule depends on the whole set of new points (here: the 10,000 "
                 "grid points, so the picture depends on the grid, and it is slower); the "
                 "nearest-point rule does not. Test scores always use the paper's rule."),
    Setting("epsilon", "float", 0.1, "ε (tube width)", min=1e-3, max=2.0, log=True,
            methods=("dank_svr", "svr", "svr_cv"), pages=_R_PAGES, continuous=True,
            help="Errors smaller than ε cost nothing (ε-insensitive loss)."),
    Setting("gamma", "float_auto", "auto", "γ (KNPL regulariser)", min=1e-3, max=1e5,
            log=True, methods=("knpl",), pages=("classification", "sensitivity"),
            continuous=True,
            help="Weight of γ‖G‖²_F in KNPL: large γ keeps G near the all-ones matrix "
                 "(plain SVM). auto = 5·max αᵢ² of the plain SVM, which keeps G within the "
                 "paper's 0.95–1.05 (Fig. 2) while the boundary still moves."),
    Setting("knpl_solver", "choice", "apg", "KNPL solver", options=("apg", "alternating"),
            option_labels=(("apg", "saddle point (accelerated PG)"),
                           ("alternating", "alternating (Alg. 2, can cycle)")),
            methods=("knpl",), pages=("classification", "sensitivity"), param="solver",
            help="The saddle point of eq. (4) by accelerated projected gradient on the "
                 "concave h(α) (G in closed form), or the paper's Algorithm 2 (ADMM for G, "
                 "SMO for α), which can cycle."),
    Setting("admm_rho", "float", 1.1, "ρ (ADMM penalty growth)", min=1.01, max=3.0,
            step=0.01, methods=("knpl",), pages=("classification", "sensitivity"),
            param="rho", when=(("knpl_solver", "alternating"),),
            help="β ← min(ρβ, 1e8) after every ADMM step (KNPL Alg. 1; used by the "
                 "alternating solver only). Not ONK's ρ."),
    Setting("n_outer", "int", 10, "Outer rounds T", min=1, max=30, step=1,
            methods=("knpl",), pages=("classification", "sensitivity"),
            when=(("knpl_solver", "alternating"),),
            help="Rounds of 'G by ADMM, then α by SMO' (KNPL Alg. 2, the alternating "
                 "solver)."),
    Setting("onk_rho", "float", 100.0, "ρ (neighbourhood radius)", min=1e-3, max=1e4,
            log=True, methods=("onk",), pages=("classification", "sensitivity"),
            param="rho", continuous=True,
            help="How far the learned kernel G may move from K: ρ → ∞ gives the plain SVM."),
    Setting("onk_solver", "choice", "cgd", "ONK solver", options=("cgd", "level"),
            option_labels=(("cgd", "constrained gradient descent"),
                           ("level", "level method")),
            methods=("onk",), pages=("classification", "sensitivity"), param="solver",
            help="Constrained gradient descent (ONK Alg. 2) or the level method (Alg. 1)."),
    Setting("n_support", "int", 30, "Support count N", min=2, max=200, step=1,
            methods=_LAB, pages=_ALL_FIT_PAGES,
            help="Number of support points whose bandwidths LAB RBF learns."),
    Setting("lam", "float", 1e-3, "λ (ridge)", min=1e-6, max=10.0, log=True,
            methods=("lab_rbf", "lab_rbf_reg", "krr"), pages=_ALL_FIT_PAGES, continuous=True,
            help="Ridge regularisation of the kernel solve."),
    # ---- views --------------------------------------------------------------------------
    Setting("show_baseline", "bool", True, "Show the plain SVM / SVR", group="view",
            pages=("classification", "regression"),
            help="Dotted: the plain SVM's boundary (or the plain SVR's curve) with the same "
                 "σ and C."),
    Setting("compare_solvers", "bool", False, "Overlay all solvers", group="view",
            methods=_DANK + ("onk",), pages=("classification", "regression"),
            help="Fit with every solver and overlay their convergence: DANK's Nesterov vs "
                 "projected gradient (seed 000 Fig. 4), ONK's CGD vs level method."),
    Setting("view", "choice", "matrix", "View", group="view",
            options=("matrix", "spectra", "convergence", "bandwidth"),
            option_labels=(("matrix", "Learned matrix"), ("spectra", "Eigen-decay"),
                           ("convergence", "Convergence"), ("bandwidth", "Bandwidths")),
            pages=("classification",), help="What the right-hand figure shows."),
    Setting("reg_view", "choice", "bandwidth", "View", group="view",
            options=("bandwidth", "matrix", "spectra", "convergence"),
            option_labels=(("bandwidth", "Bandwidths"), ("matrix", "Learned matrix"),
                           ("spectra", "Eigen-decay"), ("convergence", "Convergence")),
            pages=("regression",), help="What the second figure shows."),
    # ---- pairwise constraints (SimpleNPKL) -----------------------------------------------
    Setting("npkl_loss", "choice", "linear", "Loss", options=("linear", "square_hinge",
                                                              "hinge", "square"),
            option_labels=(("linear", "linear (closed form)"), ("square_hinge",
                                                                 "square hinge"),
                           ("hinge", "hinge"), ("square", "square")),
            methods=("simple_npkl",), pages=("pairwise",), group="method", param="loss",
            help="Loss on the pairwise constraints (SimpleNPKL §4–5)."),
    Setting("npkl_C", "float", 0.1, "C (constraint weight)", min=1e-3, max=1e3, log=True,
            methods=("simple_npkl",), pages=("pairwise",), group="method", param="C",
            continuous=True,
            help="Weight of the constraint loss against the Laplacian smoothness tr(LK). "
                 "Near C = 1 each constrained pair becomes its own eigenvector and k-means "
                 "splits it off; 0.1-0.3 clusters best on the toy data."),
    Setting("B", "float", 1.0, "B (capacity)", min=0.01, max=1e4, log=True,
            methods=("simple_npkl",), pages=("pairwise",), group="method", continuous=True,
            help="tr(K^p) ≤ B bounds the learned kernel's size (the seed uses 1 on small "
                 "data)."),
    Setting("p", "float", 2.0, "p (capacity power)", min=1.1, max=5.0, step=0.1,
            methods=("simple_npkl",), pages=("pairwise",), group="method", continuous=True,
            help="The power p > 1 of the capacity term; p = 2 gives K* ∝ A₊."),
    Setting("n_neighbors", "int", 5, "k (graph neighbours)", min=2, max=20, step=1,
            methods=("simple_npkl",), pages=("pairwise",), group="method",
            help="Neighbours in the mutual k-NN graph of the Laplacian L (seed: 5)."),
    Setting("constraint_fraction", "float", 0.1, "Constraint fraction", min=0.01, max=1.0,
            step=0.01, methods=("simple_npkl",), pages=("pairwise",), group="method",
            help="Random pairs are drawn from the labels until the must-link graph has "
                 "(1 − fraction)·n components (the seed uses 0.3)."),
    Setting("active_selection", "int", 0, "Active selection (points)", min=0, max=200,
            step=5, methods=("simple_npkl",), pages=("pairwise",), group="method",
            help="Keep only the constraints touching this many least-certain points (§5.3); "
                 "0 = use every constraint."),
    Setting("n_clusters_npkl", "int", 2, "Clusters", min=2, max=8, step=1,
            methods=("simple_npkl",), pages=("pairwise",), group="method",
            param="n_clusters",
            help="Number of clusters for kernel k-means on the learned kernel."),
    Setting("pair_view", "choice", "embedding", "View", group="view",
            options=("embedding", "spectra", "convergence"),
            option_labels=(("embedding", "2-D embedding"), ("spectra", "Spectrum"),
                           ("convergence", "Objective")),
            pages=("pairwise",), help="What the second figure shows."),
    # ---- sensitivity ---------------------------------------------------------------------
    Setting("sweep_method", "choice", "dank", "Method", group="sweep",
            options=CLASSIFICATION_METHODS + REGRESSION_METHODS,
            option_labels=(("dank", "DANK"), ("knpl", "KNPL"), ("onk", "ONK"),
                           ("lab_rbf", "LAB RBF"), ("svm", "SVM"), ("svm_cv", "SVM-CV"),
                           ("mkl_uniform", "MKL-uniform"), ("dank_svr", "DANK-SVR"),
                           ("lab_rbf_reg", "LAB RBF (regression)"), ("svr", "SVR"),
                           ("svr_cv", "SVR-CV"), ("krr", "Kernel ridge")),
            pages=("sensitivity",), help="The method whose parameter is swept."),
    Setting("sweep_param", "choice", "tau", "Swept parameter", group="sweep",
            options=("tau", "eta", "onk_rho", "C", "sigma", "n_support", "lam", "epsilon",
                     "gamma"),
            pages=("sensitivity",), help="The parameter to vary; the others stay fixed."),
    Setting("sweep_range", "range", (), "Range", group="sweep", pages=("sensitivity",),
            help="Smallest and largest swept value (empty: the parameter's full range)."),
    Setting("sweep_points", "int", 7, "Points", min=3, max=15, step=1, group="sweep",
            pages=("sensitivity",), help="Number of values in the sweep."),
    Setting("sweep_repeats", "int", 3, "Repeats (seeds)", min=1, max=10, step=1,
            group="sweep", pages=("sensitivity",),
            help="Each value is fitted on this many seeds; the plot shows mean ± std."),
    # ---- scaling ---------------------------------------------------------------------------
    Setting("scale_clusters", "int", 4, "Clusters v", min=1, max=16, step=1, group="scaling",
            pages=("scaling",),
            help="Number of k-means clusters for the decomposition (seed 000 §4)."),
    Setting("scale_max_clusters", "int", 10, "Largest v in the sweep", min=2, max=20,
            step=1, group="scaling", pages=("scaling",),
            help="Q(π) and the Theorem 6 bound are drawn for v = 1 … this value."),
    Setting("scale_max_n", "choice", 800, "Largest n for timing",
            options=(200, 400, 800, 1600, 3200), group="scaling", pages=("scaling",),
            help="Fit time is measured for n = 100, 200, … up to this value."),
)


@lru_cache(maxsize=1)
def _dataset_settings() -> tuple[Setting, ...]:
    """Settings generated from the dataset registry (one per dataset parameter)."""
    try:
        datasets = importlib.import_module("nplk_core.datasets")
        registry = datasets.DATASETS
    except (ImportError, AttributeError):
        return ()
    out = []
    for name, spec in registry.items():
        for pname, ps in getattr(spec, "params", {}).items():
            default = getattr(ps, "default", None)
            kind = "int" if isinstance(default, (int, np.integer)) and \
                not isinstance(default, bool) else "float"
            pages = ("regression", "sensitivity") if getattr(spec, "task", "") == REGRESSION \
                else ("classification", "pairwise", "sensitivity", "scaling")
            out.append(Setting(
                f"{name}_{pname}", kind, default,
                getattr(ps, "label", None) or (pname if len(pname) <= 2 else
                                               pname.replace("_", " ").capitalize()),
                help=getattr(ps, "help", "") or "", min=getattr(ps, "min", None),
                max=getattr(ps, "max", None), step=getattr(ps, "step", None),
                log=bool(getattr(ps, "log", False)), group="data", pages=pages,
                param=pname, datasets=(name,)))
    return tuple(out)


def settings() -> dict[str, Setting]:
    """Every setting by name: the static table plus one per dataset parameter."""
    table = {s.name: s for s in _STATIC_SETTINGS}
    for s in _dataset_settings():
        table.setdefault(s.name, s)
    return table


def setting(name: str) -> Setting:
    return settings()[name]


def defaults() -> dict[str, Any]:
    """The default value of every setting."""
    return {name: s.default for name, s in settings().items()}


# ---------------------------------------------------------------------------
# value validation and (de)serialisation
# ---------------------------------------------------------------------------

def _finite_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("not a number")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError("not finite")
    return v


def _in_range(s: Setting, v: float) -> None:
    if s.min is not None and v < s.min - 1e-12 * max(1.0, abs(s.min)):
        raise ValueError(f"below the minimum {s.min:g}")
    if s.max is not None and v > s.max + 1e-12 * max(1.0, abs(s.max)):
        raise ValueError(f"above the maximum {s.max:g}")


def coerce(name: str, value: Any) -> Any:
    """Return ``value`` converted to the setting's type; raise ValueError if invalid.

    Accepts the native type or the URL string form.
    """
    s = setting(name)
    kind = s.kind
    if kind == "float":
        v = _finite_float(value)
        _in_range(s, v)
        return v
    if kind == "float_auto":
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        v = _finite_float(value)
        _in_range(s, v)
        return v
    if kind == "int":
        if isinstance(value, bool):
            raise ValueError("not an integer")
        v = float(value)
        if not math.isfinite(v) or v != int(v):
            raise ValueError("not an integer")
        v = int(v)
        _in_range(s, v)
        return v
    if kind == "bool":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError("not a yes/no value")
    if kind == "choice":
        for opt in s.options:
            if value == opt or str(value) == str(opt):
                return opt
        raise ValueError(f"not one of {', '.join(map(str, s.options))}")
    if kind == "range":
        if value is None or value == "" or (isinstance(value, Sequence) and len(value) == 0):
            return ()
        parts = value.split("~") if isinstance(value, str) else list(value)
        if len(parts) != 2:
            raise ValueError("a range needs two values 'lo~hi'")
        lo, hi = (_finite_float(p) for p in parts)
        if not lo < hi:
            raise ValueError("the range needs lo < hi")
        return (lo, hi)
    if kind == "points":
        return _coerce_points(value)
    raise ValueError(f"unknown setting kind {kind!r}")


def _coerce_points(value: Any) -> tuple[tuple[float, float, int], ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        rows = [r.split(",") for r in value.split(";") if r.strip()]
    else:
        rows = [list(r) for r in value]
    out = []
    for r in rows:
        if len(r) != 3:
            raise ValueError("each point needs x1, x2 and a class")
        x1, x2 = _finite_float(r[0]), _finite_float(r[1])
        if max(abs(x1), abs(x2)) > MAX_COORD:
            raise ValueError(f"a point's coordinates must lie within ±{MAX_COORD:g}")
        lab = int(float(r[2]))
        if lab not in (-1, 1):
            raise ValueError("a point's class must be -1 or +1")
        out.append((x1, x2, lab))
    if len(out) > MAX_POINTS:
        raise ValueError(f"more than {MAX_POINTS} points")
    return tuple(out)


def to_text(name: str, value: Any) -> str:
    """The URL form of a value (exact: floats use their shortest round-trip repr)."""
    kind = setting(name).kind
    if kind == "bool":
        return "1" if value else "0"
    if kind in ("float", "float_auto"):
        return "auto" if value == "auto" else repr(float(value))
    if kind == "int":
        return str(int(value))
    if kind == "range":
        return "" if not value else f"{float(value[0])!r}~{float(value[1])!r}"
    if kind == "points":
        return ";".join(f"{x1:.4g},{x2:.4g},{int(c)}" for x1, x2, c in value)
    return str(value)


def relevant_names(page: str, params: Mapping[str, Any] | None = None) -> list[str]:
    """Names of the settings that matter on ``page`` given the current choices.

    Method parameters are kept only for the selected method; dataset parameters
    only for the selected dataset.
    """
    params = {**defaults(), **(params or {})}
    method = {"classification": params.get("method"), "regression": params.get("reg_method"),
              "sensitivity": params.get("sweep_method"), "pairwise": "simple_npkl"}.get(page)
    dataset = params.get("reg_dataset") if page == "regression" or (
        page == "sensitivity" and method in REGRESSION_METHODS) else params.get("dataset")
    names = []
    for name, s in settings().items():
        if not s.applies(page=page):
            continue
        if s.group in ("method", "view") and s.methods is not None and method is not None \
                and method not in s.methods:
            continue
        if s.datasets is not None and dataset not in s.datasets:
            continue
        names.append(name)
    return names


def encode_query(params: Mapping[str, Any], names: Iterable[str] | None = None
                 ) -> dict[str, str]:
    """URL query values for ``params`` (all of them, or only ``names``)."""
    table = settings()
    keys = list(names) if names is not None else list(params)
    out = {}
    for k in keys:
        if k in table and k in params:
            out[k] = to_text(k, params[k])
    return out


def decode_query(query: Mapping[str, Any], base: Mapping[str, Any] | None = None
                 ) -> tuple[dict[str, Any], list[Message]]:
    """Parameters from URL query values, starting from ``base`` (default: defaults).

    Unknown keys and invalid values are ignored with a message; the setting keeps
    its value from ``base``. Never raises.
    """
    params = dict(defaults() if base is None else base)
    items = []
    for key, raw in query.items():
        if key in _FOREIGN_KEYS:
            continue
        if isinstance(raw, (list, tuple)) and all(isinstance(r, str) for r in raw):
            raw = raw[-1] if raw else ""  # a repeated URL key: the last one wins
        items.append((key, raw))
    return params, _set_values(params, items, "link parameter", settings())


def _set_values(params: dict[str, Any], items: Iterable[tuple[Any, Any]], what: str,
                table: Mapping[str, Any]) -> list[Message]:
    """``params[key] = coerce(key, raw)`` for each item; an unknown key or an invalid
    value leaves ``params`` as it was. The notes name ``what`` (link parameter,
    setting), quote user text clipped (:func:`clip`), and stay few: at most
    :data:`MAX_NOTES` about invalid values plus one line counting the rest, and one
    line for all unknown keys."""
    messages: list[Message] = []
    unknown: list[Any] = []
    n_invalid = 0
    for key, raw in items:
        if not isinstance(key, str) or key not in table:
            unknown.append(key)
            continue
        try:
            params[key] = coerce(key, raw)
        except (ValueError, TypeError, OverflowError) as exc:
            n_invalid += 1
            if n_invalid <= MAX_NOTES:
                messages.append(_msg("warning", f"{what.capitalize()} {key}="
                                                f"“{clip(_short_repr(raw))}” is invalid "
                                                f"({clip(exc, 80)}); kept "
                                                f"{table[key].format(params[key])}."))
    if n_invalid > MAX_NOTES:
        messages.append(_msg("warning", f"{n_invalid - MAX_NOTES} more invalid {what}s "
                                        "were ignored (their settings kept their values)."))
    if len(unknown) == 1:
        messages.append(_msg("warning", f"Ignored unknown {what} “{clip(unknown[0])}”."))
    elif unknown:
        shown = ", ".join(f"“{clip(k, 24)}”" for k in unknown[:3])
        more = ", …" if len(unknown) > 3 else ""
        messages.append(_msg("warning", f"Ignored {len(unknown):,} unknown {what}s: "
                                        f"{shown}{more}."))
    return messages


def _short_repr(raw: Any) -> str:
    """``raw`` as text without building a huge string (nested JSON, long lists)."""
    if isinstance(raw, str):
        return raw[:200]
    if isinstance(raw, (list, tuple, dict)):
        return f"{type(raw).__name__} of {len(raw)}" if len(raw) > 8 else repr(raw)[:200]
    return repr(raw)[:200]


CONFIG_FORMAT = "nplk-lab-config"


def params_to_json(params: Mapping[str, Any], names: Iterable[str] | None = None) -> str:
    """A downloadable JSON configuration (re-loadable with :func:`params_from_json`)."""
    table = settings()
    keys = list(names) if names is not None else [k for k in params if k in table]
    body = {}
    for k in keys:
        if k not in table or k not in params:
            continue
        v = params[k]
        if table[k].kind == "points":
            v = [list(p) for p in v]
        elif table[k].kind == "range":
            v = list(v)
        elif isinstance(v, np.generic):
            v = v.item()
        body[k] = v
    return json.dumps({"format": CONFIG_FORMAT, "version": 1, "params": body}, indent=2)


def params_from_json(text: str | bytes, base: Mapping[str, Any] | None = None
                     ) -> tuple[dict[str, Any], list[Message]]:
    """Parameters from a JSON configuration; invalid entries fall back with a message.

    A file over :data:`MAX_CONFIG_BYTES` or nested deeper than :data:`MAX_CONFIG_DEPTH`
    is refused before parsing (no ``RecursionError``, no long parse)."""
    params = dict(defaults() if base is None else base)
    size = len(text)
    if size > MAX_CONFIG_BYTES:
        return params, [_msg("error", f"The configuration is {size / 1024:.0f} KB; a lab "
                                      f"configuration is at most {MAX_CONFIG_BYTES // 1024} "
                                      "KB. Load a file saved by NPLK Lab "
                                      "(“Configuration (JSON)”).")]
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8-sig")
        depth = _nesting_depth(text)
        if depth > MAX_CONFIG_DEPTH:
            return params, [_msg("error", f"The configuration is nested {depth} levels deep; "
                                          f"a lab configuration has at most "
                                          f"{MAX_CONFIG_DEPTH}. Load a file saved by NPLK "
                                          "Lab (“Configuration (JSON)”).")]
        doc = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return params, [_msg("error", f"The configuration is not valid JSON "
                                      f"({clip(exc, 80)}). Load a file saved by NPLK Lab "
                                      "(“Configuration (JSON)”).")]
    if not isinstance(doc, dict) or not isinstance(doc.get("params"), dict):
        return params, [_msg("error", "The configuration has no “params” object; was it "
                                      "saved by NPLK Lab?")]
    return params, _set_values(params, doc["params"].items(), "setting", settings())


def _nesting_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (strings skipped), without parsing."""
    depth = best = 0
    for tok in re.findall(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        if tok in "[{":
            depth += 1
            best = max(best, depth)
        elif tok in "]}":
            depth -= 1
    return best


# ---------------------------------------------------------------------------
# the method registry
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MethodSpec:
    """A method of the lab: how to build it from ``params`` and what it can show.

    ``target`` is ``"module:Class"`` (imported lazily, so a solver that has not
    landed just reports itself unavailable); ``params`` are the lab settings that
    apply; ``fixed`` extra keyword arguments; ``views`` the figures it supports;
    ``matrix`` the fitted attribute holding the learned matrix.
    """

    name: str
    label: str
    task: str
    target: str
    params: tuple[str, ...]
    views: tuple[str, ...]
    matrix: str | None = None
    description: str = ""
    fixed: tuple[tuple[str, Any], ...] = ()
    rename: tuple[tuple[str, str], ...] = ()  # (setting, estimator parameter) overrides

    def load(self) -> type:
        module, cls = self.target.split(":")
        return getattr(importlib.import_module(module), cls)


_SV = ("surface",)
METHODS: dict[str, MethodSpec] = {m.name: m for m in (
    MethodSpec("dank", "DANK", CLASSIFICATION, "nplk_core.dank:DANKClassifier",
               ("C", "sigma", "tau", "eta", "solver", "max_iter"),
               _SV + ("matrix", "spectra", "convergence"), "F_",
               "Learns a PSD matrix F that reweights the Gaussian kernel entry by entry "
               "(seed 000)."),
    MethodSpec("knpl", "KNPL", CLASSIFICATION, "nplk_core.knpl:KNPLClassifier",
               ("C", "sigma", "gamma", "knpl_solver", "admm_rho", "n_outer"),
               _SV + ("matrix", "spectra", "convergence"), "G_",
               "Nonlinear pairwise layer: G ⪰ 0 with rows summing to n; the saddle point "
               "of eq. (4) by accelerated projected gradient, or Algorithm 2 (seed 001)."),
    MethodSpec("onk", "ONK", CLASSIFICATION, "nplk_core.onk:ONKClassifier",
               ("C", "sigma", "onk_rho", "onk_solver"),
               _SV + ("matrix", "spectra", "convergence"), "G_",
               "Optimal neighbourhood kernel: the best kernel within ρ of K (seed 003)."),
    MethodSpec("lab_rbf", "LAB RBF", CLASSIFICATION, "nplk_core.lab_rbf:LABRBFClassifier",
               ("n_support", "lam"), _SV + ("bandwidth", "convergence"), None,
               "A bandwidth vector per support point, learned by gradient (seed 004)."),
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
               "DANK in ε-SVR (seed 000 §5)."),
    MethodSpec("lab_rbf_reg", "LAB RBF", REGRESSION, "nplk_core.lab_rbf:LABRBFRegressor",
               ("n_support", "lam"), ("curve", "bandwidth", "convergence"), None,
               "Locally adaptive bandwidths per support point (seed 004)."),
    MethodSpec("svr", "SVR", REGRESSION, "sklearn.svm:SVR", ("C", "epsilon", "sigma"),
               ("curve", "matrix", "spectra"), None, "Plain ε-SVR with the Gaussian kernel."),
    MethodSpec("svr_cv", "SVR-CV", REGRESSION, "nplk_core.baselines:SVRCVRegressor",
               ("epsilon",), ("curve",), None, "SVR with σ and C chosen by 5-fold CV."),
    MethodSpec("krr", "Kernel ridge", REGRESSION, "nplk_core.baselines:KernelRidgeBaseline",
               ("sigma", "lam"), ("curve",), None, "Kernel ridge regression (λ = ridge α).",
               rename=(("lam", "alpha"),)),
    MethodSpec("simple_npkl", "SimpleNPKL", CLUSTERING, "nplk_core.simple_npkl:SimpleNPKL",
               ("npkl_loss", "npkl_C", "B", "p", "n_neighbors", "constraint_fraction",
                "active_selection", "n_clusters_npkl"),
               ("constraints", "embedding", "spectra", "convergence"), "kernel_",
               "A kernel from must-link / cannot-link pairs and a k-NN graph (seed 002)."),
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
        from .kernels import sigma_to_gamma
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


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

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
            loaded = ds.load_csv(csv, task=task, label_column=label_column)
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


# ---------------------------------------------------------------------------
# fitting
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
            if self.ok and self.X_train is not None:
                spec = METHODS[self.method]
                try:
                    if what == "kernel":
                        value = _kernel_of(self.estimator, spec, self.X_train, self.params)
                    else:
                        value = _spectra_of(self.estimator, spec, self.kernel)
                except (ValueError, np.linalg.LinAlgError) as exc:
                    self.messages.append(_msg("warning", f"{what} unavailable: {exc}"))
            self._lazy[what] = value
        return self._lazy[what]

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
                from .spectral import numerical_rank
                lam = self.spectra.get(self.matrix_name)
                rank = None if lam is None else numerical_rank(lam)
            self._lazy["rank"] = None if rank is None or np.ndim(rank) else int(rank)
        return self._lazy["rank"]

    @property
    def errors(self) -> list[Message]:
        return [m for m in self.messages if m.level == "error"]


def relative_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    r"""Relative squared error :math:`\sum(\hat g - y)^2 / \sum(y - \bar y)^2` (seed 000 §6.3)."""
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


def _kernel_of(est: Any, spec: MethodSpec, X_train: np.ndarray, params: Mapping[str, Any]
               ) -> np.ndarray | None:
    """The training kernel K the method started from (None without a single σ)."""
    K = getattr(est, "K_", None)
    if K is not None:
        return np.asarray(K, dtype=float)
    if "sigma" not in spec.params:
        return None
    from .kernels import gaussian_kernel
    return gaussian_kernel(X_train, sigma=float(params.get("sigma", 1.0)))


def _spectra_of(est: Any, spec: MethodSpec, K: np.ndarray | None) -> dict[str, np.ndarray]:
    """Descending spectra of K, the learned matrix and (KNPL, DANK) their product."""
    from .spectral import spectrum
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
            out[f"{name}∘K"] = spectrum(G * K)
    return out


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
    res = LabResult(method=method, task=task, params=dict(p),
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


# ---------------------------------------------------------------------------
# decision functions on a grid
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Grid:
    """A ``resolution × resolution`` grid over the data's padded bounding box."""

    xs: np.ndarray
    ys: np.ndarray

    @property
    def points(self) -> np.ndarray:
        xx, yy = np.meshgrid(self.xs, self.ys)
        return np.column_stack([xx.ravel(), yy.ravel()])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.ys.size, self.xs.size)


def make_grid(X: np.ndarray, resolution: int = 100, pad: float = 0.1) -> Grid:
    """Grid over the bounding box of the first two columns of ``X``, padded by ``pad``."""
    X = np.asarray(X, dtype=float)
    if X.size == 0:
        lo, hi = np.array([-3.0, -3.0]), np.array([3.0, 3.0])
    else:
        lo, hi = X[:, :2].min(axis=0), X[:, :2].max(axis=0)
    span = np.maximum(hi - lo, 1e-6)
    lo, hi = lo - pad * span, hi + pad * span
    return Grid(np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution))


def decision_values(estimator: Any, X: np.ndarray, *, extension: str | None = None
                    ) -> np.ndarray:
    """The decision function (or prediction) of a fitted estimator at ``X``."""
    fn = getattr(estimator, "decision_function", None)
    if fn is None:
        fn = estimator.predict
    if extension is not None:
        try:
            if "extension" in inspect.signature(fn).parameters:
                return np.asarray(fn(X, extension=extension), dtype=float)
        except (TypeError, ValueError):
            pass
    out = np.asarray(fn(X), dtype=float)
    return out.ravel() if out.ndim > 1 and out.shape[1] == 1 else out


@dataclass(frozen=True)
class GridGeometry:
    """What every model on one grid over one training set shares: the squared
    distances from each grid point to each training point, and each grid point's
    nearest training point. Lets :func:`grid_values` evaluate the plain SVM and DANK
    (nearest rule) from kernel columns, computed only for their support."""

    X_train: np.ndarray
    sqdist: np.ndarray   # (grid points, n_train)
    nearest: np.ndarray  # (grid points,)


def grid_geometry(grid: Grid, X_train: np.ndarray) -> GridGeometry:
    from .kernels import squared_distances

    X = np.asarray(X_train, dtype=float)
    D = squared_distances(grid.points, X)
    return GridGeometry(X, D, np.argmin(D, axis=1))


def _fast_decision(estimator: Any, geom: GridGeometry, extension: str | None
                   ) -> np.ndarray | None:
    """The decision values on the grid from the shared geometry, for the two models the
    classification page draws on every move (a binary RBF ``SVC``; exact binary DANK
    with the nearest rule); None when ``estimator`` is not one of them (or was fitted
    on other points): the caller then asks the estimator itself."""
    from sklearn.svm import SVC

    from .dank import DANKClassifier
    from .kernels import sigma_to_gamma

    if isinstance(estimator, SVC):
        if estimator.kernel != "rbf" or len(estimator.classes_) != 2 \
                or not isinstance(estimator.gamma, (int, float)) \
                or estimator.shape_fit_[0] != geom.X_train.shape[0] \
                or not np.array_equal(estimator.support_vectors_,
                                      geom.X_train[estimator.support_]):
            return None
        Kc = np.exp(-float(estimator.gamma) * geom.sqdist[:, estimator.support_])
        return Kc @ estimator.dual_coef_[0] + estimator.intercept_[0]
    if isinstance(estimator, DANKClassifier):
        ext = estimator.extension if extension is None else extension
        if ext != "nearest" or getattr(estimator, "ovr_", None) is not None \
                or estimator.n_clusters > 1 \
                or not np.array_equal(estimator.X_fit_, geom.X_train):
            return None
        S = np.flatnonzero(estimator.dual_u_)
        gamma = sigma_to_gamma(float(estimator.sigma))
        return estimator._decision_from(geom.nearest, np.exp(-gamma * geom.sqdist[:, S].T))
    return None


def grid_values(estimator: Any, grid: Grid, *, extension: str | None = None,
                geometry: GridGeometry | None = None
                ) -> tuple[np.ndarray | None, list[Message]]:
    """Decision values on ``grid`` as a ``grid.shape`` array; messages instead of errors.

    ``geometry`` (from :func:`grid_geometry` for this grid and the training points)
    lets the SVM and DANK (nearest rule) reuse the grid-to-training distances."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            z = None if geometry is None else _fast_decision(estimator, geometry, extension)
            if z is None:
                z = decision_values(estimator, grid.points, extension=extension)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, TypeError, MemoryError) as exc:
        return None, [_msg("warning", f"Could not evaluate the model on the grid: {exc}")]
    if z.ndim != 1:
        return None, [_msg("info", "The decision surface needs a two-class model.")]
    Z = z.reshape(grid.shape)
    if not np.all(np.isfinite(Z)):
        return None, [_msg("warning", "The model gave non-finite values on the grid.")]
    return Z, []


def _within_budget(method: str, X: np.ndarray, y: np.ndarray, task: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The reference model drawn beside the fit stays live: above the interactive
    budget it is fitted on a random subsample of the size that stays live."""
    verdict = budget.fit_verdict(method, len(y), X.shape[1])
    if verdict.level == "live":
        return X, y
    keep = subsample_indices(y, verdict.n_max, task=task)
    return X[keep], y[keep]


def fit_baseline_svm(X_train: np.ndarray, y_train: np.ndarray, *, C: float, sigma: float
                     ) -> Any | None:
    """Plain SVC with the same σ and C (the gallery's reference boundary)."""
    from sklearn.svm import SVC

    from .kernels import sigma_to_gamma
    if np.unique(y_train).size < 2:
        return None
    X_train, y_train = _within_budget("svm", X_train, y_train, CLASSIFICATION)
    try:
        return SVC(C=float(C), gamma=sigma_to_gamma(float(sigma))).fit(X_train, y_train)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# user-added points
# ---------------------------------------------------------------------------

def click_grid(grid: Grid, step: int = 4) -> np.ndarray:
    """The (sub-sampled) grid nodes for ``figures.decision_surface(click_targets=...)``
    (a selectable layer; the lab's pages now take clicks from the live chart instead)."""
    xs, ys = grid.xs[::step], grid.ys[::step]
    xx, yy = np.meshgrid(xs, ys)
    return np.column_stack([xx.ravel(), yy.ravel()])


def add_points(points: Sequence, new: Sequence) -> tuple[tuple[float, float, int], ...]:
    """Append new points, keeping at most :data:`MAX_POINTS`."""
    return tuple(tuple(p) for p in (list(points) + list(new))[-MAX_POINTS:])


def points_from_clicks(clicks: Any, label: int, *, seen: float = 0.0,
                       bounds: tuple[tuple[float, float], tuple[float, float]] | None = None,
                       limit: int = 50) -> tuple[list[tuple[float, float, int]], float]:
    """New points from the clicks a live chart reports, and the newest click id.

    ``clicks`` is a list of ``{"id": number, "x": float, "y": float}`` (data
    coordinates of a click on the plot area; the chart resends clicks until the page
    acknowledges them, so ids up to ``seen`` are skipped). Coordinates are kept to 4
    significant digits, as the URL writes them; a click that is not a finite number or
    lies outside ``bounds`` ((x_lo, x_hi), (y_lo, y_hi)) is dropped. Anything malformed
    adds nothing (the payload comes from the browser)."""
    out: list[tuple[float, float, int]] = []
    newest = float(seen)
    if not isinstance(clicks, (list, tuple)):
        return out, newest
    for c in clicks[:limit]:
        if not isinstance(c, Mapping):
            continue
        try:
            cid, x, y = float(c["id"]), float(c["x"]), float(c["y"])
        except (KeyError, TypeError, ValueError):
            continue
        if not (np.isfinite(cid) and np.isfinite(x) and np.isfinite(y)) or cid <= seen:
            continue
        newest = max(newest, cid)
        if bounds is not None and not (min(bounds[0]) <= x <= max(bounds[0])
                                       and min(bounds[1]) <= y <= max(bounds[1])):
            continue
        out.append((float(f"{x:.4g}"), float(f"{y:.4g}"), 1 if label > 0 else -1))
    return out, newest


def added_rows(X_train: np.ndarray, points: Sequence) -> int:
    """How many of the last rows of ``X_train`` are the user-added ``points`` (all of
    them, as :func:`prepare_data` appends them, or 0 when they do not match)."""
    k = len(points)
    if not k or X_train.ndim != 2 or X_train.shape[0] < k or X_train.shape[1] != 2:
        return 0
    P = np.asarray(points, dtype=float).reshape(-1, 3)[:, :2]
    return k if np.array_equal(X_train[-k:], P) else 0


def canvas_grid(X_base: np.ndarray, X_added: np.ndarray | None = None,
                resolution: int = 100, pad: float = 0.1) -> Grid:
    """The grid (and so the axes) of a surface one can add points to: over the padded
    extent of the data without the added points, widened to every point only when an
    added point lies outside it. A point clicked inside the plot never moves the axes.
    """
    X_base = np.asarray(X_base, dtype=float).reshape(-1, 2)
    grid = make_grid(X_base, resolution, pad)
    if X_added is None or not len(X_added):
        return grid
    A = np.asarray(X_added, dtype=float).reshape(-1, 2)
    inside = ((A[:, 0] >= grid.xs[0]) & (A[:, 0] <= grid.xs[-1])
              & (A[:, 1] >= grid.ys[0]) & (A[:, 1] <= grid.ys[-1]))
    if inside.all():
        return grid
    if not len(X_base):
        # no data but points outside the default canvas: the canvas grows to hold them
        lo = np.minimum(A.min(axis=0), [grid.xs[0], grid.ys[0]])
        hi = np.maximum(A.max(axis=0), [grid.xs[-1], grid.ys[-1]])
        return make_grid(np.array([lo, hi]), resolution, pad)
    return make_grid(np.vstack([X_base, A]), resolution, pad)


# ---------------------------------------------------------------------------
# sensitivity sweeps
# ---------------------------------------------------------------------------

def sweep_values(name: str, lo: float | None = None, hi: float | None = None,
                 n_points: int = 7) -> np.ndarray:
    """``n_points`` values of setting ``name`` between ``lo`` and ``hi`` (log-spaced if
    the setting is on a log scale; integers rounded and de-duplicated)."""
    s = setting(name)
    lo = float(s.min if lo is None else lo)
    hi = float(s.max if hi is None else hi)
    if s.log and lo > 0:
        vals = np.geomspace(lo, hi, n_points)
    else:
        vals = np.linspace(lo, hi, n_points)
    if s.kind == "int":
        vals = np.unique(np.round(vals).astype(int))
    else:
        vals = np.array([float(f"{v:.4g}") for v in vals])
    return vals


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


def run_sweep(params: Mapping[str, Any], method: str, param: str, values: Sequence[float],
              *, repeats: int = 1, progress: Callable[[int, int], Any] | None = None,
              csv: Any = None, fit: Callable[..., LabResult] | None = None,
              data_fn: Callable[[int], tuple[LabData | None, list[Message]]] | None = None
              ) -> SweepResult:
    """Fit ``method`` for every value of ``param`` and every seed ``seed … seed+repeats-1``.

    Each seed draws its own data and split. ``progress(done, total)`` is called after
    every fit (returning True stops the sweep early). Each value warm-starts from the
    previous one when the swept parameter is continuous. ``fit`` (default
    :func:`fit_method`, same signature) and ``data_fn(seed)`` let a caller cache the
    individual fits and draws.
    """
    fit = fit or fit_method
    spec = METHODS[method]
    values = np.asarray(values)
    shape = (values.size, max(int(repeats), 1))
    scores = np.full(shape, np.nan)
    train = np.full(shape, np.nan)
    ranks = np.full(shape, np.nan)
    times = np.full(shape, np.nan)
    messages: list[Message] = []
    seen: set[str] = set()
    base_seed = int(params.get("seed", 0))
    total, done = shape[0] * shape[1], 0
    for r in range(shape[1]):
        data, msgs = data_fn(base_seed + r) if data_fn is not None else \
            prepare_data(params, spec.task, seed=base_seed + r, csv=csv)
        if data is None:
            messages.extend(msgs)
            break
        if r == 0:
            verdict = budget.sweep_verdict(method, len(data.y_train), total,
                                           data.X_train.shape[1], params, label=spec.label)
            if not verdict.ok:
                messages.append(_msg("error", verdict.message))
                break
        prev = None
        for i, v in enumerate(values):
            p = {**params, param: v.item() if hasattr(v, "item") else v}
            # neighbouring values warm-start each other (only continuous parameters)
            warm = prev if prev is not None and prev.ok and \
                can_warm_start(prev.params, p, method) else None
            res = fit(p, data.X_train, data.y_train, data.X_test, data.y_test,
                      method=method, data_key=data.key, warm_from=warm)
            prev = res
            for m in res.messages:
                if m.text not in seen and m.level != "info":
                    seen.add(m.text)
                    messages.append(_msg(m.level, f"{setting(param).format(p[param])}: {m}"))
            if res.ok:
                scores[i, r] = res.test_score
                train[i, r] = res.train_score
                ranks[i, r] = np.nan if res.rank is None else res.rank
                times[i, r] = res.fit_time
            done += 1
            if progress is not None and progress(done, total):
                return SweepResult(method, param, values, res.metric, scores, train, ranks,
                                   times, messages)
    metric = "accuracy" if spec.task == CLASSIFICATION else "relative error"
    return SweepResult(method, param, values, metric, scores, train, ranks, times, messages)


def sweep_table(sweep: SweepResult):
    """A Table-5-like summary: value, test metric mean ± std, rank, fit time."""
    import pandas as pd
    s = setting(sweep.param)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m, sd = np.nanmean(sweep.scores, axis=1), np.nanstd(sweep.scores, axis=1)
        rk = np.nanmean(sweep.ranks, axis=1)
        t = np.nanmean(sweep.times, axis=1)
    rows = {
        s.label: [s.format(v.item() if hasattr(v, "item") else v) for v in sweep.values],
        f"test {sweep.metric}": [f"{a:.3f} ± {b:.3f}" if np.isfinite(a) else "—"
                                 for a, b in zip(m, sd, strict=True)],
        "rank": [f"{a:.1f}" if np.isfinite(a) else "—" for a in rk],
        "fit time (s)": [f"{a:.3f}" if np.isfinite(a) else "—" for a in t],
    }
    return pd.DataFrame(rows)


def sweepable(method: str) -> list[str]:
    """The swept-parameter choices that apply to ``method``."""
    return [p for p in setting("sweep_param").options if p in METHODS[method].params]


# ---------------------------------------------------------------------------
# regression helpers
# ---------------------------------------------------------------------------

def true_function(name: str, params: Mapping[str, Any]
                  ) -> Callable[[np.ndarray], np.ndarray] | None:
    """The noiseless function behind a regression dataset (None for CSV data)."""
    try:
        ds = importlib.import_module("nplk_core.datasets")
    except ImportError:
        return None
    p = {**defaults(), **params}
    if name == "step" and hasattr(ds, "step_function"):
        return lambda X: ds.step_function(np.asarray(X)[:, 0], p.get("step_s", 3.0),
                                          p.get("step_w", 2.0), p.get("step_a", 0.05))
    if name == "chirp" and hasattr(ds, "chirp_function"):
        return lambda X: ds.chirp_function(np.asarray(X)[:, 0], p.get("chirp_f0", 1.0),
                                           p.get("chirp_f1", 10.0))
    if name == "harmonic" and hasattr(ds, "harmonic_function"):
        return lambda X: ds.harmonic_function(np.asarray(X)[:, 0], np.asarray(X)[:, 1])
    return None


def line_points(X: np.ndarray, n: int = 400, pad: float = 0.02) -> np.ndarray:
    """``n`` evenly spaced points (as a column) over the padded range of 1-D data."""
    x = np.asarray(X, dtype=float)[:, 0]
    lo, hi = float(x.min()), float(x.max())
    span = max(hi - lo, 1e-6)
    return np.linspace(lo - pad * span, hi + pad * span, n)[:, None]


def fit_baseline_svr(X_train: np.ndarray, y_train: np.ndarray, *, C: float, sigma: float,
                     epsilon: float) -> Any | None:
    """Plain ε-SVR with the same σ, C and ε (the regression baseline curve)."""
    from sklearn.svm import SVR

    from .kernels import sigma_to_gamma
    X_train, y_train = _within_budget("svr", X_train, y_train, REGRESSION)
    try:
        return SVR(C=float(C), epsilon=float(epsilon),
                   gamma=sigma_to_gamma(float(sigma))).fit(X_train, y_train)
    except ValueError:
        return None


def predict_values(estimator: Any, X: np.ndarray, *, extension: str | None = None
                   ) -> tuple[np.ndarray | None, list[Message]]:
    """``estimator.predict`` (with the out-of-sample rule when it takes one); messages
    instead of errors, None on non-finite output."""
    fn = estimator.predict
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if extension is not None and "extension" in inspect.signature(fn).parameters:
                out = np.asarray(fn(X, extension=extension), dtype=float)
            else:
                out = np.asarray(fn(X), dtype=float)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, TypeError, MemoryError) as exc:
        return None, [_msg("warning", f"Could not evaluate the model: {exc}")]
    if not np.all(np.isfinite(out)):
        return None, [_msg("warning", "The model gave non-finite values.")]
    return out, []


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


def scaling_study(X: np.ndarray, y: np.ndarray, *, C: float, sigma: float, v: int,
                  max_v: int, seed: int = 0,
                  progress: Callable[[int, int], Any] | None = None) -> ScalingStudy | None:
    """Solve the ``tau = 0`` box problem exactly and by v-cluster decomposition for
    v = 1 … max_v (one η for all, from the exact solve) and collect Q(π), the bound
    ``½ B C² Q(π)``, the actual gap ``h(α*) − h̄(ᾱ)`` and the Theorem 7 screening."""
    try:
        sc = importlib.import_module("nplk_core.scalable")
        from .kernels import gaussian_kernel
    except ImportError:
        return None
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    messages: list[Message] = []
    K = gaussian_kernel(X, sigma=sigma)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = sc.fit_scalable(X, y, n_clusters=1, C=C, sigma=sigma, eta="auto",
                                random_state=seed)
        eta = exact.eta
        F_exact = sc.block_F(exact.alpha, y, K, eta)
        vs = np.arange(1, max(int(max_v), int(v)) + 1)
        q, bound, gap = (np.zeros(vs.size) for _ in range(3))
        chosen = exact
        for i, vv in enumerate(vs):
            r = exact if vv == 1 else sc.fit_scalable(X, y, n_clusters=int(vv), C=C,
                                                      sigma=sigma, eta=eta,
                                                      random_state=seed)
            F_bar = sc.block_F(r.alpha, y, K, eta, r.labels)
            b = sc.theorem6_bound(K, r.labels, C, F_exact, F_bar)
            q[i], bound[i] = b["Q"], b["bound"]
            gap[i] = exact.objective - r.objective
            if vv == v:
                chosen = r
            if progress is not None:
                progress(i + 1, vs.size)
        screened = sc.screen_non_support(chosen)
    messages.extend(_warning_messages(caught, "Scalable DANK"))
    return ScalingStudy(vs, q, bound, gap, chosen.labels, chosen.centers, screened,
                        chosen.alpha > 0, eta, messages)


def timing_study(params: Mapping[str, Any], ns: Sequence[int], *, v: int,
                 progress: Callable[[int, int], Any] | None = None,
                 callback: Callable | None = None
                 ) -> tuple[dict[str, np.ndarray], list[Message]]:
    """Fit time against n for exact DANK, scalable DANK (v clusters) and SVC."""
    from sklearn.svm import SVC

    from .kernels import sigma_to_gamma
    p = {**defaults(), **params}
    ok, why = available("dank")
    names = ["exact DANK", f"scalable DANK (v={v})", "SVC"]
    times = {k: np.full(len(ns), np.nan) for k in names}
    if not ok:
        return times, [_msg("info", why)]
    dank_cls = METHODS["dank"].load()
    messages: list[Message] = []
    total, done = 3 * len(ns), 0
    for i, n in enumerate(ns):
        data, msgs = prepare_data({**p, "n_samples": int(n), "test_size": 0.1,
                                   "points": ()}, CLASSIFICATION)
        if data is None:
            return times, msgs
        X, y = data.X_train, data.y_train
        models = {names[0]: dank_cls(C=p["C"], sigma=p["sigma"], tau=p["tau"],
                                     callback=callback),
                  names[1]: dank_cls(C=p["C"], sigma=p["sigma"], n_clusters=int(v),
                                     random_state=int(p["seed"])),
                  names[2]: SVC(C=p["C"], gamma=sigma_to_gamma(p["sigma"]))}
        for name, model in models.items():
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X, y)
                times[name][i] = time.perf_counter() - t0
            except (ValueError, ArithmeticError, np.linalg.LinAlgError, MemoryError) as exc:
                messages.append(_msg("warning", f"{name} at n={n} failed: {clip(exc, 120)}"))
            done += 1
            # only an explicit True stops (a progress bar's update returns a truthy
            # element: that stopped the study after its first fit)
            if progress is not None and progress(done, total) is True:
                return times, messages
    return times, messages
