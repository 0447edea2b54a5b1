"""What one σ move costs on the Classification page: bytes sent to the browser,
elements (deltas) sent, and CPU seconds of the page process (the Streamlit server)
and of its fit workers, for a move to a new σ and a move back to a σ seen before.

Each tree (this checkout, and with ``--before DIR`` another checkout, e.g. a
``git worktree`` of main) gets its own ``streamlit run app.py`` with its own code on
``PYTHONPATH`` and its own empty cache directory; one protocol-level tab
(:mod:`st_client`) opens Classification at the defaults and then alternates: a move to
a σ this server has not seen (a new fit, new figures), then a move back to the
default σ (every fit and figure cached). CPU is read from ``/proc`` (utime + stime of
the server process, and of its child processes) before the request and after its
``script_finished``; bytes are the ForwardMsg bytes of the run as received (after
Streamlit's cache of large messages: an element the tab already holds comes as a
short reference). The servers run one after the other, rounds interleaved.

    PYTHONPATH=. python benchmarks/bench_move_cost.py --before /tmp/move-cost-base \
        [--moves 6] [--rounds 2]

Targets: a new-value move sends ≤ 150 KB; a repeat move costs
≤ 0.025 CPU-s in the page process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

from st_client import Tab  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
# σ values a move goes to (options of the σ slider), none of them the default 10: each
# is a new fit the first time on a fresh server
NEW_SIGMAS = (7.0, 15.0, 5.0, 20.0, 3.0, 2.0, 1.5, 1.0)
SETTLE_S = 0.2  # after a run's end, before CPU is read: the server finishes sending


def cpu_s(pid: int) -> float:
    """utime + stime of one live process (all its threads), in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (the fit workers and their helpers)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except FileNotFoundError:
            continue
        out += [int(k) for k in kids]
        todo += [int(k) for k in kids]
    return out


def cpu_now(pid: int) -> tuple[float, dict[int, float]]:
    return cpu_s(pid), {c: cpu_s(c) for c in children(pid)}


def workers_delta(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(v - before.get(k, 0.0) for k, v in after.items())


class Server:
    """``streamlit run app.py`` of one tree, its code first on ``PYTHONPATH``."""

    def __init__(self, tree: Path, log: Path, cache: Path) -> None:
        self.tree, self.log, self.cache = tree, log, cache
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> Server:
        from _browser import wait_streamlit_url
        from _waits import OutputLines

        env = {**os.environ, "PYTHONPATH": str(self.tree), "PYTHONUNBUFFERED": "1",
               "NPLK_LAB_CACHE_DIR": str(self.cache)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", "0", "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=self.tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        self.url = wait_streamlit_url(OutputLines(self.proc.stdout, self.log), self.proc, 120)
        return self

    def __exit__(self, *exc) -> None:
        import signal

        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


async def measure(tab: Tab, pid: int, sigma: float | None) -> dict:
    """One run of the tab (σ set to ``sigma`` first, unless None): its bytes, deltas,
    and the CPU the server process and its workers spent from request to its end."""
    if sigma is not None:
        opts = tab.widgets["w_sigma"].options
        tab.set("w_sigma", min(opts, key=lambda o: abs(np.log(float(o) / sigma))))
    c0, w0 = cpu_now(pid)
    run = await tab.rerun()
    await asyncio.sleep(SETTLE_S)
    c1, w1 = cpu_now(pid)
    assert run.status is not None and not run.exceptions, run.exceptions
    return dict(bytes=run.bytes, deltas=run.deltas, page=c1 - c0, workers=workers_delta(w0, w1),
                wall=run.finished - run.sent)


async def session(url: str, pid: int, sigmas: list[float], repeats: int
                  ) -> list[tuple[str, dict]]:
    tab = Tab(url)
    await tab.connect()
    try:
        await tab.rerun(page="Classification")
        default = 10.0  # the page's default σ (the settings table)
        # one plain rerun and one move away and back first: every lazy import, every
        # first-use of a code path, is behind us
        await measure(tab, pid, None)
        await measure(tab, pid, 0.7)
        await measure(tab, pid, default)
        out = []
        for s in sigmas:
            out.append(("new", await measure(tab, pid, s)))
            out.append(("repeat", await measure(tab, pid, default)))
        # more moves among the values seen (CPU time comes in ticks of 10 ms: the mean
        # of many moves resolves less than a tick)
        for _ in range(repeats):
            for s in sigmas:
                out.append(("repeat", await measure(tab, pid, s)))
        return out
    finally:
        await tab.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, help="another checkout to measure first")
    ap.add_argument("--moves", type=int, default=6, help="new-value moves per round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3,
                    help="extra passes of repeat moves over the σ values seen")
    args = ap.parse_args()
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", ROOT)]
    got: dict[str, list[tuple[str, dict]]] = {name: [] for name, _ in trees}
    sigmas = list(NEW_SIGMAS[:args.moves])
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name, tree in trees:
                cache = Path(tmp) / f"cache-{name}-{r}"
                with Server(tree, Path(tmp) / f"{name}-{r}.log", cache) as srv:
                    got[name] += asyncio.run(session(srv.url, srv.proc.pid, sigmas,
                                                      args.repeats))
                print(f"round {r} {name}: done", file=sys.stderr)
    load = os.getloadavg()[0]
    print(f"\nClassification at the defaults, σ moves over the protocol client: "
          f"{args.rounds} round(s), a fresh server each, of {args.moves} moves to a new σ, "
          f"each followed by a move back to σ = 10 (seen before), then {args.repeats} "
          f"passes of moves among the σ values seen; load average {load:.1f} on "
          f"{os.cpu_count()} cores. Medians (min–max) unless said.\n")
    print("| tree | move | moves | KB sent | elements sent | page process CPU-s: mean "
          "| median (min–max) | fit workers CPU-s | wall s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _ in trees:
        for kind in ("new", "repeat"):
            rows = [m for k, m in got[name] if k == kind]

            def cell(f, fmt, rows=rows):
                v = np.array([f(m) for m in rows])
                return f"{fmt.format(np.median(v))} ({fmt.format(v.min())}–{fmt.format(v.max())})"
            mean = np.mean([m["page"] for m in rows])
            print(f"| {name} | {'new σ' if kind == 'new' else 'σ seen before'} | "
                  f"{len(rows)} | {cell(lambda m: m['bytes'] / 1000, '{:.0f}')} | "
                  f"{cell(lambda m: m['deltas'], '{:.0f}')} | "
                  f"{mean:.3f} | {cell(lambda m: m['page'], '{:.2f}')} | "
                  f"{cell(lambda m: m['workers'], '{:.3f}')} | "
                  f"{cell(lambda m: m['wall'], '{:.2f}')} |")
    print(f"\n(CPU ticks are 1/{TICK} s.)")
    return 0


if __name__ == "__main__":
    t0 = time.time()
    rc = main()
    print(f"took {time.time() - t0:.0f} s", file=sys.stderr)
    raise SystemExit(rc)
