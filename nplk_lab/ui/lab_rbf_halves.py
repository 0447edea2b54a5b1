"""Beside LAB RBF's regression figure: both halves of the story
(:mod:`nplk_lab.model.lab_rbf_halves`): learned against one shared width inside the
paper's model, the paper's model against a ridge on the same support points fitted to
all training points, and the lab's extension; this draw's numbers, a dot chart, and
where the comparison was measured."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.model import lab_rbf_halves as lh
from nplk_lab.serve import stores

from .ablation import markdown_table
from .charts import chart
from .running import fit_key
from .sharing import cached

METHOD = "lab_rbf_reg"


#: support counts up to which the comparison is drawn with every move: its one-width
#: ridge tries 61 widths × 12 ridge values, each a least-squares solve on N × N, so its
#: cost grows as N³ (CPU on the 2-core machine: 0.06 s at N = 30, 0.21 s at 60, 0.68 s
#: at 80, 17 s at 200). Beyond it a button computes the comparison on request, so a
#: slider move never waits for it (issue 30: every slider p90 ≤ 0.5 s).
AUTO_MAX_SUPPORT = 60


def _key(data: lab.LabData, res: lab.LabResult) -> tuple:
    return ("lab-rbf-halves", fit_key(res.params, data, res.method))


def halves_of(data: lab.LabData, res: lab.LabResult, *, compute: bool = True
              ) -> lh.Halves | None:
    """The four fits on the page's split (cached on the fit); None without test points,
    or, with ``compute=False``, when they have not been computed yet."""
    if (res is None or not res.ok or res.method != METHOD or data.X_test is None
            or len(data.y_test) < 2):
        return None
    key = _key(data, res)
    if not compute:
        return stores.cache("grids").get(key)
    X = res.X_train if res.X_train is not None else data.X_train
    y = res.y_train if res.y_train is not None else data.y_train
    return cached("grids", key, lambda: lh.halves(res.estimator, X, y, data.X_test,
                                                  data.y_test))


def lab_rbf_panel(P: Mapping[str, Any], data: lab.LabData | None,
                  res: lab.LabResult | None, *, page: str) -> None:
    """Nothing unless the fit is LAB RBF regression: then the table of the four fits'
    test errors (plain text), the dot chart, this draw's sentence and the measured
    domain."""
    if data is None or res is None or res.method != METHOD or not res.ok:
        return
    st.markdown("**Learned widths, and where the paper's fit loses**")
    if data.X_test is None or len(data.y_test) < 2:
        st.caption("These comparisons need test points: raise the test fraction.")
        return
    n_support = len(getattr(res.estimator, "support_", ()))
    on_request = n_support > AUTO_MAX_SUPPORT
    h = halves_of(data, res, compute=not on_request)
    if h is None and on_request:
        st.caption(f"With {n_support} support points the comparison takes seconds (its "
                   "search over one shared width grows with the cube of the support "
                   f"count); it is drawn by itself up to {AUTO_MAX_SUPPORT}.")
        if not st.button("Compare the four fits", key=f"{page}_lab_halves_go",
                         icon=":material/compare_arrows:",
                         help="Fit one shared width and the ridge on all points beside "
                              "LAB RBF on this draw (computed once, then kept)."):
            return
        h = halves_of(data, res)
    if h is None:
        return
    st.markdown(markdown_table(h.table()))
    keys = [k for k, _ in lh.FITS]
    fig = fg.halves_figure([lh.SHORT[k] for k in keys], [h.errors[k] for k in keys],
                           groups=[lh.GROUP[k] for k in keys])
    chart(fig, f"{page}_lab_halves", "nplk-lab-rbf-halves")
    st.markdown(h.sentence())
    st.caption(lh.domain_sentence())
