"""A room behind one address joins through the real deployment: ``nplk-lab classroom
--workers 2`` (HAProxy in front, a fresh SQLite store), the class's light student page
over plain HTTP (``tools/hall_client.py``: what ``hall.js`` asks, each student a cookie
jar of its own, so a browser of its own to the server), every request from 127.0.0.1.

300 browsers join one class with its correct code within 2 minutes, all admitted, while
40 wrong codes from the same address, each with another ``X-Forwarded-For``, are sent
between the first joiners and the rest: the limit counts them on the address HAProxy
saw, so the last 10 are refused as too many, and still every student of the room gets
in; a class nobody of that address has joined stays closed to it. The store's own rules
with a simulated clock: ``test_class_store_limits.py``. Skips without HAProxy.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest
from test_browser_class import classroom_with_store
from test_browser_class_limits import _unknown_code

from nplk_lab.serve.class_store import ClassStore, Seat
from nplk_lab.serve.class_store_rules import MAX_FAILED_JOINS, new_seat
from nplk_lab.serve.class_web import SEAT_COOKIE

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

from hall_client import API, Connection, LightStudent  # noqa: E402

pytestmark = pytest.mark.slow   # the classroom's start (two workers) is most of it

STUDENTS = 300
FIRST = 10                # joiners before the wrong codes
WRONG_TRIES = 40
WITHIN_S = 120.0          # the rule: a room of 300 behind one address in 2 minutes
AT_ONCE = 25              # browsers joining at the same moment (a room's burst)


async def _join_all(students: list[LightStudent]) -> None:
    gate = asyncio.Semaphore(AT_ONCE)

    async def one(s: LightStudent) -> None:
        async with gate:
            try:
                await s.open_and_join()
            finally:
                await s.act_conn.close()
    await asyncio.gather(*(one(s) for s in students))


async def _post_join(url: str, code: str, headers: dict[str, str] | None = None
                     ) -> tuple[int, str]:
    """A fresh browser's join POST (no page opened first): its status and error."""
    conn = Connection(url, {}, headers)
    try:
        status, _, data = await conn.request("POST", f"{API}/join",
                                             {"class": code, "name": None})
    finally:
        await conn.close()
    return status, json.loads(data or b"{}").get("error", "")


def test_300_browsers_behind_one_address_join_while_wrong_codes_stay_limited():
    with classroom_with_store("class-joins") as room:
        store = ClassStore(room.store_folder)
        code = store.start_class("L1", seat=Seat(new_seat()), size=STUDENTS).code
        other = store.start_class("L1", seat=Seat(new_seat())).code
        students = [LightStudent(room.url, code, {}) for _ in range(STUDENTS)]

        t0 = time.perf_counter()
        asyncio.run(_join_all(students[:FIRST]))
        # typos from the same room, each claiming another address
        said = [asyncio.run(_post_join(room.url, _unknown_code(store, i),
                                       {"X-Forwarded-For": f"198.51.100.{i + 1}"}))
                for i in range(WRONG_TRIES)]
        asyncio.run(_join_all(students[FIRST:]))
        took = time.perf_counter() - t0

        assert [st for st, _ in said[:MAX_FAILED_JOINS]] == [404] * MAX_FAILED_JOINS, said
        assert [st for st, _ in said[MAX_FAILED_JOINS:]] == \
            [429] * (WRONG_TRIES - MAX_FAILED_JOINS), said
        assert all("Too many wrong codes" in e for _, e in said[MAX_FAILED_JOINS:]), said
        # every browser admitted, each a student of its own
        errors = [e for s in students for e in s.errors]
        assert not errors, errors[:5]
        seats = {s.cookies.get(SEAT_COOKIE) for s in students}
        assert len(seats) == STUDENTS and None not in seats
        assert store.state(code).students == STUDENTS
        assert took < WITHIN_S, took
        # the class is full now: one more browser is refused for its size, not its address
        status, error = asyncio.run(_post_join(room.url, code))
        assert status == 429 and "full" in error, (status, error)
        # a class nobody of this address joined stays closed to it past the limit
        status, error = asyncio.run(_post_join(room.url, other))
        assert status == 429 and "Too many wrong codes" in error, (status, error)
        assert store.state(other).students == 0
    print(f"\n{STUDENTS} browsers joined through HAProxy in {took:.1f} s "
          f"(with {WRONG_TRIES} wrong codes between them)")
