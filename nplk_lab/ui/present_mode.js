// Presentation mode's fitting (nplk_lab/ui/present_mode.py puts it on the page once per
// tab): the page's first chart gets the height left below its top edge (at least 320 px,
// at most its own height + 40 % or 1,200 px), on every layout change, so the figure and the scores
// in its corner fit above the fold at any window size; a chart drawn for another window
// (its text size or its box: components/projector.js) is drawn again. A window under
// 640 px wide (a phone, not a projector) leaves presentation mode: the script presses the
// page's hidden "present_narrow" button, and the page shows as usual with a note.
(() => {
  if (window.__nplkFit) { window.__nplkFit(); return; }
  let busy = false;
  const touched = new Set();
  const SIZES = ['height', 'min-height', 'max-height', 'flex-basis'];
  const fit = () => {
    if (busy) return;
    busy = true;
    requestAnimationFrame(() => {
      busy = false;
      const main = document.querySelector('[data-testid="stMain"]');
      const on = document.querySelector('[class*="st-key-nplk-keep-exit"]');
      const charts = main ? [...main.querySelectorAll('.nplk-live-chart')] : [];
      // chart text follows the window in presentation mode (components/chart.py):
      // a chart drawn for another window size or mode is drawn again
      const floor = window.__nplkPresentFloor ? window.__nplkPresentFloor() : 0;
      const phone = innerWidth < 640;
      // a phone: presentation mode is for a projector; the page leaves it, with a note
      const narrow = on && phone && [...document.querySelectorAll(
        '.st-key-present_narrow button')][0];
      if (narrow && !window.__nplkNarrowSent) {
        window.__nplkNarrowSent = true;
        narrow.click();
      }
      if (!on) window.__nplkNarrowSent = false;
      // (a class's live count keeps its own height: it sits under the question)
      const el = on && !phone ? charts.find((c) => c.getBoundingClientRect().width > 0 &&
                                            !c.closest('[class*="st-key-class-count"]'))
        : null;
      charts.forEach((c) => {
        if (c === el || !c.classList.contains('nplk-fit')) return;
        c.classList.remove('nplk-fit');
        if (window.Plotly && c.data) window.Plotly.Plots.resize(c);
      });
      const keep = new Set();
      for (let p = el && el.parentElement; p && p !== main; p = p.parentElement) {
        keep.add(p);
        if (p.dataset.testid === 'stElementContainer') break;
      }
      touched.forEach((p) => { if (!keep.has(p)) {   // presentation left, or a new chart
        SIZES.forEach((prop) => p.style.removeProperty(prop));
        touched.delete(p);
      } });
      let h = 0;
      if (el) {
        const top = el.getBoundingClientRect().top + window.scrollY;
        const own = parseFloat(el.style.height) || 600;
        h = Math.round(Math.max(320, Math.min(innerHeight - top - 14,
                                              Math.max(own * 1.4, 1200))));
        el.style.setProperty('--nplk-fit', h + 'px');
        el.classList.add('nplk-fit');
        // the component's wrappers keep the figure's own height: give them the new one
        keep.forEach((p) => {
          touched.add(p);
          SIZES.forEach((prop) => {
            if (p.style.getPropertyValue(prop) !== h + 'px') {
              p.style.setProperty(prop, h + 'px', 'important');
            }
          });
        });
      }
      // a chart drawn for another text size or box is drawn again, once its new height is
      // set (drawn before it, a resized window showed a drawing for the old height first)
      const box = window.__nplkPresentBox;
      const redrawn = charts.filter((c) => c.__nplkRedraw && ((c.__nplkFloor || 0) !== floor
        || (floor && box && c.__nplkBox !== box(c))));
      redrawn.forEach((c) => c.__nplkRedraw());
      const drawn = el && el._fullLayout && el._fullLayout.height;
      if (el && !redrawn.includes(el) && window.Plotly && el.data && drawn
          && Math.abs(drawn - h) > 1) {
        window.Plotly.Plots.resize(el);
      }
    });
  };
  window.__nplkFit = fit;
  new MutationObserver(fit).observe(document.body, { childList: true, subtree: true });
  window.addEventListener('resize', fit);
  fit();
})();
