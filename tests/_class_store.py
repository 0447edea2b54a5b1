"""The class store's test fixtures: a fresh store on SQLite and on a throwaway
PostgreSQL, a clock moved by hand, a new browser's seat, and the store's rows and tables
read back. ``conftest.py`` registers this module as a plugin, so a test asks for
``store`` or ``clock`` by name; the helpers (``seat``, ``rows``) are imported."""

from __future__ import annotations

import _postgres
import pytest

from nplk_lab.serve.class_store import ClassStore, Seat
from nplk_lab.serve.class_store_rules import new_seat

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


def seat() -> Seat:
    """A new browser."""
    return Seat(new_seat())


def rows(store: ClassStore, table: str) -> list[tuple]:
    return store._run(False, lambda tx: [tuple(r) for r in tx.all(f"SELECT * FROM {table}")])


def tables(store: ClassStore) -> set[str]:
    q = ("SELECT name FROM sqlite_master WHERE type = 'table'" if store.backend == "sqlite"
         else "SELECT table_name FROM information_schema.tables "
              "WHERE table_schema = current_schema()")
    return {r[0] for r in store._run(False, lambda tx: tx.all(q))}
