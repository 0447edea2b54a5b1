"""Two-parameter maps: one heatmap per quantity over a grid of two parameters.

The cells sit on index axes (centres at 0, 1, …, labelled with the parameters' values),
so a log grid gets equal cells and a click on the plot rounds to a cell in either axis
type. Scores use one sequential palette (reversed for errors, so that "better" always
reads the same way) and share their range between the method and its baseline; a
difference is drawn on the diverging palette centred at 0 and symmetric about it.
Every cell's hover text carries the numbers with their spread over seeds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .common import DIVERGING, SEQUENTIAL, _axis, _figure, _layout, f32


def _fmt_value(v: float) -> str:
    """A parameter value as a tick label: 4 significant digits, no exponent between
    0.001 and 100,000."""
    v = float(v)
    return f"{v:.4g}" if v == 0 or 1e-3 <= abs(v) < 1e5 else f"{v:.3g}"


def map_hover(values1: Sequence[float], values2: Sequence[float], label1: str, label2: str,
              rows: Sequence[tuple[str, np.ndarray | None, np.ndarray | None, str]],
              footer: str = "") -> np.ndarray:
    """Hover text per cell, shape ``(len(values2), len(values1))``: both values, then one
    line per ``(name, mean, spread, fmt)`` (``spread`` None: no ± part; NaN: "—"), then
    ``footer``."""
    n1, n2 = len(values1), len(values2)
    out = np.empty((n2, n1), dtype=object)
    for i2 in range(n2):
        for i1 in range(n1):
            lines = [f"{label1} = {_fmt_value(values1[i1])}, "
                     f"{label2} = {_fmt_value(values2[i2])}"]
            for name, mean, spread, fmt in rows:
                if mean is None:
                    continue
                m = mean[i2, i1]
                if not np.isfinite(m):
                    lines.append(f"{name}: —")
                    continue
                txt = f"{name}: {fmt.format(m)}"
                if spread is not None and np.isfinite(spread[i2, i1]):
                    txt += f" ± {fmt.format(spread[i2, i1]).lstrip('+')}"
                lines.append(txt)
            if footer:
                lines.append(footer)
            out[i2, i1] = "<br>".join(lines)
    return out


def map_figure(values1: Sequence[float], values2: Sequence[float], Z: np.ndarray, *,
               label1: str, label2: str, title: str = "", colorbar: str = "",
               diverging: bool = False, reverse: bool = False,
               zmin: float | None = None, zmax: float | None = None,
               hover: np.ndarray | None = None, mark: tuple[int, int] | None = None,
               show_values: bool = True, cell_format: str = ".2f", height: int = 420
               ) -> go.Figure:
    """A heatmap of ``Z`` (shape ``(len(values2), len(values1))``; NaN = not fitted yet)
    with ``values1`` along x and ``values2`` along y, on index axes labelled with the
    values.

    ``diverging``: the diverging palette centred at 0, symmetric (± the largest
    |value|, or ± ``zmax``). ``reverse``: the sequential palette reversed (errors:
    small is good). ``mark``: a cell ``(i2, i1)`` framed (the current setting).
    ``show_values`` writes each cell's number (d3 format ``cell_format``) on it when
    the grid is small enough to read them."""
    Z = np.asarray(Z, dtype=float)
    n1, n2 = len(values1), len(values2)
    x, y = np.arange(n1, dtype=float), np.arange(n2, dtype=float)
    finite = Z[np.isfinite(Z)]
    tr: dict = dict(type="heatmap", x=f32(x), y=f32(y), z=f32(Z), name=title or colorbar,
                    xgap=1, ygap=1, hoverongaps=False,
                    colorbar=dict(title=dict(text=colorbar, side="right"), thickness=14))
    if diverging:
        top = zmax if zmax is not None else (float(np.abs(finite).max()) if finite.size
                                             else 1.0)
        top = top if top > 0 else 1.0
        tr.update(colorscale=DIVERGING, zmid=0.0, zmin=-top, zmax=top)
    else:
        tr.update(colorscale=SEQUENTIAL, reversescale=bool(reverse))
        if zmin is not None and zmax is not None and zmax > zmin:
            tr.update(zmin=float(zmin), zmax=float(zmax))
    if hover is not None:
        tr.update(text=hover, hovertemplate="%{text}<extra></extra>")
    traces = [tr]
    if show_values and n1 * n2 <= 150 and finite.size:
        tr.update(texttemplate=f"%{{z:{cell_format}}}",
                  textfont=dict(size=10 if n1 > 8 else 12))
    shapes = []
    if mark is not None:
        i2, i1 = mark
        shapes.append(dict(type="rect", xref="x", yref="y", x0=i1 - 0.5, x1=i1 + 0.5,
                           y0=i2 - 0.5, y1=i2 + 0.5, line=dict(color="black", width=2.5)))
    step1 = max(1, int(np.ceil(n1 / 8)))
    step2 = max(1, int(np.ceil(n2 / 8)))
    xa = _axis(label1, tickmode="array", tickvals=list(range(0, n1, step1)),
               ticktext=[_fmt_value(v) for v in list(values1)[::step1]],
               range=[-0.5, n1 - 0.5], showgrid=False)
    ya = _axis(label2, tickmode="array", tickvals=list(range(0, n2, step2)),
               ticktext=[_fmt_value(v) for v in list(values2)[::step2]],
               range=[-0.5, n2 - 0.5], showgrid=False)
    layout = _layout(title, height, xaxis=xa, yaxis=ya, shapes=shapes)
    layout["margin"]["r"] = 10
    return _figure(traces, layout)
