"""Real-browser test: headless Chromium (Debian's ``chromium``, driven by Playwright)
against ``streamlit run app.py`` on localhost.

Loads the Classification page, moves the σ slider with the keyboard and checks that
the decision surface is redrawn, that the URL follows the slider and that no exception
box appears. Then "Click to add": mouse clicks on the plot add points of the chosen
class at the clicked data coordinates (read back from the URL and from the figure the
chart holds), the axes do not move, a drag zooms and the zoom survives the refit, and
Undo removes the last point. Screenshots go to ``test-artifacts/`` (gitignored).

Skips (with the reason) when Playwright or a Chromium binary is missing; Playwright's
own browser download is never used. Run alone with::

    python -m pytest tests/test_browser.py -q -m browser

The helpers here (server fixture, launch arguments, and from ``_page_state`` the figure
fingerprint, idle and settled waits) are also used by ``benchmarks/bench_app.py`` so the
benchmark measures exactly what the test drives.
"""

from __future__ import annotations

import contextlib
import json
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
from urllib.parse import parse_qs, urlparse

import _waits
import pytest

# What the page shows, read in the browser (idle, the surface's fingerprint, whether the
# picture is final or still): in _page_state, imported from here by the other browser
# tests and the benchmarks as before.
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

pytestmark = pytest.mark.browser

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


# ---------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def chromium_path() -> str:
    pytest.importorskip("playwright.sync_api",
                        reason="Playwright is not installed (pip install -e '.[test]')")
    path = find_chromium()
    if path is None:
        pytest.skip("no chromium binary (apt-get install chromium); Playwright's own "
                    "browser download is not used")
    return path


@pytest.fixture(scope="module")
def app_server(chromium_path):
    ARTIFACTS.mkdir(exist_ok=True)
    with StreamlitServer("app.py", log=ARTIFACTS / "streamlit-browser-test.log") as server:
        yield server


@pytest.fixture(scope="module")
def page(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_browser(pw, chromium_path)
        context = browser.new_context(viewport=VIEWPORT)
        pg = context.new_page()
        pg.set_default_timeout(RERUN_TIMEOUT_MS)
        try:
            yield pg
        finally:
            context.close()
            browser.close()


# ---------------------------------------------------------------------------
# the test
# ---------------------------------------------------------------------------

# The surface's record of what it was drawn from (its data-drawn-from); given a text,
# it is replaced by that text first.
DRAWN_FROM_JS = """
(text) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
  if (typeof text === 'string') gd.dataset.drawnFrom = text;
  return gd.dataset.drawnFrom;
}
"""

def test_classification_slider_redraws_surface(app_server, page):
    page.goto(app_server.url + CLASSIFICATION_PATH, wait_until="domcontentloaded")
    wait_surface(page)
    before = settled_surface(page)
    page.screenshot(path=str(ARTIFACTS / "classification-before.png"))
    assert not exception_texts(page), exception_texts(page)

    sigma = slider(page, "σ")
    expect_one = sigma.count()
    assert expect_one == 1, f"expected one σ slider, found {expect_one}"
    v0 = sigma.get_attribute("aria-valuetext")
    sigma.focus()
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([el, v0]) => el.getAttribute('aria-valuetext') !== v0",
        arg=[sigma.element_handle(), v0], polling=50)
    v1 = sigma.get_attribute("aria-valuetext")
    assert float(v1) > float(v0)

    page.wait_for_function(
        f"(fp0) => ({IDLE_JS})() && ({SURFACE_FINGERPRINT_JS})() !== fp0",
        arg=before, timeout=RERUN_TIMEOUT_MS, polling=50)
    after = settled_surface(page)
    page.screenshot(path=str(ARTIFACTS / "classification-after.png"))

    assert after != before, "the decision surface did not change after moving σ"
    assert not exception_texts(page), exception_texts(page)
    # the slider value survived the rerun, and the URL carries it (shareable link)
    assert sigma.get_attribute("aria-valuetext") == v1
    query = parse_qs(urlparse(page.url).query)
    assert "sigma" in query, page.url
    assert float(query["sigma"][-1]) == pytest.approx(float(v1))

    # what the settled wait compared: the picture's record holds the σ the slider shows
    # and the URL's points; a record that disagrees with the page on either keeps the
    # wait going (the record swapped in place, then put back: no rerun)
    record = json.loads(page.evaluate(f"() => ({DRAWN_FROM_JS})()"))
    assert record["widgets"]["w_sigma"] == ["string_array_value", [v1]]
    assert record["state"]["points"] == query.get("points", [""])[-1]
    for part, name, forged in (("widgets", "w_sigma", ["string_array_value", ["0"]]),
                               ("state", "points", "1,1,1")):
        other = {**record, part: {**record[part], name: forged}}
        reason = page.evaluate(f"(r) => {{ ({DRAWN_FROM_JS})(r); "
                               f"return ({SURFACE_UNSETTLED_JS})(); }}", json.dumps(other))
        assert name in reason, reason
    page.evaluate(f"(r) => ({DRAWN_FROM_JS})(r)", json.dumps(record))
    assert page.evaluate(SURFACE_UNSETTLED_JS) == ""


