"""Figure builders, tested without Streamlit: traces, contour levels, markers, colour
scales, axis types, float32 arrays and the size the browser receives.

Long (about 700 lines) because it covers every builder of the figures layer against
the same small fixtures and the same payload-size limits; its sections follow the
layer's modules."""

import numpy as np
import pytest

import nplk_lab.figures as fg
from nplk_lab.figures import common as fgc
from nplk_lab.figures import matrices as fgm
from nplk_lab.model import click_grid, make_grid

MB = 0.5 * 1024 * 1024


@pytest.fixture(autouse=True)
def validated_figures(monkeypatch):
    """Every figure built here goes through plotly.py's full property validation (the
    app skips it for speed): an invalid property or value raises."""
    monkeypatch.setattr(fgc, "VALIDATE", True)


def test_validation_is_on_in_these_tests():
    with pytest.raises(ValueError):
        fgc._figure([dict(type="scatter", x=[1], y=[2], no_such_property=1)], {})


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
    grid = make_grid(X)
    P = grid.points
    Z = (P[:, 0] + 0.5 * np.sin(3 * P[:, 1])).reshape(grid.shape)
    return X[:140], y[:140], X[140:], y[140:], grid, Z


def _traces(fig, kind):
    return [t for t in fig.data if t.type == kind]


def _arrays(fig):
    for t in fig.data:
        for name in ("x", "y", "z"):
            v = getattr(t, name, None)
            if v is not None and not isinstance(v, str):
                yield t, name, v


def _bilinear(xs, ys, Z, x, y):
    """Bilinear interpolation of grid values (Z[i, j] at (xs[j], ys[i])): a level line
    point lies on a cell edge, where this is the linear interpolation it was built on."""
    j = np.clip(np.searchsorted(xs, x) - 1, 0, len(xs) - 2)
    i = np.clip(np.searchsorted(ys, y) - 1, 0, len(ys) - 2)
    tx = (x - xs[j]) / (xs[j + 1] - xs[j])
    ty = (y - ys[i]) / (ys[i + 1] - ys[i])
    return ((1 - tx) * (1 - ty) * Z[i, j] + tx * (1 - ty) * Z[i, j + 1]
            + (1 - tx) * ty * Z[i + 1, j] + tx * ty * Z[i + 1, j + 1])


def test_level_lines_trace_a_circle_as_one_closed_curve():
    xs = np.linspace(-2, 2, 81)
    ys = np.linspace(-1.7, 2.3, 77)
    Z = (xs[None, :] - 0.2) ** 2 + (ys[:, None] - 0.3) ** 2
    x, y = fg.level_lines(xs, ys, Z, 1.0)
    assert not np.isnan(x).any()                       # one polyline
    assert (x[0], y[0]) == (x[-1], y[-1])              # closed
    r = np.hypot(x - 0.2, y - 0.3)
    assert np.max(np.abs(r - 1.0)) < 2e-3              # O(h²) interpolation error
    # consecutive points are neighbours on the grid (no jumps across the curve)
    assert np.max(np.hypot(np.diff(x), np.diff(y))) < 2 * np.hypot(xs[1] - xs[0],
                                                                   ys[1] - ys[0])
    # a level outside the range gives nothing; two disjoint circles give two curves
    assert fg.level_lines(xs, ys, Z, -1.0)[0].size == 0
    Z2 = np.minimum((xs[None, :] + 1) ** 2 + ys[:, None] ** 2,
                    (xs[None, :] - 1) ** 2 + ys[:, None] ** 2)
    x2, _ = fg.level_lines(xs, ys, Z2, 0.25)
    assert np.isnan(x2).sum() == 1


def test_level_lines_resolve_saddles_and_open_curves():
    xs = np.linspace(-1, 1, 40)
    ys = np.linspace(-1, 1, 40)
    Z = xs[None, :] * ys[:, None] + 0.05      # hyperbola: two open branches
    x, y = fg.level_lines(xs, ys, Z, 0.0)
    pieces = np.split(np.arange(x.size), np.flatnonzero(np.isnan(x)))
    assert len(pieces) == 2
    ok = np.isfinite(x)
    np.testing.assert_allclose(_bilinear(xs, ys, Z, x[ok], y[ok]), 0.0, atol=1e-12)
    # each branch stays in its own quadrant pair (the saddle did not cross them)
    assert np.all(np.sign(x[ok]) != np.sign(y[ok]))
    # the exact saddle x·y = 0: the centre cell has four crossings; two curves result,
    # every point on the level, none jumping across the cell
    Z0 = xs[None, :] * ys[:, None]
    x0, y0 = fg.level_lines(xs, ys, Z0, 0.0)
    assert np.isnan(x0).sum() == 1
    ok0 = np.isfinite(x0)
    np.testing.assert_allclose(_bilinear(xs, ys, Z0, x0[ok0], y0[ok0]), 0.0, atol=1e-12)
    step = np.hypot(np.diff(x0), np.diff(y0))
    assert np.nanmax(step) < 2 * np.hypot(xs[1] - xs[0], ys[1] - ys[0])


