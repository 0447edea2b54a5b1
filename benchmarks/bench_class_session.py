"""A class that answers together, measured through Streamlit's own protocol:
the class mode of the lab's class benchmark (``bench_classroom.py`` measures the slider
moves; this file the class's answers, reveal and steps; both use ``tools/st_client.py``).

N simulated students (``st_client.Tab``, no browser) join a class on Lessons (lesson 1)
through ``streamlit run app.py`` (``--processes 1``) or ``nplk-lab classroom --workers N``
(``--processes N``, HAProxy; the students spread over the workers by its cookie), with a
fresh SQLite class store in a temporary folder. Each student is a browser with its seat
cookie (as the lab's server gives one); it joins through the store (``ClassStore.join``,
as the join button does) and opens the page with ``?class=CODE``; while on the page,
each sends the run of the page's watching
fragment once a second (what the browser's timer of ``st.fragment(run_every=1)`` does).
The teacher (the store with the teacher's token, in this process) holds five steps: at
each of the first three, every student answers (a random option, at a random moment in
the first 3 s) through the page's radio and its "Lock in" (the first vote); the teacher
then reveals, and after it moves the class to the next step.

Reported: answers sent and stored (the store's count just before the reveal and at the
end; lost = sent − stored at the end), the
reveal's and each step's reach (seconds from the teacher's call to the arrival of the
verdict on the student's page, or to the end of the run that wrote the new step into its
URL); with ``--kill`` (``--processes`` ≥ 2), the first worker is killed (SIGKILL) before
the last question: its students open the page again (the same browser: its seat cookie)
once a worker answers, and the store's counts of the earlier questions are compared before and
after: share within
2 s, p50, p90, max; exceptions on any page; the load average before and after.

With ``--movers M``: the slider moves under this load. While the class is connected and
polling, M further tabs open Classification and move its sliders exactly as the students
of ``bench_classroom.py`` do (its ``klass``: ``--moves`` moves ``--gap`` s apart; most
follow the teacher's sequence, some explore, switch page or upload a CSV); they start once
every student of the class has the page open, and the class keeps polling until the last
mover is done (the class's steps are over before that: its answers and reveals overlap
the movers' first moves, its polling all of them). Reported next to the class's numbers:
the movers' moves, per-move latency p50/p90/max (``bench_classroom.move_stats``), errors
and lost moves. The baseline, in the same run: the same M movers on a fresh server with
no class connected (the row "0, movers alone"). Each server with movers has had
Classification opened once on each process first (``bench_classroom``'s teacher tab), so
neither side pays the first fit's imports.

    python benchmarks/bench_class_session.py --students 10,30 [--processes 2] [--port 8660]
        [--kill] [--movers M [--moves 10] [--gap 3]]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "benchmarks", ROOT / "tools", ROOT / "tests", ROOT):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import bench_classroom  # noqa: E402
from deployment import BehindProxy, OneProcess  # noqa: E402
from st_client import Tab, query_value  # noqa: E402

from nplk_lab.model.lessons import lessons as L  # noqa: E402
from nplk_lab.serve import class_room  # noqa: E402
from nplk_lab.serve.class_store import ClassStore, Seat  # noqa: E402
from nplk_lab.serve.class_store_rules import new_seat  # noqa: E402
from nplk_lab.serve.class_web import SEAT_COOKIE  # noqa: E402

LESSON = 1
STEPS = 5
QUESTIONS = 3
POLL_S = 1.0
ANSWER_WINDOW_S = 3.0
REACH_TIMEOUT_S = 60.0
VERDICTS = ("Right.", "Right: you changed", "Not quite", "You did not vote",
            "fit none of the options")


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


class Student:
    def __init__(self, i: int, url: str, cookies: dict[str, str], code: str, seat: str):
        self.i, self.code, self.seat = i, code, seat
        self.cookies = {**cookies, SEAT_COOKIE: seat}     # the browser's seat cookie
        self.tab = Tab(url, self.cookies)
        self.exceptions: list[str] = []
        self.polling = True
        self.hits: list[tuple[float, str]] = []   # (when a run finished, its URL) per poll
        self.verdict_at: dict[int, float] = {}
        self.poller: asyncio.Task | None = None
        # one run in flight per tab: the browser skips its fragment's timer tick while
        # a run of the page is going on (a poll would otherwise stand for the answer's run)
        self.busy = asyncio.Lock()

    async def open(self) -> None:
        await self.tab.connect()
        run = await self.tab.rerun(page="Lessons", query=f"class={self.code}")
        self.exceptions += run.exceptions

    async def answer(self, step: int, options: list[str], rng: random.Random) -> bool:
        await asyncio.sleep(rng.uniform(0, ANSWER_WINDOW_S))
        key = f"nplk-keep-answer-class-{self.code}-{step}-1"   # the first vote
        if key not in self.tab.widgets:
            return False
        async with self.busy:
            # a browser sends the state of the widgets on its page only: not the vote of
            # a step the class has left
            for old in [k for k in self.tab.states if k != key]:
                self.tab.drop(old)
            self.tab.set(key, rng.randrange(len(options)))
            self.tab.set("lesson_lock", True)          # chosen, then "Lock in"
            run = await self.tab.rerun(timeout=REACH_TIMEOUT_S)
            self.tab.drop("lesson_lock")
        self.exceptions += run.exceptions
        return not run.errors

    async def poll(self, step_of: dict) -> None:
        """The watching fragment's run once a second; notes when a verdict or a new step
        first showed."""
        while self.polling and not self.tab.closed:
            t = time.perf_counter()
            fid = next(iter(self.tab.fragments), None)
            async with self.busy:
                run = await self.tab.send(fragment=fid)
                try:
                    await self.tab.wait(run, timeout=REACH_TIMEOUT_S)
                except (TimeoutError, ConnectionError):
                    return
            self.exceptions += run.exceptions
            step = query_value(run.query or "", "step")
            if step is not None:
                self.hits.append((run.finished, step))
            revealed = step_of.get("revealed")
            if revealed is not None and revealed not in self.verdict_at:
                at = [t for text, t in zip(run.texts, run.text_times, strict=False)
                      if any(v in text for v in VERDICTS)]
                if at:
                    self.verdict_at[revealed] = at[0]    # the verdict's arrival
            await asyncio.sleep(max(0.0, POLL_S - (time.perf_counter() - t)))


async def reconnect(s: Student, url: str, cookies: dict[str, str], step_of: dict,
                    timeout_s: float = 120.0) -> float:
    """A student whose worker died opens the page again (a new session, the same
    browser: its seat cookie), trying until a worker answers with the class's question;
    returns the seconds it took."""
    t0 = time.perf_counter()
    while True:
        s.tab = Tab(url, {**cookies, SEAT_COOKIE: s.seat})
        try:
            await s.open()
            if any(k.startswith(f"nplk-keep-answer-class-{s.code}-") for k in s.tab.widgets):
                break
        except Exception:  # noqa: BLE001 - refused, reset, 503 while the worker restarts
            pass
        await s.tab.close()
        if time.perf_counter() - t0 > timeout_s:
            raise TimeoutError("no worker answered the reconnecting student")
        await asyncio.sleep(0.5)        # a benchmark may poll; the tests wait on events
    s.polling = True
    s.poller = asyncio.create_task(s.poll(step_of))
    return time.perf_counter() - t0


async def run_class(url: str, server, n: int, store: ClassStore, seed: int,
                    kill: bool = False, during=None) -> dict:
    """The class; ``during()`` (a coroutine function), when given, runs once every
    student has the page open and is polling, and the students poll until it is done;
    its result is the returned dict's ``during``."""
    rng = random.Random(seed)
    steps = L.lesson(LESSON).steps
    right = [steps[s].reveal().answer for s in range(QUESTIONS)]
    started = store.start_class(f"L{LESSON}", size=max(n, 1))
    code, token = started.code, started.teacher_token
    students = []
    for i in range(n):
        seat = new_seat()
        store.join(code, seat=Seat(seat), client=f"bench-{i}")
        students.append(Student(i, url, server.cookies(i % len(server.streamlit)), code,
                                seat))
    await asyncio.gather(*(s.open() for s in students))
    step_of: dict = {}
    for s in students:
        s.poller = asyncio.create_task(s.poll(step_of))
    side = asyncio.create_task(during()) if during is not None else None
    sent, stored, reveal, follow = [], [], [], []
    killed: dict = {}
    for step in range(STEPS):
        if kill and step == QUESTIONS - 1:
            # a worker killed mid-class: its students reconnect (to it once restarted, or
            # to the other), then answer the last question like everyone else
            import signal
            before = [store.counts(code, k).answered for k in range(step)]
            pid = server.streamlit[0][0]
            os.kill(pid, signal.SIGKILL)
            hit = [s for s in students if s.i % len(server.streamlit) == 0]
            for s in hit:
                s.polling = False
            back = await asyncio.gather(*(reconnect(s, url, server.cookies(0), step_of)
                                          for s in hit))
            killed = dict(students=len(hit), reconnect_max=max(back),
                          before=before,
                          after=[store.counts(code, k).answered for k in range(step)],
                          joined=store.state(code).students)
        if step < QUESTIONS:
            ok = await asyncio.gather(*(s.answer(step, steps[step].options, rng)
                                        for s in students))
            sent.append(sum(ok))
            stored.append(store.counts(code, step).answered)
            t0 = time.perf_counter()
            step_of["revealed"] = step
            store.reveal(code, token, step, correct=right[step])
            deadline = t0 + REACH_TIMEOUT_S
            while any(step not in s.verdict_at for s in students) and \
                    time.perf_counter() < deadline:
                await asyncio.sleep(0.05)
            reveal += [s.verdict_at[step] - t0 if step in s.verdict_at else float("inf")
                       for s in students]
        if step + 1 < STEPS:
            t0 = time.perf_counter()
            store.advance(code, token, step + 1)
            want = str(step + 2)
            deadline = t0 + REACH_TIMEOUT_S

            def reached(s: Student, t0: float = t0, want: str = want) -> float | None:
                return next((t - t0 for t, q in s.hits if t >= t0 and q == want), None)
            while any(reached(s) is None for s in students) and \
                    time.perf_counter() < deadline:
                await asyncio.sleep(0.05)
            follow += [reached(s) if reached(s) is not None else float("inf")
                       for s in students]
    side_result = await side if side is not None else None   # the class still polling
    for s in students:
        s.polling = False
    await asyncio.gather(*(s.poller for s in students), return_exceptions=True)
    await asyncio.gather(*(s.tab.close() for s in students), return_exceptions=True)
    final = [store.counts(code, k).answered for k in range(QUESTIONS)]
    store.end(code, token)
    return dict(final=final, sent=sent, stored=stored, reveal=reveal, follow=follow, killed=killed,
                during=side_result,
                exceptions=sum(len(s.exceptions) for s in students),
                first_exception=next((e for s in students for e in s.exceptions), ""))


