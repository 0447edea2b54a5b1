"""Classification figures: class scatters, level lines and the decision surface."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .ablation import NN_COLOR, NN_DASH, NN_NAME
from .common import (
    BASELINE_COLOR,
    BOUNDARY_NAME,
    CLASS_COLORS,
    CLASS_NAMES,
    CLASS_SYMBOLS,
    DECISION_VALUE,
    DIVERGING,
    MARGIN_NAME,
    SCATTER,
    SURFACE_BANDS,
    _axis,
    _corner_note,
    _figure,
    _layout,
    _note_top,
    _score_text,
    banded,
    bar_title,
    f32,
)

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


def _fixed_width_colorbar(m: float) -> dict:
    """The decision value's colour bar with five ticks, the widest label (±m) always made of a sign,
    three digits and a point (m < 10: two decimals, else one; m ≤ 50), so the bar, and
    with it the plot area (centred, square cells), does not shift when the range of f
    changes (e.g. while the user adds points). Digits are equally wide in Plotly's
    fonts, so equal glyph counts give equal widths."""
    ticks = [-m, -m / 2, 0.0, m / 2, m]
    digits = 2 if m < 10 else 1
    text = ["0" if v == 0 else f"{v:+.{digits}f}".replace("-", "\u2212") for v in ticks]
    return dict(title=dict(text=bar_title(DECISION_VALUE)), thickness=12, len=0.8, tickmode="array",
                tickvals=ticks, ticktext=text)


def decision_surface(xs: np.ndarray, ys: np.ndarray, Z: np.ndarray | None,
                     X_train: np.ndarray, y_train: np.ndarray,
                     X_test: np.ndarray | None = None, y_test: np.ndarray | None = None, *,
                     support: np.ndarray | None = None, baseline: np.ndarray | None = None,
                     baseline_name: str = "SVM boundary", train_score: float | None = None,
                     test_score: float | None = None, metric: str = "accuracy",
                     title: str = "", click_targets: np.ndarray | None = None,
                     nn: np.ndarray | None = None, height: int = 600) -> go.Figure:
    """Decision function on a grid with the data (scikit-learn gallery conventions).

    Parameters
    ----------
    xs, ys : grid coordinates (``Z`` has shape ``(len(ys), len(xs))``)
    Z : decision values on the grid, or None to draw only the data
    X_train, y_train, X_test, y_test : points; labels in {−1, +1}
    support : support vectors (rows of points), drawn as hollow circles
    baseline : the baseline model's decision values on the same grid; its 0 level is
        drawn dotted
    nn : 1-nearest neighbour's labels (±1) on the same grid; its boundary is drawn
        dash-dot orange (:mod:`.ablation`)
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
            colorbar=_fixed_width_colorbar(m),
            hovertemplate="x1=%{x:.2f}<br>x2=%{y:.2f}<br>f=%{z:.3f}<extra></extra>"))
        traces.append(_level_trace(xs, ys, Z, levels=(0.0,), color="black", width=2.5,
                                   dash="solid", name=BOUNDARY_NAME))
        traces.append(_level_trace(xs, ys, Z, levels=(-1.0, 1.0), color="black", width=1.2,
                                   dash="dash", name=MARGIN_NAME))
    if baseline is not None:
        traces.append(_level_trace(xs, ys, baseline, levels=(0.0,), color=BASELINE_COLOR,
                                   width=2.5, dash="dot", name=baseline_name))
    if nn is not None:
        traces.append(_level_trace(xs, ys, np.asarray(nn, dtype=float), levels=(0.0,),
                                   color=NN_COLOR, width=2.5, dash=NN_DASH,
                                   name=f"{NN_NAME} boundary"))
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
