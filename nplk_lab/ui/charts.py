"""Chart assembly per view: a figure builder fed from a result, shown in the page."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.model.ablation import rule_key, rule_name
from nplk_lab.serve.figure_cache import figure_alt, figure_gz
from nplk_lab.ui.components.chart import drawn_widgets, live_chart

from . import influence
from .ablation import nn_values
from .downloads import _fmt
from .eigenmaps import eigen_panel
from .keys import CLICK_BOUNDS, CLICK_SEEN
from .running import (
    baseline_score,
    baseline_values,
    fit_key,
    grid_for,
    grid_values,
    solver_histories,
)
from .sharing import cached
from .state import params, show_messages
from .widgets import _SURFACE, _add_clicked_points, control

# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------


def chart(fig: Any, key: str, filename: str, **kw: Any) -> Any:
    """A figure with the lab's PNG export settings, updated in place on reruns
    (:func:`nplk_lab.ui.components.chart.live_chart`; ``kw``: its click reporting,
    ``on_click``, ``ack``, ``mark_color``). ``fig`` must not change afterwards: its
    JSON and its text alternative are kept with it (:mod:`nplk_lab.serve.figure_cache`)."""
    # the raw layout's height, not ``fig.layout.height``: plotly's validator there looks
    # for pandas, which a warming-up server may be importing in another thread
    height = (getattr(fig, "_layout", None) or {}).get("height") or fig.layout.height
    # the figure's JSON, gzipped, and its text alternative, made once per cached figure
    # (a repeat move encodes nothing)
    return live_chart(figure_gz(fig), key=key, config=fg.plot_config(filename),
                      height=height, alt=figure_alt(fig), **kw)


def metrics(res: lab.LabResult, container: Any = None, per_row: int = 5,
            data: lab.LabData | None = None, compact: bool = False) -> None:
    """Train/test score, fit time, rank and iterations as ``st.metric`` tiles,
    ``per_row`` to a row (2 in a side column next to a figure). With ``data``, and the
    plain SVM / SVR drawn beside the fit, its train/test scores on the same split stand
    next to the method's. Regression scores show the relative error and R².
    ``compact``: smaller values (a side column that also holds the score table)."""
    c = container or st
    if compact:
        c = c.container(key="nplk-metrics-compact")
    lower = res.metric == "relative error"
    name = "rel. error" if lower else "accuracy"
    fmt = "{:.3g}" if lower else "{:.3f}"

    def value(v: float) -> tuple[str, str | None]:
        """(the value, R² under it for regression)."""
        if lower and v is not None and np.isfinite(v):   # 2.9 × 10⁻⁵, not 2.88e-05
            return fg.for_people(v, 3), f"R² {1 - v:.3f}"
        return _fmt(v, fmt), None
    what = ("relative squared error Σ(ŷ − y)² / Σ(y − ȳ)² (lower is better) and "
            "R² = 1 − that error" if lower else "share of points classified correctly")
    label = lab.METHODS[res.method].label
    tiles = [(f"Train {name}", value(res.train_score), f"{label}: {what}, training points."),
             (f"Test {name}", value(res.test_score), f"{label}: {what}, held-out points.")]
    P = params()
    base = None
    if data is not None and lab.shows_baseline(res.method, P) and res.task == data.task:
        base = baseline_score(P, data, res.task)
    if base is not None:
        plain = "plain SVM" if res.task == lab.CLASSIFICATION else "plain SVR"
        same = (f"{base.name}, drawn dotted: fitted on the same training points and scored "
                f"on the same test points as {label}.")
        tiles += [(f"Train, {plain}", value(base.train), f"{what.capitalize()}. {same}"),
                  (f"Test, {plain}", value(base.test), f"{what.capitalize()}. {same}")]
    tiles.append(("Fit time", (f"{res.fit_time * 1000:.0f} ms" if res.fit_time < 1
                               else f"{res.fit_time:.2f} s", None),
                  "Wall-clock time of this fit."))
    if res.rank is not None:
        m = res.matrix_name or "F"
        tiles.append((f"rank({m})", (str(res.rank), None),
                       f"Numerical rank of the learned matrix {m}."))
    if res.n_iter is not None:
        conv = "" if res.converged in (None, True) else " (not converged)"
        tiles.append(("Iterations", (f"{res.n_iter}{conv}", None),
                      "Solver iterations; warm-started from the previous fit."
                      if res.warm_started else "Solver iterations of this fit."))
    rest: list = []
    if compact:   # the scores as tiles, two to a row; the rest on one line under them
        scores = 4 if base is not None else 2
        tiles, rest = tiles[:scores], tiles[scores:]
        per_row = 2
    if per_row >= 5:
        per_row = max(5, min(len(tiles), 6))
    # one row of columns, the tiles dealt into them in turn: the same grid as a row of
    # columns per row of tiles (train beside test), a third of the layout elements to
    # send on every rerun
    cols = list(c.columns(min(per_row, len(tiles))))
    for k, (lab_, (val, r2), hlp) in enumerate(tiles):
        col = cols[k % len(cols)]
        if r2 is None:
            col.metric(lab_, val, help=hlp)
        else:  # R² in grey under the relative error (no arrow: not a change)
            col.metric(lab_, val, delta=r2, delta_color="off", delta_arrow="off", help=hlp)
    if rest:
        c.caption(" · ".join(f"{lab_}: {val}" for lab_, (val, _), _ in rest))


def surface_chart(P: Mapping[str, Any], data: lab.LabData | None, res: lab.LabResult | None,
                  *, add_mode: bool, add_label: int, page: str = "classification") -> None:
    """The decision surface (or the bare data) with the baseline SVM boundary; in add
    mode a click on the plot adds a point of class ``add_label`` there. The chart is
    updated in place and its axes come from the data without the added points
    (:func:`grid_for`), with ``uirevision`` keeping a user's zoom while they stay."""
    ss = st.session_state
    if data is not None and data.n_features != 2:
        st.info(f"The decision surface needs 2 features; these data have {data.n_features}. "
                "The other views still work.")
        return
    grid = grid_for(data) if data is not None else lab.make_grid(np.zeros((0, 2)))
    Z = base = None
    ext = None if res is None else lab.drawn_rule(res.method, P.get("extension"))
    if res is not None:
        Z, msgs = grid_values(res, data, P, ext)
        show_messages(msgs)
        if P.get("show_baseline") and res.method != "svm":
            base = baseline_values(data, P["C"], P["sigma"])
    base_name = f"SVM boundary (σ={P['sigma']:g}, C={P['C']:g})"
    if base is not None:
        bs = baseline_score(P, data, lab.CLASSIFICATION)
        if bs is not None and np.isfinite(bs.test):
            base_name += f": test accuracy {bs.test:.3f}"
    nn = nn_values(data, grid) if P.get("show_nn") and data is not None and len(data.y_train) \
        else None
    title = lab.METHODS[res.method].label if res is not None else "Data"
    if ext:   # the rule's one name, as in the score table's row and the chooser
        title += f" — surface: {rule_name(ext)}"
        # the fit's own settings say which rule scored it (the estimator was built from
        # them): a first picture from the prepared snapshot never unpickles its model
        given = (res.params.get("extension", lab.setting("extension").default)
                 if "extension" in lab.method_params(res.method) else None)
        scored = rule_key(res.method, extension=given)
        if scored != ext:   # the table names the scores' rule: say both, not two names
            title += f"; test scores: {rule_name(scored)}"
    key = ("surface", None if res is None else fit_key(res.params, data, res.method), ext,
           None if data is None else data.key, base is not None, nn is not None,
           float(P["C"]), float(P["sigma"]))
    x0, x1, y0, y1 = (float(v) for v in (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1]))

    def build():
        fig = fg.decision_surface(
            grid.xs, grid.ys, Z, data.X_train if data else np.zeros((0, 2)),
            data.y_train if data else np.zeros(0), data.X_test if data else None,
            data.y_test if data else None,
            support=None if res is None else res.support_points, baseline=base,
            baseline_name=base_name,
            train_score=None if res is None else res.train_score,
            test_score=None if res is None else res.test_score, title=title, nn=nn)
        # the same canvas keeps a user's zoom and pan across refits and added points
        fig.update_layout(uirevision=f"{x0:.6g},{x1:.6g},{y0:.6g},{y1:.6g}")
        return fig
    fig = cached("figs", key, build)
    # a click near a training point selects it (its influence is drawn below); in add
    # mode the ring of the selection stays
    fig, kw = influence.surface_clicks(fig, _SURFACE, data, res, grid, page)
    # what this picture is drawn from: the widgets above it and the two inputs no
    # widget shows, the added points and the selected point (both in the URL)
    inputs = drawn_from(P, ("points", "focus_point"))
    if not add_mode:
        chart(fig, _SURFACE, f"nplk-{page}-surface", inputs=inputs, **kw)
        return
    # a click may land anywhere the user can see around the surface (zoomed out too)
    wx, wy = x1 - x0, y1 - y0
    ss[CLICK_BOUNDS] = ((x0 - wx, x1 + wx), (y0 - wy, y1 + wy))
    chart(fig, _SURFACE, f"nplk-{page}-surface", on_click=_add_clicked_points,
          ack=ss.get(CLICK_SEEN, 0.0), mark_color=fg.CLASS_COLORS[1 if add_label > 0 else -1],
          inputs=inputs)


