"""The atlas (``python -m nplk_lab.model.atlas``): its scores against independent
computations, its intervals and regions against hand-computed ones, its files, the
committed table's coverage, and the quick cells re-measured against the committed
verdicts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _atlas_runs import COMMITTED, ROOT_OUT, _fake_measure, _seed_rows, needs_atlas
from _components import figure_of
from scipy import stats

from nplk_lab.model import paired as P
from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_data as AD
from nplk_lab.model.atlas import atlas_view as AV

# ---------------------------------------------------------------------------
# regions
# ---------------------------------------------------------------------------


def _row(method="dank", **verdicts):
    row = {"method": method, "gain_hi": 1.0}
    for c in A.COMPARISONS:
        row[f"{c}_verdict"] = verdicts.get(c, P.INCONCLUSIVE)
    return row


@pytest.mark.parametrize("verdicts, method, expected", [
    ({"off_gain": P.HOLDS, "gain": P.HOLDS, "agree_gap": P.HOLDS}, "dank", "matrix_alone"),
    ({"gain": P.HOLDS, "agree_gap": P.HOLDS}, "dank", "nn_rule"),
    ({"gain": P.HOLDS, "agree_gap": P.HOLDS}, "knpl", "nn_rule"),
    ({"gain": P.HOLDS, "agree_gap": P.HOLDS}, "dank_svr", "nn_rule"),
    # LAB RBF's test rule borrows no training point's row either
    ({"gain": P.HOLDS, "agree_gap": P.HOLDS}, "lab_rbf_reg", "gain_other"),
    # ONK's test rule borrows no training point's row: never "the 1-NN rule"
    ({"gain": P.HOLDS, "agree_gap": P.HOLDS}, "onk", "gain_other"),
    ({"gain": P.HOLDS}, "dank", "gain_other"),
    ({"cv_best": P.HOLDS}, "dank", "tuned_best"),
    ({"gain": P.HOLDS, "cv_best": P.HOLDS, "agree_gap": P.HOLDS}, "dank", "nn_rule"),
    ({}, "dank", "none"),
])
def test_region_follows_the_rules_in_their_order(verdicts, method, expected):
    assert A.region(_row(method, **verdicts)) == expected


def test_worse_needs_the_whole_interval_below_zero():
    row = _row(gain=P.FAILS)
    row["gain_hi"] = -0.5
    assert A.region(row) == "worse"
    row["gain_hi"] = 0.0        # all differences exactly 0: a tie, not a loss
    assert A.region(row) == "none"


# ---------------------------------------------------------------------------
# summarize: paired means and t-intervals by hand
# ---------------------------------------------------------------------------


def test_summary_interval_is_the_t_interval_of_the_paired_differences():
    m = [0.90, 0.85, 0.95, 0.80, 0.92]
    p = [0.80, 0.84, 0.85, 0.70, 0.90]
    (row,) = A.summarize(_seed_rows(m, p, p))
    d = 100 * (np.array(m) - np.array(p))
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    assert row["gain_mean"] == pytest.approx(d.mean())
    assert row["gain_lo"] == pytest.approx(d.mean() - half)
    assert row["gain_hi"] == pytest.approx(d.mean() + half)
    assert row["gain_verdict"] == (P.HOLDS if d.mean() - half > 0 else P.INCONCLUSIVE)
    assert row["off_gain_verdict"] == P.FAILS      # off equals plain at every seed
    assert row["n_seeds"] == 5 and row["score_method"] == pytest.approx(np.mean(m))


def test_summary_regions_from_scores():
    up = [0.9, 0.91, 0.92, 0.9, 0.93]
    base = [0.7, 0.72, 0.69, 0.71, 0.7]
    # the matrix off keeps the gain: matrix alone
    (row,) = A.summarize(_seed_rows(up, base, up))
    assert row["region"] == "matrix_alone"
    # the gain vanishes with the matrix off, and the method follows 1-NN more: 1-NN rule
    (row,) = A.summarize(_seed_rows(up, base, base, agree_m=[1.0, 0.98, 1.0, 0.99, 1.0],
                                    agree_p=[0.7, 0.75, 0.72, 0.7, 0.71]))
    assert row["region"] == "nn_rule"
    # same gain, but the baseline follows 1-NN as much: the data cannot tell
    (row,) = A.summarize(_seed_rows(up, base, base, agree_m=[0.9] * 5, agree_p=[0.9] * 5))
    assert row["region"] == "gain_other"


def test_the_larger_c_comparisons_read_their_own_baseline():
    """F off against the SVM at 10 C and at 100 C: each its own paired interval."""
    rows = _seed_rows([0.9] * 4, [0.7] * 4, [0.8, 0.82, 0.81, 0.8])
    for r, p10, p100 in zip(rows, (0.9, 0.91, 0.92, 0.9), (0.6, 0.62, 0.61, 0.6),
                            strict=True):
        r["score_plain10"], r["score_plain100"] = p10, p100
    (row,) = A.summarize(rows)
    assert row["off_vs_plain10_mean"] == pytest.approx(100 * (0.8075 - 0.9075))
    assert row["off_vs_plain100_mean"] == pytest.approx(100 * (0.8075 - 0.6075))
    assert row["off_vs_plain10_verdict"] == P.FAILS
    assert row["off_vs_plain100_verdict"] == P.HOLDS


def test_a_failed_seed_is_counted_and_left_out():
    rows = _seed_rows([0.9, 0.8, 0.7], [0.8, 0.8, 0.8], [0.8, 0.8, 0.8])
    rows[1] = {**rows[1], "error": "ValueError: bad"}
    (row,) = A.summarize(rows)
    assert row["n_seeds"] == 2 and row["errors"] == 1
    assert row["score_method"] == pytest.approx(0.8)


@pytest.mark.parametrize("smooth, cv, expected", [
    ([0.9, 0.91, 0.92, 0.9, 0.93], [0.8] * 5, "no_copy"),       # beats plain, tuned below
    ([0.9, 0.91, 0.92, 0.9, 0.93], [0.99] * 5, "tuned_better"),  # the tuned SVM above it
    ([0.6, 0.61, 0.62, 0.6, 0.63], [0.8] * 5, "worse"),
    ([0.7, 0.72, 0.69, 0.71, 0.7], [0.8] * 5, "none"),           # the baseline itself
])
def test_the_smooth_rules_region_from_scores(smooth, cv, expected):
    """The smooth rule's column: its own paired comparisons (against the same baseline,
    F off and the tuned baseline) and its region, beside the papers'-rule region it
    leaves as it was."""
    base = [0.7, 0.72, 0.69, 0.71, 0.7]
    rows = _seed_rows([0.9, 0.91, 0.92, 0.9, 0.93], base, base)
    for r, sm, c in zip(rows, smooth, cv, strict=True):
        r.update(score_smooth=sm, agree_smooth=0.6, score_cv=c)
    (row,) = A.summarize(rows)
    d = 100 * (np.array(smooth) - np.array(base))
    assert row["smooth_gain_mean"] == pytest.approx(d.mean())
    assert row["smooth_vs_off_mean"] == pytest.approx(d.mean())     # off is the baseline
    assert row["score_smooth"] == pytest.approx(np.mean(smooth))
    assert row["smooth_region"] == expected
    (plain,) = A.summarize(_seed_rows([0.9, 0.91, 0.92, 0.9, 0.93], base, base))
    assert row["region"] == plain["region"]
    assert "smooth_region" not in plain and "score_smooth" not in plain


def test_the_smooth_column_round_trips_and_stays_empty_for_other_methods(tmp_path):
    rows = _seed_rows([0.9, 0.8, 0.95], [0.8, 0.8, 0.8], [0.85, 0.8, 0.9])
    for r in rows:
        r.update(score_smooth=0.85, agree_smooth=0.7)
    onk = [{**r, "method": "onk", "score_smooth": np.nan} for r in rows]
    cells = A.summarize(rows + onk)
    A.write_csv(cells, A.summary_columns(), tmp_path / "atlas.csv")
    back = {r["method"]: r for r in A.read_csv(tmp_path / "atlas.csv")}
    assert back["dank"]["smooth_region"] in A.SMOOTH_REGIONS
    assert back["dank"]["smooth_gain_verdict"] == cells[0]["smooth_gain_verdict"]
    assert math.isnan(back["onk"]["score_smooth"]) and not back["onk"]["smooth_region"]


# ---------------------------------------------------------------------------
# one data set at one seed, against independent computations
# ---------------------------------------------------------------------------

def test_measure_set_scores_match_an_independent_computation():
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    from nplk_core.dank import DANKClassifier
    from nplk_core.kernels import sigma_to_gamma

    rows = A.measure_set("clowns", 1, [("dank", 10.0, 10.0), ("onk", 1.0, 1.0)])
    d = AD.load("clowns", 1)
    nn = KNeighborsClassifier(1).fit(d.X_train, d.y_train).predict(d.X_test)
    dank = DANKClassifier(C=10.0, sigma=10.0, random_state=1).fit(d.X_train, d.y_train)
    pred = dank.predict(d.X_test)
    svc = SVC(C=10.0, gamma=sigma_to_gamma(10.0)).fit(d.X_train, d.y_train)
    r = rows[0]
    assert r["score_method"] == pytest.approx(np.mean(pred == d.y_test))
    assert r["agree_method"] == pytest.approx(np.mean(pred == nn))
    assert r["score_nn"] == pytest.approx(np.mean(nn == d.y_test))
    assert r["score_plain"] == pytest.approx(svc.score(d.X_test, d.y_test))
    svc100 = SVC(C=1000.0, gamma=sigma_to_gamma(10.0)).fit(d.X_train, d.y_train)
    assert r["score_plain100"] == pytest.approx(svc100.score(d.X_test, d.y_test))
    svc10 = SVC(C=100.0, gamma=sigma_to_gamma(10.0)).fit(d.X_train, d.y_train)
    assert r["score_plain10"] == pytest.approx(svc10.score(d.X_test, d.y_test))
    assert r["score_plain10"] != r["score_plain"]      # the larger C changes the SVM here
    # the tuned baseline: σ and C by cross-validation with the data seed's folds
    from nplk_core.baselines import SVMCVClassifier

    cv = SVMCVClassifier(random_state=1).fit(d.X_train, d.y_train)
    assert r["score_cv"] == pytest.approx(cv.score(d.X_test, d.y_test))
    # the smooth rule's column: DANK's own predictions under it
    smooth = dank.predict(d.X_test, extension="smooth")
    assert r["score_smooth"] == pytest.approx(np.mean(smooth == d.y_test))
    assert r["agree_smooth"] == pytest.approx(np.mean(smooth == nn))
    # ONK's learned kernel never reaches a test point: off is the method itself
    onk = rows[1]
    assert onk["score_off"] == onk["score_method"]
    assert onk["agree_off"] == onk["agree_method"]
    assert np.isnan(onk["score_smooth"]) and np.isnan(onk["agree_smooth"])   # no such rule


def test_a_regression_cells_baselines_are_the_svrs():
    """On a regression set the same-(σ, C) baseline is the plain SVR and the tuned one the
    cross-validated SVR (scikit-learn's R² on the test points)."""
    from sklearn.svm import SVR

    from nplk_core.baselines import SVRCVRegressor
    from nplk_core.kernels import sigma_to_gamma

    r, lab = A.measure_set("step", 1, [("dank_svr", 10.0, 10.0), ("lab_rbf_reg", 1.0, 1.0)])
    d = AD.load("step", 1)
    assert not r["error"] and not lab["error"]     # LAB RBF's one fit per job, too
    for row, cell in ((r, ("dank_svr", 10.0, 10.0)), (lab, ("lab_rbf_reg", 1.0, 1.0))):
        assert (row["method"], row["dataset"], row["task"], row["sigma"], row["C"],
                row["seed"], row["n_test"]) == cell[:1] + ("step", "regression") + \
            cell[1:] + (1, len(d.y_test))
    svr = SVR(C=10.0, gamma=sigma_to_gamma(10.0)).fit(d.X_train, d.y_train)
    assert r["score_plain"] == pytest.approx(svr.score(d.X_test, d.y_test))
    cv = SVRCVRegressor(random_state=1).fit(d.X_train, d.y_train)
    assert r["score_cv"] == pytest.approx(cv.score(d.X_test, d.y_test))
    # LAB RBF switched off is the paper's model with one shared width (its own fit),
    # not the general rule that drops a learned matrix
    from sklearn.metrics import r2_score

    from nplk_lab.model.methods import make_estimator
    est, _ = make_estimator("lab_rbf_reg", {"seed": 1})
    est.fit(d.X_train, d.y_train)
    off = A._lab_rbf_off(est, d.X_train, d.y_train, d.X_test)
    assert lab["score_off"] == pytest.approx(r2_score(d.y_test, off), abs=1e-9)
    assert lab["score_method"] == pytest.approx(r2_score(d.y_test, est.predict(d.X_test)))


def test_per_point_intervals_are_the_score_tables_own():
    """The intervals kept per cell and seed are the ones the page's score table shows
    for the same state (its fitted models, its split)."""
    from nplk_lab.model import ablation as ab
    from nplk_lab.model.methods import make_estimator

    (r,) = A.measure_set("sandwich", 2, [("dank", 4.5, 10.0)])
    d = AD.load("sandwich", 2)
    est, _ = make_estimator("dank", {"sigma": 4.5, "C": 10.0, "seed": 2})
    plain, _ = make_estimator("svm", {"sigma": 4.5, "C": 10.0, "seed": 2})
    a = ab.ablation("dank", est.fit(d.X_train, d.y_train), d.X_train, d.y_train,
                    d.X_test, d.y_test, plain=plain.fit(d.X_train, d.y_train))
    for key, got in (("pt_gain", a.vs_plain("method")), ("pt_off_gain", a.vs_plain("off")),
                     ("pt_edge", a.nn_edge), ("pt_vs_off", a.vs_off)):
        assert (r[key + "_mean"], r[key + "_lo"], r[key + "_hi"]) == pytest.approx(
            (got.mean, got.lo, got.hi)), key
    # by hand: DANK against its own F-off model, point by point, in points
    off = ab.off_predict(est, d.X_test, "classification")
    diff = 100.0 * ((est.predict(d.X_test) == d.y_test).astype(float)
                    - (off == d.y_test).astype(float))
    half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / math.sqrt(len(diff))
    assert r["pt_vs_off_lo"] == pytest.approx(diff.mean() - half)
    # a method without a score table has none
    (onk,) = A.measure_set("sandwich", 2, [("onk", 4.5, 10.0)])
    assert all(math.isnan(onk[k]) for k in onk if k.startswith("pt_"))


def test_a_cached_run_measures_only_what_its_cache_lacks(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    cells = {"clowns": [("dank", 1.0, 1.0)], "moons": [("dank", 1.0, 1.0)]}
    rows, info = A.run(cells, (0, 1), n_jobs=1, cache=tmp_path)
    assert len(calls) == 4 and info["cached_jobs"] == 0 and len(rows) == 4
    again, info = A.run(cells, (0, 1), n_jobs=1, cache=tmp_path)
    assert len(calls) == 4 and info["cached_jobs"] == 4 and again == rows
    # a cell added to the grid: only it is measured, at every seed
    more = {**cells, "clowns": [("dank", 1.0, 1.0), ("knpl", 2.0, 1.0)]}
    rows, _ = A.run(more, (0, 1), n_jobs=1, cache=tmp_path)
    assert calls[4:] == [("clowns", 0, (("knpl", 2.0, 1.0),)),
                         ("clowns", 1, (("knpl", 2.0, 1.0),))]
    assert len(rows) == 6
    # a column the cached rows lack (one added to the atlas) is measured again
    path = A.cache_path(tmp_path, "moons", 0)
    import json
    stale = [{k: v for k, v in r.items() if k != "score_cv"}
             for r in json.loads(path.read_text())]
    path.write_text(json.dumps(stale))
    A.run(more, (0, 1), n_jobs=1, cache=tmp_path)
    assert calls[6:] == [("moons", 0, (("dank", 1.0, 1.0),))]
    # a file cut short by a killed run counts as no cache
    path.write_text("[{")
    assert A.read_cached(tmp_path, "moons", 0, A.SEED_COLUMNS) == []


def test_lab_rbf_off_is_the_papers_model_with_one_shared_width():
    from nplk_core.lab_rbf import LABRBFRegressor, lab_fit_alpha, lab_kernel
    from nplk_lab.model.lab_rbf_halves import shared_bandwidth

    d = AD.load("chirp", 0)
    est = LABRBFRegressor(random_state=0).fit(d.X_train, d.y_train)
    off = A._lab_rbf_off(est, d.X_train, d.y_train, d.X_test)
    _, t = shared_bandwidth(est, d.X_train, d.y_train)
    # by hand: the support points' ridge with every bandwidth t, in the model's units
    Z, Zt = est._scale(d.X_train), est._scale(d.X_test)
    sv = est.support_
    theta = np.full((len(sv), Z.shape[1]), t)
    alpha, b0 = lab_fit_alpha(Z[sv], d.y_train[sv], theta, lam=est.lam, kind=est.kernel)
    np.testing.assert_allclose(off, lab_kernel(Z[sv], theta, Zt, est.kernel).T @ alpha + b0)
    assert not np.allclose(off, est.predict(d.X_test))   # the learned widths differ


def test_a_toy_is_the_pages_own_split():
    import nplk_lab.model as lab

    d = AD.load("sandwich", 3)
    page, _ = lab.prepare_data({"dataset": "sandwich", "seed": 3}, "classification")
    np.testing.assert_array_equal(d.X_test, page.X_test)
    np.testing.assert_array_equal(d.y_train, page.y_train)


@pytest.mark.parametrize("name", [n for n, s in AD.SETS.items() if s.source != "lab"])
def test_other_sets_are_standardised_drawn_by_the_seed(name):
    a, b, c = AD.load(name, 0), AD.load(name, 0), AD.load(name, 1)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert not np.array_equal(a.X_test, c.X_test)
    np.testing.assert_allclose(a.X_train.mean(axis=0), 0, atol=1e-9)
    n = len(a.y_train) + len(a.y_test)
    assert n <= AD.N_MAX and len(a.y_test) == round(AD.TEST_SIZE * n)
    if AD.SETS[name].task == "classification":
        assert set(np.unique(a.y_train)) == {-1.0, 1.0}
    else:
        assert a.y_train.mean() == pytest.approx(0, abs=1e-9)


# ---------------------------------------------------------------------------
# files and the committed table
# ---------------------------------------------------------------------------

def test_csv_round_trip_keeps_verdicts_and_numbers(tmp_path):
    cells = A.summarize(_seed_rows([0.9, 0.8, 0.95], [0.8, 0.8, 0.8], [0.85, 0.8, 0.9]))
    for name in ("atlas.csv", "atlas.csv.gz"):
        A.write_csv(cells, A.summary_columns(), tmp_path / name)
        back = A.read_csv(tmp_path / name)
        assert [A.signature(r) for r in back] == [A.signature(r) for r in cells]
        assert back[0]["gain_lo"] == pytest.approx(cells[0]["gain_lo"], rel=1e-5)
    assert A.compare(cells, back) == []


def test_compare_reports_a_changed_verdict():
    cells = A.summarize(_seed_rows([0.9, 0.8, 0.95], [0.8, 0.8, 0.8], [0.85, 0.8, 0.9]))
    other = next(r for r in A.REGIONS if r != cells[0]["region"])
    changed = [{**cells[0], "region": other}]
    assert len(A.compare(cells, changed)) == 1
    assert "not in the committed" in A.compare([], cells)[0]


@needs_atlas
def test_the_committed_atlas_covers_the_grid():
    sets = {r["dataset"] for r in COMMITTED}
    assert len(sets) >= 8
    sources = {AD.SETS[s].source for s in sets}
    assert sum(AD.SETS[s].source == "generator" for s in sets) >= 2
    assert sum(AD.SETS[s].source == "real" for s in sets) >= 2 and "lab" in sources
    sigmas = sorted({r["sigma"] for r in COMMITTED})
    assert len(sigmas) >= 8 and sigmas[0] <= 0.1 and sigmas[-1] >= 20
    assert len({r["C"] for r in COMMITTED}) >= 4
    assert {r["method"] for r in COMMITTED} == set(A.METHODS)
    assert all(r["n_seeds"] == 10 for r in COMMITTED)
    # every region in the file is what its own verdicts say
    assert all(A.region(r) == r["region"] for r in COMMITTED)


@needs_atlas
def test_the_committed_tables_are_the_atlas_seeds_and_ten_others():
    """The atlas's per-seed table holds exactly :data:`SEEDS` for every cell; the
    held-out one ten other seeds, for the same cells."""
    from collections import Counter

    out = ROOT_OUT
    main = A.read_csv(out / "seeds.csv.gz")
    held = A.read_csv(out / "held-out" / "seeds.csv.gz")
    assert {int(r["seed"]) for r in main} == set(A.SEEDS)
    assert {int(r["seed"]) for r in held} == set(range(10, 20))
    assert not set(A.SEEDS) & {int(r["seed"]) for r in held}
    per_cell = Counter((r["method"], r["dataset"], r["sigma"], r["C"]) for r in main)
    assert set(per_cell.values()) == {len(A.SEEDS)} and len(per_cell) == len(COMMITTED)
    assert set(A.SEED_COLUMNS) <= set(main[0]) and set(A.SEED_COLUMNS) <= set(held[0])


@needs_atlas
@pytest.mark.slow
def test_quick_cells_reproduce_the_committed_verdicts():
    rows, _ = A.run(A.quick_cells(), A.SEEDS, n_jobs=2)
    fresh = A.summarize(rows)
    assert len(fresh) == len(A.QUICK_CELLS)
    assert A.compare(COMMITTED, fresh) == []


# ---------------------------------------------------------------------------
# the view's model and figure
# ---------------------------------------------------------------------------

def test_view_grid_open_state_and_figure():
    import nplk_lab.figures.common as common
    from nplk_lab.figures.atlas import REGION_COLORS, region_map

    cells = []
    for s in (1.0, 10.0):
        for C in (1.0, 10.0):
            (row,) = A.summarize(_seed_rows([0.9, 0.91, 0.92], [0.7, 0.72, 0.71],
                                            [0.9, 0.91, 0.92] if s == 10 else [0.7] * 3))
            cells.append({**row, "sigma": s, "C": C})
    grid = AV.atlas_grid(cells, "dank", "clowns")
    assert grid.regions.shape == (2, 2)
    assert list(grid.regions[:, 1]) == [A.REGIONS.index("matrix_alone")] * 2
    assert "95 % interval" in grid.hover[0, 0]
    page, P_ = AV.open_state(grid, (1, 0), seed=0)
    assert page == "classification"
    assert (P_["sigma"], P_["C"], P_["dataset"]) == (1.0, 10.0, "clowns")
    assert AV.open_state(grid, (5, 5)) is None
    real = AV.AtlasGrid("dank", "wine", grid.sigmas, grid.Cs, grid.regions, grid.hover,
                        grid.rows)
    assert AV.open_state(real, (0, 0)) is None
    common.VALIDATE = True
    try:
        fig = region_map(grid.sigmas, grid.Cs, grid.regions, AV.REGION_LABELS,
                         hover=grid.hover)
    finally:
        common.VALIDATE = False
    tr = fig.data[0]
    assert list(tr.colorbar.ticktext) == list(AV.REGION_LABELS)
    assert tr.colorscale[2 * A.REGIONS.index("matrix_alone")][1] == REGION_COLORS[0]


def test_view_draws_a_cell_the_other_draws_disagree_on_as_unsettled():
    cells = []
    for s in (1.0, 10.0):
        (row,) = A.summarize(_seed_rows([0.9, 0.91, 0.92], [0.7, 0.72, 0.71],
                                        [0.9, 0.91, 0.92] if s == 10 else [0.7] * 3))
        cells.append({**row, "sigma": s})
    held = [{**cells[0]}, {**cells[1], "region": "none"}]
    grid = AV.atlas_grid(cells, "dank", "clowns", held)
    assert list(grid.regions[0]) == [A.REGIONS.index(cells[0]["region"]),
                                     AV.VIEW_REGIONS.index(AV.UNSETTLED)]
    assert "unsettled: at the other draws, no difference" in grid.hover[0, 1]
    assert "the same region at the other draws" in grid.hover[0, 0]
    assert grid.counts[AV.UNSETTLED] == 1
    assert "1 unsettled" in AV.summary_sentence(grid)
    assert AV.REGION_LABELS[-1] == AV.UNSETTLED and len(AV.region_legend()) == 7
    from nplk_lab.figures.atlas import REGION_COLORS
    assert len(REGION_COLORS) >= len(AV.VIEW_REGIONS)


def test_the_smooth_rules_map_its_words_and_the_state_it_opens():
    from nplk_lab.figures.atlas import SMOOTH_COLORS, region_map

    base = [0.7, 0.72, 0.71]
    cells = []
    for s, smooth, cv in ((1.0, [0.9, 0.91, 0.92], [0.8] * 3),     # helps, tuned below
                          (10.0, [0.9, 0.91, 0.92], [0.99] * 3),   # tuned better
                          (20.0, base, [0.8] * 3)):                 # no difference
        rows = _seed_rows([0.95] * 3, base, base)
        for r, sm, c in zip(rows, smooth, cv, strict=True):
            r.update(score_smooth=sm, agree_smooth=0.6, score_cv=c)
        (row,) = A.summarize(rows)
        cells.append({**row, "sigma": s})
    onk = {**cells[0], "method": "onk"}
    for k in [k for k in onk if "smooth" in k]:
        onk.pop(k)
    assert AV.has_smooth(cells) and AV.has_smooth(cells, "dank")
    assert not AV.has_smooth([onk]) and AV.smooth_grid([onk], "onk", "clowns") is None
    grid = AV.smooth_grid(cells, "dank", "clowns")
    assert grid.rule == "smooth" and grid.regions.shape == (1, 3)
    assert [A.SMOOTH_REGIONS[i] for i in grid.regions[0]] == ["no_copy", "tuned_better",
                                                              "none"]
    assert "smooth rule − plain SVM: +20.0 points" in grid.hover[0, 0]
    assert "helps without copying" in grid.hover[0, 0]
    assert AV.smooth_summary_sentence(grid) == (
        "DANK with the smooth rule on clowns: of 3 settings of σ and C, 1 helps without "
        "copying, 1 tuned better, 1 no difference. Where it helps without copying (1), it "
        "beats the same model with the matrix switched off in 1.")
    page, P_ = AV.open_state(grid, (0, 1))
    assert page == "classification" and P_["extension"] == "smooth" and P_["sigma"] == 10
    assert "extension" not in AV.open_state(AV.atlas_grid(cells, "dank", "clowns"), (0, 1))[1]
    assert [ln.split(":")[0] for ln in AV.region_legend(A.SMOOTH_REGIONS)] == \
        list(AV.SMOOTH_REGION_LABELS)
    fig = region_map(grid.sigmas, grid.Cs, grid.regions, AV.SMOOTH_REGION_LABELS,
                     hover=grid.hover, colors=SMOOTH_COLORS)
    assert list(fig.data[0].colorbar.ticktext) == list(AV.SMOOTH_REGION_LABELS)
    assert len(SMOOTH_COLORS) == len(AV.SMOOTH_VIEW_REGIONS)
    # at other draws the first square no longer helps: unsettled, and its hover says so
    held = [{**cells[0], "smooth_region": "none", "smooth_gain_mean": 1.0,
             "smooth_gain_lo": -2.0, "smooth_gain_hi": 4.0}, cells[1], cells[2]]
    grid = AV.smooth_grid(cells, "dank", "clowns", held)
    assert [AV.SMOOTH_VIEW_REGIONS[i] for i in grid.regions[0]] == [
        AV.UNSETTLED, "tuned_better", "none"]
    assert "→ unsettled: at the other draws, " in grid.hover[0, 0]
    assert "other draws: smooth rule - plain SVM +1.0 points (95 % interval -2.0" in \
        grid.hover[0, 0].replace("−", "-")
    assert "→ the same region at the other draws" in grid.hover[0, 1]
    assert "helps without copying" in grid.hover[0, 0]     # its region at the first draws
    assert AV.smooth_summary_sentence(grid) == (
        "DANK with the smooth rule on clowns: of 3 settings of σ and C, 1 tuned better, "
        "1 no difference, 1 unsettled.")
    assert AV.region_legend(AV.SMOOTH_VIEW_REGIONS)[-1].startswith("unsettled: measured "
                                                                   "again at other draws")


# ---------------------------------------------------------------------------
# the view on Paper results (AppTest)
# ---------------------------------------------------------------------------

@needs_atlas
def test_paper_results_draws_the_atlas_and_follows_the_choosers():
    from _app_pages import open_paper


    at = open_paper()

    def atlas_titles():
        figs = [figure_of(e) for e in at.get("bidi_component")]
        return [f["layout"]["title"]["text"] for f in figs
                if f and f.get("layout", {}).get("title", {}).get("text", "").endswith(
                    (" on clowns", " on sandwich"))
                and not f["layout"]["title"]["text"].startswith("SimpleNPKL")]

    assert atlas_titles() == ["DANK on clowns"]
    at.selectbox(key="atlas_method").set_value("knpl").run()
    at.selectbox(key="atlas_dataset").set_value("sandwich").run()
    assert not at.exception
    assert atlas_titles() == ["KNPL on sandwich"]
    shown = " ".join(t.value for t in at.text)
    held = A.load_atlas(A.table_path("held-out/atlas.csv"))
    grid = AV.atlas_grid(COMMITTED, "knpl", "sandwich", held)
    assert AV.summary_sentence(grid) in shown
    moved = [r for r in grid.rows.values() if r["region"] == AV.UNSETTLED]
    assert moved and f"{len(moved)} unsettled" in AV.summary_sentence(grid)
    table = [d.value for d in at.dataframe if "off − plain (points)" in d.value.columns]
    assert len(table) == 1 and len(table[0]) == len(grid.rows)


def _atlas_titles(at) -> list[str]:

    figs = [figure_of(e) for e in at.get("bidi_component")]
    return [f["layout"]["title"]["text"] for f in figs
            if f and " on " in f.get("layout", {}).get("title", {}).get("text", "")
            and not f["layout"]["title"]["text"].startswith("SimpleNPKL")]


@needs_atlas
def test_paper_results_switches_to_the_smooth_rules_map_and_its_sentence():
    """The rule switch draws the smooth rule's map (unsettled squares included), its
    counts, the registered sentence with its numbers from both tables and every
    square's numbers; ONK, which has no such rule, gets no switch."""
    from _app_pages import open_paper

    from nplk_lab.model import claims as C

    at = open_paper()
    assert at.radio(key="atlas_rule").value == "paper"
    at.radio(key="atlas_rule").set_value("smooth").run()
    assert not at.exception
    assert _atlas_titles(at) == ["DANK on clowns, smooth rule"]
    shown = [t.value for t in at.text]
    held = A.load_atlas(A.table_path("held-out/atlas.csv"))
    grid = AV.smooth_grid(COMMITTED, "dank", "clowns", held)
    assert AV.smooth_summary_sentence(grid) in shown
    assert C.TEXT["smooth_rule"] in shown and C.ATLAS_SENTENCE not in shown
    assert int(np.sum(grid.regions == AV.SMOOTH_VIEW_REGIONS.index(AV.UNSETTLED))) > 0
    (table,) = [d.value for d in at.dataframe if "smooth − plain (points)" in d.value.columns]
    assert len(table) == len(grid.rows) and "unsettled" in set(table["region"])
    at.selectbox(key="atlas_method").set_value("onk").run()
    assert not at.exception
    assert not [r for r in at.radio if r.key == "atlas_rule"]
    assert _atlas_titles(at) == ["ONK on clowns"] and C.ATLAS_SENTENCE in \
        [t.value for t in at.text]


@needs_atlas
def test_the_rule_switch_shows_only_once_the_atlas_has_the_smooth_rules_column(
        tmp_path, monkeypatch):
    """Tables measured before the smooth rule (its columns absent) draw the paper's rule's
    map with no switch and no smooth-rule sentence."""
    import csv

    from _app_pages import open_paper

    from nplk_lab.model import claims as C

    for name in ("atlas.csv", "held-out/atlas.csv"):
        src = A.table_path(name)
        with src.open(newline="") as f:
            rows = list(csv.DictReader(f))
        keep = [k for k in rows[0] if "smooth" not in k]
        dst = tmp_path / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        with dst.open("w", newline="") as f:
            w = csv.DictWriter(f, keep, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    monkeypatch.setattr(A, "table_path", lambda name="atlas.csv": tmp_path / name)
    assert not AV.has_smooth(A.read_csv(tmp_path / "atlas.csv"))
    at = open_paper()
    assert not at.exception
    assert not [r for r in at.radio if r.key == "atlas_rule"]
    assert _atlas_titles(at) == ["DANK on clowns"]
    shown = [t.value for t in at.text]
    assert C.ATLAS_SENTENCE in shown and C.TEXT["smooth_rule"] not in shown
