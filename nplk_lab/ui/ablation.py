"""The score table beside the figure (below it on Regression): where a learned
kernel's test score comes from (:mod:`nplk_lab.model.ablation`), and the
1-nearest-neighbour overlay's values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.model as lab
from nplk_lab.model import ablation as ab
from nplk_lab.serve.stores import MISS, cache

from .running import fit, fit_key, grid_geometry
from .sharing import cached
from .widgets import control


def _reference(P: Mapping[str, Any], data: lab.LabData, method: str, *, page: str,
               compute: bool) -> lab.LabResult | None:
    """A reference fit (plain SVM/SVR or its CV version) from the shared fit store: the
    stored one when there is one, else fitted when ``compute``."""
    hit = cache("fits").get(fit_key(P, data, method), MISS)
    if hit is not MISS:
        return hit if hit.ok else None
    if not compute:
        return None
    res = fit(P, data, method, page=page)
    return res if res.ok else None


def ablation_table(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, *,
                   page: str) -> ab.Ablation | None:
    """The ablation of ``res`` on the page's split (cached on the fit and the references;
    the plain SVM/SVR is the page's cached reference fit, SVM-CV/SVR-CV only when it is
    stored already or the user asked for it)."""
    if res is None or not res.ok or res.method not in ab.ABLATION_METHODS:
        return None
    task = res.task
    base = "svm" if task == lab.CLASSIFICATION else "svr"
    P_fit = {**P, **res.params}
    plain = _reference(P_fit, data, base, page=page, compute=True)
    cv = _reference(P_fit, data, f"{base}_cv", page=page, compute=bool(P.get("ablation_cv")))
    key = ("ablation", fit_key(res.params, data, res.method),
           None if plain is None else fit_key(plain.params, data, base),
           cv is not None)
    base_label = "SVM" if task == lab.CLASSIFICATION else "SVR"
    labels = {"plain": f"{base_label} (σ = {float(P_fit['sigma']):g}, "
                       f"C = {float(P_fit['C']):g})"}
    X_fit = res.X_train if res.X_train is not None else data.X_train
    y_fit = res.y_train if res.y_train is not None else data.y_train
    return cached("grids", key, lambda: ab.ablation(
        res.method, res.estimator, X_fit, y_fit, data.X_test, data.y_test,
        plain=None if plain is None else plain.estimator,
        cv=None if cv is None else cv.estimator, labels=labels))


def ablation_panel(P: Mapping[str, Any], data: lab.LabData | None, res: lab.LabResult | None,
                   *, page: str) -> None:
    """The score table (numbers as plain text), what its rows are,
    and the paragraph that follows its numbers; nothing for methods without a learned
    matrix carried to test points by a nearest-neighbour rule."""
    if data is None or res is None or res.method not in ab.ABLATION_METHODS:
        return
    st.markdown("**Where the test score comes from**")
    box = st.container(key="nplk-score-table")   # the table, above its switch
    if res.task == lab.CLASSIFICATION:   # drawn first, so this run's table sees it
        control("ablation_cv")
    else:
        control("ablation_cv", label="Score the cross-validated SVR too",
                help="Adds SVR-CV to the score table: σ and C chosen by 5-fold "
                     "cross-validation over 121 pairs, about a second or more per data set "
                     "(kept for every other σ, C and τ on the same data).")
    a = ablation_table(P, data, res, page=page)
    if a is None:
        box.caption("The score table needs test points: raise the test fraction.")
        return
    box.markdown(markdown_table(a.table()))
    st.caption(ab.legend(res.method))
    st.markdown(a.verdict)


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+-.!|~$"})


def markdown_table(rows: list[dict[str, str]]) -> str:
    """Plain-text cells as a Markdown table, every Markdown character escaped (so a cell
    shows as the text it is). Not ``st.table``: that loads pandas, which the first
    picture of a new server must not need (:mod:`nplk_lab.serve.firstpaint`)."""
    if not rows:
        return ""
    head = list(rows[0])
    lines = ["| " + " | ".join(h.translate(_MD_SPECIAL) for h in head) + " |",
             "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r.get(h, "")).translate(_MD_SPECIAL) for h in head)
              + " |" for r in rows]
    return "\n".join(lines)


def nn_values(data: lab.LabData, grid: lab.Grid) -> np.ndarray | None:
    """1-nearest neighbour's labels (±1) on the surface grid, once per data set (the grid
    geometry already holds every grid point's nearest training point)."""
    def compute():
        lab_nn = ab.nn_grid(grid_geometry(data).nearest, data.y_train)
        return None if lab_nn is None else lab_nn.reshape(grid.shape)
    return cached("grids", ("nn-grid", data.key, grid.shape), compute)
