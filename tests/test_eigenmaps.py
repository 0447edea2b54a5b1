"""Eigenfunction maps: the Nyström identity at the training points,
orthogonality, learned == plain when F is all-ones, the sign convention, a slow dense
reference for the fast path, null eigenvalues, and the figure builders' numbers."""

import numpy as np
import pytest
from _app_pages import open_page
from _components import figure_of

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.figures import common as fgc
from nplk_lab.model import eigenmaps as em

MB = 0.5 * 1024 * 1024


@pytest.fixture(autouse=True)
def validated_figures(monkeypatch):
    monkeypatch.setattr(fgc, "VALIDATE", True)


def _data(n=80, dataset="clowns", seed=0):
    P = {**lab.defaults(), "dataset": dataset, "n_samples": n, "seed": seed}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    return data


@pytest.fixture(scope="module")
def data():
    return _data()


def _fit(data, method, **params):
    P = {**lab.defaults(), "sigma": 1.0, "C": 10.0, **params}
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    assert res.ok, [m.text for m in res.messages]
    return res


@pytest.fixture(scope="module")
def dank(data):
    return _fit(data, "dank", tau=0.05)


def _gaussian(A, B, sigma):
    """k(a, b) written out pointwise (independent of nplk_core.kernels)."""
    out = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            out[i, j] = np.exp(-np.sum((a - b) ** 2) / (2 * sigma ** 2))
    return out


def _dense_pairs(M):
    """Reference eigenpairs (descending) by numpy's dense solver."""
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    return w[::-1], V[:, ::-1]


def _separated(w, count, rel=1e-6):
    """Indices (0-based) among the leading ``count`` whose eigenvalue is simple (a gap
    of ``rel`` times the largest to both neighbours) and well above zero: their
    eigenvectors are unique up to sign. Never empty (else the test would check
    nothing)."""
    top = w[0]
    out = []
    for i in range(count):
        gaps = [abs(w[i] - w[k]) for k in (i - 1, i + 1) if 0 <= k < len(w)]
        if w[i] > 1e-6 * top and min(gaps) > rel * top:
            out.append(i)
    assert out, w[:count]
    return out


# ---------------------------------------------------------------------------
# the Nyström identity and orthogonality at the training points
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rule", ["nearest", "reciprocal"])
def test_eigenfunctions_at_the_training_points_are_the_eigenvectors(dank, rule):
    X = dank.X_train
    n = len(X)
    idx = tuple(range(1, 7))
    maps = em.eigenfunction_maps(dank, X, idx, extension=rule)
    assert maps.names == ("F × K", "F", "K") and maps.rule == rule
    K = _gaussian(X, X, 1.0)
    F = dank.estimator.F_
    for name, M in (("F × K", F * K), ("F", F), ("K", K)):
        w, V = _dense_pairs(M)
        np.testing.assert_allclose(maps.values[name], w[:6], rtol=1e-8, atol=1e-10 * w[0])
        for i in _separated(w, 6):
            if maps.null[name][i]:
                continue
            phi = maps.maps[name][i]
            u = V[:, i]
            scale = phi @ u  # ±1: the eigenfunction equals the eigenvector up to sign
            assert abs(abs(scale) - 1.0) < 1e-8, (name, i, scale)
            np.testing.assert_allclose(phi, scale * u, atol=1e-8)
    assert all(m.shape == (6, n) for m in maps.maps.values())


def test_extended_functions_are_orthonormal_at_the_training_points(dank):
    maps = em.eigenfunction_maps(dank, dank.X_train, range(1, 7), extension="nearest")
    for name in maps.names:
        keep = ~maps.null[name]
        Phi = maps.maps[name][keep]
        np.testing.assert_allclose(Phi @ Phi.T, np.eye(keep.sum()), atol=1e-8)
    # F has rank 2..4 here: its trailing eigenvalues are null, drawn as zeros
    assert maps.null["F"].any() and not maps.null["K"].any()
    assert np.all(maps.maps["F"][maps.null["F"]] == 0.0)


@pytest.mark.parametrize("method, names", [("knpl", ("G × K", "G", "K")),
                                           ("onk", ("G", "K")), ("svm", ("K",))])
