"""A new server's first picture, at the protocol level.

Each round launches a new ``streamlit run app.py`` of every code tree under test (the
checkout this file is in, and ``--before DIR``: another commit's plain copy), one tree
after the other so the machine's load falls on both, and with the lab's fit pool on
(``NPLK_LAB_WORKERS``: 2 here unless given). For each server:

1. **new server**: once it answers, one tab (``st_client.Tab``: the websocket protocol,
   no browser) opens the Classification page; the seconds from the request to the
   decision surface's arrival, and the CPU seconds of the server's whole process tree
   (its fit workers included) from the request to the end of that run;
2. **warm server**: after the server has been idle (its background scikit-learn import
   done), ``--sessions`` new tabs open the same page one after another: the seconds
   from each request to its surface;
3. **first fresh fit**: one more tab moves σ to 3 (a value no snapshot holds), so the
   fit pool starts its workers and fits: the seconds from the move to its surface;
4. from the server's log: "missing ScriptRunContext" warnings (a worker running a page
   outside ``streamlit run``) and "Fitting ... finished" lines (fits; the page's status
   line logs them), counted before and after the σ move.

All servers share one cache directory holding each tree's first-paint snapshot
(``nplk_lab/serve/firstpaint.py``), written first by one untimed server per tree, as the
first run after an install or an edit does.

``--empty-cache``: instead, every round starts each tree's server with a cache directory
of its own, empty, as the first start after ``pip install`` on a new machine: this
checkout through the ``nplk-lab`` command (``python -m nplk_lab.serve.command``, which
prepares the pages' first pictures before the server listens), the ``--before`` tree as
``streamlit run app.py`` (what its ``nplk-lab`` ran). Printed per server: seconds from
the launch until it answers, from the request to the first surface, and in all.

    python benchmarks/bench_first_paint.py [--rounds 3] [--sessions 10] [--before DIR]
        [--workers 2] [--no-pool-row] [--empty-cache]

``--no-pool-row`` adds the checkout with ``NPLK_LAB_WORKERS=0`` (fits in the page's
process) as a reference. The machine's load average is printed with each server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "tests", ROOT / "tools"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from deployment import Monitor, serve  # noqa: E402
from st_client import Tab  # noqa: E402

PAGE = "Classification"


def _surface_seconds(run) -> float | None:
    """Seconds from the request to the decision surface (the first chart when no key
    names the surface)."""
    keyed = [t for k, t in run.figures.items() if "surface" in k]
    if keyed:
        return min(keyed) - run.sent
    return run.figure


async def _open(url: str) -> tuple[float | None, list[str]]:
    tab = Tab(url)
    await tab.connect()
    try:
        run = await tab.rerun(page=PAGE, timeout=600)
        return _surface_seconds(run), run.exceptions
    finally:
        await tab.close()


async def _move(url: str) -> tuple[float | None, list[str]]:
    """Open the page, then move σ to the option nearest 3: seconds from the move to
    its surface."""
    tab = Tab(url)
    await tab.connect()
    try:
        await tab.rerun(page=PAGE, timeout=600)
        opts = tab.widgets["w_sigma"].options
        tab.set("w_sigma", min(opts, key=lambda o: abs(np.log(float(o)) - np.log(3.0))))
        run = await tab.rerun(timeout=600)
        return _surface_seconds(run), run.exceptions
    finally:
        await tab.close()


def _count(log: Path) -> tuple[int, int]:
    """("missing ScriptRunContext" warnings, fits finished) in the server's log so far."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return (text.count("missing ScriptRunContext"),
            len(re.findall(r"Fitting \S+ finished", text)))


def _idle(mon: Monitor, settle: float, limit: float = 60.0) -> None:
    """Wait ``settle`` s, then until the server tree uses < 5 % of a core over 0.5 s
    (its scikit-learn import after the first run done); at most ``limit`` s."""
    time.sleep(settle)
    deadline = time.monotonic() + limit
    last = mon.sample()[0]
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = mon.sample()[0]
        if now - last < 0.025:
            return
        last = now


def _command_server(tree: Path, log: Path):
    """The ``nplk-lab`` command of ``tree`` on a free port (``python -m
    nplk_lab.serve.command``), as StreamlitServer starts ``streamlit run``."""
    import subprocess

    from _browser import StreamlitServer
    from _waits import OutputLines

    class CommandServer(StreamlitServer):
        def start(self):
            cmd = [sys.executable, "-m", "nplk_lab.serve.command", "--server.headless",
                   "true", "--server.port", "0", "--server.address", "127.0.0.1",
                   "--browser.gatherUsageStats", "false"]
            self.started_at = time.perf_counter()
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                         start_new_session=True)
            self.output = OutputLines(self.proc.stdout, self.log_path)
            return self
    return CommandServer("app.py", cwd=tree, log=log)


