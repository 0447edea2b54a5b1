// Presentation mode's charts, for a projector at the back of a hall (part of the live
// chart's script: nplk_lab/ui/components/chart.py reads this file into it).
//
// While the page shows its pinned "Exit presentation" button, every font of a figure
// (ticks, legend, colour bars, annotations, titles, trace text) is at least `floor` px:
// 16 at 1280×720, 24 at 1920×1080 (linear in the smaller of the two ratios to
// 1280×720, 16–32 px), and the modebar is off (a projected chart is not zoomed). A
// figure of one plot drawn to scale (equal units on both axes, so its width follows its
// height) puts its legend on the right, beside its colour bar, which sits right beside
// the plot: the legend below took height, and so width, from the plot, and the plot,
// narrowed to keep its scale, left an empty band before its colour bar. On a phone (a
// window under 640 px wide) nothing changes: the figure is the page's (floor 0).
const PHONE_WIDTH = 640;
// presentation mode, at any window size (a phone too): no modebar
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
// the width of the widest line of `texts` at `size` px in the figure's font
const widest = (texts, size, family) => Math.max(0, ...texts.filter(Boolean).flatMap(
  (t) => String(t).split('<br>')).map((t) => measure(t, size + 'px ' + family)));
// the legend on the right of a plot drawn to scale, its colour bar between them; the
// room is shared out from the chart's `box` (its width and the height it is drawn at)
const sideLegend = (L, D, floor, box) => {
  const xa = L.xaxis, ya = L.yaxis;
  const more = Object.keys(L).some((k) => /^[xy]axis\d+$/.test(k));
  const bars = D.filter((t) => t && t.colorbar && t.showscale !== false);
  if (more || !xa || !ya || ya.scaleanchor !== 'x' || !L.legend || bars.length > 1 ||
      !Array.isArray(xa.range) || !Array.isArray(ya.range) || !(box.width > 0)) {
    return [L, D];
  }
  const family = (L.font && L.font.family) || 'sans-serif';
  const m = Object.assign({ l: 80, r: 80, t: 100, b: 80 }, L.margin || {});
  const left = Math.max(m.l, Math.round(2.4 * floor + 24));   // y tick labels and title
  const bottom = Math.round(2.8 * floor + 16);                // x tick labels and title
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
  const toScale = plotH * Math.abs((xa.range[1] - xa.range[0]) / (ya.range[1] - ya.range[0]));
  const plotW = Math.max(60, Math.min(toScale, paper - barW - legendW - 3 * gap));
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
const presented = (layout, data, floor, box) => {
  if (!floor) return [layout, data];
  const L = floored(layout, floor, 0);
  L.font = Object.assign({}, L.font || {});
  L.font.size = Math.max(+L.font.size || 12, floor);
  if (box && box.height > 0) L.height = Math.round(box.height);   // the fitted height
  return sideLegend(L, (data || []).map((t) => floored(t, floor, 0)), floor, box || {});
};
// the box a chart is drawn in: its width, and the height presentation mode gives it
const presentBox = (root) => ({
  width: root.clientWidth,
  height: parseFloat(root.style.getPropertyValue('--nplk-fit')) || root.clientHeight });
window.__nplkPresentFloor = presentFloor;   // the presentation script redraws on a change
window.__nplkPresentBox = (root) => { const b = presentBox(root);
                                      return Math.round(b.width) + 'x' + Math.round(b.height); };
