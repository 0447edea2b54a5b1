"""The "Where it holds" view on Paper results: the atlas (``python -m
nplk_lab.model.atlas.atlas``) drawn per method and data set as a σ × C map of regions; hover
gives a cell's numbers with their intervals, a click opens that state on its page.

The numbers come from :mod:`nplk_lab.model.atlas.atlas_view`, the map from
:func:`nplk_lab.figures.atlas.region_map`; this module only draws widgets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import nplk_lab.figures as fg
from nplk_lab.figures.atlas import NPKL_COLORS, REGION_COLORS, SMOOTH_COLORS, region_map
from nplk_lab.model import claims
from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_npkl as AN
from nplk_lab.model.atlas import atlas_view as AV
from nplk_lab.model.atlas.atlas_data import SETS
from nplk_lab.model.atlas.atlas_report import METHOD_NAMES
from nplk_lab.model.maps import cell_from_clicks
from nplk_lab.ui.components.chart import clicks, live_chart

from .keys import ATLAS_CLICK_SEEN, ATLAS_NOTE
from .maps import open_later
from .sharing import cached

_KEY = "paper_atlas_map"


def _table(name: str = "atlas.csv") -> list[dict]:
    """A committed atlas table, read once per file version for every session."""
    path = A.table_path(name)
    if not path.exists():
        return []
    return cached("data", ("atlas", str(path), path.stat().st_mtime_ns),
                  lambda: A.read_csv(path))


def _atlas() -> list[dict]:
    return _table()


def _held() -> list[dict]:
    """The same cells at other draws of the data ([] when not committed)."""
    return _table("held-out/atlas.csv")


def _on_click(grid: AV.AtlasGrid):
    def handler() -> None:
        ss = st.session_state
        cell, newest = cell_from_clicks(clicks(_KEY), grid.regions.shape,
                                        seen=ss.get(ATLAS_CLICK_SEEN, 0.0))
        ss[ATLAS_CLICK_SEEN] = newest
        if cell is None:
            return
        target = AV.open_state(grid, cell)
        if target is None:
            ss[ATLAS_NOTE] = (f"{SETS[grid.dataset].title} is not one of the pages' data sets, "
                         "so this cell has no page to open; its numbers are in the table.")
        else:
            open_later(*target)
    return handler


def atlas_panel() -> None:
    """The view: method and data set choosers, the region map, its words and table."""
    st.subheader("Where it holds: the atlas")
    cells = _atlas()
    if not cells:
        st.info("No atlas on this installation. The command below measures it (about "
                "half an hour on two cores) and this view then draws it.")
        st.code("python -m nplk_lab.model.atlas", language="bash")
        return
    seeds = int(max(float(r.get("n_seeds", 0)) for r in cells))
    st.caption(
        "Each square is one setting of σ and C for one method on one data set, measured "
        f"at {seeds} draws of the data. Its colour says which explanation of the method's "
        "score the paired differences over those draws support (95 % intervals): the "
        "learned matrix alone (the same model with its matrix switched off at test time "
        "still beats the plain SVM or SVR with the same σ and C), the nearest-neighbour "
        "rule (the method beats that baseline and gives 1-nearest neighbour's labels more "
        "often than it), a gain with neither explanation, the tuned baseline best of all, "
        "the method below the baseline, or no difference the draws can tell. A dark grey "
        "square is unsettled: measured again at 10 other draws of the data, it fell in "
        "another region. Hover a square for its numbers; click it to open that state on "
        "its page.")
    ch = AV.choices(cells)
    left, right = st.columns(2)
    with left:
        method = st.selectbox("Method", list(ch), format_func=lambda m: METHOD_NAMES[m],
                              key="atlas_method",
                              help="The learned-kernel method whose map is drawn.")
    with right:
        dataset = st.selectbox("Data set", ch[method], key="atlas_dataset",
                               format_func=lambda n: SETS[n].title,
                               help="The lab's toys, scikit-learn's generators and real "
                                    "data sets that scikit-learn ships; only the toys "
                                    "open on a page.")
    smooth = AV.has_smooth(cells, method) and st.radio(
        "Rule at test time", ("paper", "smooth"), horizontal=True, key="atlas_rule",
        format_func={"paper": "the paper's (a test point copies a training point's row)",
                     "smooth": "the smooth rule (an average of all rows; copies none)"}.get,
        help="How the learned matrix reaches a test point: the paper's rule copies the "
             "row of a nearest training point; the smooth rule averages all the rows, "
             "weighted by the kernel, so its map says where the learned kernel helps "
             "without copying a neighbour.") == "smooth"
    grid = AV.smooth_grid(cells, method, dataset, _held()) if smooth else \
        AV.atlas_grid(cells, method, dataset, _held())
    if grid is None:  # pragma: no cover - the choosers only offer measured pairs
        return
    title = f"{METHOD_NAMES[method]} on {SETS[dataset].title}"
    fig = region_map(grid.sigmas, grid.Cs, grid.regions,
                     AV.SMOOTH_REGION_LABELS if smooth else AV.REGION_LABELS,
                     hover=grid.hover, colors=SMOOTH_COLORS if smooth else REGION_COLORS,
                     title=title + (", smooth rule" if smooth else ""))
    live_chart(fg.figure_json(fig), key=_KEY, config=fg.plot_config(
        f"nplk-atlas-{method}-{dataset}{'-smooth' if smooth else ''}"),
        height=fig.layout.height, on_click=_on_click(grid),
        ack=st.session_state.get(ATLAS_CLICK_SEEN, 0.0), mark_color="#111", alt=fg.alt_text(fig))
    note = st.session_state.pop(ATLAS_NOTE, None)
    if note:
        st.info(note)
    if smooth:
        _smooth_words(grid)
        return
    st.text(AV.summary_sentence(grid))
    if method == "onk":
        st.caption("ONK's learned kernel changes only the training: a test point meets "
                   "the plain kernel, so its model with the matrix off is the method itself.")
    if method == "lab_rbf_reg":
        r = next(iter(grid.rows.values()))
        st.caption("LAB RBF takes neither σ nor C: its own scores are the same in every "
                   "square, only the plain SVR beside it changes. Its “matrix off” is the "
                   "paper's model with one shared bandwidth on the same support points "
                   "(coefficients refitted), so a square coloured “matrix alone” means one "
                   "shared width already beats that SVR. Learned widths against one shared "
                   f"width here: {AV.interval_words(r, 'method_vs_off', 'R² points')}.")
    st.text(claims.ATLAS_SENTENCE)
    with st.expander("What the colours mean"):
        for line in AV.region_legend():
            st.text(line)
    rows = [{"σ": r["sigma"], "C": r["C"], "region": AV.REGION_LABELS[AV.VIEW_REGIONS.index(
        r["region"])], "method": round(r["score_method"], 3),
        "matrix off": round(r["score_off"], 3), "1-NN": round(r["score_nn"], 3),
        "plain": round(r["score_plain"], 3), "tuned": round(r["score_cv"], 3),
        "method − plain (points)": round(r["gain_mean"], 1), "low": round(r["gain_lo"], 1),
        "high": round(r["gain_hi"], 1), "off − plain (points)": round(r["off_gain_mean"], 1),
        "off low": round(r["off_gain_lo"], 1), "off high": round(r["off_gain_hi"], 1)}
        for r in grid.rows.values()]
    with st.expander("Every square's numbers (means over the draws; low and high: the "
                     "95 % interval)"):
        st.dataframe(pd.DataFrame(rows), hide_index=True)


def _smooth_words(grid: AV.AtlasGrid) -> None:
    """Below the smooth rule's map: its counts, what its colours mean, its numbers."""
    st.text(AV.smooth_summary_sentence(grid))
    st.text(claims.TEXT["smooth_rule"])
    with st.expander("What the colours mean"):
        for line in AV.region_legend(AV.SMOOTH_VIEW_REGIONS):
            st.text(line)
    rows = [{"σ": r["sigma"], "C": r["C"],
             "region": AV.SMOOTH_REGION_LABELS[AV.SMOOTH_VIEW_REGIONS.index(
                 r["smooth_region"])],
             "smooth rule": round(r["score_smooth"], 3),
             "paper's rule": round(r["score_method"], 3),
             "matrix off": round(r["score_off"], 3), "plain": round(r["score_plain"], 3),
             "tuned": round(r["score_cv"], 3),
             "smooth − plain (points)": round(r["smooth_gain_mean"], 1),
             "low": round(r["smooth_gain_lo"], 1), "high": round(r["smooth_gain_hi"], 1)}
            for r in grid.rows.values()]
    with st.expander("Every square's numbers (means over the draws; low and high: the "
                     "95 % interval)"):
        st.dataframe(pd.DataFrame(rows), hide_index=True)


