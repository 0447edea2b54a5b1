"""Real-browser test of the training replay: /Classification?replay=true shows the
player; Play steps through the frames in the browser (the painted picture changes from
frame to frame) while the browser sends the server nothing (no rerun: the WebSocket
carries no message, and Streamlit's script state stays idle); the playback rate is
printed. Pausing reports the position, which lands in the URL (``replay_step``).

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``); skips when either is missing. Run alone with::

    python -m pytest tests/test_browser_replay.py -q -s -m browser
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

import _browser as tb
import pytest
from _browser import ARTIFACTS, CLASSIFICATION_PATH, exception_texts, wait_idle

# the server, browser and page fixtures of the first browser test

pytestmark = pytest.mark.browser

PLAYER = ".nplk-replay"

#: a fingerprint of what the player painted: a hash of the canvas pixels (null before)
CANVAS_HASH_JS = """
() => {
  const c = document.querySelector('.nplk-replay canvas.nplk-replay-canvas');
  if (!c) return null;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 5381;
  for (let i = 0; i < d.length; i += 7) h = ((h << 5) + h + d[i]) | 0;
  return h;
}
"""

SCRIPT_STATE_JS = """
() => document.querySelector('[data-testid="stApp"]').dataset.testScriptState
"""


# Every frame the player paints, recorded in the page as it is painted: a
# MutationObserver on the player's data-frame (its callback runs right after each paint,
# before the next frame's timer), with the canvas fingerprint and Streamlit's script
# state at that moment. No frame is missed however slowly the test process samples.
WATCH_FRAMES_JS = f"""
() => {{
  const root = document.querySelector('{PLAYER}');
  const hash = {CANVAS_HASH_JS};
  const state = {SCRIPT_STATE_JS};
  const seen = window.__nplkSeen = [];
  const obs = new MutationObserver(() => seen.push([root.dataset.frame, hash(), state()]));
  obs.observe(root, {{attributes: true, attributeFilter: ['data-frame']}});
  window.__nplkSeenStop = () => {{ obs.disconnect(); return seen; }};
}}
"""


def player_attr(page, name: str) -> str | None:
    return page.evaluate(f"() => {{ const r = document.querySelector('{PLAYER}');"
                         f" return r ? r.dataset.{name} || null : null; }}")


def open_replay(page, url: str) -> int:
    """Open the page with the replay on; wait until the player has drawn its figure;
    return its frame count."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector(f"{PLAYER}[data-frames]", timeout=tb.FIRST_CHART_TIMEOUT_MS * 2)
    page.wait_for_function(f"({CANVAS_HASH_JS})() !== null", timeout=30_000)
    wait_idle(page, 60_000)
    page.locator(PLAYER).scroll_into_view_if_needed()
    return int(player_attr(page, "frames"))


def test_replay_plays_in_the_browser_without_reruns(app_server, page):
    sent: list[float] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda _: sent.append(time.monotonic())))
    n = open_replay(page, app_server.url + CLASSIFICATION_PATH + "?replay=true")
    assert n >= 5, f"only {n} frames"
    assert int(player_attr(page, "frame")) == n - 1       # the final fit first
    assert not exception_texts(page), exception_texts(page)  # the run is over (idle)

    # frame 0 and the final frame paint different pictures
    page.locator(f"{PLAYER} input[type=range]").fill("0")
    page.wait_for_function(f"() => document.querySelector('{PLAYER}').dataset.frame === '0'")
    first = page.evaluate(CANVAS_HASH_JS)
    # moving the slider reports the position (a rerun that writes it into the URL): wait
    # for that rerun to be over, so that no run the test itself caused overlaps the play
    tb.wait_url(page, "replay_step", 0)

    # looping, the player never stops by itself: the Pause button is there whenever the
    # test gets to it (without, a slow test process could find the play over and Pause
    # gone after the last few frames)
    # ... and Loop is reported to the page too (the replay's HTML export keeps it): one
    # rerun, waited for like the slider's, so it cannot overlap the play
    tb.count_runs(page)
    page.locator(f"{PLAYER} input.nplk-replay-loop").check()
    tb.wait_counted_run(page)
    before = len(sent)
    page.evaluate(WATCH_FRAMES_JS)
    page.locator(f"{PLAYER} button[aria-label=Play]").click()
    page.wait_for_function(   # it plays on to frame 12 (or the last but one)
        f"(k) => Number(document.querySelector('{PLAYER}').dataset.frame) >= k",
        arg=min(n - 2, 12), timeout=tb.RERUN_TIMEOUT_MS, polling=50)
    during = len(sent) - before
    painted = page.evaluate("() => window.__nplkSeenStop()")
    assert all(state == "notRunning" for _, _, state in painted), (
        "a rerun started during play", painted)
    hashes = {first} | {h for _, h, _ in painted}
    seen_frames = {k for k, _, _ in painted}
    stats = page.evaluate("() => window.__nplkReplay")
    tb.count_runs(page)   # the rerun the pause's report causes, counted from here
    page.locator(f"{PLAYER} button[aria-label=Pause]").click()
    fps = (stats["drawn"] - 1) / max((stats["t1"] - stats["t0"]) / 1000, 1e-9)
    print(f"\nreplay playback: {stats['drawn']} frames at {fps:.1f} frames/s "
          f"(100 x 100 grid, {n} frames), {len(hashes)} distinct pictures, "
          f"{during} WebSocket messages to the server while playing")
    page.screenshot(path=str(ARTIFACTS / "replay-playing.png"))
    assert during == 0, f"the browser sent {during} messages to the server while playing"
    assert len(seen_frames) >= 4, seen_frames
    assert len(hashes) >= 4, "the painted picture did not change between frames"

    # pausing reports the position: it lands in the URL (a rerun, then idle again; the
    # run is counted, as a looped play can pause on frame 0, already in the URL)
    k = int(player_attr(page, "frame"))
    # the last frame is the final fit, written -1 (a looped play of a short replay, six
    # frames for DANK by Newton's method, can pause there)
    step = -1 if k >= n - 1 else k
    tb.wait_counted_run(page)
    tb.wait_url(page, "replay_step", step)
    assert parse_qs(urlparse(page.url).query)["replay_step"] == [str(step)]
    assert int(player_attr(page, "frame")) == k           # the rerun kept the position
    assert not exception_texts(page), exception_texts(page)
