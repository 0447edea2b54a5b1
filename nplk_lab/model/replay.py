"""Training replay: the model at the iterations a solver kept (``snapshots_``).

Every iterative solver of :mod:`nplk_core` keeps its iterate at up to 60 iterations,
dense early, always with the first and the final one (:class:`nplk_core._base.Snapshots`).
:func:`replay_frames` turns them into one :class:`ReplayFrame` per kept iteration: the
decision values on the surface grid (classification, or a 2-D regression) or the curve
(1-D regression), the support at that iteration, the train/test score, the objective
(the solver's history at that row) and the learned matrix (F, G or G − K) pooled to at
most 60 × 60 in class order, as the matrix view draws it. Everything is rebuilt from
the snapshots (α and the bias; F = F(α), G = G(α) in closed form; LAB RBF's bandwidths
and α): no ``n × n`` matrix is stored per iteration.

The work is bounded: a frame costs about (grid cells + n) × |support| kernel products
plus the learned matrix's rebuild; above :data:`REPLAY_SECONDS` of estimated work, or
above :data:`MAX_FRAME_CELLS` values to send to the browser, fewer frames are kept
(first and last always) and then the grid gets coarser, and a :class:`Message` says so.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .grids import Grid, drawn_rule, rule_columns
from .settings_table import CLASSIFICATION, Message, _msg

#: methods whose estimator keeps ``snapshots_`` (and the fitted attribute of the
#: history's objective)
REPLAY_METHODS = ("dank", "knpl", "onk", "lab_rbf", "dank_svr", "lab_rbf_reg")
#: estimated server seconds the frames of one replay may take
REPLAY_SECONDS = 2.0
#: decision values (frames × grid cells) sent to the browser at most (float32: 2.4 MB)
MAX_FRAME_CELLS = 60 * 100 * 100
#: fewest frames kept before the grid is made coarser
MIN_FRAMES = 15
#: the coarsest grid a replay uses
MIN_RESOLUTION = 30
#: side of the pooled learned-matrix heatmap
MATRIX_SIDE = 60
#: kernel products per second assumed by the cost estimate (numpy with its temporaries
#: reaches ~3e8 on the 2-core lab machine when it is idle; conservative for a busy one)
_PRODUCTS_PER_SECOND = 1.0e8


@dataclass
class ReplayFrame:
    """The model at one kept iteration."""

    iteration: int
    values: np.ndarray          # grid.shape (surface) or (len(x_line),) (curve)
    support: np.ndarray         # indices into the training points
    train_score: float
    test_score: float
    objective: float
    matrix: np.ndarray | None = None  # pooled learned matrix (≤ MATRIX_SIDE square)
    label: str = ""             # set on the start frame: what the untrained model is


@dataclass
class Replay:
    """The frames of a replay and what every frame shares."""

    method: str
    task: str
    kind: str = "surface"            # "surface" or "curve"
    xs: np.ndarray | None = None     # grid (surface) or line (curve) coordinates
    ys: np.ndarray | None = None
    frames: list[ReplayFrame] = field(default_factory=list)
    history_iteration: np.ndarray = field(default_factory=lambda: np.zeros(0))
    history_objective: np.ndarray = field(default_factory=lambda: np.zeros(0))
    objective_name: str = "objective"
    metric: str = "accuracy"
    matrix_name: str | None = None
    matrix_center: float | None = 1.0   # the value the matrix colour scale centres on
    n_iter: int = 0
    build_seconds: float = 0.0
    messages: list[Message] = field(default_factory=list)
    #: the untrained model, played before the first kept iteration: the plain kernel
    #: (F = 11ᵀ, G = 11ᵀ, ONK's G = K) with α at the solver's start (None: LAB RBF, whose
    #: first iteration already is its start, every bandwidth at the shared start value)
    start: ReplayFrame | None = None

    @property
    def ok(self) -> bool:
        return bool(self.frames)

    @property
    def played(self) -> list[ReplayFrame]:
        """The frames in playing order: the start (when there is one), then every kept
        iteration."""
        return ([self.start] if self.start is not None else []) + list(self.frames)

    @property
    def start_text(self) -> str:
        """What the first frame shows, in words."""
        if self.start is not None:
            return self.start.label
        if self.method in ("lab_rbf", "lab_rbf_reg"):
            return ("iteration 0 is the start: every support point at the shared starting "
                    "bandwidth")
        return ""

    @property
    def iterations(self) -> list[int]:
        return [f.iteration for f in self.frames]


def _fail(res: Any, text: str, level: str = "info") -> Replay:
    return Replay(method=getattr(res, "method", ""), task=getattr(res, "task", ""),
                  messages=[_msg(level, text)])


def keep_frames(n: int, k: int) -> np.ndarray:
    """Indices of ``k`` of ``n`` snapshots, spread evenly and always with the first and
    the last (the snapshots are already dense early, so an even spread keeps that)."""
    if k >= n:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, max(k, 2))).astype(int))


def _coarser(grid: Grid, resolution: int) -> Grid:
    return Grid(np.linspace(grid.xs[0], grid.xs[-1], resolution),
                np.linspace(grid.ys[0], grid.ys[-1], resolution))


def pool_matrix(M: np.ndarray, y: np.ndarray | None, side: int = MATRIX_SIDE) -> np.ndarray:
    """``M`` with its points ordered by class and block-averaged to at most ``side``
    rows, as the matrix view draws it."""
    from nplk_lab.figures.matrices import block_means, class_order

    order = class_order(y, M.shape[0])
    return block_means(np.asarray(M, dtype=float)[np.ix_(order, order)], side)[0]


# ---------------------------------------------------------------------------
# evaluating one snapshot
# ---------------------------------------------------------------------------

class _Evaluator:
    """Decision values, support and learned matrix of one snapshot of a method."""

    def __init__(self, res: Any, points: np.ndarray, X_test: np.ndarray,
                 extension: str | None, y_train: np.ndarray, factor: Any = None) -> None:
        from nplk_core.kernels import gaussian_kernel

        est = res.estimator
        self.est, self.method = est, res.method
        self.X = np.asarray(res.X_train, dtype=float)
        self.sets = {"grid": np.asarray(points, dtype=float), "train": self.X,
                     "test": np.asarray(X_test, dtype=float).reshape(-1, self.X.shape[1])}
        self.K = None
        self.kernels: dict[str, np.ndarray] = {}
        self.cols: dict[str, np.ndarray] = {}
        if self.method in ("lab_rbf", "lab_rbf_reg"):
            return
        sigma = float(est.sigma)
        self.K = np.asarray(est.K_, dtype=float)
        self.problem = None
        if self.method in ("dank", "dank_svr"):
            # F of an iterate through the same route as the solver (the kernel factor
            # when the support is well beyond its rank), so the last frame is the fit
            from nplk_core._dank_core import DankProblem

            n = self.X.shape[0]
            y = np.asarray(y_train, dtype=float)
            if self.method == "dank":
                labels, linear = est.y_pm_, np.ones(n)
            else:
                eps = float(est.epsilon)
                labels, linear = None, np.concatenate([y - eps, -y - eps])
            self.problem = DankProblem(self.K, labels, linear, est.C, est.eta_, est.tau,
                                       factor=factor)
        for name, P in self.sets.items():
            self.kernels[name] = gaussian_kernel(self.X, P, sigma=sigma) if len(P) \
                else np.zeros((self.X.shape[0], 0))
        if self.method in ("dank", "dank_svr", "knpl"):
            for name, P in self.sets.items():
                ext = extension if name == "grid" else None
                if not len(P):
                    self.cols[name] = np.zeros(0, dtype=int)
                elif self.method == "knpl":
                    self.cols[name] = rule_columns("smooth" if ext == "smooth" else "nearest",
                                                   P, self.X, sigma=sigma,
                                                   width=est.extension_width)
                else:
                    self.cols[name] = est._extension_columns(P, ext)

    def __call__(self, snap: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], np.ndarray,
                                                          np.ndarray | None]:
        """({set: decision values}, support indices, learned matrix or None)."""
        est, m = self.est, self.method
        if m in ("lab_rbf", "lab_rbf_reg"):
            from nplk_core.lab_rbf import lab_kernel

            alpha = np.asarray(snap["alpha"])
            k = alpha.size
            Xs = est._scale(np.asarray(est.support_vectors_)[:k])
            out = {name: (lab_kernel(Xs, snap["bandwidths_scaled"], est._scale(P),
                                     est.kernel).T @ alpha + snap["bias"]) if len(P)
                   else np.zeros(0) for name, P in self.sets.items()}
            return out, np.asarray(est.support_)[:k], None
        alpha = np.asarray(snap["alpha"], dtype=float)
        b = float(snap["bias"])
        n = self.X.shape[0]
        if m == "dank_svr":
            u = alpha[:n] - alpha[n:]
        else:
            u = alpha * self._labels()
        S = np.flatnonzero(u)
        from nplk_core.extension import extended_decision

        if m in ("dank", "dank_svr"):
            M = self.problem.evaluate(alpha, gradient=False)[2].dense()
        elif m == "knpl":
            from nplk_core.knpl import knpl_inner

            M = knpl_inner(alpha, self._labels(), self.K, gamma=est.gamma_, kernel_psd=True)
        else:  # onk: G = K + u u^T / (2 rho); the learned part is G - K
            M = np.outer(u, u) / (2.0 * float(est.rho))
        out = {}
        for name, Kt in self.kernels.items():
            if not Kt.shape[1]:
                out[name] = np.zeros(0)
            elif m == "onk":
                out[name] = u[S] @ Kt[S] + b
            else:
                out[name] = extended_decision(u, M, self.cols[name], Kt[S], b)
        support = np.flatnonzero(alpha[:n] + (alpha[n:] if m == "dank_svr" else 0) > 0)
        return out, support, M

    def start(self, snap: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], np.ndarray,
                                                      np.ndarray | None]:
        """The untrained model: the plain kernel (F = 11ᵀ, KNPL's G = 11ᵀ, ONK's G = K)
        with the solver's first iterate α⁰ and its bias."""
        m = self.method
        alpha = np.asarray(snap["alpha"], dtype=float)
        b = float(snap["bias"])
        n = self.X.shape[0]
        u = alpha[:n] - alpha[n:] if m == "dank_svr" else alpha * self._labels()
        S = np.flatnonzero(u)
        out = {name: (u[S] @ Kt[S] + b) if Kt.shape[1] else np.zeros(0)
               for name, Kt in self.kernels.items()}
        support = np.flatnonzero(alpha[:n] + (alpha[n:] if m == "dank_svr" else 0) > 0)
        M = np.zeros((n, n)) if m == "onk" else np.ones((n, n))
        return out, support, M

    def _labels(self) -> np.ndarray:
        y = getattr(self.est, "y_pm_", None)
        if y is not None:
            return np.asarray(y, dtype=float)
        return self._y_pm

    _y_pm: np.ndarray = np.zeros(0)


