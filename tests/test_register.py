"""The register of the lab's general sentences (``nplk_lab/model/sentences.toml``, read by
``nplk_lab/model/register.py``): every finding-shaped sentence of the pages, presets,
lessons, the model's words, the README and docs/ is in it with its domain and a check
that exists; no entry is stale; the scanner catches a new or changed sentence; and the
page states the plain-words walk opens show no finding-shaped sentence the register
does not know."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nplk_lab.model import claims as C
from nplk_lab.model import register as R

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = R.load()


def _said(where, text):
    return R.Said(where, text)


def test_every_finding_shaped_sentence_is_in_the_register():
    missing = R.unregistered(R.scan(ROOT), ENTRIES)
    assert not missing, "\n".join(f"{s.where}: {s.text}" for s in missing)


def test_every_registered_sentence_still_stands_where_it_says():
    gone = R.stale(ENTRIES, ROOT)
    assert not gone, "\n".join(f"{e.where}: {e.text}" for e in gone)


def test_no_sentence_is_registered_twice():
    keys = [(e.where, e.text) for e in ENTRIES]
    assert len(keys) == len(set(keys))


def _check_exists(check: str) -> bool:
    kind, _, ref = check.partition(":")
    if kind == "claim":
        return ref in {c.key for c in C.CLAIMS + C.NPKL_CLAIMS}
    if kind == "script":
        return (ROOT / ref).is_file()
    if kind == "test":
        path, _, name = ref.partition("::")
        f = ROOT / path
        return f.is_file() and re.search(rf"^def {re.escape(name)}\(", f.read_text(),
                                         re.M) is not None
    return False


def _entry_id(e) -> str:
    """Its file and a short hash of its words: ASCII, so the id can be passed back to
    pytest on a command line (mutation testing runs tests by id)."""
    import hashlib

    return f"{e.where}:{hashlib.sha1(e.text.encode()).hexdigest()[:10]}"


@pytest.mark.parametrize("entry", ENTRIES, ids=_entry_id)
def test_every_entry_has_a_kind_a_domain_and_a_check_that_exists(entry):
    assert entry.kind in R.KINDS
    assert entry.domain.get("domain", "").strip(), "a sentence without its domain"
    assert _check_exists(entry.check), entry.check
    if entry.kind == "finding":       # a general finding is checked on both atlas tables
        assert entry.check.startswith("claim:"), entry.check
    if entry.kind == "record":        # kept as measured, with what measured it
        assert entry.check.startswith(("script:", "test:")), entry.check


def test_the_claims_register_their_own_sentences():
    entries = R.claim_entries()
    for c in C.CLAIMS:
        assert any(e.where == f"claims:{c.key}" and e.check == f"claim:{c.key}"
                   for e in entries), c.key
    assert all(e.kind == "finding" for e in entries)


# ---------------------------------------------------------------------------
# the scanner
# ---------------------------------------------------------------------------

#: the sentences that overreached (as they stood before), each finding-shaped
BEFORE = (
    "For DANK and KNPL, a gain over the plain SVM (dotted) comes from their test-time rule.",
    "So part of the gain survives with G switched off.",
    "In 64 of the 97 the plain baseline with ten times the C scores at least as well.",
    "In 300 the gain comes with 1-nearest neighbour's labels.",
    "A test point borrows the row of its nearest training point, so their test labels "
    "follow 1-nearest neighbour.",
    "DANK-SVR carries its learned matrix to a test point, so its predictions follow this "
    "rule.",
    "F stays within 0.3 % of 11ᵀ.",
    "KNPL's test labels equal 1-NN's on every test point of every seed.",
    "The cross-validated SVM scores like DANK.",
    "LAB RBF: learned against one shared bandwidth inside the paper's model (wins).",
    "The score falls back to the plain baseline's.",
    "At γ = auto KNPL beats the plain SVM on the sandwich's test points.",
    "DANK scores about 10 points above the plain SVM.",
)


@pytest.mark.parametrize("sentence", BEFORE)
def test_the_overreaching_sentences_are_finding_shaped(sentence):
    assert R.finding_shaped(sentence)


@pytest.mark.parametrize("sentence", [
    "Does DANK beat the plain SVM on the test points?",             # a question
    "DANK's fit takes 0.4 s at n = 200, faster than before.",       # time, not learning
    "Hover a square for its numbers; click it to open that state on its page.",
])
def test_questions_times_and_instructions_are_not(sentence):
    assert not R.finding_shaped(sentence)


def test_the_scanner_finds_a_new_caption_and_a_changed_word(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "9_New.py").write_text(
        '"""A page."""\nimport streamlit as st\n'
        'st.caption("Colours are classes. KNPL always beats the plain SVM here.")\n'
        'st.caption(f"DANK is {3} points above the SVM; it follows 1-NN.")\n')
    said = R.scan(tmp_path, ("pages/*.py",))
    texts = {s.text for s in said if s.where == "pages/9_New.py"}
    assert texts == {"KNPL always beats the plain SVM here.",
                     "DANK is {} points above the SVM; it follows 1-NN."}
    entry = R.Entry("pages/9_New.py", "KNPL always beats the plain SVM here.", "finding",
                    "claim:atlas", {"domain": "x"})
    left = R.unregistered([s for s in said if not s.where.startswith("claims:")], [entry])
    assert [s.text for s in left] == ["DANK is {} points above the SVM; it follows 1-NN."]
    changed = _said("pages/9_New.py", "KNPL often beats the plain SVM here.")
    assert R.unregistered([changed], [entry]) == [changed]


def test_the_scanner_reads_markdown_paragraphs_lists_and_table_cells(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text(
        "# DANK beats everything\n\nA paragraph that\nwraps. DANK beats the SVM\n"
        "everywhere.\n\n- KNPL never loses.\n\n```\nDANK always wins in code\n```\n\n"
        "| a | b |\n|---|---|\n| LAB RBF (wins) | 3 |\n")
    texts = [s.text for s in R.scan(tmp_path, ("docs/*.md",)) if s.where == "docs/x.md"]
    assert texts == ["DANK beats the SVM everywhere.", "- KNPL never loses.",
                     "LAB RBF (wins)"]


def test_docstrings_are_not_scanned_but_other_strings_are():
    src = ('"""DANK always wins (a docstring)."""\n'
           'def f():\n    """KNPL never loses."""\n'
           '    return "ONK always beats the SVM, which is a long enough string."\n')
    assert R.python_strings(src) == ["ONK always beats the SVM, which is a long enough "
                                     "string."]


def test_a_stale_entry_is_found(tmp_path):
    (tmp_path / "README.md").write_text("DANK beats the SVM at σ = 10.\n")
    keep = R.Entry("README.md", "DANK beats the SVM at σ = 10.", "state", "x", {})
    gone = R.Entry("README.md", "DANK beats the SVM at σ = 1.", "state", "x", {})
    assert R.stale([keep, gone], tmp_path) == [gone]


# ---------------------------------------------------------------------------
# what the pages show: the plain-words walk's states, rendered
# ---------------------------------------------------------------------------

def _patterns() -> list[re.Pattern]:
    """Each registered sentence as a pattern over rendered text: a ``{}`` (a value the
    page fills in) stands for any text, and a piece may stand inside a sentence put
    together from several; an entry's ``rendered`` pattern, for the words a function
    puts together, as it is."""
    out = []
    for e in list(ENTRIES) + R.claim_entries():
        parts = [re.escape(p) for p in e.text.split("{}")]
        out.append(re.compile(".+?".join(parts)))
        if e.rendered:
            out.append(re.compile(e.rendered))
    return out


def _rendered_unknown(texts: list[str]) -> list[str]:
    pats = _patterns()
    whole = [re.compile(e.rendered) for e in ENTRIES if e.rendered]
    bad = []
    for t in texts:
        if any(p.match(str(t)) for p in whole):     # an element a function wrote whole
            continue
        lines = [ln for ln in str(t).splitlines() if not ln.lstrip().startswith("|")]
        for s in R.split_sentences(re.sub(r"\\([^A-Za-z0-9\s])", r"\1", " ".join(lines))):
            if R.finding_shaped(s) and not any(p.search(s) for p in pats):
                bad.append(s)
    return bad


def _open(page: str, query: dict):
    """A page as the walk opens it; Paper results through Home (its preset links
    resolve against the entry script)."""
    from _screen_words import TIMEOUT, open_page
    from streamlit.testing.v1 import AppTest

    if not page.endswith("Paper_results.py"):
        return open_page(page, query)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page(page)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return at.run()


def test_rendered_sentences_match_their_templates():
    ab = next(e for e in ENTRIES if e.text.startswith("So part of the gain survives"))
    shown = ab.text.replace("{}", "F", 2).replace("{}", "+5.0", 1).replace(
        "{}", "+10.0", 1).replace("{}", " points", 1).replace("{}", "50 %", 1)
    assert _rendered_unknown([shown]) == []
    assert _rendered_unknown(["DANK always beats the SVM, everywhere."]) != []


@pytest.mark.slow
def test_the_walked_pages_show_no_unregistered_finding():
    from _screen_words import STATES, screen_texts

    bad = {}
    # and Paper results, where the atlas's map writes its sentences
    for page, query in [*STATES, ("pages/6_Paper_results.py", {}),
                        ("pages/6_Paper_results.py", {"atlas_method": "knpl"})]:
        at = _open(page, query)
        assert not at.exception, (page, [e.value for e in at.exception])
        texts = [x for t, h in screen_texts(at) for x in (t, h) if x]
        unknown = _rendered_unknown(texts)
        if unknown:
            bad[f"{page} {query}"] = unknown
    assert not bad, bad


@pytest.mark.slow
@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_every_lesson_step_before_and_after_its_reveal_shows_no_unregistered_finding(number):
    from _screen_words import open_page, screen_texts

    from nplk_lab.model.lessons import lessons as L

    bad = {}
    for i, step in enumerate(L.lesson(number).steps, 1):
        at = open_page("pages/7_Lessons.py", {"lesson": number, "step": i})
        shown = [[x for t, h in screen_texts(at) for x in (t, h) if x]]
        if step.measure is not None:
            rev = step.reveal()
            pick = step.options[rev.answer if rev.answer >= 0 else 0]
            at.radio(key=f"lesson_pick-L{number}-{i}").set_value(pick).run()
            at.button(key="lesson_lock").click().run()
            assert not at.exception, [e.value for e in at.exception]
            shown.append([x for t, h in screen_texts(at) for x in (t, h) if x])
        unknown = [s for texts in shown for s in _rendered_unknown(texts)]
        if unknown:
            bad[f"step {i}"] = unknown
    assert not bad, bad
