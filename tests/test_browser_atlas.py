"""Real-browser test of the atlas view ("Where it holds" on Paper results): the region map
of DANK on the clowns is drawn, its hover carries the numbers with intervals, and a
click on one square opens the Classification page with DANK at that σ and C on the
clowns (read from the URL), its decision surface drawn and no exception.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``);
skips when either is missing or no atlas is committed. The
screenshot goes to ``test-artifacts/`` (the docs' pictures come from a command).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from _browser import (
    CLASSIFICATION_PATH,
    FIRST_CHART_TIMEOUT_MS,
    RERUN_TIMEOUT_MS,
    ROOT,
    exception_texts,
    wait_idle,
    wait_surface,
)
from _page_state import CELL_JS

from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_view as AV

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not A.load_atlas(), reason="no committed atlas")]

TITLE = "DANK on clowns"
HOVER_JS = """
([start, i1, i2]) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
    g._fullLayout && g._fullLayout.title && (g._fullLayout.title.text || '') === start);
  return gd ? String(gd.data[0].text[i2][i1]) : null;
}
"""


def test_the_atlas_map_opens_a_clicked_square_on_its_page(app_server, page):
    page.goto(f"{app_server.url}/Paper_results", wait_until="domcontentloaded")
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[TITLE, 0, 0],
                           timeout=FIRST_CHART_TIMEOUT_MS, polling=100)
    wait_idle(page)
    assert not exception_texts(page)
    sigmas = sorted({r["sigma"] for r in A.load_atlas()})
    i1, i2 = sigmas.index(4.5), 2            # σ = 4.5, C = 10 (the third C)
    hover = page.evaluate(HOVER_JS, [TITLE, i1, i2])
    assert hover.startswith("σ = 4.5, C = 10") and "95 % interval" in hover
    assert "at 10 other draws: DANK − plain SVM" in hover
    # a square whose region differs at the other draws is drawn and named unsettled
    held = A.load_atlas(A.table_path("held-out/atlas.csv"))
    grid = AV.atlas_grid(A.load_atlas(), "dank", "clowns", held)
    (j2, j1), *_ = [tuple(ix) for ix in np.argwhere(
        grid.regions == AV.VIEW_REGIONS.index(AV.UNSETTLED))]
    assert "→ unsettled: at the other draws" in page.evaluate(HOVER_JS,
                                                               [TITLE, int(j1), int(j2)])
    ticks = page.evaluate("""(start) => {
      const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
        g._fullLayout && g._fullLayout.title && g._fullLayout.title.text === start);
      return gd.data[0].colorbar.ticktext; }""", TITLE)
    assert ticks[-1] == "unsettled"
    page.locator(".js-plotly-plot").filter(has_text=TITLE).first.scroll_into_view_if_needed()
    art = ROOT / "test-artifacts"
    art.mkdir(exist_ok=True)
    page.screenshot(path=str(art / "atlas-view.png"))
    cell = page.evaluate(CELL_JS, [TITLE, i1, i2])
    assert cell["ticks"][i1] == "4.5" and cell["yticks"][i2] == "10"
    page.mouse.click(cell["x"], cell["y"])
    page.wait_for_url(lambda url: urlparse(url).path.endswith(CLASSIFICATION_PATH),
                      timeout=RERUN_TIMEOUT_MS)
    wait_surface(page)
    wait_idle(page)
    q = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert q["method"] == "dank" and q["dataset"] == "clowns"
    assert float(q["sigma"]) == 4.5 and float(q["C"]) == 10.0
    assert not exception_texts(page)


def test_the_choosers_redraw_the_map_and_a_real_set_says_it_has_no_page(app_server, page):
    from _browser import choose

    page.goto(f"{app_server.url}/Paper_results", wait_until="domcontentloaded")
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[TITLE, 0, 0],
                           timeout=FIRST_CHART_TIMEOUT_MS, polling=100)
    wait_idle(page)
    choose(page, "Method", "KNPL")
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=["KNPL on clowns", 0, 0],
                           timeout=RERUN_TIMEOUT_MS, polling=100)
    choose(page, "Data set", "wine")
    title = "KNPL on wine (classes 1 vs 0, 13 features)"
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[title, 0, 0],
                           timeout=RERUN_TIMEOUT_MS, polling=100)
    wait_idle(page)
    page.locator(".js-plotly-plot").filter(has_text=title).first.scroll_into_view_if_needed()
    cell = page.evaluate(CELL_JS, [title, 3, 1])          # σ = 1, C = 1
    page.mouse.click(cell["x"], cell["y"])
    page.get_by_text("is not one of the pages' data sets").first.wait_for(
        timeout=RERUN_TIMEOUT_MS)
    assert "/Paper_results" in page.url
    assert not exception_texts(page)


def test_the_rule_switch_draws_the_smooth_rules_map_and_its_sentence(app_server, page):
    """A click on "the smooth rule" redraws the map under that rule: its unsettled
    squares named on the colour bar and in their hover, the finding's sentence below."""
    from nplk_lab.model import claims as C

    page.set_viewport_size({"width": 1280, "height": 720})      # a lecture room's projector
    page.goto(f"{app_server.url}/Paper_results", wait_until="domcontentloaded")
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[TITLE, 0, 0],
                           timeout=FIRST_CHART_TIMEOUT_MS, polling=100)
    wait_idle(page)
    page.get_by_text("the smooth rule (an average of all rows; copies none)",
                     exact=True).click()
    title = f"{TITLE}, smooth rule"
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[title, 0, 0],
                           timeout=RERUN_TIMEOUT_MS, polling=100)
    wait_idle(page)
    assert not exception_texts(page)
    held = A.load_atlas(A.table_path("held-out/atlas.csv"))
    grid = AV.smooth_grid(A.load_atlas(), "dank", "clowns", held)
    (j2, j1), *_ = [tuple(ix) for ix in np.argwhere(
        grid.regions == AV.SMOOTH_VIEW_REGIONS.index(AV.UNSETTLED))]
    hover = page.evaluate(HOVER_JS, [title, int(j1), int(j2)])
    assert "smooth rule − plain SVM" in hover and "→ unsettled: at the other draws" in hover
    ticks = page.evaluate("""(start) => {
      const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
        g._fullLayout && g._fullLayout.title && g._fullLayout.title.text === start);
      return gd.data[0].colorbar.ticktext; }""", title)
    assert list(ticks) == list(AV.SMOOTH_REGION_LABELS)
    sentence = page.get_by_text(C.TEXT["smooth_rule"][:80]).first
    sentence.wait_for(timeout=RERUN_TIMEOUT_MS)
    page.locator(".js-plotly-plot").filter(has_text=title).first.scroll_into_view_if_needed()
    art = ROOT / "test-artifacts"
    art.mkdir(exist_ok=True)
    page.screenshot(path=str(art / "atlas-view-smooth.png"))
    sentence.scroll_into_view_if_needed()
    page.screenshot(path=str(art / "atlas-view-smooth-sentence.png"))
    assert not exception_texts(page)
