"""Real-browser test of the eigenfunction maps: open Classification in the
eigen-decay view, click the 2nd eigenvalue's marker on the plot, and see the maps of
eigenfunction j = 2 appear (their title), the URL carry ``eigen_index=2`` and the decay
plot mark j = 2. Then the number input picks j = 4 from the keyboard.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``);
skips when either is missing. Also takes the README's
picture of the maps (``test-artifacts/pictures/eigenmaps.png``; the docs get it from
``python tools/docs_screenshots.py``).
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
    wait_idle,
    wait_surface,
)

# the server, browser and page fixtures of the first browser test

pytestmark = pytest.mark.browser

SCREENSHOT = tb.PICTURES / "eigenmaps.png"

# A Plotly graph by the start of its title: its plot area on screen, its x range and
# the first trace's first two points (the markers of λ₁, λ₂).
GRAPH_JS = """
(start) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
    g._fullLayout && g._fullLayout.title && (g._fullLayout.title.text || '').startsWith(start));
  if (!gd) return null;
  const r = gd.querySelector('.nsewdrag').getBoundingClientRect();
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const t = gd._fullData[0];
  const ys = Array.from(t.y).slice(0, 2).map(Number);
  return {left: r.left, top: r.top, width: r.width, height: r.height,
          x: xa.range.slice(), title: gd._fullLayout.title.text,
          // pixel of (2, λ₂) within the plot area (log y: Plotly's own conversion)
          px2: xa.d2p(2), py2: ya.d2p(Math.log10(ys[1])), shapes: (gd.layout.shapes || []).length,
          marked: (gd.layout.annotations || []).map(a => a.text || '')};
}
"""


def graph(page, start: str):
    return page.evaluate(GRAPH_JS, start)


def wait_title(page, start: str, timeout_ms: int = RERUN_TIMEOUT_MS) -> str:
    page.wait_for_function(f"(s) => ({GRAPH_JS})(s) !== null", arg=start,
                           timeout=timeout_ms, polling=100)
    return graph(page, start)["title"]


def test_clicking_an_eigenvalue_draws_its_eigenfunctions(app_server, page):
    page.goto(app_server.url + CLASSIFICATION_PATH + "?view=spectra",
              wait_until="domcontentloaded")
    wait_surface(page)
    wait_idle(page)
    assert wait_title(page, "Eigenfunction j = 1").startswith("Eigenfunction j = 1 of F × K")
    page.locator(".js-plotly-plot").filter(has_text="Eigen-decay").first \
        .scroll_into_view_if_needed()
    # the decay plot drawn with j = 1 marked, and nothing moving: its rectangle, read
    # next, is where the click lands
    page.wait_for_function(f"() => {{ const g = ({GRAPH_JS})('Eigen-decay');"
                           " return g !== null && g.marked.includes('selected j = 1'); }",
                           timeout=RERUN_TIMEOUT_MS, polling=100)
    tb.wait_still(page)
    spec = graph(page, "Eigen-decay")
    assert spec is not None and "selected j = 1" in spec["marked"]

    # click on the 2nd eigenvalue's marker (of K, the first spectrum drawn)
    page.mouse.click(spec["left"] + spec["px2"], spec["top"] + spec["py2"])
    page.wait_for_function(f"() => ({GRAPH_JS})('Eigenfunction j = 2') !== null",
                           timeout=RERUN_TIMEOUT_MS, polling=100)
    wait_idle(page)
    maps = graph(page, "Eigenfunction j = 2")
    assert maps["title"] == "Eigenfunction j = 2 of F × K, F and K"
    # each chart draws in its own turn: wait for the decay plot's mark, do not assume
    # it was drawn before the maps
    page.wait_for_function(f"() => ({GRAPH_JS})('Eigen-decay').marked"
                           ".includes('selected j = 2')", timeout=RERUN_TIMEOUT_MS,
                           polling=100)
    query = parse_qs(urlparse(page.url).query)
    assert query.get("eigen_index") == ["2"], page.url
    assert not exception_texts(page), exception_texts(page)
    box = page.get_by_label("Eigenvector j", exact=True).and_(
        page.get_by_test_id("stNumberInputField"))
    assert box.input_value() == "2"

    # the keyboard route: type j = 4
    box.fill("4")
    box.press("Enter")
    assert wait_title(page, "Eigenfunction j = 4").startswith("Eigenfunction j = 4")
    wait_idle(page)
    assert parse_qs(urlparse(page.url).query).get("eigen_index") == ["4"]
    assert not exception_texts(page), exception_texts(page)

    # back to j = 2 for the README's picture: the decay plot and the maps below it
    box.fill("2")
    box.press("Enter")
    wait_title(page, "Eigenfunction j = 2")
    wait_idle(page)
    page.mouse.move(5, 5)   # no hover label in the picture
    tb.wait_still(page)
    top = page.locator(".js-plotly-plot").filter(has_text="Eigen-decay").first
    bottom = page.locator(".js-plotly-plot").filter(has_text="Eigenfunction j = 2").first
    a, b = top.bounding_box(), bottom.bounding_box()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "eigenmaps.png"), full_page=True)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    tall = {"width": 1400, "height": int(b["y"] + b["height"] + 40)}
    page.set_viewport_size(tall)
    tb.wait_still(page, tall)
    x0 = max(min(a["x"], b["x"]) - 20, 0)
    page.screenshot(path=str(SCREENSHOT), clip={
        "x": x0, "y": a["y"] - 10, "width": max(a["width"], b["width"]) + 40,
        "height": b["y"] + b["height"] - a["y"] + 20})
    page.set_viewport_size(tb.VIEWPORT)
