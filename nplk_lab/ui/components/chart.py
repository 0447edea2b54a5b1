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
from importlib import resources
from pathlib import Path
from typing import Any

import streamlit as st
import streamlit.components.v1 as components_v1

from .titles import TITLE_FIT_JS


def _browser_file(name: str) -> str:
    """A browser file beside this module (package data), read by name."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


# Runs in the app page (no iframe) on every rerun that renders the element; the
# element -- and so ``root`` with the plot in it -- survives reruns while its key
# stays the same.
_JS = r"""
const addScript = (url) => new Promise((resolve, reject) => {
  const s = document.createElement('script');
  s.src = url;
  s.async = true;
  s.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error('no Plotly')));
  s.onerror = () => reject(new Error('cannot load ' + url));
  document.head.appendChild(s);
});

// Plotly.js gzipped once on disk (gz) and unzipped here: the server's gzip middleware
// would otherwise compress its 4.8 MB again for every tab (~0.5 s of CPU each). The
// plain file (src) is the fallback.
const fetchGz = (gz) => fetch(gz).then((r) => {
  if (!r.ok) throw new Error('cannot load ' + gz);
  return new Response(r.body.pipeThrough(new DecompressionStream('gzip'))).blob();
}).then((b) => addScript(URL.createObjectURL(new Blob([b], { type: 'text/javascript' }))));

// The page's charts are drawn one per frame, in the order the page sends them: the
// first (the main view) is on screen before the next one's draw starts, on a cold
// start as on a slider move that changes several charts.
// (A hidden tab runs no animation frames: a 200 ms timer stands in.)
const afterPaint = (fn) => {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 200);
};
// A chart's first draw, when another chart is on the page already (a cold start: the
// surface first), waits until the browser is idle (at most 1 s): the first picture is
// then on screen and the page answers before the rest of it is drawn.
const whenIdle = (fn) => (window.requestIdleCallback
  ? window.requestIdleCallback(() => fn(), { timeout: 1000 }) : setTimeout(fn, 100));
const inTurn = (draw, firstOfRoot) => {
  const turn = (window.__nplkTurn || Promise.resolve()).then(() => new Promise((go) => {
    if (firstOfRoot && window.__nplkAnyDrawn) afterPaint(() => whenIdle(go));
    else if (!window.__nplkDrewInFrame) go();
    else afterPaint(go);
  })).then(() => {
    const out = draw();
    if (out !== false) window.__nplkAnyDrawn = true;
    if (out !== false && !window.__nplkDrewInFrame) {
      window.__nplkDrewInFrame = true;
      afterPaint(() => { window.__nplkDrewInFrame = false; });
    }
    return out;
  });
  window.__nplkTurn = turn.catch(() => {});
  return turn;
};

const loadPlotly = (src, gz) => {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__nplkPlotly) {
    const first = gz && window.DecompressionStream ? fetchGz(gz).catch(() => addScript(src))
      : addScript(src);
    window.__nplkPlotly = first.catch((err) => { window.__nplkPlotly = null; throw err; });
  }
  return window.__nplkPlotly;
};

// Dark theme: Streamlit follows the browser's prefers-color-scheme (or the theme chosen
// in its settings); the charts follow the page's background. The figures are built with
// dark text for a light page; on a dark page their text, axes, grid and colour bars turn
// light and their backgrounds transparent (the data colours stay).
const pageBackground = () => {
  const el = document.querySelector('[data-testid="stApp"]') || document.body;
  const m = (getComputedStyle(el).backgroundColor || '').match(/[\d.]+/g);
  if (m && m.length >= 3 && !(m.length > 3 && +m[3] === 0)) return m.slice(0, 3).map(Number);
  const dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  return dark ? [14, 17, 23] : [255, 255, 255];
};
const isDark = () => {
  const [r, g, b] = pageBackground();
  return 0.299 * r + 0.587 * g + 0.114 * b < 128;
};
const DARK = { text: '#FAFAFA', tick: '#D5D6DC', grid: 'rgba(250,250,250,0.14)',
               line: 'rgba(250,250,250,0.45)' };
