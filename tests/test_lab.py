"""The lab's state table, URL/JSON round trips, method registry and never-raising fits
(no Streamlit involved)."""

import json
import warnings

import numpy as np
import pytest

import nplk_lab.model as lab
from nplk_core.dank import reciprocal_index
from nplk_lab.model import grids

ISSUE_4_METHODS = {
    # classification page
    "dank", "knpl", "onk", "lab_rbf", "svm", "svm_cv", "mkl_uniform",
    # regression page
    "dank_svr", "lab_rbf_reg", "svr", "svr_cv", "krr",
    # pairwise constraints page
    "simple_npkl",
}


def _random_value(s: lab.Setting, rng: np.random.Generator):
    if s.kind == "choice":
        return s.options[rng.integers(len(s.options))]
    if s.kind == "bool":
        return bool(rng.integers(2))
    if s.kind == "float_auto":
        return "auto" if rng.random() < 0.3 else float(rng.choice(s.grid()))
    if s.kind == "int":
        return int(rng.integers(int(s.min), int(s.max) + 1))
    if s.kind == "float":
        if s.log:
            return float(np.exp(rng.uniform(np.log(s.min), np.log(s.max))))
        return float(rng.uniform(s.min, s.max))
    if s.kind == "range":
        a, b = sorted(rng.uniform(-3, 3, size=2))
        return (float(a), float(b) + 1.0)
    if s.kind == "points":
        return tuple((float(np.round(rng.normal(), 3)), float(np.round(rng.normal(), 3)),
                      int(rng.choice([-1, 1]))) for _ in range(rng.integers(0, 5)))
    if s.kind == "token":  # opaque URL-safe text (a teacher's lesson, a class code)
        return "".join(rng.choice(list("abcXYZ019-_"))
                       for _ in range(rng.integers(0, min(40, int(s.max)) + 1)))
    raise AssertionError(s.kind)


# ---------------------------------------------------------------------------
# the settings table
# ---------------------------------------------------------------------------

def test_defaults_are_valid_and_in_range():
    for name, s in lab.settings().items():
        assert lab.coerce(name, s.default) == s.default, name
        assert s.label and (s.kind in ("points", "range") or s.help or s.datasets), name
        if s.log:
            assert s.min > 0 and s.max > s.min, name
            grid = s.grid()
            assert np.all(np.diff(np.log(grid)) > 0), name


def test_dataset_parameters_come_from_the_dataset_registry():
    from nplk_core.datasets import DATASETS
    table = lab.settings()
    for name, spec in DATASETS.items():
        for p, ps in spec.params.items():
            s = table[f"{name}_{p}"]
            assert s.default == ps.default and s.datasets == (name,)
            assert s.estimator_param == p


def test_url_round_trip_of_defaults_and_random_states():
    base = lab.defaults()
    q = lab.encode_query(base)
    assert all(isinstance(v, str) for v in q.values())
    back, msgs = lab.decode_query(q)
    assert msgs == [] and back == base
    rng = np.random.default_rng(0)
    for _ in range(25):
        p = {n: _random_value(s, rng) for n, s in lab.settings().items()}
        back, msgs = lab.decode_query(lab.encode_query(p))
        assert msgs == []
        for n, v in p.items():
            if lab.setting(n).kind == "points":
                np.testing.assert_allclose(np.asarray(back[n]).reshape(-1, 3),
                                           np.asarray(v).reshape(-1, 3), rtol=1e-3)
            else:
                assert back[n] == v, (n, v, back[n])


def test_url_query_lists_take_the_last_value():
    back, msgs = lab.decode_query({"sigma": ["2.0", "3.0"], "seed": ["7"]})
    assert back["sigma"] == 3.0 and back["seed"] == 7 and msgs == []


