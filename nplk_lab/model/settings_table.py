"""The settings table: every setting of the lab declared once, and the page messages."""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from . import claims as _claims

PAGES = ("classification", "regression", "pairwise", "sensitivity", "scaling")
CLASSIFICATION, REGRESSION, CLUSTERING = "classification", "regression", "clustering"

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

@lru_cache(maxsize=256)   # every slider of every run asks (the pages' sliders: a dozen)
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


#: the value types whose labels :meth:`Setting.format` keeps, and how many per setting
_LABELLED = frozenset({str, int, float, bool})
_LABELS_KEPT = 4096


@dataclass(frozen=True)
class Setting:
    """One user-facing setting.

    ``kind`` is one of ``"float"``, ``"int"``, ``"choice"``, ``"bool"``,
    ``"float_auto"`` (a float or the string ``"auto"``), ``"range"`` (a pair of
    floats), ``"points"`` (user-added points, rows ``(x1, x2, label)``) or ``"token"``
    (opaque URL-safe text of at most ``max`` characters: a teacher's lesson).
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
        """Human-readable value for labels and option lists. A number or a word is
        formatted once per setting and process: Streamlit formats every stop of a
        select slider on every page run (some 330 labels a run on Classification)."""
        if type(value) not in _LABELLED or value != value:   # not hashable, or NaN
            return self._format(value)
        labels = self.__dict__.get("_labels")
        if labels is None:
            labels = {}
            object.__setattr__(self, "_labels", labels)   # not a field: eq, hash, repr
        k = (type(value), value)
        text = labels.get(k)
        if text is None:
            text = self._format(value)
            if len(labels) < _LABELS_KEPT:
                labels[k] = text
        return text

    def _format(self, value: Any) -> str:
        for opt, lab in self.option_labels:
            if opt == value:
                return lab
        if value == "auto":
            return "auto"
        if value == "" and self.kind == "token":
            return "none"
        if isinstance(value, float):
            # as a person writes it: 1.5 × 10⁻⁶ and 10⁵, not "1.5e-06" and "100000"
            # (every digit kept: a stop of a slider is shown exactly)
            from nplk_lab.figures.common import for_people
            return for_people(value, digits=6)
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
            option_labels=(("auto", "auto (fastest)"), ("nesterov", "Nesterov (the paper's)"),
                           ("nesterov-monotone", "Nesterov, monotone"),
                           ("pg", "projected gradient"), ("apg", "accelerated PG")),
            help="How DANK finds its optimum (the best α for its dual objective h(α)); "
                 "all solvers reach the same optimum, at different speeds. auto: "
                 "Newton's method up to 160 training points for DANK and 300 for DANK-SVR, "
                 "accelerated PG beyond."),
    Setting("C", "float", 10.0, "C (box constraint)", min=0.01, max=1000.0, log=True,
            methods=("dank", "knpl", "onk", "svm", "dank_svr", "svr", "mkl_uniform"),
            pages=PAGES, continuous=True,
            help="C is the price of a training error (a point on the wrong side of the margin, "
                 "or outside the ε-tube in regression; the upper bound on the dual "
                 "variables α): larger C fits the training data harder."),
    Setting("sigma", "float", 10.0, "σ (Gaussian kernel width)", min=0.05, max=20.0, log=True,
            methods=_SIGMA, pages=PAGES, continuous=True,
            help="σ is the Gaussian kernel's width, how far apart two points can be and still "
                 "count as alike: k(x, x′) = exp(−‖x − x′‖² / (2σ²)). Small σ: a wiggly "
                 "fit; large σ: a nearly linear one."),
    Setting("tau", "float", 0.01, "τ (nuclear-norm weight)", min=1e-4, max=10.0, log=True,
            methods=_DANK, pages=_ALL_FIT_PAGES, continuous=True,
            help="τ weighs the nuclear norm of F (the sum of its singular values) in DANK's "
                 "objective: larger τ gives a lower-rank F."),
    Setting("eta", "float_auto", "auto", "η (closeness of F to all-ones)", min=1e-3, max=1e5,
            log=True, methods=_DANK, pages=_ALL_FIT_PAGES, continuous=True,
            help="η weighs how far F may move from the all-ones matrix (which leaves K "
                 "unchanged): large η keeps F near all-ones, i.e. the plain model with kernel "
                 "K; auto = the squared size of the plain model's α, as in the DANK paper."),
    Setting("max_iter", "int", 2000, "Max iterations", min=10, max=5000, log=False,
            options=(10, 20, 50, 100, 200, 500, 1000, 2000, 5000),
            methods=_DANK, pages=_ALL_FIT_PAGES,
            help="Iteration cap (the paper uses 2000)."),
    Setting("extension", "choice", "nearest", "Out-of-sample rule (drawn surface)",
            group="view", options=("nearest", "reciprocal", "smooth"),
            option_labels=(("reciprocal", "reciprocal-neighbour rule (the DANK paper's)"),
                           ("nearest", "nearest-point rule (faster; the KNPL paper's)"),
                           ("smooth", "smooth rule (an average of all rows; copies none)")),
            methods=_DANK + ("knpl",), pages=("classification", "regression"),
            help="How the learned matrix (F, or KNPL's G) is extended to the grid the surface "
                 "is drawn on. The nearest-point rule gives each new point the row of its "
                 "nearest training point. The DANK paper's reciprocal rule depends on the "
                 "whole set of new points (here: the 10,000 grid points, so the picture "
                 "depends on the grid, and it is slower); KNPL has no such rule and draws "
                 "the nearest-point rule instead. The smooth rule, the lab's, copies no row: "
                 "a new point takes an average of all the rows, weighted by the kernel of "
                 "width σ. The method's test score always uses its paper's rule; the score "
                 "table shows the smooth rule's beside it."),
    Setting("epsilon", "float", 0.1, "ε (tube width)", min=1e-3, max=2.0, log=True,
            methods=("dank_svr", "svr", "svr_cv"), pages=_R_PAGES, continuous=True,
            help="ε is the half-width of the tube around the fit: errors smaller than ε "
                 "cost nothing (ε-insensitive loss)."),
    Setting("gamma", "float_auto", "auto", "γ (KNPL regulariser)", min=1e-3, max=1e5,
            log=True, methods=("knpl",), pages=("classification", "sensitivity"),
            continuous=True,
            help="γ weighs the size of G in KNPL's objective: large γ keeps G near the all-ones "
                 "matrix (plain SVM). auto = 5·max αᵢ² of the plain SVM, which keeps G "
                 "within 0.95–1.05, as in the KNPL paper, while the boundary still moves."),
    Setting("knpl_solver", "choice", "apg", "KNPL solver", options=("apg", "alternating"),
            option_labels=(("apg", "saddle point (accelerated projected gradient)"),
                           ("alternating", "alternating (the paper's, can cycle)")),
            methods=("knpl",), pages=("classification", "sensitivity"), param="solver",
            help="Saddle point: accelerated projected gradient on the dual variables α, with G "
                 "in closed form at every step. Alternating: the KNPL paper's own algorithm "
                 "(G by ADMM, then α by SMO, in turn), which can cycle."),
    Setting("admm_rho", "float", 1.1, "ρ (ADMM penalty growth)", min=1.01, max=3.0,
            step=0.01, methods=("knpl",), pages=("classification", "sensitivity"),
            param="rho", when=(("knpl_solver", "alternating"),),
            help="ρ is the factor by which the ADMM penalty β grows after every step (β ← "
                 "min(ρβ, 1e8); the alternating solver only). Not ONK's ρ."),
    Setting("n_outer", "int", 10, "Outer rounds T", min=1, max=30, step=1,
            methods=("knpl",), pages=("classification", "sensitivity"),
            when=(("knpl_solver", "alternating"),),
            help="T is the number of rounds of 'G by ADMM, then α by SMO' (the alternating "
                 "solver only)."),
    Setting("onk_rho", "float", 100.0, "ρ (neighbourhood radius)", min=1e-3, max=1e4,
            log=True, methods=("onk",), pages=("classification", "sensitivity"),
            param="rho", continuous=True,
            help="ρ is the price ONK pays for moving the learned kernel G away from K: small ρ "
                 "lets G move far, ρ → ∞ gives the plain SVM."),
    Setting("onk_solver", "choice", "cgd", "ONK solver", options=("cgd", "level"),
            option_labels=(("cgd", "constrained gradient descent"),
                           ("level", "level method")),
            methods=("onk",), pages=("classification", "sensitivity"), param="solver",
            help="Two ways to solve ONK's problem: constrained gradient descent or the level "
                 "method (both from the ONK paper; same answer, different speed)."),
    Setting("n_support", "int", 30, "Support count N", min=2, max=200, step=1,
            methods=_LAB, pages=_ALL_FIT_PAGES,
            help="Number of support points whose bandwidths LAB RBF learns."),
    Setting("lam", "float", 1e-3, "λ (ridge)", min=1e-6, max=10.0, log=True,
            methods=("lab_rbf", "lab_rbf_reg", "krr"), pages=_ALL_FIT_PAGES, continuous=True,
            help="λ (ridge) is the penalty on the size of the coefficients in the kernel solve: "
                 "larger λ gives a smoother fit."),
    # ---- views --------------------------------------------------------------------------
    Setting("show_baseline", "bool", True, "Show the plain SVM / SVR", group="view",
            pages=("classification", "regression"),
            help="Dotted: the plain SVM's boundary (or the plain SVR's curve) with the same "
                 "σ and C."),
    Setting("show_nn", "bool", False, "Show 1-nearest neighbour", group="view",
            pages=("classification", "regression"),
            help="Dash-dot orange: the boundary of 1-nearest neighbour (every point takes "
                 "the label of its nearest training point), or its step curve on 1-D "
                 "regression data. " + _claims.TEXT["nn_help"]),
    Setting("ablation_cv", "bool", False, "Score the cross-validated SVM too", group="view",
            methods=("dank", "knpl", "dank_svr"), pages=("classification", "regression"),
            help="Adds SVM-CV (or SVR-CV) to the score table: σ and C chosen by 5-fold "
                 "cross-validation over 121 pairs, about a second or more per data set "
                 "(kept for every other σ, C and τ on the same data)."),
    Setting("compare_solvers", "bool", False, "Overlay all solvers", group="view",
            methods=_DANK + ("onk",), pages=("classification", "regression"),
            help="Fit with every solver and overlay their convergence: DANK's Nesterov vs "
                 "projected gradient (as in the DANK paper), ONK's constrained gradient "
                 "descent vs level method."),
    Setting("replay", "bool", False, "Training replay", group="view",
            pages=("classification", "regression"),
            help="Replay the training under the surface: the untrained model (the plain "
                 "kernel), then up to 60 of the solver's iterations (dense early), with "
                 "play, pause, step, a scrub slider, speed and loop; played in the "
                 "browser, without the server; downloadable as a GIF or an HTML file."),
    Setting("replay_step", "int", -1, "Replay frame", group="view", min=-1, max=59, step=1,
            pages=("classification", "regression"), when=(("replay", True),),
            help="The replay frame shown (0 = the untrained start, or LAB RBF's first "
                 "iteration; −1 = the last)."),
    Setting("view", "choice", "matrix", "View", group="view",
            options=("matrix", "spectra", "convergence", "bandwidth"),
            option_labels=(("matrix", "Learned matrix"), ("spectra", "Eigen-decay"),
                           ("convergence", "Convergence"), ("bandwidth", "Bandwidths")),
            pages=("classification",), help="What the right-hand figure shows."),
    Setting("matrix_full", "bool", False, "Every entry", group="view",
            pages=("classification", "regression"),
            help="Draw every entry of the matrices instead of block means (up to 259 "
                 "training points with four panels; beyond, block means on 128 rows), "
                 "and click a row to select its point. Off, matrices of more than 48 points "
                 "(four panels) are drawn as means over blocks of neighbouring rows and "
                 "columns in class order: the class blocks stay visible and far less data "
                 "is sent on every change."),
    Setting("reg_view", "choice", "bandwidth", "View", group="view",
            options=("bandwidth", "matrix", "spectra", "convergence"),
            option_labels=(("bandwidth", "Bandwidths"), ("matrix", "Learned matrix"),
                           ("spectra", "Eigen-decay"), ("convergence", "Convergence")),
            pages=("regression",), help="What the second figure shows."),
    Setting("focus_point", "int", -1, "Selected training point", group="view", min=-1,
            max=1_000_000, step=1, pages=("classification", "regression"),
            help="The training point whose learned influence is drawn (−1: none). Click a "
                 "point on the surface (with “Click to add” off) or a row of the matrix."),
    Setting("influence_view", "choice", "ratio", "Influence view", group="view",
            options=("ratio", "pair"),
            option_labels=(("ratio", "What learning changed"), ("pair", "Learned vs plain")),
            pages=("classification", "regression"),
            help="What learning changed: the factor F̃(xᵢ, x) = k̃ / k coloured around 1 "
                 "(ONK, LAB RBF: k̃ − k around 0), its colours spanning the largest change, "
                 "so a 0.3 % change shows. Or the learned k̃(xᵢ, x) beside the plain "
                 "k(xᵢ, x) on one colour scale (small changes look identical there)."),
    Setting("eigen_index", "int", 1, "Eigenvector j", min=1, max=1000, step=1,
            group="view", methods=("dank", "knpl", "onk", "svm", "dank_svr", "svr"),
            pages=("classification", "regression"),
            help="The eigenvector the eigen-decay view draws as a function on the plane "
                 "(1 = the largest eigenvalue), for the learned kernel and for K; click an "
                 "eigenvalue on the plot to pick it."),
    # ---- pairwise constraints (SimpleNPKL) -----------------------------------------------
    Setting("npkl_loss", "choice", "linear", "Loss", options=("linear", "square_hinge",
                                                              "hinge", "square"),
            option_labels=(("linear", "linear (closed form)"), ("square_hinge",
                                                                 "square hinge"),
                           ("hinge", "hinge"), ("square", "square")),
            methods=("simple_npkl",), pages=("pairwise",), group="method", param="loss",
            help="How a violated must-link or cannot-link pair is charged; linear has a "
                 "closed-form solution, the others are solved iteratively."),
    Setting("npkl_C", "float", 0.1, "C (constraint weight)", min=1e-3, max=1e3, log=True,
            methods=("simple_npkl",), pages=("pairwise",), group="method", param="C",
            continuous=True,
            help="C weighs the constraint loss against how smoothly the kernel follows the "
                 "neighbour graph (tr(LK), L the graph's Laplacian). "
                 "Near C = 1 each constrained pair becomes its own eigenvector and k-means "
                 "splits it off; 0.1-0.3 clusters best on the toy data."),
    Setting("B", "float", 1.0, "B (capacity)", min=0.01, max=1e4, log=True,
            methods=("simple_npkl",), pages=("pairwise",), group="method", continuous=True,
            help="B caps the learned kernel's size, tr(K^p) ≤ B (the paper uses 1 on small "
                 "data)."),
    Setting("p", "float", 2.0, "p (capacity power)", min=1.1, max=5.0, step=0.1,
            methods=("simple_npkl",), pages=("pairwise",), group="method", continuous=True,
            help="p > 1 is the power in the capacity bound tr(K^p) ≤ B on the learned kernel; "
                 "p = 2 makes the learned kernel proportional to the positive part of the "
                 "constraint matrix."),
    Setting("n_neighbors", "int", 5, "k (graph neighbours)", min=2, max=20, step=1,
            methods=("simple_npkl",), pages=("pairwise",), group="method",
            help="k is the number of neighbours each point links to in the neighbour graph "
                 "(a mutual k-nearest-neighbour graph; the paper uses 5)."),
    Setting("constraint_fraction", "float", 0.1, "Constraint fraction", min=0.01, max=1.0,
            step=0.01, methods=("simple_npkl",), pages=("pairwise",), group="method",
            help="Random pairs are drawn from the labels until the must-link graph has "
                 "(1 − fraction)·n components (the paper uses 0.3)."),
    Setting("active_selection", "int", 0, "Active selection (points)", min=0, max=200,
            step=5, methods=("simple_npkl",), pages=("pairwise",), group="method",
            help="Keep only the constraints touching this many least-certain points (the "
                 "SimpleNPKL paper's active selection); "
                 "0 = use every constraint."),
    Setting("n_clusters_npkl", "int", 2, "Clusters", min=2, max=8, step=1,
            methods=("simple_npkl",), pages=("pairwise",), group="method",
            param="n_clusters",
            help="Number of clusters for kernel k-means on the learned kernel."),
    Setting("pair_lines", "choice", 0, "Constraint lines", group="view",
            options=(0, 10, 25, 50),
            option_labels=((0, "hidden"), (10, "a sample of 10 of each kind"),
                           (25, "a sample of 25 of each kind"),
                           (50, "a sample of 50 of each kind")),
            pages=("pairwise",),
            help="Draw a random sample of the must-link (green) and cannot-link (dashed "
                 "orange) pairs over the clusters; the legend counts them all."),
    Setting("pair_view", "choice", "embedding", "View", group="view",
            options=("embedding", "spectra", "convergence"),
            option_labels=(("embedding", "2-D embedding"), ("spectra", "Spectrum"),
                           ("convergence", "Objective")),
            pages=("pairwise",), help="What the second figure shows."),
    # ---- lessons and presentation ---------------------------------------------------------
    Setting("present", "bool", False, "Presentation mode", group="view",
            pages=PAGES + ("lessons",),
            help="Hide every control and the sidebar; the figure fills the screen with "
                 "larger text (for a projector)."),
    Setting("lesson", "int", 1, "Lesson", group="lesson", min=1, max=5, step=1,
            pages=("lessons",), help="The built-in lesson shown on the Lessons page."),
    Setting("step", "int", 1, "Step", group="lesson", min=1, max=13, step=1,
            pages=("lessons",),
            help="The lesson's step (1 = the first; one past the last: the lesson's end)."),
    Setting("answers", "token", "", "Your answers", group="lesson", max=16,
            pages=("lessons",),
            help="The options you locked in, one character a step (- : not answered)."),
    Setting("my_lesson", "token", "", "A teacher's lesson", group="lesson", max=6000,
            pages=("lessons",),
            help="A lesson made of lab states and sentences, packed into the link."),
    Setting("class", "token", "", "Class join code", group="lesson", max=16,
            pages=("lessons",), help="The class this lesson is answered in together."),
    Setting("teacher", "token", "", "The teacher's key", group="lesson", max=64,
            pages=("lessons",),
            help="A teacher link of a server without the lab's routes carries it: the "
                 "browser that opens it becomes a teacher device of the class."),
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
            option_labels=(("tau", "τ (nuclear-norm weight)"),
                           ("eta", "η (closeness of F to all-ones)"),
                           ("onk_rho", "ρ (neighbourhood radius)"),
                           ("C", "C (box constraint)"), ("sigma", "σ (Gaussian kernel width)"),
                           ("n_support", "Support count N"), ("lam", "λ (ridge)"),
                           ("epsilon", "ε (tube width)"), ("gamma", "γ (KNPL regulariser)")),
            pages=("sensitivity",), help="The parameter to vary; the others stay fixed."),
    Setting("sweep_range", "range", (), "Range", group="sweep", pages=("sensitivity",),
            help="Smallest and largest swept value (empty: the parameter's full range)."),
    Setting("sweep_points", "int", 7, "Points", min=3, max=15, step=1, group="sweep",
            pages=("sensitivity",), help="Number of values in the sweep."),
    Setting("sweep_repeats", "int", 3, "Repeats (seeds)", min=1, max=10, step=1,
            group="sweep", pages=("sensitivity",),
            help="Each value is fitted on this many seeds; the plot shows mean ± std."),
    Setting("sweep_param2", "choice", "", "Second parameter (map)", group="sweep",
            options=("", "tau", "eta", "onk_rho", "C", "sigma", "n_support", "lam",
                     "epsilon", "gamma"),
            pages=("sensitivity",),
            help="A second parameter turns the sweep into maps over both: score, spread "
                 "over seeds, rank and fit time per pair of values, beside the plain "
                 "SVM / SVR / kernel ridge with the same σ and C. Empty: sweep one "
                 "parameter."),
    Setting("sweep_range2", "range", (), "Range (second parameter)", group="sweep",
            pages=("sensitivity",),
            help="Smallest and largest value of the second parameter (empty: its full "
                 "range)."),
    Setting("sweep_points2", "int", 7, "Points (second parameter)", min=3, max=15, step=1,
            group="sweep", pages=("sensitivity",),
            help="Number of values of the second parameter; the map has Points × this "
                 "many cells."),
    # ---- scaling ---------------------------------------------------------------------------
    Setting("scale_clusters", "int", 4, "Clusters v", min=1, max=16, step=1, group="scaling",
            pages=("scaling",),
            help="v is the number of k-means clusters the problem is split into (one "
                 "independent problem per cluster)."),
    Setting("scale_max_clusters", "int", 10, "Largest v in the sweep", min=2, max=20,
            step=1, group="scaling", pages=("scaling",),
            help="The kernel mass between clusters and the guaranteed bound on the gap are "
                 "drawn for v = 1 … this value."),
    Setting("scale_max_n", "choice", 800, "Largest n for timing",
            options=(200, 400, 800, 1600, 3200), group="scaling", pages=("scaling",),
            help="Fit time is measured for n = 100, 200, … up to this value."),
)


def _with_parameter_labels(table: tuple[Setting, ...]) -> tuple[Setting, ...]:
    """The second swept parameter's choices read as the parameters' own labels (so the
    list says what each is, from the one table)."""
    from dataclasses import replace
    labels = {s.name: s.label for s in table}
    out = []
    for s in table:
        if s.name == "sweep_param2":
            s = replace(s, option_labels=(("", "none (sweep one parameter)"),) + tuple(
                (o, labels[o]) for o in s.options if o in labels))
        out.append(s)
    return tuple(out)


_STATIC_SETTINGS = _with_parameter_labels(_STATIC_SETTINGS)


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


@lru_cache(maxsize=1)
def _table() -> dict[str, Setting]:
    table = {s.name: s for s in _STATIC_SETTINGS}
    for s in _dataset_settings():
        table.setdefault(s.name, s)
    return table


def settings() -> dict[str, Setting]:
    """Every setting by name: the static table plus one per dataset parameter (a copy
    of the table built once: a page run asks for it about 60 times)."""
    return dict(_table())


def setting(name: str) -> Setting:
    return _table()[name]


def defaults() -> dict[str, Any]:
    """The default value of every setting."""
    return {name: s.default for name, s in settings().items()}
