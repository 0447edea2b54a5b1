"""One job of the atlas (:func:`~nplk_lab.model.atlas.atlas.measure_set`) on a small
split, every column of every row against an independent computation: scikit-learn's
SVM, SVR, their cross-validated versions and 1-NN, the score table's rules, R² and the
closeness to 1-NN written out, the paired t-intervals by hand. A few seconds in all,
so it is the test a change to the atlas's fitting code meets first."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy import stats

from nplk_lab.model import ablation as ab
from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_data as AD
from nplk_lab.model.methods import make_estimator

#: training and test points kept of each set's split: enough for every method to fit,
#: few enough for the tuned baseline's grid of fits to take a second
N_TRAIN, N_TEST = 40, 24
SEED = 3
CLASS_CELLS = [("dank", 2.0, 10.0), ("knpl", 0.5, 10.0), ("onk", 2.0, 10.0)]
SMALL_GRID = (0.3, 1.0, 3.0)
REG_CELLS = [("dank_svr", 0.5, 3.0), ("lab_rbf_reg", 1.0, 1.0), ("lab_rbf_reg", 2.0, 10.0)]


def _small(name, seed):
    d = AD.load(name, seed)
    return AD.Split(d.X_train[:N_TRAIN], d.y_train[:N_TRAIN], d.X_test[:N_TEST],
                    d.y_test[:N_TEST])


@pytest.fixture
def small_sets(monkeypatch):
    """The atlas's data sets cut to a few points, and every fit the job makes, in
    order (method, parameters)."""
    fits = []
    real_fit = A._fit

    def fit(method, params, X, y):
        fits.append((method, dict(params)))
        return real_fit(method, params, X, y)

    monkeypatch.setattr(A, "load", _small)
    monkeypatch.setattr(A, "_fit", fit)
    # the tuned baselines search a 3 × 3 grid here (605 fits a job otherwise)
    from nplk_core.baselines import SVMCVClassifier, SVRCVRegressor
    for cls in (SVMCVClassifier, SVRCVRegressor):
        for grid in ("sigma_grid", "C_grid"):
            monkeypatch.setitem(cls.__init__.__kwdefaults__, grid, SMALL_GRID)
    return fits


def _measure(name, cells):
    t0 = time.perf_counter()
    rows = A.measure_set(name, SEED, cells)
    return rows, time.perf_counter() - t0


def _sigma_gamma(sigma):
    from nplk_core.kernels import sigma_to_gamma
    return sigma_to_gamma(sigma)


def _closeness(y, p, q):
    return 1.0 - np.sum((p - q) ** 2) / np.sum((y - y.mean()) ** 2)


def _t_interval(diff):
    half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / math.sqrt(len(diff))
    return diff.mean() - half, diff.mean(), diff.mean() + half


def _fitted(method, sigma, C, d):
    est, _ = make_estimator(method, {"sigma": sigma, "C": C, "seed": SEED})
    return est.fit(d.X_train, d.y_train)


def _check_times(rows, elapsed):
    for r in rows:
        assert 0.0 <= r["fit_s"] <= r["set_s"] <= elapsed


def test_a_classification_job_matches_an_independent_computation(small_sets):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    from nplk_core.baselines import SVMCVClassifier

    rows, elapsed = _measure("clowns", CLASS_CELLS)
    d = _small("clowns", SEED)
    y = d.y_test
    nn = KNeighborsClassifier(1).fit(d.X_train, d.y_train).predict(d.X_test)
    cv = SVMCVClassifier(random_state=SEED).fit(d.X_train, d.y_train).predict(d.X_test)
    assert [r["method"] for r in rows] == [c[0] for c in CLASS_CELLS]
    _check_times(rows, elapsed)
    checked = 0
    for r, (method, sigma, C) in zip(rows, CLASS_CELLS, strict=True):
        assert set(r) == set(A.SEED_COLUMNS) and r["error"] == "" and r["warned"] is False
        est = _fitted(method, sigma, C, d)
        pred = est.predict(d.X_test)
        off = ab.off_predict(est, d.X_test, "classification")
        plain = {k: SVC(C=f * C, gamma=_sigma_gamma(sigma)).fit(d.X_train, d.y_train)
                 .predict(d.X_test) for k, f in (("plain", 1), ("plain10", 10),
                                                  ("plain100", 100))}
        preds = {"method": pred, "off": off, "nn": nn, "cv": cv, **plain}
        for k, p in preds.items():
            assert r["score_" + k] == pytest.approx(np.mean(p == y), abs=1e-12), (method, k)
        for k in A.AGREED:
            assert r["agree_" + k] == pytest.approx(np.mean(preds[k] == nn), abs=1e-12)
        if method == "onk":       # no learned row reaches a test point: no score table
            assert np.array_equal(off, pred)
            assert all(math.isnan(r[k]) for k in r if k.startswith("pt_") or
                       k.endswith("_smooth"))
            continue
        smooth = est.predict(d.X_test, extension="smooth")
        assert (r["score_smooth"], r["agree_smooth"]) == pytest.approx(
            (np.mean(smooth == y), np.mean(smooth == nn)), abs=1e-12)
        # the score table's intervals over the test points, in points of accuracy
        right = {k: 100.0 * (preds[k] == y).astype(float) for k in ("method", "off", "plain")}
        for key, diff in (("pt_gain", right["method"] - right["plain"]),
                          ("pt_off_gain", right["off"] - right["plain"]),
                          ("pt_vs_off", right["method"] - right["off"]),
                          ("pt_edge", 100.0 * ((pred == nn).astype(float)
                                       - (plain["plain"] == nn)))):
            if diff.std() == 0:       # every point the same: an interval of one value
                continue
            got = (r[key + "_lo"], r[key + "_mean"], r[key + "_hi"])
            assert got == pytest.approx(_t_interval(diff), abs=1e-9), (method, key)
            checked += 1
    assert checked >= 6       # most of DANK's and KNPL's eight intervals are not one value
    # the job's data, 1-NN and tuned baseline are shared: one tuned fit, one plain SVM
    # per (σ, C) asked for
    assert [m for m, _ in small_sets].count("svm_cv") == 1
    assert sorted((p["sigma"], p["C"]) for m, p in small_sets if m == "svm") == sorted(
        {(s, f * C) for _, s, C in CLASS_CELLS for f in (1, 10, 100)})
    # every learned model fitted with its cell's σ, C and the data seed
    assert [(m, p) for m, p in small_sets if m in ("dank", "knpl", "onk")] == [
        (m, {"sigma": s, "C": C, "seed": SEED}) for m, s, C in CLASS_CELLS]


def test_a_regression_job_matches_an_independent_computation(small_sets):
    from sklearn.metrics import r2_score
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.svm import SVR

    from nplk_core.baselines import SVRCVRegressor

    rows, elapsed = _measure("step", REG_CELLS)
    d = _small("step", SEED)
    y = d.y_test
    nn = KNeighborsRegressor(1).fit(d.X_train, d.y_train).predict(d.X_test)
    cv = SVRCVRegressor(random_state=SEED).fit(d.X_train, d.y_train).predict(d.X_test)
    _check_times(rows, elapsed)
    # LAB RBF takes neither σ nor C: one fit for the job, its row the same at each cell
    lab, _ = make_estimator("lab_rbf_reg", {"seed": SEED})
    lab.fit(d.X_train, d.y_train)
    assert [(m, p) for m, p in small_sets if m == "lab_rbf_reg"] == [
        ("lab_rbf_reg", {"seed": SEED})]
    for r, (method, sigma, C) in zip(rows, REG_CELLS, strict=True):
        assert set(r) == set(A.SEED_COLUMNS) and r["error"] == "" and r["warned"] is False
        assert (r["method"], r["sigma"], r["C"]) == (method, sigma, C)
        if method == "lab_rbf_reg":
            est, off = lab, A._lab_rbf_off(lab, d.X_train, d.y_train, d.X_test)
        else:
            est = _fitted(method, sigma, C, d)
            off = ab.off_predict(est, d.X_test, "regression")
        pred = est.predict(d.X_test)
        plain = {k: SVR(C=f * C, gamma=_sigma_gamma(sigma)).fit(d.X_train, d.y_train)
                 .predict(d.X_test) for k, f in (("plain", 1), ("plain10", 10),
                                                  ("plain100", 100))}
        preds = {"method": pred, "off": off, "nn": nn, "cv": cv, **plain}
        for k, p in preds.items():
            assert r["score_" + k] == pytest.approx(r2_score(y, p), abs=1e-9), (method, k)
        for k in A.AGREED:
            assert r["agree_" + k] == pytest.approx(_closeness(y, preds[k], nn), abs=1e-9)
        if method == "lab_rbf_reg":   # no nearest-neighbour rule, no score table
            assert all(math.isnan(r[k]) for k in r if k.startswith("pt_") or
                       k.endswith("_smooth"))
            continue
        smooth = est.predict(d.X_test, extension="smooth")
        assert (r["score_smooth"], r["agree_smooth"]) == pytest.approx(
            (r2_score(y, smooth), _closeness(y, smooth, nn)), abs=1e-9)
        assert not any(math.isnan(r[k]) for k in r if k.startswith("pt_"))
    # the three larger-C baselines differ here, so a wrong factor shows
    assert len({rows[0]["score_plain"], rows[0]["score_plain10"],
                rows[0]["score_plain100"]}) == 3


def test_a_failed_fit_is_its_rows_error_and_the_job_goes_on(small_sets, monkeypatch):
    """A fit that raises is kept as a row naming the error (cut to 200 characters), not
    warned, with its time; the job's other cells are still measured. A fit that warns
    is counted as warned."""
    fit = A._fit

    def failing(method, params, X, y):
        if method == "onk":
            raise ValueError("too few points: " + "x" * 300)
        est, _ = fit(method, params, X, y)
        return est, method == "knpl"

    monkeypatch.setattr(A, "_fit", failing)
    rows, elapsed = _measure("clowns", [("dank", 2.0, 10.0), ("onk", 2.0, 10.0),
                                        ("knpl", 0.5, 10.0)])
    assert [r["method"] for r in rows] == ["dank", "onk", "knpl"]
    dank, onk, knpl = rows
    assert onk["error"] == "ValueError: too few points: " + "x" * 184
    assert onk["warned"] is False and "score_method" not in onk
    assert 0.0 <= onk["fit_s"] <= onk["set_s"] <= elapsed
    assert (dank["warned"], knpl["warned"]) == (False, True)
    assert dank["error"] == knpl["error"] == ""
    assert not math.isnan(knpl["score_method"])
