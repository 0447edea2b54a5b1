"""What a browser test reads on the lab's page to know where it stands, without
waiting for time to pass: whether Streamlit runs a script (:func:`wait_idle`), whether
a run has come and gone since an action (:func:`count_runs`, :func:`wait_counted_run`),
what the last run wrote into the URL (:func:`wait_url`), the
decision surface's fingerprint (:func:`wait_surface`), whether the surface on
screen is final (:func:`settled_surface`: drawn from the values the page shows, so no
rerun is pending and nothing is left to draw), whether every chart has drawn a
figure (:func:`wait_charts_drawn`: the number of plots is final) and whether the page
shows a still picture (:func:`wait_still`: nothing moving, no hover label, plots sized
to their boxes).

Every wait is a condition evaluated in the browser (Playwright's ``wait_for_function``);
its timeout only bounds a hang. ``_browser.py`` hands these names on to the
browser tests and the benchmarks.
"""

from __future__ import annotations

# Generous ceilings for a loaded 2-core machine; a healthy run takes far less.
FIRST_CHART_TIMEOUT_MS = 60_000
RERUN_TIMEOUT_MS = 30_000

# A fingerprint of the decision-surface figure: the first Plotly graph with a
# "decision function" trace. Trace types and names, the corner annotation and a hash of
# that trace's z
# (Streamlit sends numpy arrays as base64 ``bdata``; nested arrays are summed). null
# until drawn.
SURFACE_FINGERPRINT_JS = """
() => {
  const graphs = [...document.querySelectorAll('.js-plotly-plot')];
  const gd = graphs.find(g => Array.isArray(g.data) &&
                              g.data.some(t => t.name === 'decision function'));
  if (!gd) return null;
  const hash = (str) => { let h = 5381; for (let i = 0; i < str.length; i++) {
    h = ((h << 5) + h + str.charCodeAt(i)) | 0; } return h; };
  const summary = (z) => {           // base64 typed array (plotly >= 6) or nested arrays
    if (!z) return null;
    if (typeof z.bdata === 'string') return [z.dtype, z.shape, hash(z.bdata)];
    let s = 0, n = 0;
    const walk = (a) => { for (const v of a) {
      if (v !== null && typeof v === 'object' && v.length !== undefined) walk(v);
      else if (Number.isFinite(v)) { s += v; n += 1; } } };
    if (typeof z === 'object' && z.length !== undefined) walk(z);
    return [n, s.toPrecision(12)];
  };
  const parts = gd.data.map(t => [t.type, t.name || '',
                                  t.name === 'decision function' ? summary(t.z) : null]);
  const notes = ((gd.layout && gd.layout.annotations) || []).map(a => a.text || '');
  return JSON.stringify([parts, notes]);
}
"""

# Streamlit marks the app root with its script state; the status widget shows a
# running icon while a rerun is in flight.
IDLE_JS = """
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testScriptState !== 'notRunning') return false;
  return !document.querySelector('[data-testid="stStatusWidgetRunningIcon"],'
                                 + '[data-testid="stStatusWidgetRunningManIcon"]');
}
"""


def wait_idle(page, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Wait until Streamlit reports no script run in flight.

    Right after an action that reruns the page (a widget moved, a file chosen, a
    component reporting a value) this can return before that rerun has started: the
    browser sends the new value asynchronously. Wait then on the rerun's own effect (the
    URL it writes, what it draws, :func:`settled_surface`) or count the page's runs from
    before the action (:func:`count_runs`, :func:`wait_counted_run`)."""
    page.wait_for_function(IDLE_JS, timeout=timeout_ms, polling=50)


# Counts, from now on, the page's changes of run state away from "not running" (to
# "rerun requested" when it asks for a run, to "running" when the server starts it; a
# quick run can end within one render, so "running" itself may never show), in
# window.__nplkRuns. A second call starts the count again.
COUNT_RUNS_JS = """
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (window.__nplkRunsObserver) window.__nplkRunsObserver.disconnect();
  window.__nplkRuns = 0;
  window.__nplkRunsObserver = new MutationObserver(() => {
    if (app.dataset.testScriptState !== 'notRunning') window.__nplkRuns += 1;
  });
  window.__nplkRunsObserver.observe(app, {attributes: true,
                                          attributeFilter: ['data-test-script-state']});
}
"""


def count_runs(page) -> None:
    """Count the page's script runs from now on (:data:`COUNT_RUNS_JS`): call it before
    an action whose rerun leaves nothing else to wait for, then
    :func:`wait_counted_run`."""
    page.evaluate(COUNT_RUNS_JS)


def wait_counted_run(page, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Wait until a run has started since :func:`count_runs` and the page is idle again
    (that run, and any it queued, is over)."""
    page.wait_for_function(f"() => window.__nplkRuns >= 1 && ({IDLE_JS})()",
                           timeout=timeout_ms, polling=50)


