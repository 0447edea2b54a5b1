"""Fits, grids, sweeps and studies run for a page through the shared stores."""

from __future__ import annotations

import contextlib
import pickle
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.model as lab
from nplk_lab.model import budget
from nplk_lab.serve import cluster, workers
from nplk_lab.serve.stores import MISS, cache, recorder

from .keys import DASK_FAILED, TIMING
from .progress import Progress, stop_requested
from .sharing import cached, single_flight
from .state import _LAST_GOOD, _PREV_FIT, _STOPPED, STORE, show_messages
from .widgets import get_data


def available(method: str) -> tuple[bool, str]:
    """:func:`nplk_lab.model.available`, stored: checking imports the solver's module (and so
    scikit-learn), which a first picture from the snapshot must not need."""
    return cached("data", ("available", method), lambda: lab.available(method))


def fit_key(P: Mapping[str, Any], data: lab.LabData, method: str) -> tuple:
    spec = lab.METHODS[method]
    return (method, data.key, tuple((p, P.get(p)) for p in spec.params), P.get("seed"))


def fit(P: Mapping[str, Any], data: lab.LabData, method: str, *, page: str
        ) -> lab.LabResult:
    """Cached fit; warm-starts from this page's previous fit when only a continuous
    parameter moved; reports progress (with a Stop button) for long fits. After Stop, the
    same settings are not fitted again until one of them changes."""
    key = fit_key(P, data, method)
    store = cache("fits")
    res = store.get(key)
    ss = st.session_state
    prev = ss.setdefault(_PREV_FIT, {})
    if res is None:
        spec = lab.METHODS[method]
        if stop_requested():
            ss[_STOPPED] = key
        if ss.get(_STOPPED) == key:
            return lab.LabResult(method=method, task=spec.task, params=dict(P), stopped=True,
                                 messages=[lab.Message("warning", (
                                     f"{spec.label} stopped; the last result stays on "
                                     "screen. Change a setting to fit again."))])
        ss.pop(_STOPPED, None)
        warm = prev.get((page, method))
        if warm is not None and not (warm.data_key == data.key and
                                     lab.can_warm_start(warm.params, P, method)):
            warm = None
        def compute() -> lab.LabResult:
            with Progress(f"Fitting {spec.label}") as progress:
                out = lab.fit_method(P, data.X_train, data.y_train, data.X_test,
                                     data.y_test, method=method, warm_from=warm,
                                     callback=progress.callback(), data_key=data.key)
            return store.put(key, out)
        pool = workers.pool()
        if pool is None:
            res = single_flight("fits", key, compute)
        else:
            res = _fit_in_pool(pool, key, P, data, method, warm, spec.label, store)
    if res.ok:
        prev[(page, method)] = res
    return res


def _fit_in_pool(pool: workers.Pool, key: tuple, P: Mapping[str, Any], data: lab.LabData,
                 method: str, warm: lab.LabResult | None, label: str, store: Any
                 ) -> lab.LabResult:
    """The fit as a job of the worker pool (:mod:`nplk_lab.serve.workers`): shared with any
    session asking for the same key, queued fairly, its place in line on the status line."""
    from nplk_lab.model.offload import fit_for_page

    if warm is not None:
        try:                      # a warm start from an in-process fit may hold a
            pickle.dumps(warm)    # callback closure: then start cold
        except Exception:
            warm = None
    session = _session_key()
    job = pool.submit(session, key, fit_for_page, dict(P), data.X_train, data.y_train,
                      data.X_test, data.y_test, method=method, warm_from=warm,
                      data_key=data.key,
                      # stored from the pool's thread, recorded as this page run's
                      # (its first-paint snapshot must hold the fit)
                      on_result=recorder.on_behalf(lambda res: store.put(key, res)))
    with Progress(f"Fitting {label}") as progress:
        return workers.wait(job, session, progress.report, pool)


def _session_key() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return getattr(ctx, "session_id", "") or "-"


