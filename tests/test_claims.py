"""Every general sentence the lab says (``nplk_lab/model/claims.py``): its numbers are
the ones the committed atlas gives at data seeds 0–9 and the held-out table at 10–19, its
check holds on both, it rests on no cell whose region differs between them, it stands
verbatim where it is said, and its check can fail."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np
import pytest

from nplk_lab.model import claims as C
from nplk_lab.model import presets as pr
from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_words as AW

ROOT = Path(__file__).resolve().parents[1]
ATLAS = A.load_atlas()
HELD = A.load_atlas(ROOT / A.DEFAULT_OUT / "held-out" / "atlas.csv")
needs_tables = pytest.mark.skipif(not (ATLAS and HELD), reason="no committed atlas")


def _words(text: str) -> str:
    return " ".join(text.split())


@needs_tables
@pytest.mark.parametrize("claim", C.CLAIMS, ids=lambda c: c.key)
def test_every_claim_holds_on_the_atlas_and_the_held_out_draws(claim):
    assert claim.check(ATLAS, HELD) == []


@needs_tables
@pytest.mark.parametrize("claim", C.CLAIMS, ids=lambda c: c.key)
def test_every_number_in_a_sentence_is_the_tables(claim):
    """The committed numbers are the ones the two tables give: a changed table changes
    the sentence (``python -m nplk_lab.model.atlas --claims`` prints the new numbers) or fails
    here."""
    assert claim.values(ATLAS, HELD) == C.NUMBERS.get(claim.key, {})
    assert claim.render(ATLAS, HELD) == C.TEXT[claim.key]


@needs_tables
@pytest.mark.parametrize("claim", [c for c in C.CLAIMS if c.cells], ids=lambda c: c.key)
def test_no_sentence_rests_on_an_unsettled_cell(claim):
    moved = AW.unsettled(ATLAS, HELD)
    assert not [c for c in claim.cells if c in moved]


@needs_tables
def test_the_held_out_table_is_every_cell_at_other_draws():
    assert len(HELD) == len(ATLAS)
    pairs = AW.pair_cells(ATLAS, HELD)
    assert len(pairs) == len(ATLAS)
    assert all(h["n_seeds"] == 10 for _, h in pairs.values())
    for m, d, s, c in C.CLAIM_CELLS:
        held, main = C.cell(HELD, m, d, s, c), C.cell(ATLAS, m, d, s, c)
        assert held["score_method"] != main["score_method"]


@needs_tables
def test_a_check_fails_when_its_numbers_say_otherwise():
    for key, field, value in (("knpl_sandwich", "off_gain_verdict", "holds"),
                              ("dank_clowns", "agree_method", 0.80),
                              ("dank_clowns", "cv_gap_mean", -1.0),
                              ("dank_svr_harmonic", "method_vs_nn_hi", 1.0),
                              ("sandwich_wide", "off_vs_cv_verdict", "holds"),
                              ("readme_defaults", "method_vs_off_verdict", "inconclusive"),
                              ("presets_rule", "region", "matrix_alone"),
                              ("knpl_sandwich_doc", "agree_method", 0.95)):
        claim = next(c for c in C.CLAIMS if c.key == key)
        broken = copy.deepcopy(HELD)
        for r in broken:
            r[field] = value
        assert claim.check(ATLAS, broken), key
    for key in ("classification_nn", "nn_help", "sensitivity_rule"):
        claim = next(c for c in C.CLAIMS if c.key == key)
        flat = [{**r, "agree_gap_verdict": "holds", "region": "nn_rule"} for r in HELD]
        assert claim.check(ATLAS, flat), key


@needs_tables
@pytest.mark.parametrize("key", [c for c in C.CLAIMS if c.key == "presets_rule"][0].cells)
def test_the_presets_finding_reads_every_presets_cell(key):
    claim = next(c for c in C.CLAIMS if c.key == "presets_rule")
    broken = [{**r, "region": "matrix_alone"} if AW.cell_key(r) == key else r for r in HELD]
    assert claim.check(ATLAS, broken)


@needs_tables
def test_follows_1nn_in_the_claims_means_nine_in_ten():
    """ "At some settings their labels are 1-NN's": a cell counts only with an agreement
    of 0.9 or more; at 0.88 everywhere the sentence would not hold."""
    claim = next(c for c in C.CLAIMS if c.key == "classification_nn")
    capped = [{**r, "agree_method": min(r["agree_method"], 0.88)} for r in HELD]
    assert claim.check(ATLAS, HELD) == [] and claim.check(ATLAS, capped)


@needs_tables
def test_a_changed_table_changes_the_numbers():
    changed = [{**r, "gain_mean": r["gain_mean"] + 3} if (r["method"], r["dataset"]) ==
               ("knpl", "sandwich") else r for r in HELD]
    claim = next(c for c in C.CLAIMS if c.key == "knpl_sandwich")
    assert claim.values(ATLAS, changed) != C.NUMBERS["knpl_sandwich"]
    atlas = next(c for c in C.CLAIMS if c.key == "atlas")
    fewer = [r for r in ATLAS if r["region"] != "matrix_alone" or r["dataset"] != "circles"]
    assert atlas.values(fewer, HELD) != C.NUMBERS["atlas"]


def _pairs(atlas, held):
    return AW.pair_cells(atlas, held).values()


@needs_tables
def test_the_atlas_sentences_counts_by_hand():
    """The atlas sentence's counts, computed here from the two tables directly: a cell
    counts when its statement holds at both sets of draws."""
    n = C.atlas_numbers(ATLAS, HELD)
    learned = [(a, h) for a, h in _pairs(ATLAS, HELD) if a["method"] != "lab_rbf_reg"]
    assert n["cells"] == len(learned) == 1248
    alone = [(a, h) for a, h in learned
             if a["off_gain_verdict"] == "holds" and h["off_gain_verdict"] == "holds"]
    assert n["alone"] == len(alone)
    gain = [(a, h) for a, h in learned if a["method"] != "onk"
            and a["gain_lo"] > 0 and h["gain_lo"] > 0]
    assert n["gain"] == len(gain)
    kept = [(a, h) for a, h in gain if a["off_gain_lo"] > 0 and h["off_gain_lo"] > 0]
    assert n["kept"] == len(kept)
    rule = [(a, h) for a, h in gain if a["off_gain_lo"] <= 0 and h["off_gain_lo"] <= 0
            and a["agree_gap_lo"] > 0 and h["agree_gap_lo"] > 0]
    assert n["nn_rule"] == len(rule)
    assert n["nn_rule_90"] == sum(min(a["agree_method"], h["agree_method"]) >= 0.9
                                  for a, h in rule)
    ten = [(a, h) for a, h in alone if a["off_vs_plain10_lo"] <= 0
           and h["off_vs_plain10_lo"] <= 0]
    assert n["alone_not_10c"] == len(ten)
    assert n["alone_10c_better"] == sum(a["off_vs_plain10_hi"] < 0
                                        and h["off_vs_plain10_hi"] < 0 for a, h in ten)
    assert n["best"] == round(max(a["off_gain_mean"] for a, _ in alone))
    shares = [a["off_gain_mean"] / a["gain_mean"] for a, _ in kept]
    assert n["share"] == round(100 * float(np.median(shares)))


@pytest.mark.parametrize("claim", [c for c in C.CLAIMS if any(w.endswith(".md")
                                                               for w in c.where)],
                         ids=lambda c: c.key)
def test_markdown_sentences_stand_verbatim(claim):
    for where in claim.where:
        if where.endswith(".md"):
            assert _words(claim.text) in _words((ROOT / where).read_text()), where


@pytest.mark.parametrize("claim", [c for c in C.CLAIMS if not any(w.endswith(".md")
                                                                   for w in c.where)],
                         ids=lambda c: c.key)
def test_python_files_take_their_sentences_from_the_claims(claim):
    (where,) = claim.where
    text = (ROOT / where).read_text()
    assert f'TEXT["{claim.key}"]' in text, where


def test_presets_take_their_sentences_from_the_claims():
    for key in ("dank_clowns", "knpl_sandwich", "dank_svr_step", "dank_svr_harmonic"):
        assert pr.PRESETS[key].claim == C.TEXT[key]


#: sentences the atlas or other draws contradicted, and where they stood
GONE = (
    ("78-setting search the learned kernel alone helps", ("README.md", "app.py")),
    ("1-nearest neighbour's on every test point", ("README.md", "app.py")),
    ("comes from their test-time rule", ("pages/4_Sensitivity.py",)),
    ("so their test labels follow 1-nearest neighbour", ("pages/1_Classification.py",)),
    ("so its predictions follow this rule", ("pages/2_Regression.py",)),
    ("so their test labels follow this rule", ("nplk_lab/model/settings_table.py",)),
    ("F stays within 0.3 %", ("README.md", "docs/where-the-gain-comes-from.md")),
    ("on every test point of every seed", ("docs/where-the-gain-comes-from.md",)),
    ("the cross-validated SVM scores like DANK", ("nplk_lab/model/claims.py",)),
    ("shared bandwidth inside the paper's model (wins)", ("docs/README.md",)),
    ("the score falls back to the plain baseline's. Each", (
        "docs/where-the-gain-comes-from.md",)),
    ("ten times the C scores at least as well", ("README.md",
                                                  "docs/where-the-gain-comes-from.md")),
    ("the gain comes with 1-nearest neighbour's labels", (
        "README.md", "docs/where-the-gain-comes-from.md")),
    ("KNPL beats the plain SVM on the sandwich's test points. Check", (
        "nplk_lab/model/lessons/lessons.py",)),
)


@pytest.mark.parametrize("phrase, files", GONE, ids=[g[0][:30] for g in GONE])
def test_the_over_general_sentences_are_gone(phrase, files):
    for path in files:
        assert phrase not in _words((ROOT / path).read_text()), path
    assert not any(phrase in t for t in C.TEXT.values())
    assert not re.search(r"switched off at test time \([^)]*\) (DANK |it )?scores like "
                         r"the SVM", _words((ROOT / "README.md").read_text()))


@pytest.mark.slow
def test_dank_clowns_F_stays_within_one_percent_of_all_ones_at_twenty_draws():
    """The README's and the preset's "F stays within 1 % of 11ᵀ" at data seeds 0–19 (the
    atlas's draws and the held-out ones)."""
    import nplk_lab.model as lab

    for seed in range(20):
        P = {**pr.preset_params("dank_clowns"), "seed": seed}
        data, _ = lab.prepare_data(P, "classification")
        res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                             method="dank", data_key=data.key)
        assert 1e-4 < np.abs(res.matrix - 1.0).max() < 0.01, seed


