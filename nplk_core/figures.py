r"""Plotly figure builders for the lab: pure functions from arrays to ``go.Figure``.

This module is long because every figure of the lab lives here (~1,300 lines), with the
shared palette, layout and serialisation helpers they all use; it has no state, and
each section (surfaces, matrices, convergence, regression, clusters) reads on its own.

Conventions (scikit-learn gallery, ``shared/STYLE.md``):

* decision functions filled in colour bands (a heatmap with a stepped scale: the look of
  a filled contour at a fraction of its redraw cost) in a colour-blind-safe diverging
  palette centred at 0, the 0 level solid, the ±1 levels dashed, the baseline SVM's 0 level
  dotted on the same axes; support vectors as hollow circles; test points hollow;
  the scores in a corner;
* learned multipliers (DANK's F, KNPL's G) in a diverging palette centred at 1 that
  spans 1 ± their largest deviation, points ordered by class; kernels (K, F∘K, ONK's
  G) in one sequential palette; the change F∘K − K diverging around 0;
* spectra on a log-scale y axis; overlaid solvers each with their own colour, dash
  and marker, coinciding ones named;
* one palette for classes and clusters across every figure (:data:`CLASS_COLORS`,
  :data:`CLUSTER_COLORS`); clusters as filled dots, true classes as outline shapes,
  in separate legend groups;
* arrays go to Plotly as float32 numpy (sent base64-encoded), never as Python lists,
  and a figure at default sizes stays under 0.5 MB.

Every builder assembles plain trace and layout dicts and constructs the figure once
(no ``make_subplots``/``add_hline``/templates: they cost tens of milliseconds per
figure, and the app redraws on every slider move). Panels are laid out by axis
domains (:func:`_stacked`, :func:`_side_by_side`).
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

# ---------------------------------------------------------------------------
# palette (ColorBrewer RdBu ends and Okabe–Ito: both colour-blind safe)
# ---------------------------------------------------------------------------

#: point traces are SVG ``scatter``, not ``scattergl``: Streamlit remounts a changed chart,
#: and every remount of a WebGL trace builds a new (software-rendered) WebGL context —
#: measured 567 ms against 185 ms per decision-surface redraw in headless Chromium.
SCATTER = "scatter"

CLASS_COLORS: dict[int, str] = {-1: "#2166AC", 1: "#B2182B"}
CLASS_NAMES: dict[int, str] = {-1: "class −1", 1: "class +1"}
CLASS_SYMBOLS: dict[int, str] = {-1: "circle", 1: "square"}
CLUSTER_COLORS: tuple[str, ...] = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2",
                                   "#D55E00", "#F0E442", "#000000")
SERIES_COLORS: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                  "#56B4E9", "#000000")
#: diverging, blue (negative, class −1) → white (0) → red (positive, class +1)
DIVERGING: list[list[Any]] = [[0.0, "#2166AC"], [0.2, "#4393C3"], [0.4, "#D1E5F0"],
                              [0.5, "#F7F7F7"], [0.6, "#FDDBC7"], [0.8, "#D6604D"],
                              [1.0, "#B2182B"]]
SEQUENTIAL = "Viridis"
BASELINE_COLOR = "#009E73"
SURFACE_BANDS = 20  # colour bands of the decision surface (a filled contour's levels)
MUST_LINK_COLOR = "#009E73"
CANNOT_LINK_COLOR = "#D55E00"

_HISTORY_LABELS = {
    "objective": ("Objective", False),
    "step_norm": ("Step norm ‖Δ‖₂", True),
    "residual": ("ADMM residual", True),
    "admm_residual": ("ADMM residual", True),
    "gap": ("Duality gap", True),
    "rank": ("rank", False),
    "loss": ("Loss", True),
}


def f32(a: Any) -> np.ndarray:
    """``a`` as a contiguous float32 numpy array (what Plotly receives)."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def banded(scale: list[list[Any]], bands: int) -> list[list[Any]]:
    """``scale`` as ``bands`` flat steps of equal width (a filled-contour look for a
    heatmap); step k takes the colour of ``scale`` at k / (bands − 1), so the first
    and last steps keep the scale's end colours."""
    return [list(step) for step in _banded(tuple(map(tuple, scale)), int(bands))]


@functools.lru_cache(maxsize=8)
def _banded(scale: tuple, bands: int) -> tuple:
    from plotly.colors import sample_colorscale, unlabel_rgb

    colors = sample_colorscale([list(s) for s in scale],
                               list(np.arange(bands) / max(bands - 1, 1)), colortype="rgb")
    out = []
    for k, c in enumerate(colors):
        hexc = "#{:02X}{:02X}{:02X}".format(*(int(round(v)) for v in unlabel_rgb(c)))
        out += [(k / bands, hexc), ((k + 1) / bands, hexc)]
    return tuple(out)


def class_color(label: float) -> str:
    return CLASS_COLORS[1 if label > 0 else -1]


def cluster_color(k: int) -> str:
    return CLUSTER_COLORS[int(k) % len(CLUSTER_COLORS)]


def plot_config(filename: str = "nplk-lab") -> dict[str, Any]:
    """Plotly ``config`` for the lab's charts: PNG download at 2× scale."""
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
            "modeBarButtonsToRemove": ["lasso2d"]}


TEXT_COLOR = "#262730"
TICK_COLOR = "#3D3D4E"


def _layout(title: str = "", height: int = 480, *, top: int | None = None,
            **kw: Any) -> dict[str, Any]:
    """Common layout: dark text large enough to project, no padding between the data
    and the frame, the legend pinned to the bottom of the figure (container
    coordinates: it can never collide with the x-axis title) and the title at the top
    left. ``top`` overrides the top margin (room for a note above the plot)."""
    lay: dict[str, Any] = dict(
        height=height,
        margin=dict(l=60, r=20, t=top if top is not None else (56 if title else 24), b=40,
                    pad=0),
        legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0,
                    xanchor="left", font=dict(size=13, color=TEXT_COLOR)),
        font=dict(size=13, color=TEXT_COLOR), plot_bgcolor="white", hovermode="closest")
    if title:
        lay["title"] = dict(text=title, x=0.0, xanchor="left", xref="paper",
                            yref="container", y=1.0, yanchor="top", pad=dict(t=10),
                            font=dict(size=17, color=TEXT_COLOR))
    lay.update(kw)
    return lay


def _axis(title: str = "", **kw: Any) -> dict[str, Any]:
    ax = dict(showgrid=True, gridcolor="#E5E5E5", zeroline=False, showline=True,
              linecolor="#888", mirror=True, ticks="outside", tickcolor="#888",
              tickfont=dict(size=13, color=TICK_COLOR), automargin=True)
    if title:
        ax["title"] = dict(text=title, font=dict(size=14, color=TEXT_COLOR))
    ax.update(kw)
    return ax


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure, without plotly.py's per-property validation (about half the cost of
    a figure at toy size, paid on every slider move). The tests build every figure
    with validation on (``tests/test_figures.py``), so a bad property still fails."""
    return go.Figure(data=traces, layout=layout, _validate=VALIDATE)


VALIDATE = False  # the tests switch this on

_TYPED = {"float32": "f4", "float64": "f8", "int8": "i1", "uint8": "u1", "int16": "i2",
          "uint16": "u2", "int32": "i4", "uint32": "u4"}


def _json_default(o: Any) -> Any:
    """numpy arrays as Plotly.js typed-array specs (``{dtype, bdata, shape}``, the
    encoding plotly.py uses), numpy scalars as numbers."""
    if isinstance(o, np.ndarray):
        a = o
        if a.dtype.kind in "iu" and str(a.dtype) not in _TYPED:
            a = a.astype(np.int32) if a.size == 0 or (
                np.abs(a).max() < 2 ** 31) else a.astype(np.float64)
        code = _TYPED.get(str(a.dtype))
        if code is None:  # bool, object, strings: plain lists
            return a.tolist()
        spec = {"dtype": code,
                "bdata": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")}
        if a.ndim > 1:
            spec["shape"] = ", ".join(map(str, a.shape))
        return spec
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"cannot serialise {type(o).__name__} in a figure")


def figure_json(fig: go.Figure) -> str:
    """``fig`` as the JSON Plotly.js reads, without plotly.py's deep copy of the whole
    figure (``to_json`` copies every array before encoding: ~5-15 ms per figure at toy
    size, on every slider move). Same content as ``fig.to_json()``."""
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if not isinstance(data, list) or not isinstance(layout, dict):
        return fig.to_json()
    try:
        return json.dumps({"data": data, "layout": layout}, default=_json_default,
                          separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):  # a NaN outside an array, an unknown type
        return fig.to_json()


def _corner_note(text: str, *, axes: str = "") -> list[dict]:
    """The score in the top-right corner of the plot, just *above* its frame (inside,
    it would cover data). Positioned in axis-domain coordinates so it follows the frame
    when an equal aspect ratio narrows the plot; needs a top margin of ~70 px when the
    figure also has a title."""
    if not text:
        return []
    return [dict(text=text, xref=f"x{axes} domain", yref=f"y{axes} domain", x=1.0, y=1.0,
                 xanchor="right", yanchor="bottom", yshift=4, showarrow=False,
                 align="right", bgcolor="rgba(255,255,255,0.9)", bordercolor="#888",
                 borderwidth=1, borderpad=3, font=dict(size=13, color=TEXT_COLOR))]


def _note_top(title: str, note: str) -> int:
    """Top margin for a title and/or a note above the plot frame."""
    return (56 if title else 16) + (26 if note else 0)


def _score_text(train: float | None, test: float | None, metric: str) -> str:
    parts = [f"{name} {v:.3f}" for name, v in (("train", train), ("test", test))
             if v is not None and np.isfinite(v)]
    return (metric + ": " + " · ".join(parts)) if parts else ""


def _suffix(i: int) -> str:
    return "" if i == 1 else str(i)


def _stacked(n: int, gap: float = 0.08, titles: Sequence[str] = ()) -> dict[str, Any]:
    """Layout entries for ``n`` panels stacked vertically with a shared x axis
    (panel ``r`` uses axes ``x{r}``/``y{r}``, 1-based, top to bottom); ``titles`` name
    the panels' y axes."""
    h = (1.0 - gap * (n - 1)) / n
    lay: dict[str, Any] = {}
    for r in range(1, n + 1):
        top = 1.0 - (r - 1) * (h + gap)
        s = _suffix(r)
        lay[f"xaxis{s}"] = _axis(anchor=f"y{s}", showticklabels=(r == n),
                                 **({"matches": "x"} if r > 1 else {}))
        lay[f"yaxis{s}"] = _axis(titles[r - 1] if r <= len(titles) else "",
                                 domain=[max(top - h, 0.0), min(top, 1.0)], anchor=f"x{s}")
    lay["annotations"] = []
    return lay


