"""Real-browser test of a teacher's own lesson with a question, and of a lesson's end.

A teacher on the Classification page (KNPL, 60 points) opens "Present · add to a
lesson" in the sidebar, types a sentence, picks the question "does KNPL score higher
than the plain SVM", adds the view, follows "Make the lesson link" to the Lessons page
and makes the link; a refresh and the address typed again keep the step collected. A
student opens that link in a browser of their own (a new context:
no session shared with the teacher): the question's options are shown and the fitted
surface is not drawn before an answer; the option the lab measures (computed here from
the link) gets "Right:" and the surface. Then lesson 1's last step is answered wrong
and "Finish ▶" leads to the end screen: its score sentence, and the answers table, in
the lesson's own text size; its button opens lesson 2 at step 1. The end screen at
1280×720 goes to ``test-artifacts/lesson-end-1280.png``. Run alone with::

    python -m pytest tests/test_browser_teacher_path.py -q -m browser
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import _browser as tb
import pytest
from _browser import exception_texts, wait_idle
from _lessons_page import answer, chart_box, lock_in, new_page, wait_step

from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons import teacher_lessons as T

pytestmark = pytest.mark.browser

SIZE = (1280, 720)
SENTENCE = "Predict first, then look at the surface."
LOAD_MS = 120_000   # a cold server's first page: imports and the first fit

#: the answers table's text, row by row (an HTML table in the lesson's text size)
TABLE_TEXT_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMarkdownContainer"] '
                                    + 'table tr')]
  .map((r) => [...r.querySelectorAll('td, th')].map((c) => c.textContent.trim()))
"""


def key(name: str) -> str:
    """The container of the widget with Streamlit key ``name``."""
    return f".st-key-{name}"


def button(page, name: str):
    """The button with Streamlit key ``name`` (a stretched button's container also holds
    a hidden copy that Streamlit measures: the role skips it)."""
    return page.locator(key(name)).get_by_role("button")


def wait_applied(page, name: str, value: str) -> None:
    """Wait until the text or select box with key ``name`` shows ``value`` as applied
    (no "Press Enter to apply" left, the list closed) and no script runs. Its rerun
    can be too quick to be seen from the page; the values it sends are checked where
    they arrive (the step listed on the Lessons page, the student's step)."""
    page.wait_for_function(
        "([k, v]) => { const b = document.querySelector('.st-key-' + k);"
        " const i = b && b.querySelector('input');"
        " return !!i && i.value === v && i.getAttribute('aria-expanded') !== 'true'"
        " && ![...b.querySelectorAll('[data-testid=\"InputInstructions\"]')]"
        "      .some((e) => e.textContent.includes('Enter')); }",
        arg=[name, value])
    wait_idle(page, 60_000)


def open_select(page, name: str) -> None:
    """Open the select box with key ``name`` as a person does: a click. A click on a box
    that does not have the focus only focuses it (Streamlit's combo box); the arrow key
    a person then presses opens it."""
    box = page.locator(f'{key(name)} [data-testid="stSelectbox"] input')
    box.click()
    page.wait_for_function("(el) => document.activeElement === el",
                           arg=box.element_handle())
    if box.get_attribute("aria-expanded") != "true":
        box.press("ArrowDown")
    page.wait_for_function("(el) => el.getAttribute('aria-expanded') === 'true'",
                           arg=box.element_handle())


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


@pytest.fixture()
def browser(chromium_path):
    """A new Chromium for the test (each starts without the lab's state), always closed."""
    with tb.open_browser(chromium_path) as b:
        yield b


