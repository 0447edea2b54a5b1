"""Regenerate the five papers' reproducible results: ``python -m nplk_lab.model.reproduce``.

The command line: run every row (``--quick``: the committed report's scale), write the
report into ``--out`` and print the table as plain text."""

from __future__ import annotations

import argparse
import sys
import time

from .report import DEFAULT_OUT, _plain_table, write_report
from .runner import run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nplk_lab.model.reproduce",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer points, the same 10 seeds/splits (the committed report)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output directory")
    parser.add_argument("--only", nargs="*", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    start = time.perf_counter()

    def progress(i, n, rid):
        print(f"[{i + 1}/{n}] {rid} ... (t = {time.perf_counter() - start:.0f} s)",
              file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    rows = run(quick=args.quick, progress=progress, only=args.only)
    seconds = time.perf_counter() - t0
    cmd = "python -m nplk_lab.model.reproduce" + (" --quick" if args.quick else "")
    path = write_report(rows, args.out, quick=args.quick, seconds=seconds, command=cmd)
    print(_plain_table(rows))
    print(f"\n{len(rows)} rows in {seconds:.0f} s (+ figures); report: {path}")
    return 0
