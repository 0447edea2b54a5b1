"""A training point's learned influence: the maps against closed forms and a
slow dense reference, the decision function rebuilt from them, the LAB RBF ellipse, the
click picking, the figures, and the page (AppTest).

The maps are checked where they have a closed form: at xᵢ itself F̃(xᵢ, xᵢ)·k(xᵢ, xᵢ)
= F̃(xᵢ, xᵢ); at the training points (nearest rule) the row of F∘K; with F = 11ᵀ the
plain kernel. Independently, Σᵢ uᵢ k̃(xᵢ, x) + b must be the model's own decision
function at every evaluation point: the learned map is exactly the kernel it predicts
with.
"""

import copy
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _app_pages import live_figures, open_page

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.figures import common as fgc
from nplk_lab.figures import influence as fgi
from nplk_lab.figures import matrices as fgm
from nplk_lab.model.influence import (
    influence_basis,
    nearest_point,
    point_from_clicks,
    row_from_clicks,
)

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def validated_figures(monkeypatch):
    monkeypatch.setattr(fgc, "VALIDATE", True)


def _data(n=60, task=lab.CLASSIFICATION, **kw):
    data, _ = lab.prepare_data({**lab.defaults(), "n_samples": n, **kw}, task)
    return data


def _fit(method, data, **params):
    P = {**lab.defaults(), **params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                             method=method)
    assert res.ok, res.messages
    return res


@pytest.fixture(scope="module")
def toy():
    return _data()


@pytest.fixture(scope="module")
def fits(toy):
    # σ = 1: the kernel is local enough for F to matter at this size
    return {m: _fit(m, toy, sigma=1.0, C=1.0) for m in
            ("dank", "knpl", "onk", "svm", "mkl_uniform", "lab_rbf")}


def _grid_with(X, i, res=12):
    """A small grid over the data plus the training point ``i`` itself (last row)."""
    g = lab.make_grid(X, res)
    return np.vstack([g.points, X[i]])


# ---------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("rule", ["nearest", "reciprocal"])
def test_the_map_at_the_points_own_position_is_F_tilde_times_k(fits, toy, rule):
    from nplk_core.dank import reciprocal_index

    est = fits["dank"].estimator
    X = toy.X_train
    for i in (0, 7, len(X) - 1):
        pts = _grid_with(X, i)
        inf = influence_basis(est, "dank", X, pts, extension=rule).at(i)
        col = i if rule == "nearest" else int(reciprocal_index(X, pts)[-1])
        assert inf.plain[-1] == pytest.approx(1.0, abs=1e-15)          # k(xᵢ, xᵢ) = 1
        assert inf.learned[-1] == pytest.approx(est.F_[i, col] * 1.0, rel=1e-13)
        assert inf.change[-1] == pytest.approx(est.F_[i, col], rel=1e-13)


def test_knpl_and_onk_at_the_points_own_position(fits, toy):
    X = toy.X_train
    knpl, onk = fits["knpl"].estimator, fits["onk"].estimator
    u = onk.dual_coef_
    for i in (3, 11):
        pts = _grid_with(X, i)
        assert influence_basis(knpl, "knpl", X, pts).at(i).learned[-1] == pytest.approx(
            knpl.G_[i, i], rel=1e-13)
        # ONK: G_ii = K_ii + u_i²/(2ρ) = 1 + u_i²/(2ρ)
        assert influence_basis(onk, "onk", X, pts).at(i).learned[-1] == pytest.approx(
            1.0 + u[i] ** 2 / (2.0 * onk.rho), rel=1e-13)


@pytest.mark.parametrize("method, row", [
    ("dank", lambda e: e.F_ * e.K_), ("knpl", lambda e: e.G_ * e.K_),
    ("onk", lambda e: e.G_)])
