"""The components' browser code: ``.js``, ``.css`` and ``.html`` files beside these modules
(package data, shipped in the wheel), read by name with :mod:`importlib.resources`.

A Plotly component's script is several ``.js`` files joined in order into one ES module:
first what every such component shares (``plotly_common.js``: Plotly.js loaded once per
tab, charts drawn in turn, the page's theme, presentation mode's fonts; then
``titles.js``, the title fitted to its chart's width), then the component's own files.
Each file names what it takes from the parts before it (``/* global ... */``) and
what it leaves for the parts after it (``/* exported ... */``), which is how ESLint
(``tools/eslint.config.js``) reads them one by one.

Imports nothing of the lab: the components import this module when they are imported.
"""

from __future__ import annotations

from importlib import resources

#: the parts every Plotly component's script starts with, in order
COMMON = ("plotly_common.js", "titles.js")


def read(name: str, package: str | None = None) -> str:
    """The text of the browser file ``name`` beside this module (or in ``package``: a
    page's own files beside the module that uses them, e.g. ``nplk_lab.ui``)."""
    return resources.files(package or __package__).joinpath(name).read_text(
        encoding="utf-8")


def script(*names: str) -> str:
    """What every Plotly component shares, then the files ``names``, joined in order: the
    code of one scope (the definitions of each part are seen by the parts after it)."""
    return "\n".join([*map(read, COMMON), *map(read, names)])


def title_fit() -> str:
    """The title fit alone (``titles.js``): what the lesson file's player runs after each
    draw, without the components' common part."""
    return read("titles.js")


def component(*names: str, entry: str) -> str:
    """A Streamlit component's ES module: :func:`script` of ``names``, whose function
    ``entry`` Streamlit calls on every run that renders the element."""
    return f"{script(*names)}\nexport default {entry};\n"
