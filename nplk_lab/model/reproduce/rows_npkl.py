"""The rows of SimpleNPKL (*A Family of Simple Non-Parametric Kernel Learning
Algorithms*): Table 2 on the spiral and on Iris against k-means, and Tables 4 and 5 (the
capacity B and the power p) on Iris."""

from __future__ import annotations

from typing import Any

import numpy as np

import nplk_lab.figures as figs
from nplk_core import datasets as ds

from .row import Row, Scale
from .scoring import _acc, _pm, _quiet


def _npkl_rand(X, y, seed: int, **params) -> tuple[float, Any]:
    from nplk_core import SimpleNPKL
    from nplk_core.simple_npkl import clustering_accuracy

    with _quiet():
        m = SimpleNPKL(random_state=seed, **params).fit(X, y)
    return clustering_accuracy(y, m.labels_), m


def _kmeans_rand(X, y, seed: int, k: int) -> float:
    from sklearn.cluster import KMeans

    from nplk_core.simple_npkl import clustering_accuracy

    return clustering_accuracy(y, KMeans(k, n_init=10, random_state=seed).fit_predict(X))


#: the spiral of the SimpleNPKL rows: the paper's generator is not given (Table 1: two
#: classes, 100 points); one turn keeps 50 points per arm as dense as its figures suggest
SPIRAL = {"n_turns": 1.0, "noise": 0.05}
#: C of the spiral rows: the paper uses "several constant values in (0, 1]" on the
#: Table 1 sets; 0.1 is the estimator's default
NPKL_C = 0.1
#: the paper's Iris protocol (its §7.1): k = 5, r = 70 % connected components
#: (constraint_fraction 0.3), B = 1, p = 2, C = 1 with each constrained pair counted once,
#: which is C = 0.5 in our objective (it sums over ordered pairs); the usual symmetric
#: k-NN graph (the mutual k-NN graph of docs/the-maths-of-every-method.md's SimpleNPKL
#: section isolates 8 of Iris' 150 points)
IRIS = {"constraint_fraction": 0.3, "C": 0.5, "B": 1.0, "p": 2.0, "n_neighbors": 5,
        "neighbor_graph": "union", "n_clusters": 3}


def _iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


def row_npkl_table2(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table2", "002", "SimpleNPKL Table 2 (spiral)",
              "The kernel learned from pairwise constraints clusters the spiral far better "
              "than k-means.", "Rand index: k-means 50.1, SimpleNPKL+LL 92.2, +SHL 94.1",
              preset="npkl_spiral")
    km, ll, shl, km15, ll15 = [], [], [], [], []
    for s in range(sc.seeds):
        X, y = ds.make_spiral(sc.n_spiral, random_state=s, **SPIRAL)
        km.append(_kmeans_rand(X, y, s, 2))
        a, m = _npkl_rand(X, y, s, loss="linear", C=NPKL_C)
        ll.append(a)
        shl.append(_npkl_rand(X, y, s, loss="square_hinge", C=NPKL_C)[0])
        X2, y2 = ds.make_spiral(sc.n_spiral, random_state=s, **{**SPIRAL, "n_turns": 1.5})
        km15.append(_kmeans_rand(X2, y2, s, 2))
        ll15.append(_npkl_rand(X2, y2, s, loss="linear", C=NPKL_C)[0])
        if s == 0:
            first = (X, y, m)
    judged = [_acc(ll, km, "SimpleNPKL+LL − k-means, Rand index"),
              _acc(shl, km, "SimpleNPKL+SHL − k-means, Rand index")]
    row.judge(judged, [_acc(ll15, km15, "SimpleNPKL+LL − k-means, 1.5 turns")])
    row.ours = (f"1 turn: k-means {_pm(km)}, SimpleNPKL+LL {_pm(ll)}, +SHL {_pm(shl)}; 1.5 "
                f"turns: k-means {_pm(km15)}, LL {_pm(ll15)} (spiral n={sc.n_spiral}, "
                f"C={NPKL_C:g}, {sc.seeds} seeds)")
    row.note = ("The paper's spiral generator is not given; the claim is judged on one turn "
                "(50 points per arm). With 1.5 turns (the app's default) 100 points are too "
                "sparse for the 5-NN graph to follow the arms.")
    X, y, m = first
    row.fig = figs.partition_figure(X, m.labels_, y=y,
                                    title="SimpleNPKL+LL clusters on the spiral (seed 0)")
    return row


def _iris_runs(sc: Scale, cache: dict) -> dict:
    """Rand indices on Iris over the seeds: k-means and SimpleNPKL at several protocols."""
    if "iris" in cache:
        return cache["iris"]
    X, y = _iris()
    settings = {
        "LL": dict(IRIS, loss="linear"),
        "SHL": dict(IRIS, loss="square_hinge"),
        "SHL, mutual graph": dict(IRIS, loss="square_hinge", neighbor_graph="mutual"),
        "SHL, mutual graph, C = 0.1": dict(IRIS, loss="square_hinge",
                                           neighbor_graph="mutual", C=0.1),
        "SHL, lab defaults at C = 1": dict(loss="square_hinge", C=1.0, n_clusters=3),
    }
    out = {"k-means": [_kmeans_rand(X, y, s, 3) for s in range(sc.seeds)]}
    for name, params in settings.items():
        out[name] = [_npkl_rand(X, y, s, **params)[0] for s in range(sc.seeds)]
    out["_first"] = _npkl_rand(X, y, 0, **settings["SHL"])[1]
    cache["iris"] = out
    return out


