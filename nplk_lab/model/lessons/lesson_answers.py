"""A student's locked-in answers to a lesson, as the short text the Lessons page keeps in
its link (``answers=0-2``): one character per step, the index of the option locked in
(``0``–``9``) or ``-`` for a step not answered (or without a question); trailing ``-``
dropped. The text belongs to the lesson the link shows: a refresh, Back and Next, or a
page switch keep it, and a new lesson starts with none.

The text comes from a URL, so nothing in it is trusted: :func:`read_answers` keeps only
characters that name an option of their step's question and reports the rest, so a
damaged link loses an answer, never the lesson.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["UNANSWERED", "answers_text", "lock_answer", "read_answers"]

#: the character of a step without an answer
UNANSWERED = "-"


def read_answers(text: str, options: Sequence[Sequence[str]]
                 ) -> tuple[list[int | None], list[str]]:
    """The answers ``text`` holds for a lesson whose steps offer ``options`` (an empty
    sequence for a step without a question): one entry per step, the option's index or
    None; and notes on what was dropped (a character that names no option of its step,
    or more characters than the lesson has steps)."""
    out: list[int | None] = [None] * len(options)
    notes: list[str] = []
    text = str(text or "")
    if len(text) > len(options):
        notes.append(f"The link holds answers for {len(text)} steps; this lesson has "
                     f"{len(options)}: the extra ones are left out.")
    for i, (ch, opts) in enumerate(zip(text, options, strict=False)):
        if ch == UNANSWERED:
            continue
        if ch.isascii() and ch.isdigit() and int(ch) < len(opts):
            out[i] = int(ch)
        else:
            notes.append(f"Step {i + 1}'s answer in the link names no option of its "
                         "question: that step is not answered.")
    return out, notes


def answers_text(answers: Sequence[int | None]) -> str:
    """The text of ``answers`` (see the module docstring); "" when none is given."""
    if any(a is not None and not 0 <= int(a) <= 9 for a in answers):
        raise ValueError("an answer is an option's index, 0 to 9")
    return "".join(UNANSWERED if a is None else str(int(a)) for a in answers
                   ).rstrip(UNANSWERED)


def lock_answer(text: str, options: Sequence[Sequence[str]], step: int, choice: int) -> str:
    """``text`` with step ``step``'s (0-based) answer locked to ``choice``; an answer
    already locked stays as it was (a prediction is made once, before the reveal)."""
    answers, _ = read_answers(text, options)
    if not 0 <= step < len(answers) or not 0 <= choice < len(options[step]):
        raise ValueError(f"step {step + 1} has no option {choice + 1}")
    if answers[step] is None:
        answers[step] = choice
    return answers_text(answers)
