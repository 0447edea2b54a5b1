"""The rules of a class, without a database (nplk_lab/serve/class_store_rules.py and
class_store_results.py): names in every script kept and hostile ones refused, every
formula prefix neutralised in the CSV, seats' secrets checked, the moves of peer
instruction and the rule of thumb on the share right, the shift and the normalised gain
against sums done by hand."""

from __future__ import annotations

import csv
import hashlib
import io
import unicodedata

import pytest

from nplk_lab.serve import class_store_results as results
from nplk_lab.serve.class_store_rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    FORMULA_PREFIXES,
    MAX_COMBINING_RUN,
    MAX_NAME_CHARS,
    REVEALED,
    REVOTE,
    SEAT_CHARS,
    SHIFT,
    SPLIT,
    VOTE,
    ClassError,
    Seat,
    Shift,
    Vote,
    clean_name,
    csv_cell,
    format_code,
    new_seat,
    next_move,
    normal_code,
    open_round,
    seat_secret,
    shift_of,
    sure_value,
    token_hash,
    well_formed,
)

# Real names, as their owners write them (NFC or not: the store keeps NFC)
REAL_NAMES = {
    "Devanagari": "प्रियंका चोपड़ा",            # Priyanka Chopra
    "Devanagari, nukta and vowel sign": "ज़ीनत अमान",   # Zeenat Aman
    "Devanagari, three marks on one letter": "ज़िंदगी",   # a nickname, "Zindagi"
    "Arabic, shadda and vowels": "مُحَمَّد عَلِيّ",      # Muhammad Ali, vocalised
    "Persian, a non-joiner inside": "علی‌رضا",          # Alireza
    "Tamil": "சுப்பிரமணியம்",                       # Subramaniam
    "Bengali": "রবীন্দ্রনাথ ঠাকুর",                  # Rabindranath Tagore
    "Gurmukhi": "ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ",                     # Gurpreet Singh
    "Vietnamese": "Nguyễn Thị Minh Khai",
    "Vietnamese, typed decomposed": unicodedata.normalize("NFD", "Nguyễn Thị Minh Khai"),
    "Thai, vowel and tone on one letter": "กิ่งแก้ว ทักษิณ",  # Kingkaew Thaksin
    "Hangul": "김연아",                              # Kim Yuna
    "Chinese": "王菲",                              # Faye Wong
    "Japanese": "山田 太郎",
    "Georgian": "ჯონ",
    "emoji": "Ana 🌻",
    "emoji with a skin tone": "Bo 👋🏽",
    "emoji sequence with a joiner": "👩‍🔬 Zoé",
    "flag": "🏳️‍🌈",
    "markup as text": "<b>Ana</b> *x*",
}

HOSTILE_NAMES = {
    "Ana\u202eevil": "U+202E RIGHT-TO-LEFT OVERRIDE",
    "\u2066Ana\u2069": "U+2066",
    "A\u200bna": "U+200B ZERO WIDTH SPACE",
    "क\u200bक": "U+200B",                # not a joiner, even between two letters
    "A\u200dna": "U+200D",              # a joiner between Latin letters
    "A\u200cna": "U+200C",
    "Ana\u200d": "U+200D",              # a joiner at the end
    "\u200d🌻": "U+200D",               # ... or at the start
    "Ana\ufeff": "U+FEFF",
    "Ana\nBo": "U+000A",
    "Ana\x00": "U+0000",
    "\x1b[31mAna": "U+001B",
    "Ana\u2028Bo": "U+2028 LINE SEPARATOR",
    "\ue000": "U+E000",
    "A\ud800": "U+D800",
    "Ana\u00adBo": "U+00AD SOFT HYPHEN",
    "a" * (MAX_NAME_CHARS + 1): f"at most {MAX_NAME_CHARS} characters",
    "x" + "\u0301\u0302\u0303\u0304": "accents",
    "ज" + "\u093c\u093f\u0902\u0901": "accents",   # four marks on one letter
}


@pytest.mark.parametrize("script", REAL_NAMES)
def test_real_names_in_every_script_are_kept(script):
    name = REAL_NAMES[script]
    assert clean_name(name) == unicodedata.normalize("NFC", name)
    assert clean_name(f"  {name}  ") == unicodedata.normalize("NFC", name)


