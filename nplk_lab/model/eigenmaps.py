r"""Eigenfunction maps: eigenvectors of K, of the learned matrix and of the learned kernel
on the training points, extended to the plane.

For a symmetric kernel matrix :math:`M = U \operatorname{diag}(\lambda) U^\top` on the
training points :math:`x_1 \dots x_n` and a kernel :math:`m(x, x_i)` that agrees with
:math:`M` there, the Nyström extension of the j-th eigenvector is

.. math::

    \varphi_j(x) = \frac{1}{\lambda_j} \sum_i m(x, x_i)\, u_{ij},

so :math:`\varphi_j(x_k) = u_{kj}` at the training points (:math:`M u_j = \lambda_j u_j`).
Three kernels are extended:

* the given Gaussian kernel ``K``: :math:`m = k`;
* the learned kernel. DANK's and KNPL's ``F∘K`` (``G∘K``) with
  :math:`m(x, x_i) = \tilde F(x, x_i)\, k(x, x_i)`, where :math:`\tilde F(x, x_i) =
  F_{j^*(x), i}` borrows the row of the training point :math:`j^*(x)` that the
  out-of-sample rule picks (DANK: "nearest" or "reciprocal", the ``extension``
  setting; KNPL: nearest, eq. 23), or under the smooth rule (either method) the
  weighted average :math:`\sum_l p_l(x) F_{l i}` of every row
  (:mod:`nplk_core.extension`); ONK's ``G = K + uu^T/(2ρ)`` is a kernel, extended
  as :math:`k(x, x_i) + (G - K)_{j^*(x), i}` with the nearest rule;
* the learned multiplier ``F`` (``G``) alone, with the same rule:
  :math:`\varphi_j(x) = (F u_j)_{j^*(x)} / \lambda_j = u_{j^*(x), j}`, piecewise constant
  on the cells of the rule.

An eigenvalue :math:`\lambda_j \le 10^{-10} \lambda_1` (the rank convention of
:func:`nplk_core.spectral.numerical_rank`) is in the null space: its eigenvector is not
divided by it; the map is all zeros and flagged ``null`` (for a PSD kernel the numerator
:math:`\sum_i m(x, x_i) u_{ij}` vanishes there anyway, since
:math:`\|\sum_i u_{ij} \phi(x_i)\|^2 = u_j^\top M u_j = 0`).

Signs: an eigenvector is defined up to sign; each is flipped so that its entry of
largest magnitude is positive (the first such entry on a tie), so reruns and other
eigensolvers draw the same picture.

Everything here is numpy (no Streamlit). The eigenpairs are computed once per fit and
kept on the :class:`~nplk_lab.model.results.LabResult`; a map on a grid costs one kernel
block and one matrix product per kernel for the leading few eigenfunctions at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nplk_lab.figures.common import for_people

from .grids import rule_columns, valid_clicks

if TYPE_CHECKING:
    from .results import LabResult

#: relative size below which an eigenvalue counts as zero (as ``numerical_rank``)
NULL_RTOL = 1e-10
#: eigenfunctions drawn as small multiples (the leading ones)
DEFAULT_COUNT = 6
#: how each method's learned matrix makes its kernel: a multiplier of K entry by entry
#: (DANK's F, KNPL's G) or a kernel of its own (ONK's G = K + a rank-one term)
LEARNED_FORM = {"dank": "multiplier", "dank_svr": "multiplier", "knpl": "multiplier",
                "onk": "additive"}
#: methods whose out-of-sample rule is the ``extension`` setting (others: nearest;
#: KNPL also takes the smooth rule, see :func:`rule_of`)
RULE_SETTING = ("dank", "dank_svr")
RULES = ("nearest", "reciprocal", "smooth")
#: up to this size the eigenpairs come from one full decomposition (see spectral.eigh_above:
#: the subset drivers are several times slower on kernel spectra); above it, Lanczos
FULL_EIGH_N = 500


# ---------------------------------------------------------------------------
# eigenpairs on the training points
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Eigenpairs:
    """The leading eigenpairs of one symmetric matrix, eigenvalues descending.

    ``vectors`` has unit columns with the sign convention of :func:`fix_signs`;
    ``null[j]`` says that ``values[j]`` is numerically zero (:data:`NULL_RTOL` times
    the largest eigenvalue); ``top`` is the largest eigenvalue of the whole matrix."""

    name: str
    values: np.ndarray
    vectors: np.ndarray
    null: np.ndarray
    top: float

    @property
    def count(self) -> int:
        return int(self.values.size)

    def head(self, count: int) -> Eigenpairs:
        """The leading ``count`` pairs (all when fewer are held)."""
        c = min(int(count), self.count)
        return Eigenpairs(self.name, self.values[:c], self.vectors[:, :c], self.null[:c],
                          self.top)


def fix_signs(U: np.ndarray) -> np.ndarray:
    """``U`` with each column flipped so that its entry of largest magnitude is positive:
    the first entry within a relative 1e-6 of the largest magnitude, so two entries of
    (nearly) equal size, which rounding may order either way, give one answer. An
    all-zero column stays as it is."""
    U = np.asarray(U, dtype=float)
    if U.size == 0:
        return U.copy()
    A = np.abs(U)
    rows = np.argmax(A >= (1.0 - 1e-6) * A.max(axis=0), axis=0)
    s = np.sign(U[rows, np.arange(U.shape[1])])
    s[s == 0] = 1.0
    return U * s


def leading_eigenpairs(M: np.ndarray, count: int, *, name: str = "",
                       rtol: float = NULL_RTOL) -> Eigenpairs:
    """The ``count`` largest eigenpairs of the symmetric ``M`` (descending, signs fixed),
    with the null flags. ``count`` is clipped to ``1 … n``."""
    from nplk_core.spectral import eigh_full, top_eigh

    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(f"the matrix of {name or 'the eigenmaps'} must be square and "
                         f"non-empty, got shape {M.shape}.")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name or 'the matrix'} has non-finite entries; no eigenvectors.")
    n = M.shape[0]
    k = int(min(max(int(count), 1), n))
    M = 0.5 * (M + M.T)
    if n <= FULL_EIGH_N:  # divide and conquer on all of M beats LAPACK's subset route
        lam, U = eigh_full(M)
        lam, U = lam[::-1][:k], U[:, ::-1][:, :k]
    else:
        lam, U = top_eigh(M, k)
    top = max(float(lam[0]), 0.0)
    null = lam <= rtol * top if top > 0 else np.ones(k, dtype=bool)
    return Eigenpairs(name, np.asarray(lam, dtype=float), fix_signs(U), null, top)


# ---------------------------------------------------------------------------
# the Nyström extension
# ---------------------------------------------------------------------------

def _scale(products: np.ndarray, pairs: Eigenpairs) -> np.ndarray:
    """``products[:, j] / λ_j``; null columns are zeros (never divided by ~0)."""
    out = np.zeros_like(products, dtype=float)
    keep = ~pairs.null
    if keep.any():
        out[:, keep] = products[:, keep] / pairs.values[keep]
    return out


def nystrom(rows: np.ndarray, pairs: Eigenpairs) -> np.ndarray:
    """The Nyström extension ``φ_j(x) = Σ_i m(x, x_i) u_ij / λ_j`` of every pair in
    ``pairs`` at once: ``rows`` is ``m(x, x_i)`` for the new points (shape (m, n));
    returns (m, count)."""
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2 or rows.shape[1] != pairs.vectors.shape[0]:
        raise ValueError(f"kernel rows of shape {rows.shape} do not match "
                         f"{pairs.vectors.shape[0]} training points.")
    return _scale(rows @ pairs.vectors, pairs)


def _taken_rows(A: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The rows of ``A`` the new points take (``A[j*]``, or the smooth rule's weighted
    average of every row): :func:`nplk_core.extension.borrowed_rows` on ``Aᵀ``."""
    from nplk_core.extension import borrowed_rows

    return borrowed_rows(np.asarray(A, dtype=float).T, columns).T


