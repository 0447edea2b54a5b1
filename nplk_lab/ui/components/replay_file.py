"""The training replay as one self-contained HTML file (for slides; opens offline).

Plotly.js (the installed ``plotly`` package's copy), the player of
:mod:`nplk_lab.ui.components.replay` (the same code as in the lab) and the frames, all
inline; the file plays at the speed and with the loop chosen in the lab's player.
Imports only Streamlit's side of the components (through that module) and the figures'
plot configuration.
"""

from __future__ import annotations

import json
from pathlib import Path

import nplk_lab.ui.components.chart as chart_component
from nplk_lab.ui.components.replay import _JS, _speed

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  body {{ font-family: "Source Sans Pro", "Segoe UI", Helvetica, Arial, sans-serif;
         margin: 1rem 1.5rem; color: #31333F; background: white; }}
  @media (prefers-color-scheme: dark) {{ body {{ color: #FAFAFA; background: #0E1117; }} }}
  h1 {{ font-size: 1.3rem; margin: 0 0 0.3rem; }}
  p {{ margin: 0.2rem 0 0.6rem; font-size: 0.95rem; }}
</style>
<script>{plotly}</script>
</head>
<body>
<h1>{title}</h1>
<p>{caption}</p>
<div id="nplk-replay-host"></div>
<script type="application/json" id="nplk-replay-figure">{figure}</script>
<script>
{player};
(function () {{
  const text = document.getElementById('nplk-replay-figure').textContent;
  window.__nplkPlayer({{
    data: {{ figure: text, step: 0, height: {height}, fps: {fps}, speed: {speed},
             loop: {loop}, config: {config} }},
    parentElement: document.getElementById('nplk-replay-host'),
    setStateValue: function () {{}},
  }});
}})();
</script>
</body>
</html>
"""


def _inline(text: str) -> str:
    """``text`` safe inside a ``<script>`` element: no ``</script`` (nor ``<!--``) can
    end or disturb it (``<\\/`` reads the same inside JS strings, regular expressions
    and JSON)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def standalone_html(figure_json: str, *, title: str, caption: str = "", fps: float = 15.0,
                    height: int = 560, speed: float = 1.0, loop: bool = False) -> str:
    """The replay ``figure_json`` as one HTML file: Plotly.js (the installed ``plotly``
    package's copy), the player (the same code as in the lab, with its speed and loop)
    and the frames, all inline. Nothing is fetched when it opens (offline, from a USB
    stick or a slide deck); it starts at the untrained model, press Play, and plays at
    ``speed`` (one of :data:`SPEEDS`; ValueError otherwise) and with ``loop`` as set
    (the ones chosen in the lab's player: :func:`reported_playback`)."""
    import html

    plotly_js = (Path(chart_component._plotly_js_folder()) / "plotly.min.js").read_text(
        encoding="utf-8")
    player = _JS.replace("export default function (component)",
                         "window.__nplkPlayer = function (component)", 1)
    if "window.__nplkPlayer" not in player:
        raise RuntimeError("the replay player's entry point was not found")
    from nplk_lab.figures.common import plot_config

    config = json.dumps(plot_config("nplk-replay"))
    return _PAGE.format(title=html.escape(title), caption=html.escape(caption),
                        plotly=_inline(plotly_js), figure=_inline(figure_json),
                        player=_inline(player), height=int(height), fps=float(fps),
                        speed=json.dumps(_speed(speed)), loop=json.dumps(bool(loop)),
                        config=config)
