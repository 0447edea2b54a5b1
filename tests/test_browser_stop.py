"""Real-browser test of a long fit: the last figure stays in place while it runs, a
progress line with a Stop button appears above it, and Stop ends the fit (the figure
stays, a note says it stopped, and the same fit is not started again). Closing the tab
mid-fit or mid-sweep stops the work on the server (its log says so, and its threads and
those of its fit workers fall quiet).

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing.
"""

from __future__ import annotations

import os
import re

import pytest
import test_browser as tb
from _waits import wait_for
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


def _process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (Linux /proc): the server and its workers."""
    parents: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
            parents.setdefault(ppid, []).append(int(d))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += parents.get(pid, [])
    return tree


def _runnable_threads(root: int) -> list[str]:
    """The threads of the server and its worker processes that are runnable (state R,
    or D: in the kernel on their behalf), as ``"pid/tid (name) state"``."""
    busy = []
    for pid in _process_tree(root):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                stat = open(f"/proc/{pid}/task/{tid}/stat").read()
            except OSError:
                continue
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            state = stat.rsplit(")", 1)[1].split()[0]
            if state in ("R", "D"):
                busy.append(f"{pid}/{tid} ({name}) {state}")
    return busy


@pytest.mark.parametrize("work", list(LONG_WORK))
def test_a_closed_tab_stops_its_work(app_server, page, work):
    """Closing the tab mid-work stops the work itself, not only the page's wait for it.

    Every step waits on something the server does: its log line for the interruption
    (and, for a fit in a worker process, the line saying the job ended and at which
    iteration: the next one after it was told to stop, not the 5,000th), then a moment
    when no thread of the server or of its worker processes is runnable. That last one
    is a state, not a sample of CPU over a time window: a thread that computes is
    runnable (``R``) whether or not it has a core at that instant (a busy neighbour only
    makes it wait in the run queue), while an idle server's threads sleep in their
    waits; so while a fit or sweep goes on no such moment comes, and once one does
    nothing of this work is left. Waiting for that moment polls (nothing announces it);
    its deadline only bounds a hang."""
    path, label, in_pool = LONG_WORK[work]
    if not os.path.exists(f"/proc/{app_server.proc.pid}/task"):
        pytest.skip("needs Linux /proc to read the server's threads")
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
    # ... and nothing of it goes on: a moment comes when no thread computes
    wait_for(lambda: not _runnable_threads(app_server.proc.pid),
             timeout_s=WORK_TIMEOUT_S,
             what=lambda: "the server falling quiet; still runnable: "
                          + ", ".join(_runnable_threads(app_server.proc.pid)))
    after = log.lines(mark)
    assert not [ln for ln in after if label in ln and "finished" in ln], after
