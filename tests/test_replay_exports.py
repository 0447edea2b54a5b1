"""The training replay's exports: an animated GIF drawn on the server (numpy and Pillow,
no browser) and one self-contained HTML file with the player, its frames and Plotly.js.

The browser half (the HTML file opened from ``file://`` plays at 10 frames/s or more,
loops, fetches nothing) is in ``test_browser_replay_exports.py``.
"""

import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import nplk_lab.figures as fg
import nplk_lab.model as lab

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _replay(task, method, **kw):
    P = {**lab.defaults(), "n_samples": 80, **kw}
    data, msgs = lab.prepare_data(P, task)
    assert data is not None, msgs
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    assert res.ok, res.messages
    grid = lab.make_grid(data.X, 40) if task == lab.CLASSIFICATION or data.n_features == 2 \
        else lab.line_points(data.X, 120)
    rp = lab.replay_frames(res, data, grid, P)
    assert rp.ok, rp.messages
    return rp, data


def _frames(gif: bytes) -> list[np.ndarray]:
    im = Image.open(io.BytesIO(gif))
    out = []
    for k in range(im.n_frames):
        im.seek(k)
        out.append(np.asarray(im.convert("RGB")))
    return out


@pytest.mark.parametrize("task,method,kw", [
    (lab.CLASSIFICATION, "dank", {}),
    (lab.REGRESSION, "dank_svr", {"reg_dataset": "harmonic"}),
    (lab.REGRESSION, "lab_rbf_reg", {}),
])
@pytest.mark.slow
def test_gif_has_one_frame_per_replay_frame_and_loops(task, method, kw):
    rp, data = _replay(task, method, **kw)
    gif = fg.replay_gif(rp, data.X_train, data.y_train, data.X_test, data.y_test,
                        title="replay")
    im = Image.open(io.BytesIO(gif))
    assert im.format == "GIF" and im.n_frames == len(rp.played)
    assert im.info.get("loop") == 0                      # loops forever
    frames = _frames(gif)
    # the model moves: the first and the last pictures differ in the main panel
    diff = np.abs(frames[0].astype(int) - frames[-1].astype(int)).sum(axis=2)
    assert (diff > 30).mean() > 0.01
    # durations: the start and the end are held, the rest play at GIF_FPS
    durations = []
    for k in range(im.n_frames):
        im.seek(k)
        durations.append(im.info["duration"])
    assert durations[0] >= 1000 and durations[-1] >= 1000
    if len(durations) > 2:
        assert max(durations[1:-1]) == round(1000 / fg.replay.GIF_FPS)


def test_gif_surface_colours_follow_the_values():
    """Where the final model is most positive the GIF is red, most negative blue (the
    player's diverging scale), read back from the decoded pixels."""
    from nplk_lab.figures.replay import _resample

    rp, data = _replay(lab.CLASSIFICATION, "dank")
    gif = fg.replay_gif(rp, data.X_train, data.y_train, title="replay", size=300)
    last = _frames(gif)[-1]
    V = _resample(rp.frames[-1].values, 300, 300)
    hi = np.unravel_index(np.argmax(V), V.shape)
    lo = np.unravel_index(np.argmin(V), V.shape)
    pad, head = 12, 58
    r_hi = last[head + hi[0], pad + hi[1]]
    r_lo = last[head + lo[0], pad + lo[1]]
    assert r_hi[0] > r_hi[2] and r_lo[2] > r_lo[0]


def _settings(html: str) -> dict:
    """The settings a replay file starts its player with (its JSON data element)."""
    m = re.search(r'<script type="application/json" id="nplk-replay-settings">(.*?)</script>',
                  html, flags=re.S)
    assert m is not None
    return json.loads(m.group(1))


def _playback(html: str) -> tuple[float, bool]:
    s = _settings(html)
    return s["speed"], s["loop"]


def test_html_keeps_the_speed_and_loop_chosen_in_the_player(monkeypatch):
    """The file carries the speed and loop it is given (the player applies them to a new
    player: tests/test_browser_replay_exports.py); the page gives it what the browser
    reported, ignoring anything that is not one of the player's speeds or a true/false."""
    import nplk_lab.ui.components.replay as replay_component
    import nplk_lab.ui.components.replay_file as replay_file

    text = '{"data":[],"layout":{},"frames":[]}'
    assert _playback(replay_file.standalone_html(text, title="t")) == (1.0, False)
    html = replay_file.standalone_html(text, title="t", speed=0.25, loop=True)
    assert _playback(html) == (0.25, True)
    assert "applyPlayback(root, data.speed, data.loop)" in html
    with pytest.raises(ValueError):
        replay_file.standalone_html(text, title="t", speed=3)
    # the speeds the player's menu offers are the ones a file accepts
    js = re.search(r"const SPEEDS = \[([^\]]*)\]", replay_component._JS).group(1)
    assert tuple(float(v) for v in js.split(",")) == replay_component.SPEEDS

    class FakeSt:
        session_state: dict = {}
    monkeypatch.setattr(replay_component, "st", FakeSt)
    FakeSt.session_state = {"p": {"step": 3, "speed": 2, "loop": True}}
    assert replay_component.reported_playback("p") == (2.0, True)
    FakeSt.session_state = {"p": {"speed": "9e9", "loop": "yes"}}
    assert replay_component.reported_playback("p", 0.5, False) == (0.5, False)
    FakeSt.session_state = {}
    assert replay_component.reported_playback("p") == (1.0, False)


def test_html_is_self_contained():
    import nplk_lab.ui.components.replay_file as replay_file

    rp, data = _replay(lab.CLASSIFICATION, "dank")
    fig = fg.replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test,
                           title="DANK: training replay")
    text = fg.replay_json(fig)
    html = replay_file.standalone_html(text, title="DANK: training replay <demo>",
                                      caption=rp.start_text)
    # no element loads anything: no src/href attributes, no <link>, no import()
    tags = re.sub(r"<script\b[^>]*>.*?</script>", "", html, flags=re.S)
    assert not re.search(r"\b(src|href)\s*=", tags, flags=re.I)
    assert "<link" not in tags and "@import" not in tags
    assert not re.search(r"<script\b[^>]*\bsrc\s*=", html, flags=re.I)
    # four scripts (Plotly.js, the figure, the settings, the player), each closed once
    # (nothing inside closes one early)
    assert html.count("<script") == 4 and html.count("</script>") == 4
    # the figure rides inside, intact; the title is escaped in the page's title and
    # travels as data to the heading (put there as text)
    blob = re.search(r'<script type="application/json" id="nplk-replay-figure">(.*?)'
                     r"</script>", html, flags=re.S).group(1)
    assert json.loads(blob) == json.loads(text)
    assert len(json.loads(text)["frames"]) == len(rp.played)
    assert "<title>DANK: training replay &lt;demo&gt;</title>" in html
    assert "<demo>" not in html
    assert _settings(html)["title"] == "DANK: training replay <demo>"
    # the player is the lab's own code, started by the file's part
    assert "function playReplay(component)" in html and "playReplay({" in html