def test_at_the_training_points_the_map_is_the_row_of_the_learned_kernel(fits, toy, method,
                                                                        row):
    est = fits[method].estimator
    X = toy.X_train
    basis = influence_basis(est, method, X, X, extension="nearest")
    M = row(est)
    for i in range(0, len(X), 5):
        np.testing.assert_allclose(basis.at(i).learned, M[i], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(basis.at(i).plain, est.K_[i], rtol=1e-12, atol=1e-15)


def test_F_all_ones_gives_the_plain_kernel(toy):
    X = toy.X_train
    res = _fit("dank", toy, sigma=1.0, C=1.0, eta=1e5)   # η → ∞: F → 11ᵀ
    est = res.estimator
    pts = lab.make_grid(X, 20).points
    assert np.abs(est.F_ - 1.0).max() < 1e-3
    inf = influence_basis(est, "dank", X, pts, extension="nearest").at(4)
    np.testing.assert_allclose(inf.learned, inf.plain, rtol=1e-3)
    exact = copy.copy(est)
    exact.F_ = np.ones_like(est.F_)
    for rule in ("nearest", "reciprocal"):
        inf = influence_basis(exact, "dank", X, pts, extension=rule).at(4)
        np.testing.assert_array_equal(inf.learned, inf.plain)
        np.testing.assert_array_equal(inf.change, 1.0)
    # the smooth rule: a weighted average of rows of ones (the weights sum to 1)
    inf = influence_basis(exact, "dank", X, pts, extension="smooth").at(4)
    np.testing.assert_allclose(inf.change, 1.0, rtol=0, atol=1e-14)


def test_lab_rbf_ellipse_axes_are_the_points_bandwidths(fits, toy):
    est = fits["lab_rbf"].estimator
    X = toy.X_train
    pts = lab.make_grid(X, 15).points
    basis = influence_basis(est, "lab_rbf", X, pts)
    for pos in (0, len(est.support_) - 1):
        i = int(est.support_[pos])
        inf = basis.at(i)
        theta = est.bandwidths_[pos]
        np.testing.assert_allclose(inf.axes, 1.0 / np.abs(theta), rtol=1e-14)
        # the kernel is e⁻¹ on the ellipse (both semi-axes) and 1 at the point
        probe = np.array([X[i], X[i] + [inf.axes[0], 0.0], X[i] - [0.0, inf.axes[1]]])
        k = influence_basis(est, "lab_rbf", X, probe).at(i).learned
        np.testing.assert_allclose(k, [1.0, np.exp(-1.0), np.exp(-1.0)], rtol=1e-12)
        # the figure draws that ellipse
        fig = fg.influence_figure(np.unique(pts[:, 0]), np.unique(pts[:, 1]), inf.plain,
                                  inf.learned, inf.change, X_train=X, y_train=toy.y_train,
                                  index=i, axes=inf.axes, plain_axes=inf.plain_axes)
        ell = next(t for t in fig.data if t.name == "e⁻¹ ellipse of θᵢ")
        ex, ey = np.asarray(ell.x, float), np.asarray(ell.y, float)
        assert (ex.max() - ex.min()) / 2 == pytest.approx(inf.axes[0], rel=1e-5)
        assert (ey.max() - ey.min()) / 2 == pytest.approx(inf.axes[1], rel=1e-5)
        assert (ex.max() + ex.min()) / 2 == pytest.approx(X[i, 0], abs=1e-5)
    outside = np.setdiff1d(np.arange(len(X)), est.support_)[0]
    inf = basis.at(int(outside))
    assert inf.learned is None and "support" in inf.note


# ---------------------------------------------------------------------------
# the model rebuilt from the maps, and a slow dense reference
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("method, rule", [
    ("dank", "nearest"), ("dank", "reciprocal"), ("dank", "smooth"), ("knpl", None),
    ("knpl", "smooth"), ("lab_rbf", None), ("svm", None), ("mkl_uniform", None)])
def test_the_maps_rebuild_the_models_decision_function(fits, toy, method, rule):
    """Σᵢ uᵢ k̃(xᵢ, x) + b at every grid point = the model's decision function (with the
    same rule): the learned map is exactly the kernel the model predicts with."""
    est = fits[method].estimator
    X = toy.X_train
    pts = lab.make_grid(X, 25).points
    basis = influence_basis(est, method, X, pts, extension=rule)
    if method in ("dank", "knpl"):
        u, b = (est.dual_u_, est.intercept_) if method == "dank" else (est.dual_coef_,
                                                                        est.intercept_)
        f = sum(u[i] * basis.at(i).learned for i in np.flatnonzero(u)) + b
        want = est.decision_function(pts, **({"extension": rule} if rule else {}))
    elif method == "lab_rbf":
        f = sum(c * basis.at(int(i)).learned for i, c in zip(est.support_, est.dual_coef_,
                                                             strict=True)) + est.intercept_
        want = est.decision_function(pts)
    else:
        inner = getattr(est, "best_estimator_", est)
        f = sum(c * basis.at(int(i)).plain for i, c in zip(inner.support_,
                                                           inner.dual_coef_[0],
                                                           strict=True)) + inner.intercept_[0]
        want = est.decision_function(pts)
    np.testing.assert_allclose(f, want, rtol=1e-9, atol=1e-9)


def _slow_reciprocal(X, T):
    """The DANK paper's §2.3 pair by pair: r = rank of test point j among the test points by
    distance to xᵢ, s = rank of xᵢ among the training points by distance to x'ⱼ;
    j* = argmax 1/(r s), ties to the smaller s."""
    D = ((X[:, None, :] - T[None, :, :]) ** 2).sum(-1)
    n, m = D.shape
    out = np.empty(m, dtype=int)
    for j in range(m):
        best = None
        for i in range(n):
            r = 1 + int(np.sum(D[i] < D[i, j]))
            s = 1 + int(np.sum(D[:, j] < D[i, j]))
            key = (r * s, s)
            if best is None or key < best[0]:
                best = (key, i)
        out[j] = best[1]
    return out


@pytest.mark.parametrize("method, rule", [("dank", "nearest"), ("dank", "reciprocal"),
                                          ("dank", "smooth"), ("knpl", None),
                                          ("knpl", "smooth"), ("onk", None), ("svm", None),
                                          ("mkl_uniform", None)])
@pytest.mark.slow
def test_fast_path_matches_a_slow_dense_reference(fits, toy, method, rule):
    """The page's path (the grid geometry's distances and nearest columns, cached per
    data) against loops over every grid point with the matrices the estimators hold."""
    est = fits[method].estimator
    X = toy.X_train
    grid = lab.make_grid(X, 14)
    T = grid.points
    geom = lab.grid_geometry(grid, X)
    basis = influence_basis(est, method, X, T, extension=rule, sqdist=geom.sqdist,
                            cols=geom.columns(rule, sigma=getattr(est, "sigma", None)))
    if rule == "reciprocal":
        cols = _slow_reciprocal(X, T)
    else:
        cols = np.array([min(range(len(X)), key=lambda j, t=t: float(
            np.sum((X[j] - t) ** 2))) for t in T])
    sigmas = [est.sigma] if hasattr(est, "sigma") else (
        list(est.sigmas) if hasattr(est, "sigmas") else [1.0])
    for i in (0, 9, 31):
        k = np.array([np.mean([np.exp(-np.sum((X[i] - t) ** 2) / (2 * s * s))
                               for s in sigmas]) for t in T])
        inf = basis.at(i)
        np.testing.assert_allclose(inf.plain, k, rtol=1e-12, atol=1e-300)
        if method in ("dank", "knpl") and rule == "smooth":
            M = est.F_ if method == "dank" else est.G_
            s = float(est.sigma)
            ref = []
            for t, kk in zip(T, k, strict=True):
                p = np.array([np.exp(-np.sum((x - t) ** 2) / (2 * s * s)) for x in X])
                ref.append(sum(p[j] * M[i, j] for j in range(len(X))) / p.sum() * kk)
            np.testing.assert_allclose(inf.learned, ref, rtol=1e-10, atol=1e-300)
        elif method in ("dank", "knpl"):
            M = est.F_ if method == "dank" else est.G_
            ref = np.array([M[i, c] * kk for c, kk in zip(cols, k, strict=True)])
        elif method == "onk":
            D = est.G_ - est.K_
            ref = np.array([kk + D[i, c] for c, kk in zip(cols, k, strict=True)])
        else:
            assert inf.learned is None
            continue
        np.testing.assert_allclose(inf.learned, ref, rtol=1e-12, atol=1e-300)


def test_regression_on_a_line_and_bad_input(toy):
    data = _data(60, lab.REGRESSION)
    res = _fit("dank_svr", data, sigma=0.5, C=10.0)
    est = res.estimator
    xl = lab.line_points(data.X)
    basis = influence_basis(est, "dank_svr", data.X_train, xl, extension="nearest")
    f = sum(est.dual_u_[i] * basis.at(i).learned for i in np.flatnonzero(est.dual_u_))
    np.testing.assert_allclose(f + est.intercept_, est.predict(xl, extension="nearest"),
                               rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="index"):
        basis.at(len(data.X_train))
    with pytest.raises(ValueError, match="other points"):
        influence_basis(est, "dank_svr", data.X_train[:-1], xl)


# ---------------------------------------------------------------------------
# picking a point
# ---------------------------------------------------------------------------

def test_a_click_selects_the_nearest_point_within_the_tolerance():
    P = np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 5.0]])
    spans = (10.0, 10.0)
    assert nearest_point((0.2, 0.1), P, spans) == 0
    assert nearest_point((1.2, 1.2), P, spans) == 1
    assert nearest_point((3.0, 3.0), P, spans) is None            # 28 % of a span away
    assert nearest_point((0.0, 0.35), P, (10.0, 1.0)) is None      # y span is small
    clicks = [{"id": 5, "x": 0.1, "y": 0.0}, {"id": 7, "x": 5.1, "y": 5.0},
              {"id": 3, "x": 1.0, "y": 1.0}, {"id": "x", "x": 1, "y": 1}, "junk",
              {"id": 8, "x": float("nan"), "y": 0.0}]
    assert point_from_clicks(clicks, P, spans) == (2, 7.0)         # the newest valid one
    assert point_from_clicks(clicks, P, spans, seen=7) == (None, 7.0)
    assert point_from_clicks(None, P, spans, seen=4) == (None, 4.0)
    order = np.arange(40)[::-1]
    assert row_from_clicks([{"id": 1, "x": 3, "y": 17.2}], order) == (22, 1.0)
    assert row_from_clicks([{"id": 1, "x": 3, "y": 16.6}], order) == (22, 1.0)
    assert row_from_clicks([{"id": 1, "x": 3, "y": 39.6}], order) == (None, 1.0)
    assert row_from_clicks([{"id": 1, "x": 3, "y": -0.6}], order) == (None, 1.0)


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------

