"""What the class store says and keeps, exactly, on SQLite and PostgreSQL (the fixtures
of ``test_class_store.py``): every refusal's words (a page shows them as they are), the
edges of every range, the waits a limit announces, which change moves which version
(students' screens follow ``version``, the teacher's count ``count_version``), and the
votes as they read back. Most of these were found by mutation testing
(docs/mutation-testing.md): a change to a message, a bound or a version survived the
other tests."""

from __future__ import annotations

import csv
import io
import re

import pytest
from _class_store import T0, rows, seat

from nplk_lab.serve.class_store import (
    ClassError,
    ClassOver,
    ClassStore,
    Seat,
    TooMany,
    UnknownClass,
    Vote,
    WrongToken,
)
from nplk_lab.serve.class_store_rules import (
    ANSWER_WINDOW_S,
    IDLE_TIMEOUT_RANGE_S,
    JOIN_WINDOW_S,
    MAX_ANSWERS,
    MAX_FAILED_JOINS,
    MAX_LESSON_CHARS,
    MAX_STUDENTS,
    MAX_TEACHER_DEVICES,
    RETENTION_RANGE_S,
    REVEALED,
    REVIEW_S,
    REVOTE,
    SEAT_CHARS,
    SHIFT,
    SPLIT,
    new_seat,
)


def refused(exc: type, words: str, op) -> None:
    """``op()`` refuses with exactly ``words``."""
    with pytest.raises(exc) as e:
        op()
    assert str(e.value) == words


def test_every_refusal_says_what_is_wrong_in_plain_words(store):  # noqa: F811
    t = seat()
    st = store.start_class(1, seat=t)
    j = seat()
    store.join(st.code, seat=j)
    c = st.code
    step = "A step is a whole number from 0 to 199."
    for op in (lambda: store.vote(c, j, 200, 0), lambda: store.vote_of(c, j, -1),
               lambda: store.counts(c, True), lambda: store.pairs(c, 1.5),
               lambda: store.missing(c, t, 200), lambda: store.advance(c, t, step=-1),
               lambda: store.move(c, t, SPLIT, step=200)):
        refused(ClassError, step, op)
    refused(ClassError, "An answer is a whole number from 0 to 11.",
            lambda: store.vote(c, j, 0, 12))
    refused(ClassError, "The right option is a whole number from -1 to 11.",
            lambda: store.reveal(c, t, correct=-2))
    refused(ClassError, "A phase is a whole number from 1 to 4.",
            lambda: store.move(c, t, 0))
    size = f"A class's size is a whole number from 1 to {MAX_STUDENTS}."
    for op in (lambda: store.start_class(1, size=0), lambda: store.resize(c, t, 0),
               lambda: store.start_class(1, size=MAX_STUDENTS + 1),
               lambda: store.resize(c, t, MAX_STUDENTS + 1)):
        refused(ClassError, size, op)
    refused(ClassError, f"A lesson's name is plain text of 1 to {MAX_LESSON_CHARS} "
                        "characters.", lambda: store.start_class(""))
    refused(ClassError, "The idle time is from 60 to 86400 seconds.",
            lambda: store.start_class(1, idle_timeout_s=59))
    refused(ClassError, "The retention is from 60 to 2.592e+06 seconds.",
            lambda: store.start_class(1, retention_s=30 * 86400 + 1))
    refused(ClassError, "Sure or not sure is yes, no or not said.",
            lambda: store.vote(c, j, 0, 0, sure=1))
    for op in (lambda: store.counts(c, 0, round=3), lambda: store.missing(c, t, 0, round=0)):
        refused(ClassError, "A round is the first or the second vote.", op)
    refused(ClassError, "This browser has no seat in the class: reload the page "
                        "(cookies must be allowed for this site).",
            lambda: store.join(c, seat="short"))
    refused(UnknownClass, "You are not in this class: join it again.",
            lambda: store.vote(c, seat(), 0, 0))
    refused(UnknownClass, "There is no class with this code (it may have ended and been "
                          "deleted).", lambda: store.state("ZZZZZZZZ"))
    refused(UnknownClass, "There is no class with this code: check it on your teacher's "
                          "screen.", lambda: store.join("ZZZZZZZZ", seat=seat()))
    refused(WrongToken, "Only the class's teacher can do this (the teacher link makes a "
                        "browser a teacher device).", lambda: store.end(c, j))
    refused(ClassError, "This browser is the class's teacher: students join on their own "
                        "phones or computers.", lambda: store.join(c, seat=t))
    refused(ClassError, "This question is not open: the class is at step 1.",
            lambda: store.vote(c, j, 3, 0))
    store.move(c, t, SPLIT)
    refused(ClassError, "Votes on this question are closed for now.",
            lambda: store.vote(c, j, 0, 0))
    store.reveal(c, t, correct=0)
    refused(ClassError, "Votes on this question are closed: the answer is revealed.",
            lambda: store.vote(c, j, 0, 0))
    refused(ClassError, "This question is at revealed already: it cannot go back to the "
                        "split.", lambda: store.move(c, t, SPLIT))
    store.end(c, t)
    for op in (lambda: store.vote(c, j, 0, 0), lambda: store.advance(c, t),
               lambda: store.join(c, seat=seat())):
        refused(ClassOver, "This class has ended.", op)
    full = store.start_class(1, size=1).code
    store.join(full, seat=seat())
    refused(TooMany, "This class is full (1 students): your teacher can make it larger.",
            lambda: store.join(full, seat=seat()))


