"""AppTest for a class that answers together (issue 32): a teacher session and student
sessions, each its own AppTest, share one SQLite class store in a temporary folder (as
the workers of ``nplk-lab classroom`` do). Start a class, join by the link (and by the
typed code), answer, the teacher's live count, reveal reaching the students, follow
the teacher, step away and come back, end with the per-step results and CSV; a
student's link cannot reveal, a hostile name is refused with a message, and a student
never sees another student's name."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from nplk_lab.model import lessons as L
from nplk_lab.serve import class_room
from nplk_lab.serve.class_store import ClassStore

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LESSONS_PAGE = "pages/7_Lessons.py"
TIMEOUT = 180



@pytest.fixture
def store_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(class_room.ENV, str(tmp_path / "classes"))
    yield tmp_path / "classes"


def clean(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_lessons(**query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(LESSONS_PAGE)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return clean(at.run())


def q(at: AppTest) -> dict[str, str]:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def button(at: AppTest, key: str):
    return at.button(key=key)


def start_class(lesson: int = 1) -> tuple[AppTest, str, str]:
    t = open_lessons(lesson=lesson, step=1)
    clean(button(t, "class_start").click().run())
    query = q(t)
    # the token is in the teacher's link on the panel, never in the address bar (a
    # projector shows it to the room)
    assert query.get("class") and not query.get("teacher"), query
    links = [c.value for c in t.code if "teacher=" in c.value]
    assert len(links) == 1, [c.value for c in t.code]
    token = parse_qs(urlsplit(links[0]).query)["teacher"][-1]
    return t, query["class"], token


def join(code: str, name: str | None = None) -> AppTest:
    s = open_lessons(**{"class": code})
    assert s.title and s.title[0].value == "Join the class"
    if name is not None:
        s.text_input(key="class_join_name").input(name)
    return clean(button(s, "class_join").click().run())


def texts(at: AppTest) -> str:
    parts = [e.value for e in at.text] + [e.value for e in at.markdown] + \
        [e.value for e in at.caption] + [e.value for e in at.success] + \
        [e.value for e in at.error] + [e.value for e in at.info]
    return "\n".join(str(p) for p in parts)


def answer_radio(at: AppTest, code: str, index: int):
    return at.radio(key=f"nplk-keep-answer-class-{code}-{index}")


@pytest.mark.slow
def test_class_start_join_answer_reveal_follow_end(store_dir):
    teacher, code, token = start_class(1)
    assert "Join the class" in " ".join(e.label for e in teacher.expander)
    steps = L.lesson(1).steps
    right = steps[0].reveal().answer
    assert right >= 0
    wrong = (right + 1) % len(steps[0].options)

    students = [join(code, "Ada"), join(code), join(code, "Bo")]
    store = ClassStore(store_dir)
    assert store.state(code).students == 3
    # a student never sees another student's name, and never the teacher's controls
    for s in students:
        assert "Ada" not in texts(s) or s is students[0]
        assert not [b for b in s.button if b.key in ("class_reveal", "class_end")]
        assert q(s).get("teacher", "") == ""
        # nor the teacher's tools: presenting, the lesson file, a lesson of their own
        assert not [b for b in s.button if b.key in ("lesson_present", "my_make")]
        assert not [e for e in s.expander if e.label.startswith("Make your own lesson")]
    assert [b for b in teacher.button if b.key == "lesson_present"]
    # answers: two right, one wrong
    for s, pick in zip(students, (right, right, wrong), strict=True):
        clean(answer_radio(s, code, 0).set_value(steps[0].options[pick]).run())
    counts = store.counts(code, 0)
    assert counts.answered == 3 and counts.by_choice == {right: 2, wrong: 1}
    # the teacher's live count shows them, the right one not marked
    clean(teacher.run())
    import nplk_lab.ui.components.chart as chart_component
    figs = [chart_component.figure_of(e) for e in teacher.get("bidi_component")]
    titles = [((f or {}).get("layout", {}).get("title") or {}).get("text") for f in figs]
    assert "3 of 3 answered" in titles, titles
    assert "The numbers say" not in texts(teacher)
    # reveal: each student's next run (the poll's rerun) shows the verdict
    clean(button(teacher, "class_reveal").click().run())
    assert store.state(code).revealed
    for s, ok in zip(students, (True, True, False), strict=True):
        clean(s.run())
        shown = texts(s)
        assert ("Right." in shown) == ok, shown
        assert answer_radio(s, code, 0).disabled
    # the teacher moves the class: students follow
    clean(button(teacher, "lesson_next").click().run())
    assert store.state(code).step == 1
    for s in students:
        clean(s.run())
        assert q(s)["step"] == "2"
    # a student steps away and comes back with one click
    away = students[1]
    clean(button(away, "lesson_next").click().run())
    assert q(away)["step"] == "3"
    clean(teacher.run())
    assert store.state(code).step == 1           # a student cannot move the class
    clean(button(away, "class_back").click().run())
    assert q(away)["step"] == "2"
    # end: the summary per step and the CSV
    clean(button(teacher, "class_end").click().run())
    assert store.state(code).ended
    assert "has ended" in " ".join(e.value for e in teacher.subheader)
    csv = store.summary_csv(code, token)
    assert csv.splitlines()[1].startswith("1,3,2,67")
    assert "Bo" in store.answers_csv(code, token)
    clean(students[0].run())
    assert "The class has ended" in texts(students[0])


def test_join_by_typed_code_and_refusals(store_dir):
    teacher, code, token = start_class(2)
    s = open_lessons(lesson=2)
    s.text_input(key="class_join_code").input(f"{code[:4].lower()}-{code[4:].lower()}")
    clean(button(s, "class_join").click().run())
    assert q(s)["class"] == code and q(s)["lesson"] == "2"
    # a page that reconnects (a new session, e.g. on another worker) is the same student
    store = ClassStore(store_dir)
    opts = L.lesson(2).steps[0].options
    clean(answer_radio(s, code, 0).set_value(opts[1]).run())
    again = open_lessons(**q(s))
    assert not [t for t in again.title if t.value == "Join the class"]
    assert answer_radio(again, code, 0).value == opts[1]
    clean(answer_radio(again, code, 0).set_value(opts[0]).run())
    assert store.state(code).students == 1
    c = store.counts(code, 0)
    assert c.answered == 1 and c.by_choice == {0: 1}
    # a wrong code: a plain message
    w = open_lessons(lesson=2)
    w.text_input(key="class_join_code").input("ZZZZ-ZZZZ")
    clean(button(w, "class_join").click().run())
    assert any("no class with this code" in e.value for e in w.error)
    # a hostile name is refused with a clear message, not shown as markup
    h = open_lessons(**{"class": code})
    h.text_input(key="class_join_name").input("\u202e<b>x</b>")
    clean(button(h, "class_join").click().run())
    assert h.error, "a name with a direction override must be refused"
    # a student's link with a made-up teacher token cannot reveal
    fake = open_lessons(**{"class": code, "teacher": "A" * 43})
    assert any("not this class's" in e.value for e in fake.error)
    assert not [b for b in fake.button if b.key == "class_reveal"]
