r"""One work budget for every fit, sweep and grid the lab can be asked for.

Before anything is fitted the lab estimates what it will cost, from the sample size,
the method and its parameters, and compares that with one :class:`Budget`:

* **interactive** (``seconds``, default 0.5 s): a fit expected within it runs on every
  slider move;
* **patient** (``patient_seconds``, default 20 s): a longer fit still runs, but the page
  says how long it will take and shows its progress;
* **memory** (``memory``, default 500 MB) and anything expected above ``patient_seconds``
  are never started: the verdict says what the user can do instead (a smaller sample,
  the scalable route) and the largest sample that fits.

The cost models are deliberately simple and conservative: peak memory counts the
``n × n`` double arrays each solver holds at once (measured with :mod:`tracemalloc`,
``benchmarks/bench_budget.py`` prints the measured peaks beside the model), time is
``t₂₀₀ · (n / 200)^p`` from fits on this 2-core machine at the page defaults. The
estimates gate the dense path; they do not promise a time.

Every size a user can set through a URL or a configuration (sample size, sweep points
× repeats, iteration caps, grid resolution) is capped through :func:`sweep_verdict`,
:func:`grid_resolution` and :data:`LIMITS`, so nothing a link says can ask the server
for hours of work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MB = 1 << 20


@dataclass(frozen=True)
class Budget:
    """The lab's limits: seconds for a live fit, seconds for a fit at all, bytes."""

    seconds: float = 0.5
    patient_seconds: float = 20.0
    memory: int = 500 * MB


DEFAULT = Budget()

#: Hard caps on what a URL or a configuration can set, whatever the budget says.
LIMITS: dict[str, int] = {
    "csv_rows": 20_000,        # rows read from an upload (more are refused at read time)
    "sweep_fits": 150,         # sweep points × repeats (the sliders allow 15 × 10)
    "map_fits": 1125,          # map cells × repeats (15 × 15 cells on 5 seeds)
    "max_iter": 5_000,
    "grid_resolution": 100,
    "grid_cells": 100 * 100,
}


@dataclass(frozen=True)
class _Model:
    """Cost model of one method at ``n`` training points in ``d`` dimensions.

    ``t200`` seconds at n = 200 (page defaults), growing like ``(n/200)**power``;
    ``squares`` ``n × n`` float64 arrays alive at the peak; ``per_point`` further
    doubles per point (e.g. ``d`` or the support count)."""

    t200: float
    power: float
    squares: float
    per_point: float = 0.0
    scalable: str = ""  # what to say about a route that scales, when there is one


_MODELS: dict[str, _Model] = {
    # DANK (apg) 43-55 ms at n = 200 and 0.55 s at 1000 (README table); ~9 n² doubles
    # measured at n = 600 (K, F, F∘K, the SVT's work arrays, the SVM start). "auto" runs
    # Newton's method up to nplk_core.dank.AUTO_SVM_NEWTON_MAX_N (160) points, where its
    # CPU p90 over random slider points is 0.06-0.17 s: within the live budget as this
    # model says, so it needs no route of its own (DANK-SVR's routes below).
    "dank": _Model(0.06, 2.0, 12, scalable="DANK's k-means decomposition (Scaling page) "
                                           "fits large samples in parts"),
    # DANK-SVR's time: by the solver that runs (_DANK_SVR_ROUTES); its memory: here
    "dank_svr": _Model(0.25, 2.0, 12),
    "knpl": _Model(0.04, 2.0, 8),
    "onk": _Model(0.03, 2.0, 6),
    "lab_rbf": _Model(0.10, 1.0, 0.5, per_point=60),
    "lab_rbf_reg": _Model(0.10, 1.0, 0.5, per_point=60),
    "svm": _Model(0.003, 2.0, 1),
    "svr": _Model(0.003, 2.0, 1),
    "svm_cv": _Model(2.0, 2.0, 2),
    "svr_cv": _Model(2.0, 2.0, 2),
    "mkl_uniform": _Model(0.2, 2.0, 5),
    "krr": _Model(0.005, 3.0, 2),
    "simple_npkl": _Model(0.03, 1.5, 4, scalable="SimpleNPKL's sparse Lanczos path"),
}


@dataclass(frozen=True)
class Cost:
    seconds: float
    bytes: int


@dataclass(frozen=True)
class Verdict:
    """Whether a fit may start: ``level`` is ``"live"``, ``"patient"`` or ``"refused"``;
    ``n_max`` the largest sample that stays live (and ``n_fit`` the largest that may run
    at all); ``message`` says what happens and what to do, in plain text."""

    level: str
    cost: Cost
    n_max: int
    n_fit: int
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.level != "refused"


