"""The class store's base (:mod:`.class_store` has the story): opening the database,
reading a class, its phases and its teacher's credential, and the state every screen
polls. :class:`~.class_store_teacher.TeacherSide` adds the teacher's operations and
:class:`~.class_store.ClassStore` the students'."""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from collections.abc import Callable, Sequence
from typing import Any, Self

from .class_store_db import CLASS_COLUMNS, MIGRATIONS, ClassRow, Database, Tx
from .class_store_rules import (
    REVEALED,
    VOTE,
    ClassError,
    ClassOver,
    ClassState,
    Seat,
    UnknownClass,
    WrongToken,
    normal_code,
    seat_secret,
    token_hash,
)

#: who may act as the teacher: the teacher token (the teacher link), or a teacher device
Teacher = str | Seat


def _seat_key(seat: object) -> str:
    return token_hash(seat_secret(seat))


def _int_or_none(x: Any) -> int | None:
    return None if x is None else int(x)


def _bool_or_none(x: Any) -> bool | None:
    return None if x is None else bool(x)


class StoreBase:
    """The classes of one server (see :class:`~.class_store.ClassStore`).

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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading rows -------------------------------------------------------------
    def _find(self, tx: Tx, code: object, *, lock: bool = False) -> ClassRow | None:
        row = tx.one(f"SELECT {CLASS_COLUMNS} FROM classes WHERE code = ?"
                     + (self._db.lock if lock else ""), normal_code(code))
        return None if row is None else ClassRow(*row)

    def _class(self, tx: Tx, code: object, *, lock: bool = False) -> ClassRow:
        c = self._find(tx, code, lock=lock)
        if c is None:
            raise UnknownClass("There is no class with this code (it may have ended "
                               "and been deleted).")
        return c

    def _is_teacher(self, tx: Tx, c: ClassRow, who: object) -> bool:
        if isinstance(who, Seat):
            try:
                key = _seat_key(who)
            except ClassError:
                return False
            return tx.one("SELECT 1 FROM teachers WHERE code = ? AND seat = ?",
                          c.code, key) is not None
        return hmac.compare_digest(token_hash(who), c.teacher_hash)

    def _teacher(self, tx: Tx, code: object, who: object, *, lock: bool = True) -> ClassRow:
        c = self._class(tx, code, lock=lock)
        if not self._is_teacher(tx, c, who):
            raise WrongToken("Only the class's teacher can do this (the teacher link "
                             "makes a browser a teacher device).")
        return c

    def _live_teacher(self, tx: Tx, code: object, who: object, now: float) -> ClassRow:
        c = self._teacher(tx, code, who)
        if not c.live(now):
            raise ClassOver("This class has ended.")
        return c

    def _phase(self, tx: Tx, code: str, step: int) -> int:
        row = tx.one("SELECT phase FROM phases WHERE code = ? AND step = ?", code, step)
        return VOTE if row is None else int(row[0])

    def _client_key(self, client: str) -> str:
        return hashlib.sha256(f"{self._salt}\n{client}".encode(
            "utf-8", "surrogatepass")).hexdigest()[:32]

    def _bump(self, tx: Tx, code: str, now: float, *, counts: bool = False) -> None:
        column = "count_version" if counts else "version"
        tx.run(f"UPDATE classes SET {column} = {column} + 1, last_active = ? "
               "WHERE code = ?", now, code)

    def state(self, code: str) -> ClassState:
        return self._run(False, lambda tx: self._state(tx, code, self._clock()))

    def _state(self, tx: Tx, code: object, now: float) -> ClassState:
        c = self._class(tx, code)
        phases = {int(s): (int(p), _int_or_none(k)) for s, p, k in tx.all(
            "SELECT step, phase, correct FROM phases WHERE code = ?", c.code)}
        phase, correct = phases.get(c.step, (VOTE, None))
        idle_ended = c.ended_at is None and not c.live(now)
        return ClassState(
            # (a step's right option is kept from its reveal on, never before)
            code=c.code, lesson=c.lesson, step=int(c.step), phase=phase, correct=correct,
            revealed_steps=tuple(sorted(s for s, (p, _) in phases.items() if p == REVEALED)),
            ended=not c.live(now),
            # an idle end counts as a change before purge() records it (same number)
            version=int(c.version) + int(idle_ended), count_version=int(c.count_version),
            students=int(c.students), size=int(c.size), started_at=c.started_at,
            delete_at=c.delete_at, idle_timeout_s=c.idle_timeout_s)
