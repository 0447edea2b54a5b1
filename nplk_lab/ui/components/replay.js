// The training-replay player (nplk_lab/ui/components/replay.py): the figure and its
// frames arrive once, then play, pause, step and the scrub slider run here, each frame
// painted on a canvas under Plotly's drawing. The last part of the component's script,
// after plotly_common.js and the title fit; the replay's HTML file runs it too.
/* global loadPlotly, pageBackground, isDark, themed, onSchemeChange, followColumn,
   reactFitted */
/* exported playReplay */

const DT = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array,
             i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };

// {dtype, bdata, shape} specs (nplk_lab.figures.common) to typed arrays, once per figure,
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

// icons as inline SVG (the glyphs of the media symbols are missing from many fonts)
const ICONS = {
  back: '<path d="M4 3h2v10H4zM13 3v10L6.5 8z"/>',
  fwd: '<path d="M10 3h2v10h-2zM3 3v10l6.5-5z"/>',
  play: '<path d="M4 2.5v11L13.5 8z"/>',
  pause: '<path d="M4 3h3v10H4zM9 3h3v10H9z"/>',
};
const icon = (name) => '<svg width="16" height="16" viewBox="0 0 16 16" ' +
  'fill="currentColor" aria-hidden="true">' + ICONS[name] + '</svg>';

const SPEEDS = [0.25, 0.5, 1, 2, 4];

const button = (label, name) => {
  const b = document.createElement('button');
  b.type = 'button';
  b.innerHTML = icon(name);
  b.setAttribute('aria-label', label);
  b.title = label;
  Object.assign(b.style, { minWidth: '2.4rem', padding: '0.2rem 0.6rem', cursor: 'pointer',
    border: '1px solid rgba(49,51,63,0.3)', borderRadius: '0.4rem', background: 'white',
    fontSize: '1rem', lineHeight: '0', color: '#31333F' });
  return b;
};

const setup = (parentElement) => {
  const root = document.createElement('div');
  root.className = 'nplk-replay';
  root.style.width = '100%';
  const bar = document.createElement('div');
  Object.assign(bar.style, { display: 'flex', alignItems: 'center', gap: '0.5rem',
    margin: '0.25rem 0' });
  const back = button('Step back', 'back');
  const play = button('Play', 'play');
  const fwd = button('Step forward', 'fwd');
  const slider = document.createElement('input');
  slider.type = 'range';
  slider.min = '0';
  slider.step = '1';
  slider.setAttribute('aria-label', 'Replay position');
  slider.title = 'Drag to any frame: the untrained start on the left, the final fit on the right';
  slider.style.flex = '1';
  const label = document.createElement('span');
  label.className = 'nplk-replay-label';
  Object.assign(label.style, { minWidth: '11rem', fontVariantNumeric: 'tabular-nums' });
  // play speed (1× = data.fps frames per second) and loop
  const speed = document.createElement('select');
  speed.className = 'nplk-replay-speed';
  speed.setAttribute('aria-label', 'Speed');
  speed.title = 'Play speed: 1× shows ' + '15 frames per second';
  for (const s of SPEEDS) {
    const o = document.createElement('option');
    o.value = String(s);
    o.textContent = s + '×';
    if (s === 1) o.selected = true;
    speed.appendChild(o);
  }
  Object.assign(speed.style, { padding: '0.15rem', borderRadius: '0.4rem' });
  const loopBox = document.createElement('label');
  loopBox.title = 'Start again from the untrained model after the last frame';
  Object.assign(loopBox.style, { display: 'flex', alignItems: 'center', gap: '0.2rem',
    whiteSpace: 'nowrap', cursor: 'pointer' });
  const loop = document.createElement('input');
  loop.type = 'checkbox';
  loop.className = 'nplk-replay-loop';
  loop.setAttribute('aria-label', 'Loop');
  loopBox.append(loop, document.createTextNode('Loop'));
  bar.append(back, play, fwd, slider, label, speed, loopBox);
  const plot = document.createElement('div');
  plot.className = 'nplk-replay-plot';
  plot.style.width = '100%';
  plot.style.background = 'white';  // the page's background, set in drawBase (canvas below)
  root.append(bar, plot);
  parentElement.appendChild(root);
  Object.assign(root, { __bar: bar, __back: back, __play: play, __fwd: fwd,
                        __slider: slider, __label: label, __plot: plot, __speedBox: speed,
                        __loopBox: loop, __speed: 1, __loop: false });
  // the speed and loop are reported (and so kept by the page, and put into its HTML file)
  speed.addEventListener('change', () => {
    root.__speed = +speed.value || 1;
    if (root.__send) root.__send('speed', root.__speed);
  });
  loop.addEventListener('change', () => {
    root.__loop = loop.checked;
    if (root.__send) root.__send('loop', root.__loop);
  });
  back.addEventListener('click', () => { pause(root); step(root, root.__k - 1, true); });
  fwd.addEventListener('click', () => { pause(root); step(root, root.__k + 1, true); });
  play.addEventListener('click', () => { root.__playing ? pause(root, true) : start(root); });
  slider.addEventListener('input', () => { pause(root); step(root, +slider.value, false); });
  slider.addEventListener('change', () => report(root));
  return root;
};