def drawn_from(P: Mapping[str, Any], names: tuple[str, ...]) -> str:
    """What a figure drawn at this point of the run is built from, as the JSON its
    chart writes on the plot once drawn (``data-drawn-from``): ``widgets``, the values
    of the widgets drawn so far (:func:`~nplk_lab.ui.components.chart.drawn_widgets`),
    and ``state``, the settings ``names`` that the figure uses and no widget shows, in
    their URL form. A browser test compares both with the page (the widgets' values on
    screen, the URL the run wrote) to know the picture is final."""
    return json.dumps({"widgets": drawn_widgets(), "state": lab.encode_query(P, names)},
                      sort_keys=True, separators=(",", ":"))


def _view_settings(res: lab.LabResult) -> set[str]:
    return {s.name for s in lab.settings().values()
            if s.methods is not None and res.method in s.methods}


def matrix_figure(res: lab.LabResult, data: lab.LabData, full: bool = False):
    """K | F | F∘K | F∘K − K for DANK and KNPL, K | G | G − K for ONK, K alone for
    plain kernels. Drawn as block means beyond :data:`~nplk_lab.figures.VIEW_CELLS`
    cells unless ``full`` (every entry, up to the figures' own limits)."""
    key = ("matrix", fit_key(res.params, data, res.method), bool(full))
    cells = None if full else fg.VIEW_CELLS

    def build():
        if res.matrix is not None and res.kernel is not None and \
                res.matrix.shape == res.kernel.shape:
            return fg.matrix_triptych(res.kernel, res.matrix, res.labels(data.y_train),
                                      name=res.matrix_name, product=res.method != "onk",
                                      difference=True, cells=cells)
        if res.matrix is not None:
            return fg.matrix_heatmap(res.matrix, res.labels(data.y_train), name=res.matrix_name,
                                     cells=cells)
        if res.kernel is not None:
            # a Gaussian kernel lies in [0, 1]: one fixed scale, so K at σ = 10 looks
            # flat beside K at σ = 0.05 instead of rescaled to its own 0.86-1
            return fg.matrix_heatmap(res.kernel, res.labels(data.y_train), name="K", center=None,
                                     title="Gaussian kernel K (points ordered by class; "
                                           "colours 0 to 1)", zrange=(0.0, 1.0), cells=cells)
        return None
    return cached("figs", key, build)


