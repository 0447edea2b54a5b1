"""A figure's text alternative: what a screen reader says for a chart.

:func:`alt_text` reads a built figure (a ``go.Figure``, its dict or its JSON) and
writes one short paragraph with its numbers: the title, every note drawn on the plot
(the scores in the corner), each axis's title and the range of values it shows, the
range of a heatmap's values, and the legend's entries. It reads only what the figure
already holds, so the words are the figure's own (no claim is added), and the pages
hand it to the live chart as its ``aria-label``
(:func:`nplk_lab.ui.components.chart.live_chart`, ``alt=``).
"""

from __future__ import annotations

import base64
import html
import json
import re
from typing import Any

import numpy as np

from .common import _TYPED

#: at most this many characters (a screen reader reads the whole label at once)
MAX_CHARS = 700
_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
#: Plotly's typed-array codes back to NumPy types (the lab writes them: common._TYPED)
_DTYPES = {code: np.dtype(name).type for name, code in _TYPED.items()}


def _plain(text: Any) -> str:
    """Figure text (Plotly's HTML subset) as plain words: line breaks become "; "."""
    if text is None:
        return ""
    s = _BREAK.sub("; ", str(text))
    s = html.unescape(_TAG.sub("", s))
    return re.sub(r"\s+", " ", s).strip(" ;")


def _parts(fig: Any) -> tuple[list[dict], dict]:
    """(traces, layout) as plain dicts, without copying the figure's arrays."""
    if isinstance(fig, (str, bytes)):
        fig = json.loads(fig)
    if isinstance(fig, dict):
        return list(fig.get("data") or []), dict(fig.get("layout") or {})
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if isinstance(data, list) and isinstance(layout, dict):
        return data, layout
    d = fig.to_plotly_json()
    return list(d.get("data") or []), dict(d.get("layout") or {})


def _values(a: Any) -> np.ndarray:
    """The finite numbers of a trace array (a numpy array, nested lists, or Plotly.js's
    typed-array spec ``{dtype, bdata}``); empty when it holds none (text labels)."""
    if a is None:
        return np.zeros(0)
    if isinstance(a, dict) and "bdata" in a:
        dtype = _DTYPES.get(str(a.get("dtype")))
        if dtype is None:
            return np.zeros(0)
        a = np.frombuffer(base64.b64decode(a["bdata"]), dtype=dtype)
    try:
        v = np.asarray(a, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.zeros(0)
    return v[np.isfinite(v)]


def _num(v: float) -> str:
    """A number in three significant figures, with a true minus sign."""
    s = f"{v:.3g}"
    if "e" in s:
        m, e = s.split("e")
        s = f"{m}×10^{int(e)}"
    return s.replace("-", "−")


def _title(obj: Any) -> str:
    if isinstance(obj, dict):
        return _plain(obj.get("text"))
    return _plain(obj)


def _axes(layout: dict, traces: list[dict]) -> list[str]:
    """Each axis with a title: its name and the range of values it shows (the layout's
    range when set, else the span of the data on it)."""
    out = []
    for name in sorted(k for k in layout if re.fullmatch(r"[xy]axis\d*", k)):
        ax = layout.get(name) or {}
        if not isinstance(ax, dict) or ax.get("visible") is False:
            continue
        title = _title(ax.get("title"))
        if not title:
            continue
        letter, idx = name[0], name[5:]
        ref = letter + (idx if idx not in ("", "1") else "")
        rng = ax.get("range")
        lo = hi = None
        if isinstance(rng, (list, tuple)) and len(rng) == 2 and all(
                isinstance(r, (int, float)) for r in rng):
            lo, hi = float(min(rng)), float(max(rng))
            if ax.get("type") == "log":
                lo, hi = 10 ** lo, 10 ** hi
        else:
            vals = [_values(t.get(letter)) for t in traces
                    if (t.get(f"{letter}axis") or letter) == ref and t.get("visible", True)
                    is not False and t.get("type", "scatter") != "pie"]
            vals = [v for v in vals if v.size]
            if vals:
                allv = np.concatenate(vals)
                lo, hi = float(allv.min()), float(allv.max())
        words = f"{letter} axis: {title}"
        if lo is not None:
            words += f", {_num(lo)} to {_num(hi)}"
        out.append(words)
    return out


def _legend(traces: list[dict]) -> list[str]:
    names = []
    for t in traces:
        if t.get("showlegend") is False or t.get("visible", True) is False:
            continue
        if t.get("type") in ("heatmap", "contour") and t.get("showlegend") is not True:
            continue                          # not in Plotly's legend unless asked
        n = _plain(t.get("name"))
        if n and n not in names:
            names.append(n)
    return names


def _heatmaps(traces: list[dict]) -> list[str]:
    out = []
    for t in traces:
        if t.get("type") not in ("heatmap", "contour") or t.get("visible", True) is False:
            continue
        z = _values(t.get("z"))
        if not z.size:
            continue
        what = _plain(t.get("name")) or _title((t.get("colorbar") or {}).get("title")) \
            or "colour"
        out.append(f"{what}: {_num(float(z.min()))} to {_num(float(z.max()))}")
    return out


def alt_text(fig: Any, max_chars: int = MAX_CHARS) -> str:
    """One paragraph that says what ``fig`` shows, with its numbers: title, notes on
    the plot, axes with their ranges, heatmap value ranges, legend entries. At most
    ``max_chars`` characters (cut at a word, with "…")."""
    traces, layout = _parts(fig)
    parts = []
    title = _title(layout.get("title"))
    parts.append(f"Chart: {title}" if title else "Chart")
    notes = [_plain(a.get("text")) for a in layout.get("annotations") or []
             if isinstance(a, dict) and a.get("visible", True) is not False]
    parts += [n for n in notes if n]
    parts += _axes(layout, traces)
    parts += _heatmaps(traces)
    legend = _legend(traces)
    if legend:
        parts.append("legend: " + ", ".join(legend))
    text = ". ".join(p.rstrip(".") for p in parts) + "."
    if len(text) > max_chars:
        text = text[:max_chars - 1].rsplit(" ", 1)[0] + "…"
    return text
