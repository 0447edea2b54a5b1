"""The training replay as one self-contained HTML file (for slides; opens offline).

Plotly.js (the installed ``plotly`` package's copy), the player of
:mod:`nplk_lab.ui.components.replay` (the same code as in the lab, ``replay.js``, started
by ``replay_file.js``) and the frames, all inline in the lab's offline page
(:mod:`nplk_lab.figures.offline_page`); the file plays at the speed and with the loop
chosen in the lab's player. Imports only Streamlit's side of the components when imported;
the offline page and the figures' plot configuration when it makes a file.
"""

from __future__ import annotations

import json

from . import browser_files
from .replay import _speed


def standalone_html(figure_json: str, *, title: str, caption: str = "", fps: float = 15.0,
                    height: int = 560, speed: float = 1.0, loop: bool = False) -> str:
    """The replay ``figure_json`` as one HTML file: Plotly.js (the installed ``plotly``
    package's copy), the player (the same code as in the lab, with its speed and loop)
    and the frames, all inline. Nothing is fetched when it opens (offline, from a USB
    stick or a slide deck); it starts at the untrained model, press Play, and plays at
    ``speed`` (one of :data:`SPEEDS`; ValueError otherwise) and with ``loop`` as set
    (the ones chosen in the lab's player: :func:`reported_playback`). The title and the
    caption are shown as the characters given, never read as HTML."""
    from nplk_lab.figures.common import plot_config
    from nplk_lab.figures.offline_page import offline_page

    settings = {"title": title, "caption": caption, "height": int(height), "fps": float(fps),
                "speed": _speed(speed), "loop": bool(loop),
                "config": plot_config("nplk-replay")}
    return offline_page(
        title, browser_files.read("replay_file.html"),
        style=browser_files.read("replay_file.css"),
        data={"nplk-replay-figure": figure_json, "nplk-replay-settings": json.dumps(settings)},
        scripts=[browser_files.script("replay.js", "replay_file.js")])
