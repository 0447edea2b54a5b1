// The live chart (nplk_lab/ui/components/chart.py): one element per chart, kept across
// reruns while its key stays the same, hands each new figure to Plotly.react. It runs
// in the app page (no iframe) on every rerun that renders the element. The last part
// of the component's script, after plotly_common.js and the title fit.
/* global inTurn, loadPlotly, isDark, themed, presenting, presentFloor, presented,
   onSchemeChange, followColumn, reactFitted, measure */
/* exported liveChart */

// Presentation mode's layout for a projector: a figure of one plot drawn to scale (equal
// units on both axes, so its width follows its height) puts its legend on the right,
// beside its colour bar, which sits right beside the plot: the legend below took height,
// and so width, from the plot, and the plot, narrowed to keep its scale, left an empty
// band before its colour bar. The figure is drawn at the height presentation mode gives
// it (present_mode.js).

// the width of the widest line of `texts` at `size` px in the figure's font
const widest = (texts, size, family) => Math.max(0, ...texts.filter(Boolean).flatMap(
  (t) => String(t).split('<br>')).map((t) => measure(t, size + 'px ' + family)));
// the legend on the right of a plot drawn to scale, its colour bar between them; the
// room is shared out from the chart's `box` (its width and the height it is drawn at)
const sideLegend = (L, D, floor, box) => {
  if (!floor) return [L, D];
  if (box.height > 0) L = Object.assign({}, L, { height: Math.round(box.height) });
  const xa = L.xaxis, ya = L.yaxis;
  const more = Object.keys(L).some((k) => /^[xy]axis\d+$/.test(k));
  const bars = D.filter((t) => t && t.colorbar && t.showscale !== false);
  if (more || !xa || !ya || ya.scaleanchor !== 'x' || !L.legend || bars.length > 1 ||
      !(box.width > 0)) return [L, D];
  // width over height: the axes' ranges, or a matrix's heatmap (square)
  const ratio = Array.isArray(xa.range) && Array.isArray(ya.range)
    ? Math.abs((xa.range[1] - xa.range[0]) / (ya.range[1] - ya.range[0]))
    : D.some((t) => t && t.type === 'heatmap') ? 1 : 0;
  if (!(ratio > 0)) return [L, D];
  const family = (L.font && L.font.family) || 'sans-serif';
  const m = Object.assign({ l: 80, r: 80, t: 100, b: 80 }, L.margin || {});
  const left = Math.max(m.l, Math.round(2.4 * floor + 24));   // y tick labels and title
  // x tick labels and title (a matrix has neither)
  const bottom = xa.showticklabels === false ? 16 : Math.round(2.8 * floor + 16);
  const gap = Math.round(0.8 * floor);
  const bar = bars[0] && bars[0].colorbar;
  const barW = bar ? (bar.thickness || 30) + 10 + widest(
    [...(bar.ticktext || ['−0.000']), bar.title && bar.title.text], floor, family) : 0;
  const names = D.filter((t) => t && t.showlegend !== false && t.name)
    .map((t) => t.name);
  const groups = D.map((t) => t && t.legendgrouptitle && t.legendgrouptitle.text);
  const legendW = Math.max(widest(names, floor, family) + 48, widest(groups, floor, family));
  const paper = box.width - left - 8;
  const plotH = Math.max(60, box.height - m.t - bottom);
  const plotW = Math.max(60, Math.min(plotH * ratio, paper - barW - legendW - 3 * gap));
  // the legend below, as drawn without this: its rows take height, so width, from the
  // plot; a narrow column (a lab page's, beside its score table) keeps that layout when
  // a legend on the right would leave the plot narrower
  const items = names.map((t) => widest([t], floor, family) + 48);
  const rows = Math.max(1, Math.ceil(items.reduce((a, b) => a + b, 0) / paper));
  const belowH = Math.max(60, plotH - rows * 1.6 * floor - 12);
  if (plotW < Math.min(belowH * ratio, paper - barW - 2 * gap)) return [L, D];
  const share = Math.min(1, plotW / paper);
  const after = (px) => share + px / paper;
  const L2 = Object.assign({}, L, {
    margin: Object.assign({}, m, { l: left, r: 8, b: bottom }),
    xaxis: Object.assign({}, xa, { domain: [0, share] }),
    yaxis: Object.assign({}, ya, { constraintoward: 'top' }),
    legend: Object.assign({}, L.legend, { orientation: 'v', xref: 'paper', yref: 'paper',
      x: after(2 * gap + barW), xanchor: 'left', y: 1, yanchor: 'top' }) });
  const D2 = D.map((t) => (t && t.colorbar && t.showscale !== false
    ? Object.assign({}, t, { colorbar: Object.assign({}, t.colorbar, {
      x: after(gap), xref: 'paper', xanchor: 'left' }) }) : t));
  return [L2, D2];
};
// The mode bar's PNG is drawn from the figure's SVG as an image, which cannot use the
// page's web font: Plotly laid the legend out for Source Sans, the image drew it in the
// system's wider sans-serif, and the legend's clip cut its longest line off. The PNG
// button draws a copy of the figure, at the chart's size, in the font the image has.
// One button for every chart (it reads the chart's own PNG options when clicked): a
// config that changes between draws makes Plotly.react draw anew, which dropped a
// zoom the user had made (uirevision).
let pngButton = null;
const withPng = (Plotly, config) => {
  if (!config.toImageButtonOptions || !Plotly.Icons) return config;
  if (!pngButton) {
    pngButton = {
      name: 'nplkPng', title: 'Download plot as a PNG', icon: Plotly.Icons.camera,
      click: (gd) => {
        const fl = gd._fullLayout || {};
        const opts = (gd._context && gd._context.toImageButtonOptions) || {};
        const layout = Object.assign({}, gd.layout, {
          font: Object.assign({}, gd.layout.font, { family: 'sans-serif' }) });
        return Plotly.downloadImage({ data: gd.data, layout }, Object.assign({}, opts, {
          width: fl.width || gd.clientWidth, height: fl.height || gd.clientHeight }));
      } };
  }
  return Object.assign({}, config, {
    modeBarButtonsToRemove: (config.modeBarButtonsToRemove || []).concat(['toImage']),
    modeBarButtonsToAdd: [pngButton] });
};
// the box a chart is drawn in: its width, and the height presentation mode gives it
const presentBox = (root) => ({
  width: root.clientWidth,
  height: parseFloat(root.style.getPropertyValue('--nplk-fit')) || root.clientHeight });
// (the presentation script redraws a chart drawn for another box)
window.__nplkPresentBox = (root) => { const b = presentBox(root);
                                      return Math.round(b.width) + 'x' + Math.round(b.height); };

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

function liveChart(component) {
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
      const [L0, D0] = sideLegend(...presented(layout, fig.data || [], floor), floor,
                                  presentBox(root));
      const box = floor ? window.__nplkPresentBox(root) : '';
      root.__nplkBox = box;
      const [L, D] = themed(L0, D0);
      root.dataset.theme = isDark() ? 'dark' : 'light';
      root.__nplkFloor = floor;
      if (floor) root.dataset.fontFloor = String(floor);
      else delete root.dataset.fontFloor;
      const drawing = (root.__nplkDrawing = (root.__nplkDrawing || 0) + 1);
      return reactFitted(Plotly, root, D, L, floor || presenting()
        ? Object.assign({}, config, { displayModeBar: false })
        : withPng(Plotly, config)).then((out) => {
        // the box of the drawing on screen (presentation mode), once no later drawing
        // has started: a chart drawn for another box is still to be drawn again
        if (drawing === root.__nplkDrawing) root.dataset.drawnBox = box;
        return out;
      });
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
