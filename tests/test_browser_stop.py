"""Real-browser test of a long fit: the last figure stays in place while it runs, a
progress line with a Stop button appears above it, and Stop ends the fit (the figure
stays, a note says it stopped, and the same fit is not started again). Closing the tab
mid-fit or mid-sweep stops the work on the server: its log says that the page's work
ended, and for a fit in a worker process, at which iteration the worker's job ended.

A fit of the worker pool lasts one to three seconds here, so "while it runs" is
made to last: the server's test hook holds a fit at each iteration it reports while
the test's hold file exists, until the page has let go of the job (its stop flag).
The page, the server and the stop flag work as ever meanwhile; only the solver waits,
so the fit cannot finish before the Stop press or the closed tab reaches the server,
however fast or loaded the machine. (Pausing the pool's processes with SIGSTOP once the
iteration showed left a window in which a fast fit could end first.)

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``); skips when either is missing.
"""

from __future__ import annotations

import contextlib
import os
import re

import _browser as tb
import pytest
from _browser import (
    ARTIFACTS,
    CLASSIFICATION_PATH,
    exception_texts,
    settled_surface,
    surface_fingerprint,
    wait_charts_drawn,
    wait_idle,
    wait_surface,
)

# the server, browser and page fixtures of the first browser test

pytestmark = pytest.mark.browser

STOP_BUTTON = 'button:has-text("Stop")'
POOL_ON = os.environ.get("NPLK_LAB_WORKERS", "").strip() != "0"  # the server's setting


@contextlib.contextmanager
def fits_held(server):
    """Hold every fit the server's pool runs for the block: while the server's hold file
    exists, a fit in a worker waits at each iteration it reports until the page lets go
    of it (its stop flag; the test hook of ``nplk_lab.serve.workers``), so it cannot
    finish before the Stop press or the closed tab reaches the server, however fast or
    loaded the machine. The file goes when the block ends, however it ends. With the
    pool off (``NPLK_LAB_WORKERS=0``) the fit runs in the page's thread and is not held."""
    server.hold_file.touch()
    try:
        yield POOL_ON
    finally:
        server.hold_file.unlink(missing_ok=True)


def test_long_fit_keeps_the_figure_and_stops_on_request(app_server, page):
    # 300 points, the accelerated solver first (fast), then plain projected gradient
    # with a 5,000-iteration cap: several seconds of iterations, inside the work budget
    # (a "patient" fit: above it the lab would fit a subsample instead)
    page.goto(app_server.url + CLASSIFICATION_PATH + "?n_samples=300&max_iter=5000",
              wait_until="domcontentloaded")
    wait_surface(page)
    before = settled_surface(page, timeout_s=120)
    # the surface can be final while the chart below it (the matrix view) is still an
    # empty box: count the plots once every chart of this run has drawn
    n_charts = wait_charts_drawn(page)
    assert n_charts >= 2, "the surface and the view below it"

    mark = app_server.output.mark()
    # the fit is in a worker: it waits there until the page has let go of it
    with fits_held(app_server):
        tb.choose(page, "Solver", "projected gradient")
        page.wait_for_selector(STOP_BUTTON, timeout=60_000)
        line = page.locator('[data-testid="stCaptionContainer"]').filter(
            has_text=re.compile(r"Fitting DANK: iteration \d+")).first
        line.wait_for(state="visible", timeout=30_000)  # redrawn at each report
        # the figure of the previous fit is still on screen, not replaced by a progress
        # bar. Waited for, not read at once: in one full-suite run the surface was
        # briefly absent here (the component's plot re-drawn as the progress line
        # appeared above it); while the worker is held the fit cannot finish, so the
        # only figure that can come back is the previous one.
        page.wait_for_function(
            f"(b) => ({tb.SURFACE_FINGERPRINT_JS})() === b && "
            f"document.querySelectorAll('.js-plotly-plot').length === {n_charts}",
            arg=before, timeout=30_000, polling=50)
        page.screenshot(path=str(ARTIFACTS / "stop-while-running.png"))

        page.locator(STOP_BUTTON).first.click()
        page.get_by_text("stopped; the last result stays on screen").first.wait_for(
            timeout=60_000)
        wait_idle(page, timeout_ms=60_000)
        page.screenshot(path=str(ARTIFACTS / "stop-after.png"))
        assert surface_fingerprint(page) == before
        assert page.locator(STOP_BUTTON).count() == 0
        assert not exception_texts(page), exception_texts(page)
    # the Stop press ended the fit, not a finish that came first
    assert not [ln for ln in app_server.output.lines(mark)
                if "Fitting DANK finished" in ln]
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
# A fit runs in a worker process of the server (nplk_lab/serve/workers.py): the page's end
# tells its solver to stop, and the server logs when the job ended and at which
# iteration; the fit is held at its iterations until the page has let go of the job
# (fits_held). A sweep runs its fits in the page's own thread, where nothing is held:
# ten fits of about a second each here, inside the budget (a "patient" sweep), so the
# close has seconds to arrive; the exception ends them.
LONG_WORK = {
    # (link, progress label, whether the work is a job of the worker pool)
    "classification fit": ("/Classification?n_samples=300&max_iter=5000&solver=pg&seed=7"
                           "&sigma=0.3",
                           "Fitting DANK", True),
    "sensitivity sweep": ("/Sensitivity?n_samples=300&sweep_points=10&sweep_repeats=1"
                          "&max_iter=5000&solver=pg&seed=7", "Sweeping", False),
}
WORK_TIMEOUT_S = 180  # only bounds a hang on a loaded machine


