r"""Linked views: a training point's learned influence on the plane, the
point ringed on the decision surface, its row and column marked on the matrix view.

Pure functions from arrays to figures, like every builder here. The influence maps
themselves are computed in :mod:`nplk_lab.model.influence`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    CLASS_COLORS,
    DIVERGING,
    SCATTER,
    SEQUENTIAL,
    SERIES_COLORS,
    TEXT_COLOR,
    _axis,
    _figure,
    _layout,
    f32,
)
from .matrices import class_order, symmetric_limits

#: the colour of the selected point, everywhere (Okabe–Ito orange: apart from both
#: class colours, the diverging surface and the sequential maps)
FOCUS_COLOR = "#E69F00"


def _ellipse(center: np.ndarray, axes: np.ndarray, n: int = 65) -> tuple[np.ndarray,
                                                                         np.ndarray]:
    """Points of the axis-aligned ellipse with semi-axes ``axes`` around ``center`` (``n``
    = 4k + 1: the ends of both axes are among them)."""
    t = np.linspace(0.0, 2.0 * np.pi, n)
    return center[0] + axes[0] * np.cos(t), center[1] + axes[1] * np.sin(t)


def _points_traces(X: np.ndarray, y: np.ndarray | None, axes: str, show: bool) -> list[dict]:
    """The training points, faint, class-coloured (±1 labels) or grey."""
    X = np.asarray(X, dtype=float)
    out = []
    if y is not None and np.all(np.isin(np.unique(y), (-1, 1))):
        for lab in (-1, 1):
            m = np.asarray(y) == lab
            if m.any():
                out.append(dict(type=SCATTER, x=f32(X[m, 0]), y=f32(X[m, 1]),
                                mode="markers", xaxis=f"x{axes}", yaxis=f"y{axes}",
                                name="training points", legendgroup="train",
                                showlegend=show and lab == -1, hoverinfo="skip",
                                marker=dict(size=6, color=CLASS_COLORS[lab], opacity=0.55,
                                            line=dict(width=0.5, color="white"))))
    else:
        out.append(dict(type=SCATTER, x=f32(X[:, 0]), y=f32(X[:, 1]), mode="markers",
                        xaxis=f"x{axes}", yaxis=f"y{axes}", name="training points",
                        legendgroup="train", showlegend=show, hoverinfo="skip",
                        marker=dict(size=5, color="#555555", opacity=0.55)))
    return out


def _focus_trace(point: np.ndarray, index: int, axes: str, show: bool) -> dict:
    return dict(type=SCATTER, x=f32([point[0]]), y=f32([point[1]]), mode="markers",
                xaxis=f"x{axes}", yaxis=f"y{axes}", name=f"point {index}",
                legendgroup="focus", showlegend=show,
                marker=dict(symbol="star", size=17, color=FOCUS_COLOR,
                            line=dict(width=1.5, color="black")),
                hovertemplate=f"training point {index}<br>x1=%{{x:.3f}}<br>x2=%{{y:.3f}}"
                              "<extra></extra>")


def _ellipse_trace(point: np.ndarray, axes_len: np.ndarray, axes: str, name: str,
                   dash: str, show: bool) -> dict | None:
    a = np.asarray(axes_len, dtype=float)
    if a.size < 2 or not np.all(np.isfinite(a[:2])):
        return None
    ex, ey = _ellipse(np.asarray(point, dtype=float), a[:2])
    return dict(type="scatter", x=f32(ex), y=f32(ey), mode="lines", xaxis=f"x{axes}",
                yaxis=f"y{axes}", name=name, legendgroup=name, showlegend=show,
                hoverinfo="skip", line=dict(color="white", width=2, dash=dash))


def influence_figure(xs: np.ndarray, ys: np.ndarray, plain: np.ndarray,
                     learned: np.ndarray | None = None, change: np.ndarray | None = None, *,
                     X_train: np.ndarray, y_train: np.ndarray | None, index: int,
                     mode: str = "pair", change_kind: str = "ratio",
                     learned_name: str = "F̃ × k", plain_name: str = "k",
                     axes: np.ndarray | None = None, plain_axes: np.ndarray | None = None,
                     title: str = "", height: int = 430) -> go.Figure:
    """A training point's influence on the plane.

    ``mode="pair"``: the learned map ``learned`` (x ↦ k̃(xᵢ, x)) and the plain one
    ``plain`` (x ↦ k(xᵢ, x)) side by side on one sequential colour scale (only ``plain``
    when ``learned`` is None). ``mode="ratio"``: what learning changed, ``change``: the
    factor F̃(xᵢ, x) on a diverging scale centred at 1 (``change_kind="ratio"``) or
    k̃ − k centred at 0 (``"difference"``), spanning ± its largest deviation. Maps are
    ``(len(ys), len(xs))`` arrays (or flat in that order). The training points are drawn
    faint, the point ``index`` as a star; ``axes`` / ``plain_axes`` (LAB RBF) add the
    e⁻¹ ellipses with those semi-axes (the point's own 1/θᵢ, the shared start's 1/θ₀).
    """
    shape = (len(ys), len(xs))
    X = np.asarray(X_train, dtype=float)
    point = X[index]
    if mode == "ratio" and change is not None:
        center = 1.0 if change_kind == "ratio" else 0.0
        C = np.asarray(change, dtype=float).reshape(shape)
        lo, hi = symmetric_limits(C, center)
        what = (f"{learned_name.split(' (')[0]} / {plain_name}" if change_kind == "ratio"
                else f"{learned_name.split(' (')[0]} − {plain_name}")
        panels = [(what, C, DIVERGING, center, lo, hi, axes)]
    else:
        maps = [(learned_name, learned, axes)] if learned is not None else []
        maps.append((plain_name, plain, plain_axes))
        arrs = [np.asarray(m, dtype=float).reshape(shape) for _, m, _ in maps]
        hi = float(max(np.nanmax(a) for a in arrs))
        lo = float(min(0.0, *(np.nanmin(a) for a in arrs)))
        panels = [(nm, a, SEQUENTIAL, None, lo, hi, ax)
                  for (nm, _, ax), a in zip(maps, arrs, strict=True)]
    k = len(panels)
    gap = 0.06
    right = 0.9
    w = (right - gap * (k - 1)) / k
    traces: list[dict] = []
    layout: dict[str, Any] = {}
    notes = []
    for c, (nm, Z, cs, mid, zmin, zmax, ell) in enumerate(panels, start=1):
        s = "" if c == 1 else str(c)
        tr = dict(type="heatmap", x=f32(xs), y=f32(ys), z=f32(Z), colorscale=cs,
                  zmin=zmin, zmax=zmax, zsmooth="best", name=nm, xaxis=f"x{s}",
                  yaxis=f"y{s}", showscale=c == 1,
                  colorbar=dict(thickness=12, len=0.85, x=right + 0.02, xanchor="left",
                                title=dict(text="value", side="top")),
                  hovertemplate=f"x1=%{{x:.2f}}<br>x2=%{{y:.2f}}<br>{nm}=%{{z:.4g}}"
                                "<extra></extra>")
        if mid is not None:
            tr["zmid"] = mid
        traces.append(tr)
        traces += _points_traces(X, y_train, s, show=c == 1)
        if ell is not None:
            is_own = ell is axes and axes is not None
            et = _ellipse_trace(point, ell, s, "e⁻¹ ellipse of θᵢ" if is_own
                                else "e⁻¹ ellipse of θ₀", "solid" if is_own else "dot",
                                show=True)
            if et is not None:
                traces.append(et)
        traces.append(_focus_trace(point, index, s, show=c == 1))
        left = (c - 1) * (w + gap)
        layout[f"xaxis{s}"] = _axis("x1", domain=[left, left + w], anchor=f"y{s}",
                                    range=[float(xs[0]), float(xs[-1])], constrain="domain")
        layout[f"yaxis{s}"] = _axis("x2" if c == 1 else "", anchor=f"x{s}",
                                    range=[float(ys[0]), float(ys[-1])],
                                    scaleanchor=f"x{s}", constrain="domain")
        notes.append(dict(text=f"<b>{nm}</b>", xref=f"x{s} domain", yref=f"y{s} domain",
                          x=0.5, y=1.0, xanchor="center", yanchor="bottom", yshift=2,
                          showarrow=False, font=dict(size=14, color=TEXT_COLOR)))
    head = title or f"Influence of training point {index}"
    lay = _layout(head, height, top=80, annotations=notes, **layout)
    lay["margin"].update(b=70)
    return _figure(traces, lay)


def influence_curve(x: np.ndarray, plain: np.ndarray, learned: np.ndarray | None = None,
                    change: np.ndarray | None = None, *, X_train: np.ndarray, index: int,
                    mode: str = "pair", change_kind: str = "ratio",
                    learned_name: str = "F̃ × k", plain_name: str = "k",
                    axes: np.ndarray | None = None, title: str = "",
                    height: int = 380) -> go.Figure:
    """The 1-D version of :func:`influence_figure`: the learned and the plain curve on
    one axis (or the change with its neutral level dotted), the training points as a rug
    and the point ``index`` marked (LAB RBF: its width 1/θᵢ as a bar at e⁻¹)."""
    x = np.ravel(np.asarray(x, dtype=float))
    xi = float(np.ravel(np.asarray(X_train, dtype=float)[index])[0])
    traces: list[dict] = []
    if mode == "ratio" and change is not None:
        center = 1.0 if change_kind == "ratio" else 0.0
        what = (f"{learned_name.split(' (')[0]} / {plain_name}" if change_kind == "ratio"
                else f"{learned_name.split(' (')[0]} − {plain_name}")
        traces.append(dict(type="scatter", x=f32(x), y=f32(change), mode="lines", name=what,
                           line=dict(color=SERIES_COLORS[0], width=2.5)))
        traces.append(dict(type="scatter", x=f32([x[0], x[-1]]), y=f32([center, center]),
                           mode="lines", name="unchanged", hoverinfo="skip",
                           line=dict(color="#888", width=1, dash="dot")))
        ytitle, base = what, center
    else:
        if learned is not None:
            traces.append(dict(type="scatter", x=f32(x), y=f32(learned), mode="lines",
                               name=learned_name, line=dict(color=SERIES_COLORS[0],
                                                            width=2.5)))
        traces.append(dict(type="scatter", x=f32(x), y=f32(plain), mode="lines",
                           name=plain_name, line=dict(color=SERIES_COLORS[1], width=2,
                                                      dash="dot")))
        ytitle, base = "similarity to xᵢ", 0.0
        if axes is not None and np.isfinite(np.ravel(axes)[0]):
            a = float(np.ravel(axes)[0])
            traces.append(dict(type="scatter", x=f32([xi - a, xi + a]),
                               y=f32([np.exp(-1.0)] * 2), mode="lines+markers",
                               name="width 1/θᵢ (at e⁻¹)", hoverinfo="skip",
                               line=dict(color=TEXT_COLOR, width=2),
                               marker=dict(symbol="line-ns-open", size=10)))
    Xr = np.ravel(np.asarray(X_train, dtype=float)[:, 0])
    traces.append(dict(type=SCATTER, x=f32(Xr), y=f32(np.full(Xr.size, base)),
                       mode="markers", name="training points", hoverinfo="skip",
                       marker=dict(symbol="line-ns-open", size=9, color="#555555",
                                   opacity=0.6)))
    traces.append(dict(type=SCATTER, x=f32([xi]), y=f32([base]), mode="markers",
                       name=f"point {index}",
                       marker=dict(symbol="star", size=16, color=FOCUS_COLOR,
                                   line=dict(width=1.5, color="black"))))
    layout = _layout(title or f"Influence of training point {index}", height,
                     xaxis=_axis("x"), yaxis=_axis(ytitle))
    layout["margin"].update(b=70)
    return _figure(traces, layout)


# ---------------------------------------------------------------------------
# highlighting the selected point in the other views
# ---------------------------------------------------------------------------

def _copy(fig: go.Figure, extra: Sequence[dict] = (), **layout: Any) -> go.Figure:
    """A new figure with ``fig``'s traces plus ``extra`` and layout entries replaced
    (``fig``, often a cached one, is left as it was)."""
    data = [dict(t) for t in getattr(fig, "_data", None) or fig.to_dict()["data"]]
    lay = dict(getattr(fig, "_layout", None) or fig.to_dict()["layout"])
    lay.update(layout)
    return _figure(data + list(extra), lay)


def focus_ring(fig: go.Figure, point: np.ndarray | None, index: int = -1, *,
               axes: str = "") -> go.Figure:
    """``fig`` with the selected point ringed (a thick orange circle), or ``fig`` itself
    when nothing is selected."""
    if point is None or index < 0:
        return fig
    p = np.ravel(np.asarray(point, dtype=float))
    ring = dict(type=SCATTER, x=f32(p[:1]), y=f32(p[1:2]), mode="markers",
                name=f"selected point {index}", xaxis=f"x{axes}", yaxis=f"y{axes}",
                showlegend=False,  # a legend row more would shrink the plot area
                marker=dict(symbol="circle-open", size=24, color=FOCUS_COLOR,
                            line=dict(width=3.5, color=FOCUS_COLOR)),
                hovertemplate=f"selected training point {index}<extra></extra>")
    return _copy(fig, [ring])


def _pooled_starts(n: int, side: int) -> np.ndarray:
    """Block starts of a matrix drawn with ``side`` rows (the rule of
    :func:`nplk_lab.figures.matrices.block_means`)."""
    if side >= n:
        return np.arange(n)
    return np.unique(np.floor(np.linspace(0, n, side + 1)).astype(int)[:-1])


_REF = re.compile(r"([xy])(\d*)( domain)?")


def _shift_ref(ref: Any) -> Any:
    """An axis reference one panel on ("x" -> "x2", "y3 domain" -> "y4 domain")."""
    m = _REF.fullmatch(ref) if isinstance(ref, str) else None
    if m is None:
        return ref
    return f"{m[1]}{int(m[2] or 1) + 1}{m[3] or ''}"


def _shifted_axes(data: list[dict], layout: dict) -> tuple[list[dict], dict]:
    """Every trace, axis, shape and annotation moved from axes k to axes k + 1, so that
    the first pair (``xaxis``/``yaxis``) is free."""
    for t in data:
        t["xaxis"] = _shift_ref(t.get("xaxis", "x"))
        t["yaxis"] = _shift_ref(t.get("yaxis", "y"))
    lay: dict[str, Any] = {}
    for key, val in layout.items():
        m = re.fullmatch(r"([xy])axis(\d*)", key)
        if m is None:
            lay[key] = val
            continue
        ax = dict(val)
        for k in ("anchor", "scaleanchor", "matches", "overlaying"):
            if k in ax:
                ax[k] = _shift_ref(ax[k])
        lay[f"{m[1]}axis{int(m[2] or 1) + 1}"] = ax
    for group in ("shapes", "annotations"):
        items = []
        for it in layout.get(group, ()):
            it = dict(it)
            for k in ("xref", "yref"):
                if k in it:
                    it[k] = _shift_ref(it[k])
            items.append(it)
        lay[group] = items
    return data, lay


def linked_matrix(fig: go.Figure, y: np.ndarray | None, index: int = -1) -> go.Figure:
    """The matrix view (:func:`matrix_heatmap`, :func:`matrix_triptych`) ready for the
    linked selection: when ``index`` is a point, its row and column framed in
    :data:`FOCUS_COLOR` in every panel (a block-averaged view frames the block holding
    it); and the click axes.

    Click axes: a click reports its data coordinates through the figure's *first* axes
    (:mod:`nplk_lab.ui.components.chart`), which a category axis gives as a label string. So
    the panels move
    to axes 2.. (unchanged: labels, hover, class lines) and the first pair becomes a
    hidden linear one over the first panel's place with range −0.5 … side − 0.5
    (y reversed): a click on any panel (all have the same size and order) reports the
    drawn row's position, which ``order[round(y)]`` turns back into the point
    (:func:`nplk_lab.model.influence.row_from_clicks`)."""
    data = [dict(t) for t in fig._data]
    heat = [t for t in data if t.get("type") == "heatmap"]
    if not heat:
        return fig
    side = len(heat[0].get("y", ()))
    n = len(y) if y is not None else side
    order = class_order(y, n)
    shapes = list(fig._layout.get("shapes", ()))
    if 0 <= index < n:
        pos = int(np.flatnonzero(order == index)[0])
        b = int(np.searchsorted(_pooled_starts(n, side), pos, side="right") - 1)
        for t in heat:
            xa, ya = t.get("xaxis", "x"), t.get("yaxis", "y")
            line = dict(color=FOCUS_COLOR, width=2.5)
            shapes.append(dict(type="rect", xref=f"{xa} domain", yref=ya, x0=0, x1=1,
                               y0=b - 0.5, y1=b + 0.5, line=line, layer="above"))
            shapes.append(dict(type="rect", xref=xa, yref=f"{ya} domain", y0=0, y1=1,
                               x0=b - 0.5, x1=b + 0.5, line=line, layer="above"))
    lay = dict(fig._layout)
    lay["shapes"] = shapes
    data, lay = _shifted_axes(data, lay)
    first = lay.get("xaxis2", {})
    lay["xaxis"] = dict(type="linear", range=[-0.5, side - 0.5], visible=False,
                        domain=first.get("domain", [0.0, 1.0]), anchor="y",
                        constrain="domain", showgrid=False, zeroline=False)
    lay["yaxis"] = dict(type="linear", range=[side - 0.5, -0.5], visible=False,
                        domain=lay.get("yaxis2", {}).get("domain", [0.0, 1.0]), anchor="x",
                        scaleanchor="x", constrain="domain", showgrid=False,
                        zeroline=False)
    # an empty trace on the click axes, so Plotly lays them out (below the panels)
    data.insert(0, dict(type="scatter", x=[], y=[], xaxis="x", yaxis="y", mode="markers",
                        showlegend=False, hoverinfo="skip", name="click axes"))
    return _figure(data, lay)


__all__ = ["FOCUS_COLOR", "focus_ring", "influence_curve", "influence_figure",
           "linked_matrix"]
