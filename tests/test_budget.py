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
    # a hostile link: n = 1000, 15 points x 10 repeats, max_iter = 5000
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


def test_times_and_sizes_in_words():
    f = budget._fmt_seconds
    assert [f(s) for s in (0.5, 0.9994, 1.0, 119.94, 120.0, 7199.0, 7200.0, 9000.0)] == \
        ["500 ms", "999 ms", "1.0 s", "119.9 s", "2 min", "120 min", "2.0 h", "2.5 h"]
    assert f(10621.0) == "3.0 h"                    # 2.9503 h
    b = budget._fmt_bytes
    assert [b(x) for x in (5 * budget.MB, (1 << 30) - 1, 1 << 30, 3 << 30)] == \
        ["5 MB", "1024 MB", "1.0 GB", "3.0 GB"]
    assert budget.scalable_route("dank").startswith("DANK's k-means decomposition")
    assert budget.scalable_route("simple_npkl") == "SimpleNPKL's sparse Lanczos path"
    assert budget.scalable_route("svm") == "" and budget.scalable_route("nope") == ""


def test_sweep_messages_name_the_fits_and_the_limit():
    p = lab.defaults()
    too_many = budget.sweep_verdict("svm", 100, 151, 2, p)
    assert too_many.message == ("A sweep of 151 fits is above the lab's limit of 150: use "
                                "fewer points or repeats.")
    assert budget.sweep_verdict("svm", 100, 150, 2, p).ok
    each = budget.fit_cost("dank", 200, 2, p)
    long = budget.sweep_verdict("dank", 200, 30, 2, p, label="DANK", max_seconds=1.0)
    assert long.cost == budget.Cost(each.seconds * 30, each.bytes)
    assert long.message == (f"This sweep (30 fits of DANK on 200 points) would take about "
                            f"{budget._fmt_seconds(each.seconds * 30)}, above the lab's "
                            f"1.0 s for a sweep: use fewer points, repeats or samples, or a "
                            f"faster solver.")
    patient = budget.sweep_verdict("dank", 200, 30, 2, p)
    assert patient.level == "patient" and patient.message == (
        f"This sweep runs 30 fits, about {budget._fmt_seconds(each.seconds * 30)} in all.")
    live = budget.sweep_verdict("svm", 50, 2, 2, p)
    assert live.level == "live" and live.message == ""
    # a sample above the live budget is swept on its live-size subsample
    big = budget.sweep_verdict("dank", 5000, 3, 2, p)
    one = budget.fit_verdict("dank", 5000, 2, p)
    assert (big.n_max, big.n_fit) == (one.n_max, one.n_fit)
    assert big.cost.seconds == pytest.approx(3 * budget.fit_cost("dank", one.n_max, 2, p).seconds)


def test_grid_resolution_steps_down_by_ten_exactly_at_the_memory_line():
    # three resolution² × n double arrays must fit in half the memory
    mem = 2 * 3 * 8 * 100 * 100 * 1000
    tight = budget.Budget(memory=mem)
    assert budget.grid_resolution(1000, budget=tight) == 100
    assert budget.grid_resolution(1001, budget=tight) == 90
    assert budget.grid_resolution(1000, requested=55, budget=tight) == 55
    assert budget.grid_resolution(1000, requested=3, budget=tight) == 10
    assert budget.grid_resolution(10 ** 9, budget=tight) == 10
    assert budget.grid_resolution(0, requested=40, budget=tight) == 40
    assert budget.grid_resolution(0) == 100


