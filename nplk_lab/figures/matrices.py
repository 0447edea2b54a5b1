"""Matrix figures: heatmaps of learned multipliers and kernels, ordered by class."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from .common import (
    DIVERGING,
    SEQUENTIAL,
    TEXT_COLOR,
    TICK_COLOR,
    _figure,
    _layout,
    _suffix,
    f32,
    for_people,
)
from .common import bar_title as spaced

# ---------------------------------------------------------------------------
# matrices
# ---------------------------------------------------------------------------

#: What the lab's matrix view draws by default, over all its panels: 4 panels of
#: 48 × 48 cells (about 50 KB of float32 sent on every move that changes the fit, against
#: 420 KB for the 4 × 140² entries of the Classification page's defaults). A matrix with
#: more rows than its panel's share is drawn as block means (``cells=`` of
#: :func:`matrix_triptych` and :func:`matrix_heatmap`); every entry is drawn on request.
VIEW_CELLS = 4 * 48 ** 2


def view_side(panels: int, cells: int = VIEW_CELLS) -> int:
    """Rows of each of ``panels`` square panels sharing ``cells`` drawn cells."""
    return max(2, int(np.sqrt(cells / max(panels, 1))))


def class_order(y: np.ndarray | None, n: int) -> np.ndarray:
    """Point order for matrix views: grouped by class (stable within a class)."""
    if y is None:
        return np.arange(n)
    return np.argsort(np.asarray(y), kind="stable")


def block_means(M: np.ndarray, max_side: int) -> tuple[np.ndarray, np.ndarray]:
    """Block-average a square matrix down to at most ``max_side`` rows (blocks of
    nearly equal size); return the pooled matrix and the start index of every block."""
    n = M.shape[0]
    if n <= max_side:
        return M, np.arange(n)
    starts = np.unique(np.floor(np.linspace(0, n, max_side + 1)).astype(int)[:-1])
    sums = np.add.reduceat(np.add.reduceat(M, starts, axis=0), starts, axis=1)
    sizes = np.diff(np.append(starts, n))
    return sums / np.outer(sizes, sizes), starts


def _ordered(M: np.ndarray, order: np.ndarray, max_side: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``M`` in ``order``, block-averaged beyond ``max_side`` rows: (drawn matrix, start
    of every block, hover labels)."""
    Mo = np.asarray(M, dtype=float)[np.ix_(order, order)]
    P, starts = block_means(Mo, max_side)
    n = Mo.shape[0]
    if P.shape[0] == n:
        labels = np.array([str(i) for i in order])
    else:   # a block: its rows' positions in the drawn (class) order
        ends = np.append(starts[1:], n) - 1
        labels = np.array([f"{a}–{b}" for a, b in zip(starts, ends, strict=True)])
    return P, starts, labels


def _heatmap(M: np.ndarray, order: np.ndarray, *, name: str, colorscale: Any,
             zmid: float | None, zmin: float | None = None, zmax: float | None = None,
             max_side: int = 180, colorbar: dict | None = None, axes: int = 1,
             drawn: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
             ) -> tuple[dict, np.ndarray]:
    """Heatmap trace of ``M`` in ``order`` (block-averaged beyond ``max_side``; or
    ``drawn``, the result of :func:`_ordered` when the caller already has it); hover
    shows the original indices i, j and the value."""
    P, starts, labels = drawn if drawn is not None else _ordered(M, order, max_side)
    s = _suffix(axes)
    if len(starts) == len(order):
        hover = f"i=%{{y}}<br>j=%{{x}}<br>{name}=%{{z:.4g}}<extra></extra>"
    else:   # block means: say so, and which rows and columns (in the drawn order)
        hover = (f"rows %{{y}}, columns %{{x}} (in class order)<br>mean of {name} over "
                 f"the block = %{{z:.4g}}<extra></extra>")
    tr = dict(type="heatmap", z=f32(P), x=labels, y=labels, colorscale=colorscale,
              name=name, xaxis=f"x{s}", yaxis=f"y{s}", hovertemplate=hover,
              # powers of ten on the bar (2×10⁻⁶), not Plotly's SI prefixes ("2μ")
              colorbar={"exponentformat": "power", **(colorbar or dict(thickness=12))})
    for k, v in (("zmid", zmid), ("zmin", zmin), ("zmax", zmax)):
        if v is not None:
            tr[k] = v
    return tr, starts


def symmetric_limits(M: np.ndarray, center: float) -> tuple[float, float]:
    """Colour limits ``center ± max|M − center|`` of a diverging scale: the strongest
    change reaches the end colours, however small it is (F within 1 ± 0.005 shows its
    pattern instead of a flat white). A matrix equal to ``center`` gets ± 1e-12."""
    M = np.asarray(M, dtype=float)
    dev = float(np.nanmax(np.abs(M - center))) if M.size and np.isfinite(M).any() else 0.0
    dev = dev if dev > 0 else 1e-12
    return center - dev, center + dev


