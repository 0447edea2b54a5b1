"""Regression: DANK-SVR, LAB RBF and the baselines on the step function, the 2-D
harmonic surface and the chirp; support points, learned bandwidths, relative error."""

import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.model as lab
import nplk_lab.ui as ui
from nplk_lab.model import claims

PAGE = "regression"
P = ui.page_setup(PAGE, "Regression")
ui.presentation(PAGE)  # present=1: no controls, the figure large

with st.sidebar:
    st.header("Data")
    ui.dataset_controls(PAGE, lab.REGRESSION)
    st.header("Method")
    method = ui.method_controls("reg_method", options=lab.REGRESSION_METHODS)
ui.state_controls(PAGE)

st.title("Regression")
st.caption("The fitted curve (or surface) over the data, support points as rings, the plain "
           "SVR dotted, the noiseless function dashed, 1-nearest neighbour dash-dot (on request). "
           "Scores are the relative error: the squared prediction errors on the test points "
           "divided by the squared spread of their targets around the mean (0 = perfect, "
           "1 = no better than predicting the mean; lower is better). DANK-SVR's test "
           "points borrow the row of F of their nearest training point: the table below "
           "the figure compares it with 1-nearest neighbour.")
ui.for_researchers(
    "Relative squared error Σ(ŷ − y)² / Σ(y − ȳ)², as in “Learning Data-adaptive "
    "Non-parametric Kernels” §6.3 (DANK-SVR on the step function and the 2-D harmonic "
    "surface); DANK-SVR is that paper's §5. LAB RBF: “Enhancing Kernel Flexibility via "
    "Learning Asymmetric Locally-Adaptive Kernels”.")
ui.show_notes()

data, data_msgs = ui.get_data(lab.REGRESSION)
ui.show_messages(data_msgs)
ok, why = ui.available(method)
res = None
if not ok:
    st.info(why)
elif data is not None:
    res = ui.fit(P, data, method, page=PAGE)
    ui.show_messages(res.messages)
shown = ui.keep_good(PAGE, data, res, data_msgs) if ok else None
s_data, s_res = shown if shown else (data, None)

if s_res is not None:
    # the fit with the numbers beside it; the selected view below at full width
    left, right = st.columns([1.55, 1], gap="large")
    with right:  # the view switches first, so the figure of this run sees them
        ui.metrics(s_res, per_row=2, data=s_data)
        ui.control("show_baseline", label="Show the plain SVR",
                   help="Dotted: the plain SVR's curve with the same σ and C, and the "
                        "noiseless function.")
        ui.control("show_nn", help="Dash-dot orange: 1-nearest neighbour's prediction (every "
                                   "point takes the target of its nearest training point), "
                                   "a step curve on 1-D data. "
                                   + claims.TEXT["nn_help_svr"])
        if s_res.method == "dank_svr":
            ui.control("extension")
    with left:
        ui.regression_chart(P, s_data, s_res)
    # below the figure at the page's full width: beside it, at 1280×720, the score
    # table's five columns had about 330 px (a header on six lines, rows past the edge)
    # DANK-SVR against itself with F off at test time, 1-NN regression, the SVR
    ui.ablation_panel(P, s_data, s_res, page=PAGE)
    # LAB RBF: learned against one shared width, the paper's fit against a ridge
    ui.lab_rbf_panel(P, s_data, s_res, page=PAGE)
    ui.replay_panel(P, s_data, s_res, page=PAGE)
    ui.influence_panel(P, s_data, s_res, page=PAGE)  # the selected point's influence
    st.divider()
    ui.view_panel(P, s_data, s_res, setting="reg_view", page=PAGE)
ui.exports(PAGE, s_data, s_res)
ui.sync_url(PAGE)