def _pooled(fig: Any, n: int) -> bool:
    """Whether the matrix figure draws block means (fewer rows than the ``n`` points)."""
    heat = [t for t in getattr(fig, "_data", ()) if t.get("type") == "heatmap"]
    return bool(heat) and len(heat[0].get("y", ())) < n


def matrix_caption(res: lab.LabResult, pooled: bool = False) -> str:
    """What the matrix view's colours mean (a multiplier F or G, or ONK's kernel G);
    ``pooled``: the view draws block means."""
    name = res.matrix_name or "F"
    order = ("Training points ordered by class, black lines between the classes"
             if res.task == lab.CLASSIFICATION else
             "Training points ordered by their target value y")
    head = f"{order}; hover for i, j and the value. "
    if pooled:
        head = (f"{order}. Each cell is the mean over a block of neighbouring rows and "
                "columns (hover for which); turn on “Every entry” to draw each pair and "
                "click a row to select its point. ")
    if res.method == "onk":
        return head + (f"ONK's {name} = K + a rank-one term is itself a kernel: K and {name} "
                       f"share one colour scale. {name} − K is what was learned, diverging "
                       "around 0 (red = entries it strengthens, blue = entries it weakens; "
                       "the ends are ± its largest entry).")
    return head + (f"{name} × K is K multiplied by {name} entry by entry (each kernel entry "
                   f"times the learned number at the same place): the kernel the model "
                   f"uses. K and {name} × K share one colour scale. {name} is diverging "
                   f"around 1 "
                   f"(white = the plain kernel, red = entries it strengthens, blue = entries "
                   f"it weakens; the ends are 1 ± its largest deviation, so even a small "
                   f"change shows). {name} × K − K is where the kernel moved, around 0.")


