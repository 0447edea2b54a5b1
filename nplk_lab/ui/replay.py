"""The training replay on a page: the toggle, the frames (cached per fit) and the player."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.ui.components.replay import replay_player, reported_playback, reported_step
from nplk_lab.ui.components.replay_file import standalone_html

from .keys import REPLAY_FRAMES, REPLAY_PAGE
from .running import fit_key, grid_for
from .sharing import cached
from .state import STORE, show_messages
from .widgets import control

_PLAYER = "replay_player"


def _on_step() -> None:
    """``on_step`` of the player (runs before the script): the reported position becomes
    the setting ``replay_step`` (and so part of the URL)."""
    k = reported_step(_PLAYER)
    ss = st.session_state
    if k is not None and STORE in ss:
        n = ss.get(REPLAY_FRAMES, {}).get(ss.get(REPLAY_PAGE), 0)
        ss[STORE]["replay_step"] = -1 if n and k >= n - 1 else max(int(k), 0)


def carried_step(step: int, n_old: int, n_new: int) -> int:
    """The position ``step`` of a replay of ``n_old`` frames in one of ``n_new`` frames:
    the same frame when the count is unchanged, else the same fraction of the run;
    −1 (the last frame) stays the last."""
    if step < 0 or n_new < 1:
        return -1
    if n_old == n_new or n_old < 2:
        return min(step, n_new - 1)
    return int(round(step / (n_old - 1) * (n_new - 1)))


def _replay_grid(data: lab.LabData, task: str) -> Any:
    if task == lab.CLASSIFICATION or data.n_features == 2:
        return grid_for(data)
    return lab.line_points(data.X)


def replay_panel(P: Mapping[str, Any], data: lab.LabData | None, res: lab.LabResult | None,
                 *, page: str) -> None:
    """The "Training replay" toggle; when on, the player of the shown fit below it."""
    if not control("replay") or data is None or res is None or not res.ok:
        return
    if data.n_features > 2:
        st.info("The replay draws the model on the plane or the line; these data have "
                f"{data.n_features} features.")
        return
    ext = lab.drawn_rule(res.method, P.get("extension"))
    fkey = fit_key(res.params, data, res.method)
    grid = _replay_grid(data, res.task)

    label = lab.METHODS[res.method].label
    title = f"{label}: training replay"

    def build() -> tuple[str | None, list[lab.Message], int, Any]:
        rp = lab.replay_frames(res, data, grid, P)
        if not rp.ok:
            return None, rp.messages, 0, None
        fig = fg.replay_figure(rp, data.X_train, data.y_train, data.X_test, data.y_test,
                               title=title)
        return fg.replay_json(fig), rp.messages, len(rp.played), rp
    text, msgs, n, rp = cached("figs", ("replay", fkey, ext), build)
    show_messages(msgs)
    if text is None:
        return
    ss = st.session_state
    store = ss[STORE]
    counts = ss.setdefault(REPLAY_FRAMES, {})
    step = carried_step(int(store.get("replay_step", -1)), int(counts.get(page, n) or n), n)
    store["replay_step"] = step
    counts[page] = n
    ss[REPLAY_PAGE] = page
    start = rp.start_text
    st.caption("Play runs in the browser from frames sent once; the position is kept in "
               "the link when you pause, step or release the slider. Left: the model at "
               "that iteration (rings: its support); right: the objective with the "
               "current iteration marked, and the learned matrix by class. "
               + (f"The first frame is the {start}." if rp.start is not None else
                  f"The first frame: {start}." if start else ""))
    speed, loop = reported_playback(_PLAYER)
    replay_player(text, key=_PLAYER, step=step, config=fg.plot_config(f"nplk-{page}-replay"),
                  speed=speed, loop=loop, on_step=_on_step)
    _replay_downloads(rp, data, text, title, page, speed, loop)


def _replay_downloads(rp: Any, data: lab.LabData, text: str, title: str, page: str,
                      speed: float = 1.0, loop: bool = False) -> None:
    """The replay as an animated GIF and as one self-contained HTML file (for slides),
    each made only when its button is pressed; the HTML file plays at the ``speed`` and
    with the ``loop`` chosen in the player."""
    def gif() -> bytes:
        return fg.replay_gif(rp, data.X_train, data.y_train, data.X_test, data.y_test,
                             title=title)

    def html() -> str:
        return standalone_html(text, title=title, caption=_html_caption(rp), speed=speed,
                               loop=loop)
    left, right = st.columns(2)
    left.download_button("Replay as GIF", gif, file_name=f"nplk-{rp.method}-replay.gif",
                         mime="image/gif", key=f"dl_replay_gif_{page}", on_click="ignore",
                         help="An animated GIF of every frame (untrained start first), for "
                              "slides or a document; it loops.")
    right.download_button("Replay as HTML (offline)", html,
                          file_name=f"nplk-{rp.method}-replay.html", mime="text/html",
                          key=f"dl_replay_html_{page}", on_click="ignore",
                          help="One HTML file with the player and every frame inside, set "
                               "to the speed and Loop chosen above: it opens in a browser "
                               "without the lab or a network.")


def _html_caption(rp: Any) -> str:
    return ("Press Play; choose the speed and Loop on the right of the bar. Left: the model "
            "at each iteration (rings: its support vectors); right: the objective with the "
            "current iteration marked and the learned matrix by class. "
            + (f"The first frame is the {rp.start_text}." if rp.start is not None else ""))