async def movers(url: str, args) -> dict:
    """``args.movers`` tabs moving Classification's sliders as ``bench_classroom.py``'s
    students do; its table numbers for them."""
    students, _ = await bench_classroom.klass(url, args.movers, moves=args.moves,
                                              gap=args.gap, seed=args.seed,
                                              timeout=args.timeout)
    return bench_classroom.move_stats(students)


def warm(server) -> None:
    """Classification opened once on each process (``bench_classroom``'s teacher tab)."""
    for i in range(len(server.streamlit)):
        asyncio.run(bench_classroom._open_once(server.url, server.cookies(i)))


def moves_cells(m: dict | None) -> str:
    if m is None:
        return ""
    return (f" {m['moves']} | {m['p50']:.2f} | {m['p90']:.2f} | {m['max']:.2f} | "
            f"{len(m['errors'])} | {m['lost']} |")


def alone(args, tmp: Path) -> str:
    """The baseline row: the movers on a fresh server, no class connected."""
    os.environ[class_room.ENV] = str(tmp / "store-alone")
    server = (BehindProxy(ROOT, args.processes, args.port, args.port + 2, tmp / "alone.log")
              if args.processes > 1 else OneProcess(ROOT, args.port, tmp / "alone.log"))
    server.start()
    try:
        warm(server)
        load0 = os.getloadavg()[0]
        m = asyncio.run(movers(server.url, args))
    finally:
        server.stop()
    report_errors("0", m)
    return ("| 0 (movers alone) | — | — | — | — | — | — | — | — | — | — | "
            f"{load0:.1f} → {os.getloadavg()[0]:.1f} |"
            + moves_cells(m))