def empty_cache_server(name: str, tree: Path, env: dict, tmp: Path, command: bool,
                       log: Path) -> dict:
    """A new server with an empty cache directory of its own: seconds from its launch
    until it answers, and from the request to the first surface."""
    cache = Path(tempfile.mkdtemp(prefix="empty-cache-", dir=tmp))
    load = os.getloadavg()[0]
    run_env = {**env, "PYTHONPATH": str(tree), "NPLK_LAB_CACHE_DIR": str(cache)}
    t0 = time.perf_counter()
    if command:
        server = _command_server(tree, log)
        old = {k: os.environ.get(k) for k in run_env}
        os.environ.update(run_env)
        try:
            server.start()
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        server.wait_healthy(timeout=600)
    else:
        server = serve("app.py", cwd=tree, log=log, env=run_env)
    up = time.perf_counter() - t0
    try:
        first, exc = asyncio.run(_open(server.url))
    finally:
        server.stop()
    return dict(name=name, up=up, first=first, exceptions=exc, load=load)


def empty_cache_rounds(variants, rounds: int, tmp: Path) -> None:
    rows: dict[str, list[dict]] = {name: [] for name, _, _, _ in variants}
    for r in range(rounds):
        for i, (name, tree, env, command) in enumerate(variants):
            out = empty_cache_server(name, tree, env, tmp, command,
                                     tmp / f"empty{r}-{i}.log")
            rows[name].append(out)
            print(f"round {r + 1} {name} (empty cache): answers after {out['up']:.2f} s, "
                  f"first surface {out['first'] or float('nan'):.2f} s later; load "
                  f"{out['load']:.1f}" + (f"; EXCEPTIONS {out['exceptions'][:2]}"
                                          if out["exceptions"] else ""),
                  file=sys.stderr, flush=True)
    print(f"\nA new server with an empty cache folder (the first start after an install): "
          f"{rounds} rounds, trees alternating, {os.cpu_count()} cores.\n")
    print("| tree | started as | launch → answers, min / median / max (s) | request → first "
          "surface, min / median / max (s) | launch → first surface, median (s) | "
          "load 1 min |")
    print("|---|---|---|---|---|---|")
    for name, _tree, _env, command in variants:
        outs = rows[name]
        ups = [o["up"] for o in outs]
        firsts = [o["first"] for o in outs if o["first"] is not None]
        total = [o["up"] + o["first"] for o in outs if o["first"] is not None]
        loads = [o["load"] for o in outs]
        how = "nplk-lab" if command else "streamlit run app.py"
        print(f"| {name} | {how} | {fmt(ups)} | {fmt(firsts)} | "
              f"{statistics.median(total) if total else float('nan'):.2f} | "
              f"{min(loads):.1f}–{max(loads):.1f} |")


def one_server(name: str, tree: Path, env: dict, cache: Path, sessions: int,
               log: Path) -> dict:
    load = os.getloadavg()[0]
    server = serve("app.py", cwd=tree, log=log,
                   env={**env, "PYTHONPATH": str(tree), "NPLK_LAB_CACHE_DIR": str(cache)})
    try:
        mon = Monitor(server.proc.pid)
        cpu0 = mon.sample()[0]
        first, exc = asyncio.run(_open(server.url))
        cpu1 = mon.sample()[0]
        warm: list[float] = []
        move = None
        if sessions:
            _idle(mon, settle=6.0)
            for _ in range(sessions):
                t, e = asyncio.run(_open(server.url))
                exc += e
                if t is not None:
                    warm.append(t)
        no_ctx, fits = _count(log)
        if sessions:
            move, e = asyncio.run(_move(server.url))
            exc += e
    finally:
        server.stop()
    no_ctx_all, fits_all = _count(log)
    return dict(name=name, first=first, cpu=cpu1 - cpu0, warm=warm, exceptions=exc,
                no_ctx=no_ctx, fits=fits, move=move, no_ctx_move=no_ctx_all - no_ctx,
                fits_move=fits_all - fits, load=load)