@pytest.mark.slow
def test_other_methods_obey_the_identity(data, method, names):
    ok, _ = lab.available(method)
    if not ok:
        pytest.skip(f"{method} not available")
    res = _fit(data, method, onk_rho=1.0)
    maps = em.eigenfunction_maps(res, res.X_train, range(1, 5))
    assert maps.names == names
    K = _gaussian(res.X_train, res.X_train, 1.0)
    learned = {"knpl": lambda: res.matrix * K, "onk": lambda: res.matrix,
               "svm": lambda: K}[method]()
    w, V = _dense_pairs(learned)
    i = _separated(w, 4)[0]
    phi = maps.maps[names[0]][i]
    np.testing.assert_allclose(np.abs(phi), np.abs(V[:, i]), atol=1e-8)


# ---------------------------------------------------------------------------
# F = all-ones: the learned kernel is the plain one
# ---------------------------------------------------------------------------

def test_all_ones_F_gives_the_plain_eigenfunctions(data):
    res = _fit(data, "dank", eta=1e9, tau=1e-6)
    F = res.estimator.F_
    assert np.max(np.abs(F - 1.0)) < 1e-6
    grid = lab.make_grid(data.X, 30)
    for rule in ("nearest", "reciprocal", "smooth"):
        maps = em.eigenfunction_maps(res, grid.points, range(1, 5), extension=rule)
        for i in range(4):
            a, b = maps.maps["F × K"][i], maps.maps["K"][i]
            assert np.max(np.abs(a - b)) < 1e-3 * np.max(np.abs(b)), (rule, i)
        np.testing.assert_allclose(maps.values["F × K"], maps.values["K"], rtol=1e-3)
        # F ≈ 11ᵀ: one eigenvalue n, φ₁ ≈ the constant 1/√n, the rest in the null space
        assert maps.values["F"][0] == pytest.approx(len(data.X_train), rel=1e-3)
        np.testing.assert_allclose(maps.maps["F"][0], 1 / np.sqrt(len(data.X_train)),
                                   rtol=1e-3)


# ---------------------------------------------------------------------------
# signs
# ---------------------------------------------------------------------------

def test_sign_convention_makes_the_largest_entry_positive_and_is_idempotent():
    rng = np.random.default_rng(1)
    U = rng.normal(size=(30, 5))
    S = em.fix_signs(U)
    for c in range(5):
        assert S[np.argmax(np.abs(S[:, c])), c] > 0
        assert np.array_equal(np.abs(S[:, c]), np.abs(U[:, c]))
    np.testing.assert_array_equal(em.fix_signs(-U), S)
    np.testing.assert_array_equal(em.fix_signs(S), S)
    # two entries of equal size (the symmetric case): the first one decides, whatever
    # rounding does to the second
    v = np.array([[0.5], [-0.5 * (1 + 1e-12)], [0.1]])
    assert em.fix_signs(v)[0, 0] > 0 and em.fix_signs(-v)[0, 0] > 0


def test_signs_are_stable_between_reruns_and_eigensolvers(data, dank):
    again = _fit(data, "dank", tau=0.05)
    grid = lab.make_grid(data.X, 25)
    a = em.eigenfunction_maps(dank, grid.points, range(1, 7))
    b = em.eigenfunction_maps(again, grid.points, range(1, 7))
    for name in a.names:
        np.testing.assert_allclose(a.maps[name], b.maps[name], atol=1e-10)
    # Lanczos (the route above FULL_EIGH_N) and dense LAPACK give the same signs
    K = again.kernel
    dense = em.leading_eigenpairs(K, 5)
    old = em.FULL_EIGH_N
    try:
        em.FULL_EIGH_N = 0
        lanczos = em.leading_eigenpairs(K, 5)
    finally:
        em.FULL_EIGH_N = old
    for i in _separated(dense.values, 5):
        np.testing.assert_allclose(lanczos.vectors[:, i], dense.vectors[:, i], atol=1e-8)


# ---------------------------------------------------------------------------
# the fast path against a slow dense reference
# ---------------------------------------------------------------------------