def _side_by_side(k: int, gap: float = 0.08, titles: Sequence[str] = ()) -> dict[str, Any]:
    """Layout entries for ``k`` panels side by side (axes ``x{c}``/``y{c}``)."""
    w = (1.0 - gap * (k - 1)) / k
    lay: dict[str, Any] = {}
    notes = []
    for c in range(1, k + 1):
        left = (c - 1) * (w + gap)
        s = _suffix(c)
        lay[f"xaxis{s}"] = _axis(domain=[max(left, 0.0), min(left + w, 1.0)],
                                 anchor=f"y{s}")
        lay[f"yaxis{s}"] = _axis(anchor=f"x{s}")
        if c <= len(titles):
            notes.append(dict(text=titles[c - 1], xref="paper", yref="paper",
                              x=left + w / 2, y=1.0, xanchor="center", yanchor="bottom",
                              showarrow=False, font=dict(size=13)))
    lay["annotations"] = notes
    return lay


# ---------------------------------------------------------------------------
# classification: decision surface
# ---------------------------------------------------------------------------

def _class_traces(X: np.ndarray, y: np.ndarray, *, hollow: bool, name_suffix: str,
                  size: int = 8, opacity: float = 1.0) -> list[dict]:
    out = []
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    for lab in (-1, 1):
        m = (y > 0) if lab > 0 else (y <= 0)
        if not np.any(m):
            continue
        color = CLASS_COLORS[lab]
        if hollow:
            marker = dict(symbol=CLASS_SYMBOLS[lab] + "-open", size=size, color=color,
                          line=dict(width=2, color=color))
        else:
            marker = dict(symbol=CLASS_SYMBOLS[lab], size=size, color=color,
                          line=dict(width=1, color="white"))
        out.append(dict(
            type=SCATTER, x=f32(X[m, 0]), y=f32(X[m, 1]), mode="markers", marker=marker,
            opacity=opacity, name=f"{CLASS_NAMES[lab]} ({name_suffix})",
            legendgroup=name_suffix,
            hovertemplate=f"{CLASS_NAMES[lab]}<br>x1=%{{x:.3f}}<br>x2=%{{y:.3f}}"
                          f"<extra>{name_suffix}</extra>"))
    return out


