"""A chart's title fitted to the width it has in the browser: the JavaScript both
browser components (:mod:`.chart`, :mod:`.replay`) run after each Plotly draw.

The server builds a figure without knowing how wide its column will be: a title that
fits a 1920 px screen ran past the edge of the same chart at 1280 px, and Plotly's mode
bar (shown on hover over the figure's top-right corner) covered its end. This code wraps
a title that is too long onto more lines and moves a title that reaches the mode bar
below it, growing the top margin by what the title gained (the plot gives up the room,
the page does not grow). ``tests/test_browser_titles.py`` checks every page's charts at
1280 × 720, on a phone and after the window shrinks.

Imports nothing: the components import it when they are imported.
"""

TITLE_FIT_JS = r"""
// A figure's title at the top left, fitted to the width the chart has (the server does
// not know it). Too long for the width, it wraps at spaces onto more lines. Plotly's mode
// bar floats over the top-right corner on hover: a first line that reaches it moves down
// by the bar's height. The top margin grows by what the title gained, so the plot gives
// up the room, not the page. `fitTop` works from the layout the server sent (kept on the
// plot as __nplkTop) and the chart's geometry: before a draw from the last draw's (a
// slider move draws once), after it from the real one, which relayouts only when the
// answer differs (the first draw, a resize, a new title).
const STRIP = 30;
const LINE = 1.3;
const measure = (() => {
  let ctx = null;
  return (text, font) => {
    ctx = ctx || document.createElement('canvas').getContext('2d');
    ctx.font = font;
    return ctx.measureText(String(text).replace(/<[^>]*>/g, '')).width;
  };
})();
const wrapText = (raw, font, room) => {
  const text = String(raw);
  if (text.includes('<br>') || measure(text, font) <= room) return [text];
  const lines = [];
  let line = '';
  for (const w of text.split(' ')) {
    const next = line ? line + ' ' + w : w;
    if (line && measure(next, font) > room) { lines.push(line); line = w; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
};
const fitTop = (gd, layout, geo) => {
  const t = layout.title;
  const text = t && (typeof t === 'string' ? t : t.text);
  if (!text || !geo || !(geo.width > 0)) return { layout, key: '' };
  const tf = (typeof t === 'object' && t.font) || {};
  const size = +(tf.size || 17);
  const family = tf.family || (layout.font && layout.font.family) || 'sans-serif';
  const font = size + 'px ' + family;
  const lines = wrapText(text, font, Math.max(80, geo.width - geo.left - 8));
  const first = measure(lines[0], font);
  const strip = geo.bar > 0 && geo.left + first > geo.width - geo.bar - 6 ? STRIP : 0;
  const extra = Math.round((lines.length - 1) * size * LINE);
  const key = lines.length + ':' + strip;
  if (!strip && lines.length === 1) return { layout, key };
  const L = Object.assign({}, layout);
  const title = typeof t === 'string' ? { text: t } : Object.assign({}, t);
  title.text = lines.join('<br>');
  title.pad = Object.assign({}, title.pad || {});
  // Plotly sets a title of several lines, anchored at its top, 0.7 em higher than one line
  title.pad.t = (title.pad.t || 0) + strip + (lines.length > 1 ? Math.round(0.7 * size) : 0);
  L.title = title;
  L.margin = Object.assign({}, L.margin || {});
  L.margin.t = (L.margin.t != null ? L.margin.t : 100) + strip + extra;
  return { layout: L, key };
};
// the chart's geometry now: its width, where the plot area (and so the title) starts,
// and the mode bar's width (0 when it is off)
const geometryOf = (gd, config) => {
  const width = gd.getBoundingClientRect().width;
  const fl = gd._fullLayout;
  const bar = gd.querySelector('.modebar');
  const off = config && config.displayModeBar === false;
  const barWidth = off ? 0 : (bar && bar.getBoundingClientRect().width) || gd.__nplkBar || 130;
  if (!off && bar && bar.getBoundingClientRect().width) gd.__nplkBar = barWidth;
  return { width, bar: barWidth,
           left: fl && fl._size ? fl._size.l : (gd.__nplkTop && gd.__nplkTop.margin
             && gd.__nplkTop.margin.l) || 80 };
};
// draw gd's layout fitted from the last geometry; then check against the real one
const reactFitted = (Plotly, gd, data, layout, config) => {
  gd.__nplkTop = layout;
  gd.__nplkConfig = config;
  const fit = fitTop(gd, layout, geometryOf(gd, config));
  gd.__nplkFit = fit.key;
  gd.dataset.titleFit = fit.key;
  return Plotly.react(gd, data, fit.layout, config).then(() => {
    // (Plotly gives the element its events on the first draw)
    if (!gd.__nplkFitWatched && gd.on) {
      gd.__nplkFitWatched = true;
      gd.on('plotly_afterplot', () => { Promise.resolve().then(() => refit(Plotly, gd)); });
    }
    return refit(Plotly, gd);
  });
};
const refit = (Plotly, gd) => {
  if (!gd.isConnected || !gd.__nplkTop || gd.__nplkFitting) return null;
  const fit = fitTop(gd, gd.__nplkTop, geometryOf(gd, gd.__nplkConfig));
  if (fit.key === gd.__nplkFit) return null;
  gd.__nplkFit = fit.key;
  const L = fit.layout;
  const t = L.title && typeof L.title === 'object' ? L.title : { text: L.title };
  gd.__nplkFitting = true;
  return Plotly.relayout(gd, { 'title.text': t.text, 'title.pad.t': (t.pad && t.pad.t) || 0,
                               'margin.t': (L.margin && L.margin.t) })
    .finally(() => {
      gd.__nplkFitting = false;
      gd.dataset.titleFit = fit.key;
      gd.dataset.titleRefits = String(Number(gd.dataset.titleRefits || 0) + 1);
    });
};
"""