def _reciprocal_slow(X_train, X_new):
    """DANK §2.3 written out: r = rank of the new point among the new points by
    distance to training point i, s = rank of i among the training points by distance
    to the new point; j* = argmin r·s, ties to the smaller s."""
    n, m = len(X_train), len(X_new)
    D = np.array([[np.sum((a - b) ** 2) for b in X_new] for a in X_train])
    out = np.empty(m, dtype=int)
    for j in range(m):
        best = None
        for i in range(n):
            r = 1 + sum(D[i, q] < D[i, j] or (D[i, q] == D[i, j] and q < j)
                        for q in range(m) if q != j)
            s = 1 + sum(D[p, j] < D[i, j] or (D[p, j] == D[i, j] and p < i)
                        for p in range(n) if p != i)
            key = (r * s, s)
            if best is None or key < best[0]:
                best = (key, i)
        out[j] = best[1]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["nearest", "reciprocal", "smooth"])
def test_fast_maps_match_a_slow_dense_reference(rule):
    data = _data(n=40)
    res = _fit(data, "dank", tau=0.05)
    X = res.X_train
    grid = lab.make_grid(data.X, 9)
    pts = grid.points
    F = res.estimator.F_
    if rule == "nearest":
        taken = F[[np.argmin([np.sum((p - x) ** 2) for x in X]) for p in pts]]
    elif rule == "reciprocal":
        taken = F[_reciprocal_slow(X, pts)]
    else:   # the smooth rule at width σ = 1: each point's Gaussian-weighted mean row of F
        taken = np.array([sum(np.exp(-np.sum((p - x) ** 2) / 2) * F[i]
                              for i, x in enumerate(X))
                          / sum(np.exp(-np.sum((p - x) ** 2) / 2) for x in X) for p in pts])
    K = _gaussian(X, X, 1.0)
    Kx = _gaussian(pts, X, 1.0)
    idx = (1, 2, 3, 5)
    fast = em.eigenfunction_maps(res, pts, idx, extension=rule)
    for name, M, rows in (("F × K", F * K, taken * Kx), ("K", K, Kx), ("F", F, taken)):
        w, V = _dense_pairs(M)
        for r, j in enumerate(idx):
            if w[j - 1] <= 1e-10 * w[0]:
                assert fast.null[name][r] and np.all(fast.maps[name][r] == 0)
                continue
            u = V[:, j - 1]
            u = u * np.sign(u[np.argmax(np.abs(u))])
            ref = np.array([sum(rows[p, i] * u[i] for i in range(len(X))) / w[j - 1]
                            for p in range(len(pts))])
            np.testing.assert_allclose(fast.maps[name][r], ref, atol=1e-8 * np.abs(ref).max())


def test_maps_reuse_given_distances_and_columns(dank):
    from nplk_core.kernels import squared_distances
    grid = lab.make_grid(dank.X_train, 20)
    D = squared_distances(grid.points, dank.X_train)
    cols = em.rule_columns("reciprocal", grid.points, dank.X_train)
    a = em.eigenfunction_maps(dank, grid.points, (1, 2), extension="reciprocal")
    b = em.eigenfunction_maps(dank, grid.points, (1, 2), extension="reciprocal",
                              sqdist=D, columns=cols)
    for name in a.names:
        np.testing.assert_allclose(a.maps[name], b.maps[name], atol=1e-12)


# ---------------------------------------------------------------------------
# null eigenvalues, indices, bad input
# ---------------------------------------------------------------------------

def test_null_eigenvalues_are_flagged_and_never_divided():
    M = np.ones((5, 5))                     # eigenvalues 5, 0, 0, 0, 0
    p = em.leading_eigenpairs(M, 5)
    assert p.values[0] == pytest.approx(5.0)
    assert p.null.tolist() == [False, True, True, True, True]
    rows = np.random.default_rng(0).normal(size=(7, 5))
    out = em.nystrom(rows, p)
    assert np.all(np.isfinite(out)) and np.all(out[:, 1:] == 0)
    np.testing.assert_allclose(out[:, 0], rows @ p.vectors[:, 0] / 5.0)
    zero = em.leading_eigenpairs(np.zeros((3, 3)), 2)
    assert zero.null.all() and np.all(em.nystrom(np.ones((2, 3)), zero) == 0)