def test_influence_figure_pair_and_ratio(fits, toy):
    est = fits["dank"].estimator
    X = toy.X_train
    grid = lab.make_grid(X, 30)
    inf = influence_basis(est, "dank", X, grid.points, extension="nearest").at(6)
    fig = fg.influence_figure(grid.xs, grid.ys, inf.plain, inf.learned, inf.change,
                              X_train=X, y_train=toy.y_train, index=6)
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 2
    np.testing.assert_allclose(np.asarray(heat[0].z, float),
                               inf.learned.reshape(grid.shape), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(heat[1].z, float),
                               inf.plain.reshape(grid.shape), rtol=1e-6)
    assert heat[0].zmin == heat[1].zmin and heat[0].zmax == heat[1].zmax   # one scale
    assert heat[0].zmax == pytest.approx(max(inf.learned.max(), inf.plain.max()))
    stars = [t for t in fig.data if t.name == "point 6"]
    assert len(stars) == 2 and all(tuple(np.asarray(t.x, float)) == pytest.approx(
        (X[6, 0],), rel=1e-6) for t in stars)
    ratio = fg.influence_figure(grid.xs, grid.ys, inf.plain, inf.learned, inf.change,
                                X_train=X, y_train=toy.y_train, index=6, mode="ratio")
    (h,) = [t for t in ratio.data if t.type == "heatmap"]
    assert h.zmid == 1.0 and h.zmax - 1.0 == pytest.approx(1.0 - h.zmin)
    assert h.zmax - 1.0 == pytest.approx(np.abs(inf.change - 1).max(), rel=1e-6)
    plain_only = fg.influence_figure(grid.xs, grid.ys, inf.plain, X_train=X,
                                     y_train=toy.y_train, index=6)
    assert sum(t.type == "heatmap" for t in plain_only.data) == 1
    # at the page's 100 × 100 grid the figure stays small (float32, base64)
    g100 = lab.make_grid(X, 100)
    big = influence_basis(est, "dank", X, g100.points, extension="nearest").at(6)
    assert fg.figure_nbytes(fg.influence_figure(
        g100.xs, g100.ys, big.plain, big.learned, big.change, X_train=X,
        y_train=toy.y_train, index=6)) < 0.5 * 1024 * 1024
    curve = fg.influence_curve(np.linspace(0, 1, 50), np.ones(50), np.full(50, 2.0),
                               np.full(50, 2.0), X_train=np.linspace(0, 1, 9)[:, None],
                               index=3)
    assert {t.name for t in curve.data} >= {"F̃ × k", "k", "point 3"}


