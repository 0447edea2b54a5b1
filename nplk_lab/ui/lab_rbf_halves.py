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

from .ablation import markdown_table
from .charts import chart
from .running import fit_key
from .sharing import cached

METHOD = "lab_rbf_reg"


def _key(data: lab.LabData, res: lab.LabResult) -> tuple:
    return ("lab-rbf-halves", fit_key(res.params, data, res.method))


def halves_of(data: lab.LabData, res: lab.LabResult) -> lh.Halves | None:
    """The four fits on the page's split (cached on the fit); None without test points."""
    if (res is None or not res.ok or res.method != METHOD or data.X_test is None
            or len(data.y_test) < 2):
        return None
    X = res.X_train if res.X_train is not None else data.X_train
    y = res.y_train if res.y_train is not None else data.y_train
    return cached("grids", _key(data, res), lambda: lh.halves(res.estimator, X, y,
                                                              data.X_test, data.y_test))


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
