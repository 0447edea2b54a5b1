"""No two marks in a figure differ by colour alone.

Every figure the pages draw (AppTest: each page at its defaults and in the views a
lesson or a student switches to) is read trace by trace, per pair of axes:

* two traces drawn as lines must differ in dash or in marker shape (a reader who cannot
  tell the colours apart still tells the lines apart);
* two marker-only traces of the same shape must have colours that a viewer with
  deuteranopia still tells apart (ΔE ≥ ``APART`` after the simulation of
  ``_colour_vision``), else they must differ in shape.

Only traces with a legend entry count: the legend is where a reader matches a mark to
its meaning. The Chromium side (the rendered legends under a deuteranopia filter) is in
``test_browser_a11y.py``.
"""

from __future__ import annotations

import itertools

import pytest
from _app_pages import SMALL, charts, open_page
from _colour_vision import APART, deuteranope_delta_e

import nplk_lab.figures as fg

pytestmark = pytest.mark.slow

#: (page, query): every page at its defaults, and the views with several curves
STATES = [
    ("app.py", {}),
    ("pages/1_Classification.py", {**SMALL, "show_nn": "true"}),
    ("pages/1_Classification.py", {**SMALL, "view": "convergence",
                                   "compare_solvers": "true"}),
    ("pages/1_Classification.py", {**SMALL, "view": "spectra"}),
    ("pages/1_Classification.py", {**SMALL, "method": "lab_rbf", "view": "bandwidth"}),
    ("pages/1_Classification.py", {**SMALL, "focus_point": "3", "influence_view": "pair"}),
    ("pages/2_Regression.py", {**SMALL, "show_nn": "true"}),
    ("pages/2_Regression.py", {**SMALL, "reg_view": "convergence",
                               "compare_solvers": "true"}),
    ("pages/2_Regression.py", {**SMALL, "focus_point": "3", "influence_view": "pair"}),
    ("pages/3_Pairwise_constraints.py", {**SMALL, "pair_lines": "10"}),
    ("pages/3_Pairwise_constraints.py", {**SMALL, "pair_view": "convergence"}),
    ("pages/4_Sensitivity.py", SMALL),
    ("pages/5_Scaling.py", {**SMALL, "scale_max_clusters": "8", "scale_clusters": "8"}),
]


def _look(t: dict) -> tuple[str, str, str | None, str | None] | None:
    """(kind, dash, marker shape, colour) of a point or line trace; None for others."""
    if t.get("type", "scatter") not in ("scatter", "scattergl"):
        return None
    mode = t.get("mode") or "lines"
    line, marker = t.get("line") or {}, t.get("marker") or {}
    symbol = (marker.get("symbol") or "circle") if "markers" in mode else None
    if "lines" in mode:
        return "lines", line.get("dash") or "solid", symbol, line.get("color")
    if "markers" in mode:
        return "markers", "", symbol, marker.get("color")
    return None


def colour_alone(fig: dict) -> list[str]:
    """The pairs of legend entries in ``fig`` told apart by colour alone."""
    by_axes: dict[tuple[str, str], list[tuple[str, tuple]]] = {}
    for t in fig.get("data") or []:
        if t.get("showlegend") is False or t.get("visible") is False:
            continue
        look = _look(t)
        if look is None:
            continue
        axes = (t.get("xaxis") or "x", t.get("yaxis") or "y")
        by_axes.setdefault(axes, []).append((str(t.get("name") or "?"), look))
    bad = []
    for traces in by_axes.values():
        for (na, a), (nb, b) in itertools.combinations(traces, 2):
            if a[0] != b[0]:
                continue  # a line and a set of points never look alike
            if a[0] == "lines" and a[1:3] == b[1:3]:
                bad.append(f"lines {na!r} and {nb!r}: same dash {a[1]!r} and marker {a[2]!r}")
            elif a[0] == "markers" and a[2] == b[2]:
                d = deuteranope_delta_e(a[3], b[3])
                if d is not None and d < APART:
                    bad.append(f"points {na!r} ({a[3]}) and {nb!r} ({b[3]}): same shape "
                               f"{a[2]!r}, colours {d:.1f} apart under deuteranopia")
    return bad


def test_the_check_fails_on_colour_alone():
    """The check finds two solid lines that differ only by colour, and two same-shape
    point sets whose colours merge under deuteranopia (green and pink), and passes
    a dashed pair and a pair of shapes."""
    two = {"data": [
        {"type": "scatter", "mode": "lines", "name": "a", "line": {"color": "#0072B2"}},
        {"type": "scatter", "mode": "lines", "name": "b", "line": {"color": "#D55E00"}},
        {"type": "scatter", "mode": "markers", "name": "p", "marker": {"color": "#009E73"}},
        {"type": "scatter", "mode": "markers", "name": "q", "marker": {"color": "#CC79A7"}}]}
    assert len(colour_alone(two)) == 2, colour_alone(two)
    two["data"][1]["line"]["dash"] = "dash"
    two["data"][3]["marker"]["symbol"] = "square"
    assert colour_alone(two) == []


@pytest.mark.parametrize("page, query", STATES,
                         ids=[p.split("/")[-1][:-3] + "".join(
                             f"-{k}={v}" for k, v in q.items() if k not in SMALL)
                              for p, q in STATES])
def test_no_two_legend_entries_differ_by_colour_alone(page, query):
    at = open_page(page, **query)
    figs = charts(at)
    assert figs
    bad = {(f.get("layout", {}).get("title") or {}).get("text", "?"): colour_alone(f)
           for f in figs}
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}


def test_clusters_stay_apart_for_a_deuteranope_up_to_eight():
    """Eight clusters (the palette's length): any two with the same marker shape keep
    their colours apart under deuteranopia."""
    for a, b in itertools.combinations(range(len(fg.CLUSTER_COLORS)), 2):
        if fg.cluster_symbol(a) == fg.cluster_symbol(b):
            d = deuteranope_delta_e(fg.cluster_color(a), fg.cluster_color(b))
            assert d >= APART, (a, b, d)
