"""The class store (issue 32), one process: every test runs on SQLite and on a real
PostgreSQL server (:mod:`_postgres`: Debian's ``initdb`` + ``pg_ctl`` in a temporary
folder); the PostgreSQL runs skip, saying why, where no server can be started. Time is a
clock the tests move: no test sleeps. Processes at once and a killed one:
``test_class_store_processes.py``."""

from __future__ import annotations

import csv
import io
import time
from concurrent.futures import ThreadPoolExecutor

import _postgres
import pytest

from nplk_lab.serve import class_store
from nplk_lab.serve.class_store import (
    Answered,
    ClassError,
    ClassOver,
    ClassStore,
    Counts,
    StepSummary,
    TooMany,
    UnknownClass,
    WrongToken,
    format_code,
)
from nplk_lab.serve.class_store_db import MIGRATIONS
from nplk_lab.serve.class_store_rules import (
    ANSWER_WINDOW_S,
    CODE_ALPHABET,
    CODE_LENGTH,
    JOIN_WINDOW_S,
    MAX_ANSWERS,
    MAX_FAILED_JOINS,
    MAX_NAME_CHARS,
    MAX_OPTIONS,
    MAX_STEPS,
    MAX_STUDENTS,
    REVIEW_S,
    end_of_day,
)

T0 = 1_800_000_000.0                            # 2027-01-15, 08:00 UTC


