"""Paired comparisons and the verdicts built on them (``python -m nplk_lab.model.reproduce``).

A claim such as "DANK beats the SVM" is judged on the paired differences
``d_s = method_s - baseline_s`` over seeds or splits ``s = 1..J`` (same data for both):
their mean and a 95 % t-interval,

    mean(d) ± t_{0.975, J-1} · sqrt(c · var(d)),   c = 1/J (independent draws),

where for repeated random train/test splits of one data set the overlap of the training
sets makes the differences positively correlated, and the plain interval too narrow;
Nadeau and Bengio's corrected resampled variance uses ``c = 1/J + n_test/n_train``.

The verdict of one comparison follows from its interval only:

- **holds** — the whole interval is on the claimed side of 0 (``lo > 0`` for a gain);
- **does not hold** — the whole interval is on the other side, or at 0 (every difference
  is exactly 0): a loss or no difference at all;
- **inconclusive** — the interval contains 0.

An *equivalence* claim ("insensitive to B", "ρ → ∞ gives the SVM") holds when the whole
interval lies inside ``±margin``, does not hold when it lies wholly outside, and is
inconclusive otherwise. A row's verdict combines its parts: any part that does not hold
makes the row not hold; all parts holding make it hold; otherwise it is inconclusive.
Pure numpy/scipy; no project imports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
SHOWN = "shown"
VERDICTS = (HOLDS, FAILS, INCONCLUSIVE, SHOWN)


def t_quantile(df: int, level: float = 0.95) -> float:
    """Two-sided Student-t critical value ``t_{(1+level)/2, df}``."""
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2.0, df))


@dataclass(frozen=True)
class Paired:
    """Mean and 95 % interval of paired differences ``method - baseline``.

    ``sign`` is +1 when larger values of the metric are better (accuracy, R², Rand),
    -1 when smaller are better (error, iterations): a *gain* is then ``sign * d > 0``.
    ``margin`` > 0 makes the comparison an equivalence test (``|d| <= margin``).
    """

    label: str
    unit: str
    n: int
    mean: float
    lo: float
    hi: float
    sign: int = 1
    margin: float = 0.0
    corrected: bool = False
    wins: int = 0
    ties: int = 0
    losses: int = 0

    @property
    def verdict(self) -> str:
        if self.margin > 0:
            if -self.margin <= self.lo and self.hi <= self.margin:
                return HOLDS
            if self.lo > self.margin or self.hi < -self.margin:
                return FAILS
            return INCONCLUSIVE
        lo, hi = sorted((self.sign * self.lo, self.sign * self.hi))
        if lo > 0:
            return HOLDS
        if hi <= 0:
            return FAILS
        return INCONCLUSIVE

    def text(self) -> str:
        """``label: +1.2 points [+0.3, +2.1] (10 seeds; 7 wins / 1 tie / 2 losses)``."""
        u = f" {self.unit}" if self.unit else ""
        extra = ", split-corrected" if self.corrected else ""
        return (f"{self.label}: {_num(self.mean)}{u} [{_num(self.lo)}, {_num(self.hi)}] "
                f"(95 % CI, n = {self.n}{extra}; {self.wins} better / {self.ties} equal / "
                f"{self.losses} worse)")

    def as_dict(self) -> dict:
        return {"label": self.label, "unit": self.unit, "n": self.n,
                "mean": _round(self.mean), "lo": _round(self.lo), "hi": _round(self.hi),
                "better": "higher" if self.sign > 0 else "lower",
                "margin": self.margin, "corrected": self.corrected,
                "wins": self.wins, "ties": self.ties, "losses": self.losses,
                "verdict": self.verdict}


def _num(x: float) -> str:
    if not np.isfinite(x):
        return str(x)
    a = abs(x)
    if a == 0:
        return "0"
    if a >= 100:
        return f"{x:+.0f}"
    if a >= 1:
        return f"{x:+.2f}"
    return f"{x:+.2g}" if a < 0.01 else f"{x:+.3f}"


def _round(x: float) -> float:
    return float(f"{x:.6g}") if np.isfinite(x) else float(x)


def paired(method, baseline, *, label: str, unit: str = "", scale: float = 1.0,
           sign: int = 1, margin: float = 0.0, test_fraction: float | None = None,
           level: float = 0.95) -> Paired:
    """Paired differences ``scale * (method - baseline)`` with their t-interval.

    ``test_fraction`` = n_test / n_train switches on the corrected resampled variance of
    repeated random splits (Nadeau and Bengio). With a single pair the interval is the
    point itself (no spread can be estimated), so its verdict is never *holds* unless
    the claim is an exact equivalence. A difference that is not a finite number (a
    score missing at some seed) gives no interval: mean and bounds are NaN and the
    verdict *inconclusive*.
    """
    d = scale * (np.asarray(method, dtype=float) - np.asarray(baseline, dtype=float))
    d = d.ravel()
    if d.size == 0:
        raise ValueError("paired() needs at least one pair.")
    J = d.size
    if not np.all(np.isfinite(d)):      # a missing score is no evidence, not a tie
        nan = float("nan")
        return Paired(label, unit, J, nan, nan, nan, sign=sign, margin=margin,
                      corrected=test_fraction is not None)
    mean = float(d.mean())
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    wins = int(np.sum(sign * d > tol))
    losses = int(np.sum(sign * d < -tol))
    ties = J - wins - losses
    if J < 2:
        half = math.inf if abs(mean) > tol else 0.0
    else:
        var = float(d.var(ddof=1))
        c = 1.0 / J + (test_fraction if test_fraction is not None else 0.0)
        half = t_quantile(J - 1, level) * math.sqrt(c * var)
    if ties == J:  # every difference is exactly 0
        mean, half = 0.0, 0.0
    return Paired(label, unit, J, mean, mean - half, mean + half, sign=sign, margin=margin,
                  corrected=test_fraction is not None, wins=wins, ties=ties, losses=losses)


def combine(verdicts) -> str:
    """A row's verdict from its parts (see the module docstring)."""
    vs = [v for v in verdicts if v != SHOWN]
    if not vs:
        return SHOWN
    if FAILS in vs:
        return FAILS
    if all(v == HOLDS for v in vs):
        return HOLDS
    return INCONCLUSIVE


def legacy_holds(verdict: str) -> bool | None:
    """The ``holds`` field of ``results.json`` (True / False / None) for a verdict."""
    return {HOLDS: True, FAILS: False}.get(verdict)
