"""A class on one link: N simulated students on one server, through Streamlit's own
protocol (``streamlit.proto`` over the websocket, no browser; ``tools/st_client.py``).

The lesson: every student opens the Classification page, then makes ``--moves`` moves,
one every ``--gap`` seconds (each student a little behind the teacher, up to 1.5 s).
Most students follow the teacher's sequence of settings (τ up and down, then σ, C: the
same fits for all of them, at nearly the same moment); one in five explores settings of
their own (distinct fits); one in ten switches to the Regression page for three moves
and back; student 0 uploads a 300-row CSV and makes its moves on it. A move is sent on
time whether or not the previous one has been answered, as a browser does (the server
then cuts the older run short).

Per move: seconds from sending it to the first chart of the run that showed it (its own
or, when a newer move superseded it, the newer one's), p50, p90, max; errors (exception
elements on the page, connection failures, timeouts); moves lost (the page's URL,
which carries the state, does not hold the value the student chose). Server: CPU
(cores used, mean over the class, the server and its worker processes) and peak RSS
(the process tree, sampled every 0.2 s); the RSS of the idle server before the class
and ``--linger`` seconds after the last student left. Sessions per process: where each
student's tab was, and each Streamlit process's own count of open sessions (its
``/_stcore/metrics``) once every student had the page.

The floor, measured in the same run on the same machine: a trivial page (one slider, a
three-point chart) served by its own Streamlit server, one tab moving its slider
(median round trip); and the load average (``os.getloadavg``) at the start and end.

    python benchmarks/bench_classroom.py --students 1,10,30,60 [--moves 10] [--gap 3]
        [--linger 60] [--port 8640] [--seed 0] [--root CHECKOUT] [--profile PREFIX]
        [--processes N]

With ``--hall 0,300``: each class size again with a class of that many students on the
light student page beside it (``bench_lecture_hall.py``'s lesson: joining, long-polling,
voting twice on each question, following five steps), on the same server and store, in
a thread of this process that starts with the slider class; 0 is the class alone. The
table then says how many light students were beside it, and a line gives their reach
(reveal and step p90/p99, votes lost).

Each class size gets a fresh server whose page has been opened once (the teacher's tab)
before the students arrive: ``streamlit run app.py`` (``--processes 1``, the default), or
``nplk-lab classroom --workers N`` (N Streamlit processes behind HAProxy; the teacher's
tab then opens the page once on each process). Each student is a browser tab
(``st_client.Tab``): it loads the page, keeps the cookies the answers set (HAProxy's
affinity cookie) and sends them with the websocket upgrade and the upload, so its
session stays on one process. CPU and RSS then cover the whole tree: the command, every
Streamlit process, their fit workers and HAProxy (``tools/deployment.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import random
import statistics
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "tools", ROOT / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from deployment import (  # noqa: E402
    Attribution,
    BehindProxy,
    Monitor,
    OneProcess,
    open_sessions,
    serve,
)
from st_client import Tab, number, query_value  # noqa: E402

PAGE = "Classification"
OTHER_PAGE = "Regression"
#: the teacher's sequence: (setting, value), applied one after the other
TEACHER = [("tau", 0.001), ("tau", 0.003), ("tau", 0.03), ("tau", 0.1), ("sigma", 3.0),
           ("sigma", 1.0), ("C", 1.0), ("C", 100.0), ("tau", 0.01), ("sigma", 10.0)]
EXPLORE = ("tau", "sigma", "C")

FLOOR_PAGE = """
import plotly.graph_objects as go
import streamlit as st

