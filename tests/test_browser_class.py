"""Real-browser test of a class that answers together (issue 32): one teacher and three
students, each its own Chromium context (own cookies, own Streamlit session), on one
``streamlit run app.py`` whose class store is a fresh SQLite folder.

The teacher starts a class on Lessons; the students open the join link (one types a
name) on a phone-sized window (390×844); each answers the first question; the
teacher's live count reaches "3 of 3 answered" without marking the right option; the
teacher reveals and every student's screen shows the verdict (the time from the click
to the last student's verdict is measured and bounded); the teacher's Next moves the
students; a student steps away with Next and returns with "Back to the class"; the
teacher ends the class and downloads the per-step CSV. Pictures of the teacher's count
and a student's phone go to test-artifacts/pictures/ (``class-teacher-join.png``,
``class-teacher-count.png``, ``class-student-phone.png``);
``python tools/docs_screenshots.py`` copies them into docs/screenshots/.

Every wait is on a condition in the page; its timeout only bounds a hang.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import test_browser as tb
from test_browser import exception_texts, wait_idle

from nplk_lab.model import lessons as L
from nplk_lab.serve import class_room
from nplk_lab.serve.class_store import ClassStore, format_code

chromium_path = tb.chromium_path

# 20-80 s on the shared 2-core machine; tests/test_app_class.py is the quicker check
pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = tb.PICTURES
LESSON = 1
PHONE = {"width": 390, "height": 844}
TEACHER_VIEW = {"width": 1280, "height": 900}
#: a generous ceiling for the reveal to reach every student on a loaded 2-core machine
#: (the aim is 2 s: a 1 s poll and a rerun; measured 0.5-1.3 s at load average 5-9);
#: the measured times are printed
REVEAL_BOUND_S = 5.0


@pytest.fixture(scope="module")
def class_server(chromium_path):
    folder = Path(tempfile.mkdtemp(prefix="nplk-class-test-"))
    old = os.environ.get(class_room.ENV)
    os.environ[class_room.ENV] = str(folder)
    tb.ARTIFACTS.mkdir(exist_ok=True)
    try:
        with tb.StreamlitServer("app.py",
                                log=tb.ARTIFACTS / "streamlit-class-test.log") as server:
            server.store_folder = folder
            yield server
    finally:
        if old is None:
            os.environ.pop(class_room.ENV, None)
        else:
            os.environ[class_room.ENV] = old


def has_text(page, text: str, timeout: int = 60_000) -> None:
    page.wait_for_function(
        "(t) => document.body && document.body.innerText.includes(t)", arg=text,
        timeout=timeout, polling=50)


def wait_step(page, k: int, n: int) -> None:
    has_text(page, f"step {k} of {n}")


def click_button(page, name: str) -> None:
    page.get_by_role("button", name=re.compile("^" + re.escape(name))).first.click()


def test_a_class_answers_together(class_server, chromium_path):
    from playwright.sync_api import sync_playwright

    steps = L.lesson(LESSON).steps
    n = len(steps)
    right = steps[0].reveal().answer
    assert right >= 0
    wrong = (right + 1) % len(steps[0].options)
    picks = (right, right, wrong)
    SHOTS.mkdir(parents=True, exist_ok=True)
    url = class_server.url
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        contexts = []
        try:
            tctx = browser.new_context(viewport=TEACHER_VIEW)
            contexts.append(tctx)
            teacher = tctx.new_page()
            teacher.set_default_timeout(60_000)
            teacher.goto(f"{url}/Lessons?lesson={LESSON}&step=1")
            wait_step(teacher, 1, n)
            teacher.get_by_text("A class that answers together").click()
            click_button(teacher, "Start a class")
            teacher.wait_for_url(re.compile(r"class=\w+"), timeout=60_000)
            query = parse_qs(urlparse(teacher.url).query)
            code = query["class"][0]
            # the secret token is on the teacher's panel (its link), not in the address
            # bar, which a projector shows to the room
            link = teacher.locator('[data-testid="stCode"]').filter(has_text="teacher=")
            link.first.wait_for(state="attached")
            token = parse_qs(urlparse(link.first.text_content().strip()).query)["teacher"][0]
            wait_idle(teacher)
            assert not parse_qs(urlparse(teacher.url).query).get("teacher")
            has_text(teacher, format_code(code))
            has_text(teacher, "0 answered")
            panel = teacher.locator('[class*="st-key-nplk-keep-class"]').first
            panel.locator("img").first.wait_for()
            wait_idle(teacher)
            teacher.get_by_text("Lessons", exact=True).last.scroll_into_view_if_needed()
            teacher.screenshot(path=str(SHOTS / "class-teacher-join.png"))
            store = ClassStore(class_server.store_folder)

            # students join by the link, on phones; one types a name
            students = []
            for i in range(3):
                ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
                contexts.append(ctx)
                s = ctx.new_page()
                s.set_default_timeout(60_000)
                s.goto(f"{url}/Lessons?class={code}")
                has_text(s, "Join the class")
                if i == 0:
                    name = s.get_by_role("textbox", name="Your name (optional)")
                    name.fill("Ada Lovelace")
                    name.press("Enter")
                    wait_idle(s)
                click_button(s, "Join")
                wait_step(s, 1, n)
                has_text(s, "Following your teacher")
                assert not parse_qs(urlparse(s.url).query).get("teacher")
                students.append(s)
            assert store.state(code).students == 3

            # everyone predicts; the teacher's count follows
            for s, pick in zip(students, picks, strict=True):
                s.locator('[data-testid="stRadio"] label').filter(
                    has_text=steps[0].options[pick]).first.click()
                has_text(s, "Your answer is in")
            has_text(teacher, "3 of 3 answered")
            counts = store.counts(code, 0)
            assert counts.answered == 3 and counts.by_choice == {right: 2, wrong: 1}
            body = teacher.inner_text("body")
            assert "The numbers say" not in body and "Ada" not in body
            teacher.locator('[class*="st-key-class-count"]').screenshot(
                path=str(SHOTS / "class-teacher-count.png"))

            # the reveal reaches every student
            t0 = time.perf_counter()
            click_button(teacher, "Reveal for the class")
            reached = []
            for s, pick in zip(students, picks, strict=True):
                has_text(s, "Right." if pick == right else "Not quite", timeout=30_000)
                reached.append(time.perf_counter() - t0)
            print(f"reveal reached the students after {', '.join(f'{t:.2f}' for t in reached)} s")
            assert max(reached) < REVEAL_BOUND_S, reached
            wait_idle(students[1])
            students[1].screenshot(path=str(SHOTS / "class-student-phone.png"))
            assert "Ada" not in students[1].inner_text("body")

            # the teacher's Next moves the class
            click_button(teacher, "Next")
            for s in students:
                wait_step(s, 2, n)
            assert store.state(code).step == 1

            # a student steps away and comes back
            away = students[2]
            click_button(away, "Next")
            wait_step(away, 3, n)
            has_text(away, "Back to the class (step 2)")
            click_button(away, "Back to the class")
            wait_step(away, 2, n)
            assert store.state(code).step == 1

            # the end: results per step, the CSV
            click_button(teacher, "End the class")
            has_text(teacher, "has ended")
            with teacher.expect_download() as dl:
                click_button(teacher, "Results per step (CSV)")
            csv = Path(dl.value.path()).read_text()
            assert csv.splitlines()[0].startswith("step,answered")
            assert csv.splitlines()[1].startswith("1,3,2,67"), csv
            assert store.summary_csv(code, token) == csv
            for s in students:
                has_text(s, "The class has ended")
            for p in [teacher, *students]:
                assert not exception_texts(p)
        finally:
            for c in contexts:
                c.close()
            browser.close()