def test_the_edges_of_every_range_are_kept(store):  # noqa: F811
    t = seat()
    assert store.start_class("x" * MAX_LESSON_CHARS).code
    assert store.start_class(1, idle_timeout_s=IDLE_TIMEOUT_RANGE_S[1]).code
    assert store.start_class(1, retention_s=RETENTION_RANGE_S[1]).code
    one = store.start_class(1, size=1, seat=t).code
    assert store.state(one).size == 1
    assert store.resize(one, t, MAX_STUDENTS).size == MAX_STUDENTS
    assert store.state(store.start_class(1, size=MAX_STUDENTS).code).size == MAX_STUDENTS
    # seats: as short and as long as the lab takes them back, any of its characters
    alphabet = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    for secret in ("a" * SEAT_CHARS[0], "b" * SEAT_CHARS[1], alphabet):
        store.join(one if secret == "a" * SEAT_CHARS[0] else
                   store.start_class(1).code, seat=Seat(secret))
    # the lab's own seats have 43 characters: 31 is none of them, whatever the bounds say
    assert SEAT_CHARS[0] <= 32
    for secret in (new_seat()[:SEAT_CHARS[0] - 1], new_seat()[:31], "c" * (SEAT_CHARS[1] + 1)):
        with pytest.raises(ClassError, match="no seat"):
            store.join(store.start_class(1).code, seat=Seat(secret))


def test_the_waits_a_limit_announces(store, clock):  # noqa: F811
    st = store.start_class(1)
    for _ in range(MAX_FAILED_JOINS):
        with pytest.raises(UnknownClass):
            store.join("ZZZZZZZZ", seat=seat(), client="c")
    for after, minutes in ((0, 10), (125, 8), (JOIN_WINDOW_S - 61, 2),
                           (JOIN_WINDOW_S - 10, 1)):
        clock.t = T0 + after
        refused(TooMany, f"Too many wrong codes from this network: try again in {minutes} "
                         "min (a class someone here has joined still opens).",
                lambda: store.join(st.code, seat=seat(), client="c"))
    # a new window: the whole allowance again, counted from one
    clock.t = T0 + JOIN_WINDOW_S
    for _ in range(MAX_FAILED_JOINS):
        with pytest.raises(UnknownClass):
            store.join("ZZZZZZZZ", seat=seat(), client="c")
    with pytest.raises(TooMany):
        store.join("ZZZZZZZZ", seat=seat(), client="c")
    # votes: the wait in seconds, and a window that ends exactly on time
    j = seat()
    store.join(st.code, seat=j)
    clock.t = start = T0 + 1000
    for i in range(MAX_ANSWERS):
        store.vote(st.code, j, 0, i % 3)
    clock.t = start + 20.5
    refused(TooMany, f"That is {MAX_ANSWERS} votes in {ANSWER_WINDOW_S:.0f} s: wait 40 s.",
            lambda: store.vote(st.code, j, 0, 1))
    clock.t = start + ANSWER_WINDOW_S
    for i in range(MAX_ANSWERS):        # the window's whole allowance again
        store.vote(st.code, j, 0, i % 3)
    with pytest.raises(TooMany):
        store.vote(st.code, j, 0, 1)


def test_which_change_moves_which_version(store, clock):  # noqa: F811
    t = seat()
    st = store.start_class(1, seat=t)
    s0 = store.state(st.code)
    assert (s0.started_at, s0.version, s0.count_version) == (T0, 1, 0)
    assert s0.idle_timeout_s == 2 * 3600.0
    j = seat()
    store.join(st.code, seat=j)                              # counts only
    s1 = store.state(st.code)
    assert (s1.version, s1.count_version) == (1, 1)
    store.vote(st.code, j, 0, 1)
    c = store.counts(st.code, 0)
    assert c.count_version == store.state(st.code).count_version == 2
    s2 = store.advance(st.code, t)                           # the step: every screen
    assert (s2.version, s2.count_version) == (2, 2)
    s3 = store.move(st.code, t, SPLIT, correct=1)            # a right option before the
    assert (s3.version, s3.correct) == (3, None)             # reveal is not kept
    assert store.resize(st.code, t, 50).count_version == 3
    assert store.end(st.code, t).version == 4


