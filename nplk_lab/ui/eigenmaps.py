"""The eigen-decay view with its eigenfunction maps.

A click on the eigen-decay plot picks eigenvalue j (the click's x rounded to the nearest
index; the live chart reports clicks anywhere on the plot area); a number input does the
same from the keyboard. Below the plot the selected eigenvector is drawn as a function
on the plane for the learned kernel and for the plain K, with the leading six as small
multiples. ``eigen_index`` (1-based) is a URL setting like every other.

The numbers come from :mod:`nplk_lab.model.eigenmaps` (eigenpairs once per fit, one kernel
block and one product per kernel on the grid); the figure from
:func:`nplk_lab.figures.eigenfunction_figure`. Everything here is cached on the fit, the
data and the grid, so a click that changes only ``j`` rebuilds one figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.ui.components.chart import clicks, live_chart

from .keys import EIGEN_CLICK_SEEN
from .researchers import for_researchers
from .running import fit_key, grid_for, grid_geometry
from .sharing import cached
from .state import PREFIX, STORE, params

_INPUT = PREFIX + "eigen_index"    # the number input's widget key


def _chart_key(page: str) -> str:
    return f"{page}_spectra"       # the eigen-decay chart's key (as before this view)


def _size(res: lab.LabResult) -> int:
    K = res.kernel
    return 0 if K is None else int(K.shape[0])


def _on_click(page: str, n: int):
    """``on_click`` of the eigen-decay chart (runs before the script): the newest click
    picks ``eigen_index``, shown by the number input too."""
    def handler() -> None:
        ss = st.session_state
        j, newest = lab.index_from_clicks(clicks(_chart_key(page)), n,
                                          seen=ss.get(EIGEN_CLICK_SEEN + page, 0.0))
        ss[EIGEN_CLICK_SEEN + page] = newest
        if j is not None and STORE in ss:
            params()["eigen_index"] = j
            ss[_INPUT] = j
    return handler


def index_input(n: int, container: Any = None) -> int:
    """The number input for j (1 … n), seeded from and written back to the store."""
    ss = st.session_state
    P = params()
    c = container or st
    s = lab.setting("eigen_index")
    j = int(min(max(int(P.get("eigen_index", s.default)), 1), max(n, 1)))
    cur = ss.get(_INPUT)
    if not isinstance(cur, int) or not 1 <= cur <= max(n, 1):
        ss[_INPUT] = j
    out = c.number_input(s.label, min_value=1, max_value=max(n, 1), step=1, key=_INPUT,
                         help=s.help)
    P["eigen_index"] = int(out)
    return int(out)


def _rule(P: Mapping[str, Any], res: lab.LabResult) -> str | None:
    rule = lab.drawn_rule(res.method, P.get("extension"))
    return (rule or "nearest") if res.method in lab.eigenmaps.RULE_SETTING else rule


def _points(data: lab.LabData) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Where the maps are drawn: the surface's grid (2 features) or the regression
    line (1 feature): (points, xs, ys or None)."""
    if data.n_features == 2:
        grid = grid_for(data)
        return grid.points, grid.xs, grid.ys
    line = lab.line_points(data.X)
    return line, line[:, 0], None


def eigen_maps(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, j: int
               ) -> lab.EigenMaps:
    """The maps of the selected ``j`` and the leading six, cached per fit, rule and
    indices (so a click among the leading six reuses them)."""
    n = _size(res)
    idx = lab.map_indices(j, n)
    rule = _rule(P, res)
    fkey = fit_key(res.params, data, res.method)

    def compute() -> lab.EigenMaps:
        pts, _, _ = _points(data)
        sqdist = columns = None
        same = res.X_train is not None and res.X_train.shape == data.X_train.shape and \
            np.array_equal(res.X_train, data.X_train)
        if same and data.n_features == 2:
            geom = grid_geometry(data)
            sqdist = geom.sqdist
            # the rule's columns depend only on the grid and the data: kept on the
            # geometry, shared with the surface and the influence map
            columns = geom.columns(rule, sigma=float(res.params["sigma"]),
                                   width=getattr(res.estimator, "extension_width", "sigma"))
        return lab.eigenfunction_maps(res, pts, idx, extension=rule, sqdist=sqdist,
                                      columns=columns)
    return cached("grids", ("eigenmaps", fkey, rule, idx, data.n_features), compute)


