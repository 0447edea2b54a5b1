"""Pairwise constraints: SimpleNPKL learns a kernel from must-link / cannot-link pairs
and a k-NN graph; its clusters against plain k-means (Rand index)."""

import numpy as np
import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.figures as fg
import nplk_lab.model as lab
import nplk_lab.ui as ui

PAGE = "pairwise"
P = ui.page_setup(PAGE, "Pairwise constraints")
ui.presentation(PAGE)  # present=1: no controls, the figure large

with st.sidebar:
    st.header("Data")
    ui.dataset_controls(PAGE, lab.CLASSIFICATION,
                        options=[d for d in lab.CLASSIFICATION_DATASETS if d != "drawn"])
    st.header("SimpleNPKL")
    st.caption(lab.METHODS["simple_npkl"].description)
    ui.controls(lab.method_params("simple_npkl"))
ui.state_controls(PAGE)

st.title("Pairwise constraints")
st.caption("Colours are the clusters kernel k-means finds on the learned kernel (the "
           "plane shaded by each place's nearest point); outline shapes are the true "
           "classes. Constraints come from the labels; “Constraint lines” draws a sample "
           "of them: green must-link, dashed orange cannot-link.")
ui.show_notes()

data, data_msgs = ui.get_data(lab.CLASSIFICATION)
ui.show_messages(data_msgs)
ok, why = lab.available("simple_npkl")
res = None
if not ok:
    st.info(why)
elif data is not None:
    res = ui.pairwise_fit(P, data)
    ui.show_messages(res.messages)
shown = ui.keep_good(PAGE, data, res, data_msgs) if ok else None

if shown:
    s_data, s_res = shown
    est = s_res.estimator
    X, y = s_data.X, s_data.y
    cols = st.columns(5)
    cols[0].metric("Rand index (SimpleNPKL)", f"{s_res.rand:.3f}")
    cols[1].metric("Rand index (k-means)", f"{s_res.rand_kmeans:.3f}")
    cols[2].metric("must-link / cannot-link", f"{len(est.must_link_)} / {len(est.cannot_link_)}")
    # (a label on one line at 1280×720: "rank of the learned kernel" was cut)
    cols[3].metric("Learned rank", str(int(np.size(est.eigenvalues_))),
                   help="The rank of the learned kernel: how many independent directions "
                        "K* has (its "
                        "number of non-zero eigenvalues): a small rank means the points "
                        "are described by few coordinates.")
    cols[4].metric("Fit time", f"{s_res.fit_time * 1000:.0f} ms")
    left, right = st.columns([1.1, 1], gap="medium")
    with left:
        ui.pairwise_chart(P, s_data, s_res)
    with right:
        view = ui.control("pair_view")
        if view == "embedding":
            fig = fg.embedding_figure(est.embedding_, est.labels_, y_true=y)
        elif view == "spectra":
            fig = fg.spectra_figure({"learned kernel": est.eigenvalues_},
                                    rank=int(np.size(est.eigenvalues_)), rank_label="rank",
                                    title="Spectrum of the learned kernel")
        else:
            fig = fg.convergence_figure({lab.setting("npkl_loss").format(P["npkl_loss"]):
                                         est.history_}, title="SimpleNPKL objective")
        ui.chart(fig, f"pair_{view}", f"nplk-simplenpkl-{view}")
        if view == "embedding":
            st.caption("Each point placed by the two leading eigenvectors of the learned "
                       "kernel (1st and 2nd spectral coordinate), coloured by cluster: "
                       "points the kernel treats as alike land close together.")
    ui.for_researchers(
        "SimpleNPKL (“A Family of Simple Non-Parametric Kernel Learning Algorithms”, "
        "§4–5) learns K* from the constraints and the Laplacian L of the mutual k-NN "
        "graph: minimise tr(LK) plus C times the constraint loss, subject to "
        "tr(K^p) ≤ B; with the linear loss and p = 2, K* ∝ A₊, the positive part of the "
        "constraint matrix. Active selection follows §5.3. The embedding's axes are "
        "√λ₁ v₁ and √λ₂ v₂, with λⱼ, vⱼ the eigenpairs of K*.")
    ui.exports(PAGE, s_data, lab.LabResult("simple_npkl", lab.CLUSTERING, dict(P),
                                           estimator=est, matrix=est.kernel_,
                                           matrix_name="K"))
else:
    ui.exports(PAGE, data)
ui.sync_url(PAGE)
