"""Where a learned kernel's test score comes from (nplk_lab.model.ablation): the learned matrix
switched off at test time is an exact identity of the fitted model, 1-NN is
scikit-learn's, every number of the table is the one the page's own functions give,
the paragraph follows the numbers, and the 1-NN overlay (figures) is exact. Then the
table and the overlay on the Classification and Regression pages (AppTest)."""

from __future__ import annotations

import copy
import functools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.model import ablation as ab
from nplk_lab.model import paired as P

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def split(task=lab.CLASSIFICATION, seed=0, **over):
    P = {**lab.defaults(), "n_samples": 80, "seed": seed, **over}
    data, msgs = lab.prepare_data(P, task)
    assert data is not None, msgs
    return P, data


@functools.lru_cache(maxsize=None)
def _fit(method, over):
    task = lab.METHODS[method].task
    P, data = split(task, **dict(over))
    return P, data, lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                                   method=method)


def fitted(method, **over):
    """A fit of the lab at a state, fitted once per test session (the fits are the lab's
    own and no test changes them; everything a test checks is computed from them
    afresh, so a mutation run does not refit for every mutant)."""
    P, data, res = _fit(method, tuple(sorted(over.items())))
    assert res.ok, res.messages
    return dict(P), data, res


# ---------------------------------------------------------------------------
# the three predictions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("task", [lab.CLASSIFICATION, lab.REGRESSION])
def test_nearest_labels_is_scikit_learns_one_nearest_neighbour(task):
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

    rng = np.random.default_rng(3)
    X, Xq = rng.normal(size=(50, 2)), rng.normal(size=(200, 2))
    y = rng.integers(0, 2, 50) * 2 - 1 if task == lab.CLASSIFICATION else rng.normal(size=50)
    knn = (KNeighborsClassifier if task == lab.CLASSIFICATION else KNeighborsRegressor)(1)
    np.testing.assert_array_equal(ab.nearest_labels(X, y, Xq), knn.fit(X, y).predict(Xq))


@pytest.mark.parametrize("method", ["dank", "knpl", "dank_svr"])
def test_off_decision_is_the_model_with_its_learned_matrix_set_to_all_ones(method):
    """F (G) off at test time = the same estimator with its learned matrix replaced by
    11ᵀ: an identity of the decision function, whatever the out-of-sample rule."""
    _, data, res = fitted(method, **({"reg_dataset": "step"} if method == "dank_svr" else {}))
    est = res.estimator
    ones = copy.deepcopy(est)
    name = "G_" if method == "knpl" else "F_"
    setattr(ones, name, np.ones_like(getattr(est, name)))
    want = ones.predict(data.X_test) if method == "dank_svr" else \
        ones.decision_function(data.X_test)
    np.testing.assert_allclose(ab.off_decision(est, data.X_test), want, atol=1e-10)
    # and the learned matrix did move: the method's own decision differs
    got = est.predict(data.X_test) if method == "dank_svr" else \
        est.decision_function(data.X_test)
    assert np.abs(got - want).max() > 1e-6


def test_off_predict_handles_one_vs_rest_and_refuses_models_without_a_matrix():
    from sklearn.svm import SVC

    from nplk_core import DANKClassifier
    rng = np.random.default_rng(0)
    X = rng.normal(size=(45, 2))
    y = np.repeat([0, 1, 2], 15)
    X[y == 1] += 3
    X[y == 2] -= 3
    est = DANKClassifier(C=1.0, sigma=1.0).fit(X, y)
    d = ab.off_decision(est, X)
    assert d.shape == (45, 3)
    for k, e in enumerate(est.estimators_):   # each column is that class's model
        np.testing.assert_allclose(d[:, k], ab.off_decision(e, X))
    np.testing.assert_array_equal(ab.off_predict(est, X, lab.CLASSIFICATION),
                                  np.array([0, 1, 2])[np.argmax(d, axis=1)])
    assert ab.off_decision(SVC().fit(X, y), X) is None


def test_nn_grid_is_plus_minus_one_for_two_classes_only():
    near = np.array([0, 1, 2, 1])
    np.testing.assert_array_equal(ab.nn_grid(near, np.array([3, 7, 7])), [-1, 1, 1, 1])
    assert ab.nn_grid(near, np.array([0, 1, 2])) is None


