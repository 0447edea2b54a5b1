"""What the "Where it holds" view draws from the atlas: one method on one data set as a
σ × C grid of regions with hover text, and the page state a clicked cell opens.

Pure functions of the summary rows of :mod:`nplk_lab.model.atlas.atlas` (no Streamlit).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..settings_table import CLASSIFICATION
from .atlas import REGION_WORDS, REGIONS, SMOOTH_METHODS, SMOOTH_REGIONS
from .atlas_data import SETS
from .atlas_report import METHOD_NAMES, REGION_SHORT, SMOOTH_REGION_SHORT, SMOOTH_REGION_WORDS

#: a cell whose region differs between the atlas's draws and the held-out ones
UNSETTLED = "unsettled"
#: the map's categories: the regions, then the cells the two sets of draws disagree on
VIEW_REGIONS = REGIONS + (UNSETTLED,)
#: the region names on the map's colour bar (short, plain words)
REGION_LABELS = tuple(REGION_SHORT[r] for r in REGIONS) + (UNSETTLED,)
#: the smooth rule's map: its regions, then the cells the two sets of draws disagree on
SMOOTH_VIEW_REGIONS = SMOOTH_REGIONS + (UNSETTLED,)
#: the same for the smooth rule's map
SMOOTH_REGION_LABELS = tuple(SMOOTH_REGION_SHORT[r] for r in SMOOTH_REGIONS) + (UNSETTLED,)
_UNSETTLED_WORDS = ("measured again at other draws of the data, the cell fell in another "
                    "region: no explanation is settled there")
#: the lab method each atlas method opens on its page
PAGE_METHOD = {"lab_rbf_reg": "lab_rbf_reg"}


@dataclass(frozen=True)
class AtlasGrid:
    """One method on one data set: ``regions[i_C, i_σ]`` indexes :data:`REGIONS` (−1:
    not measured; :data:`~nplk_lab.model.atlas.atlas.SMOOTH_REGIONS` when ``rule`` is
    ``"smooth"``), ``hover`` the matching text, ``rows`` the summary rows by cell."""

    method: str
    dataset: str
    sigmas: tuple[float, ...]
    Cs: tuple[float, ...]
    regions: np.ndarray
    hover: np.ndarray
    rows: dict[tuple[int, int], dict] = field(default_factory=dict)
    rule: str = "paper"

    @property
    def counts(self) -> dict[str, int]:
        return {r: int(np.sum(self.regions == i)) for i, r in enumerate(VIEW_REGIONS)}


def choices(cells: Iterable[dict]) -> dict[str, list[str]]:
    """Method -> the data sets the atlas measured it on (in the atlas's order)."""
    out: dict[str, list[str]] = {}
    for r in cells:
        sets = out.setdefault(r["method"], [])
        if r["dataset"] not in sets:
            sets.append(r["dataset"])
    return out


def interval_words(row: dict, c: str, unit: str = "points") -> str:
    """A comparison of a summary row in words: mean and its 95 % interval."""
    return _ci(row, c, unit)


def _ci(row: dict, c: str, unit: str = "points") -> str:
    m, lo, hi = (float(row.get(f"{c}_{k}", np.nan)) for k in ("mean", "lo", "hi"))
    if not np.isfinite(m):
        return "—"
    return f"{m:+.1f} {unit} (95 % interval {lo:+.1f} to {hi:+.1f})"


def hover_text(row: dict, held: dict | None = None) -> str:
    """A cell's numbers in plain words: scores, the paired differences with their
    intervals, the agreement with 1-NN, and its region; with ``held`` (the same cell at
    other draws of the data), that region too, and whether the two agree."""
    clf = row.get("task") == CLASSIFICATION
    metric = "accuracy" if clf else "R²"
    base = "SVM" if clf else "SVR"
    name = METHOD_NAMES.get(row["method"], row["method"])

    def s(k):
        v = float(row.get("score_" + k, np.nan))
        return "—" if not np.isfinite(v) else f"{v:.3f}"

    lines = [f"σ = {row['sigma']:g}, C = {row['C']:g}: mean test {metric} over "
             f"{int(row.get('n_seeds', 0))} draws of the data",
             f"{name} {s('method')}, matrix off {s('off')}, 1-NN {s('nn')}",
             f"plain {base} {s('plain')}, tuned {base} {s('cv')}",
             f"{name} − plain {base}: {_ci(row, 'gain')}",
             f"matrix off − plain {base}: {_ci(row, 'off_gain')}",
             f"same label as 1-NN: {name} {float(row.get('agree_method', np.nan)):.2f}, "
             f"plain {base} {float(row.get('agree_plain', np.nan)):.2f}" if clf else
             f"closeness to 1-NN: {name} {float(row.get('agree_method', np.nan)):.2f}, "
             f"plain {base} {float(row.get('agree_plain', np.nan)):.2f}",
             f"→ {REGION_WORDS.get(row['region'], row['region'])}"]
    if held is not None:
        same = held["region"] == row["region"]
        lines.append(f"at {int(held.get('n_seeds', 0))} other draws: {name} − plain {base} "
                     f"{_ci(held, 'gain')}, matrix off − plain {base} "
                     f"{_ci(held, 'off_gain')}")
        lines.append("→ the same region at the other draws" if same else
                     f"→ unsettled: at the other draws, "
                     f"{REGION_WORDS.get(held['region'], held['region'])}")
    return "<br>".join(lines)


def _grid(rows: list[dict], method: str, dataset: str, x: str, regions: tuple[str, ...],
          hover: Callable[[dict], str], key: str = "region") -> AtlasGrid | None:
    """Rows on a grid of ``x`` (columns) × C (rows): region indices into ``regions`` (the
    rows' ``key``; −1 unmeasured or unknown), hover text, and the rows by cell."""
    if not rows:
        return None
    xs = tuple(sorted({float(r[x]) for r in rows}))
    Cs = tuple(sorted({float(r["C"]) for r in rows}))
    idx = np.full((len(Cs), len(xs)), -1, dtype=int)
    text = np.full((len(Cs), len(xs)), "", dtype=object)
    by_cell = {}
    for r in rows:
        i, j = Cs.index(float(r["C"])), xs.index(float(r[x]))
        idx[i, j] = regions.index(r.get(key)) if r.get(key) in regions else -1
        text[i, j] = hover(r)
        by_cell[(i, j)] = r
    return AtlasGrid(method, dataset, xs, Cs, idx, text, by_cell,
                     "smooth" if key == "smooth_region" else "paper")


def atlas_grid(cells: Iterable[dict], method: str, dataset: str,
               held: Iterable[dict] = ()) -> AtlasGrid | None:
    """The σ × C grid of ``method`` on ``dataset``; None when the atlas has no cell.
    With ``held`` (the same cells at other draws of the data), a cell whose region
    differs there is drawn as :data:`UNSETTLED` (its row keeps both regions)."""
    from ..claims_tables import cell_key

    rows = [r for r in cells if r["method"] == method and r["dataset"] == dataset]
    other = {cell_key(r): r for r in held if r["method"] == method
             and r["dataset"] == dataset}
    if other:
        rows = [{**r, "region_held": other[cell_key(r)]["region"],
                 "region": r["region"] if other[cell_key(r)]["region"] == r["region"]
                 else UNSETTLED, "region_first": r["region"]} if cell_key(r) in other
                else r for r in rows]

    def hover(r: dict) -> str:
        h = other.get(cell_key(r))
        base = {**r, "region": r.get("region_first", r["region"])}
        return hover_text(base, h)

    return _grid(rows, method, dataset, "sigma", VIEW_REGIONS, hover)


def has_smooth(cells: Iterable[dict], method: str | None = None) -> bool:
    """Whether the atlas measured the smooth rule (for ``method``, or any method)."""
    return any(r.get("smooth_region") in SMOOTH_REGIONS for r in cells
               if method is None or r["method"] == method)


def smooth_hover(row: dict, held: dict | None = None) -> str:
    """A cell's numbers under the smooth rule: its score beside the paper's rule, F off,
    the baselines, the paired differences with their intervals, the agreement with
    1-NN, and its region; with ``held`` (the same cell at other draws of the data), the
    smooth rule's difference from the baseline there and whether its region is the
    same."""
    clf = row.get("task") == CLASSIFICATION
    metric = "accuracy" if clf else "R²"
    base = "SVM" if clf else "SVR"
    name = METHOD_NAMES.get(row["method"], row["method"])

    def s(k):
        v = float(row.get("score_" + k, np.nan))
        return "—" if not np.isfinite(v) else f"{v:.3f}"

    agree = "same label as 1-NN" if clf else "closeness to 1-NN"
    lines = [
        f"σ = {row['sigma']:g}, C = {row['C']:g}: mean test {metric} over "
        f"{int(row.get('n_seeds', 0))} draws of the data",
        f"{name}: smooth rule {s('smooth')}, paper's rule {s('method')}, matrix off "
        f"{s('off')}",
        f"plain {base} {s('plain')}, tuned {base} {s('cv')}, 1-NN {s('nn')}",
        f"smooth rule − plain {base}: {_ci(row, 'smooth_gain')}",
        f"smooth rule − matrix off: {_ci(row, 'smooth_vs_off')}",
        f"tuned {base} − smooth rule: {_ci(row, 'smooth_cv_gap')}",
        f"{agree}: smooth rule {float(row.get('agree_smooth', np.nan)):.2f}, plain {base} "
        f"{float(row.get('agree_plain', np.nan)):.2f}",
        f"→ {SMOOTH_REGION_WORDS.get(row.get('smooth_region'), '')}"]
    if held is not None:
        lines.append(f"at {int(held.get('n_seeds', 0))} other draws: smooth rule − plain "
                     f"{base} {_ci(held, 'smooth_gain')}, smooth rule − matrix off "
                     f"{_ci(held, 'smooth_vs_off')}")
        lines.append("→ the same region at the other draws"
                     if held.get("smooth_region") == row.get("smooth_region") else
                     "→ unsettled: at the other draws, "
                     f"{SMOOTH_REGION_WORDS.get(held.get('smooth_region'), '')}")
    return "<br>".join(lines)


def smooth_grid(cells: Iterable[dict], method: str, dataset: str,
                held: Iterable[dict] = ()) -> AtlasGrid | None:
    """The σ × C grid of ``method`` on ``dataset`` under the smooth rule (regions index
    :data:`SMOOTH_VIEW_REGIONS`); None without a measured cell. With ``held`` (the same
    cells at other draws of the data), a cell whose smooth-rule region differs there is
    drawn as :data:`UNSETTLED`."""
    from ..claims_tables import cell_key

    if method not in SMOOTH_METHODS:
        return None
    rows = [r for r in cells if r["method"] == method and r["dataset"] == dataset
            and r.get("smooth_region") in SMOOTH_REGIONS]
    other = {cell_key(r): r for r in held if r["method"] == method
             and r["dataset"] == dataset and r.get("smooth_region") in SMOOTH_REGIONS}
    rows = [{**r, "smooth_region_first": r["smooth_region"], "smooth_region":
             r["smooth_region"] if other[cell_key(r)]["smooth_region"] == r["smooth_region"]
             else UNSETTLED} if cell_key(r) in other else r for r in rows]

    def hover(r: dict) -> str:
        first = {**r, "smooth_region": r.get("smooth_region_first", r["smooth_region"])}
        return smooth_hover(first, other.get(cell_key(r)))

    return _grid(rows, method, dataset, "sigma", SMOOTH_VIEW_REGIONS, hover,
                 key="smooth_region")


def smooth_summary_sentence(grid: AtlasGrid) -> str:
    """How many of a smooth-rule grid's cells fall in each region, and where the rule
    helps, how many of those owe it to F at test time (beyond F switched off)."""
    n = int(np.sum(grid.regions >= 0))
    counts = {r: int(np.sum(grid.regions == i)) for i, r in enumerate(SMOOTH_VIEW_REGIONS)}
    parts = [f"{c} {SMOOTH_REGION_SHORT.get(r, r)}" for r, c in counts.items() if c]
    name = METHOD_NAMES.get(grid.method, grid.method)
    text = (f"{name} with the smooth rule on {SETS[grid.dataset].title}: of {n} settings "
            f"of σ and C, " + ", ".join(parts) + ".")
    helps = [r for r in grid.rows.values() if r.get("smooth_region") == "no_copy"]
    if helps:
        beyond = sum(r.get("smooth_vs_off_verdict") == "holds" for r in helps)
        text += (f" Where it helps without copying ({len(helps)}), it beats the same model "
                 f"with the matrix switched off in {beyond}.")
    return text


def open_state(grid: AtlasGrid, cell: tuple[int, int], seed: int = 0
               ) -> tuple[str, dict] | None:
    """The page and the settings a click on ``cell`` opens: the method on its page at
    that σ and C, on the data set at data seed ``seed``. None for a data set no page
    shows (the generators and real sets) or a cell outside the grid."""
    if cell not in grid.rows or not SETS[grid.dataset].on_a_page:
        return None
    i, j = cell
    clf = SETS[grid.dataset].task == CLASSIFICATION
    P = {"sigma": grid.sigmas[j], "C": grid.Cs[i], "seed": int(seed)}
    if grid.rule == "smooth":          # a cell of the smooth rule's map: drawn with it
        P["extension"] = "smooth"
    if clf:
        return "classification", {**P, "method": grid.method, "dataset": grid.dataset}
    return "regression", {**P, "reg_method": PAGE_METHOD.get(grid.method, grid.method),
                          "reg_dataset": grid.dataset}


def summary_sentence(grid: AtlasGrid) -> str:
    """How many of the grid's cells fall in each region, in words (a cell the two sets
    of draws disagree on counts as unsettled, in no region)."""
    n = int(np.sum(grid.regions >= 0))
    parts = [f"{c} {REGION_SHORT.get(r, 'unsettled')}" for r, c in grid.counts.items() if c]
    name = METHOD_NAMES.get(grid.method, grid.method)
    text = (f"{name} on {SETS[grid.dataset].title}: of {n} settings of σ and C, "
            + ", ".join(parts) + ".")
    alone = [r for r in grid.rows.values() if r["region"] == "matrix_alone"]
    if alone:
        ten = sum(r.get("off_vs_plain10_verdict") != "holds" for r in alone)
        cv = sum(r.get("off_vs_cv_verdict") != "holds" for r in alone)
        base = "SVM" if SETS[grid.dataset].task == CLASSIFICATION else "SVR"
        text += (f" Where the matrix alone helps ({len(alone)}), the model with its matrix "
                 f"off is not clearly above the plain {base} with ten times the C in {ten} "
                 f"of them, nor above the tuned {base} in {cv}.")
    return text


def _npkl_hover(r: dict) -> str:
    from .atlas_npkl import NPKL_REGION_WORDS

    return "<br>".join([
        f"pairs from {100 * r['fraction']:g} % of the labels, C = {r['C']:g}: mean over "
        f"{int(r['n_seeds'])} draws of the data",
        f"Rand index: learned kernel {float(r['rand']):.3f}, k-means "
        f"{float(r['rand_kmeans']):.3f}",
        f"learned − k-means: {_ci(r, 'diff')}",
        f"→ {NPKL_REGION_WORDS[r['region']]}"])


def npkl_grid(cells: Iterable[dict], dataset: str) -> AtlasGrid | None:
    """SimpleNPKL against k-means on ``dataset``: share of labels (x) × C (y), regions
    indexing :data:`nplk_lab.model.atlas.atlas_npkl.NPKL_REGIONS`."""
    from .atlas_npkl import NPKL_REGIONS

    rows = [r for r in cells if r["dataset"] == dataset]
    return _grid(rows, "simple_npkl", dataset, "fraction", NPKL_REGIONS, _npkl_hover)


def region_legend(regions: Sequence[str] = VIEW_REGIONS) -> list[str]:
    """One line per region: its short name and what it means (the smooth rule's regions
    when ``regions`` is :data:`~nplk_lab.model.atlas.atlas.SMOOTH_REGIONS`)."""
    if tuple(regions) in (SMOOTH_REGIONS, SMOOTH_VIEW_REGIONS):
        words = {**SMOOTH_REGION_WORDS, UNSETTLED: _UNSETTLED_WORDS}
        return [f"{SMOOTH_REGION_SHORT.get(r, r)}: {words[r]}" for r in SMOOTH_VIEW_REGIONS]
    words = {**REGION_WORDS, UNSETTLED: _UNSETTLED_WORDS}
    return [f"{REGION_SHORT.get(r, r)}: {words[r]}" for r in regions]


__all__ = ["PAGE_METHOD", "REGION_LABELS", "SMOOTH_REGION_LABELS", "SMOOTH_VIEW_REGIONS",
           "UNSETTLED",
           "VIEW_REGIONS", "AtlasGrid", "atlas_grid", "choices", "has_smooth", "hover_text",
           "interval_words", "npkl_grid", "open_state", "region_legend", "smooth_grid",
           "smooth_hover", "smooth_summary_sentence", "summary_sentence"]
