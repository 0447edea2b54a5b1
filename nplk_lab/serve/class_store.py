"""A class's answers in one place, shared by every worker of ``nplk-lab classroom``.

The teacher starts a class (a join code and a secret teacher token); students join with
the code and vote on each question step; the teacher leads peer instruction step by step
(Crouch & Mazur, "Peer Instruction: Ten years of experience and results", 2001): the
first vote, the split shown, a second vote after talking to a neighbour, the shift
shown, the reveal; then moves the class to another step, or ends it. At the end, the
summary per step (both votes, the shift, the normalised gain) and every answer, as CSV.

Who is who: a browser is one **seat**, the secret of an HttpOnly cookie the server gives
it (:class:`Seat`; the store keeps its SHA-256 only). In a class a seat is one student
(a second tab or a reload is the same student; the store finds them again by their seat)
or one of the class's **teacher devices**: the browser that started it, and each browser
that opened the teacher link (the token, hashed too). Every teacher move takes either
credential, so a reload, a dead worker or a restarted server leave the teacher the
teacher. Students see no names; the teacher sees typed names, never a seat.

One interface, :class:`ClassStore`, over two databases and one SQL code path:

* SQLite (the default): a file in a private folder the caller names, WAL mode, a busy
  timeout, every operation one short ``BEGIN IMMEDIATE`` transaction, so the workers of
  one machine write at once and a killed worker loses nothing it committed;
* PostgreSQL through psycopg 3 (``ClassStore("postgresql://...")``, the extra
  ``nplk[postgres]``), for workers on several machines; a write locks its class's row
  (``FOR UPDATE``), so a class's writes are serial and its limits exact.

What differs between the two lives in :mod:`.class_store_db`, with the schema, which the
store creates and migrates itself. The store is three layers: reading a class and its
state (:mod:`.class_store_base`), the teacher's operations (:mod:`.class_store_teacher`),
the students' and everyone's (here). The limits, all in one place, the moves of peer
instruction and the checks of what users type are in :mod:`.class_store_rules`; the
summary and the CSV files in :mod:`.class_store_results`.

What is stored: the class's code, lesson, size, step and times, each step's phase, the
students' handles (a name only where the student typed one) and votes with their times;
hashes of the teacher token and of every seat; for JOIN_WINDOW_S (ten minutes) a salted
hash of each client address that typed wrong codes, and per class the salted hashes of
the addresses its students joined from (a class behind one address keeps joining when
wrong codes from there reach the limit). No address, no browser detail. Classes idle
longer than their idle time end; a class's rows are deleted at its deletion time
(default: the end of the day, local time), by :meth:`ClassStore.purge`, which the server
calls now and then.

Every refusal is a :class:`ClassError` (a ``ValueError``) whose message a page can show
as it is, except a wrong teacher credential: :class:`WrongToken` (a ``PermissionError``).
"""

from __future__ import annotations

import math

from .class_store_base import Teacher, _bool_or_none, _int_or_none, _seat_key
from .class_store_db import ClassRow, Tx
from .class_store_rules import (
    ANSWER_WINDOW_S,
    JOIN_WINDOW_S,
    MAX_ANSWERS,
    MAX_FAILED_JOINS,
    MAX_OPTIONS,
    MAX_STEPS,
    REVEALED,
    REVIEW_S,
    ClassError,
    ClassOver,
    ClassState,
    Counts,
    Entry,
    Joined,
    Missing,
    Purged,
    Seat,
    Started,
    StepSummary,
    TooMany,
    UnknownClass,
    Vote,
    WrongToken,
    clean_name,
    format_code,
    normal_code,
    open_round,
    random_handle,
    sure_value,
    well_formed,
    whole_number,
)
from .class_store_teacher import TeacherSide

__all__ = ["ClassStore", "ClassError", "UnknownClass", "ClassOver", "TooMany", "WrongToken",
           "Seat", "Teacher", "Started", "Entry", "Joined", "Vote", "Counts", "Missing",
           "StepSummary", "Purged", "ClassState", "clean_name", "format_code", "normal_code"]


