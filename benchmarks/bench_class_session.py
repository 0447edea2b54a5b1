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

Reported: answers sent and stored (lost = sent − stored, from the store's count), the
reveal's and each step's reach (seconds from the teacher's call to the arrival of the
verdict on the student's page, or to the end of the run that wrote the new step into its
URL): share within
2 s, p50, p90, max; exceptions on any page; the load average before and after. Not here:
slider moves under this load (``bench_classroom.py``) and a worker killed mid-class.

    python benchmarks/bench_class_session.py --students 10,30 [--processes 2] [--port 8660]
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


async def run_class(url: str, server, n: int, store: ClassStore, seed: int) -> dict:
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
    pollers = [asyncio.create_task(s.poll(step_of)) for s in students]
    sent, stored, reveal, follow = [], [], [], []
    for step in range(STEPS):
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
    await asyncio.gather(*pollers, return_exceptions=True)
    await asyncio.gather(*(s.tab.close() for s in students), return_exceptions=True)
    store.end(code, token)
    return dict(sent=sent, stored=stored, reveal=reveal, follow=follow,
                exceptions=sum(len(s.exceptions) for s in students),
                first_exception=next((e for s in students for e in s.exceptions), ""))


def row(n: int, r: dict, load: tuple[float, float]) -> str:
    def reach(xs: list[float]) -> str:
        ok = [x for x in xs if x != float("inf")]
        within = sum(x <= 2.0 for x in xs) / len(xs)
        return (f"{100 * within:.0f} % | {pct(ok, 50):.2f} | {pct(ok, 90):.2f} | "
                f"{max(xs):.2f}")
    lost = sum(r["sent"]) - sum(r["stored"])
    return (f"| {n} | {sum(r['sent'])} / {sum(r['stored'])} / {lost} | {reach(r['reveal'])} "
            f"| {reach(r['follow'])} | {r['exceptions']} | {load[0]:.1f} → {load[1]:.1f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", default="10,30")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--port", type=int, default=8660)
    ap.add_argument("--seed", type=int, default=0)
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
                r = asyncio.run(run_class(server.url, server, n, store, args.seed))
            rows.append(row(n, r, (load0, os.getloadavg()[0])))
            print(rows[-1], flush=True)
            if r["first_exception"]:
                print("first exception:", r["first_exception"][:300], flush=True)
        finally:
            server.stop()
    print(f"\n{server.describe()}; reveal and step reach in seconds (within 2 s | p50 | "
          "p90 | max)\n")
    print("| students | answers sent / stored / lost | reveal reach | step reach | "
          "exceptions | load average |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
