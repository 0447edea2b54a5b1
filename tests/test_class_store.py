"""The class store, one process: every test runs on SQLite and on a real PostgreSQL
server (:mod:`_postgres`: Debian's ``initdb`` + ``pg_ctl`` in a temporary folder); the
PostgreSQL runs skip, saying why, where no server can be started. Time is a clock the
tests move: no test sleeps. The limits: ``test_class_store_limits.py``; processes at
once and a killed one: ``test_class_store_processes.py``; the rules without a
database: ``test_class_store_rules.py``."""

from __future__ import annotations

import csv
import io
import time
from concurrent.futures import ThreadPoolExecutor

import _postgres
import pytest
from _class_store import T0, rows, seat, tables

from nplk_lab.serve import class_store_base
from nplk_lab.serve.class_store import (
    ClassError,
    ClassOver,
    Seat,
    TooMany,
    UnknownClass,
    Vote,
    WrongToken,
    format_code,
)
from nplk_lab.serve.class_store_results import ANSWERS_HEADER, SUMMARY_HEADER
from nplk_lab.serve.class_store_rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_OPTIONS,
    MAX_STEPS,
    MAX_TEACHER_DEVICES,
    REVEALED,
    REVIEW_S,
    REVOTE,
    SHIFT,
    SPLIT,
    VOTE,
    end_of_day,
    token_hash,
)


def parse_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


