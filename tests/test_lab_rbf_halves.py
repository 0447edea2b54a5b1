"""LAB RBF, both halves: the coefficients fitted to all points
(nplk_core.lab_rbf.lab_fit_alpha_all, lab_ridge_coef) against dense solves and the
paper's fit; the three comparison fits of nplk_lab.model.lab_rbf_halves against
independent computations; the sentences following their numbers; the figure; the
Regression page showing both comparisons; and (slow) the committed measurement
re-measured."""

import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from _components import figure_of
from sklearn.kernel_ridge import KernelRidge

import nplk_lab.figures as fg
from nplk_core.datasets import chirp_function, make_chirp
from nplk_core.lab_rbf import (
    LABRBFRegressor,
    lab_fit_alpha,
    lab_fit_alpha_all,
    lab_kernel,
    lab_ridge_coef,
    lab_ridge_coefs,
)
from nplk_lab.model import lab_rbf_halves as lh

ROOT = Path(__file__).resolve().parents[1]


def _points(seed, m=8, n=60, d=2):
    rng = np.random.default_rng(seed)
    Xs = rng.uniform(-1, 1, (m, d))
    theta = rng.uniform(1.0, 3.0, (m, d))
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=n)
    return Xs, theta, X, y


# ---------------------------------------------------------------------------
# nplk_core: the coefficients fitted to all points
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["gaussian", "laplace"])
@pytest.mark.parametrize("lam", [1e-3, 1e-1])
def test_with_the_support_points_as_all_points_it_is_the_paper_fit(kind, lam):
    Xs, theta, _, _ = _points(0)
    ys = np.random.default_rng(1).normal(size=Xs.shape[0])
    K = lab_kernel(Xs, theta, Xs, kind)
    assert np.linalg.cond(K) < 1e4  # the reduction needs K_sv invertible
    a_paper, b_paper = lab_fit_alpha(Xs, ys, theta, lam=lam, kind=kind)
    a_all, b_all = lab_fit_alpha_all(Xs, theta, Xs, ys, lam=lam, kind=kind)
    assert b_all == pytest.approx(b_paper)
    np.testing.assert_allclose(a_all, a_paper, rtol=1e-7, atol=1e-9)


def test_ridge_coefficients_match_a_dense_augmented_least_squares():
    """(ΦᵀΦ + λP) a = Φᵀ(y − ȳ) with P = LLᵀ symmetric positive definite is
    min ‖Φa − (y − ȳ)‖² + λ‖Lᵀa‖²: the stacked system [Φ; √λ Lᵀ] solved by lstsq."""
    _, _, X, y = _points(2)
    rng = np.random.default_rng(3)
    Phi = np.exp(-rng.uniform(0, 3, (X.shape[0], 8)))
    B = rng.normal(size=(8, 8))
    P = B @ B.T + 0.5 * np.eye(8)
    for lam in (1e-4, 1e-1, 10.0):
        a, b = lab_ridge_coef(Phi, P, y, lam=lam)
        L = np.linalg.cholesky(P)
        A = np.vstack([Phi, np.sqrt(lam) * L.T])
        rhs = np.concatenate([y - y.mean(), np.zeros(8)])
        ref = np.linalg.lstsq(A, rhs, rcond=None)[0]
        assert b == pytest.approx(y.mean())
        np.testing.assert_allclose(a, ref, rtol=1e-8, atol=1e-10)


def test_with_a_vanishing_ridge_it_is_the_least_squares_fit_on_all_points():
    """The extension's coefficients at λ → 0 minimise the squared error over all points:
    never above the paper's coefficients (one particular choice) there, and at the
    least-squares optimum (zero gradient)."""
    Xs, theta, X, y = _points(4)
    ys = y[:Xs.shape[0]]
    Phi = lab_kernel(Xs, theta, X).T
    a, b = lab_fit_alpha_all(Xs, theta, X, y, lam=1e-12)
    a_p, b_p = lab_fit_alpha(Xs, ys, theta, lam=1e-3)
    sse = np.sum((Phi @ a + b - y) ** 2)
    assert sse <= np.sum((Phi @ a_p + b - y) ** 2) + 1e-9
    np.testing.assert_allclose(Phi.T @ (Phi @ a + b - y), 0.0, atol=1e-6)


