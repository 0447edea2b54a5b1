"""SimpleNPKL's neighbour graph and Iris at the paper's protocol (docs/simplenpkl-on-iris.md):
the union k-NN graph against a Laplacian built by hand, and Table 2's Iris result."""

from __future__ import annotations

import numpy as np
import pytest

from nplk_core import SimpleNPKL


def test_union_graph_is_the_symmetric_knn_graph():
    import scipy.sparse as sp
    from sklearn.datasets import load_iris
    from sklearn.neighbors import kneighbors_graph

    from nplk_core.simple_npkl import knn_laplacian

    X, _ = load_iris(return_X_y=True)
    A = kneighbors_graph(X, 5, include_self=False).toarray()
    S = ((A + A.T) > 0).astype(float)
    d = S.sum(axis=1)
    ref = np.eye(len(X)) - S / np.sqrt(np.outer(d, d))
    L = knn_laplacian(X, 5, graph="union")
    assert sp.issparse(L)
    np.testing.assert_allclose(L.toarray(), ref, atol=1e-12)
    # the mutual graph (the default) leaves points isolated on Iris; the union none
    mutual = knn_laplacian(X, 5)
    assert int(np.sum(mutual.diagonal() == 0)) > 0
    assert int(np.sum(L.diagonal() == 0)) == 0
    with pytest.raises(ValueError, match="graph must be one of"):
        knn_laplacian(X, 5, graph="both")


def test_iris_at_the_papers_protocol_beats_kmeans():
    """The SimpleNPKL paper's Table 2 reports Rand 97.4 on Iris (k-means 84.5): 5-NN
    graph, 70 % of n connected components, B = 1, p = 2, C = 1 per unordered pair (our C = 0.5)."""
    from sklearn.cluster import KMeans
    from sklearn.datasets import load_iris
    from sklearn.metrics import rand_score

    X, y = load_iris(return_X_y=True)
    for seed in (0, 1):
        km = rand_score(y, KMeans(3, n_init=10, random_state=seed).fit_predict(X))
        m = SimpleNPKL(loss="square_hinge", C=0.5, B=1.0, p=2.0, constraint_fraction=0.3,
                       neighbor_graph="union", n_clusters=3, random_state=seed).fit(X, y)
        assert rand_score(y, m.labels_) >= 0.95 > km
    with pytest.raises(ValueError):
        SimpleNPKL(neighbor_graph="nope").fit(X, y)
