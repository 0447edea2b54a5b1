"""An HTML page that opens offline, the shell of every page the lab exports (the replay's
HTML file; the lesson file can take it too): Plotly.js inline, the page's data as inert
JSON, its scripts inline, and nothing fetched when it opens (from ``file://``, a USB stick
or a course site).

* :func:`plotly_js`: the minified Plotly.js inside the installed ``plotly`` package;
* :func:`inline_script` and :func:`inert_json`: code and JSON text made safe inside a
  ``<script>`` element (nothing in them can close it or open an HTML comment);
* :func:`offline_page`: the page (``offline_page.html`` beside this module) around the
  caller's body, style, data and scripts.

Text a user wrote goes in as JSON data, which the page's scripts put on screen with
``textContent`` only, or as the page's title, which is escaped here: never as HTML.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from string import Template

_ID = re.compile(r"[A-Za-z][\w-]*\Z")


@functools.lru_cache(maxsize=1)
def plotly_js() -> str:
    """The minified Plotly.js shipped inside the installed ``plotly`` package."""
    import plotly

    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(
        encoding="utf-8")


def inline_script(text: str) -> str:
    """Code safe inside a ``<script>`` element: nothing in it can close the element or
    open an HTML comment (``<\\/`` reads the same as ``</`` in JavaScript strings, regular
    expressions and comments)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def inert_json(text: str) -> str:
    """JSON text safe inside a ``<script type="application/json">`` element, and still the
    same JSON: ``<``, ``>`` and ``&`` (which only stand inside JSON strings) as ``\\u``
    escapes."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@functools.lru_cache(maxsize=1)
def _shell() -> Template:
    return Template(resources.files(__package__).joinpath("offline_page.html")
                    .read_text(encoding="utf-8"))


def offline_page(title: str, body: str, *, style: str = "",
                 data: Mapping[str, str] | None = None, scripts: Sequence[str] = ()) -> str:
    """One self-contained HTML page.

    Parameters
    ----------
    title : the page's title (plain text; escaped here).
    body : the page's own markup (from the lab's files; no user text in it).
    style : the page's CSS.
    data : element id -> JSON text, each in a ``<script type="application/json">``
        element after the body (the page's scripts read it with ``textContent``).
    scripts : code run after the body, in order, as classic scripts (one global scope).
    """
    data = data or {}
    bad = [k for k in data if not _ID.match(k)]
    if bad:
        raise ValueError(f"data element ids must be letters, digits, '-' or '_': {bad}")
    blobs = "\n".join(f'<script type="application/json" id="{k}">{inert_json(v)}</script>'
                      for k, v in data.items())
    code = "\n".join(f"<script>\n{inline_script(s)}\n</script>" for s in scripts)
    return _shell().substitute(title=html.escape(title), style=style,
                               plotly=inline_script(plotly_js()), body=body, data=blobs,
                               scripts=code)
