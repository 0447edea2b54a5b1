"""The browser half of ``bench_app.py``: a slider move timed in Chromium on the
Classification page against the same move on a trivial page and on the lab's cut-down
surface page, with the probes that read the page's own redraw (which figures were drawn,
how long each took, the websocket's messages).

Imported by ``bench_app.py`` (run that); it shares its folder on ``sys.path``."""

from __future__ import annotations

import sys
import tempfile
import textwrap
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


TRIVIAL_PAGE = """
import streamlit as st

x = st.slider("x", 0, 1000, 500)
st.write(f"value: {x}")
if st.query_params.get("chart"):  # info row: the same page with a 3-point Plotly chart
    import plotly.graph_objects as go

    st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, x, 0])), key="c")
"""


# Floor of the browser rows: the Classification page cut down to its method controls
# and the decision surface (same lab code, same caches), nothing else on the page.
LAB_FLOOR_PAGE = """
import sys

sys.path.insert(0, {root!r})

import nplk_lab.ui.components.chart as chart_component
chart_component.preload()  # as the pages do, before the lab's imports

import nplk_lab.ui as ui
import streamlit as st
import nplk_lab.model as lab

P = ui.page_setup("classification", "Classification")
with st.sidebar:
    method = ui.method_controls("method", options=lab.CLASSIFICATION_METHODS)
data, _ = ui.get_data(lab.CLASSIFICATION)
res = ui.fit(P, data, method, page="classification")
ui.surface_chart(P, data, res, add_mode=False, add_label=0)
"""


def next_value(name: str, v0):
    import nplk_lab.model as lab

    grid = list(lab.setting(name).grid())
    i = grid.index(v0)
    return grid[i + 1] if i + 1 < len(grid) else grid[i - 1]


# Installs a per-page latency probe: t0 at the keydown, t1 at the first animation frame
# where fingerprint() differs from the value saved when the probe was armed.
PROBE_JS = """
(fpSource) => {
  const fingerprint = eval(fpSource);
  window.__fingerprint = fingerprint;
  window.__lat = null;
  document.addEventListener('keydown', () => {
    if (window.__lat && window.__lat.t0 === null) window.__lat.t0 = performance.now();
  }, true);
  const tick = () => {
    const L = window.__lat;
    if (L && L.t0 !== null && L.t1 === null) {
      const fp = fingerprint();
      if (fp !== null && fp !== L.fp0) L.t1 = performance.now();
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return true;
}
"""


ARM_JS = """() => { window.__lat = {t0: null, t1: null, fp0: window.__fingerprint()};
                   window.__msgs = []; }"""


# Added to every benchmark page before it loads: the receive time of each WebSocket
# message (Streamlit's forward messages) in window.__msgs.
WS_HOOK_JS = """
window.__msgs = [];
const NativeWS = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new NativeWS(...args);
  ws.addEventListener('message', () => window.__msgs.push(performance.now()));
  return ws;
};
window.WebSocket.prototype = NativeWS.prototype;
Object.assign(window.WebSocket, NativeWS);
window.__webgl = 0;  // WebGL contexts created (scattergl makes one per figure draw)
const nativeGetContext = HTMLCanvasElement.prototype.getContext;
HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
  const ctx = nativeGetContext.call(this, type, ...rest);
  if (ctx && /webgl/.test(String(type)) && !this.__nplkCounted) {
    this.__nplkCounted = true; window.__webgl += 1;
  }
  return ctx;
};
"""


# Redraw cost of a figure taken from the live page: Plotly.newPlot into a fresh div
# (what st.plotly_chart does on every change; the app's live charts use Plotly.react
# instead, so this is the cost of a first draw), median of 5, with the
# figure as the app sends it and with scattergl traces drawn as SVG scatter instead.
REDRAW_JS = """async (figs) => {
  const raf = () => new Promise(r => requestAnimationFrame(() => r()));
  const out = {};
  for (const [name, fig] of Object.entries(figs)) {
    for (const variant of ['as sent', 'scattergl as SVG scatter']) {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const f = JSON.parse(fig);
        if (variant !== 'as sent')
          f.data.forEach(t => { if (t.type === 'scattergl') t.type = 'scatter'; });
        const gd = document.createElement('div');
        gd.style.width = f.width + 'px'; gd.style.height = f.height + 'px';
        document.body.appendChild(gd);
        const t0 = performance.now();
        await Plotly.newPlot(gd, f.data, f.layout);
        await raf(); await raf();
        times.push(performance.now() - t0);
        Plotly.purge(gd); gd.remove();
      }
      times.sort((a, b) => a - b);
      out[name + ' — ' + variant] = times[2];
    }
  }
  return out;
}"""


