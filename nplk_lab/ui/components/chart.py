"""A Plotly chart that updates in place: the live view of every NPLK Lab page.

``st.plotly_chart`` (Streamlit 1.67) re-creates a chart whose figure changed: every
slider move pays a full ``Plotly.newPlot`` (axes, legend, every trace from scratch)
plus the mount of a new React element. This module mounts one
``st.components.v2`` component per chart instead; the component keeps its ``<div>``
across reruns and hands each new figure to ``Plotly.react``, which only redraws what
changed. Plotly.js itself is the copy that ships with the installed ``plotly``
package, served by Streamlit's static route for custom components (a v1 component
declared on that package folder, never rendered), and loaded once per browser tab:
gzipped once into the lab's cache directory and unzipped by the browser, because that
route gzips every response anew (~0.5 s of server CPU per tab for Plotly.js's 4.8 MB).

:func:`preload` mounts an invisible instance whose only job is to start that
download; pages call it before their heavy imports so the browser fetches and parses
Plotly.js while the server imports scikit-learn and fits the first model.

A live chart can also report clicks on its plot area in data coordinates
(``live_chart(..., on_click=...)``): the Classification page adds a point where the
user clicks without re-creating the chart, so the axes and any zoom stay put.

This module imports only Streamlit (nothing of :mod:`nplk_core`, which would pull in
scikit-learn): it must be cheap to import first.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
import streamlit.components.v1 as components_v1

from ..keys import OPEN
from . import browser_files

#: the live chart's browser code (plotly_common.js, the title fit, chart.js; entry liveChart)
_JS = browser_files.component("chart.js", entry="liveChart")


@functools.lru_cache(maxsize=1)
def _plotly_js_folder() -> str:
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("NPLK Lab needs the plotly package: pip install plotly")
    return str(Path(next(iter(spec.submodule_search_locations))) / "package_data")


@functools.lru_cache(maxsize=1)
def _plotly_gz_folder() -> str | None:
    """A folder holding ``plotly.min.js.gz``, written once per plotly version in the
    lab's cache directory (``NPLK_LAB_CACHE_DIR``, default ``~/.cache/nplk-lab``);
    None when it cannot be written or ``NPLK_LAB_PLOTLY_GZ=0`` (the plain file is then
    served)."""
    src = Path(_plotly_js_folder()) / "plotly.min.js"
    if os.environ.get("NPLK_LAB_PLOTLY_GZ", "1") == "0":
        return None
    try:
        stat = src.stat()
        root = os.environ.get("NPLK_LAB_CACHE_DIR") or str(Path.home() / ".cache" / "nplk-lab")
        folder = Path(root) / f"plotlyjs-{stat.st_size}-{int(stat.st_mtime)}"
        gz = folder / "plotly.min.js.gz"
        if not gz.exists():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = gz.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(gzip.compress(src.read_bytes(), compresslevel=6, mtime=0))
            os.replace(tmp, gz)
        return str(folder)
    except OSError:
        return None


_ONCE_LOCK = threading.Lock()
_ONCE: dict[str, tuple[Any, Any]] = {}   # name -> (runtime, what its declaration returned)


def once_per_runtime(name: str, declare: Callable[[], Any]) -> Any:
    """``declare()`` once per Streamlit runtime (a server, or an ``AppTest`` run), then
    its stored result.

    Declaring a v1 component calls ``inspect.getmodule``, which walks ``sys.modules``;
    on a fresh server, while other sessions' first runs are still importing, that walk
    failed about once in a hundred sessions ("RuntimeError: module is None"). Declared
    once, under a lock, a page run no longer touches it."""
    from streamlit import runtime

    rt = runtime.get_instance() if runtime.exists() else None
    with _ONCE_LOCK:
        hit = _ONCE.get(name)
        if hit is not None and hit[0] is rt and rt is not None:
            return hit[1]
        out = declare()
        _ONCE[name] = (rt, out)
        return out


def _declare() -> tuple[Any, dict[str, str]]:
    served = components_v1.declare_component("plotlyjs", path=_plotly_js_folder())
    live = st.components.v2.component("nplk_live_chart", js=_JS, isolate_styles=False)
    src = {"src": f"./component/{served.name}/plotly.min.js"}
    gz_folder = _plotly_gz_folder()
    if gz_folder is not None:
        gz = components_v1.declare_component("plotlyjs_gz", path=gz_folder)
        src["gz"] = f"./component/{gz.name}/plotly.min.js.gz"
    return live, src


def _register() -> tuple[Any, dict[str, str]]:
    """Register the live component and the Plotly.js routes with the running server,
    once per runtime (:func:`once_per_runtime`): a new server (or a new ``AppTest``
    runtime) registers them again."""
    return once_per_runtime("nplk_lab.ui.components.chart", _declare)


_PRELOADED = "nplk_plotly_preloaded"


def preload() -> None:
    """Start loading Plotly.js in the browser (an invisible element in the sidebar).
    Pages call it once per run, first, before importing the lab. Only a session's
    first run mounts the element (the browser page keeps Plotly.js once loaded, and
    every chart loads it too); later runs put an empty placeholder in its place, so the
    sidebar's elements keep their places, instead of sending the component again."""
    ss = st.session_state
    if ss.get(_PRELOADED):
        st.sidebar.empty()
        return
    live, src = _register()
    with st.sidebar:
        live(data={**src, "figure": None, "height": 0}, key="nplk_plotly_preload", height=0)
    ss[_PRELOADED] = True