# ---------------------------------------------------------------------------
# a class, start to end: the whole sequence of peer instruction
# ---------------------------------------------------------------------------
def test_a_class_through_both_votes_the_shift_and_the_reveal(store, clock):
    teacher = seat()
    st = store.start_class(3, seat=teacher)
    assert len(st.code) == CODE_LENGTH and set(st.code) <= set(CODE_ALPHABET)
    code, tok = st.code, st.teacher_token
    ana, bo, cy, dee = seat(), seat(), seat(), seat()
    assert store.join(code, "Ana", seat=ana) == ("Ana", False)
    clock.t += 1
    assert store.join(code, "Bo", seat=bo).handle == "Bo"
    clock.t += 1
    anon = store.join(code, seat=cy)
    assert anon.handle and not anon.again
    clock.t += 1
    store.join(code, "Dee", seat=dee)            # joins, votes only the second time
    s0 = store.state(code)
    assert (s0.lesson, s0.step, s0.phase, s0.revealed, s0.ended, s0.students) == \
        ("3", 0, VOTE, False, False, 4)

    # the first vote: changeable while it is open; the count is of votes now
    assert store.vote(code, ana, 0, 2, sure=False) == Vote(2, False, None, None, 0)
    assert store.vote(code, ana, 0, 1, sure=True) == Vote(1, True, None, None, 1)
    store.vote(code, bo, 0, 0)
    store.vote(code, cy, 0, 0, sure=True)
    c1 = store.counts(code, 0)
    assert (c1.answered, c1.by_choice) == (3, {1: 1, 0: 2})
    assert store.missing(code, teacher, 0) == (1, ("Dee",))
    # the split: the first vote closes
    split = store.move(code, teacher, SPLIT)
    assert split.phase == SPLIT and split.version == s0.version + 1
    with pytest.raises(ClassError, match="closed for now"):
        store.vote(code, bo, 0, 1)
    # talk to your neighbour, then the second vote
    assert store.move(code, tok, REVOTE).phase == REVOTE
    assert store.vote(code, bo, 0, 1, sure=True) == Vote(0, None, 1, True, 0)
    store.vote(code, cy, 0, 1)
    store.vote(code, cy, 0, 0)
    store.vote(code, dee, 0, 1)                  # second round only
    assert store.counts(code, 0).by_choice == {1: 1, 0: 2}     # the first vote kept
    assert store.counts(code, 0, round=2).by_choice == {1: 2, 0: 1}
    assert store.missing(code, teacher, 0, round=2) == (1, ("Ana",))
    assert store.pairs(code, 0) == {(1, None): 1, (0, 1): 1, (0, 0): 1, (None, 1): 1}
    # the shift, then the reveal
    assert store.move(code, teacher, SHIFT).phase == SHIFT
    with pytest.raises(ClassError, match="closed"):
        store.vote(code, cy, 0, 1)
    shown = store.reveal(code, teacher, correct=1)
    assert (shown.phase, shown.revealed, shown.correct, shown.revealed_steps) == \
        (REVEALED, True, 1, (0,))
    with pytest.raises(ClassError, match="revealed"):
        store.vote(code, ana, 0, 0)
    assert store.reveal(code, teacher, correct=2).version == shown.version  # once only
    # the verdict goes by the answer held at the reveal: Cy changed to 1 and back to 0
    assert store.vote_of(code, cy, 0).held == 0 and store.vote_of(code, ana, 0).held == 1
    assert store.vote_of(code, dee, 0).held == 1

    moved = store.advance(code, teacher)
    assert (moved.step, moved.phase, moved.revealed, moved.correct) == (1, VOTE, False, None)
    store.vote(code, ana, 1, 3)
    store.reveal(code, teacher, correct=3)       # straight to the reveal: one vote only
    assert store.advance(code, tok, step=4).step == 4
    back = store.advance(code, teacher, step=0)  # back to a revealed step: still revealed
    assert (back.step, back.phase, back.correct, back.revealed_steps) == \
        (0, REVEALED, 1, (0, 1))
    over = store.end(code, teacher)
    assert over.ended and over.version == back.version + 1
    assert store.end(code, teacher).version == over.version
    for refused in (lambda: store.vote(code, ana, 0, 0),
                    lambda: store.join(code, "Late", seat=seat()),
                    lambda: store.reveal(code, teacher), lambda: store.advance(code, tok),
                    lambda: store.move(code, teacher, SPLIT)):
        with pytest.raises(ClassOver, match="ended"):
            refused()

    s_0, s_1 = store.summary(code, teacher)
    assert (s_0.step, s_0.correct, s_0.held, s_0.right_held) == (0, 1, 4, 3)
    sh = s_0.shift
    assert (sh.voted_first, sh.right_first, sh.voted_second, sh.right_second) == (3, 1, 3, 2)
    assert (sh.to_right, sh.from_right, sh.both) == (1, 0, 2)
    assert sh.gain == pytest.approx(0.5)         # of Bo and Cy: 0 right, then 1 of 2
    assert (s_1.step, s_1.shift.voted_first, s_1.shift.voted_second, s_1.shift.gain) == \
        (1, 1, 0, None)
    table = parse_csv(store.summary_csv(code, tok))
    assert table[0] == SUMMARY_HEADER
    assert table[1:] == [["1", "3", "1", "33", "3", "2", "67", "1", "0", "0.50", "4", "3",
                          "75"],
                         ["2", "1", "1", "100", "0", "", "", "", "", "", "1", "1", "100"]]
    answers = parse_csv(store.answers_csv(code, teacher, options={0: ("no", "yes", "maybe")}))
    assert answers[0] == ANSWERS_HEADER
    assert answers[1:] == [
        ["1", "Ana", "yes", "sure", "", "", "", "yes", "yes"],
        ["1", "Bo", "no", "", "yes", "sure", "yes", "yes", "yes"],
        ["1", "", "no", "sure", "no", "", "no", "no", "no"],
        ["1", "Dee", "", "", "yes", "", "", "yes", "yes"],
        ["2", "Ana", "option 4", "", "", "", "", "option 4", "yes"],
        ["2", "Bo", "", "", "", "", "", "", ""],
        ["2", "", "", "", "", "", "", "", ""],
        ["2", "Dee", "", "", "", "", "", "", ""]]