def row_npkl_iris(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_iris", "002", "SimpleNPKL Table 2 (Iris)",
              "On Iris the kernel learned from pairwise constraints clusters better than "
              "k-means.", "Rand index: k-means 84.5, SimpleNPKL+LL 97.4, +SHL 97.4",
              preset=None)
    r = _iris_runs(sc, cache)
    judged = [_acc(r["LL"], r["k-means"], "SimpleNPKL+LL − k-means, Rand index"),
              _acc(r["SHL"], r["k-means"], "SimpleNPKL+SHL − k-means, Rand index")]
    context = [_acc(r[k], r["k-means"], f"SimpleNPKL+{k} − k-means")
               for k in ("SHL, mutual graph", "SHL, mutual graph, C = 0.1",
                         "SHL, lab defaults at C = 1")]
    row.judge(judged, context)
    row.ours = (f"k-means {_pm(r['k-means'])}, SimpleNPKL+LL {_pm(r['LL'])}, +SHL "
                f"{_pm(r['SHL'])}; mutual graph {_pm(r['SHL, mutual graph'])}, at C = 0.1 "
                f"{_pm(r['SHL, mutual graph, C = 0.1'])}; the lab's defaults at C = 1 "
                f"{_pm(r['SHL, lab defaults at C = 1'])} (Iris, raw features, {sc.seeds} seeds)")
    row.note = ("Paper protocol: 5-NN graph, constraints until 70 % of n connected "
                "components remain, B = 1, p = 2, C = 1 counted once per pair (our C = 0.5), "
                "3 clusters, k-means with 10 restarts. The gap to the lab's defaults comes "
                "from the graph (the mutual 5-NN graph isolates 8 points, which then cost "
                "nothing in tr(LK) and get kernel spikes from C ≈ 0.5 on) and the constraint "
                "count (0.1 n instead of 0.3 n must-links): docs/simplenpkl-on-iris.md.")
    X, y = _iris()
    m = r["_first"]
    row.fig = figs.partition_figure(m.embedding_[:, :2], m.labels_, y=y,
                                    title="SimpleNPKL+SHL clusters on Iris (learned embedding)")
    return row


def _iris_sweep(sc: Scale, values, key: str) -> np.ndarray:
    X, y = _iris()
    acc = np.zeros((len(values), sc.seeds))
    for s in range(sc.seeds):
        for i, v in enumerate(values):
            acc[i, s] = _npkl_rand(X, y, s, **{**IRIS, "loss": "square_hinge", key: v})[0]
    return acc


def row_npkl_table4(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table4", "002", "SimpleNPKL Table 4 (Iris)",
              "SimpleNPKL+SHL is not sensitive to the capacity B (p = 2).",
              "Iris 94.8–95.7 %, Protein 73.6–74.5 % over B = 1…4 (C = 1)",
              preset=None)
    Bs = sc.npkl_B
    acc = _iris_sweep(sc, Bs, "B")
    mean = 100 * acc.mean(axis=1)
    judged = [_acc(acc[-1], acc[0], f"B = {Bs[-1]:g} − B = {Bs[0]:g} (equal within ±2 "
                   "points)", margin=2.0)]
    row.judge(judged, [_acc(acc[i], acc[0], f"B = {b:g} − B = {Bs[0]:g}")
                       for i, b in enumerate(Bs[1:-1], start=1)])
    row.ours = ", ".join(f"B={b:g} {mean[i]:.1f}" for i, b in enumerate(Bs)) + \
        f" % (Iris, the paper's protocol, {sc.seeds} seeds)"
    row.note = ("'Not sensitive' is read as: the paired difference between the largest and "
                "the smallest B lies within ±2 points (the paper's spread is 0.9).")
    row.fig = figs.sensitivity_figure(np.asarray(Bs), acc, param_label="B", log_x=False,
                                      metric="Rand index", title="SimpleNPKL+SHL against B (Iris)")
    return row


def row_npkl_table5(sc: Scale, cache: dict) -> Row:
    row = Row("npkl_table5", "002", "SimpleNPKL Table 5 (Iris)",
              "With p < 2 the clustering accuracy drops; p ≥ 2 is stable (B = 1).",
              "Iris p=1.5 58.6 % vs p=2 94.8 %; Protein 72.8 vs 74.5 (C = 1)",
              preset=None)
    ps = sc.npkl_p
    acc = _iris_sweep(sc, ps, "p")
    mean = 100 * acc.mean(axis=1)
    i15, i2 = ps.index(1.5), ps.index(2.0)
    row.judge([_acc(acc[i2], acc[i15], "p = 2 − p = 1.5 (p < 2 drops)")],
              [_acc(acc[-1], acc[i2], f"p = {ps[-1]:g} − p = 2")])
    row.ours = ", ".join(f"p={p:g} {mean[i]:.1f}" for i, p in enumerate(ps)) + \
        f" % (Iris, the paper's protocol, {sc.seeds} seeds)"
    row.note = "Square hinge loss, B = 1, C = 0.5 (the paper's C = 1, pairs counted once)."
    row.fig = figs.sensitivity_figure(np.asarray(ps), acc, param_label="p", log_x=False,
                                      metric="Rand index", title="SimpleNPKL+SHL against p (Iris)")
    return row