def test_linked_matrix_frames_the_selection_and_adds_linear_click_axes(fits, toy):
    res = fits["dank"]
    y = toy.y_train
    fig = fg.matrix_triptych(res.kernel, res.matrix, y, difference=True)
    order = fgm.class_order(y, len(y))
    out = fg.linked_matrix(fig, y, 13)
    heat = [t for t in out.data if t.type == "heatmap"]
    assert len(heat) == 4
    # the panels moved to axes 2..5, unchanged (labels, values, hover)
    for old, new in zip([t for t in fig.data if t.type == "heatmap"], heat, strict=True):
        assert new.xaxis == f"x{int(old.xaxis[1:] or 1) + 1}"
        assert list(new.y) == list(old.y) == [str(i) for i in order]
        np.testing.assert_array_equal(np.asarray(new.z), np.asarray(old.z))
        assert new.hovertemplate == old.hovertemplate
    assert out.layout.xaxis2.type == "category" and out.layout.yaxis2.scaleanchor == "x2"
    # the first axes: hidden, linear, over the first panel, one unit per drawn row
    xa, ya = out.layout.xaxis, out.layout.yaxis
    assert xa.type == ya.type == "linear" and xa.visible is False
    n = len(y)
    assert tuple(xa.range) == (-0.5, n - 0.5) and tuple(ya.range) == (n - 0.5, -0.5)
    assert tuple(xa.domain) == tuple(out.layout.xaxis2.domain)
    # class lines and notes follow their panels
    assert {s.xref for s in out.layout.shapes} <= {"x2", "x3", "x4", "x5", "x2 domain",
                                                   "x3 domain", "x4 domain", "x5 domain"}
    assert {a.xref for a in out.layout.annotations} == {"x2 domain", "x3 domain",
                                                         "x4 domain", "x5 domain"}
    pos = int(np.flatnonzero(order == 13)[0])
    frames = [s for s in out.layout.shapes if s.line.color == fg.FOCUS_COLOR]
    assert len(frames) == 8                                  # a row and a column per panel
    assert {(s.y0, s.y1) for s in frames if "domain" not in s.yref} == {
        (pos - 0.5, pos + 0.5)}
    assert {(s.x0, s.x1) for s in frames if "domain" not in s.xref} == {
        (pos - 0.5, pos + 0.5)}
    # a click on row position pos (its y, as the click axes report it) is point 13
    assert row_from_clicks([{"id": 1, "x": 3.2, "y": pos + 0.3}], order) == (13, 1.0)
    # the cached figure is left alone
    assert fig.data[0].xaxis in (None, "x")
    assert not any(s.line.color == fg.FOCUS_COLOR for s in fig.layout.shapes)
    # none selected: click axes only
    assert not [s for s in fg.linked_matrix(fig, y, -1).layout.shapes
                if s.line.color == fg.FOCUS_COLOR]