def keep_good(page: str, data: lab.LabData | None, res: Any,
              messages: Iterable[lab.Message] = ()) -> tuple[lab.LabData, Any] | None:
    """Return (data, res) when usable and remember it. After an error (bad CSV, one
    class, failed solve) return the last good pair of this page, with a caption, so
    the previous result stays on screen; when there is simply nothing yet (no upload,
    no points) return None."""
    ss = st.session_state
    good = ss.setdefault(_LAST_GOOD, {})
    if data is not None and res is not None and getattr(res, "ok", True):
        good[page] = (data, res)
        return data, res
    msgs = list(messages) + list(getattr(res, "messages", []) or [])
    if not (getattr(res, "stopped", False) or any(m.level == "error" for m in msgs)):
        return None
    last = good.get(page)
    if last is not None:
        st.caption("Showing the last good result until the problem above is fixed.")
    return last


def grid_for(data: lab.LabData, resolution: int | None = None) -> lab.Grid:
    """The surface grid: over the data without the points the user added (which only
    widen it when they lie outside), so adding a point never moves the axes; 100×100,
    coarser when the grid-to-training distances of a large sample would not fit the
    memory budget."""
    if resolution is None:
        resolution = budget.grid_resolution(len(data.X_train))

    def build():
        store = st.session_state.get(STORE) or {}
        points = store.get("points", ()) if data.task == lab.CLASSIFICATION else ()
        k = lab.added_rows(data.X_train, points)
        if not k:
            return lab.make_grid(data.X, resolution)
        return lab.canvas_grid(np.vstack([data.X_train[:-k], data.X_test]),
                               data.X_train[-k:], resolution)
    return cached("grids", ("grid", data.key, resolution), build)


def grid_values(res: lab.LabResult, data: lab.LabData, P: Mapping[str, Any],
                extension: str | None = None) -> tuple[np.ndarray | None, list]:
    """The fitted model on the 100×100 grid, once per fit (and out-of-sample rule)."""
    grid = grid_for(data)
    key = ("z", fit_key(res.params, data, res.method), extension)
    return cached("grids", key, lambda: lab.grid_values(
        res.estimator, grid, extension=extension, geometry=lambda: grid_geometry(data)))


def grid_geometry(data: lab.LabData) -> lab.GridGeometry:
    """Grid-to-training distances, once per data set (shared by every σ and model)."""
    return cached("grids", ("geometry", data.key),
                  lambda: lab.grid_geometry(grid_for(data), data.X_train))


def baseline_values(data: lab.LabData, C: float, sigma: float) -> np.ndarray | None:
    """The plain SVM's decision values on the grid (independent of DANK's parameters)."""
    def compute():
        svm = lab.fit_baseline_svm(data.X_train, data.y_train, C=C, sigma=sigma)
        return None if svm is None else lab.grid_values(
            svm, grid_for(data), geometry=lambda: grid_geometry(data))[0]
    return cached("grids", ("svm", data.key, float(C), float(sigma)), compute)


def baseline_score(P: Mapping[str, Any], data: lab.LabData, task: str, *,
                   page: str = "plain") -> lab.BaselineScore | None:
    """The plain SVM's (SVR's) train and test scores on the page's split: from the page's
    reference fit of the plain model (:func:`fit`, the fit store), the one the score
    table compares with, so the figure, the score tiles and the table share one fit per
    data set and σ, C (ε) (an ill-conditioned SVR alone takes 0.3-0.4 s)."""
    plain = lab.plain_method(task)
    if plain is None:
        return None
    res = fit(P, data, plain, page=page)
    if not res.ok:
        return None
    return lab.BaselineScore(lab.baseline_name(task, {**lab.defaults(), **dict(P)}),
                             res.metric, res.train_score, res.test_score, res.estimator)


def solver_histories(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, *,
                     page: str) -> dict[str, dict]:
    """Convergence histories to overlay: the current fit, plus every other solver of
    the method when "compare_solvers" is on."""
    spec = lab.METHODS[res.method]
    param = "solver" if "solver" in spec.params else (
        "onk_solver" if "onk_solver" in spec.params else None)
    label = lab.setting(param).format(P.get(param)) if param else spec.label
    hist = {label: res.history}
    if not (P.get("compare_solvers") and param):
        return hist
    for s in lab.setting(param).options:
        if s in ("auto", P.get(param)):
            continue
        other = fit({**P, param: s}, data, res.method, page=page)
        if other.ok:
            hist[lab.setting(param).format(s)] = other.history
    return hist


