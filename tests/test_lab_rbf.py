"""LAB RBF (*Enhancing Kernel Flexibility via Learning Asymmetric Locally-Adaptive
Kernels*; docs/the-maths-of-every-method.md, "LAB RBF"): kernel definition, exact
gradients, asymmetric KRR interpolation, dynamic support selection, scikit-learn contract.
The cheaper exact evaluation and the fit reaching its optimum are in
``test_lab_rbf_optimum.py``."""

import warnings

import numpy as np
import pytest
from _numeric import central_differences
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import r2_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from nplk_core.lab_rbf import (
    LABRBFClassifier,
    LABRBFRegressor,
    lab_fit_alpha,
    lab_kernel,
    lab_loss_and_grad,
)

try:
    from nplk_core.datasets import chirp_function, make_chirp
except ImportError:  # pragma: no cover - the datasets module lands separately
    def chirp_function(x, f0=1.0, f1=10.0):
        x = np.asarray(x, dtype=float)
        return np.sin(2 * np.pi * (f0 * x + 0.5 * (f1 - f0) * x ** 2))

    def make_chirp(n_samples=300, *, f0=1.0, f1=10.0, noise=0.0, random_state=None):
        rng = np.random.default_rng(random_state)
        x = rng.uniform(0.0, 1.0, n_samples)
        return x[:, None], chirp_function(x, f0, f1) + noise * rng.standard_normal(n_samples)


KINDS = ["gaussian", "laplace"]
# short max_iter in most tests; the warning itself is tested in test_max_iter_warns
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _problem(seed, m=6, n=25, d=3):
    rng = np.random.default_rng(seed)
    Xs = rng.uniform(-1, 1, (m, d))
    ys = rng.normal(size=m)
    Xt = rng.uniform(-1, 1, (n, d))
    yt = rng.normal(size=n)
    theta = rng.uniform(0.3, 2.0, (m, d))
    return theta, Xs, ys, Xt, yt


# ---------------------------------------------------------------------------
# pure functions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_kernel_matches_definition_and_is_asymmetric(kind):
    theta, Xs, _, Xt, _ = _problem(0)
    K = lab_kernel(Xs, theta, Xt, kind)
    ref = np.empty((Xs.shape[0], Xt.shape[0]))
    for i in range(Xs.shape[0]):
        for j in range(Xt.shape[0]):
            r2 = np.sum((theta[i] * (Xs[i] - Xt[j])) ** 2)
            ref[i, j] = np.exp(-r2) if kind == "gaussian" else np.exp(-np.sqrt(r2))
    np.testing.assert_allclose(K, ref, rtol=1e-13)
    K_sv = lab_kernel(Xs, theta, Xs, kind)
    np.testing.assert_array_equal(np.diag(K_sv), 1.0)
    assert np.abs(K_sv - K_sv.T).max() > 1e-3  # the bandwidth belongs to the row point


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gradient_matches_central_differences(kind, seed):
    theta, Xs, ys, Xt, yt = _problem(seed)
    lam = 1e-2
    loss, grad = lab_loss_and_grad(theta, Xs, ys, Xt, yt, lam=lam, kind=kind)
    fd = central_differences(
        lambda th: lab_loss_and_grad(th, Xs, ys, Xt, yt, lam=lam, kind=kind)[0], theta)
    assert np.isfinite(loss) and loss > 0
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-5 * np.abs(fd).max())


@pytest.mark.parametrize("kind", KINDS)
def test_loss_is_the_mean_squared_error_of_the_krr_fit(kind):
    theta, Xs, ys, Xt, yt = _problem(4)
    alpha, beta0 = lab_fit_alpha(Xs, ys, theta, lam=1e-3, kind=kind)
    f = lab_kernel(Xs, theta, Xt, kind).T @ alpha + beta0
    loss, _ = lab_loss_and_grad(theta, Xs, ys, Xt, yt, lam=1e-3, kind=kind)
    assert loss == pytest.approx(np.mean((f - yt) ** 2), rel=1e-12)
    assert beta0 == pytest.approx(ys.mean())


