"""LAB RBF, both halves: learned bandwidths against one shared bandwidth inside
the paper's model, the paper's model against a ridge on the same centres fitted to all
points, and the lab's extension (learned bandwidths, coefficients fitted to all points).

    python benchmarks/bench_lab_rbf_halves.py [--seeds 0 1 ... 9] [--sets chirp sin ...]
    python benchmarks/bench_lab_rbf_halves.py --timing 30 60 100 140 [--before DIR]

``--timing``: the CPU time of the three comparison fits on the Regression page's default
data at those support counts, with ``--before`` a checkout's in the same run.

For every data set and seed: ``LABRBFRegressor(n_support=30, random_state=seed)`` with the
paper's defaults (λ = 10⁻³), then the three fits of :mod:`nplk_lab.model.lab_rbf_halves`
on its own support points, each choosing its bandwidth / ridge on the validation points
LAB itself held out (never on the test points):

(a) learned − one shared bandwidth, both inside the paper's model (coefficients fitted to
    the support labels only, the same λ);
(b) the paper's model − a one-bandwidth ridge on the same centres fitted to all training
    points;
(c) the lab's extension (learned bandwidths, ridge on all training points) − the paper's
    model, and − the one-bandwidth ridge.

Data: chirp (f 1 → 10, noise 0.1) and sin 2x³ on [0, 0.8π] (noise 0.1), n = 300, scored
on a 1,000-point noiseless grid; the step function (the DANK paper's: s = 3, w = 2, a = 0.05 on
[−5, 5], noise 0.3, n = 300, 1,000-point noiseless grid); the noiseless chirp (the
Regression page's default data); diabetes (scikit-learn, 442 × 10; 10 random 70/30
splits, seed = split). Score: R² on the held-out points. Paired differences over the 10
seeds with their 95 % t-interval (``nplk_lab.model.paired.paired``; the diabetes splits
with the corrected resampled variance). One BLAS thread; CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

# the checkout measured: this one, or (--timing --before) the one a child is told
sys.path.insert(0, os.environ.get("NPLK_BENCH_ROOT") or str(Path(__file__).resolve().parents[1]))

from nplk_lab.model.lab_rbf_halves import FITS, SETS, draw, measure, summary  # noqa: E402
from nplk_lab.model.paired import paired  # noqa: E402

COMPARISONS = (("a", "learned", "shared", "learned − one shared width (paper's model)"),
               ("b", "learned", "ridge", "paper's model − one-width ridge on all points"),
               ("c1", "extension", "learned", "extension − paper's model"),
               ("c2", "extension", "ridge", "extension − one-width ridge on all points"))


def run(name: str, seeds) -> dict:
    """R² of the four fits per seed (key -> array), the test fraction, CPU seconds."""
    r2 = {key: [] for key, _ in FITS}
    cpu = []
    for seed in seeds:
        t0 = time.process_time()
        h = measure(name, seed)
        cpu.append(time.process_time() - t0)
        for key, v in h.r2().items():
            r2[key].append(v)
        print(f"| {SETS[name]} | {seed} | " + " | ".join(f"{h.r2()[k]:.3f}" for k, _ in FITS)
              + f" | {h.choices['shared']} | {h.choices['ridge']} | {h.choices['extension']} "
              f"| {cpu[-1]:.2f} |", flush=True)
    return {"r2": {k: np.asarray(v) for k, v in r2.items()}, "frac": draw(name, 0)[4],
            "cpu": cpu}


def summarise(results: dict) -> None:
    print("\n| data | learned, support labels (paper) | one width, support labels | "
          "one width, ridge on all | learned, ridge on all (extension) | CPU per seed [s] |")
    print("|---|---|---|---|---|---|")
    for name, res in results.items():
        r = res["r2"]
        print(f"| {SETS[name]} | " + " | ".join(f"{r[k].mean():.3f}" for k, _ in FITS)
              + f" | {np.median(res['cpu']):.2f} |")
    print("\nPaired differences of R² (first − second), mean [95 % interval], better / worse "
          "seeds, verdict of 'first is higher':\n")
    print("| data | comparison | mean | 95 % interval | better / worse | verdict |")
    print("|---|---|---|---|---|---|")
    for name, res in results.items():
        r = res["r2"]
        for _, a, b, label in COMPARISONS:
            p = paired(r[a], r[b], label=label, test_fraction=res["frac"])
            print(f"| {SETS[name]} | {label} | {p.mean:+.3f} | [{p.lo:+.3f}, {p.hi:+.3f}] | "
                  f"{p.wins} / {p.losses} | {p.verdict} |")
    print("\nDoes the extension beat both (both intervals above 0)?\n")
    for name, res in results.items():
        r = res["r2"]
        ps = [paired(r["extension"], r[b], label="", test_fraction=res["frac"])
              for b in ("learned", "ridge")]
        both = all(p.verdict == "holds" for p in ps)
        print(f"- {SETS[name]}: {'yes' if both else 'no'} (vs paper: {ps[0].verdict}, "
              f"vs one-width ridge: {ps[1].verdict})")
    print("\nPython dict for nplk_lab.model.lab_rbf_halves.MEASURED:\n")
    print(repr({name: summary(res["r2"], res["frac"]) for name, res in results.items()}))


def timing(counts, repeats: int) -> dict[int, dict[str, float]]:
    """CPU seconds of the three comparison fits (median of ``repeats``) on the Regression
    page's default data, per support count (LAB RBF fitted once per count)."""
    import warnings

    import nplk_lab.model as lab
    from nplk_core.lab_rbf import LABRBFRegressor
    from nplk_lab.model import lab_rbf_halves as lh

    data, _ = lab.prepare_data(lab.defaults(), lab.REGRESSION)
    X, y = data.X_train, data.y_train
    out = {}
    for N in counts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = LABRBFRegressor(n_support=N, random_state=0).fit(X, y)
        row = {"N": len(m.support_)}
        for name, fn in (("shared", lh.shared_bandwidth), ("ridge", lh.one_bandwidth_ridge),
                         ("extension", lh.learned_ridge)):
            ts = []
            for _ in range(repeats):
                t0 = time.process_time()
                fn(m, X, y)
                ts.append(time.process_time() - t0)
            row[name] = float(np.median(ts))
        out[N] = row
    return out