def test_the_decomposition_study_costs_the_exact_fit_and_every_v():
    p = lab.defaults()
    v = budget.study_verdict(300, 4, 2, p)
    one = budget.fit_cost("dank", 300, 2, {**p, "solver": "apg"})
    factor = 1 + 1 / 2 + 1 / 3 + 1 / 4
    assert v.cost.seconds == pytest.approx(one.seconds * factor)
    assert v.cost.bytes == one.bytes + 8 * 10 * 300 * 300
    assert v.ok and v.message == ""
    assert budget.study_verdict(300, 1, 2, p).cost.seconds == pytest.approx(one.seconds)
    assert budget.study_verdict(300, 0, 2, p).cost.seconds == pytest.approx(one.seconds)
    # the solver is always the accelerated one: a slow solver in the params changes nothing
    assert budget.study_verdict(300, 4, 2, {**p, "solver": "pg"}).cost == v.cost
    assert budget.study_verdict(300, 4).cost == v.cost
    big = budget.study_verdict(20_000, 4, 2, p)
    assert not big.ok and big.message.startswith(
        "The decomposition study on 20,000 points would need about ")
    assert "of memory, above the lab's budget (500 MB, 20.0 s)" in big.message
    assert budget.study_verdict(big.n_fit, 4, 2, p).ok
    assert not budget.study_verdict(big.n_fit + 1, 4, 2, p).ok
    assert big.n_max == big.n_fit
    slow = budget.Budget(seconds=0.01, patient_seconds=0.05, memory=budget.DEFAULT.memory)
    s = budget.study_verdict(600, 4, 2, p, budget=slow)
    assert not s.ok and f"about {budget._fmt_seconds(s.cost.seconds)}, above" in s.message
    assert "(500 MB, 50 ms)" in s.message
    lvl = budget.study_verdict(big.n_fit, 4, 2, p)
    assert lvl.level == ("live" if lvl.cost.seconds <= budget.DEFAULT.seconds else "patient")
    assert budget.study_verdict(40, 2, 2, p).level == "live"


def test_grid_resolution_never_goes_below_its_floor():
    """A requested resolution that is not a multiple of 10 stepped below the floor of 10
    on a large sample (11 → 1, 15 → 5, 19 → 9)."""
    assert [budget.grid_resolution(10 ** 9, requested=r) for r in (11, 15, 19, 25, 100)] == \
        [10, 10, 10, 10, 10]
    assert budget.grid_resolution(10 ** 9, requested=10) == 10
    # one training point counts as one (and so does none)
    one = budget.Budget(memory=2 * 3 * 8 * 100 * 100)
    assert budget.grid_resolution(1, budget=one) == 100
    assert budget.grid_resolution(0, budget=one) == 100
    assert budget.grid_resolution(2, budget=one) == 70          # 24 · 70² · 2 ≤ 240,000


def test_study_sizes_are_the_largest_that_fit_found_by_bisection():
    """n_fit of the decomposition study against a plain scan, an int, at least 1 and
    at most 10,000,000; the iteration cap scales its time."""
    p = lab.defaults()
    v = budget.study_verdict(20_000, 4, 2, p)
    factor = 1 + 1 / 2 + 1 / 3 + 1 / 4

    def fits(m):
        c = budget.fit_cost("dank", m, 2, {**p, "solver": "apg"})
        return (c.seconds * factor <= budget.DEFAULT.patient_seconds and
                c.bytes + 80 * m * m <= budget.DEFAULT.memory)
    m = 1
    while fits(m + 1):
        m += 1
    assert v.n_fit == m and type(v.n_fit) is int
    nothing = budget.Budget(seconds=0.0, patient_seconds=0.0)
    assert budget.study_verdict(100, 4, 2, p, budget=nothing).n_fit == 1
    everything = budget.Budget(seconds=1e300, patient_seconds=1e300, memory=10 ** 40)
    assert budget.study_verdict(100, 4, 2, p, budget=everything).n_fit == 10_000_000
    capped = budget.study_verdict(300, 4, 2, {**p, "max_iter": 5000})
    assert capped.cost.seconds == pytest.approx(
        2.5 * budget.study_verdict(300, 4, 2, p).cost.seconds)


SLOW = {"max_iter": 5000, "solver": "pg"}