def test_a_teachers_question_is_asked_in_the_students_browser(app_server, browser):
    ctx, page = new_page(browser, SIZE)
    page.goto(f"{app_server.url}/Classification?n_samples=60&method=knpl",
              wait_until="domcontentloaded")
    tb.wait_surface(page, LOAD_MS)
    wait_idle(page, 60_000)
    # the teacher: the sidebar's collector, a sentence and a question
    page.locator('[data-testid="stSidebar"] [data-testid="stExpander"] summary',
                 has_text="add to a lesson").click()
    tb.wait_still(page)   # the expander's opening animation is over
    text = page.locator(f'{key("collect_text_classification")} input')
    text.fill(SENTENCE)
    text.press("Enter")
    wait_applied(page, "collect_text_classification", SENTENCE)
    wording = T.QUESTIONS["vs_svm"].wording({"method": "knpl"})
    assert "KNPL" in wording
    open_select(page, "collect_ask_classification")
    option = page.locator('[role="listbox"] [role="option"]').filter(has_text=wording)
    option.first.click()
    wait_applied(page, "collect_ask_classification", wording)
    # closed and opened again before adding: the sentence and the question are still
    # there (the closed panel draws its label alone, the page keeps what was typed)
    summary = page.locator('[data-testid="stSidebar"] [data-testid="stExpander"] summary',
                           has_text="add to a lesson")
    summary.click()
    text.wait_for(state="detached", timeout=60_000)
    summary.click()
    tb.wait_still(page)
    wait_applied(page, "collect_text_classification", SENTENCE)
    wait_applied(page, "collect_ask_classification", wording)
    page.get_by_role("button", name="Add this view to my lesson").click()
    page.get_by_text("Your lesson has 1 step.", exact=True).wait_for(timeout=60_000)
    page.get_by_role("link", name="Make the lesson link").click()
    page.wait_for_url("**/Lessons*", timeout=60_000)
    listed = page.get_by_text("asks: " + wording, exact=False)
    listed.wait_for(timeout=60_000)
    assert SENTENCE in listed.inner_text()
    # a refresh, and the address typed again (a new session each), keep the step: the
    # browser keeps it
    for again in (page.reload, lambda **kw: page.goto(f"{app_server.url}/Lessons", **kw)):
        again(wait_until="domcontentloaded")
        page.get_by_text("Make your own lesson (1 step so far)", exact=True).wait_for(
            timeout=LOAD_MS)
        page.get_by_text("asks: " + wording, exact=False).wait_for(timeout=60_000)
    wait_idle(page, 60_000)
    button(page, "my_make").click()
    code = page.locator('[data-testid="stMain"] [data-testid="stExpander"] '
                        '[data-testid="stCode"] code')
    code.wait_for(timeout=60_000)
    link = "".join(code.inner_text().split())
    assert link.startswith(f"{app_server.url}/Lessons?my_lesson="), link
    assert exception_texts(page) == []
    ctx.close()

    # the student: the link in a browser of their own
    ctx, page = new_page(browser, SIZE)
    page.goto(link, wait_until="domcontentloaded")
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('strong')].some((e) => "
        "e.textContent.includes(t))", arg="Your teacher's lesson — step 1 of 1",
        timeout=LOAD_MS)
    wait_idle(page, 60_000)
    page.get_by_text(SENTENCE, exact=True).wait_for()
    taught = T.decode_teacher_lesson(query(page)["my_lesson"])
    assert taught[1] == [] and len(taught[0]) == 1
    assert {k: taught[0][0].state.get(k) for k in ("n_samples", "method")} == \
        {"n_samples": 60, "method": "knpl"}, taught[0][0].state
    step = taught[0][0].as_step()
    assert step.question == wording
    radio = page.locator(f'{key("nplk-keep-question")} [role="radiogroup"] label')
    radio.nth(len(step.options) - 1).wait_for()
    wait_idle(page, 60_000)
    shown = radio.all_inner_texts()
    assert [s.strip() for s in shown] == list(T.QUESTIONS["vs_svm"].options)
    # before an answer: the data, not the fitted surface (that is the answer)
    chart_box(page, fitted=False)
    rev = step.measure(step.params)
    assert answer(page, step).answer == rev.answer    # clicks the measured option
    chart_box(page, fitted=True)
    assert page.get_by_text(rev.text.split(";")[0], exact=False).count() >= 1
    assert exception_texts(page) == []
    ctx.close()


def test_the_last_step_finishes_on_the_students_answers(app_server, browser):
    lesson = L.lesson(1)
    n = len(lesson.steps)
    step = lesson.steps[n - 1]
    rev = step.reveal()
    assert rev.answer >= 0, rev.text
    wrong = next(o for i, o in enumerate(step.options) if i != rev.answer)
    ctx, page = new_page(browser, SIZE)
    page.goto(f"{app_server.url}/Lessons?lesson=1&step={n}",
              wait_until="domcontentloaded")
    wait_step(page, n, n)
    finish = button(page, "lesson_next")
    assert finish.inner_text().splitlines()[0].strip() == "Finish ▶"
    lock_in(page, wrong, "wrong")
    finish.click()
    tb.wait_url(page, "step", n + 1, 60_000)
    page.get_by_text(f"{lesson.title} — the end", exact=True).wait_for()
    page.get_by_text("The end of the lesson", exact=True).wait_for()
    score = page.locator('[data-testid="stMarkdownContainer"]').filter(
        has_text="You answered")
    asked = sum(1 for s in lesson.steps if s.question)
    assert f"1 of {asked} questions; 0 of your" in score.inner_text(), score.inner_text()
    page.wait_for_function(f"(k) => ({TABLE_TEXT_JS})().some((r) => r[0] === k)",
                           arg=str(n))
    # as large as the lesson's words (a data grid's cells were 13–14 px)
    sizes = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMain\"] "
                          "table td')].map((c) => parseFloat(getComputedStyle(c).fontSize))")
    words = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector("
                          "'[data-testid=\"stMain\"] [data-testid=\"stMarkdownContainer\"] "
                          "p')).fontSize)")
    assert sizes and min(sizes) >= words - 0.5, (sizes, words)
    table = page.evaluate(TABLE_TEXT_JS)
    asked = [i for i, s in enumerate(lesson.steps, 1) if s.question]
    rows = [r for r in table if r and r[0].isdigit()]
    assert [int(r[0]) for r in rows] == asked, table
    last = next(r for r in rows if r[0] == str(n))
    assert last[2:] == [wrong, step.options[rev.answer], "not quite"], last
    assert all(r[3] == "(answer to see it)" for r in rows if r[0] != str(n)), rows
    # the way on is on the first screen (scrolled to the top), above the table
    # (measured once the table is drawn: it is taller than its first frame)
    page.evaluate("() => { window.scrollTo(0, 0); document.querySelectorAll("
                  "'[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"]')"
                  ".forEach((e) => e.scrollTo(0, 0)); }")
    nxt = button(page, "lesson_after").bounding_box()
    assert nxt and nxt["y"] + nxt["height"] <= 720, nxt
    tb.ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(tb.ARTIFACTS / "lesson-end-1280.png"))
    assert exception_texts(page) == []
    button(page, "lesson_after").click()
    tb.wait_url(page, "lesson", 2, 60_000)
    assert query(page)["step"] == "1"
    wait_step(page, 1, len(L.lesson(2).steps))
    assert exception_texts(page) == []
    ctx.close()