NPKL = __import__("nplk_lab.model.atlas.atlas_npkl", fromlist=["load_npkl"]).load_npkl()


@pytest.mark.skipif(not NPKL, reason="no committed SimpleNPKL table")
def test_the_simplenpkl_sentence_is_its_table():
    (claim,) = C.NPKL_CLAIMS
    assert claim.values(NPKL, []) == C.NUMBERS["npkl"]
    assert _words(claim.text) in _words((ROOT / claim.where[0]).read_text())
    flipped = [{**r, "region": "beats_kmeans"} if r["C"] >= 1 else r for r in NPKL]
    assert claim.values(flipped, []) != C.NUMBERS["npkl"]


def _per_seed(path: Path, cell: tuple) -> list[dict]:
    m, d, s, c = cell
    return [r for r in A.read_csv(path) if (r["method"], r["dataset"], r["sigma"], r["C"])
            == (m, d, s, c)] if path.exists() else []


@needs_tables
def test_lesson_step_knpl_beats_the_svm_on_the_sandwich_at_most_draws():
    """Lesson step 3.6: "At γ = auto KNPL beats the plain SVM on the sandwich's test
    points at most draws of the data" (σ = 1, C = 1, γ = auto: the atlas's cell) — at
    nine in ten or more of data seeds 0–9 and of 10–19, and not at every seed of the
    lesson's measured draws (it ties at seed 28), so "most", not "every"."""
    out = ROOT / A.DEFAULT_OUT
    for path in (out / "seeds.csv.gz", out / "held-out" / "seeds.csv.gz"):
        rows = _per_seed(path, ("knpl", "sandwich", 1.0, 1.0))
        assert len(rows) == 10, path
        wins = sum(r["score_method"] > r["score_plain"] for r in rows)
        assert wins >= 9, (path, wins)


