r"""The toy data sets of the papers' figures, as generators.

Every generator reads ``make_X(n_samples, *, <shape/noise>, random_state) -> (X, y)``
with ``X`` a float64 array of shape ``(n, d)``; ``y`` holds int labels in
``{-1, +1}`` (classification, the two classes balanced to within one point, rows shuffled)
or floats (regression). An int ``random_state`` makes the output reproducible; ``None``
draws fresh entropy; a ``numpy.random.Generator`` is used as is.

=============  ==============  ==================================================
name           task            what it shows
=============  ==============  ==================================================
clowns         classification  DANK Fig. 1-2: a blob over a parabola
sandwich       classification  KNPL Fig. 2: Gaussian blobs between bands
moons          classification  two interleaved half circles
circles        classification  a disc inside a ring
chessboard     classification  SimpleNPKL Table 1: alternating square cells
spiral         classification  SimpleNPKL Table 1: two interleaved spirals
step           regression      DANK §6.3.1: smoothed staircase, 1-D
harmonic       regression      DANK §6.3.1: 2-D harmonic function
chirp          regression      LAB RBF Fig. 1: sine whose frequency rises, 1-D
=============  ==============  ==================================================

The regression targets are also plain functions of ``x`` (:func:`step_function`,
:func:`harmonic_function`, :func:`chirp_function`), for drawing the truth beside a fit.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base import nonnegative, positive

Task = Literal["classification", "regression"]
RandomState = int | np.random.Generator | None


# ---------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------

def _check_n_samples(n_samples: Any) -> int:
    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 2:
        raise ValueError(f"n_samples must be an integer >= 2, got {n_samples!r}.")
    return int(n_samples)


def _rng(random_state: RandomState) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, bool) or not isinstance(random_state, Integral) \
            or random_state < 0:
        raise ValueError("random_state must be None, an integer >= 0 or a "
                         f"numpy.random.Generator, got {random_state!r}.")
    return np.random.default_rng(int(random_state))


def _split(n: int) -> tuple[int, int]:
    """(n_pos, n_neg): the two classes balanced, class +1 taking the odd point."""
    return n - n // 2, n // 2


def _labelled(Xp: NDArray, Xn: NDArray, rng: np.random.Generator
              ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Stack class +1 over class -1 and shuffle the rows."""
    X = np.vstack([Xp, Xn]).astype(np.float64, copy=False)
    y = np.concatenate([np.ones(len(Xp), np.int64), -np.ones(len(Xn), np.int64)])
    order = rng.permutation(len(y))
    return np.ascontiguousarray(X[order]), y[order]


# ---------------------------------------------------------------------------
# classification generators
# ---------------------------------------------------------------------------