def timing_table(args) -> None:
    """``--timing``: this checkout, and ``--before DIR`` in a child process, per count."""
    import json
    import subprocess

    def child(root: str) -> dict:
        cmd = [sys.executable, __file__, "--timing", *map(str, args.timing), "--repeats",
               str(args.repeats), "--json"]
        env = {**os.environ, "PYTHONPATH": root, "NPLK_BENCH_ROOT": root}
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        return {int(k): v for k, v in json.loads(out.stdout.splitlines()[-1]).items()}

    load0 = os.getloadavg()
    after = timing(args.timing, args.repeats)
    before = child(args.before) if args.before else {}
    load1 = os.getloadavg()
    print(f"# `python benchmarks/bench_lab_rbf_halves.py --timing "
          f"{' '.join(map(str, args.timing))} --repeats {args.repeats}"
          + (f" --before {args.before}" if args.before else "") + "`: CPU seconds per fit "
          f"(median of {args.repeats}), one BLAS thread, the Regression page's default data; "
          f"load average {load0[0]:.1f} → {load1[0]:.1f} on {os.cpu_count()} cores\n")
    print("| support count | one width, support labels | one-width ridge on all points | "
          "learned widths, ridge on all | all three |")
    print("|---|---|---|---|---|")
    for N in args.timing:
        a = after[N]

        def cell(key, a=a, N=N):
            b = before.get(N)
            return (f"{b[key]:.3f} → {a[key]:.3f}" if b else f"{a[key]:.3f}")
        total = {k: sum(r[x] for x in ("shared", "ridge", "extension"))
                 for k, r in (("a", a), ("b", before.get(N)))
                 if r}
        tot = (f"{total['b']:.3f} → {total['a']:.3f}" if "b" in total else f"{total['a']:.3f}")
        print(f"| {a['N']} | {cell('shared')} | {cell('ridge')} | {cell('extension')} | "
              f"{tot} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--timing", type=int, nargs="+", default=None,
                    help="instead: time the comparison at these support counts")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before", default=None, help="with --timing: also this checkout")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.timing and args.json:
        import json

        print(json.dumps(timing(args.timing, args.repeats)))
        return
    if args.timing:
        timing_table(args)
        return
    print(f"# load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; n_support 30, "
          "λ = 1e-3 (the paper's model); R² on held-out points; one BLAS thread\n")
    print("| data | seed | " + " | ".join(k for k, _ in FITS)
          + " | shared: chosen | ridge: chosen | extension: chosen | CPU [s] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    results = {name: run(name, args.seeds) for name in args.sets}
    summarise(results)


if __name__ == "__main__":
    with threadpool_limits(limits=1, user_api="blas"):
        main()