def test_the_longest_run_of_marks_a_real_name_needs_is_allowed_and_one_more_is_not():
    runs = []
    for name in REAL_NAMES.values():
        run = best = 0
        for ch in unicodedata.normalize("NFC", name):
            run = run + 1 if unicodedata.category(ch)[0] == "M" else 0
            best = max(best, run)
        runs.append(best)
    assert max(runs) == MAX_COMBINING_RUN == 3
    assert clean_name("x" + "\u0301" * MAX_COMBINING_RUN)
    with pytest.raises(ClassError, match=f"more than {MAX_COMBINING_RUN} accents"):
        clean_name("x" + "\u0301" * (MAX_COMBINING_RUN + 1))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_are_refused_saying_why(name):
    with pytest.raises(ClassError, match=HOSTILE_NAMES[name].replace("+", r"\+")) as e:
        clean_name(name)
    assert isinstance(e.value, ValueError)


def test_no_name_is_a_random_handle_and_a_name_is_text():
    assert clean_name(None) is None and clean_name("") is None and clean_name("   ") is None
    assert clean_name("a" * MAX_NAME_CHARS) == "a" * MAX_NAME_CHARS
    for bad in (42, b"Ana", ["Ana"]):
        with pytest.raises(ClassError, match="text"):
            clean_name(bad)


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_every_formula_prefix_is_neutralised_in_a_cell(prefix):
    cell = csv_cell(prefix + "HYPERLINK(\"http://x\")")
    assert cell == "'" + prefix + "HYPERLINK(\"http://x\")"


def test_the_formula_prefixes_are_owasps_six_and_ordinary_names_pass():
    assert set(FORMULA_PREFIXES) == {"=", "+", "-", "@", "\t", "\r"}
    for plain in ("Ana", "Zoë", "O'Hara", "1 + 1", " =x", "#1", "王菲", ""):
        assert csv_cell(plain) == plain


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_a_typed_name_starting_with_a_formula_prefix_reaches_the_csv_neutralised(prefix):
    name = prefix + "cmd|' /C calc'!A0"
    text = results.answers_csv([("k", name, True), ("j", "Blue Otter 12", False)],
                               {0: 1}, {("k", 0): Vote(1, None, None, None, 0)})
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[1][1] == "'" + name
    assert rows[2][1] == ""            # a random handle is not a name: never written


def test_seats_are_checked_and_hashed():
    s = new_seat()
    assert SEAT_CHARS[0] <= len(s) <= SEAT_CHARS[1] and seat_secret(Seat(s)) == s
    assert len(s) >= 43                  # 256 random bits, as the teacher token's
    assert seat_secret(s) == s and new_seat() != s
    assert "…" in repr(Seat(s)) and s not in repr(Seat(s))
    for bad in (None, "", "x" * (SEAT_CHARS[0] - 1), "x" * (SEAT_CHARS[1] + 1),
                "a" * 40 + "=", "a" * 40 + " ", "ä" * 40, 12345, Seat("short")):
        with pytest.raises(ClassError, match="no seat"):
            seat_secret(bad)
    assert token_hash("abc") == hashlib.sha256(b"abc").hexdigest()
    assert token_hash(None) == token_hash(123) == ""


def test_codes_as_typed_and_shown():
    assert normal_code(" abcd-efgh ") == "ABCDEFGH" and normal_code(None) == ""
    assert well_formed("ABCDEFGH") and not well_formed("ABCDEFG0")
    assert not well_formed("ABCDEFG") and not well_formed("ABCDEFGHJ")
    assert format_code("ABCDEFGH") == "ABCD-EFGH"
    assert len(CODE_ALPHABET) ** CODE_LENGTH > 10 ** 12
    assert not set("01OI") & set(CODE_ALPHABET)


def test_the_moves_of_peer_instruction():
    assert [open_round(p) for p in (VOTE, SPLIT, REVOTE, SHIFT, REVEALED)] == \
        [1, None, 2, None, None]
    assert VOTE < SPLIT < REVOTE < SHIFT < REVEALED
    # the rule of thumb: under about 30 % revisit, 30-70 % discuss, over 70 % explain
    assert [next_move(x) for x in (0.0, 0.29, 0.30, 0.5, 0.70, 0.71, 1.0)] == \
        ["revisit", "revisit", "discuss", "discuss", "discuss", "explain", "explain"]
    assert next_move(None) == ""
    assert sure_value(True) is True and sure_value(False) is False and sure_value(None) is None
    for bad in (1, "yes", 0.5):
        with pytest.raises(ClassError):
            sure_value(bad)