def level_lines(xs: np.ndarray, ys: np.ndarray, Z: np.ndarray, level: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """The curves {z = level} of a grid function, by marching squares.

    ``Z[i, j]`` is the value at ``(xs[j], ys[i])``. Crossings are placed on cell edges
    by linear interpolation; a saddle cell is resolved by the value at its centre (the
    mean of its corners). Returns ``(x, y)``: the polylines one after another with a NaN
    between them (Plotly's line gaps); a closed curve repeats its first point at the end.
    """
    Z = np.asarray(Z, dtype=float)
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    ny, nx = Z.shape
    if ny < 2 or nx < 2:
        return np.zeros(0), np.zeros(0)
    up = Z > level
    # crossing points on horizontal edges (i, j)-(i, j+1) and vertical (i, j)-(i+1, j)
    with np.errstate(invalid="ignore", divide="ignore"):
        th = (level - Z[:, :-1]) / (Z[:, 1:] - Z[:, :-1])
        tv = (level - Z[:-1, :]) / (Z[1:, :] - Z[:-1, :])
    hx = xs[None, :-1] + th * np.diff(xs)[None, :]
    vy = ys[:-1, None] + tv * np.diff(ys)[:, None]
    h_cross = up[:, :-1] != up[:, 1:]                       # (ny, nx-1)
    v_cross = up[:-1, :] != up[1:, :]                       # (ny-1, nx)
    n_h = ny * (nx - 1)

    def hid(i, j):
        return i * (nx - 1) + j

    def vid(i, j):
        return n_h + i * nx + j

    # the four edges of cell (i, j): bottom, top, left, right
    ci, cj = np.meshgrid(np.arange(ny - 1), np.arange(nx - 1), indexing="ij")
    edges = np.stack([hid(ci, cj), hid(ci + 1, cj), vid(ci, cj), vid(ci, cj + 1)], -1)
    crosses = np.stack([h_cross[:-1, :], h_cross[1:, :], v_cross[:, :-1], v_cross[:, 1:]],
                       -1)
    count = crosses.sum(-1)
    seg_a, seg_b = [], []
    two = count == 2
    if two.any():
        e = edges[two][crosses[two]].reshape(-1, 2)
        seg_a.append(e[:, 0])
        seg_b.append(e[:, 1])
    four = count == 4
    if four.any():
        fi, fj = ci[four], cj[four]
        centre_up = (Z[fi, fj] + Z[fi, fj + 1] + Z[fi + 1, fj] + Z[fi + 1, fj + 1]) / 4 > level
        joined = centre_up == up[fi, fj]       # corner (i, j) connects to (i+1, j+1)
        e = edges[four]
        # joined: cut off corners (i, j+1) [bottom-right] and (i+1, j) [top-left];
        # else: cut off corners (i, j) [bottom-left] and (i+1, j+1) [top-right]
        first = np.where(joined[:, None], e[:, [0, 3]], e[:, [0, 2]])
        second = np.where(joined[:, None], e[:, [2, 1]], e[:, [3, 1]])
        seg_a += [first[:, 0], second[:, 0]]
        seg_b += [first[:, 1], second[:, 1]]
    if not seg_a:
        return np.zeros(0), np.zeros(0)
    a, b = np.concatenate(seg_a), np.concatenate(seg_b)

    px = np.empty(n_h + ny * nx)
    py = np.empty_like(px)
    px[:n_h], py[:n_h] = hx.ravel(), np.repeat(ys, nx - 1)
    px[n_h:], py[n_h:] = np.tile(xs, ny), np.vstack([vy, np.full((1, nx), np.nan)]).ravel()

    # chain the segments: every crossing point joins at most two segments
    nbr: dict[int, list[int]] = {}
    for k, (u, v) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        nbr.setdefault(u, []).append(k)
        nbr.setdefault(v, []).append(k)
    used = np.zeros(len(a), dtype=bool)
    chains: list[list[int]] = []
    starts = [u for u, ks in nbr.items() if len(ks) == 1] + list(nbr)
    for s0 in starts:
        if all(used[k] for k in nbr[s0]):
            continue
        chain, node = [s0], s0
        while True:
            nxt = next((k for k in nbr[node] if not used[k]), None)
            if nxt is None:
                break
            used[nxt] = True
            node = int(b[nxt]) if a[nxt] == node else int(a[nxt])
            chain.append(node)
        chains.append(chain)
    idx = []
    for c in chains:
        idx += c + [-1]
    idx = np.asarray(idx[:-1])
    x = np.where(idx >= 0, px[idx], np.nan)
    y = np.where(idx >= 0, py[idx], np.nan)
    return x, y


def _ring_trace(points: np.ndarray, *, name: str, size: int) -> dict:
    """Support vectors / points as black rings around their markers."""
    P = np.asarray(points)
    return dict(type=SCATTER, x=f32(P[:, 0]), y=f32(P[:, 1]), mode="markers", name=name,
                hoverinfo="skip",
                marker=dict(symbol="circle-open", size=size, color="black",
                            line=dict(width=1.5)))


def _level_trace(xs: np.ndarray, ys: np.ndarray, z: np.ndarray, *, levels: Sequence[float],
                 color: str, width: float, dash: str, name: str) -> dict:
    """The curves z = level (for each level) as one line trace: far cheaper for the
    browser to draw than a Plotly contour trace, which re-runs marching squares and
    builds its own paths on every redraw."""
    parts_x, parts_y = [], []
    for lev in levels:
        x, y = level_lines(xs, ys, z, lev)
        if x.size:
            parts_x += [x, [np.nan]]
            parts_y += [y, [np.nan]]
    x = np.concatenate(parts_x[:-1]) if parts_x else np.zeros(0)
    y = np.concatenate(parts_y[:-1]) if parts_y else np.zeros(0)
    return dict(type="scatter", x=f32(x), y=f32(y), mode="lines", hoverinfo="skip",
                line=dict(color=color, width=width, dash=dash), name=name,
                showlegend=True)


def decision_surface(xs: np.ndarray, ys: np.ndarray, Z: np.ndarray | None,
                     X_train: np.ndarray, y_train: np.ndarray,
                     X_test: np.ndarray | None = None, y_test: np.ndarray | None = None, *,
                     support: np.ndarray | None = None, baseline: np.ndarray | None = None,
                     baseline_name: str = "SVM boundary", train_score: float | None = None,
                     test_score: float | None = None, metric: str = "accuracy",
                     title: str = "", click_targets: np.ndarray | None = None,
                     height: int = 600) -> go.Figure:
    """Decision function on a grid with the data (scikit-learn gallery conventions).

    Parameters
    ----------
    xs, ys : grid coordinates (``Z`` has shape ``(len(ys), len(xs))``)
    Z : decision values on the grid, or None to draw only the data
    X_train, y_train, X_test, y_test : points; labels in {−1, +1}
    support : support vectors (rows of points), drawn as hollow circles
    baseline : the baseline model's decision values on the same grid; its 0 level is
        drawn dotted
    click_targets : points of an invisible scatter layer the page can select to add
        points (Plotly gives no click events on empty canvas); it is the last trace
    """
    traces: list[dict] = []
    xs32, ys32 = f32(xs), f32(ys)
    if Z is not None:
        Z = np.asarray(Z, dtype=float)
        m = float(np.nanpercentile(np.abs(Z), 99)) if Z.size else 1.0
        m = max(1.25, min(m, 50.0))
        z32 = f32(np.clip(Z, -m, m))
        # Filled bands as a heatmap with a stepped colour scale, smoothed by the browser:
        # it looks like a filled contour plot but costs a fraction of one to redraw
        # (Plotly traces every band's polygon of a filled contour on each update).
        traces.append(dict(
            type="heatmap", x=xs32, y=ys32, z=z32, colorscale=banded(DIVERGING, SURFACE_BANDS),
            zmin=-m, zmax=m, zsmooth="best", opacity=0.8, name="decision function",
            colorbar=dict(title=dict(text="f(x)"), thickness=12, len=0.8),
            hovertemplate="x1=%{x:.2f}<br>x2=%{y:.2f}<br>f=%{z:.3f}<extra></extra>"))
        traces.append(_level_trace(xs, ys, Z, levels=(0.0,), color="black", width=2.5,
                                   dash="solid", name="f(x) = 0"))
        traces.append(_level_trace(xs, ys, Z, levels=(-1.0, 1.0), color="black", width=1.2,
                                   dash="dash", name="f(x) = ±1"))
    if baseline is not None:
        traces.append(_level_trace(xs, ys, baseline, levels=(0.0,), color=BASELINE_COLOR,
                                   width=2.5, dash="dot", name=baseline_name))
    traces += _class_traces(X_train, y_train, hollow=False, name_suffix="train")
    if X_test is not None and y_test is not None and len(y_test):
        traces += _class_traces(X_test, y_test, hollow=True, name_suffix="test")
    if support is not None and len(support):
        traces.append(_ring_trace(support, name="support vectors", size=15))
    if click_targets is not None and len(click_targets):
        T = np.asarray(click_targets)
        traces.append(dict(
            type="scatter", x=f32(T[:, 0]), y=f32(T[:, 1]), mode="markers",
            name="click to add", showlegend=False,
            marker=dict(size=14, color="rgba(0,0,0,0)"),
            selected=dict(marker=dict(opacity=0.0)), unselected=dict(marker=dict(opacity=0.0)),
            hovertemplate="add a point at (%{x:.2f}, %{y:.2f})<extra></extra>"))
    score = _score_text(train_score, test_score, metric)
    layout = _layout(
        title, height, top=_note_top(title, score),
        xaxis=_axis("x1", range=[float(xs[0]), float(xs[-1])], constrain="domain"),
        yaxis=_axis("x2", range=[float(ys[0]), float(ys[-1])], scaleanchor="x",
                    scaleratio=1, constrain="domain"),
        annotations=_corner_note(score))
    if click_targets is not None:
        layout["dragmode"] = "select"
        layout["clickmode"] = "event+select"
    return _figure(traces, layout)


# ---------------------------------------------------------------------------
# matrices
# ---------------------------------------------------------------------------

def class_order(y: np.ndarray | None, n: int) -> np.ndarray:
    """Point order for matrix views: grouped by class (stable within a class)."""
    if y is None:
        return np.arange(n)
    return np.argsort(np.asarray(y), kind="stable")


def _pool(M: np.ndarray, max_side: int) -> tuple[np.ndarray, np.ndarray]:
    """Block-average a square matrix down to at most ``max_side`` rows (blocks of
    nearly equal size); return the pooled matrix and the start index of every block."""
    n = M.shape[0]
    if n <= max_side:
        return M, np.arange(n)
    starts = np.unique(np.floor(np.linspace(0, n, max_side + 1)).astype(int)[:-1])
    sums = np.add.reduceat(np.add.reduceat(M, starts, axis=0), starts, axis=1)
    sizes = np.diff(np.append(starts, n))
    return sums / np.outer(sizes, sizes), starts


def _ordered(M: np.ndarray, order: np.ndarray, max_side: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``M`` in ``order``, block-averaged beyond ``max_side`` rows: (drawn matrix, start
    of every block, hover labels)."""
    Mo = np.asarray(M, dtype=float)[np.ix_(order, order)]
    P, starts = _pool(Mo, max_side)
    n = Mo.shape[0]
    if P.shape[0] == n:
        labels = np.array([str(i) for i in order])
    else:
        ends = np.append(starts[1:], n) - 1
        labels = np.array([f"sorted {a}–{b}" for a, b in zip(starts, ends, strict=True)])
    return P, starts, labels


def _heatmap(M: np.ndarray, order: np.ndarray, *, name: str, colorscale: Any,
             zmid: float | None, zmin: float | None = None, zmax: float | None = None,
             max_side: int = 180, colorbar: dict | None = None, axes: int = 1,
             drawn: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
             ) -> tuple[dict, np.ndarray]:
    """Heatmap trace of ``M`` in ``order`` (block-averaged beyond ``max_side``; or
    ``drawn``, the result of :func:`_ordered` when the caller already has it); hover
    shows the original indices i, j and the value."""
    P, starts, labels = drawn if drawn is not None else _ordered(M, order, max_side)
    s = _suffix(axes)
    tr = dict(type="heatmap", z=f32(P), x=labels, y=labels, colorscale=colorscale,
              name=name, colorbar=colorbar or dict(thickness=12), xaxis=f"x{s}",
              yaxis=f"y{s}",
              hovertemplate=f"i=%{{y}}<br>j=%{{x}}<br>{name}=%{{z:.4g}}<extra></extra>")
    for k, v in (("zmid", zmid), ("zmin", zmin), ("zmax", zmax)):
        if v is not None:
            tr[k] = v
    return tr, starts


def symmetric_limits(M: np.ndarray, center: float) -> tuple[float, float]:
    """Colour limits ``center ± max|M − center|`` of a diverging scale: the strongest
    change reaches the end colours, however small it is (F within 1 ± 0.005 shows its
    pattern instead of a flat white). A matrix equal to ``center`` gets ± 1e-12."""
    M = np.asarray(M, dtype=float)
    dev = float(np.nanmax(np.abs(M - center))) if M.size and np.isfinite(M).any() else 0.0
    dev = dev if dev > 0 else 1e-12
    return center - dev, center + dev


def _class_lines(y: np.ndarray | None, starts: np.ndarray, axes: int = 1) -> list[dict]:
    """Thin lines between the class blocks of a class-ordered matrix view (none when
    ``y`` is a continuous target: more than 10 distinct values)."""
    if y is None or np.unique(y).size > 10:
        return []
    ys = np.sort(np.asarray(y))
    cuts = np.flatnonzero(np.diff(ys) != 0) + 1
    s = _suffix(axes)
    out = []
    for c in cuts:
        pos = float(np.searchsorted(starts, c)) - 0.5
        line = dict(color="black", width=1)
        out.append(dict(type="line", xref=f"x{s}", yref=f"y{s} domain", x0=pos, x1=pos,
                        y0=0, y1=1, line=line))
        out.append(dict(type="line", yref=f"y{s}", xref=f"x{s} domain", y0=pos, y1=pos,
                        x0=0, x1=1, line=line))
    return out


def _matrix_axes(s: str, **kw: Any) -> tuple[dict, dict]:
    # both axes shrink their domain (not widen their range) to keep the cells square:
    # the class lines span the axis domain, so a widened range let them overrun the matrix
    x = dict(showticklabels=False, type="category", showgrid=False, ticks="",
             constrain="domain", **kw)
    y = dict(showticklabels=False, type="category", autorange="reversed", showgrid=False,
             ticks="", scaleanchor=f"x{s}", constrain="domain")
    return x, y


def _pm(v: float) -> str:
    return f"{v:.2g}"


def matrix_heatmap(M: np.ndarray, y: np.ndarray | None = None, *, name: str = "F",
                   center: float | None = 1.0, max_side: int = 180, title: str = "",
                   height: int = 480) -> go.Figure:
    """Heatmap of one matrix, points ordered by class; diverging palette spanning
    ``center ± max|M − center|`` (1 for F and G), or sequential with ``center=None``
    (a kernel K)."""
    M = np.asarray(M, dtype=float)
    order = class_order(y, M.shape[0])
    drawn = _ordered(M, order, max_side)
    if center is not None:
        lo, hi = symmetric_limits(drawn[0], center)
        bar = dict(thickness=12, title=dict(text=f"{name}<br>{center:g} ± {_pm(hi - center)}",
                                            side="top"))
        tr, starts = _heatmap(M, order, name=name, colorscale=DIVERGING, zmid=center,
                              zmin=lo, zmax=hi, colorbar=bar, drawn=drawn)
    else:
        tr, starts = _heatmap(M, order, name=name, colorscale=SEQUENTIAL, zmid=None,
                              drawn=drawn)
    xa, ya = _matrix_axes("")
    layout = _layout(title or f"{name} (points ordered by class)", height, xaxis=xa,
                     yaxis=ya, shapes=_class_lines(y, starts))
    return _figure([tr], layout)


def matrix_triptych(K: np.ndarray, F: np.ndarray, y: np.ndarray | None = None, *,
                    name: str = "F", product: bool = True, difference: bool = False,
                    max_side: int | None = None, pooled_side: int = 128, title: str = "",
                    height: int = 360) -> go.Figure:
    """``K | F | F∘K`` (and ``F∘K − K`` with ``difference``) as a row of square
    heatmaps, points ordered by class.

    ``product=True`` (DANK's F, KNPL's G: multipliers of K, equal to 1 where the kernel
    is unchanged): K and F∘K share one sequential scale (one colour bar, "K, F∘K"), so
    the product reads directly as a reweighted K; F has its own diverging bar centred
    at 1 spanning 1 ± max|F − 1|, so the largest change reaches the end colours however
    small it is. ``product=False`` (ONK's G = K + a rank-one term: a kernel, not a
    multiplier): ``K | G`` on the one shared sequential scale, no product panel.
    ``difference`` adds what the learning changed, ``F∘K − K`` (or ``G − K``), on a
    diverging scale centred at 0 spanning ± its largest entry. Matrices with more than
    ``max_side`` rows are block-averaged to ``pooled_side`` blocks so the figure stays
    small (the scales then span the block averages that are drawn); below that every
    entry is drawn. The default ``max_side`` keeps the cells drawn within those of three
    300 × 300 panels (300 for three panels, 259 for four).
    """
    K = np.asarray(K, dtype=float)
    F = np.asarray(F, dtype=float)
    n = K.shape[0]
    if max_side is None:
        max_side = int(300 * np.sqrt(3 / (1 + product + 1 + difference)))
    side = n if n <= max_side else pooled_side
    order = class_order(y, n)
    learned = F * K if product else F           # the kernel the model uses
    prod = f"{name}∘K"
    used = prod if product else name
    drawn = {"K": _ordered(K, order, side), "learned": _ordered(learned, order, side)}
    lo = min(0.0, *(float(np.nanmin(d[0])) for d in drawn.values()))
    hi = max(float(np.nanmax(d[0])) for d in drawn.values())
    hi = 1.0 if hi <= 1.0 else float(f"{hi:.3g}")
    shared = ("K, " + used, SEQUENTIAL, None, lo, hi)
    # (panel name, drawn matrix, scale: (bar title, colours, mid, zmin, zmax))
    panels = [("K", drawn["K"], shared)]
    if product:
        dF = _ordered(F, order, side)
        flo, fhi = symmetric_limits(dF[0], 1.0)
        panels.append((name, dF, (f"{name}<br>1 ± {_pm(fhi - 1.0)}", DIVERGING, 1.0,
                                  flo, fhi)))
        panels.append((prod, drawn["learned"], shared))
    else:
        panels.append((name, drawn["learned"], shared))
    if difference:
        dname = f"{used} − K"
        dD = _ordered(learned - K, order, side)
        dlo, dhi = symmetric_limits(dD[0], 0.0)
        panels.append((dname, dD, (f"{dname}<br>± {_pm(dhi)}", DIVERGING, 0.0, dlo, dhi)))
    k = len(panels)
    bars = list(dict.fromkeys(p[2][0] for p in panels))      # one bar per scale
    # panels fill [0, right]; the colour bars sit side by side in the rest
    right = {1: 0.86, 2: 0.8, 3: 0.79}[len(bars)] if k > 2 else 0.7
    slot = (1.0 - right) / len(bars)
    gap = 0.03
    w = (right - gap * (k - 1)) / k
    traces, shapes, notes = [], [], []
    layout: dict[str, Any] = {}
    shown: set[str] = set()
    for c, (nm, d, (bar_title, cs, mid, zmin, zmax)) in enumerate(panels, start=1):
        s = _suffix(c)
        bar = dict(thickness=14, len=0.85, y=0.5, yanchor="middle", xanchor="left",
                   x=right + 0.02 + slot * bars.index(bar_title), outlinewidth=0,
                   tickfont=dict(size=12, color=TICK_COLOR),
                   title=dict(text=bar_title, side="top",
                              font=dict(size=13, color=TEXT_COLOR)))
        M = d[0]
        tr, starts = _heatmap(M, order, name=nm, colorscale=cs, zmid=mid, zmin=zmin,
                              zmax=zmax, colorbar=bar, axes=c, drawn=d)
        # one bar per scale: K's bar stands for F∘K (or G) too
        tr["showscale"] = bar_title not in shown
        shown.add(bar_title)
        traces.append(tr)
        shapes += _class_lines(y, starts, axes=c)
        left = (c - 1) * (w + gap)
        xa, ya = _matrix_axes(s, domain=[left, left + w], anchor=f"y{s}")
        ya["anchor"] = f"x{s}"
        ya["domain"] = [0.0, 1.0]
        layout[f"xaxis{s}"], layout[f"yaxis{s}"] = xa, ya
        notes.append(dict(text=f"<b>{nm}</b>", xref=f"x{s} domain", yref=f"y{s} domain",
                          x=0.5, y=1.0, xanchor="center", yanchor="bottom", yshift=2,
                          showarrow=False, font=dict(size=15, color=TEXT_COLOR)))
    what = (f"Kernel K, learned {name} and {prod}" if product
            else f"Kernel K and learned kernel {name}")
    if difference:
        what += f", change {used} − K"
    by = "class" if y is None or np.unique(y).size <= 10 else "target"
    head = title or f"{what} ({n} training points, ordered by {by})"
    if side < n:
        head += f" — block-averaged to {side}×{side}"
    lay = _layout(head, height, top=70, shapes=shapes, annotations=notes, **layout)
    lay["margin"].update(l=10, r=10, b=16)
    return _figure(traces, lay)


# ---------------------------------------------------------------------------
# spectra and convergence
# ---------------------------------------------------------------------------

#: display names of the matrices the estimators key their spectra by
_MATRIX_NAMES = {"FK": "F∘K", "GK": "G∘K"}


def _log_axis(values: Sequence[float]) -> dict[str, Any]:
    """Tick settings for a log axis over ``values``: one labelled tick per decade (or
    per 2, 3, … decades over a wide range) shown as powers of ten; under two decades,
    ticks at 1, 2 and 5 with plain numbers (0.02, 0.05, 0.1) — instead of Plotly's
    default bare "2" and "5" labels."""
    v = np.asarray([x for x in values if np.isfinite(x) and x > 0], dtype=float)
    if v.size < 2 or np.log10(v.max()) - np.log10(v.min()) < 2:
        return dict(type="log", dtick="D2", tickformat="~g")
    decades = np.log10(v.max()) - np.log10(v.min())
    return dict(type="log", exponentformat="power", dtick=int(max(1, np.ceil(decades / 7))))


def spectra_figure(spectra: Mapping[str, np.ndarray], *, rank: int | None = None,
                   rank_label: str = "rank(F)", title: str | None = None,
                   height: int = 420, rel_floor: float = 1e-12) -> go.Figure:
    """Sorted eigenvalues on a log-scale y axis (one line per matrix); values below
    ``rel_floor`` times the largest are left out (they are numerically zero)."""
    traces = []
    tops: list[float] = []
    for i, (name, lam) in enumerate(spectra.items()):
        name = _MATRIX_NAMES.get(name, name)
        lam = np.sort(np.asarray(lam, dtype=float))[::-1]
        if lam.size == 0:
            continue
        top = float(np.max(np.abs(lam))) or 1.0
        shown = np.where(lam > rel_floor * top, lam, np.nan)
        tops += [float(np.nanmax(shown)), float(np.nanmin(shown))] if np.isfinite(
            shown).any() else []
        traces.append(dict(
            type="scatter", x=f32(np.arange(1, lam.size + 1)), y=f32(shown),
            mode="lines+markers", marker=dict(size=4),
            line=dict(color=SERIES_COLORS[i % len(SERIES_COLORS)]), name=name,
            hovertemplate=f"{name}: λ_%{{x}} = %{{y:.3g}}<extra></extra>"))
    if title is None:
        title = "Eigen-decay of " + ", ".join(t["name"] for t in traces)
    note_text = f"{rank_label} = {rank}" if rank is not None else ""
    layout = _layout(title, height, top=_note_top(title, note_text),
                     xaxis=_axis("index i (eigenvalues in descending order)"),
                     yaxis=_axis("eigenvalue λᵢ (log scale)", **_log_axis(tops)),
                     annotations=_corner_note(note_text))
    return _figure(traces, layout)


#: one (dash, marker symbol) per overlaid solver: curves that coincide stay distinct
#: (a dashed line over a solid one, markers of different shapes at different iterations)
SOLVER_STYLES: tuple[tuple[str, str], ...] = (
    ("solid", "circle"), ("dash", "x"), ("dot", "diamond"), ("dashdot", "triangle-up"),
    ("longdash", "square"), ("longdashdot", "star"), ("5px,3px,1px,3px", "cross"))
_MARKS = 8  # markers per curve when the curves are long (one every n/8 iterations)


def _panel_series(h: Mapping[str, Any], key: str, log: bool) -> np.ndarray | None:
    v = h.get(key)
    if v is None or not np.size(v):
        return None
    v = np.asarray(v, dtype=float)
    return np.where(v > 0, v, np.nan) if log else v


def coinciding(histories: Mapping[str, Mapping[str, np.ndarray]], panels: Sequence[str],
               rel: float = 2e-3) -> list[list[str]]:
    """Groups of solvers whose curves lie on top of each other in every panel: same
    number of iterations and every value within ``rel`` of the panel's span (of log10
    values on a log panel), so at any size the figure is drawn they look like one curve.
    """
    names = list(histories)
    curves: dict[str, list[np.ndarray | None]] = {}
    spans = []
    for key in panels:
        log = _HISTORY_LABELS.get(key, ("", False))[1]
        vals = []
        for nm in names:
            v = _panel_series(histories[nm], key, log)
            v = None if v is None else (np.log10(v) if log else v)
            curves.setdefault(nm, []).append(v)
            if v is not None and np.isfinite(v).any():
                vals += [np.nanmin(v), np.nanmax(v)]
        spans.append(max(vals) - min(vals) if vals else 0.0)

    def same(a: str, b: str) -> bool:
        for va, vb, span in zip(curves[a], curves[b], spans, strict=True):
            if va is None and vb is None:
                continue
            if va is None or vb is None or va.shape != vb.shape:
                return False
            fa, fb = np.isfinite(va), np.isfinite(vb)
            if not np.array_equal(fa, fb) or (fa.any() and np.max(
                    np.abs(va[fa] - vb[fa])) > rel * max(span, 1e-300)):
                return False
        return any(v is not None for v in curves[a])

    groups: list[list[str]] = []
    for nm in names:
        for g in groups:
            if same(g[0], nm):
                g.append(nm)
                break
        else:
            groups.append([nm])
    return [g for g in groups if len(g) > 1]


def _sparse_sizes(n: int, slot: int, slots: int, size: float) -> np.ndarray | float:
    """Marker sizes along a curve of ``n`` points: every point under 30 points, else
    about :data:`_MARKS` markers, solver ``slot`` of ``slots`` shifted by a fraction of
    the spacing so coinciding curves show their markers side by side (the data points
    stay where they are; only which of them carries a marker differs)."""
    if n < 30:
        return size
    step = max(1, n // _MARKS)
    sizes = np.zeros(n, dtype=np.float32)
    sizes[(slot * step) // max(slots, 1)::step] = size
    return sizes


def convergence_figure(histories: Mapping[str, Mapping[str, np.ndarray]], *,
                       panels: Sequence[str] | None = None, x: str = "iteration",
                       title: str = "Convergence", height: int | None = None) -> go.Figure:
    """Per-iteration histories (one line per solver) in stacked panels.

    ``histories`` maps a solver label to its ``history_`` dict; ``panels`` the keys to
    plot (default: those of objective, step_norm, residual, gap, loss present). Log y
    for norms, residuals and gaps. ``x="time"`` plots against wall time.

    Every solver listed is drawn and in the legend: each has its own colour, dash
    pattern and marker shape (:data:`SOLVER_STYLES`), so a curve lying on another
    shows through it; solvers whose curves coincide throughout (:func:`coinciding`,
    e.g. "auto" and the solver it picked) are named in a note above the plot. A
    solver with no recorded history says so in its legend entry.
    """
    if panels is None:
        present = {k for h in histories.values() for k, v in h.items()
                   if np.size(v) and np.any(np.isfinite(np.asarray(v, dtype=float)))}
        panels = [k for k in ("objective", "step_norm", "residual", "admm_residual", "gap",
                              "loss") if k in present]
    panels = list(panels) or ["objective"]
    layout = _stacked(len(panels), 0.09, [_HISTORY_LABELS.get(p, (p, False))[0]
                                          for p in panels])
    traces = []
    extremes: dict[int, list[float]] = {}
    slots = len(histories)
    for i, (label, h) in enumerate(histories.items()):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        dash, symbol = SOLVER_STYLES[i % len(SOLVER_STYLES)]
        first = True
        for r, key in enumerate(panels, start=1):
            log = _HISTORY_LABELS.get(key, ("", False))[1]
            v = _panel_series(h, key, log)
            if v is None:
                continue
            xv = np.asarray(h["time"], dtype=float) if x == "time" and "time" in h \
                else np.arange(v.size, dtype=float)
            s = _suffix(r)
            sizes = _sparse_sizes(v.size, i, slots, 7.0)
            traces.append(dict(
                type=SCATTER, x=f32(xv), y=f32(v), mode="lines+markers",
                line=dict(color=color, width=2, dash=dash),
                marker=dict(size=sizes, symbol=symbol, color=color),
                name=label, legendgroup=label, showlegend=first, xaxis=f"x{s}",
                yaxis=f"y{s}", connectgaps=True,
                hovertemplate=f"{label}<br>{x}=%{{x:.4g}}<br>{key}=%{{y:.6g}}<extra></extra>"))
            first = False
            if log:
                if np.isfinite(v).any():
                    extremes.setdefault(r, []).extend([np.nanmin(v), np.nanmax(v)])
                layout[f"yaxis{s}"].update(_log_axis(extremes.get(r, [])))
        if first:  # nothing recorded: still listed, and saying why it is not drawn
            traces.append(dict(type=SCATTER, x=f32([np.nan]), y=f32([np.nan]),
                               mode="lines+markers", name=f"{label} (no history)",
                               line=dict(color=color, width=2, dash=dash),
                               marker=dict(symbol=symbol, color=color), legendgroup=label,
                               hoverinfo="skip"))
    groups = coinciding(histories, panels) if x != "time" else []
    note = "<br>".join(" = ".join(g) + (" coincide" if len(g) > 2 else ": curves coincide")
                       for g in groups)
    last = _suffix(len(panels))
    layout[f"xaxis{last}"]["title"] = _axis("wall time (s)" if x == "time"
                                            else "iteration")["title"]
    layout["annotations"] = _corner_note(note)
    top = _note_top(title, note) + 18 * max(len(groups) - 1, 0)
    lay = _layout(title, (height or 200 + 170 * len(panels)) + top - _note_top(title, ""),
                  top=top, **layout)
    # legend markers at one size (a curve's first point may carry none)
    lay["legend"].update(groupclick="toggleitem", itemsizing="constant")
    return _figure(traces, lay)


# ---------------------------------------------------------------------------
# regression
# ---------------------------------------------------------------------------

def regression_curve(X_train: np.ndarray, y_train: np.ndarray, x_line: np.ndarray,
                     y_line: np.ndarray, *, X_test: np.ndarray | None = None,
                     y_test: np.ndarray | None = None, support: np.ndarray | None = None,
                     support_y: np.ndarray | None = None,
                     others: Mapping[str, np.ndarray] | None = None, name: str = "fit",
                     train_score: float | None = None, test_score: float | None = None,
                     metric: str = "relative error", title: str = "",
                     height: int = 520) -> go.Figure:
    """1-D regression: data, the fitted curve, support points (hollow), and other
    curves on the same ``x_line`` (e.g. a baseline or the noiseless function)."""
    traces = [dict(type=SCATTER, x=f32(np.ravel(X_train)), y=f32(y_train),
                   mode="markers", name="train", marker=dict(size=6, color="#555555"))]
    if X_test is not None and y_test is not None and len(y_test):
        traces.append(dict(type=SCATTER, x=f32(np.ravel(X_test)), y=f32(y_test),
                           mode="markers", name="test",
                           marker=dict(size=7, symbol="circle-open", color="#555555")))
    for i, (nm, yy) in enumerate((others or {}).items(), start=1):
        traces.append(dict(type="scatter", x=f32(x_line), y=f32(yy), mode="lines", name=nm,
                           line=dict(color=SERIES_COLORS[i % len(SERIES_COLORS)], width=1.5,
                                     dash="dot")))
    traces.append(dict(type="scatter", x=f32(x_line), y=f32(y_line), mode="lines",
                       name=name, line=dict(color=SERIES_COLORS[0], width=2.5)))
    if support is not None and len(support):
        sx = np.ravel(np.asarray(support)[:, 0] if np.ndim(support) == 2 else support)
        sy = support_y if support_y is not None else np.interp(
            sx, np.ravel(x_line), np.ravel(y_line))
        crowded = len(sx) > 0.3 * max(len(np.ravel(y_train)), 1)
        traces.append(dict(type=SCATTER, x=f32(sx), y=f32(sy), mode="markers",
                           name="support points",
                           marker=dict(symbol="circle-open", size=11 if crowded else 13,
                                       color="rgba(0,0,0,0.45)" if crowded else "black",
                                       line=dict(width=1 if crowded else 1.5))))
    score = _score_text(train_score, test_score, metric)
    layout = _layout(title, height, top=_note_top(title, score), xaxis=_axis("x"),
                     yaxis=_axis("y"), annotations=_corner_note(score))
    return _figure(traces, layout)


def regression_surface(xs: np.ndarray, ys: np.ndarray, Z: np.ndarray, X_train: np.ndarray,
                       y_train: np.ndarray, *, X_test: np.ndarray | None = None,
                       y_test: np.ndarray | None = None, support: np.ndarray | None = None,
                       train_score: float | None = None, test_score: float | None = None,
                       metric: str = "relative error", title: str = "",
                       height: int = 540) -> go.Figure:
    """2-D regression: the fitted surface as a filled contour, points coloured by
    their target on the same colour scale, support points hollow."""
    y_all = np.concatenate([np.ravel(y_train), np.ravel(y_test) if y_test is not None
                            else np.zeros(0)])
    lo = float(min(np.nanmin(Z), np.nanmin(y_all)))
    hi = float(max(np.nanmax(Z), np.nanmax(y_all)))
    traces = [dict(
        type="contour", x=f32(xs), y=f32(ys), z=f32(Z), colorscale=SEQUENTIAL, zmin=lo,
        zmax=hi, contours=dict(coloring="fill", showlines=False), line=dict(width=0),
        opacity=0.85, name="fit", colorbar=dict(title=dict(text="ŷ"), thickness=12),
        hovertemplate="x1=%{x:.2f}<br>x2=%{y:.2f}<br>ŷ=%{z:.3f}<extra></extra>")]
    traces.append(dict(
        type=SCATTER, x=f32(X_train[:, 0]), y=f32(X_train[:, 1]), mode="markers",
        name="train", marker=dict(size=7, color=f32(y_train), colorscale=SEQUENTIAL, cmin=lo,
                                  cmax=hi, line=dict(width=1, color="white")),
        hovertemplate="y=%{marker.color:.3f}<extra>train</extra>"))
    if X_test is not None and y_test is not None and len(y_test):
        traces.append(dict(
            type=SCATTER, x=f32(X_test[:, 0]), y=f32(X_test[:, 1]), mode="markers",
            name="test", marker=dict(size=8, symbol="circle-open", color=f32(y_test),
                                     colorscale=SEQUENTIAL, cmin=lo, cmax=hi,
                                     line=dict(width=2))))
    if support is not None and len(support):
        traces.append(_ring_trace(support, name="support points", size=14))
    score = _score_text(train_score, test_score, metric)
    layout = _layout(title, height, top=_note_top(title, score),
                     xaxis=_axis("x1", range=[float(xs[0]), float(xs[-1])],
                                 constrain="domain"),
                     yaxis=_axis("x2", range=[float(ys[0]), float(ys[-1])], scaleanchor="x",
                                 constrain="domain"),
                     annotations=_corner_note(score))
    return _figure(traces, layout)


def parity_figure(y_true: np.ndarray, y_pred: np.ndarray, *, title: str = "Predicted vs true",
                  height: int = 440) -> go.Figure:
    """Predicted against true targets (for regression data with more than 2 features)."""
    y_true, y_pred = np.asarray(y_true, float), np.asarray(y_pred, float)
    lo = float(min(y_true.min(), y_pred.min()))
    hi = float(max(y_true.max(), y_pred.max()))
    traces = [dict(type=SCATTER, x=f32(y_true), y=f32(y_pred), mode="markers",
                   name="points", marker=dict(size=6, color=SERIES_COLORS[0])),
              dict(type="scatter", x=f32([lo, hi]), y=f32([lo, hi]), mode="lines",
                   name="y = ŷ", line=dict(color="black", dash="dash", width=1))]
    return _figure(traces, _layout(title, height, xaxis=_axis("true y"),
                                   yaxis=_axis("predicted ŷ", scaleanchor="x")))


def clip_polyline(x: np.ndarray, y: np.ndarray, box: Sequence[float]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The parts of the polyline ``(x, y)`` (NaN-separated pieces allowed) inside
    ``box = (x0, x1, y0, y1)``: each segment cut where it crosses the box (Liang–Barsky),
    the pieces joined where they continue and NaN-separated where they leave it."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2:
        return x.copy(), y.copy()
    x0, x1, y0, y1 = (float(v) for v in box)
    ax, ay, dx, dy = x[:-1], y[:-1], np.diff(x), np.diff(y)
    ok = np.isfinite(ax) & np.isfinite(ay) & np.isfinite(dx) & np.isfinite(dy)
    t0, t1 = np.zeros(ax.size), np.ones(ax.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
            r = q / p
            t0 = np.where(p < 0, np.maximum(t0, r), t0)
            t1 = np.where(p > 0, np.minimum(t1, r), t1)
            ok &= ~((p == 0) & (q < 0))             # parallel to a side, outside it
    ok &= t0 <= t1
    out_x: list[float] = []
    out_y: list[float] = []
    joined = False                                  # the last point output ends a kept
    for k in np.flatnonzero(ok):                    # segment that reached its end (t1=1)
        if not (joined and k > 0 and ok[k - 1] and t1[k - 1] == 1.0 and t0[k] == 0.0):
            if out_x:
                out_x.append(np.nan)
                out_y.append(np.nan)
            out_x.append(ax[k] + t0[k] * dx[k])
            out_y.append(ay[k] + t0[k] * dy[k])
        out_x.append(ax[k] + t1[k] * dx[k])
        out_y.append(ay[k] + t1[k] * dy[k])
        joined = True
    return np.asarray(out_x), np.asarray(out_y)


#: ellipses are drawn at one common fraction of 1/θ, the largest ≤ 1 that keeps them
#: all inside the frame but not below this; any that still do not fit are cut there
ELLIPSE_MIN_SCALE = 0.3


def _ellipses(S: np.ndarray, W: np.ndarray, scale: float, n: int) -> tuple[np.ndarray,
                                                                        np.ndarray]:
    t = np.linspace(0, 2 * np.pi, n)
    ex = S[:, :1] + scale * W[:, :1] * np.cos(t)[None, :]
    ey = S[:, 1:2] + scale * W[:, 1:2] * np.sin(t)[None, :]
    nan = np.full((S.shape[0], 1), np.nan)
    return np.hstack([ex, nan]).ravel()[:-1], np.hstack([ey, nan]).ravel()[:-1]


def bandwidth_figure(support: np.ndarray, bandwidths: np.ndarray, *,
                     X: np.ndarray | None = None, y: np.ndarray | None = None,
                     kernel: str = "gaussian", title: str = "Learned bandwidths (LAB RBF)",
                     height: int = 460, n_ellipse: int = 40) -> go.Figure:
    """LAB RBF's bandwidth per support point.

    1-D: the kernel width ``1/θ_i`` at each support point (log y). 2-D: one ellipse
    per support point with semi-axes ``1/θ_i1`` and ``1/θ_i2`` (where the kernel has
    dropped to ``e^{-1}``), over the data. The axis ranges come from the data ``X``
    (the ellipses never widen them): when an ellipse would leave that frame, all are
    drawn at the largest common fraction s of ``1/θ`` that fits (not below
    :data:`ELLIPSE_MIN_SCALE`) — the level where the kernel is ``e^{-s²}``
    (``e^{-s}`` for the Laplacian), said in the legend — and any that still do not fit
    are cut at the frame, drawn dotted and named in the legend and the hover. Without
    ``X`` the frame fits the ellipses.
    """
    S = np.asarray(support, dtype=float)
    T = np.abs(np.asarray(bandwidths, dtype=float))
    if S.ndim == 1:
        S = S[:, None]
    if T.ndim == 1:
        T = T[:, None]
    with np.errstate(divide="ignore"):
        W = np.where(T > 0, 1.0 / np.where(T > 0, T, 1.0), np.nan)
    if S.shape[1] == 1:
        order = np.argsort(S[:, 0])
        traces = [dict(
            type="scatter", x=f32(S[order, 0]), y=f32(W[order, 0]), mode="markers+lines",
            marker=dict(size=8, color=SERIES_COLORS[1]), line=dict(width=1, dash="dot"),
            name="width 1/θᵢ", hovertemplate="x=%{x:.3f}<br>1/θ=%{y:.3g}<extra></extra>")]
        layout = _layout(title, height, xaxis=_axis("support point x"),
                         yaxis=_axis("kernel width 1/θᵢ", type="log"))
        return _figure(traces, layout)
    traces: list[dict] = []
    xa, ya = _axis("x1"), _axis("x2", scaleanchor="x")
    box = None
    if X is not None and len(X):
        X = np.asarray(X, dtype=float)
        if y is not None and np.all(np.isin(np.unique(y), (-1, 1))):
            traces += _class_traces(X, np.asarray(y), hollow=False, name_suffix="data",
                                    size=6, opacity=0.5)
        else:
            traces.append(dict(
                type=SCATTER, x=f32(X[:, 0]), y=f32(X[:, 1]), mode="markers",
                name="data", marker=dict(size=5, color=f32(y) if y is not None else "#888",
                                         colorscale=SEQUENTIAL, opacity=0.6)))
        lo, hi = X[:, :2].min(axis=0), X[:, :2].max(axis=0)
        pad = 0.1 * np.where(hi > lo, hi - lo, 1.0)
        box = (float(lo[0] - pad[0]), float(hi[0] + pad[0]), float(lo[1] - pad[1]),
               float(hi[1] + pad[1]))
        # the frame is exactly this box: the equal aspect shrinks the plot, not widens
        # a range (ellipses cut at the box are then cut at the frame)
        xa.update(range=list(box[:2]), constrain="domain")
        ya.update(range=list(box[2:]), constrain="domain")
    Wf = np.where(np.isfinite(W[:, :2]), W[:, :2], np.inf)   # θ = 0: an unbounded width
    scale, cut = 1.0, np.zeros(S.shape[0], dtype=bool)
    if box is not None:
        # the largest fraction of its 1/θ at which each ellipse stays inside the box
        dist = np.column_stack([S[:, 0] - box[0], box[1] - S[:, 0], S[:, 1] - box[2],
                                box[3] - S[:, 1]])
        with np.errstate(divide="ignore", invalid="ignore"):
            room = (dist / Wf[:, [0, 0, 1, 1]]).min(axis=1)
        room = np.where(np.isfinite(room), room, 0.0)
        scale = float(min(1.0, max(room.min(initial=1.0), ELLIPSE_MIN_SCALE)))
        cut = room < scale * (1 - 1e-9)
    level = np.exp(-scale ** 2) if kernel == "gaussian" else np.exp(-scale)
    what = ("1/θ ellipses (kernel = e⁻¹)" if scale == 1.0 else
            f"ellipses at {scale:.2g}×1/θ (kernel = {level:.2f}), scaled to fit the frame")
    Wd = np.where(np.isfinite(W[:, :2]), W[:, :2], 1e6 * max(1.0, float(np.nanmax(
        np.abs(S)))))
    for part, name, dash in ((~cut, what, "solid"),
                             (cut, f"cut at the frame ({int(cut.sum())})", "dot")):
        if not part.any():
            continue
        ex, ey = _ellipses(S[part], Wd[part], scale, n_ellipse if dash == "solid"
                           else 4 * n_ellipse)
        if dash == "dot":
            ex, ey = clip_polyline(ex, ey, box)
        traces.append(dict(
            type="scatter", x=f32(ex), y=f32(ey), mode="lines", name=name,
            line=dict(color=SERIES_COLORS[1], width=1.2, dash=dash), hoverinfo="skip"))
    hover = np.array([f"width ({a:.3g}, {b:.3g})" + ("<br>ellipse cut at the frame" if c
                                                      else "")
                      for a, b, c in zip(W[:, 0], W[:, 1], cut, strict=True)])
    traces.append(dict(
        type="scatter", x=f32(S[:, 0]), y=f32(S[:, 1]), mode="markers", name="support points",
        marker=dict(symbol="circle-open", size=10, color="black", line=dict(width=1.5)),
        hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    return _figure(traces, _layout(title, height, xaxis=xa, yaxis=ya))


# ---------------------------------------------------------------------------
# pairwise constraints (SimpleNPKL)
# ---------------------------------------------------------------------------

def _segments(X: np.ndarray, pairs: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)[:limit]
    if pairs.size == 0:
        return np.zeros(0), np.zeros(0)
    a, b = X[pairs[:, 0], :2], X[pairs[:, 1], :2]
    nan = np.full(len(pairs), np.nan)
    xs = np.column_stack([a[:, 0], b[:, 0], nan]).ravel()
    ys = np.column_stack([a[:, 1], b[:, 1], nan]).ravel()
    return xs, ys


#: outline shapes of the true classes over the cluster-coloured points
_CLASS_OUTLINES = ("circle-open", "square-open", "diamond-open", "triangle-up-open",
                   "cross-open", "star-open", "hexagon-open", "pentagon-open")


def _class_name(c: Any) -> str:
    v = float(c)
    return CLASS_NAMES[int(v)] if v in (-1.0, 1.0) else f"class {c:g}" if isinstance(
        c, (int, float, np.integer, np.floating)) else f"class {c}"


def _cluster_traces(X: np.ndarray, labels: np.ndarray, y_true: np.ndarray | None, *,
                    what: str = "clusters (learned kernel)") -> list[dict]:
    """Points as filled dots coloured by cluster (legend group ``what``) and, with
    ``y_true``, an outline around each dot whose shape is the true class (legend group
    "true classes"): colour and shape never share a legend entry, and either layer can
    be hidden from the legend to compare the other with it."""
    labels = np.asarray(labels)
    out = []
    truth = None if y_true is None else np.asarray(y_true)
    classes = [] if truth is None else list(np.unique(truth))
    for i, k in enumerate(np.unique(labels)):
        m = labels == k
        tr = dict(type=SCATTER, x=f32(X[m, 0]), y=f32(X[m, 1]), mode="markers",
                  name=f"cluster {int(k)}", legendgroup="clusters",
                  marker=dict(size=8, color=cluster_color(k), symbol="circle",
                              line=dict(width=0.5, color="white")),
                  hovertemplate=f"cluster {int(k)}<br>(%{{x:.2f}}, %{{y:.2f}})"
                                f"<extra></extra>")
        if truth is not None:
            tr["hovertext"] = np.array([_class_name(c) for c in truth[m]])
            tr["hovertemplate"] = (f"cluster {int(k)} · %{{hovertext}}<br>(%{{x:.2f}}, "
                                   f"%{{y:.2f}})<extra></extra>")
        if i == 0:
            tr["legendgrouptitle"] = dict(text=what)
        out.append(tr)
    for j, c in enumerate(classes):
        m = truth == c
        tr = dict(type=SCATTER, x=f32(X[m, 0]), y=f32(X[m, 1]), mode="markers",
                  name=_class_name(c), legendgroup="classes", hoverinfo="skip",
                  marker=dict(size=13, color="#444444", line=dict(width=1.2),
                              symbol=_CLASS_OUTLINES[j % len(_CLASS_OUTLINES)]))
        if j == 0:
            tr["legendgrouptitle"] = dict(text="true classes")
        out.append(tr)
    return out


def _grouped_legend(layout: dict) -> dict:
    """Legend groups toggle item by item (a click hides one cluster, not all)."""
    layout["legend"]["groupclick"] = "toggleitem"
    return layout


def constraints_figure(X: np.ndarray, labels: np.ndarray, must_link: np.ndarray,
                       cannot_link: np.ndarray, *, y_true: np.ndarray | None = None,
                       max_lines: int = 600, title: str = "", score_text: str = "",
                       height: int = 540) -> go.Figure:
    """Points coloured by cluster, outlined by true class (two legend groups); must-link
    pairs as solid green lines, cannot-link pairs as dashed orange lines (at most
    ``max_lines`` each)."""
    X = np.asarray(X, dtype=float)
    traces = []
    for pairs, name, color, dash in ((must_link, "must-link", MUST_LINK_COLOR, "solid"),
                                     (cannot_link, "cannot-link", CANNOT_LINK_COLOR, "dash")):
        xs, ys = _segments(X, pairs, max_lines)
        n_pairs = len(np.asarray(pairs).reshape(-1, 2))
        shown = min(n_pairs, max_lines)
        label = f"{name} ({n_pairs})" if shown == n_pairs else f"{name} ({shown} of {n_pairs})"
        # plain scatter (not WebGL): WebGL lines cannot be dashed
        traces.append(dict(type="scatter", x=f32(xs), y=f32(ys), mode="lines", name=label,
                           line=dict(color=color, width=1.6, dash=dash), opacity=0.8,
                           hoverinfo="skip", legendgroup="pairs"))
    traces[0]["legendgrouptitle"] = dict(text="constraints")
    traces += _cluster_traces(X, labels, y_true)
    layout = _layout(title, height, top=_note_top(title, score_text), xaxis=_axis("x1"),
                     yaxis=_axis("x2", scaleanchor="x"), annotations=_corner_note(score_text))
    return _figure(traces, _grouped_legend(layout))


def embedding_figure(E: np.ndarray, labels: np.ndarray, *, y_true: np.ndarray | None = None,
                     title: str = "2-D embedding from the learned kernel",
                     height: int = 460) -> go.Figure:
    """Points in the top two eigen-directions of the learned kernel, by cluster."""
    E = np.asarray(E, dtype=float)
    if E.ndim == 1 or E.shape[1] == 1:
        E = np.column_stack([np.ravel(E), np.zeros(len(E))])
    layout = _layout(title, height, xaxis=_axis("√λ₁ v₁"), yaxis=_axis("√λ₂ v₂"))
    return _figure(_cluster_traces(E[:, :2], labels, y_true), _grouped_legend(layout))


# ---------------------------------------------------------------------------
# sensitivity
# ---------------------------------------------------------------------------

def sensitivity_figure(values: np.ndarray, scores: np.ndarray, *,
                       ranks: np.ndarray | None = None, times: np.ndarray | None = None,
                       param_label: str = "τ", log_x: bool = True,
                       metric: str = "test accuracy", title: str = "",
                       baseline: float | None = None, baseline_name: str = "plain SVM",
                       time_label: str = "fit time (s)", height: int | None = None
                       ) -> go.Figure:
    """Metric (mean ± std over repeats), rank and fit time against the swept value."""
    values = np.asarray(values, dtype=float)
    rows = [("metric", scores, metric)]
    if ranks is not None and np.any(np.isfinite(ranks)):
        rows.append(("rank", ranks, "rank"))
    if times is not None and np.any(np.isfinite(times)):
        rows.append(("time", times, time_label))
    layout = _stacked(len(rows), 0.08, [r[2] for r in rows])
    traces, shapes = [], []
    for r, (key, A, label) in enumerate(rows, start=1):
        A = np.asarray(A, dtype=float).reshape(values.size, -1)
        ok = np.isfinite(A).any(axis=1)
        mean = np.full(values.size, np.nan)
        sd = np.zeros(values.size)
        mean[ok] = np.nanmean(A[ok], axis=1)
        sd[ok] = np.nanstd(A[ok], axis=1)
        s = _suffix(r)
        traces.append(dict(
            type="scatter", x=f32(values), y=f32(mean), mode="lines+markers", name=label,
            line=dict(color=SERIES_COLORS[r - 1], width=2), showlegend=False,
            xaxis=f"x{s}", yaxis=f"y{s}",
            error_y=dict(type="data", array=f32(sd), visible=A.shape[1] > 1),
            hovertemplate=f"{param_label}=%{{x:.4g}}<br>{label}=%{{y:.4g}}<extra></extra>"))
        if key == "time":
            layout[f"yaxis{s}"].update(_log_axis([np.nanmin(A), np.nanmax(A)]
                                                 if np.isfinite(A).any() else []))
        layout[f"xaxis{s}"]["type"] = "log" if log_x else "linear"
        if log_x:
            layout[f"xaxis{s}"].update(_log_axis([values.min(), values.max()]))
    if baseline is not None and np.isfinite(baseline):
        line = dict(color=BASELINE_COLOR, dash="dot", width=2)
        shapes.append(dict(type="line", xref="x domain", yref="y", x0=0, x1=1, y0=baseline,
                           y1=baseline, line=line))
        # the label goes to the legend: written on the line it covered the end points
        traces.append(dict(type="scatter", x=f32([values[0]]), y=f32([baseline]),
                           mode="lines", line=line, name=f"{baseline_name}: {baseline:.3g}",
                           hoverinfo="skip", showlegend=True))
    last = _suffix(len(rows))
    layout[f"xaxis{last}"]["title"] = _axis(param_label)["title"]
    return _figure(traces, _layout(title, height or 200 + 170 * len(rows), shapes=shapes,
                                   **layout))


# ---------------------------------------------------------------------------
# scaling (DANK §4)
# ---------------------------------------------------------------------------

def partition_figure(X: np.ndarray, labels: np.ndarray, centers: np.ndarray | None = None, *,
                     y: np.ndarray | None = None, screened: np.ndarray | None = None,
                     title: str = "k-means partition", height: int = 480) -> go.Figure:
    """The data coloured by cluster (outline = class), centres as crosses; points
    certified as non-support vectors (Theorem 7) as hollow black diamonds."""
    X = np.asarray(X, dtype=float)
    traces = _cluster_traces(X, labels, y, what="k-means clusters")
    if centers is not None and len(centers):
        C = np.asarray(centers, dtype=float)
        traces.append(dict(type="scatter", x=f32(C[:, 0]), y=f32(C[:, 1]), mode="markers",
                           name="centres", marker=dict(symbol="x", size=13, color="black")))
    if screened is not None:
        m = np.asarray(screened, dtype=bool)
        if m.any():
            traces.append(dict(
                type=SCATTER, x=f32(X[m, 0]), y=f32(X[m, 1]), mode="markers",
                name=f"screened non-SVs ({int(m.sum())})",
                marker=dict(symbol="diamond-open", size=12, color="black",
                            line=dict(width=1.5))))
    layout = _layout(title, height, xaxis=_axis("x1"), yaxis=_axis("x2", scaleanchor="x"))
    return _figure(traces, _grouped_legend(layout))


def lines_figure(x: np.ndarray, series: Mapping[str, np.ndarray], *, x_title: str,
                 y_title: str, title: str = "", log_x: bool = False, log_y: bool = False,
                 height: int = 380, dashes: Mapping[str, str] | None = None) -> go.Figure:
    """Several named series against a common x (Q(π) vs v, bound vs gap, time vs n)."""
    traces = []
    for i, (name, v) in enumerate(series.items()):
        v = np.asarray(v, dtype=float)
        if log_y:
            v = np.where(v > 0, v, np.nan)
        traces.append(dict(
            type="scatter", x=f32(x), y=f32(v), mode="lines+markers", name=name,
            line=dict(color=SERIES_COLORS[i % len(SERIES_COLORS)], width=2,
                      dash=(dashes or {}).get(name, "solid")),
            hovertemplate=f"{name}<br>{x_title}=%{{x:.4g}}<br>%{{y:.4g}}<extra></extra>"))
    ya = _axis(y_title, type="log" if log_y else "linear")
    if log_y:
        vals = [float(v) for a in series.values() for v in np.ravel(a)
                if np.isfinite(v) and v > 0]
        ya.update(_log_axis([min(vals), max(vals)] if vals else []))
    layout = _layout(title, height, xaxis=_axis(x_title, type="log" if log_x else "linear"),
                     yaxis=ya)
    return _figure(traces, layout)


def figure_nbytes(fig: go.Figure) -> int:
    """Bytes of the JSON the browser receives for ``fig`` (Streamlit re-validates the
    figure and serialises it with ``plotly.io.to_json``, escaping ``/``)."""
    import plotly.io as pio
    from plotly.tools import return_figure_from_figure_or_data
    checked = return_figure_from_figure_or_data(fig, validate_figure=True)
    return len(pio.to_json(checked, validate=False).encode())
