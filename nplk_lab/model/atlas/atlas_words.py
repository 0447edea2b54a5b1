"""The atlas at two sets of draws, and the lab's words at every cell and seed.

* :func:`paragraph` writes the score table's paragraph
  (:func:`nplk_lab.model.ablation.verdict`) again from one per-seed row of the atlas —
  the same scores, agreements and intervals over the test points the page would show at
  that state — so the paragraph can be run at every cell and seed of both tables;
* :func:`~nplk_lab.model.claims_tables.pair_cells` lines up a cell's summary at data
  seeds 0–9 (the atlas) with the same cell at 10–19 (the held-out table); a cell whose
  region differs between them is *unsettled*
  (:func:`~nplk_lab.model.claims_tables.unsettled`), and no sentence of the lab may rest
  on one;
* :func:`changes` counts the cells that change region (the README's table:
  :func:`nplk_lab.model.atlas.atlas_report.changes_markdown`).

Pure functions of the rows of :mod:`nplk_lab.model.atlas.atlas` (no Streamlit, no fitting).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np

from .. import paired as P
from ..claims_tables import cell_key, pair_cells, unsettled
from ..settings_table import CLASSIFICATION

# ---------------------------------------------------------------------------
# the score table's paragraph at one cell and seed
# ---------------------------------------------------------------------------

def _pt(row: dict, key: str, label: str, unit: str, n: int) -> P.Paired | None:
    m, lo, hi = (float(row.get(f"{key}_{p}", np.nan)) for p in ("mean", "lo", "hi"))
    if not (np.isfinite(m) and np.isfinite(lo) and np.isfinite(hi)):
        return None
    return P.Paired(label, unit, n, m, lo, hi)


def table_of(row: dict):
    """The score table's rows and intervals at one cell and seed: ``(rows, n_test,
    follows, nn_edge, vs_off)`` for :func:`nplk_lab.model.ablation.verdict`."""
    from ..ablation import Row

    cls = row["task"] == CLASSIFICATION
    unit = "points" if cls else "R²"
    n = int(row["n_test"])

    def r(key, agree, vs):
        s = float(row[f"score_{key}"])
        return Row(key, key, s, rel_error=float("nan") if cls else 1.0 - s,
                   agree_nn=agree, vs_plain=vs)

    rows = (r("method", float(row["agree_method"]), _pt(row, "pt_gain", "gain", unit, n)),
            r("off", float(row["agree_off"]), _pt(row, "pt_off_gain", "off", unit, n)),
            r("nn", 1.0, None),
            r("plain", float(row["agree_plain"]), None))
    return (rows, n, float(row["agree_method"]), _pt(row, "pt_edge", "edge", unit, n),
            _pt(row, "pt_vs_off", "vs off", unit, n))


def paragraph(row: dict) -> str:
    """The paragraph the score table shows at this cell and seed."""
    from ..ablation import verdict

    rows, n, follows, edge, vs_off = table_of(row)
    return verdict(row["method"], row["task"], rows, n, follows, nn_edge=edge,
                   vs_off=vs_off)


# ---------------------------------------------------------------------------
# two sets of draws
# ---------------------------------------------------------------------------

def settled_rows(atlas: Iterable[dict], held: Iterable[dict]) -> list[dict]:
    """The atlas's rows of the cells whose region is the same at both sets of draws."""
    pairs = pair_cells(atlas, held)
    return [a for a, b in pairs.values() if a["region"] == b["region"]]


def changes(atlas: Iterable[dict], held: Iterable[dict]) -> dict[str, Counter]:
    """Per method: how many cells both tables have, how many keep their region, and
    each change ``(region at 0–9, region at 10–19)``."""
    out: dict[str, Counter] = {}
    for (m, *_), (a, b) in pair_cells(atlas, held).items():
        c = out.setdefault(m, Counter())
        c["cells"] += 1
        if a["region"] == b["region"]:
            c["same"] += 1
        else:
            c[(a["region"], b["region"])] += 1
    return out


__all__ = ["cell_key", "changes", "pair_cells", "paragraph", "settled_rows", "table_of",
           "unsettled"]
