"""The training-replay player: a Plotly figure with frames, played in the browser.

One ``st.components.v2`` component (beside :mod:`.chart`, whose Plotly.js route and
loader it shares: :func:`chart_component._register` serves the ``plotly`` package's copy and
the loader keeps one download per tab in ``window.__nplkPlotly``). The figure and all
its frames (``nplk_lab.figures.replay.replay_json``) are sent once per fit; play, pause,
step back/forward and the scrub slider then run in the browser with no server round trip
per frame. Plotly draws the static part once (axes, data, legend, colour bars, the
objective's line); each frame is painted on a canvas below Plotly's SVG from the
pre-decoded arrays (the surface as a 100 × 100 image through the colour scale's levels,
level lines, support rings, the objective marker, the learned matrix): about 1 ms per
frame, where a ``Plotly.react`` of the whole figure took 150-300 ms. The position
is reported back (``on_step_change``) only when playback stops, on a step or when the
slider is released, so the page can keep it in the URL (setting ``replay_step``); the
speed and Loop chosen are reported too (:func:`reported_playback`), so a new player and
the replay's HTML file (:mod:`nplk_lab.ui.components.replay_file`) start with them.

For tests, the player's element (class ``nplk-replay``) carries ``data-frame`` (the
frame drawn), ``data-frames`` (how many) and ``data-drawn`` (frames drawn since the
figure arrived); ``window.__nplkReplay`` keeps ``{drawn, t0, t1, asked}`` of the last
playback (frames drawn, the first and last draw's ``performance.now()``, and the time
between frames in ms the speed asks for).

Imports only Streamlit and :mod:`nplk_lab.ui.components.chart` (cheap to import first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

import nplk_lab.ui.components.chart as chart_component

from . import browser_files

#: the player's browser code (plotly_common.js, the title fit, replay.js; entry playReplay):
#: the loader is the chart component's, so Plotly.js loads once per tab
_JS = browser_files.component("replay.js", entry="playReplay")


def _register() -> tuple[Any, str]:
    """Register the player (and, through :func:`chart_component._register`, the Plotly.js
    route) with the running server; once per runtime (chart_component.once_per_runtime)."""
    _, src = chart_component._register()
    player = chart_component.once_per_runtime("replay_player", lambda: st.components.v2.component(
        "nplk_replay", js=_JS, isolate_styles=False))
    return player, src


#: the play speeds the player offers (1× = ``fps`` frames per second)
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


def replay_player(figure_json: str, *, key: str, step: int = -1, height: int = 560,
                  config: dict[str, Any] | None = None, fps: float = 15.0,
                  speed: float = 1.0, loop: bool = False,
                  on_step: Callable[[], None] | None = None) -> Any:
    """Show the replay ``figure_json`` (with frames) at frame ``step`` (−1 = the last).

    The frames play in the browser; ``on_step`` runs before the next script run when the
    user has moved the position (paused, stepped, released the slider), and
    :func:`reported_step` ``(key)`` gives the new position there. A new ``figure_json``
    (a refit) or a new ``step`` redraws; the same ones leave a playing replay alone.
    ``speed`` and ``loop`` are those a new player starts with; the ones chosen in it
    are reported (:func:`reported_playback`)."""
    player, src = _register()
    data = {"src": src, "figure": figure_json, "step": int(step), "height": int(height),
            "config": config or {}, "fps": float(fps), "speed": _speed(speed),
            "loop": bool(loop)}
    # a state key is kept only with its callback: empty ones for the speed and loop
    return player(data=data, key=key, height=int(height) + 48,
                  on_step_change=on_step or (lambda: None),
                  on_speed_change=lambda: None, on_loop_change=lambda: None)


def reported_step(key: str) -> int | None:
    """The frame index the player reported in this run (None if it did not)."""
    state = st.session_state.get(key)
    try:
        v = state.get("step") if state is not None else None
        return None if v is None else int(v)
    except (AttributeError, TypeError, ValueError):
        return None


def _speed(v: Any) -> float:
    """``v`` if it is one of :data:`SPEEDS`, else ValueError."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = float("nan")
    if f not in SPEEDS:
        raise ValueError(f"the replay's speed is one of {SPEEDS}, not {v!r}")
    return f


def reported_playback(key: str, speed: float = 1.0, loop: bool = False
                      ) -> tuple[float, bool]:
    """(speed, loop) chosen in the player ``key`` (what the browser reported; anything
    else than one of :data:`SPEEDS` and a true/false is ignored), else the given ones."""
    state = st.session_state.get(key)
    try:
        s, lp = state.get("speed"), state.get("loop")
    except AttributeError:
        return speed, loop
    try:
        speed = _speed(s) if s is not None else speed
    except ValueError:
        pass
    return speed, (lp if isinstance(lp, bool) else loop)
