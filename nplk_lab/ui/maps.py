"""Two-parameter maps on the Sensitivity page: run (live, bounded, stoppable, cached),
draw, export, and open a clicked cell on the method's page.

The numbers come from :mod:`nplk_lab.model.maps` (lines of warm-started fits, the baseline,
F switched off, 1-NN), the heatmaps from :func:`nplk_lab.figures.map_figure`. Every finished
line of cells is kept in the shared ``map-lines`` store (all sessions of this server),
the whole map in ``sweeps``; a stopped map shows every cell done so far. Locally the lines
run in two processes (joblib's loky) when the map is expected to take more than a couple
of seconds; with an operator-configured Dask scheduler ticked, on its workers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.model import budget
from nplk_lab.model import maps as lab_maps
from nplk_lab.serve.stores import MISS, cache
from nplk_lab.ui.components.chart import clicks, live_chart

from .keys import MAP_CLICK_SEEN, MAP_LIVE_COUNT, MAP_OPEN, MAP_PARTIAL
from .progress import Progress, stop_requested
from .running import on_cluster
from .state import _STOPPED, PAGE_FILES, STORE, params
from .widgets import get_data

#: a map expected to take longer than this (serially) runs its lines in two processes
PARALLEL_ABOVE_S = 2.0


def workers() -> int:
    """Local worker processes for a map: 2 on this 2-core machine (at most the cores)."""
    return max(1, min(2, os.cpu_count() or 1))


def map_key(P: Mapping[str, Any], method: str, param1: str, values1, param2: str, values2,
            repeats: int, cluster: str | None) -> tuple:
    spec = lab.METHODS[method]
    task = spec.task
    name = P["reg_dataset"] if task == lab.REGRESSION else P["dataset"]
    dkeys = tuple((s.name, P.get(s.name)) for s in lab.settings().values()
                  if s.datasets == (name,))
    base = lab_maps.baseline_of(method)
    names = set(spec.params) | (set(lab.METHODS[base].params) if base else set())
    return ("map", method, param1, tuple(np.asarray(values1).tolist()), param2,
            tuple(np.asarray(values2).tolist()), int(repeats), name, dkeys, P["n_samples"],
            P["test_size"], P["seed"],
            tuple(sorted((n, P.get(n)) for n in names if n not in (param1, param2))),
            P.get("points", ()) if task == lab.CLASSIFICATION else (), bool(cluster))


def sweep_map(P: Mapping[str, Any], method: str, param1: str, values1, param2: str, values2,
              repeats: int, *, cluster: str | None = None, page: str = "sensitivity"
              ) -> lab_maps.MapResult:
    """The map (cached), run with a progress line, a Stop button and the score map
    redrawn as its cells finish; a stopped map returns the cells done so far."""
    spec = lab.METHODS[method]
    task = spec.task
    key = map_key(P, method, param1, values1, param2, values2, repeats, cluster)
    hit = cache("sweeps").get(key, MISS)
    if hit is not MISS:
        return hit
    store = cache("map-lines")
    ss = st.session_state

    def known(k):
        hit = store.get(k, MISS)
        return None if hit is MISS else hit

    fitted = {"lines": 0}

    def keep(k, cells):
        fitted["lines"] += 1
        store.put(k, cells)

    def data_fn(seed: int):
        return get_data(task, seed=seed)

    common = dict(repeats=repeats, data_fn=data_fn, known=known)
    if stop_requested() or ss.get(_STOPPED) == key:
        ss[_STOPPED] = key
        done = lab_maps.run_map(P, method, param1, values1, param2, values2,
                                fit_missing=False, **common)
        partial = ss.get(MAP_PARTIAL, {}).get(key)
        if partial is not None and partial.done > done.done:
            done = partial
        done.stopped = True
        done.messages = [lab.Message(
            "warning", f"Map stopped: the {done.done} of {done.total} fits done so far are "
                       "shown. Change a setting to run it again (finished rows are kept).")
        ] + [m for m in done.messages if m.level != "warning" or "stopped" not in m.text]
        return done
    ss.pop(_STOPPED, None)
    n_train = int(round(int(P["n_samples"]) * (1 - float(P["test_size"]))))
    serial = budget.fit_cost(method, n_train, 2, P).seconds * \
        np.asarray(values1).size * np.asarray(values2).size * max(int(repeats), 1)
    slot = st.empty()
    label = (f"Mapping {lab.setting(param1).label} × {lab.setting(param2).label}")
    state = {"last": 0.0}

    def draw(partial: lab_maps.MapResult) -> None:
        now = time.perf_counter()
        if now - state["last"] < 0.6:
            return
        state["last"] = now
        ss[MAP_LIVE_COUNT] = ss.get(MAP_LIVE_COUNT, 0) + 1
        fig = score_figure(partial, title=f"{spec.label}: test {partial.metric} "
                                          f"({partial.done} of {partial.total} fits)")
        with slot.container():
            live_chart(fg.figure_json(fig), key=f"map_live_{ss[MAP_LIVE_COUNT]}",
                       config=fg.plot_config("nplk-map-partial"), height=fig.layout.height,
                       alt=fg.alt_text(fig))

    def make_progress(where: str | None):
        progress = Progress(label + (f" on {where}" if where else ""), delay=0.0)

        def on_progress(done: int, total: int, partial: lab_maps.MapResult) -> bool:
            state["done"] = done
            ss.setdefault(MAP_PARTIAL, {})[key] = partial
            progress.report(f"fit {done} of {total} done", force=True)
            draw(partial)
            return False
        return progress, on_progress

    def run(where: str | None, *, parallel: bool, n_jobs: int | None, n_workers: int):
        progress, on_progress = make_progress(where)
        cb = None if parallel else (lambda i, info, el: progress.report(
            f"fit {state.get('done', 0) + 1}, iteration {i + 1}"))
        try:
            out = lab_maps.run_map(P, method, param1, values1, param2, values2,
                                   progress=on_progress, parallel=parallel, n_jobs=n_jobs,
                                   on_result=keep, callback=cb, workers=n_workers, **common)
        finally:
            progress.done()
            slot.empty()
        return out

    if cluster:
        with on_cluster(cluster) as where:
            if where is not None:
                out = run(where, parallel=True, n_jobs=None, n_workers=max(workers(), 2))
                if fitted["lines"]:
                    out.messages.append(lab.Message(
                        "info", f"The fits ran on the Dask cluster at {cluster}."))
                ss.get(MAP_PARTIAL, {}).pop(key, None)
                return cache("sweeps").put(key, out) if not out.stopped else out
    local_parallel = serial > PARALLEL_ABOVE_S and workers() > 1
    out = run(None, parallel=local_parallel, n_jobs=workers() if local_parallel else None,
              n_workers=workers() if local_parallel else 1)
    ss.get(MAP_PARTIAL, {}).pop(key, None)
    if out.stopped:
        return out
    return cache("sweeps").put(key, out)


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------

def _short(name: str) -> str:
    """A setting's symbol or short name: the label up to its parenthesis."""
    return lab.setting(name).label.split(" (")[0]