# ---------------------------------------------------------------------------
# click to add
# ---------------------------------------------------------------------------

# The surface's plot area on screen and its axes: the drag layer's rectangle (what a
# click lands on) and the axis ranges Plotly drew.
SURFACE_AXES_JS = """
() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
  if (!gd || !gd._fullLayout || !gd._fullLayout.xaxis) return null;
  const r = gd.querySelector('.nsewdrag').getBoundingClientRect();
  return {left: r.left, top: r.top, width: r.width, height: r.height,
          x: gd._fullLayout.xaxis.range.slice(), y: gd._fullLayout.yaxis.range.slice()};
}
"""

# The points of the surface's training traces of one class, as [[x, y], ...].
SURFACE_TRAIN_POINTS_JS = """
(name) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
  const t = gd && (gd._fullData || []).find(t => t.name === name);
  if (!t) return [];
  return Array.from(t.x, (x, i) => [Number(x), Number(t.y[i])]);
}
"""


def still_surface_axes(page) -> dict:
    """The surface's plot area and axes (:data:`SURFACE_AXES_JS`) once the page is
    still: every chart of the last run drawn (the matrix view below the surface draws
    after it, at its own time), the mouse off the plots, nothing moving and every plot
    laid out at its box's width. A click or a drag aimed from this rectangle lands
    where it was aimed, whatever drew before."""
    wait_charts_drawn(page)
    page.mouse.move(5, 5)
    wait_still(page)
    return page.evaluate(SURFACE_AXES_JS)


def url_points(page) -> list[tuple[float, float, int]]:
    q = parse_qs(urlparse(page.url).query).get("points", [""])[-1]
    return [(float(a), float(b), int(c)) for a, b, c in
            (row.split(",") for row in q.split(";") if row.strip())]


def click_surface(page, fx: float, fy: float) -> tuple[float, float, dict]:
    """Click the plot area at the fractions (fx, fy) of its width and height (from the
    top left); return the data coordinates of that pixel, worked out here from the
    drawn axis ranges (linear axes), and the axes before the click."""
    ax = page.evaluate(SURFACE_AXES_JS)
    px = ax["left"] + fx * ax["width"]
    py = ax["top"] + fy * ax["height"]
    x = ax["x"][0] + fx * (ax["x"][1] - ax["x"][0])
    y = ax["y"][1] - fy * (ax["y"][1] - ax["y"][0])
    n = len(url_points(page))
    page.mouse.click(px, py)
    page.wait_for_function(
        "(n) => { const q = new URLSearchParams(location.search).get('points') || '';"
        " return q.split(';').filter(s => s.trim()).length === n; }",
        arg=n + 1, timeout=RERUN_TIMEOUT_MS, polling=50)
    return x, y, ax


