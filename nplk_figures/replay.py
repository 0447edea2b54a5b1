"""Training replay: one figure with a Plotly frame per kept iteration.

:func:`replay_figure` draws a :class:`nplk_app.replay.Replay` as the decision surface
(or the regression curve) with the support rings, a small convergence trace with a
marker on the current iteration, the learned matrix (F, G or G − K) and the scores
in the corner. The figure's ``data`` shows the last frame (the final fit); its
``frames`` hold, per iteration, only the traces that change (``traces`` gives their
indices) and the corner note. Surface and matrix values go as ``uint8`` levels
(256 steps between fixed colour limits: the surface is drawn in 20 colour bands, so
nothing visible is lost) to keep a 60-frame replay on a 100 × 100 grid near 1 MB.
:func:`replay_json` serialises the figure with its frames; the player
(``lab_replay.py``) steps through them in the browser.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    DIVERGING,
    SCATTER,
    SEQUENTIAL,
    SERIES_COLORS,
    SURFACE_BANDS,
    TEXT_COLOR,
    _axis,
    _figure,
    _json_default,
    _layout,
    banded,
    f32,
)
from .surfaces import _class_traces, level_lines

#: levels of the quantised surface and matrix values (0 … LEVELS)
LEVELS = 255


def quantize(Z: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``Z`` clipped to ``[lo, hi]`` as ``uint8`` levels ``0 … LEVELS``."""
    span = hi - lo if hi > lo else 1.0
    q = np.round((np.clip(np.asarray(Z, dtype=float), lo, hi) - lo) / span * LEVELS)
    return np.nan_to_num(q, nan=LEVELS / 2).astype(np.uint8)


