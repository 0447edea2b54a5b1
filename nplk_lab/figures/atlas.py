"""The atlas's region map: which explanation of a learned kernel's gain holds in each
σ × C cell of one method on one data set.

Categorical colours on index axes (the two-parameter maps' convention,
:func:`nplk_lab.figures.maps.map_figure`): each region has one colour, named on a colour
bar with one tick per region, and a cell's hover text carries its numbers with their
intervals. Pure function of arrays; imports nothing of the project but its own figures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .common import _axis, _figure, _layout, f32
from .maps import _fmt_value

#: one colour per region (colour-blind-safe: orange, dark blue, light blue, purple,
#: red-pink, light grey), in the order of :data:`nplk_lab.model.atlas.atlas.REGIONS`, and dark
#: grey for a cell whose region differs between two sets of draws (unsettled)
REGION_COLORS = ("#d95f02", "#1f4e99", "#8fb9dd", "#7570b3", "#c2185b", "#e3e3e3",
                 "#5f5f5f")
#: SimpleNPKL against k-means: better (orange), worse (red-pink), no difference (grey)
NPKL_COLORS = (REGION_COLORS[0], REGION_COLORS[4], REGION_COLORS[5])
#: the smooth rule's regions (:data:`nplk_lab.model.atlas.atlas.SMOOTH_REGIONS`): helps without
#: copying (orange), the tuned baseline better (purple), worse (red-pink), no difference
#: (light grey), then unsettled (dark grey)
SMOOTH_COLORS = (REGION_COLORS[0], REGION_COLORS[3], REGION_COLORS[4], REGION_COLORS[5],
                 REGION_COLORS[6])


def region_map(sigmas: Sequence[float], Cs: Sequence[float], regions: np.ndarray,
               names: Sequence[str], *, hover: np.ndarray | None = None, title: str = "",
               height: int = 380, x_label: str = "σ (kernel width)",
               y_label: str = "C", colors: Sequence[str] = REGION_COLORS) -> go.Figure:
    """A heatmap of region indices ``regions`` (shape ``(len(Cs), len(sigmas))``, −1 or
    NaN where a cell was not measured) coloured by ``colors`` (default
    :data:`REGION_COLORS`), one colour-bar tick per entry of ``names``."""
    k = len(names)
    if k > len(colors):
        raise ValueError(f"{k} regions but only {len(colors)} colours.")
    Z = np.asarray(regions, dtype=float)
    Z = np.where(Z < 0, np.nan, Z)
    scale = []
    for i in range(k):          # a stepped scale: region i fills [i/k, (i+1)/k]
        scale += [[i / k, colors[i]], [(i + 1) / k, colors[i]]]
    n1, n2 = len(sigmas), len(Cs)
    tr: dict = dict(type="heatmap", x=f32(np.arange(n1)), y=f32(np.arange(n2)), z=f32(Z),
                    zmin=-0.5, zmax=k - 0.5, colorscale=scale, xgap=2, ygap=2,
                    hoverongaps=False, name=title or "regions",
                    colorbar=dict(tickmode="array", tickvals=list(range(k)),
                                  ticktext=list(names), thickness=14, len=1.0,
                                  tickfont=dict(size=12)))
    if hover is not None:
        tr.update(text=hover, hovertemplate="%{text}<extra></extra>")
    xa = _axis(x_label, tickmode="array", tickvals=list(range(n1)),
               ticktext=[_fmt_value(v) for v in sigmas], range=[-0.5, n1 - 0.5],
               showgrid=False)
    ya = _axis(y_label, tickmode="array", tickvals=list(range(n2)),
               ticktext=[_fmt_value(v) for v in Cs], range=[-0.5, n2 - 0.5], showgrid=False)
    layout = _layout(title, height, xaxis=xa, yaxis=ya)
    layout["margin"]["r"] = 10
    return _figure([tr], layout)


__all__ = ["NPKL_COLORS", "REGION_COLORS", "SMOOTH_COLORS", "region_map"]