def npkl_panel() -> None:
    """SimpleNPKL against plain k-means: a map of share of labels × C per data set."""
    cells = _table("simple_npkl.csv")
    if not cells:
        return
    st.subheader("Pairs instead of labels: SimpleNPKL against k-means")
    st.caption("SimpleNPKL learns a kernel from must-link and cannot-link pairs drawn from a "
               "share of the labels; its clusters are compared with plain k-means by the "
               "Rand index (1: the true classes exactly), as on the Pairwise constraints "
               "page, at 10 draws of the data. Each square: one share of labels and one C.")
    sets = [n for n in AN.NPKL_SETS if any(r["dataset"] == n for r in cells)]
    name = st.selectbox("Data set", sets, key="atlas_npkl_dataset",
                        format_func=lambda n: SETS[n].title,
                        help="Two-class data sets: the pairs are drawn from their labels.")
    grid = AV.npkl_grid(cells, name)
    if grid is None:  # pragma: no cover - the chooser only offers measured sets
        return
    labels = ("learned kernel better", "k-means better", "no difference")
    fig = region_map([100 * f for f in grid.sigmas], grid.Cs, grid.regions, labels,
                     hover=grid.hover, title=f"SimpleNPKL on {SETS[name].title}",
                     x_label="pairs from this % of the labels", y_label="C",
                     colors=NPKL_COLORS, height=320)
    live_chart(fg.figure_json(fig), key="paper_atlas_npkl",
               config=fg.plot_config(f"nplk-atlas-npkl-{name}"), height=fig.layout.height,
               alt=fg.alt_text(fig))
    n = {k: int(np.sum(grid.regions == i)) for i, k in enumerate(labels)}
    st.text(f"SimpleNPKL on {SETS[name].title}: of {int(np.sum(grid.regions >= 0))} "
            f"settings, the learned kernel's clusters are better than k-means' in "
            f"{n['learned kernel better']}, worse in {n['k-means better']}, and no "
            f"different in {n['no difference']}.")
    st.text(claims.NPKL_SENTENCE)