class Clock:
    """The store's clock, moved by hand."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request, tmp_path):
    """Where a fresh store lives: a folder, or a schema on a throwaway PostgreSQL."""
    yield from _postgres.class_store_place(request.param, tmp_path)


@pytest.fixture
def clock():
    return Clock(T0)


@pytest.fixture
def open_store(where, clock):
    opened = []

    def make(**kw):
        kw.setdefault("clock", clock)
        s = ClassStore(where, **kw)
        opened.append(s)
        return s
    yield make
    for s in opened:
        s.close()


@pytest.fixture
def store(open_store):
    return open_store()


def rows(store: ClassStore, table: str) -> list[tuple]:
    return store._run(False, lambda tx: [tuple(r) for r in tx.all(f"SELECT * FROM {table}")])


def tables(store: ClassStore) -> set[str]:
    q = ("SELECT name FROM sqlite_master WHERE type = 'table'" if store.backend == "sqlite"
         else "SELECT table_name FROM information_schema.tables "
              "WHERE table_schema = current_schema()")
    return {r[0] for r in store._run(False, lambda tx: tx.all(q))}


def parse_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


# ---------------------------------------------------------------------------
# a class, start to end
# ---------------------------------------------------------------------------
def test_a_class_from_start_to_its_csv(store):
    st = store.start_class(3)
    assert len(st.code) == CODE_LENGTH and set(st.code) <= set(CODE_ALPHABET)
    code, tok = st.code, st.teacher_token
    ana, anon1, bo, anon2 = (store.join(code, n) for n in ("Ana", None, "Bo", ""))
    assert (ana.handle, bo.handle) == ("Ana", "Bo")
    assert anon1.handle and anon2.handle and len({ana.student, anon1.student, bo.student,
                                                  anon2.student}) == 4
    s0 = store.state(code)
    assert (s0.lesson, s0.step, s0.revealed, s0.ended, s0.students) == ("3", 0, False,
                                                                         False, 4)

    assert store.answer(code, ana.student, 0, 1) == Answered(1, 1, 0)
    store.answer(code, anon1.student, 0, 1)
    store.answer(code, bo.student, 0, 2)
    assert store.answer(code, bo.student, 0, 0) == Answered(2, 0, 1)
    assert store.answer(code, bo.student, 0, 0) == Answered(2, 0, 1)  # same again: no change
    counts = store.counts(code, 0)
    assert (counts.answered, counts.by_choice) == (3, {1: 2, 0: 1})
    assert store.counts(code, 1) == Counts(0, {}, counts.count_version)
    assert store.answer_of(code, bo.student, 0) == Answered(2, 0, 1)
    assert store.answer_of(code, anon2.student, 0) is None

    shown = store.reveal(code, tok, correct=1)
    assert (shown.step, shown.revealed, shown.correct, shown.version) == (0, True, 1,
                                                                          s0.version + 1)
    with pytest.raises(ClassError, match="revealed"):
        store.answer(code, anon2.student, 0, 1)
    assert store.reveal(code, tok, correct=2).version == shown.version  # once only

    moved = store.advance(code, tok)
    assert (moved.step, moved.revealed, moved.correct) == (1, False, None)
    assert moved.version == shown.version + 1
    store.answer(code, ana.student, 1, 0)
    store.answer(code, anon2.student, 1, 3)
    store.reveal(code, tok, correct=3)
    assert store.advance(code, tok, step=4).step == 4
    back = store.advance(code, tok, step=0)   # back to a revealed step: still revealed
    assert (back.step, back.revealed, back.correct, back.revealed_steps) == (0, True, 1,
                                                                             (0, 1))

    over = store.end(code, tok)
    assert over.ended and over.version == back.version + 1
    assert store.end(code, tok).version == over.version
    for refused in (lambda: store.answer(code, ana.student, 4, 0),
                    lambda: store.join(code, "Late"),
                    lambda: store.reveal(code, tok), lambda: store.advance(code, tok)):
        with pytest.raises(ClassOver, match="ended"):
            refused()

    assert store.summary(code, tok) == (StepSummary(0, 3, 2, 2 / 3, 1, 1),
                                        StepSummary(1, 2, 1, 0.5, 0, 3))
    assert parse_csv(store.summary_csv(code, tok)) == [
        ["step", "answered", "first answers right", "share right (%)",
         "changed their answer"],
        ["1", "3", "2", "67", "1"], ["2", "2", "1", "50", "0"]]
    table = parse_csv(store.answers_csv(code, tok, options={0: ("no", "yes", "maybe")}))
    assert table[0] == ["step", "name", "first answer", "first answer right", "last answer",
                        "answer changes"]
    assert sorted(table[1:]) == sorted([
        ["1", "Ana", "yes", "yes", "yes", "0"], ["1", "", "yes", "yes", "yes", "0"],
        ["1", "Bo", "maybe", "no", "no", "1"], ["2", "Ana", "option 1", "no", "option 1", "0"],
        ["2", "", "option 4", "yes", "option 4", "0"]])


def test_a_step_revealed_without_its_right_option_has_no_share(store):
    st = store.start_class("lesson 1")
    j = store.join(st.code)
    store.answer(st.code, j.student, 0, 0)
    store.reveal(st.code, st.teacher_token)          # right option not given
    store.reveal(st.code, st.teacher_token, step=2, correct=-1)   # none of the options
    assert store.summary(st.code, st.teacher_token) == (
        StepSummary(0, 1, None, None, 0, None), StepSummary(2, 0, 0, None, 0, -1))


def test_codes_work_as_people_type_them(store):
    st = store.start_class(1)
    shown = format_code(st.code)
    assert shown == f"{st.code[:4]}-{st.code[4:]}"
    for typed in (shown, shown.lower(), f"  {st.code[:4]} {st.code[4:]} ", st.code):
        store.join(typed)
    assert store.state(shown.lower()).students == 4
    assert len({store.start_class(1).code for _ in range(20)}) == 20
    # enumerating: 32**8 codes, MAX_FAILED_JOINS tries per client key per window
    assert len(CODE_ALPHABET) ** CODE_LENGTH > 10 ** 12


# ---------------------------------------------------------------------------
# safety
# ---------------------------------------------------------------------------
def test_only_the_teacher_token_reveals_advances_ends_or_summarises(store, monkeypatch):
    a, b = store.start_class(1), store.start_class(1)
    student = store.join(a.code).student
    compared = []
    real = class_store.hmac.compare_digest
    monkeypatch.setattr(class_store.hmac, "compare_digest",
                        lambda x, y: compared.append(1) or real(x, y))
    before = store.state(a.code)
    wrong = [b.teacher_token, "", a.teacher_token[:-1], a.teacher_token + "x", None, 123,
             a.teacher_token.swapcase(), student]
    ops = [lambda t: store.reveal(a.code, t), lambda t: store.advance(a.code, t),
           lambda t: store.end(a.code, t), lambda t: store.summary(a.code, t),
           lambda t: store.summary_csv(a.code, t), lambda t: store.answers_csv(a.code, t)]
    for token in wrong:
        for op in ops:
            with pytest.raises(WrongToken, match="Only the teacher's link"):
                op(token)
    assert len(compared) == len(wrong) * len(ops)   # each compared in constant time
    assert store.state(a.code) == before
    assert store.advance(a.code, a.teacher_token).step == 1


HOSTILE_NAMES = {
    "Ana\u202eevil": "U+202E RIGHT-TO-LEFT OVERRIDE",
    "\u2066Ana\u2069": "U+2066",
    "A\u200bna": "U+200B ZERO WIDTH SPACE",
    "A\u200dna": "U+200D",
    "Ana\ufeff": "U+FEFF",
    "Ana\nBo": "U+000A",
    "Ana\x00": "U+0000",
    "\x1b[31mAna": "U+001B",
    "Ana\u2028Bo": "U+2028 LINE SEPARATOR",
    "\ue000": "U+E000",
    "A\ud800": "U+D800",
    "a" * (MAX_NAME_CHARS + 1): f"at most {MAX_NAME_CHARS} characters",
    "x\u0301\u0302\u0303": "accents",
}


def test_hostile_names_are_refused_with_a_clear_message(store):
    st = store.start_class(1)
    for name, says in HOSTILE_NAMES.items():
        with pytest.raises(ClassError, match=says.replace("+", r"\+")) as e:
            store.join(st.code, name, client="one")
        assert isinstance(e.value, ValueError)
    assert store.state(st.code).students == 0
    with pytest.raises(ClassError, match="text"):
        store.join(st.code, 42)
    # a refused name is no wrong code: this client still joins
    kept = [store.join(st.code, n, client="one").handle
            for n in ("a" * MAX_NAME_CHARS, "Zoe\u0308", "<b>Ana</b> *x*", "  Bo  ",
                      "山田 太郎", "Zoé\u0301\u0302")]
    assert kept == ["a" * MAX_NAME_CHARS, "Zoë", "<b>Ana</b> *x*", "Bo", "山田 太郎",
                    "Zoé\u0301\u0302"]


def test_students_see_no_names_and_the_csv_names_only_typed_ones(store):
    st = store.start_class(1)
    typed = store.join(st.code, "=HYPERLINK(\"http://x\")")
    anon = store.join(st.code)
    for j in (typed, anon):
        store.answer(st.code, j.student, 0, 1)
    seen = repr(store.state(st.code)) + repr(store.counts(st.code, 0))
    assert "HYPERLINK" not in seen and anon.handle not in seen
    table = parse_csv(store.answers_csv(st.code, st.teacher_token))
    assert sorted(r[1] for r in table[1:]) == ["", "'=HYPERLINK(\"http://x\")"]
    assert anon.handle not in store.answers_csv(st.code, st.teacher_token)


def test_what_the_store_keeps(store):
    st = store.start_class(1)
    j = store.join(st.code, "Ana", client="203.0.113.7")
    with pytest.raises(UnknownClass):
        store.join("ZZZZZZZZ", client="198.51.100.9")
    store.answer(st.code, j.student, 0, 2)
    assert tables(store) == {"schema_version", "classes", "steps", "students", "answers",
                             "join_failures", "salt"}
    everything = repr([rows(store, t) for t in sorted(tables(store))])
    for secret in (st.teacher_token, "203.0.113.7", "198.51.100.9"):
        assert secret not in everything
    assert "Ana" in everything and st.code in everything
    assert len(rows(store, "join_failures")) == 1   # the wrong code's source, hashed


def test_the_class_size_is_limited(store):
    st = store.start_class(1)
    for _ in range(MAX_STUDENTS):
        store.join(st.code)
    with pytest.raises(TooMany, match=f"full \\({MAX_STUDENTS} students"):
        store.join(st.code)
    assert store.state(st.code).students == MAX_STUDENTS


def test_answers_are_rate_limited_per_student(store, clock):
    st = store.start_class(1)
    a, b = store.join(st.code), store.join(st.code)
    for i in range(MAX_ANSWERS):
        clock.t += 1
        store.answer(st.code, a.student, 0, i % 2)
    with pytest.raises(TooMany, match="wait"):
        store.answer(st.code, a.student, 0, 3)
    assert store.answer_of(st.code, a.student, 0).choice == (MAX_ANSWERS - 1) % 2
    store.answer(st.code, b.student, 0, 3)           # another student is not held back
    clock.t += ANSWER_WINDOW_S
    assert store.answer(st.code, a.student, 0, 3).choice == 3


def test_wrong_join_codes_are_rate_limited_per_client(store, clock):
    st = store.start_class(1)
    wrong = ["", "x", "ABC", 12345, "O0O0O0O0", st.code + "2", "ZZZZZZZZ"]
    for i in range(MAX_FAILED_JOINS):
        with pytest.raises(UnknownClass, match="no class with this code"):
            store.join(wrong[i % len(wrong)], client="10.0.0.1")
    with pytest.raises(TooMany, match="Too many wrong codes.*10 min"):
        store.join(st.code, client="10.0.0.1")        # even the right code, from there
    store.join(st.code, client="10.0.0.2")           # others are not held back
    clock.t += JOIN_WINDOW_S
    store.join(st.code, client="10.0.0.1")
    # joins that work do not count: MAX - 1 wrong codes, many right ones, 1 wrong: allowed
    for _ in range(MAX_FAILED_JOINS - 1):
        with pytest.raises(UnknownClass):
            store.join("ZZZZZZZZ", client="c")
    for _ in range(MAX_FAILED_JOINS + 1):
        store.join(st.code, client="c")
    with pytest.raises(UnknownClass):
        store.join("ZZZZZZZZ", client="c")
    with pytest.raises(TooMany):
        store.join("ZZZZZZZZ", client="c")


def test_values_out_of_range_are_refused(store):
    st = store.start_class(1)
    j = store.join(st.code)
    bad = [lambda: store.answer(st.code, j.student, -1, 0),
           lambda: store.answer(st.code, j.student, MAX_STEPS, 0),
           lambda: store.answer(st.code, j.student, True, 0),
           lambda: store.answer(st.code, j.student, 1.0, 0),
           lambda: store.answer(st.code, j.student, "0", 0),
           lambda: store.answer(st.code, j.student, 0, MAX_OPTIONS),
           lambda: store.answer(st.code, j.student, 0, -1),
           lambda: store.counts(st.code, -1),
           lambda: store.reveal(st.code, st.teacher_token, correct=MAX_OPTIONS),
           lambda: store.advance(st.code, st.teacher_token, step=MAX_STEPS),
           lambda: store.start_class(""), lambda: store.start_class("x" * 65),
           lambda: store.start_class("a\nb"),
           lambda: store.start_class(1, idle_timeout_s=0),
           lambda: store.start_class(1, retention_s=10)]
    for op in bad:
        with pytest.raises(ClassError):
            op()
    with pytest.raises(UnknownClass, match="join it again"):
        store.answer(st.code, "not-a-student", 0, 0)
    assert store.counts(st.code, 0).answered == 0


def test_a_store_outlives_the_server_dropping_its_idle_connections(store):
    """A PostgreSQL server restarted, or its administrator ending sessions: the store's
    idle connections are gone, and the next operation opens a new one."""
    if store.backend != "postgresql":
        pytest.skip("SQLite has no server to drop connections")
    st = store.start_class(1)
    with ThreadPoolExecutor(4) as pool:   # several idle connections in the pool
        list(pool.map(lambda _: store.join(st.code), range(8)))
    import psycopg

    base = _postgres.server()
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        dropped = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
            "usename = 'nplk' AND pid <> pg_backend_pid() AND state = 'idle'").fetchone()[0]
    assert dropped >= 2
    assert store.state(st.code).students == 8
    store.join(st.code)


# ---------------------------------------------------------------------------
# time: idle end and retention
# ---------------------------------------------------------------------------
def test_an_idle_class_ends_and_purge_records_it(store, clock):
    st = store.start_class(1, idle_timeout_s=600)
    j = store.join(st.code)
    clock.t += 500
    store.answer(st.code, j.student, 0, 1)           # activity: idle time starts again
    clock.t += 600
    live = store.state(st.code)
    assert not live.ended
    clock.t += 1
    idle = store.state(st.code)
    assert idle.ended and idle.version == live.version + 1
    with pytest.raises(ClassOver):
        store.answer(st.code, j.student, 0, 2)
    with pytest.raises(ClassOver):
        store.advance(st.code, st.teacher_token)
    assert store.purge() == (1, 0)
    assert store.state(st.code) == idle               # the same version, recorded
    assert store.purge() == (0, 0)
    assert store.summary(st.code, st.teacher_token)[0].answered == 1


def test_answers_are_deleted_after_the_retention(store, clock):
    st = store.start_class(1, retention_s=3600)
    j = store.join(st.code, "Ana", client="k")
    store.answer(st.code, j.student, 0, 1)
    with pytest.raises(UnknownClass):
        store.join("ZZZZZZZZ", client="k")
    clock.t += 600
    assert store.end(st.code, st.teacher_token).delete_at == T0 + 3600
    assert store.purge(T0 + 3599) == (0, 0)
    assert store.counts(st.code, 0).answered == 1
    assert store.purge(T0 + 3600) == (0, 1)
    assert [len(rows(store, t)) for t in ("classes", "students", "answers", "steps",
                                          "join_failures")] == [0, 0, 0, 0, 0]
    for gone in (lambda: store.state(st.code), lambda: store.counts(st.code, 0),
                 lambda: store.summary(st.code, st.teacher_token),
                 lambda: store.join(st.code)):
        with pytest.raises(UnknownClass):
            gone()


def test_a_class_running_past_its_deletion_time_is_kept_until_it_ends(store, clock):
    st = store.start_class(1, retention_s=60)
    other = store.start_class(1, retention_s=60)
    store.end(other.code, other.teacher_token)   # ended at once: kept REVIEW_S
    clock.t += 120
    assert store.purge() == (0, 0)
    assert not store.state(st.code).ended
    ended = store.end(st.code, st.teacher_token)
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


# ---------------------------------------------------------------------------
# schema migrations
# ---------------------------------------------------------------------------
def test_migrations_run_once_and_opening_again_changes_nothing(open_store):
    first = open_store()
    assert first.migrated == list(range(1, len(MIGRATIONS) + 1))
    st = first.start_class(1)
    assert open_store().migrated == []
    ran = []

    def v2(tx):
        ran.append(2)
        tx.run("ALTER TABLE classes ADD COLUMN note TEXT")
    assert open_store(migrations=(*MIGRATIONS, v2)).migrated == [len(MIGRATIONS) + 1]
    assert open_store(migrations=(*MIGRATIONS, v2)).migrated == []
    assert ran == [2]
    assert open_store(migrations=(*MIGRATIONS, v2)).state(st.code).lesson == "1"

    def broken(tx):
        tx.run("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("the migration fails half way")
    with pytest.raises(RuntimeError, match="half way"):
        open_store(migrations=(*MIGRATIONS, v2, broken))

    def fixed(tx):   # fails if the broken one left its table behind
        tx.run("CREATE TABLE half_done (x INTEGER)")
    assert open_store(migrations=(*MIGRATIONS, v2, fixed)).migrated == [len(MIGRATIONS) + 2]
    with pytest.raises(RuntimeError, match="newer than this lab"):
        open_store()
