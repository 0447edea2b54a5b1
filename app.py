"""NPLK Lab — home page: what the lab shows, one picture, and a way into each page."""

import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.ui as ui
from nplk_lab.model import claims, presets

ui.page_setup("home", "Home")
ui.presentation("home")  # present=1: no controls, larger text

st.title("NPLK Lab")
ui.show_notes()  # notes about the link's parameters, as plain text
st.markdown(
    "An interactive lab for **non-parametric and locally adaptive kernel learning**. "
    "Instead of one Gaussian kernel with one width σ, these methods *learn* the kernel "
    "matrix from the data: **DANK** reweights every entry of K by a learned matrix F, "
    "**KNPL** and **ONK** learn a nearby kernel G, **SimpleNPKL** builds a kernel from "
    "pairwise constraints, and **LAB RBF** gives every support point its own bandwidth. "
    "Every page is live: move a slider and the figures redraw; the URL always holds the "
    "full state, so a copied link reproduces the view.\n\n"
    "One thing the lab measures rather than assumes: DANK and KNPL learn their matrix on "
    "the training points only, and a test point borrows the row of its nearest training "
    "point. At the defaults that rule, not a reshaped kernel, is where their test gain "
    "comes from — they label like 1-nearest neighbour; at other settings and on other "
    "data part of a gain can survive with the matrix switched off, and Paper results "
    "maps where each explanation holds. A score table beside each figure "
    "shows the method, the same model with its learned matrix switched off at test "
    "time, 1-nearest neighbour and the plain SVM on the same split.")

left, right = st.columns([1.15, 1], gap="large")
with left:
    fig = ui.home_figure()
    if fig is not None:
        ui.chart(fig, "home_picture", "nplk-home")
        st.caption("Filled: DANK's decision function; solid line its boundary, dashed the "
                   "±1 margins; dotted green: the plain SVM with the same σ and C; "
                   "dash-dot orange: 1-nearest neighbour, whose boundary DANK's follows "
                   "(a test point borrows the row of F of its nearest training point). "
                   "Rings mark support vectors, hollow markers test points.")
    else:
        st.info("The toy datasets are not available yet.")
with right:
    with st.container(border=True, key="nplk-teacher-entry"):
        st.page_link("pages/7_Lessons.py", label="Teaching a class? Start with Lessons",
                     icon=":material/school:")
        st.caption("Five guided lessons where the class predicts before the figure "
                   "answers; a presentation mode for the projector; your own lesson from "
                   "any view, with a question; a class that answers together from phones.")
    st.subheader("Try this")
    # Each link opens a preset (nplk_lab.model.presets): the page's whole state, chosen so
    # the paper's effect is visible on first load (tests/test_presets.py measures it).
    links = [
        ("dank_clowns", "Classification", ":material/scatter_plot:",
         claims.TEXT["home_dank_clowns"]),
        ("dank_solvers", "Classification — convergence", ":material/trending_down:",
         "Nesterov vs projected gradient on the same problem, as in the DANK paper."),
        ("dank_svr_step", "Regression", ":material/show_chart:",
         "The step function: DANK-SVR follows the steps that the plain SVR rounds off, "
         "because its test points take their nearest training point's row of F — it "
         "predicts like 1-nearest neighbour."),
        ("lab_rbf_chirp", "Regression — LAB RBF", ":material/tune:",
         "A chirp: LAB RBF puts more support points where the frequency rises."),
        ("npkl_spiral", "Pairwise constraints", ":material/link:",
         "Two spirals: a few must-links give clusters that k-means cannot find."),
        ("tau_sweep", "Sensitivity", ":material/tune:",
         "τ from 10⁻⁴ to 10: rank(F) falls; accuracy sits above the SVM while DANK's "
         "test labels follow 1-nearest neighbour, then drops back to it (the DANK paper "
         "has the same sweep)."),
    ]
    for name, label, icon, text in links:
        st.page_link(presets.preset_file(name), label=label, icon=icon,
                     query_params=presets.preset_query(name))
        st.caption(text)
    st.page_link("pages/5_Scaling.py", label="Scaling", icon=":material/grid_view:",
                 query_params={"scale_clusters": "4"})
    st.caption("More clusters: the kernel mass between clusters grows, and the gap stays "
               "under its guaranteed bound.")
    st.page_link("pages/6_Paper_results.py", label="Paper results",
                 icon=":material/description:")
    st.caption("Every reproducible result of the papers: their number, ours, and a link "
               "to each on its page.")

st.divider()
st.markdown(
    "**The papers.** DANK — Liu et al., *Learning data-adaptive non-parametric kernels* "
    "(JMLR 2020); KNPL — Liu et al. (AAAI 2018); SimpleNPKL — Zhuang, Tsang & Hoi "
    "(JMLR 2011); ONK — Liu et al. (IJCAI 2009); LAB RBF — He et al. The solvers live in "
    "the `nplk_core` package and never import Streamlit.")
ui.for_researchers(
    "DANK's F and KNPL's G are positive semidefinite (PSD) matrices that multiply K "
    "entry by entry (the Hadamard product F∘K); both are pulled towards the all-ones "
    "matrix 11ᵀ, which leaves K unchanged. The equations, section and theorem numbers "
    "of each method are in the “For researchers” note of its page; Paper results "
    "lists every reproduced number with its table or figure.")
ui.page_done("home")