#: (claim, the cell's field, a value that breaks it, words of the failure)
BREAKS = (
    ("dank_clowns", "gain_verdict", "inconclusive", "DANK above the SVM"),
    ("dank_clowns", "agree_method", 0.9, "labels like 1-NN"),
    ("dank_clowns", "off_gain_verdict", "holds", "F off above the SVM, not beyond"),
    ("dank_clowns", "off_gain_mean", -1.0, "F off above the SVM, not beyond"),
    ("dank_clowns", "cv_gap_mean", -1.0, "SVM-CV at least as good as DANK"),
    ("dank_clowns", "cv_gap_hi", -0.5, "SVM-CV at least as good as DANK"),
    ("knpl_sandwich", "gain_verdict", "inconclusive", "KNPL above the SVM"),
    ("knpl_sandwich", "off_gain_mean", 1.0, "G off below the SVM on average"),
    ("dank_svr_step", "score_method", 0.95, "DANK-SVR's error a small fraction"),
    ("dank_svr_step", "agree_method", 0.95, "DANK-SVR predicts like 1-NN"),
    ("dank_svr_step", "off_gain_lo", -0.6, "F off at the SVR's error"),
    ("dank_svr_step", "off_gain_hi", 0.6, "F off at the SVR's error"),
    ("dank_svr_harmonic", "score_plain", 0.2, "SVR nearly flat"),
    ("dank_svr_harmonic", "gain_lo", 25.0, "SVR nearly flat"),
    ("dank_svr_harmonic", "score_off", 0.2, "F off about as flat"),
    ("dank_svr_harmonic", "off_gain_verdict", "holds", "F off about as flat"),
    ("dank_svr_harmonic", "method_vs_nn_hi", 0.1, "1-NN above DANK-SVR"),
    ("sandwich_wide", "off_gain_lo", 2.0, "DANK's F off above the same-(σ, C) SVM"),
    ("sandwich_wide", "off_vs_plain10_verdict", "holds", "but not above the SVM with 10 × C"),
    ("readme_defaults", "region", "gain_other", "the 1-NN rule's region"),
    ("readme_defaults", "method_vs_off_verdict", "inconclusive", "DANK above its F-off"),
    ("knpl_sandwich_doc", "agree_method", 0.985, "KNPL's labels 1-NN's on 99 % or more"),
)