def test_linked_matrix_of_a_pooled_view_frames_the_block():
    rng = np.random.default_rng(0)
    n = 300
    y = np.where(rng.random(n) > 0.5, 1, -1)
    K = np.eye(n)
    fig = fg.matrix_heatmap(K, y, name="K", center=None, max_side=100)
    order = fgm.class_order(y, n)
    _, starts = fgm.block_means(K[np.ix_(order, order)], 100)
    np.testing.assert_array_equal(fgi._pooled_starts(n, len(starts)), starts)
    out = fg.linked_matrix(fig, y, int(order[150]))
    b = int(np.searchsorted(starts, 150, side="right") - 1)
    frames = [s for s in out.layout.shapes if s.line.color == fg.FOCUS_COLOR]
    assert {(s.y0, s.y1) for s in frames if s.yref == "y2"} == {(b - 0.5, b + 0.5)}


def test_focus_ring_adds_a_ring_and_leaves_the_figure(toy):
    fig = fg.decision_surface(np.linspace(-2, 2, 5), np.linspace(-2, 2, 5), np.zeros((5, 5)),
                              toy.X_train, toy.y_train)
    n = len(fig.data)
    out = fg.focus_ring(fig, toy.X_train[4], 4)
    assert len(out.data) == n + 1 and len(fig.data) == n
    ring = out.data[-1]
    assert ring.name == "selected point 4" and ring.marker.color == fg.FOCUS_COLOR
    assert float(ring.x[0]) == pytest.approx(toy.X_train[4, 0], rel=1e-6)
    assert fg.focus_ring(fig, None, -1) is fig


