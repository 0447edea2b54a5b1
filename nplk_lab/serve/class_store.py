"""A class's answers in one place, shared by every worker of ``nplk-lab classroom``.

The teacher starts a class (a join code and a secret teacher token), students join with
the code (a random handle unless they type a name), answer a question step, and the
teacher's screen counts the answers; only the teacher token reveals, moves the class to
another step or ends it; at the end, the share of first answers that were right per step,
also as CSV. Issue 32 has the story.

One interface, :class:`ClassStore`, over two databases and one SQL code path:

* SQLite (the default): a file in a folder the caller names, WAL mode, a busy timeout,
  every operation one short ``BEGIN IMMEDIATE`` transaction, so the workers of one
  machine write at once and a killed worker loses nothing it committed;
* PostgreSQL through psycopg 3 (``ClassStore("postgresql://...")``, the extra
  ``nplk[postgres]``), for workers on several machines; a write locks its class's row
  (``FOR UPDATE``), so a class's writes are serial and its limits exact.

What differs between the two lives in :mod:`.class_store_db` (how to connect, begin, lock
a row, and the placeholder, ``?`` or ``%s``), with the schema, which the store creates and
migrates itself (``schema_version`` and ``MIGRATIONS``, one function per version). The
limits, all in one place, and the checks of what users type are in
:mod:`.class_store_rules`.

What is stored: the class's code, lesson, step and times, the students' handles (a name
only where the student typed one) and answers with their times; besides, a hash of the
teacher token (never the token) and, for JOIN_WINDOW_S (ten minutes), a salted hash of
the client key of each source of wrong join codes (to rate-limit guessing). Nothing
else: no address, no browser detail. Classes idle longer than their idle time end; a
class's rows are deleted at its deletion time (default: the end of the day, local time),
by :meth:`ClassStore.purge`, which the server calls now and then.

Every refusal is a :class:`ClassError` (a ``ValueError``) whose message a page can show
as it is, except a wrong teacher token: :class:`WrongToken` (a ``PermissionError``).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import math
import os
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .class_store_db import CLASS_COLUMNS, MIGRATIONS, ClassRow, Database, Tx
from .class_store_rules import (
    ANSWER_WINDOW_S,
    CODE_ALPHABET,
    CODE_LENGTH,
    DEFAULT_IDLE_TIMEOUT_S,
    IDLE_TIMEOUT_RANGE_S,
    JOIN_WINDOW_S,
    MAX_ANSWERS,
    MAX_FAILED_JOINS,
    MAX_LESSON_CHARS,
    MAX_OPTIONS,
    MAX_STEPS,
    MAX_STUDENTS,
    RETENTION_RANGE_S,
    REVIEW_S,
    TOKEN_BYTES,
    Answered,
    ClassError,
    ClassOver,
    ClassState,
    Counts,
    Joined,
    Purged,
    Started,
    StepSummary,
    TooMany,
    UnknownClass,
    WrongToken,
    clean_name,
    csv_cell,
    end_of_day,
    format_code,
    normal_code,
    plain_text,
    random_handle,
    seconds_in,
    token_hash,
    well_formed,
    whole_number,
)

__all__ = ["ClassStore", "ClassError", "UnknownClass", "ClassOver", "TooMany", "WrongToken",
           "Started", "Joined", "Answered", "Counts", "StepSummary", "Purged", "ClassState",
           "clean_name", "format_code", "normal_code"]

# ---------------------------------------------------------------------------
# the store
# ---------------------------------------------------------------------------
class ClassStore:
    """The classes of one server (see the module doc).

    ``where``: a folder for the SQLite file (created if missing), or a
    ``postgresql://`` URL. ``clock`` gives the time in seconds since the epoch (tests
    pass their own). Opening creates or migrates the schema; ``migrated`` lists the
    versions this opening ran. Thread-safe; after a fork, open a new store in the child.
    """

    def __init__(self, where: str | os.PathLike[str], *,
                 clock: Callable[[], float] = time.time,
                 migrations: Sequence[Callable[[Tx], None]] = MIGRATIONS) -> None:
        self._db = Database(where)
        self._run = self._db.run
        self._clock = clock
        self.migrated: list[int] = self._db.migrate(migrations)
        self._salt: str = self._run(False, lambda tx: tx.one("SELECT value FROM salt")[0])

    @property
    def backend(self) -> str:
        """'sqlite' or 'postgresql'."""
        return self._db.name

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ClassStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _class(self, tx: Tx, code: object, *, lock: bool = False) -> ClassRow:
        row = tx.one(f"SELECT {CLASS_COLUMNS} FROM classes WHERE code = ?"
                     + (self._db.lock if lock else ""), normal_code(code))
        if row is None:
            raise UnknownClass("There is no class with this code (it may have ended "
                               "and been deleted).")
        return ClassRow(*row)

    def _teacher(self, tx: Tx, code: object, token: object, *, lock: bool = True) -> ClassRow:
        c = self._class(tx, code, lock=lock)
        if not hmac.compare_digest(token_hash(token), c.teacher_hash):
            raise WrongToken("Only the teacher's link can do this.")
        return c

    def _client_key(self, client: str) -> str:
        return hashlib.sha256(f"{self._salt}\n{client[:256]}".encode(
            "utf-8", "surrogatepass")).hexdigest()[:32]

    # --- the teacher --------------------------------------------------------------
    def start_class(self, lesson: object, idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
                    retention_s: float | None = None) -> Started:
        """A new class at step 0. Its rows are deleted ``retention_s`` after now, or
        (None) at the end of the day; not before it ends, and at least REVIEW_S after."""
        lesson = plain_text(lesson, "A lesson's name", MAX_LESSON_CHARS)
        idle = seconds_in(idle_timeout_s, IDLE_TIMEOUT_RANGE_S, "The idle time")
        now = self._clock()
        delete_at = (end_of_day(now) if retention_s is None
                     else now + seconds_in(retention_s, RETENTION_RANGE_S, "The retention"))
        token = secrets.token_urlsafe(TOKEN_BYTES)

        def insert(tx: Tx) -> bool:
            if tx.one("SELECT 1 FROM classes WHERE code = ?", code) is not None:
                return False
            tx.run(f"INSERT INTO classes ({CLASS_COLUMNS}) VALUES "
                   "(?, ?, ?, ?, ?, ?, ?, NULL, 0, 1, 0, 0)",
                   code, lesson, token_hash(token), now, now, idle, delete_at)
            return True

        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self._run(True, insert):
                return Started(code, token, delete_at)
        raise RuntimeError("no free join code")  # pragma: no cover - 1e-12 per try

    def reveal(self, code: str, teacher_token: str, step: int | None = None,
               correct: int | None = None) -> ClassState:
        """Reveal ``step`` (default: the current one) for the whole class; ``correct``
        is its right option (-1: none of them; None: not said, no share right).
        Answers to a revealed step are closed. Revealing again changes nothing."""
        if correct is not None:
            correct = whole_number(correct, MAX_OPTIONS, "The right option", low=-1)

        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._live_teacher(tx, code, teacher_token, now)
            at = c.step if step is None else whole_number(step, MAX_STEPS, "A step")
            if tx.one("SELECT 1 FROM steps WHERE code = ? AND step = ?", c.code, at) is None:
                tx.run("INSERT INTO steps (code, step, revealed_at, correct) "
                       "VALUES (?, ?, ?, ?)", c.code, at, now, correct)
                tx.run("UPDATE classes SET version = version + 1, last_active = ? "
                       "WHERE code = ?", now, c.code)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def advance(self, code: str, teacher_token: str, step: int | None = None) -> ClassState:
        """Move the class to ``step`` (default: the next one); students follow."""
        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._live_teacher(tx, code, teacher_token, now)
            to = c.step + 1 if step is None else step
            to = whole_number(to, MAX_STEPS, "A step")
            tx.run("UPDATE classes SET step = ?, version = version + 1, last_active = ? "
                   "WHERE code = ?", to, now, c.code)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def end(self, code: str, teacher_token: str) -> ClassState:
        """End the class (again: no change). Its summary stays until its deletion time,
        at least REVIEW_S after it ended."""
        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._teacher(tx, code, teacher_token)
            if c.ended_at is None:
                ended = min(now, c.last_active + c.idle_timeout_s)
                tx.run("UPDATE classes SET ended_at = ?, version = version + 1, "
                       "delete_at = ? WHERE code = ?", ended,
                       max(c.delete_at, ended + REVIEW_S), c.code)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def _live_teacher(self, tx: Tx, code: object, token: object, now: float) -> ClassRow:
        c = self._teacher(tx, code, token)
        if not c.live(now):
            raise ClassOver("This class has ended.")
        return c

    def summary(self, code: str, teacher_token: str) -> tuple[StepSummary, ...]:
        """Per step answered or revealed: how many answered, how many first answers
        were right and their share, how many changed their answer. No names."""
        def run(tx: Tx) -> tuple[StepSummary, ...]:
            c = self._teacher(tx, code, teacher_token, lock=False)
            revealed = {s: k for s, k in tx.all(
                "SELECT step, correct FROM steps WHERE code = ?", c.code)}
            rows = {r[0]: r[1:] for r in tx.all(
                "SELECT a.step, COUNT(*), SUM(CASE WHEN a.first_choice = s.correct THEN 1 "
                "ELSE 0 END), SUM(CASE WHEN a.changes > 0 THEN 1 ELSE 0 END) FROM answers a "
                "LEFT JOIN steps s ON s.code = a.code AND s.step = a.step "
                "WHERE a.code = ? GROUP BY a.step", c.code)}
            out = []
            for st in sorted(set(revealed) | set(rows)):
                n, right, changed = rows.get(st, (0, 0, 0))
                correct = revealed.get(st)
                right = None if correct is None else int(right or 0)
                share = None if right is None or not n else right / n
                out.append(StepSummary(st, int(n), right, share, int(changed or 0),
                                       correct))
            return tuple(out)
        return self._run(False, run)

    def summary_csv(self, code: str, teacher_token: str) -> str:
        """:meth:`summary` as CSV, steps numbered from 1, shares in percent."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["step", "answered", "first answers right", "share right (%)",
                    "changed their answer"])
        for s in self.summary(code, teacher_token):
            w.writerow([s.step + 1, s.answered, "" if s.right is None else s.right,
                        "" if s.share_right is None else f"{100 * s.share_right:.0f}",
                        s.changed])
        return out.getvalue()

    def answers_csv(self, code: str, teacher_token: str,
                    options: Mapping[int, Sequence[str]] | None = None) -> str:
        """One row per student and step answered: the name only where the student typed
        one (else empty), first and last answer (``options[step]``'s words, else
        'option 1', 'option 2' ...), whether the first was right, the changes."""
        def run(tx: Tx) -> list[Any]:
            c = self._teacher(tx, code, teacher_token, lock=False)
            return tx.all(
                "SELECT a.step, u.handle, u.typed, a.first_choice, a.choice, a.changes, "
                "s.correct FROM answers a JOIN students u ON u.code = a.code AND "
                "u.student = a.student LEFT JOIN steps s ON s.code = a.code AND "
                "s.step = a.step WHERE a.code = ? ORDER BY a.step, a.first_at", c.code)

        def said(step: int, choice: int) -> str:
            words = (options or {}).get(step, ())
            return words[choice] if choice < len(words) else f"option {choice + 1}"

        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["step", "name", "first answer", "first answer right", "last answer",
                    "answer changes"])
        for step, handle, typed, first, last, changes, correct in self._run(False, run):
            right = "" if correct is None else ("yes" if first == correct else "no")
            w.writerow([step + 1, csv_cell(handle) if typed else "", said(step, first),
                        right, said(step, last), changes])
        return out.getvalue()

    # --- students -----------------------------------------------------------------
    def join(self, code: str, name: str | None = None, *, client: str = "") -> Joined:
        """Join the class ``code`` (as typed: case, spaces and a dash do not matter).
        ``client`` keys the count of wrong codes (the client's address as the proxy
        forwards it); after MAX_FAILED_JOINS in JOIN_WINDOW_S, that client cannot join
        until the window ends."""
        name = clean_name(name)
        wanted = normal_code(code)
        key = self._client_key(str(client))

        def run(tx: Tx) -> Joined | ClassError:
            now = self._clock()
            # count this try first, holding the client's row: parallel tries queue here
            start, fails = tx.one(
                "INSERT INTO join_failures (client, window_start, failures) VALUES (?, ?, 1) "
                "ON CONFLICT (client) DO UPDATE SET failures = join_failures.failures + 1 "
                "RETURNING window_start, failures", key, now)
            if now - start >= JOIN_WINDOW_S:
                start, fails = now, 1
                tx.run("UPDATE join_failures SET window_start = ?, failures = 1 "
                       "WHERE client = ?", now, key)
            if fails > MAX_FAILED_JOINS:
                wait = max(1, math.ceil((start + JOIN_WINDOW_S - now) / 60))
                return TooMany(f"Too many wrong codes from here: try again in {wait} min.")
            try:
                if not well_formed(wanted):
                    raise UnknownClass("There is no class with this code.")
                c = self._class(tx, wanted, lock=True)
            except UnknownClass as e:
                return e     # committed: the wrong code counts
            tx.run("UPDATE join_failures SET failures = failures - 1 WHERE client = ?", key)
            tx.run("DELETE FROM join_failures WHERE client = ? AND failures <= 0", key)
            if not c.live(now):
                return ClassOver("This class has ended.")
            if c.students >= MAX_STUDENTS:
                return TooMany(f"This class is full ({MAX_STUDENTS} students).")
            student, handle = secrets.token_urlsafe(16), name or random_handle()
            tx.run("INSERT INTO students (code, student, handle, typed, joined_at, "
                   "window_start, window_answers) VALUES (?, ?, ?, ?, ?, ?, 0)",
                   c.code, student, handle, int(name is not None), now, now)
            tx.run("UPDATE classes SET students = students + 1, last_active = ?, "
                   "count_version = count_version + 1 WHERE code = ?", now, c.code)
            return Joined(student, handle)
        return self._run(True, run)

    def answer(self, code: str, student: str, step: int, choice: int) -> Answered:
        """Record ``student``'s answer ``choice`` to ``step``: the first is kept as the
        first, a different later one counts as a change. Refused once the step is
        revealed or the class ended, and beyond MAX_ANSWERS per ANSWER_WINDOW_S."""
        step = whole_number(step, MAX_STEPS, "A step")
        choice = whole_number(choice, MAX_OPTIONS, "An answer")
        student = str(student)

        def run(tx: Tx) -> Answered:
            now = self._clock()
            c = self._class(tx, code, lock=True)
            if not c.live(now):
                raise ClassOver("This class has ended.")
            st = tx.one("SELECT window_start, window_answers FROM students "
                        "WHERE code = ? AND student = ?", c.code, student)
            if st is None:
                raise UnknownClass("You are not in this class: join it again.")
            if tx.one("SELECT 1 FROM steps WHERE code = ? AND step = ?",
                      c.code, step) is not None:
                raise ClassError("The answer to this question is revealed: answers are "
                                 "closed.")
            start, n = (now, 0) if now - st[0] >= ANSWER_WINDOW_S else st
            if n >= MAX_ANSWERS:
                raise TooMany(f"That is {MAX_ANSWERS} answers in {ANSWER_WINDOW_S:.0f} s: "
                              f"wait {math.ceil(start + ANSWER_WINDOW_S - now)} s.")
            tx.run("UPDATE students SET window_start = ?, window_answers = ? "
                   "WHERE code = ? AND student = ?", start, n + 1, c.code, student)
            prev = tx.one("SELECT first_choice, choice, changes FROM answers "
                          "WHERE code = ? AND student = ? AND step = ?", c.code, student, step)
            if prev is None:
                out = Answered(choice, choice, 0)
                tx.run("INSERT INTO answers (code, student, step, first_choice, choice, "
                       "changes, first_at, last_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                       c.code, student, step, choice, choice, now, now)
            else:
                out = Answered(prev[0], choice, prev[2] + int(choice != prev[1]))
                tx.run("UPDATE answers SET choice = ?, changes = ?, last_at = ? "
                       "WHERE code = ? AND student = ? AND step = ?",
                       choice, out.changes, now, c.code, student, step)
            tx.run("UPDATE classes SET last_active = ?, count_version = count_version + 1 "
                   "WHERE code = ?", now, c.code)
            return out
        return self._run(True, run)

    def answer_of(self, code: str, student: str, step: int) -> Answered | None:
        """``student``'s answer to ``step`` (None: none yet), e.g. after a reconnect."""
        step = whole_number(step, MAX_STEPS, "A step")
        def run(tx: Tx) -> Answered | None:
            c = self._class(tx, code)
            row = tx.one("SELECT first_choice, choice, changes FROM answers WHERE code = ? "
                         "AND student = ? AND step = ?", c.code, str(student), step)
            return None if row is None else Answered(*row)
        return self._run(False, run)

    # --- everyone -----------------------------------------------------------------
    def counts(self, code: str, step: int) -> Counts:
        """How many answered ``step`` and how many answers are on each option now (no
        names, nothing about which is right)."""
        step = whole_number(step, MAX_STEPS, "A step")
        def run(tx: Tx) -> Counts:
            c = self._class(tx, code)
            by = {int(k): int(n) for k, n in tx.all(
                "SELECT choice, COUNT(*) FROM answers WHERE code = ? AND step = ? "
                "GROUP BY choice", c.code, step)}
            return Counts(sum(by.values()), by, int(c.count_version))
        return self._run(False, run)

    def state(self, code: str) -> ClassState:
        return self._run(False, lambda tx: self._state(tx, code, self._clock()))

    def _state(self, tx: Tx, code: object, now: float) -> ClassState:
        c = self._class(tx, code)
        revealed = dict(tx.all("SELECT step, correct FROM steps WHERE code = ?", c.code))
        idle_ended = c.ended_at is None and not c.live(now)
        return ClassState(
            code=c.code, lesson=c.lesson, step=int(c.step), revealed=c.step in revealed,
            correct=revealed.get(c.step), revealed_steps=tuple(sorted(revealed)),
            ended=not c.live(now),
            # an idle end counts as a change before purge() records it (same number)
            version=int(c.version) + int(idle_ended), count_version=int(c.count_version),
            students=int(c.students), started_at=c.started_at, delete_at=c.delete_at,
            idle_timeout_s=c.idle_timeout_s)

    # --- the server ---------------------------------------------------------------
    def purge(self, now: float | None = None) -> Purged:
        """End the classes idle longer than their idle time; delete the classes ended
        and past their deletion time, with their students and answers; forget old
        counts of wrong join codes."""
        def run(tx: Tx) -> Purged:
            t = self._clock() if now is None else now
            ended = tx.run(
                "UPDATE classes SET ended_at = last_active + idle_timeout_s, "
                "version = version + 1, delete_at = CASE WHEN delete_at < last_active + "
                "idle_timeout_s + ? THEN last_active + idle_timeout_s + ? ELSE delete_at "
                "END WHERE ended_at IS NULL AND ? - last_active > idle_timeout_s",
                REVIEW_S, REVIEW_S, t).rowcount
            gone = "SELECT code FROM classes WHERE ended_at IS NOT NULL AND delete_at <= ?"
            for table in ("answers", "students", "steps"):
                tx.run(f"DELETE FROM {table} WHERE code IN ({gone})", t)
            deleted = tx.run("DELETE FROM classes WHERE ended_at IS NOT NULL AND "
                             "delete_at <= ?", t).rowcount
            tx.run("DELETE FROM join_failures WHERE ? - window_start >= ?", t, JOIN_WINDOW_S)
            return Purged(int(ended), int(deleted))
        return self._run(True, run)
