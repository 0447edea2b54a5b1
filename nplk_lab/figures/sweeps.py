"""Sensitivity sweeps and the scaling study (partitions, lines over n)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from .clusters import _cluster_traces, _grouped_legend
from .common import (
    BASELINE_COLOR,
    SCATTER,
    SERIES_COLORS,
    _axis,
    _figure,
    _layout,
    _stacked,
    _suffix,
    f32,
)
from .convergence import _log_axis

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


#: marker shapes of :func:`lines_figure`'s series, in order
_SERIES_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross")


def lines_figure(x: np.ndarray, series: Mapping[str, np.ndarray], *, x_title: str,
                 y_title: str, title: str = "", log_x: bool = False, log_y: bool = False,
                 height: int = 380, dashes: Mapping[str, str] | None = None) -> go.Figure:
    """Several named series against a common x (Q(π) vs v, bound vs gap, time vs n),
    each with its own colour and marker shape (and ``dashes[name]``, default solid), so
    no two differ by colour alone."""
    traces = []
    for i, (name, v) in enumerate(series.items()):
        v = np.asarray(v, dtype=float)
        if log_y:
            v = np.where(v > 0, v, np.nan)
        traces.append(dict(
            type="scatter", x=f32(x), y=f32(v), mode="lines+markers", name=name,
            line=dict(color=SERIES_COLORS[i % len(SERIES_COLORS)], width=2,
                      dash=(dashes or {}).get(name, "solid")),
            marker=dict(symbol=_SERIES_SYMBOLS[i % len(_SERIES_SYMBOLS)], size=7),
            hovertemplate=f"{name}<br>{x_title}=%{{x:.4g}}<br>%{{y:.4g}}<extra></extra>"))
    ya = _axis(y_title, type="log" if log_y else "linear")
    if log_y:
        vals = [float(v) for a in series.values() for v in np.ravel(a)
                if np.isfinite(v) and v > 0]
        ya.update(_log_axis([min(vals), max(vals)] if vals else []))
    layout = _layout(title, height, xaxis=_axis(x_title, type="log" if log_x else "linear"),
                     yaxis=ya)
    return _figure(traces, layout)