const withColor = (font, color) => Object.assign({}, font || {}, { color });
// Marks a figure flags as dark ink (meta "nplk-ink": true-class outlines over cluster
// shading) take the light text colour on a dark page; other marks keep their colours.
const lightInk = (t) => (!t || t.meta !== 'nplk-ink' ? t : Object.assign({}, t,
  t.marker ? { marker: Object.assign({}, t.marker, { color: DARK.text }) } : {},
  t.line ? { line: Object.assign({}, t.line, { color: DARK.text }) } : {}));
const themed = (layout, data) => {
  if (!isDark()) return [layout, data];
  const L = Object.assign({}, layout, { paper_bgcolor: 'rgba(0,0,0,0)',
                                        plot_bgcolor: 'rgba(0,0,0,0)' });
  L.font = withColor(L.font, DARK.text);
  if (L.title && typeof L.title === 'object') {
    L.title = Object.assign({}, L.title, { font: withColor(L.title.font, DARK.text) });
  }
  for (const k of Object.keys(L)) {
    if (!/^[xy]axis\d*$/.test(k) || !L[k] || typeof L[k] !== 'object') continue;
    const a = L[k] = Object.assign({}, L[k], { color: DARK.tick, gridcolor: DARK.grid,
      linecolor: DARK.line, zerolinecolor: DARK.line, tickcolor: DARK.line });
    a.tickfont = withColor(a.tickfont, DARK.tick);
    if (a.title && typeof a.title === 'object') {
      a.title = Object.assign({}, a.title, { font: withColor(a.title.font, DARK.text) });
    }
  }
  if (L.legend) {
    L.legend = Object.assign({}, L.legend, { font: withColor(L.legend.font, DARK.text),
                                             bgcolor: 'rgba(0,0,0,0)' });
    if (L.legend.title) L.legend.title = Object.assign({}, L.legend.title,
      { font: withColor(L.legend.title.font, DARK.text) });
  }
  // notes in a box keep their dark text on the light box; free text turns light
  if (Array.isArray(L.annotations)) {
    L.annotations = L.annotations.map((a) => (a && !a.bgcolor
      ? Object.assign({}, a, { font: withColor(a.font, DARK.text) }) : a));
  }
  const D = (data || []).map(lightInk).map((t) => {
    if (!t || !t.colorbar) return t;
    const cb = Object.assign({}, t.colorbar, { tickfont: withColor(t.colorbar.tickfont,
                                                                   DARK.tick) });
    if (cb.title && typeof cb.title === 'object') {
      cb.title = Object.assign({}, cb.title, { font: withColor(cb.title.font, DARK.text) });
    }
    return Object.assign({}, t, { colorbar: cb });
  });
  return [L, D];
};
""" + _browser_file("projector.js") + r"""
// a change of the browser's colour scheme redraws every chart in the new colours
const onSchemeChange = (fn) => {
  const hooks = (window.__nplkThemeHooks = window.__nplkThemeHooks || new Set());
  hooks.add(fn);
  if (!window.__nplkThemeListening && window.matchMedia) {
    window.__nplkThemeListening = true;
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      // Streamlit repaints its own background first
      setTimeout(() => window.__nplkThemeHooks.forEach((h) => h()), 50);
    });
  }
};

