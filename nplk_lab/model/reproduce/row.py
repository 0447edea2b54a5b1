"""One row of the reproduction table (:class:`Row`) and the sizes of a run (:class:`Scale`:
:data:`FULL`, the papers' sizes, and :data:`QUICK`, the committed report's).

A row states a paper's claim and number, ours (computed now, never stored) and a verdict
judged from paired differences (:mod:`nplk_lab.model.paired`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import paired as P

ROW_KEYS = ("id", "paper", "item", "claim", "paper_value", "ours", "holds", "verdict",
            "by_construction", "stats", "note", "preset", "figure")


@dataclass
class Row:
    """One reproduced result (the ``results.json`` row plus its figure and run time).

    ``verdict`` is one of :data:`nplk_lab.model.paired.VERDICTS`, derived from the intervals of
    the judged comparisons in ``stats`` (:meth:`judge`); ``holds`` repeats it as
    True / False / None for older readers. ``by_construction`` says why a result follows
    from a parameter choice rather than from the data (empty when it does not).
    """

    id: str
    paper: str
    item: str
    claim: str
    paper_value: str
    ours: str = ""
    holds: bool | None = None
    note: str = ""
    preset: str | None = None
    figure: str | None = None
    verdict: str = P.SHOWN
    by_construction: str = ""
    stats: list = field(default_factory=list)
    fig: Any = field(default=None, repr=False)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ROW_KEYS}

    def judge(self, judged, context=(), *, extra: tuple[str, ...] = (),
              by_construction: str = "") -> None:
        """Set the verdict from the judged comparisons (and ``extra`` verdicts of parts that
        are not paired differences); ``context`` comparisons are recorded, not judged."""
        self.verdict = P.combine([p.verdict for p in judged] + list(extra))
        self.holds = P.legacy_holds(self.verdict)
        self.by_construction = by_construction
        self.stats = ([{**p.as_dict(), "judged": True} for p in judged]
                      + [{**p.as_dict(), "judged": False} for p in context])


@dataclass(frozen=True)
class Scale:
    """Sizes of one run. Both scales repeat every comparison over at least 10 seeds or
    splits (``seeds``); ``quick`` (the committed report, re-run by the tests) uses fewer
    points, the full scale the papers' sizes."""

    quick: bool
    n_clowns: int
    seeds: int
    sigmas: tuple[float, ...]
    n_fig4: int
    fig4_iter: int
    taus: tuple[float, ...]
    n_step: int
    n_harmonic: int
    n_sandwich: int
    onk_rhos: tuple[float, ...]
    n_spiral: int
    npkl_B: tuple[float, ...]
    npkl_p: tuple[float, ...]
    lab_ratios: tuple[float, ...]
    n_chirp: int
    real_n_max: int


FULL = Scale(False, 200, 10, (1.0, 4.0, 8.0), 140, 2500, (0.0, 1e-3, 1e-2, 1e-1, 1.0),
             200, 400, 200, (1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e6), 100,
             (1.0, 1.5, 2.0, 2.5, 3.0, 4.0), (1.5, 2.0, 2.5, 3.0, 4.0),
             (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9), 300, 300)
QUICK = Scale(True, 100, 10, (1.0, 4.0, 8.0), 70, 1500, (0.0, 1e-2, 1.0),
              60, 80, 100, (1e-2, 1.0, 100.0, 1e6), 100,
              (1.0, 4.0), (1.5, 2.0, 4.0), (0.05, 0.2, 0.6), 150, 150)