# ---------------------------------------------------------------------------
# the table and its words
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["dank", "knpl", "dank_svr"])
def test_table_numbers_are_the_lab_fits_own(method):
    over = {"reg_dataset": "step"} if method == "dank_svr" else {}
    P, data, res = fitted(method, **over)
    task = res.task
    base = "svm" if task == lab.CLASSIFICATION else "svr"
    plain = fitted(base, **over)[2]
    a = ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                    data.y_test, plain=plain.estimator)
    assert [r.key for r in a.rows] == ["method", "off", "nn", "plain"]
    nn = ab.nearest_labels(data.X_train, data.y_train, data.X_test)
    off = ab.off_predict(res.estimator, data.X_test, task)
    if task == lab.CLASSIFICATION:
        assert a.score("method") == pytest.approx(res.test_score)
        assert a.score("plain") == pytest.approx(plain.test_score)
        assert a.score("nn") == pytest.approx(np.mean(nn == data.y_test))
        assert a.score("off") == pytest.approx(np.mean(off == data.y_test))
        assert a.row("nn").agree_nn == 1.0
        assert a.follows_nn == pytest.approx(
            np.mean(res.estimator.predict(data.X_test) == nn))
        assert f"{100 * a.follows_nn:.0f} %" in a.verdict
    else:   # R² = 1 − relative error, the page's score
        assert a.row("method").rel_error == pytest.approx(res.test_score)
        assert a.score("method") == pytest.approx(1 - res.test_score)
        assert a.row("plain").rel_error == pytest.approx(plain.test_score)
        assert a.row("nn").rel_error == pytest.approx(lab.relative_error(data.y_test, nn))
        assert a.row("nn").agree_nn == pytest.approx(1.0)
    # every cell is plain text and the numbers in the table are the rows'
    table = a.table()
    assert all(isinstance(v, str) for row in table for v in row.values())
    assert table[0][next(k for k in table[0] if k.startswith("test"))] == \
        f"{a.score('method'):.3f}"


def table_at(method, **over):
    """The page's score table at a state of the lab (its own data and fits)."""
    task = lab.METHODS[method].task
    over = {"n_samples": lab.defaults()["n_samples"], **over}
    _, data, res = fitted(method, **over)
    _, _, plain = fitted("svm" if task == lab.CLASSIFICATION else "svr", **over)
    return ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                       data.y_test, plain=plain.estimator)


NOT_RESHAPED = ("not from a reshaped kernel", "not a reshaped kernel")
CANNOT_TELL = "cannot tell the explanations apart"
SURVIVES = "part of the gain survives with"


@pytest.mark.parametrize("method", ["dank", "knpl"])
def test_clowns_at_small_sigma_cannot_tell_the_rule_from_a_reshaped_kernel(method):
    """Clowns, σ = 1, C = 2 (seed 0): the plain SVM, the method with its matrix off and
    the method itself all give 1-NN's label on every test point, so the paragraph says
    the data cannot tell the explanations apart, and names neither."""
    a = table_at(method, dataset="clowns", sigma=1.0, C=2.0)
    assert a.follows_nn == 1.0 and a.row("plain").agree_nn == 1.0
    assert a.row("off").agree_nn == 1.0
    assert (a.nn_edge.lo, a.nn_edge.hi) == (0.0, 0.0)
    assert CANNOT_TELL in a.verdict
    assert not any(w in a.verdict for w in NOT_RESHAPED)
    assert "gain comes from" not in a.verdict


def test_sandwich_seed_2_dank_keeps_part_of_its_gain_with_f_off():
    """Sandwich, σ = 4, C = 10, data seed 2: DANK with F off is 5 test points (of 60)
    above the SVM, beyond its interval: the paragraph says part of the gain survives
    with F off, with its share, and never that the gain is not a reshaped kernel's."""
    a = table_at("dank", dataset="sandwich", sigma=4.0, C=10.0, seed=2)
    off = a.vs_plain("off")
    assert round((a.score("off") - a.score("plain")) * a.n_test) == 5
    assert off.lo > 0 and off.verdict == P.HOLDS
    assert "So part of the gain survives with F switched off" in a.verdict
    share = off.mean / a.vs_plain("method").mean
    assert f"({100 * share:.0f} %)" in a.verdict
    assert not any(w in a.verdict for w in NOT_RESHAPED)
    assert CANNOT_TELL not in a.verdict