@pytest.mark.parametrize("key,raw", [
    ("sigma", "abc"), ("sigma", "-1"), ("sigma", "nan"), ("sigma", "inf"), ("C", "1e99"),
    ("tau", ""), ("seed", "1.5"), ("seed", "x"), ("n_samples", "5"), ("method", "magic"),
    ("dataset", "<script>"), ("show_baseline", "maybe"), ("eta", "autox"),
    ("points", "1,2"), ("points", "1,2,5"), ("points", "a,b,c"), ("sweep_range", "3~1"),
    ("sweep_range", "1"), ("max_iter", "-3"),
])
def test_garbage_in_the_url_falls_back_with_a_message(key, raw):
    base = lab.defaults()
    base["sigma"] = 2.0
    back, msgs = lab.decode_query({key: raw, "test_size": "0.4"}, base)
    assert back[key] == base[key]
    assert back["test_size"] == 0.4  # the good parameter next to it still applies
    assert len(msgs) == 1 and msgs[0].level == "warning" and key in msgs[0].text


def test_unknown_url_keys_are_reported_and_streamlit_keys_ignored():
    back, msgs = lab.decode_query({"foo": "1", "embed": "true"})
    assert back == lab.defaults()
    assert [m.text for m in msgs] == ["Ignored unknown link parameter “foo”."]


def test_json_config_round_trip_and_bad_files():
    p = lab.defaults()
    p.update(sigma=0.5, method="onk", points=((0.5, 1.0, 1), (-1.0, 2.0, -1)),
             sweep_range=(0.001, 1.0), eta=20.0)
    text = lab.params_to_json(p)
    assert json.loads(text)["format"] == lab.CONFIG_FORMAT
    back, msgs = lab.params_from_json(text)
    assert msgs == [] and back == p
    back, msgs = lab.params_from_json("{not json")
    assert back == lab.defaults() and msgs[0].level == "error"
    back, msgs = lab.params_from_json(json.dumps({"x": 1}))
    assert msgs[0].level == "error"
    doc = json.loads(text)
    doc["params"]["sigma"] = -4
    doc["params"]["nonsense"] = 1
    back, msgs = lab.params_from_json(json.dumps(doc))
    assert back["sigma"] == lab.setting("sigma").default and back["method"] == "onk"
    assert len(msgs) == 2


def test_relevant_names_follow_the_selected_method_and_dataset():
    p = lab.defaults()
    names = lab.relevant_names("classification", {**p, "method": "dank"})
    assert {"tau", "eta", "solver", "C", "sigma", "clowns_spread"} <= set(names)
    assert "onk_rho" not in names and "moons_noise" not in names
    names = lab.relevant_names("classification", {**p, "method": "onk",
                                                   "dataset": "moons"})
    assert "onk_rho" in names and "tau" not in names and "moons_noise" in names
    reg = lab.relevant_names("regression", p)
    assert "reg_dataset" in reg and "dataset" not in reg and "epsilon" in reg


def test_can_warm_start_only_for_continuous_moves():
    p = lab.defaults()
    assert lab.can_warm_start(p, {**p, "tau": 0.1}, "dank")
    assert lab.can_warm_start(p, {**p, "C": 2.0}, "dank")
    # a new sigma is a new kernel: start from the plain SVM instead
    assert not lab.can_warm_start(p, {**p, "C": 2.0, "sigma": 0.5}, "dank")
    assert not lab.can_warm_start(p, {**p, "solver": "pg"}, "dank")
    assert not lab.can_warm_start(p, {**p, "max_iter": 50}, "dank")
    assert not lab.can_warm_start(p, p, "dank")


# ---------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------

def test_registry_covers_every_method_of_issue_4():
    assert set(lab.METHODS) == ISSUE_4_METHODS
    assert set(lab.CLASSIFICATION_METHODS) == set(lab.methods_for(lab.CLASSIFICATION))
    assert set(lab.REGRESSION_METHODS) == set(lab.methods_for(lab.REGRESSION))
    table = lab.settings()
    views = {"surface", "curve", "matrix", "spectra", "convergence", "bandwidth",
             "constraints", "embedding"}
    for name, spec in lab.METHODS.items():
        assert set(spec.views) <= views
        for p in spec.params:
            assert table[p].methods is None or name in table[p].methods, (name, p)
    for name, s in table.items():
        for m in s.methods or ():
            assert m in lab.METHODS, (name, m)


