"""Two-parameter maps (nplk_lab.model.maps, nplk_lab.figures.maps): a map equals the matching
one-parameter sweeps cell by cell, the baseline map equals the plain method's own map,
F switched off is the learned α and b with the plain kernel, a stopped map keeps its
finished cells, cached lines are not fitted again, the budget refuses large maps with
a message, clicks pick cells, and the figures are valid with a diverging scale centred
at 0."""

from __future__ import annotations

import joblib
import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import KNeighborsClassifier

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_core.dank import DANKClassifier
from nplk_core.datasets import make_clowns
from nplk_core.kernels import sigma_to_gamma
from nplk_core.knpl import KNPLClassifier
from nplk_lab.model import budget, maps

SMALL = {**lab.defaults(), "n_samples": 60}
SIGMAS = np.array([0.5, 2.0, 10.0])
CS = np.array([1.0, 10.0, 100.0])


def _map(method="dank", p1="sigma", v1=SIGMAS, p2="C", v2=CS, repeats=2, **kw):
    return maps.run_map(SMALL, method, p1, v1, p2, v2, repeats=repeats, **kw)


@pytest.fixture(scope="module")
def dank_map():
    return _map()


def test_map_equals_the_one_parameter_sweeps_cell_by_cell(dank_map):
    m = dank_map
    assert m.warm_param == "C" and m.messages == []
    assert np.isfinite(m.scores).all() and np.isfinite(m.ranks).all()
    # each σ: the sweep over C (warm-started along C, as the map's lines are)
    for i1, s in enumerate(SIGMAS):
        sw = lab.run_sweep({**SMALL, "sigma": float(s)}, "dank", "C", CS, repeats=2)
        np.testing.assert_array_equal(m.scores[:, i1, :], sw.scores)
        np.testing.assert_array_equal(m.train_scores[:, i1, :], sw.train_scores)
        np.testing.assert_array_equal(m.ranks[:, i1, :], sw.ranks)


def test_svm_map_equals_the_sweeps_along_both_axes():
    m = _map("svm")
    assert m.baseline is None and m.f_off is None and m.warm_param is None
    for i1, s in enumerate(SIGMAS):
        sw = lab.run_sweep({**SMALL, "sigma": float(s)}, "svm", "C", CS, repeats=2)
        np.testing.assert_array_equal(m.scores[:, i1, :], sw.scores)
    for i2, c in enumerate(CS):
        sw = lab.run_sweep({**SMALL, "C": float(c)}, "svm", "sigma", SIGMAS, repeats=2)
        np.testing.assert_array_equal(m.scores[i2, :, :], sw.scores)


def test_baseline_map_is_the_plain_svm_with_the_same_sigma_and_C(dank_map):
    svm = _map("svm")
    np.testing.assert_array_equal(dank_map.baseline, svm.scores)
    np.testing.assert_allclose(dank_map.difference,
                               np.mean(dank_map.scores - svm.scores, axis=2))


def test_one_nn_is_scored_on_each_seeds_split(dank_map):
    for r in range(2):
        data, _ = lab.prepare_data(SMALL, lab.CLASSIFICATION, seed=r)
        knn = KNeighborsClassifier(1).fit(data.X_train, data.y_train)
        assert dank_map.knn[r] == knn.score(data.X_test, data.y_test)


