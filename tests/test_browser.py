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

The helpers (server, launch arguments, and from ``_page_state`` the figure fingerprint,
idle and settled waits) are in ``_browser``, the fixtures in ``conftest.py``.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest
from _browser import (
    ARTIFACTS,
    CLASSIFICATION_PATH,
    IDLE_JS,
    RERUN_TIMEOUT_MS,
    SURFACE_FINGERPRINT_JS,
    SURFACE_UNSETTLED_JS,
    exception_texts,
    settled_surface,
    slider,
    wait_charts_drawn,
    wait_idle,
    wait_still,
    wait_surface,
)

pytestmark = pytest.mark.browser


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