def test_every_available_estimator_accepts_its_parameters():
    for name, spec in lab.METHODS.items():
        ok, why = lab.available(name)
        if not ok:
            assert "not available yet" in why
            continue
        est, msgs = lab.make_estimator(name, lab.defaults())
        assert msgs == [], (name, [m.text for m in msgs])
        params = est.get_params()
        for p in spec.params:
            assert dict(spec.rename).get(p, lab.setting(p).estimator_param) in params or \
                spec.target.startswith("sklearn.svm:"), (name, p)


def test_unavailable_method_reports_itself(monkeypatch):
    fake = lab.MethodSpec("dank", "DANK", lab.CLASSIFICATION, "nplk_core.nope:Missing",
                          (), ("surface",))
    monkeypatch.setitem(lab.METHODS, "dank", fake)
    ok, why = lab.available("dank")
    assert not ok and "not available yet" in why
    X = np.random.default_rng(0).normal(size=(20, 2))
    res = lab.fit_method(lab.defaults(), X, np.sign(X[:, 0]), X, np.sign(X[:, 0]),
                         method="dank")
    assert not res.ok and res.messages[0].level == "info"


def test_svm_uses_gamma_from_sigma_and_krr_the_ridge():
    est, _ = lab.make_estimator("svm", {**lab.defaults(), "sigma": 0.5, "C": 3.0})
    assert est.gamma == pytest.approx(2.0) and est.C == 3.0
    krr, msgs = lab.make_estimator("krr", {**lab.defaults(), "sigma": 0.5, "lam": 0.1})
    assert msgs == [] and krr.alpha == 0.1 and krr.sigma == 0.5


# ---------------------------------------------------------------------------
# data and fits
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def clowns():
    data, msgs = lab.prepare_data({**lab.defaults(), "n_samples": 60})
    assert msgs == []
    return data


def test_prepare_data_splits_and_maps_labels(clowns):
    assert clowns.X_train.shape == (42, 2) and clowns.X_test.shape == (18, 2)
    assert set(np.unique(clowns.y)) == {-1.0, 1.0}
    again, _ = lab.prepare_data({**lab.defaults(), "n_samples": 60})
    assert again.key == clowns.key
    np.testing.assert_array_equal(again.X_train, clowns.X_train)
    other, _ = lab.prepare_data({**lab.defaults(), "n_samples": 60, "seed": 1})
    assert other.key != clowns.key


def test_prepare_data_appends_user_points_and_handles_empty_drawings():
    p = {**lab.defaults(), "n_samples": 40, "points": ((9.0, 9.0, 1), (-9.0, -9.0, -1))}
    data, _ = lab.prepare_data(p)
    np.testing.assert_array_equal(data.X_train[-2:], [[9.0, 9.0], [-9.0, -9.0]])
    np.testing.assert_array_equal(data.y_train[-2:], [1.0, -1.0])
    none, msgs = lab.prepare_data({**p, "dataset": "drawn", "points": ()})
    assert none is None and msgs[0].level == "info"
    drawn, _ = lab.prepare_data({**p, "dataset": "drawn"})
    assert drawn.X_train.shape == (2, 2)


def test_prepare_data_csv_messages():
    p = {**lab.defaults(), "dataset": "csv"}
    none, msgs = lab.prepare_data(p, csv=None)
    assert none is None and msgs[0].level == "info"
    bad, msgs = lab.prepare_data(p, csv=b"a,b,label\n1,2,x\n3,,y\n")
    assert bad is None and msgs[0].level == "error" and "Row 3" in msgs[0].text
    three, msgs = lab.prepare_data(p, csv=b"a,b,label\n1,2,x\n3,4,y\n5,6,z\n")
    assert three is None and "two classes" in msgs[0].text
    text = b"u,v,label\n" + b"".join(f"{i},{i % 3},{'cat' if i % 2 else 'dog'}\n".encode()
                                     for i in range(20))
    ok, msgs = lab.prepare_data(p, csv=text)
    assert ok is not None and set(np.unique(ok.y)) == {-1.0, 1.0}
    assert ok.feature_names == ("u", "v") and "cat → −1" in msgs[0].text


