"""Kernel functions shared by every solver.

The Gaussian kernel of the papers is ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``;
scikit-learn writes it as ``exp(-gamma ||x - x'||^2)`` with ``gamma = 1 / (2 sigma^2)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def sigma_to_gamma(sigma: float) -> float:
    """Return scikit-learn's ``gamma = 1 / (2 sigma^2)`` for the paper's width ``sigma``."""
    return 1.0 / (2.0 * float(sigma) ** 2)


def squared_distances(X: ArrayLike, Z: ArrayLike | None = None) -> NDArray[np.float64]:
    """Pairwise squared Euclidean distances ``||x_i - z_j||^2``, clipped at 0.

    Uses the expansion ``|x|^2 + |z|^2 - 2 x.z`` (one BLAS call); exact zeros on the
    diagonal when ``Z is None``.
    """
    X = np.asarray(X, dtype=float)
    same = Z is None
    Z = X if same else np.asarray(Z, dtype=float)
    xx = np.einsum("ij,ij->i", X, X)
    zz = xx if same else np.einsum("ij,ij->i", Z, Z)
    D = xx[:, None] + zz[None, :] - 2.0 * (X @ Z.T)
    np.maximum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
        # symmetrise away rounding so that eigensolvers see an exactly symmetric matrix
        D = 0.5 * (D + D.T)
    return D


def gaussian_kernel(X: ArrayLike, Z: ArrayLike | None = None, *, sigma: float = 1.0
                    ) -> NDArray[np.float64]:
    """Gaussian kernel matrix ``K_ij = exp(-||x_i - z_j||^2 / (2 sigma^2))``.

    Parameters
    ----------
    X : array of shape (n, d)
    Z : array of shape (m, d), optional
        Defaults to ``X`` (then ``K`` is exactly symmetric with unit diagonal).
    sigma : float > 0
        Kernel width.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}.")
    D = squared_distances(X, Z)
    D *= -sigma_to_gamma(sigma)
    return np.exp(D, out=D)


def laplace_kernel(X: ArrayLike, Z: ArrayLike | None = None, *, sigma: float = 1.0
                   ) -> NDArray[np.float64]:
    """Laplace kernel ``exp(-||x - z|| / sigma)`` (non-squared Euclidean norm)."""
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}.")
    D = np.sqrt(squared_distances(X, Z))
    D *= -1.0 / sigma
    return np.exp(D, out=D)