def test_indices_and_bad_input():
    assert em.map_indices(2, 100) == (1, 2, 3, 4, 5, 6)
    assert em.map_indices(9, 100) == (1, 2, 3, 4, 5, 6, 9)
    assert em.map_indices(500, 40) == (1, 2, 3, 4, 5, 6, 40)
    assert em.map_indices(0, 3) == (1, 2, 3)
    with pytest.raises(ValueError, match="square"):
        em.leading_eigenpairs(np.ones((2, 3)), 1)
    with pytest.raises(ValueError, match="non-finite"):
        em.leading_eigenpairs(np.array([[np.nan]]), 1)
    with pytest.raises(ValueError, match="rule"):
        em.rule_columns("farthest", np.zeros((1, 2)), np.zeros((2, 2)))


def test_a_click_picks_the_nearest_index_and_ignores_junk():
    pick = em.index_from_clicks
    # x rounds to the nearest index; the newest click wins; ids up to `seen` are old
    assert pick([{"id": 5, "x": 2.4, "y": 1.0}], 140) == (2, 5.0)
    assert pick([{"id": 5, "x": 2.6, "y": 1.0}, {"id": 9, "x": 7.2, "y": 0}], 140) == (7, 9.0)
    assert pick([{"id": 9, "x": 7.2}, {"id": 5, "x": 2.6}], 140) == (7, 9.0)
    assert pick([{"id": 5, "x": 3.0}], 140, seen=5.0) == (None, 5.0)
    # clipped to 1 … n (a click left of the first marker or right of the last)
    assert pick([{"id": 1, "x": -3.0}], 10) == (1, 1.0)
    assert pick([{"id": 1, "x": 1e9}], 10) == (10, 1.0)
    # malformed payloads pick nothing
    for junk in (None, "x", 3, [None], [{"x": 2}], [{"id": "a", "x": 2}],
                 [{"id": 1, "x": float("nan")}], [{"id": float("inf"), "x": 1}]):
        assert pick(junk, 10) == (None, 0.0), junk
    assert pick([{"id": 1, "x": 2}], 0) == (None, 0.0)


def test_eigenpairs_are_kept_on_the_result(dank):
    first = em.eigen_bases(dank, 3)
    again = em.eigen_bases(dank, 2)
    assert again["K"].vectors.base is first["K"].vectors.base or np.shares_memory(
        again["K"].vectors, dank._lazy["eigenpairs"]["K"].vectors)
    more = em.eigen_bases(dank, 12)
    assert more["K"].count == 12


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------

def test_eigenfunction_figure_numbers(dank, data):
    grid = lab.make_grid(data.X)
    idx = em.map_indices(2, len(dank.X_train))
    maps = em.eigenfunction_maps(dank, grid.points, idx)
    fig = fg.eigenfunction_figure(grid.xs, grid.ys, maps.maps, maps.values, maps.indices, 2,
                                  null=maps.null, X=dank.X_train, y=data.y_train,
                                  subtitle=em.describe(maps, 2))
    heat = [t for t in fig.data if t.type == "heatmap"]
    # three large maps (F∘K, F, K) and 3 × 6 small multiples
    assert len(heat) == 3 + 18
    big = heat[0]
    z = np.asarray(big.z, dtype=float)
    np.testing.assert_allclose(z, maps.maps["F × K"][1].reshape(grid.shape), rtol=1e-6,
                               atol=1e-6 * np.abs(z).max())
    assert big.zmid == 0 and big.zmin == -big.zmax
    assert big.zmax == pytest.approx(np.abs(z).max(), rel=1e-6)
    # a small multiple: int8 levels of ± its own largest magnitude, every other node
    small = heat[3]
    zs = np.asarray(small.z)
    assert zs.dtype == np.int8 and np.abs(zs).max() == 127 and zs.shape == (50, 50)
    ref = maps.maps["F × K"][0].reshape(grid.shape)[::2, ::2]
    np.testing.assert_allclose(zs / 127, ref / np.abs(ref).max(), atol=0.5 / 127 + 1e-9)
    texts = [a.text for a in fig.layout.annotations]
    assert "F × K: j = 2, eigenvalue λ₂ = " + f"{maps.values['F × K'][1]:.3g}" in texts
    assert any(t.startswith("j = 6") for t in texts)
    assert "Eigenfunction j = 2" in fig.layout.title.text
    # the selected small multiple is framed; the others are not
    framed = [k for k in fig.layout if k.startswith("xaxis") and fig.layout[k].linewidth == 3]
    assert len(framed) == 3
    # null eigenvalues of F are said to be so
    if maps.null["F"].any():
        assert any("null space" in t for t in texts)
    assert fgc.figure_nbytes(fig) < MB


