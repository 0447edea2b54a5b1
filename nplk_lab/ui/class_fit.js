// A class's live count on a projector (nplk_lab/ui/class_teacher.py): the chart takes
// the height its column has left below it, so the count reads from the back of the room
// at any window size (the server draws it before it knows the window). The step's
// figure is fitted by presentation mode's own script; this one leaves it alone. Runs in
// the page, once per tab; again on every change of the page and of the window.
(() => {
  if (window.__nplkClassFit) { window.__nplkClassFit(); return; }
  const SIZES = ['height', 'min-height', 'max-height', 'flex-basis'];
  const LEAST = 200;
  const MOST = 620;
  const touched = new Set();
  let busy = false;
  const fit = () => {
    if (busy) return;
    busy = true;
    requestAnimationFrame(() => {
      busy = false;
      const on = document.querySelector('[class*="st-key-nplk-keep-exit"]');
      const el = on && document.querySelector(
        '[class*="st-key-class-count"] .nplk-live-chart');
      const keep = new Set();
      for (let p = el; p; p = p.parentElement) {   // the chart up to its element
        keep.add(p);
        if (p.dataset.testid === 'stElementContainer') break;
      }
      touched.forEach((p) => {   // presentation left, or a chart drawn anew
        if (keep.has(p)) return;
        SIZES.forEach((prop) => p.style.removeProperty(prop));
        touched.delete(p);
      });
      if (!el || !el._fullLayout || !window.Plotly) return;
      const top = el.getBoundingClientRect().top;
      const h = Math.round(Math.max(LEAST, Math.min(innerHeight - top - 16, MOST)));
      keep.forEach((p) => {
        touched.add(p);
        SIZES.forEach((prop) => {
          if (p.style.getPropertyValue(prop) !== h + 'px') {
            p.style.setProperty(prop, h + 'px', 'important');
          }
        });
      });
      if (Math.abs(el._fullLayout.height - h) > 1) window.Plotly.relayout(el, { height: h });
    });
  };
  window.__nplkClassFit = fit;
  new MutationObserver(fit).observe(document.body, { childList: true, subtree: true });
  window.addEventListener('resize', fit);
  fit();
})();
