"""The class store written by several processes at once, as the workers of
``nplk-lab classroom`` do, on SQLite and on PostgreSQL: nothing lost, limits exact,
migrations run once, and a process killed while writing loses no answer it committed.
The tests wait for the processes' messages, never for time."""

from __future__ import annotations

import multiprocessing
import os
import signal
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import _postgres
import pytest
from _class_store import rows

from nplk_lab.serve.class_store import ClassStore, Seat, TooMany, Vote
from nplk_lab.serve.class_store_db import MIGRATIONS
from nplk_lab.serve.class_store_rules import MAX_STUDENTS, REVOTE, new_seat

SPAWN = multiprocessing.get_context("spawn")   # separate processes, as workers are


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request, tmp_path):
    """Where a fresh store lives: a folder, or a schema on a throwaway PostgreSQL."""
    yield from _postgres.class_store_place(request.param, tmp_path)


def _open_at_once(where, barrier, out):
    try:
        barrier.wait()
        with ClassStore(where) as s:
            out.put(("ok", s.migrated))
    except BaseException:  # noqa: BLE001 - reported to the test
        out.put(("error", traceback.format_exc()))


def _run_children(target, args_of, n):
    """Start ``n`` spawned processes of ``target`` and return what each puts on the
    queue (waiting for them, not for time), killing any left on the way out."""
    out = SPAWN.Queue()
    barrier = SPAWN.Barrier(n)
    procs = [SPAWN.Process(target=target, args=(*args_of(i), barrier, out)) for i in range(n)]
    try:
        for p in procs:
            p.start()
        got = [out.get(timeout=180) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        errors = [g[1] for g in got if g[0] == "error"]
        assert errors == [], "\n".join(errors)
        return [g[1] for g in got]
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()


@pytest.mark.slow
def test_processes_opening_a_new_store_at_once_migrate_it_once(where):
    ran = _run_children(_open_at_once, lambda i: (where,), 4)
    assert sorted(v for r in ran for v in r) == list(range(1, len(MIGRATIONS) + 1))


# ---------------------------------------------------------------------------
# processes at once, and a killed one
# ---------------------------------------------------------------------------
PROCESSES, STUDENTS = 4, 15


def _fifteen_students(where, code, proc, barrier, out):
    """Fifteen students of process ``proc`` join and answer together (5 threads)."""
    try:
        with ClassStore(where) as store:
            barrier.wait()

            def student(i):
                n = proc * STUDENTS + i
                me = Seat(new_seat())
                store.join(code, f"P{proc} S{i}", seat=me, client=f"10.0.{proc}.{i}")
                store.vote(code, me, 0, n % 3)
                store.vote(code, me, 0, (n + 1) % 3, sure=True)
            with ThreadPoolExecutor(5) as pool:
                list(pool.map(student, range(STUDENTS)))
            out.put(("ok", proc))
    except BaseException:  # noqa: BLE001 - reported to the test
        out.put(("error", traceback.format_exc()))


@pytest.mark.slow
def test_four_processes_of_fifteen_students_answering_at_once_lose_nothing(where):
    store = ClassStore(where)
    try:
        st = store.start_class(1)
        done = _run_children(_fifteen_students, lambda i: (where, st.code, i), PROCESSES)
        assert sorted(done) == list(range(PROCESSES))
        n = range(PROCESSES * STUDENTS)
        assert store.counts(st.code, 0).by_choice == Counter((k + 1) % 3 for k in n)
        state = store.state(st.code)
        assert state.students == len(n)
        assert state.count_version == 3 * len(n)     # every join and vote, none lost
        store.reveal(st.code, st.teacher_token, correct=0)
        (s0,) = store.summary(st.code, st.teacher_token)
        assert (s0.shift.voted_first, s0.shift.right_first) == (
            len(n), sum((k + 1) % 3 == 0 for k in n))
    finally:
        store.close()


def _join_many(where, code, proc, barrier, out):
    """Process ``proc`` tries to join 60 students; how many got in."""
    try:
        with ClassStore(where) as store:
            barrier.wait()

            def one(i):
                try:
                    store.join(code, seat=Seat(new_seat()), client=f"10.1.{proc}.{i}")
                    return 1
                except TooMany:
                    return 0
            with ThreadPoolExecutor(5) as pool:
                out.put(("ok", sum(pool.map(one, range(60)))))
    except BaseException:  # noqa: BLE001 - reported to the test
        out.put(("error", traceback.format_exc()))


@pytest.mark.slow
def test_processes_filling_a_class_at_once_stop_exactly_at_its_size(where):
    size = 150
    assert PROCESSES * 60 > size and size <= MAX_STUDENTS
    with ClassStore(where) as store:
        st = store.start_class(1, size=size)
        got = _run_children(_join_many, lambda i: (where, st.code, i), PROCESSES)
        assert sum(got) == size
        assert store.state(st.code).students == size
        assert len(rows(store, "students")) == size


def _answer_until_killed(where, code, send):
    with ClassStore(where) as store:
        i = 0
        while True:
            me = new_seat()
            store.join(code, seat=me)
            store.vote(code, me, 0, i % 4, sure=bool(i % 2))
            send.send((me, i % 4, bool(i % 2)))   # after the commit
            i += 1


@pytest.mark.slow
def test_a_process_killed_while_writing_loses_no_committed_answer(where):
    store = ClassStore(where)
    st = store.start_class(1, size=MAX_STUDENTS)
    store.move(st.code, st.teacher_token, REVOTE)     # the second vote
    recv, send = SPAWN.Pipe(duplex=False)
    p = SPAWN.Process(target=_answer_until_killed, args=(where, st.code, send))
    try:
        p.start()
        send.close()
        confirmed = [recv.recv() for _ in range(60)]   # 60 students, a vote each
        os.kill(p.pid, signal.SIGKILL)
        p.join(timeout=60)
        assert p.exitcode == -signal.SIGKILL
        while recv.poll():            # what it confirmed before it died
            try:
                confirmed.append(recv.recv())
            except EOFError:
                break
        for me, choice, sure in confirmed:
            assert store.vote_of(st.code, me, 0) == Vote(None, None, choice, sure, 0)
        stored = store.counts(st.code, 0, round=2).answered
        assert len(confirmed) <= stored <= len(confirmed) + 1   # + one not yet confirmed
        me = new_seat()
        store.join(st.code, seat=me)                # the dead writer holds no lock
        store.vote(st.code, me, 0, 1)
        if store.backend == "sqlite":
            assert store._run(False, lambda tx: tx.one("PRAGMA integrity_check"))[0] == "ok"
    finally:
        if p.is_alive():
            p.kill()
            p.join()
        store.close()
