"""Paper results at 1280 × 720 in Chromium (issue 31, point 2): the table of verdicts
fits the page — every column it shows is inside the grid's visible width, with no
horizontal scrolling — and its longer cells wrap onto several lines instead of being
cut at the column edge. A screenshot goes to ``test-artifacts/paper-results-1280.png``.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing or no results file is
committed."""

from __future__ import annotations

import pytest
import test_browser as tb
from test_browser import FIRST_CHART_TIMEOUT_MS, ROOT, exception_texts, wait_idle

from nplk_lab.model import presets as pr

chromium_path, app_server, page = tb.chromium_path, tb.app_server, tb.page

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(pr.load_paper_results()[0] is None,
                                 reason="no committed reproduction results")]

#: the grid's visible width, the width its columns need, and its place on the page
GRID_JS = """
() => {
  // the verdicts' table comes first on the page (the atlas view's table is further down)
  const d = document.querySelector("[data-testid='stDataFrame']");
  if (!d) return null;
  const sc = d.querySelector('.dvn-scroller');
  if (!sc) return null;
  const box = d.getBoundingClientRect();
  return {scrollWidth: sc.scrollWidth, clientWidth: sc.clientWidth,
          left: box.left, right: box.right, viewport: window.innerWidth};
}
"""


def test_the_verdict_table_fits_the_page_at_1280(app_server, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_server.url}/Paper_results", wait_until="domcontentloaded")
    page.wait_for_function(f"() => ({GRID_JS})() !== null", timeout=FIRST_CHART_TIMEOUT_MS,
                           polling=100)
    wait_idle(page)
    assert not exception_texts(page)
    grid = page.evaluate(GRID_JS)
    # the columns need no more width than the grid shows (1 px of rounding allowed)
    assert grid["scrollWidth"] <= grid["clientWidth"] + 1, grid
    assert grid["right"] <= grid["viewport"], grid
    art = ROOT / "test-artifacts"
    art.mkdir(exist_ok=True)
    page.locator("[data-testid='stDataFrame']").first.scroll_into_view_if_needed()
    page.screenshot(path=str(art / "paper-results-1280.png"))