// the speed and loop the page asks for, on a player just made (the page's own choice
// is kept in the player from then on)
const applyPlayback = (root, speed, loop) => {
  if (SPEEDS.includes(speed)) {
    root.__speed = speed;
    root.__speedBox.value = String(speed);
  }
  if (typeof loop === 'boolean') {
    root.__loop = loop;
    root.__loopBox.checked = loop;
  }
};

const report = (root) => {
  if (root.__send && root.__fig) root.__send('step', root.__k);
};

// The figure is drawn by Plotly once per fit, with the traces that change emptied
// (their legend entries and colour bars stay) and transparent backgrounds; every frame
// is then painted on a canvas *below* Plotly's SVG (surface, level lines, rings, the
// objective marker, the learned matrix) from the pre-decoded arrays: no Plotly redraw
// per frame. The canvas is repainted after every Plotly redraw (resize, zoom).
const axisOf = (fl, name, dim) => fl[dim + 'axis' + String(name || dim).slice(1)];

const canvasOf = (root) => {
  const plot = root.__plot, fl = plot._fullLayout;
  const host = plot.querySelector('.svg-container');
  if (!host || !fl) return null;
  let c = root.__canvas;
  if (!c || c.parentNode !== host) {
    c = document.createElement('canvas');
    c.className = 'nplk-replay-canvas';
    Object.assign(c.style, { position: 'absolute', left: '0', top: '0',
                             pointerEvents: 'none' });
    host.insertBefore(c, host.firstChild);
    root.__canvas = c;
  }
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(fl.width * dpr), h = Math.round(fl.height * dpr);
  if (c.width !== w || c.height !== h) {
    c.width = w;
    c.height = h;
    c.style.width = fl.width + 'px';
    c.style.height = fl.height + 'px';
  }
  return c;
};

const image = (root, name, z, lut) => {
  const ny = z.length, nx = ny ? z[0].length : 0;
  let off = root['__img' + name];
  if (!off || off.width !== nx || off.height !== ny) {
    off = document.createElement('canvas');
    off.width = nx;
    off.height = ny;
    root['__img' + name] = off;
  }
  const octx = off.getContext('2d');
  const img = octx.createImageData(nx, ny);
  const px = img.data;
  for (let r = 0; r < ny; r++) {
    const row = z[r], o = r * nx * 4;
    for (let c = 0; c < nx; c++) {
      const col = lut[row[c]] || lut[0], q = o + c * 4;
      px[q] = col[0]; px[q + 1] = col[1]; px[q + 2] = col[2]; px[q + 3] = 255;
    }
  }
  octx.putImageData(img, 0, 0);
  return off;
};

