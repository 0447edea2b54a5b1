"""Real-browser test of the two-parameter maps: open Sensitivity with a σ × C link for
DANK, wait for the maps, click one cell of the score map and land on the Classification
page with DANK at that cell's σ and C (read from the URL and the page's sliders), with
its decision surface drawn and no exception.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``); skips when either is missing. Also takes the
docs' picture of the page (``test-artifacts/pictures/maps-page.png``; the docs get it
from ``python tools/docs_screenshots.py``).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlparse

import _browser as tb
import pytest
from _browser import (
    CLASSIFICATION_PATH,
    FIRST_CHART_TIMEOUT_MS,
    RERUN_TIMEOUT_MS,
    exception_texts,
    wait_idle,
    wait_surface,
)
from _page_state import CELL_JS

import nplk_lab.model as lab

pytestmark = pytest.mark.browser

SCREENSHOT = tb.PICTURES / "maps-page.png"
QUERY = {"sweep_method": "dank", "sweep_param": "sigma", "sweep_param2": "C",
         "sweep_points": "3", "sweep_points2": "3", "sweep_repeats": "1",
         "n_samples": "40", "dataset": "clowns"}


def test_clicking_a_map_cell_opens_the_method_in_that_state(app_server, page):
    sigmas = lab.sweep_values("sigma", None, None, 3)
    cs = lab.sweep_values("C", None, None, 3)
    page.goto(f"{app_server.url}/Sensitivity?{urlencode(QUERY)}",
              wait_until="domcontentloaded")
    title = "DANK: test accuracy"
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[title, 0, 0],
                           timeout=FIRST_CHART_TIMEOUT_MS, polling=100)
    wait_idle(page)
    assert not exception_texts(page)
    page.get_by_text("1-nearest-neighbour test accuracy").first.wait_for()
    for other in ("DANK − SVM", "F's own share: F off − SVM"):
        page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null", arg=[other, 0, 0],
                               timeout=RERUN_TIMEOUT_MS, polling=100)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    i1, i2 = 1, 2   # the middle σ, the largest C
    page.locator(".js-plotly-plot").filter(has_text=title).first.scroll_into_view_if_needed()
    cell = page.evaluate(CELL_JS, [title, i1, i2])
    assert cell["ticks"] == [f"{v:.4g}" for v in sigmas]
    page.mouse.click(cell["x"], cell["y"])
    page.wait_for_url(lambda url: urlparse(url).path.endswith(CLASSIFICATION_PATH),
                      timeout=RERUN_TIMEOUT_MS)
    wait_surface(page)
    wait_idle(page)
    q = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert q["method"] == "dank"
    assert float(q["sigma"]) == float(sigmas[i1]) and float(q["C"]) == float(cs[i2])
    assert q["n_samples"] == "40" and q["dataset"] == "clowns"
    assert not exception_texts(page)


def test_a_map_fills_in_live_and_stop_keeps_the_cells_done(app_server, page):
    # 10 × 10 values × 3 seeds of DANK at n = 200: long enough to stop half-way
    query = {**QUERY, "sweep_points": "10", "sweep_points2": "10", "sweep_repeats": "3",
             "n_samples": "200", "seed": "11"}
    page.goto(f"{app_server.url}/Sensitivity?{urlencode(query)}",
              wait_until="domcontentloaded")
    page.wait_for_selector('button:has-text("Stop")', timeout=FIRST_CHART_TIMEOUT_MS)
    # the score map is drawn while the cells come in: "(k of 300 fits)" in its title
    partial = page.wait_for_function(
        """() => [...document.querySelectorAll('.js-plotly-plot')].map(g =>
             (g._fullLayout && g._fullLayout.title && g._fullLayout.title.text) || '')
             .find(t => /^DANK: test accuracy \\(\\d+ of 300 fits\\)$/.test(t)) || null""",
        timeout=120_000, polling=100).json_value()
    done_then = int(partial.split("(")[1].split()[0])
    assert 0 < done_then < 300
    page.locator('button:has-text("Stop")').first.click()
    wait_idle(page, timeout_ms=120_000)
    note = page.get_by_text(re.compile(r"Map stopped: the \d+ of 300 fits done so far"))
    note.first.wait_for(timeout=60_000)
    kept = int(re.search(r"the (\d+) of 300", note.first.inner_text()).group(1))
    assert done_then <= kept < 300
    page.wait_for_function(f"(a) => ({CELL_JS})(a) !== null",
                           arg=["DANK: test accuracy", 0, 0], timeout=RERUN_TIMEOUT_MS,
                           polling=100)
    assert not exception_texts(page)