# ---------------------------------------------------------------------------
# nplk_lab.model: the three comparison fits
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def noisy_chirp():
    X, y = make_chirp(120, f0=1.0, f1=6.0, noise=0.1, random_state=0)
    grid = np.linspace(0, 1, 400)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LABRBFRegressor(n_support=15, max_iter=200, random_state=0).fit(X, y)
    return m, X, y, grid, chirp_function(grid[:, 0], 1.0, 6.0)


def test_shared_bandwidth_is_the_paper_fit_at_the_validation_best_width(noisy_chirp):
    m, X, y, grid, _ = noisy_chirp
    predict, t = lh.shared_bandwidth(m, X, y)
    Z = m._scale(X)
    Xs, ys, val = Z[m.support_], y[m.support_], m.validation_
    assert val.size > 0

    def val_mse(tt):
        th = np.full(Xs.shape, tt)
        a, b = lab_fit_alpha(Xs, ys, th, lam=m.lam)
        return np.mean((lab_kernel(Xs, th, Z[val]).T @ a + b - y[val]) ** 2), (th, a, b)
    errs = [val_mse(tt)[0] for tt in lh._thetas(m)]
    assert val_mse(t)[0] == pytest.approx(min(errs))
    th, a, b = val_mse(t)[1]
    np.testing.assert_allclose(predict(grid), lab_kernel(Xs, th, m._scale(grid)).T @ a + b)


def test_one_bandwidth_ridge_with_every_point_a_centre_is_kernel_ridge():
    """Subset of regressors with the centres = the data is kernel ridge: (K² + μK)a = Ky
    gives (K + μI)⁻¹y (scikit-learn's KernelRidge, γ = θ²)."""
    X, y = make_chirp(40, f0=1.0, f1=3.0, noise=0.05, random_state=5)
    fake = SimpleNamespace(support_=np.arange(40), validation_=np.arange(0, 40, 4),
                           bandwidth_bounds_=(0.0, 8.0), _scale=lambda Z: Z)
    predict, (t, mu) = lh.one_bandwidth_ridge(fake, X, y)
    assert t <= 8.0 and mu in lh.MU_GRID
    Z = np.linspace(0, 1, 50)[:, None]
    ref = KernelRidge(kernel="rbf", gamma=t * t, alpha=mu).fit(X, y - y.mean())
    np.testing.assert_allclose(predict(Z), ref.predict(Z) + y.mean(), atol=2e-3)



@pytest.fixture(scope="module")
def page_training_set():
    """The Regression page's default data (its training split: 140 points)."""
    from nplk_lab.model.data import REGRESSION, prepare_data

    data, _ = prepare_data({}, REGRESSION)
    return data.X_train, data.y_train, data.X_test


def _reference_choice(m, X, y):
    """The comparison's grid scored by the route before (one eigendecomposition per
    width, features by triangular solves): errors, first best (t, mu), and the pieces
    to refit."""
    from nplk_core.lab_rbf import _weighted_sq_dist
    from nplk_core.lab_rbf_width import _ridge_path_errors_eigh

    Z = m._scale(X)
    C = Z[m.support_]
    S = _weighted_sq_dist(C, np.ones_like(C), Z).T
    S_cc = _weighted_sq_dist(C, np.ones_like(C), C)
    fit, val = lh._split(m, y.size)
    thetas = lh._thetas(m)
    E = _ridge_path_errors_eigh(S[fit], S_cc, y[fit], S[val], y[val], thetas, lh.MU_GRID)
    i, j = np.unravel_index(int(np.argmin(E)), E.shape)
    return E, (float(thetas[i]), float(lh.MU_GRID[j])), (C, S, S_cc)