#: the numbers a failure message shows, where they are not just the broken field
KEYS = {("dank_svr_step", "DANK-SVR's error a small fraction"): ("score_method", "score_plain"),
        ("dank_svr_step", "F off at the SVR's error"): ("off_gain_lo", "off_gain_hi"),
        ("dank_clowns", "F off above the SVM, not beyond"): ("off_gain_mean", "off_gain_lo"),
        ("dank_clowns", "SVM-CV at least as good as DANK"): ("cv_gap_mean", "cv_gap_hi"),
        ("dank_svr_harmonic", "SVR nearly flat"): ("score_plain", "gain_lo"),
        ("dank_svr_harmonic", "F off about as flat"): ("score_off", "off_gain_lo"),
        ("dank_svr_harmonic", "1-NN above DANK-SVR"): ("method_vs_nn_mean", "method_vs_nn_hi"),
        ("dank_clowns", "DANK above the SVM"): ("gain_lo",),
        ("knpl_sandwich", "KNPL above the SVM"): ("gain_lo",),
        ("knpl_sandwich", "G off below the SVM on average"): ("off_gain_mean", "off_gain_hi"),
        ("sandwich_wide", "DANK's F off above the same-(σ, C) SVM"): ("off_gain_mean",
                                                                     "off_gain_lo"),
        ("sandwich_wide", "but not above the SVM with 10 × C"): ("off_vs_plain10_mean",
                                                                  "off_vs_cv_mean"),
        ("readme_defaults", "the 1-NN rule's region"): ("gain_lo",),
        ("readme_defaults", "DANK above its F-off"): ("method_vs_off_lo",)}


@needs_tables
@pytest.mark.parametrize("key, field, value, words", BREAKS,
                         ids=[f"{b[0]}-{b[1]}" for b in BREAKS])
def test_each_condition_of_a_check_fails_alone_and_says_which(key, field, value, words):
    claim = next(c for c in C.CLAIMS if c.key == key)
    (cell,) = claim.cells[:1]
    broken = [{**r, field: value} if AW.cell_key(r) == cell else r for r in HELD]
    (line,) = [m for m in claim.check(ATLAS, broken) if words in m]
    m, d, s, c = cell
    assert line.startswith(f"{m} / {d} / σ = {s:g} / C = {c:g}: {words}")
    assert line.endswith("; 10 seeds)")
    for name in KEYS.get((key, words), (field,)):
        assert f"{name} = " in line, name
    assert claim.check(broken, HELD) != []          # and at the atlas's own draws


@needs_tables
def test_the_atlas_sentence_checks_the_tuned_baseline_and_the_underfit():
    claim = next(c for c in C.CLAIMS if c.key == "atlas")
    beaten = [{**r, "off_vs_cv_verdict": "holds"} for r in HELD]
    assert any("beats the tuned baseline in" in m for m in claim.check(ATLAS, beaten))
    fit = [{**r, "score_cv": r["score_plain"]} for r in HELD]
    (line,) = claim.check(ATLAS, fit)
    assert "the plain baseline underfits where the gain is largest" in line


def _pair(region="nn_rule", agree=0.95, gap="holds", gain="holds", method="dank", s=1.0):
    return {"method": method, "dataset": "clowns", "sigma": s, "C": 1.0, "region": region,
            "agree_method": agree, "agree_gap_verdict": gap, "gain_verdict": gain}