def _score(values: np.ndarray, y: np.ndarray, task: str, classes: np.ndarray | None
           ) -> float:
    from .methods import relative_error

    if len(y) == 0:
        return float("nan")
    if task == CLASSIFICATION:
        pred = classes[(values > 0).astype(int)]
        return float(np.mean(pred == y))
    return relative_error(y, values)


def _frame_seconds(res: Any, cells: int, n_test: int, m: int, eig: int | None = None
                   ) -> float:
    """Estimated seconds to build one frame: the kernel-weighted sums over a support of
    ``m`` points for the grid, the training and the test points, plus the learned
    matrix's rebuild (DANK: an eigendecomposition of size ``eig + 1``, ``eig`` = m or
    the kernel factor's rank, and the dense F)."""
    n = len(res.X_train)
    products = (cells + n + n_test) * max(m, 1)
    if res.method in ("dank", "dank_svr"):
        e = m if eig is None else eig
        products += 4 * (e + 1) ** 3 / 3 + 2 * n * n * (e + 1) ** 0.5
    elif res.method in ("knpl", "onk"):
        products += 4 * n * n
    return products / _PRODUCTS_PER_SECOND


def _plan(res: Any, grid: Any, n_test: int, n_snaps: int, m: int, seconds: float,
          max_cells: int, eig: int | None = None) -> tuple[int, int | None]:
    """(frames, grid resolution or None to keep the grid) within the budget: every
    snapshot when it fits; else a coarser grid when that alone keeps at least
    :data:`MIN_FRAMES`; else fewer frames (at least the first and the last)."""
    def frames(cells: int) -> int:
        per = _frame_seconds(res, cells, n_test, m, eig)
        return max(2, min(n_snaps, int(seconds / max(per, 1e-9)), max_cells // max(cells, 1)))

    if not isinstance(grid, Grid):
        return frames(len(grid)), None
    full = grid.xs.size
    k = frames(full * grid.ys.size)
    target = min(MIN_FRAMES, n_snaps)
    if k >= target:
        return k, None
    for r in range(full - 10, MIN_RESOLUTION - 1, -10):
        if frames(r * r) >= target:
            return frames(r * r), r
    return k, None


def replay_frames(res: Any, data: Any, grid: Grid | np.ndarray, P: Mapping[str, Any], *,
                  seconds: float = REPLAY_SECONDS, max_cells: int = MAX_FRAME_CELLS
                  ) -> Replay:
    """The frames of ``res``'s training replay on ``grid`` (a :class:`Grid` for a
    surface, an ``(m, 1)`` array of line points for a 1-D regression curve).

    ``data`` gives the labels and the test points (``LabData``); ``P`` the page's
    settings (the out-of-sample rule ``extension`` of the drawn surface). Never raises:
    a method without iterates, a failed or subsampled fit give a Replay without frames
    and a message saying why.
    """
    t0 = time.perf_counter()
    if res is None or not getattr(res, "ok", False):
        return _fail(res, "No fit to replay yet.")
    from .methods import METHODS

    label = METHODS[res.method].label
    est = res.estimator
    snaps = getattr(est, "snapshots_", None)
    if res.method == "knpl" and getattr(est, "solver", "apg") == "alternating":
        return _fail(res, "KNPL's Algorithm 2 takes G from an ADMM at each round, not "
                          "from α: its rounds are not replayed. The saddle-point solver "
                          "(apg) is.")
    if res.method not in REPLAY_METHODS:
        return _fail(res, f"{label} is not trained iteratively (one solve, no iterations), "
                          "so there is no training to replay; pick DANK, KNPL, ONK or "
                          "LAB RBF.")
    if np.size(getattr(est, "classes_", ())) > 2 or (snaps and not isinstance(snaps[0],
                                                                               Mapping)):
        return _fail(res, f"The replay shows two-class problems; {label} was fitted "
                          "one-vs-rest, one model per class.")
    if not snaps:
        return _fail(res, f"{label} kept no iterates in this fit.")
    if res.X_train is None or len(res.X_train) != len(data.y_train):
        return _fail(res, "The replay needs the fit on all training points; this one was "
                          "fitted on a subsample (see the note above).")
    if getattr(est, "n_clusters", 1) > 1:
        return _fail(res, "The scalable decomposition solves one problem per cluster; "
                          "its training is not replayed.")
    ext = drawn_rule(res.method, P.get("extension"))
    messages: list[Message] = []
    surface = isinstance(grid, Grid)
    n_snaps = len(snaps)
    m = int(np.count_nonzero(snaps[-1].get("alpha", ())))
    factor = eig = None
    if res.method in ("dank", "dank_svr"):
        from nplk_core.dank import _lazy_factor

        factor = _lazy_factor(np.asarray(est.K_, dtype=float))
        factor.array  # noqa: B018 (computed now: its rank sets the cost)
        r = factor.shape[1]
        eig = r if np.isfinite(r) and m > 1.5 * r else m
    k, coarse = _plan(res, grid, len(data.y_test), n_snaps, m, seconds, max_cells, eig)
    if coarse is not None:
        messages.append(_msg("info", f"The replay uses a {coarse} × {coarse} grid (the "
                                     f"surface: {grid.xs.size} × {grid.ys.size}) to stay "
                                     "within the lab's work budget."))
        grid = _coarser(grid, coarse)
    keep = keep_frames(n_snaps, k)
    if keep.size < n_snaps:
        messages.append(_msg("info", f"The replay shows {keep.size} of the {n_snaps} kept "
                                     "iterations (first and last included) to stay within "
                                     "the lab's work budget."))
    points = grid.points if surface else np.asarray(grid, dtype=float)
    from nplk_core._base import single_thread_blas

    with single_thread_blas():  # many small eigenproblems: threads only add contention
        frames, start = _frames(res, data, grid, surface, points, ext, keep, factor)
    hist = res.history or {}
    key = "objective" if "objective" in hist else ("loss" if "loss" in hist else None)
    obj = np.asarray(hist.get(key, np.zeros(0)), dtype=float) if key else np.zeros(0)
    name = {"dank": "F", "dank_svr": "F", "knpl": "G", "onk": "G − K"}.get(res.method)
    return Replay(
        start=start,
        method=res.method, task=res.task, kind="surface" if surface else "curve",
        xs=grid.xs if surface else points[:, 0], ys=grid.ys if surface else None,
        frames=frames, history_iteration=np.arange(obj.size), history_objective=obj,
        objective_name="loss" if key == "loss" else "objective", metric=res.metric,
        matrix_name=name, matrix_center=0.0 if res.method == "onk" else 1.0,
        n_iter=int(obj.size), build_seconds=time.perf_counter() - t0, messages=messages)


def _start_frame(res: Any, data: Any, grid: Any, surface: bool, ev: _Evaluator
                 ) -> ReplayFrame:
    """The untrained model (see :meth:`_Evaluator.start`), scored like every frame."""
    est = res.estimator
    snap = est.snapshots_[0]
    vals, support, M = ev.start(snap)
    classes = getattr(est, "classes_", None)
    name = {"dank": "F = all ones", "dank_svr": "F = all ones", "knpl": "G = all ones",
            "onk": "G = K"}[res.method]
    a0 = np.asarray(snap["alpha"], dtype=float)
    alpha = "α = 0: f is the bias alone" if not np.any(a0) else \
        f"α at the solver's start ({np.count_nonzero(a0)} non-zero)"
    return ReplayFrame(
        iteration=int(snap["iteration"]),
        values=vals["grid"].reshape(grid.shape) if surface else vals["grid"],
        support=np.asarray(support, dtype=int),
        train_score=_score(vals["train"], data.y_train, res.task, classes),
        test_score=_score(vals["test"], data.y_test, res.task, classes),
        objective=float("nan"), matrix=pool_matrix(M, data.y_train),
        label=f"start, untrained: {name} (the plain kernel), {alpha}")


def _frames(res: Any, data: Any, grid: Any, surface: bool, points: np.ndarray,
            ext: str | None, keep: np.ndarray, factor: Any
            ) -> tuple[list[ReplayFrame], ReplayFrame | None]:
    est = res.estimator
    snaps = est.snapshots_
    ev = _Evaluator(res, points, data.X_test, ext, data.y_train, factor)
    if res.method in ("knpl", "onk"):
        ev._y_pm = np.where(np.asarray(data.y_train) == est.classes_[1], 1.0, -1.0)
    hist = res.history or {}
    key = "objective" if "objective" in hist else ("loss" if "loss" in hist else None)
    obj = np.asarray(hist.get(key, np.zeros(0)), dtype=float) if key else np.zeros(0)
    classes = getattr(est, "classes_", None)
    frames = []
    for i in keep:
        snap = snaps[i]
        vals, support, M = ev(snap)
        it = int(snap["iteration"])
        frames.append(ReplayFrame(
            iteration=it,
            values=vals["grid"].reshape(grid.shape) if surface else vals["grid"],
            support=np.asarray(support, dtype=int),
            train_score=_score(vals["train"], data.y_train, res.task, classes),
            test_score=_score(vals["test"], data.y_test, res.task, classes),
            objective=float(obj[it]) if it < obj.size else float("nan"),
            matrix=None if M is None else pool_matrix(M, data.y_train)))
    start = _start_frame(res, data, grid, surface, ev) \
        if res.method in ("dank", "dank_svr", "knpl", "onk") else None
    return frames, start
