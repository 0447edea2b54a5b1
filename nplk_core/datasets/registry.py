"""The registry of the toy data sets: each name with its label, task, generator and the
slider ranges of its parameters.

``DATASETS`` maps each name to a :class:`DatasetSpec`; :func:`make_dataset` builds one by
name with its defaults; :func:`list_datasets` lists the names of a task in display order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .generators import (
    RandomState,
    Task,
    make_chessboard,
    make_chirp,
    make_circles,
    make_clowns,
    make_harmonic,
    make_moons,
    make_sandwich,
    make_spiral,
    make_step,
)


@dataclass(frozen=True)
class ParamSpec:
    """Range of one generator parameter, for a UI slider.

    ``default``, ``min``, ``max`` and ``step`` are ints for an integer parameter (then the
    slider should be an int slider). For ``log=True`` the slider should move ``log10`` of
    the value, and ``step`` is in decades.
    """

    default: float
    min: float
    max: float
    step: float
    log: bool = False
    help: str = ""
    #: the slider's name on screen (plain words; default: the parameter's own name)
    label: str = ""

    def __post_init__(self) -> None:
        if not self.min <= self.default <= self.max:
            raise ValueError(f"default {self.default} outside [{self.min}, {self.max}].")
        if self.step <= 0 or (self.log and self.min <= 0):
            raise ValueError("step must be > 0, and min > 0 for a log-scale parameter.")

    @property
    def integer(self) -> bool:
        """Whether the parameter takes integer values."""
        return isinstance(self.default, Integral)


@dataclass(frozen=True)
class DatasetSpec:
    """One entry of :data:`DATASETS`.

    Attributes
    ----------
    name : registry key.
    label : display name.
    task : "classification" or "regression".
    make : generator ``make(n_samples, *, random_state, **params) -> (X, y)``.
    params : slider parameters of ``make`` (keyword name -> :class:`ParamSpec`).
    description : one line for the UI.
    n_samples : default number of points.
    n_features : columns of ``X``.
    """

    name: str
    label: str
    task: Task
    make: Callable[..., tuple[NDArray[np.float64], NDArray]]
    params: Mapping[str, ParamSpec] = field(hash=False)
    description: str = ""
    n_samples: int = 200
    n_features: int = 2

    @property
    def defaults(self) -> dict[str, Any]:
        """The default value of every slider parameter."""
        return {k: p.default for k, p in self.params.items()}


_NOISE = "Standard deviation of the Gaussian noise added to every point."

DATASETS: dict[str, DatasetSpec] = {spec.name: spec for spec in [
    DatasetSpec(
        "clowns", "Clowns", "classification", make_clowns,
        {"spread": ParamSpec(1.0, 0.2, 2.0, 0.1,
                             help="s: standard deviation of the class +1 blob (demos 0.5-1.3).")},
        "A Gaussian blob (+1) above a noisy parabola (-1), columns standardised "
        "(Learning Data-adaptive Non-parametric Kernels, Fig. 1-2)."),
    DatasetSpec(
        "sandwich", "Sandwich", "classification", make_sandwich,
        {"noise": ParamSpec(0.1, 0.0, 0.5, 0.01, help=_NOISE)},
        "Gaussian blobs (+1) sandwiched between bands (-1) (Nonlinear Pairwise Layer and "
        "Its Training for Kernel Learning, Fig. 2)."),
    DatasetSpec(
        "moons", "Moons", "classification", make_moons,
        {"noise": ParamSpec(0.1, 0.0, 0.5, 0.01, help=_NOISE)},
        "Two interleaved half circles."),
    DatasetSpec(
        "circles", "Circles", "classification", make_circles,
        {"factor": ParamSpec(0.5, 0.1, 0.9, 0.05, help="Inner radius / outer radius."),
         "noise": ParamSpec(0.1, 0.0, 0.5, 0.01, help=_NOISE)},
        "A small circle (+1) inside a large one (-1)."),
    DatasetSpec(
        "chessboard", "Chessboard", "classification", make_chessboard,
        {"n_cells": ParamSpec(4, 2, 8, 1, help="Cells per side of the board.",
                              label="Cells per side"),
         "noise": ParamSpec(0.0, 0.0, 0.2, 0.01, help=_NOISE)},
        "Alternating square cells on [-1, 1]^2 (A Family of Simple Non-Parametric Kernel "
        "Learning Algorithms, Table 1)."),
    DatasetSpec(
        "spiral", "Spiral", "classification", make_spiral,
        {"n_turns": ParamSpec(1.5, 0.5, 3.0, 0.25, help="Turns of each spiral arm.",
                              label="Turns per arm"),
         "noise": ParamSpec(0.05, 0.0, 0.3, 0.01, help=_NOISE)},
        "Two interleaved spirals (A Family of Simple Non-Parametric Kernel Learning "
        "Algorithms, Table 1)."),
    DatasetSpec(
        "step", "Step function", "regression", make_step,
        {"s": ParamSpec(3.0, 0.5, 10.0, 0.5, help="Height of each step.",
                        label="Step height"),
         "w": ParamSpec(2.0, 0.5, 5.0, 0.25, help="Width of each step.", label="Step width"),
         "a": ParamSpec(0.05, 0.005, 5.0, 0.1, log=True,
                        help="Smoothness: sharp steps when small, a straight line when large.",
                        label="Step smoothness"),
         "noise": ParamSpec(0.0, 0.0, 1.0, 0.05, help=_NOISE)},
        "A smoothed staircase on [-5, 5] (Learning Data-adaptive Non-parametric "
        "Kernels, §6.3.1).", n_features=1),
    DatasetSpec(
        "harmonic", "2-D harmonic", "regression", make_harmonic,
        {"noise": ParamSpec(0.0, 0.0, 2.0, 0.05, help=_NOISE)},
        "The 2-D harmonic function on [0, 1]^2 (Learning Data-adaptive "
        "Non-parametric Kernels, §6.3.1).", n_samples=400),
    DatasetSpec(
        "chirp", "Chirp", "regression", make_chirp,
        {"f0": ParamSpec(1.0, 0.5, 5.0, 0.5, help="Frequency at x = 0 (cycles per unit).",
                         label="Frequency at the start"),
         "f1": ParamSpec(10.0, 2.0, 30.0, 1.0, help="Frequency at x = 1 (cycles per unit).",
                         label="Frequency at the end"),
         "noise": ParamSpec(0.0, 0.0, 0.5, 0.05, help=_NOISE)},
        "A sine whose frequency rises along the axis (Enhancing Kernel Flexibility "
        "via Learning Asymmetric Locally-Adaptive Kernels, Fig. 1).",
        n_samples=300, n_features=1),
]}

DEFAULT_DATASET: dict[str, str] = {"classification": "clowns", "regression": "step"}


def list_datasets(task: Task | None = None) -> list[str]:
    """Registry names, optionally only those of one task, in display order."""
    if task not in (None, "classification", "regression"):
        raise ValueError(f"task must be None, 'classification' or 'regression', got {task!r}.")
    return [k for k, spec in DATASETS.items() if task is None or spec.task == task]


def make_dataset(name: str, n_samples: int | None = None, *,
                 random_state: RandomState = None, **params: Any
                 ) -> tuple[NDArray[np.float64], NDArray]:
    """Generate the registry data set ``name``; unspecified parameters take their defaults.

    ``n_samples=None`` uses the data set's default size.
    """
    try:
        spec = DATASETS[name]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown data set {name!r}; choose one of {list(DATASETS)}.") \
            from None
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise ValueError(f"Data set {name!r} has no parameter(s) {unknown}; "
                         f"its parameters are {list(spec.params)}.")
    kwargs = {**spec.defaults, **params}
    n = spec.n_samples if n_samples is None else n_samples
    return spec.make(n, random_state=random_state, **kwargs)
