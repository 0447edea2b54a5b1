"""The atlas's tables in words (``nplk_lab/model/atlas/atlas_report.py``): every count of the
README computed by hand from a small set of cells, every line of its tables, and the
committed README against the committed table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_report as R

ROOT = Path(__file__).resolve().parents[1]


def _cell(method, dataset, sigma, C, region, **kw):
    row = {"method": method, "dataset": dataset, "task": "classification", "sigma": sigma,
           "C": C, "region": region, "score_method": 0.9, "score_off": 0.8,
           "score_nn": 0.85, "score_plain": 0.7, "score_cv": 0.95, "agree_method": 0.99,
           "agree_plain": 0.8}
    for c in ("gain", "off_gain"):
        row.update({f"{c}_mean": 1.0, f"{c}_lo": 0.5, f"{c}_hi": 1.5})
    row.update(kw)
    return row


CELLS = [
    _cell("dank", "clowns", 1.0, 1.0, "matrix_alone", off_gain_lo=2.0, off_gain_mean=3.0,
          off_gain_hi=4.0, off_vs_plain10_verdict="holds", off_vs_plain100_verdict="fails",
          off_vs_cv_verdict="fails"),
    _cell("dank", "clowns", 2.0, 1.0, "matrix_alone", off_gain_lo=0.1,
          off_vs_plain10_verdict="holds", off_vs_plain100_verdict="holds",
          off_vs_cv_verdict="fails"),
    _cell("dank", "moons", 1.0, 1.0, "nn_rule"),
    _cell("knpl", "clowns", 1.0, 1.0, "none", gain_mean=float("nan")),
    _cell("lab_rbf_reg", "chirp", 1.0, 1.0, "matrix_alone", task="regression",
          off_vs_plain10_verdict="holds", off_vs_plain100_verdict="holds",
          off_vs_cv_verdict="holds"),
]


def test_region_counts_per_method_and_data_set():
    c = R.region_counts(CELLS)
    assert c[("dank", "clowns")] == {"matrix_alone": 2}
    assert c[("dank", "moons")] == {"nn_rule": 1}
    assert set(c) == {("dank", "clowns"), ("dank", "moons"), ("knpl", "clowns"),
                      ("lab_rbf_reg", "chirp")}


def test_larger_c_counts_each_baseline_apart():
    assert R.larger_c(CELLS[:4]) == {"cells": 2, "beats_plain10": 2, "beats_plain100": 1,
                                     "beats_cv": 0}
    assert R.larger_c([]) == {"cells": 0, "beats_plain10": 0, "beats_plain100": 0,
                              "beats_cv": 0}


def test_headline_table_rows_and_the_largest_gain_with_the_matrix_off():
    md = R.headline_markdown(CELLS).splitlines()
    assert md[0].startswith("| method | data set | cells | matrix alone | 1-NN rule |")
    assert md[1] == "|" + "---|" * 10
    # the cell with the highest lower bound of off − plain: σ = 1 (lo 2.0), not σ = 2
    assert md[2] == ("| DANK | clowns | 2 | 2 | 0 | 0 | 0 | 0 | 0 | "
                     "σ = 1, C = 1: +3.0 [+2.0, +4.0] |")
    assert md[3].startswith("| DANK | moons | 1 | 0 | 1 | 0 | 0 | 0 | 0 |")
    assert md[5].startswith("| LAB RBF | chirp | 1 | 1 |")


def test_the_one_line_per_cell_table():
    md = R.headline_markdown(CELLS[:1], cells_only=True).splitlines()
    assert md[1] == "|" + "---|" * 13
    assert md[2] == ("| DANK | clowns | 1 | 1 | 0.900 | 0.800 | 0.850 | 0.700 | 0.950 | "
                     "+1.0 [+0.5, +1.5] | +3.0 [+2.0, +4.0] | 0.99 / 0.80 | matrix alone |")
    assert R._pm({"gain_mean": float("nan")}, "gain") == "—"
    assert R._f(float("nan")) == "—" and R._f(0.12345, 2) == "0.12"


def test_totals_per_method_with_the_data_sets_where_the_matrix_alone_helps():
    md = R.totals_markdown(CELLS).splitlines()
    assert md[2] == "| DANK | 3 | 2 | 1 | 0 | 0 | 0 | 0 | 1 of 2: clowns |"
    assert md[3] == "| KNPL | 1 | 0 | 0 | 0 | 0 | 0 | 1 | 0 of 1: — |"
    assert md[4] == "| LAB RBF | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 1 of 1: chirp |"
    assert len(md) == 5                               # no row for a method not measured


def test_write_report_says_how_it_was_made_and_counts_larger_c(tmp_path):
    info = {"seconds": 12.3, "backend": "loky", "workers": 2, "fits": 50}
    path = tmp_path / "README.md"
    R.write_report(CELLS, info, path, command="--workers 2", seeds=range(10),
                   note="A note.")
    text = path.read_text()
    assert text.startswith("# The atlas: where a learned kernel's gain holds\n\nMade by "
                           "`python -m nplk_lab.model.atlas --workers 2` in 12 s on loky "
                           "(2 workers), 50 fits; data seeds 0–9.")
    assert "A note." in text
    assert ("Of the 2 cells of DANK and KNPL where the model with its learned matrix "
            "switched off beats the plain baseline with the same σ and C, it still beats "
            "the plain baseline with 10 × C in 2, with 100 × C in 1, and the tuned "
            "baseline in 0. LAB RBF is counted apart, since its switched-off model is the "
            "paper's model refitted with one shared width: 1 cells, of which it beats the "
            "plain SVR with 10 × C in 1, with 100 × C in 1 and the tuned SVR in 1.") in text
    assert "Data sets: clowns (clowns, lab); moons (moons, lab); chirp (chirp, lab)." in text
    assert "## The same cells at other draws" not in text
    held = [{**c, "region": "none"} if c["sigma"] == 2.0 else c for c in CELLS]
    R.write_report(CELLS, info, path, command="", seeds=range(10), held=held)
    text = path.read_text()
    assert "## The same cells at other draws of the data" in text
    assert "Of the 5 cells measured at both sets of draws, 1 change region" in text


COMMITTED = A.load_atlas()


@pytest.mark.skipif(not COMMITTED, reason="no committed atlas")
def test_the_committed_readme_is_the_committed_tables_in_words():
    out = ROOT / A.DEFAULT_OUT
    text = (out / "README.md").read_text()
    assert R.totals_markdown(COMMITTED) in text
    assert R.headline_markdown(COMMITTED) in text
    info = json.loads((out / "run.json").read_text())
    assert info["seeds"] == list(range(10)) and info["fits"] == 10 * len(COMMITTED)
    held = A.load_atlas(out / "held-out" / "atlas.csv")
    held_info = json.loads((out / "held-out" / "run.json").read_text())
    assert held_info["seeds"] == list(range(10, 20))
    assert len(held) == len(COMMITTED)


@pytest.mark.skipif(not COMMITTED, reason="no committed atlas")
@pytest.mark.parametrize("where", ["", "held-out"])
def test_the_committed_readmes_are_written_again_word_for_word(tmp_path, where):
    """Each committed README is exactly what write_report makes of the committed
    tables and run.json (``python -m nplk_lab.model.atlas --report``)."""
    out = ROOT / A.DEFAULT_OUT / where
    info = json.loads((out / "run.json").read_text())
    held = A.load_atlas(out / "held-out" / "atlas.csv") if not where else []
    R.write_report(A.load_atlas(out / "atlas.csv"), info, tmp_path / "README.md",
                   command=info["command"], seeds=info["seeds"], note=info.get("note", ""),
                   held=held)
    assert (tmp_path / "README.md").read_text() == (out / "README.md").read_text()


def test_the_largest_gain_with_the_matrix_off_skips_a_cell_without_one():
    rows = [_cell("dank", "clowns", 1.0, 1.0, "none", off_gain_lo=float("nan"),
                  off_gain_mean=float("nan"), off_gain_hi=float("nan")),
            _cell("dank", "clowns", 2.0, 1.0, "none", off_gain_lo=-3.0, off_gain_mean=-1.0,
                  off_gain_hi=1.0)]
    line = R.headline_markdown(rows).splitlines()[2]
    assert line.endswith("| σ = 2, C = 1: -1.0 [-3.0, +1.0] |")


def test_one_method_is_named_alone_and_no_note_adds_nothing(tmp_path):
    info = {"seconds": 1.0, "backend": "loky", "workers": 1, "fits": 2}
    R.write_report(CELLS[:2], info, tmp_path / "README.md", command="", seeds=[0, 1])
    text = (tmp_path / "README.md").read_text()
    assert "Of the 2 cells of DANK where the model" in text
    assert "`nplk_lab/model/atlas/atlas.py` says what every column means.\n" in text
    R.write_report(CELLS[:4], info, tmp_path / "README.md", command="", seeds=[0, 1])
    assert "Of the 2 cells of DANK and KNPL where" in (tmp_path / "README.md").read_text()


def test_a_table_of_lab_rbf_alone_names_no_learned_method_and_nested_folders_are_made(
        tmp_path):
    info = {"seconds": 1.0, "backend": "loky", "workers": 1, "fits": 1}
    path = tmp_path / "a" / "b" / "README.md"
    R.write_report(CELLS[4:], info, path, command="", seeds=[0])
    assert "Of the 0 cells of no method where the model" in path.read_text()


def test_the_smooth_rules_section_counts_where_it_helps_beyond_f_off():
    rows = [_cell("dank", "clowns", s, 1.0, "none", smooth_region=reg,
                  smooth_vs_off_verdict=v, score_smooth=0.9)
            for s, reg, v in ((1.0, "no_copy", "holds"), (2.0, "no_copy", "inconclusive"),
                              (4.5, "worse", "holds"), (10.0, "none", "holds"))]
    md = R.smooth_markdown(rows)
    (line,) = [ln for ln in md.splitlines() if ln.startswith("| DANK | clowns |")]
    assert line == "| DANK | clowns | 4 | 2 | 0 | 1 | 1 | 1 |"
    assert R.smooth_markdown(CELLS[:1]) == ""          # a table without the rule
