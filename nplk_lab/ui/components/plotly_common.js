// What both Plotly components of the lab share, the first part of each one's script
// (nplk_lab/ui/components/browser_files.py joins the parts into one ES module): Plotly.js
// loaded once per browser tab, the page's charts drawn in turn, the page's dark or light
// theme, and the larger fonts of presentation mode.
/* exported inTurn, loadPlotly, pageBackground, isDark, themed, presenting, presentFloor,
   presented, onSchemeChange */

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
// Presentation mode, for a projector at the back of a hall: while the page shows its
// pinned "Exit presentation" button, every font of a figure (ticks, legend, colour bars,
// annotations, titles, trace text, the least size of a bar's text) is at least `floor`
// px: 16 at 1280×720, 24 at 1920×1080 (linear in the smaller of the two ratios to
// 1280×720, 16–32 px), and the modebar is off (a projected chart is not zoomed). A
// window under 640 px wide (a phone) leaves presentation mode (present_mode.js); until
// it has, its figures keep their own text (floor 0). Off: 0.
const PHONE_WIDTH = 640;
const presenting = () => !!document.querySelector('[class*="st-key-nplk-keep-exit"]');
const presentFloor = () => {
  if (!presenting() || innerWidth < PHONE_WIDTH) return 0;
  const s = Math.min(innerWidth / 1280, innerHeight / 720);
  return Math.round(Math.min(32, Math.max(16, 16 + 16 * (s - 1))));
};
const FONT_KEY = /font$/i;
const floored = (value, floor, depth) => {
  if (depth > 6 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {   // annotations, shapes; not the data arrays
    return value.length && value.length < 400 && typeof value[0] === 'object'
      ? value.map((v) => floored(v, floor, depth + 1)) : value;
  }
  if (ArrayBuffer.isView(value) || typeof value.bdata === 'string') return value;
  const out = Object.assign({}, value);
  for (const k of Object.keys(out)) {
    const v = out[k];
    if (FONT_KEY.test(k) && v && typeof v === 'object' && !Array.isArray(v)) {
      const f = out[k] = Object.assign({}, v);
      if (Array.isArray(f.size)) f.size = f.size.map((x) => Math.max(+x || 0, floor));
      else if (f.size !== undefined) f.size = Math.max(+f.size || 0, floor);
    } else if (v && typeof v === 'object') {
      out[k] = floored(v, floor, depth + 1);
    }
  }
  return out;
};
const presented = (layout, data, floor) => {
  if (!floor) return [layout, data];
  const L = floored(layout, floor, 0);
  L.font = Object.assign({}, L.font || {});
  L.font.size = Math.max(+L.font.size || 12, floor);
  // a figure that keeps its bars' text from shrinking keeps it at the floor too
  if (L.uniformtext && L.uniformtext.minsize) {
    L.uniformtext = Object.assign({}, L.uniformtext,
                                  { minsize: Math.max(+L.uniformtext.minsize, floor) });
  }
  return [L, (data || []).map((t) => floored(t, floor, 0))];
};
window.__nplkPresentFloor = presentFloor;   // the presentation script redraws on a change
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
