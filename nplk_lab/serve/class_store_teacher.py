"""The teacher's side of the class store (:mod:`.class_store` has the story): start a
class, make browsers teacher devices, new teacher links, the class's size, the moves of
peer instruction, the step, the end, who has not voted, and the results."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

from . import class_store_results as results
from .class_store_base import StoreBase, Teacher, _bool_or_none, _int_or_none, _seat_key
from .class_store_db import CLASS_COLUMNS, Tx
from .class_store_rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DEFAULT_CLASS_SIZE,
    DEFAULT_IDLE_TIMEOUT_S,
    IDLE_TIMEOUT_RANGE_S,
    MAX_LESSON_CHARS,
    MAX_OPTIONS,
    MAX_STEPS,
    MAX_STUDENTS,
    MAX_TEACHER_DEVICES,
    PHASES,
    RETENTION_RANGE_S,
    REVEALED,
    REVIEW_S,
    TOKEN_BYTES,
    VOTE,
    ClassError,
    ClassState,
    Entry,
    Missing,
    Seat,
    Started,
    StepSummary,
    TooMany,
    Vote,
    end_of_day,
    plain_text,
    seconds_in,
    token_hash,
    whole_number,
)


class TeacherSide(StoreBase):
    """What only a class's teacher does: every method takes the teacher's credential,
    the token (the teacher link) or a teacher device's :class:`Seat`."""

    def start_class(self, lesson: object, idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
                    retention_s: float | None = None, *, seat: Seat | None = None,
                    size: int = DEFAULT_CLASS_SIZE) -> Started:
        """A new class at step 0 taking ``size`` students; ``seat`` (the starting
        browser) is its first teacher device. Its rows are deleted ``retention_s``
        after now, or (None) at the end of the day; not before it ends, and at least
        REVIEW_S after."""
        lesson = plain_text(lesson, "A lesson's name", MAX_LESSON_CHARS)
        idle = seconds_in(idle_timeout_s, IDLE_TIMEOUT_RANGE_S, "The idle time")
        size = whole_number(size, MAX_STUDENTS + 1, "A class's size", low=1)
        device = None if seat is None else _seat_key(seat)
        now = self._clock()
        delete_at = (end_of_day(now) if retention_s is None
                     else now + seconds_in(retention_s, RETENTION_RANGE_S, "The retention"))
        token = secrets.token_urlsafe(TOKEN_BYTES)

        def insert(tx: Tx) -> bool:
            if tx.one("SELECT 1 FROM classes WHERE code = ?", code) is not None:
                return False
            tx.run(f"INSERT INTO classes ({CLASS_COLUMNS}) VALUES "
                   "(?, ?, ?, ?, ?, ?, ?, NULL, 0, 1, 0, 0, ?)",
                   code, lesson, token_hash(token), now, now, idle, delete_at, size)
            if device is not None:
                tx.run("INSERT INTO teachers (code, seat, added_at) VALUES (?, ?, ?)",
                       code, device, now)
            return True

        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self._run(True, insert):
                return Started(code, token, delete_at)
        raise RuntimeError("no free join code")  # pragma: no cover - 1e-12 per try

    def claim_teacher(self, code: str, token: str, seat: Seat) -> Entry:
        """The teacher link opened in a browser: with the right token, ``seat`` becomes
        one of the class's teacher devices (at most MAX_TEACHER_DEVICES)."""
        key = _seat_key(seat)

        def run(tx: Tx) -> Entry:
            now = self._clock()
            c = self._teacher(tx, code, str(token))
            if tx.one("SELECT 1 FROM teachers WHERE code = ? AND seat = ?",
                      c.code, key) is None:
                n = tx.one("SELECT COUNT(*) FROM teachers WHERE code = ?", c.code)[0]
                if n >= MAX_TEACHER_DEVICES:
                    raise TooMany(f"This class has {MAX_TEACHER_DEVICES} teacher devices "
                                  "already.")
                tx.run("INSERT INTO teachers (code, seat, added_at) VALUES (?, ?, ?)",
                       c.code, key, now)
            return Entry(self._state(tx, c.code, now), "teacher")
        return self._run(True, run)

    def new_teacher_link(self, code: str, who: Teacher) -> str:
        """A new teacher token for the class (its teacher link); the old token stops
        working, the teacher devices stay."""
        token = secrets.token_urlsafe(TOKEN_BYTES)

        def run(tx: Tx) -> str:
            c = self._teacher(tx, code, who)
            tx.run("UPDATE classes SET teacher_hash = ? WHERE code = ?",
                   token_hash(token), c.code)
            return token
        return self._run(True, run)

    def teaching(self, seat: Seat) -> tuple[ClassState, ...]:
        """The live classes ``seat`` is a teacher device of, the newest first."""
        try:
            key = _seat_key(seat)
        except ClassError:
            return ()

        def run(tx: Tx) -> tuple[ClassState, ...]:
            now = self._clock()
            codes = [r[0] for r in tx.all(
                "SELECT c.code FROM classes c JOIN teachers t ON t.code = c.code "
                "WHERE t.seat = ? AND c.ended_at IS NULL ORDER BY c.started_at DESC", key)]
            states = (self._state(tx, code, now) for code in codes)
            return tuple(s for s in states if not s.ended)
        return self._run(False, run)

    def resize(self, code: str, who: Teacher, size: int) -> ClassState:
        """Let the class take ``size`` students (fewer than have joined: no one more)."""
        size = whole_number(size, MAX_STUDENTS + 1, "A class's size", low=1)

        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._live_teacher(tx, code, who, now)
            tx.run("UPDATE classes SET size = ? WHERE code = ?", size, c.code)
            self._bump(tx, c.code, now, counts=True)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def move(self, code: str, who: Teacher, phase: int, step: int | None = None,
             correct: int | None = None) -> ClassState:
        """Move ``step`` (default: the current one) on to ``phase`` of peer instruction
        (SPLIT closes the first vote, REVOTE opens the second, SHIFT closes it,
        REVEALED shows the answer; any of them may be skipped). ``correct`` is the right
        option, given with the reveal (-1: none of them; None: not said, no share
        right). Moving to the phase a step is in changes nothing; back, a refusal."""
        phase = whole_number(phase, REVEALED + 1, "A phase", low=VOTE + 1)
        if correct is not None:
            correct = whole_number(correct, MAX_OPTIONS, "The right option", low=-1)

        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._live_teacher(tx, code, who, now)
            at = c.step if step is None else whole_number(step, MAX_STEPS, "A step")
            was = self._phase(tx, c.code, at)
            if phase < was:
                raise ClassError(f"This question is at {PHASES[was]} already: it cannot "
                                 f"go back to {PHASES[phase]}.")
            if phase > was:
                keep = correct if phase == REVEALED else None
                if was == VOTE:
                    tx.run("INSERT INTO phases (code, step, phase, correct, changed_at) "
                           "VALUES (?, ?, ?, ?, ?)", c.code, at, phase, keep, now)
                else:
                    tx.run("UPDATE phases SET phase = ?, correct = ?, changed_at = ? "
                           "WHERE code = ? AND step = ?", phase, keep, now, c.code, at)
                self._bump(tx, c.code, now)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def reveal(self, code: str, who: Teacher, step: int | None = None,
               correct: int | None = None) -> ClassState:
        """Reveal ``step`` (default: the current one) for the whole class: votes close."""
        return self.move(code, who, REVEALED, step, correct)

    def advance(self, code: str, who: Teacher, step: int | None = None) -> ClassState:
        """Move the class to ``step`` (default: the next one); students follow."""
        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._live_teacher(tx, code, who, now)
            to = c.step + 1 if step is None else step
            to = whole_number(to, MAX_STEPS, "A step")
            tx.run("UPDATE classes SET step = ? WHERE code = ?", to, c.code)
            self._bump(tx, c.code, now)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def end(self, code: str, who: Teacher) -> ClassState:
        """End the class (again: no change). Its summary stays until its deletion time,
        at least REVIEW_S after it ended."""
        def run(tx: Tx) -> ClassState:
            now = self._clock()
            c = self._teacher(tx, code, who)
            if c.ended_at is None:
                ended = min(now, c.last_active + c.idle_timeout_s)
                tx.run("UPDATE classes SET ended_at = ?, version = version + 1, "
                       "delete_at = ? WHERE code = ?", ended,
                       max(c.delete_at, ended + REVIEW_S), c.code)
            return self._state(tx, c.code, now)
        return self._run(True, run)

    def missing(self, code: str, who: Teacher, step: int, round: int = 1) -> Missing:
        """The joined students with no vote on ``step`` in ``round`` (1 or 2): how many,
        and their names where typed (sorted). For the teacher only."""
        step = whole_number(step, MAX_STEPS, "A step")
        column = {1: "vote1", 2: "vote2"}.get(round)
        if column is None:
            raise ClassError("A round is the first or the second vote.")

        def run(tx: Tx) -> Missing:
            c = self._teacher(tx, code, who, lock=False)
            rows = tx.all(
                "SELECT u.handle, u.typed FROM students u LEFT JOIN votes v ON "
                "v.code = u.code AND v.student = u.student AND v.step = ? "
                f"WHERE u.code = ? AND v.{column} IS NULL", step, c.code)
            return Missing(len(rows), tuple(sorted(h for h, typed in rows if typed)))
        return self._run(False, run)

    def summary(self, code: str, who: Teacher) -> tuple[StepSummary, ...]:
        """Per step asked (a phase or a vote): both votes, the shift, the answers held
        at the end (:func:`.class_store_results.step_summary`). No names."""
        def run(tx: Tx) -> tuple[StepSummary, ...]:
            c = self._teacher(tx, code, who, lock=False)
            return self._summaries(tx, c.code)
        return self._run(False, run)

    def _summaries(self, tx: Tx, code: str) -> tuple[StepSummary, ...]:
        phases = {int(s): (int(p), _int_or_none(k)) for s, p, k in tx.all(
            "SELECT step, phase, correct FROM phases WHERE code = ?", code)}
        pairs: dict[int, dict[tuple[int | None, int | None], int]] = {}
        for step, a, b, n in tx.all(
                "SELECT step, vote1, vote2, COUNT(*) FROM votes WHERE code = ? "
                "GROUP BY step, vote1, vote2", code):
            pairs.setdefault(int(step), {})[(_int_or_none(a), _int_or_none(b))] = int(n)
        return tuple(results.step_summary(s, *phases.get(s, (VOTE, None)), pairs.get(s, {}))
                     for s in sorted(set(phases) | set(pairs)))

    def summary_csv(self, code: str, who: Teacher) -> str:
        """:meth:`summary` as CSV (:func:`.class_store_results.summary_csv`)."""
        return results.summary_csv(self.summary(code, who))

    def answers_csv(self, code: str, who: Teacher,
                    options: Mapping[int, Sequence[str]] | None = None) -> str:
        """Every joined student at every step asked, both votes and the answer held
        (:func:`.class_store_results.answers_csv`); names only where typed."""
        def run(tx: Tx) -> str:
            c = self._teacher(tx, code, who, lock=False)
            students = [(k, h, bool(t)) for k, h, t in tx.all(
                "SELECT student, handle, typed FROM students WHERE code = ? "
                "ORDER BY joined_at, handle", c.code)]
            steps = {s.step: s.correct for s in self._summaries(tx, c.code)}
            votes = {(k, int(s)): Vote(_int_or_none(a), _bool_or_none(sa), _int_or_none(b),
                                       _bool_or_none(sb), int(n)) for k, s, a, sa, b, sb, n in
                     tx.all("SELECT student, step, vote1, sure1, vote2, sure2, changes "
                            "FROM votes WHERE code = ?", c.code)}
            return results.answers_csv(students, steps, votes, options)
        return self._run(False, run)
