"""Figure titles in Chromium: on every page's charts, at 1280 × 720, on a
phone and after the window shrinks, a title stays inside its chart (a long one wraps onto
more lines), the mode bar that appears on hover never covers it, and it overlaps none of
the chart's other words (subplot titles, the score note, colour-bar titles, the legend).

Before: the mode bar's eight buttons (216 px) sat on the right end of the title of 8 of
the 13 charts the seven pages show at their defaults at 1280 × 720, and the matrix
view's title ran 76 px past its chart's edge.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing. Screenshots of a hovered chart
go to ``test-artifacts/titles-*.png``."""

from __future__ import annotations

import _browser as tb
import pytest
from _browser import ARTIFACTS, FIRST_CHART_TIMEOUT_MS, exception_texts, wait_idle
from _lessons_page import lock_in

from nplk_lab.model.lessons import lessons as L

pytestmark = pytest.mark.browser

# Every drawn chart's title against its chart's box, its mode bar and its other words;
# a list of what is wrong (empty when all is well) and the number of titled charts.
# A chart whose title is still being fitted (a relayout in flight) counts as not ready.
PROBLEMS_JS = """
() => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width}; };
  const meet = (a, b) => a.l < b.r - 1 && b.l < a.r - 1 && a.t < b.b - 1 && b.t < a.b - 1;
  const out = [];
  let titled = 0;
  for (const root of document.querySelectorAll('.nplk-live-chart')) {
    if (root.clientHeight > 0 && !root._fullLayout) out.push('a chart not drawn yet');
  }
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const g = box(gd);
    if (!gd._fullLayout || g.w === 0) continue;
    const title = gd.querySelector('.gtitle');
    if (!title || !title.textContent) continue;
    titled += 1;
    const name = title.textContent.slice(0, 40);
    if (gd.dataset.titleFit === undefined || gd.__nplkFitting) {
      out.push(name + ': not fitted yet');
      continue;
    }
    const t = box(title);
    if (t.r > g.r + 1 || t.l < g.l - 1 || t.t < g.t - 1) out.push(name + ': outside its chart');
    // line by line: a title's first line wraps short of the bar, the next run below it
    const bar = gd.querySelector('.modebar');
    const lines = [...title.querySelectorAll('tspan.line')];
    for (const line of lines.length ? lines : [title]) {
      if (bar && box(bar).w > 0 && meet(box(bar), box(line))) {
        out.push(name + ': under the mode bar');
      }
    }
    for (const w of gd.querySelectorAll('.annotation, .cbtitle, .legend .traces, .g-xtitle, '
                                         + '.g-ytitle, .xtick, .ytick')) {
      const b = box(w);
      if (b.w > 0 && meet(b, t)) out.push(name + ': over "' + w.textContent.slice(0, 30) + '"');
    }
  }
  return {out, titled};
}
"""


def _open(page, url: str, size: tuple[int, int], wait_for: str = ".js-plotly-plot") -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector(wait_for, timeout=FIRST_CHART_TIMEOUT_MS)
    wait_idle(page)


def _check(page, where: str) -> int:
    """Wait until every titled chart is fitted and nothing is wrong; on a timeout, fail
    with the list of what is wrong. Returns the number of titled charts."""
    from playwright.sync_api import TimeoutError

    try:
        page.wait_for_function(f"() => {{ const p = ({PROBLEMS_JS})(); "
                               "return p.titled > 0 && p.out.length === 0; }",
                               timeout=20_000, polling=100)
    except TimeoutError:
        found = page.evaluate(PROBLEMS_JS)
        pytest.fail(f"{where}: {found['titled']} titled charts; wrong: {found['out']}")
    assert not exception_texts(page), where
    return page.evaluate(PROBLEMS_JS)["titled"]


def _hovered_shot(page, name: str) -> None:
    """Hover the page's first titled chart (its mode bar shows) and keep a picture."""
    gd = page.locator(".js-plotly-plot:has(.gtitle)").first
    gd.scroll_into_view_if_needed()
    gd.hover()
    page.wait_for_function(
        "() => { const b = document.querySelector('.js-plotly-plot:has(.gtitle) .modebar');"
        " return b && getComputedStyle(b).opacity === '1'; }", timeout=10_000, polling=50)
    ARTIFACTS.mkdir(exist_ok=True)
    gd.screenshot(path=str(ARTIFACTS / f"titles-{name}.png"))