class ClassStore(TeacherSide):
    """The classes of one server (see the module doc): the teacher's operations
    (:class:`~.class_store_teacher.TeacherSide`), the students' and everyone's here.

    ``where``: a folder for the SQLite file (created if missing), or a
    ``postgresql://`` URL. ``clock`` gives the time in seconds since the epoch (tests
    pass their own). Opening creates or migrates the schema; ``migrated`` lists the
    versions this opening ran. Thread-safe; after a fork, open a new store in the child.
    """

    # --- students -----------------------------------------------------------------
    def _admit(self, tx: Tx, code: object, key: str, now: float) -> ClassRow | ClassError:
        """The class a browser asks for by its code (typed or in a link), counting the
        try against its client key first (holding that key's row: parallel tries queue
        here). A wrong code stays counted; past MAX_FAILED_JOINS in JOIN_WINDOW_S only
        the classes someone joined from that key are found. A refusal is returned, so
        the count is committed."""
        start, fails = tx.one(
            "INSERT INTO join_failures (client, window_start, failures) VALUES (?, ?, 1) "
            "ON CONFLICT (client) DO UPDATE SET failures = join_failures.failures + 1 "
            "RETURNING window_start, failures", key, now)
        if now - start >= JOIN_WINDOW_S:
            start, fails = now, 1
            tx.run("UPDATE join_failures SET window_start = ?, failures = 1 "
                   "WHERE client = ?", now, key)
        wanted = normal_code(code)
        c = self._find(tx, wanted, lock=True) if well_formed(wanted) else None
        if fails > MAX_FAILED_JOINS and (c is None or tx.one(
                "SELECT 1 FROM join_sources WHERE code = ? AND client = ?",
                c.code, key) is None):
            wait = max(1, math.ceil((start + JOIN_WINDOW_S - now) / 60))
            return TooMany(f"Too many wrong codes from this network: try again in {wait} "
                           "min (a class someone here has joined still opens).")
        if c is None:
            return UnknownClass("There is no class with this code: check it on your "
                                "teacher's screen.")
        tx.run("UPDATE join_failures SET failures = failures - 1 WHERE client = ?", key)
        tx.run("DELETE FROM join_failures WHERE client = ? AND failures <= 0", key)
        return c

    def enter(self, code: str, seat: Seat | str, *, client: str = "") -> Entry:
        """What this browser is in the class ``code``: a teacher device, a student
        (their handle), or a visitor who has not joined. A code that is not a class's
        counts as a wrong code for ``client`` (its address as the proxy saw it), as in
        :meth:`join`."""
        student = _seat_key(seat)

        def known(tx: Tx) -> Entry | None:
            c = self._find(tx, code)
            if c is None:
                return None
            now = self._clock()
            if tx.one("SELECT 1 FROM teachers WHERE code = ? AND seat = ?",
                      c.code, student) is not None:
                return Entry(self._state(tx, c.code, now), "teacher")
            row = tx.one("SELECT handle FROM students WHERE code = ? AND student = ?",
                         c.code, student)
            return None if row is None else Entry(self._state(tx, c.code, now),
                                                  "student", row[0])
        found = self._run(False, known)
        if found is not None:
            return found
        key = self._client_key(str(client))

        def visit(tx: Tx) -> Entry | ClassError:
            now = self._clock()
            c = self._admit(tx, code, key, now)
            return c if isinstance(c, ClassError) else Entry(self._state(tx, c.code, now),
                                                             "visitor")
        return self._run(True, visit)

    def join(self, code: str, name: str | None = None, *, seat: Seat | str,
             client: str = "") -> Joined:
        """Join the class ``code`` (as typed: case, spaces and a dash do not matter)
        from the browser ``seat``: a browser that joined already is the same student
        (``again``), its first handle kept. ``client`` (the client's address as the
        proxy saw it) keys the count of wrong codes (see :meth:`_admit`). Refused when
        the class is full (its size) or ended, or ``seat`` is its teacher's."""
        name = clean_name(name)
        student = _seat_key(seat)
        key = self._client_key(str(client))

        def run(tx: Tx) -> Joined | ClassError:
            now = self._clock()
            c = self._admit(tx, code, key, now)
            if isinstance(c, ClassError):
                return c
            row = tx.one("SELECT handle FROM students WHERE code = ? AND student = ?",
                         c.code, student)
            if row is not None:
                return Joined(row[0], True)
            if not c.live(now):
                return ClassOver("This class has ended.")
            if tx.one("SELECT 1 FROM teachers WHERE code = ? AND seat = ?",
                      c.code, student) is not None:
                return ClassError("This browser is the class's teacher: students join "
                                  "on their own phones or computers.")
            if c.students >= c.size:
                return TooMany(f"This class is full ({c.size} students): your teacher "
                               "can make it larger.")
            handle = name or random_handle()
            tx.run("INSERT INTO students (code, student, handle, typed, joined_at, "
                   "window_start, window_answers) VALUES (?, ?, ?, ?, ?, ?, 0)",
                   c.code, student, handle, int(name is not None), now, now)
            tx.run("INSERT INTO join_sources (code, client, joined_at) VALUES (?, ?, ?) "
                   "ON CONFLICT (code, client) DO NOTHING", c.code, key, now)
            tx.run("UPDATE classes SET students = students + 1 WHERE code = ?", c.code)
            self._bump(tx, c.code, now, counts=True)
            return Joined(handle, False)
        return self._run(True, run)

    def vote(self, code: str, seat: Seat | str, step: int, choice: int,
             sure: bool | None = None) -> Vote:
        """This browser's student votes ``choice`` on ``step`` (the class's step) in the
        round open there (the first vote, or the second), ``sure`` or not (None: not
        said). A vote can change until its round closes; refused when no round is open,
        the class ended, and beyond MAX_ANSWERS per ANSWER_WINDOW_S."""
        step = whole_number(step, MAX_STEPS, "A step")
        choice = whole_number(choice, MAX_OPTIONS, "An answer")
        sure = sure_value(sure)
        student = _seat_key(seat)

        def run(tx: Tx) -> Vote:
            now = self._clock()
            c = self._class(tx, code, lock=True)
            if not c.live(now):
                raise ClassOver("This class has ended.")
            st = tx.one("SELECT window_start, window_answers FROM students "
                        "WHERE code = ? AND student = ?", c.code, student)
            if st is None:
                raise UnknownClass("You are not in this class: join it again.")
            if step != c.step:
                raise ClassError(f"This question is not open: the class is at step "
                                 f"{c.step + 1}.")
            phase = self._phase(tx, c.code, step)
            rnd = open_round(phase)
            if rnd is None:
                raise ClassError("Votes on this question are closed"
                                 + (": the answer is revealed." if phase == REVEALED else
                                    " for now."))
            start, n = (now, 0) if now - st[0] >= ANSWER_WINDOW_S else st
            if n >= MAX_ANSWERS:
                raise TooMany(f"That is {MAX_ANSWERS} votes in {ANSWER_WINDOW_S:.0f} s: "
                              f"wait {math.ceil(start + ANSWER_WINDOW_S - now)} s.")
            tx.run("UPDATE students SET window_start = ?, window_answers = ? "
                   "WHERE code = ? AND student = ?", start, n + 1, c.code, student)
            prev = self._vote(tx, c.code, student, step)
            if prev is None:
                prev = Vote(None, None, None, None, 0)
                tx.run("INSERT INTO votes (code, student, step, changes, first_at, "
                       "last_at) VALUES (?, ?, ?, 0, ?, ?)", c.code, student, step, now, now)
            was = prev.first if rnd == 1 else prev.second
            out = (prev._replace(first=choice, first_sure=sure) if rnd == 1 else
                   prev._replace(second=choice, second_sure=sure))
            out = out._replace(changes=prev.changes + int(was is not None and was != choice))
            tx.run("UPDATE votes SET vote1 = ?, sure1 = ?, vote2 = ?, sure2 = ?, changes = ?, "
                   "last_at = ? WHERE code = ? AND student = ? AND step = ?",
                   out.first, None if out.first_sure is None else int(out.first_sure),
                   out.second, None if out.second_sure is None else int(out.second_sure),
                   out.changes, now, c.code, student, step)
            self._bump(tx, c.code, now, counts=True)
            return out
        return self._run(True, run)

    def _vote(self, tx: Tx, code: str, student: str, step: int) -> Vote | None:
        row = tx.one("SELECT vote1, sure1, vote2, sure2, changes FROM votes WHERE code = ? "
                     "AND student = ? AND step = ?", code, student, step)
        return None if row is None else Vote(_int_or_none(row[0]), _bool_or_none(row[1]),
                                             _int_or_none(row[2]), _bool_or_none(row[3]),
                                             int(row[4]))

    def vote_of(self, code: str, seat: Seat | str, step: int) -> Vote | None:
        """This browser's student's votes on ``step`` (None: none yet)."""
        step = whole_number(step, MAX_STEPS, "A step")
        student = _seat_key(seat)
        return self._run(False, lambda tx: self._vote(tx, self._class(tx, code).code,
                                                      student, step))

    # --- everyone -----------------------------------------------------------------
    def counts(self, code: str, step: int, round: int = 1) -> Counts:
        """How many voted on ``step`` in ``round`` (1 or 2) and how many votes are on
        each option now (no names, nothing about which is right)."""
        step = whole_number(step, MAX_STEPS, "A step")
        column = {1: "vote1", 2: "vote2"}.get(round)
        if column is None:
            raise ClassError("A round is the first or the second vote.")

        def run(tx: Tx) -> Counts:
            c = self._class(tx, code)
            by = {int(k): int(n) for k, n in tx.all(
                f"SELECT {column}, COUNT(*) FROM votes WHERE code = ? AND step = ? AND "
                f"{column} IS NOT NULL GROUP BY {column}", c.code, step)}
            return Counts(sum(by.values()), by, int(c.count_version))
        return self._run(False, run)

    def pairs(self, code: str, step: int) -> dict[tuple[int | None, int | None], int]:
        """(first vote, second vote) -> students, on ``step`` (no names): what the shift
        is made of (:func:`.class_store_rules.shift_of`)."""
        step = whole_number(step, MAX_STEPS, "A step")

        def run(tx: Tx) -> dict[tuple[int | None, int | None], int]:
            c = self._class(tx, code)
            return {(_int_or_none(a), _int_or_none(b)): int(n) for a, b, n in tx.all(
                "SELECT vote1, vote2, COUNT(*) FROM votes WHERE code = ? AND step = ? "
                "GROUP BY vote1, vote2", c.code, step)}
        return self._run(False, run)

    # --- the server ---------------------------------------------------------------
    def purge(self, now: float | None = None) -> Purged:
        """End the classes idle longer than their idle time; delete the classes ended
        and past their deletion time, with everything of theirs; forget old counts of
        wrong join codes."""
        def run(tx: Tx) -> Purged:
            t = self._clock() if now is None else now
            ended = tx.run(
                "UPDATE classes SET ended_at = last_active + idle_timeout_s, "
                "version = version + 1, delete_at = CASE WHEN delete_at < last_active + "
                "idle_timeout_s + ? THEN last_active + idle_timeout_s + ? ELSE delete_at "
                "END WHERE ended_at IS NULL AND ? - last_active > idle_timeout_s",
                REVIEW_S, REVIEW_S, t).rowcount
            gone = "SELECT code FROM classes WHERE ended_at IS NOT NULL AND delete_at <= ?"
            for table in ("votes", "students", "phases", "teachers", "join_sources"):
                tx.run(f"DELETE FROM {table} WHERE code IN ({gone})", t)
            deleted = tx.run("DELETE FROM classes WHERE ended_at IS NOT NULL AND "
                             "delete_at <= ?", t).rowcount
            tx.run("DELETE FROM join_failures WHERE ? - window_start >= ?", t, JOIN_WINDOW_S)
            return Purged(int(ended), int(deleted))
        return self._run(True, run)
