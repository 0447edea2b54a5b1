"""Two-parameter maps: a DANK σ × C map on the clowns, serial and in two processes.

    PYTHONPATH=. python benchmarks/bench_maps.py [--points 10] [--repeats 3] [--n 200]
                                                  [--no-serial] [--cold] [--dask]
                                                  [--png PATH] [--save PATH.npz]

The map is what the Sensitivity page runs for ``sweep_method=dank&sweep_param=sigma&
sweep_param2=C`` over the settings' full log ranges (σ 0.05–20, C 0.01–1000), n = 200
(140 training points), seeds 0… : per cell DANK (its fast accelerated solver, warm
starts along C), the plain SVM with the same σ and C, the score with F switched off and
1-NN per seed. Timed in the same run, as floors: one SVC fit and one DANK fit at the
page defaults (σ = 10, C = 10) on seed 0's training set (medians). Rows:

* in process, one line of cells after the other (what the page does for small maps);
* ``--cold``: every cell a cold fit (no warm start along C), in two processes (the
  solver iterations, which the machine's load does not change, compare the starts);
* two processes (joblib's loky, what the page does locally): first with a new pool
  (worker start-up included), then again with the pool warm;
* ``--dask``: a 2-worker ``LocalCluster`` through ``joblib.parallel_config("dask")``
  (the operator's cluster path).

Every parallel map is checked to equal the serial one cell by cell. The load average
(1 min) is printed before and after: the machine is shared, so compare the ratios.
``--png`` writes the score / SVM / difference / F-share maps (kaleido); ``--save`` the
map's arrays (``numpy.savez``); then the summary of what the map says is printed.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np


def _median(fn, repeats: int) -> float:
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


_SEEN_CPU: dict[int, float] = {}


def _cpu() -> float:
    """CPU seconds used so far by this process and every process it started (loky or
    Dask workers, alive or not): on a shared machine the wall time grows with the
    other jobs' load, the CPU time much less."""
    import psutil
    me = psutil.Process()
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            _SEEN_CPU[p.pid] = max(_SEEN_CPU.get(p.pid, 0.0), t.user + t.system)
        except psutil.Error:
            pass
    t = os.times()
    return sum(_SEEN_CPU.values()) + t.children_user + t.children_system


