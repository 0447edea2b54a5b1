"""A class's results, from what :class:`~nplk_lab.serve.class_store.ClassStore` reads:
the summary per step (both votes of peer instruction, the shift between them, the
answers held at the end) and the two CSV files a teacher downloads. Pure functions:
no database here."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

from .class_store_rules import REVEALED, StepSummary, Vote, csv_cell, shift_of

Pairs = Mapping[tuple[int | None, int | None], int]


def step_summary(step: int, phase: int, correct: int | None, pairs: Pairs) -> StepSummary:
    """One step's summary; ``correct`` counts only once the step is revealed."""
    known = correct if phase == REVEALED else None
    shift = shift_of(pairs, known)
    held: dict[int, int] = {}
    for (a, b), n in pairs.items():
        h = a if b is None else b
        if h is not None:
            held[h] = held.get(h, 0) + n
    total = sum(held.values())
    right = None if known is None or known < 0 else held.get(known, 0)
    return StepSummary(step, known, shift, total, right,
                       None if right is None or not total else right / total)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f}"


def _n(x: int | None) -> str:
    return "" if x is None else str(x)


SUMMARY_HEADER = ["step", "first vote: answered", "first vote: right",
                  "first vote: share right (%)", "second vote: answered",
                  "second vote: right", "second vote: share right (%)",
                  "changed to the right answer", "changed away from it",
                  "normalised gain", "answers at the end", "right at the end",
                  "share right at the end (%)"]


def summary_csv(summaries: Iterable[StepSummary]) -> str:
    """The summary as CSV: steps numbered from 1, shares in percent, the normalised
    gain as a fraction (blank where a number is not defined: no right option given, no
    second vote, everyone right at the first)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")   # RFC 4180: a CR in a cell is quoted too
    w.writerow(SUMMARY_HEADER)
    for s in summaries:
        sh = s.shift
        w.writerow([s.step + 1, sh.voted_first, _n(sh.right_first), _pct(sh.share_first),
                    sh.voted_second, _n(sh.right_second), _pct(sh.share_second),
                    _n(sh.to_right), _n(sh.from_right),
                    "" if sh.gain is None else f"{sh.gain:.2f}", s.held,
                    _n(s.right_held), _pct(s.share_held)])
    return out.getvalue()


ANSWERS_HEADER = ["step", "name", "first vote", "sure (first vote)", "second vote",
                  "sure (second vote)", "changed its answer", "answer at the end",
                  "right at the end"]


def answers_csv(students: Sequence[tuple[str, str, bool]], steps: Mapping[int, int | None],
                votes: Mapping[tuple[str, int], Vote],
                options: Mapping[int, Sequence[str]] | None = None) -> str:
    """Every joined student at every step asked (a step with a phase or a vote), in the
    order they joined: ``students`` (key, handle, typed) — the name only where typed —,
    ``steps`` step -> the right option once revealed (else None), ``votes`` (key, step)
    -> the student's votes. Answers as ``options[step]``'s words, else 'option 1' ...;
    a student with no vote at a step has empty cells there. A class with no step asked
    lists each student once."""
    def said(step: int, choice: int | None) -> str:
        if choice is None:
            return ""
        words = (options or {}).get(step, ())
        return words[choice] if choice < len(words) else f"option {choice + 1}"

    def sure(x: bool | None) -> str:
        return "" if x is None else ("sure" if x else "not sure")

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")   # RFC 4180: a CR in a cell is quoted too
    w.writerow(ANSWERS_HEADER)
    for step in sorted(steps) or [None]:
        for key, handle, typed in students:
            name = csv_cell(handle) if typed else ""
            v = votes.get((key, step)) if step is not None else None
            if v is None:
                w.writerow(["" if step is None else step + 1, name] + [""] * 7)
                continue
            correct = steps[step]
            changed = "" if v.first is None or v.second is None else (
                "yes" if v.first != v.second else "no")
            right = "" if correct is None or correct < 0 or v.held is None else (
                "yes" if v.held == correct else "no")
            w.writerow([step + 1, name, said(step, v.first), sure(v.first_sure),
                        said(step, v.second), sure(v.second_sure), changed,
                        said(step, v.held), right])
    return out.getvalue()
