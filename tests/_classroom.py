"""A class in Chromium for the browser tests: ``nplk-lab classroom --workers 2``
started and stopped (:class:`Classroom`), its workers' process ids, a script that counts
a page's websockets, a fresh class store for the servers a test starts, and the moves of
a teacher and a student on the pages (start a class, join by its link, choose, lock in).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import _browser as tb
import pytest
from _browser import wait_idle
from _ports import free_port_block
from _waits import OutputLines

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_room, command
from nplk_lab.serve.class_store import ClassStore
from nplk_lab.serve.class_store_rules import CODE_ALPHABET, CODE_LENGTH

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2
START_TIMEOUT_S = 2 * tb.SERVER_TIMEOUT_S + 60  # two workers starting on two cores


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


def _worker_pids(room: Classroom) -> dict[int, int]:
    return {int(m[1]): int(m[2]) for m in (
        re.search(r"^worker (\d): http://127\.0\.0\.1:\d+ \(pid (\d+)\)", ln)
        for ln in room.output.lines()) if m}


def _light_page_pid(room: Classroom) -> int:
    """The light page's own process (the first, as the command started it)."""
    return next(int(m[1]) for m in (
        re.search(r"^light page 1: http://127\.0\.0\.1:\d+ \(pid (\d+)\)", ln)
        for ln in room.output.lines()) if m)




LESSON = 1


PHONE = {"width": 390, "height": 844}


TEACHER_VIEW = {"width": 1280, "height": 900}


@contextlib.contextmanager
def fresh_store(**env: str) -> Iterator[Path]:
    """A fresh SQLite class store (a new folder) for the servers started meanwhile, and
    ``env`` for them too (both through the environment they inherit)."""
    folder = Path(tempfile.mkdtemp(prefix="nplk-class-test-"))
    values = {class_room.ENV: str(folder), **env}
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield folder
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def classroom_with_store(name: str) -> Iterator[Classroom]:
    """``nplk-lab classroom --workers 2`` on a fresh store (``.store_folder``); skips
    without HAProxy."""
    if command.find_proxy() is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    tb.ARTIFACTS.mkdir(exist_ok=True)
    with fresh_store() as folder:
        room = Classroom(tb.ARTIFACTS / f"classroom-{name}.log")
        room.store_folder = folder
        try:
            room.start()
            yield room
        finally:
            room.kill()      # a test stops it itself; this only ends a hung one


def has_text(page, text: str, timeout: int = 60_000) -> None:
    """Wait until the page shows ``text``, white space aside (a chart's title wrapped in
    a narrow column is two lines of SVG with nothing between them)."""
    page.wait_for_function(
        "(t) => document.body && document.body.innerText.replace(/\\s+/g, '')"
        ".includes(t)", arg="".join(text.split()), timeout=timeout, polling=50)


def wait_step(page, k: int, n: int) -> None:
    has_text(page, f"step {k} of {n}")


def click_button(page, name: str) -> None:
    page.get_by_role("button", name=re.compile("^" + re.escape(name))).first.click()


def join_by_link(browser, url: str, code: str, *, view: dict | None = None,
                 name: str | None = None, headers: dict | None = None, watch=None):
    """A student's browser (a new context: ``view``, a phone by default) joins the
    class by its join link, typing ``name`` if given; its page at the class's step."""
    phone = view is None
    ctx = browser.new_context(viewport=view or PHONE, is_mobile=phone, has_touch=phone,
                              extra_http_headers=headers or {})
    if watch is not None:
        watch(ctx)
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    page.goto(f"{url}/Lessons?class={code}")
    has_text(page, "Join the class")
    if name is not None:
        box = page.get_by_role("textbox", name="Your name (optional)")
        box.fill(name)
        box.press("Enter")
        wait_idle(page)
    page.get_by_role("button", name="Join", exact=True).click()
    has_text(page, "Following your teacher")
    return page


def start_class(page, url: str, lesson: int = LESSON) -> str:
    """The teacher starts a class on Lessons at ``lesson``'s first step: its code."""
    page.goto(f"{url}/Lessons?lesson={lesson}&step=1")
    wait_step(page, 1, len(L.lesson(lesson).steps))
    page.get_by_text("A class that answers together").click()
    click_button(page, "Start a class")
    page.wait_for_url(re.compile(r"class=\w+"), timeout=120_000)
    return parse_qs(urlparse(page.url).query)["class"][0]


def address(page) -> set[str]:
    """The settings the page's address carries (those with a value)."""
    return {k for k, v in parse_qs(urlparse(page.url).query).items() if v[-1] not in ("", "0")}


def choose(page, option: str) -> None:
    """Choose ``option`` on the class's question (the radio's own options), which
    sends nothing, and wait for the page's run."""
    page.locator('[data-testid="stRadio"] [role="radiogroup"] label').filter(
        has_text=option).first.click()
    wait_idle(page)


def pick(page, option: str) -> None:
    """Vote ``option`` on the class's question: choose it, then "Lock in"."""
    choose(page, option)
    page.get_by_role("button", name="Lock in").click()


def unknown_code(store: ClassStore, i: int) -> str:
    """A well-formed code no class has."""
    code = "".join(CODE_ALPHABET[(i * 7 + j) % len(CODE_ALPHABET)]
                   for j in range(CODE_LENGTH))
    assert not store._run(False, lambda tx: tx.one(
        "SELECT 1 FROM classes WHERE code = ?", code))
    return code