def test_fit_method_svm_matches_sklearn(clowns):
    from sklearn.svm import SVC
    p = {**lab.defaults(), "sigma": 0.7, "C": 2.0}
    res = lab.fit_method(p, clowns.X_train, clowns.y_train, clowns.X_test, clowns.y_test,
                         method="svm")
    ref = SVC(C=2.0, gamma=1 / (2 * 0.49)).fit(clowns.X_train, clowns.y_train)
    assert res.ok and res.messages == []
    assert res.train_score == ref.score(clowns.X_train, clowns.y_train)
    assert res.test_score == ref.score(clowns.X_test, clowns.y_test)
    np.testing.assert_array_equal(res.support_points, ref.support_vectors_)
    assert res.kernel.shape == (42, 42) and "K" in res.spectra
    assert res.spectra["K"][0] >= res.spectra["K"][-1]


def test_fit_method_one_class_is_a_message(clowns):
    y = np.ones_like(clowns.y_train)
    for method in ("svm", "dank"):
        res = lab.fit_method(lab.defaults(), clowns.X_train, y, clowns.X_test, clowns.y_test,
                             method=method)
        assert not res.ok
        assert res.messages[0].level == "error" and "one class" in res.messages[0].text


def test_fit_method_bad_parameters_and_data_are_messages(clowns):
    bad = {**lab.defaults(), "sigma": -1.0}
    res = lab.fit_method(bad, clowns.X_train, clowns.y_train, clowns.X_test, clowns.y_test,
                         method="dank")
    assert not res.ok and res.errors and "sigma" in res.errors[0].text
    X = clowns.X_train.copy()
    X[0, 0] = np.nan
    res = lab.fit_method(lab.defaults(), X, clowns.y_train, clowns.X_test, clowns.y_test,
                         method="svm")
    assert not res.ok and res.errors
    res = lab.fit_method(lab.defaults(), X[:2], clowns.y_train[:2], X[:0], clowns.y_test[:0],
                         method="svm")
    assert not res.ok


