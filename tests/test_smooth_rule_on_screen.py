"""The smooth out-of-sample rule on screen: the rule each method draws, the score table's
smooth row and its sentence (word for word), and the Classification page drawing its
surface with the rule (AppTest)."""

from __future__ import annotations

import numpy as np
import pytest
from _app_pages import live_figures, open_page

import nplk_lab.model as lab
from nplk_lab.model import ablation as ab
from nplk_lab.model import grids


def _wobble(y, size=0.8):
    return y + np.where(np.arange(y.size) % 2, size, -size)


@pytest.mark.parametrize("sigma", [0.5, 3.0])
def test_the_surface_from_the_shared_geometry_is_the_estimators_smooth_rule(sigma):
    """The page's fast path (kernel columns and the smooth weights from the cached grid
    distances) gives DANK's own decision function under the smooth rule."""
    P = {**lab.defaults(), "n_samples": 80, "sigma": sigma}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")
    g = lab.make_grid(data.X, 40)
    geom = lab.grid_geometry(g, data.X_train)
    assert grids._fast_decision(res.estimator, geom, "smooth") is not None
    Z, msgs = lab.grid_values(res.estimator, g, extension="smooth", geometry=geom)
    assert msgs == []
    np.testing.assert_allclose(Z.ravel(), res.estimator.decision_function(
        g.points, extension="smooth"), rtol=1e-10, atol=1e-10)


def test_the_drawn_rule_of_each_method():
    """DANK and DANK-SVR draw the rule the setting names; KNPL, without a reciprocal
    rule, the smooth rule when chosen and else its own; other methods have none. A
    smooth rule needs σ."""
    assert [lab.drawn_rule("dank", r) for r in ("nearest", "reciprocal", "smooth")] == \
        ["nearest", "reciprocal", "smooth"]
    assert lab.drawn_rule("dank_svr", "smooth") == "smooth"
    assert [lab.drawn_rule("knpl", r) for r in ("nearest", "reciprocal", "smooth")] == \
        [None, None, "smooth"]
    assert lab.drawn_rule("svm", "smooth") is None and lab.drawn_rule("onk", "smooth") is None
    with pytest.raises(ValueError, match="needs the kernel's σ"):
        grids.rule_columns("smooth", np.zeros((2, 2)), np.ones((3, 2)))


def test_the_smooth_rules_row_and_sentence_word_for_word():
    """A smooth row is compared with the plain SVM like the others; its sentence follows
    the F-off sentence and its interval, before the explanation."""
    y = np.array([1, 1, 1, 1, 1, -1, -1, -1, -1, -1])
    flip = np.ones(10, dtype=int)
    flip[:6] = -1
    wrong6 = y * flip
    a = ab.from_predictions("dank", y, {"method": ("m", y), "off": ("o", wrong6),
                                        "smooth": ("s", y), "nn": ("n", y),
                                        "plain": ("p", wrong6)})
    assert [r.key for r in a.rows] == ["method", "off", "smooth", "nn", "plain"]
    sm = a.vs_plain("smooth")
    sentence = ("With the smooth rule, which copies no row of F, it scores 1.000, above the "
                f"plain SVM beyond its interval ({ab._interval(sm, True, 'points')}).")
    assert sentence in a.verdict
    assert a.verdict.index("With F switched off") < a.verdict.index(sentence) < \
        a.verdict.index("So its gain comes from")
    b = ab.from_predictions("knpl", y, {"method": ("m", y), "off": ("o", wrong6),
                                        "smooth": ("s", wrong6), "nn": ("n", y),
                                        "plain": ("p", wrong6)})
    assert ("With the smooth rule, which copies no row of G, it scores 0.400, level with "
            "the plain SVM within its interval (0.0 points (0.0 to 0.0)).") in b.verdict
    c = ab.from_predictions("knpl", y, {"method": ("m", y), "off": ("o", wrong6),
                                        "smooth": ("s", -y), "nn": ("n", y),
                                        "plain": ("p", wrong6)})
    assert "it scores 0.000, below the plain SVM beyond its interval" in c.verdict
    # regression: R² units
    t = np.linspace(0, 3, 12)
    r = ab.from_predictions("dank_svr", t, {"method": ("m", t), "off": ("o", _wobble(t)),
                                            "smooth": ("s", _wobble(t)), "nn": ("n", t),
                                            "plain": ("p", _wobble(t))})
    assert ("With the smooth rule, which copies no row of F, it scores 0.278, level with "
            "the plain SVR within its interval (0.000 (0.000 to 0.000)).") in r.verdict