def maps_figure(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, j: int):
    n = _size(res)
    j = int(min(max(j, 1), n))
    maps = eigen_maps(P, data, res, j)
    key = ("eigenfig", fit_key(res.params, data, res.method), maps.rule, j,
           data.n_features)

    def build():
        _, xs, ys = _points(data)
        rule = f" · learned rows by the {maps.rule} rule" if maps.rule else ""
        return fg.eigenfunction_figure(
            xs, ys, maps.maps, maps.values, maps.indices, j, null=maps.null,
            X=res.X_train if ys is not None else None,
            y=data.y_train if ys is not None and res.X_train is not None and
            len(res.X_train) == len(data.y_train) and data.task == lab.CLASSIFICATION
            else None,
            subtitle=lab.eigenmaps.describe(maps, j) + rule)
    return cached("figs", key, build), maps


def caption(maps: lab.EigenMaps) -> str:
    learned = [nm for nm in maps.names if nm != "K"]
    head = ("Each eigenvector of a kernel matrix on the training points (j = 1 belongs "
            "to the largest eigenvalue), extended to the whole plane so that it keeps its "
            "values at the training points (rings). Top: the selected j for each kernel; "
            "below: the leading six, the selected one framed. Each map on its own scale: red > 0, "
            "blue < 0, white 0 (an eigenvector's sign and size are conventions: the "
            "largest entry is made positive). ")
    if not learned:
        return head + "This method learns no kernel matrix: only K is drawn."
    if maps.rule == "smooth":
        text = head + (f"The learned kernel {learned[0]} uses, for a new point x, an average "
                       "of all the rows of the learned matrix weighted by the kernel (the "
                       "smooth rule), so its maps need not keep the eigenvector's values at "
                       "the training points, as they do under the papers' rules. ")
        if len(learned) > 1:
            text += (f"{learned[1]} alone, averaged the same way, gives its eigenvector "
                     "averaged over the nearby training points. ")
        return text + "An eigenvalue ≈ 0 is in the null space: its map is left empty."
    text = head + (f"The learned kernel {learned[0]} uses, for a new point x, the row of the "
                   f"training point that the {maps.rule} rule picks. ")
    if len(learned) > 1:
        text += (f"{learned[1]} alone borrows that row too, so its maps are constant on "
                 "the rule's cells (its eigenvector, point by point). ")
    return text + "An eigenvalue ≈ 0 is in the null space: its map is left empty."


def eigen_panel(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, spectra_fig,
                *, page: str) -> None:
    """The eigen-decay plot (click an eigenvalue to pick j), the number input for j and
    the eigenfunction maps of the learned kernel against K."""
    ss = st.session_state
    n = _size(res)
    if n == 0:
        live_chart(fg.figure_json(spectra_fig), key=_chart_key(page),
                   config=fg.plot_config(f"nplk-{res.method}-spectra"),
                   height=spectra_fig.layout.height, alt=fg.alt_text(spectra_fig))
        return
    P_ = params()
    typed = ss.get(_INPUT)  # a value typed in this run's input wins over the store
    if isinstance(typed, int) and 1 <= typed <= n:
        P_["eigen_index"] = typed
    j = int(min(max(int(P_.get("eigen_index", 1)), 1), n))
    marked = cached("figs", ("spectra-mark", fit_key(res.params, data, res.method), j),
                    lambda: fg.mark_eigenvalue(spectra_fig, j))
    live_chart(fg.figure_json(marked), key=_chart_key(page),
               config=fg.plot_config(f"nplk-{res.method}-spectra"),
               height=marked.layout.height, on_click=_on_click(page, n),
               ack=ss.get(EIGEN_CLICK_SEEN + page, 0.0), mark_color="#111", alt=fg.alt_text(marked))
    left, right = st.columns([1, 3], vertical_alignment="bottom")
    j = index_input(n, left)
    right.caption("Click an eigenvalue on the plot (or type j) to draw its eigenvector as "
                  "a function on the plane, for the learned kernel and for K.")
    if data.n_features not in (1, 2):
        st.info(f"The eigenfunction maps need 1 or 2 features; these data have "
                f"{data.n_features}.")
        return
    try:
        fig, maps = maps_figure(P, data, res, j)
    except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
        st.warning(f"The eigenfunction maps are unavailable: {exc}")
        return
    live_chart(fg.figure_json(fig), key=f"{page}_eigenmaps",
               config=fg.plot_config(f"nplk-{res.method}-eigenfunctions"),
               height=fig.layout.height, alt=fg.alt_text(fig))
    st.caption(caption(maps))
    for_researchers("The extension is Nyström's: φⱼ(x) = Σᵢ k(x, xᵢ) uᵢⱼ / λⱼ for the "
                    "eigenvector uⱼ with eigenvalue λⱼ, which equals uⱼ at the training "
                    "points.")
