"""A student on a phone (390×844) through a whole class on the light student page, in
Chromium, through ``nplk-lab classroom --workers 2`` (HAProxy, two workers, a fresh
SQLite store); the teacher's moves go through the class store with the teacher's
token (the teacher's own page is tested in test_browser_class_sequence.py).

Join by the class's link (a name typed); the first vote (pick, Lock in, then a changed
mind: another pick, Lock in again); the process serving this phone (the light page's
own) killed (SIGKILL) while the page waits for the class: the split arrives all the same,
from the workers, and the process is restarted; the second vote; a reload
keeps the student and their votes; the reveal (the verdict on the answer held, the
measured answer, the fitted figure); the teacher's next step followed; "Explore in the
full lab" opens the Lessons page in the class, whose "Back to the class" leads back.
Every request the phone makes goes to the server itself; axe-core finds nothing
serious or critical at the vote and at the reveal. Pictures for the docs: the
phone at the first vote and after the reveal (test-artifacts/pictures/hall-*.png).

Every wait is on a condition (a text, an attribute, a line of the command); its
timeout only bounds a hang. Skips without HAProxy or Chromium.
"""

from __future__ import annotations

import os
import signal
import time
from urllib.parse import urlsplit

import _browser as tb
import pytest
from _a11y import AXE, _serious
from _classroom import PHONE, _light_page_pid, classroom_with_store

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_hall, command
from nplk_lab.serve.class_store import ClassStore
from nplk_lab.serve.class_store_rules import REVOTE, SPLIT, Seat
from nplk_lab.serve.class_web import SEAT_COOKIE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = 1
WAIT_MS = 60_000


@pytest.fixture
def room(chromium_path):
    with classroom_with_store("class-hall") as r:
        yield r


def text_in(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); "
        "return e && !e.hidden && e.textContent.includes(t); }",
        arg=[selector, text], timeout=WAIT_MS, polling=50)


def lock_in(page, option: str) -> None:
    page.get_by_label(option, exact=True).check()
    page.wait_for_function("() => !document.getElementById('lock').disabled",
                           timeout=WAIT_MS, polling=50)
    page.get_by_role("button", name="Lock in").click()
    text_in(page, "#vote-note", f"Your vote is in: “{option}”")


def drawn(page, revealed: int) -> None:
    """The step's figure drawn, the fitted one or the one before it, within the
    phone's width (nothing to scroll sideways)."""
    page.wait_for_function(
        "(r) => { const f = document.getElementById('figure'); return f && "
        "(f.dataset.drawn || '').endsWith('revealed=' + r) && "
        "f.querySelector('.main-svg'); }", arg=revealed, timeout=WAIT_MS, polling=50)
    right = page.evaluate("() => Math.max(...[...document.querySelectorAll("
                          "'#figure .main-svg')].map((e) => e.getBoundingClientRect().right))")
    assert right <= PHONE["width"], right


