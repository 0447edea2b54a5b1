"""Sensitivity: sweep one parameter of one method; test score, rank and fit time
against it, mean ± std over repeated seeds, and a table like the Data-adaptive Kernels
paper's Table 5. With a second parameter: maps over both, beside the plain baseline
(nplk_lab.ui.maps)."""

import numpy as np
import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.figures as fg
import nplk_lab.model as lab
import nplk_lab.ui as ui
from nplk_lab.model import claims

PAGE = "sensitivity"
P = ui.page_setup(PAGE, "Sensitivity")
ui.follow_cell_click()   # a map cell clicked in the last run opens the method's page
ui.presentation(PAGE)  # present=1: no controls, the figure large

with st.sidebar:
    st.header("Sweep")
    method = ui.method_controls("sweep_method")
    task = lab.METHODS[method].task
    choices = lab.sweepable(method)
    if choices:
        param = ui.control("sweep_param", options=choices)
        lo, hi = ui.range_control("sweep_range", param)
        ui.control("sweep_points")
        param2 = ui.control("sweep_param2", options=[""] + [c for c in choices if c != param])
        if "sigma" not in choices and "n_support" in choices:
            st.caption("LAB RBF has no single σ: each support point learns its own "
                       "bandwidths, so its maps pair the support count with λ (the ridge "
                       "penalty).")
        if param2:
            lo2, hi2 = ui.range_control("sweep_range2", param2)
            ui.control("sweep_points2")
    ui.control("sweep_repeats")
    cluster = ui.running.cluster_choice(PAGE)   # only when the server configures one
    st.header("Data")
    ui.dataset_controls(PAGE, task)
ui.state_controls(PAGE)

st.title("Sensitivity")
st.caption("One parameter varies over the range; the others keep their values (set them on "
           "this page or on the Classification / Regression pages). Each value is fitted on "
           "several seeds (new data draw and split): the plots show mean ± std. "
           + claims.TEXT["sensitivity_rule"] + " "
           "Pick a second parameter for maps over both, beside the plain SVM / SVR / "
           "kernel ridge.")
ui.for_researchers(
    "The τ sweep is the DANK paper's Table 5 (“Learning Data-adaptive Non-parametric "
    "Kernels”): τ weighs τη‖F‖∗ (the nuclear norm) and η weighs η‖F − 11ᵀ‖² in its "
    "eq. 4; rank(F) is the numerical rank. ONK's ρ is the (1/(4ρ))(αᵀα)² term of its "
    "dual, with G* = K + (Yα)(Yα)ᵀ/(2ρ); ρ → ∞ gives the plain SVM (ONK paper, Fig. 3).")
ui.show_notes()

ok, why = lab.available(method)
if not ok:
    st.info(why)
elif not choices:
    st.info(f"{lab.METHODS[method].label} chooses its parameters by cross-validation: there "
            "is nothing to sweep. Pick another method.")
elif param2:
    data, data_msgs = ui.get_data(task)
    ui.show_messages(data_msgs)
    m = None
    if data is not None:
        values1 = lab.sweep_values(param, lo, hi, int(P["sweep_points"]))
        values2 = lab.sweep_values(param2, lo2, hi2, int(P["sweep_points2"]))
        m = ui.sweep_map(P, method, param, values1, param2, values2,
                         int(P["sweep_repeats"]), cluster=cluster)
        ui.show_messages(m.messages)
    shown = ui.keep_good(PAGE + "_map", data, m if m is not None and m.ok else None,
                         data_msgs + (m.messages if m is not None else []))
    if shown:
        ui.maps_panel(P, shown[1], page=PAGE)
        ui.exports(PAGE, shown[0])
else:
    data, data_msgs = ui.get_data(task)
    ui.show_messages(data_msgs)
    res = None
    if data is not None:
        values = lab.sweep_values(param, lo, hi, int(P["sweep_points"]))
        res = ui.sweep(P, method, param, values, int(P["sweep_repeats"]), cluster=cluster)
        ui.show_messages(res.messages)
    ok_sweep = res is not None and np.isfinite(res.scores).any()
    shown = ui.keep_good(PAGE, data, res if ok_sweep else None,
                         data_msgs + (res.messages if res is not None else []))
    if shown:
        s_data, s_res = shown
        s = lab.setting(s_res.param)
        baseline, base_name = None, ""
        if task == lab.CLASSIFICATION and s_res.param in ("onk_rho", "gamma", "tau", "eta"):
            base = ui.sweep(P, "svm", "C", np.array([P["C"]]), int(P["sweep_repeats"]))
            baseline = float(np.nanmean(base.scores))
            base_name = f"plain SVM (σ={P['sigma']:g}, C={P['C']:g}): {baseline:.3f}"
        fig = fg.sensitivity_figure(
            s_res.values, s_res.scores, ranks=s_res.ranks, times=s_res.times,
            param_label=s.label, log_x=s.log, metric=f"test {s_res.metric}",
            baseline=baseline, baseline_name=base_name,
            time_label="fit time (s)",
            title=f"{lab.METHODS[s_res.method].label}: sensitivity to {s.label}")
        ui.chart(fig, "sensitivity", f"nplk-sensitivity-{s_res.method}-{s_res.param}")
        if s.continuous:
            st.caption("Fit times: each value warm-starts from the previous one.")
        st.subheader("The sweep as a table")
        st.dataframe(lab.sweep_table(s_res), hide_index=True)
        ui.exports(PAGE, s_data)
ui.sync_url(PAGE)
