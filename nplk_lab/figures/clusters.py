"""Pairwise-constraint figures (SimpleNPKL): constraints, clusters, embeddings."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    CANNOT_LINK_COLOR,
    CLASS_NAMES,
    MUST_LINK_COLOR,
    SCATTER,
    _axis,
    _corner_note,
    _figure,
    _layout,
    _note_top,
    cluster_color,
    cluster_symbol,
    f32,
)

# ---------------------------------------------------------------------------
# pairwise constraints (SimpleNPKL)
# ---------------------------------------------------------------------------


def sample_pairs(pairs: np.ndarray, limit: int, seed: int = 0) -> np.ndarray:
    """At most ``limit`` of ``pairs``, drawn at random (the same ones for the same seed),
    in their original order."""
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    if len(pairs) <= limit:
        return pairs
    if limit <= 0:
        return pairs[:0]
    keep = np.sort(np.random.default_rng(seed).choice(len(pairs), size=limit, replace=False))
    return pairs[keep]


def _segments(X: np.ndarray, pairs: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = sample_pairs(pairs, limit)
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
                  marker=dict(size=8, color=cluster_color(k), symbol=cluster_symbol(k),
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
                  # dark ink, drawn light on a dark page (the live chart reads "nplk-ink")
                  meta="nplk-ink",
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


def _region_trace(regions: tuple[np.ndarray, np.ndarray, np.ndarray]) -> dict:
    """The plane coloured by the cluster of its nearest point, faint, in the clusters'
    colours (a step colour scale: one flat colour per cluster)."""
    xs, ys, Z = regions
    Z = np.asarray(Z, dtype=float)
    ks = np.unique(Z[np.isfinite(Z)]).astype(int)
    lo, hi = (int(ks.min()), int(ks.max())) if ks.size else (0, 1)
    span = max(hi - lo + 1, 1)
    scale = []
    for k in range(lo, hi + 1):
        a, b = (k - lo) / span, (k - lo + 1) / span
        scale += [[a, cluster_color(k)], [b, cluster_color(k)]]
    return dict(type="heatmap", x=f32(xs), y=f32(ys), z=f32(Z), zmin=lo - 0.5,
                zmax=hi + 0.5, colorscale=scale, opacity=0.22, showscale=False,
                name="clusters found (each place: its nearest point's cluster)",
                showlegend=True, hoverinfo="skip", zsmooth=False)


def constraints_figure(X: np.ndarray, labels: np.ndarray, must_link: np.ndarray,
                       cannot_link: np.ndarray, *, y_true: np.ndarray | None = None,
                       max_lines: int = 600, title: str = "", score_text: str = "",
                       regions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                       height: int = 540, clusters: str = "clusters (learned kernel)"
                       ) -> go.Figure:
    """Points coloured by cluster (legend group ``clusters``: say which clustering),
    outlined by true class (two legend groups); must-link
    pairs as solid green lines, cannot-link pairs as dashed orange lines (a random
    sample of at most ``max_lines`` each; 0: none, the legend still counts them);
    ``regions`` = (xs, ys, Z) colours the plane by the cluster found (Z: cluster per
    grid cell)."""
    X = np.asarray(X, dtype=float)
    traces = [_region_trace(regions)] if regions is not None else []
    first = len(traces)
    for pairs, name, color, dash in ((must_link, "must-link", MUST_LINK_COLOR, "solid"),
                                     (cannot_link, "cannot-link", CANNOT_LINK_COLOR, "dash")):
        xs, ys = _segments(X, pairs, max_lines)
        n_pairs = len(np.asarray(pairs).reshape(-1, 2))
        shown = min(n_pairs, max(max_lines, 0))
        label = f"{name} ({n_pairs})" if shown == n_pairs else \
            f"{name} ({shown} of {n_pairs} shown)"
        # plain scatter (not WebGL): WebGL lines cannot be dashed
        traces.append(dict(type="scatter", x=f32(xs), y=f32(ys), mode="lines", name=label,
                           line=dict(color=color, width=1.6, dash=dash), opacity=0.8,
                           hoverinfo="skip", legendgroup="pairs"))
    traces[first]["legendgrouptitle"] = dict(text="constraints")
    traces += _cluster_traces(X, labels, y_true, what=clusters)
    xaxis, yaxis = _axis("x1"), _axis("x2", scaleanchor="x")
    if regions is not None:
        # the axes span the shaded grid exactly and the plot area shrinks to keep x and y
        # on one scale ("domain"): widening the range instead left white bands beside
        # the shading
        gx, gy = np.asarray(regions[0], dtype=float), np.asarray(regions[1], dtype=float)
        xaxis.update(range=[float(gx[0]), float(gx[-1])], constrain="domain")
        yaxis.update(range=[float(gy[0]), float(gy[-1])], scaleratio=1, constrain="domain")
    layout = _layout(title, height, top=_note_top(title, score_text), xaxis=xaxis,
                     yaxis=yaxis, annotations=_corner_note(score_text))
    return _figure(traces, _grouped_legend(layout))


def embedding_figure(E: np.ndarray, labels: np.ndarray, *, y_true: np.ndarray | None = None,
                     title: str = "2-D embedding from the learned kernel",
                     height: int = 460) -> go.Figure:
    """Points in the top two eigen-directions of the learned kernel, by cluster."""
    E = np.asarray(E, dtype=float)
    if E.ndim == 1 or E.shape[1] == 1:
        E = np.column_stack([np.ravel(E), np.zeros(len(E))])
    # the coordinates are √λⱼ vⱼ (eigenvalue, eigenvector); named in words on screen and
    # explained in the page's researchers' note
    layout = _layout(title, height, xaxis=_axis("1st spectral coordinate"),
                     yaxis=_axis("2nd spectral coordinate"))
    return _figure(_cluster_traces(E[:, :2], labels, y_true), _grouped_legend(layout))
