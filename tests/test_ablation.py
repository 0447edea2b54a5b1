"""Where a learned kernel's test score comes from (nplk_lab.model.ablation): the learned matrix
switched off at test time is an exact identity of the fitted model, 1-NN is
scikit-learn's, every number of the table is the one the page's own functions give,
and the 1-NN overlay (figures) is exact. Then the table and the overlay on the
Classification and Regression pages (AppTest). The paragraph's words against the
numbers: tests/test_ablation_words.py."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from _ablation_states import fitted, split
from _app_pages import live_figures, open_page

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.model import ablation as ab

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


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


def test_the_score_table_is_for_exactly_the_methods_with_a_matrix_to_switch_off():
    """The methods with a score table are those whose learned matrix reaches the points
    they score (switching it off changes their decision; ONK's kernel never does), and
    the atlas's 1-NN-rule methods are the same ones."""
    from nplk_lab.model.atlas import atlas as A

    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    have = set()
    for name, spec in lab.METHODS.items():
        if spec.task not in (lab.CLASSIFICATION, lab.REGRESSION):
            continue
        est, _ = lab.make_estimator(name, {"sigma": 1.0, "C": 1.0, "seed": 0})
        target = y if spec.task == lab.CLASSIFICATION else X[:, 1]
        try:
            est.fit(X, target)
        except (ValueError, TypeError):        # a baseline that needs more data
            continue
        off = ab.off_decision(est, X)
        own = est.decision_function(X) if spec.task == lab.CLASSIFICATION else \
            est.predict(X)
        if off is not None and np.abs(np.ravel(off) - np.ravel(own)).max() > 1e-9:
            have.add(name)          # the learned matrix reaches the points it scores
    assert set(ab.ABLATION_METHODS) == have == set(A.NN_RULE_METHODS)


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
    assert [r.key for r in a.rows] == ["method", "off", "smooth", "nn", "plain"]
    nn = ab.nearest_labels(data.X_train, data.y_train, data.X_test)
    off = ab.off_predict(res.estimator, data.X_test, task)
    smooth = res.estimator.predict(data.X_test, extension="smooth")
    if task == lab.CLASSIFICATION:
        assert a.score("method") == pytest.approx(res.test_score)
        assert a.score("plain") == pytest.approx(plain.test_score)
        assert a.score("nn") == pytest.approx(np.mean(nn == data.y_test))
        assert a.score("off") == pytest.approx(np.mean(off == data.y_test))
        assert a.score("smooth") == pytest.approx(np.mean(smooth == data.y_test))
        assert a.row("smooth").agree_nn == pytest.approx(np.mean(smooth == nn))
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
        assert a.row("smooth").rel_error == pytest.approx(
            lab.relative_error(data.y_test, smooth))
    # every cell is plain text and the numbers in the table are the rows'
    table = a.table()
    assert all(isinstance(v, str) for row in table for v in row.values())
    assert table[0][next(k for k in table[0] if k.startswith("test"))] == \
        f"{a.score('method'):.3f}"


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
    return {t.get("name") for f in live_figures(at) for t in f["data"]}


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
    assert list(shown)[-1] == "SVR-CV" and len(shown) == 6
    P = {**lab.defaults(), **{k: lab.coerce(k, v) for k, v in q.items()}}
    from nplk_lab.model import settings_table  # noqa: F401  (coerce above)
    want = _expected(lab.REGRESSION, "dank_svr", P)
    assert [c["test R²"] for c in shown.values()][:5] == [f"{r.score:.3f}" for r in want.rows]
    assert any(re.search(r"squared difference is [\d.]+ %", m.value) for m in at.markdown)
    assert fg.NN_NAME in _trace_names(at)


@pytest.mark.slow
def test_switches_beside_the_figure_act_in_the_run_that_changed_them():
    """Ticking SVM-CV adds its row, and switching the plain SVM off removes its boundary,
    in the very rerun the click causes (the switches are drawn before what reads them)."""
    at = open_page("pages/1_Classification.py", n_samples=60)
    assert len(shown_table(at)) == 5
    # the legend names the plain SVM and its test score (polish §4)
    assert any(n.startswith("SVM boundary (σ=10, C=10)") for n in _trace_names(at))
    at.toggle(key="w_ablation_cv").set_value(True).run()
    assert not at.exception
    shown = shown_table(at)
    assert len(shown) == 6 and list(shown)[-1] == "SVM-CV"
    at.toggle(key="w_show_baseline").set_value(False).run()
    assert not any(n.startswith("SVM boundary") for n in _trace_names(at))


@pytest.mark.slow
def test_home_picture_draws_the_nn_boundary_beside_dank_and_the_svm():
    at = open_page("app.py")
    names = _trace_names(at)
    assert {"1-nearest neighbour boundary", "decision boundary"} <= names
    assert any("labels like 1-nearest neighbour" in c.value for c in at.caption)


def test_off_decision_for_knpl_one_vs_rest_and_odd_models():
    """KNPL on three classes: one column per class, each the plain kernel with that
    class's α and b (G = 11ᵀ, checked against the model with G set to ones); models
    without a learned matrix, or with one but no dual vector, give None; DANK's
    decomposition (k-means parts) has no single α; one support point is kept."""
    import types

    from nplk_core import DANKClassifier, KNPLClassifier
    rng = np.random.default_rng(0)
    X = rng.normal(size=(45, 2))
    y = np.repeat([0, 1, 2], 15)
    X[y == 1] += 3
    X[y == 2] -= 3
    est = KNPLClassifier(C=1.0, sigma=1.0).fit(X, y)
    d = ab.off_decision(est, X)
    ones = copy.deepcopy(est)
    ones.G_ = np.ones_like(est.G_)
    assert d.shape == (45, 3)
    np.testing.assert_allclose(d, ones.decision_function(X), atol=1e-10)
    np.testing.assert_array_equal(ab.off_predict(est, X, lab.CLASSIFICATION),
                                  est.classes_[np.argmax(d, axis=1)])
    Xb, yb = X[:30], np.where(y[:30] == 0, -1, 1)
    parts = DANKClassifier(C=1.0, sigma=1.0, n_clusters=2).fit(Xb, yb)
    assert ab.off_decision(parts, Xb) is None
    for odd in (types.SimpleNamespace(F_=np.ones((3, 3))),
                types.SimpleNamespace(G_=np.ones((3, 3))),
                types.SimpleNamespace(X_fit_=X[:3]),
                types.SimpleNamespace(ovr_=True, estimators_=[
                    types.SimpleNamespace(F_=np.ones((3, 3)))])):
        assert ab.off_decision(odd, X[:4]) is None
    from nplk_core.kernels import gaussian_kernel
    one = types.SimpleNamespace(F_=np.ones((3, 3)), dual_u_=np.array([0.0, 2.0, 0.0]),
                                intercept_=-0.5, X_fit_=X[:3], sigma=1.0)
    np.testing.assert_allclose(ab.off_decision(one, X[:5]),
                               2.0 * gaussian_kernel(X[1:2], X[:5], sigma=1.0)[0] - 0.5)


@pytest.mark.slow
def test_the_figure_names_both_rules_when_the_surface_and_the_scores_differ():
    """DANK's surface is drawn with the nearest-point rule while its test score (the
    table's row) uses the paper's reciprocal-neighbour rule: the figure's title names
    both, so the figure and the table do not seem to name two rules for one thing."""
    at = open_page("pages/1_Classification.py", n_samples=60)
    titles = [f["layout"].get("title", {}).get("text", "") for f in live_figures(at)]
    surface = next(t for t in titles if t.startswith("DANK — surface"))
    assert surface == ("DANK — surface: nearest-point rule; test scores: "
                       "reciprocal-neighbour rule"), surface
    assert any(label.startswith("DANK (reciprocal-neighbour rule)")
               for label in shown_table(at))
    at = open_page("pages/1_Classification.py", n_samples=60, extension="reciprocal")
    titles = [f["layout"].get("title", {}).get("text", "") for f in live_figures(at)]
    assert "DANK — surface: reciprocal-neighbour rule" in titles


def test_no_smooth_row_for_a_model_whose_rule_it_is_not():
    """The score table's smooth-rule row is for a model with one learned matrix: not for
    DANK one-vs-rest (each class model keeps its own rule), not for DANK fitted in
    k-means parts (its scalable mode, even with two parts), not for a model without a
    learned matrix or an object that is no estimator at all; a plain DANK has it."""
    from sklearn.svm import SVC

    from nplk_core import DANKClassifier

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, size=(20, 2)) for c in ((0, 0), (2, 0))])
    y = np.repeat([-1, 1], 20)
    assert ab.smooth_predict(DANKClassifier(n_clusters=2, max_iter=200).fit(X, y), X) is None
    X3 = np.vstack([X, rng.normal((0, 2), 0.5, size=(20, 2))])
    y3 = np.r_[np.repeat([0, 1], 20), np.full(20, 2)]
    assert ab.smooth_predict(DANKClassifier(max_iter=200).fit(X3, y3), X3) is None
    assert ab.smooth_predict(SVC().fit(X, y), X) is None
    assert ab.smooth_predict(object(), X) is None
    dank = DANKClassifier(max_iter=200).fit(X, y)
    np.testing.assert_array_equal(ab.smooth_predict(dank, X.tolist()),
                                  dank.predict(X, extension="smooth"))


def test_a_share_of_the_gain_is_never_rounded_to_all_or_nothing():
    """The paragraph's "keep +x of its +y points (share)": the off model's share of the
    gain lies strictly between 0 and 1 there, so it never reads "0 %" or "100 %"."""
    assert ab._share(0.003) == "under 1 %" and ab._share(0.0049) == "under 1 %"
    assert ab._share(0.007) == "1 %" and ab._share(0.5) == "50 %"
    assert ab._share(0.99) == "99 %" and ab._share(0.998) == "over 99 %"


def test_the_scored_rule_is_named_by_the_choosers_own_keys():
    """The surface's title compares the rule that scored the fit with the rule drawn (a
    key of the chooser: "nearest", "reciprocal", "smooth") and names both only when they
    differ; so the scored rule is one of those keys."""
    assert ab.rule_key("dank") == "reciprocal" and ab.rule_key("knpl") == "nearest"
    assert ab.rule_key("dank", extension="nearest") == "nearest"
    assert ab.rule_key("dank_svr", extension="smooth") == "nearest"
    assert {ab.rule_key(m) for m in ("dank", "knpl", "dank_svr")} <= set(ab.RULE_NAMES)