@pytest.mark.parametrize("query, start", [
    ("dataset=clowns&n_samples=60", ()),
    # "your points": add mode is always on; six starting points so there is a surface
    ("dataset=drawn&method=svm&points=-1,-1,-1;-1.5,-0.5,-1;-0.5,-1.5,-1;1,1,1;1.5,0.5,1;"
     "0.5,1.5,1", ((-1.0, -1.0, -1), (-1.5, -0.5, -1), (-0.5, -1.5, -1), (1.0, 1.0, 1),
                   (1.5, 0.5, 1), (0.5, 1.5, 1))),
], ids=["clowns", "your-points"])
def test_click_to_add_puts_points_where_clicked_and_keeps_the_axes(app_server, page,
                                                                   query, start):
    name = "click-to-add-" + ("drawn" if start else "clowns")
    page.goto(app_server.url + CLASSIFICATION_PATH + "?" + query,
              wait_until="domcontentloaded")
    wait_surface(page)
    settled_surface(page)
    assert tuple(url_points(page)) == start
    if not start:
        page.get_by_text("Add points by clicking").click()
        page.get_by_text("Click to add", exact=True).click()
        # the switch is drawn above the surface: the surface is final once drawn from
        # "on" (an idle wait can come before the switch's rerun starts)
        settled_surface(page)
    ax0 = still_surface_axes(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}-0.png"))

    cell_x = (ax0["x"][1] - ax0["x"][0]) / 99     # one cell of the 100 × 100 grid
    cell_y = (ax0["y"][1] - ax0["y"][0]) / 99
    # a +1 point inside the data, then a −1 point in the padding near a corner (where
    # a canvas fitted to all points would have grown)
    x1, y1, _ = click_surface(page, 0.35, 0.4)
    settled_surface(page)
    ax1 = page.evaluate(SURFACE_AXES_JS)
    page.screenshot(path=str(ARTIFACTS / f"{name}-1.png"))
    page.locator('[data-testid="stRadio"] label').filter(has_text="−1").click()
    # the class radio is drawn above the surface: the surface is final once drawn from
    # "−1" (a bare idle wait can come before the radio's rerun starts)
    settled_surface(page)
    x2, y2, _ = click_surface(page, 0.96, 0.05)
    settled_surface(page)
    ax2 = page.evaluate(SURFACE_AXES_JS)
    page.screenshot(path=str(ARTIFACTS / f"{name}-2.png"))
    assert not exception_texts(page), exception_texts(page)

    pts = url_points(page)
    assert pts[:len(start)] == list(start)
    pts = pts[len(start):]
    assert len(pts) == 2, pts
    for (px, py, pc), (x, y, c) in zip(pts, [(x1, y1, 1), (x2, y2, -1)], strict=True):
        assert pc == c
        assert abs(px - x) <= cell_x and abs(py - y) <= cell_y, (pts, (x1, y1), (x2, y2))
    # the figure the chart holds has them as training points of their class
    plus = page.evaluate(SURFACE_TRAIN_POINTS_JS, "class +1 (train)")
    minus = page.evaluate(SURFACE_TRAIN_POINTS_JS, "class −1 (train)")
    assert any(abs(a - pts[0][0]) < 1e-3 and abs(b - pts[0][1]) < 1e-3 for a, b in plus)
    assert any(abs(a - pts[1][0]) < 1e-3 and abs(b - pts[1][1]) < 1e-3 for a, b in minus)
    # the axes and the plot area did not move while points were added
    # (ranges exactly; the plot area to a pixel: the f(x) colour bar's labels keep one
    # width, but glyph metrics can still move the centred, square plot by a sub-pixel)
    for ax in (ax1, ax2):
        assert ax["x"] == ax0["x"] and ax["y"] == ax0["y"], (ax0, ax)
        for k in ("left", "top", "width", "height"):
            assert abs(ax[k] - ax0[k]) <= 1.0, (k, ax0, ax)

    page.get_by_role("button", name="Undo").click()
    page.wait_for_function(
        "(n) => (new URLSearchParams(location.search).get('points') || '')"
        ".split(';').filter(s => s.trim()).length === n", arg=len(start) + 1,
        timeout=RERUN_TIMEOUT_MS)
    settled_surface(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}-undo.png"))
    assert url_points(page) == list(start) + pts[:1]
    minus = page.evaluate(SURFACE_TRAIN_POINTS_JS, "class −1 (train)")
    assert not any(abs(a - pts[1][0]) < 1e-3 and abs(b - pts[1][1]) < 1e-3 for a, b in minus)
    assert page.evaluate(SURFACE_AXES_JS)["x"] == ax0["x"]
    assert not exception_texts(page), exception_texts(page)


def test_click_to_add_keeps_a_users_zoom(app_server, page):
    """A drag zooms (and adds nothing); a click in the zoomed view adds a point there
    and the refit keeps the zoom (``uirevision``)."""
    page.goto(app_server.url + CLASSIFICATION_PATH + "?dataset=clowns&n_samples=60",
              wait_until="domcontentloaded")
    wait_surface(page)
    settled_surface(page)
    page.get_by_text("Add points by clicking").click()
    page.get_by_text("Click to add", exact=True).click()
    settled_surface(page)          # drawn from "Click to add" on (see above)
    ax0 = still_surface_axes(page)
    left, top, w, h = ax0["left"], ax0["top"], ax0["width"], ax0["height"]
    page.mouse.move(left + 0.2 * w, top + 0.2 * h)
    page.mouse.down()
    page.mouse.move(left + 0.4 * w, top + 0.4 * h, steps=5)
    page.mouse.move(left + 0.6 * w, top + 0.6 * h, steps=5)
    page.mouse.up()
    # the zoom is drawn (Plotly relays the axes out on release)
    page.wait_for_function(
        f"(x0) => {{ const a = ({SURFACE_AXES_JS})(); return !!a && a.x[0] !== x0; }}",
        arg=ax0["x"][0], timeout=RERUN_TIMEOUT_MS, polling=50)
    zoomed = page.evaluate(SURFACE_AXES_JS)
    assert zoomed["x"][0] > ax0["x"][0] and zoomed["x"][1] < ax0["x"][1]
    # Plotly's release handler either zooms (a drag) or dispatches a click, which the
    # chart marks at once and sends (a rerun puts it in the URL): no mark, no point
    assert page.locator(".nplk-click-mark").count() == 0, "a drag must not add a point"
    wait_idle(page)
    assert not url_points(page), "a drag must not add a point"

    x, y, _ = click_surface(page, 0.5, 0.5)
    settled_surface(page)
    page.screenshot(path=str(ARTIFACTS / "click-to-add-zoomed.png"))
    after = page.evaluate(SURFACE_AXES_JS)
    assert after["x"] == zoomed["x"] and after["y"] == zoomed["y"], (zoomed, after)
    (px, py, pc), = url_points(page)
    cell = (zoomed["x"][1] - zoomed["x"][0]) / 99
    assert pc == 1 and abs(px - x) <= cell and abs(py - y) <= cell, ((px, py), (x, y))
    assert not exception_texts(page), exception_texts(page)