def test_moves_go_forward_only_and_may_skip(store):
    t = seat()
    st = store.start_class(1, seat=t)
    v0 = store.state(st.code).version
    assert store.move(st.code, t, REVOTE).phase == REVOTE          # the split skipped
    assert store.move(st.code, t, REVOTE).version == v0 + 1        # again: no change
    with pytest.raises(ClassError, match="cannot go back to the split"):
        store.move(st.code, t, SPLIT)
    for bad in (VOTE, REVEALED + 1, -1, True, "2"):
        with pytest.raises(ClassError, match="phase"):
            store.move(st.code, t, bad)
    # another step's phase is its own; a step not shown yet takes no vote
    assert store.move(st.code, t, SPLIT, step=3).phase == REVOTE   # the current step's
    store.advance(st.code, t, step=3)
    assert store.state(st.code).phase == SPLIT
    j = seat()
    store.join(st.code, seat=j)
    with pytest.raises(ClassError, match="not open: the class is at step 4"):
        store.vote(st.code, j, 0, 1)


def test_a_step_revealed_without_its_right_option_has_no_share(store):
    t = seat()
    st = store.start_class("lesson 1", seat=t)
    j = seat()
    store.join(st.code, seat=j)
    store.vote(st.code, j, 0, 0)
    store.reveal(st.code, t)                     # right option not given
    store.reveal(st.code, t, step=2, correct=-1)   # none of the options
    s0, s2 = store.summary(st.code, t)
    assert (s0.correct, s0.shift.share_first, s0.right_held, s0.share_held) == \
        (None, None, None, None)
    assert (s2.step, s2.correct, s2.held, s2.shift.voted_first) == (2, -1, 0, 0)


def test_codes_work_as_people_type_them(store):
    st = store.start_class(1)
    shown = format_code(st.code)
    assert shown == f"{st.code[:4]}-{st.code[4:]}"
    for typed in (shown, shown.lower(), f"  {st.code[:4]} {st.code[4:]} ", st.code):
        store.join(typed, seat=seat())
    assert store.state(shown.lower()).students == 4
    assert len({store.start_class(1).code for _ in range(20)}) == 20


# ---------------------------------------------------------------------------
# who is the teacher
# ---------------------------------------------------------------------------
def test_only_the_teacher_moves_reveals_ends_or_reads_the_results(store, monkeypatch):
    ta = seat()
    a, b = store.start_class(1, seat=ta), store.start_class(1, seat=seat())
    student = seat()
    store.join(a.code, seat=student)
    compared = []
    real = class_store_base.hmac.compare_digest
    monkeypatch.setattr(class_store_base.hmac, "compare_digest",
                        lambda x, y: compared.append(1) or real(x, y))
    before = store.state(a.code)
    tokens = [b.teacher_token, "", a.teacher_token[:-1], a.teacher_token + "x", None, 123,
              a.teacher_token.swapcase(), student.secret]
    seats = [student, seat(), Seat("not a seat"), Seat(a.teacher_token)]
    ops = [lambda t: store.reveal(a.code, t), lambda t: store.advance(a.code, t),
           lambda t: store.move(a.code, t, SPLIT), lambda t: store.end(a.code, t),
           lambda t: store.resize(a.code, t, 10), lambda t: store.summary(a.code, t),
           lambda t: store.summary_csv(a.code, t), lambda t: store.answers_csv(a.code, t),
           lambda t: store.missing(a.code, t, 0), lambda t: store.new_teacher_link(a.code, t)]
    for who in tokens + seats:
        for op in ops:
            with pytest.raises(WrongToken, match="Only the class's teacher"):
                op(who)
    assert len(compared) == len(tokens) * len(ops)   # each token compared in constant time
    assert store.state(a.code) == before
    assert store.advance(a.code, a.teacher_token).step == 1
    assert store.advance(a.code, ta).step == 2


