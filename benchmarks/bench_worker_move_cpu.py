"""A Streamlit worker's CPU per warm slider move, and its main thread's part, for one or
more checkouts measured one after the other.

Each checkout gets its own ``streamlit run app.py`` (its code first on ``sys.path``); one
protocol-level tab (:mod:`st_client`) opens Classification, moves τ between two values
until both fits and their figures are stored, then makes ``--moves`` more moves between
them, each sent when the previous run has finished. CPU is utime + stime from ``/proc``:
the whole process (its script threads come and go with the runs; their time stays in the
process's count) and its main thread (the event loop: websockets, each run's messages).
The checkouts take turns, ``--rounds`` times; a row per checkout and round.

    python benchmarks/bench_worker_move_cpu.py [CHECKOUT ...] [--moves 200] [--rounds 2]

No checkout given: this one. This measures what the students who follow the teacher cost
(their fits and figures are shared); a move to a new fit costs more (``bench_move_cost``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "tools", ROOT / "tests", ROOT / "benchmarks"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from bench_classroom import nearest  # noqa: E402
from deployment import OneProcess  # noqa: E402
from st_client import Tab  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
VALUES = (0.01, 0.1)   # τ: the page's default and one other


def cpu_s(stat: str) -> float:
    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def moves(url: str, pid: int, n: int) -> tuple[float, float]:
    """(process, main thread) CPU seconds per move over ``n`` warm moves."""
    tab = Tab(url)
    await tab.connect()
    try:
        await tab.rerun(page="Classification")

        async def move(i: int) -> None:
            tab.set("w_tau", nearest(tab.widgets["w_tau"].options, VALUES[i % 2]))
            run = await tab.rerun()
            assert not run.exceptions, run.exceptions

        for i in range(6):               # both fits, their figures, every lazy import
            await move(i)
        p0, m0 = cpu_s(f"/proc/{pid}/stat"), cpu_s(f"/proc/{pid}/task/{pid}/stat")
        for i in range(n):
            await move(i)
        p1, m1 = cpu_s(f"/proc/{pid}/stat"), cpu_s(f"/proc/{pid}/task/{pid}/stat")
        return (p1 - p0) / n, (m1 - m0) / n
    finally:
        await tab.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="*", type=Path)
    ap.add_argument("--moves", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--port", type=int, default=8865)
    args = ap.parse_args()
    trees = [c.resolve() for c in args.checkouts] or [ROOT]
    rows = []
    for r in range(args.rounds):
        for tree in trees:
            log = Path(f"/tmp/bench-worker-move-{os.getpid()}.log")
            srv = OneProcess(tree, args.port, log).start()
            try:
                proc, main_thread = asyncio.run(moves(srv.url, srv.pid, args.moves))
            finally:
                srv.stop()
            rows.append((r + 1, tree, proc, main_thread))
            print(f"round {r + 1} {tree}: done", file=sys.stderr)
    print(f"{args.moves} warm τ moves per row, one tab; load average "
          f"{os.getloadavg()[0]:.1f} at the end on {os.cpu_count()} cores.\n")
    print("| round | checkout | worker CPU per move (ms) | its main thread (ms) | "
          "script threads and the rest (ms) |\n|---|---|---|---|---|")
    for r, tree, proc, main_thread in rows:
        print(f"| {r} | {tree} | {1e3 * proc:.1f} | {1e3 * main_thread:.1f} | "
              f"{1e3 * (proc - main_thread):.1f} |")


if __name__ == "__main__":
    main()