def test_some_settings_and_not_others_by_hand():
    from functools import partial

    from nplk_lab.model.claims_tables import depends, somewhere

    check = partial(somewhere, ("dank",))
    follows, not_ = _pair(s=1.0), _pair(s=2.0, gap="inconclusive", agree=0.5)
    assert check([follows, not_], [follows, not_]) == []
    # following at one set of draws only does not count
    assert check([follows, not_], [{**follows, "agree_gap_verdict": "fails"}, not_]) == [
        "dank: no cell follows 1-NN more than the baseline at both sets of draws"]
    # agreeing with 1-NN on 89 % is not following it, however large the edge
    weak = {**follows, "agree_method": 0.89}
    assert check([weak, not_], [weak, not_]) == [
        "dank: no cell follows 1-NN more than the baseline at both sets of draws"]
    assert check([follows, {**follows, "sigma": 2.0}], [follows, {**follows, "sigma": 2.0}]) \
        == ["dank: every cell follows 1-NN more than the baseline"]
    dep = partial(depends, ("dank",))
    alone = _pair(s=2.0, region="matrix_alone")
    assert dep([follows, alone], [follows, alone]) == []
    assert dep([follows, alone], [follows, {**alone, "region": "nn_rule"}]) == [
        "dank: no cell where part of a gain survives at both draws"]
    assert dep([follows, {**alone, "gain_verdict": "inconclusive"}],
               [follows, alone]) != []
    assert dep([alone], [alone]) == ["dank: no cell where the rule carries the gain at both "
                                     "draws"]


def test_the_small_helpers_by_hand():
    from nplk_lab.model import claims_tables as T

    assert [T.plain_number(x) for x in (1.0, 10.0, 1.5, 2.04, 0.0)] == \
        ["1", "10", "1.5", "2", "0"]
    assert np.isnan(T.value({}, "gain_mean")) and T.value({"x": "2"}, "x") == 2.0
    with pytest.raises(KeyError, match="no cell dank / moons / σ = 1 / C = 2 in the table"):
        T.cell([], "dank", "moons", 1, 2)
    r = {"method": "dank", "dataset": "moons", "sigma": 1.0, "C": 2.0, "n_seeds": 10,
         "a": 1.23456, "b": -2.0}
    assert T.need(True, "x", r, ("a",)) == []
    assert T.need(False, "the words", r, ("a", "b")) == [
        "dank / moons / σ = 1 / C = 2: the words (a = 1.235, b = -2; 10 seeds)"]


def _alone(m="dank", s=1.0, **kw):
    row = {"method": m, "dataset": "moons", "sigma": s, "C": 1.0, "region": "matrix_alone",
           "gain_verdict": "holds", "off_gain_verdict": "holds", "off_vs_cv_verdict": "fails",
           "off_vs_plain10_verdict": "fails", "off_vs_plain10_hi": 1.0,
           "off_vs_plain10_mean": -1.0, "off_gain_mean": 5.0, "gain_mean": 10.0,
           "agree_method": 0.95}
    row.update(kw)
    return row


def test_the_atlas_sentences_counts_at_their_edges():
    """Crafted pairs of cells: an interval ending at 0 is not "clearly above", a mean of
    0.5 is "lower on average", a tuned baseline beaten at one set of draws counts, the
    share is the median of off / gain."""
    from nplk_lab.model.claims_tables import atlas_numbers

    a = [_alone(s=1.0, off_vs_plain10_hi=0.0, off_vs_plain10_mean=0.5),
         _alone(s=2.0, off_vs_plain10_hi=-0.1, off_vs_plain10_mean=-2.0, off_gain_mean=8.0),
         _alone(s=4.5, off_vs_plain10_verdict="holds"),
         _alone("knpl", s=1.0, region="nn_rule", off_gain_verdict="fails",
                agree_method=0.9)]
    h = [dict(r) for r in a]
    n = atlas_numbers(a, h)
    assert (n["cells"], n["alone"], n["alone_not_10c"], n["alone_10c_better"],
            n["alone_10c_lower"]) == (4, 3, 2, 1, 1)
    assert (n["best"], n["gain"], n["kept"], n["share"], n["whole"]) == (8, 4, 3, 50, 0)
    assert (n["nn_rule"], n["nn_rule_90"], n["alone_cv"]) == (1, 1, 0)
    h[2] = {**h[2], "off_vs_cv_verdict": "holds"}
    assert atlas_numbers(a, h)["alone_cv"] == 1
    h[0] = {**h[0], "off_vs_plain10_mean": 0.0}
    assert atlas_numbers(a, h)["alone_10c_lower"] == 0
    # each set of draws at its own edge: 0 is neither clearly below nor lower on average
    a2 = [_alone(s=1.0, off_vs_plain10_hi=-0.1, off_vs_plain10_mean=0.0)]
    h2 = [_alone(s=1.0, off_vs_plain10_hi=0.0, off_vs_plain10_mean=0.5)]
    n2 = atlas_numbers(a2, h2)
    assert (n2["alone_not_10c"], n2["alone_10c_better"], n2["alone_10c_lower"]) == (1, 0, 0)
    empty = atlas_numbers([], [])
    assert empty["cells"] == 0 and np.isnan(empty["best"]) and np.isnan(empty["share"])


