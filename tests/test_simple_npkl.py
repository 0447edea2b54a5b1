"""SimpleNPKL (*A Family of Simple Non-Parametric Kernel Learning Algorithms*): graph
Laplacian, closed form (Prop. 1/2), Algorithm 1, active constraint selection, constraint
drawing, the estimator contract.

Long (about 600 lines) because each piece is checked against its own reference written
here; the neighbour-graph variants live in test_simple_npkl_graph.py.

Every test compares against something computed independently: dense brute-force
constructions, the explicit objective of the SDP, a slow projected-gradient solver of
the primal problem in K-space, the inequality of Prop. 6.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import laplacian as csgraph_laplacian
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from nplk_core._npkl_core import (
    constraint_matrix,
    draw_constraints,
    dual_objective,
    knn_laplacian,
    prop4_rank,
    simple_npkl_closed_form,
    simple_npkl_solve,
)
from nplk_core.datasets import make_chessboard, make_spiral
from nplk_core.simple_npkl import SimpleNPKL, clustering_accuracy


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """The dense references do many small eigh calls: one thread is fastest for them
    and keeps this file quick when other jobs share the machine."""
    with threadpool_limits(limits=1):
        yield


# ---------------------------------------------------------------------------
# helpers: independent dense references
# ---------------------------------------------------------------------------


def _brute_laplacian(X, k):
    """Mutual k-NN Laplacian by brute force (dense): the definition of eq. 9 with the
    isolated-point convention of eq. 8 (zero row and column)."""
    n = len(X)
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D2, np.inf)
    nbrs = np.argsort(D2, axis=1)[:, :k]
    N = np.zeros((n, n), dtype=bool)
    N[np.repeat(np.arange(n), k), nbrs.ravel()] = True
    S = (N & N.T).astype(float)
    deg = S.sum(1)
    inv = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    return np.diag((deg > 0).astype(float)) - inv[:, None] * S * inv[None, :], S


def _problem(n=80, seed=0, fraction=0.2):
    X, y = make_spiral(n, random_state=seed)
    L = knn_laplacian(X, 5)
    ml, cl = draw_constraints(y, fraction, seed)
    T = constraint_matrix(n, ml, cl)
    return X, y, L, ml, cl, T


def _positive_part(w):
    """Eigenvalues of a symmetric matrix with those at rounding level set to 0: below
    n eps max|w| (numpy's matrix_rank tolerance), a computed eigenvalue carries no sign.
    This matters for powers below 1: an exact zero of A computed as +1e-15 becomes
    1e-15 ** (1/2) = 3e-8 in A_+^(1/(p-1)) for p = 3."""
    w = np.asarray(w, dtype=float)
    tol = w.size * np.finfo(float).eps * max(float(np.abs(w).max(initial=0.0)), 1e-300)
    return np.where(w > tol, w, 0.0)


def _sym_power(M, power):
    w, V = np.linalg.eigh(M)
    return (V * _positive_part(w) ** power) @ V.T


def _tr_power(K, p):
    return float(np.sum(_positive_part(np.linalg.eigvalsh(K)) ** p))


def _unconstrained_null_vectors(L, T):
    """Unit vectors D^(1/2) 1 on each connected component of the graph that no
    constraint touches (isolated points included): L v = 0 and T v = 0 exactly, so
    A v = 0 and K* = c A_+^(1/(p-1)) must give v no weight."""
    Ld = L.toarray()
    adj = (Ld < 0).astype(float)
    _, comp = connected_components(sp.csr_array(adj), directed=False)
    touched = set(comp[np.flatnonzero(np.abs(T.toarray()).sum(1))])
    deg = adj.sum(1)
    out = []
    for c in sorted(set(comp) - touched):
        v = np.where(comp == c, np.sqrt(np.maximum(deg, 1.0)), 0.0)
        out.append(v / np.linalg.norm(v))
    return np.array(out).reshape(-1, Ld.shape[0])


def _linear_objective(K, L, T, C):
    """The SimpleNPKL linear-loss objective (eq. 12), to be minimised:
    tr((L - C T) K) = tr(LK) - C sum_{(i,j) ordered} T_ij K_ij."""
    return float(np.sum(L * K) - C * np.sum(T * K))


def _random_feasible(n, B, p, rng, rank):
    Z = rng.normal(size=(n, rank))
    K = Z @ Z.T
    return K * (B / _tr_power(K, p)) ** (1.0 / p)


# ---------------------------------------------------------------------------
# graph Laplacian
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 3, 5, 8])
def test_knn_laplacian_matches_bruteforce(k):
    rng = np.random.default_rng(k)
    X = np.vstack([rng.normal(size=(60, 3)), [[50.0, 50.0, 50.0]]])  # last: isolated
    L = knn_laplacian(X, k)
    assert sp.issparse(L)
    ref, S = _brute_laplacian(X, k)
    np.testing.assert_allclose(L.toarray(), ref, atol=1e-12)
    # scipy's normalised Laplacian of the same graph (same isolated-node convention)
    np.testing.assert_allclose(L.toarray(), csgraph_laplacian(S, normed=True), atol=1e-12)
    dense = L.toarray()
    np.testing.assert_array_equal(dense, dense.T)
    w = np.linalg.eigvalsh(dense)
    assert w.min() > -1e-10 and w.max() < 2 + 1e-10
    assert np.all(dense[-1] == 0)  # the isolated point: zero row (eq. 8)
    assert np.all((np.abs(dense) > 0).sum(1) <= k + 1)  # <= k neighbours + diagonal


def test_knn_laplacian_rejects_bad_input():
    X = np.random.default_rng(0).normal(size=(10, 2))
    for k in (0, 10, 11, 2.5, True):
        with pytest.raises(ValueError, match="n_neighbors"):
            knn_laplacian(X, k)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        knn_laplacian(X, 3)


# ---------------------------------------------------------------------------
# closed form (Prop. 1, Prop. 2, Prop. 4)
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("eigen_solver", ["arpack", "dense"])
@pytest.mark.parametrize("p", [1.5, 2.0, 3.0])
def test_closed_form_is_optimal_prop1(p, eigen_solver):
    _, _, L, ml, cl, T = _problem(n=120, seed=1)
    C, B = 0.3, 2.0
    sol = simple_npkl_closed_form(T, L, C=C, B=B, p=p, eigen_solver=eigen_solver)
    K = sol.kernel
    Ld, Td = L.toarray(), T.toarray()
    # PSD and on the boundary of the capacity constraint
    assert np.linalg.eigvalsh(K).min() > -1e-10
    assert _tr_power(K, p) == pytest.approx(B, rel=1e-8)
    # the closed form against a dense reference of eq. 14
    A = C * Td - Ld
    Aq = _tr_power(A, p / (p - 1))
    K_ref = (B / Aq) ** (1 / p) * _sym_power(A, 1 / (p - 1))
    np.testing.assert_allclose(K, K_ref, atol=1e-9)
    # the exact null directions of A (here a mutual-neighbour pair no constraint
    # touches) get no weight; keeping a rounding-level eigenvalue would give
    # ||K v|| ~ 5e-8 at p = 3
    N = _unconstrained_null_vectors(L, T)
    assert N.shape[0] >= 1
    np.testing.assert_allclose(N @ Ld, 0.0, atol=1e-14)
    np.testing.assert_allclose(N @ Td, 0.0, atol=0.0)
    assert np.abs(N @ K).max() <= 1e-12 * np.abs(K).max()
    # optimal value = -B^(1/p) ||sigma_+||_q (Hoelder)
    f_star = _linear_objective(K, Ld, Td, C)
    assert f_star == pytest.approx(-(B ** (1 / p)) * Aq ** ((p - 1) / p), rel=1e-9)
    # no feasible K beats it: random PSD matrices of several ranks ...
    rng = np.random.default_rng(0)
    for rank in (1, 3, 10, 120):
        for _ in range(20):
            Kr = _random_feasible(120, B, p, rng, rank)
            assert _linear_objective(Kr, Ld, Td, C) >= f_star - 1e-12
    # ... and small feasible perturbations of K* itself (a much sharper test)
    n = 120
    for _ in range(30):
        E = rng.normal(size=(n, n)) * 1e-3
        Kp = _sym_power(K + E + E.T, 1.0)
        Kp *= (B / _tr_power(Kp, p)) ** (1 / p)
        assert _linear_objective(Kp, Ld, Td, C) >= f_star - 1e-12


def test_closed_form_rank_growth_and_prop2():
    _, _, L, _, _, T = _problem(n=150, seed=2, fraction=0.3)
    C, B, p = 0.3, 1.0, 2.0
    ref = simple_npkl_closed_form(T, L, C=C, B=B, p=p, eigen_solver="dense")
    # a hopeless rank guess must be grown until all positive eigenvalues are found
    grown = simple_npkl_closed_form(T, L, C=C, B=B, p=p, rank=1, eigen_solver="arpack")
    assert ref.rank > 2
    assert grown.rank == ref.rank
    np.testing.assert_allclose(grown.kernel, ref.kernel, atol=1e-9)
    # Prop. 2: the penalised form with G = (tr A_+^q / B)^(1/q) gives the same kernel,
    # and for p = 2 it is A_+ / G
    pen = simple_npkl_closed_form(T, L, C=C, p=p, G=ref.G, eigen_solver="dense")
    np.testing.assert_allclose(pen.kernel, ref.kernel, atol=1e-10)
    A = C * T.toarray() - L.toarray()
    np.testing.assert_allclose(pen.kernel, _sym_power(A, 1.0) / ref.G, atol=1e-10)
    # Prop. 4 rank guess: largest r with r(r+1)/2 <= m
    for m in (1, 2, 3, 5, 6, 100, 5050):
        r = prop4_rank(m)
        assert r * (r + 1) // 2 <= m < (r + 1) * (r + 2) // 2


# ---------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------

def _pairs_signs(ml, cl):
    return np.vstack([ml, cl]), np.concatenate([np.ones(len(ml)), -np.ones(len(cl))])


@pytest.mark.parametrize("step_size", ["auto", "lemma5"])
def test_square_hinge_ascent_prop6_fixed_G(step_size):
    """Penalised form (Prop. 2) with p = 2: grad J is Lipschitz with 1/G + 1/C (Lemma 5,
    tightened; the paper's m/G + 1/C is larger), so each step with eta = 1/Lipschitz must
    give J(a_t+1) >= J(a_t) + ||a_t+1 - a_t||^2 / (2 eta) (Prop. 6), with no backtracking."""
    _, _, L, ml, cl, _ = _problem(n=100, seed=3)
    pairs, signs = _pairs_signs(ml, cl)
    res = simple_npkl_solve(L, pairs, signs, loss="square_hinge", C=0.3, p=2.0, G=0.2,
                            step_size=step_size, max_iter=40, tol=1e-12,
                            rng=np.random.default_rng(0))
    h = res.history
    assert len(h["objective"]) >= 5
    assert np.all(h["n_backtracks"] == 0)
    lip = (2 * len(pairs) if step_size == "lemma5" else 1) / 0.2 + 1 / 0.3
    np.testing.assert_allclose(h["step_size"], 1 / lip)
    dJ = np.diff(h["objective"])
    required = h["step_norm"][1:] ** 2 * lip / 2
    assert np.all(dJ >= required - 1e-10 * np.abs(h["objective"][1:]))
    # the duality gap (primal at K_t minus dual) is never negative and shrinks
    assert np.all(h["gap"] >= -1e-9)
    if step_size == "auto":
        assert h["gap"][-1] < 1e-3 * h["gap"][0] or h["gap"][-1] < 1e-10
    else:  # the paper's constant is 2m times larger: same direction, tiny steps
        assert h["gap"][-1] < h["gap"][0]


def test_square_hinge_trace_constrained_monotone():
    """Trace-constrained form (Prop. 1 inside Algorithm 1): G_t varies, the Lipschitz
    step is local; the safeguard keeps J non-decreasing, the gap closes."""
    X, y = make_spiral(200, random_state=0)
    est = SimpleNPKL(loss="square_hinge", C=0.1, B=10.0, tol=1e-8, max_iter=300,
                     random_state=0).fit(X, y)
    h = est.history_
    assert est.converged_ and est.n_iter_ > 5
    assert np.all(np.diff(h["objective"]) >= -1e-12 * np.abs(h["objective"][1:]))
    assert np.all(h["gap"] >= -1e-9) and h["gap"][-1] <= 1e-8 * max(1, abs(h["objective"][-1]))
    assert set(h) >= {"objective", "step_norm", "rank", "time", "primal", "gap"}
    assert all(len(v) == est.n_iter_ for v in h.values())
    assert np.all(np.diff(h["time"]) >= 0)


def _reference_primal(L, pairs, signs, loss, C, B, iters=600):
    """Slow reference: projected gradient on K over {K PSD, ||K||_F^2 <= B} (p = 2) for
    tr(LK) + C sum_(ordered) l(T_ij K_ij). The projection onto the intersection of the
    PSD cone and a ball at the origin is the ball projection of the cone projection."""
    n = L.shape[0]
    Ld = L.toarray()
    i, j = pairs[:, 0], pairs[:, 1]

    def value_grad(K):
        z = signs * K[i, j]
        r = np.maximum(1 - z, 0) if loss == "square_hinge" else 1 - z
        G = Ld.copy()
        gz = -C * r * signs  # d/dK_ij of C * 1/2 r^2, counted at (i, j) and (j, i)
        G[i, j] += gz
        G[j, i] += gz
        return float(np.sum(Ld * K) + C * np.sum(r ** 2)), G

    def project(M):
        w, V = np.linalg.eigh(0.5 * (M + M.T))
        w = np.maximum(w, 0)
        nrm = np.sqrt(np.sum(w ** 2))
        if nrm > np.sqrt(B):
            w *= np.sqrt(B) / nrm
        return (V * w) @ V.T

    # FISTA (accelerated projected gradient); the loss part is 2C-smooth in K
    K = Z = project(np.eye(n))
    step, t = 1.0 / (2 * C), 1.0
    for _ in range(iters):
        K_new = project(Z - step * value_grad(Z)[1])
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        Z = K_new + (t - 1) / t_new * (K_new - K)
        K, t = K_new, t_new
    return value_grad(K)[0]


@pytest.mark.parametrize("loss", ["square_hinge", "square"])
def test_algorithm1_reaches_primal_optimum(loss):
    X, y = make_spiral(40, random_state=4)
    L = knn_laplacian(X, 5)
    ml, cl = draw_constraints(y, 0.4, 4)
    pairs, signs = _pairs_signs(ml, cl)
    C, B = 0.5, 4.0
    res = simple_npkl_solve(L, pairs, signs, loss=loss, C=C, B=B, p=2.0, tol=1e-10,
                            max_iter=500, rng=np.random.default_rng(0))
    assert res.converged
    ref = _reference_primal(L, pairs, signs, loss, C, B)
    primal, dual = res.history["primal"][-1], res.history["objective"][-1]
    # weak duality against the independent reference, and optimality
    assert dual <= ref + 1e-7
    assert primal == pytest.approx(ref, rel=1e-5, abs=1e-7)
    assert dual == pytest.approx(dual_objective(loss, res.solution, res.alpha, C))
    if loss == "square_hinge":
        assert np.all(res.alpha >= 0)


def test_hinge_alpha_in_box_and_arpack_matches_dense():
    _, _, L, ml, cl, _ = _problem(n=120, seed=5)
    pairs, signs = _pairs_signs(ml, cl)
    for loss, B in (("hinge", 50.0), ("square_hinge", 5.0)):
        out = [simple_npkl_solve(L, pairs, signs, loss=loss, C=0.2, B=B, tol=1e-9,
                                 max_iter=400, eigen_solver=s, rng=np.random.default_rng(0))
               for s in ("dense", "arpack")]
        if loss == "hinge":
            assert np.all((out[0].alpha >= 0) & (out[0].alpha <= 0.2))
        np.testing.assert_allclose(out[0].alpha, out[1].alpha, atol=1e-6)
        np.testing.assert_allclose(out[0].solution.kernel, out[1].solution.kernel, atol=1e-6)


# ---------------------------------------------------------------------------
# constraints and active selection
# ---------------------------------------------------------------------------

def test_draw_constraints_follows_protocol():
    y = np.repeat([0, 1, 2], 40)
    n = len(y)
    ml, cl = draw_constraints(y, 0.25, 7)
    ml2, cl2 = draw_constraints(y, 0.25, 7)
    np.testing.assert_array_equal(ml, ml2)
    np.testing.assert_array_equal(cl, cl2)
    assert not np.array_equal(draw_constraints(y, 0.25, 8)[0], ml)
    assert np.all(y[ml[:, 0]] == y[ml[:, 1]]) and np.all(y[cl[:, 0]] != y[cl[:, 1]])
    allp = np.vstack([ml, cl])
    assert np.all(allp[:, 0] < allp[:, 1])
    assert len(np.unique(allp, axis=0)) == len(allp)
    # must-link graph has exactly round((1 - f) n) components (stop rule)
    from scipy.sparse.csgraph import connected_components
    G = sp.coo_array((np.ones(len(ml)), (ml[:, 0], ml[:, 1])), shape=(n, n))
    assert connected_components(G, directed=False)[0] == round(0.75 * n)
    # drawing stops at the target: the last must-link is the merge that reached it
    ncomp_without_last = connected_components(
        sp.coo_array((np.ones(len(ml) - 1), (ml[:-1, 0], ml[:-1, 1])), shape=(n, n)),
        directed=False)[0]
    assert ncomp_without_last == round(0.75 * n) + 1


def test_active_selection_keeps_constraints_of_least_certain_points():
    X, y = make_spiral(150, random_state=6)
    full = SimpleNPKL(loss="linear", constraint_fraction=0.3, random_state=0).fit(X, y)
    k = 8
    act = SimpleNPKL(loss="linear", constraint_fraction=0.3, active_selection=k,
                     random_state=0).fit(X, y)
    assert act.n_constraints_ < full.n_constraints_
    assert act.n_constraints_ == act.active_constraints_.sum()
    assert len(act.must_link_) + len(act.cannot_link_) == act.n_constraints_
    # recompute the margins from a dense linear-loss kernel with all constraints
    pairs, signs = act.constraint_pairs_, act.constraint_signs_
    n = len(X)
    T = constraint_matrix(n, pairs[signs > 0], pairs[signs < 0]).toarray()
    K = simple_npkl_closed_form(T, act.laplacian_, C=act.C, B=act.B, p=act.p,
                                eigen_solver="dense").kernel
    num = (T * K).sum(1)
    cnt = (T != 0).sum(1)
    margin = np.where(cnt > 0, np.abs(num / np.maximum(cnt, 1)), np.inf)
    chosen = np.sort(np.argsort(margin, kind="stable")[:k])
    np.testing.assert_array_equal(act.active_points_, chosen)
    keep = np.isin(pairs[:, 0], chosen) | np.isin(pairs[:, 1], chosen)
    np.testing.assert_array_equal(act.active_constraints_, keep)
    # selecting more points than are constrained keeps everything
    many = SimpleNPKL(loss="linear", constraint_fraction=0.3, active_selection=10_000,
                      random_state=0).fit(X, y)
    assert many.n_constraints_ == full.n_constraints_


def test_explicit_constraints_are_used_and_canonicalised():
    X, y = make_spiral(60, random_state=0)
    ml = np.array([[5, 1], [1, 5], [10, 20]])
    cl = [[0, 59], [30, 3]]
    est = SimpleNPKL(loss="square_hinge", random_state=0).fit(
        X, y, must_link=ml, cannot_link=cl)
    np.testing.assert_array_equal(est.must_link_, [[1, 5], [10, 20]])
    np.testing.assert_array_equal(est.cannot_link_, [[0, 59], [3, 30]])
    assert est.n_constraints_ == 4
    # must-links only is fine too (y not needed)
    est2 = SimpleNPKL().fit(X, must_link=ml)
    assert est2.n_constraints_ == 2 and len(est2.cannot_link_) == 0


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("loss", ["linear", "square_hinge", "hinge", "square"])
def test_fitted_attributes_are_consistent(loss):
    X, y = make_spiral(120, random_state=1)
    est = SimpleNPKL(loss=loss, p=2.0, B=3.0, random_state=0).fit(X, y)
    K = est.kernel_
    np.testing.assert_allclose(est.embedding_ @ est.embedding_.T, K, atol=1e-12)
    w = np.sort(np.linalg.eigvalsh(K))[::-1]
    np.testing.assert_allclose(w[: est.eigenvalues_.size], est.eigenvalues_, atol=1e-10)
    assert np.all(np.abs(w[est.eigenvalues_.size:]) < 1e-10)
    assert _tr_power(K, 2.0) == pytest.approx(3.0, rel=1e-8)
    assert est.labels_.dtype == np.int64 and est.labels_.shape == (120,)
    assert set(np.unique(est.labels_)) <= {0, 1}
    np.testing.assert_array_equal(est.fit_predict(X, y), est.labels_)
    assert est.n_iter_ == len(est.history_["objective"]) >= 1
    assert est.alpha_.shape == (est.n_constraints_,)
    assert est.embedding_.shape[1] >= 2


@pytest.mark.parametrize("p", [1.0001, 1.05, 50.0])
def test_extreme_p_stays_finite_and_feasible(p):
    """lambda ~ sigma^(1/(p-1)) over/underflows for p near 1 unless computed in a
    scale-free way."""
    X, y = make_spiral(100, random_state=0)
    est = SimpleNPKL(loss="square_hinge", p=p, random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.kernel_)) and np.all(est.eigenvalues_ > 0)
    assert np.sum(est.eigenvalues_ ** p) == pytest.approx(1.0, rel=1e-8)


@pytest.mark.parametrize("loss", ["linear", "square_hinge"])
@pytest.mark.parametrize("seed", [0, 1])
def test_constraints_beat_kmeans_on_spiral(loss, seed):
    """The paper's Table 2: with pairwise constraints SimpleNPKL clusters the two spirals,
    which plain k-means on the raw points cannot (Rand index ~ 0.5)."""
    X, y = make_spiral(200, random_state=seed)
    km = KMeans(n_clusters=2, n_init=10, random_state=0).fit_predict(X)
    est = SimpleNPKL(loss=loss, constraint_fraction=0.1, random_state=0).fit(X, y)
    ri, ri_km = clustering_accuracy(y, est.labels_), clustering_accuracy(y, km)
    assert ri_km < 0.6
    assert ri > ri_km + 0.25


def test_chessboard_seed_protocol_table2():
    """The paper's Table 2, chessboard (n = 100, r = 70% i.e. constraint_fraction = 0.3):
    SimpleNPKL 58.8-60.2 vs k-means 49.8. Averaged over draws, as the seed does."""
    ri, ri_km = [], []
    for seed in range(8):
        X, y = make_chessboard(100, random_state=seed)
        est = SimpleNPKL(C=0.3, constraint_fraction=0.3, random_state=seed).fit(X, y)
        ri.append(clustering_accuracy(y, est.labels_))
        km = KMeans(n_clusters=2, n_init=10, random_state=0).fit_predict(X)
        ri_km.append(clustering_accuracy(y, km))
    assert np.mean(ri_km) < 0.52
    assert np.mean(ri) > np.mean(ri_km) + 0.04


def test_iris_table4_insensitive_to_B():
    """The paper's Table 4 (Iris, square hinge, p = 2): ~95% clustering accuracy, nearly the
    same for every capacity B; larger B takes more iterations."""
    X, y = load_iris(return_X_y=True)
    acc, iters = {}, {}
    for B in (1.0, 4.0):
        runs = [SimpleNPKL(loss="square_hinge", C=0.1, B=B, n_clusters=3,
                           constraint_fraction=0.3, random_state=s).fit(X, y)
                for s in range(4)]
        acc[B] = np.mean([clustering_accuracy(y, e.labels_) for e in runs])
        iters[B] = np.mean([e.n_iter_ for e in runs])
    assert acc[1.0] > 0.9 and abs(acc[1.0] - acc[4.0]) < 0.02
    assert iters[4.0] >= iters[1.0]


def test_clustering_accuracy_is_rand_index():
    a = np.array([0, 0, 1, 1, 2])
    b = np.array([1, 1, 0, 0, 0])
    n = len(a)
    agree = sum((a[i] == a[j]) == (b[i] == b[j]) for i in range(n) for j in range(i))
    assert clustering_accuracy(a, b) == pytest.approx(agree / (n * (n - 1) / 2))


def test_sklearn_clustering_check_with_labels():
    """check_clustering's content (skipped below because it calls fit(X) without y),
    run with the labels passed."""
    X, y = make_blobs(n_samples=50, random_state=1)
    X = (X - X.mean(0)) / X.std(0)
    est = SimpleNPKL(n_clusters=3, constraint_fraction=0.3, random_state=0)
    pred = est.fit(X, y).labels_
    assert adjusted_rand_score(pred, y) > 0.4
    np.testing.assert_array_equal(pred, est.fit_predict(X, y))


def test_callback_stop_and_convergence_warning():
    X, y = make_spiral(100, random_state=0)
    seen = []

    def cb(it, state, elapsed):
        seen.append((it, set(state), elapsed))
        return it >= 1

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = SimpleNPKL(loss="square_hinge", tol=1e-14, callback=cb, random_state=0)
        est.fit(X, y)
    assert [s[0] for s in seen] == [0, 1]
    assert all({"objective", "alpha", "kernel", "gap"} <= s[1] for s in seen)
    assert est.n_iter_ == 2 and not est.converged_
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        est = SimpleNPKL(loss="square", tol=1e-14, max_iter=3, random_state=0).fit(X, y)
    assert est.n_iter_ == 3 and not est.converged_


def test_deterministic_given_random_state():
    X, y = make_spiral(120, random_state=3)
    a = SimpleNPKL(loss="square_hinge", random_state=5).fit(X, y)
    b = SimpleNPKL(loss="square_hinge", random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.must_link_, b.must_link_)
    np.testing.assert_allclose(a.kernel_, b.kernel_)
    np.testing.assert_array_equal(a.labels_, b.labels_)


BAD_PARAMS = [
    (dict(B=0.0), "B"), (dict(B=-1.0), "B"), (dict(p=1.0), "p"), (dict(p=0.5), "p"),
    (dict(C=0.0), "C"), (dict(C=-2.0), "C"), (dict(n_neighbors=0), "n_neighbors"),
    (dict(n_neighbors=30), "n_neighbors"), (dict(loss="logistic"), "loss"),
    (dict(constraint_fraction=0.0), "constraint_fraction"),
    (dict(constraint_fraction=1.5), "constraint_fraction"),
    (dict(active_selection=0), "active_selection"), (dict(step_size="big"), "step_size"),
    (dict(G=-1.0), "G"), (dict(eigen_solver="lobpcg"), "eigen_solver"),
    (dict(n_clusters=31), "n_clusters"),
]


@pytest.mark.parametrize(("params", "name"), BAD_PARAMS)
def test_bad_parameters_raise(params, name):
    X, y = make_spiral(30, random_state=0)
    with pytest.raises(ValueError, match=name):
        SimpleNPKL(**params).fit(X, y)


def test_bad_data_and_constraints_raise():
    X, y = make_spiral(30, random_state=0)
    Xbad = X.copy()
    Xbad[2, 0] = np.inf
    with pytest.raises(ValueError, match="(?i)infinity|nan"):
        SimpleNPKL().fit(Xbad, y)
    with pytest.raises(ValueError, match="do not exist"):
        SimpleNPKL().fit(X, must_link=[[0, 30]])
    with pytest.raises(ValueError, match="do not exist"):
        SimpleNPKL().fit(X, cannot_link=[[-1, 3]])
    with pytest.raises(ValueError, match="Contradictory"):
        SimpleNPKL().fit(X, must_link=[[1, 2], [3, 4]], cannot_link=[[4, 3]])
    with pytest.raises(ValueError, match="self-pair"):
        SimpleNPKL().fit(X, must_link=[[5, 5]])
    with pytest.raises(ValueError, match="shape"):
        SimpleNPKL().fit(X, must_link=[1, 2, 3])
    with pytest.raises(ValueError, match="integer"):
        SimpleNPKL().fit(X, must_link=[[0.5, 2]])
    with pytest.raises(ValueError, match="requires y"):
        SimpleNPKL().fit(X)
    with pytest.raises(ValueError, match="no pairwise constraints"):
        SimpleNPKL().fit(X, must_link=np.zeros((0, 2), int))
    with pytest.raises(ValueError, match="no pairwise constraints"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "y could be a regression target"
        SimpleNPKL().fit(X, np.arange(30))  # every point its own class: no must-link
    with pytest.raises(ValueError, match="labels"):
        SimpleNPKL().fit(X, y[:-1])


@parametrize_with_checks(
    [SimpleNPKL(random_state=0), SimpleNPKL(loss="square_hinge", random_state=0)],
    expected_failed_checks=lambda est: {
        # SimpleNPKL learns from pairwise constraints: fit(X) without y or pairs has
        # nothing to learn from and raises ValueError by design. The same check is run
        # with labels in test_sklearn_clustering_check_with_labels.
        "check_clustering": "fit(X) without y or pairs raises by design",
    },
)
@pytest.mark.slow
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # tiny random data sets can make the learned kernel 0 (a RuntimeWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_knn_laplacian_is_scale_free_at_extreme_magnitudes(scale):
    """The neighbour graph depends only on the order of distances, so data scaled by
    1e300 (whose squared distances overflow) or 1e-300 (underflow) give the graph of the
    unit-scale data instead of a NumPy reshape error."""
    X, _ = make_spiral(n_samples=60, random_state=0)
    L_ref = knn_laplacian(X, 5).toarray()
    L = knn_laplacian(X * scale, 5).toarray()
    np.testing.assert_allclose(L, L_ref, atol=1e-12)
    y = np.r_[np.zeros(30), np.ones(30)]
    est = SimpleNPKL(n_clusters=2, random_state=0).fit(X * scale, y)
    assert np.all(np.isfinite(est.kernel_))
