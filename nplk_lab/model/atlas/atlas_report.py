"""The atlas's tables in words (``reports/atlas/README.md`` and the command's output).

Pure functions of the summary rows of :func:`nplk_lab.model.atlas.atlas.summarize`; every
count and sentence here is computed from them, none is written in.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from .atlas_data import SETS

METHOD_NAMES = {"dank": "DANK", "knpl": "KNPL", "onk": "ONK", "dank_svr": "DANK-SVR",
                "lab_rbf_reg": "LAB RBF"}
REGION_SHORT = {"matrix_alone": "matrix alone", "nn_rule": "1-NN rule",
                "gain_other": "gain, other", "tuned_best": "tuned best", "worse": "worse",
                "none": "no difference"}
#: the smooth rule's regions (:func:`nplk_lab.model.atlas.atlas.smooth_region`): short names
#: and what each means
SMOOTH_REGION_SHORT = {"no_copy": "helps without copying", "tuned_better": "tuned better",
                       "worse": "worse", "none": "no difference"}
SMOOTH_REGION_WORDS = {
    "no_copy": "the learned kernel helps without copying: with the smooth rule the method "
               "beats the same baseline, and the tuned baseline is not better",
    "tuned_better": "with the smooth rule the method beats the same baseline, but the "
                    "tuned baseline is better still",
    "worse": "with the smooth rule the method scores below the same baseline",
    "none": "with the smooth rule, no difference from the same baseline that the draws "
            "can tell",
}


def _pm(row: dict, c: str) -> str:
    m, lo, hi = (float(row.get(f"{c}_{k}", np.nan)) for k in ("mean", "lo", "hi"))
    if not np.isfinite(m):
        return "—"
    return f"{m:+.1f} [{lo:+.1f}, {hi:+.1f}]"


def _f(v, d=3) -> str:
    v = float(v)
    return "—" if not np.isfinite(v) else f"{v:.{d}f}"


def region_counts(cells: Iterable[dict]) -> dict[tuple[str, str], Counter]:
    """(method, data set) -> how many of its cells fall in each region."""
    out: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for r in cells:
        out[(r["method"], r["dataset"])][r["region"]] += 1
    return out


def larger_c(cells: Iterable[dict]) -> dict[str, int]:
    """Of the cells where the learned matrix alone helps, how many still beat the plain
    baseline at 10 C, at 100 C and the tuned baseline (beyond their intervals)."""
    alone = [r for r in cells if r["region"] == "matrix_alone"]
    return {"cells": len(alone),
            "beats_plain10": sum(r.get("off_vs_plain10_verdict") == "holds" for r in alone),
            "beats_plain100": sum(r.get("off_vs_plain100_verdict") == "holds" for r in alone),
            "beats_cv": sum(r.get("off_vs_cv_verdict") == "holds" for r in alone)}


def headline_markdown(cells: Sequence[dict], *, cells_only: bool = False) -> str:
    """Per method and data set, how many σ × C cells fall in each region, and the
    largest gain with the matrix switched off (its cell and interval); with
    ``cells_only``, one line per cell instead."""
    if cells_only:
        lines = ["| method | data set | σ | C | method | off | 1-NN | plain | tuned | "
                 "method − plain | off − plain | agree 1-NN (method / plain) | region |",
                 "|" + "---|" * 13]
        for r in cells:
            lines.append(
                f"| {METHOD_NAMES[r['method']]} | {r['dataset']} | {r['sigma']:g} | "
                f"{r['C']:g} | {_f(r['score_method'])} | {_f(r['score_off'])} | "
                f"{_f(r['score_nn'])} | {_f(r['score_plain'])} | {_f(r['score_cv'])} | "
                f"{_pm(r, 'gain')} | {_pm(r, 'off_gain')} | {_f(r['agree_method'], 2)} / "
                f"{_f(r['agree_plain'], 2)} | {REGION_SHORT[r['region']]} |")
        return "\n".join(lines)
    counts = region_counts(cells)
    by = defaultdict(list)
    for r in cells:
        by[(r["method"], r["dataset"])].append(r)
    cols = [c for c in REGION_SHORT]
    lines = ["| method | data set | cells | " + " | ".join(REGION_SHORT[c] for c in cols)
             + " | largest gain with the matrix off (points, 95 % CI) |",
             "|" + "---|" * (len(cols) + 4)]
    for (m, name), c in counts.items():
        rs = by[(m, name)]
        best = max(rs, key=lambda r: float(r.get("off_gain_lo", -np.inf))
                   if np.isfinite(float(r.get("off_gain_lo", np.nan))) else -np.inf)
        lines.append(f"| {METHOD_NAMES[m]} | {name} | {sum(c.values())} | "
                     + " | ".join(str(c.get(k, 0)) for k in cols)
                     + f" | σ = {best['sigma']:g}, C = {best['C']:g}: {_pm(best, 'off_gain')} |")
    return "\n".join(lines)


def totals_markdown(cells: Sequence[dict]) -> str:
    """Per method: cells and data sets in each region."""
    lines = ["| method | cells | " + " | ".join(REGION_SHORT.values())
             + " | data sets where the matrix alone helps somewhere |",
             "|" + "---|" * (len(REGION_SHORT) + 3)]
    for m in METHOD_NAMES:
        rs = [r for r in cells if r["method"] == m]
        if not rs:
            continue
        c = Counter(r["region"] for r in rs)
        sets = sorted({r["dataset"] for r in rs if r["region"] == "matrix_alone"})
        n_sets = len({r["dataset"] for r in rs})
        lines.append(f"| {METHOD_NAMES[m]} | {len(rs)} | "
                     + " | ".join(str(c.get(k, 0)) for k in REGION_SHORT)
                     + f" | {len(sets)} of {n_sets}: {', '.join(sets) or '—'} |")
    return "\n".join(lines)


def smooth_markdown(cells: Sequence[dict]) -> str:
    """Per method and data set, the cells of each region under the smooth rule
    (:func:`nplk_lab.model.atlas.atlas.smooth_region`), and of those where the rule helps
    without copying, how many beat the same model with the matrix switched off; "" when
    the table has no smooth-rule column."""
    rs = [r for r in cells if r.get("smooth_region") in SMOOTH_REGION_SHORT]
    if not rs:
        return ""
    cols = list(SMOOTH_REGION_SHORT)
    lines = ["| method | data set | cells | " + " | ".join(SMOOTH_REGION_SHORT.values())
             + " | of those helping, beyond the matrix off |", "|" + "---|" * (len(cols) + 4)]
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rs:
        by[(r["method"], r["dataset"])].append(r)
    for (m, name), group in by.items():
        c = Counter(r["smooth_region"] for r in group)
        beyond = sum(r["smooth_region"] == "no_copy"
                     and r.get("smooth_vs_off_verdict") == "holds" for r in group)
        lines.append(f"| {METHOD_NAMES[m]} | {name} | {len(group)} | "
                     + " | ".join(str(c.get(k, 0)) for k in cols) + f" | {beyond} |")
    return "\n".join(lines)


def write_report(cells: Sequence[dict], info: dict, path: Path, *, command: str,
                 seeds: Sequence[int], note: str = "", held: Sequence[dict] = (),
                 made_by: str | None = None) -> None:
    """``reports/atlas/README.md``: how the atlas was made (``made_by`` replaces that
    paragraph, e.g. when a column was added to a table measured earlier), its totals and
    its per-data-set table; with ``held`` (the same cells at other draws of the data),
    how many cells change region between the two (:mod:`nplk_lab.model.atlas.atlas_words`)."""
    learned = [r for r in cells if r["method"] != "lab_rbf_reg"]
    lc, lr = larger_c(learned), larger_c([r for r in cells if r["method"] == "lab_rbf_reg"])
    names = [METHOD_NAMES[m] for m in METHOD_NAMES if any(r["method"] == m for r in learned)]
    names_text = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1] \
        if names else "no method"
    sets = sorted({r["dataset"] for r in cells}, key=list(SETS).index)
    text = [
        "# The atlas: where a learned kernel's gain holds",
        "",
        made_by or "Made by `python -m nplk_lab.model.atlas " + command.strip() + "` "
        f"in {info['seconds']:.0f} s on {info['backend']} ({info['workers']} workers), "
        f"{info['fits']} fits; data seeds {seeds[0]}–{seeds[-1]}. The tables come from "
        "`atlas.csv` (one row per cell) and `seeds.csv.gz` (one row per cell and seed); "
        "`nplk_lab/model/atlas/atlas.py` says what every column means." + (f" {note}" if note
                                                                      else ""),
        "",
        "Data sets: " + "; ".join(f"{n} ({SETS[n].title}, {SETS[n].source})" for n in sets)
        + ".",
        "",
        "A cell is one method, data set, σ and C, measured at every seed; its region is "
        "the first that holds of: the learned matrix alone beats the plain baseline with "
        "the same σ and C (the model with its matrix switched off at test time, beyond "
        "the 95 % interval); the method beats it and follows 1-NN more than it does; the "
        "method beats it otherwise; the tuned baseline beats every other row; the method "
        "is below the baseline; none of these.",
        "",
        "## Totals",
        "",
        totals_markdown(cells),
        "",
        "## Where the matrix alone helps: a larger C, or something else?",
        "",
        f"Of the {lc['cells']} cells of {names_text} where the model with "
        f"its learned matrix switched off beats the plain baseline with the same σ and C, "
        f"it still beats the plain baseline with 10 × C in {lc['beats_plain10']}, with "
        f"100 × C in {lc['beats_plain100']}, and the tuned baseline in {lc['beats_cv']}. "
        f"LAB RBF is counted apart, since its switched-off model is the paper's model "
        f"refitted with one shared width: {lr['cells']} cells, of which it beats the "
        f"plain SVR with 10 × C in {lr['beats_plain10']}, with 100 × C in "
        f"{lr['beats_plain100']} and the tuned SVR in {lr['beats_cv']}.",
        "",
        "## Per method and data set (cells of σ × C)",
        "",
        headline_markdown(cells),
        "",
    ]
    if held:
        text[-1:-1] = ["## The same cells at other draws of the data", "",
                       "`held-out/` holds every cell measured again at data seeds 10–19 "
                       "(its own README has its totals).", "",
                       changes_markdown(cells, held), ""]
    smooth = smooth_markdown(cells)
    if smooth:
        text += [
            "## Under the smooth rule: does the learned kernel help without copying?",
            "",
            "The same cells with DANK's, KNPL's and DANK-SVR's test points taking an "
            "average of all rows of the learned matrix, weighted by the kernel (the lab's "
            "smooth rule, which copies no training point's row; `nplk_core/extension.py`). "
            "A cell helps without copying when the method with that rule beats the plain "
            "baseline with the same σ and C and the tuned baseline is not better (95 % "
            "intervals over the draws).",
            "",
            smooth,
            "",
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(text))


def changes_markdown(atlas: Sequence[dict], held: Sequence[dict]) -> str:
    """The README's section on the two sets of draws: per method, the cells that keep
    their region and the ones that change, and the most frequent changes."""
    from .atlas_words import changes

    ch = changes(atlas, held)
    total = sum(c["cells"] for c in ch.values())
    moved = sum(c["cells"] - c["same"] for c in ch.values())
    lines = [f"Of the {total} cells measured at both sets of draws, {moved} change region "
             f"between data seeds 0–9 and 10–19 ({100 * moved / max(total, 1):.0f} %); "
             "the lab's view draws them as unsettled, and no sentence of the lab rests on "
             "one.", "",
             "| method | cells | same region | changed | most frequent changes (0–9 → 10–19) |",
             "|---|---|---|---|---|"]
    for m in METHOD_NAMES:
        c = ch.get(m)
        if not c:
            continue
        moves = sorted(((k, v) for k, v in c.items() if isinstance(k, tuple)),
                       key=lambda kv: (-kv[1], kv[0]))
        top = "; ".join(f"{REGION_SHORT[a]} → {REGION_SHORT[b]}: {v}"
                        for (a, b), v in moves[:3]) or "—"
        lines.append(f"| {METHOD_NAMES[m]} | {c['cells']} | {c['same']} | "
                     f"{c['cells'] - c['same']} | {top} |")
    return "\n".join(lines)


__all__ = ["METHOD_NAMES", "REGION_SHORT", "SMOOTH_REGION_SHORT", "SMOOTH_REGION_WORDS",
           "changes_markdown", "headline_markdown", "larger_c", "region_counts",
           "smooth_markdown", "totals_markdown", "write_report"]
