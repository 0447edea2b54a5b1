"""AppTest for the Lessons page's "Download this lesson" button: it is there for a
built-in lesson and for a teacher's, drawing the page builds no file (the file is made
when the button is pressed), and the file the button gives is the lesson's, with the
page's figures inside."""

from __future__ import annotations

import json
import re

import pytest
from _app_pages import assert_clean, open_lessons

import nplk_lab.model as lab
from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons import teacher_lessons as T

pytestmark = pytest.mark.slow


def _button(at):
    found = [b for b in at.get("download_button") if b.proto.label == "Download this lesson"]
    assert len(found) == 1, [b.proto.label for b in at.get("download_button")]
    return found[0].proto


@pytest.fixture()
def pressed(monkeypatch):
    """What the page hands the button: [(file name, the callable a press runs)] (AppTest
    has no server to run a deferred download), and the titles of the files built."""
    import streamlit as st

    import nplk_lab.ui.lesson_download as D

    given: list[tuple[str, object]] = []
    built: list[str] = []

    class Spy:
        def __getattr__(self, name):
            return getattr(st, name)

        def download_button(self, label, data, **kw):
            given.append((kw["file_name"], data))
            return st.download_button(label, data, **kw)
    real = D.lesson_html
    monkeypatch.setattr(D, "st", Spy())
    monkeypatch.setattr(D, "lesson_html",
                        lambda title, *a, **k: (built.append(title), real(title, *a, **k))[1])
    monkeypatch.setattr(D, "_BUILT", type(D._BUILT)())
    return given, built


def test_the_button_is_there_and_the_page_builds_no_file(pressed):
    given, built = pressed
    at = open_lessons(lesson=4, step=2)
    _button(at)
    assert len(given) == 1
    name, press = given[0]
    assert name == "nplk-lesson-l4-learning-a-kernel-from-pairs-simplenpkl.html"
    assert built == []                      # nothing built while the page was drawn
    page = press()
    assert built == [L.lesson(4).title]
    data = json.loads(re.search(r'id="nplk-lesson">(.*?)</script>', page, re.S).group(1))
    assert [s["sentence"] for s in data["steps"]] == [s.sentence for s in L.lesson(4).steps]
    assert data["summary"] == L.lesson(4).summary
    assert press() is page and len(built) == 1       # kept: built once


def test_a_teachers_lesson_downloads_as_its_own_file(pressed):
    P = lab.defaults()
    steps = [T.teacher_step("classification", {**P, "method": "svm", "n_samples": 60},
                            "My <b>first</b> step")]
    at = open_lessons(my_lesson=T.encode_teacher_lesson(steps), step=1)
    assert_clean(at)
    _button(at)
    (name, press), = pressed[0]
    assert name == "nplk-lesson-mine-your-teacher-s-lesson.html"
    page = press()
    data = json.loads(re.search(r'id="nplk-lesson">(.*?)</script>', page, re.S).group(1))
    assert data["title"] == "Your teacher's lesson"
    assert [s["sentence"] for s in data["steps"]] == ["My <b>first</b> step"]
    assert "<b>" not in page


def test_a_greek_letter_in_a_title_is_spelt_out_in_the_file_name():
    from nplk_lab.ui.lesson_download import _file_name
    assert _file_name("L1", L.lesson(1).title) == \
        "nplk-lesson-l1-what-sigma-does-to-a-kernel.html"
    assert _file_name("mine", "ρ, γ & τ") == "nplk-lesson-mine-rho-gamma-tau.html"