@needs_tables
def test_the_knpl_doc_gap_is_in_points():
    claim = next(c for c in C.CLAIMS if c.key == "knpl_sandwich_doc")
    wide = [{**r, "score_nn": r["score_method"] - 0.45} if AW.cell_key(r) ==
            ("knpl", "sandwich", 1.0, 1.0) else r for r in HELD]
    assert claim.values(ATLAS, wide)["gap"] == "45"


def _edge(key, **fields):
    """The claim's check on the held-out table with its cell's fields set to ``fields``."""
    claim = next(c for c in C.CLAIMS if c.key == key)
    cell = claim.cells[0]
    edited = [{**r, **fields} if AW.cell_key(r) == cell else r for r in HELD]
    return claim.check(ATLAS, edited)


@needs_tables
def test_the_checks_thresholds_are_inclusive_where_the_words_are():
    """At a threshold the words still hold: an error ratio of exactly 0.2 is "a small
    fraction", agreement of exactly 0.99 is "like 1-NN", an F-off interval ending at
    ±0.5 points is "at the SVR's error"."""
    assert _edge("dank_svr_step", score_method=0.5, score_plain=-1.5) == []   # 0.5 / 2.5
    assert _edge("dank_svr_step", agree_method=0.99) == []
    assert _edge("dank_svr_step", off_gain_lo=-0.5, off_gain_hi=0.5) == []
    assert _edge("dank_svr_step", off_gain_lo=-0.5000001) != []
    assert _edge("dank_clowns", agree_method=0.95) == []
    assert _edge("knpl_sandwich_doc", agree_method=0.99) == []
    assert _edge("dank_svr_harmonic", score_plain=0.1, score_off=0.15) == []
    assert _edge("sandwich_wide", off_gain_lo=3.0) == []


@needs_tables
def test_the_underfit_check_reads_the_largest_gain_of_the_cells_settled_alone():
    claim = next(c for c in C.CLAIMS if c.key == "atlas")
    from nplk_lab.model.claims_tables import pair_cells

    pairs = [(k, a, h) for k, (a, h) in pair_cells(ATLAS, HELD).items()
             if k[0] in ("dank", "knpl", "onk", "dank_svr")
             and a["region"] == h["region"] == "matrix_alone"]
    k, a, h = max(pairs, key=lambda p: p[1]["off_gain_mean"])
    # exactly 10 points between the tuned and the plain baseline is underfitting
    at = [{**r, "score_cv": 0.1, "score_plain": 0.0} if AW.cell_key(r) == k else r
          for r in HELD]
    assert claim.check(ATLAS, at) == []
    # the largest gain of an unsettled cell or of LAB RBF is not the one read
    moved = [{**r, "score_cv": r["score_plain"]} if AW.cell_key(r) == k else r
             for r in HELD]
    (line,) = claim.check(ATLAS, moved)
    m, d, s, c = k
    assert line.startswith(f"{m} / {d} / σ = {s:g} / C = {c:g}: the plain baseline "
                           "underfits where the gain is largest (score_plain = ")
    assert "score_cv = " in line
    lab = [{**r, "region": "none"} if AW.cell_key(r) == k else r for r in HELD]
    assert claim.check(ATLAS, lab) == []            # another cell is then the largest


def test_the_share_of_unsettled_cells_and_the_flat_clusters_by_hand():
    from nplk_lab.model.claims_tables import npkl_numbers, unsettled_numbers

    one = [{"method": "dank", "dataset": "moons", "sigma": 1.0, "C": 1.0, "region": "none"}]
    moved = [{**one[0], "region": "worse"}]
    assert unsettled_numbers(one, moved) == {"moved": "1", "cells": "1", "pct": "100"}
    assert unsettled_numbers(one, one)["pct"] == "0"
    flat = [{"dataset": "x", "C": 1.0, "region": "none", "rand": 0.52}]
    assert npkl_numbers(flat)["hi_flat"] == 1


@needs_tables
def test_more_edges_where_the_words_turn():
    # "1 to 1.5 points above it": an F-off mean of exactly 0 is not above
    assert _edge("dank_clowns", off_gain_mean=0.0) != []
    # "at least as well as DANK": a mean of 0 is as well; an interval ending at 0 is not
    assert _edge("dank_clowns", cv_gap_mean=0.0) == []
    assert _edge("dank_clowns", cv_gap_hi=0.0) != [] and _edge("dank_clowns",
                                                                cv_gap_hi=0.5) == []
    # "below the SVM": a G-off mean of 0 or above is not below
    assert _edge("knpl_sandwich", off_gain_mean=0.0) != []
    assert _edge("knpl_sandwich", off_gain_mean=0.5) != []
    # "a small fraction of the SVR's error": half of it is not
    assert _edge("dank_svr_step", score_method=0.5, score_plain=0.0) != []
    # "far above": a lower bound of exactly 30 points is not beyond 30
    assert _edge("dank_svr_harmonic", gain_lo=30.0) != []
    assert _edge("dank_svr_harmonic", gain_lo=30.5) == []
    assert _edge("dank_svr_harmonic", method_vs_nn_hi=0.0) != []