PAGES = ["/Classification", "/Regression", "/Pairwise_constraints", "/Sensitivity",
         "/Scaling", "/Paper_results", "/Lessons"]


@pytest.mark.parametrize("path", PAGES)
def test_titles_are_clear_of_the_mode_bar_at_1280(app_server, page, path):
    _open(page, app_server.url + path, (1280, 720))
    assert _check(page, path + " at 1280x720") >= 1
    _hovered_shot(page, path.strip("/").lower() + "-1280")


@pytest.mark.parametrize("path", ["/Classification", "/Pairwise_constraints", "/Scaling"])
def test_titles_wrap_and_stay_clear_on_a_phone(app_server, page, path):
    _open(page, app_server.url + path, (390, 844))
    assert _check(page, path + " at 390x844") >= 1
    _hovered_shot(page, path.strip("/").lower() + "-phone")


def test_titles_refit_when_the_window_shrinks(app_server, page):
    """Plotly redraws a responsive chart when the window changes; the titles follow
    without a new run of the page: the matrix view's long title takes more lines."""
    _open(page, app_server.url + "/Classification", (1920, 1080))
    _check(page, "Classification at 1920x1080")
    lines = "() => Array.from(document.querySelectorAll('.js-plotly-plot .gtitle')).map(" \
            "(t) => t.querySelectorAll('tspan.line').length || 1)"
    wide = page.evaluate(lines)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function(f"() => ({lines})().reduce((a, b) => a + b, 0) > "
                           f"{sum(wide)}", timeout=20_000, polling=100)
    _check(page, "Classification after shrinking to 390x844")


def test_a_slider_move_draws_the_fitted_title_once(app_server, page):
    """A new figure with the same title is drawn already fitted, from the last draw's
    geometry: a σ move redraws the surface without a second, title-only relayout."""
    _open(page, app_server.url + tb.CLASSIFICATION_PATH, (1280, 720))
    tb.wait_surface(page)
    before = tb.settled_surface(page)
    _check(page, "Classification at 1280x720")
    refits = "() => [...document.querySelectorAll('.js-plotly-plot')].find((g) => " \
             "g.data.some((t) => t.name === 'decision function')).dataset.titleRefits || '0'"
    count0 = page.evaluate(refits)
    sigma = tb.slider(page, "σ")
    sigma.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"(fp0) => ({tb.IDLE_JS})() && ({tb.SURFACE_FINGERPRINT_JS})() "
                           "!== fp0", arg=before, timeout=tb.RERUN_TIMEOUT_MS, polling=50)
    assert tb.settled_surface(page) != before
    _check(page, "Classification after a σ move")
    assert page.evaluate(refits) == count0