def test_sandwich_seed_2_knpl_gain_is_the_rule_and_g_off_shows_no_gain():
    """Same state, KNPL: G off scores exactly the SVM's accuracy (interval around 0),
    KNPL follows 1-NN far more than the SVM: the gain is the rule's, and the paragraph
    says these test points show no gain from the reshaped kernel alone (not that there
    can be none)."""
    a = table_at("knpl", dataset="sandwich", sigma=4.0, C=10.0, seed=2)
    assert a.vs_plain("off").lo < 0 < a.vs_plain("off").hi
    assert a.nn_edge.lo > 0 and a.vs_plain("method").lo > 0
    assert "So its gain comes from the nearest-neighbour rule at test time" in a.verdict
    assert "show no gain from a reshaped kernel alone" in a.verdict
    assert SURVIVES not in a.verdict.lower() and CANNOT_TELL not in a.verdict


def _ref_interval(d):
    """A 95 % t-interval of the mean of ``d``, computed here from scratch (all equal
    differences: the point itself)."""
    from scipy import stats

    d = np.asarray(d, dtype=float)
    m = d.mean()
    if np.ptp(d) == 0:
        return m, m
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    return m - half, m + half


def _check_words(a, d_edge, d_off, d_gain):
    """The paragraph's claims against intervals computed independently."""
    v = a.verdict
    e_lo, _ = _ref_interval(d_edge)
    o_lo, o_hi = _ref_interval(d_off)
    g_lo, g_hi = _ref_interval(d_gain)
    np.testing.assert_allclose([a.nn_edge.lo, a.vs_plain("off").lo, a.vs_plain("off").hi],
                               [e_lo, o_lo, o_hi], atol=1e-9)
    survives = o_lo > 1e-9
    assert (SURVIVES in v.lower()) == survives, (o_lo, v)
    if survives:
        assert not any(w in v for w in NOT_RESHAPED), v
    else:
        assert (CANNOT_TELL in v) == (e_lo <= 1e-9), (e_lo, v)
    if any(w in v for w in NOT_RESHAPED):      # only when F off is not above the SVM
        assert o_hi <= 1e-9 or o_lo <= 0, v
    gain_words = re.search(r"is ([\d.]+(?: points)? (above|below)|level with) the plain", v)
    want = "above" if g_lo > 1e-9 else "below" if g_hi < -1e-9 else None
    assert gain_words.group(2) == want, (g_lo, g_hi, v)
    assert ("beyond its interval" in v) == (o_lo > 1e-9 or o_hi < -1e-9), v


@pytest.mark.parametrize("draw", range(40))
def test_classification_words_follow_independent_intervals_at_random_states(draw):
    """Random test labels and predictions (seeded draws: sizes 3-120, every mix from
    'all rows equal' to 'all independent'): the paragraph says 'cannot tell apart'
    exactly when the agreement difference's interval is not above 0 (and F off does not
    win), 'part of the gain survives' exactly when F off's interval is above 0, and
    never 'not a reshaped kernel' then."""
    rng = np.random.default_rng(1000 + draw)
    n = int(rng.integers(3, 121))
    y = rng.choice([-1, 1], n)

    def flip(v, q):
        return np.where(rng.random(n) < q, -v, v)

    nn = flip(y, rng.uniform(0, 0.3))
    plain = flip(nn, rng.choice([0.0, 0.05, 0.3, 0.5]))
    method = flip(nn, rng.choice([0.0, 0.02, 0.2]))
    off = flip(plain, rng.choice([0.0, 0.1])) if draw % 3 else flip(y, rng.uniform(0, .2))
    a = ab.from_predictions("dank", y, {"method": ("m", method), "off": ("o", off),
                                        "nn": ("n", nn), "plain": ("p", plain)})
    d_edge = 100.0 * ((method == nn).astype(float) - (plain == nn))
    d_off = 100.0 * ((off == y).astype(float) - (plain == y))
    d_gain = 100.0 * ((method == y).astype(float) - (plain == y))
    _check_words(a, d_edge, d_off, d_gain)


@pytest.mark.parametrize("draw", range(30))
def test_regression_words_follow_independent_intervals_at_random_states(draw):
    """The same for regression: per test point the squared distances, scaled by the
    spread of the targets (mean = the difference in R² or in closeness to 1-NN)."""
    rng = np.random.default_rng(2000 + draw)
    n = int(rng.integers(4, 100))
    y = rng.normal(size=n)
    nn = y + rng.normal(scale=rng.uniform(0, 0.5), size=n)
    plain = nn + rng.normal(scale=rng.choice([0.0, 0.1, 0.6]), size=n)
    method = nn + rng.normal(scale=rng.choice([0.0, 0.05, 0.4]), size=n)
    off = plain + rng.normal(scale=0.1, size=n) if draw % 3 else y + rng.normal(
        scale=rng.uniform(0, 0.3), size=n)
    a = ab.from_predictions("dank_svr", y, {"method": ("m", method), "off": ("o", off),
                                            "nn": ("n", nn), "plain": ("p", plain)})
    s = np.sum((y - y.mean()) ** 2) / n
    d_edge = ((plain - nn) ** 2 - (method - nn) ** 2) / s
    d_off = ((plain - y) ** 2 - (off - y) ** 2) / s
    d_gain = ((plain - y) ** 2 - (method - y) ** 2) / s
    assert a.nn_edge.mean == pytest.approx(a.follows_nn - a.row("plain").agree_nn)
    _check_words(a, d_edge, d_off, d_gain)


