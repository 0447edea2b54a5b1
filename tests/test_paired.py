"""Paired differences, their 95 % intervals and the verdicts built on them
(nplk_lab.model.paired), against scipy's paired t-test and hand values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from nplk_lab.model import paired as P


def test_interval_matches_scipys_paired_t_test():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.8, 0.05, 10), rng.normal(0.78, 0.05, 10)
    p = P.paired(a, b, label="a − b")
    ci = stats.ttest_rel(a, b).confidence_interval(0.95)
    assert p.mean == pytest.approx(np.mean(a - b))
    assert (p.lo, p.hi) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert p.n == 10 and p.wins + p.ties + p.losses == 10


def test_corrected_resampled_variance_widens_by_hand_factor():
    d = np.array([1.0, 2.0, 0.0, 3.0, 1.0, 2.0, 2.0, 1.0, 0.0, 3.0])
    plain = P.paired(d, np.zeros(10), label="d")
    corr = P.paired(d, np.zeros(10), label="d", test_fraction=0.3 / 0.7)
    # half width scales with sqrt(1/J + n_test/n_train) / sqrt(1/J)
    ratio = math.sqrt(0.1 + 0.3 / 0.7) / math.sqrt(0.1)
    assert (corr.hi - corr.mean) == pytest.approx(ratio * (plain.hi - plain.mean))
    assert corr.corrected and not plain.corrected


@pytest.mark.parametrize("diffs, sign, verdict", [
    ([1, 2, 1.5, 2, 1, 1.2, 1.8, 2.2, 1.1, 1.4], 1, P.HOLDS),
    ([-1, -2, -1.5, -2, -1, -1.2, -1.8, -2.2, -1.1, -1.4], 1, P.FAILS),   # a loss
    ([1, -1, 2, -2, 0.5, -0.5, 1, -1, 0.1, -0.2], 1, P.INCONCLUSIVE),
    ([0] * 10, 1, P.FAILS),                                               # no difference
    ([-5, -6, -4, -5, -7, -5, -6, -4, -5, -6], -1, P.HOLDS),              # lower is better
])
def test_verdict_from_the_interval(diffs, sign, verdict):
    p = P.paired(np.asarray(diffs, float), np.zeros(len(diffs)), label="x", sign=sign)
    assert p.verdict == verdict


def test_equivalence_margin():
    small = P.paired([0.1, -0.1, 0.05, 0.0, -0.05, 0.1, 0.0, -0.1, 0.05, 0.0], np.zeros(10),
                     label="x", margin=0.5)
    assert small.verdict == P.HOLDS
    far = P.paired(np.full(10, 3.0) + np.linspace(0, 0.1, 10), np.zeros(10), label="x",
                   margin=0.5)
    assert far.verdict == P.FAILS


def test_a_single_pair_is_never_evidence():
    assert P.paired([0.9], [0.5], label="x").verdict == P.INCONCLUSIVE


def test_combine():
    assert P.combine([P.HOLDS, P.HOLDS]) == P.HOLDS
    assert P.combine([P.HOLDS, P.INCONCLUSIVE]) == P.INCONCLUSIVE
    assert P.combine([P.HOLDS, P.FAILS, P.INCONCLUSIVE]) == P.FAILS
    assert P.combine([]) == P.SHOWN
    assert [P.legacy_holds(v) for v in P.VERDICTS] == [True, False, None, None]


def test_text_names_interval_and_counts():
    p = P.paired([0.9, 0.8, 0.85], [0.8, 0.8, 0.8], label="m − b", unit="points", scale=100)
    t = p.text()
    assert t.startswith("m − b: +") and "points [" in t and "n = 3" in t
    assert "2 better / 1 equal / 0 worse" in t


def test_float_noise_is_a_tie_not_a_gain():
    """0.1 + 0.2 against 0.3 differs by 5.6e-17 at every pair: every pair is a tie, the
    interval is [0, 0] and the claim does not hold (without the all-ties clamp the zero
    spread gives [5.6e-17, 5.6e-17], which would 'hold')."""
    p = P.paired(np.full(5, 0.1 + 0.2), np.full(5, 0.3), label="x")
    assert (p.mean, p.lo, p.hi) == (0.0, 0.0, 0.0)
    assert (p.wins, p.ties, p.losses) == (0, 5, 0)
    assert p.verdict == P.FAILS
    one = P.paired([0.1 + 0.2], [0.3], label="x")
    assert (one.lo, one.hi) == (0.0, 0.0) and one.verdict == P.FAILS


def test_a_single_pair_has_an_infinite_interval_and_ties_use_a_relative_tolerance():
    one = P.paired([0.9], [0.5], label="x")
    assert one.mean == pytest.approx(0.4) and one.lo == -math.inf and one.hi == math.inf
    # the tie tolerance is 1e-12 of the largest difference: 1e-7 next to 1e6 is a tie
    big = P.paired([1e-7, 1e6, 0.0], [0.0, 0.0, 0.0], label="x")
    assert (big.wins, big.ties, big.losses) == (1, 2, 0)
    small = P.paired([1e-7, 0.5, 0.0], [0.0, 0.0, 0.0], label="x")
    assert (small.wins, small.ties, small.losses) == (2, 1, 0)
    lower = P.paired([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], label="x", sign=-1)
    assert (lower.wins, lower.ties, lower.losses) == (1, 1, 1)
    with pytest.raises(ValueError):
        P.paired([], [], label="x")


@pytest.mark.parametrize("diffs, sign, margin, verdict", [
    ([5, 6, 4, 5, 7, 5, 6, 4, 5, 6], -1, 0.0, P.FAILS),       # lower is better, all above
    ([0.1, 0.2, 0.15, 0.1, 0.12], 1, 0.15, P.INCONCLUSIVE),  # straddles the margin
    ([-3, -3.1, -2.9, -3.05, -2.95], 1, 0.5, P.FAILS),        # wholly below −margin
    ([0.4, 0.5, 0.45, 0.4, 0.5], 1, 0.5, P.INCONCLUSIVE),     # hi just above the margin
])
def test_verdicts_of_lower_is_better_and_equivalence(diffs, sign, margin, verdict):
    p = P.paired(np.asarray(diffs, float), np.zeros(len(diffs)), label="x", sign=sign,
                 margin=margin)
    assert p.verdict == verdict


def test_equivalence_holds_at_the_margin_itself():
    p = P.Paired("x", "", 3, 0.0, -0.5, 0.5, margin=0.5)
    assert p.verdict == P.HOLDS
    assert P.Paired("x", "", 3, 1.0, 0.6, 1.4, margin=0.5).verdict == P.FAILS
    assert P.Paired("x", "", 3, -1.0, -1.4, -0.6, margin=0.5).verdict == P.FAILS
    assert P.Paired("x", "", 3, 0.0, 0.0, 0.7, margin=0.5).verdict == P.INCONCLUSIVE
    assert P.Paired("x", "", 3, 0.0, -0.7, 0.0, margin=0.5).verdict == P.INCONCLUSIVE
    # without a margin: lo = 0 is not a gain, hi = 0 is not a gain either
    assert P.Paired("x", "", 3, 0.5, 0.0, 1.0).verdict == P.INCONCLUSIVE
    assert P.Paired("x", "", 3, -0.5, -1.0, 0.0).verdict == P.FAILS
    assert P.Paired("x", "", 3, -0.5, -1.0, 0.0, sign=-1).verdict == P.INCONCLUSIVE


def test_interval_level_and_scale():
    d = np.array([1.0, 2.0, 3.0, 4.0])
    p90 = P.paired(d, np.zeros(4), label="x", level=0.90, scale=10.0)
    half = stats.t.ppf(0.95, 3) * math.sqrt(np.var(10 * d, ddof=1) / 4)
    assert p90.mean == pytest.approx(25.0)
    assert (p90.lo, p90.hi) == (pytest.approx(25 - half), pytest.approx(25 + half))
    assert P.t_quantile(9) == pytest.approx(stats.t.ppf(0.975, 9))


def test_numbers_in_text_and_dict():
    assert [P._num(x) for x in (0.0, 123.4, -5.678, 0.1234, 0.001234, float("nan"))] == \
        ["0", "+123", "-5.68", "+0.123", "+0.0012", "nan"]
    assert [P._num(x) for x in (100.0, 1.0, 0.01, -0.009)] == \
        ["+100", "+1.00", "+0.010", "-0.009"]
    p = P.paired([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], label="L", unit="", sign=-1,
                 margin=0.2, test_fraction=0.5)
    d = p.as_dict()
    assert d["better"] == "lower" and d["margin"] == 0.2 and d["corrected"] is True
    assert (d["wins"], d["ties"], d["losses"]) == (0, 1, 2) and d["verdict"] == p.verdict
    assert d["mean"] == 1.0 and d["lo"] == float(f"{p.lo:.6g}") and d["n"] == 3
    assert d["hi"] == float(f"{p.hi:.6g}") and d["hi"] > d["mean"]
    assert d["label"] == "L" and d["unit"] == ""
    assert P.paired([1.0, 2.0], [0.0, 0.0], label="x", sign=1).as_dict()["better"] == \
        "higher"
    assert p.text() == (f"L: +1.00 [{P._num(p.lo)}, {P._num(p.hi)}] (95 % CI, n = 3, "
                        "split-corrected; 0 better / 1 equal / 2 worse)")
    assert P._round(float("inf")) == float("inf")


def test_the_tie_tolerance_and_two_pairs():
    # 1e-12 of at least one: 1.5e-12 is a win, 1e-12 exactly is a tie
    p = P.paired([1.5e-12, 0.0, 0.0], [0.0, 0.0, 0.0], label="x")
    assert (p.wins, p.ties, p.losses) == (1, 2, 0)
    q = P.paired([1e-12, -1e-12, 0.0], [0.0, 0.0, 0.0], label="x")
    assert (q.wins, q.ties, q.losses) == (0, 3, 0) and q.verdict == P.FAILS
    two = P.paired([1.0, 2.0], [0.0, 0.0], label="x")
    half = stats.t.ppf(0.975, 1) * math.sqrt(0.5 / 2)
    assert (two.lo, two.hi) == (pytest.approx(1.5 - half), pytest.approx(1.5 + half))
    with pytest.raises(ValueError) as err:
        P.paired([], [], label="x")
    assert str(err.value) == "paired() needs at least one pair."


def test_no_unit_by_default():
    p = P.paired([1.0, 2.0], [0.0, 0.0], label="x")
    assert p.unit == "" and p.text().startswith("x: +1.50 [")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_missing_score_is_no_evidence_not_a_tie(bad):
    p = P.paired([0.9, bad, 0.8], [0.8, 0.7, 0.8], label="x", scale=100.0)
    assert np.isnan(p.mean) and np.isnan(p.lo) and np.isnan(p.hi)
    assert p.verdict == P.INCONCLUSIVE and (p.wins, p.ties, p.losses) == (0, 0, 0)
    eq = P.paired([1.0, bad], [1.0, 1.0], label="x", margin=0.5)
    assert eq.verdict == P.INCONCLUSIVE


def test_the_text_says_split_corrected_only_for_corrected_splits():
    """The interval's text names the Nadeau–Bengio correction when it was used and adds
    nothing otherwise."""
    plain = P.paired([0.9, 0.8, 0.85], [0.8, 0.8, 0.8], label="gain", unit="points",
                     scale=100)
    assert plain.text() == (f"gain: +5.00 points [{P._num(plain.lo)}, {P._num(plain.hi)}] "
                            "(95 % CI, n = 3; 2 better / 1 equal / 0 worse)")
    split = P.paired([0.9, 0.8, 0.85], [0.8, 0.8, 0.8], label="gain", unit="points",
                     scale=100, test_fraction=0.25)
    assert "(95 % CI, n = 3, split-corrected; 2 better" in split.text()


@pytest.mark.parametrize("test_fraction", [None, 0.25])
def test_a_missing_score_keeps_what_the_comparison_is(test_fraction):
    """With a score missing the interval is NaN, but the comparison keeps its name,
    unit, number of pairs, direction, margin and correction (its text and the report's
    JSON still say what was compared)."""
    p = P.paired([3.0, float("nan")], [1.0, 1.0], label="iterations", unit="steps",
                 sign=-1, margin=0.5, test_fraction=test_fraction)
    assert (p.label, p.unit, p.n, p.sign, p.margin) == ("iterations", "steps", 2, -1, 0.5)
    assert p.corrected is (test_fraction is not None)
    d = p.as_dict()
    assert (d["label"], d["unit"], d["n"], d["better"], d["margin"]) == (
        "iterations", "steps", 2, "lower", 0.5)
    assert p.text().startswith("iterations: nan steps [nan, nan] (95 % CI, n = 2")
    assert ("split-corrected" in p.text()) is (test_fraction is not None)