# ---------------------------------------------------------------------------
# pairwise constraints, sensitivity, scaling
# ---------------------------------------------------------------------------

def pairwise_fit(P: Mapping[str, Any], data: lab.LabData) -> lab.PairwiseResult:
    """SimpleNPKL on all points (cached on its parameters and the data)."""
    spec = lab.METHODS["simple_npkl"]
    key = ("npkl", data.key, tuple((p, P.get(p)) for p in spec.params), P.get("seed"))

    def compute():
        with Progress("Fitting SimpleNPKL") as progress:
            return lab.fit_pairwise(P, data.X, data.y, callback=progress.callback())
    if stop_requested() and cache("fits").get(key, MISS) is MISS:
        return lab.PairwiseResult(stopped=True, messages=[lab.Message(
            "warning", "SimpleNPKL stopped; change a setting to fit again.")])
    return cached("fits", key, compute)


def _sweep_fit(p: Mapping[str, Any], X_train, y_train, X_test, y_test, *, method: str,
               data_key: str, warm_from: lab.LabResult | None = None,
               callback: Callable | None = None, only_cached: bool = False
               ) -> lab.LabResult:
    key = ("sweep-fit", method, data_key,
           tuple((n, p.get(n)) for n in lab.METHODS[method].params), p.get("seed"))
    if only_cached:
        hit = cache("fits").get(key, MISS)
        return hit if hit is not MISS else lab.LabResult(method=method, task="",
                                                           params=dict(p), stopped=True)
    return cached("fits", key, lambda: lab.fit_method(
        p, X_train, y_train, X_test, y_test, method=method, data_key=data_key,
        warm_from=warm_from, callback=callback))


def sweep(P: Mapping[str, Any], method: str, param: str, values: np.ndarray,
          repeats: int, *, cluster: str | None = None) -> lab.SweepResult:
    """A cached sensitivity sweep with a progress line (fit k of N, iteration, objective)
    and a Stop button; every fit is cached on its own, so an interrupted sweep resumes
    where it stopped, and a stopped one shows the fits done so far. ``cluster`` (an
    address from :func:`cluster_choice`): the fits are independent tasks on that Dask
    cluster (progress per finished fit; Stop hands out no further task)."""
    spec = lab.METHODS[method]
    task = spec.task
    name = P["reg_dataset"] if task == lab.REGRESSION else P["dataset"]
    dkeys = tuple((s.name, P.get(s.name)) for s in lab.settings().values()
                  if s.datasets == (name,))
    key = ("sweep", method, param, tuple(np.asarray(values).tolist()), int(repeats), name,
           dkeys, P["n_samples"], P["test_size"], P["seed"],
           tuple((n, P.get(n)) for n in spec.params if n != param),
           P.get("points", ()) if task == lab.CLASSIFICATION else (), bool(cluster))
    label = lab.setting(param).label

    def data_fn(seed: int):
        return get_data(task, seed=seed)

    hit = cache("sweeps").get(key, MISS)
    if hit is not MISS:
        return hit
    if cluster:
        return _sweep_on_cluster(P, method, param, values, repeats, key, data_fn, cluster)
    if stop_requested() or st.session_state.get(_STOPPED) == key:
        st.session_state[_STOPPED] = key
        done = lab.run_sweep(P, method, param, values, repeats=repeats, data_fn=data_fn,
                             fit=lambda *a, **k: _sweep_fit(*a, **k, only_cached=True))
        done.messages.insert(0, lab.Message(
            "warning", "Sweep stopped: the fits done so far are shown. Change a setting "
                       "to sweep again (finished fits are kept)."))
        return done
    st.session_state.pop(_STOPPED, None)
    state = {"done": 0, "total": int(np.asarray(values).size) * max(int(repeats), 1)}

    def prefix() -> str:
        return f"fit {state['done'] + 1} of {state['total']}, "

    def fit_one(*a, **k):
        return _sweep_fit(*a, **k, callback=lambda i, info, elapsed: progress.report(
            f"{prefix()}iteration {i + 1}"))

    def on_fit(done: int, total: int) -> bool:
        state["done"] = done
        progress.report(f"fit {done} of {total} done", force=True)
        return False

    with Progress(f"Sweeping {label}", delay=0.0) as progress:
        out = lab.run_sweep(P, method, param, values, repeats=repeats, progress=on_fit,
                            fit=fit_one, data_fn=data_fn)
    return cache("sweeps").put(key, out)