def test_the_smooth_row_is_left_out_where_the_model_has_no_smooth_rule():
    """DANK one-vs-rest keeps each class model's own rule (no smooth row); a model
    without a learned matrix has none; KNPL one-vs-rest has one per class."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, size=(12, 2)) for c in ((0, 0), (2, 0), (0, 2))])
    y = np.repeat([0, 1, 2], 12)
    from sklearn.svm import SVC

    from nplk_core import DANKClassifier, KNPLClassifier

    assert ab.smooth_predict(DANKClassifier(max_iter=200).fit(X, y), X) is None
    assert ab.smooth_predict(SVC().fit(X, y), X) is None
    knpl = KNPLClassifier().fit(X, y)
    np.testing.assert_array_equal(ab.smooth_predict(knpl, X),
                                  knpl.predict(X, extension="smooth"))


@pytest.mark.slow
@pytest.mark.parametrize("method", ["dank", "knpl"])
def test_the_surface_can_be_drawn_with_the_smooth_rule(method):
    """The rule chooser beside the surface offers the smooth rule for DANK and KNPL; the
    surface is then the fit's decision function under it, and its title names it."""
    q = {"n_samples": 60, "method": method}
    at = open_page("pages/1_Classification.py", **q)
    chooser = at.selectbox(key="w_extension")
    assert "smooth" in chooser.options or any("smooth rule" in str(o)
                                              for o in chooser.options)
    chooser.set_value("smooth").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params.get("extension") in ("smooth", ["smooth"])
    fig = next(f for f in live_figures(at) if any(t.get("type") == "heatmap" and
                                               t.get("name") == "decision function"
                                               for t in f["data"]))
    title = fig["layout"]["title"]["text"]
    assert "surface: smooth rule" in title
    P = {**lab.defaults(), **q}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    grid = lab.make_grid(data.X, 100)
    want = res.estimator.decision_function(grid.points, extension="smooth")
    z = _values(next(t for t in fig["data"] if t.get("name") == "decision function")["z"])
    z = z.ravel()
    inside = np.abs(want) < 1.25            # the figure clips beyond (at least) ±1.25
    assert inside.mean() > 0.2
    np.testing.assert_allclose(z[inside], want[inside], rtol=1e-5, atol=1e-5)
    assert np.abs(want - res.estimator.decision_function(grid.points,
                                                         extension="nearest")).max() > 0.1


def test_the_lesson_step_draws_dank_with_the_smooth_rule_and_its_scores():
    """Lesson 2's step on the smooth rule: its revealed surface is DANK's decision
    function under that rule, its title names the rule, and the corner's test score is
    that rule's (the question is about it), not the paper's rule's."""
    from nplk_lab.model.lessons import lessons as L
    from nplk_lab.ui.lessons import step_figure

    step = next(s for s in L.lesson(2).steps if "smooth rule" in s.question)
    assert step.params["extension"] == "smooth" and step.expect == 1
    fig = step_figure(step, True)
    assert "with the smooth rule" in fig.layout.title.text
    data, res = L.lesson_fit(step.params, "dank")
    grid = lab.make_grid(data.X)
    want = res.estimator.decision_function(grid.points, extension="smooth")
    z = np.asarray(next(t for t in fig.data if t.name == "decision function").z,
                   dtype=float).ravel()
    inside = np.abs(want) < 1.25                     # the figure clips beyond ±1.25 at least
    np.testing.assert_allclose(z[inside], want[inside], rtol=1e-5, atol=1e-5)
    test = np.mean(res.estimator.predict(data.X_test, extension="smooth") == data.y_test)
    assert test != res.test_score
    assert any(f"test {test:.3f}" in (a.text or "") for a in fig.layout.annotations)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["dank", "knpl"])
def test_every_view_of_the_page_takes_the_smooth_rule(method):
    """With the smooth rule chosen, the eigenfunction maps and a selected point's
    influence are drawn with it too (their learned rows are the rule's averages), and
    the maps' caption says what that rule does instead of the papers' row rule."""
    q = {"n_samples": 60, "method": method, "extension": "smooth", "view": "spectra",
         "focus_point": 3}
    at = open_page("pages/1_Classification.py", **q)
    assert not at.exception, [e.value for e in at.exception]
    captions = " ".join(c.value for c in at.caption)
    assert "an average of all the rows of the learned matrix weighted by the kernel (the " \
           "smooth rule)" in captions
    assert "the row of the training point that the" not in captions
    titles = [f["layout"].get("title", {}).get("text", "") for f in live_figures(at)]
    assert any(t.startswith("Eigenfunction j = 1") for t in titles)
    assert any("influence of training point 3" in t for t in titles)


@pytest.mark.slow
def test_the_regression_fit_can_be_drawn_with_the_smooth_rule():
    """DANK-SVR on the step function: with the smooth rule chosen, the drawn fit is the
    estimator's predictions under that rule, and the figure names it."""
    q = {"n_samples": 60, "reg_dataset": "step", "extension": "smooth"}
    at = open_page("pages/2_Regression.py", **q)
    assert not at.exception, [e.value for e in at.exception]
    fig = next(f for f in live_figures(at) if any(t.get("name") == "DANK-SVR" for t in f["data"]))
    assert fig["layout"]["title"]["text"] == "DANK-SVR fit — smooth rule"
    P = {**lab.defaults(), **{k: lab.coerce(k, v) for k, v in q.items()}}
    data, _ = lab.prepare_data(P, lab.REGRESSION)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank_svr")
    trace = next(t for t in fig["data"] if t.get("name") == "DANK-SVR")
    x, y = (_values(trace[k]) for k in ("x", "y"))
    np.testing.assert_allclose(y, res.estimator.predict(x[:, None], extension="smooth"),
                               rtol=1e-5, atol=1e-5)


def _values(a):
    """A figure's array as sent to the browser: a list, or a base64 typed array."""
    if isinstance(a, dict):
        import base64
        return np.frombuffer(base64.b64decode(a["bdata"]), dtype=a["dtype"]).astype(float)
    return np.asarray(a, dtype=float)