def test_the_shift_against_sums_done_by_hand():
    # ten students, right option 2: first votes 4 right; second 7 right among the 9 who
    # voted again (5 moved to 2, 1 moved away from it); one did not vote again and one
    # only voted in the second round
    pairs = {(2, 2): 3, (2, 0): 1, (0, 2): 3, (1, 2): 2, (0, 0): 1, (1, None): 1,
             (None, 2): 1}
    sh = shift_of(pairs, 2)
    assert sh.first == {2: 4, 0: 4, 1: 3} and sh.second == {2: 9, 0: 2}
    assert (sh.voted_first, sh.voted_second, sh.both) == (11, 11, 10)
    assert (sh.right_first, sh.right_second) == (4, 9)
    assert sh.share_first == pytest.approx(4 / 11) and sh.share_second == pytest.approx(9 / 11)
    assert (sh.to_right, sh.from_right) == (5, 1)
    # over the 10 with both votes: 4 right before, 8 after: (8 - 4) / (10 - 4)
    assert sh.gain == pytest.approx(4 / 6)
    unknown = shift_of(pairs, None)
    assert unknown.first == sh.first and unknown.right_first is None and unknown.gain is None
    assert shift_of(pairs, -1).share_first is None
    # everyone right at first: no gain is defined; nobody voted twice: none either
    assert shift_of({(1, 1): 3}, 1).gain is None
    assert shift_of({(1, None): 3}, 1).gain is None
    assert shift_of({(0, 1): 2, (1, 0): 2}, 1).gain == pytest.approx(0.0)
    assert shift_of({(0, 0): 2}, 1).gain == pytest.approx(0.0)
    assert shift_of({(0, 1): 1, (1, 0): 1, (0, 0): 2}, 1).gain == pytest.approx(0.0)
    assert shift_of({(1, 0): 2, (0, 0): 2}, 1).gain == pytest.approx(-1.0)
    assert shift_of({}, 0) == Shift({}, {}, 0, 0, None, None, None, None, None, None, 0,
                                   None)
    assert shift_of({(1, None): 2}, 1)[4:10] == (2, None, 1.0, None, None, None)


def test_a_step_summary_counts_the_answer_held_at_the_end():
    pairs = {(0, 1): 2, (1, None): 3, (0, None): 1, (None, 0): 1}
    s = results.step_summary(4, REVEALED, 1, pairs)
    assert (s.step, s.correct, s.held, s.right_held) == (4, 1, 7, 5)
    assert s.share_held == pytest.approx(5 / 7)
    hidden = results.step_summary(4, SHIFT, 1, pairs)   # not revealed: no right option
    assert hidden.correct is None and hidden.right_held is None and hidden.share_held is None
    assert hidden.shift.first == {0: 3, 1: 3}


def test_the_answers_csv_lists_every_joined_student():
    students = [("a", "Ana", True), ("b", "Blue Otter 12", False), ("c", "Cy", True)]
    votes = {("a", 0): Vote(0, True, 1, False, 1), ("b", 0): Vote(1, None, None, None, 0),
             ("a", 3): Vote(None, None, 2, None, 0)}
    text = results.answers_csv(students, {0: 1, 3: None}, votes, {0: ("no", "yes")})
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == results.ANSWERS_HEADER
    assert rows[1:] == [
        ["1", "Ana", "no", "sure", "yes", "not sure", "yes", "yes", "yes"],
        ["1", "", "yes", "", "", "", "", "yes", "yes"],
        ["1", "Cy", "", "", "", "", "", "", ""],
        ["4", "Ana", "", "", "option 3", "", "", "option 3", ""],
        ["4", "", "", "", "", "", "", "", ""],
        ["4", "Cy", "", "", "", "", "", "", ""]]
    alone = list(csv.reader(io.StringIO(results.answers_csv(students, {}, {}))))
    assert [r[:2] for r in alone[1:]] == [["", "Ana"], ["", ""], ["", "Cy"]]


