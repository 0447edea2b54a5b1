"""The verdicts of results.json as plain text (nplk_lab.model.verdicts), fast: a loss is
a whole interval on the losing side of 0 for either direction of "better", an interval
crossing 0 or touching it is not a loss, equivalence claims are never losses, and every
cell the report and the Paper results page show comes from the row as written."""

from __future__ import annotations

import pytest

from nplk_lab.model import paired as P
from nplk_lab.model import verdicts as V


def st(lo, hi, better="higher", **kw):
    return {"label": "m − b", "unit": "points", "n": 10, "mean": (lo + hi) / 2, "lo": lo,
            "hi": hi, "better": better, "judged": True, **kw}


@pytest.mark.parametrize("lo, hi, better, loss", [
    (-3.0, -1.0, "higher", True),       # higher is better, wholly below 0: a loss
    (1.0, 3.0, "higher", False),        # a gain
    (1.0, 3.0, "lower", True),          # lower is better (error): wholly above 0 is a loss
    (-3.0, -1.0, "lower", False),       # lower is better, wholly below 0: a gain
    (-1.0, 2.0, "higher", False),       # crosses 0: inconclusive, not a loss
    (-2.0, 1.0, "lower", False),
    (-1.0, 0.0, "higher", False),       # touches 0: not wholly on the losing side
    (0.0, 1.0, "lower", False),
    (2.0, -1.0, "lower", False),        # a garbled interval (lo > hi) straddling 0
])
def test_is_loss_for_both_directions_of_better(lo, hi, better, loss):
    assert V.is_loss(st(lo, hi, better)) is loss


def test_is_loss_never_for_equivalence_claims_and_not_for_missing_numbers():
    assert V.is_loss(st(-3.0, -1.0, margin=0.5)) is False
    assert V.is_loss(st(-3.0, -1.0, margin=0.0)) is True
    assert V.is_loss(st(-3.0, -1.0, margin="x")) is True        # unreadable margin: none
    assert V.is_loss({"lo": None, "hi": -1.0}) is False
    assert V.is_loss({"lo": -2.0, "hi": -1.0}) is True           # "higher" by default


def test_verdict_text_calls_a_judged_loss_a_loss():
    assert V.verdict_text(P.FAILS, "", [st(-3, -1)]) == "does not hold: a loss"
    assert V.verdict_text(P.FAILS, "", [st(1, 3, "lower")]) == "does not hold: a loss"
    # a loss only shown as context, or no loss at all: plain "does not hold"
    assert V.verdict_text(P.FAILS, "", [{**st(-3, -1), "judged": False}]) == P.FAILS
    assert V.verdict_text(P.FAILS, "", [st(-1, 0)]) == P.FAILS
    assert V.verdict_text(P.FAILS, "", ({"judged": True, "lo": -3, "hi": -1},)) == P.FAILS
    assert V.verdict_text(P.FAILS, "", ["not a dict", st(-3, -1)]) == "does not hold: a loss"
    # a loss under a verdict other than "does not hold" changes nothing
    assert V.verdict_text(P.INCONCLUSIVE, "", [st(-3, -1)]) == P.INCONCLUSIVE
    assert V.verdict_text(P.HOLDS, "ρ = ∞", []) == "holds (by construction)"
    assert V.verdict_text("nonsense", "", []) == P.SHOWN
    assert V.verdict_text(P.HOLDS) == P.HOLDS and V.verdict_text(P.FAILS) == P.FAILS
    assert V.verdict_text(P.FAILS, "", [st(-3, -1)]).endswith("loss")


def test_row_verdict_reads_old_and_new_files():
    assert V.row_verdict({"holds": True}) == P.HOLDS
    assert V.row_verdict({"holds": False}) == P.FAILS
    assert V.row_verdict({"holds": None}) == P.SHOWN
    assert V.row_verdict({}) == P.SHOWN
    assert V.row_verdict({"verdict": P.FAILS, "stats": [st(-3, -1)]}) == \
        "does not hold: a loss"
    assert V.row_verdict({"verdict": P.HOLDS, "holds": False, "by_construction": "x"}) == \
        "holds (by construction)"


def test_stat_text_is_the_paired_text_with_its_verdict():
    s = {**st(1.0, 3.0, "lower"), "mean": 2.0, "wins": 1, "ties": 2, "losses": 7,
         "corrected": True}
    assert V.stat_text(s) == ("m − b: +2.00 points [+1.00, +3.00] (95 % CI, n = 10, "
                              "split-corrected; 1 better / 2 equal / 7 worse) → "
                              "does not hold")
    assert V.stat_text({**st(1.0, 3.0), "mean": 2.0, "judged": False}).endswith(
        "→ holds (context)")
    eq = V.stat_text({**st(-0.1, 0.1), "mean": 0.0, "margin": 0.5})
    assert eq.endswith("→ holds") and "n = 10;" in eq
    assert V.stat_text({}).startswith("—: nan [nan, nan] (95 % CI, n = 0;")