def spectra_chart_figure(res: lab.LabResult, data: lab.LabData):
    key = ("spectra", fit_key(res.params, data, res.method))
    return cached("figs", key, lambda: fg.spectra_figure(
        res.spectra, rank=res.rank, rank_label=f"rank({res.matrix_name or 'F'})")
        if res.spectra else None)


def convergence_chart_figure(P: Mapping[str, Any], res: lab.LabResult, data: lab.LabData,
                             page: str):
    hist = solver_histories(P, data, res, page=page)
    extra = {k: v for k, v in _extra_histories(res).items()}
    key = ("conv", fit_key(res.params, data, res.method), tuple(hist), tuple(extra))
    if not any(h for h in hist.values()):
        return None

    def build():
        label = lab.METHODS[res.method].label
        figs = [fg.convergence_figure(hist, title=f"Convergence of {label}")]
        for name, h in extra.items():
            figs.append(fg.convergence_figure({name: h}, title=name))
        stages = getattr(res.estimator, "stages_", None)
        if isinstance(stages, dict) and len(stages.get("support_size", ())) > 1:
            figs.append(fg.lines_figure(
                np.asarray(stages["support_size"]),
                {"training loss (share of var y)": np.asarray(stages["loss"])},
                x_title="support points N", y_title="loss", log_y=True,
                title="LAB RBF: loss after each stage of adding support points"))
        return figs
    return cached("figs", key, build)


def _extra_histories(res: lab.LabResult) -> dict[str, dict]:
    """Secondary histories some solvers keep (KNPL's ADMM residuals)."""
    est = res.estimator
    out = {}
    for attr in ("admm_history_", "inner_history_"):
        h = getattr(est, attr, None)
        if isinstance(h, dict) and h:
            out["ADMM (inner solver)"] = {k: np.asarray(v, dtype=float) for k, v in h.items()
                                          if np.ndim(v) == 1}
    return out


def bandwidth_chart_figure(res: lab.LabResult, data: lab.LabData):
    est = res.estimator
    if getattr(est, "bandwidths_", None) is None:
        return None
    key = ("bandwidth", fit_key(res.params, data, res.method))
    return cached("figs", key, lambda: fg.bandwidth_figure(
        est.support_vectors_, est.bandwidths_, X=data.X_train, y=data.y_train,
        kernel=getattr(est, "kernel", "gaussian")))


# ---------------------------------------------------------------------------
# regression: the fit over the data
# ---------------------------------------------------------------------------

