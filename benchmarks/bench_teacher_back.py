"""The teacher back at the controls: where the time goes after the teacher's worker is
SIGKILLed and after the classroom is stopped and started again.

Starts ``nplk-lab classroom --workers 2`` (the real command, HAProxy in front, a fresh
SQLite class store), a teacher in Chromium starts a class on Lessons (lesson 1) and a
student joins by the link. The teacher's page records, in the browser's own clock
(the same wall clock as this process), every websocket it opens (made, open, its first
message, closed), every check of the server Streamlit's page makes before it
reconnects (``/_stcore/health`` and ``/_stcore/host-config``: start, end, status), and
every change of the page's run state. Then:

* ``--kills`` rounds: SIGKILL the worker serving the teacher; the split from the kill
  to the websocket's close, to the page's first check of the server, to the first
  check answered, to the new websocket open, to the new worker's first message, to
  the end of the page's first run there, and to the teacher's first move on screen
  (the same condition as the class's browser test); HAProxy's "is DOWN" line for the
  killed worker too. The worker is back before the next round.
* ``--restarts`` rounds: stop the command (SIGTERM) and start it again on the same
  port (its time to "NPLK Lab for a class:"), then reload the teacher's page: the split
  from the reload to the document, the websocket open, the first message, the start
  and end of the first run, and the teacher's move on screen.

    python benchmarks/bench_teacher_back.py --kills 3 --restarts 2
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import _browser as tb  # noqa: E402
from test_browser_class import (  # noqa: E402
    TEACHER_VIEW,
    classroom_with_store,
    has_text,
    join_by_link,
    start_class,
)
from test_browser_classroom_faults import _worker_pids  # noqa: E402

from nplk_lab.serve import command  # noqa: E402

#: the teacher's page, from its first script on: websockets, the server checks before a
#: reconnection, the run state (all in ms of the wall clock)
TIMELINE_JS = """
(() => {
  const T = () => performance.timeOrigin + performance.now();
  const ev = window.__nplkEvents = [];
  const Native = window.WebSocket;
  window.__nplkSockets = 0;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      const n = ++window.__nplkSockets;
      window.__nplkSocket = this;
      ev.push(['ws-new', n, T()]);
      let first = true;
      this.addEventListener('open', () => ev.push(['ws-open', n, T()]));
      this.addEventListener('close', () => ev.push(['ws-close', n, T()]));
      this.addEventListener('message', () => {
        if (first) { first = false; ev.push(['ws-msg', n, T()]); }
      });
    }
  };
  const nativeFetch = window.fetch;
  window.fetch = function (input, ...rest) {
    const url = String(input && input.url || input);
    const kind = url.includes('_stcore/health') ? 'health'
      : url.includes('_stcore/host-config') ? 'host-config' : null;
    if (!kind) return nativeFetch.call(this, input, ...rest);
    const t0 = T();
    return nativeFetch.call(this, input, ...rest).then(
      (r) => { ev.push(['ping', kind, t0, T(), r.status]); return r; },
      (e) => { ev.push(['ping', kind, t0, T(), 0]); throw e; });
  };
  let last = null;
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const s = app && app.dataset.testScriptState;
    if (s && s !== last) { last = s; ev.push(['run', s, T()]); }
  }).observe(document, {attributes: true, subtree: true,
                        attributeFilter: ["data-test-script-state"]});
})();
"""

MOVE = re.compile(r"^Show split")


def controls(page) -> float:
    page.get_by_role("button", name=MOVE).first.wait_for(state="visible", timeout=120_000)
    return time.time()


def split(events: list, t0_ms: float, sockets_before: int) -> dict[str, float]:
    """Seconds from ``t0_ms`` to each step of the page's way back."""
    def first(pred):
        ts = [e for e in events if pred(e)]
        return ts[0] if ts else None

    def s(t):
        return round((t - t0_ms) / 1000, 3) if t is not None else float("nan")

    close = first(lambda e: e[0] == "ws-close" and e[1] == sockets_before)
    pings = [e for e in events if e[0] == "ping" and e[2] >= t0_ms]
    ok = first(lambda e: e[0] == "ping" and e[2] >= t0_ms and e[4] == 200
               and e[1] == "health")
    new = first(lambda e: e[0] == "ws-new" and e[1] > sockets_before)
    opened = first(lambda e: e[0] == "ws-open" and e[1] > sockets_before)
    msg = first(lambda e: e[0] == "ws-msg" and e[1] > sockets_before)
    running = first(lambda e: e[0] == "run" and e[2] >= t0_ms and e[1] != "notRunning")
    ended = None
    if running is not None:
        ended = first(lambda e: e[0] == "run" and e[2] >= running[2]
                      and e[1] == "notRunning")
    return {
        "ws closed": s(close[2] if close else None),
        "first check": s(pings[0][2] if pings else None),
        "checks": len(pings),
        "check answered": s(ok[3] if ok else None),
        "ws made": s(new[2] if new else None),
        "ws open": s(opened[2] if opened else None),
        "first message": s(msg[2] if msg else None),
        "run starts": s(running[2] if running else None),
        "run ends": s(ended[2] if ended else None),
    }