def test_the_teacher_stays_the_teacher_on_every_device_made_one(open_store, store, clock):
    laptop = seat()
    st = store.start_class(1, seat=laptop)
    # a reload, a new worker, a restarted server: the same browser is the teacher
    again = open_store()
    entry = again.enter(st.code, laptop)
    assert (entry.role, entry.state.code) == ("teacher", st.code)
    assert [s.code for s in again.teaching(laptop)] == [st.code]
    # a phone made a teacher device by the teacher link: a remote
    phone = seat()
    assert store.enter(st.code, phone).role == "visitor"
    with pytest.raises(WrongToken):
        store.claim_teacher(st.code, "wrong", phone)
    assert store.claim_teacher(st.code, st.teacher_token, phone).role == "teacher"
    assert store.claim_teacher(st.code, st.teacher_token, phone).role == "teacher"   # once
    assert store.enter(st.code, phone).role == "teacher"
    assert store.move(st.code, phone, SPLIT).phase == SPLIT
    # a device cannot join its own class as a student
    with pytest.raises(ClassError, match="teacher"):
        store.join(st.code, seat=phone)
    # a new teacher link: the old one stops working, the devices stay teachers
    new = store.new_teacher_link(st.code, laptop)
    assert new != st.teacher_token
    with pytest.raises(WrongToken):
        store.claim_teacher(st.code, st.teacher_token, seat())
    assert store.enter(st.code, phone).role == "teacher"
    assert store.claim_teacher(st.code, new, seat()).role == "teacher"
    # at most MAX_TEACHER_DEVICES
    for _ in range(MAX_TEACHER_DEVICES - 3):
        store.claim_teacher(st.code, new, seat())
    with pytest.raises(TooMany, match=f"{MAX_TEACHER_DEVICES} teacher devices"):
        store.claim_teacher(st.code, new, seat())
    # a class over is no longer one the browser is teaching
    clock.t += 60
    other = store.start_class(2, seat=laptop)
    assert [s.code for s in store.teaching(laptop)] == [other.code, st.code]
    store.end(st.code, laptop)
    assert [s.code for s in store.teaching(laptop)] == [other.code]
    assert store.teaching(Seat("nonsense")) == () and store.teaching(seat()) == ()
    assert store.enter(st.code, laptop).role == "teacher"      # its results stay his


# ---------------------------------------------------------------------------
# students
# ---------------------------------------------------------------------------
def test_one_browser_is_one_student(store):
    st = store.start_class(1)
    browser = seat()
    first = store.join(st.code, "Ana", seat=browser)
    for name in ("Ana", None, "Someone else"):    # a second tab, a reload, a new name
        assert store.join(st.code, name, seat=browser) == (first.handle, True)
    assert store.state(st.code).students == 1
    entry = store.enter(st.code, browser)
    assert (entry.role, entry.handle) == ("student", "Ana")
    store.vote(st.code, browser, 0, 1)
    assert store.vote_of(st.code, Seat(browser.secret), 0).first == 1   # any tab of it
    # another browser is not that student, whatever it knows of the class
    other = seat()
    assert store.enter(st.code, other).role == "visitor"
    assert store.vote_of(st.code, other, 0) is None
    with pytest.raises(UnknownClass, match="join it again"):
        store.vote(st.code, other, 0, 0)


def test_students_see_no_names_and_the_csv_names_only_typed_ones(store):
    t = seat()
    st = store.start_class(1, seat=t)
    typed, anon = seat(), seat()
    store.join(st.code, "=HYPERLINK(\"http://x\")", seat=typed)
    handle = store.join(st.code, seat=anon).handle
    for j in (typed, anon):
        store.vote(st.code, j, 0, 1)
    seen = repr(store.state(st.code)) + repr(store.counts(st.code, 0)) + \
        repr(store.pairs(st.code, 0))
    assert "HYPERLINK" not in seen and handle not in seen
    table = parse_csv(store.answers_csv(st.code, t))
    assert sorted(r[1] for r in table[1:]) == ["", "'=HYPERLINK(\"http://x\")"]
    assert handle not in store.answers_csv(st.code, t)
    assert store.missing(st.code, t, 0, round=2) == (2, ("=HYPERLINK(\"http://x\")",))