def test_decision_surface_follows_the_gallery_conventions(toy):
    Xtr, ytr, Xte, yte, grid, Z = toy
    fig = fg.decision_surface(grid.xs, grid.ys, Z, Xtr, ytr, Xte, yte, support=Xtr[:25],
                              baseline=Z - 0.3, train_score=0.97, test_score=0.9,
                              click_targets=click_grid(grid))
    assert not _traces(fig, "contour")
    # the filled decision function: a smoothed heatmap in flat colour bands
    filled = _traces(fig, "heatmap")
    lines = [t for t in fig.data if t.type == "scatter" and t.mode == "lines"]
    assert len(filled) == 1
    f = filled[0]
    assert f.zmin == -f.zmax and f.zmax >= 1.0  # diverging scale centred at 0
    assert f.zsmooth == "best"
    assert f.colorscale[0][1].lower() == fg.CLASS_COLORS[-1].lower()
    assert f.colorscale[-1][1].lower() == fg.CLASS_COLORS[1].lower()
    stops = np.array([s[0] for s in f.colorscale])
    assert len(stops) == 2 * fg.SURFACE_BANDS and np.all(np.diff(stops) >= 0)
    # flat bands: each band's two stops share one colour, neighbouring bands differ
    cols = [s[1] for s in f.colorscale]
    assert cols[0::2] == cols[1::2] and len(set(cols)) == fg.SURFACE_BANDS
    np.testing.assert_array_equal(f.z, np.clip(Z, -f.zmax, f.zmax).astype(np.float32))
    # level lines drawn as line traces lying on their level of their own function
    by_name = {c.name: c for c in lines}
    zero, pm1 = by_name[fg.BOUNDARY_NAME], by_name[fg.MARGIN_NAME]
    assert zero.line.dash == "solid" and pm1.line.dash == "dash"
    base = [c for c in lines if c.name.startswith("SVM")]
    assert len(base) == 1 and base[0].line.dash == "dot"
    for trace, levels, values in ((zero, [0.0], Z), (pm1, [-1.0, 1.0], Z),
                                  (base[0], [0.0], Z - 0.3)):
        x, y = np.asarray(trace.x, float), np.asarray(trace.y, float)
        ok = np.isfinite(x)
        assert ok.sum() > 10
        at = _bilinear(grid.xs, grid.ys, values, x[ok], y[ok])
        near = np.min(np.abs(at[:, None] - np.asarray(levels)[None, :]), axis=1)
        assert np.max(near) < 1e-4 * max(1.0, np.abs(values).max())
    # train points filled, test points hollow, support vectors hollow circles
    scat = {t.name: t for t in fig.data if t.type in ("scatter", "scattergl")}
    assert not scat["class +1 (train)"].marker.symbol.endswith("-open")
    assert scat["class +1 (test)"].marker.symbol.endswith("-open")
    assert scat["class −1 (test)"].marker.symbol.endswith("-open")
    assert scat["support vectors"].marker.symbol == "circle-open"
    assert len(scat["support vectors"].x) == 25
    assert scat["class +1 (train)"].marker.color == fg.CLASS_COLORS[1]
    assert scat["class −1 (train)"].marker.color == fg.CLASS_COLORS[-1]
    n_test = len(scat["class +1 (test)"].x) + len(scat["class −1 (test)"].x)
    assert n_test == len(yte)
    # the click layer is the last trace, invisible, covering the grid
    last = fig.data[-1]
    assert last.name == "click to add" and "rgba(0,0,0,0)" in last.marker.color.replace(" ", "")
    assert len(last.x) == len(click_grid(grid))
    # the score sits in the top-right corner, just above the frame (never over data),
    # in the plot's own domain coordinates so it follows the equal-aspect frame
    note = fig.layout.annotations[0]
    assert "0.970" in note.text and "0.900" in note.text
    assert (note.xref, note.yref) == ("x domain", "y domain")
    assert (note.x, note.xanchor) == (1.0, "right")
    assert note.y >= 1.0 and note.yanchor == "bottom"
    assert fig.layout.margin.t >= 40  # room for the note above the frame
    assert fig.layout.yaxis.scaleanchor == "x"
    # axis titles, no padding between the data and the frame, the legend pinned to
    # the bottom of the figure (it cannot collide with the x-axis title)
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.margin.pad == 0
    assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0


def test_decision_surface_without_a_model_draws_the_data(toy):
    Xtr, ytr, *_ = toy
    grid = make_grid(np.zeros((0, 2)))
    fig = fg.decision_surface(grid.xs, grid.ys, None, Xtr, ytr)
    assert not _traces(fig, "contour")
    assert len(fig.data) == 2


def test_every_array_is_float32_and_no_python_lists(toy):
    Xtr, ytr, Xte, yte, grid, Z = toy
    K = np.exp(-((Xtr[:, None] - Xtr[None]) ** 2).sum(-1))
    figs = [
        fg.decision_surface(grid.xs, grid.ys, Z, Xtr, ytr, Xte, yte, support=Xtr[:5],
                            baseline=Z),
        fg.spectra_figure({"K": np.linalg.eigvalsh(K)}),
        fg.convergence_figure({"a": {"objective": np.arange(5.0),
                                     "step_norm": np.ones(5)}}),
        fg.regression_curve(Xtr[:, :1], ytr, np.linspace(-2, 2, 50), np.zeros(50)),
        fg.regression_surface(grid.xs, grid.ys, Z, Xtr, ytr),
        fg.sensitivity_figure(np.geomspace(1e-3, 1, 4), np.ones((4, 2))),
        fg.constraints_figure(Xtr, (ytr > 0).astype(int), np.array([[0, 1]]),
                              np.array([[2, 3]])),
        fg.lines_figure(np.arange(4), {"a": np.arange(4.0)}, x_title="v", y_title="q"),
    ]
    n = 0
    for fig in figs:
        for t, name, v in _arrays(fig):
            assert isinstance(v, np.ndarray), (t.type, name, type(v))
            assert v.dtype == np.float32, (t.type, name, v.dtype)
            n += 1
    assert n > 20
    hm = fg.matrix_heatmap(K, ytr)
    assert hm.data[0].z.dtype == np.float32