def wait_url(page, name: str, value, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Wait until the page's URL has ``name=value`` in its query and Streamlit runs no
    script: the run that wrote it is over."""
    page.wait_for_function(
        f"(v) => new URLSearchParams(location.search).get({name!r}) === v && ({IDLE_JS})()",
        arg=str(value), timeout=timeout_ms, polling=50)


def surface_fingerprint(page) -> str | None:
    return page.evaluate(SURFACE_FINGERPRINT_JS)


def wait_surface(page, timeout_ms: int = FIRST_CHART_TIMEOUT_MS) -> str:
    """Wait for the decision surface to be drawn; return its fingerprint."""
    page.wait_for_function(f"({SURFACE_FINGERPRINT_JS})() !== null", timeout=timeout_ms,
                           polling=50)
    return surface_fingerprint(page)


# Why the decision surface on screen is not final yet ('' once it is). The surface's
# chart writes on its plot what the figure it drew was built from (data-drawn-from:
# ``nplk_lab.ui.charts.drawn_from``), once Plotly has drawn it and no newer figure has
# reached the chart: the values of the widgets drawn above it, as Streamlit exchanges
# them with the browser, and the inputs no widget shows (the added points, the selected
# point) in their URL form. The picture is final exactly when Streamlit runs no script,
# every one of those widgets shows the value the figure was built from (a widget moved
# since would rerun the page: nothing is pending), the URL -- written by the last run --
# agrees on the other inputs, the chart holds no click it has not had applied, and
# nothing on the page is moving (no finite animation runs: the plot is where a click
# computed from its rectangle lands).
SURFACE_UNSETTLED_JS = """
() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
    Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
  if (!gd) return 'no decision surface on the page';
  if (!(%s)()) return 'a script run is in flight';
  if (gd.querySelector('.nplk-click-mark')) return 'a click on the plot is not applied yet';
  // an expander opening above the plot moves it for half a second (a Web Animation);
  // running animations with an end (not the endless ones of spinners) must be over
  const moving = document.getAnimations().filter(a => a.playState === 'running' &&
    a.effect && Number.isFinite(a.effect.getComputedTiming().endTime));
  if (moving.length) return `${moving.length} animation(s) still running on the page`;
  const text = gd.dataset.drawnFrom;
  if (!text) return 'the surface has not finished drawing a figure that says what it shows';
  const from = JSON.parse(text);
  if (!from.widgets) return 'the figure does not say which widget values it was drawn from';
  // what a widget shows, in Streamlit's wire form of its value (undefined: not drawn)
  const shown = (box, kind) => {
    const ranges = [...box.querySelectorAll('input[type=range]')];
    const one = (sel) => box.querySelector(sel);
    if (kind === 'double_array_value') return ranges.length ? ranges.map(r => Number(r.value))
                                                            : undefined;
    if (kind === 'string_array_value') return ranges.length
      ? ranges.map(r => r.getAttribute('aria-valuetext')) : undefined;
    if (kind === 'bool_value') { const c = one('input[type=checkbox]');
                                 return c ? c.checked : undefined; }
    if (kind === 'double_value' || kind === 'int_value') {
      const n = one('input[type=number]'); return n ? Number(n.value) : undefined; }
    if (kind === 'string_value') {
      const radios = [...box.querySelectorAll('input[type=radio]')];
      if (radios.length) { const r = radios.find(r => r.checked);
                           return r ? r.closest('label').textContent.trim() : null; }
      const t = one('input[role=combobox], input[type=text], textarea');
      return t ? t.value : undefined;
    }
    return undefined;
  };
  for (const [key, [kind, value]] of Object.entries(from.widgets)) {
    const box = document.querySelector('.st-key-' + CSS.escape(key));
    if (!box) continue;                    // gone from the page since
    const now = shown(box, kind);
    if (now === undefined) return `the widget ${key} is not drawn yet`;
    if (JSON.stringify(now) !== JSON.stringify(value)) {
      return `the widget ${key} shows ${JSON.stringify(now)}; the figure on screen was ` +
             `drawn from ${JSON.stringify(value)}`;
    }
  }
  const query = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(from.state || {})) {
    if (query.has(name) && query.get(name) !== value) {
      return `the URL has ${name}=${query.get(name)}; the figure on screen was drawn ` +
             `from ${name}=${value}`;
    }
  }
  return '';
}
""" % IDLE_JS


def settled_surface(page, timeout_s: float = 30.0) -> str:
    """The surface fingerprint once the picture on screen is final: the app is idle and
    the surface was drawn from the widget values and the URL the page shows
    (:data:`SURFACE_UNSETTLED_JS`), so no rerun is pending and nothing is left to draw
    (a slider moved twice queues two reruns; a chart draws after its run has ended).

    A press of a button or a click on a plot shows in no widget: wait for its effect
    (the URL it changes) first. ``timeout_s`` only bounds a hang, reported with what
    still differs."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => ({SURFACE_UNSETTLED_JS})() === ''",
                               timeout=timeout_s * 1000, polling=50)
    except PlaywrightTimeout as e:  # say what still differs
        raise TimeoutError(f"the decision surface did not settle in {timeout_s:g} s: "
                           f"{page.evaluate(SURFACE_UNSETTLED_JS)}") from e
    return surface_fingerprint(page)


