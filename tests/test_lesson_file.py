"""The downloadable lesson file (``nplk_lab.model.lessons.lesson_file``): a teacher's text cannot
inject HTML or script, every built-in lesson builds under 10 MB, the figures inside are
exactly the JSON the Lessons page sends for that step (before and after the answer), and
the measured answers are the steps' own reveals. The file in a browser:
``tests/test_browser_lesson_file.py``."""

from __future__ import annotations

import json
import re

import pytest

import nplk_lab.figures as fg
from nplk_lab.model.lessons import lesson_file as LF
from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons import teacher_lessons as T
from nplk_lab.ui.lessons import step_figure

HOSTILE = ('</script><script>alert(1)</script><img src=x onerror=alert(2)> <!-- '
           '**bold** [a link](https://example.com) & &amp; "quotes"')
_DATA = re.compile(r'<script type="application/json" id="nplk-lesson">(.*?)</script>', re.S)


def _embedded(page: str) -> dict:
    found = _DATA.findall(page)
    assert len(found) == 1
    return json.loads(found[0])


def _scripts(page: str) -> int:
    return len(re.findall(r"<script\b", page, re.I))


@pytest.fixture(scope="module")
def teacher_page():
    step = T.TeacherStep("classification", {"n_samples": 80}, HOSTILE).as_step()
    from nplk_lab.ui.components.browser_files import title_fit

    return LF.lesson_html(f"Lesson {HOSTILE}", [step], step_figure,
                          fit_js=title_fit()), step


def test_a_teachers_text_stays_text(teacher_page):
    page, step = teacher_page
    # the page has only its own four scripts (Plotly.js, the data, the title fitting,
    # the player) and the sentence comes back from the data exactly as typed
    assert _scripts(page) == 4
    assert "<img" not in page
    assert page.count("</script>") == 4
    data = _embedded(page)
    assert data["steps"][0]["sentence"] == HOSTILE == step.sentence
    assert data["title"] == f"Lesson {HOSTILE}"
    # the <title> is HTML-escaped; the data holds no raw < > & at all
    head = page[:page.index("<style>")]
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in head
    blob = _DATA.findall(page)[0]
    assert not set("<>&") & set(blob)
    # the player puts text on the page with textContent only, never as HTML
    player = LF._browser_file("lesson_file.js")
    assert "innerHTML" not in player and "insertAdjacentHTML" not in player
    assert "textContent" in player


def test_a_step_without_a_question_shows_its_figure_at_once(teacher_page):
    page, step = teacher_page
    s = _embedded(page)["steps"][0]
    assert s["options"] == [] and s["question"] == "" and s["before"] is None
    assert s["after"] == json.loads(fg.figure_json(step_figure(step, True)))


def test_plotly_js_is_inside_and_nothing_is_fetched_from_a_network(teacher_page):
    page, _ = teacher_page
    js = LF.plotly_js()
    assert len(js) > 1_000_000 and LF.inline_script(js) in page
    # no element loads anything from elsewhere
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", page, re.I)
    assert _embedded(page)["config"]["plotlyServerURL"] == ""


def test_a_lesson_over_the_size_limit_is_refused(teacher_page, monkeypatch):
    _, step = teacher_page
    monkeypatch.setattr(LF, "MAX_BYTES", 1_000_000)
    with pytest.raises(ValueError, match="at most 1 MB"):
        LF.lesson_html("Too big", [step], step_figure)
    with pytest.raises(ValueError):
        LF.lesson_html("Empty", [], step_figure)


def test_a_figure_that_cannot_be_made_says_why():
    step = L.lesson(1).steps[0]

    def broken(s, revealed):
        if revealed:
            raise ValueError("no points left")
        return step_figure(s, revealed)
    s = LF.lesson_file_data("x", [step], broken)["steps"][0]
    assert s["after"] is None and s["error"].endswith("no points left")
    assert s["before"] is not None


@pytest.mark.slow
@pytest.mark.parametrize("number", [les.number for les in L.LESSONS])
def test_every_built_in_lesson_builds_under_10_mb_with_the_pages_figures(number):
    les = L.lesson(number)
    page = LF.lesson_html(les.title, les.steps, step_figure, summary=les.summary)
    size = len(page.encode("utf-8"))
    print(f"\nlesson {number}: {size / 1e6:.2f} MB")
    assert size <= LF.MAX_BYTES
    data = _embedded(page)
    assert data["title"] == les.title and data["summary"] == les.summary
    assert len(data["steps"]) == len(les.steps)
    for step, s in zip(les.steps, data["steps"], strict=True):
        assert s["sentence"] == step.sentence and s["question"] == step.question
        assert s["options"] == list(step.options)
        # the same JSON the Lessons page sends for this step, after and before an answer
        assert s["after"] == json.loads(fg.figure_json(step_figure(step, True)))
        before = step_figure(step, False)
        assert s["before"] == (None if before is None else json.loads(fg.figure_json(before)))
        rev = step.reveal()
        assert (s["answer"], s["reveal"]) == (rev.answer, rev.text)