def _hover(m: lab_maps.MapResult) -> np.ndarray:
    label = lab.METHODS[m.method].label
    base = lab.METHODS[m.baseline_method].label if m.baseline_method else None
    rows = [(f"{label} test {m.metric}", m.mean(m.scores), m.spread(m.scores), "{:.3f}")]
    if m.baseline is not None:
        rows.append((f"{base}", m.mean(m.baseline), m.spread(m.baseline), "{:.3f}"))
        rows.append((f"{label} − {base}", m.difference,
                     m.spread(m.scores - m.baseline), "{:+.3f}"))
    if m.f_off is not None:
        rows.append(("with F off at test time", m.mean(m.f_off), m.spread(m.f_off),
                     "{:.3f}"))
    if np.isfinite(m.ranks).any():
        rows.append(("rank", m.mean(m.ranks), m.spread(m.ranks), "{:.1f}"))
    rows.append(("fit time (s)", m.mean(m.times), m.spread(m.times), "{:.3f}"))
    seeds = len(m.seeds)
    page = "Classification" if lab.METHODS[m.method].task == lab.CLASSIFICATION \
        else "Regression"
    return fg.map_hover(m.values1, m.values2, _short(m.param1), _short(m.param2), rows,
                        footer=f"± std over {seeds} seed{'s' if seeds != 1 else ''}; "
                               f"click: open on the {page} page")