def test_what_the_store_keeps(store):
    laptop, phone, ana = seat(), seat(), seat()
    st = store.start_class(1, seat=laptop)
    store.claim_teacher(st.code, st.teacher_token, phone)
    store.join(st.code, "Ana", seat=ana, client="203.0.113.7")
    with pytest.raises(UnknownClass):
        store.join("ZZZZZZZZ", seat=seat(), client="198.51.100.9")
    store.vote(st.code, ana, 0, 2, sure=True)
    assert tables(store) == {"schema_version", "classes", "phases", "students", "votes",
                             "teachers", "join_failures", "join_sources", "salt"}
    everything = repr([rows(store, t) for t in sorted(tables(store))])
    for secret in (st.teacher_token, laptop.secret, phone.secret, ana.secret,
                   "203.0.113.7", "198.51.100.9"):
        assert secret not in everything
    for kept in (token_hash(st.teacher_token), token_hash(ana.secret),
                 token_hash(phone.secret), "Ana", st.code):
        assert kept in everything
    assert len(rows(store, "join_failures")) == 1   # the wrong code's source, hashed
    assert len(rows(store, "join_sources")) == 1    # where Ana joined from, hashed


def test_votes_are_rate_limited_per_student(store, clock):
    from nplk_lab.serve.class_store_rules import ANSWER_WINDOW_S, MAX_ANSWERS
    st = store.start_class(1)
    a, b = seat(), seat()
    store.join(st.code, seat=a)
    store.join(st.code, seat=b)
    for i in range(MAX_ANSWERS):
        clock.t += 1
        store.vote(st.code, a, 0, i % 2)
    with pytest.raises(TooMany, match="wait"):
        store.vote(st.code, a, 0, 3)
    assert store.vote_of(st.code, a, 0).first == (MAX_ANSWERS - 1) % 2
    store.vote(st.code, b, 0, 3)                  # another student is not held back
    clock.t += ANSWER_WINDOW_S
    assert store.vote(st.code, a, 0, 3).first == 3


def test_values_out_of_range_are_refused(store):
    t = seat()
    st = store.start_class(1, seat=t)
    j = seat()
    store.join(st.code, seat=j)
    bad = [lambda: store.vote(st.code, j, -1, 0),
           lambda: store.vote(st.code, j, MAX_STEPS, 0),
           lambda: store.vote(st.code, j, True, 0),
           lambda: store.vote(st.code, j, 1.0, 0),
           lambda: store.vote(st.code, j, "0", 0),
           lambda: store.vote(st.code, j, 0, MAX_OPTIONS),
           lambda: store.vote(st.code, j, 0, -1),
           lambda: store.vote(st.code, j, 0, 1, sure="yes"),
           lambda: store.vote(st.code, "short", 0, 1),
           lambda: store.join(st.code, seat=None),
           lambda: store.enter(st.code, ""),
           lambda: store.counts(st.code, -1),
           lambda: store.counts(st.code, 0, round=3),
           lambda: store.missing(st.code, t, 0, round=0),
           lambda: store.reveal(st.code, t, correct=MAX_OPTIONS),
           lambda: store.reveal(st.code, t, correct=-2),
           lambda: store.advance(st.code, t, step=MAX_STEPS),
           lambda: store.resize(st.code, t, 0),
           lambda: store.start_class(""), lambda: store.start_class("x" * 65),
           lambda: store.start_class("a\nb"),
           lambda: store.start_class(1, idle_timeout_s=0),
           lambda: store.start_class(1, retention_s=10),
           lambda: store.start_class(1, seat=Seat("x"))]
    for op in bad:
        with pytest.raises(ClassError):
            op()
    assert store.counts(st.code, 0).answered == 0 and store.state(st.code).students == 1


def test_a_store_outlives_the_server_dropping_its_idle_connections(store):
    """A PostgreSQL server restarted, or its administrator ending sessions: the store's
    idle connections are gone, and the next operation opens a new one."""
    if store.backend != "postgresql":
        pytest.skip("SQLite has no server to drop connections")
    st = store.start_class(1)
    with ThreadPoolExecutor(4) as pool:   # several idle connections in the pool
        list(pool.map(lambda _: store.join(st.code, seat=seat()), range(8)))
    import psycopg

    base = _postgres.server()
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        dropped = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
            "usename = 'nplk' AND pid <> pg_backend_pid() AND state = 'idle'").fetchone()[0]
    assert dropped >= 2
    assert store.state(st.code).students == 8
    store.join(st.code, seat=seat())


