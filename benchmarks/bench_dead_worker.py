"""A worker killed mid-class: what it costs the class.

Starts ``nplk-lab classroom --workers 2`` (the real command, HAProxy in front), opens
``--students`` protocol-level tabs (``st_client.Tab``, each keeping HAProxy's cookie
like a browser) on the Classification page, each with a σ of its own; then, each round,
SIGKILLs the worker holding tab 0's session and measures:

* **restart**: seconds from the kill to the command's "worker k is back" line (the
  worker answers ``/_stcore/health`` again);
* **sessions hit**: tabs whose websocket the kill closed (those on the dead worker),
  and tabs that kept theirs;
* **kept tabs**: a σ move sent right after the kill: seconds to its end of run, errors;
* **hit tabs**: reconnect as a browser does (same cookies, through the proxy) and run
  the page from their URL: seconds to the end of that run, the σ it ran with (must be
  the tab's own), where it landed;
* **new tab**: a student arriving right after the kill: seconds to the end of its run;
* **left**: processes of the killed worker still there once it is back (from /proc).

    python benchmarks/bench_dead_worker.py --students 4 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))

from _ports import free_port_block  # noqa: E402
from _procs import alive, descendants  # noqa: E402
from _waits import OutputLines  # noqa: E402
from st_client import Tab, query_value  # noqa: E402

PAGE = "Classification"


async def open_tab(url: str, query: str) -> tuple[Tab, float]:
    tab = Tab(url)
    await tab.connect()
    t0 = time.perf_counter()
    run = await tab.rerun(page=PAGE, query=query, timeout=600)
    assert not run.exceptions, run.exceptions
    return tab, time.perf_counter() - t0


async def one_round(url: str, out: OutputLines, pids: dict[int, int],
                    tabs: list[Tab]) -> dict:
    victim_cookie = tabs[0].cookies.get("NPLK_WORKER")
    victim = int(victim_cookie[1:])
    pid = pids[victim]
    left_before = descendants(pid)
    mark = out.mark()
    killed = time.perf_counter()
    os.kill(pid, signal.SIGKILL)
    # the kill closes the websockets of the dead worker's tabs: wait for each tab to
    # either see its close or answer a move
    hit = [t for t in tabs if t.cookies.get("NPLK_WORKER") == victim_cookie]
    kept = [t for t in tabs if t not in hit]

    async def move(t: Tab) -> tuple[float, list[str]]:
        opts = t.widgets["w_sigma"].options
        now = query_value(t.query, "sigma")
        i = next(i for i, o in enumerate(opts) if float(o) == float(now))
        t.set("w_sigma", opts[i - 1] if i else opts[i + 1])
        t0 = time.perf_counter()
        run = await t.rerun(timeout=600)
        return time.perf_counter() - t0, run.exceptions

    async def closed(t: Tab) -> None:
        while not t.closed:
            t.changed.clear()
            await t.changed.wait()

    await asyncio.wait_for(asyncio.gather(*(closed(t) for t in hit)), timeout=120)
    closed_s = time.perf_counter() - killed
    new_task = asyncio.create_task(open_tab(url, "method=svm"))
    kept_runs = await asyncio.gather(*(move(t) for t in kept))

    async def come_back(t: Tab) -> tuple[Tab, float, str | None]:
        b = Tab(url, cookies=dict(t.cookies.values))   # the same browser, reconnecting
        await b.connect()
        b.pages = t.pages
        t0 = time.perf_counter()
        run = await b.rerun(page=PAGE, query=t.query, timeout=600)
        assert not run.exceptions, run.exceptions
        return b, time.perf_counter() - t0, query_value(b.query, "sigma")

    back_runs = await asyncio.gather(*(come_back(t) for t in hit),
                                     return_exceptions=True)
    new_tab, new_s = await new_task
    await new_tab.close()
    errors = [r for r in back_runs if isinstance(r, BaseException)]
    pairs = [(t, r) for t, r in zip(hit, back_runs, strict=True)
             if not isinstance(r, BaseException)]
    back_runs = [r for _, r in pairs]
    loop = asyncio.get_running_loop()
    line = await loop.run_in_executor(None, lambda: out.wait_line(
        lambda ln: re.search(rf"worker {victim} is back \(pid (\d+).*, ([\d.]+) s after", ln),
        timeout_s=600, what="the restart", start=mark))
    pids[victim] = int(line.group(1))
    left = [p for p, s in left_before if alive(p, s)]
    for t, (b, _, sigma) in pairs:
        assert sigma == query_value(t.query, "sigma"), (sigma, t.query)
        tabs[tabs.index(t)] = b
    for t in hit:
        if t in tabs and all(t is not p for p, _ in pairs):   # its reconnection failed:
            b, _ = await open_tab(url, t.query)              # it tries again
            tabs[tabs.index(t)] = b
    return {"killed": f"w{victim}", "restart_s": float(line.group(2)),
            "hit": len(hit), "errors": len(errors), "kept": len(kept),
            "closed_s": closed_s,
            "kept_move_s": max((s for s, _ in kept_runs), default=0.0),
            "kept_errors": sum(len(e) for _, e in kept_runs),
            "hit_back_s": max((s for _, s, _ in back_runs), default=0.0),
            "landed": sorted(b.cookies.get("NPLK_WORKER") for b, _, _ in back_runs),
            "new_tab_s": new_s, "processes_before": len(left_before), "left": len(left)}


async def main_async(ns: argparse.Namespace, url: str, out: OutputLines,
                     pids: dict[int, int]) -> list[dict]:
    tabs = []
    for i in range(ns.students):
        tab, _ = await open_tab(url, "method=svm")
        opts = tab.widgets["w_sigma"].options
        tab.set("w_sigma", opts[i % len(opts)])        # a σ of its own
        await tab.rerun(timeout=600)
        tabs.append(tab)
    rows = []
    for _ in range(ns.rounds):
        rows.append(await one_round(url, out, pids, tabs))
        print(rows[-1], flush=True)
    for t in tabs:
        await t.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ns = ap.parse_args()
    port = free_port_block(3)
    log = Path(tempfile.mkdtemp(prefix="bench-dead-worker-")) / "classroom.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "nplk_lab.serve.command", "classroom", "--workers", "2",
         "--port", str(port), "--address", "127.0.0.1"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True)
    out = OutputLines(proc.stdout, log)
    try:
        out.wait_line(lambda ln: "NPLK Lab for a class:" in ln, timeout_s=600,
                      what="the class's URL line")
        pids = {int(m[1]): int(m[2]) for m in (
            re.search(r"^worker (\d): \S+ \(pid (\d+)\)", ln) for ln in out.lines()) if m}
        rows = asyncio.run(main_async(ns, f"http://127.0.0.1:{port}", out, pids))
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=120)
    print(f"\ncommand exit code after SIGTERM: {code}; log: {log}")
    keys = ["killed", "restart_s", "hit", "errors", "kept", "closed_s", "kept_move_s",
            "kept_errors", "hit_back_s", "landed", "new_tab_s", "processes_before", "left"]
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(f"{r[k]:.1f}" if isinstance(r[k], float) else str(r[k])
                                for k in keys) + " |")


if __name__ == "__main__":
    main()