class LineTime:
    """The wall-clock time a line matching ``pred`` arrives on the command's output."""

    def __init__(self, output, pred, start: int) -> None:
        self.at: float | None = None
        self._t = threading.Thread(target=self._wait, args=(output, pred, start),
                                   daemon=True)
        self._t.start()

    def _wait(self, output, pred, start):
        try:
            output.wait_line(pred, timeout_s=60, what="", start=start)
            self.at = time.time()
        except Exception:  # noqa: BLE001 - a line that never came is reported as nan
            pass


def _wait_back(teacher, before: int, t0: float) -> None:
    """Until the page has a new open websocket and a run of the page started after
    ``t0`` is over."""
    teacher.wait_for_function(f"() => window.__nplkSockets > {before} && "
                              "window.__nplkSocket.readyState === WebSocket.OPEN",
                              polling=20, timeout=60_000)
    teacher.wait_for_function(
        "(t) => __nplkEvents.some((e) => e[0] === 'run' && e[1] === 'notRunning' "
        "&& e[2] > t && __nplkEvents.some((r) => r[0] === 'run' && r[1] !== 'notRunning' "
        "&& r[2] > t && r[2] <= e[2]))", arg=t0 * 1000, polling=20, timeout=60_000)


def worker_pids(room) -> dict[int, int]:
    """Each worker's process now: its first line, or the last "is back" line."""
    pids = _worker_pids(room)
    for ln in room.output.lines():
        m = re.search(r"worker (\d+) is back \(pid (\d+)", ln)
        if m:
            pids[int(m[1])] = int(m[2])
    return pids


def warm_lessons(browser, room, worker: int) -> None:
    """Open Lessons at the class's lesson on ``worker`` (its cookie set by hand), so
    that worker has run the page once, then close that browser."""
    ctx = browser.new_context(viewport=TEACHER_VIEW)
    host = room.url.split("//")[1].split(":")[0]
    ctx.add_cookies([{"name": command.WORKER_COOKIE, "value": f"w{worker}",
                      "domain": host, "path": "/"}])
    page = ctx.new_page()
    page.goto(f"{room.url}/Lessons?lesson=1&step=1")
    has_text(page, "step 1 of", timeout=120_000)
    ctx.close()