def regression_chart(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult,
                     page: str = "regression") -> None:
    """Curve (1-D), surface (2-D) or predicted-vs-true (more features) with the plain
    SVR and the noiseless function for comparison."""
    spec = lab.METHODS[res.method]
    ext = lab.drawn_rule(res.method, P.get("extension"))
    # the papers' rules are the fit's own; the smooth rule is named on the figure
    named = f" — {rule_name(ext)}" if ext == "smooth" else ""
    fkey = fit_key(res.params, data, res.method)
    d = data.n_features
    base_on = bool(P.get("show_baseline")) and res.method != "svr"
    nn_on = bool(P.get("show_nn")) and d == 1
    key = ("regfig", fkey, ext, base_on, nn_on, float(P["C"]), float(P["sigma"]),
           float(P["epsilon"]))

    def build():
        msgs: list[lab.Message] = []
        if d == 1:
            xl = lab.line_points(data.X)
            yl, m = lab.predict_values(res.estimator, xl, extension=ext)
            msgs += m
            if yl is None:
                return None, msgs
            others = {}
            truth = lab.true_function(P["reg_dataset"], P) if P["reg_dataset"] != "csv" \
                else None
            if truth is not None:
                others["noiseless function"] = truth(xl)
            if base_on:
                svr = _plain_svr(P, data)
                if svr is not None:
                    others[_svr_name(P, data)] = svr.predict(xl)
            sup = res.support_points
            sup_y = None
            if sup is not None and len(sup):
                sup_y, _ = lab.predict_values(res.estimator, sup, extension=ext)
            nn_curve = fg.nn_step(data.X_train[:, 0], data.y_train, float(xl[0, 0]),
                                  float(xl[-1, 0])) if nn_on else None
            fig = fg.regression_curve(
                data.X_train, data.y_train, xl[:, 0], yl, X_test=data.X_test,
                y_test=data.y_test, support=sup, support_y=sup_y, others=others,
                name=spec.label, train_score=res.train_score, test_score=res.test_score,
                title=f"{spec.label} fit{named}", nn_curve=nn_curve)
            return fig, msgs
        if d == 2:
            grid = grid_for(data)
            z, m = lab.predict_values(res.estimator, grid.points, extension=ext)
            msgs += m
            if z is None:
                return None, msgs
            zb = None
            if base_on:  # the plain SVR's level curves over the learned surface
                svr = _plain_svr(P, data)
                if svr is not None:
                    zb = svr.predict(grid.points).reshape(grid.shape)
            fig = fg.regression_surface(
                grid.xs, grid.ys, z.reshape(grid.shape), data.X_train, data.y_train,
                X_test=data.X_test, y_test=data.y_test, support=res.support_points,
                train_score=res.train_score, test_score=res.test_score,
                baseline=zb, baseline_name=_svr_name(P, data),
                title=f"{spec.label} fit{named}")
            return fig, msgs
        yp, m = lab.predict_values(res.estimator, data.X_test if len(data.y_test)
                                   else data.X_train, extension=ext)
        if yp is None:
            return None, m
        yt = data.y_test if len(data.y_test) else data.y_train
        return fg.parity_figure(yt, yp, title=f"{spec.label}{named}: predicted vs true (test)"), m

    fig, msgs = cached("figs", key, build)
    show_messages(msgs)
    if P.get("show_nn") and d != 1:
        st.caption("The 1-nearest-neighbour step curve is drawn for 1-D data; the score "
                   "table below the figure still compares with it.")
    if fig is not None:
        fig, kw = influence.regression_clicks(fig, "regression_fit", data, res, page)
        chart(fig, "regression_fit", f"nplk-{res.method}-fit", **kw)


def _plain_svr(P: Mapping[str, Any], data: lab.LabData) -> Any:
    """The plain SVR with the page's σ, C and ε: the one the score beside the figure was
    fitted with (cached), not a second fit (an ill-conditioned SVR takes 0.3-0.4 s)."""
    bs = baseline_score(P, data, lab.REGRESSION)
    return None if bs is None else bs.estimator


def _svr_name(P: Mapping[str, Any], data: lab.LabData) -> str:
    """The plain SVR's legend entry, with its test score on the page's split."""
    name = f"SVR (σ={P['sigma']:g}, C={P['C']:g})"
    bs = baseline_score(P, data, lab.REGRESSION)
    if bs is not None and np.isfinite(bs.test):
        name += f": test rel. error {bs.test:.3g}, R² {bs.test_r2:.3f}"
    return name


