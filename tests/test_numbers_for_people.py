"""Numbers on a student's screen as a person writes them (figures.for_people): no
"2.6e-06", no "100000.0", and the value read back from what is written."""

from __future__ import annotations

import numpy as np
import pytest

import nplk_lab.figures as fg


def test_numbers_for_people_are_never_written_as_a_computer_writes_them():
    f = fg.for_people
    assert [f(v) for v in (0.0028, 56, 0.5, -0.002, 1.5e5, 1e5, 100000.0, 2.6e-6,
                           -9.2e-5, 0.00014, 0.001, 99999)] == [
        "0.0028", "56", "0.5", "−0.002", "1.5 × 10⁵", "10⁵", "10⁵", "2.6 × 10⁻⁶",
        "−9.2 × 10⁻⁵", "1.4 × 10⁻⁴", "0.001", "10⁵"]
    assert f(float("nan")) == "—" and f(0) == "0" and f(2.64e-6, 3) == "2.64 × 10⁻⁶"
    for v in np.geomspace(1e-9, 1e9, 200):
        text = f(v)
        assert "e" not in text and not text.endswith(".0"), (v, text)
        assert fg.from_people(text) == pytest.approx(v, rel=0.06), (v, text)  # read back
        assert fg.from_people(f(-v)) == pytest.approx(-v, rel=0.06), (-v, f(-v))


def test_a_number_written_for_people_reads_back_and_nothing_else_does():
    read = fg.from_people
    assert [read(t) for t in ("0.0028", "56", "−0.002", "1.5 × 10⁵", "10⁵", "−10⁵",
                              "2.6 × 10⁻⁶", "10", "2100", "100", " 7 ")] == pytest.approx(
        [0.0028, 56, -0.002, 1.5e5, 1e5, -1e5, 2.6e-6, 10, 2100, 100, 7])
    for bad in ("", "×", "10⁵ apples", "1.5 × 10", "e5", "1,5"):
        with pytest.raises(ValueError):
            read(bad)