def test_matrix_heatmap_orders_by_class_and_centres_at_one():
    rng = np.random.default_rng(1)
    n = 30
    y = rng.choice([-1.0, 1.0], size=n)
    A = rng.normal(size=(n, n))
    F = 1.0 + 0.05 * (A + A.T)
    fig = fg.matrix_heatmap(F, y, name="F")
    hm = fig.data[0]
    assert hm.zmid == 1.0
    _diverging_limits_are_the_largest_deviation(hm, 1.0, F)
    assert hm.colorscale[0][1].lower() == fg.DIVERGING[0][1].lower()
    order = np.argsort(y, kind="stable")
    assert list(hm.x) == [str(i) for i in order]
    np.testing.assert_allclose(hm.z, F[np.ix_(order, order)], rtol=1e-6)
    # hovering names i, j and the value
    assert "i=%{y}" in hm.hovertemplate and "j=%{x}" in hm.hovertemplate
    assert "F=%{z" in hm.hovertemplate
    # one line pair at the class boundary
    n_neg = int((y < 0).sum())
    xs = [s.x0 for s in fig.layout.shapes if s.xref == "x"]
    assert xs == [n_neg - 0.5]
    assert fig.layout.yaxis.autorange == "reversed"
    # a regression target orders the points but draws no class lines
    t = rng.normal(size=n)
    reg = fg.matrix_heatmap(F, t)
    assert not reg.layout.shapes
    assert list(reg.data[0].x) == [str(i) for i in np.argsort(t, kind="stable")]


def test_large_matrices_are_block_averaged_exactly():
    rng = np.random.default_rng(2)
    n = 301
    M = rng.random((n, n))
    P, starts = fgm.block_means(M, 120)
    assert P.shape == (120, 120)
    sizes = np.diff(np.append(starts, n))
    assert sizes.min() >= 2 and sizes.max() <= 3
    np.testing.assert_allclose((P * np.outer(sizes, sizes)).sum(), M.sum())
    np.testing.assert_allclose(P[0, 0], M[:sizes[0], :sizes[0]].mean())


def test_triptych_panels_and_scales():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = np.sign(X[:, 0])
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    F = 1.0 + 0.1 * np.outer(y, y) * K
    fig = fg.matrix_triptych(K, F, y, name="F")
    names = [t.name for t in fig.data]
    assert names == ["K", "F", "F × K"]
    k, f, fk = fig.data
    # K and F∘K on one shared sequential scale covering both, with one colour bar
    assert k.zmid is None and fk.zmid is None
    assert (k.zmin, k.zmax) == (fk.zmin, fk.zmax) and k.colorscale == fk.colorscale
    assert k.zmin <= 0.0 and k.zmax >= (F * K).max() - 1e-3
    assert k.showscale and not fk.showscale
    # F diverging, centred at 1, on its own bar, symmetric about 1
    assert f.zmid == 1.0 and f.showscale
    assert f.colorscale[0][1].lower() == fg.DIVERGING[0][1].lower()
    assert f.zmin + f.zmax == pytest.approx(2.0)
    assert f.zmax == pytest.approx(np.abs(F - 1).max() + 1)
    # the two bars sit right of the panels and apart from each other
    panel_right = max(fig.layout[f"xaxis{s}"].domain[1] for s in ("", "2", "3"))
    bars = sorted([k.colorbar.x, f.colorbar.x])
    assert bars[0] > panel_right and bars[1] - bars[0] >= 0.08
    order = np.argsort(y, kind="stable")
    np.testing.assert_allclose(fk.z, (F * K)[np.ix_(order, order)], rtol=1e-5)
    assert {t.xaxis for t in fig.data} == {"x", "x2", "x3"}
    # square panels side by side, without overlap, titled, and a real figure title
    doms = [fig.layout[f"xaxis{s}"].domain for s in ("", "2", "3")]
    assert all(a[1] <= b[0] for a, b in zip(doms[:-1], doms[1:], strict=True))
    for s in ("", "2", "3"):
        assert fig.layout[f"yaxis{s}"].scaleanchor == f"x{s}"
    assert [a.text for a in fig.layout.annotations] == ["<b>K</b>", "<b>F</b>", "<b>F × K</b>"]
    title = fig.layout.title.text
    assert title.startswith("Kernel K") and "40 training points" in title
    assert "block-averaged" not in title and len(k.z) == 40
    # ONK's G is a kernel (K + rank one), not a multiplier: on K's scale, one bar
    two = fg.matrix_triptych(K, F, y, name="G", product=False)
    assert [t.name for t in two.data] == ["K", "G"]
    assert two.data[0].showscale and not two.data[1].showscale
    assert (two.data[1].zmin, two.data[1].zmax) == (two.data[0].zmin, two.data[0].zmax)
    assert two.data[1].zmid is None and two.data[0].colorscale == two.data[1].colorscale



