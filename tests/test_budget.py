"""The work budget: its memory model bounds what the solvers really allocate, its verdicts
are monotone and say what to do, and every size a link can ask for is capped."""

import tracemalloc
import warnings

import numpy as np
import pytest

import nplk_lab.model as lab
from nplk_core.datasets import make_clowns
from nplk_lab.model import budget


def _peak_bytes(method: str, n: int) -> int:
    X, y = make_clowns(n, random_state=0)
    p = lab.defaults()
    lab.fit_method(p, X[:40], y[:40], X[:5], y[:5], method=method)  # imports, caches
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        try:
            res = lab.fit_method(p, X, y, X[:10], y[:10], method=method)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert res.ok, [str(m) for m in res.messages]
    return peak


@pytest.mark.slow
@pytest.mark.parametrize("method", ["dank", "knpl", "onk", "mkl_uniform"])
def test_memory_model_bounds_the_measured_peak(method):
    n = 400
    peak = _peak_bytes(method, n)
    model = budget.fit_cost(method, n, 2, lab.defaults()).bytes
    # conservative (never below what the solver takes) but not absurd (within 8x)
    assert model >= peak, (method, peak / 2**20, model / 2**20)
    assert model <= 8 * max(peak, 8 * n * n), (method, peak / 2**20, model / 2**20)


def test_verdict_levels_grow_with_n_and_bound_exactly_at_n_fit():
    p = lab.defaults()
    levels = [budget.fit_verdict("dank", n, 2, p).level for n in (100, 1500, 20_000)]
    assert levels == ["live", "patient", "refused"]
    v = budget.fit_verdict("dank", 20_000, 2, p)
    assert 0 < v.n_max <= v.n_fit < 20_000
    assert budget.fit_verdict("dank", v.n_fit, 2, p).ok
    assert not budget.fit_verdict("dank", v.n_fit + 1, 2, p).ok
    assert budget.fit_verdict("dank", v.n_max, 2, p).level == "live"
    assert budget.fit_verdict("dank", v.n_max + 1, 2, p).level != "live"


def test_refusal_says_what_to_do():
    v = budget.fit_verdict("dank", 14_000, 2, lab.defaults(), label="DANK")
    assert not v.ok
    assert "not started" in v.message and f"{v.n_fit:,}" in v.message
    assert "Scaling" in v.message  # the scalable route is offered for DANK
    assert v.cost.bytes > budget.DEFAULT.memory  # 14,000² doubles, several times


def test_iteration_cap_scales_the_estimate():
    a = budget.fit_cost("dank", 300, 2, {"max_iter": 2000}).seconds
    b = budget.fit_cost("dank", 300, 2, {"max_iter": 5000}).seconds
    assert b == pytest.approx(2.5 * a)


def test_sweep_caps_fits_and_total_time():
    p = lab.defaults()
    assert budget.sweep_verdict("dank", 140, 7 * 3, 2, p).ok
    # the hostile link of issue 11: n = 1000, 15 points x 10 repeats, max_iter = 5000
    big = budget.sweep_verdict("dank", 700, 15 * 10, 2, {**p, "max_iter": 5000})
    assert not big.ok and "fewer" in big.message
    too_many = budget.sweep_verdict("svm", 100, 16 * 10, 2, p)
    assert not too_many.ok and "limit" in too_many.message
    slow = budget.sweep_verdict("svm_cv", 300, 15 * 3, 2, p)
    assert not slow.ok and "sweep" in slow.message


def test_grid_resolution_shrinks_for_large_samples():
    assert budget.grid_resolution(200) == 100
    r = budget.grid_resolution(14_000)
    assert 10 <= r < 100
    assert 3 * 8 * r * r * 14_000 <= budget.DEFAULT.memory // 2
    assert budget.grid_resolution(200, requested=10_000) == budget.LIMITS["grid_resolution"]


def test_unknown_method_gets_a_finite_conservative_model():
    c = budget.fit_cost("something-new", 500)
    assert np.isfinite(c.seconds) and c.bytes >= 8 * 500 * 500


def test_fit_above_budget_runs_on_a_stratified_subsample_with_a_message(monkeypatch):
    tight = budget.Budget(seconds=0.005, patient_seconds=0.01, memory=budget.DEFAULT.memory)
    monkeypatch.setattr(budget, "DEFAULT", tight)
    X, y = make_clowns(600, random_state=1)
    res = lab.fit_method(lab.defaults(), X, y, X[:50], y[:50], method="svm")
    assert res.ok and res.verdict is not None and not res.verdict.ok
    n_used = res.X_train.shape[0]
    assert n_used < 600 and n_used <= res.verdict.n_max + 2
    text = " ".join(str(m) for m in res.messages)
    assert "subsample" in text and f"{n_used:,} of the training points" in text


def test_subsample_indices_keep_both_classes_in_proportion():
    y = np.r_[np.ones(900), -np.ones(100)]
    idx = lab.subsample_indices(y, 100, seed=3)
    assert np.all(np.diff(idx) > 0) and idx.size <= 100
    frac = np.mean(y[idx] > 0)
    assert 0.85 <= frac <= 0.95 and np.any(y[idx] < 0)
    assert lab.subsample_indices(y, 5000).size == 1000


