"""Hostile CSV uploads: how long the lab takes to refuse each, and how much memory it
grows by, before and after a change, side by side in one run.

    python benchmarks/bench_hostile_uploads.py                  # main against this tree
    python benchmarks/bench_hostile_uploads.py --before REV --repeats 3

Each file goes through what the server does with an upload once it has its bytes:
``nplk_lab.model.prepare_data`` on the Classification page's defaults with
``dataset=csv`` (the page's own size check in the upload widget is not included). Each
(tree, file) pair runs in a fresh Python process that has imported the lab and made one
small CSV first, so neither imports nor first-call costs are counted. Per run: the wall
time of the call, and the growth of the process's peak resident memory (VmHWM after the
call minus VmRSS just before it), the memory a server process would need on top of
what it held. "3 at once" runs the file in three threads of one process, as three
students uploading together; the time is the slowest thread's.

``--before`` names a git revision whose ``nplk_core`` and ``nplk_lab`` are unpacked
(``git archive``) into a temporary folder and imported from there; "after" is the tree
this script sits in. The first line of each refusal is printed as the lab shows it.

Targets: the one-line file refused in <= 0.2 s with <= 50 MB growth.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: name -> the file's bytes (built in the child from this expression)
FILES = {
    "one line, 5.1 MB": "b'4,' * 2569011 + b'0\\n'",
    "one-line, 4.8 MB": "b'4,' * 2400000 + b'0\\n'",
    "header + 80 rows of 30,001 cells": "b'x1,x2,label\\n' + (b'4,' * 30000 + b'0\\n') * 80",
    "header + 4.9 M blank lines": "b'x1,x2,label\\n' + b'\\n' * 4900000 + b'1,2,1\\n'",
    "NUL before each newline": ("b''.join(b'%d,%d,%d\\x00\\n' % (i, i % 7, i % 2 * 2 - 1) "
                                "for i in range(200))"),
    "6.0 MB of good rows": "b'x1,x2,label\\n' + b'0.123456789,0.987654321,1\\n' * 230769",
}

#: (file, threads, via): "lab" is prepare_data; "core" is nplk_core's load_csv alone,
#: without a size limit (the issue's file is refused by its size in the lab now, so
#: this row shows the width check on the very same bytes)
CASES = [("one line, 5.1 MB", 1, "lab"), ("one line, 5.1 MB", 3, "lab"),
         ("one line, 5.1 MB", 1, "core"), ("one line, 5.1 MB", 3, "core"),
         ("one-line, 4.8 MB", 1, "lab"), ("one-line, 4.8 MB", 3, "lab"),
         ("header + 80 rows of 30,001 cells", 1, "lab"),
         ("header + 4.9 M blank lines", 1, "lab"), ("NUL before each newline", 1, "lab"),
         ("6.0 MB of good rows", 1, "lab")]

CHILD = r"""
import json, resource, sys, threading, time
import nplk_lab.model as lab

def rss_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

P = {**lab.defaults(), "dataset": "csv"}
lab.prepare_data(P, lab.CLASSIFICATION, csv=b"x1,x2,label\n" + b"".join(
    b"%d,%d,%d\n" % (i, i % 7, i % 2 * 2 - 1) for i in range(40)))  # warm
raw = eval(sys.argv[1])
threads = int(sys.argv[2])
msgs_out, times = [], []

via = sys.argv[3]
from nplk_core import datasets

def one():
    t = time.perf_counter()
    if via == "core":
        try:
            datasets.load_csv(raw)
            said = "loaded"
        except datasets.DataError as exc:
            said = str(exc)
    else:
        data, msgs = lab.prepare_data(P, lab.CLASSIFICATION, csv=raw)
        said = "loaded" if data is not None else msgs[0].text
    times.append(time.perf_counter() - t)
    msgs_out.append(said)

before = rss_kb("VmRSS:")
ts = [threading.Thread(target=one) for _ in range(threads)]
for t in ts: t.start()
for t in ts: t.join()
print(json.dumps({"seconds": max(times), "grow_mb": (rss_kb("VmHWM:") - before) / 1024,
                  "size_mb": len(raw) / 1e6, "message": msgs_out[0]}))
"""


def unpack(rev: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "nplk_core", "nplk_lab"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def run(tree: Path, expr: str, threads: int, via: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "NPLK_LAB_WORKERS": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, expr, str(threads), via], cwd=str(tree),
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="main", help="git revision for the 'before' rows")
    ap.add_argument("--repeats", type=int, default=3, help="runs per row (median shown)")
    ap.add_argument("--files", nargs="*", default=list(FILES), help="which files")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        unpack(args.before, old)
        print(f"before: {args.before}, after: {ROOT}; median of {args.repeats} runs")
        print("| file | at once | via | before s | before +MB | before: the lab says | "
              "after s | after +MB | after: the lab says |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name, threads, via in CASES:
            if name not in args.files:
                continue
            cells = []
            for tree in (old, ROOT):
                runs = [run(tree, FILES[name], threads, via) for _ in range(args.repeats)]
                said = runs[0]["message"].removeprefix("Could not read the CSV: ")
                cells += [f"{statistics.median(r['seconds'] for r in runs):.3f}",
                          f"{statistics.median(r['grow_mb'] for r in runs):.0f}",
                          said if len(said) <= 70 else said[:69] + "…"]
            print(f"| {name} | {threads} | {via} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
