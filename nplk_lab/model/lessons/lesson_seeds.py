"""Every lesson step measured at many draws of the data: does its statement hold there?

A step's revealed answer is measured live at one draw of the data (the state's data
seed). A sentence written around one draw can fail at the next, so :func:`measure_lessons`
measures every step of every built-in lesson at several data seeds (by default 0–9):
the step's own measure at the step's state with only ``seed`` changed, exactly as the
Lessons page would measure it on that draw. A step whose question is about several
draws (five or ten) measures, at seed ``s``, the draws ``s, s + 1, …``.

The rule the lessons keep (checked by ``tests/test_lessons.py``): every
step's expected option is the one the numbers choose at 9 or more of 10 seeds
(:data:`HOLD_AT`). ``python benchmarks/bench_lesson_seeds.py`` prints the table.
Pure Python (no Streamlit).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .lesson_fits import spread_counts
from .lessons import LESSONS, Lesson, Reveal, Step

__all__ = ["HOLD_AT", "StepAtSeeds", "measure_lessons", "measure_step", "step_at_seed",
           "table"]

#: a statement holds when the numbers choose it at this share of the seeds or more
HOLD_AT = 0.9


def step_at_seed(step: Step, seed: int) -> Step:
    """The same step on another draw of the data: only the data seed changes."""
    return replace(step, state={**step.state, "seed": int(seed)})


@dataclass(frozen=True)
class StepAtSeeds:
    """One step measured at several data seeds."""

    lesson: int
    index: int
    step: Step
    seeds: tuple[int, ...]
    reveals: tuple[Reveal, ...]
    seconds: float

    @property
    def name(self) -> str:
        return f"{self.lesson}.{self.index}"

    @property
    def statement(self) -> str:
        """The question and the option the lesson's sentences rely on."""
        return f"{self.step.question} → {self.step.options[self.step.expect]}"

    @property
    def answers(self) -> tuple[int, ...]:
        return tuple(r.answer for r in self.reveals)

    @property
    def holds(self) -> int:
        """At how many of the seeds the numbers choose the expected option."""
        return sum(a == self.step.expect for a in self.answers)

    @property
    def ok(self) -> bool:
        return self.holds >= HOLD_AT * len(self.seeds)

    @property
    def spread(self) -> tuple[tuple[str, int], ...]:
        """The outcomes over the seeds, counted (as a step's reveal counts them)."""
        return spread_counts([self.step.outcome(r) for r in self.reveals])

    @property
    def failing_seeds(self) -> tuple[int, ...]:
        return tuple(s for s, a in zip(self.seeds, self.answers, strict=True)
                     if a != self.step.expect)


def measure_step(step: Step, seeds: Iterable[int], *, lesson: int = 0, index: int = 0
                 ) -> StepAtSeeds:
    """``step``'s own measure (one draw, no spread) at each data seed."""
    if step.measure is None:
        raise ValueError("This step has no question to measure.")
    seeds = tuple(int(s) for s in seeds)
    t0 = time.perf_counter()
    reveals = tuple(step.measure(step_at_seed(step, s).params) for s in seeds)
    return StepAtSeeds(lesson, index, step, seeds, reveals, time.perf_counter() - t0)


def measure_lessons(seeds: Iterable[int] = range(10),
                    lessons: Sequence[Lesson] = LESSONS) -> list[StepAtSeeds]:
    """Every step with a question, of every lesson, at each of ``seeds``."""
    seeds = tuple(seeds)
    return [measure_step(step, seeds, lesson=les.number, index=i)
            for les in lessons for i, step in enumerate(les.steps, 1)
            if step.measure is not None]


def _spread_words(spread: Iterable[tuple[str, int]]) -> str:
    return "; ".join(f"{k} × {label}" for label, k in spread)


def table(rows: Sequence[StepAtSeeds], *, width: int = 70) -> str:
    """A Markdown table: step, statement, at how many seeds it holds, the spread."""
    out = ["| step | statement | holds | spread | seconds |", "|---|---|---|---|---|"]
    for r in rows:
        statement = r.statement if len(r.statement) <= width else \
            r.statement[:width - 1] + "…"
        flag = "" if r.ok else " ✗"
        out.append(f"| {r.name} | {statement} | {r.holds} of {len(r.seeds)}{flag} | "
                   f"{_spread_words(r.spread)} | {r.seconds:.1f} |")
    return "\n".join(out)


def summary(rows: Sequence[StepAtSeeds]) -> Mapping[str, float]:
    """How many steps hold, of how many, and the time it took."""
    return {"steps": float(len(rows)), "holding": float(sum(r.ok for r in rows)),
            "seconds": float(sum(r.seconds for r in rows))}