def test_regression_closeness_and_point_values_by_hand():
    """y = 0, 1, 2, 3 (Σ(y − ȳ)² = 5): predictions 1 and 0 away from 1-NN's at two points
    each → closeness 1 − 2/5 = 0.6; per point 1 − (p − nn)² / (5/4)."""
    y = np.array([0.0, 1.0, 2.0, 3.0])
    nn = np.array([0.0, 1.0, 2.0, 2.0])
    p = np.array([1.0, 1.0, 2.0, 3.0])
    assert ab._closeness(y, p, nn) == pytest.approx(0.6)
    score, agree = ab.point_values(lab.REGRESSION, y, p, nn)
    np.testing.assert_allclose(agree, [0.2, 1.0, 1.0, 0.2])
    np.testing.assert_allclose(score, [0.2, 1.0, 1.0, 1.0])
    a = ab.from_predictions("dank_svr", y, {"method": ("m", p), "off": ("o", y),
                                            "nn": ("n", nn), "plain": ("p", nn)})
    assert a.follows_nn == pytest.approx(0.6)
    assert a.row("method").rel_error == pytest.approx(0.2)      # 1 / 5
    assert a.row("plain").score == pytest.approx(0.8)
    assert a.vs_plain("method").mean == pytest.approx(0.0)
    assert a.nn_edge.mean == pytest.approx(0.6 - 1.0)
    assert "differ from 1-nearest neighbour's" in a.verdict
    assert "squared difference is 40.0 % of the spread of the 4 test targets" in a.verdict
    np.testing.assert_array_equal(ab.point_values(lab.REGRESSION, np.ones(3), y[:3], y[:3]),
                                  np.full((2, 3), np.nan))


def test_regression_table_cells_by_hand():
    y = np.array([0.0, 1.0, 2.0, 3.0])               # Σ(y − ȳ)² = 5
    near = y + np.array([0.0, 0.0, 0.0, 0.05])        # squared error 0.0025: 0.0005 of 5
    a = ab.from_predictions("dank_svr", y, {"method": ("m", near), "off": ("o", y + 0.5),
                                            "nn": ("n", y), "plain": ("p", y + 0.5)})
    cells = a.table()
    assert list(cells[0]) == ["model", "test R²", "rel. error", "closeness to 1-NN",
                              "against the plain SVR (95 % interval)"]
    assert [c["rel. error"] for c in cells] == ["0.0005", "0.200", "0", "0.200"]
    assert [c["test R²"] for c in cells] == ["1.000", "0.800", "1.000", "0.800"]
    assert [c["closeness to 1-NN"] for c in cells] == ["1.000", "0.800", "1.000", "0.800"]
    assert cells[3]["against the plain SVR (95 % interval)"] == "—"
    assert cells[1]["against the plain SVR (95 % interval)"] == "0.000 (0.000 to 0.000)"