@pytest.mark.parametrize("product", [True, False])
def test_triptych_grid_two_columns_one_bar_beside_each_scale(product):
    """Presentation mode's 2×2 grid: the kernels (one shared scale) in the left column
    with one bar beside both, the changes in the right column each with its own bar;
    panels as wide as in two columns, bars in the gap between the columns."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0])
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    F = 1.0 + 0.05 * np.outer(y, y) * K
    row = fg.matrix_triptych(K, F, y, name="F", product=product, difference=True)
    fig = fg.matrix_triptych(K, F, y, name="F", product=product, difference=True,
                             grid=True, height=700)
    assert fig.layout.height == 700
    # the same panels on the same scales as the row
    assert sorted(t.name for t in fig.data) == sorted(t.name for t in row.data)
    by = {t.name: t for t in row.data}
    for t in fig.data:
        assert (t.zmin, t.zmax, t.zmid) == (by[t.name].zmin, by[t.name].zmax, by[t.name].zmid)
    left = [t for t in fig.data if t.name in ("K", "F × K" if product else "F")]
    right = [t for t in fig.data if t not in left]
    axis = lambda t: fig.layout["xaxis" + t.xaxis[1:]]  # noqa: E731
    assert all(axis(t).domain[1] <= 0.5 for t in left)
    assert all(axis(t).domain[0] >= 0.5 for t in right)
    assert all(axis(t).domain[1] - axis(t).domain[0] >= 0.38 for t in fig.data)
    # one bar for the left column, one beside each panel of the right one
    shown = [t for t in fig.data if t.showscale]
    assert len(shown) == 1 + len(right) and left[0] in shown
    for t in shown:
        assert axis(t).domain[1] < t.colorbar.x < axis(t).domain[1] + 0.05
    # the right column's bars apart from each other vertically
    if len(right) == 2:
        a, b = (t.colorbar for t in right)
        assert abs(a.y - b.y) >= (a.len + b.len) / 2
    assert not fig.layout.title.text     # the panel names say what is drawn

def _diverging_limits_are_the_largest_deviation(trace, centre, M):
    dev = np.abs(np.asarray(M, float) - centre).max()
    assert trace.zmid == centre
    assert trace.zmin == pytest.approx(centre - dev, rel=1e-12, abs=1e-15)
    assert trace.zmax == pytest.approx(centre + dev, rel=1e-12, abs=1e-15)
    assert trace.colorscale[0][1].lower() == fg.DIVERGING[0][1].lower()
    # the most changed entry reaches an end colour, whatever its size
    z = np.asarray(trace.z, float)
    # (float32 near 1 resolves 6e-8: ample for a change of 1e-3)
    assert max(z.max() - centre, centre - z.min()) == pytest.approx(dev, rel=1e-5, abs=2e-7)


@pytest.mark.parametrize("scale", [1e-3, 0.3])
def test_difference_panel_is_f_o_k_minus_k_on_its_largest_deviation(scale):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 2))
    y = np.sign(X[:, 0] + 0.1)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    A = rng.normal(size=(50, 50))
    F = 1.0 + scale * (A + A.T) / 2          # a small change: F within 1 ± ~3·scale
    fig = fg.matrix_triptych(K, F, y, name="F", difference=True)
    assert [t.name for t in fig.data] == ["K", "F", "F × K", "F × K − K"]
    k, f, fk, d = fig.data
    order = np.argsort(y, kind="stable")
    # the difference panel is F∘K − K, entry by entry, in class order
    np.testing.assert_array_equal(d.z, np.float32((F * K - K)[np.ix_(order, order)]))
    _diverging_limits_are_the_largest_deviation(d, 0.0, F * K - K)
    _diverging_limits_are_the_largest_deviation(f, 1.0, F)
    # three scales, three bars right of the panels, in the panels' order; F∘K uses K's
    assert [t.showscale for t in fig.data] == [True, True, False, True]
    bars = [k.colorbar.x, f.colorbar.x, d.colorbar.x]
    right = max(fig.layout[f"xaxis{s}"].domain[1] for s in ("", "2", "3", "4"))
    assert right < bars[0] < bars[1] < bars[2] < 1.0
    assert "1 ± " in f.colorbar.title.text and "± " in d.colorbar.title.text
    assert [a.text for a in fig.layout.annotations][-1] == "<b>F × K − K</b>"
    assert "F × K − K" in fig.layout.title.text
    # ONK: K | G | G − K, the change G − K (here F plays G) on its own scale around 0
    onk = fg.matrix_triptych(K, K + 0.01 * np.outer(y, y), y, name="G", product=False,
                             difference=True)
    assert [t.name for t in onk.data] == ["K", "G", "G − K"]
    np.testing.assert_allclose(onk.data[2].z, 0.01 * np.outer(y, y)[np.ix_(order, order)],
                               rtol=1e-5)
    _diverging_limits_are_the_largest_deviation(onk.data[2], 0.0, 0.01 * np.outer(y, y))


def test_pooled_matrices_are_scaled_by_what_is_drawn():
    rng = np.random.default_rng(6)
    n = 400
    A = rng.normal(size=(n, n))
    F = 1.0 + 0.01 * (A + A.T)
    K = np.eye(n)
    fig = fg.matrix_triptych(K, F, np.ones(n), difference=True)
    f, d = fig.data[1], fig.data[3]
    assert len(f.z) == 128
    P, _ = fgm.block_means(F, 128)
    _diverging_limits_are_the_largest_deviation(f, 1.0, P)
    # block averages of noise are smaller than its largest entry: the scale follows
    assert f.zmax - 1 < 0.5 * np.abs(F - 1).max()
    assert d.zmax == pytest.approx(np.abs(fgm.block_means(F * K - K, 128)[0]).max(), rel=1e-12)


def test_matrix_panels_keep_cells_square_inside_their_domain():
    """Both axes of a matrix panel shrink their domain to stay square: a widened range
    let the class lines overrun the matrix (seen on ONK's two-panel view)."""
    rng = np.random.default_rng(7)
    y = np.sign(rng.normal(size=30))
    K = np.eye(30)
    for fig in (fg.matrix_triptych(K, K, y, product=False),
                fg.matrix_triptych(K, K + 1, y, difference=True), fg.matrix_heatmap(K, y)):
        axes = [a for a in fig.layout if a.startswith(("xaxis", "yaxis"))]
        assert axes and all(fig.layout[a].constrain == "domain" for a in axes)


def test_triptych_block_averages_only_large_matrices():
    rng = np.random.default_rng(4)
    for n, side in ((140, 140), (300, 300), (301, 128)):
        A = rng.random((n, n))
        K = (A + A.T) / 2
        fig = fg.matrix_triptych(K, K + 1, np.ones(n))
        assert len(fig.data[0].z) == side
        assert ("block-averaged to 128×128" in fig.layout.title.text) == (side < n)
    # a fourth panel: the same budget of drawn cells (3 × 300²), so pooled from 260 rows
    for n, side in ((259, 259), (260, 128)):
        A = rng.random((n, n))
        fig = fg.matrix_triptych(A, A + 1, np.ones(n), difference=True)
        assert {len(t.z) for t in fig.data} == {side}
        assert sum(len(t.z) ** 2 for t in fig.data) <= 3 * 300 ** 2


def test_spectra_on_log_axis_with_rank():
    lam = np.array([5.0, 1.0, 0.1, 1e-20, -1e-12])
    fig = fg.spectra_figure({"F": lam, "K": lam * 2}, rank=3)
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    # the estimators' "FK" key is shown as the Hadamard product
    assert [t.name for t in fg.spectra_figure({"FK": lam}).data] == ["F × K"]
    y = fig.data[0].y
    assert np.isfinite(y[:3]).all() and np.isnan(y[3:]).all()
    assert "rank(F) = 3" in fig.layout.annotations[0].text
    np.testing.assert_array_equal(fig.data[0].x, np.arange(1, 6))


def test_convergence_overlays_solvers_with_log_step_norm():
    h1 = {"objective": np.linspace(0, 1, 50), "step_norm": np.geomspace(1, 1e-5, 50),
          "time": np.linspace(0, 0.1, 50)}
    h2 = {"objective": np.linspace(0, 1, 200), "step_norm": np.geomspace(1, 1e-5, 200),
          "time": np.linspace(0, 0.2, 200)}
    fig = fg.convergence_figure({"Nesterov": h1, "projected gradient": h2})
    assert len(fig.data) == 4
    assert [t.showlegend for t in fig.data] == [True, False, True, False]
    assert fig.layout.yaxis2.type == "log" and fig.layout.yaxis.type != "log"
    assert fig.layout.xaxis2.matches == "x"
    by = {(t.name, t.yaxis): t for t in fig.data}
    assert len(by[("projected gradient", "y")].y) == 200
    t = fg.convergence_figure({"a": h1}, x="time")
    np.testing.assert_allclose(t.data[0].x, h1["time"], rtol=1e-6)
    # ADMM residual panel when present
    r = fg.convergence_figure({"ADMM": {"residual": np.geomspace(1, 1e-4, 10)}})
    assert r.layout.yaxis.type == "log"


def test_convergence_overlay_draws_every_listed_solver_distinctly():
    """Five solvers listed, two pairs of them identical (as "auto" is the solver it
    picks): every one is drawn in every panel, in the legend once, with its own colour,
    dash and marker; the identical ones are named in a note; no data are moved."""
    rng = np.random.default_rng(8)
    fast = {"objective": 1 - np.geomspace(1, 1e-6, 32), "step_norm": np.geomspace(1, 1e-6, 32)}
    slow = {"objective": 1 - np.geomspace(1, 1e-3, 400),
            "step_norm": np.geomspace(1, 1e-3, 400) * (1 + 0.5 * rng.random(400))}
    mono = {k: v.copy() for k, v in slow.items()}
    mono["step_norm"][200:] *= 3                        # diverges half-way: no coincidence
    hist = {"auto": fast, "Nesterov": slow, "monotone": mono,
            "PG": {k: v[:300] for k, v in slow.items()},    # the same curve, stopped early
            "APG": {k: v.copy() for k, v in fast.items()}}
    fig = fg.convergence_figure(hist)
    for axis in ("y", "y2"):
        panel = [t for t in fig.data if t.yaxis == axis]
        assert [t.name for t in panel] == list(hist)
        assert all(t.visible is None or t.visible is True for t in panel)
        styles = {(t.line.color, t.line.dash, t.marker.symbol) for t in panel}
        assert len(styles) == 5 and len({t.line.dash for t in panel}) == 5
        assert len({t.marker.symbol for t in panel}) == 5
        for t in panel:                                 # the data as given
            key = "objective" if axis == "y" else "step_norm"
            np.testing.assert_array_equal(t.y, np.float32(hist[t.name][key]))
            np.testing.assert_array_equal(t.x, np.arange(len(hist[t.name][key])))
    assert [t.name for t in fig.data if t.showlegend] == list(hist)
    assert fg.coinciding(hist, ["objective", "step_norm"]) == [["auto", "APG"]]
    note = fig.layout.annotations[0].text
    assert "auto = APG" in note and "coincide" in note
    assert "Nesterov" not in note and "PG" not in note.replace("APG", "")
    # the two identical curves carry their markers at different iterations
    a, b = (np.asarray(t.marker.size) for t in fig.data if t.yaxis == "y" and
            t.name in ("auto", "APG"))
    on_a, on_b = set(np.flatnonzero(a > 0)), set(np.flatnonzero(b > 0))
    assert on_a and on_b and not on_a & on_b
    # one solver: no note; a solver without history stays listed and says so
    assert not fg.convergence_figure({"auto": fast}).layout.annotations
    empty = fg.convergence_figure({"auto": fast, "level": {}})
    assert [t.name for t in empty.data if t.showlegend is not False][-1] == "level (no history)"


def test_coinciding_uses_the_panel_scale():
    base = np.geomspace(1, 1e-4, 50)
    hist = {"a": {"step_norm": base}, "b": {"step_norm": base * (1 + 1e-6)},
            "c": {"step_norm": base * 1.5}}
    assert fg.coinciding(hist, ["step_norm"]) == [["a", "b"]]
    # a relative 50 % change is 0.18 decades of 4: visible, not coincident


def test_sensitivity_mean_and_std():
    v = np.geomspace(1e-4, 10, 5)
    scores = np.array([[0.9, 0.8], [0.95, 0.85], [0.9, 0.9], [0.7, 0.8], [np.nan, np.nan]])
    fig = fg.sensitivity_figure(v, scores, ranks=np.ones((5, 2)) * 3,
                                times=np.ones((5, 2)), param_label="τ", baseline=0.85)
    acc = fig.data[0]
    np.testing.assert_allclose(acc.y[:4], scores[:4].mean(axis=1), rtol=1e-6)
    assert np.isnan(acc.y[4])
    np.testing.assert_allclose(acc.error_y.array[:4], scores[:4].std(axis=1),
                               rtol=1e-6)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis3.type == "log"
    assert fig.layout.shapes[0].y0 == 0.85


def test_bandwidth_figure_widths_and_ellipses():
    S = np.array([[0.0, 0.0], [1.0, 2.0]])
    theta = np.array([[2.0, 0.5], [1.0, 4.0]])
    fig = fg.bandwidth_figure(S, theta)
    ell = fig.data[0]
    x, y = np.asarray(ell.x, float), np.asarray(ell.y, float)
    pts = np.column_stack([x, y])
    first = pts[:40]
    # every ellipse point satisfies ||theta o (x - s)|| = 1 (kernel at e^-1)
    np.testing.assert_allclose(np.linalg.norm((first - S[0]) * theta[0], axis=1), 1.0,
                               rtol=1e-5)
    assert np.isnan(x[40])  # separator between ellipses
    one_d = fg.bandwidth_figure(np.array([0.3, -1.0, 2.0]), np.array([2.0, 4.0, 0.5]))
    np.testing.assert_allclose(one_d.data[0].x, [-1.0, 0.3, 2.0])
    np.testing.assert_allclose(one_d.data[0].y, [0.25, 0.5, 2.0])
    assert one_d.layout.yaxis.type == "log"


def _inside(fig, trace):
    x, y = np.asarray(trace.x, float), np.asarray(trace.y, float)
    ok = np.isfinite(x)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    tol = 1e-5 * max(x1 - x0, y1 - y0)              # float32 coordinates
    return bool(np.all((x[ok] >= x0 - tol) & (x[ok] <= x1 + tol) & (y[ok] >= y0 - tol)
                       & (y[ok] <= y1 + tol)))


def test_bandwidth_ellipses_stay_inside_the_data_frame():
    rng = np.random.default_rng(10)
    X = rng.uniform(-1, 1, size=(80, 2)) * [2.0, 1.0]
    y = np.where(X[:, 0] > 0, 1, -1)
    S = X[:6]
    # ranges from the data alone (10 % padding), whatever the ellipses
    fits = fg.bandwidth_figure(S, np.full((6, 2), 20.0), X=X, y=y)     # widths 0.05
    lo, hi = X.min(0), X.max(0)
    np.testing.assert_allclose(fits.layout.xaxis.range, [lo[0] - 0.1 * (hi - lo)[0],
                                                         hi[0] + 0.1 * (hi - lo)[0]])
    np.testing.assert_allclose(fits.layout.yaxis.range, [lo[1] - 0.1 * (hi - lo)[1],
                                                         hi[1] + 0.1 * (hi - lo)[1]])
    ell = [t for t in fits.data if "ellipse" in t.name]
    assert len(ell) == 1 and "e⁻¹" in ell[0].name and _inside(fits, ell[0])
    # too wide to fit: every ellipse at one common fraction s of 1/θ, the largest that
    # fits, so one of them touches the frame; s and the kernel level in the legend
    theta = np.column_stack([np.full(6, 1.2), np.full(6, 2.0)])       # widths 0.83, 0.5
    big = fg.bandwidth_figure(S, theta, X=X, y=y)
    ell = [t for t in big.data if t.name and "ellipses" in t.name]
    assert len(ell) == 1 and not any("cut" in (t.name or "") for t in big.data)
    assert _inside(big, ell[0])
    (x0, x1), (y0, y1) = big.layout.xaxis.range, big.layout.yaxis.range
    room = np.min(np.column_stack([S[:, 0] - x0, x1 - S[:, 0], S[:, 1] - y0, y1 - S[:, 1]])
                  * np.column_stack([theta[:, 0], theta[:, 0], theta[:, 1], theta[:, 1]]))
    assert fg.ELLIPSE_MIN_SCALE < room < 1
    pts = np.column_stack([ell[0].x, ell[0].y]).astype(float)[:40]
    np.testing.assert_allclose(np.linalg.norm((pts - S[0]) * theta[0], axis=1), room,
                               rtol=1e-4)
    assert f"{room:.2g}×1/θ" in ell[0].name and f"{np.exp(-room ** 2):.2f}" in ell[0].name
    lap = fg.bandwidth_figure(S, theta, X=X, y=y, kernel="laplacian")
    assert f"{np.exp(-room):.2f}" in [t for t in lap.data if "ellipses" in t.name][0].name
    # one far too wide: the rest at the floor scale, that one cut at the frame (dotted,
    # named in the legend and in its support point's hover)
    theta[2] = [0.1, 0.2]                                  # widths 10 × 5: 3 × 1.5 at s
    cut = fg.bandwidth_figure(S, theta, X=X, y=y)
    whole, part = ([t for t in cut.data if t.name and key in t.name]
                   for key in ("ellipses", "cut at the frame"))
    assert f"{fg.ELLIPSE_MIN_SCALE:.2g}×1/θ" in whole[0].name
    assert part[0].name == "cut at the frame (1)" and part[0].line.dash == "dot"
    assert _inside(cut, whole[0]) and _inside(cut, part[0])
    assert np.isfinite(np.asarray(part[0].x, float)).sum() > 10
    sp = [t for t in cut.data if t.name == "support points"][0]
    assert ["cut" in h for h in sp.hovertext] == [False, False, True, False, False, False]
    assert cut.layout.xaxis.range == big.layout.xaxis.range
    # the ranges are the frame: the equal aspect shrinks the domain, never a range
    assert cut.layout.xaxis.constrain == cut.layout.yaxis.constrain == "domain"
    # a width beyond the whole frame leaves nothing to draw, but is still named
    theta[2] = [1e-3, 1e-3]
    gone = fg.bandwidth_figure(S, theta, X=X, y=y)
    assert [t.name for t in gone.data if "cut" in (t.name or "")] == ["cut at the frame (1)"]


def test_clip_polyline_cuts_at_the_box():
    # a square of side 4 around the origin against the box [-1, 1]²: only the parts of
    # its sides inside remain, which is nothing; a diagonal line keeps its middle
    x, y = fg.clip_polyline(np.array([-2.0, 2.0]), np.array([-2.0, 2.0]), (-1, 1, -1, 1))
    np.testing.assert_allclose(np.column_stack([x, y]), [[-1, -1], [1, 1]])
    sq = np.array([[-2, -2], [2, -2], [2, 2], [-2, 2], [-2, -2]], float)
    x, _ = fg.clip_polyline(sq[:, 0], sq[:, 1], (-1, 1, -1, 1))
    assert x.size == 0
    # a circle of radius 1.2 in the box [-1, 1]²: four arcs, NaN-separated, on the box
    t = np.linspace(0, 2 * np.pi, 400)
    x, y = fg.clip_polyline(1.2 * np.cos(t), 1.2 * np.sin(t), (-1, 1, -1, 1))
    ok = np.isfinite(x)
    assert np.all(np.abs(x[ok]) <= 1 + 1e-12) and np.all(np.abs(y[ok]) <= 1 + 1e-12)
    assert np.isnan(x).sum() == 3                  # 4 arcs (around the diagonals)
    np.testing.assert_allclose(np.hypot(x[ok], y[ok]), 1.2, rtol=1e-3)
    # every arc ends on the box
    ends = np.flatnonzero(np.isnan(x))
    for k in np.concatenate([ends - 1, ends + 1]):
        assert max(abs(x[k]), abs(y[k])) == pytest.approx(1.0)


def test_constraints_figure_styles_must_and_cannot_links():
    X = np.arange(12, dtype=float).reshape(6, 2)
    fig = fg.constraints_figure(X, np.array([0, 0, 1, 1, 2, 2]),
                                np.array([[0, 1], [2, 3]]), np.array([[4, 5]]),
                                y_true=np.array([1, 1, -1, -1, 1, 1]))
    ml, cl = fig.data[0], fig.data[1]
    assert ml.line.dash == "solid" and ml.line.color == fg.MUST_LINK_COLOR
    assert cl.line.dash == "dash" and cl.line.color == fg.CANNOT_LINK_COLOR
    assert len(ml.x) == 6 and np.isnan(ml.x[2]) and np.isnan(ml.x[5])
    assert ml.x[0] == X[0, 0] and ml.x[1] == X[1, 0]
    clusters = [t for t in fig.data if t.legendgroup == "clusters"]
    assert [t.marker.color for t in clusters] == list(fg.CLUSTER_COLORS[:3])


def test_cluster_legend_groups_clusters_apart_from_true_classes():
    """Colour = cluster (filled dots), shape = true class (outlines): two legend
    groups with titles, each entry with one constant symbol, every point in each."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    labels = (X[:, 1] > 0).astype(int) + (X[:, 1] > 1)
    for fig, title in ((fg.constraints_figure(X, labels, np.array([[0, 1]]),
                                              np.array([[2, 3]]), y_true=y),
                        "clusters (learned kernel)"),
                       (fg.embedding_figure(X, labels, y_true=y), "clusters (learned kernel)"),
                       (fg.partition_figure(X, labels, y=y), "k-means clusters")):
        clusters = [t for t in fig.data if t.legendgroup == "clusters"]
        classes = [t for t in fig.data if t.legendgroup == "classes"]
        assert [t.name for t in clusters] == ["cluster 0", "cluster 1", "cluster 2"]
        assert [t.name for t in classes] == ["class −1", "class +1"]
        assert clusters[0].legendgrouptitle.text == title
        assert classes[0].legendgrouptitle.text == "true classes"
        # clusters are filled dots of their colour; classes hollow shapes, one colour
        assert {t.marker.symbol for t in clusters} == {"circle"}
        assert [t.marker.symbol for t in classes] == ["circle-open", "square-open"]
        assert len({t.marker.color for t in classes}) == 1
        assert sum(len(t.x) for t in clusters) == sum(len(t.x) for t in classes) == 40
        for t, want in zip(classes, (-1, 1), strict=True):
            np.testing.assert_array_equal(t.x, np.float32(X[y == want, 0]))
        # a click hides one entry, not the whole group
        assert fig.layout.legend.groupclick == "toggleitem"
    # without the truth: one group only
    solo = fg.embedding_figure(X, labels)
    assert {t.legendgroup for t in solo.data} == {"clusters"}


def test_regression_curve_and_surface():
    x = np.linspace(0, 1, 30)[:, None]
    y = np.sin(6 * x[:, 0])
    xl = np.linspace(0, 1, 100)
    fig = fg.regression_curve(x, y, xl, np.sin(6 * xl), support=x[::5],
                              others={"SVR": np.zeros(100)}, name="DANK-SVR",
                              train_score=0.01, test_score=0.02)
    names = [t.name for t in fig.data]
    assert names[-1] == "support points" and "DANK-SVR" in names and "SVR" in names
    sv = fig.data[-1]
    assert sv.marker.symbol == "circle-open"
    np.testing.assert_allclose(sv.y, np.sin(6 * x[::5, 0]), atol=1e-2)
    assert "relative error" in fig.layout.annotations[0].text


def test_figures_stay_under_half_a_megabyte_at_defaults(toy):
    Xtr, ytr, Xte, yte, grid, Z = toy
    K = np.exp(-((Xtr[:, None] - Xtr[None]) ** 2).sum(-1) / 2)
    # F close to 1 is the worst case for base64 + escaped "/" in the JSON
    F = 1.0 + 1e-3 * np.outer(ytr, ytr) * K
    surface = fg.decision_surface(grid.xs, grid.ys, Z, Xtr, ytr, Xte, yte, support=Xtr[:40],
                                  baseline=Z * 0.9, click_targets=click_grid(grid),
                                  train_score=1.0, test_score=1.0)
    # the app's four-panel matrix view goes through live_chart, which sends figure_json
    # (no "/" escaping: 436 kB here, 549 kB through plotly.io.to_json)
    four = fg.matrix_triptych(K, F, ytr, difference=True)
    assert len(fg.figure_json(four).encode()) <= MB
    for fig in (surface, fg.matrix_triptych(K, F, ytr), fg.matrix_heatmap(F, ytr),
                fg.spectra_figure({"K": np.linalg.eigvalsh(K), "F": np.linalg.eigvalsh(F),
                                   "F × K": np.linalg.eigvalsh(F * K)}),
                fg.convergence_figure({s: {"objective": np.arange(2000.0),
                                           "step_norm": np.ones(2000)}
                                       for s in ("a", "b", "c")})):
        assert fg.figure_nbytes(fig) <= MB
    big = np.random.default_rng(0).random((700, 700))
    assert fg.figure_nbytes(fg.matrix_triptych(big, big + 1, np.ones(700))) <= MB


def test_plot_config_exports_png():
    cfg = fg.plot_config("x")
    assert cfg["toImageButtonOptions"]["format"] == "png"
    assert cfg["toImageButtonOptions"]["filename"] == "x"


def test_parity_embedding_and_partition_figures_are_valid(toy):
    """The three builders the other tests do not reach, built with validation on."""
    Xtr, ytr, _, _, _, _ = toy
    rng = np.random.default_rng(1)
    labels = (Xtr[:, 0] > 0).astype(int) + (Xtr[:, 1] > 0)
    par = fg.parity_figure(ytr, ytr + 0.1 * rng.normal(size=ytr.size))
    assert [t.type for t in par.data].count("scatter") >= 1
    emb = fg.embedding_figure(Xtr, labels, y_true=ytr)
    assert sum(len(t.x) for t in emb.data if t.x is not None) >= len(Xtr)
    screened = np.zeros(len(Xtr), dtype=bool)
    screened[:5] = True
    part = fg.partition_figure(Xtr, labels, np.array([[0.0, 0.0], [1.0, 1.0], [-1, -1.0]]),
                               y=ytr, screened=screened)
    names = " ".join(t.name or "" for t in part.data)
    assert "centre" in names.lower() or "center" in names.lower()
    for fig in (par, emb, part):
        for _, _, v in _arrays(fig):
            assert np.asarray(v).dtype == np.float32


def _decoded(obj):
    """A figure's JSON with typed arrays decoded to lists (NaN as None)."""
    import base64

    if isinstance(obj, dict):
        if set(obj) >= {"dtype", "bdata"}:
            a = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
            if "shape" in obj:
                a = a.reshape([int(v) for v in str(obj["shape"]).split(",")])
            a = a.astype(float)
            return [None if not np.isfinite(v) else round(float(v), 6)
                    for v in a.ravel()], list(a.shape)
        return {k: _decoded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decoded(v) for v in obj]
    if isinstance(obj, float):
        return round(obj, 6)
    return obj


def test_figure_json_matches_plotly_to_json(toy):
    """The app's fast serialisation carries exactly what plotly.py's to_json does."""
    import json

    Xtr, ytr, Xte, yte, grid, Z = toy
    K = np.exp(-((Xtr[:30, None] - Xtr[None, :30]) ** 2).sum(-1))
    figs = [fg.decision_surface(grid.xs, grid.ys, Z, Xtr, ytr, Xte, yte, support=Xtr[:9],
                                baseline=Z - 0.2, train_score=0.9, test_score=0.8),
            fg.matrix_triptych(K, K * 1.1, np.sign(Xtr[:30, 0])),
            fg.parity_figure(ytr, ytr * 0.9)]
    for fig in figs:
        fast, ref = json.loads(fg.figure_json(fig)), json.loads(fig.to_json())
        assert _decoded(fast) == _decoded(ref)


def test_a_kernel_heatmap_can_keep_one_colour_scale_for_every_sigma():
    """Lesson 1 compares K at σ = 0.05 and σ = 10 ("the colours are almost flat"): with
    zrange=(0, 1) both share the scale instead of each spanning its own range."""
    from nplk_core.datasets import make_clowns
    from nplk_core.kernels import gaussian_kernel

    X, y = make_clowns(60, random_state=0)
    wide = gaussian_kernel(X, sigma=10.0)
    assert wide.min() > 0.8                      # the flat kernel of the lesson
    fixed = fg.matrix_heatmap(wide, y, name="K", center=None, zrange=(0.0, 1.0))
    assert (fixed.data[0].zmin, fixed.data[0].zmax) == (0.0, 1.0)
    own = fg.matrix_heatmap(wide, y, name="K", center=None)
    assert own.data[0].zmin is None and own.data[0].zmax is None


def test_shaded_clusters_fill_their_axes():
    """With the plane shaded by cluster, the axes span exactly the shaded grid and keep
    x and y on one scale by shrinking the plot area: widening an axis's range instead
    leaves white bands beside the shading (seen on Pairwise's clusters)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) * [3.0, 1.0]          # wide: x would be widened
    xs, ys = np.linspace(-9, 9, 40), np.linspace(-3, 3, 20)
    Z = (xs[None, :] > 0).astype(float) + 0 * ys[:, None]
    fig = fg.constraints_figure(X, (X[:, 0] > 0).astype(int), np.empty((0, 2), int),
                                np.empty((0, 2), int), regions=(xs, ys, Z))
    lay = fig.layout
    assert tuple(lay.xaxis.range) == (-9.0, 9.0) and tuple(lay.yaxis.range) == (-3.0, 3.0)
    assert lay.xaxis.constrain == "domain" and lay.yaxis.constrain == "domain"
    assert lay.yaxis.scaleanchor == "x"

