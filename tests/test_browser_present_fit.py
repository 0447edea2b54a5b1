"""Real-browser test: every step of every lesson fits a projector in presentation mode
and can be read from the back of a hall.

Walks each built-in lesson with ``present=1`` in Chromium, twice: every step answered
wrong, then (the lesson opened again) every step answered right (the option the lab
measures, ``Step.reveal``, computed here), each locked in. In each state, with every
fold ("Draw by draw") opened, at 1280×720 and at 1920×1080 (the same page, the window
resized), it checks:

- nothing scrolls: no element of the page (the document, Streamlit's main view) is
  taller than its box;
- the chart's text (every SVG text of the Plotly figure: ticks, legend, colour-bar
  titles and ticks, annotations, titles) is at least 16 px at 1280×720 and 24 px at
  1920×1080;
- the figure's drawing (its plot areas, colour bars and legend) spans at least half the
  window's width, and a plot's colour bar stands beside it (no band wider than two
  letters between them);
- a heatmap's plot area is at least 300 px wide at 1280×720 (and at 1920×1080);
- no two colour-bar titles overlap, and none lies on a heatmap's plot area;
- no number is written as a computer writes it (2.6e-06, 2μ, 100000.0), on the page or
  in the chart (Plotly's own tick labels included);
- the pinned "Exit presentation" button stays 8 px or more from "◀ Back", "Next ▶" and
  the step's heading.

A presentation link opened on a 390×844 phone leaves presentation mode with a note, and
the lesson's page overlaps no chart text, for a step of every kind of figure. Any page
with ``present=1`` (the Classification page here) draws its chart text at those sizes
and shows no modebar on hover. Each state's measures are printed (``-s``).

Pictures (JPEG, so the set stays about 3 MB) go to test-artifacts/pictures/present-fit/:
every step after a wrong answer at 1280×720 (the tallest state, at the size that binds),
lesson 2's steps also after the right answer at 1920×1080, steps 2 and 3 in the dark
theme, and the phones; ``python tools/docs_screenshots.py present-fit`` copies them to
docs/screenshots/present-fit/. Lesson 2's steps 2 and 3 in the dark theme and the phones
run in the quick browser set; the whole lessons are marked ``slow``.
"""

from __future__ import annotations

import re

import _browser as tb
import pytest
from _browser import exception_texts, wait_idle, wait_still
from _lessons_page import LARGE, MIN_FONT, SMALL, lock_in

from nplk_lab.model.lessons import lessons as L

pytestmark = pytest.mark.browser

SHOTS = tb.PICTURES / "present-fit"
#: the least share of the window's width the figure's drawing (its plots, colour bars
#: and legend) spans
MIN_SHARE = 0.5
MIN_HEATMAP = 300
#: a number as a computer writes it: 2.6e-06, an SI prefix after a digit (2μ, 5m), 100000.0
COMPUTER_NUMBER = re.compile(r"\b\d(?:\.\d+)?e[-+]?\d+\b|\d[μµ]|\b\d{4,}\.0\b")
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
  let fonts = [], heatmaps = [], bars = [], plots = [], drawing = null, band = null;
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
    // what the figure draws, left to right: its plot areas, colour bars and legend
    const g = gd.getBoundingClientRect();
    const spans = Object.keys(fl).filter((k) => /^xaxis[0-9]*$/.test(k) && fl[k]._length > 0)
      .map((k) => [g.left + fl[k]._offset, g.left + fl[k]._offset + fl[k]._length]);
    plots = spans.slice();
    for (const e of gd.querySelectorAll('.colorbar, .legend')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0) spans.push([r.left, r.right]);
    }
    drawing = spans.length ? { left: Math.min(...spans.map((s) => s[0])),
                               right: Math.max(...spans.map((s) => s[1])) } : null;
    const cb = gd.querySelector('.colorbar');
    if (cb && plots.length === 1) {
      const r = cb.getBoundingClientRect();
      band = r.left - plots[0][1];      // the empty band between the plot and its bar
    }
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
           drawing, band,
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


