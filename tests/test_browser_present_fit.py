"""Real-browser test: every step of every lesson fits a projector in presentation mode.

Walks each built-in lesson with ``present=1`` in Chromium. At every step it answers
wrong, then right (the option the lab measures, ``Step.reveal``, computed here), and in
each of those states, at 1280×720 and at 1920×1080 (the same page, the window resized),
checks:

- nothing scrolls: no element of the page (the document, Streamlit's main view) is
  taller than its box;
- the chart's text (every SVG text of the Plotly figure: ticks, legend, colour-bar
  titles and ticks, annotations, titles) is at least 14 px at 1280×720 and 18 px at
  1920×1080;
- a heatmap's plot area is at least 300 px wide at 1280×720 (and at 1920×1080);
- no two colour-bar titles overlap, and none lies on a heatmap's plot area;
- the pinned "Exit presentation" button covers neither "◀ Back", "Next ▶" nor the
  step's heading.

On a 390×844 phone, "Exit presentation" does not cover "◀ Back" either. Any page with
``present=1`` (the Classification page here) draws its chart text at those sizes and
shows no modebar on hover.

Pictures (JPEG, so the set stays about 3 MB) go to test-artifacts/pictures/present-fit/:
every step after a wrong answer at 1280×720 (the tallest state, at the size that binds),
lesson 2's steps also after the right answer at 1920×1080, steps 2 and 3 in the dark
theme, and the phone; ``python tools/docs_screenshots.py
present-fit`` copies them to docs/screenshots/present-fit/. Lesson 2's steps 2 and 3
in the dark theme (where the issue found the overlapping colour bars and the cut
reveal) run in the quick browser set (about 20 s); the whole lessons are marked ``slow``
(about 3 minutes in all).
"""

from __future__ import annotations

import pytest
import test_browser as tb
from test_browser import exception_texts, wait_idle, wait_still

from nplk_lab.model import lessons as L

chromium_path, app_server = tb.chromium_path, tb.app_server

pytestmark = pytest.mark.browser

SHOTS = tb.PICTURES / "present-fit"
SMALL, LARGE = (1280, 720), (1920, 1080)
#: the least chart text size, px, at each window
MIN_FONT = {SMALL: 14, LARGE: 18}
MIN_HEATMAP = 300
PHONE = (390, 844)

#: what the test measures on the page, in one go
MEASURE_JS = """
() => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return { x: r.left, y: r.top, w: r.width, h: r.height }; };
  const shown = (e) => { const r = e.getBoundingClientRect();
                         return r.width > 0 && r.height > 0; };
  // every element that scrolls vertically, and by how much
  const scrolls = [];
  for (const e of [document.scrollingElement, ...document.querySelectorAll(
      '[data-testid="stAppViewContainer"], [data-testid="stMain"], '
      + '[data-testid="stMainBlockContainer"], [data-testid="stApp"]')]) {
    if (!e) continue;
    const style = getComputedStyle(e);
    const can = e === document.scrollingElement || /(auto|scroll)/.test(style.overflowY);
    if (can && e.scrollHeight > e.clientHeight + 1) {
      scrolls.push({ what: e.dataset ? (e.dataset.testid || e.tagName) : e.tagName,
                     scroll: e.scrollHeight, client: e.clientHeight });
    }
  }
  const gd = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .find((g) => shown(g) && g._fullLayout);
  let fonts = [], heatmaps = [], bars = [];
  if (gd) {
    for (const t of gd.querySelectorAll('svg text')) {
      if (!t.textContent.trim() || !shown(t)) continue;
      fonts.push({ size: parseFloat(getComputedStyle(t).fontSize), text: t.textContent });
    }
    const fl = gd._fullLayout;
    for (const tr of gd._fullData || []) {
      if (tr.type !== 'heatmap' || !tr.visible) continue;
      const xa = fl[tr.xaxis.replace('x', 'xaxis')], ya = fl[tr.yaxis.replace('y', 'yaxis')];
      const g = gd.getBoundingClientRect();
      heatmaps.push({ name: tr.name, w: xa._length, h: ya._length,
                      x: g.left + xa._offset, y: g.top + ya._offset });
    }
    bars = [...gd.querySelectorAll('.colorbar .cbtitle')].filter(shown)
      .map((e) => ({ text: e.textContent, ...box(e) }));
  }
  const find = (sel, text) => [...document.querySelectorAll(sel)]
    .find((e) => shown(e) && e.textContent.includes(text));
  const named = {};
  for (const [name, sel, text] of [['exit', 'button', 'Exit presentation'],
                                   ['back', 'button', '◀ Back'],
                                   ['next', 'button', ' ▶'],  // Next ▶ (Finish ▶ at the end)
                                   ['heading', 'strong', ' — step ']]) {
    const e = find(sel, text);
    if (e) named[name] = box(e);
  }
  return { scrolls, inner: innerHeight, width: innerWidth, fonts, heatmaps, bars, named,
           floor: gd ? Number(gd.dataset.fontFloor || 0) : null, drawn: !!gd };
}
"""