def make_clowns(n_samples: int = 200, *, spread: float = 1.0, standardize: bool = True,
                random_state: RandomState = None
                ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Clowns (SVM-KM toolbox recipe; *Learning Data-adaptive Non-parametric Kernels*, Fig. 1-2).

    Class +1: :math:`x = s\,\mathcal N(0, I_2) + (0, 6)`; class -1:
    :math:`x_1 \sim U(-3, 3)`, :math:`x_2 = x_1^2 + \mathcal N(0, 1)`; then each column is
    standardised to mean 0 and standard deviation 1.

    Parameters
    ----------
    n_samples : int >= 2
        Half (rounded up) are class +1.
    spread : float > 0
        The ``s`` of the recipe: standard deviation of the class +1 blob (toolbox demos 0.5-1.3).
    standardize : bool
        Standardise the columns (the recipe); ``False`` returns raw coordinates.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    """
    n = _check_n_samples(n_samples)
    positive("spread", spread)
    rng = _rng(random_state)
    n_pos, n_neg = _split(n)
    Xp = spread * rng.standard_normal((n_pos, 2)) + np.array([0.0, 6.0])
    x1 = rng.uniform(-3.0, 3.0, n_neg)
    Xn = np.column_stack([x1, x1 ** 2 + rng.standard_normal(n_neg)])
    X, y = _labelled(Xp, Xn, rng)
    if standardize:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y


def make_sandwich(n_samples: int = 200, *, noise: float = 0.1,
                  random_state: RandomState = None
                  ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Sandwich: Gaussian blobs of class +1 between bands of class -1.

    From *Nonlinear Pairwise Layer and Its Training for Kernel Learning*, Fig. 2.

    Class -1 lies on three horizontal bands :math:`x_2 \in \{-1, 0, 1\}` (thickness 0.05,
    :math:`x_1 \sim U(-1.5, 1.5)`); class +1 is an equal mixture of six Gaussians
    (standard deviation 0.12) centred at :math:`x_1 \in \{-1, 0, 1\}`,
    :math:`x_2 \in \{-\tfrac12, \tfrac12\}`, i.e. sandwiched between the bands. Every point
    then gets isotropic Gaussian noise of standard deviation ``noise``; with the default
    a few points cross into the other class, the "outliers" of the figure.

    Parameters
    ----------
    n_samples : int >= 2
    noise : float >= 0
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    """
    n = _check_n_samples(n_samples)
    nonnegative("noise", noise)
    rng = _rng(random_state)
    n_pos, n_neg = _split(n)
    band = rng.integers(0, 3, n_neg) - 1.0
    Xn = np.column_stack([rng.uniform(-1.5, 1.5, n_neg),
                          band + 0.05 * rng.standard_normal(n_neg)])
    comp = rng.integers(0, 6, n_pos)
    centres = np.column_stack([comp % 3 - 1.0, comp // 3 - 0.5])
    Xp = centres + 0.12 * rng.standard_normal((n_pos, 2))
    X, y = _labelled(Xp, Xn, rng)
    return X + noise * rng.standard_normal(X.shape), y


def make_moons(n_samples: int = 200, *, noise: float = 0.1, random_state: RandomState = None
               ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Two interleaved half circles.

    Class +1: :math:`(\cos t, \sin t)`; class -1: :math:`(1 - \cos t, \tfrac12 - \sin t)`,
    :math:`t \sim U(0, \pi)`; plus isotropic Gaussian noise of standard deviation ``noise``
    (the layout of scikit-learn's ``make_moons``, with random angles and labels in ±1).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    """
    n = _check_n_samples(n_samples)
    nonnegative("noise", noise)
    rng = _rng(random_state)
    n_pos, n_neg = _split(n)
    tp = rng.uniform(0.0, np.pi, n_pos)
    tn = rng.uniform(0.0, np.pi, n_neg)
    Xp = np.column_stack([np.cos(tp), np.sin(tp)])
    Xn = np.column_stack([1.0 - np.cos(tn), 0.5 - np.sin(tn)])
    X, y = _labelled(Xp, Xn, rng)
    return X + noise * rng.standard_normal(X.shape), y


def make_circles(n_samples: int = 200, *, factor: float = 0.5, noise: float = 0.1,
                 random_state: RandomState = None
                 ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""A small circle (class +1, radius ``factor``) inside a unit circle (class -1).

    Angles are uniform; isotropic Gaussian noise of standard deviation ``noise`` is added.

    Parameters
    ----------
    factor : float in (0, 1)
        Radius of the inner circle relative to the outer one.
    """
    n = _check_n_samples(n_samples)
    nonnegative("noise", noise)
    if isinstance(factor, bool) or not isinstance(factor, Real) or not 0 < factor < 1:
        raise ValueError(f"factor must be a number in (0, 1), got {factor!r}.")
    rng = _rng(random_state)
    n_pos, n_neg = _split(n)
    tp = rng.uniform(0.0, 2 * np.pi, n_pos)
    tn = rng.uniform(0.0, 2 * np.pi, n_neg)
    Xp = factor * np.column_stack([np.cos(tp), np.sin(tp)])
    Xn = np.column_stack([np.cos(tn), np.sin(tn)])
    X, y = _labelled(Xp, Xn, rng)
    return X + noise * rng.standard_normal(X.shape), y


def make_chessboard(n_samples: int = 200, *, n_cells: int = 4, noise: float = 0.0,
                    random_state: RandomState = None
                    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Chessboard: the square :math:`[-1, 1]^2` cut into ``n_cells`` x ``n_cells`` cells.

    Cell :math:`(i, j)` is class +1 when :math:`i + j` is even, else -1. Each class picks
    its cells uniformly, then a uniform point inside the cell (so the classes are balanced
    even for an odd board); isotropic Gaussian noise of standard deviation ``noise`` is
    added afterwards (points near an edge may then cross it).

    Parameters
    ----------
    n_cells : int >= 2
        Cells per side.
    noise : float >= 0
    """
    n = _check_n_samples(n_samples)
    if isinstance(n_cells, bool) or not isinstance(n_cells, Integral) or n_cells < 2:
        raise ValueError(f"n_cells must be an integer >= 2, got {n_cells!r}.")
    nonnegative("noise", noise)
    rng = _rng(random_state)
    n_cells = int(n_cells)
    i, j = np.divmod(np.arange(n_cells * n_cells), n_cells)
    cells = np.column_stack([i, j])
    white = cells[(i + j) % 2 == 0]
    black = cells[(i + j) % 2 == 1]

    def draw(pool: NDArray, m: int) -> NDArray:
        picked = pool[rng.integers(0, len(pool), m)]
        return (picked + rng.uniform(0.0, 1.0, (m, 2))) * (2.0 / n_cells) - 1.0

    n_pos, n_neg = _split(n)
    X, y = _labelled(draw(white, n_pos), draw(black, n_neg), rng)
    return X + noise * rng.standard_normal(X.shape), y


def make_spiral(n_samples: int = 200, *, n_turns: float = 1.5, noise: float = 0.05,
                random_state: RandomState = None
                ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Two interleaved spirals.

    With :math:`t = \sqrt{u}`, :math:`u \sim U(0.01, 1)` (so points spread evenly along the
    arms), class +1 sits at :math:`t(\cos\theta, \sin\theta)` and class -1 at
    :math:`-t(\cos\theta, \sin\theta)`, :math:`\theta = 2\pi\,n_{turns}\,t`; then isotropic
    Gaussian noise of standard deviation ``noise``. The arms are :math:`1/(2 n_{turns})`
    apart radially.

    Parameters
    ----------
    n_turns : float > 0
        Turns of each arm between radius 0.1 and 1.
    noise : float >= 0
    """
    n = _check_n_samples(n_samples)
    positive("n_turns", n_turns)
    nonnegative("noise", noise)
    rng = _rng(random_state)

    def arm(m: int, sign: float) -> NDArray:
        t = np.sqrt(rng.uniform(0.01, 1.0, m))
        theta = 2 * np.pi * n_turns * t
        return sign * t[:, None] * np.column_stack([np.cos(theta), np.sin(theta)])

    n_pos, n_neg = _split(n)
    X, y = _labelled(arm(n_pos, 1.0), arm(n_neg, -1.0), rng)
    return X + noise * rng.standard_normal(X.shape), y


# ---------------------------------------------------------------------------
# regression functions and generators
# ---------------------------------------------------------------------------

def step_function(x: ArrayLike, s: float = 3.0, w: float = 2.0, a: float = 0.05
                  ) -> NDArray[np.float64]:
    r"""Smoothed staircase of *Learning Data-adaptive Non-parametric Kernels*, §6.3.1.

    .. math::
        g(x) = s\Big(\lfloor x/w \rfloor
               + \frac{\tanh\big((x/w - \lfloor x/w \rfloor - \tfrac12)/a\big)}
                      {2\tanh\big(1/(2a)\big)} + \tfrac12\Big)

    Steps of height ``s`` every ``w``; continuous, ``g(k w) = s k``; sharp steps for small
    ``a`` and the line ``s x / w`` as ``a -> inf``.
    """
    if isinstance(s, bool) or not isinstance(s, Real) or not np.isfinite(s):
        raise ValueError(f"s must be a finite number, got {s!r}.")
    positive("w", w)
    positive("a", a)
    z = np.asarray(x, dtype=np.float64) / w
    k = np.floor(z)
    return s * (k + np.tanh((z - k - 0.5) / a) / (2.0 * np.tanh(0.5 / a)) + 0.5)


def harmonic_function(u: ArrayLike, v: ArrayLike) -> NDArray[np.float64]:
    r"""2-D harmonic function (Hwang et al. 1994; *Learning Data-adaptive Non-parametric Kernels*,
    §6.3.1).

    .. math::
        g(u, v) = 42.659\,\big(0.1 + \bar u\,(0.05 + \bar u^4 - 10\bar u^2\bar v^2
                  + 5\bar v^4)\big), \quad \bar u = u - \tfrac12,\ \bar v = v - \tfrac12

    Defined on :math:`[0, 1]^2`, where it ranges over about ``[0, 8.53]``.
    """
    ub = np.asarray(u, dtype=np.float64) - 0.5
    vb = np.asarray(v, dtype=np.float64) - 0.5
    return 42.659 * (0.1 + ub * (0.05 + ub ** 4 - 10.0 * ub ** 2 * vb ** 2 + 5.0 * vb ** 4))


def chirp_function(x: ArrayLike, f0: float = 1.0, f1: float = 10.0) -> NDArray[np.float64]:
    r"""Linear chirp on :math:`[0, 1]`: smooth on the left, fast on the right.

    From *Enhancing Kernel Flexibility via Learning Asymmetric Locally-Adaptive Kernels*,
    Fig. 1.

    .. math::
        g(x) = \sin\big(2\pi (f_0 x + \tfrac12 (f_1 - f_0) x^2)\big)

    The local frequency :math:`f_0 + (f_1 - f_0) x` (cycles per unit) rises from ``f0`` at
    ``x = 0`` to ``f1`` at ``x = 1``.
    """
    positive("f0", f0)
    positive("f1", f1)
    x = np.asarray(x, dtype=np.float64)
    return np.sin(2 * np.pi * (f0 * x + 0.5 * (f1 - f0) * x ** 2))


def _check_range(x_range: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise ValueError(f"x_range must be a pair (low, high), got {x_range!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"x_range must be finite with low < high, got {x_range!r}.")
    return lo, hi


def make_step(n_samples: int = 200, *, s: float = 3.0, w: float = 2.0, a: float = 0.05,
              noise: float = 0.0, x_range: tuple[float, float] = (-5.0, 5.0),
              random_state: RandomState = None
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Step function data: :math:`x \sim U(x_{range})`, :math:`y = g(x) + \varepsilon`.

    ``g`` is :func:`step_function` (the DANK paper uses s = 3, w = 2, a = 0.05
    on [-5, 5]);
    :math:`\varepsilon \sim \mathcal N(0, \text{noise}^2)`.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    y : ndarray of shape (n_samples,)
    """
    n = _check_n_samples(n_samples)
    nonnegative("noise", noise)
    lo, hi = _check_range(x_range)
    step_function(0.0, s, w, a)  # validates s, w, a before drawing
    rng = _rng(random_state)
    x = rng.uniform(lo, hi, n)
    y = step_function(x, s, w, a) + noise * rng.standard_normal(n)
    return x[:, None], y


def make_harmonic(n_samples: int = 400, *, noise: float = 0.0,
                  random_state: RandomState = None
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""2-D harmonic data: :math:`(u, v) \sim U[0, 1]^2`, :math:`y = g(u, v) + \varepsilon`.

    ``g`` is :func:`harmonic_function`; :math:`\varepsilon \sim \mathcal N(0, \text{noise}^2)`
    (the values of ``g`` have a standard deviation of about 0.93).

    Returns
    -------
    X : ndarray of shape (n_samples, 2), columns (u, v)
    y : ndarray of shape (n_samples,)
    """
    n = _check_n_samples(n_samples)
    nonnegative("noise", noise)
    rng = _rng(random_state)
    X = rng.uniform(0.0, 1.0, (n, 2))
    y = harmonic_function(X[:, 0], X[:, 1]) + noise * rng.standard_normal(n)
    return X, y


def make_chirp(n_samples: int = 300, *, f0: float = 1.0, f1: float = 10.0, noise: float = 0.0,
               random_state: RandomState = None
               ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Chirp data: :math:`x \sim U(0, 1)`, :math:`y = g(x) + \varepsilon`.

    ``g`` is :func:`chirp_function` (frequency rising from ``f0`` to ``f1``: one global
    bandwidth either misses the fast right end or overfits the slow left end, the LAB RBF
    paper's Fig. 1); :math:`\varepsilon \sim \mathcal N(0, \text{noise}^2)`.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    y : ndarray of shape (n_samples,)
    """
    n = _check_n_samples(n_samples)
    nonnegative("noise", noise)
    chirp_function(0.0, f0, f1)  # validates f0, f1
    rng = _rng(random_state)
    x = rng.uniform(0.0, 1.0, n)
    y = chirp_function(x, f0, f1) + noise * rng.standard_normal(n)
    return x[:, None], y
