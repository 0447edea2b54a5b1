"""Run the rows: :data:`ROWS`, every row of the table in report order, and :func:`run`,
which runs them at one scale and keeps a row that raises as a failed row."""

from __future__ import annotations

import time
from collections.abc import Callable

from .row import FULL, QUICK, Row, Scale
from .rows_dank import (
    row_dank_fig1,
    row_dank_fig1b,
    row_dank_fig2,
    row_dank_fig4,
    row_dank_svr_harmonic,
    row_dank_svr_step,
    row_dank_table5,
)
from .rows_knpl_onk import row_knpl_fig2, row_knpl_fig3, row_onk_fig1, row_onk_fig3
from .rows_lab_rbf import row_lab_rbf_fig1, row_lab_rbf_fig4
from .rows_npkl import row_npkl_iris, row_npkl_table2, row_npkl_table4, row_npkl_table5
from .rows_real import REAL_ROWS

ROWS: tuple[Callable[[Scale, dict], Row], ...] = (
    row_dank_fig1, row_dank_fig1b, row_dank_fig2, row_dank_fig4, row_dank_table5,
    row_dank_svr_step, row_dank_svr_harmonic, row_knpl_fig2, row_knpl_fig3, row_onk_fig1,
    row_onk_fig3, row_npkl_table2, row_npkl_iris, row_npkl_table4, row_npkl_table5,
    row_lab_rbf_fig1, row_lab_rbf_fig4) + REAL_ROWS


def run(quick: bool = False, progress=None, only: list[str] | None = None) -> list[Row]:
    """Run every row (``only``: row function names without ``row_``, for debugging).

    ``progress(i, n, row_id)`` is called before each row. A row that raises is kept, with
    ``holds=None`` and the error as its note, so one broken solver does not hide the rest.
    """
    sc = QUICK if quick else FULL
    fns = [f for f in ROWS if only is None or f.__name__[4:] in only]
    cache: dict = {}
    rows = []
    for i, fn in enumerate(fns):
        rid = fn.__name__[4:]
        if progress is not None:
            progress(i, len(fns), rid)
        t0 = time.perf_counter()
        try:
            row = fn(sc, cache)
        except Exception as exc:  # noqa: BLE001 - reported in the table, not swallowed
            row = Row(rid, "?", rid, "(row failed)", "(row failed)", ours="(error)",
                      note=f"{type(exc).__name__}: {exc}")
        row.seconds = time.perf_counter() - t0
        rows.append(row)
    return rows