def _task_key(p: Mapping[str, Any], method: str, data_key: str) -> tuple:
    return ("sweep-task", method, data_key,
            tuple((n, p.get(n)) for n in lab.METHODS[method].params), p.get("seed"))


def _sweep_on_cluster(P, method, param, values, repeats, key, data_fn, address):
    """The sweep as independent cold fits on the Dask cluster at ``address`` (each fit's
    summary cached on its own, as in process); falls back to the in-process sweep with
    a message when the cluster does not answer."""
    from nplk_lab.model.studies import run_sweep

    store = cache("fits")

    def known(p, data_key):
        hit = store.get(_task_key(p, method, data_key), MISS)
        return None if hit is MISS else hit

    def keep(p, data_key, summary):
        store.put(_task_key(p, method, data_key), summary)

    if stop_requested() or st.session_state.get(_STOPPED) == key:
        st.session_state[_STOPPED] = key
        done = run_sweep(P, method, param, values, repeats=repeats, data_fn=data_fn,
                         parallel=True, known=known, fit_missing=False)
        done.messages.insert(0, lab.Message(
            "warning", "Sweep stopped: the fits done so far are shown. Change a setting "
                       "to sweep again (finished fits are kept)."))
        return done
    st.session_state.pop(_STOPPED, None)
    with on_cluster(address) as where:
        if where is None:
            return sweep(P, method, param, values, repeats)
        with Progress(f"Sweeping {lab.setting(param).label} on {where}",
                      delay=0.0) as progress:
            out = run_sweep(P, method, param, values, repeats=repeats, data_fn=data_fn,
                            parallel=True, known=known, on_result=keep,
                            progress=lambda d, t: progress.report(f"fit {d} of {t} done",
                                                                  force=True) and False)
    out.messages.append(lab.Message("info", f"The fits ran on the Dask cluster at {address}."))
    return cache("sweeps").put(key, out)


# ---------------------------------------------------------------------------
# an operator-configured Dask scheduler (never from the URL)
# ---------------------------------------------------------------------------

def cluster_choice(page: str) -> str | None:
    """When a scheduler is configured, a checkbox "Run on the Dask cluster at <address>"
    (off by default, not in the URL); the address when it is ticked, else None."""
    address = cluster.scheduler_address()   # the operator's, never the URL's
    if address is None:
        return None
    on = st.checkbox(f"Run on the Dask cluster at {address}", key=f"lab_dask_{page}",
                     help="The independent fits run as tasks on the cluster's workers "
                          f"(configured by the server's {cluster.DASK_ENV} or secrets.toml).")
    return address if on else None


@contextlib.contextmanager
def on_cluster(address: str | None) -> Iterator[str | None]:
    """Run the block under joblib's Dask backend bound to the scheduler at ``address``;
    yields a label of where the work runs, or None (with a warning on the page) when no
    scheduler answers or dask is not installed, so the block runs locally instead."""
    client = _connect(address) if address else None
    if client is None:
        yield None
        return
    from nplk_core.parallel import dask_backend
    with dask_backend(client):
        yield f"the Dask cluster at {address}"


def _connect(address: str):
    """The client for ``address``, or None after a warning on the page."""
    failed = st.session_state.get(DASK_FAILED)
    try:
        if failed and failed[0] == address and time.monotonic() - failed[1] < 30:
            raise OSError(failed[2])         # tried a moment ago: do not wait again
        return cluster.connect(address)
    except ImportError:
        st.warning("The Dask option needs dask.distributed (pip install -e \".[dask]\"); "
                   "running on this machine instead.")
    except OSError as exc:
        if not (failed and failed[0] == address and str(exc) == failed[2]):
            st.session_state[DASK_FAILED] = (address, time.monotonic(), str(exc))
        st.warning(f"Could not connect to the Dask cluster at {address}: "
                   f"{lab.clip(exc, 160)}. Running on this machine instead.")
    return None


