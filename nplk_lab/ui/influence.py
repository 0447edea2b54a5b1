"""Linked views: select a training point on the surface or on the matrix
heatmap, ring it, frame its row and column, and draw its learned influence below.

The selection is the setting ``focus_point`` (in the URL; −1 = none). A click reaches
the page through the live chart's click reporting
(:func:`nplk_lab.ui.components.chart.live_chart`): the handlers below run
before the script, find the point (the nearest training point within
:data:`nplk_lab.model.influence.CLICK_TOLERANCE` of the axis spans, or the clicked heatmap row)
and set ``focus_point``; the script then draws everything from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.ui.components.chart import clicks, live_chart

from .keys import CLICK_SEEN, FOCUS_ON, FOCUS_TARGETS
from .running import fit_key, grid_for, grid_geometry
from .sharing import cached
from .state import STORE, params
from .widgets import control

_CLEAR = "focus_clear"


# ---------------------------------------------------------------------------
# the selection
# ---------------------------------------------------------------------------

def supported(res: lab.LabResult | None, data: lab.LabData | None, page: str) -> bool:
    """Whether the influence view exists for this fit: a method with a kernel per point
    on this page, fitted on exactly these training points, on 1 or 2 features."""
    if res is None or data is None or not res.ok or res.X_train is None:
        return False
    if res.method not in lab.INFLUENCE_METHODS.get(page, ()):
        return False
    d = data.n_features
    if d > 2 or (d == 1 and page != "regression"):
        return False
    return res.X_train.shape == data.X_train.shape and np.array_equal(res.X_train,
                                                                       data.X_train)


def focus_of(data: lab.LabData | None) -> int:
    """The selected training point of ``data`` (−1: none). A selection made on other data
    (the dataset, seed or sample changed since) is dropped; a link's selection is kept."""
    P = params()
    i = int(P.get("focus_point", -1))
    if i < 0 or data is None:
        return -1
    ss = st.session_state
    rec = ss.get(FOCUS_ON)
    if rec is not None and rec[1] == i and rec[0] != data.key:
        P["focus_point"] = -1
        ss.pop(FOCUS_ON, None)
        return -1
    if i >= len(data.X_train):
        P["focus_point"] = -1
        return -1
    if rec is None or rec[1] != i:
        ss[FOCUS_ON] = (data.key, i)
    return i


def _select(i: int | None, newest: float) -> None:
    ss = st.session_state
    ss[CLICK_SEEN] = max(float(ss.get(CLICK_SEEN, 0.0)), newest)
    if i is not None and STORE in ss:
        params()["focus_point"] = int(i)
        ss.pop(FOCUS_ON, None)  # made on the data on screen: focus_of records them


def _on_plot_click(key: str) -> None:
    """``on_click`` of a plot of the points: the training point nearest the click."""
    P, spans = st.session_state.get(FOCUS_TARGETS, {}).get(key, (None, None))
    if P is None:
        return
    i, newest = lab.point_from_clicks(clicks(key), P, spans,
                                      seen=st.session_state.get(CLICK_SEEN, 0.0))
    _select(i, newest)


def _on_matrix_click(key: str) -> None:
    """``on_click`` of the matrix view: the clicked row's point."""
    order = st.session_state.get(FOCUS_TARGETS, {}).get(key)
    if order is None:
        return
    i, newest = lab.row_from_clicks(clicks(key), order,
                                    seen=st.session_state.get(CLICK_SEEN, 0.0))
    _select(i, newest)


def clickable(fig: Any, key: str, points: np.ndarray, spans: tuple[float, float],
              data: lab.LabData) -> tuple[Any, dict]:
    """``fig`` (a plot of the training points ``points`` as drawn) with the selected
    point ringed, and the ``live_chart`` arguments that make a click select a point."""
    ss = st.session_state
    ss.setdefault(FOCUS_TARGETS, {})[key] = (np.asarray(points, dtype=float), spans)
    i = focus_of(data)
    if i >= 0:
        fig = fg.focus_ring(fig, np.asarray(points)[i], i)
    return fig, dict(on_click=lambda: _on_plot_click(key), ack=ss.get(CLICK_SEEN, 0.0),
                     mark_color=fg.FOCUS_COLOR)