def overlap(a: dict, b: dict, apart: float = 0) -> bool:
    """Two boxes share more than a pixel each way, or (``apart`` > 0) come closer than
    ``apart`` px both ways (3 px between "Exit presentation" and "Next ▶" read as one
    button)."""
    near = 1 if not apart else -apart
    return (min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > near and
            min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > near)


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
    # the drawing on screen was made for the chart's box now (its width, and the height
    # presentation mode gives it): a window resize redraws the chart for the new box, and
    # a drawing made for the old one may show in between, its legend and margins chosen
    # for another width
    page.wait_for_function(f"() => {{ const g = ({CHART_JS})(); return !!g && "
                           "!!window.__nplkPresentBox && "
                           "g.dataset.drawnBox === window.__nplkPresentBox(g); }",
                           timeout=30_000)
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
    share = (m["drawing"]["right"] - m["drawing"]["left"]) / m["width"]
    assert share >= MIN_SHARE, (where, f"the figure spans {share:.0%} of the width")
    if m["band"] is not None:   # the colour bar beside its plot, no empty band between
        assert m["band"] <= 2 * MIN_FONT[size], (where, "band", m["band"])
    for i, a in enumerate(m["bars"]):
        for b in m["bars"][i + 1:]:
            assert not overlap(a, b), (where, "colour-bar titles overlap", a, b)
        for h in m["heatmaps"]:
            assert not overlap(a, h), (where, "colour-bar title on a heatmap", a, h)
    # numbers as a person writes them, in the chart (Plotly's own tick labels too) and
    # on the page: no "2.6e-06", no SI prefix ("2μ"), no "100000.0"
    words = [f["text"] for f in m["fonts"]] + [page.inner_text('[data-testid="stMain"]')]
    computer = [w for w in words if COMPUTER_NUMBER.search(w)]
    assert not computer, (where, computer[:3])
    named = m["named"]
    assert {"exit", "back", "next", "heading"} <= set(named), (where, named)
    for other in ("back", "next", "heading"):
        assert not overlap(named["exit"], named[other], 8), (where, other, named)
    assert exception_texts(page) == [], where
    tallest = max([m["inner"]] + [x["scroll"] for x in m["scrolls"]])
    print(f"{where}: smallest chart text {min(f['size'] for f in m['fonts']):g} px, "
          f"figure {share:.0%} of the width, page {tallest} px tall")
    return m


def shot(page, name: str) -> None:
    """A picture for the docs (JPEG: the set of every step stays a few MB)."""
    page.screenshot(path=str(SHOTS / f"{name}.jpg"), type="jpeg", quality=55)




def open_folds(page) -> None:
    """Open every fold ("Draw by draw") of the page, as a teacher may."""
    for summary in page.locator('[data-testid="stMain"] [data-testid="stExpander"] '
                                'details:not([open]) > summary').all():
        if summary.is_visible():
            summary.click()
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
            # every step answered wrong, then (the lesson opened again, with no
            # answers) every step answered right: an answer is locked in once
            for state in ("wrong", "right"):
                page.goto(f"{app_server.url}/Lessons?lesson={number}&step={steps[0]}"
                          "&present=1", wait_until="domcontentloaded")
                for k in steps:
                    step = lesson.steps[k - 1]
                    wait_step(page, k, n)
                    rev = step.reveal()
                    assert rev is not None and rev.answer >= 0, (number, k)
                    wrong = next(i for i in range(len(step.options)) if i != rev.answer)
                    option = step.options[wrong if state == "wrong" else rev.answer]
                    lock_in(page, option, state)
                    if rev.draws is not None:   # each draw's numbers: folded, in view
                        assert page.get_by_text("Draw by draw", exact=True).is_visible()
                    open_folds(page)
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


#: on a phone: every text of the page's chart that overlaps another (boxes sharing more
#: than 1 px each way), its plot areas' sizes, and colour bars lying on a plot area
PHONE_JS = """
() => {
  const shown = (e) => { const r = e.getBoundingClientRect();
                         return r.width > 0 && r.height > 0; };
  const gd = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .find((g) => shown(g) && g._fullLayout);
  if (!gd) return null;
  // each line of a text with several (a blank line is a spacer, not text)
  const texts = [...gd.querySelectorAll('svg text')].filter(shown)
    .flatMap((t) => { const lines = [...t.querySelectorAll('tspan.line')];
                      return lines.length ? lines : [t]; })
    .filter((t) => t.textContent.trim() && shown(t))
    .map((t) => { const r = t.getBoundingClientRect();
                  return { text: t.textContent, x: r.left, y: r.top, w: r.width, h: r.height }; });
  const hit = (a, b) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 &&
                        Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
  const overlaps = [];
  texts.forEach((a, i) => texts.slice(i + 1).forEach((b) => {
    if (hit(a, b)) overlaps.push([a.text, b.text]); }));
  const fl = gd._fullLayout, g = gd.getBoundingClientRect();
  const plots = Object.keys(fl).filter((k) => /^xaxis[0-9]*$/.test(k) && fl[k]._length > 0)
    .map((k) => { const ya = fl[k]._anchorAxis || fl.yaxis;
                  return { x: g.left + fl[k]._offset, w: fl[k]._length,
                           y: g.top + ya._offset, h: ya._length }; });
  const bars = [...gd.querySelectorAll('.colorbar')].filter(shown).map((e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height }; });
  const barOnPlot = bars.some((b) => plots.some((p) => hit(b, p)));
  return { overlaps, plots, barOnPlot, right: g.right, width: innerWidth,
           fonts: texts.length };
}
"""
#: one step of each kind of figure: (lesson, step)
PHONE_STEPS = {"surface": (2, 1), "matrix": (2, 2), "curve": (5, 1), "bandwidth": (5, 2),
               "constraints": (4, 2)}


