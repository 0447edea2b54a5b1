"""The 1-nearest-neighbour overlay: its boundary on the decision surface and its step
curve on 1-D regression (what DANK's and KNPL's test points follow; see
:mod:`nplk_lab.model.ablation`)."""

from __future__ import annotations

import numpy as np

from .common import f32

#: colour, dash and legend name of the 1-NN overlay (Okabe–Ito orange)
NN_COLOR = "#E69F00"
NN_DASH = "dashdot"
NN_NAME = "1-nearest neighbour"


def nn_step(x_train: np.ndarray, y_train: np.ndarray, lo: float, hi: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """The 1-nearest-neighbour regression function of 1-D data on ``[lo, hi]`` as an
    exact step polyline: constant at each training target over its cell, with the jumps
    (vertical segments) at the midpoints between neighbouring training points. Equal
    x values keep the first target (as :func:`nplk_core.dank.nearest_index`)."""
    x = np.ravel(np.asarray(x_train, dtype=float))
    y = np.ravel(np.asarray(y_train, dtype=float))
    if x.size == 0:
        return np.zeros(0), np.zeros(0)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    keep = np.concatenate([[True], np.diff(x) > 0])   # the first of equal x values
    x, y = x[keep], y[keep]
    mids = (x[:-1] + x[1:]) / 2
    left = np.concatenate([[-np.inf], mids])
    right = np.concatenate([mids, [np.inf]])
    keep = (right > lo) & (left < hi)            # the cells that meet [lo, hi]
    left, right, y = np.maximum(left[keep], lo), np.minimum(right[keep], hi), y[keep]
    return np.column_stack([left, right]).ravel(), np.repeat(y, 2)


def nn_curve_trace(x: np.ndarray, y: np.ndarray) -> dict:
    """The step curve as a line trace."""
    return dict(type="scatter", x=f32(x), y=f32(y), mode="lines", name=NN_NAME,
                hoverinfo="skip", line=dict(color=NN_COLOR, width=2, dash=NN_DASH))
