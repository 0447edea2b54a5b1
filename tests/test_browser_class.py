"""Real-browser test of a class that answers together: one teacher and three students,
each its own Chromium context (own cookies: one browser each), on the lab's server
(``streamlit run nplk_lab/serve/server.py``: the pages with the lab's routes) whose
class store is a fresh SQLite folder.

The teacher starts a class on Lessons; the students open the join link on a phone-sized
window (390×844), one types a name; a second tab of a student's browser is the same
student; each votes; the teacher's live count reaches "First vote: 3 of 3" without
marking the right option; the teacher shows the split, opens the second vote (one
student changes to the right answer), shows the shift, and reveals: every student's
screen shows the verdict on the answer they hold (the time from the click to the last
student's verdict is measured and bounded); the teacher's Next moves the students; a
student steps away with Next and returns with "Back to the class"; the teacher ends the
class and downloads the per-step CSV. No browser asks anything of another host than the
lab's server (the tab's icon included: the lab works with no internet). Pictures of the
teacher's join panel and count and a student's phone go to test-artifacts/pictures/
(``class-teacher-join.png``, ``class-teacher-count.png``, ``class-student-phone.png``);
``python tools/docs_screenshots.py`` copies them into docs/screenshots/. The whole
sequence through ``nplk-lab classroom`` with reloads, a killed worker and a restart:
``test_browser_class_sequence.py``.

Every wait is on a condition in the page; its timeout only bounds a hang.
"""

from __future__ import annotations

import time
from pathlib import Path

import _browser as tb
import pytest
from _browser import exception_texts, wait_idle
from _classroom import (
    LESSON,
    TEACHER_VIEW,
    address,
    click_button,
    fresh_store,
    has_text,
    join_by_link,
    pick,
    start_class,
    wait_step,
)

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_web, command
from nplk_lab.serve.class_store import ClassStore, format_code

# 20-80 s on the shared 2-core machine; tests/test_app_class.py is the quicker check
pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: a generous ceiling for the reveal to reach every student on a loaded 2-core machine
#: (the aim is 2 s: a 1 s poll and a rerun; measured 0.5-1.3 s at load average 5-9);
#: the measured times are printed
REVEAL_BOUND_S = 5.0
PUBLIC_URL = "http://192.0.2.10:8501"     # a documentation address (TEST-NET-1)


@pytest.fixture(scope="module")
def class_server(chromium_path):
    # what `nplk-lab classroom` tells its workers: the address phones open (a teacher on
    # localhost gets it in the join link and the QR code)
    tb.ARTIFACTS.mkdir(exist_ok=True)
    with fresh_store(**{class_web.PUBLIC_URL_ENV: PUBLIC_URL}) as folder, \
            tb.StreamlitServer(command.SERVER_SCRIPT,
                               log=tb.ARTIFACTS / "streamlit-class-test.log") as server:
        server.store_folder = folder
        yield server


def test_a_class_answers_together(class_server, chromium_path):
    steps = L.lesson(LESSON).steps
    n = len(steps)
    opts = steps[0].options
    right = steps[0].reveal().answer
    assert right >= 0
    wrong = (right + 1) % len(opts)
    tb.PICTURES.mkdir(parents=True, exist_ok=True)
    url = class_server.url
    outside: list[str] = []      # requests that left the lab's server (none may)

    def watch(ctx):
        ctx.on("request", lambda r: None if r.url.startswith((url, "data:", "blob:"))
               else outside.append(r.url))
        return ctx
    with tb.open_browser(chromium_path) as browser:
        tctx = watch(browser.new_context(viewport=TEACHER_VIEW))
        teacher = tctx.new_page()
        teacher.set_default_timeout(60_000)
        code = start_class(teacher, url)
        wait_idle(teacher)
        # no secret in the address bar: the browser is the teacher by its seat
        assert address(teacher) <= {"class", "lesson", "step"}
        has_text(teacher, format_code(code))
        has_text(teacher, "0 joined")
        # the teacher is on 127.0.0.1: the join link is the one phones can open
        # (the class's light student page: the lab's routes serve it)
        has_text(teacher, f"{PUBLIC_URL}/_nplk/class?class={code}")
        has_text(teacher, "Phones cannot open localhost")
        panel = teacher.locator('[class*="st-key-nplk-keep-class"]').first
        panel.locator("img").first.wait_for()
        wait_idle(teacher)
        teacher.get_by_text("Lessons", exact=True).last.scroll_into_view_if_needed()
        teacher.screenshot(path=str(tb.PICTURES / "class-teacher-join.png"))
        store = ClassStore(class_server.store_folder)

        # students join by the link, on phones; one types a name
        students = [join_by_link(browser, url, code, name=name, watch=watch)
                    for name in ("Ada Lovelace", None, None)]
        for s in students:
            wait_step(s, 1, n)
            assert address(s) <= {"class", "lesson", "step"}
        has_text(teacher, "3 joined")           # the teacher's header follows at once
        # a second tab of the first student's browser is the same student
        tab = students[0].context.new_page()
        tab.goto(students[0].url)
        wait_step(tab, 1, n)
        has_text(tab, "you are Ada Lovelace")
        tab.close()
        assert store.state(code).students == 3

        # the first vote; the teacher's count follows, no option marked
        for s, choice in zip(students, (wrong, wrong, right), strict=True):
            pick(s, opts[choice])
            has_text(s, "Your vote is in")
        has_text(teacher, "First vote: 3 of 3")
        assert store.counts(code, 0).by_choice == {wrong: 2, right: 1}
        count = teacher.locator('[class*="st-key-class-count"]')
        assert "✓" not in count.inner_text() and "(right)" not in count.inner_text()
        assert "Ada" not in students[1].inner_text("body")
        count.screenshot(path=str(tb.PICTURES / "class-teacher-count.png"))

        # the split, the second vote (the nickname changes to the right answer), the shift
        click_button(teacher, "Show split")
        for s in students:
            has_text(s, "How the class voted (3)")
        click_button(teacher, "Vote again")
        for s in students:
            has_text(s, "Talk to your neighbour")
        pick(students[1], opts[right])
        pick(students[2], opts[right])
        has_text(teacher, "Second vote: 2 of 3")
        has_text(teacher, "1 of 3 joined have not voted yet: Ada Lovelace")
        click_button(teacher, "Show shift")
        for s in students:
            has_text(s, "First vote 3, second vote 2")

        # the reveal reaches every student, each judged on the answer they hold
        t0 = time.perf_counter()
        click_button(teacher, "Reveal")
        reached = []
        for s, verdict in zip(students, ("Not quite", "Right: you changed", "Right."),
                              strict=True):
            has_text(s, verdict, timeout=30_000)
            reached.append(time.perf_counter() - t0)
        print(f"reveal reached the students after {', '.join(f'{t:.2f}' for t in reached)} s")
        assert max(reached) < REVEAL_BOUND_S, reached
        wait_idle(students[1])
        students[1].screenshot(path=str(tb.PICTURES / "class-student-phone.png"))
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
        assert csv.splitlines()[0].startswith("step,first vote: answered")
        assert csv.splitlines()[1].startswith("1,3,1,33,2,2,100,1,0,1.00,3,2,67"), csv
        for s in students:
            has_text(s, "The class has ended")
        for p in [teacher, *students]:
            assert not exception_texts(p)
        # the lab works with no internet: nothing was asked of another host, the tab's
        # icon included
        icon = teacher.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\")"
                                ".href")
        assert icon.startswith((url, "data:image/svg+xml")), icon[:80]
    assert outside == [], outside