#: DANK's first-order solvers other than the accelerated one: (iterations they
#: typically need at n = 200, or None when they usually run to the cap) and seconds per
#: iteration at n = 200 (README benchmark: Algorithm 1 1,084 iterations in 1.1 s;
#: projected gradient 2,000 in 2.1 s).
_DANK_SLOW_SOLVERS = {"nesterov": 1100, "nesterov-monotone": 700, "pg": None}
_DANK_SECONDS_PER_ITERATION = 1.0e-3


def _dank_seconds(method: str, n: int, params: Mapping[str, Any]) -> float | None:
    """Time of DANK's slow solvers: iterations × the cost of one, which grows like n²."""
    solver = params.get("solver", "auto")
    if method not in ("dank", "dank_svr") or solver not in _DANK_SLOW_SOLVERS:
        return None
    cap = float(params.get("max_iter", 2000) or 2000)
    typical = _DANK_SLOW_SOLVERS[solver]
    iterations = cap if typical is None else min(cap, float(typical))
    scale = 2.0 if method == "dank_svr" else 1.0  # the stacked (α̂, α̌) variable
    return iterations * _DANK_SECONDS_PER_ITERATION * scale * (n / 200.0) ** 2


#: DANK-SVR's time by the solver that runs: ``solver="auto"`` is Newton's method up to
#: ``nplk_core.dank.AUTO_SVR_NEWTON_MAX_N`` training points and the accelerated solver
#: above. ``t200 · (n / 200)^power`` fitted to the CPU p90 of 20 random slider points per
#: size (every slider of the method drawn at once, max_iter 2000) by
#: ``python benchmarks/bench_sliders.py --methods dank_svr --n 100 200 300 400 500 600
#: 1000 --points 20 --seed 3 --fit-cost`` (docs/slider-latency-on-every-page.md): Newton
#: 0.135 / 0.379 s at 140 / 280 points, t200 0.23 s, power 1.53. The accelerated
#: solver's p90 over 20 points is not monotone in n (its iterations vary by point by
#: 10-20x), so its power is that of one iteration (n x n products), 2, and its t200 the
#: fit with that power, 0.25 s (the former model of every size, measured again).
_DANK_SVR_ROUTES = {"newton": _Model(0.23, 1.53, 12), "apg": _Model(0.25, 2.0, 12)}


def _dank_svr_route(n: int, params: Mapping[str, Any]) -> str | None:
    """The DANK-SVR solver a fit on ``n`` training points runs ("newton", "apg"), or None
    for the slow first-order solvers (:func:`_dank_seconds`)."""
    solver = params.get("solver", "auto")
    if solver == "auto":
        from nplk_core.dank import AUTO_SVR_NEWTON_MAX_N  # lazy: it imports scikit-learn
        return "newton" if n <= AUTO_SVR_NEWTON_MAX_N else "apg"
    return solver if solver in _DANK_SVR_ROUTES else None


def _iteration_factor(method: str, params: Mapping[str, Any]) -> float:
    """Iteration caps above the defaults scale the time of the iterative solvers."""
    if method in ("dank", "dank_svr"):
        cap = float(params.get("max_iter", 2000) or 2000)
        return max(1.0, cap / 2000.0)
    return 1.0


def fit_cost(method: str, n: int, d: int = 2, params: Mapping[str, Any] | None = None
             ) -> Cost:
    """Expected time and peak memory of fitting ``method`` on ``n`` points."""
    m = _MODELS.get(method, _Model(0.1, 2.0, 4))
    params = params or {}
    n = max(int(n), 1)
    per_point = m.per_point
    if method in ("lab_rbf", "lab_rbf_reg"):
        per_point = max(per_point, 2.0 * d * float(params.get("n_support", 30)))
    seconds = _dank_seconds(method, n, params)
    how = _dank_svr_route(n, params) if method == "dank_svr" else None
    if how is not None:
        r = _DANK_SVR_ROUTES[how]
        # Newton's method converges in 4-20 steps: the iteration cap does not bound it
        seconds = r.t200 * (n / 200.0) ** r.power * (
            _iteration_factor(method, params) if how == "apg" else 1.0)
    elif seconds is None:
        seconds = m.t200 * (n / 200.0) ** m.power * _iteration_factor(method, params)
    if method in ("lab_rbf", "lab_rbf_reg"):
        seconds *= max(float(params.get("n_support", 30)) / 30.0, 0.2) * max(d / 2.0, 1.0)
    nbytes = int(8 * (m.squares * n * n + per_point * n + 4 * n * max(d, 1)))
    return Cost(seconds, nbytes)