const polyline = (ctx, xa, ya, xs, ys) => {
  ctx.beginPath();
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i], y = ys[i];
    if (!Number.isFinite(x) || !Number.isFinite(y)) { pen = false; continue; }
    const px = xa._offset + xa.c2p(x), py = ya._offset + ya.c2p(y);
    if (pen) ctx.lineTo(px, py); else ctx.moveTo(px, py);
    pen = true;
  }
  ctx.stroke();
};

const clip = (ctx, xa, ya) => {
  ctx.save();
  ctx.beginPath();
  ctx.rect(xa._offset, ya._offset, xa._length, ya._length);
  ctx.clip();
};

const paint = (root, k) => {
  const fig = root.__fig, fr = fig && fig.frames[k], pl = fig && fig.player;
  if (!fr || !pl) return;
  const c = canvasOf(root);
  if (!c) return;
  const fl = root.__plot._fullLayout, dpr = window.devicePixelRatio || 1;
  const ctx = c.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, fl.width, fl.height);
  const part = (ti) => { const i = fr.traces.indexOf(ti); return i < 0 ? {} : fr.data[i]; };
  const axes = (ti) => { const t = fig.data[ti];
    return [axisOf(fl, t.xaxis, 'x'), axisOf(fl, t.yaxis, 'y')]; };
  if (pl.surface) {
    const t = fig.data[pl.surface.trace], z = part(pl.surface.trace).z;
    const [xa, ya] = axes(pl.surface.trace);
    if (z && z.length && xa && ya) {
      const xs = t.x, ys = t.y, nx = xs.length, ny = ys.length;
      const dx = nx > 1 ? (xs[nx - 1] - xs[0]) / (nx - 1) : 1;
      const dy = ny > 1 ? (ys[ny - 1] - ys[0]) / (ny - 1) : 1;
      // rows of z go up in y; the image's rows go down
      const flipped = z.slice().reverse();
      const off = image(root, 'surface', flipped, pl.surface.lut);
      const x0 = xa._offset + xa.c2p(xs[0] - dx / 2), x1 = xa._offset + xa.c2p(xs[nx - 1] + dx / 2);
      const y0 = ya._offset + ya.c2p(ys[ny - 1] + dy / 2), y1 = ya._offset + ya.c2p(ys[0] - dy / 2);
      clip(ctx, xa, ya);
      ctx.globalAlpha = pl.surface.opacity;
      ctx.imageSmoothingEnabled = true;
      ctx.drawImage(off, x0, y0, x1 - x0, y1 - y0);
      ctx.restore();
    }
  }
  const lines = (pl.lines || []).concat(pl.curve ? [pl.curve] : []);
  for (const l of lines) {
    const d = part(l.trace), base = fig.data[l.trace];
    const xs = d.x || base.x, ys = d.y || base.y;
    const [xa, ya] = axes(l.trace);
    if (!xs || !ys || !xa || !ya) continue;
    clip(ctx, xa, ya);
    ctx.strokeStyle = l.color || 'black';
    ctx.lineWidth = l.width;
    ctx.setLineDash(l.dash || []);
    polyline(ctx, xa, ya, xs, ys);
    ctx.restore();
  }
  const ring = part(pl.rings.trace);
  if (ring.x) {
    const [xa, ya] = axes(pl.rings.trace);
    clip(ctx, xa, ya);
    ctx.strokeStyle = 'black';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([]);
    ctx.beginPath();
    const r = pl.rings.size / 2;
    for (let i = 0; i < ring.x.length; i++) {
      const px = xa._offset + xa.c2p(ring.x[i]), py = ya._offset + ya.c2p(ring.y[i]);
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, 2 * Math.PI);
    }
    ctx.stroke();
    ctx.restore();
  }
  const mark = part(pl.marker.trace);
  if (mark.x && mark.y && mark.y[0] !== null) {
    const [xa, ya] = axes(pl.marker.trace);
    const px = xa._offset + xa.c2p(mark.x[0]), py = ya._offset + ya.c2p(mark.y[0]);
    if (Number.isFinite(px) && Number.isFinite(py)) {
      ctx.beginPath();
      ctx.arc(px, py, 5.5, 0, 2 * Math.PI);
      ctx.fillStyle = pl.marker.color;
      ctx.fill();
      ctx.strokeStyle = 'white';
      ctx.lineWidth = 1;
      ctx.stroke();
    }
  }
  if (pl.matrix) {
    const z = part(pl.matrix.trace).z;
    const [xa, ya] = axes(pl.matrix.trace);
    if (z && z.length && xa && ya) {
      const n = z.length, off = image(root, 'matrix', z, pl.matrix.lut);
      const x0 = xa._offset + xa.c2p(-0.5), x1 = xa._offset + xa.c2p(z[0].length - 0.5);
      const y0 = ya._offset + ya.c2p(-0.5), y1 = ya._offset + ya.c2p(n - 0.5);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(off, Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0),
                    Math.abs(y1 - y0));
    }
  }
};

