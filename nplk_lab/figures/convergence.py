"""Spectra and convergence figures (overlaid solvers, coinciding ones named)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    _HISTORY_LABELS,
    SCATTER,
    SERIES_COLORS,
    _axis,
    _corner_note,
    _figure,
    _layout,
    _note_top,
    _stacked,
    _suffix,
    f32,
)

# ---------------------------------------------------------------------------
# spectra and convergence
# ---------------------------------------------------------------------------

#: display names of the matrices the estimators key their spectra by
_MATRIX_NAMES = {"FK": "F × K", "GK": "G × K"}


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
    """Sorted eigenvalues on a log-scale y axis (one line per matrix, each with its own
    colour, dash and marker: :data:`SOLVER_STYLES`); values below
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
        # each matrix its own colour, dash and marker shape (as the solvers): the lines
        # differ by more than colour
        dash, symbol = SOLVER_STYLES[i % len(SOLVER_STYLES)]
        traces.append(dict(
            type="scatter", x=f32(np.arange(1, lam.size + 1)), y=f32(shown),
            mode="lines+markers", marker=dict(size=5, symbol=symbol),
            line=dict(color=SERIES_COLORS[i % len(SERIES_COLORS)], dash=dash), name=name,
            hovertemplate=f"{name}: λ_%{{x}} = %{{y:.3g}}<extra></extra>"))
    if title is None:
        title = "Eigen-decay of " + ", ".join(t["name"] for t in traces)
    note_text = f"{rank_label} = {rank}" if rank is not None else ""
    layout = _layout(title, height, top=_note_top(title, note_text),
                     xaxis=_axis("index i (eigenvalues in descending order)"),
                     yaxis=_axis("eigenvalue λᵢ (log scale)", **_log_axis(tops)),
                     annotations=_corner_note(note_text))
    return _figure(traces, layout)


def mark_eigenvalue(fig: go.Figure, j: int) -> go.Figure:
    """A copy of a :func:`spectra_figure` with eigenvalue ``j`` (1-based) marked: a
    dotted vertical line at ``x = j``, a ring on every spectrum's ``λ_j`` (where it is
    drawn) and "selected j" above the line. ``fig`` itself is left as it was."""
    data, lay = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if not isinstance(data, list) or not isinstance(lay, dict):  # not plotly.py's internals
        data, lay = [t.to_plotly_json() for t in fig.data], fig.layout.to_plotly_json()
    traces = [dict(t) for t in data]       # shallow: the arrays are shared, never written
    layout = dict(lay)
    rings_x, rings_y, colors = [], [], []
    for t in traces:
        xv, yv = np.asarray(t.get("x", ()), dtype=float), np.asarray(t.get("y", ()),
                                                                     dtype=float)
        hit = np.flatnonzero(np.isclose(xv, j))
        if hit.size and np.isfinite(yv[hit[0]]):
            rings_x.append(float(j))
            rings_y.append(float(yv[hit[0]]))
            colors.append((t.get("line") or {}).get("color", "#333"))
    if rings_x:
        traces.append(dict(type=SCATTER, x=f32(rings_x), y=f32(rings_y), mode="markers",
                           marker=dict(size=15, color="rgba(0,0,0,0)", symbol="circle",
                                       line=dict(width=2.5, color=colors)),
                           name=f"selected j = {int(j)}", showlegend=False,
                           hoverinfo="skip"))
    layout["shapes"] = list(layout.get("shapes", ())) + [dict(
        type="line", xref="x", yref="y domain", x0=j, x1=j, y0=0, y1=1,
        line=dict(color="#111", width=1.5, dash="dot"), layer="below")]
    layout["annotations"] = list(layout.get("annotations", ())) + [dict(
        text=f"selected j = {int(j)}", xref="x", yref="y domain", x=j, y=1.0,
        xanchor="left", yanchor="top", xshift=4, showarrow=False,
        bgcolor="rgba(255,255,255,0.85)", font=dict(size=12))]
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