def dequantize(q: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The values :func:`quantize` levels stand for (error at most half a level)."""
    return lo + np.asarray(q, dtype=float) / LEVELS * (hi - lo)


def _level_xy(xs, ys, Z, levels) -> tuple[np.ndarray, np.ndarray]:
    px, py = [], []
    for lev in levels:
        x, y = level_lines(xs, ys, Z, lev)
        if x.size:
            px += [x, [np.nan]]
            py += [y, [np.nan]]
    if not px:
        return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
    return f32(np.concatenate(px[:-1])), f32(np.concatenate(py[:-1]))


def _finite(v: float) -> float | None:
    return float(v) if v is not None and np.isfinite(v) else None


def _colorbar(lo: float, hi: float, title: str, **kw: Any) -> dict:
    """A colour bar labelled in the values the levels stand for."""
    vals = np.linspace(lo, hi, 5)
    step = (hi - lo) / 4 if hi > lo else 1.0
    decimals = int(min(max(0, 1 - np.floor(np.log10(step))), 8))
    return dict(title=dict(text=title, side="top"), thickness=10, tickmode="array",
                tickvals=[float(v) for v in np.linspace(0, LEVELS, 5)],
                ticktext=[f"{v:.{decimals}f}".replace("-", "\u2212") for v in vals], **kw)


def _note(rp: Any, fr: Any) -> list[dict]:
    metric = "rel. error" if rp.metric == "relative error" else rp.metric
    score = " · ".join(f"{n} {v:.3f}" for n, v in (("train", fr.train_score),
                                                  ("test", fr.test_score))
                       if v is not None and np.isfinite(v))
    text = getattr(fr, "label", "") or \
        f"iteration {fr.iteration} of {max(rp.n_iter - 1, fr.iteration)}"
    if score:
        text += f" · {metric}: {score}"
    return [dict(text=text, xref="x domain", yref="y domain", x=1.0, y=1.0,
                 xanchor="right", yanchor="bottom", yshift=4, showarrow=False,
                 bgcolor="rgba(255,255,255,0.9)", bordercolor="#888", borderwidth=1,
                 borderpad=3, font=dict(size=13, color=TEXT_COLOR))]


def replay_figure(rp: Any, X_train: np.ndarray, y_train: np.ndarray,
                  X_test: np.ndarray | None = None, y_test: np.ndarray | None = None, *,
                  title: str = "", height: int = 560) -> go.Figure:
    """The replay of ``rp`` (a ``Replay`` with frames) as a figure with frames.

    Trace order: the surface (heatmap) or the curve, the level lines f = 0 and f = ±1
    (classification), the data, the support rings, the objective line and its marker,
    the learned matrix. The frames update the surface/curve, level lines, rings, marker
    and matrix, and the corner note (iteration and scores)."""
    if not rp.frames:
        raise ValueError("replay_figure needs a replay with frames (Replay.ok).")
    X_train = np.asarray(X_train, dtype=float)
    y_train = np.asarray(y_train, dtype=float)
    last = rp.frames[-1]
    clf = rp.task == "classification"
    surface = rp.kind == "surface"
    traces: list[dict] = []
    changing: list[int] = []
    # -- main panel: surface or curve ------------------------------------------------
    if surface:
        if clf:
            m = float(np.nanpercentile(np.abs(last.values), 99)) if last.values.size else 1.0
            lo, hi = -max(1.25, min(m, 50.0)), max(1.25, min(m, 50.0))
            scale, bar = banded(DIVERGING, SURFACE_BANDS), "f(x)"
        else:
            allv = np.concatenate([f.values.ravel() for f in rp.played])
            lo, hi = (float(v) for v in np.nanpercentile(allv, [1, 99]))
            scale, bar = SEQUENTIAL, "f(x)"
        zq = lambda fr: quantize(fr.values, lo, hi)  # noqa: E731
        traces.append(dict(type="heatmap", x=f32(rp.xs), y=f32(rp.ys), z=zq(last),
                           colorscale=scale, zmin=0, zmax=LEVELS, zsmooth="best",
                           opacity=0.8,
                           name="f at this iteration" if clf else "fit at this iteration",
                           hoverinfo="skip",
                           colorbar=_colorbar(lo, hi, bar, len=0.8, x=0.6, xanchor="left")))
        changing.append(0)
        if clf:
            for levels, width, dash, nm in (((0.0,), 2.5, "solid", "f(x) = 0"),
                                            ((-1.0, 1.0), 1.2, "dash", "f(x) = ±1")):
                x, y = _level_xy(rp.xs, rp.ys, last.values, levels)
                changing.append(len(traces))
                traces.append(dict(type="scatter", x=x, y=y, mode="lines", name=nm,
                                   hoverinfo="skip",
                                   line=dict(color="black", width=width, dash=dash)))
    else:
        zq = None
        traces.append(dict(type="scatter", x=f32(rp.xs), y=f32(last.values), mode="lines",
                           name="fit", line=dict(color=SERIES_COLORS[0], width=2.5)))
        changing.append(0)
    if clf and X_train.shape[1] == 2:
        traces += _class_traces(X_train, y_train, hollow=False, name_suffix="train")
        if X_test is not None and y_test is not None and len(y_test):
            traces += _class_traces(X_test, y_test, hollow=True, name_suffix="test")
    elif surface:
        traces.append(dict(type=SCATTER, x=f32(X_train[:, 0]), y=f32(X_train[:, 1]),
                           mode="markers", name="train",
                           marker=dict(size=6, color="#555555")))
    else:
        traces.append(dict(type=SCATTER, x=f32(X_train[:, 0]), y=f32(y_train),
                           mode="markers", name="train", marker=dict(size=6, color="#555555")))
        if X_test is not None and y_test is not None and len(y_test):
            traces.append(dict(type=SCATTER, x=f32(np.asarray(X_test)[:, 0]), y=f32(y_test),
                               mode="markers", name="test",
                               marker=dict(size=7, symbol="circle-open", color="#555555")))

    def rings(fr) -> dict:
        P = X_train[fr.support] if len(fr.support) else np.zeros((0, X_train.shape[1]))
        if surface:
            return dict(x=f32(P[:, 0]), y=f32(P[:, 1]))
        return dict(x=f32(P[:, 0]), y=f32(np.interp(P[:, 0], rp.xs, fr.values)))

    i_ring = len(traces)
    traces.append(dict(type=SCATTER, mode="markers", name="support vectors",
                       hoverinfo="skip", **rings(last),
                       marker=dict(symbol="circle-open", size=13 if surface else 12,
                                   color="black", line=dict(width=1.5))))
    changing.append(i_ring)
    # -- convergence: the objective per iteration, a marker on the current one ----------
    it = np.asarray(rp.history_iteration, dtype=float)
    obj = np.asarray(rp.history_objective, dtype=float)
    log_y = rp.objective_name == "loss" and obj.size and np.nanmin(obj) > 0
    traces.append(dict(type="scatter", x=f32(it), y=f32(obj), mode="lines", xaxis="x2",
                       yaxis="y2", name=rp.objective_name, showlegend=False,
                       line=dict(color=SERIES_COLORS[0], width=1.5),
                       hovertemplate="iteration %{x}<br>%{y:.6g}<extra></extra>"))
    i_mark = len(traces)
    traces.append(dict(type="scatter", x=[last.iteration], y=[_finite(last.objective)],
                       mode="markers",
                       xaxis="x2", yaxis="y2", name="current iteration", showlegend=False,
                       marker=dict(size=11, color=SERIES_COLORS[1],
                                   line=dict(width=1, color="white")), hoverinfo="skip"))
    changing.append(i_mark)
    # -- the learned matrix -----------------------------------------------------------
    has_matrix = last.matrix is not None
    mq = None
    if has_matrix:
        c = float(rp.matrix_center or 0.0)
        dev = max(float(np.nanmax(np.abs(f.matrix - c))) for f in rp.played
                  if f.matrix is not None) or 1e-12
        mlo, mhi = c - dev, c + dev
        mq = lambda fr: quantize(fr.matrix, mlo, mhi)  # noqa: E731
        i_mat = len(traces)
        traces.append(dict(type="heatmap", z=mq(last), xaxis="x3", yaxis="y3",
                           colorscale=DIVERGING, zmin=0, zmax=LEVELS, hoverinfo="skip",
                           name=rp.matrix_name or "learned matrix",
                           colorbar=_colorbar(mlo, mhi, rp.matrix_name or "", len=0.42,
                                              y=0.0, yanchor="bottom", x=1.0)))
        changing.append(i_mat)
    # -- frames -----------------------------------------------------------------------
    frames = []
    for fr in rp.played:  # the untrained start first (when the method has one)
        data = []
        if surface:
            data.append(dict(z=zq(fr)))
            if clf:
                for levels in ((0.0,), (-1.0, 1.0)):
                    x, y = _level_xy(rp.xs, rp.ys, fr.values, levels)
                    data.append(dict(x=x, y=y))
        else:
            data.append(dict(y=f32(fr.values)))
        data.append(rings(fr))
        data.append(dict(x=[fr.iteration], y=[_finite(fr.objective)]))
        if has_matrix:
            data.append(dict(z=mq(fr)))
        frames.append(dict(name="start" if getattr(fr, "label", "") else str(fr.iteration),
                           data=data, traces=list(changing),
                           layout=dict(annotations=_note(rp, fr))))
    main_x = [0.0, 0.58]
    layout = _layout(
        title, height, top=70,
        xaxis=_axis("x1" if surface else "x", domain=main_x,
                    **(dict(range=[float(rp.xs[0]), float(rp.xs[-1])], constrain="domain")
                       if surface else {})),
        yaxis=_axis("x2" if surface else "y",
                    **(dict(range=[float(rp.ys[0]), float(rp.ys[-1])], scaleanchor="x",
                            scaleratio=1, constrain="domain") if surface else {})),
        xaxis2=_axis("iteration", domain=[0.8, 1.0], anchor="y2"),
        yaxis2=_axis(rp.objective_name, domain=[0.58, 1.0], anchor="x2",
                     type="log" if log_y else "linear"),
        annotations=_note(rp, last),
        legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0,
                    xanchor="left", font=dict(size=12, color=TEXT_COLOR)))
    if has_matrix:
        order = "class" if clf else "target"
        layout["xaxis3"] = dict(domain=[0.8, 0.95], anchor="y3", showticklabels=False,
                                showgrid=False, ticks="", constrain="domain")
        layout["yaxis3"] = dict(domain=[0.0, 0.44], anchor="x3", showticklabels=False,
                                showgrid=False, ticks="", autorange="reversed",
                                scaleanchor="x3", constrain="domain",
                                title=dict(text=f"{rp.matrix_name} (by {order})",
                                           font=dict(size=12)))
    fig = _figure(traces, layout)
    fig._replay_frames = frames  # serialised by replay_json (go.Frame would validate)
    # what the player paints itself per frame (lab_replay.py): the traces that change,
    # with the colour of every level (no Plotly redraw per frame)
    player: dict[str, Any] = {
        "rings": {"trace": i_ring, "size": 13 if surface else 12},
        "marker": {"trace": i_mark, "color": SERIES_COLORS[1]}}
    if surface:
        player["surface"] = {"trace": 0, "lut": lut(scale), "opacity": 0.8}
        if clf:
            player["lines"] = [{"trace": 1, "width": 2.5, "dash": []},
                               {"trace": 2, "width": 1.2, "dash": [6, 4]}]
    else:
        player["curve"] = {"trace": 0, "width": 2.5, "color": SERIES_COLORS[0]}
    if has_matrix:
        player["matrix"] = {"trace": i_mat, "lut": lut(DIVERGING)}
    fig._replay_player = player
    return fig


def _rgb(color: str) -> np.ndarray:
    c = color.strip()
    if c.startswith("#"):
        return np.array([int(c[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    return np.array([float(v) for v in c[c.index("(") + 1:c.index(")")].split(",")[:3]])


def lut(colorscale: Any) -> list[list[int]]:
    """The RGB colour of every level ``0 … LEVELS`` under ``colorscale`` (a list of
    ``[position, colour]`` stops, steps allowed, or a Plotly scale name), interpolated
    linearly between stops as Plotly does."""
    if isinstance(colorscale, str):
        from plotly.colors import get_colorscale

        colorscale = get_colorscale(colorscale)
    pos = np.array([float(p) for p, _ in colorscale])
    cols = np.array([_rgb(c) for _, c in colorscale])
    out = []
    for t in np.arange(LEVELS + 1) / LEVELS:
        i = min(max(int(np.searchsorted(pos, t, side="right")) - 1, 0), len(pos) - 1)
        j = min(i + 1, len(pos) - 1)
        w = 0.0 if pos[j] <= pos[i] else (t - pos[i]) / (pos[j] - pos[i])
        out.append([int(round(v)) for v in (1 - w) * cols[i] + w * cols[j]])
    return out


def replay_frames_of(fig: go.Figure) -> list[dict]:
    """The frames :func:`replay_figure` attached to ``fig``."""
    return getattr(fig, "_replay_frames", [])


def replay_json(fig: go.Figure) -> str:
    """``fig`` with its frames (and what the player paints) as the JSON the player reads
    (typed arrays base64)."""
    return json.dumps({"data": fig._data, "layout": fig._layout,
                       "frames": replay_frames_of(fig),
                       "player": getattr(fig, "_replay_player", None)},
                      default=_json_default, separators=(",", ":"), allow_nan=False)