def _route_errors(monkeypatch):
    """Record what either route of the comparison returns."""
    import nplk_core.lab_rbf_width as lw

    seen = []
    for name in ("ridge_path_errors", "ridge_path_errors_on_centres"):
        f = getattr(lw, name)
        monkeypatch.setattr(lw, name, lambda *a, _f=f, _n=name, **k:
                            seen.append((_n, _f(*a, **k))) or seen[-1][1])
    return seen


def _same_as_reference(m, X, y, X_test, monkeypatch, route):
    from nplk_core.lab_rbf_width import ridge_path_fit

    seen = _route_errors(monkeypatch)
    predict, (t, mu) = lh.one_bandwidth_ridge(m, X, y)
    E_ref, pair, (C, S, S_cc) = _reference_choice(m, X, y)
    assert (t, mu) == pair
    assert [name for name, _ in seen] == [route]
    eps = np.finfo(float).eps
    tol = 1e-12 + 20 * eps * y.size / lh.MU_GRID[None, :]
    assert np.all(np.abs(seen[0][1] - E_ref) <= tol * E_ref)
    J, a, b = ridge_path_fit(S, S_cc, y, t, mu)
    ref = lab_kernel(C[J], np.full(C[J].shape, t), m._scale(X_test)).T @ a + b
    np.testing.assert_array_equal(predict(X_test), ref)


@pytest.mark.parametrize("n_support, lam", [(60, 1e-3), (120, 1e-6), (135, 0.03),
                                            (140, 5e-4), (171, 0.03), (200, 7e-6)])
def test_one_bandwidth_ridge_on_the_page_s_data_chooses_the_reference_pair(
        page_training_set, n_support, lam, monkeypatch):
    """The page's data across the support counts: with points held out, the general
    (tridiagonal) route; at a count the training set cannot fill, every training point
    is a centre and nothing is held out, the route on the centres. Either chooses the
    pair the route before chooses (kept as the reference), with the same errors up to
    round-off and the same refitted predictions."""
    X, y, X_test = page_training_set
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LABRBFRegressor(n_support=n_support, lam=lam, random_state=0).fit(X, y)
    every = m.support_.size == y.size and np.size(m.validation_) == 0
    assert every == (n_support >= y.size)
    _same_as_reference(m, X, y, X_test, monkeypatch,
                       "ridge_path_errors_on_centres" if every else "ridge_path_errors")


@pytest.mark.parametrize("name", [pytest.param(k, marks=[] if k == "step" else pytest.mark.slow)
                                  for k in lh.SETS])
