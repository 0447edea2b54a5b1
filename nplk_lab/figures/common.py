"""The shared palette, layout helpers and serialisation of every figure builder."""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

# ---------------------------------------------------------------------------
# palette (ColorBrewer RdBu ends and Okabe–Ito: both colour-blind safe)
# ---------------------------------------------------------------------------

#: point traces are SVG ``scatter``, not ``scattergl``: Streamlit remounts a changed chart,
#: and every remount of a WebGL trace builds a new (software-rendered) WebGL context —
#: measured 567 ms against 185 ms per decision-surface redraw in headless Chromium.
SCATTER = "scatter"

CLASS_COLORS: dict[int, str] = {-1: "#2166AC", 1: "#B2182B"}
CLASS_NAMES: dict[int, str] = {-1: "class −1", 1: "class +1"}
CLASS_SYMBOLS: dict[int, str] = {-1: "circle", 1: "square"}
#: Okabe–Ito in two sets of four whose colours stay apart for a viewer with deuteranopia
#: (ΔE ≥ 24 within a set, simulated: tests/_colour_vision.py); clusters 4–7 are drawn as
#: triangles (:func:`cluster_symbol`), so no two clusters differ by colour alone
CLUSTER_COLORS: tuple[str, ...] = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#CC79A7",
                                   "#D55E00", "#F0E442", "#000000")
CLUSTER_SYMBOLS: tuple[str, ...] = ("circle", "triangle-up")
SERIES_COLORS: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                  "#56B4E9", "#000000")
#: diverging, blue (negative, class −1) → white (0) → red (positive, class +1)
DIVERGING: list[list[Any]] = [[0.0, "#2166AC"], [0.2, "#4393C3"], [0.4, "#D1E5F0"],
                              [0.5, "#F7F7F7"], [0.6, "#FDDBC7"], [0.8, "#D6604D"],
                              [1.0, "#B2182B"]]
SEQUENTIAL = "Viridis"
BASELINE_COLOR = "#009E73"
SURFACE_BANDS = 20  # colour bands of the decision surface (a filled contour's levels)
#: plain names of a classifier's decision function on its surface: its 0 level, its
#: ±1 levels and the colour bar of its values (no "f(x)" on a student's screen)
BOUNDARY_NAME = "decision boundary"
MARGIN_NAME = "margin (±1)"
DECISION_VALUE = "decision<br>value"
MUST_LINK_COLOR = "#009E73"
CANNOT_LINK_COLOR = "#D55E00"

_HISTORY_LABELS = {
    "objective": ("Objective", False),
    "step_norm": ("Step norm ‖Δ‖₂", True),
    "residual": ("ADMM residual", True),
    "admm_residual": ("ADMM residual", True),
    "gap": ("Duality gap", True),
    "rank": ("rank", False),
    "loss": ("Loss", True),
}


def f32(a: Any) -> np.ndarray:
    """``a`` as a contiguous float32 numpy array (what Plotly receives)."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def banded(scale: list[list[Any]], bands: int) -> list[list[Any]]:
    """``scale`` as ``bands`` flat steps of equal width (a filled-contour look for a
    heatmap); step k takes the colour of ``scale`` at k / (bands − 1), so the first
    and last steps keep the scale's end colours."""
    return [list(step) for step in _banded(tuple(map(tuple, scale)), int(bands))]


@functools.lru_cache(maxsize=8)
def _banded(scale: tuple, bands: int) -> tuple:
    from plotly.colors import sample_colorscale, unlabel_rgb

    colors = sample_colorscale([list(s) for s in scale],
                               list(np.arange(bands) / max(bands - 1, 1)), colortype="rgb")
    out = []
    for k, c in enumerate(colors):
        hexc = "#{:02X}{:02X}{:02X}".format(*(int(round(v)) for v in unlabel_rgb(c)))
        out += [(k / bands, hexc), ((k + 1) / bands, hexc)]
    return tuple(out)


def class_color(label: float) -> str:
    return CLASS_COLORS[1 if label > 0 else -1]


def cluster_color(k: int) -> str:
    return CLUSTER_COLORS[int(k) % len(CLUSTER_COLORS)]


