"""A class's limits tried from outside, as a student (or a script) would, through
``nplk-lab classroom --workers 2`` (HAProxy in front, a fresh SQLite store):

* wrong codes in join links, 40 of them, each with another ``X-Forwarded-For``: the
  limit counts them per address as HAProxy saw it, so the last 10 are refused as too
  many; the class a student of that address is in still opens (another student of the
  room joins by its link), a class nobody there has joined does not;
* three tabs of one browser on the join link are one student;
* a student's address opened in another browser is not that student: it is asked to
  join, and sees none of the student's votes.

The limits with the store's own clock (300 students behind one address in 2 minutes,
typos and all; the class's size): ``test_class_store_limits.py``. Wrong codes are sent
by the protocol-level client (tools/st_client.py: a tab without a browser, whose headers
say what the test likes); students are Chromium contexts. Skips without HAProxy.
"""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _browser as tb
import pytest
from _browser import wait_idle
from test_browser_class import (
    address,
    classroom_with_store,
    has_text,
    join_by_link,
    pick,
    wait_step,
)

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve.class_store import ClassStore, Seat
from nplk_lab.serve.class_store_rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_FAILED_JOINS,
    new_seat,
)

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))


pytestmark = [pytest.mark.browser, pytest.mark.slow]

WRONG_TRIES = 40


@pytest.fixture(scope="module")
def room(chromium_path):
    with classroom_with_store("class-limits") as r:
        yield r


def _new_class(room) -> tuple[ClassStore, str]:
    store = ClassStore(room.store_folder)
    return store, store.start_class("L1", seat=Seat(new_seat())).code


def _unknown_code(store: ClassStore, i: int) -> str:
    """A well-formed code no class has."""
    code = "".join(CODE_ALPHABET[(i * 7 + j) % len(CODE_ALPHABET)]
                   for j in range(CODE_LENGTH))
    assert not store._run(False, lambda tx: tx.one(
        "SELECT 1 FROM classes WHERE code = ?", code))
    return code


def link_tries(url: str, codes: list[str]) -> list[list[str]]:
    """Each code's join link opened by a new tab with its own X-Forwarded-For: the
    errors each page showed (in a thread of its own: Playwright's loop runs in this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _link_tries(url, codes)).result()


async def _link_tries(url: str, codes: list[str]) -> list[list[str]]:
    from st_client import Tab

    out = []
    for i, code in enumerate(codes):
        tab = Tab(url, headers={"X-Forwarded-For": f"198.51.100.{i + 1}"})
        await tab.connect()
        try:
            run = await tab.rerun(page="Lessons", query=f"class={code}", timeout=120)
            out.append(run.errors)
        finally:
            await tab.close()
    return out


def test_wrong_codes_with_a_changing_forwarded_for_are_refused_past_the_limit(
        room, chromium_path):
    store, code = _new_class(room)
    other = store.start_class("L1").code                 # a class nobody here joined
    with tb.open_browser(chromium_path) as browser:
        join_by_link(browser, room.url, code, view=tb.VIEWPORT)           # the room is in
        wrong = [_unknown_code(store, i) for i in range(WRONG_TRIES)]
        errors = link_tries(room.url, wrong)
        said = [" ".join(e) for e in errors]
        assert all("no class with this code" in e for e in said[:MAX_FAILED_JOINS]), said
        assert all("Too many wrong codes" in e for e in said[MAX_FAILED_JOINS:]), said
        # past the limit the room's class still opens, by its link, whatever the header
        late = join_by_link(browser, room.url, code, view=tb.VIEWPORT,
                            headers={"X-Forwarded-For": "203.0.113.99"})
        has_text(late, "Following your teacher")
        assert store.state(code).students == 2
        # ... and no other class does: the guesses stop there
        (refused,) = link_tries(room.url, [other])
        assert any("Too many wrong codes" in e for e in refused), refused
    # the window ends (as it would 10 minutes later): every test here comes from the
    # same address, the proxy's view of this machine
    store._run(True, lambda tx: tx.run("DELETE FROM join_failures"))


def test_three_tabs_of_one_browser_are_one_student(room, chromium_path):
    store, code = _new_class(room)
    opts = L.lesson(1).steps[0].options
    with tb.open_browser(chromium_path) as browser:
        first = join_by_link(browser, room.url, code, view=tb.VIEWPORT)
        tabs = [first]
        for _ in range(2):          # the join link again, in two more tabs
            tab = first.context.new_page()
            tab.set_default_timeout(120_000)
            tab.goto(f"{room.url}/Lessons?class={code}")
            wait_step(tab, 1, len(L.lesson(1).steps))
            wait_idle(tab)
            assert "Join the class" not in tab.inner_text("body")
            tabs.append(tab)
        for tab, choice in zip(tabs, (0, 1, 2), strict=True):
            pick(tab, opts[choice])
            has_text(tab, "Your vote is in")
        assert store.state(code).students == 1
        counts = store.counts(code, 0)
        assert (counts.answered, counts.by_choice) == (1, {2: 1})   # the last vote, once


def test_a_students_address_in_another_browser_is_not_that_student(room, chromium_path):
    store, code = _new_class(room)
    opts = L.lesson(1).steps[0].options
    with tb.open_browser(chromium_path) as browser:
        ada = join_by_link(browser, room.url, code, view=tb.VIEWPORT)
        pick(ada, opts[1])
        has_text(ada, "Your vote is in")
        assert address(ada) <= {"class", "lesson", "step"}     # no seat in the address
        friend = browser.new_context(viewport=tb.VIEWPORT).new_page()
        friend.set_default_timeout(120_000)
        friend.goto(ada.url)
        has_text(friend, "Join the class")
        assert opts[1] not in friend.inner_text("body")
        assert store.state(code).students == 1
        assert store.counts(code, 0).by_choice == {1: 1}