#: the page's live chart on screen
CHART_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] .nplk-live-chart')]
  .find((e) => e.getBoundingClientRect().width > 0)
"""

#: the top edge of the page's drawn chart (null before it is drawn)
CHART_TOP_JS = """
() => { const g = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
        return g && g.querySelector('.main-svg') ? g.getBoundingClientRect().top : null; }
"""


def overlap(a: dict, b: dict) -> bool:
    """Two boxes share more than a pixel each way."""
    return (min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 1 and
            min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 1)


def wait_step(page, k: int, n: int) -> None:
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('strong')].some((e) => e.textContent"
        ".includes(t))", arg=f"step {k} of {n}", timeout=60_000)
    wait_idle(page, 60_000)


def wait_drawn(page, step: L.Step, size: tuple[int, int]) -> None:
    """The page at ``size`` once its figure (if the step has one now) is drawn with the
    chart text of that window size and the picture is still."""
    page.wait_for_function(f"() => {{ const g = ({CHART_JS})(); return !!g && "
                           "!!g._fullLayout && Math.abs(g._fullLayout.height - "
                           "g.getBoundingClientRect().height) < 2; }", timeout=30_000)
    try:   # drawn again with the text of this window size (the chart says which)
        page.wait_for_function(f"(f) => Number(({CHART_JS})().dataset.fontFloor || 0) "
                               "=== f", arg=MIN_FONT[size], timeout=10_000)
    except Exception:  # noqa: BLE001 (Playwright's TimeoutError): check() says the sizes
        pass
    page.mouse.move(1, 1)
    wait_still(page, {"width": size[0], "height": size[1]})


def check(page, size: tuple[int, int], what: str) -> dict:
    """Measure the page (:data:`MEASURE_JS`) and assert the fit at ``size``."""
    m = page.evaluate(MEASURE_JS)
    where = f"{what} at {size[0]}×{size[1]}"
    assert m["width"] == size[0] and m["inner"] == size[1], (where, m["width"], m["inner"])
    assert m["scrolls"] == [], (where, m["scrolls"])
    assert m["drawn"], where
    small = [f for f in m["fonts"] if f["size"] < MIN_FONT[size] - 0.01]
    assert m["fonts"] and not small, (where, small[:5])
    for h in m["heatmaps"]:
        assert h["w"] >= MIN_HEATMAP, (where, h)
    for i, a in enumerate(m["bars"]):
        for b in m["bars"][i + 1:]:
            assert not overlap(a, b), (where, "colour-bar titles overlap", a, b)
        for h in m["heatmaps"]:
            assert not overlap(a, h), (where, "colour-bar title on a heatmap", a, h)
    named = m["named"]
    assert {"exit", "back", "next", "heading"} <= set(named), (where, named)
    for other in ("back", "next", "heading"):
        assert not overlap(named["exit"], named[other]), (where, other, named)
    assert exception_texts(page) == [], where
    return m


def shot(page, name: str) -> None:
    """A picture for the docs (JPEG: the set of every step stays a few MB)."""
    page.screenshot(path=str(SHOTS / f"{name}.jpg"), type="jpeg", quality=55)


def pick(page, option: str, verdict: str) -> None:
    page.locator('[data-testid="stRadio"] label').filter(has_text=option).first.click()
    page.get_by_text(verdict, exact=False).first.wait_for(timeout=60_000)
    wait_idle(page, 60_000)


def walk(app_server, chromium_path, number: int, scheme: str = "light",
         steps: tuple[int, ...] = ()) -> None:
    """Lesson ``number``'s ``steps`` (consecutive; default: all) in presentation mode,
    in the ``scheme`` colours, each checked wrong and right at both window sizes."""
    from playwright.sync_api import sync_playwright

    lesson = L.lesson(number)
    n = len(lesson.steps)
    steps = steps or tuple(range(1, n + 1))
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport={"width": SMALL[0], "height": SMALL[1]},
                                      color_scheme=scheme)
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{app_server.url}/Lessons?lesson={number}&step={steps[0]}"
                      "&present=1", wait_until="domcontentloaded")
            for k in steps:
                step = lesson.steps[k - 1]
                wait_step(page, k, n)
                rev = step.reveal()
                assert rev is not None and rev.answer >= 0, (number, k)
                wrong = next(i for i in range(len(step.options)) if i != rev.answer)
                states = (("wrong", step.options[wrong], "Not quite"),
                          ("right", step.options[rev.answer], "Right."))
                for state, option, verdict in states:
                    pick(page, option, verdict)
                    if "\n- " in rev.text:   # a draw-by-draw list: collapsed, in view
                        assert page.get_by_text("Draw by draw", exact=True).is_visible()
                    for size in (SMALL, LARGE) if state == "wrong" else (LARGE, SMALL):
                        page.set_viewport_size({"width": size[0], "height": size[1]})
                        wait_drawn(page, step, size)
                        check(page, size, f"lesson {number} step {k} ({state} answer)")
                        # the docs' set: every step at the binding size, lesson 2 also large
                        if (state, size) == ("wrong", SMALL) or (
                                (state, size) == ("right", LARGE) and number == 2):
                            dark = "-dark" if scheme == "dark" else ""
                            shot(page, f"lesson{number}-step{k}-{state}-"
                                       f"{size[0]}x{size[1]}{dark}")
                if k < steps[-1]:
                    page.keyboard.press("ArrowRight")
            ctx.close()
        finally:
            browser.close()


@pytest.mark.parametrize("number, scheme, steps", [
    # quick: the steps where the issue found the defects, in the dark theme
    pytest.param(2, "dark", (2, 3), id="lesson2-steps2-3-dark"),
    *(pytest.param(les.number, "light", (), marks=pytest.mark.slow,
                   id=f"lesson{les.number}") for les in L.LESSONS)])
def test_every_step_fits_a_projector(app_server, chromium_path, number, scheme, steps):
    walk(app_server, chromium_path, number, scheme, steps)


def test_exit_does_not_cover_back_on_a_phone(app_server, chromium_path):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]},
                                      is_mobile=True, has_touch=True)
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{app_server.url}/Lessons?lesson=2&step=2&present=1",
                      wait_until="domcontentloaded")
            wait_step(page, 2, len(L.lesson(2).steps))
            page.wait_for_function(f"() => Object.keys(({MEASURE_JS})().named).length === 4")
            named = page.evaluate(MEASURE_JS)["named"]
            for other in ("back", "next", "heading"):
                assert not overlap(named["exit"], named[other]), (other, named)
            # the words come first on a phone: Back and the question above the figure
            step = L.lesson(2).steps[1]
            pick(page, step.options[step.reveal().answer], "Right.")
            page.wait_for_function(f"() => ({CHART_TOP_JS})() !== null")
            top = page.evaluate(CHART_TOP_JS)
            named = page.evaluate(MEASURE_JS)["named"]
            assert named["back"]["y"] + named["back"]["h"] < top, (named, top)
            shot(page, "lesson2-step2-phone-390x844")
            ctx.close()
        finally:
            browser.close()


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["1280x720", "1920x1080"])
def test_any_page_grows_its_chart_text_and_drops_the_modebar(app_server, chromium_path,
                                                             size):
    """The Classification page with present=1: its figure's text meets the projector
    sizes, and hovering the figure shows no modebar (it covered the titles)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{app_server.url}{tb.CLASSIFICATION_PATH}?present=1",
                      wait_until="domcontentloaded")
            tb.wait_surface(page)
            wait_idle(page, 60_000)
            page.wait_for_function(f"() => !!({CHART_JS})()")
            try:   # drawn with the text of this window size (the chart says which)
                page.wait_for_function(f"(f) => Number(({CHART_JS})().dataset.fontFloor "
                                       "|| 0) === f", arg=MIN_FONT[size], timeout=10_000)
            except Exception:  # noqa: BLE001 (Playwright's TimeoutError): the sizes below
                pass
            wait_still(page, {"width": size[0], "height": size[1]})
            m = page.evaluate(MEASURE_JS)
            small = [f for f in m["fonts"] if f["size"] < MIN_FONT[size] - 0.01]
            assert m["fonts"] and not small, small[:5]
            box = page.locator('[data-testid="stMain"] .js-plotly-plot').first.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            bars = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMain\"]"
                                 " .modebar')].filter((e) => e.getBoundingClientRect().width"
                                 " > 0).length")
            assert bars == 0
            ctx.close()
        finally:
            browser.close()
