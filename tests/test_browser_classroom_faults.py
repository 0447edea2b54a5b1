"""A worker killed mid-class: ``nplk-lab classroom --workers 2``, two students in
Chromium through HAProxy.

Student A and student B open the Classification page and land on different workers;
B moves σ (its view is now in its URL). B's worker is killed with SIGKILL. Then:

* A never notices: its tab keeps its one websocket (a counter wrapped around the
  browser's ``WebSocket`` stays at 1), it moves σ and the surface redraws;
* a new student C gets a page;
* the command restarts the killed worker on its port (its "is back" line, within
  :data:`RESTART_BOUND_S`), whose ``/_stcore/health`` answers from a new process;
* nothing of the killed worker is left: every process below it before the kill (its
  fit pool, multiprocessing's resource tracker) is gone and its process group is empty;
* B's tab reconnects by itself, through the proxy, to a live worker: its view stays on
  screen and a σ move redraws; a reload then brings back the same view from its URL
  (the σ it chose, the surface drawn);
* a SIGTERM to the command then exits 0 and leaves no process behind.

A second test kills the command itself (SIGKILL): its workers, their fit pools and
HAProxy all stop (the kernel sends the children SIGTERM, ``PR_SET_PDEATHSIG``).

Every wait is on an event: the command's output lines, a condition in the browser, a
pidfd. Skips, saying why, without HAProxy, Playwright or Chromium.
"""

from __future__ import annotations

import os
import re
import signal
import time
import urllib.request
from urllib.parse import parse_qs, urlparse

import _browser as tb
import pytest
from _browser import ARTIFACTS, CLASSIFICATION_PATH, exception_texts
from _procs import alive, descendants, in_group, snapshot
from _waits import wait_gone
from test_browser_classroom import Classroom

from nplk_lab.serve import command

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RESTART_BOUND_S = 120.0   # a Streamlit worker's start on a loaded 2-core machine
STOP_BOUND_S = 60.0

# counts the page's websockets (a tab whose connection broke opens another one) and
# keeps the newest
COUNT_SOCKETS_JS = """
(() => {
  const Native = window.WebSocket;
  window.__nplkSockets = 0;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__nplkSockets += 1;
      window.__nplkSocket = this;
    }
  };
})();
"""


@pytest.fixture
def classroom(chromium_path, request):
    if command.find_proxy() is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    ARTIFACTS.mkdir(exist_ok=True)
    room = Classroom(ARTIFACTS / f"classroom-{request.node.name}.log")
    try:
        room.start()
        yield room
    finally:
        room.kill()   # the test stops it itself; this only ends a hung one


def _worker_pids(room: Classroom) -> dict[int, int]:
    return {int(m[1]): int(m[2]) for m in (
        re.search(r"^worker (\d): http://127\.0\.0\.1:\d+ \(pid (\d+)\)", ln)
        for ln in room.output.lines()) if m}


def _cookie(context) -> str | None:
    return next((c["value"] for c in context.cookies()
                 if c["name"] == command.WORKER_COOKIE), None)


def _move_sigma(page, key: str = "ArrowRight") -> str:
    """Move σ one step (``key``) and wait until the surface drawn from it is on screen;
    return the value."""
    before = tb.settled_surface(page)
    sigma = tb.slider(page, "σ")
    v0 = sigma.get_attribute("aria-valuetext")
    sigma.focus()
    page.keyboard.press(key)
    page.wait_for_function("([el, v0]) => el.getAttribute('aria-valuetext') !== v0",
                           arg=[sigma.element_handle(), v0], polling=50)
    page.wait_for_function(f"(fp0) => ({tb.IDLE_JS})() && "
                           f"({tb.SURFACE_FINGERPRINT_JS})() !== fp0",
                           arg=before, timeout=tb.RERUN_TIMEOUT_MS, polling=50)
    tb.settled_surface(page)
    return sigma.get_attribute("aria-valuetext")


def _sockets(page) -> int:
    return page.evaluate("() => window.__nplkSockets")


