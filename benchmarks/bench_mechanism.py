"""Where DANK's, KNPL's and DANK-SVR's test gains come from, re-measured at many seeds.

    python benchmarks/bench_mechanism.py [--seeds 10]
        [--part presets|reproduce|grid|regression|all]
        [--no-cv] [--sigmas 1 3 10] [--Cs 1 10 100] [--taus 0.01] [--knpl-sigmas 1 10]
        [--knpl-Cs 1 10] [--data clowns moons ...] [--json results.json]

For every preset and Home claim that rests on DANK, KNPL or DANK-SVR
(``nplk_lab/model/presets.py``), and for a small grid of settings, each seed's split is
scored five ways (:mod:`nplk_lab.model.ablation`): the method with its out-of-sample rule,
the same α and b with the learned matrix switched off at test time, 1-nearest
neighbour, the plain SVM/SVR with the same σ and C, and SVM-CV/SVR-CV. Also the
training-set scores (the transductive behaviour: the learned matrix is exact there).

A difference "holds" when its paired mean over the seeds exceeds twice its standard
error (the rule of ``python -m nplk_lab.model.reproduce``). The grid search asks where the
learned kernel itself helps: where DANK/KNPL with the matrix switched off at test
time still beats the plain SVM.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

import nplk_lab.model as lab
from nplk_lab.model import ablation as ab
from nplk_lab.model import presets as pr

_CV_CACHE: dict[tuple, Any] = {}


def _data(P: Mapping[str, Any], task: str):
    data, msgs = lab.prepare_data(P, task)
    if data is None:
        raise RuntimeError(f"no data: {msgs}")
    return data


def _cv(P: Mapping[str, Any], data, task: str):
    key = (data.key, float(P.get("epsilon", 0.1)) if task == lab.REGRESSION else None)
    if key not in _CV_CACHE:
        m = "svm_cv" if task == lab.CLASSIFICATION else "svr_cv"
        _CV_CACHE[key] = lab.fit_method(P, data.X_train, data.y_train, data.X_test,
                                        data.y_test, method=m).estimator
    return _CV_CACHE[key]


def measure(P: Mapping[str, Any], method: str, seeds: Iterable[int], *, cv: bool = True
            ) -> dict[str, np.ndarray]:
    """Per seed: the five test scores (accuracy, or R² for regression), the method's
    agreement with 1-NN, and the training scores of the method, its F-off version and
    the plain SVM/SVR."""
    task = lab.METHODS[method].task
    base = "svm" if task == lab.CLASSIFICATION else "svr"
    out: dict[str, list[float]] = {k: [] for k in (
        "method", "off", "nn", "plain", "cv", "agree", "train_method", "train_off",
        "train_plain", "fit_s")}
    for seed in seeds:
        p = {**P, "seed": int(seed)}
        data = _data(p, task)
        t0 = time.perf_counter()
        res = lab.fit_method(p, data.X_train, data.y_train, data.X_test, data.y_test,
                             method=method)
        out["fit_s"].append(time.perf_counter() - t0)
        plain = lab.fit_method(p, data.X_train, data.y_train, data.X_test, data.y_test,
                               method=base)
        if not (res.ok and plain.ok):
            raise RuntimeError(f"{method} at {dict(p)}: {res.messages + plain.messages}")
        a = ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                        data.y_test, plain=plain.estimator,
                        cv=_cv(p, data, task) if cv else None)
        for k in ("method", "off", "nn", "plain", "cv"):
            out[k].append(a.score(k))
        out["agree"].append(a.follows_nn)
        off_train = ab.off_predict(res.estimator, data.X_train, task)
        if task == lab.CLASSIFICATION:
            out["train_off"].append(float(np.mean(off_train == data.y_train)))
            out["train_method"].append(res.train_score)
            out["train_plain"].append(plain.train_score)
        else:  # R² on the training points
            out["train_off"].append(1 - lab.relative_error(data.y_train, off_train))
            out["train_method"].append(1 - res.train_score)
            out["train_plain"].append(1 - plain.train_score)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float, bool]:
    """Mean of a − b, its standard error, and whether it exceeds twice the SE."""
    d = np.asarray(a) - np.asarray(b)
    d = d[np.isfinite(d)]
    if d.size < 2:
        return float("nan"), float("nan"), False
    se = float(d.std(ddof=1) / np.sqrt(d.size))
    m = float(d.mean())
    return m, se, bool(abs(m) > 2 * se and m != 0)


def _rng(v: np.ndarray) -> str:
    v = v[np.isfinite(v)]
    if v.size == 0:
        return "—"
    return f"{v.mean():.3f} ({v.min():.3f}–{v.max():.3f})"


def _ratio(r2_a: np.ndarray, r2_b: np.ndarray) -> str:
    """Mean (min–max) over the seeds of the relative-error ratio (1 − R²_a) / (1 − R²_b)."""
    q = (1 - np.asarray(r2_a)) / (1 - np.asarray(r2_b))
    return f"{q.mean():.3g} ({q.min():.3g}–{q.max():.3g})"


def _gain(a, b, scale=100.0) -> str:
    m, se, holds = paired(a, b)
    if not np.isfinite(m):
        return "—"
    digits = 1 if scale >= 100 else 3
    return f"{scale * m:+.{digits}f} ± {scale * se:.{digits}f}{' *' if holds else ''}"


# ---------------------------------------------------------------------------
# part 1: every preset and Home claim on DANK, KNPL, DANK-SVR
# ---------------------------------------------------------------------------

CLAIMS = (
    # (preset, method, what the words on screen claimed before this issue)
    ("dank_clowns", "dank", "Home card + preset: DANK's F bends the boundary, wins on test"),
    ("knpl_sandwich", "knpl", "preset: KNPL's G lifts the test accuracy on the sandwich"),
    ("dank_svr_step", "dank_svr", "Home card + preset: DANK-SVR keeps the steps"),
    ("dank_svr_harmonic", "dank_svr", "preset: DANK-SVR recovers the harmonic surface"),
)


def part_presets(seeds, cv: bool) -> list[dict]:
    rows = []
    print("\n## Presets and Home cards (test scores: accuracy, or R² for regression; "
          f"seeds {seeds[0]}–{seeds[-1]})\n")
    print("| preset | method | method | F off | 1-NN | plain | CV | agree 1-NN | "
          "method − plain (pts) | F off − plain (pts) | method − 1-NN (pts) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, method, claim in CLAIMS:
        P = pr.preset_params(name)
        r = measure(P, method, seeds, cv=cv)
        rows.append({"preset": name, "name": method, "claim": claim,
                     **{k: v.tolist() for k, v in r.items()}})
        print(f"| {name} | {lab.METHODS[method].label} | {_rng(r['method'])} | "
              f"{_rng(r['off'])} | {_rng(r['nn'])} | {_rng(r['plain'])} | {_rng(r['cv'])} | "
              f"{_rng(r['agree'])} | {_gain(r['method'], r['plain'])} | "
              f"{_gain(r['off'], r['plain'])} | {_gain(r['method'], r['nn'])} |", flush=True)
    # the τ sweep of the Sensitivity preset, each τ with the ablation
    P = pr.preset_params("tau_sweep")
    taus = lab.sweep_values("tau", None, None, int(P["sweep_points"]))
    print(f"\n### τ sweep (preset tau_sweep: clowns, σ = {P['sigma']:g}, C = {P['C']:g}; "
          f"seeds {seeds[0]}–{seeds[-1]})\n")
    print("| τ | DANK | F off | 1-NN | plain SVM | agree 1-NN | DANK − SVM (pts) | "
          "F off − SVM (pts) | train DANK | train SVM |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for tau in taus:
        r = measure({**P, "tau": float(tau)}, "dank", seeds, cv=False)
        rows.append({"preset": "tau_sweep", "name": "dank", "tau": float(tau),
                     **{k: v.tolist() for k, v in r.items()}})
        print(f"| {tau:g} | {_rng(r['method'])} | {_rng(r['off'])} | {_rng(r['nn'])} | "
              f"{_rng(r['plain'])} | {_rng(r['agree'])} | {_gain(r['method'], r['plain'])} | "
              f"{_gain(r['off'], r['plain'])} | {r['train_method'].mean():.3f} | "
              f"{r['train_plain'].mean():.3f} |", flush=True)
    # training-set (transductive) behaviour at the presets
    print("\n### Training points (where the learned matrix is exact)\n")
    print("| preset | method train | F off train | plain train |")
    print("|---|---|---|---|")
    for row in rows[:len(CLAIMS)]:
        print(f"| {row['preset']} | {_rng(np.array(row['train_method']))} | "
              f"{_rng(np.array(row['train_off']))} | {_rng(np.array(row['train_plain']))} |")
    return rows


# ---------------------------------------------------------------------------
# part 2: where does the learned kernel itself help?
# ---------------------------------------------------------------------------

GRID_DATA = ("clowns", "moons", "circles", "chessboard", "spiral", "sandwich")


def part_grid(seeds, *, sigmas, Cs, taus, knpl_sigmas, knpl_Cs, data=GRID_DATA
              ) -> list[dict]:
    rows = []
    print(f"\n## Grid (seeds {seeds[0]}–{seeds[-1]}; * = paired mean beyond 2 SE)\n")
    print("| data | method | σ | C | τ | method | F off | 1-NN | plain SVM | agree 1-NN | "
          "method − SVM (pts) | F off − SVM (pts) | train method − train SVM (pts) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    configs = [("dank", d, s, c, t) for d in data for s in sigmas for c in Cs for t in taus]
    configs += [("knpl", d, s, c, None) for d in data for s in knpl_sigmas for c in knpl_Cs]
    for method, d, s, c, t in configs:
        P = {**lab.defaults(), "dataset": d, "sigma": float(s), "C": float(c)}
        if t is not None:
            P["tau"] = float(t)
        try:
            r = measure(P, method, seeds, cv=False)
        except RuntimeError as exc:
            print(f"| {d} | {method} | {s:g} | {c:g} | {t} | failed: {str(exc)[:60]} |")
            continue
        m_off, se_off, holds_off = paired(r["off"], r["plain"])
        rows.append({"dataset": d, "name": method, "sigma": s, "C": c, "tau": t,
                     "off_gain": m_off, "off_se": se_off, "off_holds": holds_off,
                     **{k: v.tolist() for k, v in r.items()}})
        print(f"| {d} | {lab.METHODS[method].label} | {s:g} | {c:g} | "
              f"{'—' if t is None else f'{t:g}'} | {r['method'].mean():.3f} | "
              f"{r['off'].mean():.3f} | {r['nn'].mean():.3f} | {r['plain'].mean():.3f} | "
              f"{r['agree'].mean():.2f} | {_gain(r['method'], r['plain'])} | "
              f"{_gain(r['off'], r['plain'])} | "
              f"{_gain(r['train_method'], r['train_plain'])} |", flush=True)
    return rows


def part_reproduce(seeds) -> list[dict]:
    """The reproduction table's DANK Fig. 1 row (``python -m nplk_lab.model.reproduce``):
    raw clowns, n = 200, stratified 70/30 split by seed, C = 1, σ = 1, 4, 8; each split
    scored with the ablation."""
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    from nplk_core import DANKClassifier
    from nplk_core.datasets import make_clowns
    from nplk_core.kernels import sigma_to_gamma

    rows = []
    print(f"\n## Reproduction row DANK Fig. 1 (raw clowns n = 200, C = 1; seeds "
          f"{seeds[0]}–{seeds[-1]})\n")
    print("| σ | DANK | F off | 1-NN | plain SVM | agree 1-NN | DANK − SVM (pts) | "
          "F off − SVM (pts) | DANK − 1-NN (pts) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for sigma in (1.0, 4.0, 8.0):
        r: dict[str, list[float]] = {k: [] for k in ("method", "off", "nn", "plain",
                                                      "agree")}
        for seed in seeds:
            X, y = make_clowns(200, random_state=seed)
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed,
                                                  stratify=y)
            dank = DANKClassifier(C=1.0, sigma=sigma).fit(Xtr, ytr)
            svm = SVC(C=1.0, gamma=sigma_to_gamma(sigma)).fit(Xtr, ytr)
            a = ab.ablation("dank", dank, Xtr, ytr, Xte, yte, plain=svm)
            for k in ("method", "off", "nn", "plain"):
                r[k].append(a.score(k))
            r["agree"].append(a.follows_nn)
        v = {k: np.asarray(x) for k, x in r.items()}
        rows.append({"sigma": sigma, **r})
        print(f"| {sigma:g} | {_rng(v['method'])} | {_rng(v['off'])} | {_rng(v['nn'])} | "
              f"{_rng(v['plain'])} | {_rng(v['agree'])} | {_gain(v['method'], v['plain'])} | "
              f"{_gain(v['off'], v['plain'])} | {_gain(v['method'], v['nn'])} |", flush=True)
    return rows


REG_HEADER = ("| data | σ | C | DANK-SVR | F off | 1-NN | plain SVR | closeness to 1-NN | "
              "error DANK-SVR / SVR | error F off / SVR | train R² DANK-SVR − SVR |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|")


def reg_row(d: str, s: float, c: float, r: Mapping[str, np.ndarray]) -> str:
    """One line of the DANK-SVR grid table (test R², relative-error ratios)."""
    r = {k: np.asarray(v, dtype=float) for k, v in r.items() if isinstance(v, (list, np.ndarray))}
    return (f"| {d} | {s:g} | {c:g} | {r['method'].mean():.3f} | {r['off'].mean():.3f} | "
            f"{r['nn'].mean():.3f} | {r['plain'].mean():.3f} | {r['agree'].mean():.3f} | "
            f"{_ratio(r['method'], r['plain'])} | {_ratio(r['off'], r['plain'])} | "
            f"{_gain(r['train_method'], r['train_plain'], 1)} |")


def summarise_grid(rows: list[dict]) -> None:
    """Counts over the grid, and every setting where the model with its learned matrix
    switched off at test time beats the plain SVM beyond twice the standard error."""
    def holds(a, b, sign):
        m, _, h = paired(np.asarray(a), np.asarray(b))
        return h and m * sign > 0
    n = len(rows)
    up = [r for r in rows if holds(r["method"], r["plain"], 1)]
    off_up = [r for r in rows if holds(r["off"], r["plain"], 1)]
    off_down = [r for r in rows if holds(r["off"], r["plain"], -1)]
    agree = np.array([np.mean(r["agree"]) for r in up])
    print(f"\nOf {n} settings: the method beats the plain SVM in {len(up)} (its labels "
          f"follow 1-NN on {100 * agree.min():.0f}-{100 * agree.max():.0f} % of test "
          f"points there, mean {100 * agree.mean():.0f} %); with the learned matrix "
          f"switched off at test time it beats the SVM in {len(off_up)} and loses to it "
          f"in {len(off_down)}.")
    for r in off_up:
        g, se, _ = paired(np.asarray(r["off"]), np.asarray(r["plain"]))
        gm = float(np.mean(np.asarray(r["method"]) - np.asarray(r["plain"])))
        print(f"  {r['dataset']}, {lab.METHODS[r['name']].label}, σ = {r['sigma']:g}, "
              f"C = {r['C']:g}: off − SVM {100 * g:+.1f} ± {100 * se:.1f} points of the "
              f"method's {100 * gm:+.1f} ({100 * g / gm:.0f} %); agreement with 1-NN "
              f"{100 * np.mean(r['agree']):.0f} %")


def part_regression_grid(seeds, *, sigmas, Cs) -> list[dict]:
    rows = []
    print(f"\n## DANK-SVR grid (test R²; seeds {seeds[0]}–{seeds[-1]})\n")
    print(REG_HEADER)
    for d in ("step", "harmonic", "chirp"):
        for s in sigmas:
            for c in Cs:
                P = {**lab.defaults(), "reg_dataset": d, "sigma": float(s), "C": float(c)}
                try:
                    r = measure(P, "dank_svr", seeds, cv=False)
                except RuntimeError as exc:
                    print(f"| {d} | {s:g} | {c:g} | failed: {str(exc)[:60]} |")
                    continue
                m_off, se_off, holds_off = paired(r["off"], r["plain"])
                rows.append({"dataset": d, "name": "dank_svr", "sigma": s, "C": c,
                             "off_gain": m_off, "off_se": se_off, "off_holds": holds_off,
                             **{k: v.tolist() for k, v in r.items()}})
                print(reg_row(d, s, c, r), flush=True)
    return rows


def reprint(path: str) -> None:
    """The DANK-SVR table again from a ``--json`` file of an earlier run."""
    with open(path) as fh:
        out = json.load(fh)
    if out.get("grid"):
        for r in out["grid"]:   # files written before "name" was the method's key
            r.setdefault("name", "knpl" if r.get("tau") is None else "dank")
        summarise_grid(out["grid"])
    if out.get("regression"):
        print(REG_HEADER)
        for r in out["regression"]:
            print(reg_row(r["dataset"], r["sigma"], r["C"], r))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--part", choices=("presets", "reproduce", "grid", "regression", "all"),
                    default="all")
    ap.add_argument("--no-cv", action="store_true", help="skip SVM-CV/SVR-CV (slow)")
    ap.add_argument("--sigmas", type=float, nargs="+", default=(1.0, 3.0, 10.0))
    ap.add_argument("--Cs", type=float, nargs="+", default=(1.0, 10.0, 100.0))
    ap.add_argument("--taus", type=float, nargs="+", default=(0.01,),
                    help="DANK's τ in the grid (the τ sweep of part 1 covers the rest)")
    ap.add_argument("--knpl-sigmas", type=float, nargs="*", default=(1.0, 10.0))
    ap.add_argument("--knpl-Cs", type=float, nargs="*", default=(1.0, 10.0))
    ap.add_argument("--data", nargs="+", default=GRID_DATA)
    ap.add_argument("--json", default=None, help="write every per-seed number here")
    ap.add_argument("--reprint", default=None, help="print the tables of a --json file")
    args = ap.parse_args()
    if args.reprint:
        reprint(args.reprint)
        return
    seeds = list(range(args.seeds))
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    out: dict[str, Any] = {"seeds": seeds}
    if args.part in ("presets", "all"):
        out["presets"] = part_presets(seeds, cv=not args.no_cv)
    if args.part in ("reproduce", "all"):
        out["reproduce"] = part_reproduce(seeds)
    if args.part in ("grid", "all"):
        out["grid"] = part_grid(seeds, sigmas=args.sigmas, Cs=args.Cs, taus=args.taus,
                                knpl_sigmas=args.knpl_sigmas, knpl_Cs=args.knpl_Cs,
                                data=tuple(args.data))
        summarise_grid(out["grid"])
    if args.part in ("regression", "all"):
        out["regression"] = part_regression_grid(seeds, sigmas=args.sigmas, Cs=args.Cs)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh)


if __name__ == "__main__":
    main()