def surface_clicks(fig: Any, key: str, data: lab.LabData, res: lab.LabResult | None,
                   grid: lab.Grid, page: str) -> tuple[Any, dict]:
    """The decision surface (not in add mode): ringed selection and click-to-select;
    ``fig`` unchanged and no click handling when the view does not apply."""
    if not supported(res, data, page):
        return fig, {}
    spans = (float(grid.xs[-1] - grid.xs[0]), float(grid.ys[-1] - grid.ys[0]))
    return clickable(fig, key, data.X_train[:, :2], spans, data)


def regression_clicks(fig: Any, key: str, data: lab.LabData, res: lab.LabResult,
                      page: str = "regression") -> tuple[Any, dict]:
    """The regression fit: a curve (points at (x, y)) or a 2-D surface."""
    if not supported(res, data, page):
        return fig, {}
    if data.n_features == 1:
        P = np.column_stack([data.X_train[:, 0], data.y_train])
        xl = lab.line_points(data.X)
        spans = (float(xl[-1, 0] - xl[0, 0]),
                 float(1.1 * np.ptp(np.r_[data.y_train, data.y_test])) or 1.0)
        return clickable(fig, key, P, spans, data)
    grid = grid_for(data)
    spans = (float(grid.xs[-1] - grid.xs[0]), float(grid.ys[-1] - grid.ys[0]))
    return clickable(fig, key, data.X_train[:, :2], spans, data)


def matrix_clicks(fig: Any, key: str, data: lab.LabData, res: lab.LabResult,
                  page: str) -> tuple[Any, dict]:
    """The matrix view with rows labelled for clicks and the selection framed."""
    n = len(data.y_train)
    if not supported(res, data, page) or res.kernel is None or res.kernel.shape[0] != n:
        return fig, {}
    ss = st.session_state
    heat = [t for t in fig._data if t.get("type") == "heatmap"]
    pooled = not heat or len(heat[0].get("y", ())) < n   # a block is not a point
    ss.setdefault(FOCUS_TARGETS, {})[key] = None if pooled else fg.class_order(data.y_train, n)
    i = focus_of(data)
    # the drawn side in the key: block means and every entry are two figures of a fit
    side = len(heat[0].get("y", ())) if heat else 0
    out = cached("figs", ("matrix-linked", fit_key(res.params, data, res.method), i, side),
                 lambda: fg.linked_matrix(fig, data.y_train, i))
    return out, dict(on_click=lambda: _on_matrix_click(key), ack=ss.get(CLICK_SEEN, 0.0),
                     mark_color=fg.FOCUS_COLOR)


# ---------------------------------------------------------------------------
# the influence figure
# ---------------------------------------------------------------------------

def _extension(P: Mapping[str, Any], res: lab.LabResult) -> str | None:
    return lab.drawn_rule(res.method, P.get("extension"))


def basis(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult
          ) -> lab.InfluenceBasis:
    """What every point's map shares for this fit (cached per fit and rule): on the
    surface's grid (reusing its distances) or, for 1-D data, on the curve's x."""
    ext = _extension(P, res)
    key = ("influence-basis", fit_key(res.params, data, res.method), ext)

    def build():
        if data.n_features == 1:
            xl = lab.line_points(data.X)
            return lab.influence_basis(res.estimator, res.method, data.X_train, xl,
                                       extension=ext)
        geom = grid_geometry(data)
        grid = grid_for(data)
        rule = ext or "nearest"
        # the rule's columns depend on the points only: kept on the geometry, shared
        # with the surface and the eigenfunction maps
        cols = geom.columns(rule, sigma=float(res.params["sigma"]),
                            width=getattr(res.estimator, "extension_width", "sigma"))
        return lab.influence_basis(res.estimator, res.method, data.X_train, grid.points,
                                   extension=ext, sqdist=geom.sqdist, cols=cols)
    return cached("grids", key, build)