def _mark(m: lab_maps.MapResult, P: Mapping[str, Any]) -> tuple[int, int] | None:
    """The cell of the page's current values, when both lie on the grid."""
    try:
        i1 = [float(v) for v in m.values1].index(float(P.get(m.param1)))
        i2 = [float(v) for v in m.values2].index(float(P.get(m.param2)))
    except (ValueError, TypeError):
        return None
    return i2, i1


def _score_range(m: lab_maps.MapResult) -> tuple[float | None, float | None]:
    arrays = [m.mean(m.scores)] + ([m.mean(m.baseline)] if m.baseline is not None else [])
    vals = np.concatenate([a[np.isfinite(a)] for a in arrays])
    return (float(vals.min()), float(vals.max())) if vals.size else (None, None)


def score_figure(m: lab_maps.MapResult, *, title: str | None = None,
                 mark: tuple[int, int] | None = None, hover: np.ndarray | None = None):
    lo, hi = _score_range(m)
    return fg.map_figure(m.values1, m.values2, m.mean(m.scores),
                         label1=lab.setting(m.param1).label,
                         label2=lab.setting(m.param2).label,
                         title=title or f"{lab.METHODS[m.method].label}: test {m.metric}",
                         colorbar=m.metric, reverse=m.metric != "accuracy", zmin=lo, zmax=hi,
                         hover=hover, mark=mark, cell_format=".2f"
                         if m.metric == "accuracy" else ".2g")


