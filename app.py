"""NPLK Lab — home page: what the lab shows, one picture, and a way into each page."""

import streamlit as st

import lab_ui as ui

ui.page_setup("home", "Home")

st.title("NPLK Lab")
ui.show_notes()  # notes about the link's parameters, as plain text
st.markdown(
    "An interactive lab for **non-parametric and locally adaptive kernel learning**. "
    "Instead of one Gaussian kernel with one width σ, these methods *learn* the kernel "
    "matrix from the data: **DANK** reweights every entry of K by a learned PSD matrix F, "
    "**KNPL** and **ONK** learn a nearby kernel G, **SimpleNPKL** builds a kernel from "
    "pairwise constraints, and **LAB RBF** gives every support point its own bandwidth. "
    "Every page is live: move a slider and the figures redraw; the URL always holds the "
    "full state, so a copied link reproduces the view.")

left, right = st.columns([1.15, 1], gap="large")
with left:
    fig = ui.home_figure()
    if fig is not None:
        ui.chart(fig, "home_picture", "nplk-home")
        st.caption("Filled: DANK's decision function; solid line its boundary, dashed the "
                   "±1 margins; dotted green: the plain SVM with the same σ and C. Rings "
                   "mark support vectors, hollow markers test points.")
    else:
        st.info("The toy datasets are not available yet.")
with right:
    st.subheader("Try this")
    links = [
        ("pages/1_Classification.py", "Classification", "🎯",
         "Clowns at σ = 1: watch DANK fix what the SVM cannot.",
         {"dataset": "clowns", "method": "dank", "sigma": "1.0", "view": "matrix"}),
        ("pages/1_Classification.py", "Classification — convergence", "📉",
         "Nesterov vs projected gradient on the same problem (seed 000 Fig. 4).",
         {"method": "dank", "view": "convergence", "compare_solvers": "1"}),
        ("pages/2_Regression.py", "Regression", "📈",
         "The step function: DANK-SVR keeps the steps that the plain SVR rounds off.",
         {"reg_dataset": "step", "reg_method": "dank_svr"}),
        ("pages/2_Regression.py", "Regression — LAB RBF", "🎚️",
         "A chirp: LAB RBF's bandwidths shrink where the frequency rises.",
         {"reg_dataset": "chirp", "reg_method": "lab_rbf_reg", "reg_view": "bandwidth"}),
        ("pages/3_Pairwise_constraints.py", "Pairwise constraints", "🔗",
         "Two spirals: a few must-links give clusters that k-means cannot find.",
         {"dataset": "spiral", "constraint_fraction": "0.3"}),
        ("pages/4_Sensitivity.py", "Sensitivity", "🎛️",
         "τ from 10⁻⁴ to 10: accuracy holds while rank(F) falls (seed 000 Table 5).",
         {"sweep_method": "dank", "sweep_param": "tau"}),
        ("pages/5_Scaling.py", "Scaling", "🧩",
         "More clusters: Q(π) grows and the gap stays under the Theorem 6 bound.",
         {"scale_clusters": "4"}),
    ]
    for page, label, icon, text, query in links:
        st.page_link(page, label=label, icon=icon, query_params=query)
        st.caption(text)

st.divider()
st.markdown(
    "**The papers.** DANK — Liu et al., *Learning data-adaptive non-parametric kernels* "
    "(JMLR 2020); KNPL — Liu et al. (AAAI 2018); SimpleNPKL — Zhuang, Tsang & Hoi "
    "(JMLR 2011); ONK — Liu et al. (IJCAI 2009); LAB RBF — He et al. The solvers live in "
    "the `nplk_core` package and never import Streamlit.")