x = st.slider("x", 0, 100, 5, key="x")
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, x, 0])))
"""


# ---------------------------------------------------------------------------
# the students
# ---------------------------------------------------------------------------

@dataclass
class Move:
    student: int
    role: str
    what: str
    sent: float
    latency: float | None = None   # to the first chart of the run that showed it
    lost: bool = False
    error: str = ""
    superseded: bool = False


@dataclass
class Student:
    index: int
    role: str                 # "follow", "explore", "switch", "upload"
    moves: list[Move] = field(default_factory=list)
    first: float | None = None
    error: str = ""
    statuses: list[str] = field(default_factory=list)
    cookies: dict[str, str] = field(default_factory=dict)   # what the tab held at the end


class Roll:
    """The class register: once every student has the page open (or has failed), each
    Streamlit process's own count of open sessions is taken (``count``, in a thread);
    students close their tabs only after that, so the count sees every tab open."""

    def __init__(self, n: int, count) -> None:
        self.n, self.count = n, count
        self.present: set[int] = set()
        self.all_here = asyncio.Event()
        self.counted = asyncio.Event()
        self.result: list[int] | None = None
        self.error = ""

    def here(self, i: int) -> None:
        self.present.add(i)
        if len(self.present) >= self.n:
            self.all_here.set()

    async def take(self) -> None:
        try:
            await self.all_here.wait()
            self.result = await asyncio.get_running_loop().run_in_executor(None, self.count)
        except Exception as exc:  # the count is a side note, never a failed class
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.counted.set()


def role_of(i: int, n: int) -> str:
    if n >= 2 and i == 0:
        return "upload"
    if i % 10 == 2:
        return "switch"
    if i % 5 == 1:
        return "explore"
    return "follow"


def csv_upload(rows: int = 300, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=rows) > 0, 1, -1)
    out = io.StringIO()
    out.write("x1,x2,label\n")
    for (a, b), c in zip(X, y, strict=True):
        out.write(f"{a:.4f},{b:.4f},{c}\n")
    return out.getvalue().encode()


def nearest(options: list[str], value: float) -> str:
    nums = []
    for o in options:
        try:
            nums.append((abs(np.log(number(o)) - np.log(value)), o))
        except ValueError:
            continue
    return min(nums)[1]


def _check(run, name: str, chosen: str) -> bool:
    """Lost: the URL the page wrote does not hold the chosen value (a slider stop's
    label read as people write it: "7 × 10⁻⁴" is 0.0007)."""
    got = query_value(run.query or "", name)
    try:
        return got is None or not np.isclose(float(got), number(chosen), rtol=1e-6)
    except ValueError:
        return got != chosen


async def student(s: Student, url: str, t0: float, gap: float, n_moves: int,
                  rng: random.Random, timeout: float, roll: Roll) -> None:
    tab = Tab(url)
    pending: list[tuple[Move, object, str | None, str | None]] = []
    try:
        await tab.connect()
        run = await tab.rerun(page=PAGE, timeout=timeout)
        s.first = run.figure
        roll.here(s.index)
        if s.role == "upload":
            opts = tab.widgets["w_dataset"].options
            tab.set("w_dataset", [o for o in opts if "CSV" in o or "csv" in o][0])
            await tab.rerun(timeout=timeout)
            await tab.upload("w_csv_classification", "class.csv", csv_upload())
            m = Move(s.index, s.role, "upload", time.perf_counter())
            run = await tab.rerun(timeout=timeout)
            m.latency, m.error = run.figure, "; ".join(run.exceptions)
            s.moves.append(m)
        lag = rng.uniform(0.0, 1.5)
        for k in range(n_moves):
            when = t0 + k * gap + lag
            await asyncio.sleep(max(0.0, when - time.perf_counter()))
            page = None
            name = chosen = None
            if s.role == "switch" and k == 3:
                page, what = OTHER_PAGE, f"open {OTHER_PAGE}"
            elif s.role == "switch" and k == 6:
                page, what = PAGE, f"back to {PAGE}"
            elif s.role == "switch" and k in (4, 5):
                name = "C"
                chosen = nearest(tab.widgets["w_C"].options, (1.0, 100.0)[k - 4])
            elif s.role == "explore":
                name = rng.choice(EXPLORE)
                chosen = rng.choice(tab.widgets["w_" + name].options)
            else:
                name, v = TEACHER[k % len(TEACHER)]
                chosen = nearest(tab.widgets["w_" + name].options, v)
            if name is not None:
                what = f"{name}={chosen}"
                tab.set("w_" + name, chosen)
            m = Move(s.index, s.role, what, time.perf_counter())
            s.moves.append(m)
            run = await tab.send(page=page)
            pending.append((m, run, name, chosen))
            if page is not None:          # the new page's widgets come with its run
                await tab.wait(run, timeout)
        for m, run, name, chosen in pending:
            try:
                await tab.wait(run, max(1.0, timeout - (time.perf_counter() - m.sent)))
            except (TimeoutError, ConnectionError) as exc:
                m.error = f"{type(exc).__name__}: {exc}"
                continue
            m.latency = run.figure
            m.superseded = run.superseded
            m.error = "; ".join(run.exceptions)
            if name is not None and (run is tab.runs[-1] or not run.superseded):
                m.lost = _check(run, name, chosen)
            if m.latency is None and not m.error:
                m.error = "no figure"
        s.statuses = list(tab.statuses)
    except Exception as exc:  # a failed student is an error in the table, not a crash
        s.error = f"{type(exc).__name__}: {exc}"
    finally:
        s.cookies = dict(tab.cookies.values)
        roll.here(s.index)              # a failed student does not hold up the count
        await roll.counted.wait()
        await tab.close()


async def klass(url: str, n: int, *, moves: int, gap: float, seed: int,
                timeout: float, count=list) -> tuple[list[Student], Roll]:
    """The lesson; ``count()`` gives each Streamlit process's open sessions (taken once
    every student has the page open)."""
    students = [Student(i, role_of(i, n)) for i in range(n)]
    roll = Roll(n, count)
    taker = asyncio.create_task(roll.take())
    t0 = time.perf_counter() + 8.0 + 0.15 * n   # everyone has the page open by then
    await asyncio.gather(*(student(s, url, t0, gap, moves, random.Random(seed * 1000 + s.index),
                                   timeout, roll) for s in students))
    await taker
    return students, roll


async def floor_moves(url: str, k: int = 10) -> list[float]:
    tab = Tab(url)
    await tab.connect()
    out = []
    try:
        await tab.rerun(page="")
        for i in range(k):
            tab.set("x", 10 + i)
            run = await tab.rerun()
            if run.figure is not None:
                out.append(run.figure)
    finally:
        await tab.close()
    return out


# ---------------------------------------------------------------------------

def pct(xs, q) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if xs else float("nan")


def move_stats(students: list[Student]) -> dict:
    """The moves' numbers of the table: count, latency p50/p90/max, errors (each move's
    and each failed student's), lost and superseded moves."""
    moves = [m for s in students for m in s.moves]
    lat = [m.latency for m in moves if m.latency is not None]
    errors = [m.error for m in moves if m.error] + [s.error for s in students if s.error]
    return dict(moves=len(moves), p50=pct(lat, 50), p90=pct(lat, 90),
                max=max(lat) if lat else float("nan"), errors=errors,
                lost=sum(m.lost for m in moves),
                superseded=sum(m.superseded for m in moves))


