"""Filling the smooth rule's column of a committed atlas (``python -m
nplk_lab.model.atlas.atlas_fill``): the filled values are those a full measurement gives, the
other columns and methods stay as they were, a refit that scores otherwise is reported
and left empty, and the report keeps how the table was made."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_fill as AF

CELLS = [("dank", 10.0, 10.0), ("knpl", 1.0, 1.0), ("onk", 1.0, 1.0)]


@pytest.fixture(scope="module")
def measured():
    """Two seeds of the clowns measured in full (smooth column included)."""
    return A.measure_set("clowns", 0, CELLS) + A.measure_set("clowns", 1, CELLS)


def _committed(rows, tmp_path, **change):
    """The rows as a table measured before the smooth column: written without it."""
    old = [{k: v for k, v in r.items() if k not in ("score_smooth", "agree_smooth")}
           for r in rows]
    for r in old:
        r.update(change)
    A.write_csv(old, [c for c in A.SEED_COLUMNS if "smooth" not in c],
                tmp_path / "seeds.csv.gz")
    (tmp_path / "README.md").write_text("# The atlas\n\nMade by an earlier run, long ago.\n")
    return old


@pytest.mark.slow
def test_the_filled_column_is_what_a_full_measurement_gives(measured, tmp_path):
    _committed(measured, tmp_path)
    assert set(AF.missing(A.read_csv(tmp_path / "seeds.csv.gz"))) == {("clowns", 0),
                                                                     ("clowns", 1)}
    assert AF.main(["--out", str(tmp_path), "--workers", "1"]) == 0
    back = A.read_csv(tmp_path / "seeds.csv.gz")
    full = {(r["method"], r["seed"]): r for r in measured}
    for r in back:
        want = full[(r["method"], int(r["seed"]))]
        assert r["score_method"] == pytest.approx(want["score_method"], abs=1e-6)
        if r["method"] == "onk":
            assert math.isnan(r["score_smooth"])
        else:
            assert r["score_smooth"] == pytest.approx(want["score_smooth"], abs=1e-6)
            assert r["agree_smooth"] == pytest.approx(want["agree_smooth"], abs=1e-6)
    assert AF.missing(back) == {}
    cells = {r["method"]: r for r in A.read_csv(tmp_path / "atlas.csv")}
    # the summary is the table's as written (a filled score at full precision beside
    # columns read at six digits would make equal scores differ by 1e-7)
    again = {r["method"]: r for r in A.summarize(back)}
    for m in ("dank", "knpl"):
        for c in A.SMOOTH_COMPARISONS:
            assert cells[m][f"{c}_verdict"] == again[m][f"{c}_verdict"]
            assert cells[m][f"{c}_mean"] == pytest.approx(again[m][f"{c}_mean"], rel=1e-5)
    assert cells["dank"]["smooth_region"] in A.SMOOTH_REGIONS
    assert not cells["onk"]["smooth_region"]
    readme = (tmp_path / "README.md").read_text()
    assert "Made by an earlier run, long ago. The smooth rule's columns were added by" in readme
    assert "## Under the smooth rule" in readme and "| DANK | clowns | 1 |" in readme


@pytest.mark.slow
def test_a_refit_that_scores_otherwise_is_reported_and_left_empty(measured, tmp_path):
    old = _committed(measured, tmp_path)
    rows = A.read_csv(tmp_path / "seeds.csv.gz")
    dank0 = next(r for r in rows if r["method"] == "dank" and r["seed"] == 0)
    dank0["score_method"] = float(dank0["score_method"]) - 0.5
    filled = AF.fill_set("clowns", 0, [("dank", 10.0, 10.0)])
    problems, largest = AF.merge(rows, filled)
    assert len(problems) == 1 and "not filled" in problems[0] and largest == 0.0
    assert math.isnan(float(dank0.get("score_smooth", np.nan)))
    assert len(old) == len(rows)


def test_missing_skips_failed_fits_and_methods_without_the_rule():
    rows = [{"method": "dank", "dataset": "moons", "sigma": 1.0, "C": 1.0, "seed": 3,
             "error": ""},
            {"method": "dank", "dataset": "moons", "sigma": 2.0, "C": 1.0, "seed": 3,
             "error": "ValueError: no"},
            {"method": "onk", "dataset": "moons", "sigma": 1.0, "C": 1.0, "seed": 3,
             "error": ""},
            {"method": "knpl", "dataset": "moons", "sigma": 1.0, "C": 1.0, "seed": 3,
             "error": "", "score_smooth": 0.9}]
    assert AF.missing(rows) == {("moons", 3): [("dank", 1.0, 1.0)]}