def _class_lines(y: np.ndarray | None, starts: np.ndarray, axes: int = 1) -> list[dict]:
    """Thin lines between the class blocks of a class-ordered matrix view (none when
    ``y`` is a continuous target: more than 10 distinct values)."""
    if y is None or np.unique(y).size > 10:
        return []
    ys = np.sort(np.asarray(y))
    cuts = np.flatnonzero(np.diff(ys) != 0) + 1
    s = _suffix(axes)
    out = []
    for c in cuts:
        pos = float(np.searchsorted(starts, c)) - 0.5
        line = dict(color="black", width=1)
        out.append(dict(type="line", xref=f"x{s}", yref=f"y{s} domain", x0=pos, x1=pos,
                        y0=0, y1=1, line=line))
        out.append(dict(type="line", yref=f"y{s}", xref=f"x{s} domain", y0=pos, y1=pos,
                        x0=0, x1=1, line=line))
    return out


def _matrix_axes(s: str, **kw: Any) -> tuple[dict, dict]:
    # both axes shrink their domain (not widen their range) to keep the cells square:
    # the class lines span the axis domain, so a widened range let them overrun the matrix
    x = dict(showticklabels=False, type="category", showgrid=False, ticks="",
             constrain="domain", **kw)
    y = dict(showticklabels=False, type="category", autorange="reversed", showgrid=False,
             ticks="", scaleanchor=f"x{s}", constrain="domain")
    return x, y


def _pm(v: float) -> str:
    return for_people(v)


def matrix_heatmap(M: np.ndarray, y: np.ndarray | None = None, *, name: str = "F",
                   center: float | None = 1.0, max_side: int = 180, title: str = "",
                   height: int = 480, zrange: tuple[float, float] | None = None,
                   cells: int | None = None) -> go.Figure:
    """Heatmap of one matrix, points ordered by class; diverging palette spanning
    ``center ± max|M − center|`` (1 for F and G), or sequential with ``center=None``
    (a kernel K) over ``zrange`` (e.g. (0, 1) for a Gaussian kernel, so that kernels of
    different σ share one colour scale; default: the matrix's own range). Block-averaged
    beyond ``max_side`` rows, or, with ``cells`` (e.g. :data:`VIEW_CELLS`), beyond
    ``sqrt(cells)`` rows (the title then says so)."""
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    order = class_order(y, n)
    if cells is not None:
        max_side = view_side(1, cells)
    drawn = _ordered(M, order, max_side)
    if center is not None:
        lo, hi = symmetric_limits(drawn[0], center)
        bar = dict(thickness=12, title=dict(
            text=spaced(f"{name}<br>{center:g} ± {_pm(hi - center)}"), side="top"))
        tr, starts = _heatmap(M, order, name=name, colorscale=DIVERGING, zmid=center,
                              zmin=lo, zmax=hi, colorbar=bar, drawn=drawn)
    else:
        lo, hi = zrange if zrange is not None else (None, None)
        tr, starts = _heatmap(M, order, name=name, colorscale=SEQUENTIAL, zmid=None,
                              zmin=lo, zmax=hi, drawn=drawn)
    xa, ya = _matrix_axes("")
    head = title or f"{name} (points ordered by class)"
    if len(starts) < n:
        head += f" — block-averaged to {len(starts)}×{len(starts)}"
    layout = _layout(head, height, xaxis=xa, yaxis=ya, shapes=_class_lines(y, starts))
    return _figure([tr], layout)


