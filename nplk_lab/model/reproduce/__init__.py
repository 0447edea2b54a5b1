"""Regenerate the five papers' reproducible results: ``python -m nplk_lab.model.reproduce``.

Every row runs the public estimators on the toy data of :mod:`nplk_core.datasets` (or on
data scikit-learn ships, :mod:`nplk_lab.model.realdata`), states the paper's number or claim,
ours (computed now, never stored) and a verdict: paired differences (method − baseline)
over 10 seeds or splits, their 95 % intervals (:mod:`nplk_lab.model.paired`), and *holds* /
*does not hold* / *inconclusive* from those intervals, labelled *by construction* where
the result follows from a parameter choice (docs/how-verdicts-are-made.md). ``--quick``
runs the same protocols and seeds on fewer points; it is the scale of the committed
report, which a test re-runs and compares verdict by verdict. Output: ``report.md``,
``results.json`` and one ``fig_<row id>.png`` per row (kaleido; skipped with a note when no
Chrome/Chromium is available). Never imports streamlit.

One module per job: :mod:`.row` (a row and the sizes of a run), :mod:`.scoring` (the
splits, baselines and scores the rows share), the rows of each paper (:mod:`.rows_dank`,
:mod:`.rows_knpl_onk`, :mod:`.rows_npkl`, :mod:`.rows_lab_rbf`) and of real data
(:mod:`.rows_real`), :mod:`.runner` (every row in report order, and running them),
:mod:`.report` (writing and reading the report), :mod:`.compare` (two runs' verdicts) and
:mod:`.cli` (the command). This package hands on the names other modules use: the row
and scale, the list of rows and the runner, the report's writer and reader, the verdict
comparison, the command, the protocol constants and the shared scoring helpers; a
paper's row functions are reached through :data:`ROWS` or their module.
"""

from .cli import main  # noqa: F401
from .compare import compare_verdicts, verdict_signature  # noqa: F401
from .report import (  # noqa: F401
    DEFAULT_OUT,
    PAPERS,
    load_results,
    table_markdown,
    write_report,
)
from .row import FULL, QUICK, ROW_KEYS, Row, Scale  # noqa: F401
from .rows_npkl import IRIS, NPKL_C, SPIRAL  # noqa: F401
from .rows_real import REAL_CLASSIFIERS, REAL_REGRESSORS, REAL_ROWS  # noqa: F401
from .runner import ROWS, run  # noqa: F401
from .scoring import (  # noqa: F401
    _acc,
    _grid,
    _one_nn,
    _pm,
    _quiet,
    _r2,
    _rse,
    _split,
    _svc,
)