def test_one_bandwidth_ridge_on_the_measured_data_sets_chooses_the_reference_pair(
        name, monkeypatch):
    """The halves measurement's own fits (``measure``: 30 support points, seed 0): the
    pair and errors of the route before."""
    from nplk_core.lab_rbf import LABRBFRegressor as Reg

    X, y, X_test, _, _ = lh.draw(name, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = Reg(n_support=30, random_state=0).fit(X, y)
    _same_as_reference(m, X, y, X_test, monkeypatch, "ridge_path_errors")



def test_shared_bandwidth_with_every_point_a_support_point_on_the_page_s_data(
        page_training_set):
    """Nothing held out and every training point a support point: the validation points
    are the support points (their kernel columns are read from the support kernel), and
    the width is still the one whose paper's fit, solved by the paper's equation, has the
    smallest error on them; the fit predicts as that one."""
    X, y, X_test = page_training_set
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LABRBFRegressor(n_support=171, lam=0.03, random_state=0).fit(X, y)
    assert m.support_.size == y.size and np.size(m.validation_) == 0
    predict, t = lh.shared_bandwidth(m, X, y)
    Z = m._scale(X)
    Xs, ys = Z[m.support_], y[m.support_]

    def val_mse(tt):
        th = np.full(Xs.shape, tt)
        a, b = lab_fit_alpha(Xs, ys, th, lam=m.lam)
        return np.mean((lab_kernel(Xs, th, Z).T @ a + b - y) ** 2), (th, a, b)
    errs = [val_mse(tt)[0] for tt in lh._thetas(m)]
    assert val_mse(t)[0] == pytest.approx(min(errs), rel=1e-9)
    th, a, b = val_mse(t)[1]
    np.testing.assert_allclose(predict(X_test), lab_kernel(Xs, th, m._scale(X_test)).T @ a + b,
                               rtol=1e-9, atol=1e-9)

def test_learned_ridge_uses_the_learned_widths_and_the_validation_best_ridge(noisy_chirp):
    m, X, y, grid, _ = noisy_chirp
    predict, mu = lh.learned_ridge(m, X, y)
    Z = m._scale(X)
    val = m.validation_
    fit = np.setdiff1d(np.arange(y.size), val)

    def val_mse(u):
        a, b = lab_fit_alpha_all(m._support_scaled, m.bandwidths_scaled_, Z[fit], y[fit],
                                 lam=u)
        return np.mean((lab_kernel(m._support_scaled, m.bandwidths_scaled_, Z[val]).T @ a
                        + b - y[val]) ** 2)
    assert val_mse(mu) == pytest.approx(min(val_mse(u) for u in lh.MU_GRID))
    a, b = lab_fit_alpha_all(m._support_scaled, m.bandwidths_scaled_, Z, y, lam=mu)
    np.testing.assert_allclose(
        predict(grid), lab_kernel(m._support_scaled, m.bandwidths_scaled_,
                                  m._scale(grid)).T @ a + b, atol=1e-8)


def test_halves_scores_the_four_fits_and_labels_the_extension(noisy_chirp):
    m, X, y, grid, g = noisy_chirp
    h = lh.halves(m, X, y, grid, g)
    rel = np.sum((m.predict(grid) - g) ** 2) / np.sum((g - g.mean()) ** 2)
    assert h.errors["learned"] == pytest.approx(rel)
    assert set(h.errors) == {k for k, _ in lh.FITS}
    assert all(np.isfinite(v) and v >= 0 for v in h.errors.values())
    rows = h.table()
    assert [r["fit"] for r in rows] == [label for _, label in lh.FITS]
    assert "the lab's extension, not the paper's" in rows[3]["fit"]
    assert "extension" in lh.SHORT["extension"]


def test_halves_when_every_training_point_is_a_support_point():
    """n_support above n (the page with few points): no validation points, no
    non-support points; every fit still chooses (on the training points) and scores."""
    X, y = make_chirp(20, f0=1.0, f1=3.0, noise=0.05, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LABRBFRegressor(n_support=30, max_iter=50).fit(X, y)
    assert m.support_.size == 20 and m.validation_.size == 0
    Xt, yt = make_chirp(30, f0=1.0, f1=3.0, random_state=2)
    h = lh.halves(m, X, y, Xt, yt)
    assert all(np.isfinite(v) for v in h.errors.values()), h.errors


@pytest.mark.parametrize("errors, words", [
    ({"learned": 0.1, "shared": 0.5, "ridge": 0.05, "extension": 0.07},
     ["error is lower than one shared", "error is higher than a one-width",
      "an error lower than the paper's fit and higher than the one-width ridge"]),
    ({"learned": 0.5, "shared": 0.1, "ridge": 0.6, "extension": 0.55},
     ["error is higher than one shared", "error is lower than a one-width",
      "an error higher than the paper's fit and lower than the one-width ridge"]),
])
def test_the_draw_sentence_follows_the_numbers(errors, words):
    s = lh.Halves(errors, {}).sentence()
    for w in words:
        assert w in s, (w, s)


def test_the_domain_sentence_carries_the_measured_numbers():
    s = lh.domain_sentence()
    meas = lh.MEASURED
    a = sum(meas[k]["wins"]["a"] for k in lh.SETS)
    b = sum(meas[k]["wins"]["b"] for k in lh.NOISY)
    for text in (f"of {len(lh.SETS)} data sets", "30 support points",
                 f"{meas['chirp']['mean']['learned']:.3f} against "
                 f"{meas['chirp']['mean']['shared']:.3f}",
                 f"at {b} of 40 draws", "not the paper's method"):
        assert text in s, (text, s)
    assert f"at {a} of 50 draws" in s
    not_clear = [lh.SETS[k] for k in lh.SETS if meas[k]["verdicts"]["a"] != "holds"]
    assert ("but not on " + " and ".join(not_clear)) in s if not_clear else "but not" not in s
    for name in lh.SETS.values():
        assert name in s
    # other numbers, other words: the sentence is computed, not written in
    other = {k: {**v, "wins": dict(v["wins"]), "verdicts": dict(v["verdicts"])}
             for k, v in meas.items()}
    other["chirp"]["wins"]["b"] = 7
    other["sin"]["verdicts"]["c2"] = "holds"
    other["chirp0"]["verdicts"]["b"] = "holds"
    for k in lh.SETS:
        other[k]["verdicts"]["a"] = "holds"
    t = lh.domain_sentence(other)
    assert f"at {b + 7} of 40 draws" in t
    assert "it beats both clearly on sin 2x³ (noise 0.1)" in t
    assert "includes 0" in s and "includes 0" not in t
    assert "above 0, on every data set." in t


def test_halves_figure_one_dot_per_finite_error_on_a_log_axis():
    labels = ["a", "b", "c", "d"]
    fig = fg.halves_figure(labels, [0.1, np.nan, 0.02, 0.5], groups=["x", "x", "y", "y"])
    assert fig.layout.xaxis.type == "log"
    ys = [list(t.y) for t in fig.data]
    assert ys == [["a"], ["c", "d"]]
    assert [t.name for t in fig.data] == ["x", "y"]
    np.testing.assert_allclose(np.concatenate([np.asarray(t.x) for t in fig.data]),
                               [0.1, 0.02, 0.5], rtol=1e-6)


# ---------------------------------------------------------------------------
# the Regression page
# ---------------------------------------------------------------------------

def test_regression_page_shows_both_halves_for_lab_rbf_only():
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))

    def page(method):
        at = AppTest.from_file(str(ROOT / "pages/2_Regression.py"), default_timeout=180)
        for k, v in {"n_samples": "80", "reg_dataset": "chirp", "reg_method": method}.items():
            at.query_params[k] = v
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    at = page("lab_rbf_reg")
    md = "\n".join(e.value for e in at.markdown)
    caps = "\n".join(e.value for e in at.caption)
    assert "Learned widths, and where the paper" in md
    for _, label in lh.FITS:   # the table (markdown-escaped cells)
        assert label.split(",")[0] in md
    assert "the lab\\'s extension, not the paper\\'s" in md \
        or "the lab's extension, not the paper's" in md
    assert "On this draw, inside the paper's model the learned widths" in md
    assert lh.domain_sentence() in caps
    figs = [figure_of(e) for e in at.get("bidi_component")]
    names = {t.get("name") for f in figs if f for t in f.get("data", [])}
    assert lh.GROUP["ridge"] in names and lh.GROUP["learned"] in names
    other = page("svr")
    assert "Learned widths, and where the paper" not in "\n".join(
        e.value for e in other.markdown)