@pytest.mark.parametrize("kind", list(PHONE_STEPS))
def test_presentation_on_a_phone_overlaps_no_text(app_server, chromium_path, kind):
    """A presentation link opened on a 390×844 phone leaves presentation mode with a
    note (it is made for a projector) and shows the lesson's page: once answered, no
    text of the chart overlaps another (each line of a title counted apart), every plot
    area is at least 150 px wide and tall (a matrix step's four panels 90 px), no colour
    bar lies on a plot, and the figure stays within the window."""
    from playwright.sync_api import sync_playwright

    number, k = PHONE_STEPS[kind]
    step = L.lesson(number).steps[k - 1]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]},
                                      is_mobile=True, has_touch=True)
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{app_server.url}/Lessons?lesson={number}&step={k}&present=1",
                      wait_until="domcontentloaded")
            # presentation mode is for a projector: the phone gets the page, with a note
            page.get_by_text("Presentation mode is made for a projector",
                             exact=False).wait_for(timeout=60_000)
            wait_step(page, k, len(L.lesson(number).steps))
            assert page.get_by_role("button", name="Exit presentation").count() == 0
            tb.wait_url(page, "present", "0", 60_000)
            lock_in(page, step.options[step.reveal().answer], "right")
            page.wait_for_function(f"() => ({CHART_TOP_JS})() !== null")
            # Back and the heading above the figure
            top = page.evaluate(CHART_TOP_JS)
            named = page.evaluate(MEASURE_JS)["named"]
            assert named["back"]["y"] + named["back"]["h"] < top, (named, top)
            page.wait_for_function(f"() => {{ const g = ({CHART_JS})(); return !!g && "
                                   "!!g._fullLayout && Math.abs(g._fullLayout.width - "
                                   "g.getBoundingClientRect().width) < 2; }")
            page.mouse.move(1, 1)
            wait_still(page, {"width": PHONE[0], "height": PHONE[1]})
            m = page.evaluate(PHONE_JS)
            page.locator('[data-testid="stMain"] .js-plotly-plot').first \
                .scroll_into_view_if_needed()
            shot(page, f"lesson{number}-step{k}-phone-{PHONE[0]}x{PHONE[1]}")
            assert m is not None and m["fonts"] > 5, m
            assert m["overlaps"] == [], m["overlaps"]
            assert m["right"] <= m["width"] + 1, m
            least = 90 if kind == "matrix" else 150   # four panels in two columns
            for p in m["plots"]:
                assert p["w"] >= least and p["h"] >= least, (kind, p)
            assert not m["barOnPlot"], m
            assert exception_texts(page) == []
            ctx.close()
        finally:
            browser.close()


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["1280x720", "1920x1080"])
def test_any_page_grows_its_chart_text_and_drops_the_modebar(app_server, chromium_path,
                                                             size):
    """The Classification page with present=1: its figure's text meets the projector
    sizes, its plot keeps 250 px or more each way, and hovering the figure shows no
    modebar (it covered the titles)."""
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
            # the larger text leaves the plot its room (a legend moved beside a plot in a
            # narrow column once squeezed the surface to 50 px)
            plot = page.evaluate("() => { const fl = document.querySelector("
                                 "'[data-testid=\"stMain\"] .js-plotly-plot')._fullLayout;"
                                 " return [fl.xaxis._length, fl.yaxis._length]; }")
            assert min(plot) >= 250, plot
            box = page.locator('[data-testid="stMain"] .js-plotly-plot').first.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            bars = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMain\"]"
                                 " .modebar')].filter((e) => e.getBoundingClientRect().width"
                                 " > 0).length")
            assert bars == 0
            ctx.close()
        finally:
            browser.close()


#: how many times the page's chart has been drawn (each drawing, for a new figure or a
#: new window, counts one)
DRAWINGS_JS = f"() => ({CHART_JS})().__nplkDrawing || 0"


def test_a_resized_window_draws_the_chart_once(app_server, chromium_path):
    """A projector's window resized (1280×720 → 1920×1080 and back) redraws the chart once,
    for its new text size and box: the chart's new height is set before it is drawn, so no
    drawing made for the old height (its legend and margins chosen for another box, the
    figure spanning a third of the window) shows in between. Lesson 1's step 5, answered,
    is where such a drawing was seen."""
    from playwright.sync_api import sync_playwright

    lesson = L.lesson(1)
    step = lesson.steps[4]
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = browser.new_context(viewport={"width": SMALL[0], "height": SMALL[1]})
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{app_server.url}/Lessons?lesson=1&step=5&present=1",
                      wait_until="domcontentloaded")
            wait_step(page, 5, len(lesson.steps))
            lock_in(page, step.options[step.reveal().answer], "right")
            open_folds(page)
            wait_drawn(page, step, SMALL)
            for size in (LARGE, SMALL):
                before = page.evaluate(DRAWINGS_JS)
                page.set_viewport_size({"width": size[0], "height": size[1]})
                wait_drawn(page, step, size)
                check(page, size, f"lesson 1 step 5 resized to {size[0]}×{size[1]}")
                assert page.evaluate(DRAWINGS_JS) - before == 1, size
            ctx.close()
        finally:
            browser.close()
