"""The downloadable lesson file in a real browser: opened from ``file://`` with every
request that is not a ``file:`` URL aborted (and recorded: none may be attempted), a
student chooses with a click and the down arrow (nothing is revealed), locks in one
question wrongly and one rightly (the button, then Enter), sees the verdict, the measured
numbers and the fitted figure appear, reloads the file with both answers kept, steps to
the end, sees the summary of the predictions and starts again with none; a teacher's
sentence holding HTML shows as the characters typed and runs nothing. Screenshots at
1280×720 go to ``test-artifacts/``.

Drives Debian's Chromium through Playwright (no Streamlit server needed); skips when
either is missing. Run alone with::

    python -m pytest tests/test_browser_lesson_file.py -q -s -m browser
"""

from __future__ import annotations

import _browser as tb
import pytest

from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons import teacher_lessons as T
from nplk_lab.model.lessons.lesson_file import lesson_file_data, lesson_html
from nplk_lab.ui.components.browser_files import title_fit
from nplk_lab.ui.lessons import step_figure

pytestmark = pytest.mark.browser
LESSON = 1
HOSTILE = ('<img src="x.png" onerror="window.__pwned = 1">'
           '<script>window.__pwned = 2</script> **bold** [link](https://example.com)')


@pytest.fixture(scope="module")
def lesson_file(tmp_path_factory):
    les = L.lesson(LESSON)
    path = tmp_path_factory.mktemp("lesson") / "lesson.html"
    path.write_text(lesson_html(les.title, les.steps, step_figure, summary=les.summary,
                                fit_js=title_fit()), encoding="utf-8")
    data = lesson_file_data(les.title, les.steps, step_figure)
    answers = [s["answer"] for s in data["steps"]]
    return path, les, answers


@pytest.fixture()
def offline(page):
    """The page with every non-file request aborted; the list of those attempted."""
    attempted: list[str] = []
    page.set_viewport_size({"width": 1280, "height": 720})
    page.context.route("**/*", lambda route: (
        route.continue_() if route.request.url.startswith("file:")
        else (attempted.append(route.request.url), route.abort())))
    try:
        yield page, attempted
    finally:
        page.context.unroute("**/*")


def _drawn(page, what: str = "yes") -> None:
    page.wait_for_function(
        f"() => document.getElementById('figure').dataset.drawn === '{what}'")


def _step(page) -> str:
    return page.evaluate("() => document.body.dataset.step")


def test_a_student_answers_steps_through_and_sees_the_summary(offline, lesson_file):
    page, attempted = offline
    path, les, answers = lesson_file
    n = len(les.steps)
    assert all(a >= 0 for a in answers[:2]), answers   # steps 1-2 have a measured answer
    page.goto(path.as_uri(), wait_until="load")
    assert _step(page) == "1"
    assert page.inner_text("#heading") == f"{les.title} — step 1 of {n}"
    assert page.inner_text("#sentence") == les.steps[0].sentence
    # before the answer: the data alone, no verdict, no numbers
    _drawn(page)
    assert page.inner_text("#verdict") == "" and page.inner_text("#reveal") == ""
    choices = page.locator("#choices button")
    assert choices.count() == len(les.steps[0].options)

    # choosing is not answering: a click and the down arrow choose, nothing is revealed
    wrong = next(i for i in range(choices.count()) if i != answers[0])
    choices.nth(0).click()
    page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.dataset.index") == "1"
    assert page.inner_text("#verdict") == "" and page.inner_text("#reveal") == ""
    assert page.evaluate("() => document.getElementById('figure').dataset.drawn") == "yes"
    # step 1, a wrong answer locked in: the verdict names both options, the numbers appear
    choices.nth(wrong).click()
    page.click("#lock")
    page.wait_for_function("() => document.getElementById('verdict').textContent !== ''")
    assert page.inner_text("#verdict").startswith("Not quite")
    assert les.steps[0].options[answers[0]] in page.inner_text("#verdict")
    assert les.steps[0].options[wrong] in page.inner_text("#verdict")
    assert page.inner_text("#reveal").strip() != ""
    assert all(choices.nth(i).is_disabled() for i in range(choices.count()))  # made once
    _drawn(page)
    page.screenshot(path=str(tb.ARTIFACTS / "lesson-file-1280x720-reveal.png"))

    # step 2 (its figure is the answer): nothing drawn before; a right answer, by Enter
    page.click("#next")
    assert _step(page) == "2"
    _drawn(page, "none")
    page.locator("#choices button").nth(answers[1]).focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('verdict').textContent !== ''")
    assert page.inner_text("#verdict") == f"Right: “{les.steps[1].options[answers[1]]}”."
    _drawn(page)

    # a reload keeps both answers (the browser's storage) and the step (the address)
    page.reload(wait_until="load")
    assert _step(page) == "2" and page.inner_text("#verdict").startswith("Right")

    # Back keeps the answer given; the arrow keys step too
    page.click("#back")
    assert _step(page) == "1" and page.inner_text("#verdict").startswith("Not quite")
    page.keyboard.press("ArrowRight")
    assert _step(page) == "2"
    for k in range(3, n + 1):
        page.click("#next")
        assert _step(page) == str(k)
    assert page.inner_text("#next").startswith("Your answers")
    page.click("#next")
    assert _step(page) == "summary"
    assert page.is_visible("#summary-view") and not page.is_visible("#step-view")
    asked = sum(1 for s in les.steps if s.question)
    assert page.inner_text("#score") == (
        f"You answered 2 of {asked} questions; 1 of your predictions matched what the "
        "lab measured.")
    rows = page.locator("#answers tr")
    assert rows.count() == asked
    assert "not quite" in rows.nth(0).inner_text() and "right" in rows.nth(1).inner_text()
    assert "(not answered)" in rows.nth(2).inner_text()
    assert "(answer step 3 to see it)" in rows.nth(2).inner_text()   # not given away
    page.screenshot(path=str(tb.ARTIFACTS / "lesson-file-1280x720-summary.png"))
    page.click("#back")
    assert _step(page) == str(n)
    # "Start again" clears the answers, also for the next visit
    page.click("#next")
    page.click("#again")
    assert _step(page) == "1" and page.inner_text("#verdict") == ""
    page.reload(wait_until="load")
    assert page.inner_text("#verdict") == ""
    assert not attempted, attempted


