"""A class's figures (nplk_lab/figures/class_counts.py), built with plotly.py's full
validation: the live count and the shift show the counts they are given, mark no option
as right until the answer is revealed, and tell the two votes apart by more than
colour."""

from __future__ import annotations

import pytest

import nplk_lab.figures as fg
from nplk_lab.figures import common as fgc

OPTIONS = ("Mostly close to 1", "Mostly close to 0", "Spread evenly between 0 and 1")


@pytest.fixture(autouse=True)
def validated_figures(monkeypatch):
    monkeypatch.setattr(fgc, "VALIDATE", True)


def labels(fig) -> list[str]:
    return list(fig.data[0].y)


def test_the_count_shows_every_option_and_marks_none_before_the_reveal():
    fig = fg.answer_counts_figure(OPTIONS, {0: 2, 2: 5}, 7, students=9)
    assert list(fig.data[0].x) == [2, 0, 5] and list(fig.data[0].text) == ["2", "0", "5"]
    assert fig.layout.title.text == "7 of 9 answered"
    assert not any("✓" in t or "right" in t for t in labels(fig))
    assert {tr.marker.color for tr in fig.data} == {fg.class_counts.COUNT_COLOR}
    # the counts keep their size however short the column (Plotly would shrink them)
    assert fig.layout.uniformtext.mode == "show"
    assert fig.layout.uniformtext.minsize >= fig.data[0].textfont.size
    titled = fg.answer_counts_figure(OPTIONS, {}, 0, title="First vote: 0 of 3")
    assert titled.layout.title.text == "First vote: 0 of 3"
    assert list(titled.data[0].x) == [0, 0, 0]


def test_the_revealed_option_is_marked_on_its_label_not_by_colour():
    fig = fg.answer_counts_figure(OPTIONS, {1: 4}, 4, correct=1)
    assert labels(fig)[1].startswith("✓ ") and labels(fig)[1].endswith("(right)")
    assert not any("✓" in t for i, t in enumerate(labels(fig)) if i != 1)
    assert len({tr.marker.color for tr in fig.data}) == 1
    for none in (-1, None, 7):             # none of the options, not said, out of range
        assert not any("✓" in t for t in labels(fg.answer_counts_figure(
            OPTIONS, {1: 4}, 4, correct=none)))


def test_the_shift_draws_both_votes_apart_by_pattern_and_name():
    fig = fg.shift_figure(OPTIONS, {0: 3, 1: 4}, {0: 6, 2: 1})
    first, second = fig.data
    assert (first.name, second.name) == ("first vote", "second vote")
    assert list(first.x) == [3, 4, 0] and list(second.x) == [6, 0, 1]
    assert first.marker.pattern.shape == "/" and not second.marker.pattern.shape
    assert fig.layout.barmode == "group" and fig.layout.showlegend
    assert fig.layout.title.text == "First vote 7, second vote 7"
    assert not any("✓" in t for t in labels(fig))
    marked = fg.shift_figure(OPTIONS, {0: 3}, {0: 3}, correct=0)
    assert labels(marked)[0].startswith("✓ ") and list(marked.data[1].y) == labels(marked)
    assert "students" in fg.alt_text(fig) and "first vote" in fg.alt_text(fig)
    # the counts keep their size however short the column (Plotly would shrink them)
    assert fig.layout.uniformtext.mode == "show"
    assert fig.layout.uniformtext.minsize >= max(t.textfont.size for t in fig.data)