@pytest.mark.parametrize("kind", KINDS)
def test_krr_residual_on_support_is_minus_lam_alpha_and_vanishes(kind):
    theta, Xs, ys, _, _ = _problem(5, m=12)
    errs = []
    for lam in [1e-1, 1e-3, 1e-5, 1e-7]:
        alpha, beta0 = lab_fit_alpha(Xs, ys, theta, lam=lam, kind=kind)
        f = lab_kernel(Xs, theta, Xs, kind).T @ alpha + beta0
        np.testing.assert_allclose(f - ys, -lam * alpha, atol=1e-10)
        errs.append(np.abs(f - ys).max())
    assert errs[-1] < 1e-5
    assert all(a > b for a, b in zip(errs, errs[1:], strict=False))


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def chirp():
    # frequency 1 -> 15 cycles per unit: one global bandwidth cannot serve both ends
    X, y = make_chirp(300, f0=1.0, f1=15.0, noise=0.0, random_state=0)
    Xte, _ = make_chirp(1000, f0=1.0, f1=15.0, noise=0.0, random_state=1)
    return X, y, Xte, chirp_function(Xte[:, 0], 1.0, 15.0)


@pytest.fixture(scope="module")
def chirp_model(chirp):
    X, y, _, _ = chirp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LABRBFRegressor(n_support=30, random_state=0).fit(X, y)


def test_validation_points_are_a_fifth_of_the_non_support_points(chirp_model):
    # round(0.2 * (300 - 30)) = 54, spread evenly over the data order
    v = chirp_model.validation_
    assert v.size == 54 and np.unique(v).size == 54
    assert np.all(np.diff(v) >= 5) and v[0] < 6 and v[-1] > 293


def test_dynamic_selection_grows_to_n_support(chirp_model):
    m = chirp_model
    np.testing.assert_array_equal(m.stages_["support_size"], [10, 20, 30])
    assert m.support_.size == 30 and np.unique(m.support_).size == 30
    assert m.bandwidths_.shape == m.support_vectors_.shape == (30, 1)
    h = m.history_
    assert all(v.size == m.n_iter_ for v in h.values())
    assert m.n_iter_ == m.stages_["n_iter"].sum()
    # the stage column changes exactly at the recorded stage boundaries
    starts = np.flatnonzero(np.diff(h["stage"], prepend=-1))
    np.testing.assert_array_equal(starts, m.stages_["first_iteration"])
    np.testing.assert_array_equal(h["support_size"][starts], [10, 20, 30])
    # L-BFGS-B is monotone within a stage
    for s in range(3):
        loss = h["loss"][h["stage"] == s]
        assert np.all(np.diff(loss) <= 1e-12)
        assert loss[-1] <= m.stages_["loss_start"][s]


def test_dynamic_selection_adds_the_largest_errors(chirp, chirp_model):
    X, y, _, _ = chirp
    m = chirp_model
    staged = list(m.staged_predict(X))
    assert len(staged) == 3
    for s, size in enumerate([10, 20]):
        # candidates: the training points, neither support nor validation points
        rest = np.setdiff1d(np.arange(X.shape[0]), np.union1d(m.support_[:size], m.validation_))
        err = np.abs(staged[s][rest] - y[rest])
        added = m.support_[size:size + 10]
        assert set(added) == set(rest[np.argsort(-err)[:10]])
    np.testing.assert_allclose(staged[-1], m.predict(X))


def test_initial_support_is_evenly_spaced_in_sorted_y(chirp, chirp_model):
    X, y, _, _ = chirp
    m = chirp_model
    pool = np.setdiff1d(np.arange(y.size), m.validation_)  # validation points never support
    assert np.intersect1d(m.support_, m.validation_).size == 0
    ranks = np.argsort(np.argsort(y[pool], kind="stable"), kind="stable")
    first = np.searchsorted(pool, m.support_[:10])
    np.testing.assert_array_equal(np.sort(ranks[first]),
                                  np.round(np.linspace(0, pool.size - 1, 10)))


