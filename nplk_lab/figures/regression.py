"""Regression figures: curve, surface, parity and LAB RBF bandwidth ellipses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .ablation import nn_curve_trace
from .common import (
    SCATTER,
    SEQUENTIAL,
    SERIES_COLORS,
    _axis,
    _corner_note,
    _figure,
    _layout,
    _note_top,
    _score_text,
    f32,
)
from .surfaces import _class_traces, _ring_trace

# ---------------------------------------------------------------------------
# regression
# ---------------------------------------------------------------------------


#: dashes of the other curves on a 1-D regression plot, in order (the noiseless function,
#: then the plain SVR): none solid (the fit) or dash-dot (1-nearest neighbour)
_OTHER_DASHES = ("dash", "dot", "longdash", "longdashdot")


def regression_curve(X_train: np.ndarray, y_train: np.ndarray, x_line: np.ndarray,
                     y_line: np.ndarray, *, X_test: np.ndarray | None = None,
                     y_test: np.ndarray | None = None, support: np.ndarray | None = None,
                     support_y: np.ndarray | None = None,
                     others: Mapping[str, np.ndarray] | None = None, name: str = "fit",
                     train_score: float | None = None, test_score: float | None = None,
                     metric: str = "relative error", title: str = "",
                     nn_curve: tuple[np.ndarray, np.ndarray] | None = None,
                     height: int = 520) -> go.Figure:
    """1-D regression: data, the fitted curve, support points (hollow), and other
    curves on the same ``x_line`` (e.g. the noiseless function, dashed, then a baseline,
    dotted: each other curve has its own dash);
    ``nn_curve``: 1-nearest neighbour's step curve ``(x, y)`` (:func:`.ablation.nn_step`),
    drawn dash-dot orange."""
    traces = [dict(type=SCATTER, x=f32(np.ravel(X_train)), y=f32(y_train),
                   mode="markers", name="train", marker=dict(size=6, color="#555555"))]
    if X_test is not None and y_test is not None and len(y_test):
        traces.append(dict(type=SCATTER, x=f32(np.ravel(X_test)), y=f32(y_test),
                           mode="markers", name="test",
                           marker=dict(size=7, symbol="circle-open", color="#555555")))
    for i, (nm, yy) in enumerate((others or {}).items(), start=1):
        # each its own dash (not only its own colour): the fit is solid, 1-NN dash-dot
        traces.append(dict(type="scatter", x=f32(x_line), y=f32(yy), mode="lines", name=nm,
                           line=dict(color=SERIES_COLORS[i % len(SERIES_COLORS)], width=1.5,
                                     dash=_OTHER_DASHES[(i - 1) % len(_OTHER_DASHES)])))
    if nn_curve is not None:
        traces.append(nn_curve_trace(*nn_curve))
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
                       baseline: np.ndarray | None = None, baseline_name: str = "plain SVR",
                       height: int = 540) -> go.Figure:
    """2-D regression: the fitted surface as a filled contour, points coloured by
    their target on the same colour scale, support points hollow; ``baseline`` (the
    plain SVR on the same grid) as dotted level curves at the fill's contour levels,
    so where the two fits differ the dotted lines leave the colour bands' edges."""
    y_all = np.concatenate([np.ravel(y_train), np.ravel(y_test) if y_test is not None
                            else np.zeros(0)])
    lo = float(min(np.nanmin(Z), np.nanmin(y_all)))
    hi = float(max(np.nanmax(Z), np.nanmax(y_all)))
    traces = [dict(
        type="contour", x=f32(xs), y=f32(ys), z=f32(Z), colorscale=SEQUENTIAL, zmin=lo,
        zmax=hi, contours=dict(coloring="fill", showlines=False), line=dict(width=0),
        opacity=0.85, name="fit", colorbar=dict(title=dict(text="ŷ"), thickness=12),
        hovertemplate="x1=%{x:.2f}<br>x2=%{y:.2f}<br>ŷ=%{z:.3f}<extra></extra>")]
    if baseline is not None:
        # the same levels as the fill (Plotly picks ~15 between zmin and zmax)
        size = (hi - lo) / 12 if hi > lo else 1.0
        traces[0]["contours"].update(start=lo + size / 2, end=hi, size=size)
        traces.append(dict(
            type="contour", x=f32(xs), y=f32(ys), z=f32(baseline), name=baseline_name,
            contours=dict(coloring="none", start=lo + size / 2, end=hi, size=size,
                          showlabels=False),
            line=dict(color="#1b7837", width=1.6, dash="dot"), showscale=False,
            showlegend=True,
            hovertemplate="x1=%{x:.2f}<br>x2=%{y:.2f}<br>plain SVR ŷ=%{z:.3f}"
                          "<extra></extra>"))
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
            name="kernel width",
            hovertemplate="x=%{x:.3f}<br>kernel width %{y:.3g}<extra></extra>")]
        layout = _layout(title, height, xaxis=_axis("support point x"),
                         yaxis=_axis("kernel width", type="log"))
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