# Why the page's charts are not all drawn yet ('' once they are): Streamlit runs no
# script and every chart element of the page (the lab's live charts:
# ``nplk_lab.ui.components.chart``) has drawn a figure. A chart element's own script
# makes its plot box (``.nplk-live-chart``) when the element is rendered; Plotly marks
# the box ``js-plotly-plot`` when it has drawn into it. A new chart's first draw can come
# well after the run that sent it: the charts draw one at a time, and a chart joining a
# page that shows one already waits until the browser is idle (up to a second), so the
# decision surface can be final while the matrix view below it is still an empty box.
# A chart that is redrawn keeps its old picture until the new one is drawn: the number
# of plots on screen is final once this is ''. Other elements of the same kind (the
# training replay's player) are not charts; the sidebar's Plotly.js preload holds no
# figure.
CHARTS_UNDRAWN_JS = """
() => {
  if (!(%s)()) return 'a script run is in flight';
  const boxes = [...document.querySelectorAll('[data-testid^="stBidiComponent"]')];
  for (const el of boxes) {
    if (el.querySelector('.nplk-replay')) continue;        // the replay's player
    if (el.querySelector('.nplk-kept')) continue;          // a text kept in the browser
    const root = el.querySelector('.nplk-live-chart');
    const key = ([...(el.closest('[class*="st-key-"]') || el).classList]
                 .find(c => c.startsWith('st-key-')) || '?').slice(7);
    if (!root) return `the element ${key} has not run its script yet`;
    if (root.__nplkData && root.__nplkData.figure && !root.classList.contains('js-plotly-plot')) {
      return `the chart ${key} has not drawn its figure yet`;
    }
  }
  return '';
}
""" % IDLE_JS


def wait_charts_drawn(page, timeout_ms: int = FIRST_CHART_TIMEOUT_MS) -> int:
    """Wait until Streamlit runs no script and every chart on the page has drawn a
    figure (:data:`CHARTS_UNDRAWN_JS`); return the number of plots on the page.

    Call it after the run to wait for is known to be over (:func:`settled_surface`,
    :func:`wait_counted_run`, :func:`wait_url`): an idle page can still be before a
    rerun starts. ``timeout_ms`` only bounds a hang, reported with the chart still
    empty."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => ({CHARTS_UNDRAWN_JS})() === ''",
                               timeout=timeout_ms, polling=50)
    except PlaywrightTimeout as e:  # say which chart is still empty
        raise TimeoutError(f"the page's charts were not all drawn in "
                           f"{timeout_ms / 1000:g} s: "
                           f"{page.evaluate(CHARTS_UNDRAWN_JS)}") from e
    return page.locator(".js-plotly-plot").count()


# True when the page shows a still picture: no animation with an end is running (an
# expander opening, the modebar fading out: CSS transitions are Web Animations), no
# Plotly hover label is drawn, no plot is under the mouse (its modebar then shows), every
# plot has the width of its box (Plotly has relaid it out after a resize) and, given
# ``size``, the viewport has that size.
STILL_JS = """
(size) => {
  if (size && (window.innerWidth !== size.width || window.innerHeight !== size.height)) {
    return false;
  }
  if (document.getAnimations().some(a => a.playState === 'running' && a.effect &&
                                         Number.isFinite(a.effect.getComputedTiming().endTime))) {
    return false;
  }
  return [...document.querySelectorAll('.js-plotly-plot')].every(gd => {
    const hover = gd.querySelector('.hoverlayer');
    if (hover && hover.childElementCount) return false;
    if (gd.matches(':hover')) return false;
    const fl = gd._fullLayout;
    return !fl || !fl.width || Math.abs(fl.width - gd.getBoundingClientRect().width) < 1;
  });
}
"""


def wait_still(page, size: dict | None = None, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Wait until the page shows a still picture (:data:`STILL_JS`): before a screenshot
    after the mouse left a plot, or before reading where to click after a scroll or a
    resize (``size``: the viewport just set)."""
    page.wait_for_function(STILL_JS, arg=size, timeout=timeout_ms, polling="raf")


# The map whose title starts with ``start``: the page pixel of cell (i1, i2) (index
# axes: cell centres at 0, 1, …) through Plotly's own axis conversion.
CELL_JS = """
([start, i1, i2]) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
    g._fullLayout && g._fullLayout.title && (g._fullLayout.title.text || '') === start);
  if (!gd || !gd._fullData || !gd._fullData.length) return null;
  const r = gd.querySelector('.nsewdrag').getBoundingClientRect();
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return {x: r.left + xa.d2p(i1), y: r.top + ya.d2p(i2),
          ticks: (xa.ticktext || []).slice(), yticks: (ya.ticktext || []).slice()};
}
"""
