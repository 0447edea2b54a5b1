"""Eigenfunction maps: the eigenvectors of the learned kernel and of the plain K drawn as
functions on the plane (or the line), as small multiples with the selected one large.

Each map is an eigenfunction ``φ_j`` on a diverging scale centred on 0 (red > 0,
white 0, blue < 0) that spans ± its own largest magnitude (an eigenvector's scale is a
convention; its pattern is what it says). The selected ``j`` is drawn large, once per
kernel, side by side; below, one row of small multiples per kernel (learned first, plain
K last) for the leading eigenfunctions, each titled with ``j`` and ``λ_j``, the
selected one framed. An eigenvalue in the null space gets an empty panel saying so.

The small multiples are thumbnails: drawn at every ``small_stride``-th grid node and
sent as int8 levels (−127 … 127 of the panel's largest magnitude, without hover), so
eighteen of them cost less than one full-resolution map.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    DIVERGING,
    SCATTER,
    SERIES_COLORS,
    TEXT_COLOR,
    _axis,
    _figure,
    _layout,
    _suffix,
    class_color,
    f32,
    for_people,
)

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
BIG_HEIGHT = 300     # px of the selected maps
SMALL_HEIGHT = 140   # px of a row of small multiples
ROW_GAP = 34         # px between rows (room for the panel titles)
BIG_GAP = 56         # px below the large maps (their tick labels and the next titles)
LEADING = 6          # small multiples per row


def _lam_text(j: int, lam: float, null: bool) -> str:
    sj = str(int(j)).translate(_SUB)
    return (f"j = {j}, eigenvalue λ{sj} ≈ 0 (null space)" if null
            else f"j = {j}, eigenvalue λ{sj} = {for_people(lam, 3)}")


def _limit(z: np.ndarray) -> float:
    a = float(np.nanmax(np.abs(z))) if z.size and np.isfinite(z).any() else 0.0
    return a if a > 0 else 1.0


def _levels(z: np.ndarray) -> np.ndarray:
    """``z`` as int8 levels of ± its largest magnitude (a thumbnail's colour, not its
    value)."""
    return np.round(127.0 * np.asarray(z, dtype=float) / _limit(z)).astype(np.int8)


def eigenfunction_figure(xs: np.ndarray, ys: np.ndarray | None,
                         maps: Mapping[str, np.ndarray], values: Mapping[str, np.ndarray],
                         indices: Sequence[int], selected: int, *,
                         null: Mapping[str, np.ndarray] | None = None,
                         X: np.ndarray | None = None, y: np.ndarray | None = None,
                         leading: int = LEADING, small_stride: int = 2,
                         title: str | None = None, subtitle: str = "") -> go.Figure:
    """Eigenfunctions of several kernels: the ``selected`` one large, the ``leading``
    ones as small multiples.

    Parameters
    ----------
    xs, ys : the grid's axes (``ys`` None: functions on the line ``xs``)
    maps : kernel name -> array (len(indices), len(ys) * len(xs)) (or (…, len(ys),
        len(xs))) of eigenfunction values on the grid, in drawing order (learned
        kernels first, K last); on a line (len(indices), len(xs))
    values, null : kernel name -> λ_j and null-space flags, one per index
    indices : the 1-based eigen indices the rows of ``maps`` hold (must include
        ``selected``)
    X, y : training points drawn over the large maps (classes coloured when ``y`` has
        two values), optional
    """
    names = list(maps)
    if not names:
        raise ValueError("eigenfunction_figure needs at least one kernel's maps.")
    indices = [int(j) for j in indices]
    if int(selected) not in indices:
        raise ValueError(f"the selected eigenfunction {selected} is not among the indices "
                         f"{indices}.")
    sel = indices.index(int(selected))
    small = [i for i, j in enumerate(indices) if j <= leading]
    xs = np.asarray(xs, dtype=float)
    plane = ys is not None
    ys = np.asarray(ys, dtype=float) if plane else None
    shape = (ys.size, xs.size) if plane else (xs.size,)
    null = null or {}
    nbig = len(names)
    ncols = max(len(small), 1)
    top = 64 + (20 if subtitle else 0)
    height = top + BIG_HEIGHT + BIG_GAP + len(names) * (SMALL_HEIGHT + ROW_GAP) + 10
    plot_h = height - top - 10

    def band(y0_px: float, h_px: float) -> list[float]:
        # from the top of the plotting area, in pixels, to paper coordinates
        return [max(1.0 - (y0_px + h_px) / plot_h, 0.0), min(1.0 - y0_px / plot_h, 1.0)]

    traces: list[dict] = []
    layout: dict[str, Any] = {}
    notes: list[dict] = []
    axis = 0
    gap_big, gap_small = 0.05, 0.012
    wb = (1.0 - gap_big * (nbig - 1)) / nbig
    ws = (1.0 - gap_small * (ncols - 1)) / ncols

    def panel(xdom: list[float], ydom: list[float], ticks: bool, framed: bool) -> str:
        nonlocal axis
        axis += 1
        s = _suffix(axis)
        frame = dict(linecolor="#111", linewidth=3) if framed else {}
        layout[f"xaxis{s}"] = _axis(domain=xdom, anchor=f"y{s}", showgrid=False,
                                    showticklabels=ticks, ticks="outside" if ticks else "",
                                    **frame)
        layout[f"yaxis{s}"] = _axis(domain=ydom, anchor=f"x{s}", showgrid=False,
                                    showticklabels=ticks, ticks="outside" if ticks else "",
                                    **frame)
        if plane:
            layout[f"yaxis{s}"].update(scaleanchor=f"x{s}", scaleratio=1, constrain="domain")
            layout[f"xaxis{s}"].update(constrain="domain", range=[xs[0], xs[-1]])
            layout[f"yaxis{s}"]["range"] = [ys[0], ys[-1]]
        return s

    def title_note(s: str, text: str, size: int) -> None:
        notes.append(dict(text=text, xref=f"x{s} domain", yref=f"y{s} domain", x=0.5, y=1.0,
                          xanchor="center", yanchor="bottom", yshift=2, showarrow=False,
                          font=dict(size=size, color=TEXT_COLOR)))

    def draw(s: str, name: str, i: int, big: bool, color: str) -> None:
        z = np.asarray(maps[name][i], dtype=float).reshape(shape)
        lam = float(np.asarray(values[name])[i])
        is_null = bool(np.asarray(null.get(name, np.zeros(len(indices), bool)))[i])
        j = indices[i]
        if plane:
            if big:
                a = _limit(z)
                traces.append(dict(
                    type="heatmap", x=f32(xs), y=f32(ys), z=f32(z), zmin=-a, zmax=a, zmid=0,
                    colorscale=DIVERGING, showscale=False, xaxis=f"x{s}", yaxis=f"y{s}",
                    name=f"{name} φ{str(j).translate(_SUB)}",
                    hovertemplate=(f"{name}, j = {j}<br>x₁ = %{{x:.3g}}, x₂ = %{{y:.3g}}"
                                   "<br>φ = %{z:.3g}<extra></extra>")))
            else:
                st = max(int(small_stride), 1)
                traces.append(dict(
                    type="heatmap", x=f32(xs[::st]), y=f32(ys[::st]),
                    z=_levels(z[::st, ::st]), zmin=-127, zmax=127, zmid=0,
                    colorscale=DIVERGING, showscale=False, xaxis=f"x{s}", yaxis=f"y{s}",
                    hoverinfo="skip", name=f"{name} φ{str(j).translate(_SUB)}"))
        else:
            traces.append(dict(
                type=SCATTER, x=f32(xs), y=f32(z), mode="lines", showlegend=False,
                line=dict(color=color, width=2.5 if big else 1.5), xaxis=f"x{s}",
                yaxis=f"y{s}", name=f"{name} φ{str(j).translate(_SUB)}",
                hovertemplate=f"{name}, j = {j}<br>x = %{{x:.3g}}<br>φ = %{{y:.3g}}"
                              "<extra></extra>"))
        if is_null:
            notes.append(dict(text="null space:<br>not extended", xref=f"x{s} domain",
                              yref=f"y{s} domain", x=0.5, y=0.5, showarrow=False,
                              font=dict(size=12 if big else 10, color="#666")))
        title_note(s, (f"{name}: " if big else "") + _lam_text(j, lam, is_null),
                   14 if big else 11)

    # the selected eigenfunction, large, one panel per kernel
    for c, name in enumerate(names):
        left = c * (wb + gap_big)
        s = panel([left, min(left + wb, 1.0)], band(0, BIG_HEIGHT), True, False)
        draw(s, name, sel, True, SERIES_COLORS[c % len(SERIES_COLORS)])
        if X is not None and len(X) and plane:
            X2 = np.asarray(X, dtype=float)
            if y is not None and np.unique(y).size == 2:
                cols = [class_color(v) for v in np.where(np.asarray(y) > 0, 1, -1)]
            else:
                cols = "#333333"
            traces.append(dict(type=SCATTER, x=f32(X2[:, 0]), y=f32(X2[:, 1]),
                               mode="markers", showlegend=False, hoverinfo="skip",
                               marker=dict(size=5, color="rgba(0,0,0,0)",
                                           line=dict(width=1, color=cols)),
                               xaxis=f"x{s}", yaxis=f"y{s}", name="training points"))
    # the leading ones, small, one row per kernel
    for r, name in enumerate(names):
        y0 = BIG_HEIGHT + BIG_GAP + r * (SMALL_HEIGHT + ROW_GAP)
        for c, i in enumerate(small):
            left = c * (ws + gap_small)
            s = panel([left, min(left + ws, 1.0)], band(y0, SMALL_HEIGHT), False,
                      i == sel)
            draw(s, name, i, False, SERIES_COLORS[r % len(SERIES_COLORS)])
        # the row's kernel, left of its first panel
        notes.append(dict(text=f"<b>{name}</b>", xref="paper", yref="paper", x=0.0,
                          xanchor="right", xshift=-6, textangle=-90,
                          y=float(np.mean(band(y0, SMALL_HEIGHT))), yanchor="middle",
                          showarrow=False, font=dict(size=13, color=TEXT_COLOR)))
    if title is None:
        listed = names[0] if len(names) == 1 else \
            ", ".join(names[:-1]) + " and " + names[-1]
        title = f"Eigenfunction j = {selected} of {listed}"
    if subtitle:
        notes.append(dict(text=subtitle, xref="paper", yref="paper", x=0.0, y=1.0,
                          yshift=24, xanchor="left", yanchor="bottom", showarrow=False,
                          font=dict(size=13, color="#555")))
    lay = _layout(title, height, top=top, annotations=notes, showlegend=False, **layout)
    lay["margin"].update(l=40, r=10, b=10)
    return _figure(traces, lay)


__all__ = ["eigenfunction_figure"]