def map_figures(m: lab_maps.MapResult, P: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """``(name, caption, figure)`` for every map that applies to ``m``."""
    label = lab.METHODS[m.method].label
    base = lab.METHODS[m.baseline_method].label if m.baseline_method else None
    kw = dict(label1=lab.setting(m.param1).label, label2=lab.setting(m.param2).label,
              hover=_hover(m), mark=_mark(m, P))
    err = m.metric != "accuracy"
    lo, hi = _score_range(m)
    fmt = ".2f" if not err else ".2g"
    out = [("score", f"Mean test {m.metric} over the seeds.",
            score_figure(m, mark=kw["mark"], hover=kw["hover"])),
           ("spread", "Standard deviation of the test score over the seeds.",
            fg.map_figure(m.values1, m.values2, m.spread(m.scores),
                          title=f"{label}: spread over seeds", colorbar="std", zmin=0.0,
                          zmax=max(float(np.nanmax(m.spread(m.scores), initial=0.0)),
                                   0.01),
                          cell_format=".2f" if not err else ".2g", **kw))]
    if m.baseline is not None:
        out.append(("baseline", f"The plain {base} with the same "
                                f"{_baseline_params(m)} on the same seeds.",
                    fg.map_figure(m.values1, m.values2, m.mean(m.baseline),
                                  title=f"{base} (same {_baseline_params(m)}): test "
                                        f"{m.metric}", colorbar=m.metric, reverse=err,
                                  zmin=lo, zmax=hi, cell_format=fmt, **kw)))
        better = "lower is better" if err else "higher is better"
        out.append(("difference", f"{label} − {base}, paired by seed ({better}); "
                                  "white = no difference.",
                    fg.map_figure(m.values1, m.values2, m.difference,
                                  title=f"{label} − {base}", colorbar="difference",
                                  diverging=True, cell_format="+.2f" if not err else "+.2g",
                                  **kw)))
    if m.f_share is not None:
        out.append(("f_share", f"F's own share: {label} with the learned matrix switched "
                               f"off at test time (the learned α and b with the plain "
                               f"kernel) − {base}. Zero where the gain comes only from "
                               "the test-time rule.",
                    fg.map_figure(m.values1, m.values2, m.f_share,
                                  title=f"F's own share: F off − {base}",
                                  colorbar="difference", diverging=True,
                                  cell_format="+.2f" if not err else "+.2g", **kw)))
    if np.isfinite(m.ranks).any():
        out.append(("rank", "rank of the learned matrix (mean over seeds).",
                    fg.map_figure(m.values1, m.values2, m.mean(m.ranks),
                                  title=f"{label}: rank", colorbar="rank",
                                  cell_format=".0f", **kw)))
    out.append(("time", "Fit time per cell (mean over seeds; warm starts along "
                        f"{_short(m.warm_param)})." if m.warm_param else
                "Fit time per cell (mean over seeds).",
                fg.map_figure(m.values1, m.values2, m.mean(m.times),
                              title=f"{label}: fit time (s)", colorbar="s",
                              cell_format=".2f", **kw)))
    return out


def _baseline_params(m: lab_maps.MapResult) -> str:
    names = [n for n in lab.METHODS[m.baseline_method].params]
    return ", ".join(_short(n) for n in names)


def knn_text(m: lab_maps.MapResult) -> str:
    k = m.knn[np.isfinite(m.knn)]
    if not k.size:
        return ""
    sd = f" ± {k.std():.3f}" if k.size > 1 else ""
    return (f"1-nearest-neighbour test {m.metric} on the same splits: {k.mean():.3f}{sd} "
            "(it depends on neither parameter).")


# ---------------------------------------------------------------------------
# clicks: open a cell on the method's page
# ---------------------------------------------------------------------------

def _target(m: lab_maps.MapResult, cell: tuple[int, int]) -> tuple[str, dict[str, Any]]:
    """The method's page and its full state with the cell's values."""
    task = lab.METHODS[m.method].task
    page = "classification" if task == lab.CLASSIFICATION else "regression"
    new = {**params(), **lab_maps.cell_params(m, cell),
           ("method" if page == "classification" else "reg_method"): m.method}
    return page, new


def _on_click(key: str, m: lab_maps.MapResult):
    def handler() -> None:
        ss = st.session_state
        cell, newest = lab_maps.cell_from_clicks(clicks(key), m.shape,
                                                 seen=ss.get(MAP_CLICK_SEEN, 0.0))
        ss[MAP_CLICK_SEEN] = newest
        if cell is not None:
            open_later(*_target(m, cell))
    return handler


def open_later(page: str, new: dict[str, Any]) -> None:
    """Ask the next run to open ``page`` with the state ``new`` (a clicked cell of any
    map; :func:`follow_cell_click` does it)."""
    if STORE in st.session_state:
        st.session_state[MAP_OPEN] = (page, {**params(), **new})


def follow_cell_click() -> None:
    """Open the cell clicked on a map (set by the chart's click handler before this run)
    on the method's page, in that state; call right after page set-up."""
    pending = st.session_state.pop(MAP_OPEN, None)
    if not pending:
        return
    page, new = pending
    from .state import apply_params
    apply_params(new)
    st.switch_page(PAGE_FILES[page],
                   query_params=lab.encode_query(new, lab.relevant_names(page, new)))


# ---------------------------------------------------------------------------
# the panel
# ---------------------------------------------------------------------------

def maps_panel(P: Mapping[str, Any], m: lab_maps.MapResult, *, page: str) -> None:
    """Every map two per row (hover: the numbers ± spread; click: open the cell on the
    method's page), 1-NN beside them, the table and its CSV."""
    label = lab.METHODS[m.method].label
    note = knn_text(m)
    if note:
        st.info(note)
    figs = map_figures(m, P)
    ack = st.session_state.get(MAP_CLICK_SEEN, 0.0)
    for start in range(0, len(figs), 2):
        cols = st.columns(2)
        for col, (name, caption, fig) in zip(cols, figs[start:start + 2], strict=False):
            with col:
                key = f"{page}_map_{name}"
                live_chart(fg.figure_json(fig), key=key,
                           config=fg.plot_config(f"nplk-map-{m.method}-{name}"),
                           height=fig.layout.height, on_click=_on_click(key, m), ack=ack,
                           mark_color="#111", alt=fg.alt_text(fig))
                st.caption(caption)
    page_name = "Classification" if lab.METHODS[m.method].task == lab.CLASSIFICATION \
        else "Regression"
    st.caption(f"Hover a cell for its numbers (± std over the seeds); click it to open "
               f"{label} on the {page_name} page with those values (first seed). The "
               "framed cell is the current setting.")
    table = lab_maps.map_table(m)
    st.subheader("Table")
    st.dataframe(table, hide_index=True)
    st.download_button("Map table (CSV)", table.to_csv(index=False),
                       file_name=f"nplk-map-{m.method}-{m.param1}-{m.param2}.csv",
                       mime="text/csv", key=f"dl_map_{page}", on_click="ignore")
