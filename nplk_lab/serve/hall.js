// A class's light student page (hall.html, served by nplk_lab/serve/class_hall.py).
// It follows the class by a long poll on the class's version (the server answers once
// the teacher moved, or after a while), draws the step, takes the vote (pick, then Lock
// in) and shows the reveal. A failed poll (a worker restarting, the proxy answering 503)
// is tried again, a little later each time, until a worker answers. Every text a user
// or the server sends is written as text (textContent), never as HTML.
/* global Plotly */
"use strict";

(function () {
  const API = "/_nplk/class/api";
  const query = new URLSearchParams(location.search);
  let code = query.get("class") || "";
  const lessonToken = query.get("my_lesson") || "";
  let version = null;     // the class's version this page shows
  let last = null;        // the last state the server sent
  let figureUrl = null;   // the figure on the page
  let pick = { key: "", choice: null, sure: null };
  let polling = false;

  const $ = (id) => document.getElementById(id);
  const put = (el, s) => { el.textContent = s == null ? "" : String(s); };
  const show = (el, on) => { el.hidden = !on; };

  function params(extra) {
    const p = new URLSearchParams({ class: code });
    if (lessonToken) p.set("my_lesson", lessonToken);
    for (const [k, v] of Object.entries(extra || {})) p.set(k, String(v));
    return p.toString();
  }

  function error(message) {
    put($("error"), message || "");
    show($("error"), Boolean(message));
  }

  function status(message) {
    put($("link"), message || "");
    show($("link"), Boolean(message));
  }

  async function post(path, body) {
    const r = await fetch(API + path, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const got = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(got.error || "The server did not answer: try again.");
    return got;
  }

  // --- the poll ---------------------------------------------------------------------
  async function poll() {
    if (polling) return;
    polling = true;
    let wait = 0;
    while (polling) {
      let r;
      try {
        r = await fetch(API + "/state?" + params(version === null ? {} : { since: version }),
                        { credentials: "same-origin", cache: "no-store" });
      } catch {
        r = null;     // no answer: the server or the network is away
      }
      if (r === null || r.status >= 500 || r.status === 429) {
        status("Reconnecting to the class…");
        wait = Math.min(2000, wait ? 2 * wait : 250);
        await new Promise((done) => setTimeout(done, wait));
        continue;
      }
      wait = 0;
      status("");
      const got = await r.json().catch(() => ({}));
      if (!r.ok) {
        polling = false;
        error(got.error || "This class cannot be opened.");
        joinForm(true);
        return;
      }
      error("");
      render(got);
      if (got.role !== "student" || got.ended) polling = false;
    }
  }

  // --- drawing ------------------------------------------------------------------
  function joinForm(on) {
    show($("join"), on);
    if (on) {
      show($("step"), false);
      if (!$("join-code").value) $("join-code").value = last ? last.shown_code : code;
    }
  }

  function render(s) {
    last = s;
    version = s.version;
    put($("code"), s.shown_code);
    document.title = "NPLK Lab · class " + s.shown_code;
    const explore = $("explore");
    if (s.role === "visitor") {
      put($("who"), s.ended ? "This class has ended." : "");
      joinForm(!s.ended);
      explore.href = "/Lessons";
      return;
    }
    joinForm(false);
    if (s.role === "teacher") {
      put($("who"), "This browser leads the class: its controls are on the Lessons page.");
      show($("step"), false);
      explore.href = "/Lessons?" + params();
      put(explore, "Open the class's controls");
      return;
    }
    explore.href = s.explore;
    if (s.ended) {
      put($("who"), "The class has ended: the lesson stays open for you to explore.");
      show($("step"), false);
      return;
    }
    put($("who"), "You are " + s.handle + " · following your teacher: the step moves "
        + "with the class.");
    show($("step"), true);
    put($("where"), "Step " + (s.step + 1) + " of " + s.steps);
    put($("sentence"), s.sentence);
    drawFigure(s);
    drawQuestion(s);
  }

  async function drawFigure(s) {
    if (s.figure === figureUrl) return;
    figureUrl = s.figure;
    const box = $("figure");
    show($("figure-note"), !s.figure && Boolean(s.question));
    if (!s.figure) {
      if (window.Plotly) Plotly.purge(box);
      box.replaceChildren();
      return;
    }
    const r = await fetch(s.figure, { credentials: "same-origin" }).catch(() => null);
    if (!r || !r.ok || figureUrl !== s.figure) {
      if (figureUrl === s.figure) figureUrl = null;   // asked again at the next change
      return;
    }
    const fig = await r.json();
    if (figureUrl !== s.figure || !window.Plotly) return;
    // the page's width, not the figure's own (a phone's screen is narrower); the
    // section's, as an empty figure box is not displayed
    const layout = Object.assign({}, fig.layout,
                                 { autosize: false, width: box.parentElement.clientWidth });
    await Plotly.react(box, fig.data, layout, { displayModeBar: false, displaylogo: false });
    box.dataset.drawn = s.figure;
  }

  function mineIn(s, round) {
    if (!s.mine) return { choice: null, sure: null };
    return round === 2 ? { choice: s.mine.second, sure: s.mine.second_sure }
      : { choice: s.mine.first, sure: s.mine.first_sure };
  }

  function drawQuestion(s) {
    show($("ask"), Boolean(s.question));
    if (!s.question) return;
    put($("question"), s.question);
    const voting = s.round === 1 || s.round === 2;
    show($("vote-form"), voting);
    const opts = s.options;
    const held = s.mine ? s.mine.held : null;
    put($("prompt"), "");
    put($("held"), "");
    put($("verdict"), "");
    $("verdict").className = "";
    $("reveal").replaceChildren();
    $("bars").replaceChildren();
    if (voting) {
      const key = s.code + ":" + s.step + ":" + s.round;
      const locked = mineIn(s, s.round);
      if (pick.key !== key) {
        pick = { key, choice: locked.choice, sure: locked.sure };
        drawOptions(opts);
      }
      updateLock(s);
      if (s.round === 2) {
        put($("prompt"), "Talk to your neighbour: convince them, or let them convince "
            + "you. Then vote again.");
        if (s.mine && s.mine.first !== null) {
          put($("held"), "Your first vote: " + opts[s.mine.first] + ".");
        }
      }
      return;
    }
    pick.key = "";
    if (s.phase !== "revealed") {
      put($("held"), held === null || held === undefined ? "You did not vote on this one."
        : "Your vote: " + opts[held]);
    }
    if (s.phase === "split" && s.counts) {
      put($("prompt"), "This is how the class voted. Your teacher says what comes next.");
      bars("How the class voted (" + s.counts.answered + ")", opts,
           [["", s.counts.by]], null);
    }
    if (s.shift) {
      bars("From the first vote to the second", opts,
           [["first vote", s.shift.first], ["second vote", s.shift.second]], s.correct);
    }
    if (s.phase === "revealed") {
      put($("verdict"), s.verdict.text || "");
      $("verdict").className = s.verdict.kind || "";
      for (const part of s.reveal) {
        const p = document.createElement("p");
        put(p, part);
        $("reveal").append(p);
      }
    }
  }

  function bars(title, opts, rows, correct) {
    const box = $("bars");
    const h = document.createElement("h3");
    put(h, title);
    box.append(h);
    let most = 1;
    for (const [, counts] of rows) for (const n of counts) most = Math.max(most, n);
    opts.forEach((opt, i) => {
      const div = document.createElement("div");
      div.className = "bar" + (i === correct ? " right" : "");
      const label = document.createElement("div");
      label.className = "label";
      put(label, opt + (i === correct ? " (right)" : ""));
      div.append(label);
      for (const [name, counts] of rows) {
        const fill = document.createElement("div");
        fill.className = "fill" + (name === "first vote" ? " first" : "");
        fill.style.width = (100 * counts[i] / most) + "%";
        const n = document.createElement("div");
        n.className = "quiet";
        put(n, (name ? name + ": " : "") + counts[i]);
        div.append(fill, n);
      }
      box.append(div);
    });
  }

  function drawOptions(opts) {
    const box = $("options");
    box.querySelectorAll("label").forEach((el) => el.remove());
    opts.forEach((opt, i) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "choice";
      input.value = String(i);
      input.checked = pick.choice === i;
      const span = document.createElement("span");
      put(span, opt);
      label.append(input, span);
      label.classList.toggle("picked", input.checked);
      box.append(label);
    });
    for (const input of document.querySelectorAll("#sure input")) {
      input.checked = pick.sure !== null && pick.sure !== undefined
        && input.value === (pick.sure ? "1" : "0");
    }
  }

  // the Lessons page's words for where the vote stands
  function updateLock(s) {
    const locked = mineIn(s, s.round);
    const none = (x) => x === null || x === undefined;
    const same = pick.choice === locked.choice && (pick.sure ?? null) === (locked.sure ?? null);
    $("lock").disabled = none(pick.choice) || same;
    const opts = s.options;
    if (none(locked.choice)) {
      put($("vote-note"), s.round === 1
        ? "Vote alone first: choose an option and lock it in. Your teacher will show how "
          + "the class voted."
        : "Choose an option and lock it in: your second vote.");
    } else if (!none(pick.choice) && pick.choice !== locked.choice) {
      put($("vote-note"), "Not sent yet: your vote is still “" + opts[locked.choice]
          + "”. Lock in to change it.");
    } else {
      put($("vote-note"), "Your vote is in: “" + opts[locked.choice] + "”. Until your "
          + "teacher closes the vote you can change it: choose another option and lock "
          + "it in.");
    }
    for (const label of document.querySelectorAll("#options label")) {
      label.classList.toggle("picked", label.querySelector("input").checked);
    }
  }

  // --- the user's actions ----------------------------------------------------------
  $("options").addEventListener("change", (e) => {
    pick.choice = Number(e.target.value);
    if (last) updateLock(last);
  });
  $("sure").addEventListener("change", (e) => {
    pick.sure = e.target.value === "1";
    if (last) updateLock(last);
  });
  $("vote-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!last || pick.choice === null) return;
    $("lock").disabled = true;
    try {
      const got = await post("/vote", { class: last.code, step: last.step,
                                        choice: pick.choice, sure: pick.sure ?? null });
      error("");
      last.mine = got.mine;
      render(last);
    } catch (err) {
      error(err.message);
      updateLock(last);
    }
  });
  $("join-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const typed = $("join-code").value.trim();
    try {
      await post("/join", { class: typed, name: $("join-name").value });
      code = typed;
      const p = new URLSearchParams(location.search);
      p.set("class", typed);
      history.replaceState(null, "", location.pathname + "?" + p.toString());
      error("");
      version = null;
      poll();
    } catch (err) {
      error(err.message);
    }
  });

  window.addEventListener("resize", () => {
    const box = $("figure");
    if (box.dataset.drawn && window.Plotly) {
      Plotly.relayout(box, { width: box.parentElement.clientWidth });
    }
  });

  if (code) poll(); else joinForm(true);
})();