""" + TITLE_FIT_JS + r"""
// Clicks on the plot area (data.clicks): Plotly reports a click only on a trace's
// point, so the chart listens to the click its drag layer dispatches after a
// press-release without a drag (a drag still zooms), converts the pixel to data
// coordinates with the axes' own p2d, marks the spot at once and reports every click
// the page has not acknowledged yet (data.ack: the newest id it has applied), so
// clicks made while the server is busy are not lost.
const onPlotClick = (root, ev) => {
  const d = root.__nplkData;
  const t = ev.target;
  if (!d || !d.clicks || !t || !t.classList || !t.classList.contains('nsewdrag')) return;
  const fl = root._fullLayout;
  if (!fl || !fl.xaxis || !fl.yaxis || typeof fl.xaxis.p2d !== 'function') return;
  const r = t.getBoundingClientRect();
  const px = ev.clientX - r.left, py = ev.clientY - r.top;
  if (!(px >= 0 && py >= 0 && px <= r.width && py <= r.height)) return;
  // one press can arrive twice (the browser's click and Plotly's); a double click
  // adds one point
  const now = performance.now(), last = root.__nplkLastClick;
  if (last && now - last.t < 400 && Math.abs(ev.clientX - last.cx) < 6 &&
      Math.abs(ev.clientY - last.cy) < 6) return;
  root.__nplkLastClick = { t: now, cx: ev.clientX, cy: ev.clientY };
  const x = fl.xaxis.p2d(px), y = fl.yaxis.p2d(py);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return;
  const id = Math.max(Date.now(), (window.__nplkClickId || 0) + 1);
  window.__nplkClickId = id;
  const mark = document.createElement('div');
  mark.className = 'nplk-click-mark';
  mark.dataset.id = String(id);
  const rr = root.getBoundingClientRect();
  Object.assign(mark.style, {
    position: 'absolute', width: '10px', height: '10px', borderRadius: '50%',
    left: (ev.clientX - rr.left - 5) + 'px', top: (ev.clientY - rr.top - 5) + 'px',
    border: '2px solid ' + (d.markColor || '#333'), pointerEvents: 'none', zIndex: 10,
    boxSizing: 'border-box' });
  root.appendChild(mark);
  root.__nplkPending = (root.__nplkPending || []).concat([{ id, x, y }]).slice(-50);
  if (root.__nplkSend) root.__nplkSend('click', root.__nplkPending);
};

// A chart's data comes as JSON, or (the lab's cached figures, :func:`live_chart` with
// bytes) as bytes: one line of JSON with everything but the figure, a newline, then
// the figure's JSON gzipped (about 0.6 of its size on the wire), unzipped here.
const unpack = (raw) => {
  if (raw instanceof ArrayBuffer) raw = new Uint8Array(raw);
  if (!ArrayBuffer.isView(raw)) return raw;
  const bytes = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const cut = bytes.indexOf(10);
  const head = JSON.parse(new TextDecoder().decode(cut < 0 ? bytes : bytes.subarray(0, cut)));
  if (cut >= 0) head.figure = { gz: bytes.slice(cut + 1) };
  return head;
};
const gunzipJson = (gz) => {
  if (!window.DecompressionStream) {
    return Promise.reject(new Error('this browser cannot unzip the chart (it needs Chrome 80, ' +
                                    'Firefox 113, Safari 16.4 or newer)'));
  }
  return new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip')))
    .text().then(JSON.parse);
};
// The figures are read in the order they arrive (one queue for the page), so the charts
// still draw in the order the page sends them (see inTurn).
const readFigure = (figure) => {
  const read = () => (figure && figure.gz ? gunzipJson(figure.gz)
    : (typeof figure === 'string' ? JSON.parse(figure) : figure));
  const out = (window.__nplkRead || Promise.resolve()).then(read);
  window.__nplkRead = out.catch(() => {});
  return out;
};

