"""The mode bar's PNG in Chromium: a copy of the figure at the chart's size, in the font
the image is drawn in.

The PNG is drawn from the figure's SVG as an image, which cannot use the page's web font
(Source Sans): Plotly laid the legend out for Source Sans, the image drew it in the
system's wider sans-serif, and the legend's clip cut its longest line ("…: test accuracy
0" for "0.817" on Classification with the plain SVM shown). The lab's PNG button draws
the figure again with the font set to sans-serif, so Plotly measures the text in the
font the image shows. The downloaded file is checked too: a PNG at twice the chart's
size (the configured scale)."""

from __future__ import annotations

import struct

import pytest
from _browser import FIRST_CHART_TIMEOUT_MS, wait_idle

pytestmark = pytest.mark.browser

# records what the PNG button hands Plotly, then lets Plotly download it
RECORD_JS = """
() => {
  const P = window.Plotly;
  if (!P.__nplkRecorded) {
    const original = P.downloadImage;
    P.__nplkRecorded = [];
    P.downloadImage = (fig, opts) => {
      P.__nplkRecorded.push({ family: fig.layout && fig.layout.font && fig.layout.font.family,
                              width: opts.width, height: opts.height, scale: opts.scale,
                              format: opts.format, legend: (fig.data || []).filter(
                                (t) => t.showlegend !== false && t.name).length });
      return original(fig, opts);
    };
  }
  const gd = document.querySelector('.js-plotly-plot');
  return { width: gd._fullLayout.width, height: gd._fullLayout.height };
}
"""


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_png_button_draws_the_figure_in_the_images_font(app_server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(app_server.url + "/Classification?show_baseline=true",
              wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot", timeout=FIRST_CHART_TIMEOUT_MS)
    wait_idle(page)
    size = page.evaluate(RECORD_JS)
    plot = page.locator(".js-plotly-plot").first
    plot.hover()
    button = plot.locator(".modebar-btn[data-title='Download plot as a PNG']")
    assert button.count() == 1        # the lab's button, Plotly's own removed
    with page.expect_download() as download:
        button.click()
    path = tmp_path / "chart.png"
    download.value.save_as(path)
    recorded = page.evaluate("() => window.Plotly.__nplkRecorded")
    assert len(recorded) == 1, recorded
    r = recorded[0]
    assert r["family"] == "sans-serif"
    assert (r["width"], r["height"]) == (size["width"], size["height"])
    assert r["format"] == "png" and r["scale"] == 2
    assert r["legend"] >= 3        # the figure's legend went with it
    # (the chart's width may be a fraction of a pixel: the canvas rounds it down)
    assert _png_size(path.read_bytes()) == (int(2 * size["width"]), int(2 * size["height"]))
    assert download.value.suggested_filename.endswith(".png")