def test_f_off_is_the_learned_alpha_with_the_plain_kernel():
    from nplk_lab.model.ablation import off_decision
    X, y = make_clowns(80, random_state=1)
    Xt, _ = make_clowns(30, random_state=2)
    est = DANKClassifier(C=10.0, sigma=4.0).fit(X, y)
    want = est.dual_u_ @ rbf_kernel(X, Xt, gamma=sigma_to_gamma(4.0)) + est.intercept_
    np.testing.assert_array_equal(maps.f_off_predict(est, Xt, lab.CLASSIFICATION),
                                  est.classes_[(want > 0).astype(int)])
    # with F = 11ᵀ exactly (τ = 0, η → ∞) switching F off changes nothing
    flat = DANKClassifier(C=10.0, sigma=4.0, tau=0.0, eta=1e12).fit(X, y)
    np.testing.assert_allclose(flat.F_, 1.0, atol=1e-9)
    np.testing.assert_allclose(off_decision(flat, Xt), flat.decision_function(Xt),
                               atol=1e-7)
    # KNPL: alpha * y with the plain kernel
    kn = KNPLClassifier(C=10.0, sigma=4.0).fit(X, y)
    want = kn.dual_coef_ @ rbf_kernel(X, Xt, gamma=sigma_to_gamma(4.0)) + kn.intercept_
    np.testing.assert_array_equal(maps.f_off_predict(kn, Xt, lab.CLASSIFICATION),
                                  kn.classes_[(want > 0).astype(int)])
    assert maps.f_off_predict(object(), Xt, lab.CLASSIFICATION) is None