def cluster_symbol(k: int) -> str:
    """The marker of cluster ``k``: a circle for the first four colours, a triangle for
    the next four (and so on, cycling)."""
    return CLUSTER_SYMBOLS[(int(k) // 4) % len(CLUSTER_SYMBOLS)]


def plot_config(filename: str = "nplk-lab") -> dict[str, Any]:
    """Plotly ``config`` for the lab's charts: PNG download at 2× scale, and no button
    or link that sends the data off the machine (Chart Studio's "Edit in Chart Studio"
    and "Send data to cloud", the Plotly logo link).

    The mode bar keeps what a student uses: PNG, zoom, pan and reset. Each button is
    about 27 px of the bar that floats over the figure's top-right corner on hover; the
    eight of Plotly's default bar covered half the title of a 370 px chart."""
    return {"displaylogo": False, "showLink": False, "showSendToCloud": False,
            "showEditInChartStudio": False, "plotlyServerURL": "",
            "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
            "modeBarButtonsToRemove": ["lasso2d", "select2d", "sendDataToCloud", "zoomIn2d",
                                       "zoomOut2d", "autoScale2d"]}


TEXT_COLOR = "#262730"
TICK_COLOR = "#3D3D4E"


def _layout(title: str = "", height: int = 480, *, top: int | None = None,
            **kw: Any) -> dict[str, Any]:
    """Common layout: dark text large enough to project, no padding between the data
    and the frame, the legend pinned to the bottom of the figure (container
    coordinates: it can never collide with the x-axis title) and the title at the top
    left. ``top`` overrides the top margin (room for a note above the plot)."""
    lay: dict[str, Any] = dict(
        height=height,
        margin=dict(l=60, r=20, t=top if top is not None else (56 if title else 24), b=40,
                    pad=0),
        legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0,
                    xanchor="left", font=dict(size=13, color=TEXT_COLOR)),
        font=dict(size=13, color=TEXT_COLOR), plot_bgcolor="white", hovermode="closest")
    if title:
        lay["title"] = dict(text=title, x=0.0, xanchor="left", xref="paper",
                            yref="container", y=1.0, yanchor="top", pad=dict(t=10),
                            font=dict(size=17, color=TEXT_COLOR))
    lay.update(kw)
    return lay


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def for_people(x: float, digits: int = 2) -> str:
    """``x`` with ``digits`` significant digits as a person writes it: 0.0028, 56, 1.5 ×
    10⁵, 2.6 × 10⁻⁶ (never "2.6e-06" nor "100000.0"); a power of ten alone as 10⁵."""
    x = float(x)
    if not np.isfinite(x):
        return "—"
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        text = f"{x:.{digits}g}"
        if "e" not in text:
            return text.replace("-", "−")
    exp = int(np.floor(np.log10(abs(x))))
    mant = float(f"{x / 10 ** exp:.{digits - 1}f}")
    if abs(mant) >= 10:              # 9.96 rounds to 10.0
        mant, exp = mant / 10, exp + 1
    power = "10" + str(exp).translate(_SUPERSCRIPT)
    if mant == 1:
        return power
    if mant == -1:
        return "−" + power
    return f"{mant:g} × {power}".replace("-", "−")


_FROM_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def from_people(text: str) -> float:
    """The number :func:`for_people` wrote ("0.003", "1.5 × 10⁻⁴", "10⁵", "−2"), read
    back; ValueError for a text that is not such a number."""
    t = str(text).strip().replace("−", "-")
    mant, times, power = t.rpartition("10")
    if power and set(power) <= set("⁻⁰¹²³⁴⁵⁶⁷⁸⁹") and (not mant.strip() or times):
        mant = mant.replace("×", "").strip()
        scale = 10.0 ** int(power.translate(_FROM_SUPERSCRIPT))
        if mant in ("", "-"):
            return -scale if mant == "-" else scale
        return float(mant) * scale
    return float(t)


def bar_title(text: str, side: str = "top") -> str:
    """A colour bar's title with an empty line between it and the bar: Plotly sets the
    title right against the bar's end, where half of the end tick's label stands, so
    the two touched ("decision value" on "+2.68"; "K, F × K" on "1")."""
    return f"{text}<br>&nbsp;" if side == "top" else f"&nbsp;<br>{text}"


def _axis(title: str = "", **kw: Any) -> dict[str, Any]:
    # (powers of ten, 2×10⁻⁶, not the SI prefixes of Plotly's default: "2μ")
    ax = dict(showgrid=True, gridcolor="#E5E5E5", zeroline=False, showline=True,
              linecolor="#888", mirror=True, ticks="outside", tickcolor="#888",
              tickfont=dict(size=13, color=TICK_COLOR), automargin=True,
              exponentformat="power")
    if title:
        ax["title"] = dict(text=title, font=dict(size=14, color=TEXT_COLOR))
    ax.update(kw)
    return ax


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure, without plotly.py's per-property validation (about half the cost of
    a figure at toy size, paid on every slider move). The tests build every figure
    with validation on (``tests/test_figures.py``), so a bad property still fails."""
    return go.Figure(data=traces, layout=layout, _validate=VALIDATE)


VALIDATE = False  # the tests switch this on

_TYPED = {"float32": "f4", "float64": "f8", "int8": "i1", "uint8": "u1", "int16": "i2",
          "uint16": "u2", "int32": "i4", "uint32": "u4"}


def _json_default(o: Any) -> Any:
    """numpy arrays as Plotly.js typed-array specs (``{dtype, bdata, shape}``, the
    encoding plotly.py uses), numpy scalars as numbers."""
    if isinstance(o, np.ndarray):
        a = o
        if a.dtype.kind in "iu" and str(a.dtype) not in _TYPED:
            a = a.astype(np.int32) if a.size == 0 or (
                np.abs(a).max() < 2 ** 31) else a.astype(np.float64)
        code = _TYPED.get(str(a.dtype))
        if code is None:  # bool, object, strings: plain lists
            return a.tolist()
        spec = {"dtype": code,
                "bdata": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")}
        if a.ndim > 1:
            spec["shape"] = ", ".join(map(str, a.shape))
        return spec
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"cannot serialise {type(o).__name__} in a figure")


def figure_json(fig: go.Figure) -> str:
    """``fig`` as the JSON Plotly.js reads, without plotly.py's deep copy of the whole
    figure (``to_json`` copies every array before encoding: ~5-15 ms per figure at toy
    size, on every slider move). Same content as ``fig.to_json()``."""
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if not isinstance(data, list) or not isinstance(layout, dict):
        return fig.to_json()
    try:
        return json.dumps({"data": data, "layout": layout}, default=_json_default,
                          separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):  # a NaN outside an array, an unknown type
        return fig.to_json()


def _corner_note(text: str, *, axes: str = "") -> list[dict]:
    """The score in the top-right corner of the plot, just *above* its frame (inside,
    it would cover data). Positioned in axis-domain coordinates so it follows the frame
    when an equal aspect ratio narrows the plot; needs a top margin of ~70 px when the
    figure also has a title."""
    if not text:
        return []
    return [dict(text=text, xref=f"x{axes} domain", yref=f"y{axes} domain", x=1.0, y=1.0,
                 xanchor="right", yanchor="bottom", yshift=4, showarrow=False,
                 align="right", bgcolor="rgba(255,255,255,0.9)", bordercolor="#888",
                 borderwidth=1, borderpad=3, font=dict(size=13, color=TEXT_COLOR))]


def _note_top(title: str, note: str) -> int:
    """Top margin for a title and/or a note above the plot frame."""
    return (56 if title else 16) + (26 if note else 0)


def _score_text(train: float | None, test: float | None, metric: str) -> str:
    parts = [f"{name} {v:.3f}" for name, v in (("train", train), ("test", test))
             if v is not None and np.isfinite(v)]
    return (metric + ": " + " · ".join(parts)) if parts else ""


def _suffix(i: int) -> str:
    return "" if i == 1 else str(i)


def _stacked(n: int, gap: float = 0.08, titles: Sequence[str] = ()) -> dict[str, Any]:
    """Layout entries for ``n`` panels stacked vertically with a shared x axis
    (panel ``r`` uses axes ``x{r}``/``y{r}``, 1-based, top to bottom); ``titles`` name
    the panels' y axes."""
    h = (1.0 - gap * (n - 1)) / n
    lay: dict[str, Any] = {}
    for r in range(1, n + 1):
        top = 1.0 - (r - 1) * (h + gap)
        s = _suffix(r)
        lay[f"xaxis{s}"] = _axis(anchor=f"y{s}", showticklabels=(r == n),
                                 **({"matches": "x"} if r > 1 else {}))
        lay[f"yaxis{s}"] = _axis(titles[r - 1] if r <= len(titles) else "",
                                 domain=[max(top - h, 0.0), min(top, 1.0)], anchor=f"x{s}")
    lay["annotations"] = []
    return lay