def nystrom_borrowed(M: np.ndarray, columns: np.ndarray, pairs: Eigenpairs) -> np.ndarray:
    """The extension of ``M``'s own eigenvectors when a new point x borrows the row
    ``columns[x]`` of ``M`` (``M̃(x, x_i) = M[j*(x), i]``): ``(M U)[j*] / λ``, which is
    ``U[j*]`` wherever λ is not null; under the smooth rule (``columns`` the weights
    ``p(x)``) ``p(x)ᵀ M U / λ``."""
    return _scale(_taken_rows(np.asarray(M, dtype=float) @ pairs.vectors, columns), pairs)


def learned_rows(K_rows: np.ndarray, M: np.ndarray, columns: np.ndarray, form: str, *,
                 K: np.ndarray | None = None) -> np.ndarray:
    """The learned kernel between new points and the training points: ``M[j*] ∘ k`` for
    a multiplier (``form="multiplier"``), ``k + (M − K)[j*]`` for a kernel of its own
    (``"additive"``, needs the training ``K``); under the smooth rule (``columns`` its
    weights) the weighted average of the rows in place of ``M[j*]``."""
    columns = np.asarray(columns)
    gathered = _taken_rows(M, columns)
    if form == "multiplier":
        return gathered * K_rows
    if form == "additive":
        if K is None:
            raise ValueError("an additive learned kernel needs the training kernel K.")
        return K_rows + (gathered - _taken_rows(K, columns))
    raise ValueError(f"form must be 'multiplier' or 'additive', got {form!r}.")


