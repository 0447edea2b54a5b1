"""Real-browser test of a lesson in presentation mode, as a class sees it on a projector.

Opens /Lessons?lesson=2&step=1&present=1 in Chromium at 1280×720, checks that the
sidebar and every control are hidden, then walks the whole lesson with the → key: at
each step the answer is hidden until an option is locked in (choosing it reveals
nothing), the option locked in is the one the lab measures at that step's state
(``Step.reveal``, computed in this process), and the page then says "Right:" and shows
the numbers; the figure (with its scores) and the
verdict are above the fold. ← steps back. The same step at 1920×1080, and the
Classification page with present=1 at both sizes, are checked for the fold too. The
pictures go to test-artifacts/pictures/; the README and docs/teaching-with-the-lab.md
show them once copied by::

    python tools/docs_screenshots.py
"""

from __future__ import annotations

import re

import _browser as tb
import pytest
from _browser import exception_texts, wait_idle
from _lessons_page import CHART_BOX_JS, VERDICT_JS, answer, chart_box, lock_in, new_page, wait_step

from nplk_lab.model.lessons import lessons as L

# the server and Chromium fixtures of the first browser test

pytestmark = pytest.mark.browser

SHOTS = tb.PICTURES
LESSON = 2
SIZES = ((1280, 720), (1920, 1080))


#: what is visible of the controls: widgets outside the kept containers, the sidebar
VISIBLE_CONTROLS_JS = """
() => {
  const shown = (e) => { const r = e.getBoundingClientRect();
                         return r.width > 0 && r.height > 0; };
  const sel = '[data-testid="stSlider"], [data-testid="stSelectbox"], '
            + '[data-testid="stToggle"], [data-testid="stCheckbox"], '
            + '[data-testid="stDownloadButton"], [data-testid="stFileUploader"], '
            + '[data-testid="stExpander"], [data-testid="stTextInput"]';
  const controls = [...document.querySelectorAll(sel)].filter(shown).length;
  const side = document.querySelector('[data-testid="stSidebar"]');
  return { controls, sidebar: !!side && shown(side) };
}
"""


def heading(page) -> str:
    return page.locator("strong", has_text=re.compile(r"step \d+ of \d+")).first.inner_text()


def assert_above_fold(page, what: str) -> None:
    """The chart (its plot included) ends above the window's bottom edge, once the
    presentation script has sized it and Plotly has redrawn at that size."""
    try:
        page.wait_for_function(f"() => {{ const b = ({CHART_BOX_JS})(); "
                               "return !!b && b.bottom <= b.inner + 1; }", timeout=20_000)
    except Exception:  # noqa: BLE001 (Playwright's TimeoutError): say where it ended
        tb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(tb.ARTIFACTS / "lesson-fold-failure.png"))
        box = page.evaluate(CHART_BOX_JS)
        raise AssertionError(f"{what}: chart ends at {box and box['bottom']:.0f} px of "
                             f"{box and box['inner']} px") from None


def test_walk_a_lesson_in_presentation_mode(app_server, chromium_path):
    from playwright.sync_api import sync_playwright

    lesson = L.lesson(LESSON)
    n = len(lesson.steps)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx, page = new_page(browser, SIZES[0])
            page.goto(f"{app_server.url}/Lessons?lesson={LESSON}&step=1&present=1",
                      wait_until="domcontentloaded")
            wait_step(page, 1, n)
            seen = page.evaluate(VISIBLE_CONTROLS_JS)
            assert seen == {"controls": 0, "sidebar": False}, seen
            for k, step in enumerate(lesson.steps, 1):
                wait_step(page, k, n)
                assert lesson.title in heading(page)
                # before an answer: the data alone (or no figure), no verdict
                surface = step.figure == "surface"
                if surface:
                    chart_box(page, fitted=False)
                rev = answer(page, step)
                box = chart_box(page, fitted=True if surface else None)
                assert_above_fold(page, f"step {k}")
                verdict = page.locator('[data-testid=stAlert]').filter(
                    has_text="Right:").first.bounding_box()
                assert verdict["y"] + verdict["height"] <= box["inner"]
                # the numbers of the reveal are on the page
                first = rev.text.split(";")[0].split(".")[0]
                assert page.get_by_text(first, exact=False).count() >= 1
                if k == 3:
                    page.screenshot(path=str(SHOTS / "lesson-present-1280x720.png"))
                if k < n:
                    page.keyboard.press("ArrowRight")
            assert page.evaluate("() => new URL(location.href).searchParams.get('step')") \
                == str(n)
            page.keyboard.press("ArrowLeft")
            wait_step(page, n - 1, n)
            assert exception_texts(page) == []
            ctx.close()

            # the same step on a 1920×1080 projector
            ctx, page = new_page(browser, SIZES[1])
            page.goto(f"{app_server.url}/Lessons?lesson={LESSON}&step=3&present=1",
                      wait_until="domcontentloaded")
            wait_step(page, 3, n)
            answer(page, lesson.steps[2])
            chart_box(page, fitted=True)
            assert_above_fold(page, "1920×1080")
            page.screenshot(path=str(SHOTS / "lesson-present-1920x1080.png"))
            ctx.close()

            # any lab page with present=1: no controls, the figure and its scores fit
            for w, h in SIZES:
                ctx, page = new_page(browser, (w, h))
                page.goto(f"{app_server.url}/Classification?present=1",
                          wait_until="domcontentloaded")
                tb.wait_surface(page)
                wait_idle(page, 60_000)
                page.wait_for_function(
                    "() => document.querySelector('.nplk-live-chart.nplk-fit')",
                    timeout=30_000)
                seen = page.evaluate(VISIBLE_CONTROLS_JS)
                assert seen == {"controls": 0, "sidebar": False}, seen
                assert_above_fold(page, f"Classification {w}×{h}")
                page.screenshot(path=str(SHOTS / f"classification-present-{w}x{h}.png"))
                assert exception_texts(page) == []
                ctx.close()
        finally:
            browser.close()


