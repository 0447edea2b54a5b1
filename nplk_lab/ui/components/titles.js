// A chart's title fitted to the width it has in the browser: the code both browser
// components (chart.py, replay.py) run after each Plotly draw, joined after
// plotly_common.js (browser_files.py), and the lesson file's player runs too.
// The server builds a figure without knowing how wide its column will be: a title that
// fits a 1920 px screen ran past the edge of the same chart at 1280 px, and Plotly's mode
// bar (shown on hover over the figure's top-right corner) covered its end.
// tests/test_browser_titles.py checks every page's charts at 1280 × 720, on a phone and
// after the window shrinks.
/* exported measure, wrapText, fitTop, geometryOf, followColumn, reactFitted, refit */
// A figure's title at the top left, fitted to the width the chart has (the server does
// not know it). Too long for the width, it wraps at spaces onto more lines. Plotly's mode
// bar floats over the top-right corner on hover, so the first line wraps short of it
// (the next lines start below the bar); only a first word too long for that room moves
// the whole title below the bar. A narrow chart whose axis labels push the plot right
// starts its title at the chart's left edge instead of the plot's when that saves lines.
// The top margin grows by what the title gained, so the plot gives up the room, not the
// page. `fitTop` works from the layout the server sent (kept on the plot as __nplkTop)
// and the chart's geometry: before a draw from the element's width, after it from
// Plotly's, which relayouts only when the answer differs (the first draw, a resize, a
// new title).
const STRIP = 30;
const LINE = 1.3;
const EDGE = 8;
// text widths, kept: a slider move fits the same title again (before and after its draw)
const measure = (() => {
  let ctx = null;
  const known = new Map();
  return (text, font) => {
    const key = font + '\n' + text;
    let w = known.get(key);
    if (w === undefined) {
      ctx = ctx || document.createElement('canvas').getContext('2d');
      ctx.font = font;
      w = ctx.measureText(String(text).replace(/<[^>]*>/g, '')).width;
      if (known.size > 2000) known.clear();
      known.set(key, w);
    }
    return w;
  };
})();
// the words of `text` greedily in lines, the first at most `first` wide, the others
// `rest`; null when the first word alone is wider than `first`
const wrapText = (text, font, first, rest) => {
  if (measure(text, font) <= first) return [text];
  const lines = [];
  let line = '';
  for (const w of text.split(' ')) {
    const room = lines.length ? rest : first;
    if (!line) {
      if (!lines.length && measure(w, font) > room) return null;
      line = w;
    } else if (measure(line + ' ' + w, font) <= room) line += ' ' + w;
    else { lines.push(line); line = w; }
  }
  if (line) lines.push(line);
  return lines;
};
// the lines and the drop below the bar for a title starting `left` px into the chart
const linesFrom = (text, font, geo, left) => {
  const rest = Math.max(60, geo.width - left - EDGE);
  const first = geo.bar > 0 ? geo.width - geo.bar - 6 - left : rest;
  const short = first >= 40 ? wrapText(text, font, first, rest) : null;
  if (short) return { lines: short, strip: 0 };
  return { lines: wrapText(text, font, rest, rest) || [text], strip: STRIP };
};
const fitTop = (gd, layout, geo) => {
  const t = layout.title;
  const text = t && String(typeof t === 'string' ? t : t.text);
  if (!text || text.includes('<br>') || !geo || !(geo.width > 0)) return { layout, key: '' };
  const tf = (typeof t === 'object' && t.font) || {};
  const size = +(tf.size || 17);
  const family = tf.family || (layout.font && layout.font.family) || 'sans-serif';
  const font = size + 'px ' + family;
  const cost = (f) => (f.lines.length - 1) * size * LINE + f.strip;
  let fit = linesFrom(text, font, geo, geo.left);
  let edge = false;
  if (geo.left > 3 * EDGE && cost(fit) > 0) {
    const alt = linesFrom(text, font, geo, EDGE);
    if (cost(alt) < cost(fit)) { fit = alt; edge = true; }
  }
  const { lines, strip } = fit;
  const key = lines.join('\n') + '|' + strip + (edge ? '|edge' : '');
  if (!strip && !edge && lines.length === 1) return { layout, key };
  const L = Object.assign({}, layout);
  const title = typeof t === 'string' ? { text: t } : Object.assign({}, t);
  title.text = lines.join('<br>');
  title.pad = Object.assign({}, title.pad || {});
  // Plotly sets a title of several lines, anchored at its top, 0.7 em higher than one
  // line; 4 px more keep its second line clear of the mode bar's bottom edge
  const lift = lines.length > 1 ? Math.round(0.7 * size) + 4 : 0;
  title.pad.t = (title.pad.t || 0) + strip + lift;
  if (edge) { title.xref = 'container'; title.x = 0; title.pad.l = EDGE; }
  L.title = title;
  L.margin = Object.assign({}, L.margin || {});
  L.margin.t = (L.margin.t != null ? L.margin.t : 100) + strip + (lines.length > 1 ? 4 : 0)
    + Math.round((lines.length - 1) * size * LINE);
  return { layout: L, key };
};
// the chart's geometry: its width (the element's before a draw, Plotly's drawing's
// after it: the mode bar sits at the drawing's right edge), where the plot area (and so
// the title) starts, and the mode bar's width (0 when it is off)
const geometryOf = (gd, config, drawn) => {
  const fl = gd._fullLayout;
  const width = drawn && fl && fl.width ? fl.width : gd.getBoundingClientRect().width;
  const bar = gd.querySelector('.modebar');
  const off = config && config.displayModeBar === false;
  const seen = !off && bar ? bar.getBoundingClientRect().width : 0;
  if (seen) gd.__nplkBar = seen;   // the last bar seen: the estimate before the next draw
  const barWidth = off ? 0 : seen || gd.__nplkBar || 130;
  return { width, bar: barWidth,
           left: fl && fl._size ? fl._size.l : (gd.__nplkTop && gd.__nplkTop.margin
             && gd.__nplkTop.margin.l) || 80 };
};
// Plotly follows the window's size only: a chart whose column changed without it (the
// sidebar folded, several quick resizes) kept its old width, wider than its column, its
// title and mode bar past the column's edge. Redraw at the column's width, once per
// frame, when the two differ.
const followColumn = (root) => {
  if (!window.ResizeObserver || root.__nplkFollows) return;
  root.__nplkFollows = true;
  let queued = false;
  new ResizeObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      const fl = root._fullLayout;
      if (root.isConnected && fl && window.Plotly && !root.__nplkFitting
          && Math.abs(fl.width - root.clientWidth) > 1) window.Plotly.Plots.resize(root);
    });
  }).observe(root);
};
// draw gd's layout fitted from the last geometry; then check against the real one
const reactFitted = (Plotly, gd, data, layout, config) => {
  gd.__nplkTop = layout;
  gd.__nplkConfig = config;
  const fit = fitTop(gd, layout, geometryOf(gd, config, false));
  gd.__nplkFit = fit.key;
  gd.dataset.titleFit = fit.key;
  return Plotly.react(gd, data, fit.layout, config).then(() => {
    // (Plotly gives the element its events on its first draw, new ones after a purge)
    if (gd.on && gd.__nplkFitEvents !== gd._ev) {
      gd.__nplkFitEvents = gd._ev;
      gd.on('plotly_afterplot', () => { Promise.resolve().then(() => refit(Plotly, gd)); });
    }
    return refit(Plotly, gd);
  });
};
const refit = (Plotly, gd) => {
  if (!gd.isConnected || !gd.__nplkTop || gd.__nplkFitting) return null;
  const fit = fitTop(gd, gd.__nplkTop, geometryOf(gd, gd.__nplkConfig, true));
  if (fit.key === gd.__nplkFit) return null;
  gd.__nplkFit = fit.key;
  const L = fit.layout;
  const t = L.title && typeof L.title === 'object' ? L.title : { text: L.title };
  gd.__nplkFitting = true;
  const base = gd.__nplkTop.title && typeof gd.__nplkTop.title === 'object'
    ? gd.__nplkTop.title : {};
  return Plotly.relayout(gd, {
    'title.text': t.text, 'title.pad.t': (t.pad && t.pad.t) || 0,
    'title.pad.l': (t.pad && t.pad.l) || 0, 'title.xref': t.xref || base.xref || 'paper',
    'title.x': t.x != null ? t.x : 0, 'margin.t': (L.margin && L.margin.t) })
    .finally(() => {
      gd.__nplkFitting = false;
      gd.dataset.titleFit = fit.key;
      gd.dataset.titleRefits = String(Number(gd.dataset.titleRefits || 0) + 1);
    });
};