def test_a_teachers_html_shows_as_text_and_runs_nothing(offline, tmp_path):
    page, attempted = offline
    step = T.TeacherStep("classification", {"n_samples": 120}, HOSTILE).as_step()
    path = tmp_path / "mine.html"
    path.write_text(lesson_html("Your teacher's lesson", [step], step_figure),
                    encoding="utf-8")
    page.goto(path.as_uri(), wait_until="load")
    _drawn(page)
    assert page.inner_text("#sentence") == HOSTILE
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("#sentence *").count() == 0          # no element was made
    assert not attempted, attempted                          # not even the image




def test_the_lessons_page_button_downloads_the_file_that_plays_offline(app_server, page,
                                                                        tmp_path):
    """Done when a teacher's press gives the file: the Lessons page's button downloads
    lesson 4 as one HTML file, which then opens offline at its first step and draws."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(app_server.url + "/Lessons?lesson=4&step=1", wait_until="domcontentloaded")
    button = page.get_by_role("button", name="Download this lesson")
    button.wait_for(timeout=tb.FIRST_CHART_TIMEOUT_MS * 2)
    tb.wait_idle(page, 60_000)
    button.scroll_into_view_if_needed()
    page.screenshot(path=str(tb.ARTIFACTS / "lesson-file-button-1280x720.png"))
    with page.expect_download(timeout=120_000) as dl:
        button.click()
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    assert path.suffix == ".html" and path.stat().st_size <= 10 * 1024 * 1024
    attempted: list[str] = []
    page.context.route("**/*", lambda route: (
        route.continue_() if route.request.url.startswith("file:")
        else (attempted.append(route.request.url), route.abort())))
    try:
        page.goto(path.as_uri(), wait_until="load")
        assert page.inner_text("#heading") == f"{L.lesson(4).title} — step 1 of 4"
        _drawn(page)
    finally:
        page.context.unroute("**/*")
    assert not attempted, attempted


def test_on_a_phone_the_figure_fits_the_window(offline, lesson_file):
    """At 390 × 844 the words go under the figure and the figure takes the window's
    width (it stayed at Plotly's default 700 px, cut at the right), its title fitted to
    that width by the lab's script."""
    page, attempted = offline
    path, les, _ = lesson_file
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(path.as_uri(), wait_until="load")
    _drawn(page)
    got = page.evaluate("() => { const g = document.getElementById('figure');"
                        " return {figure: g.getBoundingClientRect().right, fitted: "
                        "g.dataset.titleFit !== undefined, page: "
                        "document.documentElement.scrollWidth}; }")
    assert got["figure"] <= 390 and got["page"] <= 390, got
    assert got["fitted"], got
    assert attempted == []
