"""Wherever the plain SVM / SVR is drawn, its score on the same split stands beside the
method's; "Show the plain SVM / SVR" draws the plain SVR on the 2-D regression surface."""

import sys
from pathlib import Path

import numpy as np
import pytest
from _components import figure_of
from sklearn.metrics import r2_score
from sklearn.svm import SVC, SVR
from streamlit.testing.v1 import AppTest

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_core.kernels import sigma_to_gamma

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
TIMEOUT = 180


def _data(task, **kw):
    P = {**lab.defaults(), "n_samples": 80, **kw}
    data, msgs = lab.prepare_data(P, task)
    assert data is not None, msgs
    return P, data


def test_classification_baseline_matches_scikit_learn_on_the_same_split():
    P, d = _data(lab.CLASSIFICATION, sigma=3.0, C=2.0)
    bs = lab.baseline_scores(P, d.X_train, d.y_train, d.X_test, d.y_test,
                             task=lab.CLASSIFICATION)
    ref = SVC(C=2.0, gamma=sigma_to_gamma(3.0)).fit(d.X_train, d.y_train)
    assert bs.test == pytest.approx(ref.score(d.X_test, d.y_test))
    assert bs.train == pytest.approx(ref.score(d.X_train, d.y_train))
    assert "σ = 3" in bs.name and "C = 2" in bs.name


def test_regression_baseline_relative_error_and_r2():
    P, d = _data(lab.REGRESSION, reg_dataset="harmonic", sigma=0.5, C=5.0, epsilon=0.05)
    bs = lab.baseline_scores(P, d.X_train, d.y_train, d.X_test, d.y_test,
                             task=lab.REGRESSION)
    ref = SVR(C=5.0, epsilon=0.05, gamma=sigma_to_gamma(0.5)).fit(d.X_train, d.y_train)
    pred = ref.predict(d.X_test)
    assert bs.test == pytest.approx(lab.relative_error(d.y_test, pred))
    assert bs.test_r2 == pytest.approx(r2_score(d.y_test, pred))


def test_shows_baseline_only_where_it_is_drawn():
    on = {"show_baseline": True}
    assert lab.shows_baseline("dank", on) and lab.shows_baseline("dank_svr", on)
    assert not lab.shows_baseline("svm", on) and not lab.shows_baseline("svr", on)
    assert not lab.shows_baseline("dank", {"show_baseline": False})


def test_regression_surface_draws_the_baseline_levels():
    xs, ys = np.linspace(-1, 1, 30), np.linspace(-1, 1, 25)
    Z = np.add.outer(ys, xs)
    base = np.add.outer(ys, -xs)
    X = np.random.default_rng(0).uniform(-1, 1, (20, 2))
    fig = fg.regression_surface(xs, ys, Z, X, X.sum(1), baseline=base,
                                baseline_name="plain SVR (σ = 1)")
    plain = [t for t in fig.data if t.name == "plain SVR (σ = 1)"]
    assert len(plain) == 1 and plain[0].type == "contour"
    assert np.allclose(np.asarray(plain[0].z, float), base, atol=1e-6)
    assert plain[0].contours.coloring == "none" and plain[0].showlegend
    # the fill and the dotted lines share their levels
    assert plain[0].contours.size == fig.data[0].contours.size
    without = fg.regression_surface(xs, ys, Z, X, X.sum(1))
    assert not [t for t in without.data if t.type == "contour" and t.name != "fit"]


def _metrics(at):
    return {m.label: m.value for m in at.metric}


@pytest.mark.slow
def test_classification_page_shows_the_plain_svm_score():
    at = AppTest.from_file(str(ROOT / "pages/1_Classification.py"), default_timeout=TIMEOUT)
    at.query_params["n_samples"] = "60"
    at.run()
    assert not at.exception
    m = _metrics(at)
    P, d = _data(lab.CLASSIFICATION, n_samples=60)
    bs = lab.baseline_scores(P, d.X_train, d.y_train, d.X_test, d.y_test,
                             task=lab.CLASSIFICATION)
    assert m["Test, plain SVM"] == f"{bs.test:.3f}"
    assert m["Train, plain SVM"] == f"{bs.train:.3f}"
    figs = [figure_of(e) for e in at.get("bidi_component")]
    names = [t.get("name", "") for f in figs if f for t in f["data"]]
    assert any(n.startswith("SVM boundary") and f"test accuracy {bs.test:.3f}" in n
               for n in names), names
    # switched off: neither the boundary nor its score
    next(t for t in at.toggle if t.key == "w_show_baseline").set_value(False)
    at.run()
    assert "Test, plain SVM" not in _metrics(at)


@pytest.mark.slow
def test_regression_2d_surface_shows_the_plain_svr():
    at = AppTest.from_file(str(ROOT / "pages/2_Regression.py"), default_timeout=TIMEOUT)
    at.query_params["n_samples"] = "60"
    at.query_params["reg_dataset"] = "harmonic"
    at.run()
    assert not at.exception

    def plain_traces():
        figs = [figure_of(e) for e in at.get("bidi_component")]
        return [t for f in figs if f for t in f["data"]
                if t.get("type") == "contour" and str(t.get("name", "")).startswith("SVR")]
    traces = plain_traces()
    assert len(traces) == 1 and "R²" in traces[0]["name"]
    tile = next(x for x in at.metric if x.label == "Test, plain SVR")
    assert "R²" in tile.delta and float(tile.value) > 0
    next(t for t in at.toggle if t.key == "w_show_baseline").set_value(False)
    at.run()
    assert not plain_traces()
    assert "Test, plain SVR" not in _metrics(at)


@pytest.mark.slow
def test_regression_page_fits_the_plain_svr_once(monkeypatch):
    """The plain SVR's score tiles, its dotted curve and the score table's reference row
    come from one fit per data set and σ, C, ε (counted: scikit-learn's SVR.fit called
    from the lab, not from DANK-SVR's own solver), and again one after a move of σ."""
    calls = []
    real_fit = SVR.fit

    def counting_fit(self, X, y, *a, **k):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not caller.startswith("nplk_core"):
            calls.append((self.C, self.gamma, self.epsilon, len(y)))
        return real_fit(self, X, y, *a, **k)

    from nplk_lab.serve import stores
    for store in list(stores.STORES):   # fits another test left in this process
        store.clear()
    monkeypatch.setattr(SVR, "fit", counting_fit)
    at = AppTest.from_file(str(ROOT / "pages/2_Regression.py"), default_timeout=TIMEOUT)
    at.query_params["n_samples"] = "60"
    at.query_params["reg_method"] = "dank_svr"
    at.run()
    assert not at.exception
    P, d = _data(lab.REGRESSION, n_samples=60)
    # all three are on the page: the tiles, the dotted curve, the score table's SVR row
    assert "Test, plain SVR" in _metrics(at)
    assert any("plain SVR" in str(m.value) or "SVR (σ" in str(m.value) for m in at.markdown)
    key = (float(P["C"]), sigma_to_gamma(float(P["sigma"])), float(P["epsilon"]),
           len(d.y_train))
    assert calls == [key]
    sigma = at.select_slider(key="w_sigma")
    sigma.set_value(2 * float(P["sigma"])).run()
    assert not at.exception
    assert len(calls) == 2 and calls[1][1] != key[1]