def test_fit_method_non_convergence_is_a_warning_not_an_exception(clowns):
    p = {**lab.defaults(), "max_iter": 10, "solver": "pg"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak out of fit_method
        res = lab.fit_method(p, clowns.X_train, clowns.y_train, clowns.X_test,
                             clowns.y_test, method="dank")
    assert res.ok and res.converged is False and res.n_iter == 10
    assert any(m.level == "warning" and "did not converge" in m.text for m in res.messages)


def test_fit_method_dank_collects_the_views(clowns):
    res = lab.fit_method(lab.defaults(), clowns.X_train, clowns.y_train, clowns.X_test,
                         clowns.y_test, method="dank", data_key=clowns.key)
    assert res.ok and res.matrix_name == "F" and res.matrix.shape == (42, 42)
    assert set(res.spectra) >= {"K", "F"}
    assert res.rank == res.estimator.rank_
    assert {"objective", "step_norm"} <= set(res.history)
    assert len(res.history["objective"]) == res.n_iter
    # a continuous move warm-starts from the previous fit
    p2 = {**lab.defaults(), "tau": 0.05}
    warm = lab.fit_method(p2, clowns.X_train, clowns.y_train, clowns.X_test, clowns.y_test,
                          method="dank", warm_from=res, data_key=clowns.key)
    assert warm.ok and warm.warm_started and warm.estimator is not res.estimator
    assert res.estimator.tau == 0.01  # the cached fit was not modified
    other = lab.fit_method(p2, clowns.X_train, clowns.y_train, clowns.X_test, clowns.y_test,
                           method="dank", warm_from=res, data_key="other data")
    assert not other.warm_started


def test_callback_reaches_the_solver(clowns):
    seen = []
    lab.fit_method(lab.defaults(), clowns.X_train, clowns.y_train, clowns.X_test,
                   clowns.y_test, method="dank",
                   callback=lambda it, state, t: seen.append(it) and False)
    assert seen and seen[0] == 0


def test_grid_and_decision_values(clowns):
    g = lab.make_grid(clowns.X)
    assert g.shape == (100, 100) and g.points.shape == (10000, 2)
    lo, hi = clowns.X.min(axis=0), clowns.X.max(axis=0)
    assert g.xs[0] < lo[0] and g.xs[-1] > hi[0] and g.ys[0] < lo[1]
    res = lab.fit_method(lab.defaults(), clowns.X_train, clowns.y_train, clowns.X_test,
                         clowns.y_test, method="dank")
    Zr, m1 = lab.grid_values(res.estimator, g, extension="reciprocal")
    Zn, m2 = lab.grid_values(res.estimator, g, extension="nearest")
    assert m1 == m2 == [] and Zr.shape == Zn.shape == (100, 100)
    np.testing.assert_allclose(Zn.ravel(), res.estimator.decision_function(
        g.points, extension="nearest"))
    svm = lab.fit_baseline_svm(clowns.X_train, clowns.y_train, C=1.0, sigma=1.0)
    Zs, _ = lab.grid_values(svm, g)
    np.testing.assert_allclose(Zs.ravel(), svm.decision_function(g.points))


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_grid_values_from_the_shared_geometry_match_the_estimators(clowns, sigma):
    """The fast path (kernel columns from cached grid-to-training distances) gives the
    estimators' own decision functions: DANK with either rule and the plain SVM."""
    g = lab.make_grid(clowns.X, 40)
    geom = lab.grid_geometry(g, clowns.X_train)
    np.testing.assert_array_equal(geom.nearest, np.argmin(
        ((g.points[:, None, :] - clowns.X_train[None]) ** 2).sum(-1), axis=1))
    P = {**lab.defaults(), "sigma": sigma, "tau": 0.05}
    res = lab.fit_method(P, clowns.X_train, clowns.y_train, clowns.X_test, clowns.y_test,
                         method="dank")
    svm = lab.fit_baseline_svm(clowns.X_train, clowns.y_train, C=2.0, sigma=sigma)
    for est, ext in ((res.estimator, "nearest"), (res.estimator, "reciprocal"), (svm, None)):
        assert grids._fast_decision(est, geom, ext) is not None  # the fast path is taken
        Z, msgs = lab.grid_values(est, g, extension=ext, geometry=geom)
        assert msgs == []
        ref = (est.decision_function(g.points, extension=ext) if ext else
               est.decision_function(g.points))
        np.testing.assert_allclose(Z.ravel(), ref, rtol=1e-10, atol=1e-10)
    # the reciprocal rule's columns are computed once per geometry and are the rule's
    np.testing.assert_array_equal(geom.columns("reciprocal"), reciprocal_index(
        clowns.X_train, g.points))
    assert geom.columns("reciprocal") is geom.columns("reciprocal")
    # anything else falls back to the estimator: other data, a geometry without its grid
    bare = grids.GridGeometry(geom.X_train, geom.sqdist, geom.nearest)
    assert grids._fast_decision(res.estimator, bare, "reciprocal") is None
    other = lab.grid_geometry(g, clowns.X_train[::-1].copy())
    assert grids._fast_decision(res.estimator, other, "nearest") is None
    assert grids._fast_decision(svm, other, None) is None
    Zr, _ = lab.grid_values(res.estimator, g, extension="reciprocal", geometry=geom)
    np.testing.assert_allclose(Zr.ravel(), res.estimator.decision_function(
        g.points, extension="reciprocal"))


def test_points_from_clicks_skips_seen_bad_and_outside():
    clicks = [{"id": 5, "x": 0.5, "y": -0.25},          # already applied
              {"id": 7, "x": 1.234567, "y": 2.0},
              {"id": 6, "x": "nan", "y": 0.0},            # not a finite number
              {"id": 8, "x": 40.0, "y": 0.0},             # outside the bounds
              {"x": 1.0, "y": 1.0}, "junk", None,         # malformed
              {"id": 9, "x": -1.0, "y": -2.5}]
    new, newest = lab.points_from_clicks(clicks, -1, seen=5, bounds=((-3, 3), (-3, 3)))
    # 4 significant digits, as the URL writes them; the class as given
    assert new == [(1.235, 2.0, -1), (-1.0, -2.5, -1)]
    assert newest == 9
    # the same batch again (the chart resends until acknowledged) adds nothing
    assert lab.points_from_clicks(clicks, -1, seen=newest)[0] == []
    assert lab.points_from_clicks(None, 1) == ([], 0.0)
    assert lab.points_from_clicks({"id": 1}, 1, seen=3.0) == ([], 3.0)
    assert lab.points_from_clicks([{"id": 1, "x": 0, "y": 0}], 7)[0] == [(0.0, 0.0, 1)]


def test_add_points_keeps_the_newest():
    pts = lab.add_points((), [(0.0, 0.0, 1)] * (lab.MAX_POINTS + 5))
    assert len(pts) == lab.MAX_POINTS
    pts = lab.add_points(((9.0, 9.0, -1),), [(float(i), 0.0, 1) for i in range(lab.MAX_POINTS)])
    assert pts[0] == (0.0, 0.0, 1) and pts[-1] == (lab.MAX_POINTS - 1.0, 0.0, 1)


def test_added_rows_finds_the_appended_points():
    data, _ = lab.prepare_data({**lab.defaults(), "dataset": "moons", "n_samples": 40,
                                "points": ((0.1, 0.2, 1), (5.0, -4.0, -1))},
                               lab.CLASSIFICATION)
    assert lab.added_rows(data.X_train, ((0.1, 0.2, 1), (5.0, -4.0, -1))) == 2
    assert lab.added_rows(data.X_train, ((0.1, 0.2, 1), (5.0, -4.5, -1))) == 0
    assert lab.added_rows(data.X_train, ()) == 0
    assert lab.added_rows(data.X_train[:1], ((0.1, 0.2, 1), (5.0, -4.0, -1))) == 0


def test_canvas_grid_stays_put_for_points_inside():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    g0 = lab.canvas_grid(X)
    np.testing.assert_array_equal(g0.xs, lab.make_grid(X).xs)
    # a point in the padding (outside the data's box, inside the canvas) moves nothing,
    # where the padded box of all points would have grown
    corner = np.array([[g0.xs[-1] - 1e-3, g0.ys[0] + 1e-3]])
    g1 = lab.canvas_grid(X, corner)
    np.testing.assert_array_equal(g1.xs, g0.xs)
    np.testing.assert_array_equal(g1.ys, g0.ys)
    assert lab.make_grid(np.vstack([X, corner])).xs[-1] > g0.xs[-1]
    # a point outside widens the canvas to hold it
    far = np.array([[g0.xs[-1] + 5.0, 0.0]])
    g2 = lab.canvas_grid(X, far)
    assert g2.xs[0] <= g0.xs[0] and g2.xs[-1] > far[0, 0]
    # no data: the default canvas, grown only for points outside it
    e = np.zeros((0, 2))
    d = lab.canvas_grid(e)
    assert (d.xs[0], d.xs[-1]) == (lab.make_grid(e).xs[0], lab.make_grid(e).xs[-1])
    np.testing.assert_array_equal(lab.canvas_grid(e, [[1.0, -2.0]]).ys, d.ys)
    big = lab.canvas_grid(e, [[10.0, -20.0]])
    assert big.xs[-1] > 10.0 and big.ys[0] < -20.0 and big.xs[0] <= d.xs[0]


def test_relative_error_closed_form():
    y = np.array([1.0, 2.0, 3.0])
    assert lab.relative_error(y, y) == 0.0
    assert lab.relative_error(y, np.full(3, 2.0)) == pytest.approx(1.0)
    assert np.isnan(lab.relative_error(np.zeros(0), np.zeros(0)))


def test_sweep_values_and_run_sweep():
    v = lab.sweep_values("tau", 1e-4, 1.0, 5)
    np.testing.assert_allclose(np.diff(np.log10(v)), 1.0, rtol=1e-3)
    n = lab.sweep_values("n_support", 5, 50, 4)
    assert n.dtype.kind == "i" and n[0] == 5 and n[-1] == 50
    assert lab.sweepable("dank") == ["tau", "eta", "C", "sigma"]
    assert lab.sweepable("svm_cv") == []
    p = {**lab.defaults(), "n_samples": 40}
    calls = []
    sw = lab.run_sweep(p, "svm", "C", [0.1, 1.0, 10.0], repeats=2,
                       progress=lambda d, t: calls.append((d, t)) and False)
    assert sw.scores.shape == (3, 2) and np.isfinite(sw.scores).all()
    assert calls[-1] == (6, 6)
    # the repeats use different seeds: the two columns differ somewhere
    assert not np.array_equal(sw.train_scores[:, 0], sw.train_scores[:, 1]) or \
        not np.array_equal(sw.scores[:, 0], sw.scores[:, 1])
    table = lab.sweep_table(sw)
    assert list(table.columns) == ["C (box constraint)", "test accuracy", "rank",
                                   "fit time (s)"]
    assert len(table) == 3


def test_parallel_sweep_gives_the_in_process_numbers_and_stops():
    """The sweep as independent tasks (iter_fits) equals the in-process loop: fit by fit
    for SVC (no warm start); each value fitted once per seed; the hooks see every fit;
    a True from progress stops handing out fits."""
    from nplk_lab.model.studies import run_sweep
    p = {**lab.defaults(), "n_samples": 40}
    vals = [0.1, 1.0, 10.0]
    serial = run_sweep(p, "svm", "C", vals, repeats=2)
    seen, calls = {}, []
    par = run_sweep(p, "svm", "C", vals, repeats=2, parallel=True,
                    on_result=lambda q, key, s: seen.setdefault((q["C"], key), s),
                    progress=lambda d, t: calls.append((d, t)) and False)
    for a, b in [(serial.scores, par.scores), (serial.train_scores, par.train_scores)]:
        np.testing.assert_array_equal(a, b)
    assert len(seen) == 6 and calls == [(d, 6) for d in range(1, 7)]
    # two processes: the same numbers, computed elsewhere
    procs = run_sweep(p, "svm", "C", vals, repeats=2, parallel=True, n_jobs=2,
                      on_result=lambda q, key, s: calls.append(s["pid"]))
    np.testing.assert_array_equal(procs.scores, serial.scores)
    import os
    assert os.getpid() not in calls[6:] and len(calls[6:]) == 6
    # known results are not fitted again; fit_missing=False only collects them
    again = run_sweep(p, "svm", "C", vals, repeats=2, parallel=True,
                      known=lambda q, key: seen.get((q["C"], key)),
                      on_result=lambda *a: pytest.fail("fitted a known value"))
    np.testing.assert_array_equal(again.scores, serial.scores)
    partial = run_sweep(p, "svm", "C", vals, repeats=2, parallel=True, fit_missing=False,
                        known=lambda q, key: seen.get((q["C"], key)) if q["C"] < 5 else None)
    assert np.isnan(partial.scores[2]).all() and np.isfinite(partial.scores[:2]).all()
    # stop after two fits: no third fit starts (one job: each fit when asked)
    fitted = []
    stopped = run_sweep(p, "svm", "C", vals, repeats=2, parallel=True,
                        on_result=lambda q, key, s: fitted.append(q["C"]),
                        progress=lambda d, t: d >= 2)
    assert len(fitted) == 2 and np.isfinite(stopped.scores).sum() == 2


def test_pairwise_fit_reports_rand_indices(clowns):
    res = lab.fit_pairwise(lab.defaults(), clowns.X, clowns.y)
    assert res.ok and 0 <= res.rand <= 1 and 0 <= res.rand_kmeans <= 1
    from sklearn.metrics import rand_score
    assert res.rand == pytest.approx(rand_score(clowns.y, res.estimator.labels_))
    one = lab.fit_pairwise(lab.defaults(), clowns.X, np.ones(len(clowns.y)))
    assert not one.ok and one.messages[0].level == "error"


def test_scaling_study_respects_theorem_6(clowns):
    s = lab.scaling_study(clowns.X, clowns.y, C=1.0, sigma=1.0, v=3, max_v=4)
    assert s.vs.tolist() == [1, 2, 3, 4]
    assert s.q[0] == 0.0 and np.all(s.q[1:] > 0)
    assert s.gap[0] == pytest.approx(0.0, abs=1e-9)
    # Theorem 6 bounds the signed gap h(α*) − h̄(ᾱ) from above (it can be negative:
    # dropping the cross-cluster kernel entries also drops positive quartic terms)
    assert np.all(s.gap <= s.bound + 1e-6)
    assert np.all(s.bound[1:] > 0)
    assert s.labels.shape == (len(clowns.y),) and np.unique(s.labels).size == 3
    assert s.screened.dtype == bool and not np.any(s.screened & s.support)


def test_choice_settings_match_the_solver_registries():
    from nplk_core._dank_core import SOLVERS
    from nplk_core.onk import ONK_SOLVERS
    from nplk_core.simple_npkl import LOSSES
    assert set(lab.setting("solver").options) == {"auto", *SOLVERS}
    assert set(lab.setting("onk_solver").options) == set(ONK_SOLVERS)
    assert set(lab.setting("npkl_loss").options) == set(LOSSES)


@pytest.mark.parametrize("n", [4, 5, 6, 10])
def test_split_returns_train_test_in_sklearn_order(n):
    """(X_train, X_test, y_train, y_test) on every path, tiny data included (the
    n < 4 path returned (X, y, X[:0], y[:0]), so tiny data had no training labels)."""
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 2))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    for test_size in (0.1, 0.3, 0.7):
        Xtr, Xte, ytr, yte = lab.split(X, y, task=lab.CLASSIFICATION, test_size=test_size,
                                       seed=0)
        assert Xtr.ndim == Xte.ndim == 2 and ytr.ndim == yte.ndim == 1
        assert len(Xtr) == len(ytr) >= 2 and len(Xte) == len(yte)
        assert len(ytr) + len(yte) == n
        # every (x, y) pair is a row of the input, with its own label
        for Xs, ys in ((Xtr, ytr), (Xte, yte)):
            for xi, yi in zip(Xs, ys, strict=True):
                i = int(np.flatnonzero(np.all(X == xi, axis=1))[0])
                assert y[i] == yi
    Xtr, Xte, ytr, yte = lab.split(X[:3], y[:3], task=lab.CLASSIFICATION, test_size=0.3,
                                   seed=0)
    assert len(ytr) == 3 and len(yte) == 0 and Xtr.shape == (3, 2) and Xte.shape == (0, 2)


