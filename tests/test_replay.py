"""Training replay: the solvers' snapshots, the frames built from them, the figure with
frames and the page's toggle.

References are independent of the code under test: the snapshot schedule against its
definition, the bias of a mid-run iterate against ``recover_bias`` on the dense
``F(alpha) o K`` built here, the last frame against the final fit's own decision values
and scores, the objective of each frame against ``history_``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _components import frames_of

import nplk_lab.model as lab
from nplk_core._base import SNAPSHOT_CAP, IterationLog, Snapshots, recover_bias
from nplk_lab.model.replay import keep_frames, replay_frames

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"n_samples": 80}
CLF = ("dank", "knpl", "onk", "lab_rbf")
REG = ("dank_svr", "lab_rbf_reg")


# ---------------------------------------------------------------------------
# the schedule
# ---------------------------------------------------------------------------

def test_snapshot_schedule_is_dense_early_and_capped():
    s = Snapshots()
    for i in range(20_000):
        if s.wants(i):
            s.add(i, {"a": np.array([float(i)])})
    its = [x["iteration"] for x in s.finish(19_999, {"a": np.array([19_999.0])})]
    assert len(its) <= SNAPSHOT_CAP
    assert its[0] == 0 and its[-1] == 19_999
    assert its == sorted(set(its))
    assert its[:6] == [0, 1, 2, 3, 4, 5]          # thinning drops the late ones first
    # every kept array is the iterate of its own iteration (copies, not views)
    assert all(x["a"][0] == x["iteration"] for x in s.items)


def test_short_run_keeps_every_iteration_and_the_gap_grows_geometrically():
    s = Snapshots()
    kept = [i for i in range(200) if s.wants(i)]
    assert kept[:10] == list(range(10))
    gaps = np.diff(kept)
    assert np.all(gaps[1:] >= gaps[:-1])           # never denser later
    assert kept[-1] < 200 and len(kept) < 40


def test_iteration_log_calls_the_snapshot_only_when_kept():
    log = IterationLog()
    calls = []
    for i in range(500):
        log.record(objective=float(i), snapshot=lambda i=i: calls.append(i) or {"i": i})
    assert calls == [s["iteration"] for s in log.snapshots.items]
    assert len(calls) < 60 and len(log) == 500


def test_added_arrays_are_copied():
    s = Snapshots()
    a = np.zeros(3)
    s.add(0, {"alpha": a})
    a += 1
    assert s.items[0]["alpha"].sum() == 0


# ---------------------------------------------------------------------------
# the solvers' snapshots
# ---------------------------------------------------------------------------

def _data(task: str, method: str, **extra):
    P = {**lab.defaults(), **SMALL, "method": method, "reg_method": method, **extra}
    data, _ = lab.prepare_data(P, task)
    return P, data


def _fit(task: str, method: str, **extra):
    P, data = _data(task, method, **extra)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    assert res.ok, res.messages
    return P, data, res


@pytest.mark.slow
def test_dank_snapshot_matches_the_iterate_the_callback_saw_and_its_bias():
    from nplk_core import DANKClassifier
    from nplk_core._dank_core import inner_F
    from nplk_core.datasets import make_clowns

    X, y = make_clowns(80, random_state=1)
    seen = {}
    m = DANKClassifier(C=10, sigma=10, solver="nesterov", max_iter=300,
                       callback=lambda it, st, el: seen.__setitem__(it, st["alpha"].copy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(X, y)
    snaps = m.snapshots_
    assert len(snaps) <= SNAPSHOT_CAP
    assert snaps[0]["iteration"] == 0 and snaps[-1]["iteration"] == len(m.history_["time"]) - 1
    ypm = m.y_pm_
    for s in (snaps[3], snaps[len(snaps) // 2]):
        a = seen[s["iteration"]]
        np.testing.assert_array_equal(s["alpha"], a)
        F = inner_F(ypm * a, m.K_, m.eta_, m.tau).dense()
        assert s["bias"] == pytest.approx(recover_bias(a, ypm, F * m.K_, m.C), abs=1e-8)
    np.testing.assert_array_equal(snaps[-1]["alpha"], m.alpha_)
    assert snaps[-1]["bias"] == pytest.approx(m.intercept_, abs=1e-8)


def test_a_fit_stopped_by_the_callback_keeps_its_last_iterate():
    from nplk_core import DANKClassifier
    from nplk_core.datasets import make_clowns

    X, y = make_clowns(80, random_state=2)
    m = DANKClassifier(C=10, sigma=10, solver="pg", max_iter=500,
                       callback=lambda it, st, el: it >= 5).fit(X, y)
    its = [s["iteration"] for s in m.snapshots_]
    assert its == [0, 1, 2, 3, 4, 5]
    np.testing.assert_array_equal(m.snapshots_[-1]["alpha"], m.alpha_)
    assert m.snapshots_[-1]["bias"] == pytest.approx(m.intercept_, abs=1e-8)


@pytest.mark.slow
def test_a_long_run_is_thinned_to_the_cap():
    from nplk_core import DANKClassifier
    from nplk_core.datasets import make_clowns

    X, y = make_clowns(60, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = DANKClassifier(C=10, sigma=10, solver="pg", max_iter=3000, tol=1e-12).fit(X, y)
    its = [s["iteration"] for s in m.snapshots_]
    assert m.n_iter_ > 2000
    assert len(its) <= SNAPSHOT_CAP and its[0] == 0 and its[-1] == m.n_iter_ - 1


# ---------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------

def _final_values(res, data, P, grid):
    ext = P["extension"] if res.method in ("dank", "dank_svr") else None
    if isinstance(grid, lab.Grid):
        if res.task == lab.CLASSIFICATION:
            return lab.grid_values(res.estimator, grid, extension=ext)[0]
        return lab.predict_values(res.estimator, grid.points, extension=ext)[0].reshape(
            grid.shape)
    return lab.predict_values(res.estimator, grid, extension=ext)[0]


@pytest.mark.parametrize("task,method", [(lab.CLASSIFICATION, m) for m in CLF]
                         + [(lab.REGRESSION, m) for m in REG])
@pytest.mark.slow
def test_frames_end_at_the_final_fit(task, method):
    P, data, res = _fit(task, method)
    grid = lab.make_grid(data.X, 40) if data.n_features == 2 else lab.line_points(data.X, 120)
    rp = replay_frames(res, data, grid, P)
    assert rp.ok, rp.messages
    snaps = res.estimator.snapshots_
    n_hist = len(next(iter(res.history.values())))
    assert len(rp.frames) == len(snaps) <= SNAPSHOT_CAP
    assert rp.iterations[0] == 0 and rp.iterations[-1] == n_hist - 1
    last = rp.frames[-1]
    np.testing.assert_allclose(last.values, _final_values(res, data, P, grid), rtol=0,
                               atol=1e-8)
    assert last.train_score == pytest.approx(res.train_score, abs=1e-12)
    assert last.test_score == pytest.approx(res.test_score, abs=1e-12)
    key = "objective" if "objective" in res.history else "loss"
    for fr in rp.frames:
        assert fr.objective == res.history[key][fr.iteration]
    if method in ("lab_rbf", "lab_rbf_reg"):
        assert last.matrix is None
        np.testing.assert_array_equal(np.sort(last.support), np.sort(res.estimator.support_))
    else:
        assert last.matrix is not None and max(last.matrix.shape) <= 60
        np.testing.assert_array_equal(last.support, np.flatnonzero(
            np.abs(res.estimator.alpha_) > 0) if method != "dank_svr"
            else res.estimator.support_)


@pytest.mark.parametrize("task,method", [(lab.CLASSIFICATION, "dank"),
                                         (lab.CLASSIFICATION, "knpl"),
                                         (lab.REGRESSION, "dank_svr")])
def test_frames_under_the_smooth_rule_end_at_the_fits_smooth_surface(task, method):
    """The drawn rule set to the smooth rule: the last frame is the fit with that rule
    (KNPL too, whose paper has only the nearest-point rule), and differs from the
    nearest-point rule's."""
    P, data, res = _fit(task, method, extension="smooth")
    grid = lab.make_grid(data.X, 25) if data.n_features == 2 else lab.line_points(data.X, 80)
    rp = replay_frames(res, data, grid, P)
    assert rp.ok, rp.messages
    pts = grid.points if isinstance(grid, lab.Grid) else grid
    est = res.estimator
    fn = est.decision_function if task == lab.CLASSIFICATION else est.predict
    smooth = fn(pts, extension="smooth")
    np.testing.assert_allclose(np.ravel(rp.frames[-1].values), smooth, rtol=0, atol=1e-8)
    assert np.abs(smooth - fn(pts, extension="nearest")).max() > 1e-3


