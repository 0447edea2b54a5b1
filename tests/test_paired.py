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