// Draw frame k (synchronous: one canvas paint); counts frames for the tests.
const draw = (root, k) => {
  paint(root, k);
  root.__drawn = (root.__drawn || 0) + 1;
  root.dataset.frame = String(k);
  root.dataset.drawn = String(root.__drawn);
  if (root.__playing) {
    const s = window.__nplkReplay;
    s.drawn += 1;
    s.t1 = performance.now();
    if (!s.t0) s.t0 = s.t1;
  }
};

// Plotly draws the static part once per figure (and on resize or zoom: then the
// canvas is repainted).
const drawBase = (root) => {
  const fig = root.__fig, pl = fig.player || {};
  const data = fig.data.slice();
  const blank = (ti, extra) => {
    if (ti !== undefined) data[ti] = Object.assign({}, fig.data[ti], extra);
  };
  if (pl.surface) blank(pl.surface.trace, { opacity: 0 });
  (pl.lines || []).forEach((l) => blank(l.trace, { x: [null], y: [null] }));
  if (pl.curve) blank(pl.curve.trace, { x: [null], y: [null] });
  if (pl.rings) blank(pl.rings.trace, { x: [null], y: [null] });
  if (pl.marker) blank(pl.marker.trace, { x: [null], y: [null] });
  if (pl.matrix) blank(pl.matrix.trace, { opacity: 0 });
  const base = Object.assign({}, fig.layout, { autosize: true, annotations: [],
    paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)' });
  base.xaxis = Object.assign({}, base.xaxis || {}, { showgrid: false });
  base.yaxis = Object.assign({}, base.yaxis || {}, { showgrid: false });
  delete base.width;
  if (!base.font) base.font = {};
  if (!base.font.family) base.font.family = '"Source Sans", "Source Sans Pro", sans-serif';
  // the canvas below the transparent plot takes the page's background (dark theme too)
  const [layout, themedData] = themed(base, data);
  root.__plot.style.background = 'rgb(' + pageBackground().join(',') + ')';
  root.dataset.theme = isDark() ? 'dark' : 'light';
  if (!root.__themeHooked) {
    root.__themeHooked = true;
    onSchemeChange(() => { if (root.isConnected && root.__fig) drawBase(root); });
  }
  followColumn(root.__plot);
  return reactFitted(root.__Plotly, root.__plot, themedData, layout,
                     Object.assign({ responsive: true }, root.__config || {}))
    .then(() => {
      if (!root.__hooked && root.__plot.on) {
        root.__hooked = true;
        root.__plot.on('plotly_afterplot', () => paint(root, root.__k));
      }
    });
};

const step = (root, k, send) => {
  const n = root.__fig ? root.__fig.frames.length : 0;
  if (!n) return;
  k = Math.max(0, Math.min(n - 1, k));
  root.__k = k;
  root.__slider.value = String(k);
  const fr = root.__fig.frames[k];
  const note = fr.layout && fr.layout.annotations && fr.layout.annotations[0];
  root.__label.textContent = (note ? note.text : 'iteration ' + fr.name) +
    ' · frame ' + (k + 1) + ' of ' + n;
  draw(root, k);
  if (send) report(root);
};

const start = (root) => {
  const n = root.__fig ? root.__fig.frames.length : 0;
  if (n < 2) return;
  if (root.__k >= n - 1) step(root, 0, false);
  root.__playing = true;
  root.__play.innerHTML = icon('pause');
  root.__play.setAttribute('aria-label', 'Pause');
  root.__play.title = 'Pause';
  window.__nplkReplay = { drawn: 0, t0: 0, t1: 0, loops: 0 };
  // the speed and loop are read at every frame: changing them while playing applies
  const tick = () => {
    if (!root.__playing) return;
    const t = performance.now();
    const interval = 1000 / ((root.__fps || 15) * (root.__speed || 1));
    window.__nplkReplay.asked = interval;
    let wait = interval;
    if (root.__k >= root.__fig.frames.length - 1) {
      if (!root.__loop) { pause(root, true); return; }
      window.__nplkReplay.loops += 1;
      step(root, 0, false);
    } else {
      step(root, root.__k + 1, false);
      // looping: the final fit stays a moment before the untrained start again
      if (root.__loop && root.__k >= root.__fig.frames.length - 1) wait = Math.max(interval, 1000);
    }
    root.__timer = setTimeout(tick, Math.max(0, wait - (performance.now() - t)));
  };
  tick();
};

const pause = (root, send) => {
  const was = root.__playing;
  root.__playing = false;
  clearTimeout(root.__timer);
  root.__play.innerHTML = icon('play');
  root.__play.setAttribute('aria-label', 'Play');
  root.__play.title = 'Play';
  if (was && send) report(root);
};

function playReplay(component) {
  const { data, parentElement } = component;
  if (!data) return;
  let root = parentElement.querySelector(':scope > .nplk-replay');
  if (!root) {
    root = setup(parentElement);
    applyPlayback(root, data.speed, data.loop);
  }
  root.__send = component.setStateValue;
  root.__config = data.config || {};
  root.__fps = data.fps || 15;
  root.__speedBox.title = 'Play speed: 1× shows ' + root.__fps + ' frames per second';
  root.__plot.style.height = (data.height || 0) + 'px';
  // the routes of the chart component's loader ({src, gz}): when this player runs before the
  // preload element, it loads Plotly.js itself (a bare object here once made the
  // browser fetch "[object Object]", the app's HTML, as a script)
  const routes = data.src && typeof data.src === 'object' ? data.src : { src: data.src };
  const ready = loadPlotly(routes.src, routes.gz);
  if (!data.figure) return;
  const fresh = data.figure !== root.__text;
  const moved = data.step !== root.__lastStep;
  if (!fresh && !moved) return;
  root.__lastStep = data.step;
  ready.then((Plotly) => {
    root.__Plotly = Plotly;
    if (fresh) {
      pause(root, false);
      root.__text = data.figure;
      root.__fig = decode(JSON.parse(data.figure));
      root.__drawn = 0;
      const n = root.__fig.frames.length;
      root.__slider.max = String(Math.max(n - 1, 0));
      root.dataset.frames = String(n);
      root.__k = data.step < 0 ? n - 1 : Math.min(data.step, n - 1);
      return drawBase(root).then(() => step(root, root.__k, false));
    } else if (root.__playing) {
      return;
    }
    const n = root.__fig.frames.length;
    step(root, data.step < 0 ? n - 1 : data.step, false);
  }).catch((err) => {
    root.__plot.textContent = 'The replay could not be drawn: ' + err.message +
      '. Reload the page; if it persists, check that the plotly package is installed.';
  });
}
