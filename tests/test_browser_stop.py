"""Real-browser test of a long fit: the last figure stays in place while it runs, a
progress line with a Stop button appears above it, and Stop ends the fit (the figure
stays, a note says it stopped, and the same fit is not started again). Closing the tab
mid-fit or mid-sweep stops the work on the server: its log says that the page's work
ended, and for a fit in a worker process, at which iteration the worker's job ended.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing.
"""

from __future__ import annotations

import os
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
    # nothing starts the fit again: not a rerun either (Streamlit's "r" key reruns the
    # page; the observer sees the request, and the page comes back to "not running" only
    # when the server has run it: the wait is for that run, not for a window of time)
    tb.count_runs(page)
    page.locator("body").press("r")
    tb.wait_counted_run(page, timeout_ms=60_000)
    assert page.locator(STOP_BUTTON).count() == 0
    assert page.get_by_text("stopped; the last result stays on screen").count() >= 1
    assert surface_fingerprint(page) == before


# A closed tab stops its work: Streamlit asks the session's script to stop when its
# WebSocket closes, and the running fit's next progress report (a Streamlit call, every
# 0.15 s) raises there; the lab logs it ("... interrupted (the run was stopped ...)").
# A fit runs in a worker process of the server (nplk_lab/ui/workers.py): the page's end
# tells its solver to stop, and the server logs when the job ended and at which
# iteration. A sweep runs its fits in the page's own thread: the exception ends them.
# Each link asks for seconds of work inside the budget (a "patient" fit or sweep).
LONG_WORK = {
    # (link, progress label, whether the work is a job of the worker pool)
    "classification fit": ("/Classification?n_samples=300&max_iter=5000&solver=pg&seed=7",
                           "Fitting DANK", True),
    "sensitivity sweep": ("/Sensitivity?n_samples=300&sweep_points=5&sweep_repeats=1"
                          "&max_iter=5000&solver=pg&seed=7", "Sweeping", False),
}
POOL_ON = os.environ.get("NPLK_LAB_WORKERS", "").strip() != "0"  # the server's setting
WORK_TIMEOUT_S = 180  # only bounds a hang on a loaded machine


@pytest.mark.parametrize("work", list(LONG_WORK))
def test_a_closed_tab_stops_its_work(app_server, page, work):
    """Closing the tab mid-work stops the work itself, not only the page's wait for it.

    Every step waits on a line the server logs when it happens: the interruption, then
    the page's progress block saying its work ended with it (the exception has left the
    fit or the sweep, so none of it runs any more in the page's thread), and, for a fit
    in a worker process, the line saying the job ended and at which iteration: the next
    one after it was told to stop, not the 5,000th."""
    path, label, in_pool = LONG_WORK[work]
    log = app_server.output
    mark = log.mark()
    ctx = page.context.browser.new_context(viewport=tb.VIEWPORT)
    tab = ctx.new_page()
    tab.goto(app_server.url + path, wait_until="domcontentloaded")
    running = tab.locator('[data-testid="stCaptionContainer"]').filter(
        has_text=re.compile(re.escape(label) + r".*: .*(iteration|fit) \d+"))
    running.first.wait_for(state="visible", timeout=120_000)
    tab.screenshot(path=str(ARTIFACTS / f"closed-tab-before-{work.split()[0]}.png"))
    assert not [ln for ln in log.lines(mark) if "interrupted" in ln]
    ctx.close()  # the tab goes away mid-computation

    # the server logs the interruption of this work, for the closed session
    line = log.wait_line(
        lambda ln: label in ln and "interrupted (the run was stopped" in ln and ln,
        start=mark, timeout_s=WORK_TIMEOUT_S, what=f"interruption of {label!r}")
    session = line.rsplit("; session ", 1)[1].strip()
    if in_pool and POOL_ON:
        # ... its worker's solver stopped at its next iteration, and the job ended
        ended = log.wait_line(
            lambda ln: ln.endswith(f"; session {session}") and re.search(
                r"A fit nobody waits for ended at iteration (\d+) \(told to stop at "
                r"iteration (\d+)\)", ln),
            start=mark, timeout_s=WORK_TIMEOUT_S, what="the end of the fit's job")
        at_end, told = int(ended[1]), int(ended[2])
        assert told <= at_end <= told + 2, ended[0]
        assert at_end < 5000, ended[0]
    # ... the page's work ended with the interruption, in that session
    log.wait_line(
        lambda ln: label in ln and "its work ended with the interruption" in ln
        and ln.endswith(f"; session {session}"),
        start=mark, timeout_s=WORK_TIMEOUT_S, what=f"the end of {label!r}'s work")
    after = log.lines(mark)
    assert not [ln for ln in after if label in ln and "finished" in ln], after