def test_map_and_sweep_carry_the_fits_own_verdict_with_the_given_params_and_budget():
    p = {**lab.defaults(), **SLOW}
    mine = budget.Budget(seconds=0.2, patient_seconds=5.0, memory=200 * budget.MB)
    one = budget.fit_verdict("dank", 300, 2, p, mine)
    each = budget.fit_cost("dank", one.n_max, 2, p)
    for v in (budget.map_verdict("dank", 300, (2, 2), 1, 2, p, mine, max_seconds=1e9),
              budget.map_verdict("dank", 300, (40, 30), 1, 2, p, mine),
              budget.map_verdict("dank", 300, (3, 3), 3, 2, p, mine, max_seconds=1e-9),
              budget.sweep_verdict("dank", 300, 4, 2, p, mine, max_seconds=1e9),
              budget.sweep_verdict("dank", 300, 151, 2, p, mine),
              budget.sweep_verdict("dank", 300, 4, 2, p, mine, max_seconds=1e-9)):
        assert (v.n_max, v.n_fit) == (one.n_max, one.n_fit)
        assert v.cost.bytes == each.bytes
    assert budget.map_verdict("dank", 300, (2, 2), 1, 2, p, mine, max_seconds=1e9
                              ).cost.seconds == pytest.approx(4 * each.seconds)
    assert budget.sweep_verdict("dank", 300, 4, 2, p, mine, max_seconds=1e9
                                ).cost.seconds == pytest.approx(4 * each.seconds)


def test_map_messages_word_for_word():
    p = lab.defaults()
    v = budget.map_verdict("svm", 100, (40, 30), 1, 2, p, label="SVM")
    assert v.message == ("This map (40 × 30 values × 1 seed = 1200 fits of SVM on 100 "
                         "points) is above the lab's limit of 1,125 fits: use fewer points "
                         "per parameter or fewer seeds.")
    slow = budget.map_verdict("svm", 100, (3, 3), 2, 2, p, label="SVM", max_seconds=1e-9)
    t = budget._fmt_seconds(slow.cost.seconds)
    assert slow.message == (f"This map (3 × 3 values × 2 seeds = 18 fits of SVM on 100 "
                            f"points) would take about {t}, above the lab's 0 ms for a map: "
                            "use fewer points per parameter, fewer seeds or a smaller "
                            "sample size.")


def test_limits_are_inclusive_at_equality():
    """A cost exactly at a limit is within it (≤), for maps, sweeps and the study."""
    p = lab.defaults()
    m = budget.map_verdict("dank", 200, (3, 3), 2, 2, p)
    at = budget.Budget(seconds=m.cost.seconds)
    assert budget.map_verdict("dank", 200, (3, 3), 2, 2, p, at).level == "live"
    assert budget.map_verdict("dank", 200, (3, 3), 2, 2, p,
                              max_seconds=m.cost.seconds).ok
    s = budget.sweep_verdict("dank", 200, 9, 2, p)
    assert budget.sweep_verdict("dank", 200, 9, 2, p, max_seconds=s.cost.seconds).ok
    assert budget.sweep_verdict("dank", 200, 9, 2, p, budget.Budget(seconds=s.cost.seconds)
                                ).level == "live"
    # the default for a sweep is one minute: 150 fits of 60.45 s in all are refused
    over = budget.sweep_verdict("svm", 2318, 150, 2, p)
    assert 60.0 < over.cost.seconds < 61.0 and not over.ok
    st = budget.study_verdict(300, 4, 2, p)
    big = 10 ** 12
    on_time = budget.Budget(seconds=st.cost.seconds, patient_seconds=st.cost.seconds,
                            memory=big)
    v = budget.study_verdict(300, 4, 2, p, on_time)
    assert v.ok and v.level == "live" and v.n_fit == 300 and v.n_max == 300
    on_memory = budget.Budget(seconds=1e9, patient_seconds=1e9, memory=st.cost.bytes)
    assert budget.study_verdict(300, 4, 2, p, on_memory).n_fit == 300
    assert budget.study_verdict(300, 4, 2, p, on_memory).ok
    # at the memory line but over time: the reason given is the time
    late = budget.Budget(seconds=0.0, patient_seconds=st.cost.seconds / 2,
                         memory=st.cost.bytes)
    r = budget.study_verdict(300, 4, 2, p, late)
    assert not r.ok and "of memory" not in r.message and "would need about " in r.message
    assert r.n_max == r.n_fit < 300


