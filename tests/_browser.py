"""What the browser tests share: a Streamlit server on a free port, a headless Chromium
(Debian's ``chromium``, driven by Playwright; Playwright's own browser download is never
used), the launch arguments and viewport, the artifacts folder, and the small things a
test does on a page (a slider by its label, a select box's option, the exception boxes).

What the page shows, read in the browser (idle, the surface's fingerprint, whether the
picture is final or still) is in ``_page_state``, handed on from here; the fixtures
(``chromium_path``, ``app_server``, ``page``) are in ``conftest.py``. The benchmarks
(``benchmarks/bench_app.py`` and others) import these helpers so they measure exactly
what the tests drive.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import _waits

# What the page shows, read in the browser: in _page_state, handed on to the browser
# tests and the benchmarks.
from _page_state import (  # noqa: F401
    CHARTS_UNDRAWN_JS,
    COUNT_RUNS_JS,
    FIRST_CHART_TIMEOUT_MS,
    IDLE_JS,
    RERUN_TIMEOUT_MS,
    STILL_JS,
    SURFACE_FINGERPRINT_JS,
    SURFACE_UNSETTLED_JS,
    count_runs,
    settled_surface,
    surface_fingerprint,
    wait_charts_drawn,
    wait_counted_run,
    wait_idle,
    wait_still,
    wait_surface,
    wait_url,
)

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
# The pictures the docs show, taken by the browser tests at the state they have just
# checked. They stay here: a test run leaves the checkout as it found it.
# ``python tools/docs_screenshots.py`` runs those tests and copies the pictures
# into the docs' screenshots folder.
PICTURES = ARTIFACTS / "pictures"
CLASSIFICATION_PATH = "/Classification"  # from pages/1_Classification.py

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1400, "height": 1000}
# Generous ceilings for a loaded 2-core machine; a healthy run takes far less.
SERVER_TIMEOUT_S = 60.0

# ---------------------------------------------------------------------------
# helpers (shared with benchmarks/bench_app.py)
# ---------------------------------------------------------------------------

def find_chromium() -> str | None:
    """Path of a system Chromium, or None."""
    for c in CHROMIUM_CANDIDATES:
        path = c if os.path.isabs(c) else shutil.which(c)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


# Streamlit prints this once it listens and its runtime is up (``/_stcore/health`` then
# answers 200): "You can now view your Streamlit app in your browser." and the URL line
# ("Local URL: ..." or, with ``--server.address``, "URL: ..."), with the real port.
STREAMLIT_URL = re.compile(r"^\s*(?:Local )?URL: (https?://\S+)$")


def wait_streamlit_url(output: _waits.OutputLines, proc: subprocess.Popen,
                       timeout: float = SERVER_TIMEOUT_S) -> str:
    """The URL a Streamlit server (``proc``, whose output ``output`` reads) prints when
    it is ready; its health endpoint is then asked once and must answer 200. Raises
    with the server's last lines when it exits first or stays silent ``timeout`` s."""
    try:
        url = output.wait_line(lambda ln: (m := STREAMLIT_URL.match(ln)) and m.group(1),
                               timeout_s=timeout, what="Streamlit URL line")
    except EOFError as e:
        raise RuntimeError(f"streamlit exited with code {proc.wait(timeout=30)}:\n"
                           f"{output.tail()}") from e
    with urllib.request.urlopen(url + "/_stcore/health", timeout=30) as r:
        if r.status != 200:
            raise RuntimeError(f"{url} printed its URL but answers {r.status}")
    return url


class StreamlitServer:
    """``streamlit run <script>`` in its own process group on a free localhost port.

    The port is Streamlit's own pick (``--server.port 0``: nothing can take it between
    choosing and binding) unless ``port`` is set before :meth:`start`; ``url`` and
    ``port`` are known once :meth:`wait_healthy` returns. The server's output goes
    through a pipe to :attr:`output` (:class:`_waits.OutputLines`), which copies it to
    ``log`` and lets a test wait for a line of it."""

    def __init__(self, script: str | Path, *, cwd: str | Path = ROOT,
                 log: str | Path | None = None) -> None:
        self.script = str(script)
        self.cwd = str(cwd)
        self.port = 0
        self.url = ""
        self.log_path = Path(log) if log else None
        self.proc: subprocess.Popen | None = None
        self.output: _waits.OutputLines | None = None
        self.started_at = 0.0
        # the fit pool's test hook (nplk_lab.serve.workers._HOLD): while this file
        # exists, a running fit waits at each iteration until it is told to stop
        self.hold_file = Path(tempfile.mkdtemp(prefix="nplk-hold-")) / "hold"

    def start(self) -> StreamlitServer:
        cmd = [sys.executable, "-m", "streamlit", "run", self.script,
               "--server.headless", "true", "--server.port", str(self.port),
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(cmd, cwd=self.cwd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1",
                                          "NPLK_LAB_TEST_HOLD_FILE": str(self.hold_file)},
                                     start_new_session=True)
        self.output = _waits.OutputLines(self.proc.stdout, self.log_path)
        return self

    def wait_healthy(self, timeout: float = SERVER_TIMEOUT_S) -> float:
        """Block until the server says it is ready (its URL line; the health endpoint
        then answers); return seconds since start."""
        self.url = wait_streamlit_url(self.output, self.proc, timeout)
        self.port = int(urlparse(self.url).port)
        return time.perf_counter() - self.started_at

    def log_tail(self, n: int = 30) -> str:
        return self.output.tail(n) if self.output is not None else "(no log)"

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass

    def __enter__(self) -> StreamlitServer:
        self.start()
        try:
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def launch_browser(pw, executable: str):
    """Headless Chromium with a fresh (temporary) profile."""
    return pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)


@contextlib.contextmanager
def open_browser(executable: str):
    """Playwright and a headless Chromium (:func:`launch_browser`), both closed at the
    end, also when the test fails."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_browser(pw, executable)
        try:
            yield browser
        finally:
            browser.close()


def exception_texts(page) -> list[str]:
    return [e.inner_text() for e in page.query_selector_all('[data-testid="stException"]')]


def slider(page, label_start: str):
    """A Streamlit slider's (hidden range) input by the start of its label."""
    return page.get_by_role("slider", name=re.compile("^" + re.escape(label_start)))


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` (by the start of its text) in the select box labelled ``label``,
    as a person does: open the box, click the option."""
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


def choose_csv(page) -> None:
    """Choose "CSV upload" and wait for the rerun it causes to be over: its run writes
    dataset=csv into the URL (a bare idle wait can return before that run starts, and a
    test would then look at the previous dataset's page)."""
    choose(page, "Dataset", "CSV upload")
    wait_url(page, "dataset", "csv")


def upload(page, path) -> None:
    """Pick ``path`` in the CSV uploader; return once the rerun the upload causes is
    over. The file is sent, then the widget's new value: that run starts well after
    ``set_files`` returns, so the page's runs are counted from before the pick."""
    count_runs(page)
    with page.expect_file_chooser() as fc:
        page.get_by_role("button", name=re.compile("Browse files|Upload")).first.click()
    fc.value.set_files(str(path))
    wait_counted_run(page, timeout_ms=120_000)
