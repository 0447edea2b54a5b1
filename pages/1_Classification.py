"""Classification: the learned model's decision surface against the plain SVM, the
learned matrix (F or G) beside K, eigen-decay and convergence."""

import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.model as lab
import nplk_lab.ui as ui
from nplk_lab.model import claims

PAGE = "classification"
P = ui.page_setup(PAGE, "Classification")
ui.presentation(PAGE)  # present=1: no controls, the figure large

with st.sidebar:
    st.header("Data")
    ui.dataset_controls(PAGE, lab.CLASSIFICATION)
    st.header("Method")
    method = ui.method_controls("method", options=lab.CLASSIFICATION_METHODS)
ui.state_controls(PAGE)

st.title("Classification")
st.caption("Learned kernels on 2-D toy data: the decision surface, and beside it the "
           "numbers that say where its test score comes from.")
ui.show_notes()

data, data_msgs = ui.get_data(lab.CLASSIFICATION)
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

# The decision surface with the numbers beside it; the selected view (K | F | F∘K,
# eigen-decay, convergence) below at full width, where three heatmaps stay readable.
# The view switches are drawn before the surface, so the surface of this run sees them.
# At 1280×720 the surface and the score table share the first screen: the right
# column is wide enough for the table's rows on one line, the numbers come first and
# the switches (drawn before the surface, in a container placed below) last.
left, right = st.columns([1.05, 1.2], gap="medium")
with right:
    numbers, switches = st.container(), st.container()
with switches:
    ui.control("show_baseline")
    ui.control("show_nn")
    if s_res is not None and s_res.method in ("dank", "knpl"):
        ui.control("extension")
with left:
    add_mode, add_label = ui.points_panel(force=P["dataset"] == "drawn")
    ui.surface_chart(P, s_data, s_res, add_mode=add_mode, add_label=add_label)
    st.caption("Filled: the decision function f; solid line f = 0, dashed f = ±1, dotted "
               "green: the plain SVM with the same σ and C, dash-dot orange (on request): "
               "1-nearest neighbour. Hollow markers: test points; rings: support vectors. "
               + claims.TEXT["classification_nn"])
with numbers:
    if s_res is not None:
        ui.metrics(s_res, per_row=4, data=s_data, compact=True)
    # DANK, KNPL: the method against itself with F (G) off at test time, 1-NN, the SVM
    ui.ablation_panel(P, s_data, s_res, page=PAGE)

ui.replay_panel(P, s_data, s_res, page=PAGE)
# the selected training point's learned influence (linked with the surface and matrix)
ui.influence_panel(P, s_data, s_res, page=PAGE)

if s_res is not None:
    st.divider()
    ui.view_panel(P, s_data, s_res, setting="view", page=PAGE)

ui.exports(PAGE, s_data, s_res)
ui.for_researchers(
    "**DANK** (“Learning Data-adaptive Non-parametric Kernels”, eq. 4): "
    "max over α of min over F ⪰ 0 of 1ᵀα − ½ αᵀY(F∘K)Yα + η‖F − 11ᵀ‖² + τη‖F‖∗, "
    "where F∘K is the entrywise (Hadamard) product, 11ᵀ the all-ones matrix, ‖·‖ the "
    "Frobenius norm and ‖F‖∗ the nuclear norm; F ⪰ 0 means positive semidefinite "
    "(PSD). Its out-of-sample rule is §2.3 (the reciprocal-neighbour rule).",
    "**KNPL** (“Nonlinear Pairwise Layer and Its Training for Kernel Learning”): "
    "max over α of min over G ⪰ 0, G1 = n1 of 1ᵀα − ½ αᵀY(G∘K)Yα + γ‖G‖², solved here "
    "as a saddle point (its eq. 4) or by the paper's Algorithm 2 (ADMM, Alg. 1, for G; "
    "SMO for α); its out-of-sample rule is eq. 23 (the nearest-point rule).",
    "**ONK** (“Learning the Optimal Neighborhood Kernel for Classification”): "
    "min over α of −2αᵀ1 + αᵀYKYα + (αᵀα)²/(4ρ), with G* = K + (Yα)(Yα)ᵀ/(2ρ); "
    "constrained gradient descent is its Alg. 2, the level method its Alg. 1. "
    "**LAB RBF**: “Enhancing Kernel Flexibility via Learning Asymmetric "
    "Locally-Adaptive Kernels”.")
ui.sync_url(PAGE)