class Beside(threading.Thread):
    """A class of ``n`` light-page students (``bench_lecture_hall.run_class``) on the
    server at ``url`` and the store at ``where``, in a thread with its own event loop."""

    def __init__(self, url: str, n: int, where: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.url, self.n, self.where, self.seed = url, n, where, seed
        self.result: dict = {}
        self.error = ""
        self.span = (0.0, 0.0)
        self.tid = 0
        self.cpu = 0.0

    def run(self) -> None:
        import bench_lecture_hall as hall

        self.tid = threading.get_native_id()

        from nplk_lab.serve.class_store import ClassStore
        t0 = time.perf_counter()
        try:
            with ClassStore(self.where) as store:
                self.result = asyncio.run(hall.run_class(self.url, self.n, store,
                                                         self.seed))
        except Exception as e:  # noqa: BLE001 - reported in the table's notes
            self.error = repr(e)
        self.span = (t0, time.perf_counter())
        self.cpu = time.thread_time()   # its thread's CPU, for the attribution


def beside_line(r: dict) -> str:
    """The light class's numbers beside the slider class of row ``r``."""
    b = r.get("beside")
    if not r.get("hall"):
        return ""
    if b is None or not b.result:
        return (f"{r['hall']} light students beside {r['n']}: failed "
                f"({b.error if b else 'not run'})")
    h = b.result
    acked = sum(h["acked"].values())
    final = sum(h["final"].values())

    def p(xs: list[float], q: float) -> str:
        ok = [x for x in xs if x != float("inf")]
        return f"{pct(ok, q):.2f}" if ok else "—"
    reveal, step = h["reach"]["reveal"], h["reach"]["step"]
    lo, hi = b.span
    cl0, cl1 = r["class_span"]
    overlap = max(0.0, min(hi, cl1) - max(lo, cl0))
    return (f"{r['hall']} light students beside {r['n']}: votes {acked} acknowledged, "
            f"{final} stored, {acked - final} lost; reveal p90 {p(reveal, 90)} s, p99 "
            f"{p(reveal, 99)} s; step p90 {p(step, 90)} s, p99 {p(step, 99)} s; "
            f"{len(h['errors'])} errors"
            + (f" ({' | '.join(sorted(set(h['errors']))[:3])[:300]})" if h["errors"] else "")
            + f"; the light class ran {hi - lo:.0f} s, "
            f"{overlap:.0f} s of them during the slider class's {cl1 - cl0:.0f} s")


def one_class(n: int, args, tmp: Path, hall: int = 0) -> dict:
    floor_dir = tmp / "floor"
    floor_dir.mkdir(exist_ok=True)
    (floor_dir / "floor.py").write_text(textwrap.dedent(FLOOR_PAGE))
    load0 = os.getloadavg()[0]
    fserver = serve("floor.py", cwd=floor_dir, port=args.port + 1, log=tmp / "floor.log")
    try:
        floor = asyncio.run(floor_moves(fserver.url))
    finally:
        fserver.stop()
    log = tmp / f"class-{n}-{hall}.log"
    # the class store the light students' class lives in (a fresh one per server)
    from nplk_lab.serve import class_room
    where = str(tmp / f"store-{n}-{hall}")
    kept_store = os.environ.get(class_room.ENV)
    os.environ[class_room.ENV] = where
    extra = (() if args.hall_processes is None
             else ("--hall-processes", str(args.hall_processes)))
    server = (BehindProxy(Path(args.root), args.processes, args.port, args.port + 2, log,
                          extra=extra)
              if args.processes > 1 else OneProcess(Path(args.root), args.port, log))
    server.start()
    ports = [port for _, port in server.streamlit]

    def count() -> list[int]:
        return [open_sessions(p) for p in ports]

    def until_closed(timeout_s: float = 120.0) -> None:
        """Poll each process's metrics page until no session is open (a benchmark may
        poll: the tests wait on events)."""
        deadline = time.monotonic() + timeout_s
        while any(count()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the teacher's tabs closed, open sessions {count()}")
            time.sleep(0.1)
    try:
        mon = Monitor(server.pid)             # the whole tree (tools/deployment.py)
        time.sleep(1.0)
        _, idle = mon.sample()                   # the idle server, before anyone came
        # the teacher's tab on each process (pinned by its cookie), then closed
        teacher = [asyncio.run(_open_once(server.url, server.cookies(i)))
                   for i in range(len(ports))]
        until_closed()
        mon.start()
        spies = []
        if args.profile:
            import subprocess
            named = [(pid, f"w{i}") for i, (pid, _) in enumerate(server.streamlit, start=1)]
            named += [(pid, f"h{i}") for i, (pid, _) in
                      enumerate(getattr(server, "hall", ()), start=1)]   # the light page's
            for pid, name in named:
                out = (f"{args.profile}-{n}-{hall}.txt" if len(ports) == 1
                       else f"{args.profile}-{n}-{hall}-{name}.txt")
                spies.append(subprocess.Popen(
                    [str(Path(sys.executable).parent / "py-spy"), "record", "-p", str(pid),
                     "--format", "raw", "-r", "50", "--threads",
                     *(["--gil"] if args.gil else []), "-o", out],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        if args.profile:
            import subprocess
            spies.append(subprocess.Popen(       # the simulated students themselves
                [str(Path(sys.executable).parent / "py-spy"), "record", "-p",
                 str(os.getpid()), "--format", "raw", "-r", "50", "--threads",
                 "-o", f"{args.profile}-{n}-{hall}-bench.txt"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        att = Attribution(server, {threading.get_native_id():
                                   "the slider students' simulator (this process)"})
        att.start()
        cpu0, w0 = mon.sample()[0], time.perf_counter()
        beside = Beside(server.url, hall, where, args.seed) if hall else None
        if beside is not None:
            beside.start()
        students, roll = asyncio.run(klass(server.url, n, moves=args.moves, gap=args.gap,
                                           seed=args.seed, timeout=args.timeout,
                                           count=count))
        cpu1, w1 = mon.sample()[0], time.perf_counter()
        light_sim = "the light students' simulator (this process)"
        if beside is not None:
            att.threads[beside.tid] = light_sim
        att.stop()
        if beside is not None and not beside.is_alive():   # its thread ended first
            att.used[light_sim] = beside.cpu
        if beside is not None:
            beside.join(timeout=600)
        peak = mon.peak
        for spy in spies:
            import signal
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        time.sleep(args.linger)
        _, after = mon.sample()
        mon.stop()
    finally:
        server.stop()
        if kept_store is None:
            os.environ.pop(class_room.ENV, None)
        else:
            os.environ[class_room.ENV] = kept_store
    spread: dict[str, int] = {}
    for s in students:
        where = server.process_of(s.cookies)
        spread[where] = spread.get(where, 0) + 1
    moves = [m for s in students for m in s.moves]
    if args.verbose:
        for m in sorted(moves, key=lambda m: m.sent):
            print(f"  student {m.student:2d} {m.role:7s} {m.what:24s} "
                  f"{'—' if m.latency is None else f'{m.latency:6.2f}'} s"
                  f"{' superseded' if m.superseded else ''}{' LOST' if m.lost else ''}"
                  f"{' ' + m.error[:80] if m.error else ''}", file=sys.stderr)
    return dict(n=n, hall=hall, beside=beside, class_span=(w0, w1), **move_stats(students),
                attribution=att.table(),
                cpu=(cpu1 - cpu0) / (w1 - w0), peak=peak, idle=idle, after=after,
                floor=statistics.median(floor) if floor else float("nan"),
                load=(load0, os.getloadavg()[0]), teacher=teacher,
                deployment=server.describe(), processes=len(ports),
                spread=dict(sorted(spread.items())), open_sessions=roll.result,
                count_error=roll.error, left_over=getattr(server, "left_over", []),
                first=[s.first for s in students if s.first is not None],
                by_role={r: pct([m.latency for m in moves if m.role == r and
                                 m.latency is not None], 90)
                         for r in ("follow", "explore", "switch", "upload")},
                statuses=sum(len(s.statuses) for s in students),
                in_line=sum(any("ahead of yours" in t for t in s.statuses)
                            for s in students))


async def _open_once(url: str, cookies: dict[str, str] | None = None) -> float | None:
    tab = Tab(url, cookies)
    await tab.connect()
    try:
        run = await tab.rerun(page=PAGE)
        tab.set("w_tau", nearest(tab.widgets["w_tau"].options, 0.003))
        await tab.rerun()                      # the first real fit (imports the solvers)
        return run.figure
    finally:
        await tab.close()


def table(rows: list[dict], args) -> str:
    MB = 2 ** 20
    tree = ("the `nplk-lab classroom` command, each Streamlit process, their fit workers "
            "and HAProxy" if args.processes > 1 else "the Streamlit process and its fit "
            "workers")
    out = [f"{args.moves} moves per student, {args.gap:g} s apart; fresh server per class "
           f"size; {os.cpu_count()} cores.",
           f"Deployment: {rows[0]['deployment'] if rows else ''}; server CPU and RSS over "
           f"its whole process tree ({tree}).", "",
           "| students | light students beside | moves | p50 (s) | p90 (s) | max (s) | errors "
           "| lost | superseded "
           "| server CPU (cores) | peak RSS (MB) | idle RSS (MB) | RSS "
           f"{args.linger:g} s after (MB) | floor (s) | p90 / floor | load 1 min (start → end) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r['n']} | {r.get('hall', 0)} | {r['moves']} | {r['p50']:.2f} | "
            f"{r['p90']:.2f} | {r['max']:.2f} | "
            f"{len(r['errors'])} | {r['lost']} | {r['superseded']} | {r['cpu']:.2f} | "
            f"{r['peak'] / MB:.0f} | {r['idle'] / MB:.0f} | {r['after'] / MB:.0f} | "
            f"{r['floor']:.3f} | {r['p90'] / r['floor']:.0f} | "
            f"{r['load'][0]:.1f} → {r['load'][1]:.1f} |")
    out.append("")
    out += [line for line in map(beside_line, rows) if line]
    out.append("p90 by role: " + "; ".join(
        f"{r['n']} students: " + ", ".join(f"{k} {v:.2f}" for k, v in r["by_role"].items()
                                           if np.isfinite(v)) for r in rows))
    out.append("students who were shown their place in the queue (\"N fits ahead of "
               "yours\"): " + "; ".join(f"{r['in_line']} of {r['n']}" for r in rows))
    where = ("the process HAProxy's cookie in each student's tab names"
             if args.processes > 1 else "all on the one process")
    out.append(f"sessions per process ({where}; then each process's own count of open "
               "sessions once every student had the page): " + "; ".join(
                   f"{r['n']} students: " + ", ".join(f"{k} {v}" for k, v in
                                                      r["spread"].items())
                   + (f" (counted {', '.join(map(str, r['open_sessions']))})"
                      if r["open_sessions"] is not None
                      else f" (not counted: {r['count_error']})") for r in rows))
    for r in rows:
        out += ["", f"Where the CPU went during the class of {r['n']} "
                f"(light students beside: {r['hall']}):", r["attribution"]]
    for r in rows:
        if r["left_over"]:
            out.append(f"processes still running after the command stopped, at {r['n']} "
                       f"(killed by pid): {r['left_over']}")
    for r in rows:
        if r["errors"]:
            out.append(f"errors at {r['n']}: " + " | ".join(sorted(set(r["errors"])))[:600])
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--students", default="1,10,30,60")
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--gap", type=float, default=3.0)
    ap.add_argument("--linger", type=float, default=60.0)
    ap.add_argument("--port", type=int, default=8640,
                    help="the port students open; the floor page uses the next one and, "
                         "with --processes N, the Streamlit processes the N after that")
    ap.add_argument("--processes", type=int, default=1,
                    help="1: one `streamlit run app.py`; N > 1: `nplk-lab classroom "
                         "--workers N` (N Streamlit processes behind HAProxy)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hall", default="0", help="sizes of a class of light-page "
                    "students beside each class (bench_lecture_hall.py), e.g. 0,300")
    ap.add_argument("--logs", default="", help="keep the servers' logs in this folder "
                    "(default: a temporary one, deleted)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--verbose", action="store_true", help="every move on stderr")
    ap.add_argument("--root", default=str(ROOT),
                    help="the checkout whose app.py is served (e.g. another branch's "
                         "worktree, for a before/after table)")
    ap.add_argument("--profile", default="",
                    help="py-spy the server during each class: <prefix>-<N>.txt "
                         "(collapsed stacks)")
    ap.add_argument("--hall-processes", type=int, default=None,
                    help="with --processes N > 1: `nplk-lab classroom --hall-processes K` "
                         "(the light page's own processes; 0: the workers answer it; "
                         "default: the command's)")
    ap.add_argument("--gil", action="store_true",
                    help="with --profile: sample only the thread holding each server "
                         "process's interpreter lock (what its Python time went to)")
    args = ap.parse_args(argv)
    if args.processes < 1:
        ap.error("--processes must be at least 1")
    rows = []
    if args.logs:
        Path(args.logs).mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(args.logs) if args.logs
          else tempfile.TemporaryDirectory()) as tmp:
        for n in [int(x) for x in args.students.split(",")]:
            for hall in [int(x) for x in args.hall.split(",") if x]:
                rows.append(one_class(n, args, Path(tmp), hall))
                print(table(rows[-1:], args), file=sys.stderr, flush=True)
    print(table(rows, args))
    main.rows = rows  # for the test
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
