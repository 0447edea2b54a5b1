"""Real-browser test of a long fit: the last figure stays in place while it runs, a
progress line with a Stop button appears above it, and Stop ends the fit (the figure
stays, a note says it stopped, and the same fit is not started again).

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing.
"""

from __future__ import annotations

import re

import pytest
import test_browser as tb
from test_browser import (
    ARTIFACTS,
    CLASSIFICATION_PATH,
    exception_texts,
    settled_surface,
    surface_fingerprint,
    wait_idle,
    wait_surface,
)

# the server, browser and page fixtures of the first browser test
chromium_path, app_server, page = tb.chromium_path, tb.app_server, tb.page

pytestmark = pytest.mark.browser

STOP_BUTTON = 'button:has-text("Stop")'


def _choose(page, label: str, option: str) -> None:
    box = page.locator('[data-testid="stSelectbox"]').filter(
        has=page.get_by_text(label, exact=True)).first
    choice = page.get_by_role("option", name=re.compile("^" + re.escape(option))).first
    for _ in range(3):  # a click can land while the box re-renders: it then only focuses
        box.click()
        try:
            choice.wait_for(timeout=5_000)
            break
        except Exception:  # noqa: BLE001 (Playwright's TimeoutError): click again
            continue
    choice.click()


def test_long_fit_keeps_the_figure_and_stops_on_request(app_server, page):
    # 300 points, the accelerated solver first (fast), then plain projected gradient
    # with a 5,000-iteration cap: several seconds of iterations, inside the work budget
    # (a "patient" fit: above it the lab would fit a subsample instead)
    page.goto(app_server.url + CLASSIFICATION_PATH + "?n_samples=300&max_iter=5000",
              wait_until="domcontentloaded")
    wait_surface(page)
    before = settled_surface(page, timeout_s=120)
    n_charts = page.locator(".js-plotly-plot").count()

    _choose(page, "Solver", "projected gradient")
    page.wait_for_selector(STOP_BUTTON, timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "stop-while-running.png"))
    line = page.locator('[data-testid="stCaptionContainer"]').filter(
        has_text=re.compile(r"Fitting DANK: iteration \d+")).first
    line.wait_for(state="visible", timeout=30_000)  # redrawn at each report
    # the figure of the previous fit is still on screen, not replaced by a progress bar
    assert surface_fingerprint(page) == before
    assert page.locator(".js-plotly-plot").count() == n_charts

    page.locator(STOP_BUTTON).first.click()
    wait_idle(page, timeout_ms=60_000)
    page.get_by_text("stopped; the last result stays on screen").first.wait_for(
        timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "stop-after.png"))
    assert surface_fingerprint(page) == before
    assert page.locator(STOP_BUTTON).count() == 0
    assert not exception_texts(page), exception_texts(page)
    # nothing restarts by itself: the app stays idle with the same figure
    page.wait_for_timeout(1500)
    wait_idle(page, timeout_ms=5_000)
    assert page.locator(STOP_BUTTON).count() == 0
    assert surface_fingerprint(page) == before