@pytest.mark.parametrize("method, n, d, params, seconds, nbytes", [
    # t200 · (n/200)^p and 8 · (squares · n² + per_point · n + 4 · n · d), by hand
    ("dank", 400, 2, {}, 0.06 * 4, 8 * (12 * 400 ** 2 + 4 * 400 * 2)),
    ("dank", 400, 2, {"max_iter": 1000}, 0.06 * 4, 8 * (12 * 400 ** 2 + 4 * 400 * 2)),
    ("dank", 400, 2, {"max_iter": None}, 0.06 * 4, 8 * (12 * 400 ** 2 + 4 * 400 * 2)),
    # DANK-SVR by its route: Newton up to 300 training points (no iteration factor),
    # the accelerated solver above (and when asked for), with the iteration factor
    ("dank_svr", 200, 1, {"max_iter": 4000}, 0.23, 8 * (12 * 200 ** 2 + 4 * 200)),
    ("dank_svr", 280, 1, {}, 0.23 * 1.4 ** 1.53, None),
    ("dank_svr", 400, 1, {}, 0.25 * 4, None),
    ("dank_svr", 400, 1, {"solver": "newton"}, 0.23 * 2 ** 1.53, None),
    ("dank_svr", 200, 1, {"solver": "apg", "max_iter": 4000}, 0.25 * 2, None),
    ("something-new", 500, 3, {}, 0.1 * 2.5 ** 2, 8 * (4 * 500 ** 2 + 4 * 500 * 3)),
    ("lab_rbf", 200, 2, {}, 0.1, 8 * (0.5 * 200 ** 2 + 120 * 200 + 4 * 200 * 2)),
    ("lab_rbf_reg", 200, 4, {"n_support": 60}, 0.1 * 2 * 2,
     8 * (0.5 * 200 ** 2 + 480 * 200 + 4 * 200 * 4)),
    ("lab_rbf", 400, 1, {"n_support": 3}, 0.1 * 2 * 0.2 * 1,
     8 * (0.5 * 400 ** 2 + 60 * 400 + 4 * 400)),
    ("knpl", 200, 2, {"solver": "pg", "max_iter": 5000}, 0.04, 8 * (8 * 200 ** 2 + 1600)),
    # DANK's slow solvers: iterations × 1 ms × (n/200)², twice for DANK-SVR
    ("dank", 200, 2, {"solver": "nesterov", "max_iter": 500}, 0.5, None),
    ("dank", 200, 2, {"solver": "nesterov-monotone"}, 0.7, None),
    ("dank", 400, 2, {"solver": "pg"}, 2000 * 1e-3 * 4, None),
    ("dank_svr", 200, 2, {"solver": "pg", "max_iter": 3000}, 6.0, None),
    ("dank_svr", 200, 2, {"solver": "nesterov", "max_iter": 0}, 2 * 1.1, None),
    ("dank", 200, 2, {"solver": "pg", "max_iter": None}, 2.0, None),
])
def test_cost_models_by_hand(method, n, d, params, seconds, nbytes):
    c = budget.fit_cost(method, n, d, params)
    assert c.seconds == pytest.approx(seconds)
    if nbytes is not None:
        assert c.bytes == int(nbytes)


def test_cost_edges():
    assert budget.fit_cost("svm", 0) == budget.fit_cost("svm", 1)
    assert budget.fit_cost("svm", 1).bytes == 8 * (1 + 8)
    assert budget.fit_cost("dank", 300) == budget.fit_cost("dank", 300, 2, {})
    assert budget._iteration_factor("dank_svr", {"max_iter": 4000}) == 2.0
    assert budget._iteration_factor("knpl", {"max_iter": 4000}) == 1.0
    assert budget._dank_seconds("dank", 200, {}) is None            # "auto": apg
    assert budget._dank_seconds("knpl", 200, {"solver": "pg"}) is None