def test_classification_point_values_and_table_intervals_by_hand():
    """Five test points, the method right where the SVM is wrong at two of them: +40
    points, interval 40 ± t₀.₉₇₅,₄ · sd/√5 with sd of (0, 0, 0, 100, 100)."""
    y = np.array([1, 1, -1, -1, 1])
    plain = np.array([1, 1, -1, 1, -1])
    method = y.copy()
    a = ab.from_predictions("knpl", y, {"method": ("m", method), "off": ("o", plain),
                                        "nn": ("n", method), "plain": ("p", plain)})
    g = a.vs_plain("method")
    sd = np.std([0, 0, 0, 100, 100], ddof=1)
    assert g.mean == pytest.approx(40.0)
    assert g.hi - g.mean == pytest.approx(2.7764451 * sd / np.sqrt(5), rel=1e-6)
    assert a.vs_plain("plain") is None
    assert (a.vs_plain("off").lo, a.vs_plain("off").hi) == (0.0, 0.0)
    cells = a.table()
    col = "against the plain SVM (95 % interval)"
    assert cells[0][col] == f"+40.0 points ({g.lo:+.1f} to {g.hi:+.1f})"
    assert cells[1][col] == "0.0 points (0.0 to 0.0)" and cells[3][col] == "—"
    assert list(cells[0]) == ["model", "test accuracy", "same label as 1-NN", col]
    assert [c["same label as 1-NN"] for c in cells] == ["100 %", "60 %", "100 %", "60 %"]
    assert [c["model"] for c in cells] == ["m", "o", "n", "p"]
    assert [c["test accuracy"] for c in cells] == ["1.000", "0.600", "1.000", "0.600"]
    # without a plain row: no intervals and no claims about the baseline
    b = ab.from_predictions("knpl", y, {"method": ("m", method), "off": ("o", plain),
                                        "nn": ("n", method)})
    assert b.nn_edge is None and b.vs_plain("method") is None
    assert "plain SVM" not in b.verdict and "With G switched off" in b.verdict


@pytest.mark.parametrize("method", ["dank", "knpl", "dank_svr"])
def test_row_labels_and_the_models_rows(method):
    """The rows' labels as the page shows them, the override of the plain row's label,
    a cross-validated row when one is given, and no table without test points."""
    over = {"reg_dataset": "step"} if method == "dank_svr" else {}
    P, data, res = fitted(method, **over)
    task = res.task
    base = "svm" if task == lab.CLASSIFICATION else "svr"
    plain = fitted(base, **over)[2].estimator
    a = ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                    data.y_test, plain=plain, cv=plain)
    B = base.upper()
    name = lab.METHODS[method].label
    sym = ab.matrix_symbol(method)
    rule = "reciprocal" if method == "dank" else "nearest"
    assert [r.label for r in a.rows] == [f"{name} ({rule} rule)",
                                         f"{name}, {sym} off at test time",
                                         "1-nearest neighbour", f"{B}, same σ and C",
                                         f"{B}-CV"]
    assert [r.key for r in a.rows] == ["method", "off", "nn", "plain", "cv"]
    assert a.score("cv") == a.score("plain") and a.vs_plain("cv").mean == 0.0
    assert f"the plain {B}" in a.verdict
    b = ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                    data.y_test, plain=plain, labels={"plain": "mine"}, method_label="M")
    assert [r.label for r in b.rows][::3] == ["M (" + rule + " rule)", "mine"]
    assert b.verdict.startswith("Here M")
    assert np.isnan(b.score("cv")) and b.vs_plain("cv") is None and b.row("cv") is None
    one = ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test[:1],
                      data.y_test[:1], plain=plain)
    assert one.n_test == 1
    if task == lab.CLASSIFICATION:                # one point: no spread, no interval
        assert one.vs_plain("method").n == 1 and "above the plain" not in one.verdict
    else:                                         # one target does not vary
        assert one.vs_plain("method") is None and "not defined" in one.verdict
    assert ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test[:0],
                       data.y_test[:0], plain=plain) is None
    assert ab.ablation(method, None, res.X_train, res.y_train, data.X_test,
                       data.y_test) is None


def test_legend_and_rule_in_words():
    class Est:
        extension = "nearest"
    assert ab.legend("dank") == (
        "DANK: test points take the row of F of their reciprocal nearest neighbours (the "
        "paper's rule). F off: the same learned α and b with the plain kernel at test time "
        "(F = 11ᵀ). 1-nearest neighbour: every test point takes the label of its nearest "
        "training point. SVM: the plain SVM with the same σ and C; SVM-CV: σ and C by "
        "5-fold cross-validation.")
    assert ab.legend("dank", Est()).startswith(
        "DANK: test points take the row of F of their nearest training point (")
    reg = ab.legend("dank_svr")
    assert "takes the target of its nearest" in reg and "SVR: the plain SVR with" in reg
    assert "SVR-CV: σ and C" in reg
    assert ab.legend("knpl").startswith("KNPL: test points take the row of G of their "
                                        "nearest training point") and "(G = 11ᵀ)" in \
        ab.legend("knpl")
    assert ab.method_rule("dank") == "reciprocal nearest neighbours"
    assert ab.method_rule("knpl") == ab.method_rule("dank", Est()) == "nearest training point"
    assert [ab.matrix_symbol(m) for m in ("dank", "knpl", "dank_svr")] == ["F", "G", "F"]


