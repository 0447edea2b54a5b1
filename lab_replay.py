"""The training-replay player: a Plotly figure with frames, played in the browser.

One ``st.components.v2`` component (beside :mod:`lab_chart`, whose Plotly.js route and
loader it shares: :func:`lab_chart._register` serves the ``plotly`` package's copy and
the loader keeps one download per tab in ``window.__nplkPlotly``). The figure and all
its frames (``nplk_figures.replay.replay_json``) are sent once per fit; play, pause,
step back/forward and the scrub slider then run in the browser, one ``Plotly.react``
per frame on the pre-decoded arrays, with no server round trip per frame. The position
is reported back (``on_step_change``) only when playback stops, on a step or when the
slider is released, so the page can keep it in the URL (setting ``replay_step``).

For tests, the player's element (class ``nplk-replay``) carries ``data-frame`` (the
frame drawn), ``data-frames`` (how many) and ``data-drawn`` (frames drawn since the
figure arrived); ``window.__nplkReplay`` keeps ``{drawn, t0, t1}`` of the last playback
(frames drawn and the first and last draw's ``performance.now()``).

Imports only Streamlit and :mod:`lab_chart` (cheap to import first).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st

import lab_chart

#: the loader of lab_chart's component (shared so Plotly.js loads once per tab)
_LOADER = lab_chart._JS[: lab_chart._JS.index("// Clicks on the plot area")] \
    if "// Clicks on the plot area" in lab_chart._JS else ""

_JS = _LOADER + r"""
const DT = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array,
             i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };

// {dtype, bdata, shape} specs (nplk_figures.common) to typed arrays, once per figure,
// so that no frame pays for base64 decoding; 2-D specs become arrays of row views.
const decode = (v) => {
  if (Array.isArray(v)) return v.map(decode);
  if (!v || typeof v !== 'object') return v;
  if (typeof v.bdata === 'string' && DT[v.dtype]) {
    const bin = atob(v.bdata);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const a = new DT[v.dtype](bytes.buffer);
    if (!v.shape) return a;
    const [r, c] = String(v.shape).split(',').map((s) => parseInt(s, 10));
    const rows = [];
    for (let i = 0; i < r; i++) rows.push(a.subarray(i * c, (i + 1) * c));
    return rows;
  }
  const out = {};
  for (const k of Object.keys(v)) out[k] = decode(v[k]);
  return out;
};

const button = (label, text) => {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.setAttribute('aria-label', label);
  b.title = label;
  Object.assign(b.style, { minWidth: '2.4rem', padding: '0.2rem 0.6rem', cursor: 'pointer',
    border: '1px solid rgba(49,51,63,0.3)', borderRadius: '0.4rem', background: 'white',
    fontSize: '1rem' });
  return b;
};

const setup = (parentElement) => {
  const root = document.createElement('div');
  root.className = 'nplk-replay';
  root.style.width = '100%';
  const bar = document.createElement('div');
  Object.assign(bar.style, { display: 'flex', alignItems: 'center', gap: '0.5rem',
    margin: '0.25rem 0' });
  const back = button('Step back', '⏮');
  const play = button('Play', '▶');
  const fwd = button('Step forward', '⏭');
  const slider = document.createElement('input');
  slider.type = 'range';
  slider.min = '0';
  slider.step = '1';
  slider.setAttribute('aria-label', 'Replay position');
  slider.style.flex = '1';
  const label = document.createElement('span');
  label.className = 'nplk-replay-label';
  Object.assign(label.style, { minWidth: '11rem', fontVariantNumeric: 'tabular-nums' });
  bar.append(back, play, fwd, slider, label);
  const plot = document.createElement('div');
  plot.className = 'nplk-replay-plot';
  plot.style.width = '100%';
  root.append(bar, plot);
  parentElement.appendChild(root);
  Object.assign(root, { __bar: bar, __back: back, __play: play, __fwd: fwd,
                        __slider: slider, __label: label, __plot: plot });
  back.addEventListener('click', () => { stop(root); step(root, root.__k - 1, true); });
  fwd.addEventListener('click', () => { stop(root); step(root, root.__k + 1, true); });
  play.addEventListener('click', () => { root.__playing ? stop(root, true) : start(root); });
  slider.addEventListener('input', () => { stop(root); step(root, +slider.value, false); });
  slider.addEventListener('change', () => report(root));
  return root;
};

const report = (root) => {
  if (root.__send && root.__fig) root.__send('step', root.__k);
};

// Draw frame k: the base traces with the frame's changes merged in, one Plotly.react.
// Calls made while a draw is running collapse into the newest one.
const draw = (root, k) => {
  root.__want = k;
  if (root.__busy) return root.__busy;
  const run = async () => {
    while (root.__want !== null) {
      const j = root.__want;
      root.__want = null;
      const fig = root.__fig, fr = fig.frames[j];
      if (!fr) continue;
      const data = fig.data.slice();
      fr.traces.forEach((ti, i) => { data[ti] = Object.assign({}, fig.data[ti], fr.data[i]); });
      const layout = Object.assign({}, fig.layout, fr.layout || {}, { autosize: true });
      delete layout.width;
      if (!layout.font) layout.font = {};
      if (!layout.font.family) layout.font.family = '"Source Sans", "Source Sans Pro", sans-serif';
      await root.__Plotly.react(root.__plot, data, layout,
                                Object.assign({ responsive: true }, root.__config || {}));
      root.__drawnK = j;
      root.__drawn = (root.__drawn || 0) + 1;
      root.dataset.frame = String(j);
      root.dataset.drawn = String(root.__drawn);
      if (root.__playing) {
        const s = window.__nplkReplay;
        s.drawn += 1;
        s.t1 = performance.now();
        if (!s.t0) s.t0 = s.t1;
      }
    }
    root.__busy = null;
  };
  root.__busy = run();
  return root.__busy;
};