def live_chart(fig: Any, *, key: str, config: dict[str, Any] | None = None,
               height: int | None = None, on_click: Callable[[], None] | None = None,
               ack: float = 0.0, mark_color: str | None = None,
               inputs: str | None = None, alt: str | None = None) -> None:
    """Draw ``fig`` (a plotly Figure, or its JSON with ``height`` given, or that JSON
    gzipped, as :mod:`nplk_lab.serve.figure_cache` keeps it) and update it in place on
    reruns.

    A gzipped figure goes to the browser as bytes (the other data as one line of JSON
    before it): about 0.6 of the JSON's size, and Streamlit hashes the bytes instead of
    encoding a long JSON text twice more on every run (the tests' ``_components``
    reads both forms back).

    ``key`` must stay the same across reruns for the in-place update; ``config`` is
    Plotly's config (modebar, PNG export). ``height`` defaults to the figure's own.

    With ``on_click``, a click on the plot area (not a drag, which zooms) is reported:
    ``on_click`` runs before the next script run and finds the clicks in
    :func:`clicks` ``(key)``; ``ack`` is the newest click id the page has applied (the
    chart resends the newer ones); ``mark_color`` colours the ring that marks a click
    until the page has applied it. A double click counts once and does not reset the
    axes.

    ``inputs`` (a JSON text, e.g. from :func:`drawn_widgets`) says what the figure was
    built from: once Plotly has drawn this figure, and no newer one has reached the
    chart meanwhile, the plot's element carries it as ``data-drawn-from``. A test
    compares it with the widgets on screen to know the picture is final (no rerun
    pending, nothing left to draw) without waiting for time to pass.

    ``alt`` is the chart's text alternative (``nplk_lab.figures.alt_text(fig)``): the
    plot's box becomes a figure (``role="figure"``) with that ``aria-label``.
    """
    live, src = _register()
    gz = None
    if isinstance(fig, bytes):
        text, gz = None, fig
    elif isinstance(fig, str):
        text = fig
    else:
        text = fig.to_json()
        height = height or fig.layout.height
    height = int(height or 450)
    # Every value is a string or a number: Streamlit checks each dict or list value of
    # ``data`` for a data frame, and that check imports pandas (~0.4 s on a cold start;
    # in a new server's concurrent first runs, a half-imported pandas broke plotly)
    config = dict(config or {})
    if on_click is not None:
        config["doubleClick"] = False
    data: Any = {**src, "figure": text, "config": json.dumps(config), "height": height}
    if inputs is not None:
        data["inputs"] = inputs
    if alt:
        data["alt"] = str(alt)
    if on_click is not None:
        data.update(clicks=True, ack=float(ack), markColor=mark_color or "")
    if gz is not None:
        del data["figure"]
        data = json.dumps(data, separators=(",", ":")).encode() + b"\n" + gz
    if on_click is None:
        live(data=data, key=key, height=height)
        return
    live(data=data, key=key, height=height, on_click_change=on_click)


# Streamlit's wire form of a widget value -> what :func:`drawn_widgets` reports (the
# value kinds a browser can show; buttons' triggers, uploads and components' JSON are
# not values on screen)
_SHOWN_KINDS = ("double_array_value", "string_array_value", "bool_value", "string_value",
                "double_value", "int_value")


def drawn_widgets() -> dict[str, list] | None:
    """``{key: [kind, value]}`` for every widget with a key drawn so far in this script
    run: its current value in the form Streamlit exchanges with the browser. ``kind``
    is the wire field (``double_array_value`` for a slider's numbers,
    ``string_array_value`` for a select slider's option labels, ``bool_value`` for a
    toggle, ``string_value`` for a radio's or select box's option label, ...), so
    ``value`` is what the widget shows once this run is on screen. A panel's open state
    (``keys.OPEN``) is left out: no figure is drawn from it. These are the
    widget values a figure drawn at this point was built from (a widget's value cannot
    change later in the run that drew it). None when Streamlit's run state cannot be
    read (no script run, or a Streamlit whose internals moved: ``tests/test_app.py``
    checks it reads the Classification page's widgets)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        from streamlit.runtime.state.common import user_key_from_element_id

        ctx = get_script_run_ctx(suppress_warning=True)
        drawn = ctx.shared.widget_ids_this_run.snapshot()
        state = ctx.session_state._state
        out: dict[str, list] = {}
        for wid in sorted(drawn):
            key = user_key_from_element_id(wid)
            meta = state.get_widget_metadata(wid)
            if key is None or meta is None or meta.value_type not in _SHOWN_KINDS or \
                    key.startswith(OPEN):    # a panel open or closed: nothing drawn from it
                continue
            try:
                value = meta.serializer(state.get_widget_value(wid))
            except KeyError:  # no value (yet)
                continue
            if meta.value_type.endswith("_array_value"):
                value = list(value)
            out[key] = [meta.value_type, value]
        return out
    except (AttributeError, ImportError, TypeError):
        return None


def clicks(key: str) -> Any:
    """The clicks a live chart with ``on_click`` reported in this run (a list of
    ``{"id", "x", "y"}`` in data coordinates, or None); read it in ``on_click``."""
    state = st.session_state.get(key)
    try:
        return state.get("click") if state is not None else None
    except AttributeError:
        return None
