"""A lecture hall on one link: N students of a class on its light page
(``nplk_lab/serve/class_hall.py``) through ``nplk-lab classroom --workers P``, with the
Streamlit page's students (``bench_class_session.py``) in the same run for comparison.

Each light student (``tools/hall_client.py``, no browser) opens the page, joins, then
long-polls the class's state on its version and fetches the step's figure when its
address changes, as ``hall.js`` does. The teacher (the class store with the teacher's
token, in this process) leads peer instruction on each question of lesson 1 (five
questions, five steps): the first vote (every student votes at a random moment in the
first 3 s, through the vote endpoint: the page's "Lock in"), the split, the second vote
(every student again), the shift, the reveal; then the next step.

Reported per class size: votes acknowledged and stored (lost = acknowledged − stored);
the reach of the reveal, the split and each new step across students (seconds from the
teacher's call to the arrival of the state that shows it) p50/p90/p99/max, and of the
reveal's fitted figure; a vote's round trip p50/p90; the server's CPU seconds over the
class (workers and HAProxy, ``psutil``) and the peak resident memory of each worker
(``VmHWM``), summed; the load average before and after. The simulated students run in
this process, on the same cores as the server.

With ``--streamlit N,...``: ``bench_class_session.py``'s class of Streamlit-page students
(first vote, reveal, step) at those sizes, in the same run, on a fresh server each.

    python benchmarks/bench_lecture_hall.py --students 60,120,200,300 [--processes 2]
        [--port 8680] [--streamlit 60,120]

With ``--hosts K``: K "hosts" on this machine, each its own ``nplk-lab classroom
--workers P`` on its own ports, sharing one PostgreSQL store (a throwaway server,
``tests/_postgres.py``), behind one ``nplk-lab front`` (HAProxy) that the students open.
CPU is then the hosts' trees, the front and PostgreSQL's processes; RSS each worker's
peak. ``--classes C`` splits the students into C classes run at the same time (a class
takes ``MAX_STUDENTS`` at most):

    python benchmarks/bench_lecture_hall.py --hosts 3 --processes 1 --students 1000 \
        --classes 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "benchmarks", ROOT / "tools", ROOT / "tests", ROOT):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from deployment import BehindProxy, Front  # noqa: E402
from hall_client import LightStudent  # noqa: E402

from nplk_lab.model.lessons import lessons as L  # noqa: E402
from nplk_lab.serve import class_room  # noqa: E402
from nplk_lab.serve.class_store import ClassStore  # noqa: E402
from nplk_lab.serve.class_store_rules import MAX_STUDENTS, REVOTE, SHIFT, SPLIT  # noqa: E402

LESSON = 1
VOTE_WINDOW_S = 3.0
REACH_TIMEOUT_S = 60.0
JOINING_AT_ONCE = 40


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def server_cpu(pid: int) -> float:
    """CPU seconds of the command's tree (workers, HAProxy) so far."""
    import psutil
    total = 0.0
    try:
        root = psutil.Process(pid)
        for p in [root, *root.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return total


def peak_rss_mb(pids: list[int]) -> list[float]:
    """Each process's peak resident memory (VmHWM), in MB."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                hwm = next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:"))
            out.append(hwm / 1024)
        except (OSError, StopIteration):
            out.append(float("nan"))
    return out


async def until(students: list[LightStudent], t0: float, ok) -> list[float]:
    """Each student's seconds from ``t0`` to a state with ``ok`` (inf: never)."""
    deadline = t0 + REACH_TIMEOUT_S
    while any(s.reached(t0, ok) is None for s in students) and \
            time.perf_counter() < deadline:
        await asyncio.sleep(0.02)
    return [s.reached(t0, ok) if s.reached(t0, ok) is not None else float("inf")
            for s in students]


async def votes(students: list[LightStudent], step: int, n_options: int,
                rng: random.Random) -> int:
    async def one(s: LightStudent, delay: float, choice: int) -> bool:
        await asyncio.sleep(delay)
        return await s.vote(step, choice)
    plan = [(rng.uniform(0, VOTE_WINDOW_S), rng.randrange(n_options)) for _ in students]
    ok = await asyncio.gather(*(one(s, d, c) for s, (d, c) in zip(students, plan,
                                                                   strict=True)))
    return sum(ok)


async def run_class(url: str, n: int, store: ClassStore, seed: int) -> dict:
    rng = random.Random(seed)
    steps = L.lesson(LESSON).steps
    # a class takes MAX_STUDENTS at most: the students past it are refused at the join
    started = store.start_class(f"L{LESSON}", size=min(max(n, 1), MAX_STUDENTS))
    code, token = started.code, started.teacher_token
    students = [LightStudent(url, code, {}) for _ in range(n)]
    t_join = time.perf_counter()
    gate = asyncio.Semaphore(JOINING_AT_ONCE)

    async def join(s: LightStudent) -> None:
        async with gate:
            await s.open_and_join()
    await asyncio.gather(*(join(s) for s in students))
    joined_s = time.perf_counter() - t_join
    refused = [s for s in students if s.errors]
    students = [s for s in students if not s.errors]
    pollers = [asyncio.create_task(s.poll()) for s in students]
    first = await until(students, t_join,
                        lambda st: st.get("role") == "student")
    assert all(x != float("inf") for x in first), "a student never saw the class"
    acked = {1: 0, 2: 0}
    stored = {1: 0, 2: 0}
    reach = {"split": [], "reveal": [], "reveal figure": [], "step": []}
    for q, step in enumerate(steps):
        print(f"  step {q + 1} of {len(steps)}", flush=True)
        if step.question:
            acked[1] += await votes(students, q, len(step.options), rng)
            t0 = time.perf_counter()
            store.move(code, token, SPLIT)
            reach["split"] += await until(students, t0, lambda st, q=q: st.get("step") == q
                                          and st.get("phase") == "split")
            store.move(code, token, REVOTE)
            await until(students, time.perf_counter(), lambda st, q=q: st.get("step") == q
                        and st.get("phase") == "revote")
            acked[2] += await votes(students, q, len(step.options), rng)
            store.move(code, token, SHIFT)
            right = int(step.reveal().answer)
            t0 = time.perf_counter()
            store.reveal(code, token, q, correct=right)
            reach["reveal"] += await until(students, t0, lambda st, q=q: st.get("step") == q
                                           and st.get("phase") == "revealed")
            # the fitted figure, fetched by each page once the reveal arrived
            deadline = t0 + REACH_TIMEOUT_S

            def url_of(s: LightStudent, q: int = q) -> str | None:
                return next((st["figure"] for _, st in s.arrived if st.get("step") == q
                             and st.get("phase") == "revealed"), None)
            while any(url_of(s) not in s.figures for s in students) and \
                    time.perf_counter() < deadline:
                await asyncio.sleep(0.02)
            reach["reveal figure"] += [s.figures[url_of(s)] - t0 if url_of(s) in s.figures
                                       else float("inf") for s in students]
            stored[1] += store.counts(code, q, 1).answered
            stored[2] += store.counts(code, q, 2).answered
        if q + 1 < len(steps):
            t0 = time.perf_counter()
            store.advance(code, token, q + 1)
            reach["step"] += await until(students, t0,
                                         lambda st, q=q: st.get("step") == q + 1)
    for s in students:
        s.polling = False
    for p in pollers:
        p.cancel()
    await asyncio.gather(*pollers, return_exceptions=True)
    await asyncio.gather(*(s.close() for s in students), return_exceptions=True)
    final = {r: sum(store.counts(code, q, r).answered for q in range(len(steps)))
             for r in (1, 2)}
    store.end(code, token)
    rt = [t for s in students for t in s.vote_times]
    errors = [e for s in students for e in s.errors]
    spread = Counter(s.cookies.get("NPLK_HOST", "") for s in students)
    return dict(acked=acked, stored=stored, final=final, reach=reach, vote_rt=rt,
                spread=spread,
                joined_s=joined_s, errors=errors, refused=len(refused),
                refused_why=refused[0].errors[0] if refused else "", questions=sum(bool(s.question)
                                                               for s in steps),
                steps=len(steps))


async def run_classes(url: str, n: int, store: ClassStore, seed: int, k: int) -> dict:
    """``n`` students in ``k`` classes at the same time (one teacher each), the results
    pooled."""
    sizes = [n // k + (i < n % k) for i in range(k)]
    parts = await asyncio.gather(*(run_class(url, m, store, seed + i)
                                   for i, m in enumerate(sizes)))
    if k == 1:
        return parts[0]
    out = dict(parts[0])
    for key in ("acked", "stored", "final"):
        out[key] = {r: sum(p[key][r] for p in parts) for r in (1, 2)}
    out["reach"] = {w: [x for p in parts for x in p["reach"][w]] for w in parts[0]["reach"]}
    for key in ("vote_rt", "errors"):
        out[key] = [x for p in parts for x in p[key]]
    out["spread"] = sum((p["spread"] for p in parts), Counter())
    out["refused"] = sum(p["refused"] for p in parts)
    out["refused_why"] = next((p["refused_why"] for p in parts if p["refused_why"]), "")
    out["joined_s"] = max(p["joined_s"] for p in parts)
    return out


def cells(xs: list[float]) -> str:
    ok = [x for x in xs if x != float("inf")]
    return (f"{pct(ok, 50):.2f} / {pct(ok, 90):.2f} / {pct(ok, 99):.2f} / {max(xs):.2f}"
            if xs else "—")


def light_row(n: int, r: dict, cpu: float, rss: list[float], load: tuple[float, float],
              wall: float) -> str:
    acked = r["acked"][1] + r["acked"][2]
    final = r["final"][1] + r["final"][2]
    who = f"{n} light" + (f" ({r['refused']} refused: the class is full)"
                          if r["refused"] else "")
    return (f"| {who} | {acked} / {final} / {acked - final} "
            f"| {cells(r['reach']['reveal'])} | {cells(r['reach']['reveal figure'])} "
            f"| {cells(r['reach']['split'])} | {cells(r['reach']['step'])} "
            f"| {pct(r['vote_rt'], 50):.3f} / {pct(r['vote_rt'], 90):.3f} "
            f"| {cpu:.0f} s in {wall:.0f} s "
            f"| {sum(rss):.0f} ({' + '.join(f'{x:.0f}' for x in rss)}) "
            f"| {len(r['errors'])} | {load[0]:.1f} → {load[1]:.1f} |")


def serve(args, tmp: Path, name: str) -> tuple[BehindProxy, Path]:
    folder = tmp / f"store-{name}"
    os.environ[class_room.ENV] = str(folder)
    server = BehindProxy(ROOT, args.processes, args.port, args.port + 2, tmp / f"{name}.log")
    server.start()
    return server, folder


def light(args, tmp: Path, n: int) -> str:
    server, folder = serve(args, tmp, f"light-{n}")
    try:
        load0 = os.getloadavg()[0]
        cpu0, t0 = server_cpu(server.pid), time.perf_counter()
        with ClassStore(folder) as store:
            r = asyncio.run(run_classes(server.url, n, store, args.seed, args.classes))
        cpu, wall = server_cpu(server.pid) - cpu0, time.perf_counter() - t0
        rss = peak_rss_mb([pid for pid, _ in [*server.streamlit, *server.hall]])
        row = light_row(n, r, cpu, rss, (load0, os.getloadavg()[0]), wall)
        if r["errors"]:
            print(f"errors at {n}: " + " | ".join(sorted(set(r["errors"])))[:600],
                  flush=True)
        if r["refused"]:
            print(f"{r['refused']} students refused at the join: {r['refused_why'][:200]}",
                  flush=True)
        print(f"({n} light students joined in {r['joined_s']:.1f} s; "
              f"{r['questions']} questions, {r['steps']} steps)", flush=True)
        return row
    finally:
        server.stop()


def postgres_pids(url: str) -> list[int]:
    """The PostgreSQL server on ``url``'s port and its backends."""
    import psutil
    port = url.rsplit(":", 1)[1].split("/")[0]
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if cmd and cmd[0].endswith("postgres") and "-p" in cmd and \
                cmd[cmd.index("-p") + 1] == port:
            return [p.pid]
    return []


def hosts(args, tmp: Path, n: int) -> str:
    """``n`` students through ``--hosts`` classroom commands behind one front."""
    import _postgres
    base = _postgres.server()
    url, drop = _postgres.new_schema(base)
    os.environ[class_room.ENV] = url
    os.environ.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", os.urandom(16).hex())
    servers: list[BehindProxy] = []
    front = None
    try:
        for h in range(args.hosts):
            port = args.port + 10 * (h + 1)
            servers.append(BehindProxy(
                ROOT, args.processes, port, port + 1, tmp / f"host{h + 1}-{n}.log",
                extra=("--store", url, "--public-url", f"http://127.0.0.1:{args.port}",
                       "--trust-proxy", "127.0.0.1")).start())
        front = Front(ROOT, args.port, [f"127.0.0.1:{s.port}" for s in servers],
                      tmp / f"front-{n}.log").start()
        pg = postgres_pids(base)

        def cpu() -> float:
            return sum(server_cpu(pid) for pid in [*(s.pid for s in servers), front.pid,
                                                   *pg])
        load0 = os.getloadavg()[0]
        cpu0, t0, own0 = cpu(), time.perf_counter(), time.process_time()
        with ClassStore(url) as store:
            r = asyncio.run(run_classes(front.url, n, store, args.seed, args.classes))
        used, wall = cpu() - cpu0, time.perf_counter() - t0
        own = time.process_time() - own0
        rss = peak_rss_mb([pid for s in servers for pid, _ in [*s.streamlit, *s.hall]])
        row = light_row(n, r, used, rss, (load0, os.getloadavg()[0]), wall)
        row = row.replace(f"| {n} light", f"| {n} light, {args.hosts} hosts"
                          + (f", {args.classes} classes" if args.classes > 1 else ""), 1)
        if r["errors"]:
            print(f"errors at {n}: " + " | ".join(sorted(set(r["errors"])))[:600],
                  flush=True)
        spread = ({k: v for k, v in sorted(r["spread"].items())} if set(r["spread"]) != {""}
                  else "none pinned (the light page's requests go to the hosts one by one)")
        print(f"({n} light students joined in {r['joined_s']:.1f} s; students per host "
              f"(the front's cookie): {spread}; CPU: the hosts, "
              f"the front and PostgreSQL ({len(pg)} server process found); RSS: each "
              f"host's workers; the simulated students used {own:.0f} s of CPU in this "
              "process)", flush=True)
        return row
    finally:
        if front is not None:
            front.stop()
        for s in servers:
            s.stop()
        drop()


def streamlit_row(args, tmp: Path, n: int) -> str:
    import bench_class_session as old
    server, folder = serve(args, tmp, f"streamlit-{n}")
    try:
        load0 = os.getloadavg()[0]
        cpu0, t0 = server_cpu(server.pid), time.perf_counter()
        with ClassStore(folder) as store:
            r = asyncio.run(old.run_class(server.url, server, n, store, args.seed))
        cpu, wall = server_cpu(server.pid) - cpu0, time.perf_counter() - t0
        rss = peak_rss_mb([pid for pid, _ in [*server.streamlit, *server.hall]])
        lost = sum(r["sent"]) - sum(r["final"])
        return (f"| {n} Streamlit | {sum(r['sent'])} / {sum(r['final'])} / {lost} "
                f"| {cells(r['reveal'])} | — | — | {cells(r['follow'])} | — "
                f"| {cpu:.0f} s in {wall:.0f} s | {sum(rss):.0f} "
                f"({' + '.join(f'{x:.0f}' for x in rss)}) | {r['exceptions']} "
                f"| {load0:.1f} → {os.getloadavg()[0]:.1f} |")
    finally:
        server.stop()


HEADER = ("| students | votes acknowledged / stored / lost | reveal p50 / p90 / p99 / max (s) "
          "| reveal's figure p50 / p90 / p99 / max (s) | split p50 / p90 / p99 / max (s) "
          "| step p50 / p90 / p99 / max (s) | vote round trip p50 / p90 (s) "
          "| server CPU | workers' peak RSS (MB) | errors | load average |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", default="60,120")
    ap.add_argument("--streamlit", default="", help="sizes of a class of Streamlit-page "
                    "students (bench_class_session.py) in the same run")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--port", type=int, default=8680)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hosts", type=int, default=0, help="K classroom commands on one "
                    "PostgreSQL store behind one `nplk-lab front` (0: one command)")
    ap.add_argument("--classes", type=int, default=1,
                    help="split the students into this many classes at the same time")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="nplk-bench-hall-"))
    rows = []
    for n in [int(x) for x in args.students.split(",") if x]:
        rows.append(hosts(args, tmp, n) if args.hosts else light(args, tmp, n))
        print(rows[-1], flush=True)
    for n in [int(x) for x in args.streamlit.split(",") if x]:
        rows.append(streamlit_row(args, tmp, n))
        print(rows[-1], flush=True)
    where = (f"{args.hosts} hosts of {args.processes} workers each behind `nplk-lab front`,"
             " one PostgreSQL store" if args.hosts else
             f"{args.processes} workers behind HAProxy (`nplk-lab classroom --workers "
             f"{args.processes}`)")
    print(f"\n{where}; lesson {LESSON}; the students in this process\n")
    print(HEADER)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
