"""Real-browser test of the linked views: a click on a training point of
the decision surface selects it (ringed there, framed on the matrix view) and draws its
learned influence below; a click on a row of the matrix heatmap selects that row's
point instead. Then the selection is cleared.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``); skips when either is missing. Also takes the
README's picture of the linked views (``test-artifacts/pictures/influence.png``; the
docs get it from ``python tools/docs_screenshots.py``).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import _browser as tb
import pytest
from _browser import (
    ARTIFACTS,
    CLASSIFICATION_PATH,
    RERUN_TIMEOUT_MS,
    exception_texts,
    settled_surface,
    wait_idle,
    wait_surface,
    wait_url,
)

pytestmark = pytest.mark.browser

SCREENSHOT = tb.PICTURES / "influence.png"

# The surface: its drag rectangle, axis ranges and the training points of one class.
SURFACE_JS = """
(name) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
  if (!gd || !gd._fullLayout || !gd._fullLayout.xaxis) return null;
  const r = gd.querySelector('.nsewdrag').getBoundingClientRect();
  const t = (gd._fullData || []).find(t => t.name === name);
  const ring = (gd._fullData || []).find(t => (t.name || '').startsWith('selected point'));
  return {left: r.left, top: r.top, width: r.width, height: r.height,
          x: gd._fullLayout.xaxis.range.slice(), y: gd._fullLayout.yaxis.range.slice(),
          points: t ? Array.from(t.x, (x, i) => [Number(x), Number(t.y[i])]) : [],
          ring: ring ? ring.name : null};
}
"""

# The influence figure: its title and the starred point (first panel).
INFLUENCE_JS = """
() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => g.layout && g.layout.title &&
         /influence of training point/.test(g.layout.title.text || ''));
  if (!gd) return null;
  const star = (gd._fullData || []).find(t => /^point \\d+$/.test(t.name || ''));
  return {title: gd.layout.title.text, star: star ? star.name : null,
          x: star ? Number(star.x[0]) : null, y: star ? Number(star.y[0]) : null,
          heatmaps: gd.data.filter(t => t.type === 'heatmap').length};
}
"""

# The matrix view (scrolled into view): the first panel's drag rectangle, its row labels
# (the points' indices, in the drawn order) and the framed rows.
MATRIX_JS = """
() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => Array.isArray(g.data) && g.data.some(t => t.type === 'heatmap' && t.name === 'K'));
  if (!gd || !gd._fullLayout) return null;
  gd.scrollIntoView({block: 'center'});
  const heat = gd._fullData.find(t => t.type === 'heatmap' && t.name === 'K');
  const r = gd.querySelector(`.nsewdrag[data-subplot="${heat.xaxis}${heat.yaxis}"]`)
    .getBoundingClientRect();
  const labels = Array.from(heat.y, Number);
  const frames = (gd.layout.shapes || []).filter(
    s => s.line && s.line.color === '#E69F00' && s.yref === heat.yaxis)
    .map(s => [s.y0, s.y1]);
  return {left: r.left, top: r.top, width: r.width, height: r.height, labels, frames};
}
"""


# Where the surface (top) and the influence figure (bottom) are, after scrolling the
# surface to the top of the view.
BOXES_JS = """
() => {
  const graphs = [...document.querySelectorAll('.js-plotly-plot')];
  const surf = graphs.find(g => Array.isArray(g.data) &&
                                g.data.some(t => t.name === 'decision function'));
  const infl = graphs.find(g => g.layout && g.layout.title &&
                                /influence of training point/.test(g.layout.title.text || ''));
  surf.scrollIntoView({block: 'start'});
  const a = surf.getBoundingClientRect(), b = infl.getBoundingClientRect();
  const main = document.querySelector('[data-testid="stMainBlockContainer"]') || surf;
  const m = main.getBoundingClientRect();
  return {left: m.left, width: m.width, top: a.top, bottom: b.bottom};
}
"""


def focus(page) -> int:
    return int(parse_qs(urlparse(page.url).query).get("focus_point", ["-1"])[-1])


def wait_focus(page, value: int) -> None:
    wait_url(page, "focus_point", value)


def wait_influence(page, index: int) -> dict:
    page.wait_for_function(
        f"(i) => {{ const f = ({INFLUENCE_JS})(); return f && f.star === 'point ' + i; }}",
        arg=index, timeout=RERUN_TIMEOUT_MS, polling=50)
    return page.evaluate(INFLUENCE_JS)


def test_click_a_point_then_a_heatmap_row_selects_and_draws_its_influence(app_server, page):
    page.goto(app_server.url + CLASSIFICATION_PATH
              # η = 1: F spans about 0.7-1.4, so the two maps differ visibly
              + "?dataset=clowns&n_samples=60&method=dank&sigma=1.0&C=10.0&eta=1.0",
              wait_until="domcontentloaded")
    wait_surface(page)
    settled_surface(page)
    assert focus(page) == -1
    assert page.evaluate(INFLUENCE_JS) is None

    # 1. click (a little off) a +1 training point near the middle of the plot
    s = page.evaluate(SURFACE_JS, "class +1 (train)")
    (x0, x1), (y0, y1) = s["x"], s["y"]

    def frac(p):
        return (p[0] - x0) / (x1 - x0), (y1 - p[1]) / (y1 - y0)

    target = min(s["points"], key=lambda p: sum((f - 0.5) ** 2 for f in frac(p)))
    fx, fy = frac(target)
    page.mouse.click(s["left"] + fx * s["width"] + 2, s["top"] + fy * s["height"] - 2)
    page.wait_for_function("() => new URLSearchParams(location.search)"
                           ".get('focus_point') !== '-1'", timeout=RERUN_TIMEOUT_MS)
    wait_idle(page)
    i = focus(page)
    assert i >= 0
    inf = wait_influence(page, i)
    # the right point: the star of the influence figure is the clicked training point
    assert inf["x"] == pytest.approx(target[0], abs=1e-4)
    assert inf["y"] == pytest.approx(target[1], abs=1e-4)
    # the default view colours what learning changed (one map; "Learned vs plain": two)
    assert inf["heatmaps"] == 1 and "DANK" in inf["title"]
    page.wait_for_function(f"() => ({SURFACE_JS})('x').ring === 'selected point {i}'",
                           timeout=RERUN_TIMEOUT_MS, polling=50)
    # the matrix is drawn after the surface (charts draw in turn): wait for its frame
    page.wait_for_function(f"() => {{ const m = ({MATRIX_JS})(); "
                           "return m && m.frames.length > 0; }",
                           timeout=RERUN_TIMEOUT_MS, polling=50)
    m = page.evaluate(MATRIX_JS)
    pos = m["labels"].index(i)
    assert m["frames"] == [[pos - 0.5, pos + 0.5]]
    assert not exception_texts(page), exception_texts(page)
    page.screenshot(path=str(ARTIFACTS / "influence-point.png"), full_page=True)

    # the README's screenshot: the surface with the ring and the influence below
    page.mouse.move(5, 5)          # no modebar, no hover label in the picture
    tall = {"width": 1400, "height": 2000}
    page.set_viewport_size(tall)
    tb.wait_still(page, tall)      # plots relaid out for the new viewport, labels gone
    box = page.evaluate(BOXES_JS)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), clip={
        "x": box["left"] - 20, "y": max(box["top"] - 60, 0), "width": box["width"] + 40,
        "height": box["bottom"] - max(box["top"] - 60, 0) + 70})
    page.set_viewport_size(tb.VIEWPORT)
    tb.wait_still(page, tb.VIEWPORT)   # where MATRIX_JS reads the rows is where they stay

    # 2. click a row of the matrix heatmap (another point, well away from the first)
    m = page.evaluate(MATRIX_JS)
    n = len(m["labels"])
    row = (pos + n // 2) % n
    page.mouse.click(m["left"] + 0.5 * m["width"],
                     m["top"] + (row + 0.5) / n * m["height"])
    j = m["labels"][row]
    wait_focus(page, j)
    inf = wait_influence(page, j)
    assert f"point {j}" in inf["title"]
    page.wait_for_function(
        f"(p) => {{ const m = ({MATRIX_JS})(); return m && m.frames.length === 1 && "
        "m.frames[0][0] === p - 0.5; }", arg=row, timeout=RERUN_TIMEOUT_MS, polling=50)
    page.wait_for_function(f"() => ({SURFACE_JS})('x').ring === 'selected point {j}'",
                           timeout=RERUN_TIMEOUT_MS, polling=50)
    page.screenshot(path=str(ARTIFACTS / "influence-row.png"), full_page=True)
    assert not exception_texts(page), exception_texts(page)

    # 3. Clear selection
    page.get_by_role("button", name="Clear selection").click()
    wait_focus(page, -1)
    page.wait_for_function(f"() => ({INFLUENCE_JS})() === null", timeout=RERUN_TIMEOUT_MS)
    # the surface draws after its run: read the ring once it is drawn from focus_point=-1
    settled_surface(page)
    assert page.evaluate(SURFACE_JS, "x")["ring"] is None
    assert not exception_texts(page), exception_texts(page)
