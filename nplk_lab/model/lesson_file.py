"""A lesson as one self-contained HTML file: it needs no server and fetches nothing.

:func:`lesson_html` takes a lesson's steps (built-in, or a teacher's own) and the
function that draws a step's figure on the Lessons page, and returns one HTML page
holding everything a student needs: Plotly.js (the installed ``plotly`` package's
minified copy, inline), every step's figures as the same JSON the page sends to the
browser (:func:`nplk_lab.figures.figure_json`: arrays as base64 typed arrays, float32
where the figure builders made them so), every step's measured reveal (the numbers and
the option they support, from :meth:`nplk_lab.model.lessons.Step.reveal`), and a small
plain-JavaScript player: pick an answer → the fitted figure, the numbers and whether the
prediction was right appear; Back and Next (also ← and →) step through; after the last
step, a summary of the student's predictions. A teacher can put the file on a course
site: any number of students open it from ``file://`` or a static web page, with no lab
running.

Every piece of text (titles, sentences, questions, options, reveals) travels as JSON
data and is put on the page with ``textContent`` only, so a teacher's sentence is shown
as the characters typed, never read as HTML or markdown. The JSON and the scripts are
made safe to sit inside ``<script>`` elements (:func:`inline_script`).

No Streamlit: the Lessons page passes its own figure function in (so the file shows
exactly the page's figures) and offers the result through a download button.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nplk_lab.figures.common import figure_json, plot_config

from .lessons import Step

__all__ = ["MAX_BYTES", "inline_script", "lesson_file_data", "lesson_html", "plotly_js"]

#: the largest file a lesson may make (a course site's upload limit is often 10 MB)
MAX_BYTES = 10 * 1024 * 1024

#: what a student sees instead of a figure that is itself the answer
NO_FIGURE_YET = "The figure appears once you have answered: here it is the answer."


@functools.lru_cache(maxsize=1)
def plotly_js() -> str:
    """The minified Plotly.js shipped inside the installed ``plotly`` package."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("NPLK Lab needs the plotly package: pip install plotly")
    folder = Path(next(iter(spec.submodule_search_locations))) / "package_data"
    return (folder / "plotly.min.js").read_text(encoding="utf-8")


def inline_script(text: str) -> str:
    """``text`` safe inside a ``<script>`` element: nothing in it can close the element
    or open an HTML comment (``<\\/`` reads the same as ``</`` in JavaScript strings,
    regular expressions and JSON)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _json_for_script(obj: Any) -> str:
    """``obj`` as JSON with ``<``, ``>`` and ``&`` written as ``\\u`` escapes: inert inside
    a ``<script type="application/json">`` whatever text it carries."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _figure(draw: Callable[[Step, bool], Any], step: Step, revealed: bool
            ) -> tuple[Any, str]:
    """(the figure as parsed JSON or None, a message when it could not be made)."""
    try:
        fig = draw(step, revealed)
    except ValueError as exc:
        return None, f"This step's figure could not be made: {exc}"
    return (None if fig is None else json.loads(figure_json(fig))), ""


def lesson_file_data(title: str, steps: Sequence[Step],
                     draw: Callable[[Step, bool], Any], *, summary: str = ""
                     ) -> dict[str, Any]:
    """Everything the file's player needs, as plain data: per step its sentence, its
    question and options, the figure before the answer (``before``: the data alone, or
    None when the figure is the answer), the figure after it (``after``), and the
    measured reveal (``answer``: the index of the option the numbers support, −1 for
    none; ``reveal``: the numbers in words). Steps without a question show ``after``
    at once."""
    out = []
    for step in steps:
        after, err = _figure(draw, step, True)
        item: dict[str, Any] = {"sentence": step.sentence, "after": after, "error": err,
                                "question": "", "options": [], "before": None,
                                "answer": -1, "reveal": ""}
        if step.question and step.options:
            before, err_before = _figure(draw, step, False)
            rev = step.reveal()
            item.update(question=step.question, options=list(step.options), before=before,
                         error_before=err_before,
                         answer=-1 if rev is None else int(rev.answer),
                         reveal="" if rev is None else rev.text)
        out.append(item)
    return {"title": title, "summary": summary, "steps": out,
            # no mode bar, as in the lab's presentation mode: a lesson's figure is read,
            # not explored (dragging still zooms, a double click resets), and the bar's
            # buttons covered a long title's end on hover
            "config": {**plot_config("nplk-lesson"), "displayModeBar": False},
            "noFigure": NO_FIGURE_YET}


