"""Scaling: DANK's k-means decomposition (§4 of the DANK paper) — the partition, Q(π)
against the number of clusters, the Theorem 6 bound against the actual gap, the Theorem 7
screened points, and fit time against n. On screen in plain words ("kernel mass between
clusters", "the guaranteed bound on the gap"); the theorems in the researchers' note."""

import numpy as np
import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.figures as fg
import nplk_lab.model as lab
import nplk_lab.ui as ui

PAGE = "scaling"
P = ui.page_setup(PAGE, "Scaling")
ui.presentation(PAGE)  # present=1: no controls, the figure large

with st.sidebar:
    st.header("Data")
    ui.dataset_controls(PAGE, lab.CLASSIFICATION,
                        options=[d for d in lab.CLASSIFICATION_DATASETS if d != "drawn"])
    st.header("Decomposition")
    ui.controls(["C", "sigma", "scale_clusters", "scale_max_clusters"])
    cluster = ui.running.cluster_choice(PAGE)   # only when the server configures one
ui.state_controls(PAGE)

st.title("Scaling DANK")
st.caption("Without the nuclear norm (τ = 0) and the bias, DANK splits into independent "
           "problems on k-means clusters (solved in parallel). Splitting drops the "
           "kernel entries between clusters, so the split problem's best objective "
           "differs from the whole problem's by a gap; the paper proves a guaranteed "
           "bound on that gap, which grows with the kernel mass between clusters (the "
           "sum of the kernel entries that join points of different clusters).")
ui.for_researchers(
    "DANK paper (“Learning Data-adaptive Non-parametric Kernels”), §4. **Theorem 6**: "
    "h(α*) − h̄(ᾱ) ≤ ½ B C² Q(π), where h is the dual objective of the whole problem at "
    "its optimum α*, h̄ that of the decomposed problem at its optimum ᾱ, and "
    "Q(π), the sum of |Kᵢⱼ| over the pairs with π(i) ≠ π(j), is the kernel mass between "
    "the clusters of the partition π. **Theorem 7** certifies, from the clusters' "
    "solutions, training points that are non-support vectors of the whole problem (the "
    "screened points, drawn as hollow black diamonds).")
ui.show_notes()

data, data_msgs = ui.get_data(lab.CLASSIFICATION)
ui.show_messages(data_msgs)
ok, why = lab.available("dank")
study = None
if not ok:
    st.info(why)
elif data is not None:
    study = ui.scaling(P, data, cluster=cluster)
    if study is None:
        st.info("The scalable DANK module is not available yet.")
    else:
        ui.show_messages(study.messages)
shown = ui.keep_good(PAGE, data, study, data_msgs)

if shown:
    s_data, s = shown
    v = int(P["scale_clusters"])
    c = st.columns(4)
    c[0].metric("Clusters v", str(v))
    c[1].metric("Between-cluster mass", fg.for_people(s.q[min(v, s.vs.size) - 1], 3),
                help="The sum of |kernel entries| over pairs of points in different "
                     "clusters: what the split drops. Zero when the clusters do not touch.")
    c[2].metric("support vectors", str(int(s.support.sum())))
    c[3].metric("points ruled out early", str(int(s.screened.sum())),
                help="Training points certified, from their cluster's problem alone, not "
                     "to be support vectors of the whole problem (hollow black diamonds): "
                     "the whole problem can skip them.")
    left, right = st.columns(2, gap="medium")
    with left:
        X_s, y_s = (s.X, s.y) if s.X is not None else (s_data.X, s_data.y)
        ui.chart(fg.partition_figure(X_s, s.labels, s.centers, y=y_s,
                                     screened=s.screened,
                                     title=f"k-means partition, v = {v}"),
                 "partition", "nplk-scaling-partition")
    with right:
        ui.chart(fg.lines_figure(s.vs, {"kernel mass between clusters": s.q},
                                 x_title="clusters v",
                                 y_title="sum of |K entries| across clusters",
                                 title="Kernel mass between clusters"),
                 "q_pi", "nplk-scaling-q")
        ui.chart(fg.lines_figure(s.vs[1:], {"guaranteed bound": s.bound[1:],
                                            "|actual gap|": np.abs(s.gap[1:])},
                                 x_title="clusters v", y_title="objective gap", log_y=True,
                                 title="The guaranteed bound on the gap vs the actual gap",
                                 dashes={"guaranteed bound": "dash"}),
                 "bound", "nplk-scaling-bound")
        if np.any(s.gap[1:] < 0):
            st.caption("The split problem's objective is higher than the whole problem's "
                       "for some v (dropping the entries between clusters also drops "
                       "positive terms), so the one-sided bound holds trivially there; "
                       "the plot shows the size of the gap.")
    ui.exports(PAGE, s_data)

st.subheader("Fit time against n")
ui.control("scale_max_n")
ns = [n for n in (100, 200, 400, 800, 1600, 3200) if n <= int(P["scale_max_n"])]
run = st.button(f"Measure (n = {', '.join(map(str, ns))})", key="run_timing",
                disabled=not ok, help="Fits exact DANK, scalable DANK and SVC at each n; "
                                      "large n take a while.")
if run:
    ui.timing_run(P, ns, cluster)
if (timed := ui.last_timing()) is not None:
    t_ns, times = timed
    ui.chart(fg.lines_figure(np.asarray(t_ns), times, x_title="n", y_title="fit time (s)",
                             log_x=True, log_y=True, title="Fit time against n"),
             "timing", "nplk-scaling-timing")
ui.sync_url(PAGE)