@pytest.mark.parametrize("rows", [2, 3, 5])
def test_tiny_csv_says_how_many_rows_are_needed(rows):
    body = "".join(f"{i * 0.1},{i * 0.2},{1 if i % 2 else -1}\n" for i in range(rows))
    P = {**lab.defaults(), "dataset": "csv"}
    data, msgs = lab.prepare_data(P, csv=("x1,x2,label\n" + body).encode())
    assert data is None and msgs[0].level == "error"
    assert f"has {rows} data rows" in msgs[0].text and f"at least {lab.MIN_ROWS}" in \
        msgs[0].text and "No points yet" not in msgs[0].text
    body = "".join(f"{i * 0.1},{i * 0.2},{1 if i % 2 else -1}\n" for i in range(lab.MIN_ROWS))
    data, msgs = lab.prepare_data(P, csv=("x1,x2,label\n" + body).encode())
    assert data is not None and len(data.y_train) >= 2


def test_timing_study_runs_every_n_whatever_progress_returns():
    """A progress callback returning a truthy object (Streamlit's bar.progress returns
    its element) must not stop the study; only an explicit True does."""
    P = {**lab.defaults(), "dataset": "moons", "max_iter": 50}
    ns = [40, 60]
    seen = []

    def progress(done, total):
        seen.append((done, total))
        return object()  # truthy, like DeltaGenerator

    times, msgs = lab.timing_study(P, ns, v=2, progress=progress)
    assert seen == [(d, 6) for d in range(1, 7)]
    assert set(times) == {"exact DANK", "scalable DANK (v=2)", "SVC"}
    for name, t in times.items():
        assert t.shape == (2,) and np.all(np.isfinite(t)) and np.all(t > 0), (name, t, msgs)
    calls = []
    times, _ = lab.timing_study(P, ns, v=2, progress=lambda d, t: calls.append(d) or True)
    assert calls == [1] and np.isnan(times["SVC"]).all()
