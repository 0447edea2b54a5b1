"""What the lab's general sentences read from the atlas tables: a cell, a number as a
person writes it, the atlas's cells lined up at its two sets of draws, and the counts of
the sentences about the whole atlas (:mod:`nplk_lab.model.claims` holds the sentences).

Pure Python and numpy; imports nothing of the lab, so the settings table, the claims
and the atlas's own modules can all read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

Rows = Sequence[dict]

Cell = tuple[str, str, float, float]


def cell_key(row: dict) -> Cell:
    """(method, data set, σ, C) of a summary or per-seed row."""
    return (row["method"], row["dataset"], float(row["sigma"]), float(row["C"]))


def pair_cells(atlas: Iterable[dict], held: Iterable[dict]) -> dict[Cell, tuple[dict, dict]]:
    """Cell -> (its summary at the atlas's draws, at the held-out draws), for the cells
    both tables have."""
    first = {cell_key(r): r for r in atlas}
    return {k: (first[k], r) for r in held for k in [cell_key(r)] if k in first}


def unsettled(atlas: Iterable[dict], held: Iterable[dict]) -> set[Cell]:
    """The cells whose region differs between the two sets of draws."""
    return {k for k, (a, b) in pair_cells(atlas, held).items() if a["region"] != b["region"]}



def cell(rows: Rows, method: str, dataset: str, sigma: float, C: float) -> dict:
    """The summary row of one cell; KeyError naming it when the table lacks it."""
    for r in rows:
        if (r["method"], r["dataset"], float(r["sigma"]), float(r["C"])) == \
                (method, dataset, float(sigma), float(C)):
            return r
    raise KeyError(f"no cell {method} / {dataset} / σ = {sigma} / C = {C} in the table")


def value(r: dict, key: str) -> float:
    return float(r.get(key, np.nan))


def need(cond: bool, what: str, r: dict, keys: Sequence[str]) -> list[str]:
    if cond:
        return []
    nums = ", ".join(f"{k} = {value(r, k):.4g}" for k in keys)
    return [f"{r['method']} / {r['dataset']} / σ = {r['sigma']:g} / C = {r['C']:g}: "
            f"{what} ({nums}; {int(value(r, 'n_seeds'))} seeds)"]


def plain_number(x: float) -> str:
    """A number as a person writes it: one decimal at most, no trailing zero."""
    return f"{x:.1f}".rstrip("0").rstrip(".")



# ---------------------------------------------------------------------------
# sentences about all the cells of a method: "at some settings, not at others"
# ---------------------------------------------------------------------------

def somewhere(methods: Sequence[str], atlas: Rows, held: Rows, *, follows: float = 0.9
              ) -> list[str]:
    """Each of ``methods`` has, at both sets of draws, a settled cell where it follows
    1-NN (agreement or closeness at least ``follows``) more than the plain baseline
    does, and a settled cell where it does not follow 1-NN more than the baseline
    (the failures in words; a claim's check is ``partial(somewhere, methods)``)."""
    out = []
    pairs = pair_cells(atlas, held).values()
    for m in methods:
        mine = [(a, h) for a, h in pairs if a["method"] == m]
        yes = [1 for a, h in mine if all(r["agree_gap_verdict"] == "holds"
                                         and value(r, "agree_method") >= follows
                                         for r in (a, h))]
        no = [1 for a, h in mine if all(r["agree_gap_verdict"] != "holds" for r in (a, h))]
        if not yes:
            out.append(f"{m}: no cell follows 1-NN more than the baseline at both "
                       "sets of draws")
        if not no:
            out.append(f"{m}: every cell follows 1-NN more than the baseline")
    return out


def depends(methods: Sequence[str], atlas: Rows, held: Rows) -> list[str]:
    """Each of ``methods`` has, at both sets of draws, a cell whose gain the 1-NN rule
    carries (region ``nn_rule``) and a cell where it beats the baseline and part of the
    gain survives with the matrix off (``matrix_alone`` with ``gain`` holding)."""
    out = []
    pairs = pair_cells(atlas, held).values()
    for m in methods:
        mine = [(a, h) for a, h in pairs if a["method"] == m]
        if not any(a["region"] == h["region"] == "nn_rule" for a, h in mine):
            out.append(f"{m}: no cell where the rule carries the gain at both draws")
        if not any(a["region"] == h["region"] == "matrix_alone"
                   and a["gain_verdict"] == h["gain_verdict"] == "holds" for a, h in mine):
            out.append(f"{m}: no cell where part of a gain survives at both draws")
    return out


# ---------------------------------------------------------------------------
# the whole atlas (the cells whose words hold at both sets of draws)
# ---------------------------------------------------------------------------

LEARNED = ("dank", "knpl", "onk", "dank_svr")
RULE = ("dank", "knpl", "dank_svr")


def atlas_numbers(atlas: Rows, held: Rows) -> dict[str, float]:
    """The numbers :data:`ATLAS_SENTENCE` states. A cell counts for a statement when the
    statement holds at both sets of draws (the atlas's and the held-out's)."""
    pairs = [(a, h) for (m, *_), (a, h) in pair_cells(atlas, held).items() if m in LEARNED]

    def both(pred):
        return [(a, h) for a, h in pairs if pred(a) and pred(h)]

    alone = both(lambda r: r["region"] == "matrix_alone")
    gain = [(a, h) for a, h in both(lambda r: r["gain_verdict"] == "holds")
            if a["method"] in RULE]
    kept = [(a, h) for a, h in gain if a["off_gain_verdict"] == "holds"
            and h["off_gain_verdict"] == "holds"]
    rule = [(a, h) for a, h in both(lambda r: r["region"] == "nn_rule")]
    shares = [value(r, "off_gain_mean") / value(r, "gain_mean") for a, h in kept for r in (a,)]
    best = max((value(a, "off_gain_mean") for a, _ in alone), default=np.nan)
    not10 = [(a, h) for a, h in alone if a["off_vs_plain10_verdict"] != "holds"
             and h["off_vs_plain10_verdict"] != "holds"]
    return {"cells": len(pairs), "sets": len({a["dataset"] for a, _ in pairs}),
            "alone": len(alone), "alone_sets": len({a["dataset"] for a, _ in alone}),
            "alone_cv": sum(a["off_vs_cv_verdict"] == "holds"
                            or h["off_vs_cv_verdict"] == "holds" for a, h in alone),
            "alone_not_10c": len(not10),
            "alone_10c_better": sum(value(a, "off_vs_plain10_hi") < 0
                                    and value(h, "off_vs_plain10_hi") < 0 for a, h in not10),
            "alone_10c_lower": sum(value(a, "off_vs_plain10_mean") > 0
                                   and value(h, "off_vs_plain10_mean") > 0 for a, h in not10),
            "best": round(best) if np.isfinite(best) else np.nan,
            "gain": len(gain), "kept": len(kept),
            "share": round(100 * float(np.median(shares))) if shares else np.nan,
            "whole": sum(s >= 1 for s in shares),
            "nn_rule": len(rule),
            "nn_rule_90": sum(value(a, "agree_method") >= 0.9 and value(h, "agree_method") >= 0.9
                              for a, h in rule)}


def unsettled_numbers(atlas: Rows, held: Rows) -> dict:
    cells = len(pair_cells(atlas, held))
    moved = len(unsettled(atlas, held))
    return {"moved": f"{moved:,}", "cells": f"{cells:,}",
            "pct": f"{100 * moved / max(cells, 1):.0f}"}


def atlas_numbers_text(atlas: Rows, held: Rows) -> dict:
    n = atlas_numbers(atlas, held)
    return {**n, "cells_text": f"{n['cells']:,}"}


def atlas_check(atlas: Rows, held: Rows) -> list[str]:
    """What the atlas sentence says besides its counts (the cells it counts keep their
    words at both sets of draws by construction, :func:`atlas_numbers`): the tuned
    baseline is never beaten, and the largest gain with the matrix off is where the
    plain baseline underfits (the tuned one at least 10 points above it at both)."""
    n = atlas_numbers(atlas, held)
    out = [] if n["alone_cv"] == 0 else [f"the model with its matrix off beats the tuned "
                                         f"baseline in {n['alone_cv']} cells"]
    alone = [(a, h) for (m, *_), (a, h) in pair_cells(atlas, held).items()
             if m in LEARNED and a["region"] == h["region"] == "matrix_alone"]
    if alone:
        a, h = max(alone, key=lambda p: value(p[0], "off_gain_mean"))
        for r in (a, h):
            out += need(value(r, "score_cv") - value(r, "score_plain") >= 0.1,
                         "the plain baseline underfits where the gain is largest", r,
                         ("score_plain", "score_cv"))
    return out


def npkl_numbers(rows: Rows) -> dict[str, int]:
    """The numbers :data:`NPKL_SENTENCE` states, from the SimpleNPKL table."""
    lo = [r for r in rows if float(r["C"]) <= 0.1]
    hi = [r for r in rows if float(r["C"]) >= 1]
    return {"cells": len(rows), "sets": len({r["dataset"] for r in rows}),
            "lo": len(lo), "lo_better": sum(r["region"] == "beats_kmeans" for r in lo),
            "lo_worse": sum(r["region"] == "kmeans_better" for r in lo),
            "hi": len(hi), "hi_better": sum(r["region"] == "beats_kmeans" for r in hi),
            "hi_worse": sum(r["region"] == "kmeans_better" for r in hi),
            "hi_flat": sum(value(r, "rand") <= 0.52 for r in hi)}


# ---------------------------------------------------------------------------
# the smooth rule (a test point takes an average of all rows: it copies none)
# ---------------------------------------------------------------------------

def _helps(r: dict) -> bool:
    return r.get("smooth_region") == "no_copy"


def _beyond(r: dict) -> bool:
    """With the smooth rule the method helps without copying and is clearly above the
    same model with its learned matrix switched off: the learned kernel itself helps."""
    return _helps(r) and r.get("smooth_vs_off_verdict") == "holds"


def _over(r: dict) -> bool:
    """With the smooth rule the method is clearly above the same baseline and the
    matrix switched off."""
    return r.get("smooth_gain_verdict") == r.get("smooth_vs_off_verdict") == "holds"


def smooth_numbers(atlas: Rows, held: Rows) -> dict:
    """The numbers of the smooth rule's sentence: over the cells of the methods with
    that rule, where it helps without copying at each set of draws and at both, where
    the learned kernel does better than the matrix switched off there (at either set of
    draws), where the rule is clearly below the matrix off, where it is clearly above
    the baseline and the matrix off, and where it scores below the same baseline at
    both."""
    pairs = [(a, h) for (m, *_), (a, h) in pair_cells(atlas, held).items() if m in RULE]
    both = [(a, h) for a, h in pairs if _helps(a) and _helps(h)]
    beyond = sum(_beyond(a) or _beyond(h) for a, h in pairs)

    def below(i: int) -> int:
        return sum(_helps(p[i]) and p[i].get("smooth_vs_off_verdict") == "does not hold"
                   for p in pairs)

    def over(i: int) -> int:
        return sum(_over(p[i]) for p in pairs)

    return {"cells": f"{len(pairs):,}", "helps_a": sum(_helps(a) for a, _ in pairs),
            "helps_h": sum(_helps(h) for _, h in pairs), "helps": len(both),
            "helps_cells": [cell_key(a) for a, _ in both],
            "beyond": "none" if beyond == 0 else str(beyond),
            "below_a": below(0), "below_h": below(1), "over_a": over(0), "over_h": over(1),
            "worse": sum(a.get("smooth_region") == h.get("smooth_region") == "worse"
                         for a, h in pairs)}


def smooth_check(atlas: Rows, held: Rows) -> list[str]:
    """What the smooth rule's sentence says besides its counts: every cell of a method
    with the rule was measured with it at both sets of draws, and wherever the smooth
    rule is clearly above the same baseline and the matrix switched off, the tuned
    baseline is clearly better (the sentence's "so the atlas finds no setting")."""
    out = []
    for name, rows in (("data seeds 0–9", atlas), ("data seeds 10–19", held)):
        lack = [r for r in rows if r["method"] in RULE
                and r.get("smooth_region") in (None, "")]
        if lack:
            out.append(f"{name}: {len(lack)} cells without the smooth rule's column")
        for r in rows:
            if r["method"] in RULE and _over(r) and r.get("smooth_cv_gap_verdict") != "holds":
                out += need(False, "above the baseline and the matrix off, the tuned "
                            "baseline not clearly better", r,
                            ("smooth_gain_lo", "smooth_vs_off_lo", "smooth_cv_gap_lo"))
    return out


__all__ = ["LEARNED", "RULE", "Cell", "Rows", "atlas_check", "atlas_numbers",
           "atlas_numbers_text", "cell", "cell_key", "depends", "need", "npkl_numbers",
           "pair_cells", "plain_number", "smooth_check", "smooth_numbers", "somewhere",
           "unsettled", "unsettled_numbers", "value"]