def test_f_off_map_is_the_score_of_f_off_predictions(dank_map):
    data, _ = lab.prepare_data(SMALL, lab.CLASSIFICATION, seed=1)
    p = {**SMALL, "sigma": float(SIGMAS[2]), "C": float(CS[0])}
    res = lab.fit_method(p, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")      # the first cell of a line: a cold fit
    pred = maps.f_off_predict(res.estimator, data.X_test, lab.CLASSIFICATION)
    assert dank_map.f_off[0, 2, 1] == np.mean(pred == data.y_test)


def test_f_share_is_f_off_minus_the_baseline(dank_map):
    m = dank_map
    assert m.f_off is not None and np.isfinite(m.f_off).all()
    np.testing.assert_allclose(m.f_share, np.mean(m.f_off - m.baseline, axis=2))


def test_parallel_lines_equal_the_serial_map(dank_map):
    seen = []
    with joblib.parallel_config(backend="threading"):
        par = _map(parallel=True, n_jobs=2,
                   progress=lambda d, t, part: seen.append((d, part.done)) and False)
    for a, b in ((par.scores, dank_map.scores), (par.ranks, dank_map.ranks),
                 (par.baseline, dank_map.baseline), (par.f_off, dank_map.f_off)):
        np.testing.assert_array_equal(a, b)
    # a line of 3 cells at a time; the partial map counts what it holds
    assert [d for d, _ in seen] == [3, 6, 9, 12, 15, 18]
    assert all(d == done for d, done in seen)


def test_stop_keeps_the_cells_done_and_the_cache_resumes(dank_map):
    calls = []

    def progress(done, total, partial):
        calls.append(done)
        return done == 4

    lines = {}
    part = _map(progress=progress, on_result=lambda k, cells: lines.setdefault(k, cells))
    assert part.stopped and part.done == 4 and part.total == 18
    got = np.isfinite(part.scores)
    assert got.sum() == 4
    np.testing.assert_array_equal(part.scores[got], dank_map.scores[got])
    assert len(lines) == 1                      # one whole line (3 cells) cached
    # only the cached line without fitting; then the rest fitted, equal to the full map
    known = _map(known=lines.get, fit_missing=False)
    assert known.done == 3 and known.stopped
    fitted = []
    full = _map(known=lines.get, progress=lambda d, t, p: fitted.append(d) and False)
    assert fitted[0] == 3 and fitted[-1] == 18
    np.testing.assert_array_equal(full.scores, dank_map.scores)


def test_budget_refuses_large_maps_with_a_message():
    v = budget.map_verdict("dank", 140, (15, 15), 10)
    assert not v.ok and "15 × 15 values × 10 seeds = 2250 fits" in v.message
    assert "limit of 1,125" in v.message
    v = budget.map_verdict("dank", 2000, (15, 15), 4)
    assert not v.ok and "would take about" in v.message and "smaller sample" in v.message
    v = budget.map_verdict("dank", 140, (10, 10), 3, workers=2)
    assert v.ok
    # a refused map fits nothing and says why
    m = maps.run_map({**SMALL, "n_samples": 1000}, "dank", "sigma",
                     lab.sweep_values("sigma", None, None, 15), "C",
                     lab.sweep_values("C", None, None, 15), repeats=5)
    assert m.done == 0 and m.messages and m.messages[0].level == "error"


def test_two_different_parameters_are_needed():
    m = _map(p2="sigma", v2=SIGMAS)
    assert m.done == 0 and "two different parameters" in m.messages[0].text


def test_warm_axis_follows_the_sweeps_rule():
    assert maps.warm_axis("dank", "sigma", "C") == 1
    assert maps.warm_axis("dank", "C", "sigma") == 0
    assert maps.warm_axis("dank", "tau", "sigma") == 0
    assert maps.warm_axis("lab_rbf", "n_support", "lam") == 1


def test_cell_from_clicks_rounds_to_a_cell():
    shape = (3, 4)   # 3 values of the second parameter, 4 of the first
    cell, newest = maps.cell_from_clicks([{"id": 5, "x": 2.4, "y": 0.6}], shape)
    assert cell == (1, 2) and newest == 5
    assert maps.cell_from_clicks([{"id": 6, "x": 2.0, "y": 1.0}], shape, seen=6)[0] is None
    assert maps.cell_from_clicks([{"id": 7, "x": 3.6, "y": 0.0}], shape)[0] is None
    assert maps.cell_from_clicks([{"id": 8, "x": "nan", "y": 0}], shape)[0] is None
    assert maps.cell_from_clicks("junk", shape) == (None, 0.0)


def test_map_table_has_one_row_per_cell(dank_map):
    t = maps.map_table(dank_map)
    assert len(t) == 9 and t["seeds finished"].eq(2).all()
    assert any("DANK − SVM" in c for c in t.columns)
    assert any("F's own share" in c for c in t.columns)
    row = t.iloc[5]          # second parameter index 1, first index 2
    assert row.iloc[0] == SIGMAS[2] and row.iloc[1] == CS[1]
    assert row.iloc[2] == pytest.approx(dank_map.scores[1, 2].mean())


def test_map_figures_are_valid_and_differences_centre_at_zero(monkeypatch, dank_map):
    import nplk_lab.figures.common as fgc
    monkeypatch.setattr(fgc, "VALIDATE", True)
    m = dank_map
    hover = fg.map_hover(m.values1, m.values2, "σ", "C",
                         [("DANK", m.mean(m.scores), m.spread(m.scores), "{:.3f}")])
    assert hover.shape == (3, 3) and "±" in hover[0, 0] and "σ = 0.5, C = 1" in hover[0, 0]
    fig = fg.map_figure(m.values1, m.values2, m.difference, label1="σ", label2="C",
                        diverging=True, hover=hover, mark=(1, 2))
    tr = fig.data[0]
    assert tr.zmid == 0 and tr.zmin == -tr.zmax
    assert tr.zmax == pytest.approx(np.nanmax(np.abs(m.difference)), rel=1e-6)
    assert list(fig.layout.xaxis.ticktext) == ["0.5", "2", "10"]
    assert fig.layout.shapes[0].x0 == 1.5 and fig.layout.shapes[0].y0 == 0.5
    seq = fg.map_figure(m.values1, m.values2, m.mean(m.scores), label1="σ", label2="C",
                        zmin=0.5, zmax=1.0)
    assert seq.data[0].zmin == 0.5 and seq.data[0].zmax == 1.0 and seq.data[0].zmid is None


def test_second_parameter_round_trips_through_the_url():
    P = {**lab.defaults(), "sweep_param": "sigma", "sweep_param2": "C",
         "sweep_range2": (0.1, 100.0), "sweep_points2": 10}
    q = lab.encode_query(P, lab.relevant_names("sensitivity", P))
    assert q["sweep_param2"] == "C" and q["sweep_points2"] == "10"
    back, msgs = lab.decode_query(q)
    assert not msgs and back["sweep_param2"] == "C" and back["sweep_range2"] == (0.1, 100.0)
    q = lab.encode_query(lab.defaults(), lab.relevant_names("sensitivity"))
    assert q["sweep_param2"] == ""
    assert lab.setting("sweep_param2").format("sigma") == lab.setting("sigma").label
