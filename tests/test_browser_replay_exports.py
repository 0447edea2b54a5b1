"""The replay's HTML export in a real browser: opened from ``file://`` with the network
cut, it draws, plays at 10 frames per second or more (frames counted by the player as it
paints them: ``window.__nplkReplay``), loops and changes speed, and fetches nothing.

Drives Debian's Chromium through Playwright (no Streamlit server needed); skips when
either is missing. Run alone with::

    python -m pytest tests/test_browser_replay_exports.py -q -s -m browser
"""

from __future__ import annotations

import sys
from pathlib import Path

import _browser as tb
import pytest

import nplk_lab.figures as fg
import nplk_lab.model as lab

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytestmark = pytest.mark.browser
PLAYER = ".nplk-replay"


@pytest.fixture(scope="module")
def html_file(tmp_path_factory):
    import nplk_lab.ui.components.replay_file as replay_file

    P = {**lab.defaults(), "n_samples": 200}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")
    rp = lab.replay_frames(res, data, lab.make_grid(data.X), P)
    fig = fg.replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test,
                           title="DANK: training replay")
    path = tmp_path_factory.mktemp("replay") / "replay.html"
    path.write_text(replay_file.standalone_html(fg.replay_json(fig), title="DANK replay",
                                               caption=rp.start_text), encoding="utf-8")
    return path, len(rp.played)


def _attr(page, name):
    return page.evaluate(f"() => document.querySelector('{PLAYER}').dataset.{name}")


def _play_and_measure(page, n):
    """Play from the start to the end; the frames/s the player painted at (printed, not
    asserted: it is the machine's speed), the frames drawn and the time between frames
    the player asked for."""
    page.locator(f"{PLAYER} input[type=range]").fill("0")
    page.wait_for_function(f"() => document.querySelector('{PLAYER}').dataset.frame === '0'")
    page.locator(f"{PLAYER} button[aria-label=Play]").click()
    page.wait_for_function(
        f"() => document.querySelector('{PLAYER}').dataset.frame === '{n - 1}' && "
        f"document.querySelector('{PLAYER} button[aria-label=Play]') !== null",
        timeout=60_000, polling="raf")
    s = page.evaluate("() => window.__nplkReplay")
    return (s["drawn"] - 1) / max((s["t1"] - s["t0"]) / 1000, 1e-9), s["drawn"], s["asked"]


def test_html_export_plays_offline_from_a_file(page, html_file):
    path, n = html_file
    requests: list[str] = []
    page.context.route("**/*", lambda route: (
        requests.append(route.request.url), route.abort()
        if not route.request.url.startswith("file:") else route.continue_()))
    try:
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_selector(f"{PLAYER}[data-frames='{n}']", timeout=60_000)
        page.wait_for_function(
            "() => { const c = document.querySelector('.nplk-replay canvas'); "
            "return c && c.width > 0; }", timeout=60_000)
        assert _attr(page, "frame") == "0"                 # opens on the untrained start
        assert "untrained" in page.inner_text(".nplk-replay-label")
        fps1, drawn, asked1 = _play_and_measure(page, n)
        assert drawn == n - 1                              # every frame after the first, once
        # 4x: the player asks for frames four times as often (how fast a browser then
        # paints is the machine's speed, printed here, measured by benchmarks/)
        page.select_option(f"{PLAYER} select", "4")
        fps4, drawn4, asked4 = _play_and_measure(page, n)
        print(f"\nHTML replay from file://: {n} frames, {fps1:.1f} frames/s at 1x, "
              f"{fps4:.1f} at 4x")
        assert drawn4 == n - 1
        assert asked1 == pytest.approx(1000 / 15) and asked4 == pytest.approx(1000 / 60)
        # loop: after the last frame it starts again from the untrained model
        page.select_option(f"{PLAYER} select", "4")
        page.locator(f"{PLAYER} input.nplk-replay-loop").check()
        page.locator(f"{PLAYER} button[aria-label=Play]").click()
        page.wait_for_function("() => window.__nplkReplay.loops >= 1", timeout=60_000)
        page.locator(f"{PLAYER} button[aria-label=Pause]").click()
        page.screenshot(path=str(tb.ARTIFACTS / "replay-html-export.png"))
    finally:
        page.context.unroute("**/*")
    others = [u for u in requests if not u.startswith("file:")]
    assert not others, others


def test_html_export_plays_at_the_speed_and_loop_it_was_saved_with(page, tmp_path):
    """A file saved at 4× with Loop on opens with both set and plays that way, with no
    control touched: frames asked for every 1000 / (15 · 4) ms, and it starts again after
    the last frame."""
    import nplk_lab.ui.components.replay_file as replay_file

    P = {**lab.defaults(), "n_samples": 60}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")
    rp = lab.replay_frames(res, data, lab.make_grid(data.X), P)
    fig = fg.replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test,
                           title="DANK: training replay")
    path = tmp_path / "replay-4x-loop.html"
    path.write_text(replay_file.standalone_html(fg.replay_json(fig), title="DANK",
                                                     speed=4, loop=True), encoding="utf-8")
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_selector(f"{PLAYER}[data-frames='{len(rp.played)}']", timeout=60_000)
    assert page.input_value(f"{PLAYER} select") == "4"
    assert page.is_checked(f"{PLAYER} input.nplk-replay-loop")
    page.locator(f"{PLAYER} button[aria-label=Play]").click()
    page.wait_for_function("() => window.__nplkReplay.loops >= 1", timeout=60_000)
    page.locator(f"{PLAYER} button[aria-label=Pause]").click()
    assert page.evaluate("() => window.__nplkReplay.asked") == pytest.approx(1000 / 60)




def test_the_pages_download_buttons_give_a_gif_and_an_html_file_that_open(
        app_server, page, tmp_path):
    """Done when the exports open: both buttons under the replay download a file; the GIF
    decodes with one frame per player frame, the HTML file draws the same player."""
    import io

    from PIL import Image

    page.goto(app_server.url + tb.CLASSIFICATION_PATH + "?replay=true",
              wait_until="domcontentloaded")
    page.wait_for_selector(f"{PLAYER}[data-frames]", timeout=tb.FIRST_CHART_TIMEOUT_MS * 2)
    tb.wait_idle(page, 60_000)
    n = int(_attr(page, "frames"))
    # the speed and loop chosen here are the HTML file's (each choice reruns the page once)
    tb.count_runs(page)
    page.select_option(f"{PLAYER} select", "2")
    tb.wait_counted_run(page)
    tb.count_runs(page)
    page.locator(f"{PLAYER} input.nplk-replay-loop").check()
    tb.wait_counted_run(page)
    tb.wait_idle(page, 60_000)
    with page.expect_download(timeout=120_000) as dl:
        page.get_by_role("button", name="Replay as GIF").click()
    gif = tmp_path / dl.value.suggested_filename
    dl.value.save_as(gif)
    im = Image.open(io.BytesIO(gif.read_bytes()))
    assert gif.suffix == ".gif" and im.n_frames == n
    with page.expect_download(timeout=120_000) as dl:
        page.get_by_role("button", name="Replay as HTML (offline)").click()
    html = tmp_path / dl.value.suggested_filename
    dl.value.save_as(html)
    assert html.suffix == ".html"
    page.goto(html.as_uri(), wait_until="load")
    page.wait_for_selector(f"{PLAYER}[data-frames='{n}']", timeout=60_000)
    assert _attr(page, "frame") == "0"
    assert page.input_value(f"{PLAYER} select") == "2"
    assert page.is_checked(f"{PLAYER} input.nplk-replay-loop")
