"""Accessible pages, checked in Chromium.

* axe-core (``tests/vendor/axe-core``, 4.14.1 from the npm registry, injected into the
  page) finds no serious or critical violation on every page, on a lesson in
  presentation mode, in the light and in the dark theme (Chromium's emulated
  ``prefers-color-scheme``, which Streamlit and the lab's charts follow);
* every chart on those pages carries a text alternative (``role="figure"`` and an
  ``aria-label`` from :func:`nplk_lab.figures.alt_text`) with at least one number;
* a lesson is walked with the keyboard alone: Tab to the answer, Space to pick it, Tab
  to Next, Enter;
* under a deuteranopia filter (the SVG ``feColorMatrix`` of ``_colour_vision``, applied
  to the whole page for the pictures), no two entries of a chart's legend differ by
  colour alone: two lines differ in dash or marker, two point sets of one shape keep
  their colours apart for a deuteranope (the rendered legend swatches are read).

Drives Debian's Chromium through Playwright against ``streamlit run app.py``; skips when
either is missing. Pictures go to ``test-artifacts/a11y/``. Run alone with::

    python -m pytest tests/test_browser_a11y.py -q -m browser
"""

from __future__ import annotations

import itertools
import re

import _browser as tb
import pytest
from _a11y import AXE, _serious
from _browser import ARTIFACTS, CHARTS_UNDRAWN_JS, IDLE_JS, exception_texts
from _colour_vision import APART, DEUTERANOPIA, deuteranope_delta_e

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "a11y"

#: (name, path and query, charts the page draws at that state): the test waits for that
#: many drawn charts, so axe reads the finished page
PAGES = [
    ("home", "/", 1),
    ("classification", "/Classification", 2),
    ("regression", "/Regression", 2),
    ("pairwise", "/Pairwise_constraints", 2),
    ("sensitivity", "/Sensitivity", 1),
    ("scaling", "/Scaling", 3),
    ("paper-results", "/Paper_results", 2),
    ("lessons", "/Lessons", 1),
    ("lesson-present", "/Lessons?present=1&lesson=1&step=1", 1),
]


#: the page is drawn: no script run, the page's text shown (a run has drawn it), ``n``
#: charts drawn
DRAWN_JS = f"""
(n) => ({IDLE_JS})() &&
       !!document.querySelector('[data-testid="stMain"] [data-testid="stMarkdownContainer"]') &&
       document.querySelectorAll('.nplk-live-chart.js-plotly-plot').length >= n &&
       ({CHARTS_UNDRAWN_JS})() === ''
"""


#: every live chart holding a figure: its role and text alternative
ALTS_JS = """
() => [...document.querySelectorAll('.nplk-live-chart')]
  .filter((el) => el.__nplkData && el.__nplkData.figure)
  .map((el) => ({ role: el.getAttribute('role'), label: el.getAttribute('aria-label') || '',
                  key: ([...(el.closest('[class*="st-key-"]') || el).classList]
                        .find((c) => c.startsWith('st-key-')) || '?').slice(7) }))
"""