def test_eigenfunction_figure_selected_beyond_the_leading_and_on_a_line():
    xs = np.linspace(0, 1, 50)
    idx = (1, 2, 3, 9)
    maps = {"K": np.vstack([np.cos(k * np.pi * xs) for k in idx])}
    vals = {"K": np.array([4.0, 2.0, 1.0, 0.0])}
    null = {"K": np.array([False, False, False, True])}
    fig = fg.eigenfunction_figure(xs, None, maps, vals, idx, 9, null=null, leading=3)
    lines = [t for t in fig.data if t.type == "scatter"]
    assert len(lines) == 1 + 3           # the selected (large) and the three leading
    np.testing.assert_allclose(np.asarray(lines[0].y), maps["K"][3], atol=1e-6)
    texts = [a.text for a in fig.layout.annotations]
    assert "K: j = 9, eigenvalue λ₉ ≈ 0 (null space)" in texts
    with pytest.raises(ValueError, match="not among"):
        fg.eigenfunction_figure(xs, None, maps, vals, idx, 4)


def test_mark_eigenvalue_rings_each_spectrum_and_leaves_the_figure_alone():
    lam = {"K": np.array([5.0, 2.0, 1.0, 0.5]), "F": np.array([4.0, 1.0, 1e-20, 0.0])}
    fig = fg.spectra_figure(lam, rank=2)
    before = fig.to_json()
    marked = fg.mark_eigenvalue(fig, 2)
    assert fig.to_json() == before
    ring = marked.data[-1]
    assert ring.name == "selected j = 2"
    np.testing.assert_allclose(ring.x, [2, 2])
    np.testing.assert_allclose(sorted(ring.y), [1.0, 2.0])
    assert marked.layout.shapes[-1].x0 == 2 and marked.layout.shapes[-1].line.dash == "dot"
    assert any(a.text == "selected j = 2" for a in marked.layout.annotations)
    # λ₃ of F is below the drawn floor: only K gets a ring there
    assert list(fg.mark_eigenvalue(fig, 3).data[-1].y) == [1.0]


# ---------------------------------------------------------------------------
# the view on the pages (AppTest)
# ---------------------------------------------------------------------------

def _titles(at):
    figs = [figure_of(e) for e in at.get("bidi_component")]
    return [(f["layout"].get("title") or {}).get("text", "") for f in figs if f]


def _url(at, name):
    v = at.query_params.get(name)
    return v[-1] if isinstance(v, list) else v


@pytest.mark.slow
def test_classification_eigen_view_follows_the_index_and_the_url():
    at = open_page("pages/1_Classification.py", view="spectra", eigen_index=3, n_samples=60)
    titles = _titles(at)
    assert "Eigenfunction j = 3 of F × K, F and K" in titles
    assert any(t.startswith("Eigen-decay") for t in titles)
    box = at.number_input(key="w_eigen_index")
    assert box.value == 3 and box.max == 42     # 60 points, 30 % held out
    box.set_value(5).run()
    assert "Eigenfunction j = 5 of F × K, F and K" in _titles(at)
    assert _url(at, "eigen_index") == "5"
    # a plain SVM has only K; an index beyond n is clipped to n
    at.selectbox(key="w_method").set_value("svm").run()
    assert "Eigenfunction j = 5 of K" in _titles(at)
    at2 = open_page("pages/1_Classification.py", view="spectra", eigen_index=900, n_samples=60,
                method="svm")
    assert "Eigenfunction j = 42 of K" in _titles(at2)


@pytest.mark.slow
def test_regression_eigen_view_draws_curves_on_the_line():
    at = open_page("pages/2_Regression.py", reg_view="spectra", eigen_index=2, n_samples=60)
    titles = _titles(at)
    assert "Eigenfunction j = 2 of F × K, F and K" in titles, titles
    fig = next(f for f in (figure_of(e) for e in at.get("bidi_component"))
               if f and f["layout"].get("title", {}).get("text", "").startswith("Eigenfunction"))
    assert {t["type"] for t in fig["data"]} == {"scatter"}     # 1-D data: curves