def test_fit_verdict_messages_and_sizes_word_for_word():
    p = {**lab.defaults(), "solver": "pg", "max_iter": 300}
    mine = budget.Budget(seconds=0.1, patient_seconds=1.0, memory=100 * budget.MB)
    n_max = budget._largest_n("dank", 2, p, 0.1, 100 * budget.MB)
    n_fit = budget._largest_n("dank", 2, p, 1.0, 100 * budget.MB)
    assert (n_max, n_fit) == (115, 365)               # 0.3 s · (n/200)² ≤ 0.1 s, 1 s
    live = budget.fit_verdict("dank", 100, 2, p, mine)
    assert live == budget.Verdict("live", budget.fit_cost("dank", 100, 2, p), 115, 365)
    pat = budget.fit_verdict("dank", 300, 2, p, mine, label="DANK")
    assert pat.level == "patient" and (pat.n_max, pat.n_fit) == (115, 365)
    assert pat.cost == budget.fit_cost("dank", 300, 2, p)
    assert pat.message == ("DANK on 300 points takes about 675 ms; it stays live (under "
                           "100 ms) up to about 115 points.")
    assert budget.fit_verdict("dank", 300, 2, p, mine).message.startswith("dank on 300")
    slow = budget.fit_verdict("dank", 400, 2, p, mine, label="DANK")
    assert slow.message == (
        "DANK on 400 training points would need about 1.2 s, above the lab's budget "
        "(100 MB, 1.0 s per fit), so it was not started. Use at most 365 points (lower the "
        "sample size, or upload fewer rows). DANK's k-means decomposition (Scaling page) "
        "fits large samples in parts.")
    assert (slow.n_max, slow.n_fit) == (115, 365) and slow.cost.seconds == pytest.approx(1.2)
    big = budget.fit_verdict("svm", 4000, 2, {}, mine, label="SVM")
    assert big.message.startswith("SVM on 4,000 training points would need about 122 MB of "
                                  "memory, above the lab's budget") and \
        big.message.endswith("upload fewer rows).")
    # exactly at each limit is within it
    at = budget.fit_cost("dank", 300, 2, p)
    edge = budget.Budget(seconds=at.seconds, patient_seconds=at.seconds, memory=at.bytes)
    assert budget.fit_verdict("dank", 300, 2, p, edge).level == "live"
    edge2 = budget.Budget(seconds=0.0, patient_seconds=at.seconds, memory=at.bytes)
    assert budget.fit_verdict("dank", 300, 2, p, edge2).level == "patient"
    assert budget._largest_n("dank", 2, p, at.seconds, at.bytes) == 300
    assert budget._largest_n("dank", 2, p, 0.0, 0) == 1
    assert budget._largest_n("svm", 2, {}, 1e300, 10 ** 40) == 10_000_000
    assert type(budget._largest_n("svm", 2, {}, 1.0, 10 ** 9)) is int


def test_defaults_are_two_dimensions_and_time_is_the_reason_at_the_memory_line():
    p = lab.defaults()
    assert budget.fit_verdict("svm", 300) == budget.fit_verdict("svm", 300, 2)
    assert budget.map_verdict("svm", 300, (2, 2), 1) == budget.map_verdict("svm", 300, (2, 2),
                                                                           1, 2)
    assert budget.sweep_verdict("svm", 300, 3) == budget.sweep_verdict("svm", 300, 3, 2)
    at = budget.fit_cost("dank", 300, 2, p)
    late = budget.Budget(seconds=0.0, patient_seconds=at.seconds / 2, memory=at.bytes)
    v = budget.fit_verdict("dank", 300, 2, p, late, label="DANK")
    assert not v.ok and v.message.startswith(
        f"DANK on 300 training points would need about {budget._fmt_seconds(at.seconds)}, ")


def test_dank_svr_cost_follows_the_solver_auto_runs():
    """"auto" is Newton's method up to nplk_core's switch and the accelerated solver above
    it: the budget switches at the same size, its time grows with n across the switch
    (the bisection of the live size needs that), and the page's default size is live."""
    from nplk_core.dank import AUTO_SVR_NEWTON_MAX_N as switch
    assert budget._dank_svr_route(switch, {}) == "newton"
    assert budget._dank_svr_route(switch + 1, {}) == "apg"
    assert budget._dank_svr_route(50, {"solver": "apg"}) == "apg"
    assert budget._dank_svr_route(500, {"solver": "newton"}) == "newton"
    assert budget._dank_svr_route(200, {"solver": "pg"}) is None
    times = [budget.fit_cost("dank_svr", n, 1, {}).seconds for n in range(2, 1200)]
    assert all(b > a for a, b in zip(times, times[1:]))
    assert budget.fit_verdict("dank_svr", 140, 1, {}).level == "live"
