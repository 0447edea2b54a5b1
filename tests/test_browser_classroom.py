"""``nplk-lab classroom --workers 2``: two students through HAProxy.

Starts the command (nplk_lab/serve/command.py) on free ports, opens the Classification page in two
independent Chromium contexts (two students: separate cookies, separate sessions) and
checks that

* the two sessions run on different workers: HAProxy's affinity cookie names a
  different worker for each, and each worker's own ``/_stcore/metrics`` (asked directly
  on its internal port, not through the proxy) counts exactly one active session;
* a CSV uploaded by one student stays with that session: the upload (an HTTP request
  of its own, which the worker accepts only for a session it holds) lands, the page
  draws it and keeps it across a rerun, and the other student's page knows nothing of it;
* stopping the command (SIGTERM to it alone) stops every worker and the proxy.

Skips, saying why, without HAProxy (``apt-get install haproxy``), Playwright or Chromium.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import _browser as tb
import numpy as np
import pytest
from _browser import ARTIFACTS, CLASSIFICATION_PATH, exception_texts
from _browser import choose_csv as _choose_csv
from _browser import upload as _upload
from _ports import free_port_block
from _waits import OutputLines

from nplk_core.datasets import make_clowns
from nplk_lab.serve import command

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2
START_TIMEOUT_S = 2 * tb.SERVER_TIMEOUT_S + 60  # two workers starting on two cores


def _answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Classroom:
    def __init__(self, log: Path) -> None:
        self.port = free_port_block(WORKERS + 1)
        self.worker_ports = [self.port + i for i in range(1, WORKERS + 1)]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.proc: subprocess.Popen | None = None
        self.output: OutputLines | None = None

    def start(self) -> None:
        """Start the command and return once it says the class is served (it prints
        "NPLK Lab for a class: <url>" after every worker and the proxy answered)."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nplk_lab.serve.command", "classroom", "--workers",
             str(WORKERS), "--port", str(self.port), "--address", "127.0.0.1"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        self.output = OutputLines(self.proc.stdout, self.log)
        try:
            self.output.wait_line(lambda ln: "NPLK Lab for a class:" in ln,
                                  timeout_s=START_TIMEOUT_S, what="the class's URL line")
        except EOFError:
            raise RuntimeError(f"nplk-lab classroom exited ({self.proc.wait(timeout=30)})"
                               f":\n{self.text()}") from None

    def text(self) -> str:
        return self.output.text() if self.output is not None else ""

    def active_sessions(self) -> list[int]:
        """Each worker's own count of sessions with an open websocket."""
        counts = []
        for p in self.worker_ports:
            url = f"http://127.0.0.1:{p}/_stcore/metrics?families=active_sessions"
            with urllib.request.urlopen(url, timeout=5) as r:
                text = r.read().decode()
            counts.append(int(float(re.search(r"^active_sessions\S* (\S+)$", text,
                                              re.M).group(1))))
        return counts

    def stop(self) -> None:
        """SIGTERM to the command alone (it stops its children), SIGKILL if it hangs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def classroom(chromium_path):
    if command.find_proxy() is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    room = Classroom(ARTIFACTS / "classroom.log")
    try:
        room.start()
        yield room
    finally:
        room.stop()  # only if the last test did not stop it


def _worker_cookie(context) -> str | None:
    return next((c["value"] for c in context.cookies()
                 if c["name"] == command.WORKER_COOKIE), None)


def test_two_students_get_their_own_worker_and_keep_their_upload(classroom, chromium_path,
                                                                 tmp_path):
    from playwright.sync_api import sync_playwright

    X, y = make_clowns(120, random_state=1)
    raw = X * np.array([100.0, 1e4]) + np.array([500.0, 3000.0])
    csv = tmp_path / "student_a_data.csv"
    csv.write_text("width_mm,mass_mg,label\n" + "\n".join(
        f"{a:.3f},{b:.3f},{int(c)}" for (a, b), c in zip(raw, y, strict=True)))
    url = classroom.url + CLASSIFICATION_PATH + "?method=svm"

    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            ctx_a = browser.new_context(viewport=tb.VIEWPORT)
            ctx_b = browser.new_context(viewport=tb.VIEWPORT)
            a, b = ctx_a.new_page(), ctx_b.new_page()
            for pg in (a, b):
                pg.set_default_timeout(tb.RERUN_TIMEOUT_MS)
            a.goto(url, wait_until="domcontentloaded")
            tb.wait_surface(a)
            b.goto(url, wait_until="domcontentloaded")
            tb.wait_surface(b)

            # two workers: the proxy's cookie says so, and so does each worker itself
            assert {_worker_cookie(ctx_a), _worker_cookie(ctx_b)} == {"w1", "w2"}
            # (both pages drew, and a page draws only through its session's open
            # websocket: both sessions are connected now, nothing to wait for)
            assert classroom.active_sessions() == [1, 1]

            # student A uploads a CSV: it is drawn (the upload request reached A's worker)
            _choose_csv(a)
            _upload(a, csv)
            a.get_by_text("Features standardised").first.wait_for(timeout=60_000)
            tb.wait_surface(a)
            a.screenshot(path=str(ARTIFACTS / "classroom-student-a.png"))
            assert a.get_by_text(csv.name).count() >= 1

            # ... and keeps it across a rerun: move σ, the page redraws from that CSV
            before = tb.settled_surface(a)
            sigma = tb.slider(a, "σ")
            sigma.focus()
            a.keyboard.press("ArrowRight")
            a.wait_for_function(f"(fp0) => ({tb.IDLE_JS})() && "
                                f"({tb.SURFACE_FINGERPRINT_JS})() !== fp0",
                                arg=before, timeout=tb.RERUN_TIMEOUT_MS, polling=50)
            # the picture on screen is the one drawn from the σ the slider shows: the
            # σ run is over (not a bare idle, which can come before that run starts)
            tb.settled_surface(a)
            assert a.get_by_text("Features standardised").count() >= 1
            assert a.get_by_text(csv.name).count() >= 1

            # student B sees nothing of it, even on the upload view
            _choose_csv(b)
            b.screenshot(path=str(ARTIFACTS / "classroom-student-b.png"))
            assert b.get_by_text(csv.name).count() == 0
            assert b.get_by_text("Features standardised").count() == 0
            assert not exception_texts(a) and not exception_texts(b), (
                exception_texts(a) + exception_texts(b))
            # still one session each: nobody was moved to the other worker
            assert classroom.active_sessions() == [1, 1]
            assert {_worker_cookie(ctx_a), _worker_cookie(ctx_b)} == {"w1", "w2"}
        finally:
            browser.close()


def test_stopping_the_command_stops_the_workers_and_the_proxy(classroom):
    ports = [classroom.port, *classroom.worker_ports]
    assert all(_answers(p) for p in ports)
    classroom.proc.send_signal(signal.SIGTERM)  # the command alone, not its group
    assert classroom.proc.wait(timeout=60) == 0, classroom.text()
    assert not any(_answers(p) for p in ports), classroom.text()