def test_the_dank_matrix_frame_is_the_pooled_F_of_the_final_fit():
    from nplk_lab.figures.matrices import block_means, class_order

    P, data, res = _fit(lab.CLASSIFICATION, "dank")
    rp = replay_frames(res, data, lab.make_grid(data.X, 20), P)
    F = res.estimator.F_
    order = class_order(data.y_train, F.shape[0])
    ref = block_means(F[np.ix_(order, order)], 60)[0]
    np.testing.assert_allclose(rp.frames[-1].matrix, ref, atol=1e-9)
    # the first frame is an earlier iterate: F has moved since
    assert np.abs(rp.frames[0].matrix - ref).max() > 0


def test_plain_svm_has_no_frames_and_says_why():
    P, data, res = _fit(lab.CLASSIFICATION, "svm")
    rp = replay_frames(res, data, lab.make_grid(data.X, 20), P)
    assert not rp.ok and rp.frames == []
    assert "not trained iteratively" in rp.messages[0].text


def test_budget_cuts_frames_then_the_grid_and_says_so():
    P, data, res = _fit(lab.CLASSIFICATION, "lab_rbf")
    grid = lab.make_grid(data.X, 100)
    n = len(res.estimator.snapshots_)
    few = replay_frames(res, data, grid, P, max_cells=20 * 100 * 100)
    assert 2 <= len(few.frames) < n
    assert few.iterations[0] == 0 and few.iterations[-1] == rp_last(res)
    assert any("of the" in m.text for m in few.messages)
    coarse = replay_frames(res, data, grid, P, max_cells=n * 40 * 40)
    assert coarse.frames[0].values.shape[0] < 100
    assert any("grid" in m.text for m in coarse.messages)