const step = (root, k, send) => {
  const n = root.__fig ? root.__fig.frames.length : 0;
  if (!n) return;
  k = Math.max(0, Math.min(n - 1, k));
  root.__k = k;
  root.__slider.value = String(k);
  const fr = root.__fig.frames[k];
  root.__label.textContent = 'iteration ' + fr.name + ' · frame ' + (k + 1) + ' of ' + n;
  draw(root, k);
  if (send) report(root);
};

const start = (root) => {
  const n = root.__fig ? root.__fig.frames.length : 0;
  if (n < 2) return;
  if (root.__k >= n - 1) step(root, 0, false);
  root.__playing = true;
  root.__play.textContent = '⏸';
  root.__play.setAttribute('aria-label', 'Pause');
  root.__play.title = 'Pause';
  window.__nplkReplay = { drawn: 0, t0: 0, t1: 0 };
  const interval = 1000 / (root.__fps || 12);
  const tick = async () => {
    if (!root.__playing) return;
    const t = performance.now();
    if (root.__k >= root.__fig.frames.length - 1) { stop(root, true); return; }
    step(root, root.__k + 1, false);
    await root.__busy;
    root.__timer = setTimeout(tick, Math.max(0, interval - (performance.now() - t)));
  };
  tick();
};

const stop = (root, send) => {
  const was = root.__playing;
  root.__playing = false;
  clearTimeout(root.__timer);
  root.__play.textContent = '▶';
  root.__play.setAttribute('aria-label', 'Play');
  root.__play.title = 'Play';
  if (was && send) report(root);
};

export default function (component) {
  const { data, parentElement } = component;
  if (!data) return;
  let root = parentElement.querySelector(':scope > .nplk-replay');
  if (!root) root = setup(parentElement);
  root.__send = component.setStateValue;
  root.__config = data.config || {};
  root.__fps = data.fps || 12;
  root.__plot.style.height = (data.height || 0) + 'px';
  const ready = loadPlotly(data.src);
  if (!data.figure) return;
  const fresh = data.figure !== root.__text;
  const moved = data.step !== root.__lastStep;
  if (!fresh && !moved) return;
  root.__lastStep = data.step;
  ready.then((Plotly) => {
    root.__Plotly = Plotly;
    if (fresh) {
      stop(root, false);
      root.__text = data.figure;
      root.__fig = decode(JSON.parse(data.figure));
      root.__drawn = 0;
      const n = root.__fig.frames.length;
      root.__slider.max = String(Math.max(n - 1, 0));
      root.dataset.frames = String(n);
    } else if (root.__playing) {
      return;
    }
    const n = root.__fig.frames.length;
    const k = data.step < 0 ? n - 1 : data.step;
    step(root, k, false);
  }).catch((err) => {
    root.__plot.textContent = 'The replay could not be drawn: ' + err.message +
      '. Reload the page; if it persists, check that the plotly package is installed.';
  });
}
"""


def _register() -> tuple[Any, str]:
    """Register the player (and, through :func:`lab_chart._register`, the Plotly.js
    route) with the running server; idempotent, so it runs on every call."""
    _, src = lab_chart._register()
    player = st.components.v2.component("nplk_replay", js=_JS, isolate_styles=False)
    return player, src


def replay_player(figure_json: str, *, key: str, step: int = -1, height: int = 560,
                  config: dict[str, Any] | None = None, fps: float = 12.0,
                  on_step: Callable[[], None] | None = None) -> Any:
    """Show the replay ``figure_json`` (with frames) at frame ``step`` (−1 = the last).

    The frames play in the browser; ``on_step`` runs before the next script run when the
    user has moved the position (paused, stepped, released the slider), and
    :func:`reported_step` ``(key)`` gives the new position there. A new ``figure_json``
    (a refit) or a new ``step`` redraws; the same ones leave a playing replay alone."""
    player, src = _register()
    data = {"src": src, "figure": figure_json, "step": int(step), "height": int(height),
            "config": config or {}, "fps": float(fps)}
    return player(data=data, key=key, height=int(height) + 48,
                  on_step_change=on_step or (lambda: None))


def reported_step(key: str) -> int | None:
    """The frame index the player reported in this run (None if it did not)."""
    state = st.session_state.get(key)
    try:
        v = state.get("step") if state is not None else None
        return None if v is None else int(v)
    except (AttributeError, TypeError, ValueError):
        return None


def frames_of(element: Any) -> list[dict] | None:
    """The frames a replay element carries (for AppTest-based tests)."""
    proto = getattr(element, "proto", element)
    if getattr(proto, "component_name", "") != "nplk_replay":
        return None
    data = json.loads(proto.json) if proto.json else {}
    fig = data.get("figure")
    fig = json.loads(fig) if isinstance(fig, str) else fig
    return None if fig is None else fig.get("frames")