def lesson_html(title: str, steps: Sequence[Step], draw: Callable[[Step, bool], Any],
                *, summary: str = "", fit_js: str = "") -> str:
    """The lesson as one HTML page (see the module docstring). ``draw(step, revealed)``
    is the Lessons page's figure function; ValueError when the page would be larger than
    :data:`MAX_BYTES`. ``fit_js`` is the lab's script that fits a figure's title to the
    width it has in the browser (the live chart's ``reactFitted``); the page draws with
    it when given."""
    if not steps:
        raise ValueError("A lesson file needs at least one step.")
    data = lesson_file_data(title, steps, draw, summary=summary)
    page = _PAGE.format(title=html.escape(title), plotly=inline_script(plotly_js()),
                        data=_json_for_script(data), player=inline_script(_PLAYER),
                        fit=inline_script(fit_js))
    size = len(page.encode("utf-8"))
    if size > MAX_BYTES:
        raise ValueError(f"The lesson file would be {size / 1e6:.1f} MB; a lesson file may "
                         f"be at most {MAX_BYTES / 1e6:.0f} MB.")
    return page


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  * {{ box-sizing: border-box; }}
  body {{ font-family: "Source Sans Pro", "Segoe UI", Helvetica, Arial, sans-serif;
         margin: 0; color: #262730; background: white; font-size: 17px; line-height: 1.45; }}
  main {{ max-width: 1400px; margin: 0 auto; padding: 0.6rem 1.2rem; }}
  header {{ display: flex; align-items: center; gap: 0.6rem; flex-wrap: wrap; }}
  h1 {{ font-size: 1.15rem; margin: 0; flex: 1 1 20rem; }}
  .muted {{ color: #555867; font-size: 0.92rem; }}
  nav button, .choice {{ font: inherit; border: 1px solid rgba(49,51,63,0.35);
         border-radius: 0.45rem; background: white; color: inherit; cursor: pointer; }}
  nav button {{ padding: 0.3rem 0.9rem; }}
  nav button.primary {{ background: #FF4B4B; border-color: #FF4B4B; color: white; }}
  nav button:disabled {{ opacity: 0.45; cursor: default; }}
  button:focus-visible, .choice:focus-visible {{ outline: 3px solid #1C6DD0;
         outline-offset: 2px; }}
  #sentence {{ margin: 0.5rem 0; white-space: pre-line; }}
  .row {{ display: flex; gap: 1.5rem; align-items: flex-start; }}
  #figure {{ flex: 1.55 1 0; min-width: 0; }}
  aside {{ flex: 1 1 0; min-width: 16rem; }}
  #question {{ font-weight: 600; margin: 0 0 0.4rem; }}
  .choice {{ display: block; width: 100%; text-align: left; padding: 0.4rem 0.7rem;
            margin: 0 0 0.4rem; }}
  .choice[aria-checked="true"] {{ border: 2px solid #1C6DD0; font-weight: 600; }}
  .choice.answer {{ background: #E8F5EC; }}
  .choice:disabled {{ cursor: default; color: inherit; }}
  .verdict {{ padding: 0.45rem 0.7rem; border-radius: 0.45rem; margin: 0.5rem 0; }}
  .verdict.right {{ background: #DFF3E4; color: #14532D; }}
  .verdict.wrong {{ background: #FDE2E1; color: #7F1D1D; }}
  .verdict.none {{ background: #FFF4D6; color: #6B4E00; }}
  #reveal, .note {{ white-space: pre-line; }}
  .note {{ background: #EEF4FB; padding: 0.6rem 0.8rem; border-radius: 0.45rem; }}
  table {{ border-collapse: collapse; width: 100%; margin-top: 0.6rem; }}
  th, td {{ text-align: left; border-bottom: 1px solid #DDD; padding: 0.35rem 0.5rem;
           vertical-align: top; }}
  /* a narrow window stacks the figure above the words, each the window's width (the
     row's flex-start would leave the figure at Plotly's default 700 px) */
  @media (max-width: 800px) {{ .row {{ flex-direction: column; }}
    aside {{ min-width: 0; }} #figure, aside {{ width: 100%; }} }}
</style>
<script>{plotly}</script>
</head>
<body>
<main>
<header>
  <h1 id="heading"></h1>
  <nav>
    <button type="button" id="back"
            title="The previous step (left arrow key)">&#9664; Back</button>
    <button type="button" id="next" class="primary"
            title="The next step (right arrow key)">Next &#9654;</button>
  </nav>
</header>
<p id="lesson-summary" class="muted"></p>
<section id="step-view">
  <p id="sentence"></p>
  <div class="row">
    <div id="figure"></div>
    <aside>
      <p id="question"></p>
      <div id="choices" role="radiogroup" aria-labelledby="question"></div>
      <p id="hint" class="muted"></p>
      <div id="verdict" role="status"></div>
      <p id="reveal"></p>
    </aside>
  </div>
</section>
<section id="summary-view" hidden>
  <h2>Your answers</h2>
  <p id="score"></p>
  <table><thead><tr><th>Step</th><th>Question</th><th>Your prediction</th>
  <th>What the lab measured</th></tr></thead><tbody id="answers"></tbody></table>
</section>
<p class="muted">Made with NPLK Lab. Every figure and number in this file was computed
by the lab when the file was made; it runs in the browser with no server.</p>
</main>
<script type="application/json" id="nplk-lesson">{data}</script>
<script>
{fit}
</script>
<script>
{player}
</script>
</body>
</html>
"""

# The player: state in memory (the step shown, the first answer picked per step); the
# step also sits in the address's #fragment so a reload or a shared link keeps it.
_PLAYER = r"""
(function () {
  'use strict';
  const L = JSON.parse(document.getElementById('nplk-lesson').textContent);
  const n = L.steps.length;
  const picked = new Array(n).fill(-1);
  const $ = (id) => document.getElementById(id);
  let k = 0;           // the step shown (0-based); n = the summary
  const fromHash = () => {
    const m = /^#step=(\d+)$/.exec(location.hash);
    return m ? Math.min(Math.max(parseInt(m[1], 10) - 1, 0), n) : 0;
  };
  const say = (el, text) => { el.textContent = text || ''; };

  const plot = (fig, message) => {
    const host = $('figure');
    if (window.Plotly) Plotly.purge(host);
    host.textContent = '';
    if (!fig) {
      const p = document.createElement('p');
      p.className = 'note';
      p.textContent = message || L.noFigure;
      host.appendChild(p);
      host.dataset.drawn = 'none';
      return;
    }
    const layout = Object.assign({}, fig.layout);
    // the page's figure, at most as tall as the window leaves room for
    const room = window.innerHeight - host.getBoundingClientRect().top - 16;
    layout.height = Math.max(320, Math.min(layout.height || 600, room));
    host.dataset.drawn = 'pending';
    const config = Object.assign({ responsive: true }, L.config);
    // the title fitted to the figure's width, with the lab's script when it is inside
    const drawn = typeof reactFitted === 'function'
      ? reactFitted(Plotly, host, fig.data, layout, config)
      : Plotly.newPlot(host, fig.data, layout, config);
    if (typeof followColumn === 'function') followColumn(host);
    drawn.then(() => { host.dataset.drawn = 'yes'; });
  };

  const verdict = (s, chosen) => {
    const v = $('verdict');
    if (s.answer < 0) {
      v.className = 'verdict none';
      return 'The numbers here fit none of the options exactly.';
    }
    if (chosen === s.answer) { v.className = 'verdict right'; return 'Right.'; }
    v.className = 'verdict wrong';
    return 'Not quite: the numbers say \u201c' + s.options[s.answer] + '\u201d.';
  };

  const showStep = () => {
    const s = L.steps[k];
    $('step-view').hidden = false;
    $('summary-view').hidden = true;
    say($('heading'), L.title + ' \u2014 step ' + (k + 1) + ' of ' + n);
    say($('sentence'), s.sentence);
    say($('question'), s.question);
    const box = $('choices');
    box.textContent = '';
    const chosen = picked[k];
    const asked = s.options.length > 0;
    const revealed = !asked || chosen >= 0;
    s.options.forEach((text, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'choice' + (revealed && i === s.answer ? ' answer' : '');
      b.setAttribute('role', 'radio');
      b.setAttribute('aria-checked', String(i === chosen));
      b.dataset.index = String(i);
      b.textContent = text;
      b.disabled = chosen >= 0;
      b.addEventListener('click', () => { picked[k] = i; showStep(); $('verdict').focus(); });
      box.appendChild(b);
    });
    say($('hint'), asked && !revealed ? 'Pick what you predict: the figure and the ' +
        'numbers then show what the lab measured here. Your first pick counts.' : '');
    if (asked && revealed) {
      say($('verdict'), verdict(s, chosen));
      say($('reveal'), s.reveal);
    } else {
      $('verdict').className = '';
      say($('verdict'), '');
      say($('reveal'), '');
    }
    plot(revealed ? s.after : s.before, revealed ? s.error : s.error_before);
    $('back').disabled = k === 0;
    say($('next'), k === n - 1 ? 'Your answers \u25B6' : 'Next \u25B6');
    document.body.dataset.step = String(k + 1);
  };

  const showSummary = () => {
    $('step-view').hidden = true;
    $('summary-view').hidden = false;
    say($('heading'), L.title + ' \u2014 your answers');
    const body = $('answers');
    body.textContent = '';
    let asked = 0, right = 0, answered = 0;
    L.steps.forEach((s, i) => {
      if (!s.options.length) return;
      asked += 1;
      const c = picked[i];
      if (c >= 0) answered += 1;
      if (c >= 0 && c === s.answer) right += 1;
      const tr = document.createElement('tr');
      const mark = c < 0 ? '' : s.answer < 0 ? ' (no option fits)' :
        c === s.answer ? ' \u2713 right' : ' \u2717 not quite';
      // an unanswered question keeps its answer hidden: the student can still go back
      [String(i + 1), s.question, c < 0 ? '(not answered)' : s.options[c] + mark,
       c < 0 ? '(answer step ' + (i + 1) + ' to see it)'
         : s.answer < 0 ? 'none of the options' : s.options[s.answer]].forEach((t) => {
        const td = document.createElement('td');
        td.textContent = t;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    say($('score'), asked ? 'You answered ' + answered + ' of ' + asked +
        ' questions; ' + right + ' of your predictions matched what the lab measured.'
        : 'This lesson has no questions.');
    $('back').disabled = false;
    $('next').disabled = true;
    say($('next'), 'Next \u25B6');
    document.body.dataset.step = 'summary';
  };

  const show = () => {
    $('next').disabled = false;
    if (k >= n) showSummary(); else showStep();
    const want = '#step=' + (k + 1);
    if (location.hash !== want) history.replaceState(null, '', want);
  };
  const go = (d) => { k = Math.min(Math.max(k + d, 0), n); show(); };

  say($('lesson-summary'), L.summary);
  $('verdict').tabIndex = -1;
  $('back').addEventListener('click', () => go(-1));
  $('next').addEventListener('click', () => go(1));
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key === 'ArrowLeft') go(-1);
    else if (e.key === 'ArrowRight') go(1);
  });
  k = fromHash();
  show();
})();
"""