def rp_last(res) -> int:
    return res.estimator.snapshots_[-1]["iteration"]


def test_keep_frames_spreads_and_keeps_the_ends():
    k = keep_frames(50, 10)
    assert k[0] == 0 and k[-1] == 49 and len(k) == 10
    np.testing.assert_array_equal(keep_frames(5, 10), np.arange(5))


# ---------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------

def test_figure_frames_carry_each_iteration():
    import json

    import nplk_lab.figures.common as common
    from nplk_lab.figures.replay import LEVELS, dequantize, replay_figure, replay_json

    P, data, res = _fit(lab.CLASSIFICATION, "dank")
    rp = replay_frames(res, data, lab.make_grid(data.X, 30), P)
    common.VALIDATE, old = True, common.VALIDATE   # every property checked by plotly.py
    try:
        fig = replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test)
    finally:
        common.VALIDATE = old
    spec = json.loads(replay_json(fig))
    frames = spec["frames"]
    # the untrained start plays first, then every kept iteration
    assert [f["name"] for f in frames] == ["start"] + [str(i) for i in rp.iterations]
    assert "F = all ones" in frames[0]["layout"]["annotations"][0]["text"]
    frames = frames[1:]
    surf = spec["data"][0]
    assert surf["type"] == "heatmap" and spec["player"]["surface"]["trace"] == 0
    # the surface levels stand for the values within half a level (inside the limits)
    bar = surf["colorbar"]["ticktext"]
    lo = float(bar[0].replace("\u2212", "-"))
    hi = float(bar[-1].replace("\u2212", "-"))
    for k in (0, len(frames) - 1):
        z = np.frombuffer(__import__("base64").b64decode(frames[k]["data"][0]["z"]["bdata"]),
                          dtype=np.uint8).reshape(rp.frames[k].values.shape)
        inside = (rp.frames[k].values > lo) & (rp.frames[k].values < hi)
        err = np.abs(dequantize(z, lo, hi) - rp.frames[k].values)[inside]
        assert err.max() <= 0.5 * (hi - lo) / LEVELS * 1.01 + 0.01 * (hi - lo)
        # the objective marker sits on the history at the frame's iteration
        mark = frames[k]["data"][frames[k]["traces"].index(spec["player"]["marker"]["trace"])]
        assert mark["x"] == [rp.frames[k].iteration]
        assert mark["y"][0] == pytest.approx(rp.frames[k].objective)
        note = frames[k]["layout"]["annotations"][0]["text"]
        assert f"iteration {rp.frames[k].iteration} " in note
        assert f"test {rp.frames[k].test_score:.3f}" in note
    # the rings are the support of that iteration
    ring_i = frames[-1]["traces"].index(spec["player"]["rings"]["trace"])
    ring = frames[-1]["data"][ring_i]
    xs = np.frombuffer(__import__("base64").b64decode(ring["x"]["bdata"]), dtype=np.float32)
    np.testing.assert_allclose(xs, data.X_train[rp.frames[-1].support, 0], rtol=1e-6)