def test_the_panel_imports_no_scikit_learn_until_it_computes():
    """The Regression page reaches ``ui.lab_rbf_panel`` on every run; a page replayed from
    its first-paint snapshot must not import scikit-learn (nplk_lab/serve/firstpaint.py), so
    neither the panel nor the model module may import it before a fit is compared."""
    import subprocess

    code = (f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
            "import nplk_lab.ui as ui\nui.lab_rbf_panel\n"
            "from nplk_lab.model import lab_rbf_halves as lh\nlh.domain_sentence()\n"
            "print('sklearn' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


# ---------------------------------------------------------------------------
# the committed measurement
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", list(lh.SETS))
def test_measured_numbers_are_what_the_benchmark_measures(name):
    """MEASURED (the sentence's numbers) against a re-measurement at seeds 0-9
    (``python benchmarks/bench_lab_rbf_halves.py``)."""
    r2 = {k: [] for k, _ in lh.FITS}
    for seed in range(10):
        for k, v in lh.measure(name, seed).r2().items():
            r2[k].append(v)
    assert lh.summary(r2, lh.draw(name, 0)[4]) == lh.MEASURED[name]


@pytest.mark.parametrize("n_support", [65, 200])
def test_the_comparison_is_drawn_at_every_support_count_without_a_press(n_support):
    """The one-width search costs one factor per width (nplk_core.lab_rbf_width), so the
    comparison is computed with the fit at any support count the slider allows (200 is
    capped at the training size), with no button, and a rerun keeps it (cached)."""
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    at = AppTest.from_file(str(ROOT / "pages/2_Regression.py"), default_timeout=180)
    for k, v in {"n_samples": "200", "reg_dataset": "chirp", "reg_method": "lab_rbf_reg",
                 "n_support": str(n_support)}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    md = "\n".join(e.value for e in at.markdown)
    assert "Learned widths, and where the paper" in md and "On this draw" in md
    assert "relative test error" in md
    assert not [b for b in at.button if b.key == "regression_lab_halves_go"]
    at.run()
    assert "On this draw" in "\n".join(e.value for e in at.markdown)


def _ridge_choose_by_loop(Phi, P, y, fit, val):
    """The extension's choice as it was made: one lab_ridge_coef per ridge."""
    best = (np.inf, None)
    for mu in lh.MU_GRID:
        with np.errstate(all="ignore"):
            a, b = lab_ridge_coef(Phi[fit], P, y[fit], lam=mu)
            err = lh._mse(Phi[val] @ a + b, y[val])
        if err < best[0]:
            best = (err, mu)
    return best


@pytest.mark.parametrize("case", ["page-60", "page-171", "step", "diabetes"])
def test_the_extension_s_ridge_choice_is_the_loop_s_to_the_last_bit(case, page_training_set):
    """The Gram matrix and right-hand side formed once for the twelve ridges
    (lab_ridge_coefs): the same validation error and ridge, bit for bit, as one
    lab_ridge_coef per ridge, on the page's data (some points held out; every point a
    support point) and two of the measured data sets."""
    if case.startswith("page"):
        X, y, _ = page_training_set
        n_support, seed = int(case.split("-")[1]), 0
    else:
        X, y = lh.draw(case, 0)[:2]
        n_support, seed = 30, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LABRBFRegressor(n_support=n_support, random_state=seed).fit(X, y)
    Z = m._scale(X)
    Phi = lab_kernel(m._support_scaled, m.bandwidths_scaled_, Z).T
    P = lab_kernel(m._support_scaled, m.bandwidths_scaled_, m._support_scaled)
    fit, val = lh._split(m, y.size)
    assert lh._ridge_choose(Phi, P, y, fit, val) == _ridge_choose_by_loop(Phi, P, y, fit, val)
    coefs, b = lab_ridge_coefs(Phi[fit], P, y[fit], lh.MU_GRID)
    for mu, a in zip(lh.MU_GRID, coefs, strict=True):
        a_ref, b_ref = lab_ridge_coef(Phi[fit], P, y[fit], lam=mu)
        np.testing.assert_array_equal(a, a_ref)
        assert b == b_ref


def test_the_shared_width_s_cholesky_is_scipy_s_bit_for_bit():
    """The shared width's solve calls LAPACK directly: the same numbers as
    scipy.linalg.cho_solve(cho_factor(.)), and the same errors for the fallback."""
    import scipy.linalg

    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, 60)
    for t, lam in ((3.0, 1e-3), (30.0, 1e-6), (0.3, 1e-2)):
        A = np.exp(-t * t * (x[:, None] - x[None, :]) ** 2) + lam * np.eye(60)
        b = rng.normal(size=60)
        ref = scipy.linalg.cho_solve(scipy.linalg.cho_factor(A, check_finite=True), b)
        np.testing.assert_array_equal(lh._cho_solve_checked(A.copy(), b), ref)
    with pytest.raises(np.linalg.LinAlgError):
        lh._cho_solve_checked(-np.eye(3), np.ones(3))
    with pytest.raises(ValueError):
        lh._cho_solve_checked(np.eye(3) * np.nan, np.ones(3))
