"""Paper results at 1280 × 720 in Chromium: the table of verdicts fits the page — it
ends inside the window, the page does not scroll sideways — and every cell shows its
whole text, wrapped onto several lines (a data grid's fixed rows cut the longer cells at
their edge; the table is plain text in Markdown now). A screenshot goes to
``test-artifacts/paper-results-1280.png``.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``);
skips when either is missing or no results file is
committed."""

from __future__ import annotations

import pytest
from _browser import FIRST_CHART_TIMEOUT_MS, ROOT, exception_texts, wait_idle

from nplk_lab.model import presets as pr

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(pr.load_paper_results()[0] is None,
                                 reason="no committed reproduction results")]

#: the verdicts' table (the first table whose header names the verdict): its box, the
#: window, and every cell whose text does not fit the cell
TABLE_JS = """
() => {
  const t = [...document.querySelectorAll('[data-testid="stMarkdown"] table')].find(
    (e) => [...e.querySelectorAll('th')].some((h) => h.textContent.trim() === 'verdict'));
  if (!t) return null;
  const box = t.getBoundingClientRect();
  const cut = [...t.querySelectorAll('td, th')].filter(
    (c) => c.scrollWidth > c.clientWidth + 1 || c.scrollHeight > c.clientHeight + 1)
    .map((c) => c.textContent.slice(0, 40));
  return {left: box.left, right: box.right, viewport: window.innerWidth,
          pageWidth: document.documentElement.scrollWidth,
          rows: t.querySelectorAll('tbody tr').length, cut};
}
"""


def test_the_verdict_table_fits_the_page_at_1280(app_server, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_server.url}/Paper_results", wait_until="domcontentloaded")
    page.wait_for_function(f"() => ({TABLE_JS})() !== null", timeout=FIRST_CHART_TIMEOUT_MS,
                           polling=100)
    wait_idle(page)
    assert not exception_texts(page)
    table = page.evaluate(TABLE_JS)
    assert table["rows"] == len(pr.load_paper_results()[0]["rows"]), table
    assert table["right"] <= table["viewport"], table
    assert table["pageWidth"] <= table["viewport"], table     # no sideways scrolling
    assert table["cut"] == [], table                           # every cell whole
    art = ROOT / "test-artifacts"
    art.mkdir(exist_ok=True)
    page.screenshot(path=str(art / "paper-results-1280.png"))