def test_regression_figure_is_a_curve_with_frames():
    from nplk_lab.figures.replay import replay_figure

    P, data, res = _fit(lab.REGRESSION, "dank_svr")
    rp = replay_frames(res, data, lab.line_points(data.X, 100), P)
    fig = replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test)
    assert fig.data[0].type == "scatter" and fig.data[0].mode == "lines"
    assert len(fig._replay_frames) == len(rp.frames) + 1   # the start first
    np.testing.assert_allclose(fig._replay_frames[-1]["data"][0]["y"],
                               rp.frames[-1].values.astype(np.float32))


def test_lut_follows_the_colour_scale():
    from nplk_lab.figures.replay import LEVELS, lut

    table = lut([[0.0, "#000000"], [1.0, "#FF0000"]])
    assert len(table) == LEVELS + 1
    assert table[0] == [0, 0, 0] and table[-1] == [255, 0, 0]
    assert table[LEVELS // 2][0] == round(255 * (LEVELS // 2) / LEVELS)


# ---------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------

def test_carried_step_keeps_the_fraction_of_the_run():
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from nplk_lab.ui.replay import carried_step

    assert carried_step(-1, 20, 30) == -1
    assert carried_step(5, 20, 20) == 5
    assert carried_step(10, 21, 41) == 20
    assert carried_step(30, 31, 11) == 10


@pytest.mark.parametrize("page,method", [("pages/1_Classification.py", "dank"),
                                         ("pages/2_Regression.py", "dank_svr")])
@pytest.mark.slow
def test_apptest_replay_toggle_shows_the_player_with_frames(page, method):
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))

    at = AppTest.from_file(str(ROOT / page), default_timeout=180)
    at.query_params["n_samples"] = "60"
    at.run()
    assert not at.exception
    assert not [e for e in at.get("bidi_component") if frames_of(e)]
    toggle = [t for t in at.toggle if t.label == "Training replay"]
    assert len(toggle) == 1
    toggle[0].set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    frames = [frames_of(e) for e in at.get("bidi_component")]
    frames = [f for f in frames if f]
    assert len(frames) == 1 and len(frames[0]) >= 5
    assert frames[0][0]["name"] in ("start", "0")   # LAB RBF starts at iteration 0