def matrix_triptych(K: np.ndarray, F: np.ndarray, y: np.ndarray | None = None, *,
                    name: str = "F", product: bool = True, difference: bool = False,
                    max_side: int | None = None, pooled_side: int = 128, title: str = "",
                    height: int = 360, cells: int | None = None,
                    grid: bool = False, bar_room: float = 0.11) -> go.Figure:
    """``K | F | F∘K`` (and ``F∘K − K`` with ``difference``) as a row of square
    heatmaps, points ordered by class.

    ``product=True`` (DANK's F, KNPL's G: multipliers of K, equal to 1 where the kernel
    is unchanged): K and F∘K share one sequential scale (one colour bar, "K, F∘K"), so
    the product reads directly as a reweighted K; F has its own diverging bar centred
    at 1 spanning 1 ± max|F − 1|, so the largest change reaches the end colours however
    small it is. ``product=False`` (ONK's G = K + a rank-one term: a kernel, not a
    multiplier): ``K | G`` on the one shared sequential scale, no product panel.
    ``difference`` adds what the learning changed, ``F∘K − K`` (or ``G − K``), on a
    diverging scale centred at 0 spanning ± its largest entry. Matrices with more than
    ``max_side`` rows are block-averaged to ``pooled_side`` blocks so the figure stays
    small (the scales then span the block averages that are drawn); below that every
    entry is drawn. The default ``max_side`` keeps the cells drawn within those of three
    300 × 300 panels (300 for three panels, 259 for four). With ``cells`` (the lab's
    view passes :data:`VIEW_CELLS`) the panels share that many drawn cells instead:
    every entry up to :func:`view_side` rows, block means of that many rows beyond.

    ``grid=True`` (presentation mode, where a row of four is too narrow): two columns,
    the kernels on their shared scale on the left (K above the learned kernel, one
    colour bar beside both), the changes (F, the difference) on the right, each with its
    own bar beside it; no figure title (the panel names and the bars say what is drawn;
    a block-averaged view keeps a short note), so every panel is as large as the height
    allows. ``bar_room`` is the part of the width between the two columns, where the
    left column's colour bar and its tick labels stand: 0.11 at a projector's widths,
    more in a narrow figure (0.17 leaves them clear of the right column in a figure
    350 px wide, a 390 px phone's; not below about 330 px).
    """
    K = np.asarray(K, dtype=float)
    F = np.asarray(F, dtype=float)
    n = K.shape[0]
    if cells is not None:
        max_side = pooled_side = view_side(2 + product + difference, cells)
    elif max_side is None:
        max_side = int(300 * np.sqrt(3 / (1 + product + 1 + difference)))
    side = n if n <= max_side else pooled_side
    order = class_order(y, n)
    learned = F * K if product else F           # the kernel the model uses
    prod = f"{name} × K"
    used = prod if product else name
    drawn = {"K": _ordered(K, order, side), "learned": _ordered(learned, order, side)}
    lo = min(0.0, *(float(np.nanmin(d[0])) for d in drawn.values()))
    hi = max(float(np.nanmax(d[0])) for d in drawn.values())
    hi = 1.0 if hi <= 1.0 else float(f"{hi:.3g}")
    shared = ("K, " + used, SEQUENTIAL, None, lo, hi)
    # (panel name, drawn matrix, scale: (bar title, colours, mid, zmin, zmax))
    panels = [("K", drawn["K"], shared)]
    if product:
        dF = _ordered(F, order, side)
        flo, fhi = symmetric_limits(dF[0], 1.0)
        panels.append((name, dF, (f"{name}<br>1 ± {_pm(fhi - 1.0)}", DIVERGING, 1.0,
                                  flo, fhi)))
        panels.append((prod, drawn["learned"], shared))
    else:
        panels.append((name, drawn["learned"], shared))
    if difference:
        dname = f"{used} − K"
        dD = _ordered(learned - K, order, side)
        dlo, dhi = symmetric_limits(dD[0], 0.0)
        panels.append((dname, dD, (f"{dname}<br>± {_pm(dhi)}", DIVERGING, 0.0, dlo, dhi)))
    if grid:
        return _triptych_grid(panels, y, order, side, title, height, bar_room)
    k = len(panels)
    bars = list(dict.fromkeys(p[2][0] for p in panels))      # one bar per scale
    # panels fill [0, right]; the colour bars sit side by side in the rest
    right = {1: 0.86, 2: 0.8, 3: 0.79}[len(bars)] if k > 2 else 0.7
    slot = (1.0 - right) / len(bars)
    gap = 0.03
    w = (right - gap * (k - 1)) / k
    traces, shapes, notes = [], [], []
    layout: dict[str, Any] = {}
    shown: set[str] = set()
    for c, (nm, d, (bar_title, cs, mid, zmin, zmax)) in enumerate(panels, start=1):
        s = _suffix(c)
        # every other bar's title below it: side by side, two titles of about 60 px
        # ran into each other in slots of 57 px (at 820 px, the page's width at 1280)
        b = bars.index(bar_title)
        # (and lower, so its tick labels stay under its neighbours' titles)
        bar = dict(thickness=14, len=0.8, y=0.42 if b % 2 else 0.5, yanchor="middle",
                   xanchor="left",
                   x=right + 0.02 + slot * b, outlinewidth=0,
                   tickfont=dict(size=12, color=TICK_COLOR),
                   title=dict(text=spaced(bar_title, "bottom" if b % 2 else "top"),
                              side="bottom" if b % 2 else "top",
                              font=dict(size=13, color=TEXT_COLOR)))
        M = d[0]
        tr, starts = _heatmap(M, order, name=nm, colorscale=cs, zmid=mid, zmin=zmin,
                              zmax=zmax, colorbar=bar, axes=c, drawn=d)
        # one bar per scale: K's bar stands for F∘K (or G) too
        tr["showscale"] = bar_title not in shown
        shown.add(bar_title)
        traces.append(tr)
        shapes += _class_lines(y, starts, axes=c)
        left = (c - 1) * (w + gap)
        xa, ya = _matrix_axes(s, domain=[left, left + w], anchor=f"y{s}")
        ya["anchor"] = f"x{s}"
        ya["domain"] = [0.0, 1.0]
        layout[f"xaxis{s}"], layout[f"yaxis{s}"] = xa, ya
        notes.append(dict(text=f"<b>{nm}</b>", xref=f"x{s} domain", yref=f"y{s} domain",
                          x=0.5, y=1.0, xanchor="center", yanchor="bottom", yshift=2,
                          showarrow=False, font=dict(size=15, color=TEXT_COLOR)))
    what = (f"Kernel K, learned {name} and {prod} entry by entry" if product
            else f"Kernel K and learned kernel {name}")
    if difference:
        what += f", change {used} − K"
    by = "class" if y is None or np.unique(y).size <= 10 else "target"
    head = title or f"{what} ({n} training points, ordered by {by})"
    if side < n:
        head += f" — block-averaged to {side}×{side}"
    lay = _layout(head, height, top=70, shapes=shapes, annotations=notes, **layout)
    lay["margin"].update(l=10, r=10, b=16)
    return _figure(traces, lay)