@needs_tables
def test_the_wide_sandwich_claim_names_knpls_cell_and_numbers():
    claim = next(c for c in C.CLAIMS if c.key == "sandwich_wide")
    knpl = ("knpl", "sandwich", 4.5, 10.0)
    broken = [{**r, "off_gain_verdict": "holds"} if AW.cell_key(r) == knpl else r
              for r in HELD]
    (line,) = claim.check(ATLAS, broken)
    assert line.startswith("knpl / sandwich / σ = 4.5 / C = 10: KNPL's G off not clearly "
                           "above (off_gain_mean = ")
    assert ", off_gain_lo = " in line


@needs_tables
def test_the_presets_finding_names_its_numbers_and_reads_the_off_verdict():
    claim = next(c for c in C.CLAIMS if c.key == "presets_rule")
    cell = claim.cells[0]
    for field, value in (("region", "matrix_alone"), ("off_gain_verdict", "holds")):
        broken = [{**r, field: value} if AW.cell_key(r) == cell else r for r in HELD]
        (line,) = claim.check(ATLAS, broken)
        assert line.startswith("dank / clowns / σ = 10 / C = 10: the gain with 1-NN's labels, "
                               "none of it with the matrix off (gain_lo = ")
        assert ", agree_gap_lo = " in line and ", off_gain_lo = " in line


def _two_alone(first_a, first_h, second_a, second_h, **kw):
    rows_a, rows_h = [], []
    for s, a_mean, h_mean in ((1.0, first_a, first_h), (2.0, second_a, second_h)):
        base = _alone(s=s, n_seeds=10, score_plain=0.5, score_cv=0.9)
        rows_a.append({**base, "off_gain_mean": a_mean})
        rows_h.append({**base, "off_gain_mean": h_mean})
    rows_a[1].update(kw)
    rows_h[1].update(kw)
    return rows_a, rows_h


def test_the_underfit_check_reads_the_largest_gain_at_the_atlas_draws():
    from nplk_lab.model.claims_tables import atlas_check

    # the second cell has the largest gain at the atlas's draws, the first at the others
    a, h = _two_alone(5.0, 20.0, 10.0, 2.0, score_cv=0.5)
    lines = atlas_check(a, h)                            # at both sets of draws
    assert len(lines) == 2 and all(ln.startswith(
        "dank / moons / σ = 2 / C = 1: the plain baseline underfits") for ln in lines)
    a, h = _two_alone(5.0, 20.0, 10.0, 2.0)
    assert atlas_check(a, h) == []
    a = [{**r, "off_vs_cv_verdict": "holds"} if r["sigma"] == 1.0 else r for r in a]
    assert atlas_check(a, h) == ["the model with its matrix off beats the tuned baseline "
                                 "in 1 cells"]


def test_following_1nn_at_exactly_nine_in_ten_counts():
    from functools import partial

    from nplk_lab.model.claims_tables import somewhere

    at = _pair(s=1.0, agree=0.9)
    other = _pair(s=2.0, gap="inconclusive", agree=0.5)
    assert partial(somewhere, ("dank",))([at, other], [at, other]) == []


def test_the_atlas_sentences_counts_at_one_set_of_draws_only():
    """Each count takes a cell only where its statement holds at both sets of draws."""
    from nplk_lab.model.claims_tables import atlas_numbers

    a = [_alone(s=1.0, off_vs_plain10_hi=0.0, off_vs_plain10_mean=0.5),
         _alone(s=2.0, off_vs_plain10_hi=-0.1, off_vs_plain10_mean=-2.0, off_gain_mean=7.0),
         _alone(s=4.5, off_vs_plain10_verdict="fails", off_gain_mean=10.0),
         _alone("knpl", s=1.0, region="nn_rule", off_gain_verdict="fails",
                agree_method=0.95)]
    h = [_alone(s=1.0, off_vs_plain10_hi=-0.5, off_vs_plain10_mean=-0.5),
         _alone(s=2.0, off_vs_plain10_hi=-0.1, off_vs_plain10_mean=-2.0, off_gain_mean=7.0),
         _alone(s=4.5, off_vs_plain10_verdict="holds", off_gain_mean=10.0),
         _alone("knpl", s=1.0, region="nn_rule", off_gain_verdict="fails",
                agree_method=0.85)]
    n = atlas_numbers(a, h)
    # 10 × C clearly better at both: only σ = 2; lower on average at both: none;
    # not clearly above 10 × C at either: σ = 1 and 2 (σ = 4.5 is at the held-out draws)
    assert (n["alone_not_10c"], n["alone_10c_better"], n["alone_10c_lower"]) == (2, 1, 0)
    assert n["nn_rule"] == 1 and n["nn_rule_90"] == 0
    a[2]["off_vs_cv_verdict"] = "holds"
    assert atlas_numbers(a, h)["alone_cv"] == 1
    # shares: 0.5, 0.7 and 1.0 of the gain: median 70 %, all of it in one
    a = [_alone(s=1.0), _alone(s=2.0, off_gain_mean=7.0), _alone(s=4.5, off_gain_mean=10.0)]
    n = atlas_numbers(a, [dict(r) for r in a])
    assert (n["share"], n["whole"]) == (70, 1)