def test_numbers_in_the_table_cells():
    assert [ab._num(v, 3) for v in (0.12345, 1.0, float("nan"), None)] == \
        ["0.123", "1.000", "—", "—"]
    assert [ab._num(v, 3, general=True) for v in (0.00142, 0.0095, 0.01, 0.025)] == \
        ["0.00142", "0.0095", "0.010", "0.025"]
    assert [ab._pct(v) for v in (0.983, 1.0, float("nan"), None)] == \
        ["98 %", "100 %", "—", "—"]
    assert [ab._signed(v, True) for v in (8.33, -4.16, 0.04, -0.04, float("nan"))] == \
        ["+8.3", "-4.2", "0.0", "0.0", "—"]
    assert [ab._signed(v, False) for v in (0.0234, -0.0004, 0.0004, 0.0006)] == \
        ["+0.023", "0.000", "0.000", "+0.001"]
    assert ab._interval(None, True) == "—"
    p = P.Paired("x", "points", 5, 8.33, 1.12, 15.5)
    assert ab._interval(p, True, "points") == "+8.3 points (+1.1 to +15.5)"
    assert ab._interval(p, True) == "+8.3 (+1.1 to +15.5)"


def test_side_of_an_interval():
    def pr(lo, hi):
        return P.Paired("x", "", 5, (lo + hi) / 2, lo, hi)
    assert [ab._side(pr(lo, hi)) for lo, hi in ((0.1, 2), (-2, -0.1), (-1, 1), (0, 1),
                                                 (-1, 0), (0, 0))] == \
        ["above", "below", "level", "level", "level", "level"]
    assert ab._side(None) == "level" and ab._side(pr(float("nan"), 1.0)) == "level"
    assert ab._side(pr(1.0, float("inf"))) == "level"


def test_paired_rows_need_finite_values():
    assert ab._paired(lab.CLASSIFICATION, [], [], "x") is None
    assert ab._paired(lab.REGRESSION, [np.nan, 1.0], [1.0, 1.0], "x") is None
    assert ab._paired(lab.REGRESSION, [1.0, 1.0], [np.inf, 1.0], "x") is None
    c = ab._paired(lab.CLASSIFICATION, [1.0, 0.0, 1.0], [0.0, 0.0, 0.0], "x")
    assert c.unit == "points" and c.mean == pytest.approx(200 / 3) and c.label == "x"
    r = ab._paired(lab.REGRESSION, [1.0, 0.0, 1.0], [0.0, 0.0, 0.0], "x")
    assert r.unit == "R²" and r.mean == pytest.approx(2 / 3)


def test_regression_paragraph_without_a_plain_row_and_with_constant_targets():
    y = np.array([0.0, 1.0, 2.0, 3.0])
    a = ab.from_predictions("dank_svr", y, {"method": ("m", y), "off": ("o", y + 1),
                                            "nn": ("n", y)})
    assert a.verdict == ("Here DANK-SVR's test predictions lie close to 1-nearest "
                         "neighbour's: their squared difference is 0.0 % of the spread of "
                         "the 4 test targets. Test R²: DANK-SVR 1.000, 1-NN 1.000, F "
                         "switched off 0.200.")
    flat = ab.from_predictions("dank_svr", np.ones(4), {
        "method": ("m", y), "off": ("o", y), "nn": ("n", y), "plain": ("p", y)})
    assert flat.vs_plain("method") is None and flat.nn_edge is None
    assert flat.verdict == ("Here the 4 test targets are all equal, so R² and the "
                            "closeness to 1-nearest neighbour are not defined.")


