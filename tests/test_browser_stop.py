"""Real-browser test of a long fit: the last figure stays in place while it runs, a
progress line with a Stop button appears above it, and Stop ends the fit (the figure
stays, a note says it stopped, and the same fit is not started again). Closing the tab
mid-fit or mid-sweep stops the work on the server (its log says so, its CPU goes quiet).

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing.
"""

from __future__ import annotations

import os
import re
import time

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


def test_long_fit_keeps_the_figure_and_stops_on_request(app_server, page):
    # 300 points, the accelerated solver first (fast), then plain projected gradient
    # with a 5,000-iteration cap: several seconds of iterations, inside the work budget
    # (a "patient" fit: above it the lab would fit a subsample instead)
    page.goto(app_server.url + CLASSIFICATION_PATH + "?n_samples=300&max_iter=5000",
              wait_until="domcontentloaded")
    wait_surface(page)
    before = settled_surface(page, timeout_s=120)
    n_charts = page.locator(".js-plotly-plot").count()

    tb.choose(page, "Solver", "projected gradient")
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
    page.wait_for_timeout(1500)    # a window for a restart to show, then idle again
    wait_idle(page)
    assert page.locator(STOP_BUTTON).count() == 0
    assert surface_fingerprint(page) == before


# A closed tab stops its work: Streamlit asks the session's script to stop when its
# WebSocket closes, and the running fit's next progress report (a Streamlit call, every
# 0.15 s) raises there; the lab logs it ("... interrupted (the session stopped ...)").
# Each link asks for seconds of work inside the budget (a "patient" fit or sweep).
LONG_WORK = {
    "classification fit": ("/Classification?n_samples=300&max_iter=5000&solver=pg&seed=7",
                           "Fitting DANK"),
    "sensitivity sweep": ("/Sensitivity?n_samples=300&sweep_points=5&sweep_repeats=1"
                          "&max_iter=5000&solver=pg&seed=7", "Sweeping"),
}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _log_lines(server, start: int) -> list[str]:
    return server.log_path.read_text(errors="replace")[start:].splitlines()


@pytest.mark.parametrize("work", list(LONG_WORK))
def test_a_closed_tab_stops_its_work(app_server, page, work):
    path, label = LONG_WORK[work]
    if not os.path.exists(f"/proc/{app_server.proc.pid}/stat"):
        pytest.skip("needs Linux /proc to read the server's CPU time")
    mark = len(app_server.log_path.read_text(errors="replace"))
    ctx = page.context.browser.new_context(viewport=tb.VIEWPORT)
    tab = ctx.new_page()
    tab.goto(app_server.url + path, wait_until="domcontentloaded")
    running = tab.locator('[data-testid="stCaptionContainer"]').filter(
        has_text=re.compile(re.escape(label) + r".*: .*(iteration|fit) \d+"))
    running.first.wait_for(state="visible", timeout=120_000)
    tab.screenshot(path=str(ARTIFACTS / f"closed-tab-before-{work.split()[0]}.png"))
    assert not [ln for ln in _log_lines(app_server, mark) if "interrupted" in ln]
    ctx.close()  # the tab goes away mid-computation

    # the server logs the interruption of this work, for the closed session
    def interrupted():
        return [ln for ln in _log_lines(app_server, mark)
                if label in ln and "interrupted (the session stopped" in ln]
    assert wait_until(interrupted, timeout_s=180), (
        "no interruption logged:\n" + "\n".join(_log_lines(app_server, mark)))
    # ... and the work did not go on in the background: the server falls quiet (a fit
    # still running would keep about one core busy until it finished, and then log
    # "finished"), and once it is quiet no "finished" line for this work was written
    assert wait_until(lambda: _quiet(app_server.proc.pid), timeout_s=180), \
        "the server never fell quiet after the tab closed"
    after = _log_lines(app_server, mark)
    assert not [ln for ln in after if label in ln and "finished" in ln], after


def wait_until(condition, *, timeout_s: float, poll_s: float = 0.1):
    """Poll ``condition`` until it returns something truthy (returned) or ``timeout_s``
    passes (None). The timeout only bounds a hang; passing never depends on speed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(poll_s)
    return None


def _quiet(pid: int, window_s: float = 1.0, max_share: float = 0.25) -> bool:
    """Whether the process used under ``max_share`` of one core over a ``window_s``
    sample (a fit uses about a whole core; the idle server next to nothing)."""
    c0, t0 = _cpu_seconds(pid), time.monotonic()
    time.sleep(window_s)
    return (_cpu_seconds(pid) - c0) / (time.monotonic() - t0) < max_share
