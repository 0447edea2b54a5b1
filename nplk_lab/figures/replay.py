"""Training replay: one figure with a Plotly frame per kept iteration.

:func:`replay_figure` draws a :class:`nplk_lab.model.replay.Replay` as the decision surface
(or the regression curve) with the support rings, a small convergence trace with a
marker on the current iteration, the learned matrix (F, G or G − K) and the scores
in the corner. The figure's ``data`` shows the last frame (the final fit); its
``frames`` hold, per iteration, only the traces that change (``traces`` gives their
indices) and the corner note. Surface and matrix values go as ``uint8`` levels
(256 steps between fixed colour limits: the surface is drawn in 20 colour bands, so
nothing visible is lost) to keep a 60-frame replay on a 100 × 100 grid near 1 MB.
:func:`replay_json` serialises the figure with its frames; the player
(``nplk_lab/ui/components/replay.py``) steps through them in the browser.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    BOUNDARY_NAME,
    DECISION_VALUE,
    DIVERGING,
    MARGIN_NAME,
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
    class_color,
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
            scale, bar = banded(DIVERGING, SURFACE_BANDS), DECISION_VALUE
        else:
            allv = np.concatenate([f.values.ravel() for f in rp.played])
            lo, hi = (float(v) for v in np.nanpercentile(allv, [1, 99]))
            scale, bar = SEQUENTIAL, "fitted<br>value"
        zq = lambda fr: quantize(fr.values, lo, hi)  # noqa: E731
        traces.append(dict(type="heatmap", x=f32(rp.xs), y=f32(rp.ys), z=zq(last),
                           colorscale=scale, zmin=0, zmax=LEVELS, zsmooth="best",
                           opacity=0.8,
                           name="f at this iteration" if clf else "fit at this iteration",
                           hoverinfo="skip",
                           colorbar=_colorbar(lo, hi, bar, len=0.8, x=0.6, xanchor="left")))
        changing.append(0)
        if clf:
            for levels, width, dash, nm in (((0.0,), 2.5, "solid", BOUNDARY_NAME),
                                            ((-1.0, 1.0), 1.2, "dash", MARGIN_NAME)):
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
    # what the player paints itself per frame (nplk_lab/ui/components/replay.py): the
    # traces that change,
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


# ---------------------------------------------------------------------------
# the replay as an animated GIF (drawn with numpy and Pillow, no browser)
# ---------------------------------------------------------------------------

#: frames per second of the GIF (the untrained start and the final fit are held longer)
GIF_FPS = 10  # GIF delays are whole centiseconds: 100 ms exactly
_FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVuSans.ttf",
               "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")


def _font(size: int):
    from PIL import ImageFont

    for f in _FONT_FILES:
        try:
            return ImageFont.truetype(f, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _resample(Z: np.ndarray, h: int, w: int) -> np.ndarray:
    """``Z`` (rows up in y) bilinearly resampled to ``h × w`` pixels (rows down)."""
    Z = np.asarray(Z, dtype=float)[::-1]
    ny, nx = Z.shape
    yi = np.linspace(0, ny - 1, h)
    xi = np.linspace(0, nx - 1, w)
    y0 = np.floor(yi).astype(int).clip(0, max(ny - 2, 0))
    x0 = np.floor(xi).astype(int).clip(0, max(nx - 2, 0))
    y1, x1 = np.minimum(y0 + 1, ny - 1), np.minimum(x0 + 1, nx - 1)
    wy, wx = (yi - y0)[:, None], (xi - x0)[None, :]
    return ((1 - wy) * ((1 - wx) * Z[np.ix_(y0, x0)] + wx * Z[np.ix_(y0, x1)])
            + wy * ((1 - wx) * Z[np.ix_(y1, x0)] + wx * Z[np.ix_(y1, x1)]))


def _crossing(V: np.ndarray, level: float) -> np.ndarray:
    """Pixels where ``V`` crosses ``level`` to a neighbour (a one-pixel level line)."""
    s = V > level
    out = np.zeros_like(s)
    out[:, 1:] |= s[:, 1:] != s[:, :-1]
    out[1:, :] |= s[1:, :] != s[:-1, :]
    return out


def replay_gif(rp: Any, X_train: np.ndarray, y_train: np.ndarray,
               X_test: np.ndarray | None = None, y_test: np.ndarray | None = None, *,
               title: str = "", size: int = 420, fps: float = GIF_FPS) -> bytes:
    """The replay ``rp`` (its untrained start, then every kept iteration) as an animated
    GIF: one frame per replay frame, looping. Left: the surface in the replay's colours
    with f = 0 (black) and f = ±1 (grey), the training points, the test points hollow and
    the support rings (or the fitted curve over the data, for a 1-D regression); right:
    the learned matrix by class; above: the iteration and the scores. Drawn with numpy and
    Pillow on the server, without a browser."""
    from PIL import Image, ImageDraw

    if not rp.frames:
        raise ValueError("replay_gif needs a replay with frames (Replay.ok).")
    X_train = np.asarray(X_train, dtype=float)
    y_train = np.asarray(y_train, dtype=float)
    played = rp.played
    clf = rp.task == "classification"
    surface = rp.kind == "surface"
    has_matrix = played[-1].matrix is not None
    side = size // 2 if has_matrix else 0
    pad, head = 12, 58
    W, H = pad + size + (pad + side if has_matrix else 0) + pad, head + size + pad + 16
    font, small = _font(15), _font(12)
    if surface:
        if clf:
            m = float(np.nanpercentile(np.abs(played[-1].values), 99))
            lo, hi = -max(1.25, min(m, 50.0)), max(1.25, min(m, 50.0))
            table = np.array(lut(banded(DIVERGING, SURFACE_BANDS)), dtype=float)
        else:
            allv = np.concatenate([f.values.ravel() for f in played])
            lo, hi = (float(v) for v in np.nanpercentile(allv, [1, 99]))
            table = np.array(lut(SEQUENTIAL), dtype=float)
        x0, x1 = float(rp.xs[0]), float(rp.xs[-1])
        y0, y1 = float(rp.ys[0]), float(rp.ys[-1])
    else:
        yl = np.concatenate([f.values for f in played] + [y_train])
        x0, x1 = float(rp.xs[0]), float(rp.xs[-1])
        y0, y1 = float(np.nanmin(yl)), float(np.nanmax(yl))
        y0, y1 = y0 - 0.05 * (y1 - y0 or 1), y1 + 0.05 * (y1 - y0 or 1)
    if has_matrix:
        c = float(rp.matrix_center or 0.0)
        dev = max(float(np.nanmax(np.abs(f.matrix - c))) for f in played
                  if f.matrix is not None) or 1e-12
        mtable = np.array(lut(DIVERGING), dtype=float)

    def px(x, y):
        return (pad + (np.asarray(x) - x0) / (x1 - x0 or 1) * (size - 1),
                head + (y1 - np.asarray(y)) / (y1 - y0 or 1) * (size - 1))

    def dot(d, x, y, r, fill=None, outline=None, width=1):
        d.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=outline, width=width)

    images, durations = [], []
    for k, fr in enumerate(played):
        img = Image.new("RGB", (W, H), "white")
        d = ImageDraw.Draw(img)
        if surface:
            V = _resample(fr.values, size, size)
            q = quantize(V, lo, hi)
            rgb = table[q] * 0.8 + 255 * 0.2            # the player's opacity 0.8
            if clf:
                rgb[_crossing(V, 1.0) | _crossing(V, -1.0)] = (110, 110, 110)
                zero = _crossing(V, 0.0)
                zero[1:, :] |= zero[:-1, :]             # 2 px wide
                rgb[zero] = (0, 0, 0)
            img.paste(Image.fromarray(rgb.astype(np.uint8)), (pad, head))
            if clf:
                for X, Y, hollow in ((X_train, y_train, False), (X_test, y_test, True)):
                    if X is None or Y is None or not len(Y):
                        continue
                    xs_, ys_ = px(np.asarray(X)[:, 0], np.asarray(X)[:, 1])
                    for a, b, lab_ in zip(xs_, ys_, np.asarray(Y), strict=False):
                        col = class_color(lab_)
                        dot(d, a, b, 3.5, fill=None if hollow else col,
                            outline=col if hollow else "white", width=2 if hollow else 1)
            else:
                xs_, ys_ = px(X_train[:, 0], X_train[:, 1])
                for a, b in zip(xs_, ys_, strict=False):
                    dot(d, a, b, 3, fill="#555555", outline="white")
            if len(fr.support):
                sx, sy = px(X_train[fr.support, 0], X_train[fr.support, 1])
                for a, b in zip(sx, sy, strict=False):
                    dot(d, a, b, 7, outline="black", width=1)
        else:
            d.rectangle([pad, head, pad + size - 1, head + size - 1], outline="#bbbbbb")
            xs_, ys_ = px(X_train[:, 0], y_train)
            for a, b in zip(xs_, ys_, strict=False):
                dot(d, a, b, 2.5, fill="#555555")
            cx, cy = px(rp.xs, fr.values)
            d.line(list(zip(cx.tolist(), cy.tolist(), strict=False)), fill=SERIES_COLORS[0],
                   width=3)
            if len(fr.support):
                sxv = X_train[fr.support, 0]
                sx, sy = px(sxv, np.interp(sxv, rp.xs, fr.values))
                for a, b in zip(sx, sy, strict=False):
                    dot(d, a, b, 6, outline="black", width=1)
        if has_matrix and fr.matrix is not None:
            mq = quantize(fr.matrix, c - dev, c + dev)
            mimg = Image.fromarray(mtable[mq].astype(np.uint8)).resize((side, side),
                                                                        Image.NEAREST)
            mx, my = pad + size + pad, head
            img.paste(mimg, (mx, my))
            d.rectangle([mx, my, mx + side - 1, my + side - 1], outline="#888888")
            d.text((mx, my + side + 4), f"{rp.matrix_name} by {'class' if clf else 'target'}",
                   fill=TEXT_COLOR,
                   font=small)
            d.text((mx, my + side + 20), f"colour: {c - dev:.4g} … {c + dev:.4g}",
                   fill=TEXT_COLOR, font=small)
        # what this frame is, the scores, and a progress bar
        note = _note(rp, fr)[0]["text"]
        what, _, score = note.partition(" · ")
        d.text((pad, 4), title, fill=TEXT_COLOR, font=font)
        d.text((pad, 24), what, fill=TEXT_COLOR, font=small)
        d.text((pad, 39), score, fill=TEXT_COLOR, font=small)
        frac = k / max(len(played) - 1, 1)
        d.rectangle([pad, H - 12, W - pad, H - 6], outline="#cccccc")
        d.rectangle([pad, H - 12, pad + frac * (W - 2 * pad), H - 6], fill=SERIES_COLORS[1])
        # fast octree: a tenth of median cut's time, the same look on these flat colours
        images.append(img.quantize(colors=255, method=Image.Quantize.FASTOCTREE))
        hold = 1.0 if k == 0 or k == len(played) - 1 else 0.0
        durations.append(int(round(max(1000.0 / fps, hold * 1000))))
    import io

    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:],
                   duration=durations, loop=0, optimize=False, disposal=1)
    return buf.getvalue()
