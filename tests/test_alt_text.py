"""A chart's text alternative (:func:`nplk_lab.figures.alt_text`): it says the figure's
title, the notes on the plot (the scores), each axis with its range, a heatmap's value
range and the legend, in plain words with the figure's own numbers."""

from __future__ import annotations

import json

import numpy as np

import nplk_lab.figures as fg


def _surface() -> object:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    xs = np.linspace(-2, 2, 20)
    ys = np.linspace(-1.5, 1.5, 15)
    Z = np.add.outer(ys * 0, xs)             # f(x) = x1 on the grid: -2 .. 2
    return fg.decision_surface(xs, ys, Z, X, y, train_score=0.9, test_score=0.85,
                               title="SVM <b>surface</b>")


def test_the_surface_says_its_title_scores_axes_and_colour_range():
    text = fg.alt_text(_surface())
    assert text.startswith("Chart: SVM surface."), text      # tags dropped
    assert "0.900" in text and "0.850" in text, text          # the corner note's scores
    assert "x axis: x1" in text and "y axis: x2" in text, text
    assert "−2 to 2" in text, text                             # f's range, minus sign
    assert "class −1 (train)" in text, text                    # the legend
    assert "<" not in text and "&" not in text


def test_figure_and_its_json_read_alike():
    fig = _surface()
    assert fg.alt_text(fig) == fg.alt_text(fg.figure_json(fig)) == fg.alt_text(
        json.loads(fg.figure_json(fig)))


def test_lines_give_their_ranges_and_the_text_is_capped():
    fig = fg.lines_figure(np.array([1.0, 10.0, 100.0]), {"a": np.array([3.0, 2.0, 0.5]),
                                                         "b": np.array([1.0, 1e-4, 7.0])},
                          x_title="n", y_title="time (s)", title="Fit time")
    text = fg.alt_text(fig)
    assert "x axis: n, 1 to 100" in text, text
    assert "y axis: time (s), 0.0001 to 7" in text, text
    assert "legend: a, b" in text, text
    short = fg.alt_text(fig, max_chars=30)
    assert len(short) <= 30 and short.endswith("…"), short


def test_a_heatmap_says_its_value_range():
    M = np.array([[1.0, 0.5], [0.5, 1.0]])
    text = fg.alt_text(fg.matrix_heatmap(M, name="K", center=None, title="Kernel K"))
    assert text.startswith("Chart: Kernel K."), text
    assert "0.5 to 1" in text, text
