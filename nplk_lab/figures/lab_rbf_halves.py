"""LAB RBF, both halves: the held-out error of four fits on the same support points
(:mod:`nplk_lab.model.lab_rbf_halves` computes them), one dot per fit on a log axis."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .common import SCATTER, SERIES_COLORS, _axis, _figure, _layout, f32


def halves_figure(labels: Sequence[str], errors: Sequence[float], *,
                  groups: Sequence[str] = (), title: str = "Four fits, same support points",
                  metric: str = "relative test error", height: int = 380) -> go.Figure:
    """One row per fit (``labels``, top to bottom), its ``errors`` as a dot on a log x
    axis (lower is better); ``groups`` (one per fit) colours the dots by how the
    coefficients are fitted, named in the legend. Non-positive or non-finite errors are
    left out (a log axis cannot place them)."""
    labels = [str(s) for s in labels]
    e = np.asarray(errors, dtype=float)
    ok = np.isfinite(e) & (e > 0)
    groups = list(groups) if len(groups) == len(labels) else ["fit"] * len(labels)
    traces = []
    for k, g in enumerate(dict.fromkeys(groups)):
        idx = [i for i, gi in enumerate(groups) if gi == g and ok[i]]
        if not idx:
            continue
        traces.append(dict(
            type=SCATTER, x=f32(e[idx]), y=[labels[i] for i in idx], mode="markers",
            name=g, marker=dict(size=13, color=SERIES_COLORS[k % len(SERIES_COLORS)],
                                symbol=("circle", "diamond", "square")[k % 3]),
            hovertemplate="%{y}<br>" + metric + " %{x:.3g}<extra></extra>"))
    layout = _layout(title, height, xaxis=_axis(f"{metric} (log scale, lower is better)",
                                                type="log"),
                     yaxis=_axis("", categoryorder="array",
                                 categoryarray=list(reversed(labels))),
                     margin=dict(l=10, r=10, t=56 if title else 24, b=110, pad=0))
    return _figure(traces, layout)
