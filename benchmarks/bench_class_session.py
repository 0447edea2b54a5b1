"""A class that answers together (issue 32), measured through Streamlit's own protocol:
the class mode of the lab's class benchmark (``bench_classroom.py`` measures the slider
moves; this file the class's answers, reveal and steps; both use ``st_client.py``).

N simulated students (``st_client.Tab``, no browser) join a class on Lessons (lesson 1)
through ``streamlit run app.py`` (``--processes 1``) or ``nplk-lab classroom --workers N``
(``--processes N``, HAProxy; the students spread over the workers by its cookie), with a
fresh SQLite class store in a temporary folder. Each student's seat comes from the store
(``ClassStore.join``, as the join button does) and the student opens the page with
``?class=CODE&seat=ID``; while on the page, each sends the run of the page's watching
fragment once a second (what the browser's timer of ``st.fragment(run_every=1)`` does).
The teacher (the store with the teacher's token, in this process) holds five steps: at
each of the first three, every student answers (a random option, at a random moment in
the first 3 s) through the page's radio; the teacher then reveals, and after it moves the
class to the next step.

Reported: answers sent and stored (the store's count just before the reveal and at the
end; lost = sent − stored at the end), the
reveal's and each step's reach (seconds from the teacher's call to the arrival of the
verdict on the student's page, or to the end of the run that wrote the new step into its
URL); with ``--kill`` (``--processes`` ≥ 2), the first worker is killed (SIGKILL) before
the last question: its students open the page again (their seat in the URL) once a
worker answers, and the store's counts of the earlier questions are compared before and
after: share within
2 s, p50, p90, max; exceptions on any page; the load average before and after. Not here:
slider moves under this load (``bench_classroom.py``).

    python benchmarks/bench_class_session.py --students 10,30 [--processes 2] [--port 8660]
        [--kill]
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
for _p in (ROOT / "benchmarks", ROOT / "tests", ROOT):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from deployment import BehindProxy, OneProcess  # noqa: E402
from st_client import Tab, query_value  # noqa: E402

from nplk_lab.model import lessons as L  # noqa: E402
from nplk_lab.serve import class_room  # noqa: E402
from nplk_lab.serve.class_store import ClassStore  # noqa: E402

LESSON = 1
STEPS = 5
QUESTIONS = 3
POLL_S = 1.0
ANSWER_WINDOW_S = 3.0
REACH_TIMEOUT_S = 60.0
VERDICTS = ("Right.", "Your first answer was right.", "Not quite", "You did not answer",
            "fit none of the options")


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


class Student:
    def __init__(self, i: int, url: str, cookies: dict[str, str], code: str, seat: str):
        self.i, self.code, self.seat = i, code, seat
        self.tab = Tab(url, cookies)
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
        run = await self.tab.rerun(page="Lessons",
                                   query=f"class={self.code}&seat={self.seat}")
        self.exceptions += run.exceptions

    async def answer(self, step: int, options: list[str], rng: random.Random) -> bool:
        await asyncio.sleep(rng.uniform(0, ANSWER_WINDOW_S))
        key = f"nplk-keep-answer-class-{self.code}-{step}"
        if key not in self.tab.widgets:
            return False
        async with self.busy:
            self.tab.set(key, rng.randrange(len(options)))
            run = await self.tab.rerun(timeout=REACH_TIMEOUT_S)
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
    """A student whose worker died opens the page again (a new session, its seat in the
    URL), trying until a worker answers; returns the seconds it took."""
    t0 = time.perf_counter()
    while True:
        s.tab = Tab(url, cookies)
        try:
            await s.open()
            if s.tab.runs and s.tab.runs[-1].query and "seat=" in s.tab.runs[-1].query:
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
                    kill: bool = False) -> dict:
    rng = random.Random(seed)
    steps = L.lesson(LESSON).steps
    right = [steps[s].reveal().answer for s in range(QUESTIONS)]
    started = store.start_class(f"L{LESSON}")
    code, token = started.code, started.teacher_token
    students = []
    for i in range(n):
        joined = store.join(code, client=f"bench-{i}")
        students.append(Student(i, url, server.cookies(i % len(server.streamlit)), code,
                                joined.student))
    await asyncio.gather(*(s.open() for s in students))
    step_of: dict = {}
    for s in students:
        s.poller = asyncio.create_task(s.poll(step_of))
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
    for s in students:
        s.polling = False
    await asyncio.gather(*(s.poller for s in students), return_exceptions=True)
    await asyncio.gather(*(s.tab.close() for s in students), return_exceptions=True)
    final = [store.counts(code, k).answered for k in range(QUESTIONS)]
    store.end(code, token)
    return dict(final=final, sent=sent, stored=stored, reveal=reveal, follow=follow, killed=killed,
                exceptions=sum(len(s.exceptions) for s in students),
                first_exception=next((e for s in students for e in s.exceptions), ""))


def row(n: int, r: dict, load: tuple[float, float]) -> str:
    def reach(xs: list[float]) -> str:
        ok = [x for x in xs if x != float("inf")]
        within = sum(x <= 2.0 for x in xs) / len(xs)
        return (f"{100 * within:.0f} % | {pct(ok, 50):.2f} | {pct(ok, 90):.2f} | "
                f"{max(xs):.2f}")
    lost = sum(r["sent"]) - sum(r["final"])
    return (f"| {n} | {sum(r['sent'])} / {sum(r['stored'])} / {sum(r['final'])} / {lost} "
            f"| {reach(r['reveal'])} "
            f"| {reach(r['follow'])} | {r['exceptions']} | {load[0]:.1f} → {load[1]:.1f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", default="10,30")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--port", type=int, default=8660)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kill", action="store_true",
                    help="kill the first worker (SIGKILL) before the last question")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="nplk-bench-class-"))
    rows = []
    for n in [int(x) for x in args.students.split(",")]:
        folder = tmp / f"store-{n}"
        os.environ[class_room.ENV] = str(folder)
        server = (BehindProxy(ROOT, args.processes, args.port, args.port + 2,
                              tmp / f"class-{n}.log")
                  if args.processes > 1 else OneProcess(ROOT, args.port, tmp / f"class-{n}.log"))
        server.start()
        try:
            load0 = os.getloadavg()[0]
            with ClassStore(folder) as store:
                r = asyncio.run(run_class(server.url, server, n, store, args.seed,
                                          kill=args.kill))
            rows.append(row(n, r, (load0, os.getloadavg()[0])))
            print(rows[-1], flush=True)
            if r["killed"]:
                print("worker killed:", r["killed"], flush=True)
            if r["first_exception"]:
                print("first exception:", r["first_exception"][:300], flush=True)
        finally:
            server.stop()
    print(f"\n{server.describe()}; reveal and step reach in seconds (within 2 s | p50 | "
          "p90 | max)\n")
    print("| students | answers sent / stored before the reveal / at the end / lost | "
          "reveal within 2 s | p50 | p90 | max | step within 2 s | p50 | p90 | max "
          "| exceptions | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