def _triptych_grid(panels: list, y: np.ndarray | None, order: np.ndarray, side: int,
                   title: str, height: int, bar_room: float) -> go.Figure:
    """:func:`matrix_triptych`'s panels in two columns (see its ``grid``): the panels on
    the first (shared) scale in the left column, the others in the right one."""
    n = len(order)
    shared = panels[0][2][0]
    cols = ([p for p in panels if p[2][0] == shared], [p for p in panels if p[2][0] != shared])
    rows = max(len(c) for c in cols)
    vgap = 0.07                       # room for the lower row's panel names
    rh = (1.0 - vgap * (rows - 1)) / rows
    slot = min(max(float(bar_room), 0.05), 0.3)
    pw = 0.5 - slot                   # panel and colour-bar slot, as parts of the width
    traces, shapes, notes = [], [], []
    layout: dict[str, Any] = {}
    a = 0
    for c, col in enumerate(cols):
        x0 = c * (pw + slot)
        for r, (nm, d, (bar_title, cs, mid, zmin, zmax)) in enumerate(col):
            a += 1
            s = _suffix(a)
            top = 1.0 - r * (rh + vgap)
            # the left column's one bar stands beside all its panels; the right
            # column's bars each beside their own panel, short enough that a title
            # above the lower one stays clear of the upper one
            blen, bmid = (0.86, 0.46) if c == 0 else (rh * 0.62, top - rh / 2 - 0.03)
            bar = dict(thickness=14, len=blen, y=bmid, yanchor="middle", xanchor="left",
                       x=x0 + pw + 0.012, outlinewidth=0,
                       tickfont=dict(size=12, color=TICK_COLOR),
                       # the left bar's title on one line per matrix: it stands in
                       # the gap between the columns
                       title=dict(text=spaced(bar_title.replace(", ", ",<br>") if c == 0
                                              else bar_title), side="top",
                                  font=dict(size=13, color=TEXT_COLOR)))
            tr, starts = _heatmap(d[0], order, name=nm, colorscale=cs, zmid=mid,
                                  zmin=zmin, zmax=zmax, colorbar=bar, axes=a, drawn=d)
            tr["showscale"] = c == 1 or r == 0
            traces.append(tr)
            shapes += _class_lines(y, starts, axes=a)
            xa, ya = _matrix_axes(s, domain=[x0, x0 + pw], anchor=f"y{s}")
            ya["anchor"] = f"x{s}"
            ya["domain"] = [max(0.0, top - rh), top]
            layout[f"xaxis{s}"], layout[f"yaxis{s}"] = xa, ya
            notes.append(dict(text=f"<b>{nm}</b>", xref=f"x{s} domain",
                              yref=f"y{s} domain", x=0.5, y=1.0, xanchor="center",
                              yanchor="bottom", yshift=2, showarrow=False,
                              font=dict(size=15, color=TEXT_COLOR)))
    head = title or (f"Block-averaged to {side}×{side}" if side < n else "")
    lay = _layout(head, height, top=56 if head else 30, shapes=shapes, annotations=notes,
                  **layout)
    lay["margin"].update(l=6, r=6, b=8)
    return _figure(traces, lay)