def _smooth(region="none", gain="inconclusive", vs_off="inconclusive", cv="inconclusive",
            method="knpl", s=1.0):
    return {"method": method, "dataset": "clowns", "sigma": s, "C": 1.0, "n_seeds": 10,
            "smooth_region": region, "smooth_gain_verdict": gain,
            "smooth_vs_off_verdict": vs_off, "smooth_cv_gap_verdict": cv,
            "smooth_gain_lo": 1.0, "smooth_vs_off_lo": 1.0, "smooth_cv_gap_lo": 1.0}


def test_the_smooth_rules_numbers_by_hand():
    """Helping at one set of draws is counted there, at both only where both agree;
    'clearly below the matrix off' counts only where the rule helps; 'above the
    baseline and the matrix off' is counted whatever the region; ONK has no such rule."""
    from nplk_lab.model.claims_tables import smooth_numbers

    helps_below = _smooth("no_copy", "holds", "does not hold", s=1.0)
    helps = _smooth("no_copy", "holds", "inconclusive", s=2.0)
    over = _smooth("tuned_better", "holds", "holds", "holds", s=3.0)
    worse = _smooth("worse", "does not hold", "does not hold", s=4.0)
    onk = {**helps, "method": "onk"}
    a = [helps_below, helps, over, worse, onk]
    h = [{**helps_below, "smooth_region": "none"}, helps,
         {**over, "smooth_gain_verdict": "inconclusive"}, worse, onk]
    n = smooth_numbers(a, h)
    assert n == {"cells": "4", "helps_a": 2, "helps_h": 1, "helps": 1,
                 "helps_cells": [("knpl", "clowns", 2.0, 1.0)], "beyond": "none",
                 "below_a": 1, "below_h": 0, "over_a": 1, "over_h": 0, "worse": 1}
    (claim,) = [c for c in C.CLAIMS if c.key == "smooth_rule"]
    assert claim.check(a, h) == []
    assert claim.values(a, h)["helps"] == 1 and "helps_cells" not in claim.values(a, h)


def test_the_smooth_rules_check_fails_where_the_learned_kernel_would_help():
    """Above the baseline and the matrix off with the tuned baseline not clearly better
    (the learned kernel helping without copying) fails the sentence's 'so the atlas
    finds no setting', naming the cell; so does a table without the rule's column."""
    from nplk_lab.model.claims_tables import smooth_numbers

    (claim,) = [c for c in C.CLAIMS if c.key == "smooth_rule"]
    beyond = _smooth("no_copy", "holds", "holds", "inconclusive")
    (line,) = claim.check([beyond], [_smooth()])
    assert line.startswith("knpl / clowns / σ = 1 / C = 1: above the baseline and the "
                           "matrix off, the tuned baseline not clearly better")
    assert "smooth_cv_gap_lo = 1" in line and line.endswith("; 10 seeds)")
    assert claim.check([_smooth()], [beyond]) != []
    assert smooth_numbers([beyond], [_smooth()])["beyond"] == "1"
    assert claim.check([{**_smooth(), "smooth_region": ""}], [_smooth()]) == [
        "data seeds 0–9: 1 cells without the smooth rule's column"]
    # at the held-out draws, both failures kept, each naming its numbers
    two = claim.check([_smooth()], [{**_smooth(), "smooth_region": ""},
                                    {**beyond, "sigma": 2.0, "smooth_vs_off_lo": 2.0}])
    assert two[0] == "data seeds 10–19: 1 cells without the smooth rule's column"
    assert len(two) == 2 and two[1].startswith("knpl / clowns / σ = 2 / C = 1: above")
    assert "smooth_gain_lo = 1, smooth_vs_off_lo = 2, smooth_cv_gap_lo = 1;" in two[1]