@pytest.mark.parametrize("work", list(LONG_WORK))
def test_a_closed_tab_stops_its_work(app_server, page, work):
    """Closing the tab mid-work stops the work itself, not only the page's wait for it.

    Every step waits on a line the server logs when it happens: the interruption (a
    line saying the work finished instead fails the test at once), then the page's
    progress block saying its work ended with it (the exception has left the fit or the
    sweep, so none of it runs any more in the page's thread), and, for a fit in a worker
    process, the line saying the job ended and at which iteration: the next one after it
    was told to stop, not the 5,000th."""
    path, label, in_pool = LONG_WORK[work]
    log = app_server.output
    mark = log.mark()
    ctx = page.context.browser.new_context(viewport=tb.VIEWPORT)
    tab = ctx.new_page()
    with fits_held(app_server) if in_pool else contextlib.nullcontext() as held:
        tab.goto(app_server.url + path, wait_until="domcontentloaded")
        running = tab.locator('[data-testid="stCaptionContainer"]').filter(
            has_text=re.compile(re.escape(label) + r".*: .*(iteration|fit) \d+"))
        running.first.wait_for(state="visible", timeout=120_000)
        if held:  # (a picture of the running page costs nothing while it waits)
            tab.screenshot(path=str(ARTIFACTS / f"closed-tab-before-{work.split()[0]}.png"))
        assert not [ln for ln in log.lines(mark) if "interrupted" in ln]
        ctx.close()  # the tab goes away mid-computation

        # the server logs the interruption of this work, for the closed session
        line = log.wait_line(
            lambda ln: label in ln and ("interrupted (the run was stopped" in ln
                                        or " finished after " in ln) and ln,
            start=mark, timeout_s=WORK_TIMEOUT_S, what=f"interruption of {label!r}")
        assert "interrupted" in line, f"the work finished before the tab closed: {line}"
        session = line.rsplit("; session ", 1)[1].strip()
        # ... the page's work ended with the interruption, in that session (for a fit,
        # the page has given up its job: the job's stop flag is set)
        log.wait_line(
            lambda ln: label in ln and "its work ended with the interruption" in ln
            and ln.endswith(f"; session {session}"),
            start=mark, timeout_s=WORK_TIMEOUT_S, what=f"the end of {label!r}'s work")
    if in_pool and POOL_ON:
        # ... its worker, resumed, stopped the solver at its next iteration, and the job
        # ended
        ended = log.wait_line(
            lambda ln: ln.endswith(f"; session {session}") and re.search(
                r"A fit nobody waits for ended at iteration (\d+) \(told to stop at "
                r"iteration (\d+)\)", ln),
            start=mark, timeout_s=WORK_TIMEOUT_S, what="the end of the fit's job")
        at_end, told = int(ended[1]), int(ended[2])
        assert told <= at_end <= told + 2, ended[0]
        assert at_end < 5000, ended[0]
    after = log.lines(mark)
    assert not [ln for ln in after if label in ln and "finished" in ln], after
