"""The answers a Lessons link carries (``answers=``): read back exactly as written, a
damaged character costs its own step only, and an answer is locked in once."""

from __future__ import annotations

import random

import pytest

from nplk_lab.model import codec
from nplk_lab.model.lessons.lesson_answers import answers_text, lock_answer, read_answers

OPTIONS = [("a", "b", "c"), (), ("a", "b"), ("a", "b", "c"), ("a", "b", "c")]


def test_answers_round_trip_through_the_text_and_the_link():
    rng = random.Random(0)
    for _ in range(200):
        answers = [None if not opts or rng.random() < 0.3 else rng.randrange(len(opts))
                   for opts in OPTIONS]
        text = answers_text(answers)
        assert codec.coerce("answers", text) == text        # a valid link token
        assert read_answers(text, OPTIONS) == (answers, [])
    assert answers_text([None] * 5) == "" and answers_text([0, None, None]) == "0"


def test_a_damaged_answer_costs_its_step_only():
    got, notes = read_answers("3-1x2", OPTIONS)      # 3: no 4th option; x: no option
    assert got == [None, None, 1, None, 2]
    assert len(notes) == 2 and "Step 1's" in notes[0] and "Step 4's" in notes[1]
    got, notes = read_answers("0-0" + "1" * 10, OPTIONS)   # longer than the lesson
    assert got == [0, None, 0, 1, 1] and "this lesson has 5" in notes[0]
    assert read_answers("", OPTIONS) == ([None] * 5, [])
    assert read_answers("0", [()])[0] == [None]             # a step without a question


def test_an_answer_is_locked_in_once():
    text = lock_answer("", OPTIONS, 3, 2)
    assert text == "---2"
    assert lock_answer(text, OPTIONS, 3, 0) == "---2"        # made once
    assert lock_answer(text, OPTIONS, 0, 1) == "1--2"
    with pytest.raises(ValueError):
        lock_answer(text, OPTIONS, 1, 0)                     # step 2 asks nothing
    with pytest.raises(ValueError):
        answers_text([10])