# ---------------------------------------------------------------------------
# time: idle end and retention
# ---------------------------------------------------------------------------
def test_an_idle_class_ends_and_purge_records_it(store, clock):
    t = seat()
    st = store.start_class(1, idle_timeout_s=600, seat=t)
    j = seat()
    store.join(st.code, seat=j)
    clock.t += 500
    store.vote(st.code, j, 0, 1)                  # activity: idle time starts again
    clock.t += 600
    live = store.state(st.code)
    assert not live.ended
    clock.t += 1
    idle = store.state(st.code)
    assert idle.ended and idle.version == live.version + 1
    with pytest.raises(ClassOver):
        store.vote(st.code, j, 0, 2)
    with pytest.raises(ClassOver):
        store.advance(st.code, t)
    assert store.purge() == (1, 0)
    assert store.state(st.code) == idle               # the same version, recorded
    assert store.purge() == (0, 0)
    assert store.summary(st.code, t)[0].shift.voted_first == 1


def test_answers_are_deleted_after_the_retention(store, clock):
    t = seat()
    st = store.start_class(1, retention_s=3600, seat=t)
    j = seat()
    store.join(st.code, "Ana", seat=j, client="k")
    store.vote(st.code, j, 0, 1)
    store.move(st.code, t, SPLIT)
    with pytest.raises(UnknownClass):
        store.join("ZZZZZZZZ", seat=seat(), client="k")
    clock.t += 600
    assert store.end(st.code, t).delete_at == T0 + 3600
    assert store.purge(T0 + 3599) == (0, 0)
    assert store.counts(st.code, 0).answered == 1
    assert store.purge(T0 + 3600) == (0, 1)
    assert [len(rows(store, n)) for n in ("classes", "students", "votes", "phases",
                                          "teachers", "join_sources", "join_failures")] \
        == [0] * 7
    for gone in (lambda: store.state(st.code), lambda: store.counts(st.code, 0),
                 lambda: store.summary(st.code, t), lambda: store.enter(st.code, t),
                 lambda: store.join(st.code, seat=seat())):
        with pytest.raises(UnknownClass):
            gone()


def test_a_class_running_past_its_deletion_time_is_kept_until_it_ends(store, clock):
    t = seat()
    st = store.start_class(1, retention_s=60, seat=t)
    other = store.start_class(1, retention_s=60, seat=t)
    store.end(other.code, t)                     # ended at once: kept REVIEW_S
    clock.t += 120
    assert store.purge() == (0, 0)
    assert not store.state(st.code).ended
    ended = store.end(st.code, t)
    assert ended.delete_at == clock.t + REVIEW_S
    assert store.purge(T0 + REVIEW_S) == (0, 1)       # the other one
    assert store.purge(ended.delete_at - 1) == (0, 0)
    assert store.purge(ended.delete_at) == (0, 1)


def test_by_default_answers_go_at_the_end_of_the_day(store, clock):
    st = store.start_class(1)
    assert st.delete_at == store.state(st.code).delete_at == end_of_day(clock.t)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/New_York"])
def test_the_end_of_the_day_is_the_next_local_midnight(zone, monkeypatch):
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        # every 7 hours over 2027's spring daylight-saving change, both sides
        for now in range(int(T0) + 50 * 86400, int(T0) + 75 * 86400, 7 * 3600):
            end = end_of_day(now)
            t = time.localtime(end)
            assert (t.tm_hour, t.tm_min, t.tm_sec) == (0, 0, 0)
            assert time.localtime(end - 1).tm_yday == time.localtime(now).tm_yday
            assert 0 < end - now <= 25 * 3600
        assert end_of_day(end - 1) == end
    finally:
        monkeypatch.undo()
        time.tzset()