def influence_figure(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, i: int,
                     mode: str) -> tuple[Any, lab.Influence]:
    """The figure (cached per fit, rule, point and view) and the maps behind it."""
    ext = _extension(P, res)
    key = ("influence", fit_key(res.params, data, res.method), ext, int(i), mode)

    def build():
        inf = basis(P, data, res).at(i)
        label = lab.METHODS[res.method].label
        title = f"{label}: influence of training point {i}"
        kw = dict(index=i, mode=mode, change_kind=inf.change_kind,
                  learned_name=inf.learned_name, plain_name=inf.plain_name, axes=inf.axes,
                  title=title)
        if data.n_features == 1:
            xl = lab.line_points(data.X)
            return fg.influence_curve(xl[:, 0], inf.plain, inf.learned, inf.change,
                                      X_train=data.X_train, **kw), inf
        grid = grid_for(data)
        y = data.y_train if data.task == lab.CLASSIFICATION else None
        return fg.influence_figure(grid.xs, grid.ys, inf.plain, inf.learned, inf.change,
                                   X_train=data.X_train, y_train=y,
                                   plain_axes=inf.plain_axes, **kw), inf
    return cached("figs", key, build)


def _clear() -> None:
    params()["focus_point"] = -1
    st.session_state.pop(FOCUS_ON, None)


def _caption(inf: lab.Influence, res: lab.LabResult) -> str:
    parts = []
    if inf.change is not None:
        lo, hi = float(np.min(inf.change)), float(np.max(inf.change))
        if inf.change_kind == "ratio":
            parts.append(f"Learning multiplied this point's similarities by "
                         f"{fg.for_people(lo, 4)}–{fg.for_people(hi, 4)} across the plot "
                         "(1 = unchanged).")
        else:
            def signed(x: float) -> str:
                return ("+" if x >= 0 else "") + fg.for_people(x, 3)
            parts.append(f"Learning changed this point's similarities by {signed(lo)} to "
                         f"{signed(hi)} (0 = unchanged).")
    sup = getattr(res.estimator, "support_", None)
    if res.method in ("dank", "dank_svr", "knpl", "onk") and sup is not None \
            and inf.index not in set(np.asarray(sup).tolist()):
        parts.append(f"Point {inf.index} is not a support vector (αᵢ = 0): learning moves "
                     f"its row of {res.matrix_name or 'F'} only indirectly"
                     + (" (ONK: not at all)." if res.method == "onk" else "."))
    if inf.note:
        parts.append(inf.note)
    if res.method in ("dank", "dank_svr", "knpl"):
        parts.append("At a training point xⱼ (nearest rule) the learned map is the entry "
                     f"({res.matrix_name or 'F'} × K)ᵢⱼ of the matrix view.")
    return " ".join(parts)


def influence_panel(P: Mapping[str, Any], data: lab.LabData | None,
                    res: lab.LabResult | None, *, page: str) -> None:
    """Below the surface: the selected point's learned influence beside the plain
    kernel (or what learning changed), with a button that clears the selection."""
    if not supported(res, data, page):
        return
    i = focus_of(data)
    if i < 0:
        where = ("Click a training point on the plot (with “Click to add” off)"
                 if data.task == lab.CLASSIFICATION else "Click a training point on the plot")
        st.caption(f"{where} or a row of the learned-matrix heatmap to see its learned "
                   "influence on the plane.")
        return
    head, view, clear = st.columns([2.2, 2.2, 1])
    y = data.y_train[i]
    what = (f"class {'+1' if y > 0 else '−1'}" if data.task == lab.CLASSIFICATION
            else f"y = {fg.for_people(y, 3)}")
    head.markdown(f"**Influence of training point {i}** ({what})")
    try:
        inf_probe = basis(P, data, res).at(i)
    except (ValueError, np.linalg.LinAlgError) as exc:
        st.info(f"No influence map for this fit: {lab.clip(exc, 200)}")
        return
    mode = "pair"
    if inf_probe.learned is not None:
        mode = control("influence_view", view)
    clear.button("Clear selection", key=_CLEAR, on_click=_clear,
                 help="Deselect the point and close this view.")
    fig, inf = influence_figure(P, data, res, i, mode)
    live_chart(fg.figure_json(fig), key=f"{page}_influence",
               config=fg.plot_config(f"nplk-{res.method}-influence-{i}"),
               height=fig.layout.height, alt=fg.alt_text(fig))
    st.caption(_caption(inf, res))
