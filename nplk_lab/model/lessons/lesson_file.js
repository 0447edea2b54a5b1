// The lesson file's player (nplk_lab/model/lessons/lesson_file.py inlines it).
//
// The step shown sits in the address's #fragment, so a reload or a shared link keeps it.
// A choice is only a choice: "Lock in" (or Enter on a choice) makes it the answer, and
// only then are the fitted figure, the numbers and the verdict shown; the up and down
// arrow keys move between the choices. The answers locked in are kept in the browser's
// storage under the lesson's key, so a reload, a closed tab or the file opened again
// keeps them; "Start again" on the summary clears them.
/* global Plotly, reactFitted, followColumn */
(function () {
  'use strict';
  const L = JSON.parse(document.getElementById('nplk-lesson').textContent);
  const n = L.steps.length;
  const STORE = 'nplk-lesson-answers:' + L.key;
  const $ = (id) => document.getElementById(id);
  const say = (el, text) => { el.textContent = text || ''; };

  // the answers locked in (an option's index, -1: none), kept in the browser's storage
  // (file:// pages have one; a browser that refuses it keeps them in memory only)
  const load = () => {
    try {
      const got = JSON.parse(window.localStorage.getItem(STORE) || '[]');
      return L.steps.map((s, i) => (Number.isInteger(got[i]) && got[i] >= 0 &&
                                    got[i] < s.options.length ? got[i] : -1));
    } catch {
      return new Array(n).fill(-1);
    }
  };
  const picked = load();
  const save = () => {
    try { window.localStorage.setItem(STORE, JSON.stringify(picked)); } catch { /* memory */ }
  };
  const chosen = new Array(n).fill(-1);   // chosen, not yet locked in
  let k = 0;           // the step shown (0-based); n = the summary
  const fromHash = () => {
    const m = /^#step=(\d+)$/.exec(location.hash);
    return m ? Math.min(Math.max(parseInt(m[1], 10) - 1, 0), n) : 0;
  };

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

  const verdict = (s, mine) => {
    const v = $('verdict');
    const said = '\u201c' + s.options[mine] + '\u201d';
    if (s.answer < 0) {
      v.className = 'verdict none';
      return 'You predicted ' + said + '. The numbers here fit none of the options exactly.';
    }
    if (mine === s.answer) { v.className = 'verdict right'; return 'Right: ' + said + '.'; }
    v.className = 'verdict wrong';
    return 'Not quite: you predicted ' + said + '; the numbers say \u201c' +
      s.options[s.answer] + '\u201d.';
  };

  // the draws behind a count, as a small table (the numbers of each draw on one row)
  const drawTable = (table) => {
    const host = $('draws');
    host.textContent = '';
    host.hidden = !table;
    if (!table) return;
    const summary = document.createElement('summary');
    summary.textContent = 'Draw by draw';
    const t = document.createElement('table');
    const head = t.createTHead().insertRow();
    table.header.forEach((h) => { const th = document.createElement('th'); th.textContent = h;
                                  head.appendChild(th); });
    const body = t.createTBody();
    table.rows.forEach((r) => { const tr = body.insertRow();
                                r.forEach((c) => { tr.insertCell().textContent = c; }); });
    host.append(summary, t);
  };

  const lock = () => {
    if (k >= n || picked[k] >= 0) return;
    if (chosen[k] < 0) { say($('hint'), 'Choose an option first, then lock it in.'); return; }
    picked[k] = chosen[k];
    save();
    showStep();
    $('verdict').focus();
  };

  const choose = (i, focus) => {
    chosen[k] = i;
    $('choices').querySelectorAll('.choice').forEach((b, j) => {
      b.setAttribute('aria-checked', String(j === i));
      b.tabIndex = j === i ? 0 : -1;
      if (j === i && focus) b.focus();
    });
    $('lock').disabled = false;
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
    const mine = picked[k];
    const asked = s.options.length > 0;
    const revealed = !asked || mine >= 0;
    const now = mine >= 0 ? mine : chosen[k];
    s.options.forEach((text, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'choice' + (revealed && i === s.answer ? ' answer' : '');
      b.setAttribute('role', 'radio');
      b.setAttribute('aria-checked', String(i === now));
      b.tabIndex = i === (now >= 0 ? now : 0) ? 0 : -1;   // one tab stop, as a radio group
      b.dataset.index = String(i);
      b.textContent = text;
      b.disabled = revealed;
      b.addEventListener('click', () => choose(i, false));
      b.addEventListener('keydown', (e) => {
        if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        const step = { ArrowDown: 1, ArrowUp: -1 }[e.key];
        if (step) {
          e.preventDefault();
          e.stopPropagation();
          choose((i + step + s.options.length) % s.options.length, true);
        } else if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          e.stopPropagation();
          choose(i, false);
          if (e.key === 'Enter') lock();
        }
      });
      box.appendChild(b);
    });
    $('lock').hidden = !asked || revealed;
    $('lock').disabled = chosen[k] < 0;
    say($('hint'), asked && !revealed ? 'Choose what you predict and lock it in: the ' +
        'figure and the numbers then show what the lab measured here. A prediction is ' +
        'made once.' : '');
    if (asked && revealed) {
      say($('verdict'), verdict(s, mine));
      say($('reveal'), s.reveal);
      drawTable(s.draws);
    } else {
      $('verdict').className = '';
      say($('verdict'), '');
      say($('reveal'), '');
      drawTable(null);
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
  $('lock').addEventListener('click', lock);
  $('again').addEventListener('click', () => {
    picked.fill(-1);
    chosen.fill(-1);
    save();
    k = 0;
    show();
  });
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key === 'ArrowLeft') go(-1);
    else if (e.key === 'ArrowRight') go(1);
  });
  k = fromHash();
  show();
})();