# The figures on the live page, as JSON (typed-array copies dropped; the base64 data
# Plotly.js decodes are kept).
PAGE_FIGURES_JS = """() => {
  const out = {};
  [...document.querySelectorAll('.js-plotly-plot')]
    .forEach((gd, i) => {
      const kinds = [...new Set(gd.data.map(t => t.type))].join('+');
      const r = gd.getBoundingClientRect();
      out[`chart ${i + 1} (${gd.data.length} traces: ${kinds})`] = JSON.stringify(
        {data: gd.data, layout: gd.layout, width: Math.round(r.width),
         height: Math.round(r.height)},
        (k, v) => (k === '_inputArray' ? undefined : v));
    });
  return out;
}"""


SPLIT_JS = """() => {
  const L = window.__lat;
  const before = window.__msgs.filter(t => t >= L.t0 && t <= L.t1);
  const data = before.length ? Math.max(...before) : L.t0;
  return [L.t1 - L.t0, data - L.t0];
}"""


TRIVIAL_CHART_FINGERPRINT_JS = """
() => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  return gd && Array.isArray(gd.data) && gd.data.length ? JSON.stringify(gd.data[0].y) : null;
}
"""


TRIVIAL_FINGERPRINT_JS = """
() => {
  const el = [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .find(e => e.innerText.startsWith('value:'));
  return el ? el.innerText : null;
}
"""


def _cached_surface_fingerprint_js() -> str:
    """The test's surface fingerprint, recomputed only when the surface's data object
    changes (so the per-frame probe stays cheap)."""
    from _browser import SURFACE_FINGERPRINT_JS

    return f"""
(() => {{
  const full = {SURFACE_FINGERPRINT_JS};
  let ref = undefined, fp = null;
  return () => {{
    const gd = [...document.querySelectorAll('.js-plotly-plot')]
      .find(g => Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
    const now = gd ? gd.data : null;
    if (now !== ref) {{ ref = now; fp = full(); }}
    return fp;
  }};
}})()
"""


# The trivial pages are settled when they are idle and show what the slider shows: the
# written value, and (with ?chart=1) the chart's middle point, which Plotly draws after
# the run has ended.
def _trivial_settled_js() -> str:
    from _browser import IDLE_JS

    return f"""
() => {{
  if (!({IDLE_JS})()) return false;
  const input = document.querySelector('[data-testid="stSlider"] input[type="range"]');
  if (!input || ({TRIVIAL_FINGERPRINT_JS})() !== 'value: ' + input.value) return false;
  if (!new URLSearchParams(location.search).get('chart')) return true;
  return ({TRIVIAL_CHART_FINGERPRINT_JS})() === JSON.stringify([0, Number(input.value), 0]);
}}
"""


def settled_trivial(page, timeout_ms: int = 60_000) -> None:
    """Wait until a trivial page is idle and shows its slider's value."""
    page.wait_for_function(_trivial_settled_js(), timeout=timeout_ms, polling=20)


def move_once(page, slider, key: str, settled, timeout_ms: int = 60_000
              ) -> tuple[float, float]:
    """Press ``key`` on the focused slider; return (ms from keydown to the updated view,
    ms from keydown to the last WebSocket message received before that redraw); then
    wait until ``settled(page)``: the view shows the slider's value and no rerun is
    pending (a move can queue a trailing rerun; the next move must not overlap it)."""
    page.evaluate(ARM_JS)
    slider.focus()
    page.keyboard.press(key)
    page.wait_for_function("() => window.__lat && window.__lat.t1 !== null",
                           timeout=timeout_ms, polling=20)
    lat, data = page.evaluate(SPLIT_JS)
    settled(page)
    return float(lat), float(data)