def _open(browser, url: str, scheme: str = "light", charts: int = 0):
    """A fresh tab at ``url`` in ``scheme``, once the page and its ``charts`` are drawn."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport=tb.VIEWPORT, color_scheme=scheme)
    page = ctx.new_page()
    page.set_default_timeout(tb.RERUN_TIMEOUT_MS)
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(DRAWN_JS, arg=charts, timeout=tb.FIRST_CHART_TIMEOUT_MS * 2,
                           polling=100)
    return ctx, page


@pytest.fixture(scope="module")
def browser(chromium_path):
    if not AXE.is_file():
        pytest.skip(f"axe-core is not vendored at {AXE}")
    with tb.open_browser(chromium_path) as b:
        yield b


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name, path, charts", PAGES, ids=[p[0] for p in PAGES])
def test_no_serious_axe_violation_and_every_chart_has_a_text_alternative(
        app_server, browser, name, path, charts, scheme):
    ctx, page = _open(browser, app_server.url + path, scheme, charts)
    try:
        page.screenshot(path=str(SHOTS / f"{name}-{scheme}.png"), full_page=True)
        assert exception_texts(page) == []
        found = _serious(page)
        assert found == [], "\n".join(
            f"{v['impact']} {v['id']} ({v['help']}): " + "; ".join(
                f"{n['target']} {n['html']} {n['why']}" for n in v["nodes"][:5])
            for v in found)
        alts = page.evaluate(ALTS_JS)
        assert len(alts) >= charts, alts
        for a in alts:
            assert a["role"] == "figure", a
            assert re.search(r"\d", a["label"]), a
    finally:
        ctx.close()


def test_a_lesson_is_walked_with_the_keyboard_alone(app_server, browser):
    """Lesson 1, step 1: Tab to the answer, Space chooses the first option, the down
    arrow the second (nothing is revealed: a choice is not an answer), Enter locks it in
    (the verdict and the numbers appear), Tab to Next, Enter opens step 2; there, the
    same for the next question."""
    ctx, page = _open(browser, app_server.url + "/Lessons?lesson=1&step=1", charts=1)
    focused = ("() => { const e = document.activeElement; "
               "return e ? e.outerHTML.slice(0, 120) : ''; }")

    def tab_to(check_js: str, what: str, limit: int = 120) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(check_js):
                return
        raise AssertionError(f"{limit} Tabs did not reach {what}; focus on "
                             f"{page.evaluate(focused)}")

    radio = ("() => { const e = document.activeElement; return !!e && e.type === 'radio' &&"
             " !!e.closest('[class*=\"st-key-nplk-keep-question\"]'); }")
    next_button = ("() => { const e = document.activeElement; return !!e && "
                   "!!e.closest('.st-key-lesson_next') && e.tagName === 'BUTTON'; }")
    verdict = ("() => [...document.querySelectorAll('[data-testid=\"stAlert\"]')].some("
               "(e) => /Right:|Not quite/.test(e.textContent))")
    checked = ("() => [...document.querySelectorAll('[class*=\"st-key-nplk-keep-question\"]"
               " input[type=radio]')].findIndex((e) => e.checked)")
    try:
        for step in (1, 2):
            assert not page.evaluate(verdict)
            tab_to(radio, "the answer's radio buttons")
            page.keyboard.press("Space")
            page.wait_for_function(f"() => ({checked})() === 0 && ({IDLE_JS})()",
                                   polling=100, timeout=tb.FIRST_CHART_TIMEOUT_MS)
            # the down arrow moves to the next option: chosen, not answered
            page.keyboard.press("ArrowDown")
            page.wait_for_function(f"() => ({checked})() === 1 && ({IDLE_JS})()",
                                   polling=100, timeout=tb.FIRST_CHART_TIMEOUT_MS)
            assert not page.evaluate(verdict), "an arrow key answered"
            assert page.evaluate(f"() => ({radio})()"), "the arrow key lost the focus"
            page.keyboard.press("Enter")          # Enter locks the choice in
            page.wait_for_function(f"() => ({verdict})() && ({IDLE_JS})()", polling=100,
                                   timeout=tb.FIRST_CHART_TIMEOUT_MS)
            page.screenshot(path=str(SHOTS / f"keyboard-step{step}.png"))
            tab_to(next_button, "the Next button")
            page.keyboard.press("Enter")
            tb.wait_url(page, "step", step + 1, timeout_ms=tb.FIRST_CHART_TIMEOUT_MS)
            # (step 2 shows its figure, a matrix, only once answered)
            page.wait_for_function(DRAWN_JS, arg=0, timeout=tb.FIRST_CHART_TIMEOUT_MS,
                                   polling=100)
        assert exception_texts(page) == []
    finally:
        ctx.close()


# --- colour alone, under deuteranopia --------------------------------------------------

_MATRIX = " ".join(" ".join(f"{v:g}" for v in row) + " 0 0" for row in DEUTERANOPIA)
#: the page as a viewer with deuteranopia sees it: an SVG filter on the whole document
FILTER_JS = f"""
() => {{
  if (!document.getElementById('nplk-deuteranopia')) {{
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('width', '0'); svg.setAttribute('height', '0');
    svg.style.position = 'absolute';
    svg.innerHTML = '<filter id="nplk-deuteranopia" color-interpolation-filters="linearRGB">'
      + '<feColorMatrix type="matrix" values="{_MATRIX} 0 0 0 1 0"/></filter>';
    document.body.appendChild(svg);
  }}
  document.documentElement.style.filter = 'url(#nplk-deuteranopia)';
  return getComputedStyle(document.documentElement).filter;
}}
"""

#: each chart's legend as drawn: per entry its text, the line swatch's dash (the drawn
#: dash array in units of Plotly's dash length, max(width, 3) px) and colour, the point
#: swatch's shape (its trace's symbol) and colour (fill, or stroke for a hollow one)
LEGENDS_JS = """
() => [...document.querySelectorAll('.nplk-live-chart.js-plotly-plot')].map((gd) => {
  const entries = [...gd.querySelectorAll('.legend .traces')].map((tr) => {
    const line = tr.querySelector('.legendlines path');
    const pt = tr.querySelector('.legendpoints path.scatterpts');
    const d = tr.__data__ && tr.__data__[0] && tr.__data__[0].trace;
    const out = { name: (tr.querySelector('.legendtext') || {}).textContent || '' };
    if (line && line.getAttribute('d')) {
      const w = parseFloat(getComputedStyle(line).strokeWidth) || 1;
      const unit = Math.max(w, 3);
      const dash = getComputedStyle(line).strokeDasharray;
      out.dash = dash === 'none' ? 'solid' : dash.split(/[ ,]+/).map(
        (v) => Math.round(parseFloat(v) / unit * 2) / 2).join(',');
      out.lineColor = getComputedStyle(line).stroke;
    }
    if (pt) {
      const s = getComputedStyle(pt);
      out.symbol = d && d.marker ? String(d.marker.symbol) : pt.getAttribute('d');
      const hollow = !s.fill || s.fill === 'none' || /^rgba\\(.*,\\s*0\\)$/.test(s.fill);
      out.pointColor = hollow ? s.stroke : s.fill;
    }
    return out;
  }).filter((e) => e.dash !== undefined || e.symbol !== undefined);
  const title = gd._fullLayout && gd._fullLayout.title ? gd._fullLayout.title.text : '';
  return { title: title || '', entries };
})
"""

DEUT_PAGES = [
    ("home", "/", 1),
    ("classification-nn", "/Classification?show_nn=true", 2),
    ("classification-spectra", "/Classification?view=spectra", 2),
    ("classification-solvers", "/Classification?view=convergence&compare_solvers=true", 2),
    ("regression-nn", "/Regression?show_nn=true", 2),
    ("pairwise-lines", "/Pairwise_constraints?pair_lines=10", 2),
    ("scaling-8", "/Scaling?scale_clusters=8", 3),
]


def alike_entries(entries: list[dict]) -> list[str]:
    """The pairs of legend entries told apart by colour alone (for a deuteranope)."""
    bad = []
    for a, b in itertools.combinations(entries, 2):
        if "dash" in a and "dash" in b:
            if a["dash"] == b["dash"] and a.get("symbol") == b.get("symbol"):
                bad.append(f"lines {a['name']!r} and {b['name']!r} (dash {a['dash']}, "
                           f"marker {a.get('symbol')})")
        elif "dash" not in a and "dash" not in b and a.get("symbol") == b.get("symbol"):
            d = deuteranope_delta_e(a["pointColor"], b["pointColor"])
            if d is not None and d < APART:
                bad.append(f"points {a['name']!r} and {b['name']!r} ({a['symbol']}): "
                           f"colours {d:.1f} apart for a deuteranope")
    return bad


def test_alike_entries_finds_colour_alone():
    """The legend check fails on two solid lines, passes a solid and a dotted one, and
    fails on green and pink dots of one shape (17.9 ΔE apart for a deuteranope)."""
    a = {"name": "a", "dash": "solid", "lineColor": "rgb(0, 114, 178)"}
    b = {"name": "b", "dash": "solid", "lineColor": "rgb(213, 94, 0)"}
    assert len(alike_entries([a, b])) == 1
    assert alike_entries([a, {**b, "dash": "1,1"}]) == []
    p = {"name": "p", "symbol": "circle", "pointColor": "rgb(0, 158, 115)"}
    q = {"name": "q", "symbol": "circle", "pointColor": "rgb(204, 121, 167)"}
    assert len(alike_entries([p, q])) == 1
    assert alike_entries([p, {**q, "symbol": "triangle-up"}]) == []


def test_no_legend_tells_entries_apart_by_colour_alone_under_deuteranopia(app_server,
                                                                         browser):
    seen = 0
    problems = {}
    for name, path, charts in DEUT_PAGES:
        ctx, page = _open(browser, app_server.url + path, charts=charts)
        try:
            assert "url" in page.evaluate(FILTER_JS)
            legends = page.evaluate(LEGENDS_JS)
            page.screenshot(path=str(SHOTS / f"deuteranopia-{name}.png"), full_page=True)
            for lg in legends:
                seen += len(lg["entries"])
                bad = alike_entries(lg["entries"])
                if bad:
                    problems[f"{name}: {lg['title']}"] = bad
        finally:
            ctx.close()
    assert seen >= 20, seen          # the legends were read
    assert problems == {}, problems


# --- dark theme: Pairwise's true-class outlines ----------------------------------------

#: the drawn marker colour of every trace named ``names`` on the page's charts
MARKER_COLOURS_JS = """
(names) => [...document.querySelectorAll('.nplk-live-chart.js-plotly-plot')].flatMap(
  (gd) => (gd._fullData || []).filter((t) => names.includes(t.name))
    .map((t) => [t.name, t.marker && t.marker.color]))
"""


def _brightness(color: str) -> float:
    from _colour_vision import rgb

    r, g, b = rgb(color)
    return 0.299 * r + 0.587 * g + 0.114 * b


def test_dark_theme_draws_the_true_class_outlines_light(app_server, browser):
    """On a dark page, Pairwise's true-class outline shapes (dark ink on a light page)
    are drawn light, so they show on the cluster shading; the class colours of the
    Classification page's points stay as they are."""
    for scheme in ("light", "dark"):
        ctx, page = _open(browser, app_server.url + "/Pairwise_constraints", scheme, 2)
        try:
            outlines = page.evaluate(MARKER_COLOURS_JS, ["class −1", "class +1"])
            assert len(outlines) >= 2, outlines
            for name, colour in outlines:
                assert (_brightness(colour) > 160) == (scheme == "dark"), (scheme, name,
                                                                           colour)
        finally:
            ctx.close()
    ctx, page = _open(browser, app_server.url + "/Classification", "dark", 2)
    try:
        points = dict(page.evaluate(MARKER_COLOURS_JS, ["class +1 (train)"]))
        assert points["class +1 (train)"].upper() == "#B2182B", points
    finally:
        ctx.close()