def test_a_phone_follows_a_whole_class_on_the_light_page(room, chromium_path):
    from playwright.sync_api import sync_playwright

    steps = L.lesson(LESSON).steps
    opts = steps[0].options
    store = ClassStore(room.store_folder)
    started = store.start_class(f"L{LESSON}", size=50)
    code, token = started.code, started.teacher_token
    link = class_hall.hall_link(room.url, code)
    own = urlsplit(room.url).netloc
    elsewhere: list[str] = []
    t_start = time.perf_counter()
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport=PHONE)
            ctx.on("request", lambda r: None if urlsplit(r.url).netloc == own or
                   r.url.startswith(("data:", "blob:")) else elsewhere.append(r.url))
            page = ctx.new_page()
            page.goto(link)
            page.get_by_label("Your name (optional)").fill("Grace <b>Hopper</b>")
            page.get_by_role("button", name="Join").click()
            text_in(page, "#who", "You are Grace <b>Hopper</b>")    # typed, shown as text
            text_in(page, "#where", f"Step 1 of {len(steps)}")
            text_in(page, "#question", steps[0].question)
            drawn(page, 0)
            seat = Seat(next(c["value"] for c in ctx.cookies() if c["name"] == SEAT_COOKIE))

            # the first vote, then a changed mind: Lock in is what sends it
            page.get_by_label(opts[1], exact=True).check()
            assert store.vote_of(code, seat, 0) is None
            page.get_by_role("button", name="Lock in").click()
            text_in(page, "#vote-note", f"Your vote is in: “{opts[1]}”")
            assert store.vote_of(code, seat, 0).first == 1
            page.screenshot(path=str(tb.PICTURES / "hall-phone-first-vote.png"))
            if AXE.is_file():          # axe-core, injected (no request)
                assert _serious(page) == []
            page.get_by_label(opts[0], exact=True).check()
            text_in(page, "#vote-note", f"Not sent yet: your vote is still “{opts[1]}”")
            assert store.vote_of(code, seat, 0).first == 1
            lock_in(page, opts[0])
            v = store.vote_of(code, seat, 0)
            assert (v.first, v.changes) == (0, 1)

            # the process serving this phone (the light page's own) dies while the page
            # waits for the class: the workers answer it meanwhile
            assert not any(c["name"] == command.WORKER_COOKIE for c in ctx.cookies())
            victim = _light_page_pid(room)
            mark = room.output.mark()
            os.kill(victim, signal.SIGKILL)
            store.move(code, token, SPLIT)
            text_in(page, "#bars", "How the class voted (1)")
            text_in(page, "#held", f"Your vote: {opts[0]}")

            # the second vote; a reload keeps the student and the vote
            store.move(code, token, REVOTE)
            text_in(page, "#prompt", "Talk to your neighbour")
            text_in(page, "#held", f"Your first vote: {opts[0]}.")
            lock_in(page, opts[1])
            assert store.vote_of(code, seat, 0).second == 1
            page.reload()
            text_in(page, "#who", "You are Grace <b>Hopper</b>")
            text_in(page, "#vote-note", f"Your vote is in: “{opts[1]}”")
            assert page.get_by_label(opts[1], exact=True).is_checked()

            # the reveal: the verdict on the answer held, the measured answer, the fit
            right = steps[0].reveal().answer
            store.reveal(code, token, 0, correct=right)
            verdict = "Right" if right == 1 else f"Not quite: the numbers say “{opts[right]}”"
            text_in(page, "#verdict", verdict)
            text_in(page, "#reveal", class_hall.plain(steps[0].reveal().text)
                    .split("\n\n")[0][:40])
            drawn(page, 1)
            page.screenshot(path=str(tb.PICTURES / "hall-phone-reveal.png"), full_page=True)
            if AXE.is_file():
                assert _serious(page) == []

            # the page opened again on a warm server, Plotly.js in the browser's cache:
            # how long until the step is drawn, and what it loaded besides Plotly.js
            # (printed: measured, not a bound)
            t0 = time.perf_counter()
            page.goto(link)
            drawn(page, 1)
            opened = time.perf_counter() - t0
            loaded = page.evaluate(
                "() => performance.getEntriesByType('navigation').concat("
                "performance.getEntriesByType('resource'))"
                ".filter((e) => !e.name.includes('plotly.js'))"
                ".reduce((n, e) => n + (e.encodedBodySize || 0), 0)")
            print(f"the page opened again, warm: {opened:.2f} s, {loaded / 1000:.0f} kB "
                  "besides Plotly.js")

            # the teacher's next step, followed
            store.advance(code, token, 1)
            text_in(page, "#where", f"Step 2 of {len(steps)}")
            text_in(page, "#sentence", class_hall.plain(steps[1].sentence)[:40])

            # the full lab and back
            page.get_by_role("link", name="Explore in the full lab").click()
            back = page.get_by_role("link", name="Back to the class")
            back.wait_for(state="visible", timeout=WAIT_MS)
            assert urlsplit(page.url).path == "/Lessons"
            href = back.get_attribute("href")
            assert href.startswith(class_hall.HALL_PATH) and code in href
            page.goto(room.url + href)
            text_in(page, "#where", f"Step 2 of {len(steps)}")
            text_in(page, "#who", "You are Grace <b>Hopper</b>")
            assert store.state(code).students == 1
            # and the killed process is back (it restarted meanwhile)
            room.output.wait_line(lambda ln: "light page 1 is back" in ln,
                                  timeout_s=180, what="the light page's restart",
                                  start=mark)
        finally:
            browser.close()
    took = time.perf_counter() - t_start
    print(f"the whole class on the light page: {took:.1f} s")
    assert elsewhere == [], elsewhere


def test_a_code_typed_on_the_lessons_page_opens_the_class_page(room, chromium_path):
    """A student on the lab's Lessons page types the class's code (lower case, no dash)
    and a name, and joins: the browser goes on to the class's light page, as the join
    link would have opened it, already in the class as that student."""
    from playwright.sync_api import sync_playwright

    steps = L.lesson(LESSON).steps
    store = ClassStore(room.store_folder)
    started = store.start_class(f"L{LESSON}", size=50)
    code = started.code
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 720})
            page = ctx.new_page()
            page.goto(f"{room.url}/Lessons?lesson={LESSON}&step=1")
            page.get_by_text("A class that answers together").click()
            # Enter keeps each value in the page's widgets (the Join click sends them)
            for box, value in (("Class code", code.lower().replace("-", "")),
                               ("Your name (optional)", "Ada")):
                field = page.get_by_role("textbox", name=box)
                field.fill(value)
                field.press("Enter")
            page.screenshot(path=str(tb.PICTURES / "hall-code-typed.png"))
            page.get_by_role("button", name="Join", exact=True).click()
            page.wait_for_url(lambda u: urlsplit(u).path == class_hall.HALL_PATH,
                              timeout=WAIT_MS)
            assert f"class={code}" in urlsplit(page.url).query
            text_in(page, "#who", "You are Ada")
            text_in(page, "#where", f"Step 1 of {len(steps)}")
            text_in(page, "#question", steps[0].question)
            page.screenshot(path=str(tb.PICTURES / "hall-code-typed-joined.png"))
            seat = Seat(next(c["value"] for c in ctx.cookies() if c["name"] == SEAT_COOKIE))
            entry = store.enter(code, seat)
            assert (entry.role, entry.handle) == ("student", "Ada")
            assert store.state(code).students == 1       # joined once, not twice
        finally:
            browser.close()