def test_two_clicks_from_home_present_lesson_1(app_server, chromium_path):
    """Home, one click on "Lessons" in the sidebar, one on "Present": lesson 1's first
    step in presentation mode, its address with no empty parameter."""
    from urllib.parse import parse_qs, urlparse

    with tb.open_browser(chromium_path) as browser:
        ctx, page = new_page(browser, SIZES[0])
        page.goto(app_server.url, wait_until="domcontentloaded")
        link = page.locator('[data-testid="stSidebar"] a').filter(has_text="Lessons").first
        link.wait_for(timeout=tb.FIRST_CHART_TIMEOUT_MS)
        link.click()                                                  # click 1
        present = page.locator(".st-key-lesson_present").get_by_role("button")
        present.wait_for(timeout=tb.FIRST_CHART_TIMEOUT_MS)
        wait_idle(page, 60_000)
        top = present.bounding_box()
        assert top["y"] + top["height"] <= SIZES[0][1], top           # above the fold
        present.click()                                               # click 2
        page.get_by_role("button", name="Exit presentation").wait_for(timeout=60_000)
        wait_step(page, 1, len(L.lesson(1).steps))
        assert L.lesson(1).title in heading(page)
        assert page.evaluate(VISIBLE_CONTROLS_JS) == {"controls": 0, "sidebar": False}
        q = parse_qs(urlparse(page.url).query, keep_blank_values=True)
        assert q.get("present") == ["1"] and q.get("lesson", ["1"]) == ["1"], page.url
        assert all(v != [""] for v in q.values()), page.url
        assert exception_texts(page) == []
        ctx.close()


def test_answers_survive_back_next_and_a_refresh_and_finish_counts_them(app_server,
                                                                         chromium_path):
    """Lesson 1: all five questions locked in (the first two wrong, the rest right),
    Back twice and Next twice (each answered step stays answered, its figure shown),
    a refresh, and Finish: "5 of 5", two of them not right."""
    lesson = L.lesson(1)
    n = len(lesson.steps)
    revs = [s.reveal() for s in lesson.steps]
    picks = [(r.answer + 1) % len(s.options) if k < 2 else r.answer
             for k, (s, r) in enumerate(zip(lesson.steps, revs, strict=True))]
    with tb.open_browser(chromium_path) as browser:
        ctx, page = new_page(browser, SIZES[0])
        page.goto(f"{app_server.url}/Lessons?lesson=1&step=1", wait_until="domcontentloaded")
        for k, (step, pick) in enumerate(zip(lesson.steps, picks, strict=True), 1):
            wait_step(page, k, n)
            lock_in(page, step.options[pick], "right" if pick == revs[k - 1].answer
                    else "wrong")
            page.keyboard.press("ArrowRight")
        page.get_by_text("The end of the lesson", exact=True).wait_for(timeout=60_000)
        for k in (n, n - 1, n - 2):                      # back: still answered
            page.keyboard.press("ArrowLeft")
            wait_step(page, k, n)
            page.wait_for_function(f"() => ({VERDICT_JS})() !== ''", timeout=60_000)
            assert page.locator('[data-testid="stRadio"]').count() == 0
        page.keyboard.press("ArrowRight")
        wait_step(page, n - 1, n)
        assert page.evaluate(VERDICT_JS) == "right"
        page.reload(wait_until="domcontentloaded")       # a refresh: a new session
        wait_step(page, n - 1, n)
        page.wait_for_function(f"() => ({VERDICT_JS})() === 'right'", timeout=60_000)
        page.locator(".st-key-lesson_next").get_by_role("button").click()
        wait_step(page, n, n)
        page.locator(".st-key-lesson_next").get_by_role("button").click()   # Finish
        score = page.locator('[data-testid="stMarkdownContainer"]').filter(
            has_text="You answered")
        score.wait_for(timeout=60_000)
        assert score.inner_text().startswith(f"You answered {n} of {n} questions; {n - 2} "
                                             "of your predictions were"), score.inner_text()
        assert "not answered" not in page.locator('[data-testid="stMain"]').inner_text()
        page.screenshot(path=str(SHOTS / "lesson-end-5-of-5-1280x720.png"))
        assert exception_texts(page) == []
        ctx.close()