def _largest_n(method: str, d: int, params: Mapping[str, Any], seconds: float,
               memory: int) -> int:
    """Largest n whose cost stays within ``seconds`` and ``memory`` (bisection; the
    models are increasing in n)."""
    lo, hi = 1, 10_000_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        c = fit_cost(method, mid, d, params)
        if c.seconds <= seconds and c.bytes <= memory:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _fmt_bytes(b: int) -> str:
    return f"{b / (1 << 30):.1f} GB" if b >= 1 << 30 else f"{b / MB:.0f} MB"


def _fmt_seconds(s: float) -> str:
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def scalable_route(method: str) -> str:
    """What the lab offers for ``method`` beyond the budget ("" when nothing)."""
    text = _MODELS.get(method, _Model(0, 0, 0)).scalable
    return text[:1].upper() + text[1:]


def fit_verdict(method: str, n: int, d: int = 2, params: Mapping[str, Any] | None = None,
                budget: Budget | None = None, *, label: str | None = None) -> Verdict:
    """May ``method`` be fitted on ``n`` points within ``budget`` (default
    :data:`DEFAULT`)?"""
    params = params or {}
    budget = budget or DEFAULT
    cost = fit_cost(method, n, d, params)
    n_max = _largest_n(method, d, params, budget.seconds, budget.memory)
    n_fit = _largest_n(method, d, params, budget.patient_seconds, budget.memory)
    name = label or method
    if cost.bytes <= budget.memory and cost.seconds <= budget.seconds:
        return Verdict("live", cost, n_max, n_fit)
    if cost.bytes <= budget.memory and cost.seconds <= budget.patient_seconds:
        return Verdict("patient", cost, n_max, n_fit,
                       f"{name} on {n:,} points takes about {_fmt_seconds(cost.seconds)}; "
                       f"it stays live (under {_fmt_seconds(budget.seconds)}) up to about "
                       f"{n_max:,} points.")
    why = (f"about {_fmt_bytes(cost.bytes)} of memory" if cost.bytes > budget.memory
           else f"about {_fmt_seconds(cost.seconds)}")
    extra = scalable_route(method)
    text = (f"{name} on {n:,} training points would need {why}, above the lab's budget "
            f"({_fmt_bytes(budget.memory)}, {_fmt_seconds(budget.patient_seconds)} per "
            f"fit), so it was not started. Use at most {n_fit:,} points (lower the sample "
            f"size, or upload fewer rows).")
    text += f" {extra}." if extra else ""
    return Verdict("refused", cost, n_max, n_fit, text)


def sweep_verdict(method: str, n: int, fits: int, d: int = 2,
                  params: Mapping[str, Any] | None = None, budget: Budget | None = None,
                  *, label: str | None = None, max_seconds: float = 60.0) -> Verdict:
    """May a sweep of ``fits`` fits run? Each fit above the budget runs on a subsample of
    the live size (as :func:`fit_verdict` says); the sweep is refused above
    :data:`LIMITS` ``["sweep_fits"]`` fits or ``max_seconds`` of expected work in all."""
    budget = budget or DEFAULT
    one = fit_verdict(method, n, d, params, budget, label=label)
    n_eff = n if one.ok else one.n_max
    each = fit_cost(method, n_eff, d, params)
    total = Cost(each.seconds * fits, each.bytes)
    name = label or method
    if fits > LIMITS["sweep_fits"]:
        return Verdict("refused", total, one.n_max, one.n_fit,
                       f"A sweep of {fits} fits is above the lab's limit of "
                       f"{LIMITS['sweep_fits']}: use fewer points or repeats.")
    if total.seconds > max_seconds:
        return Verdict("refused", total, one.n_max, one.n_fit,
                       f"This sweep ({fits} fits of {name} on {n_eff:,} points) would take "
                       f"about {_fmt_seconds(total.seconds)}, above the lab's "
                       f"{_fmt_seconds(max_seconds)} for a sweep: use fewer points, "
                       f"repeats or samples, or a faster solver.")
    level = "live" if total.seconds <= budget.seconds else "patient"
    msg = "" if level == "live" else (f"This sweep runs {fits} fits, about "
                                      f"{_fmt_seconds(total.seconds)} in all.")
    return Verdict(level, total, one.n_max, one.n_fit, msg)