def test_classification_paragraph_exact_at_a_state_of_every_branch():
    """One paragraph per branch, word for word (10 test points)."""
    y = np.array([1, 1, 1, 1, 1, -1, -1, -1, -1, -1])
    flip = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    flip[:6] = -1
    wrong6 = y * flip                                 # wrong at the first 6 points
    a = ab.from_predictions("dank", y, {"method": ("m", y), "off": ("o", y),
                                        "nn": ("n", y), "plain": ("p", wrong6)})
    assert a.verdict == (
        "Here DANK gives the same label as 1-nearest neighbour on 100 % of the 10 test "
        "points, the plain SVM on 40 %; 1-NN scores 1.000, DANK 1.000. DANK is 60.0 points "
        "above the plain SVM (0.400; 95 % interval over the test points "
        f"{ab._signed(a.vs_plain('method').lo, True)} to "
        f"{ab._signed(a.vs_plain('method').hi, True)}). With F switched off at test time "
        "(its own α and b, the plain kernel) it scores 1.000, above the plain SVM beyond "
        f"its interval ({ab._interval(a.vs_plain('off'), True, 'points')}). So part of the "
        "gain survives with F switched off: the α and b learned with F∘K keep +60.0 of its "
        "+60.0 points (100 %), without the nearest-neighbour rule. The rest comes with the "
        "nearest-neighbour rule at test time.")
    # the method below the SVM, its labels not 1-NN's
    b = ab.from_predictions("dank", y, {"method": ("m", wrong6), "off": ("o", wrong6),
                                        "nn": ("n", y), "plain": ("p", y)})
    assert "DANK is 60.0 points below the plain SVM (1.000;" in b.verdict
    assert "it scores 0.400, below the plain SVM beyond its interval" in b.verdict
    assert b.verdict.endswith("The plain SVM agrees with 1-NN as much as DANK does here "
                              f"({ab._interval(b.nn_edge, True, 'points of agreement')}), "
                              "so these test points cannot tell the explanations apart: the "
                              "nearest-neighbour rule and a reshaped kernel would give the "
                              "same labels.")
    # the method follows 1-NN, the SVM does not; F off below the SVM: not a reshaped kernel
    c = ab.from_predictions("knpl", y, {"method": ("m", y), "off": ("o", -y),
                                        "nn": ("n", y), "plain": ("p", wrong6)})
    edge = ab._interval(c.nn_edge, True, "points of agreement")
    assert c.verdict.endswith(
        "So its gain comes from the nearest-neighbour rule at test time: it follows 1-NN "
        f"far more closely than the plain SVM does ({edge}), and with G switched off it is "
        "not above the plain SVM, so not from a reshaped kernel.")
    # labels not 1-NN's: the rule does not decide everything
    nn = y.copy()
    nn[6:] = -nn[6:]                                    # 1-NN wrong at 4 points
    d = ab.from_predictions("dank", y, {"method": ("m", y), "off": ("o", wrong6),
                                        "nn": ("n", nn), "plain": ("p", wrong6)})
    assert d.follows_nn == pytest.approx(0.6)
    assert d.verdict.endswith("Its labels differ from 1-NN's on 40 % of the test points, "
                              "so the rule does not decide everything here.")


# ---------------------------------------------------------------------------
# the overlay's figures
# ---------------------------------------------------------------------------

def test_nn_step_is_exactly_one_nearest_neighbour_between_its_jumps():
    rng = np.random.default_rng(1)
    x, y = rng.uniform(-2, 2, 30), rng.normal(size=30)
    x[5] = x[6]                                   # equal x: the first target wins
    px, py = fg.nn_step(x, y, -3.0, 3.0)
    assert px[0] == -3.0 and px[-1] == 3.0 and np.all(np.diff(px) >= 0)
    q = rng.uniform(-3, 3, 500)
    seg = np.searchsorted(px[1::2], q)            # the cell [px[2i], px[2i+1]] holding q
    np.testing.assert_allclose(py[2 * seg], ab.nearest_labels(x[:, None], y, q[:, None]))


def test_surface_and_curve_draw_the_nn_overlay():
    _, data = split()
    grid = lab.make_grid(data.X, 40)
    geom = lab.grid_geometry(grid, data.X_train)
    nn = ab.nn_grid(geom.nearest, data.y_train).reshape(grid.shape)
    fig = fg.decision_surface(grid.xs, grid.ys, None, data.X_train, data.y_train, nn=nn)
    line = next(t for t in fig.data if t.name == "1-nearest neighbour boundary")
    assert line.line.color == fg.NN_COLOR and np.isfinite(np.asarray(line.x, float)).sum() > 10
    assert not any(t.name == "1-nearest neighbour boundary" for t in fg.decision_surface(
        grid.xs, grid.ys, None, data.X_train, data.y_train).data)
    x = np.linspace(0, 1, 10)
    curve = fg.regression_curve(x[:, None], x, x, x, nn_curve=fg.nn_step(x, x, 0, 1))
    assert any(t.name == fg.NN_NAME for t in curve.data)


# ---------------------------------------------------------------------------
# the pages (AppTest)
# ---------------------------------------------------------------------------

def open_page(page, **query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / page), default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = str(v)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _figures(at):
    import nplk_lab.ui.components.chart as chart_component
    return [f for f in (chart_component.figure_of(e) for e in at.get("bidi_component")) if f]