def browser_bench(moves: int, chromium: str) -> tuple[dict[str, list[float]], dict]:
    from _browser import (
        CLASSIFICATION_PATH,
        VIEWPORT,
        StreamlitServer,
        launch_browser,
        settled_surface,
        slider,
        wait_idle,
        wait_surface,
    )
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = defaultdict(list)
    info: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        trivial = Path(tmp) / "trivial.py"
        trivial.write_text(textwrap.dedent(TRIVIAL_PAGE))
        floor = Path(tmp) / "lab_floor.py"
        floor.write_text(LAB_FLOOR_PAGE.format(root=str(ROOT)))
        with StreamlitServer("app.py", log=Path(tmp) / "app.log") as app, \
                StreamlitServer(trivial, cwd=tmp, log=Path(tmp) / "trivial.log") as triv, \
                StreamlitServer(floor, cwd=tmp, log=Path(tmp) / "floor.log") as flo, \
                sync_playwright() as pw:
            browser = launch_browser(pw, chromium)
            pages = []
            for _ in range(4):
                ctx = browser.new_context(viewport=VIEWPORT)
                ctx.add_init_script(WS_HOOK_JS)
                pages.append(ctx.new_page())
            pa, pt, pc, pf = pages
            for pg, url in ((pa, app.url + CLASSIFICATION_PATH), (pf, flo.url)):
                pg.goto(url)
                wait_surface(pg)
                settled_surface(pg)
                pg.evaluate(PROBE_JS, _cached_surface_fingerprint_js())
            for pg, url, fp in ((pt, triv.url, TRIVIAL_FINGERPRINT_JS),
                                (pc, triv.url + "/?chart=1", TRIVIAL_CHART_FINGERPRINT_JS)):
                pg.goto(url)
                pg.wait_for_function(f"({fp})() !== null", timeout=60_000)
                wait_idle(pg)
                pg.evaluate(PROBE_JS, fp)
            s_trivial, s_chart = slider(pt, "x"), slider(pc, "x")
            s_sigma, s_tau = slider(pa, "σ"), slider(pa, "τ")
            s_floor = slider(pf, "σ")
            # warm-up: one round trip each, and visit σ's second value once
            settles = {pt: settled_trivial, pc: settled_trivial,
                       pa: settled_surface, pf: settled_surface}
            for pg, sl in ((pt, s_trivial), (pc, s_chart), (pa, s_sigma), (pf, s_floor)):
                move_once(pg, sl, "ArrowRight", settles[pg])
                move_once(pg, sl, "ArrowLeft", settles[pg])
            hi, now = s_tau.evaluate("el => [Number(el.max), Number(el.value)]")
            n_tau = int(hi - now)  # τ values above the default: each one fresh
            for i in range(moves):
                key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
                for name, pg, sl, k in (("trivial", pt, s_trivial, key),
                                        ("sigma_revisit", pa, s_sigma, key),
                                        ("trivial_chart", pc, s_chart, key),
                                        ("lab_floor", pf, s_floor, key),
                                        ("tau_fresh", pa, s_tau, "ArrowRight")):
                    if name == "tau_fresh" and i >= n_tau:
                        continue
                    lat, data = move_once(pg, sl, k, settles[pg])
                    out[name].append(lat)
                    out[name + ":data"].append(data)
            # does a move re-create the charts (and their WebGL contexts)?
            pa.evaluate("() => { window.__webgl0 = window.__webgl; document.querySelectorAll("
                        "'.js-plotly-plot').forEach(g => { g.__nplkOld = true; }); }")
            move_once(pa, s_sigma, "ArrowRight", settled_surface)
            info["remount"] = pa.evaluate(
                "() => { const g = [...document.querySelectorAll('.js-plotly-plot')];"
                " return [g.filter(x => !x.__nplkOld).length, g.length,"
                " window.__webgl - window.__webgl0]; }")
            shots = ROOT / "test-artifacts"
            shots.mkdir(exist_ok=True)
            pa.screenshot(path=str(shots / "bench-app-last.png"))
            figs = pa.evaluate(PAGE_FIGURES_JS)
            # redraw cost of those figures with the Plotly.js that ships with plotly.py
            import plotly

            js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
            if js.exists():
                blank = pages[1]
                blank.goto("about:blank")
                blank.add_script_tag(path=str(js))
                info["redraw"] = blank.evaluate(REDRAW_JS, figs)
                info["plotly.js"] = blank.evaluate("() => Plotly.version")
            browser.close()
    return out, info