def prepare(name: str, tree: Path, env: dict, cache: Path, log: Path) -> None:
    """One untimed server per tree: its first run writes the snapshot if missing."""
    one_server(name, tree, env, cache, 0, log)


def fmt(xs: list[float]) -> str:
    if not xs:
        return "—"
    return f"{min(xs):.2f} / {statistics.median(xs):.2f} / {max(xs):.2f}"


def p90(xs: list[float]) -> float:
    return float(np.percentile(xs, 90)) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=10,
                    help="new sessions on the warm server, one after another")
    ap.add_argument("--before", type=Path, help="another tree (a plain copy of a commit)")
    ap.add_argument("--workers", type=int, default=2, help="NPLK_LAB_WORKERS")
    ap.add_argument("--no-pool-row", action="store_true")
    ap.add_argument("--empty-cache", action="store_true",
                    help="new servers with empty cache folders (a fresh install)")
    args = ap.parse_args()

    pool = {"NPLK_LAB_WORKERS": str(args.workers)}
    variants = [("now", ROOT, pool)]
    if args.before:
        variants.insert(0, ("before", args.before.resolve(), pool))
    if args.no_pool_row:
        variants.append(("now, NPLK_LAB_WORKERS=0", ROOT, {"NPLK_LAB_WORKERS": "0"}))
    tmp = Path(tempfile.mkdtemp(prefix="bench-first-paint-"))
    if args.empty_cache:
        empty = [(name, tree, env, name != "before") for name, tree, env in variants
                 if "WORKERS=0" not in name]
        empty_cache_rounds(empty, args.rounds, tmp)
        print(f"\nlogs: {tmp}", file=sys.stderr)
        return 0
    cache = tmp / "cache"
    for i, (name, tree, env) in enumerate(variants):
        prepare(name, tree, env, cache, tmp / f"prepare-{i}.log")
    rows: dict[str, list[dict]] = {name: [] for name, _, _ in variants}
    for r in range(args.rounds):
        for i, (name, tree, env) in enumerate(variants):
            out = one_server(name, tree, env, cache, args.sessions,
                             tmp / f"round{r}-{i}.log")
            rows[name].append(out)
            print(f"round {r + 1} {name}: first surface {out['first']:.2f} s, "
                  f"{out['cpu']:.1f} CPU-s; warm p90 {p90(out['warm']):.2f} s; "
                  f"{out['no_ctx']} ScriptRunContext warnings, {out['fits']} fits logged; "
                  f"first fresh fit {out['move'] or float('nan'):.2f} s, then "
                  f"{out['no_ctx_move']} more warnings, {out['fits_move']} more fits; "
                  f"load {out['load']:.1f}"
                  + (f"; EXCEPTIONS {out['exceptions'][:2]}" if out["exceptions"] else ""),
                  file=sys.stderr, flush=True)
    print(f"\n{args.rounds} rounds, each a new server per tree, trees alternating; "
          f"{os.cpu_count()} cores; NPLK_LAB_WORKERS={args.workers}; "
          f"{args.sessions} new sessions per warm server.\n")
    print("| tree | new server: first surface, min / median / max (s) | server CPU to "
          "first picture (CPU-s) | warm server, new session: p50 / p90 / max (s) | "
          "\"missing ScriptRunContext\" per server: opening / first fresh fit | "
          "fits logged per server: opening / first fresh fit | first fresh fit "
          "(σ → 3), median (s) | load 1 min |")
    print("|---|---|---|---|---|---|---|---|")
    for name, outs in rows.items():
        firsts = [o["first"] for o in outs if o["first"] is not None]
        warm = [t for o in outs for t in o["warm"]]
        cpus = [o["cpu"] for o in outs]
        moves = [o["move"] for o in outs if o["move"] is not None]
        loads = [o["load"] for o in outs]
        warnings = ", ".join(f"{o['no_ctx']} / {o['no_ctx_move']}" for o in outs)
        fits = ", ".join(f"{o['fits']} / {o['fits_move']}" for o in outs)
        warm_s = (f"{statistics.median(warm):.2f} / {p90(warm):.2f} / {max(warm):.2f}"
                  if warm else "—")
        move_s = f"{statistics.median(moves):.2f}" if moves else "—"
        print(f"| {name} | {fmt(firsts)} | {min(cpus):.1f}–{max(cpus):.1f} | {warm_s} | "
              f"{warnings} | {fits} | {move_s} | {min(loads):.1f}–{max(loads):.1f} |")
    print(f"\nlogs: {tmp}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