# Every heatmap's plot area and every colour bar's words (title, tick labels) of the
# page's i-th chart: what overlaps what.
BARS_JS = """
(i) => {
  const gd = document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')[i || 0];
  if (!gd || !gd._fullLayout) return null;
  const fl = gd._fullLayout, g = gd.getBoundingClientRect();
  const areas = (gd._fullData || []).filter((t) => t.type === 'heatmap').map((t) => {
    const xa = fl[t.xaxis.replace('x', 'xaxis')], ya = fl[t.yaxis.replace('y', 'yaxis')];
    return {name: t.name, l: g.left + xa._offset, r: g.left + xa._offset + xa._length,
            t: g.top + ya._offset, b: g.top + ya._offset + ya._length};
  });
  const words = [];
  gd.querySelectorAll('.colorbar').forEach((bar, i) => bar.querySelectorAll('text')
    .forEach((e) => { const r = e.getBoundingClientRect();
      if (r.width > 0 && e.textContent.trim()) words.push(
        {bar: i, text: e.textContent, l: r.left, r: r.right, t: r.top, b: r.bottom}); }));
  const meet = (a, b) => a.l < b.r - 1 && b.l < a.r - 1 && a.t < b.b - 1 && b.t < a.b - 1;
  const out = [];
  for (const w of words) {
    const at = (b) => [b.l, b.r, b.t, b.b].map((v) => Math.round(v - g.left)).join(',');
    for (const a of areas) {
      if (meet(w, a)) out.push(`"${w.text}" (${at(w)}) on heatmap ${a.name} (${at(a)})`);
    }
    for (const v of words) {
      if (v.bar > w.bar && meet(w, v)) out.push(`"${w.text}" on "${v.text}"`);
    }
  }
  return {out, areas: areas.length, words: words.length};
}
"""


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)], ids=["1280x720", "phone"])
def test_a_lessons_matrix_step_keeps_its_colour_bars_clear(app_server, page, size):
    """Lesson 2 step 2 outside presentation mode (a lesson beside its words, or a
    student's phone in a class): the four panels in two columns, and no colour bar's
    title or tick label on a heatmap or on another bar's words. A row of four was about
    80 px a panel there, its bar titles running into each other."""
    _open(page, app_server.url + "/Lessons?lesson=2&step=2", size, '[data-testid="stRadio"]')
    lock_in(page, L.lesson(2).steps[1].options[0])
    page.wait_for_function(f"() => {{ const m = ({BARS_JS})(); return !!m && m.areas === 4 "
                           "&& m.words > 6; }", timeout=tb.RERUN_TIMEOUT_MS, polling=100)
    wait_idle(page)
    from playwright.sync_api import TimeoutError

    try:  # the chart settles at its box's size (a first draw can be at another width)
        page.wait_for_function(f"() => ({BARS_JS})().out.length === 0", timeout=20_000,
                               polling=100)
    except TimeoutError:
        pass  # the assertion below says what overlaps
    m = page.evaluate(BARS_JS)
    gd = page.locator('[data-testid="stMain"] .js-plotly-plot').first
    gd.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    gd.screenshot(path=str(ARTIFACTS / f"titles-lesson2-step2-{size[0]}.png"))
    assert m["out"] == [], m["out"]
    assert not exception_texts(page)


def test_charts_follow_their_column_when_the_sidebar_folds(app_server, page):
    """Folding the sidebar widens the page's columns without resizing the window, which
    is all Plotly follows: the charts redraw at their columns' widths, titles refitted."""
    _open(page, app_server.url + tb.CLASSIFICATION_PATH, (1280, 720))
    _check(page, "Classification at 1280x720")
    widths = "() => [...document.querySelectorAll('.nplk-live-chart')].filter((r) => " \
             "r._fullLayout && r.clientWidth > 0).map((r) => [Math.round(r._fullLayout.width)" \
             ", r.clientWidth])"
    before = page.evaluate(widths)
    page.locator('[data-testid="stSidebar"]').hover()   # its fold button shows on hover
    page.get_by_role("button", name="Collapse sidebar").click()
    from playwright.sync_api import TimeoutError

    try:
        page.wait_for_function(f"(w0) => {{ const w = ({widths})(); return w.length === "
                               "w0.length && w.every(([drawn, col], i) => col > w0[i][1] + 50 "
                               "&& Math.abs(drawn - col) <= 1); }", arg=before,
                               timeout=20_000, polling=100)
    except TimeoutError:
        pytest.fail(f"chart widths [drawn, column]: before {before}, "
                    f"after {page.evaluate(widths)}")
    _check(page, "Classification with the sidebar folded")


@pytest.mark.parametrize("width", [1280, 1100])
def test_the_matrix_views_colour_bars_keep_apart(app_server, page, width):
    """Classification's matrix view (a row of four panels, three colour bars side by
    side in slots of 7 % of its width, 57 px at 1280 × 720): every other bar's title
    sits below its bar, so no two titles run into each other ("1 ± 0.0014" touched
    "± 0.0014" at 1280 and overlapped it in a 1100 px window)."""
    _open(page, app_server.url + tb.CLASSIFICATION_PATH, (width, 720))
    _check(page, f"Classification at {width}x720")
    m = page.evaluate(BARS_JS, 1)
    assert m["areas"] == 4 and m["words"] > 6, m
    assert m["out"] == [], m["out"]
