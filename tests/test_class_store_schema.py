"""The class store's schema and files, on SQLite and PostgreSQL (the fixtures of
``test_class_store.py``): migrations run once, in order, all or nothing; a store of the
first schema keeps its classes with every secret turned into its hash; an SQLite store's
folder and files are its user's only."""

from __future__ import annotations

import pytest
from _class_store import T0, rows, seat, tables

from nplk_lab.serve.class_store import ClassStore
from nplk_lab.serve.class_store_db import MIGRATIONS
from nplk_lab.serve.class_store_rules import token_hash


def test_migrations_run_once_and_opening_again_changes_nothing(open_store):  # noqa: F811
    first = open_store()
    assert first.migrated == list(range(1, len(MIGRATIONS) + 1))
    st = first.start_class(1)
    assert open_store().migrated == []
    ran = []

    def vnext(tx):
        ran.append(1)
        tx.run("ALTER TABLE classes ADD COLUMN note TEXT")
    assert open_store(migrations=(*MIGRATIONS, vnext)).migrated == [len(MIGRATIONS) + 1]
    assert open_store(migrations=(*MIGRATIONS, vnext)).migrated == []
    assert ran == [1]
    assert open_store(migrations=(*MIGRATIONS, vnext)).state(st.code).lesson == "1"

    def broken(tx):
        tx.run("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("the migration fails half way")
    with pytest.raises(RuntimeError, match="half way"):
        open_store(migrations=(*MIGRATIONS, vnext, broken))

    def fixed(tx):   # fails if the broken one left its table behind
        tx.run("CREATE TABLE half_done (x INTEGER)")
    assert open_store(migrations=(*MIGRATIONS, vnext, fixed)).migrated == \
        [len(MIGRATIONS) + 2]
    with pytest.raises(RuntimeError, match="newer than this lab"):
        open_store()


def test_a_store_of_the_first_schema_keeps_its_classes_with_seats_hashed(
        open_store):  # noqa: F811
    """A store written by the lab before seats and two votes (schema 1: a student's
    secret kept as it is, one answer per step, a row per revealed step) opens with every
    class, student and answer, and the secrets only as hashes."""
    old = open_store(migrations=MIGRATIONS[:1])
    now = T0

    def v1_class(tx):
        tx.run("INSERT INTO classes (code, lesson, teacher_hash, started_at, last_active, "
               "idle_timeout_s, delete_at, ended_at, step, version, count_version, "
               "students) VALUES ('ABCDEFGH', 'L1', ?, ?, ?, 7200, ?, NULL, 1, 3, 4, 2)",
               token_hash("tok"), now, now, now + 86400)
        for student, handle, typed in (("s" * 22, "Ana", 1), ("t" * 22, "Otter 12", 0)):
            tx.run("INSERT INTO students (code, student, handle, typed, joined_at, "
                   "window_start, window_answers) VALUES ('ABCDEFGH', ?, ?, ?, ?, ?, 1)",
                   student, handle, typed, now, now)
        tx.run("INSERT INTO answers (code, student, step, first_choice, choice, changes, "
               "first_at, last_at) VALUES ('ABCDEFGH', ?, 0, 2, 1, 1, ?, ?)", "s" * 22,
               now, now)
        tx.run("INSERT INTO answers (code, student, step, first_choice, choice, changes, "
               "first_at, last_at) VALUES ('ABCDEFGH', ?, 0, 0, 0, 0, ?, ?)", "t" * 22,
               now, now)
        tx.run("INSERT INTO steps (code, step, revealed_at, correct) VALUES "
               "('ABCDEFGH', 0, ?, 1)", now)
    old._run(True, v1_class)
    new = open_store()
    assert new.migrated == list(range(2, len(MIGRATIONS) + 1))
    s = new.state("ABCDEFGH")
    assert (s.step, s.students, s.size, s.revealed_steps) == (1, 2, 200, (0,))
    everything = repr([rows(new, t) for t in sorted(tables(new))])
    assert "s" * 22 not in everything and token_hash("s" * 22) in everything
    assert new.counts("ABCDEFGH", 0).by_choice == {1: 1, 0: 1}   # the answer held
    (s0,) = new.summary("ABCDEFGH", "tok")
    assert (s0.correct, s0.held, s0.right_held) == (1, 2, 1)
    assert new.advance("ABCDEFGH", "tok").step == 2


def test_an_sqlite_store_is_private_to_its_user(tmp_path):
    folder = tmp_path / "classes"
    store = ClassStore(folder)
    st = store.start_class(1)
    store.join(st.code, seat=seat())                 # the write-ahead log exists now
    assert folder.stat().st_mode & 0o777 == 0o700
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["classes.sqlite3", "classes.sqlite3-shm",
                                       "classes.sqlite3-wal"]
    assert [f.stat().st_mode & 0o777 for f in files] == [0o600] * 3
    store.close()
    # a folder and a file left wider by an older lab are narrowed on opening
    folder.chmod(0o755)
    (folder / "classes.sqlite3").chmod(0o644)
    with ClassStore(folder) as again:
        assert again.state(st.code).students == 1
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / "classes.sqlite3").stat().st_mode & 0o777 == 0o600