# ---------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------

def _page(**query):
    return open_page("pages/1_Classification.py", **query)


@pytest.mark.slow
def test_page_draws_the_selected_points_influence_and_clears_it():
    at = _page(n_samples=60, method="dank", sigma=1.0, focus_point=5)
    assert any("Influence of training point 5" in m.value for m in at.markdown)
    figs = live_figures(at)
    infl = [f for f in figs if "influence of training point 5" in json.dumps(
        f.get("layout", {}).get("title", {}))]
    assert len(infl) == 1
    # the default view colours what learning changed: one diverging map
    assert sum(t["type"] == "heatmap" for t in infl[0]["data"]) == 1
    surface = next(f for f in figs if any(t.get("name") == "decision function"
                                          for t in f["data"]))
    assert any(t.get("name") == "selected point 5" for t in surface["data"])
    matrix = next(f for f in figs if any(t.get("name") == "F" and t["type"] == "heatmap"
                                         for t in f["data"]))
    assert any(s.get("line", {}).get("color") == fg.FOCUS_COLOR
               for s in matrix["layout"]["shapes"])
    # learned beside plain
    next(r for r in at.radio if r.key == "w_influence_view").set_value("pair").run()
    assert not at.exception
    assert at.query_params["influence_view"] in ("pair", ["pair"])
    infl = [f for f in live_figures(at) if "influence of training point 5" in json.dumps(
        f.get("layout", {}).get("title", {}))]
    assert sum(t["type"] == "heatmap" for t in infl[0]["data"]) == 2
    # Clear selection: nothing selected, the hint instead
    next(b for b in at.button if b.label == "Clear selection").click().run()
    assert at.query_params["focus_point"] in ("-1", ["-1"])
    assert not any("Influence of training point" in m.value for m in at.markdown)
    assert any("Click a training point" in c.value for c in at.caption)


@pytest.mark.slow
def test_selection_is_dropped_when_the_data_change_and_bad_links_fall_back():
    at = _page(n_samples=60, method="svm", focus_point=3)
    assert any("Influence of training point 3" in m.value for m in at.markdown)
    next(s for s in at.slider if s.key == "w_seed").set_value(4).run()
    assert not at.exception
    assert at.query_params["focus_point"] in ("-1", ["-1"])
    at = _page(n_samples=60, method="svm", focus_point=9999)     # beyond the 42 points
    assert at.query_params["focus_point"] in ("-1", ["-1"])
    assert not any("Influence of training point" in m.value for m in at.markdown)


def test_default_view_shows_the_change_at_the_default_setting():
    """At the lab's defaults (clowns, σ = 10, C = 10, DANK) learning changes a point's
    similarities by well under 1 %: side by side on one scale the two maps look the same
    (their difference spans under 1 % of the colour range), the default view spans the
    whole diverging scale with it."""
    P = {**lab.defaults(), "n_samples": 120}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")
    i = int(np.asarray(res.estimator.support_)[0])
    grid = lab.make_grid(data.X, 40)
    inf = lab.influence_basis(res.estimator, "dank", data.X_train, grid.points,
                              extension="nearest").at(i)
    mode = lab.setting("influence_view").default
    fig = fg.influence_figure(grid.xs, grid.ys, inf.plain, inf.learned, inf.change,
                              X_train=data.X_train, y_train=data.y_train, index=i,
                              mode=mode, change_kind=inf.change_kind)
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 1
    z = np.asarray(heat[0].z, dtype=float)
    used = (np.nanmax(z) - np.nanmin(z)) / (heat[0].zmax - heat[0].zmin)
    assert used > 0.45                          # the change fills the colour scale
    pair = fg.influence_figure(grid.xs, grid.ys, inf.plain, inf.learned, inf.change,
                               X_train=data.X_train, y_train=data.y_train, index=i,
                               mode="pair", change_kind=inf.change_kind)
    a, b = (np.asarray(t.z, dtype=float) for t in pair.data if t.type == "heatmap")
    span = pair.data[0].zmax - pair.data[0].zmin
    assert np.nanmax(np.abs(a - b)) / span < 0.01   # why the old default looked identical