# ---------------------------------------------------------------------------
# a fit's eigenpairs (kept on the result) and its maps
# ---------------------------------------------------------------------------

def learned_names(res: LabResult) -> tuple[str | None, str | None]:
    """(learned kernel, learned matrix alone) names for ``res``: ("F∘K", "F") for DANK,
    ("G∘K", "G") for KNPL, ("G", None) for ONK, (None, None) without a learned matrix
    on the training points (plain SVM/SVR, one-vs-rest models)."""
    form = LEARNED_FORM.get(res.method)
    M, K = res.matrix, res.kernel
    if form is None or M is None or K is None or np.shape(M) != np.shape(K):
        return None, None
    name = res.matrix_name or "F"
    return (f"{name} × K", name) if form == "multiplier" else (name, None)


def eigen_bases(res: LabResult, count: int) -> dict[str, Eigenpairs]:
    """The leading ``count`` eigenpairs of K, the learned kernel and the learned matrix
    (as :func:`learned_names`), keyed by name; computed once per fit (kept on ``res``,
    recomputed only when more pairs are asked for than are held)."""
    held: dict[str, Eigenpairs] = res._lazy.get("eigenpairs", {})
    want = max(int(count), 1)
    K = res.kernel
    if K is None:
        return {}
    n = K.shape[0]
    if held and all(p.count >= min(want, n) for p in held.values()):
        return {k: p.head(want) for k, p in held.items()}
    want = min(max(want, DEFAULT_COUNT), n)
    out = {"K": leading_eigenpairs(K, want, name="K")}
    kernel_name, matrix_name = learned_names(res)
    if kernel_name is not None:
        M = np.asarray(res.matrix, dtype=float)
        form = LEARNED_FORM[res.method]
        learned = M * K if form == "multiplier" else M
        out[kernel_name] = leading_eigenpairs(learned, want, name=kernel_name)
        if matrix_name is not None:
            out[matrix_name] = leading_eigenpairs(M, want, name=matrix_name)
    res._lazy["eigenpairs"] = out
    return {k: p.head(count) for k, p in out.items()}


@dataclass
class EigenMaps:
    """Eigenfunctions of a fit at a set of points, for the indices asked for.

    ``names`` lists the kernels in drawing order (learned kernel, learned matrix, K);
    ``maps[name]`` has shape (len(indices), number of points), ``values[name]`` and
    ``null[name]`` one entry per index (1-based ``indices``); ``rule`` is the
    out-of-sample rule used for the learned rows (None without them)."""

    indices: tuple[int, ...]
    names: tuple[str, ...]
    maps: dict[str, np.ndarray]
    values: dict[str, np.ndarray]
    null: dict[str, np.ndarray]
    rule: str | None = None
    notes: list[str] = field(default_factory=list)

    def at(self, name: str, j: int) -> tuple[np.ndarray, float, bool]:
        """(map, λ_j, null) of eigenfunction ``j`` (1-based) of ``name``."""
        i = self.indices.index(int(j))
        return self.maps[name][i], float(self.values[name][i]), bool(self.null[name][i])


def map_indices(selected: int, n: int, count: int = DEFAULT_COUNT) -> tuple[int, ...]:
    """The 1-based indices to evaluate: the leading ``count`` and ``selected``, within
    ``1 … n``."""
    lead = list(range(1, min(count, n) + 1))
    j = int(min(max(int(selected), 1), n))
    return tuple(sorted(set(lead) | {j}))


def index_from_clicks(clicks: Any, n: int, *, seen: float = 0.0
                      ) -> tuple[int | None, float]:
    """The eigen index picked by clicks on the eigen-decay plot, and the newest click id.

    ``clicks`` is what a live chart reports (a list of ``{"id", "x", "y"}`` in data
    coordinates; ids up to ``seen`` were applied already). The newest valid click wins;
    its x is rounded to the nearest index and clipped to ``1 … n``. Anything malformed
    picks nothing (the payload comes from the browser)."""
    if n < 1:
        return None, float(seen)
    xs, newest = valid_clicks(clicks, seen, axes=("x",))
    if not xs:
        return None, newest
    return int(min(max(np.floor(xs[-1][0] + 0.5), 1), n)), newest


def rule_of(res: LabResult, extension: str | None = None) -> str:
    """The out-of-sample rule for ``res``'s learned rows: ``extension`` (or the
    estimator's own) for DANK; for KNPL the smooth rule when asked, else nearest (its
    paper's); nearest for ONK."""
    if res.method in RULE_SETTING:
        rule = extension or getattr(res.estimator, "extension", None) or "nearest"
        if rule not in RULES:
            raise ValueError(f"the out-of-sample rule must be one of {RULES}, got {rule!r}.")
        return rule
    return "smooth" if res.method == "knpl" and extension == "smooth" else "nearest"