def _same(a, b) -> bool:
    return all(np.array_equal(x, y, equal_nan=True) for x, y in
               ((a.scores, b.scores), (a.ranks, b.ranks), (a.baseline, b.baseline),
                (a.f_off, b.f_off), (a.knn, b.knn)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--no-serial", action="store_true")
    ap.add_argument("--save", default="")
    ap.add_argument("--dask", action="store_true")
    ap.add_argument("--png", default="")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    import joblib
    from sklearn.svm import SVC

    import nplk_lab.model as lab
    from nplk_core.dank import DANKClassifier
    from nplk_core.kernels import sigma_to_gamma
    from nplk_lab.model import maps

    P = {**lab.defaults(), "n_samples": args.n, "sweep_method": "dank"}
    sig = lab.sweep_values("sigma", None, None, args.points)
    Cs = lab.sweep_values("C", None, None, args.points)
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION, seed=0)
    X, y = data.X_train, data.y_train
    load0 = os.getloadavg()[0]
    t_svc = _median(lambda: SVC(C=10.0, gamma=sigma_to_gamma(10.0)).fit(X, y), 21)
    t_dank = _median(lambda: DANKClassifier(C=10.0, sigma=10.0).fit(X, y), 7)
    fits = sig.size * Cs.size * args.repeats
    rows = []

    def run(name, **kw):
        c0, t0 = _cpu(), time.perf_counter()
        m = maps.run_map(P, "dank", "sigma", sig, "C", Cs, repeats=args.repeats, **kw)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        it = np.nansum(m.iterations)
        rows.append((name, wall, cpu, int(it), m))
        print(f"  {name}: {wall:.1f} s wall, {cpu:.1f} s CPU (load "
              f"{os.getloadavg()[0]:.1f})", flush=True)
        return m

    serial = None if args.no_serial else run("in process (serial), warm starts along C")
    par = run("2 processes (loky), new pool", parallel=True, n_jobs=2, workers=2)
    par2 = run("2 processes (loky), warm pool", parallel=True, n_jobs=2, workers=2)
    assert _same(par, par2) and (serial is None or _same(serial, par)), \
        "parallel map differs from serial"
    serial = serial or par
    if args.cold:
        run("2 processes (loky), warm pool, cold fits", parallel=True, n_jobs=2,
            workers=2, warm_starts=False)
    if args.dask:
        from dask.distributed import Client, LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster, \
                Client(cluster) as client, \
                joblib.parallel_config(backend="dask", client=client):
            d = run("Dask LocalCluster, 2 workers", parallel=True, n_jobs=None, workers=2)
        assert _same(serial, d), "Dask map differs from serial"
    load1 = os.getloadavg()[0]

    print(f"\nDANK σ × C map, {sig.size} × {Cs.size} cells × {args.repeats} seeds = {fits} "
          f"fits (+ {fits} SVM baselines), n = {args.n} ({len(y)} training points); "
          f"load average {load0:.1f} → {load1:.1f} on {os.cpu_count()} cores.")
    print(f"Floors: one SVC fit {t_svc * 1e3:.1f} ms, one DANK fit at σ = 10, C = 10 "
          f"{t_dank * 1e3:.1f} ms (medians).\n")
    print("| run | wall (s) | CPU (s) | CPU / workers (s) | solver iterations | "
          "wall / SVC fit | wall / DANK fit | ≤ 20 s (wall) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, wall, cpu, it, _ in rows:
        k = 1 if "serial" in name else 2
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {cpu / k:.1f} | {it:,} | "
              f"{wall / t_svc:,.0f} | {wall / t_dank:,.0f} | "
              f"{'met' if wall <= 20 else 'not met'} |")

    m = serial
    if args.save:
        np.savez(args.save, sigma=sig, C=Cs, scores=m.scores, baseline=m.baseline,
                 f_off=m.f_off, ranks=m.ranks, times=m.times, knn=m.knn)
        print(f"wrote {args.save}")
    diff, share = m.difference, m.f_share
    knn = float(np.nanmean(m.knn))
    best = np.unravel_index(np.nanargmax(diff), diff.shape)
    print(f"\nWhat the map says (mean over {args.repeats} seeds): 1-NN {knn:.3f}; "
          f"DANK − SVM in [{np.nanmin(diff):+.3f}, {np.nanmax(diff):+.3f}], largest at "
          f"σ = {sig[best[1]]:g}, C = {Cs[best[0]]:g} (DANK {m.mean(m.scores)[best]:.3f}, "
          f"SVM {m.mean(m.baseline)[best]:.3f}); cells where DANK beats the SVM by more "
          f"than 0.01: {int((diff > 0.01).sum())} of {diff.size}; F's own share in "
          f"[{np.nanmin(share):+.3f}, {np.nanmax(share):+.3f}], above 0.01 in "
          f"{int((share > 0.01).sum())} cells.")
    wins = diff > 0.01
    if wins.any():
        dank = m.mean(m.scores)[wins]
        print(f"Where DANK beats the SVM by > 0.01: DANK {dank.mean():.3f} on average "
              f"(1-NN {knn:.3f}); DANK within 0.02 of 1-NN in "
              f"{int((np.abs(dank - knn) <= 0.02).sum())} of {int(wins.sum())} cells.")
    lose = diff < -0.01
    mean, base = m.mean(m.scores), m.mean(m.baseline)
    ij = np.argwhere(wins)
    print(f"DANK wins at σ ≥ {sig[ij[:, 1]].min():g}" if ij.size else "no wins", end="; ")
    print(f"loses by > 0.01 in {int(lose.sum())} cells (σ {sig[np.argwhere(lose)[:, 1]].min():g}"
          f"–{sig[np.argwhere(lose)[:, 1]].max():g}, C ≥ {Cs[np.argwhere(lose)[:, 0]].min():g})"
          if lose.any() else "never loses by > 0.01", end="; ")
    print(f"best cell: DANK {np.nanmax(mean):.3f}, SVM {np.nanmax(base):.3f}; "
          f"|F share| ≤ 0.01 in {int((np.abs(share) <= 0.01).sum())} of {share.size} cells; "
          f"F share at the largest gain {share[best]:+.3f}.")
    if args.png:
        _png(m, args.png)


def _png(m, path: str) -> None:
    """The score, SVM, difference and F-share maps side by side as one PNG."""
    import plotly.io as pio

    import nplk_lab.figures as fg
    from nplk_lab.model import setting

    l1, l2 = setting(m.param1).label, setting(m.param2).label
    panels = [("DANK: test accuracy", m.mean(m.scores), False),
              ("plain SVM (same σ, C)", m.mean(m.baseline), False),
              ("DANK − SVM", m.difference, True),
              ("F's own share: F off − SVM", m.f_share, True)]
    lo = float(np.nanmin([np.nanmin(m.mean(m.scores)), np.nanmin(m.mean(m.baseline))]))
    hi = float(np.nanmax([np.nanmax(m.mean(m.scores)), np.nanmax(m.mean(m.baseline))]))
    top = float(np.nanmax(np.abs(np.concatenate([m.difference.ravel(),
                                                  m.f_share.ravel()]))))
    figs = [fg.map_figure(m.values1, m.values2, Z, label1=l1, label2=l2, title=t,
                          diverging=d, zmin=None if d else lo, zmax=top if d else hi,
                          colorbar="difference" if d else "accuracy", height=430,
                          cell_format="+.2f" if d else ".2f")
            for t, Z, d in panels]
    base, ext = os.path.splitext(path)
    from io import BytesIO

    from PIL import Image
    images = [Image.open(BytesIO(pio.to_image(f, format="png", width=620, height=430,
                                              scale=1))) for f in figs]
    w = sum(i.width for i in images[:2])
    h = images[0].height * 2
    sheet = Image.new("RGB", (w, h), "white")
    for k, im in enumerate(images):
        sheet.paste(im, ((k % 2) * images[0].width, (k // 2) * images[0].height))
    sheet.save(base + (ext or ".png"))
    print(f"wrote {base + (ext or '.png')}")


if __name__ == "__main__":
    main()