def kill_round(room, teacher, browser=None) -> dict[str, float]:
    pids = worker_pids(room)
    victim = int(next(c["value"] for c in teacher.context.cookies()
                      if c["name"] == command.WORKER_COOKIE)[1:])
    if browser is not None:
        warm_lessons(browser, room, 3 - victim)
    before = teacher.evaluate("() => window.__nplkSockets")
    mark = room.output.mark()
    down = LineTime(room.output, lambda ln: f"w{victim} is DOWN" in ln, mark)
    t0 = time.time()
    os.kill(pids[victim], signal.SIGKILL)
    spy = None
    if os.environ.get("BENCH_PROFILE"):   # where the other worker spends the way back
        import subprocess
        spy = subprocess.Popen(["py-spy", "record", "--pid", str(pids[3 - victim]),
                                "-d", os.environ["BENCH_PROFILE"], "-r", "200", "--format",
                                "raw", "-o", f"/tmp/teacher-back-{victim}.txt"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_back(teacher, before, t0)
    except Exception:
        print(teacher.evaluate("() => __nplkEvents"))
        raise
    back = controls(teacher)
    if spy is not None:
        spy.wait()
    events = teacher.evaluate("() => __nplkEvents")
    row = split(events, t0 * 1000, before)
    if os.environ.get("BENCH_VERBOSE"):
        print([(e[1], round((e[2] - t0 * 1000) / 1000, 3)) for e in events
               if e[0] == "run" and e[2] >= t0 * 1000])
    row["proxy: DOWN"] = round(down.at - t0, 3) if down.at else float("nan")
    row["controls"] = round(back - t0, 3)
    room.output.wait_line(lambda ln: f"worker {victim} is back" in ln, timeout_s=180,
                          what="the killed worker's restart", start=mark)
    return row


def restart_round(room, teacher) -> dict[str, float]:
    t_stop = time.time()
    room.stop()
    t_start = time.time()
    room.start()
    t_ready = time.time()
    t0 = time.time()
    teacher.reload(wait_until="domcontentloaded")
    t_doc = time.time()
    back = controls(teacher)
    events = teacher.evaluate("() => __nplkEvents")
    row = {"stop": round(t_start - t_stop, 3), "start": round(t_ready - t_start, 3),
           "document": round(t_doc - t0, 3)}
    row.update({k: v for k, v in split(events, t0 * 1000, 0).items()
                if k in ("ws open", "first message", "run starts", "run ends")})
    row["controls"] = round(back - t0, 3)
    return row


def table(title: str, rows: list[dict]) -> str:
    keys = list(rows[0])
    out = [f"\n{title}", "| " + " | ".join(["round", *keys]) + " |",
           "|" + "---|" * (len(keys) + 1)]
    for i, r in enumerate(rows, 1):
        out.append("| " + " | ".join([str(i), *(f"{r[k]:g}" for k in keys)]) + " |")
    if len(rows) > 1:
        out.append("| median | " + " | ".join(
            f"{statistics.median(r[k] for r in rows):g}" for k in keys) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--restarts", type=int, default=2)
    ap.add_argument("--warm-other", action="store_true",
                    help="every second kill round: the other worker opens Lessons first "
                         "(is the time the other worker's first run of the page?)")
    ns = ap.parse_args()
    chromium = tb.find_chromium()
    print(f"uptime: {os.getloadavg()}")
    with classroom_with_store("teacher-back") as room, tb.open_browser(chromium) as browser:
        ctx = browser.new_context(viewport=TEACHER_VIEW)
        ctx.add_init_script(TIMELINE_JS)
        teacher = ctx.new_page()
        teacher.set_default_timeout(120_000)
        code = start_class(teacher, room.url)
        join_by_link(browser, room.url, code, view=TEACHER_VIEW)
        has_text(teacher, "1 joined")
        controls(teacher)
        kills = [kill_round(room, teacher, browser if ns.warm_other and i % 2 else None)
                 for i in range(ns.kills)]
        restarts = [restart_round(room, teacher) for _ in range(ns.restarts)]
    if kills:
        print(table("the teacher's worker SIGKILLed: seconds from the kill", kills))
    if restarts:
        print(table("the classroom stopped and started: seconds (stop, start), then from "
                    "the reload", restarts))
    print(f"\nuptime: {os.getloadavg()}")


if __name__ == "__main__":
    main()