def shown_table(at):
    """The score table on the page: {model: {column: cell}} read back from its Markdown
    (cells unescaped), or None."""
    md = [m.value for m in at.markdown if m.value.startswith("| model")]
    if not md:
        return None
    lines = [ln.strip("| ") for ln in md[0].splitlines()]
    split = [[re.sub(r"\\(.)", r"\1", c) for c in re.split(r"(?<!\\) \| ", ln)]
             for ln in lines]
    head, rows = split[0], split[2:]
    return {r[0]: dict(zip(head[1:], r[1:], strict=True)) for r in rows}


def _trace_names(at):
    return {t.get("name") for f in _figures(at) for t in f["data"]}


def _expected(page_task, method, P, **kw):
    data, _ = lab.prepare_data(P, page_task)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    base = "svm" if page_task == lab.CLASSIFICATION else "svr"
    plain = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                           method=base)
    return ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                       data.y_test, plain=plain.estimator, **kw)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["dank", "knpl"])
def test_classification_page_shows_the_table_the_paragraph_and_the_nn_boundary(method):
    q = {"n_samples": 60, "method": method}
    at = open_page("pages/1_Classification.py", **q)
    shown = shown_table(at)
    want = _expected(lab.CLASSIFICATION, method, {**lab.defaults(), **q})
    assert list(shown) == [r.label.replace("SVM, same σ and C", "SVM (σ = 10, C = 10)")
                           for r in want.rows]
    assert [c["test accuracy"] for c in shown.values()] == \
        [f"{r.score:.3f}" for r in want.rows]
    assert [c["same label as 1-NN"] for c in shown.values()] == \
        [f"{100 * r.agree_nn:.0f} %" for r in want.rows]
    assert any(m.value == want.verdict for m in at.markdown)
    assert "1-nearest neighbour boundary" not in _trace_names(at)
    at.toggle(key="w_show_nn").set_value(True).run()
    assert not at.exception
    assert "1-nearest neighbour boundary" in _trace_names(at)
    assert at.query_params.get("show_nn") in ("1", ["1"], "true", ["true"])


@pytest.mark.slow
def test_classification_page_has_no_table_for_the_plain_svm_but_keeps_the_overlay():
    at = open_page("pages/1_Classification.py", n_samples=60, method="svm", show_nn=1)
    assert shown_table(at) is None
    assert "1-nearest neighbour boundary" in _trace_names(at)


@pytest.mark.slow
def test_regression_page_table_with_svr_cv_and_the_nn_step_curve():
    q = {"n_samples": 60, "reg_dataset": "step", "ablation_cv": 1, "show_nn": 1}
    at = open_page("pages/2_Regression.py", **q)
    shown = shown_table(at)
    assert list(shown)[-1] == "SVR-CV" and len(shown) == 5
    P = {**lab.defaults(), **{k: lab.coerce(k, v) for k, v in q.items()}}
    from nplk_lab.model import settings_table  # noqa: F401  (coerce above)
    want = _expected(lab.REGRESSION, "dank_svr", P)
    assert [c["test R²"] for c in shown.values()][:4] == [f"{r.score:.3f}" for r in want.rows]
    assert any(re.search(r"squared difference is [\d.]+ %", m.value) for m in at.markdown)
    assert fg.NN_NAME in _trace_names(at)


@pytest.mark.slow
def test_switches_beside_the_figure_act_in_the_run_that_changed_them():
    """Ticking SVM-CV adds its row, and switching the plain SVM off removes its boundary,
    in the very rerun the click causes (the switches are drawn before what reads them)."""
    at = open_page("pages/1_Classification.py", n_samples=60)
    assert len(shown_table(at)) == 4
    # the legend names the plain SVM and its test score (polish §4)
    assert any(n.startswith("SVM boundary (σ=10, C=10)") for n in _trace_names(at))
    at.toggle(key="w_ablation_cv").set_value(True).run()
    assert not at.exception
    shown = shown_table(at)
    assert len(shown) == 5 and list(shown)[-1] == "SVM-CV"
    at.toggle(key="w_show_baseline").set_value(False).run()
    assert not any(n.startswith("SVM boundary") for n in _trace_names(at))


@pytest.mark.slow
def test_home_picture_draws_the_nn_boundary_beside_dank_and_the_svm():
    at = open_page("app.py")
    names = _trace_names(at)
    assert {"1-nearest neighbour boundary", "f(x) = 0"} <= names
    assert any("labels like 1-nearest neighbour" in c.value for c in at.caption)