def _side_by_side(k: int, gap: float = 0.08, titles: Sequence[str] = ()) -> dict[str, Any]:
    """Layout entries for ``k`` panels side by side (axes ``x{c}``/``y{c}``)."""
    w = (1.0 - gap * (k - 1)) / k
    lay: dict[str, Any] = {}
    notes = []
    for c in range(1, k + 1):
        left = (c - 1) * (w + gap)
        s = _suffix(c)
        lay[f"xaxis{s}"] = _axis(domain=[max(left, 0.0), min(left + w, 1.0)],
                                 anchor=f"y{s}")
        lay[f"yaxis{s}"] = _axis(anchor=f"x{s}")
        if c <= len(titles):
            notes.append(dict(text=titles[c - 1], xref="paper", yref="paper",
                              x=left + w / 2, y=1.0, xanchor="center", yanchor="bottom",
                              showarrow=False, font=dict(size=13)))
    lay["annotations"] = notes
    return lay


def figure_nbytes(fig: go.Figure) -> int:
    """Bytes of the JSON the browser receives for ``fig`` (Streamlit re-validates the
    figure and serialises it with ``plotly.io.to_json``, escaping ``/``)."""
    import plotly.io as pio
    from plotly.tools import return_figure_from_figure_or_data
    checked = return_figure_from_figure_or_data(fig, validate_figure=True)
    return len(pio.to_json(checked, validate=False).encode())