def eigenfunction_maps(res: LabResult, points: np.ndarray, indices: Sequence[int], *,
                       extension: str | None = None, sqdist: np.ndarray | None = None,
                       columns: np.ndarray | None = None) -> EigenMaps:
    """Eigenfunctions ``indices`` (1-based) of K, the learned kernel and the learned
    matrix of ``res`` at ``points`` (m × d, e.g. a grid's points).

    ``sqdist`` (m × n squared distances from the points to ``res.X_train``) and
    ``columns`` (each point's borrowed training row under the rule) may be passed when
    the caller keeps them; both depend only on the points and the training set.
    Raises ValueError when ``res`` has no kernel on its training points.

    Runs BLAS single-threaded (:func:`nplk_core._base.single_thread_blas`): its products
    are small, and threaded BLAS on a busy 2-core machine made them 5-7x slower
    (measured: 168 ms against 26 ms for a DANK view at load 12).
    """
    from nplk_core._base import single_thread_blas

    K = res.kernel  # outside the limiter: the kernel may need a fit-sized computation
    with single_thread_blas():
        return _maps(res, K, points, indices, extension, sqdist, columns)


def _maps(res: LabResult, K: np.ndarray | None, points: np.ndarray, indices: Sequence[int],
          extension: str | None, sqdist: np.ndarray | None, columns: np.ndarray | None
          ) -> EigenMaps:
    from nplk_core.kernels import sigma_to_gamma, squared_distances

    X = res.X_train
    if K is None or X is None:
        raise ValueError(f"{res.method} has no kernel matrix on its training points; "
                         "no eigenfunctions to draw.")
    n = K.shape[0]
    idx = tuple(sorted({int(min(max(int(j), 1), n)) for j in indices})) or (1,)
    bases = eigen_bases(res, max(idx))
    points = np.asarray(points, dtype=float)
    if sqdist is None:
        sqdist = squared_distances(points, X)
    sel = np.asarray(idx) - 1
    K_rows = np.exp(-sigma_to_gamma(float(res.params["sigma"])) * sqdist)
    maps, values, null = {}, {}, {}

    def put(name: str, full: np.ndarray, pairs: Eigenpairs) -> None:
        maps[name] = np.ascontiguousarray(full.T)
        values[name] = pairs.values
        null[name] = pairs.null

    kernel_name, matrix_name = learned_names(res)
    rule = None
    if kernel_name is not None:
        rule = rule_of(res, extension)
        if columns is None:
            columns = rule_columns(rule, points, X, sqdist, sigma=float(res.params["sigma"]),
                                   width=getattr(res.estimator, "extension_width", "sigma"))
        M = np.asarray(res.matrix, dtype=float)
        rows = learned_rows(K_rows, M, columns, LEARNED_FORM[res.method], K=K)
        p = _pick(bases[kernel_name], sel)
        put(kernel_name, nystrom(rows, p), p)
        if matrix_name is not None:
            p = _pick(bases[matrix_name], sel)
            put(matrix_name, nystrom_borrowed(M, columns, p), p)
    p = _pick(bases["K"], sel)
    put("K", nystrom(K_rows, p), p)
    names = tuple(nm for nm in (kernel_name, matrix_name, "K") if nm is not None)
    return EigenMaps(idx, names, maps, values, null, rule)


def _pick(pairs: Eigenpairs, sel: np.ndarray) -> Eigenpairs:
    return Eigenpairs(pairs.name, pairs.values[sel], pairs.vectors[:, sel], pairs.null[sel],
                      pairs.top)


def describe(maps: EigenMaps, j: int) -> str:
    """One line on eigenfunction ``j``: each kernel's λ_j, or that it is in the null
    space."""
    parts = []
    for name in maps.names:
        _, lam, is_null = maps.at(name, j)
        parts.append(f"{name}: eigenvalue λ{_sub(j)} ≈ 0 (null space, not extended)"
                     if is_null else f"{name}: eigenvalue λ{_sub(j)} = {for_people(lam, 3)}")
    return " · ".join(parts)


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _sub(j: Any) -> str:
    return str(j).translate(_SUBSCRIPTS)


__all__ = ["DEFAULT_COUNT", "EigenMaps", "Eigenpairs", "LEARNED_FORM", "NULL_RTOL",
           "describe", "eigen_bases", "eigenfunction_maps", "fix_signs", "index_from_clicks",
           "leading_eigenpairs", "learned_names", "learned_rows", "map_indices",
           "nystrom", "nystrom_borrowed", "rule_columns", "rule_of"]