@dataclass
class Failed:
    """A study that could not run: ``ok`` is False and ``messages`` say why and what
    to do (:func:`keep_good` then keeps the last good result on screen)."""

    messages: list[lab.Message] = field(default_factory=list)
    ok: bool = False


def scaling(P: Mapping[str, Any], data: lab.LabData, *, cluster: str | None = None
            ) -> lab.ScalingStudy | Failed | None:
    """The decomposition study (cached); a :class:`Failed` with a message when the
    data cannot be split into the clusters asked for or the solve fails. ``cluster``:
    the sub-problems run on the Dask cluster at that address (locally, with a
    message, when it does not answer)."""
    v, max_v = int(P["scale_clusters"]), int(P["scale_max_clusters"])
    key = ("scaling", data.key, float(P["C"]), float(P["sigma"]), v, max_v, int(P["seed"]))
    n = len(data.y)
    need = max(v, max_v)
    if n < need:
        return Failed([lab.Message(
            "error", f"The study splits the data into up to {need} clusters, so it needs at "
                     f"least {need} points; these data have {n}. Lower “Largest v in the "
                     "sweep” and “Clusters v”, or use more data.")])

    def compute(where: str | None = None):
        progress = Progress("Solving the decompositions" + (f" on {where}" if where else ""),
                            delay=0.0)
        try:
            return lab.scaling_study(
                data.X, data.y, C=P["C"], sigma=P["sigma"], v=v, max_v=max_v,
                seed=int(P["seed"]),
                progress=lambda d, t: progress.report(f"v = {d} of {t}", force=True))
        except (ValueError, ArithmeticError, np.linalg.LinAlgError, MemoryError) as exc:
            return Failed([lab.Message(
                "error", f"The decomposition study failed on these data ({lab.clip(exc, 120)})."
                         " Try another σ or C, fewer clusters, or data on a moderate scale.")])
        finally:
            progress.done()
    if not cluster:
        return cached("sweeps", key, compute)
    # on the cluster: its own cache entry (same numbers; the point is where it ran)
    hit = cache("sweeps").get((*key, cluster), MISS)
    if hit is not MISS:
        return hit
    with on_cluster(cluster) as where:
        if where is None:                          # message shown; run it here
            return cached("sweeps", key, compute)
        return cached("sweeps", (*key, cluster), lambda: compute(where))


def timing_run(P: Mapping[str, Any], ns: list[int], cluster: str | None = None) -> None:
    """Fit time against n on the Scaling page: exact DANK, scalable DANK and SVC at each
    n of ``ns``, in one status line with Stop; the times are kept in the session (read
    them with :func:`last_timing`) and a failure is said in words."""
    bar = Progress("Timing", delay=0.0)
    done = [0]

    def progress(d: int, total: int) -> bool:
        done[0] = d
        nxt = f"; fitting at n = {ns[d // 3]}" if d < total else ""
        bar.report(f"{d} of {total} fits done{nxt}", force=True)
        return False  # never stop by itself: every n listed is measured (Stop interrupts)

    def iteration(i: int, info: Any, elapsed: float) -> bool:
        return bar.report(f"exact DANK at n = {ns[done[0] // 3]}, iteration {i + 1}")

    try:
        with on_cluster(cluster):    # scalable DANK's sub-problems go there
            times, msgs = lab.timing_study(P, ns, v=max(int(P["scale_clusters"]), 2),
                                           progress=progress, callback=iteration)
        st.session_state[TIMING] = (list(ns), times)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, MemoryError) as exc:
        msgs = [lab.Message("error", f"The timing study failed ({lab.clip(exc, 120)}).")]
    bar.done()
    show_messages(msgs)


def last_timing() -> tuple[list[int], dict[str, np.ndarray]] | None:
    """The newest timing run of this session: (the n measured, fit times per method)."""
    return st.session_state.get(TIMING)