def test_sweep_refused_up_front_with_the_reason():
    p = {**lab.defaults(), "n_samples": 1000, "max_iter": 5000, "solver": "pg"}
    calls = []

    def fit(*a, **k):
        calls.append(1)
        return lab.fit_method(*a, **k)

    sw = lab.run_sweep(p, "dank", "tau", lab.sweep_values("tau", n_points=15), repeats=10,
                       fit=fit)
    assert not calls
    assert any(m.level == "error" and "sweep" in m.text for m in sw.messages)


def test_csv_in_raw_units_is_standardised_with_a_note_and_fits():
    X, y = make_clowns(200, random_state=0)
    raw = X * np.array([100.0, 1e4]) + np.array([5e2, 3e3])
    csv = "x1,x2,y\n" + "\n".join(f"{a},{b},{int(c)}" for (a, b), c in zip(raw, y, strict=True))
    p = {**lab.defaults(), "dataset": "csv"}
    data, msgs = lab.prepare_data(p, csv=csv.encode())
    assert any("standardised" in str(m) for m in msgs)
    assert np.allclose(data.X.std(axis=0), 1.0) and np.allclose(data.X.mean(axis=0), 0.0)
    res = lab.fit_method(p, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")
    assert res.ok and res.test_score > 0.85
    raw_data, msgs = lab.prepare_data({**p, "standardize": "off"}, csv=csv.encode())
    assert np.allclose(raw_data.X.std(axis=0), raw.std(axis=0))
    assert any("always" in str(m) for m in msgs)  # the offer, when switched off
    same, msgs = lab.prepare_data(p, csv=("x1,x2,y\n" + "\n".join(
        f"{a},{b},{int(c)}" for (a, b), c in zip(X, y, strict=True))).encode())
    assert not any("standardis" in str(m) for m in msgs)


def test_slow_solvers_are_costed_by_their_iterations():
    p = {**lab.defaults(), "max_iter": 5000}
    apg = budget.fit_cost("dank", 700, 2, {**p, "solver": "auto"}).seconds
    pg = budget.fit_cost("dank", 700, 2, {**p, "solver": "pg"}).seconds
    nesterov = budget.fit_cost("dank", 700, 2, {**p, "solver": "nesterov"}).seconds
    assert pg > nesterov > apg
    assert pg == pytest.approx(5000 * 1e-3 * 3.5 ** 2)
    # the hostile link's fit is not started at full size
    assert not budget.fit_verdict("dank", 700, 2, {**p, "solver": "pg"}).ok


def test_a_maps_time_is_shared_by_its_workers():
    """A map's lines run as tasks on ``workers`` processes (nplk_lab.model.maps.run_map
    passes them on): its expected time is the fits' time divided by the workers, so a map
    refused on one process runs on four."""
    p = lab.defaults()
    each = budget.fit_cost("dank", 200, 2, p).seconds
    one = budget.map_verdict("dank", 200, (15, 15), 5, 2, p, label="DANK")
    four = budget.map_verdict("dank", 200, (15, 15), 5, 2, p, label="DANK", workers=4)
    assert one.cost.seconds == pytest.approx(each * 15 * 15 * 5)
    assert four.cost.seconds == pytest.approx(each * 15 * 15 * 5 / 4)
    assert budget.map_verdict("dank", 200, (15, 15), 5, 2, p, workers=0).cost.seconds == \
        pytest.approx(one.cost.seconds)
    limit = one.cost.seconds * 0.5                # between the two
    assert not budget.map_verdict("dank", 200, (15, 15), 5, 2, p, max_seconds=limit).ok
    ok = budget.map_verdict("dank", 200, (15, 15), 5, 2, p, workers=4, max_seconds=limit)
    assert ok.ok and ok.level == "patient"
    assert "15 × 15 values × 5 seeds = 1125 fits of dank on 200 points" in ok.message


def test_map_limits_and_messages():
    p = lab.defaults()
    too_many = budget.map_verdict("svm", 100, (16, 15), 5, 2, p, label="SVM")
    assert not too_many.ok and "limit of 1,125 fits" in too_many.message
    assert "16 × 15 values × 5 seeds = 1200 fits of SVM on 100 points" in too_many.message
    slow = budget.map_verdict("dank", 200, (10, 10), 2, 2, p, label="DANK", max_seconds=1.0)
    assert not slow.ok and "above the lab's 1.0 s for a map" in slow.message
    live = budget.map_verdict("svm", 50, (2, 2), 1, 2, p)
    assert live.level == "live" and live.message == "" and "1 seed " not in live.message
    assert budget.map_verdict("svm", 50, (0, -3), 0, 2, p).cost.seconds == \
        pytest.approx(budget.fit_cost("svm", 50, 2, p).seconds)
    big = budget.map_verdict("dank", 20_000, (2, 2), 1, 2, p)   # cells on a subsample
    assert big.cost.seconds == pytest.approx(
        4 * budget.fit_cost("dank", big.n_max, 2, p).seconds)
