"""A lesson step's figure, a pure function of the step (the Lessons page, a lesson file
and a class's light student page draw the same): the fitted view once the answer is
revealed; before, the data alone, or nothing when the figure is the answer. The fits are
:mod:`.lessons`' (the same functions the pages use); the figures :mod:`nplk_lab.figures`'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import nplk_lab.figures as fg
from nplk_lab import model as lab

from . import lessons as L

HEIGHT = 600


def step_figure(step: L.Step, revealed: bool, height: int = HEIGHT, *,
                matrix_grid: bool = True, projector: bool = False) -> Any:
    """The step's figure: the fitted view once ``revealed``; before, the data alone
    (surface, curve, clusters) or None (a matrix or bandwidths view is the answer).
    ``matrix_grid``: a matrix view's panels in two columns. A lesson's figure has
    half the page's width at most (and a phone's in a class): a row of four heatmaps
    there was about 80 px each, with colour-bar titles running into each other. In
    presentation mode the browser sizes the text and the legend for the projector
    (``components/projector.js``); ``projector``: the grid's colour bars get a
    projector's share of the width, not a narrow page's."""
    p = step.params
    method = step.method
    if not revealed and step.figure in ("matrix", "bandwidth"):
        return None
    if step.page == "pairwise":
        data, res = L.lesson_pairwise(p) if revealed else (L.lesson_data(p, lab.CLASSIFICATION),
                                                          None)
        none = np.zeros((0, 2), dtype=int)
        if res is None:
            return fg.constraints_figure(data.X, np.zeros(len(data.y), dtype=int), none, none,
                                         y_true=data.y, title="The data (true classes)",
                                         height=height)
        est = res.estimator
        if step.figure == "kmeans":
            return fg.constraints_figure(data.X, res.kmeans_labels, none, none, y_true=data.y,
                                         title="Plain k-means, two clusters",
                                         score_text=f"Rand index {res.rand_kmeans:.3f}",
                                         height=height, clusters="clusters (k-means)")
        return fg.constraints_figure(
            data.X, est.labels_, est.must_link_, est.cannot_link_, y_true=data.y,
            title="Clusters of the learned kernel (SimpleNPKL)",
            score_text=f"Rand index {res.rand:.3f} (k-means {res.rand_kmeans:.3f})",
            height=height)
    label = lab.METHODS[method].label
    if step.page == "regression":
        data = L.lesson_data(p, lab.REGRESSION)
        xl = lab.line_points(data.X)
        truth = lab.true_function(p["reg_dataset"], p)
        others = {"noiseless function": truth(xl)} if truth is not None else {}
        if not revealed:
            return fg.regression_curve(data.X_train, data.y_train, xl[:, 0],
                                       np.full(len(xl), np.nan), X_test=data.X_test,
                                       y_test=data.y_test, others=others, name=label,
                                       title="The data", height=height)
        _, res = L.lesson_fit(p, method, lab.REGRESSION)
        if step.figure == "bandwidth":
            est = res.estimator
            return fg.bandwidth_figure(est.support_vectors_, est.bandwidths_, X=data.X_train,
                                       y=data.y_train, height=height)
        yl, _ = lab.predict_values(res.estimator, xl)
        if p.get("show_baseline") and method != "svr":
            svr = lab.fit_baseline_svr(data.X_train, data.y_train, C=p["C"], sigma=p["sigma"],
                                       epsilon=p["epsilon"])
            if svr is not None:
                others[f"SVR (σ={p['sigma']:g}, C={p['C']:g})"] = svr.predict(xl)
        sup = res.support_points
        sup_y = None if sup is None or not len(sup) else lab.predict_values(res.estimator,
                                                                           sup)[0]
        return fg.regression_curve(
            data.X_train, data.y_train, xl[:, 0], yl, X_test=data.X_test, y_test=data.y_test,
            support=sup, support_y=sup_y, others=others, name=label,
            train_score=res.train_score, test_score=res.test_score, title=f"{label} fit",
            height=height)
    data = L.lesson_data(p, lab.CLASSIFICATION)
    grid = lab.make_grid(data.X)
    if not revealed:
        return fg.decision_surface(grid.xs, grid.ys, None, data.X_train, data.y_train,
                                   data.X_test, data.y_test, title="The data", height=height)
    _, res = L.lesson_fit(p, method)
    if step.figure == "matrix":
        if res.matrix is not None and res.kernel is not None and \
                res.matrix.shape == res.kernel.shape:
            return fg.matrix_triptych(res.kernel, res.matrix, data.y_train,
                                      name=L.matrix_name(method, res.matrix_name),
                                      product=method != "onk",
                                      difference=True, height=height, grid=matrix_grid,
                                      bar_room=0.11 if projector else 0.17)
        # one colour scale, 0 to 1, for a Gaussian kernel at any σ: the steps that
        # compare K at two σ show it on the same scale
        return fg.matrix_heatmap(res.kernel, data.y_train, name="K", center=None,
                                 title=f"Gaussian kernel K, σ = {p['sigma']:g} "
                                       "(points ordered by class)", height=height,
                                 zrange=(0.0, 1.0))
    rule = lab.drawn_rule(method, p.get("extension"))
    Z, _ = lab.grid_values(res.estimator, grid, extension=rule)
    train, test = res.train_score, res.test_score
    if rule == "smooth":    # the corner's scores are those of the rule drawn
        train, test = (float(np.mean(res.estimator.predict(X, extension="smooth") == y))
                       for X, y in ((data.X_train, data.y_train), (data.X_test, data.y_test)))
        label += " with the smooth rule"
    base = None
    if p.get("show_baseline") and method != "svm":
        svm = lab.fit_baseline_svm(data.X_train, data.y_train, C=p["C"], sigma=p["sigma"])
        base = lab.grid_values(svm, grid)[0] if svm is not None else None
    return fg.decision_surface(
        grid.xs, grid.ys, Z, data.X_train, data.y_train, data.X_test, data.y_test,
        support=res.support_points, baseline=base,
        baseline_name="plain SVM's boundary",
        train_score=train, test_score=test,
        title=f"{label} (σ = {p['sigma']:g}, C = {p['C']:g})", height=height)
