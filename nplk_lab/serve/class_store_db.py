"""The class store's databases (:mod:`.class_store`): what differs between SQLite and
PostgreSQL (connecting, beginning, locking a row, the placeholder), a few pooled
connections, one transaction per operation, and the schema with its migrations.

An SQLite store is private to the user running the lab: its folder is 0700, its files
(the database, its write-ahead log and shared memory, which SQLite makes with the
database's own mode) 0600; a folder or file found wider is narrowed on opening."""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from .class_store_rules import BUSY_TIMEOUT_S, POOL_SIZE, SQLITE_FILE, token_hash

T = TypeVar("T")


# ---------------------------------------------------------------------------
# the two databases: what differs
# ---------------------------------------------------------------------------
class _SQLite:
    name = "sqlite"
    lock = ""                 # BEGIN IMMEDIATE already holds the database's write lock
    migrate_lock = ""
    reconnect_errors: tuple[type[BaseException], ...] = ()

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _private(folder, 0o700)
        self.path = folder / SQLITE_FILE
        if not self.path.exists():
            self._create()
        for f in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
            _private(f, 0o600)

    def _create(self) -> None:
        """Make the database file already in WAL mode, then put it in place at once
        (a hard link, which fails if the file is there): processes opening a new store
        together never race to switch its journal mode, a switch that can fail at once
        with 'database is locked', without waiting (8 processes opening a new store at
        once: 4 failures in 400 tries before this, none in 400 after)."""
        tmp = self.path.with_name(f".{SQLITE_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        conn = sqlite3.connect(tmp, isolation_level=None)
        os.chmod(tmp, 0o600)   # before the journal's files exist: they take this mode
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        finally:
            conn.close()
        try:
            os.link(tmp, self.path)
        except OSError:   # made by another process first, or no hard links here
            pass
        finally:
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                leftover.unlink(missing_ok=True)

    def connect(self) -> Any:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                               check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")   # a commit is on disk when it returns
        return conn

    @staticmethod
    def begin(conn: Any, write: bool) -> None:
        # a read is read-only, as PostgreSQL's READ ONLY: a write there is an error
        conn.execute(f"PRAGMA query_only = {0 if write else 1}")
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    @staticmethod
    def sql(query: str) -> str:
        return query


def _private(path: Path, mode: int) -> None:
    """Narrow ``path`` to ``mode`` if it is wider (and ours); a missing file is fine."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if st.st_mode & 0o777 & ~mode and st.st_uid == os.getuid():
        os.chmod(path, mode)


class _Postgres:
    name = "postgresql"
    lock = " FOR UPDATE"      # a write holds its class's row: one writer per class
    migrate_lock = "SELECT pg_advisory_xact_lock(3203201)"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as e:  # pragma: no cover - depends on the install
            raise RuntimeError("The PostgreSQL store needs psycopg: "
                               "pip install 'nplk[postgres]'") from e
        self._psycopg = psycopg
        self.url = url
        self.reconnect_errors = (psycopg.OperationalError,)

    def connect(self) -> Any:
        conn = self._psycopg.connect(self.url, autocommit=True,
                                     connect_timeout=int(BUSY_TIMEOUT_S))
        conn.execute(f"SET lock_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return conn

    @staticmethod
    def begin(conn: Any, write: bool) -> None:
        conn.execute("BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    @staticmethod
    def sql(query: str) -> str:
        return query.replace("?", "%s")


class _Pool:
    """A few idle connections, shared by the threads of one process. After a fork the
    parent's connections are left alone (never used nor closed by the child)."""

    def __init__(self, connect: Callable[[], Any]) -> None:
        self._connect = connect
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._parents: list[Any] = []

    def take(self) -> tuple[Any, bool]:
        with self._lock:
            if os.getpid() != self._pid:
                self._parents += self._idle   # kept, so no finalizer closes them here
                self._idle, self._pid = [], os.getpid()
            if self._idle:
                return self._idle.pop(), True
        return self._connect(), False

    def give(self, conn: Any) -> None:
        with self._lock:
            if os.getpid() == self._pid and len(self._idle) < POOL_SIZE:
                self._idle.append(conn)
                return
        self.discard(conn)

    @staticmethod
    def discard(conn: Any) -> None:
        try:
            conn.close()
        except Exception:  # noqa: BLE001 - a broken connection may not close cleanly
            pass

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            self.discard(conn)


class Tx:
    """One transaction's statements, in the store's SQL (``?`` placeholders)."""

    __slots__ = ("_conn", "_sql")

    def __init__(self, conn: Any, sql: Callable[[str], str]) -> None:
        self._conn, self._sql = conn, sql

    def run(self, query: str, *args: Any) -> Any:
        return self._conn.execute(self._sql(query), args)

    def one(self, query: str, *args: Any) -> Any:
        return self.run(query, *args).fetchone()

    def all(self, query: str, *args: Any) -> list[Any]:
        return self.run(query, *args).fetchall()


# ---------------------------------------------------------------------------
# schema: one function per version, run once each, in order
# ---------------------------------------------------------------------------
def _v1_tables(tx: Tx) -> None:
    f, i, t = "DOUBLE PRECISION NOT NULL", "INTEGER NOT NULL", "TEXT NOT NULL"
    tx.run(f"CREATE TABLE classes (code TEXT PRIMARY KEY, lesson {t}, teacher_hash {t}, "
           f"started_at {f}, last_active {f}, idle_timeout_s {f}, delete_at {f}, "
           f"ended_at DOUBLE PRECISION, step {i}, version BIGINT NOT NULL, "
           f"count_version BIGINT NOT NULL, students {i})")
    tx.run(f"CREATE TABLE steps (code {t}, step {i}, revealed_at {f}, correct INTEGER, "
           "PRIMARY KEY (code, step))")
    tx.run(f"CREATE TABLE students (code {t}, student {t}, handle {t}, typed {i}, "
           f"joined_at {f}, window_start {f}, window_answers {i}, "
           "PRIMARY KEY (code, student))")
    tx.run(f"CREATE TABLE answers (code {t}, student {t}, step {i}, first_choice {i}, "
           f"choice {i}, changes {i}, first_at {f}, last_at {f}, "
           "PRIMARY KEY (code, student, step))")
    tx.run("CREATE INDEX answers_by_step ON answers (code, step)")
    tx.run(f"CREATE TABLE join_failures (client TEXT PRIMARY KEY, window_start {f}, "
           f"failures {i})")
    tx.run(f"CREATE TABLE salt (value {t})")
    tx.run("INSERT INTO salt (value) VALUES (?)", secrets.token_hex(16))


def _v2_seats_votes_phases(tx: Tx) -> None:
    """Seats kept as hashes (a student's key was their secret in plain text), the class's
    size, teacher devices, the classes joined from each client address, the phases of
    peer instruction per step (a revealed step was a row of ``steps``) and two votes per
    student and step (``answers`` held one answer: it becomes the first vote)."""
    f, i, t = "DOUBLE PRECISION NOT NULL", "INTEGER NOT NULL", "TEXT NOT NULL"
    tx.run("ALTER TABLE classes ADD COLUMN size INTEGER NOT NULL DEFAULT 200")  # v1's limit
    for code, student in tx.all("SELECT code, student FROM students"):
        tx.run("UPDATE students SET student = ? WHERE code = ? AND student = ?",
               token_hash(student), code, student)
    tx.run(f"CREATE TABLE votes (code {t}, student {t}, step {i}, vote1 INTEGER, "
           f"sure1 INTEGER, vote2 INTEGER, sure2 INTEGER, changes {i}, first_at {f}, "
           f"last_at {f}, PRIMARY KEY (code, student, step))")
    tx.run("CREATE INDEX votes_by_step ON votes (code, step)")
    for code, student, step, choice, changes, first_at, last_at in tx.all(
            "SELECT code, student, step, choice, changes, first_at, last_at FROM answers"):
        tx.run("INSERT INTO votes (code, student, step, vote1, changes, first_at, last_at) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)", code, token_hash(student), step, choice,
               changes, first_at, last_at)
    tx.run("DROP TABLE answers")
    tx.run(f"CREATE TABLE phases (code {t}, step {i}, phase {i}, correct INTEGER, "
           f"changed_at {f}, PRIMARY KEY (code, step))")
    tx.run("INSERT INTO phases (code, step, phase, correct, changed_at) "
           "SELECT code, step, 4, correct, revealed_at FROM steps")
    tx.run("DROP TABLE steps")
    tx.run(f"CREATE TABLE teachers (code {t}, seat {t}, added_at {f}, "
           "PRIMARY KEY (code, seat))")
    tx.run("CREATE INDEX teachers_by_seat ON teachers (seat)")
    tx.run(f"CREATE TABLE join_sources (code {t}, client {t}, joined_at {f}, "
           "PRIMARY KEY (code, client))")


#: version k is made by MIGRATIONS[k - 1]; add a function to change the schema, never
#: edit one that has shipped
MIGRATIONS: tuple[Callable[[Tx], None], ...] = (_v1_tables, _v2_seats_votes_phases)

CLASS_COLUMNS = ("code, lesson, teacher_hash, started_at, last_active, idle_timeout_s, "
                 "delete_at, ended_at, step, version, count_version, students, size")


class ClassRow(NamedTuple):
    code: str
    lesson: str
    teacher_hash: str
    started_at: float
    last_active: float
    idle_timeout_s: float
    delete_at: float
    ended_at: float | None
    step: int
    version: int
    count_version: int
    students: int
    size: int

    def live(self, now: float) -> bool:
        return self.ended_at is None and now - self.last_active <= self.idle_timeout_s


class Database:
    """One database (a folder for SQLite, or a ``postgresql://`` URL) and its pool."""

    def __init__(self, where: str | os.PathLike[str]) -> None:
        text = os.fspath(where)
        self._db: _SQLite | _Postgres = (
            _Postgres(text) if text.startswith(("postgresql://", "postgres://"))
            else _SQLite(Path(text)))
        self._pool = _Pool(self._db.connect)
        self.name = self._db.name
        self.lock = self._db.lock

    def close(self) -> None:
        self._pool.close()

    def run(self, write: bool, fn: Callable[[Tx], T]) -> T:
        """``fn`` in one transaction (read-only unless ``write``), committed. A refusal
        ``fn`` returns instead of
        raising (an exception object) is raised after the commit: what ``fn`` wrote
        still counts (a wrong join code). When an idle connection turns out gone (the
        server restarted or dropped it), before anything ran on it, the idle ones are
        dropped and a new connection tries once more."""
        for attempt in (0, 1):
            conn, pooled = self._pool.take()
            try:
                self._db.begin(conn, write)
            except self._db.reconnect_errors:
                self._pool.discard(conn)
                if pooled and attempt == 0:
                    self._pool.close()    # its siblings went with it
                    continue
                raise
            try:
                out = fn(Tx(conn, self._db.sql))
                conn.execute("COMMIT")
            except BaseException:
                try:
                    conn.execute("ROLLBACK")
                except Exception:  # noqa: BLE001 - the connection is gone: drop it
                    self._pool.discard(conn)
                else:
                    self._pool.give(conn)
                raise
            self._pool.give(conn)
            if isinstance(out, BaseException):
                raise out
            return out
        raise AssertionError("unreachable")  # pragma: no cover

    def migrate(self, migrations: Sequence[Callable[[Tx], None]]) -> list[int]:
        """Bring the schema to version ``len(migrations)``; the versions run (each
        once, whatever the number of processes opening the store at once)."""
        return self.run(True, lambda tx: self._migrate(tx, migrations))

    def _migrate(self, tx: Tx, migrations: Sequence[Callable[[Tx], None]]) -> list[int]:
        if self._db.migrate_lock:
            tx.run(self._db.migrate_lock)
        tx.run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = tx.one("SELECT version FROM schema_version")
        have = 0 if row is None else int(row[0])
        if row is None:
            tx.run("INSERT INTO schema_version (version) VALUES (0)")
        if have > len(migrations):
            raise RuntimeError(f"The class store's schema (version {have}) is newer than "
                               f"this lab's ({len(migrations)}): update the lab.")
        ran = list(range(have + 1, len(migrations) + 1))
        for v in ran:
            migrations[v - 1](tx)
        if ran:
            tx.run("UPDATE schema_version SET version = ?", len(migrations))
        return ran