def test_votes_read_back_as_given_with_how_sure(store):  # noqa: F811
    t = seat()
    st = store.start_class(1, seat=t)
    a, b = seat(), seat()
    for s in (a, b):
        store.join(st.code, seat=s)
    store.vote(st.code, a, 0, 0, sure=True)
    store.vote(st.code, b, 0, 2)
    store.move(st.code, t, REVOTE)
    store.vote(st.code, a, 0, 0, sure=False)
    store.vote(st.code, b, 0, 1, sure=True)
    assert store.vote_of(st.code, a, 0) == Vote(0, True, 0, False, 0)
    assert store.vote_of(st.code, b, 0) == Vote(2, None, 1, True, 0)
    entry = store.enter(st.code, b)
    assert (entry.role, entry.state.code, entry.state.phase) == ("student", st.code, REVOTE)
    visitor = store.enter(st.code, seat())
    assert (visitor.role, visitor.state.code, visitor.state.students) == \
        ("visitor", st.code, 2)
    claimed = store.claim_teacher(st.code, st.teacher_token, seat())
    assert (claimed.role, claimed.state.code) == ("teacher", st.code)
    store.move(st.code, t, SHIFT)
    store.reveal(st.code, t, correct=0)
    assert store.state(st.code).phase == REVEALED


def test_the_csv_files_end_their_lines_as_rfc_4180_says(store):  # noqa: F811
    t = seat()
    st = store.start_class(1, seat=t)
    j = seat()
    store.join(st.code, "Ana", seat=j)
    store.vote(st.code, j, 0, 1)
    store.reveal(st.code, t, correct=-1)
    for text in (store.summary_csv(st.code, t), store.answers_csv(st.code, t, {0: ("no",)})):
        assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    table = list(csv.reader(io.StringIO(store.answers_csv(st.code, t, {0: ("no",)}),
                                        newline="")))
    # an option past the words given is named by its number; none right: no verdict
    assert table[1] == ["1", "Ana", "option 2", "", "", "", "", "option 2", ""]


def test_an_idle_class_ended_by_purge_keeps_its_results_for_the_review_time(store, clock):  # noqa: F811
    st = store.start_class(1, idle_timeout_s=60, retention_s=60)
    clock.t = T0 + 100                        # idle since T0 + 60: ended then
    assert store.purge() == (1, 0)
    s = store.state(st.code)
    assert s.ended and s.delete_at == T0 + 60 + REVIEW_S
    assert store.purge(T0 + 60 + REVIEW_S - 1) == (0, 0)
    assert store.purge(T0 + 60 + REVIEW_S) == (0, 1)


def test_client_addresses_are_salted_per_store(where, tmp_path, clock):  # noqa: F811
    """The same address counts under another key in another store (its salt), and an
    address no text codec can write (a lone surrogate) is counted all the same."""
    if not where.startswith("postgres"):
        other = str(tmp_path / "other")
    else:
        pytest.skip("one PostgreSQL schema per test here")
    keys = []
    for place in (where, other):
        with ClassStore(place, clock=clock) as s:
            with pytest.raises(UnknownClass):
                s.join("ZZZZZZZZ", seat=seat(), client="192.0.2.1\ud800")
            keys.append(rows(s, "join_failures")[0][0])
            assert re.fullmatch(r"[0-9a-f]{32}", keys[-1])
    assert keys[0] != keys[1]


def test_a_teacher_device_limit_and_a_new_link_say_so(store):  # noqa: F811
    t = seat()
    st = store.start_class(1, seat=t)
    for _ in range(MAX_TEACHER_DEVICES - 1):
        store.claim_teacher(st.code, st.teacher_token, seat())
    refused(TooMany, f"This class has {MAX_TEACHER_DEVICES} teacher devices already.",
            lambda: store.claim_teacher(st.code, st.teacher_token, seat()))
    new = store.new_teacher_link(st.code, t)
    assert len(new) >= 43 and store.claim_teacher(st.code, new, t).role == "teacher"


def test_a_code_already_taken_is_drawn_again_and_eight_in_a_row_give_up(store,  # noqa: F811
                                                                         monkeypatch):
    from nplk_lab.serve import class_store_teacher

    letters = iter("A" * 8 + "A" * 8 + "B" * 8)
    monkeypatch.setattr(class_store_teacher.secrets, "choice", lambda seq: next(letters))
    first = store.start_class(1)
    assert first.code == "A" * 8
    second = store.start_class(2)
    assert second.code == "B" * 8
    assert store.state("A" * 8).lesson == "1" and store.state("B" * 8).lesson == "2"
    taken = iter("A" * 8 * 8 + "C" * 8)   # eight draws taken (a ninth would be free)
    monkeypatch.setattr(class_store_teacher.secrets, "choice", lambda seq: next(taken))
    with pytest.raises(RuntimeError, match="^no free join code$"):
        store.start_class(3)