export default function (component) {
  const { parentElement } = component;
  const data = unpack(component.data);
  if (!data) return;
  let root = parentElement.querySelector(':scope > .nplk-live-chart');
  if (!root) {
    root = document.createElement('div');
    root.className = 'nplk-live-chart';
    root.style.width = '100%';
    root.style.position = 'relative';
    parentElement.appendChild(root);
    root.addEventListener('click', (ev) => onPlotClick(root, ev));
    followColumn(root);
  }
  root.style.height = (data.height || 0) + 'px';
  // text alternative (data.alt, from nplk_lab.figures.alt_text) read on entering the
  // chart: a figure, not an img (its mode bar holds buttons)
  if (data.alt) { root.setAttribute('role', 'figure'); root.setAttribute('aria-label', data.alt); }
  else { root.removeAttribute('role'); root.removeAttribute('aria-label'); }
  root.__nplkData = data;
  root.__nplkSend = component.setTriggerValue;
  const ack = Number(data.ack || 0);
  root.__nplkPending = (root.__nplkPending || []).filter((c) => c.id > ack);
  root.querySelectorAll(':scope > .nplk-click-mark').forEach((m) => {
    if (!data.clicks || Number(m.dataset.id) <= ack) m.remove();
  });
  const ready = loadPlotly(data.src, data.gz);
  if (!data.figure) return;
  const seq = (root.__nplkSeq = (root.__nplkSeq || 0) + 1);
  const firstOfRoot = !root.__nplkDrawn;
  root.__nplkDrawn = true;
  // What the figure was built from (data.inputs, see live_chart), written on the plot
  // once Plotly has drawn it and no newer figure has arrived: data-drawn-from always
  // describes the picture on screen.
  const drawnFrom = (out) => {
    if (out === false || seq !== root.__nplkSeq) return;
    if (data.inputs) root.dataset.drawnFrom = data.inputs;
    else delete root.dataset.drawnFrom;
  };
  const figure = readFigure(data.figure);
  Promise.all([ready, figure]).then(([Plotly, fig]) => inTurn(() => {
    if (seq !== root.__nplkSeq) return false;  // a newer figure arrived meanwhile
    const layout = Object.assign({}, fig.layout || {}, { autosize: true });
    delete layout.width;
    if (!layout.font) layout.font = {};
    if (!layout.font.family) layout.font.family = '"Source Sans", "Source Sans Pro", sans-serif';
    const config = Object.assign({ responsive: true }, typeof data.config === 'string'
      ? JSON.parse(data.config) : (data.config || {}));
    const draw = () => {
      const floor = presentFloor();
      const [L0, D0] = presented(layout, fig.data || [], floor, presentBox(root));
      root.__nplkBox = floor ? window.__nplkPresentBox(root) : '';
      const [L, D] = themed(L0, D0);
      root.dataset.theme = isDark() ? 'dark' : 'light';
      root.__nplkFloor = floor;
      if (floor) root.dataset.fontFloor = String(floor);
      else delete root.dataset.fontFloor;
      return reactFitted(Plotly, root, D, L,
                         floor || presenting()
                           ? Object.assign({}, config, { displayModeBar: false }) : config);
    };
    root.__nplkRedraw = draw;
    if (!root.__nplkThemed) {
      root.__nplkThemed = true;
      onSchemeChange(() => { if (root.isConnected && root.__nplkRedraw) root.__nplkRedraw(); });
    }
    return draw();
  }, firstOfRoot)).then(drawnFrom).catch((err) => {
    root.textContent = 'The chart could not be drawn: ' + err.message +
      '. Reload the page; if it persists, check that the plotly package is installed.';
  });
}
"""


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
    gzipped, as :mod:`nplk_lab.ui.figure_cache` keeps it) and update it in place on
    reruns.

    A gzipped figure goes to the browser as bytes (the other data as one line of JSON
    before it): about 0.6 of the JSON's size, and Streamlit hashes the bytes instead of
    encoding a long JSON text twice more on every run (:func:`payload_of` reads both
    forms back).

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
    ``value`` is what the widget shows once this run is on screen. These are the
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
            if key is None or meta is None or meta.value_type not in _SHOWN_KINDS:
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


def payload_of(element: Any) -> dict[str, Any] | None:
    """The data a live chart element carries, its figure as JSON text (or None), from
    either form :func:`live_chart` sends (for tests and benchmarks); None for another
    element."""
    proto = getattr(element, "proto", element)
    if getattr(proto, "component_name", "") != "nplk_live_chart":
        return None
    if proto.WhichOneof("data") == "bytes":
        head, _, gz = proto.bytes.partition(b"\n")
        data = json.loads(head)
        data["figure"] = gzip.decompress(gz).decode() if gz else None
        return data
    return json.loads(proto.json) if proto.json else {}


def figure_of(element: Any) -> dict[str, Any] | None:
    """The figure dict a live chart element carries (for AppTest-based tests)."""
    data = payload_of(element)
    if data is None:
        return None
    fig = data.get("figure")
    return json.loads(fig) if isinstance(fig, str) else fig
