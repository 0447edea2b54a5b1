"""Every general sentence the lab says (``nplk_lab/model/claims.py``) holds on the
committed atlas (data seeds 0–9) and on the held-out re-measurement of its cells (seeds
10–19), stands verbatim where it is said, and its check can fail."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from nplk_lab.model import atlas as A
from nplk_lab.model import claims as C
from nplk_lab.model import presets as pr

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
def test_the_held_out_table_is_other_draws_of_every_claimed_cell():
    for m, d, s, c in C.CLAIM_CELLS:
        held, main = C.cell(HELD, m, d, s, c), C.cell(ATLAS, m, d, s, c)
        assert held["n_seeds"] == 10 and held["score_method"] != main["score_method"]


@needs_tables
def test_a_check_fails_when_its_numbers_say_otherwise():
    for key, field, value in (("knpl_sandwich", "off_gain_verdict", "holds"),
                              ("dank_clowns", "agree_method", 0.80),
                              ("dank_svr_harmonic", "method_vs_nn_hi", 1.0),
                              ("sandwich_wide", "off_vs_cv_verdict", "holds")):
        claim = next(c for c in C.CLAIMS if c.key == key)
        broken = copy.deepcopy(HELD)
        for r in broken:
            r[field] = value
        assert claim.check(ATLAS, broken), key
    atlas_claim = next(c for c in C.CLAIMS if c.key == "atlas")
    fewer = [r for r in ATLAS if r["region"] != "matrix_alone" or r["dataset"] != "circles"]
    assert atlas_claim.check(fewer, HELD)


@pytest.mark.parametrize("claim", [c for c in C.CLAIMS if any(w.endswith(".md")
                                                               for w in c.where)],
                         ids=lambda c: c.key)
def test_markdown_sentences_stand_verbatim(claim):
    for where in claim.where:
        assert _words(claim.text) in _words((ROOT / where).read_text()), where


def test_presets_and_home_take_their_sentences_from_the_claims():
    for key in ("dank_clowns", "knpl_sandwich", "dank_svr_step", "dank_svr_harmonic"):
        assert pr.PRESETS[key].claim == C.TEXT[key]
    assert 'claims.TEXT["home_dank_clowns"]' in (ROOT / "app.py").read_text()


def test_the_over_general_sentences_are_gone():
    """Sentences the atlas or other draws contradicted (issue: "what holds where")."""
    texts = {p: (ROOT / p).read_text() for p in ("README.md", "app.py",
                                                 "nplk_lab/model/presets.py")}
    for path, text in texts.items():
        flat = _words(text)
        assert "78-setting search the learned kernel alone helps" not in flat, path
        assert not re.search(r"switched off at test time \([^)]*\) (DANK |it )?scores like "
                             r"the SVM", flat), path
        assert "1-nearest neighbour's on every test point" not in flat, path


NPKL = __import__("nplk_lab.model.atlas_npkl", fromlist=["load_npkl"]).load_npkl()


@pytest.mark.skipif(not NPKL, reason="no committed SimpleNPKL table")
def test_the_simplenpkl_sentence_holds_and_can_fail():
    (claim,) = C.NPKL_CLAIMS
    assert claim.check(NPKL, []) == []
    assert _words(claim.text) in _words((ROOT / claim.where[0]).read_text())
    flipped = [{**r, "region": "beats_kmeans"} if r["C"] >= 1 else r for r in NPKL]
    assert claim.check(flipped, [])