# ---------------------------------------------------------------------------
# edges found by mutation testing (docs/mutation-testing.md)
# ---------------------------------------------------------------------------
def test_what_a_refused_name_is_told():
    said = {"Ana\u202eevil": "A name cannot hold invisible or control characters (it "
                             "holds U+202E RIGHT-TO-LEFT OVERRIDE).",
            "A\ue000": "A name cannot hold invisible or control characters (it holds "
                       "U+E000 unnamed character).",
            "x\u0301\u0302\u0303\u0304": f"A name cannot pile more than {MAX_COMBINING_RUN} "
                                         "accents on one letter.",
            "a" * (MAX_NAME_CHARS + 2): f"A name has at most {MAX_NAME_CHARS} characters "
                                        f"(this one has {MAX_NAME_CHARS + 2}).",
            7: "A name is text."}
    for name, words in said.items():
        with pytest.raises(ClassError) as e:
            clean_name(name)
        assert str(e.value) == words


def test_only_spaces_are_trimmed_and_every_character_is_checked():
    for kept in ("Xavier", "Max", "Xu X", "Zoé"):
        assert clean_name(f" {kept} ") == kept
    for bad in ("Ana\n", "\tAna", "Ana\r", "Ana\u2029Bo", "Ana\u2028",
                "👩\u200d🔬\u202e", "ज\u200dज\u202e"):   # after a joiner too
        with pytest.raises(ClassError, match="invisible or control"):
            clean_name(bad)
    # marks counted from the name's start, and across a joiner (no pile hides behind one)
    assert clean_name("\u0301" * MAX_COMBINING_RUN + "a")
    with pytest.raises(ClassError, match="accents"):
        clean_name("\u0301" * (MAX_COMBINING_RUN + 1) + "a")
    assert clean_name("क\u200dक" + "\u0901" * MAX_COMBINING_RUN)
    assert clean_name("क\u0901\u200d" + "\u0901" * (MAX_COMBINING_RUN - 1))
    with pytest.raises(ClassError, match="accents"):
        clean_name("क\u0901\u200d" + "\u0901" * MAX_COMBINING_RUN)
    with pytest.raises(ClassError, match="accents"):
        clean_name("क" + "\u0901\u200d" * 12)


def test_the_shift_and_a_summary_with_the_first_option_right():
    pairs = {(0, 0): 2, (1, 0): 1, (1, None): 1}
    sh = shift_of(pairs, 0)
    assert (sh.right_first, sh.right_second, sh.to_right, sh.from_right) == (2, 3, 1, 0)
    assert sh.gain == pytest.approx(1.0)
    nobody_first = shift_of({(1, 0): 2}, 0)            # the right option has no first vote
    assert (nobody_first.right_first, nobody_first.right_second) == (0, 2)
    nobody_second = shift_of({(0, 1): 2}, 0)
    assert (nobody_second.right_first, nobody_second.right_second) == (2, 0)
    unknown = shift_of(pairs, None)
    assert (unknown.second, unknown.voted_second, unknown.both) == ({0: 3}, 3, 3)
    s = results.step_summary(0, REVEALED, 0, pairs)
    assert (s.held, s.right_held) == (4, 3)
    none_right = results.step_summary(0, REVEALED, 2, pairs)
    assert (none_right.right_held, none_right.share_held) == (0, 0.0)
    table = list(csv.reader(io.StringIO(results.answers_csv(
        [("a", "Ana", True)], {0: 0}, {("a", 0): Vote(1, None, 0, None, 0)}), newline="")))
    assert table[1][-2:] == ["option 1", "yes"]


def test_a_seat_never_shows_its_secret_and_any_string_hashes():
    s = Seat(new_seat())
    assert repr(s) == "Seat(…)" and str(s) == "Seat(…)"
    lone = "abc\ud800"                       # no codec writes it; its hash is defined
    assert token_hash(lone) == hashlib.sha256(lone.encode("utf-8", "surrogatepass")).hexdigest()
    assert token_hash(lone) != token_hash("abc")


def test_a_random_handle_is_an_adjective_an_animal_and_a_two_digit_number(monkeypatch):
    from nplk_lab.serve import class_store_rules as rules

    for drawn, number in ((0, "10"), (89, "99")):
        monkeypatch.setattr(rules.secrets, "randbelow", lambda n, d=drawn: min(d, n - 1))
        monkeypatch.setattr(rules.secrets, "choice", lambda seq: seq[0])
        assert rules.random_handle() == f"Blue Otter {number}"
    monkeypatch.undo()
    for _ in range(50):
        adjective, animal, number = rules.random_handle().split()
        assert 10 <= int(number) <= 99 and adjective.istitle() and animal.istitle()