def study_verdict(n: int, max_v: int, d: int = 2, params: Mapping[str, Any] | None = None,
                  budget: Budget | None = None) -> Verdict:
    """May the Scaling page's decomposition study run on ``n`` points? It solves exact
    DANK once (τ = 0, the accelerated solver) and the v-cluster problems for v = 2 …
    ``max_v`` (each ``1/v`` of the exact cost: v blocks of (n/v)²), keeping K, F, the
    block F̄ and the bound's work arrays beside the solver's: 19.3 n² doubles at the
    peak measured with ``tracemalloc`` at n = 850 (``tests/test_classroom.py``), modelled
    as 22. Above the budget the study runs on a
    subsample of ``n_max`` points (:func:`fit_verdict`'s live size for the same work)."""
    budget = budget or DEFAULT
    p = {**(params or {}), "solver": "apg"}
    factor = 1.0 + sum(1.0 / v for v in range(2, max(int(max_v), 1) + 1))

    def cost(m: int) -> Cost:
        one = fit_cost("dank", m, d, p)
        return Cost(one.seconds * factor, one.bytes + int(8 * 10 * m * m))

    def largest(seconds: float) -> int:
        lo, hi = 1, 10_000_000
        while lo < hi:
            mid = (lo + hi + 1) // 2
            c = cost(mid)
            if c.seconds <= seconds and c.bytes <= budget.memory:
                lo = mid
            else:
                hi = mid - 1
        return lo
    c = cost(int(n))
    n_max, n_fit = largest(budget.patient_seconds), largest(budget.patient_seconds)
    if c.bytes <= budget.memory and c.seconds <= budget.patient_seconds:
        return Verdict("live" if c.seconds <= budget.seconds else "patient", c, n_max, n_fit)
    why = (f"about {_fmt_bytes(c.bytes)} of memory" if c.bytes > budget.memory
           else f"about {_fmt_seconds(c.seconds)}")
    return Verdict("refused", c, n_max, n_fit,
                   f"The decomposition study on {n:,} points would need {why}, above the "
                   f"lab's budget ({_fmt_bytes(budget.memory)}, "
                   f"{_fmt_seconds(budget.patient_seconds)})")


#: expected seconds of work above which a two-parameter map is refused
MAP_SECONDS = 120.0


def map_verdict(method: str, n: int, shape: tuple[int, int], repeats: int, d: int = 2,
                params: Mapping[str, Any] | None = None, budget: Budget | None = None, *,
                label: str | None = None, workers: int = 1,
                max_seconds: float = MAP_SECONDS) -> Verdict:
    """May a two-parameter map of ``shape`` (values of the first × of the second
    parameter) on ``repeats`` seeds run? Every cell is one fit per seed (each above the
    live budget on a subsample, as :func:`fit_verdict` says); the map is refused above
    :data:`LIMITS` ``["map_fits"]`` fits or ``max_seconds`` of expected work shared by
    ``workers`` processes. The message names the grid, the seeds and n, and what to
    lower."""
    budget = budget or DEFAULT
    n1, n2 = (max(int(v), 1) for v in shape)
    repeats = max(int(repeats), 1)
    fits = n1 * n2 * repeats
    one = fit_verdict(method, n, d, params, budget, label=label)
    n_eff = n if one.ok else one.n_max
    each = fit_cost(method, n_eff, d, params)
    total = Cost(each.seconds * fits / max(int(workers), 1), each.bytes)
    name = label or method
    what = (f"{n1} × {n2} values × {repeats} seed{'s' if repeats > 1 else ''} = {fits} "
            f"fits of {name} on {n_eff:,} points")
    if fits > LIMITS["map_fits"]:
        return Verdict("refused", total, one.n_max, one.n_fit,
                       f"This map ({what}) is above the lab's limit of "
                       f"{LIMITS['map_fits']:,} fits: use fewer points per parameter or "
                       "fewer seeds.")
    if total.seconds > max_seconds:
        return Verdict("refused", total, one.n_max, one.n_fit,
                       f"This map ({what}) would take about {_fmt_seconds(total.seconds)}, "
                       f"above the lab's {_fmt_seconds(max_seconds)} for a map: use fewer "
                       "points per parameter, fewer seeds or a smaller sample size.")
    level = "live" if total.seconds <= budget.seconds else "patient"
    msg = "" if level == "live" else (f"This map runs {what}, about "
                                      f"{_fmt_seconds(total.seconds)} in all.")
    return Verdict(level, total, one.n_max, one.n_fit, msg)


def grid_resolution(n_train: int, requested: int = 100, budget: Budget | None = None) -> int:
    """The grid resolution the decision surface may use with ``n_train`` training points:
    the grid keeps ``resolution² × n_train`` distances (three such arrays at the peak),
    so large samples get a coarser grid rather than a memory error."""
    budget = budget or DEFAULT
    res = max(10, min(int(requested), LIMITS["grid_resolution"]))
    while res > 10 and 3 * 8 * res * res * max(int(n_train), 1) > budget.memory // 2:
        res = max(10, res - 10)     # never below the floor (a requested 15 stops at 10)
    return res
