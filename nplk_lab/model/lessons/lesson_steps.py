"""A lesson's parts as data: a :class:`Lesson` is a title and its :class:`Step` s; a step
is one sentence, a lab page in a set state, the figure to draw there and a
predict-then-reveal question; its :class:`Reveal` is what the numbers measured at that
state say (the option they support, in words, and, for a step measured over several
draws of the data, a :class:`DrawTable` of each draw's numbers). The five lessons
themselves are in :mod:`.lessons`. Pure Python, no Streamlit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any
from urllib.parse import urlencode

from .. import codec
from ..presets import PAGE_FILES, PAGE_PATHS
from ..settings_table import CLASSIFICATION, REGRESSION, defaults
from .lesson_fits import at_draw, draw_seeds, spread_counts, spread_text

__all__ = ["FIGURES", "STEP_PAGES", "DrawTable", "Lesson", "Reveal", "Step", "matrix_name",
           "step_file", "step_query", "step_url"]

#: pages a lesson step can show (their figure is drawn on the Lessons page)
STEP_PAGES = ("classification", "regression", "pairwise")
#: figures a step can draw, per page
FIGURES = MappingProxyType({
    "classification": ("surface", "matrix"),
    "regression": ("curve", "bandwidth"),
    "pairwise": ("constraints", "kmeans"),
})
_PAGE_METHOD = {"classification": "method", "regression": "reg_method"}


# ---------------------------------------------------------------------------
# lessons as data
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class DrawTable:
    """Each draw's numbers behind a count over several draws of the data: one row per
    draw, the first the draw in the figure; shown folded as "Draw by draw"."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Reveal:
    """What the numbers at a step's state say: ``answer`` is the index of the option
    they support (−1: none of them), ``text`` says it in words with the numbers,
    ``numbers`` holds them for tests and the page."""

    answer: int
    text: str
    numbers: Mapping[str, float] = field(default_factory=dict)
    #: this draw's outcome in a few words, for a spread over draws ("" : the option's
    #: short name)
    label: str = ""
    #: (outcome, number of draws) over the step's ``draws`` draws of the data; empty when
    #: the step shows no spread
    spread: tuple[tuple[str, int], ...] = ()
    #: each draw's numbers, when the step is measured over several draws
    draws: DrawTable | None = None


@dataclass(frozen=True)
class Step:
    """One step: a sentence, a page in a set state, a figure and (optionally) a
    predict-then-reveal question."""

    sentence: str
    page: str
    state: Mapping[str, Any]
    figure: str
    question: str = ""
    options: tuple[str, ...] = ()
    expect: int = -1
    measure: Callable[[Mapping[str, Any]], Reveal] | None = field(default=None,
                                                                 compare=False)
    #: when > 1, the reveal also counts the outcome at this many draws of the data (this
    #: one and the next ones): the spread of a step whose answer can change with the draw
    draws: int = 0
    #: short names of the options for that count (default: the options)
    labels: tuple[str, ...] = ()

    @property
    def params(self) -> dict[str, Any]:
        """The full lab state of the step: the defaults with the step's settings."""
        return {**defaults(), **self.state}

    @property
    def method(self) -> str:
        if self.page == "pairwise":
            return "simple_npkl"
        return str(self.params[_PAGE_METHOD[self.page]])

    @property
    def task(self) -> str:
        return REGRESSION if self.page == "regression" else CLASSIFICATION

    def outcome(self, r: Reveal) -> str:
        """A draw's outcome in a few words: the reveal's label, else the option's short
        name."""
        if r.label:
            return r.label
        if r.answer < 0:
            return "none of the options"
        return (self.labels or self.options)[r.answer]

    def reveal(self) -> Reveal | None:
        """The measured answer (None for a step without a question); with ``draws``, the
        outcome at that many draws of the data is counted and said first, then this
        draw's numbers (so the count stays in view on a projector)."""
        if self.measure is None:
            return None
        p = self.params
        r = self.measure(p)
        if self.draws <= 1:
            return r
        labels = [self.outcome(r)] + [self.outcome(self.measure(at_draw(p, s)))
                                      for s in draw_seeds(p, self.draws)[1:]]
        return replace(r, text=f"{spread_text(labels)}\n\n{r.text}",
                       spread=spread_counts(labels))


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    summary: str
    steps: tuple[Step, ...]


#: a learned matrix's name in the lessons, where each symbol keeps one meaning: ONK's
#: learned kernel (near K) is K̃; G stays KNPL's multiplier (near all-ones), as F is
#: DANK's (the papers call both ONK's and KNPL's matrix G)
_LESSON_NAMES = {"onk": "K̃"}


def matrix_name(method: str, name: str | None) -> str | None:
    """The name the lessons give ``method``'s learned matrix (``name``: the lab's)."""
    return _LESSON_NAMES.get(method, name)


def step_query(step: Step) -> dict[str, str]:
    """URL query of the step's page in the step's whole state (every setting that
    matters there, so the link replaces what a session had set, like a preset)."""
    full = step.params
    return codec.encode_query(full, codec.relevant_names(step.page, full))


def step_url(step: Step) -> str:
    """A relative link that opens the step's lab page in the step's state."""
    return f"/{PAGE_PATHS[step.page]}?{urlencode(step_query(step))}"


def step_file(step: Step) -> str:
    return PAGE_FILES[step.page]