@pytest.mark.slow
def test_beats_single_bandwidth_krr_on_the_same_support_set(chirp, chirp_model):
    """Fig. 1 of the LAB RBF paper: on a chirp, per-point bandwidths beat any single bandwidth.

    Compared at equal support: scikit-learn RBF KRR on LAB's own 30 support points,
    with gamma and alpha chosen on the TEST data (an oracle). Measured on this seed:
    LAB 0.991 vs oracle KRR 0.891 with SciPy 1.17 (0.998 vs 0.972 with SciPy 1.13: the
    support set is path-dependent, and SciPy 1.15 ported L-BFGS-B from Fortran to C);
    over the chirp seeds 0-4 LAB is 0.975-0.999 and the margin 0.10-0.40, median 0.24
    (SciPy 1.13: 0.996-0.998, 0.03-0.40, median 0.19). Before every later stage could
    start from one shared bandwidth, seed 1 was at 0.846 with SciPy >= 1.15 (0.934 with
    1.13). (RBF KRR on all 300 noiseless points reaches
    R² > 0.999 on this chirp: a 30-point model does not beat that, see
    benchmarks/bench_lab_rbf.py.)"""
    X, y, Xte, yte = chirp

    def margin(m, X, y):
        sv, ysv = X[m.support_], y[m.support_]
        best = max(r2_score(yte, KernelRidge(kernel="rbf", gamma=g, alpha=a).fit(sv, ysv)
                            .predict(Xte))
                   for g in np.logspace(-1, 5, 31) for a in [1e-8, 1e-6, 1e-4, 1e-2, 1])
        return r2_score(yte, m.predict(Xte)), best

    r2_lab, best = margin(chirp_model, X, y)
    assert r2_lab > 0.95
    assert r2_lab > best
    margins = []
    for seed in range(1, 5):
        Xs, ys = make_chirp(300, f0=1.0, f1=15.0, noise=0.0, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = LABRBFRegressor(n_support=30, random_state=0).fit(Xs, ys)
        lab, krr = margin(m, Xs, ys)
        assert lab > 0.95 and lab > krr
        margins.append(lab - krr)
    assert np.median([r2_lab - best] + margins) > 0.05


def _sin_toy(n, seed):
    """The LAB RBF paper's Fig. 1 function: ``sin(2 x^3)`` on ``[0, 0.8 pi]``, noise 0.1."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 0.8 * np.pi, n)
    grid = np.linspace(0.0, 0.8 * np.pi, 1000)
    return x[:, None], np.sin(2 * x ** 3) + 0.1 * rng.standard_normal(n), grid[:, None], \
        np.sin(2 * grid ** 3)


def _chirp_toy(n, seed):
    X, y = make_chirp(n, f0=1.0, f1=10.0, noise=0.1, random_state=seed)
    grid = np.linspace(0.0, 1.0, 1000)
    return X, y, grid[:, None], chirp_function(grid, 1.0, 10.0)


def _r2(y, pred):
    return 1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)


_GAMMAS = np.logspace(-1, 6, 57)


def _best_krr_r2(Xs, ys, Xte, yte, gammas=_GAMMAS,
                 alphas=(1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)):
    """The reference: RBF kernel ridge on the given points, gamma and alpha (and whether
    to centre y) chosen by R² on the TEST grid: an oracle no fitted model can use.
    Closed form per gamma, ``coef = V (w + alpha)^-1 V^T y`` from ``K = V diag(w) V^T``
    (checked against scikit-learn's KernelRidge below)."""
    sq = (Xs[:, None, 0] - Xs[None, :, 0]) ** 2
    sq_te = (Xte[:, None, 0] - Xs[None, :, 0]) ** 2
    best = -np.inf
    for g in gammas:
        w, V = np.linalg.eigh(np.exp(-g * sq))
        K_te = np.exp(-g * sq_te) @ V
        for off in (0.0, ys.mean()):
            Vy = V.T @ (ys - off)
            for a in alphas:
                best = max(best, _r2(yte, K_te @ (Vy / (w + a)) + off))
    return best


def test_best_krr_reference_matches_scikit_learn():
    X, y, Xte, yte = _sin_toy(40, 0)
    for g in (0.3, 10.0, 300.0):
        for a in (1e-6, 1e-2):
            ref = [r2_score(yte, KernelRidge(kernel="rbf", gamma=g, alpha=a)
                            .fit(X, y - off).predict(Xte) + off) for off in (0.0, y.mean())]
            assert _best_krr_r2(X, y, Xte, yte, [g], [a]) == pytest.approx(max(ref), rel=1e-6)


@pytest.mark.parametrize("make, n, n_support, seed", [
    (_sin_toy, 300, 30, 0), (_sin_toy, 300, 30, 1),
    (_chirp_toy, 300, 30, 0), (_chirp_toy, 300, 30, 4),
    (_chirp_toy, 100, 20, 3),  # R² -8.2 before the validation and the bounds
    (_chirp_toy, 100, 20, 0),  # no support left of x = 0.3 if the stages stop early;
    # R² 0.70 with SciPy >= 1.15 before a stage could start from one shared bandwidth
])
@pytest.mark.slow
def test_default_is_not_below_the_best_single_bandwidth_krr_on_its_supports(
        make, n, n_support, seed):
    """The claim against one bandwidth on the authors' toys (noise 0.1, R² on a 1,000-point
    noiseless grid): LAB RBF with default options against the best one-bandwidth KRR on the
    same support points. All 5 seeds of both toys at both sizes: benchmarks/bench_lab_rbf.py
    (worst margin +0.047 at n = 300, +0.038 at n = 100; before, chirp n = 300 seed 4 was
    0.12 below and chirp n = 100 seed 3 at R² -8.2). The sanity floor is R² > 0.85: chirp
    n = 300 seed 4 sits at 0.89 (0.903 before the faster exact evaluation, whose rounding
    takes L-BFGS-B down another path of this non-convex loss; 0.157 above the KRR)."""
    X, y, Xte, yte = make(n, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = LABRBFRegressor(n_support=n_support).fit(X, y)
    assert m.support_.size == n_support
    r2 = r2_score(yte, m.predict(Xte))
    assert r2 > 0.85
    assert r2 >= _best_krr_r2(X[m.support_], y[m.support_], Xte, yte) - 1e-3


def test_a_stage_starts_no_worse_than_one_shared_bandwidth_on_its_supports():
    """Each later stage starts from the inherited bandwidths or from the best shared one
    on its new support set (the bandwidth_init="auto" grid), whichever has the smaller
    training loss. On chirp n = 100 seed 0 the inherited start of stage 1 has loss 0.324
    against 0.288 for the shared one; from the inherited start SciPy >= 1.15's L-BFGS-B
    ends at loss 0.206 and R² 0.70 (SciPy 1.13: 0.026 and 0.98), from the shared one at
    R² 0.97 with both."""
    import nplk_core.lab_rbf as mod

    X, y, _, _ = _chirp_toy(100, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = LABRBFRegressor(n_support=20).fit(X, y)
    Xz = (X - m.x_center_) / m.x_scale_
    grid = np.clip(m.bandwidth_init_ * mod._AUTO_FACTORS, *m.bandwidth_bounds_)
    sizes = m.stages_["support_size"].astype(int)
    assert sizes.size >= 2
    for s in range(1, sizes.size):
        sv = m.support_[:sizes[s]]
        rest = np.setdiff1d(np.arange(y.size), np.union1d(sv, m.validation_))
        # the loss in the estimator's units (standardised y): MSE / var(y)
        shared = min(lab_loss_and_grad(np.full((sv.size, 1), t), Xz[sv], y[sv], Xz[rest],
                                       y[rest], lam=m.lam)[0] for t in grid) / y.var()
        assert m.stages_["loss_start"][s] <= shared * (1 + 1e-9)
    assert m.stages_["shared_start"][0] == 0 and m.stages_["shared_start"][1:].any()


def _val_loss(m, X, y, theta=None):
    """Validation loss in the estimator's units (standardised y) from the public
    attributes; with ``theta`` (internal units), of that bandwidth on m's supports."""
    v = m.validation_
    if theta is None:
        pred = m.predict(X[v])
    else:
        Xs = (m.support_vectors_ - m.x_center_) / m.x_scale_
        alpha, b = lab_fit_alpha(Xs, y[m.support_], theta, lam=m.lam)
        pred = lab_kernel(Xs, theta, (X[v] - m.x_center_) / m.x_scale_).T @ alpha + b
    return np.mean((pred - y[v]) ** 2) / y.var()


@pytest.mark.parametrize("make, seed", [(_sin_toy, 2), (_chirp_toy, 1)])
def test_the_fit_is_the_best_validation_iterate_and_beats_the_shared_bandwidth(make, seed):
    import nplk_core.lab_rbf as mod

    X, y, _, _ = make(150, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = LABRBFRegressor(n_support=20).fit(X, y)
    final = _val_loss(m, X, y)
    # the shared-bandwidth candidate, rebuilt here: the grid value with the smallest loss
    # on the training points (neither support nor validation)
    rest = np.setdiff1d(np.arange(y.size), np.union1d(m.support_, m.validation_))
    Xz = (X - m.x_center_) / m.x_scale_
    grid = np.clip(m.bandwidth_init_ * mod._AUTO_FACTORS, *m.bandwidth_bounds_)
    ys = y[m.support_]
    losses = [lab_loss_and_grad(np.full((20, 1), t), Xz[m.support_], ys, Xz[rest], y[rest],
                                lam=m.lam)[0] for t in grid]
    shared = _val_loss(m, X, y, np.full((20, 1), grid[int(np.argmin(losses))]))
    assert final <= shared + 1e-12
    if m.fallback_global_:
        assert np.ptp(m.bandwidths_scaled_) == 0
    else:
        # the validation loss recorded for the last stage is the fit's, and no iterate of
        # that stage did better
        last = m.history_["stage"] == m.history_["stage"][-1]
        assert final == pytest.approx(m.stages_["val_loss"][-1], rel=1e-9)
        assert final <= np.nanmin(m.history_["val_loss"][last]) + 1e-12


def test_bandwidths_stay_below_the_data_spacing_bound(chirp_model, chirp):
    X, _, _, _ = chirp
    m = chirp_model
    Xz = (X - m.x_center_) / m.x_scale_
    D = np.abs(Xz - Xz.T)
    np.fill_diagonal(D, np.inf)
    assert m.bandwidth_bounds_ == pytest.approx((0.0, 3.0 / np.median(D.min(axis=1))))
    assert np.all(m.bandwidths_scaled_ >= 0)
    assert np.all(m.bandwidths_scaled_ <= m.bandwidth_bounds_[1] * (1 + 1e-12))
    # without bounds and validation (the paper's procedure) the same data run past it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        free = LABRBFRegressor(n_support=30, bandwidth_bounds=None, validation_fraction=None
                               ).fit(*_sin_toy(300, 0)[:2])
    assert free.bandwidth_bounds_ == (0.0, np.inf)
    assert free.validation_.size == 0 and not free.fallback_global_


def test_training_the_bandwidths_improves_on_the_initial_one(chirp, chirp_model):
    X, y, Xte, yte = chirp
    m = chirp_model
    Xs = (X[m.support_] - m.x_center_) / m.x_scale_
    theta0 = np.full_like(Xs, m.bandwidth_init_)
    alpha, b = lab_fit_alpha(Xs, y[m.support_], theta0, lam=m.lam)
    f0 = lab_kernel(Xs, theta0, (Xte - m.x_center_) / m.x_scale_).T @ alpha + b
    assert r2_score(yte, m.predict(Xte)) > r2_score(yte, f0) + 0.01


def test_bandwidths_are_reported_in_original_units():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 50, (80, 2)) * [1.0, 100.0]
    y = np.sin(X[:, 0] / 5) + np.cos(X[:, 1] / 300)
    m = LABRBFRegressor(n_support=12, max_iter=30, random_state=0).fit(X, y)
    Xq = rng.uniform(-3, 50, (40, 2)) * [1.0, 100.0]
    sv, bw = m.support_vectors_, m.bandwidths_
    K = np.exp(-np.sum((bw[:, None, :] * (sv[:, None, :] - Xq[None])) ** 2, axis=2))
    np.testing.assert_allclose(m.predict(Xq), K.T @ m.dual_coef_ + m.intercept_, rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(m.bandwidths_ * m.x_scale_, m.bandwidths_scaled_)


@pytest.mark.parametrize("kind", KINDS)
def test_estimator_interpolates_support_as_lam_goes_to_zero(kind):
    X, y = make_chirp(60, random_state=3)
    m = LABRBFRegressor(n_support=15, lam=1e-9, kernel=kind, support_selection="sorted",
                        max_iter=20, random_state=0).fit(X, y)
    np.testing.assert_allclose(m.predict(m.support_vectors_), y[m.support_], atol=1e-5)
    assert m.intercept_ == pytest.approx(y[m.support_].mean())


def test_invariant_to_affine_rescaling_of_x_and_y():
    # few iterations: L-BFGS-B on a non-convex loss amplifies rounding differences
    X, y = make_chirp(120, random_state=4)
    params = dict(n_support=15, max_iter=8, n_initial=10, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LABRBFRegressor(**params).fit(X, y)
        b = LABRBFRegressor(**params).fit(1000 * X - 7, 5 * y + 3)
    np.testing.assert_allclose(a.history_["loss"], b.history_["loss"], rtol=1e-6)
    Xq = np.linspace(0, 1, 50)[:, None]
    np.testing.assert_allclose(5 * a.predict(Xq) + 3, b.predict(1000 * Xq - 7), atol=1e-6)
    np.testing.assert_allclose(a.bandwidths_ / 1000, b.bandwidths_, rtol=1e-6)


@pytest.mark.parametrize("selection", ["sorted", "random"])
def test_one_stage_selections(selection):
    X, y = make_chirp(100, random_state=5)
    m = LABRBFRegressor(n_support=20, support_selection=selection, max_iter=30,
                        random_state=0).fit(X, y)
    assert m.stages_["support_size"].tolist() == [20]
    assert np.unique(m.support_).size == 20
    assert np.all(m.history_["stage"] == 0)


def test_error_tol_stops_the_growth():
    X, y = make_chirp(100, random_state=6)
    m = LABRBFRegressor(n_support=40, error_tol=10.0, max_iter=20, random_state=0).fit(X, y)
    assert m.stages_["support_size"].tolist() == [13]
    assert m.stages_["max_abs_error"][0] < 10.0


def test_adam_reduces_the_loss_and_records_every_epoch():
    X, y = make_chirp(150, random_state=7)
    m = LABRBFRegressor(n_support=15, support_selection="sorted", optimizer="adam",
                        learning_rate=0.1, max_iter=40, batch_size=32, tol=0.0,
                        random_state=0)
    with pytest.warns(ConvergenceWarning):
        m.fit(X, y)
    assert m.n_iter_ == 40
    loss = m.history_["loss"]
    assert loss[-1] < 0.7 * m.stages_["loss_start"][0]
    assert loss[-10:].mean() < loss[:10].mean()
    assert np.all(m.bandwidths_scaled_ >= 0)
    assert np.all(np.isfinite(m.history_["batch_loss"]))


def test_callback_stops_early_without_warning():
    X, y = make_chirp(100, random_state=8)
    seen = []

    def cb(it, state, elapsed):
        seen.append((it, state["loss"], state["theta"].shape))
        return it == 4

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = LABRBFRegressor(n_support=20, callback=cb, random_state=0).fit(X, y)
    assert m.n_iter_ == 5 and len(seen) == 5 and not m.converged_
    assert seen[0][2] == (10, 1)


def test_callback_stops_adam_too():
    X, y = make_chirp(100, random_state=8)
    m = LABRBFRegressor(n_support=20, optimizer="adam", callback=lambda it, s, t: it >= 2,
                        random_state=0).fit(X, y)
    assert m.n_iter_ == 3 and not m.converged_
    assert m.stages_["support_size"].tolist() == [10]


def test_non_finite_loss_steps_back_to_the_last_finite_bandwidths(monkeypatch):
    import nplk_core.lab_rbf as mod

    real = mod._Problem.evaluate
    calls = {"n": 0}

    def flaky(self, *args, **kwargs):
        calls["n"] += 1
        loss, grad = real(self, *args, **kwargs)
        if calls["n"] > 40:  # the "solve" breaks down after a while
            return np.nan, (None if grad is None else np.full_like(grad, np.nan))
        return loss, grad

    monkeypatch.setattr(mod._Problem, "evaluate", flaky)
    X, y = make_chirp(100, random_state=10)
    with pytest.warns(RuntimeWarning, match="stepping back"):
        m = LABRBFRegressor(n_support=10, support_selection="sorted", validation_fraction=None,
                            random_state=0).fit(X, y)
    assert np.all(np.isfinite(m.bandwidths_)) and np.all(np.isfinite(m.predict(X)))
    finite = m.history_["loss"][np.isfinite(m.history_["loss"])]
    assert finite.size > 0 and m.stages_["loss"][0] == pytest.approx(finite[-1])


def test_max_iter_warns():
    X, y = make_chirp(100, random_state=9)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        m = LABRBFRegressor(n_support=10, max_iter=2, tol=0.0).fit(X, y)
    assert not m.converged_


def test_classifier_fits_moons_and_keeps_labels():
    X, y = make_moons(200, noise=0.15, random_state=0)
    labels = np.array(["blue", "red"])[y]
    clf = LABRBFClassifier(n_support=20, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, ["blue", "red"])
    Xte, yte = make_moons(400, noise=0.15, random_state=1)
    assert clf.score(Xte, np.array(["blue", "red"])[yte]) > 0.9
    d = clf.decision_function(Xte)
    np.testing.assert_array_equal(clf.predict(Xte), np.where(d > 0, "red", "blue"))
    # the regression target is +-1
    assert np.isin(2 * (labels[clf.support_] == "red") - 1, [-1, 1]).all()


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Every training point is a support point")
def test_n_support_larger_than_n_is_clipped_with_a_warning():
    X, y = make_chirp(20, random_state=0)
    with pytest.warns(UserWarning, match="n_support=30 exceeds.*using n_support=20"):
        m = LABRBFRegressor(lam=1e-9).fit(X, y)
    assert m.n_support == 30  # the parameter is left as given (scikit-learn contract)
    np.testing.assert_array_equal(np.sort(m.support_), np.arange(20))
    np.testing.assert_allclose(m.predict(X), y, atol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        LABRBFRegressor(n_support=15).fit(X, y)  # within the sample count: no warning
    with pytest.raises(ValueError, match="n_initial=12 exceeds n_support=10"):
        LABRBFRegressor(n_support=10, n_initial=12).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"lam": 0.0}, "lam"), ({"lam": -1.0}, "lam"), ({"n_support": 0}, "n_support"),
    ({"kernel": "cauchy"}, "kernel"), ({"bandwidth_init": -1.0}, "bandwidth_init"),
    ({"optimizer": "sgd"}, "optimizer"), ({"support_selection": "best"}, "support_selection"),
    ({"max_iter": 0}, "max_iter"), ({"clip": 0.0}, "clip"), ({"callback": 3}, "callback"),
])
def test_bad_parameters_name_the_parameter(params, match):
    X, y = make_chirp(50, random_state=0)
    with pytest.raises(ValueError, match=match):
        LABRBFRegressor(**{"n_support": 5, **params}).fit(X, y)


def test_non_finite_input_and_degenerate_classes():
    X, y = make_chirp(50, random_state=0)
    Xbad = X.copy()
    Xbad[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LABRBFRegressor(n_support=5).fit(Xbad, y)
    ybad = y.copy()
    ybad[0] = np.inf
    with pytest.raises(ValueError, match="inf"):
        LABRBFRegressor(n_support=5).fit(X, ybad)
    with pytest.raises(ValueError, match="only one"):
        LABRBFClassifier(n_support=5).fit(X, np.ones(50))
    with pytest.raises(ValueError, match="Only binary"):
        LABRBFClassifier(n_support=5).fit(X, np.arange(50) % 3)


def test_all_points_support_warns_and_still_interpolates():
    X, y = make_chirp(12, random_state=0)
    with pytest.warns(UserWarning, match="no data left"):
        m = LABRBFRegressor(n_support=12, lam=1e-9, support_selection="sorted").fit(X, y)
    np.testing.assert_allclose(m.predict(X), y, atol=1e-5)


# ---------------------------------------------------------------------------
# scikit-learn contract
# ---------------------------------------------------------------------------

@parametrize_with_checks([
    LABRBFRegressor(n_support=8, max_iter=15, random_state=0),
    LABRBFClassifier(n_support=8, max_iter=15, random_state=0),
    # default parameters: n_support=30 exceeds several checks' sample counts (clipped)
    LABRBFRegressor(random_state=0),
    LABRBFClassifier(random_state=0),
])
@pytest.mark.slow
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)