def test_a_killed_worker_costs_only_its_students_a_reload(classroom, chromium_path):
    from playwright.sync_api import expect, sync_playwright

    url = classroom.url + CLASSIFICATION_PATH + "?method=svm"
    pids = _worker_pids(classroom)
    assert sorted(pids) == [1, 2], classroom.text()
    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx = {s: browser.new_context(viewport=tb.VIEWPORT) for s in "abc"}
            pages = {}
            for s, c in ctx.items():
                c.add_init_script(COUNT_SOCKETS_JS)
                pages[s] = c.new_page()
                pages[s].set_default_timeout(tb.RERUN_TIMEOUT_MS)
            a, b, c = pages["a"], pages["b"], pages["c"]
            for pg in (a, b):
                pg.goto(url, wait_until="domcontentloaded")
                tb.wait_surface(pg)
            assert {_cookie(ctx["a"]), _cookie(ctx["b"])} == {"w1", "w2"}
            cookie_a = _cookie(ctx["a"])
            # B's view: a σ of its own, in its URL (a fit no first paint holds, so
            # B's worker has its fit pool running)
            sigma_b = _move_sigma(b)
            assert float(parse_qs(urlparse(b.url).query)["sigma"][-1]) == \
                pytest.approx(float(sigma_b))
            victim = int(_cookie(ctx["b"])[1:])
            pid = pids[victim]
            port = classroom.worker_ports[victim - 1]
            left = descendants(pid)
            assert left, "B's worker runs no process of its own (no fit pool)"
            survivor = pids[3 - victim]
            kept = snapshot([survivor, *[p for p, _ in descendants(survivor)]])
            assert _sockets(a) == _sockets(b) == 1
            mark = classroom.output.mark()

            killed_at = time.perf_counter()
            os.kill(pid, signal.SIGKILL)

            # A never notices: same connection, a move redraws
            _move_sigma(a)
            assert not exception_texts(a), exception_texts(a)
            # a new student gets a page
            c.goto(url, wait_until="domcontentloaded")
            tb.wait_surface(c)
            new_page_s = time.perf_counter() - killed_at
            # B's tab lost its connection and opened another one, through the proxy to a
            # live worker: its view stays on screen, and its next move runs the page
            # there (from the widgets and the URL the tab holds) and redraws
            b.wait_for_function("() => window.__nplkSockets >= 2 && "
                                "window.__nplkSocket.readyState === WebSocket.OPEN",
                                polling=50)
            expect(tb.slider(b, "σ")).to_be_enabled()
            assert tb.slider(b, "σ").get_attribute("aria-valuetext") == sigma_b
            sigma_b = _move_sigma(b, "ArrowLeft")
            view_b = b.url

            back = classroom.output.wait_line(
                lambda ln: re.search(rf"worker {victim} is back \(pid (\d+), "
                                     r"[^)]*\), ([\d.]+) s after it died", ln),
                timeout_s=RESTART_BOUND_S, what="the killed worker's restart",
                start=mark)
            restart_s = float(back.group(2))
            said = "\n".join(classroom.output.lines(mark))
            assert f"worker {victim} (pid {pid}) was killed by SIGKILL" in said, said
            assert int(back.group(1)) != pid
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{command.HEALTH}",
                                        timeout=30) as r:
                assert r.status == 200
            # nothing of the killed worker is left (reaped before its restart)
            assert not [p for p, s in left if alive(p, s)], left
            assert in_group(pid) == []
            # the other worker and its fit pool were never touched
            assert all(alive(p, s) for p, s in kept)

            # B reloads into the same view from its URL: the σ it chose, drawn
            assert float(parse_qs(urlparse(view_b).query)["sigma"][-1]) == \
                pytest.approx(float(sigma_b))
            b.reload(wait_until="domcontentloaded")
            tb.wait_surface(b)
            tb.settled_surface(b)
            assert tb.slider(b, "σ").get_attribute("aria-valuetext") == sigma_b
            assert _cookie(ctx["b"]) in {"w1", "w2"}
            # A still has its first connection, on its first worker
            assert _sockets(a) == 1 and _cookie(ctx["a"]) == cookie_a
            for pg in (a, b, c):
                assert not exception_texts(pg), exception_texts(pg)
            b.screenshot(path=str(ARTIFACTS / "classroom-after-a-worker-died.png"))
        finally:
            browser.close()
    print(f"\nworker {victim} back {restart_s:.1f} s after SIGKILL; a new student's "
          f"surface {new_page_s:.1f} s after it")

    everything = descendants(classroom.proc.pid)
    classroom.proc.send_signal(signal.SIGTERM)
    assert classroom.proc.wait(timeout=STOP_BOUND_S) == 0, classroom.text()
    assert not [p for p, s in everything if alive(p, s)], classroom.text()


def test_killing_the_command_leaves_no_process(classroom, chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            page = browser.new_page(viewport=tb.VIEWPORT)
            page.set_default_timeout(tb.RERUN_TIMEOUT_MS)
            page.goto(classroom.url + CLASSIFICATION_PATH + "?method=svm",
                      wait_until="domcontentloaded")
            tb.wait_surface(page)
            _move_sigma(page)            # a fit: that worker's pool is running
        finally:
            browser.close()
    everything = descendants(classroom.proc.pid)
    workers = set(_worker_pids(classroom).values())
    assert len([p for p, _ in everything if p not in workers]) >= 3  # pool, tracker, proxy
    os.kill(classroom.proc.pid, signal.SIGKILL)   # the command alone
    classroom.proc.wait(timeout=30)
    wait_gone(everything, STOP_BOUND_S, what="the killed command's workers, their fit "
                                             "pools and HAProxy")