def test_apptest_replay_of_the_plain_svm_says_why():
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    at = AppTest.from_file(str(ROOT / "pages/1_Classification.py"), default_timeout=180)
    for k, v in {"n_samples": "60", "method": "svm", "replay": "1"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    assert any("not trained iteratively" in i.value for i in at.info)


def _player_data(at):
    import json


    els = [e for e in at.get("bidi_component") if frames_of(e)]
    assert len(els) == 1
    return json.loads(els[0].proto.json)


@pytest.mark.slow
def test_apptest_refit_while_paused_keeps_the_position_as_a_fraction():
    from streamlit.testing.v1 import AppTest

    from nplk_lab.ui.replay import carried_step

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    at = AppTest.from_file(str(ROOT / "pages/1_Classification.py"), default_timeout=180)
    for k, v in {"n_samples": "60", "method": "lab_rbf", "replay": "1",
                 "replay_step": "20"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    d0 = _player_data(at)
    n0 = len(__import__("json").loads(d0["figure"])["frames"])
    # a position late enough in the run that a few frames more or fewer move it (at
    # step 6 of 34 frames, 32 frames keep step 6)
    assert d0["step"] == 20 < n0 - 1
    support = [s for s in at.slider if s.label.startswith("Support count")]
    assert len(support) == 1
    support[0].set_value(12).run()
    assert not at.exception
    d1 = _player_data(at)
    n1 = len(__import__("json").loads(d1["figure"])["frames"])
    assert d1["figure"] != d0["figure"]                  # refitted
    assert n0 != n1                                      # a new frame count ...
    assert d1["step"] == carried_step(20, n0, n1) != 20  # ... the same fraction of the run
    assert str(dict(at.query_params)["replay_step"]).strip("[]'") == str(d1["step"])


def test_knpl_algorithm_2_is_not_replayed_and_says_why():
    P, data, res = _fit(lab.CLASSIFICATION, "knpl", knpl_solver="alternating")
    rp = replay_frames(res, data, lab.make_grid(data.X, 20), P)
    assert not rp.ok and "Algorithm 2" in rp.messages[0].text


def test_a_large_sample_keeps_the_grid_when_the_grid_is_not_the_cost():
    from nplk_lab.model.replay import _plan

    P, data, res = _fit(lab.CLASSIFICATION, "dank")
    grid = lab.make_grid(data.X, 100)
    # a tiny budget: coarsening cannot reach MIN_FRAMES, so the grid stays
    k, coarse = _plan(res, grid, 10, 40, 30, seconds=1e-6, max_cells=10**9)
    assert k == 2 and coarse is None
    # a budget the full grid misses but a coarser one meets
    k, coarse = _plan(res, grid, 10, 40, 30, seconds=1e9, max_cells=20 * 60 * 60)
    assert coarse is not None and coarse < 100 and k >= 15


@pytest.mark.parametrize("method", ["dank", "onk"])
def test_three_classes_are_not_replayed_and_say_why(method):
    from nplk_lab.model.data import LabData

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.arange(60) % 3
    data = LabData(X[:45], y[:45].astype(float), X[45:], y[45:].astype(float),
                   lab.CLASSIFICATION, "three")
    P = {**lab.defaults(), "method": method}
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    assert res.ok
    rp = replay_frames(res, data, lab.make_grid(data.X, 20), P)
    assert not rp.ok and "one-vs-rest" in rp.messages[0].text


def test_2d_regression_replays_a_surface_ending_at_the_fit():
    from nplk_lab.figures.replay import replay_figure

    P, data, res = _fit(lab.REGRESSION, "dank_svr", reg_dataset="harmonic")
    grid = lab.make_grid(data.X, 30)
    rp = replay_frames(res, data, grid, P)
    assert rp.kind == "surface" and rp.frames[-1].values.shape == grid.shape
    np.testing.assert_allclose(rp.frames[-1].values, _final_values(res, data, P, grid),
                               atol=1e-8)
    fig = replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test)
    assert fig._replay_player["surface"]["trace"] == 0 and "lines" not in fig._replay_player


# ---------------------------------------------------------------------------
# the untrained start (issue: the replay starts from the plain model)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("task,method", [(lab.CLASSIFICATION, "dank"),
                                         (lab.CLASSIFICATION, "knpl"),
                                         (lab.CLASSIFICATION, "onk"),
                                         (lab.REGRESSION, "dank_svr")])
def test_start_frame_is_the_plain_kernel_with_the_first_iterate(task, method):
    from nplk_core.kernels import gaussian_kernel

    P, data, res = _fit(task, method)
    grid = lab.make_grid(data.X, 20) if task == lab.CLASSIFICATION else \
        lab.line_points(data.X, 50)
    rp = replay_frames(res, data, grid, P)
    assert rp.start is not None and rp.played[0] is rp.start
    assert len(rp.played) == len(rp.frames) + 1
    snap = res.estimator.snapshots_[0]
    a = np.asarray(snap["alpha"], float)
    n = len(data.y_train)
    if method == "dank_svr":
        u = a[:n] - a[n:]
    else:
        u = a * np.where(data.y_train == res.estimator.classes_[1], 1.0, -1.0)
    pts = grid.points if task == lab.CLASSIFICATION else grid
    # f(x) = Σ uᵢ k(xᵢ, x) + b: the plain kernel, no learned factor
    ref = u @ gaussian_kernel(data.X_train, pts, sigma=float(P["sigma"])) + snap["bias"]
    np.testing.assert_allclose(np.ravel(rp.start.values), ref, atol=1e-8)
    # the matrix shown is the plain one: all ones (ONK: G − K = 0)
    assert np.allclose(rp.start.matrix, 0.0 if method == "onk" else 1.0)
    assert "plain kernel" in rp.start_text and "α" in rp.start_text


def test_lab_rbf_has_no_separate_start_and_says_so():
    P, data, res = _fit(lab.REGRESSION, "lab_rbf_reg")
    rp = replay_frames(res, data, lab.line_points(data.X, 50), P)
    assert rp.start is None and rp.played == rp.frames
    assert "starting bandwidth" in rp.start_text