def view_panel(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, *,
               setting: str, page: str) -> None:
    """The selectable second figure: learned matrix, eigen-decay, convergence or
    bandwidths — only the views the method supports are offered."""
    spec = lab.METHODS[res.method]
    views = [v for v in lab.setting(setting).options if v in spec.views]
    if not views:
        st.info(f"{spec.label} has no learned matrix or history to show; the fit says it "
                "all.")
        return
    view = control(setting, options=views)
    if view == "matrix":
        fig = matrix_figure(res, data, full=bool(control("matrix_full")))
        if fig is not None:
            pooled = _pooled(fig, len(data.y_train))
            # a click on a row selects that point (its row and column framed)
            fig, kw = influence.matrix_clicks(fig, f"{page}_matrix", data, res, page)
            chart(fig, f"{page}_matrix", f"nplk-{res.method}-matrix", **kw)
            st.caption(matrix_caption(res, pooled))
    elif view == "spectra":
        fig = spectra_chart_figure(res, data)
        if fig is not None:  # clicking an eigenvalue draws its eigenfunctions
            eigen_panel(P, data, res, fig, page=page)
    elif view == "convergence":
        if "compare_solvers" in _view_settings(res):
            control("compare_solvers")
        figs = convergence_chart_figure(P, res, data, page)
        for i, fig in enumerate(figs or []):
            chart(fig, f"{page}_convergence_{i}", f"nplk-{res.method}-convergence")
        if not figs:
            st.info("This method keeps no per-iteration history.")
    elif view == "bandwidth":
        fig = bandwidth_chart_figure(res, data)
        if fig is not None:
            chart(fig, f"{page}_bandwidth", "nplk-lab-rbf-bandwidths")


# ---------------------------------------------------------------------------
# pairwise constraints: the clusters found on the plane, constraints on demand
# ---------------------------------------------------------------------------

def pairwise_chart(P: Mapping[str, Any], data: lab.LabData, res: Any) -> None:
    """SimpleNPKL's clusters as coloured regions of the plane (each place takes its
    nearest point's cluster) with the points, and, when asked, a sample of the
    constraint lines."""
    est = res.estimator
    lines = int(control("pair_lines"))
    key = ("pairfig", data.key, lab.array_key(np.asarray(est.labels_),
                                               np.asarray(est.must_link_),
                                               np.asarray(est.cannot_link_)),
           float(res.rand), lines)

    def build():
        regions = lab.cluster_regions(data.X, est.labels_) if data.n_features == 2 else None
        return fg.constraints_figure(
            data.X, est.labels_, est.must_link_, est.cannot_link_, y_true=data.y,
            max_lines=lines, regions=regions, title="Clusters of the learned kernel",
            score_text=f"Rand index {res.rand:.3f} (k-means {res.rand_kmeans:.3f})")
    chart(cached("figs", key, build), "constraints", "nplk-simplenpkl-constraints")


# ---------------------------------------------------------------------------
# home page picture
# ---------------------------------------------------------------------------

def home_figure():
    """DANK against the plain SVM at the ``dank_clowns`` preset (cached for the server)."""
    def build():
        from nplk_lab.model.presets import preset_params
        P = preset_params("dank_clowns")  # the preset exactly (its claim is tested)
        C, sigma = P["C"], P["sigma"]
        data, msgs = lab.prepare_data(P, lab.CLASSIFICATION)
        if data is None:
            return None
        grid = lab.make_grid(data.X)
        svm = lab.fit_baseline_svm(data.X_train, data.y_train, C=C, sigma=sigma)
        base = lab.grid_values(svm, grid)[0] if svm is not None else None
        svm_test = lab.score(svm, data.X_test, data.y_test, lab.CLASSIFICATION) \
            if svm is not None else float("nan")
        ok, _ = lab.available("dank")
        res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                             method="dank") if ok else None
        if res is not None and res.ok:
            from nplk_lab.model.ablation import nn_grid
            Z = lab.grid_values(res.estimator, grid, extension="nearest")[0]
            nn = nn_grid(lab.grid_geometry(grid, data.X_train).nearest, data.y_train)
            return fg.decision_surface(
                grid.xs, grid.ys, Z, data.X_train, data.y_train, data.X_test, data.y_test,
                support=res.support_points, baseline=base,
                nn=None if nn is None else nn.reshape(grid.shape),
                baseline_name=f"plain SVM boundary (σ = {sigma:g}, C = {C:g})" + (
                    f": test accuracy {svm_test:.3f}" if svm is not None else ""),
                train_score=res.train_score, test_score=res.test_score,
                title=f"DANK on the clowns (σ = {sigma:g}, C = {C:g})", height=620)
        return fg.decision_surface(grid.xs, grid.ys, base, data.X_train, data.y_train,
                                   data.X_test, data.y_test, title="Plain SVM on the clowns",
                                   height=620)
    return cached("figs", ("home",), build)
