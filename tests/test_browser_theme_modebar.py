"""In a real browser: no chart button sends data off the machine (the modebar of every
chart on the Classification page, the replay's included, is listed), and the charts
follow a dark colour scheme (Chromium's emulated prefers-color-scheme: Streamlit turns
dark, the charts' text, axes and colour bars turn light).

Drives Debian's Chromium through Playwright against ``streamlit run app.py``; skips when
either is missing. Run alone with::

    python -m pytest tests/test_browser_theme_modebar.py -q -s -m browser
"""

from __future__ import annotations

import contextlib

import _browser as tb
import pytest
from _browser import ARTIFACTS, CLASSIFICATION_PATH, wait_idle

pytestmark = pytest.mark.browser

#: what the lab's modebars may offer: all of it local (zoom, pan, scale, PNG download)
LOCAL_BUTTONS = {"Download plot as a PNG", "Download plot as a png", "Zoom", "Pan",
                 "Box Select", "Lasso Select",
                 "Zoom in", "Zoom out", "Autoscale", "Reset axes", "Reset view",
                 "Toggle Spike Lines", "Show closest data on hover",
                 "Compare data on hover", "Toggle show closest data on hover"}

MODEBAR_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((gd) => ({
  buttons: Array.from(gd.querySelectorAll('.modebar-btn')).map(
    (b) => b.getAttribute('data-title')),
  links: Array.from(gd.querySelectorAll('.modebar a[href]')).map((a) => a.href),
  cloud: !!(gd._context && (gd._context.showSendToCloud || gd._context.showEditInChartStudio
                            || gd._context.showLink || gd._context.displaylogo)),
}))
"""

THEME_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
  (gd) => gd._fullLayout && gd.closest('.nplk-live-chart, .nplk-replay')).map((gd) => {
  const fl = gd._fullLayout;
  const bar = (gd._fullData || []).find((t) => t.colorbar && t.colorbar.tickfont &&
                                            t.showscale !== false);
  return { font: fl.font.color,
           tick: fl.xaxis && fl.xaxis.tickfont ? fl.xaxis.tickfont.color : null,
           bar: bar ? bar.colorbar.tickfont.color : null, paper: fl.paper_bgcolor,
           theme: (gd.closest('[data-theme]') || gd).dataset.theme || null };
})
"""


def _lum(color: str) -> float:
    """Relative brightness 0-255 of a CSS colour (#rrggbb or rgb/rgba)."""
    c = color.strip()
    if c.startswith("#"):
        r, g, b = (int(c[i:i + 2], 16) for i in (1, 3, 5))
    else:
        r, g, b = (float(v) for v in c[c.index("(") + 1:c.index(")")].split(",")[:3])
    return 0.299 * r + 0.587 * g + 0.114 * b


@contextlib.contextmanager
def _open(chromium_path, app_server, scheme: str, query: str = ""):
    """The Classification page in a fresh Chromium with the given colour scheme; the
    browser and Playwright always stop (also when the page never draws)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = tb.launch_browser(pw, chromium_path)
        try:
            context = browser.new_context(viewport=tb.VIEWPORT, color_scheme=scheme)
            page = context.new_page()
            page.set_default_timeout(tb.RERUN_TIMEOUT_MS)
            page.goto(app_server.url + CLASSIFICATION_PATH + query,
                      wait_until="domcontentloaded")
            tb.wait_surface(page, tb.FIRST_CHART_TIMEOUT_MS * 2)
            wait_idle(page, 60_000)
            yield page
        finally:
            browser.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_follow_the_colour_scheme(chromium_path, app_server, scheme):
    with _open(chromium_path, app_server, scheme, "?replay=true") as page:
        page.wait_for_selector(".nplk-replay[data-theme]", timeout=60_000)
        page.wait_for_function(f"() => ({THEME_JS})().length >= 2", timeout=60_000)
        charts = page.evaluate(THEME_JS)
        page.screenshot(path=str(ARTIFACTS / f"theme-{scheme}.png"), full_page=True)
        bg = page.evaluate("() => getComputedStyle(document.querySelector("
                           "'[data-testid=\"stApp\"]')).backgroundColor")
        dark_page = _lum(bg) < 128
        assert dark_page == (scheme == "dark"), bg    # Streamlit followed the browser
        for c in charts:
            assert c["theme"] == scheme, c
            light_text = _lum(c["font"]) > 160
            assert light_text == (scheme == "dark"), c
            if c["tick"]:
                assert (_lum(c["tick"]) > 160) == (scheme == "dark"), c
            if c["bar"]:
                assert (_lum(c["bar"]) > 160) == (scheme == "dark"), c


def test_no_modebar_button_sends_data_away(chromium_path, app_server):
    with _open(chromium_path, app_server, "light", "?replay=true") as page:
        page.wait_for_selector(".nplk-replay[data-theme]", timeout=60_000)
        bars = page.evaluate(MODEBAR_JS)
        assert len(bars) >= 3, bars
        seen = set()
        for b in bars:
            assert not b["cloud"], b
            assert not b["links"], b            # no link out (the Plotly logo, Chart Studio)
            seen |= set(b["buttons"])
        print("\nmodebar buttons on the Classification page:", sorted(seen))
        assert "Download plot as a PNG" in seen
        assert seen <= LOCAL_BUTTONS, seen - LOCAL_BUTTONS