def test_judged_summary_and_stat_lines():
    row = {"stats": [st(1.0, 3.0), {**st(-5.0, -4.0), "judged": False, "label": "ctx"},
                     "junk", {**st(0.5, 1.5), "label": "second", "unit": ""}]}
    assert V.judged_summary(row) == "m − b: +2.00 [+1.00, +3.00] points; second: +1.00 " \
        "[+0.500, +1.50]"
    assert V.judged_summary({"stats": None}) == "—"
    lines = V.stat_lines(row)
    assert len(lines) == 3 and lines[1].startswith("ctx: ") and \
        lines[1].endswith("(context)")


def _results():
    return {"rows": [
        {"item": "A", "verdict": P.HOLDS, "preset": "p1", "paper_value": "1", "ours": "2",
         "note": "n", "stats": [st(1, 2)]},
        "not a row",
        {"item": "B" * 700, "verdict": P.FAILS, "by_construction": "why", "preset": "p2",
         "stats": [st(-2, -1)]},
        {"item": None, "holds": True},
        {"item": "D", "verdict": "odd", "preset": 3},
    ]}


def test_table_cells_are_the_rows_text_cut_and_in_order():
    rows = V.table(_results())
    assert [r["result"] for r in rows] == ["A", "B" * 600, "—", "D"]
    assert [r["verdict"] for r in rows] == [
        P.HOLDS, "does not hold: a loss (by construction)", P.HOLDS, P.SHOWN]
    assert list(rows[0]) == list(V.COLUMNS)
    assert rows[0]["paper's value"] == "1" and rows[0]["ours"] == "2" and \
        rows[0]["note"] == "n" and rows[1]["note"] == "—"
    assert rows[0]["judged on: mean [95 % CI]"] == "m − b: +1.50 [+1.00, +2.00] points"
    assert V.table(None) == [] and V.table({"rows": None}) == []


def test_by_preset_groups_rows_under_their_presets():
    g = V.by_preset(_results(), ["p1", "p2", "p9"])
    assert [r["result"] for r in g["p1"]] == ["A"]
    assert [r["result"] for r in g["p2"]] == ["B" * 600]
    assert g["p9"] == [] and set(g) == {"p1", "p2", "p9"}


def test_counts():
    c = V.counts(_results())
    assert c == {P.HOLDS: 2, P.FAILS: 1, P.INCONCLUSIVE: 0, P.SHOWN: 1,
                 "by construction": 1}
    assert V.counts(None) == {**{v: 0 for v in P.VERDICTS}, "by construction": 0}


def test_counts_that_are_null_or_words_in_the_file_do_not_break_the_page():
    """A results.json stat whose n, wins, ties or losses is null, a word or infinite is
    shown with 0 (it raised ValueError: cannot convert NaN to integer)."""
    bad = {"lo": 1.0, "hi": 2.0, "mean": 1.5, "n": "x", "wins": None, "ties": "inf",
           "losses": float("nan"), "judged": True}
    assert V.stat_text(bad) == ("—: +1.50 [+1.00, +2.00] (95 % CI, n = 0; 0 better / "
                                "0 equal / 0 worse) → holds")
    assert V.table({"rows": [{"item": "a", "verdict": P.HOLDS, "stats": [bad]}]})[0][
        "judged on: mean [95 % CI]"] == "—: +1.50 [+1.00, +2.00]"
    good = {"lo": 1.0, "hi": 2.0, "mean": 1.5, "n": 10.0, "wins": 0, "ties": 0,
            "losses": 3}
    # without "better" a gain is higher-is-better; without "judged" it is judged
    assert V.stat_text(good) == ("—: +1.50 [+1.00, +2.00] (95 % CI, n = 10; 0 better / "
                                 "0 equal / 3 worse) → holds")
    assert V.stat_text({"lo": -2.0, "hi": -1.0, "mean": -1.5, "losses": 0}).endswith(
        "0 worse) → does not hold")


@pytest.mark.parametrize("text, shown", [
    ("n_train = 105", "nₜᵣₐᵢₙ = 105"),            # every letter has a subscript
    ("η = ‖α_SVM‖²", "η = ‖α(SVM)‖²"),            # not every one: brackets
    ("at 2σ_CV", "at 2σ(CV)"),
    ("F_ij and h_{t}", "Fᵢⱼ and hₜ"),
    ("x_1", "x₁"),                               # one letter is maths, not a name
    ("scikit-learn make_blobs", "scikit-learn make_blobs"),   # a code name stays
    ("ab cd e_x", "ab cd eₓ"),                   # the word right before the underscore
    ("(ab_x)", "(ab_x)"),                        # punctuation around a name
    ("σσ_x", "σσₓ"),                             # a Greek word is maths
    ("Ab_x", "Abₓ"),                             # a capital is maths
    ("fit_s, (n_train)", "fit_s, (nₜᵣₐᵢₙ)"),
])
def test_maths_shows_subscripts_and_leaves_code_names(text, shown):
    assert V.maths(text) == shown