def report_errors(n: str, m: dict | None) -> None:
    if m and m["errors"]:
        print(f"movers' errors at {n}: " + " | ".join(sorted(set(m["errors"])))[:600],
              flush=True)


def row(n: int, r: dict, load: tuple[float, float]) -> str:
    def reach(xs: list[float]) -> str:
        ok = [x for x in xs if x != float("inf")]
        within = sum(x <= 2.0 for x in xs) / len(xs)
        return (f"{100 * within:.0f} % | {pct(ok, 50):.2f} | {pct(ok, 90):.2f} | "
                f"{max(xs):.2f}")
    lost = sum(r["sent"]) - sum(r["final"])
    return (f"| {n} | {sum(r['sent'])} / {sum(r['stored'])} / {sum(r['final'])} / {lost} "
            f"| {reach(r['reveal'])} "
            f"| {reach(r['follow'])} | {r['exceptions']} | {load[0]:.1f} → {load[1]:.1f} |"
            + moves_cells(r.get("during")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", default="10,30")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--port", type=int, default=8660)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kill", action="store_true",
                    help="kill the first worker (SIGKILL) before the last question")
    ap.add_argument("--movers", type=int, default=0,
                    help="M tabs moving Classification's sliders (as bench_classroom.py's "
                         "students) while the class polls, and alone as a baseline")
    ap.add_argument("--moves", type=int, default=10, help="moves per mover")
    ap.add_argument("--gap", type=float, default=3.0, help="seconds between a mover's moves")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds a mover waits for a move's run")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="nplk-bench-class-"))
    rows = []
    if args.movers:
        rows.append(alone(args, tmp))
        print(rows[-1], flush=True)
    for n in [int(x) for x in args.students.split(",")]:
        folder = tmp / f"store-{n}"
        os.environ[class_room.ENV] = str(folder)
        server = (BehindProxy(ROOT, args.processes, args.port, args.port + 2,
                              tmp / f"class-{n}.log")
                  if args.processes > 1 else OneProcess(ROOT, args.port, tmp / f"class-{n}.log"))
        server.start()
        try:
            if args.movers:
                warm(server)
            load0 = os.getloadavg()[0]
            during = ((lambda url=server.url: movers(url, args)) if args.movers else None)
            with ClassStore(folder) as store:
                r = asyncio.run(run_class(server.url, server, n, store, args.seed,
                                          kill=args.kill, during=during))
            rows.append(row(n, r, (load0, os.getloadavg()[0])))
            print(rows[-1], flush=True)
            if r["killed"]:
                print("worker killed:", r["killed"], flush=True)
            report_errors(str(n), r["during"])
            if r["first_exception"]:
                print("first exception:", r["first_exception"][:300], flush=True)
        finally:
            server.stop()
    print(f"\n{server.describe()}; reveal and step reach in seconds (within 2 s | p50 | "
          "p90 | max)\n")
    print("| students | answers sent / stored before the reveal / at the end / lost | "
          "reveal within 2 s | p50 | p90 | max | step within 2 s | p50 | p90 | max "
          "| exceptions | load average |" + (
              f" movers' moves ({args.movers} tabs) | p50 (s) | p90 (s) | max (s) | errors "
              "| lost |" if args.movers else ""))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|" + "---|" * 6 * bool(args.movers))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
