"""AppTest for a class that answers together: a teacher session and student sessions,
each its own AppTest, share one SQLite class store in a temporary folder (as the workers
of ``nplk-lab classroom`` do). Each AppTest is a browser: its seat is the cookie the
lab's server would give it, set here per test (AppTest sends no cookies), so "the same
browser again" is a new AppTest with the same seat.

The whole sequence of peer instruction: start, join by the link, the first vote and its
live count with who has not voted, the split, the second vote, the shift, the reveal
(the verdict on the answer held then), Next, end with the results; the teacher back at
the controls after a "reload" (a new session of the same browser), a student back with
their votes, a student's address in another browser not that student; joining by the
typed code, a hostile name refused, a made-up teacher link refused, and no names on a
student's screen. Chromium: ``test_browser_class.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import streamlit as st
from _components import figure_of
from streamlit.testing.v1 import AppTest

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_room, class_web
from nplk_lab.serve.class_store import ClassStore
from nplk_lab.serve.class_store_rules import REVEALED, REVOTE, SHIFT, SPLIT, new_seat
from nplk_lab.ui import class_common

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LESSONS_PAGE = "pages/7_Lessons.py"
TIMEOUT = 180
_BROWSER = "test_browser_seat"     # the session's "cookie", set by open_lessons


@pytest.fixture
def store_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(class_room.ENV, str(tmp_path / "classes"))
    # each AppTest's session plays a browser: its seat cookie is what the test set
    monkeypatch.setattr(class_common, "_cookies", lambda: {
        class_web.SEAT_COOKIE: st.session_state.get(_BROWSER, "")})
    yield tmp_path / "classes"


def clean(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_lessons(browser: str | None = None, *, url: str | None = None,
                 **query) -> AppTest:
    """The Lessons page in a browser (its seat: ``browser``, a new one by default;
    ``url``: the page's address as the browser shows it)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(LESSONS_PAGE)
    at.session_state[_BROWSER] = browser or new_seat()
    if url:
        at.context = {"url": url}
    for k, v in query.items():
        at.query_params[k] = str(v)
    return clean(at.run())


def q(at: AppTest) -> dict[str, str]:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def button(at: AppTest, key: str):
    return at.button(key=key)


def keys(at: AppTest) -> set[str]:
    return {b.key for b in at.button}


def start_class(lesson: int = 1) -> tuple[AppTest, str, str]:
    seat = new_seat()
    t = open_lessons(seat, lesson=lesson, step=1)
    clean(button(t, "class_start").click().run())
    query = q(t)
    assert query.get("class") and not query.get("teacher"), query
    return t, query["class"], seat


def join(code: str, name: str | None = None, browser: str | None = None) -> AppTest:
    s = open_lessons(browser, **{"class": code})
    assert s.title and s.title[0].value == "Join the class"
    if name is not None:
        s.text_input(key="class_join_name").input(name)
    return clean(button(s, "class_join").click().run())


def texts(at: AppTest) -> str:
    parts = [e.value for e in at.text] + [e.value for e in at.markdown] + \
        [e.value for e in at.caption] + [e.value for e in at.success] + \
        [e.value for e in at.error] + [e.value for e in at.info]
    return "\n".join(str(p) for p in parts)


def vote(at: AppTest, code: str, index: int, rnd: int, option: str):
    """Choose ``option`` and lock it in (the choice alone sends nothing)."""
    at.radio(key=f"nplk-keep-answer-class-{code}-{index}-{rnd}").set_value(option)
    return clean(button(at, "lesson_lock").click().run())


def chart_titles(at: AppTest) -> list[str]:
    figs = [figure_of(e) for e in at.get("bidi_component")]
    return [((f or {}).get("layout", {}).get("title") or {}).get("text") for f in figs]


@pytest.mark.slow
def test_peer_instruction_from_start_to_end_with_reloads(store_dir):
    teacher, code, laptop = start_class(1)
    assert "Join the class" in " ".join(e.label for e in teacher.expander)
    steps = L.lesson(1).steps
    opts = steps[0].options
    right = steps[0].reveal().answer
    assert right >= 0
    wrong = (right + 1) % len(opts)
    browsers = [new_seat() for _ in range(3)]
    students = [join(code, "Ada", browsers[0]), join(code, None, browsers[1]),
                join(code, "Bo", browsers[2])]
    store = ClassStore(store_dir)
    assert store.state(code).students == 3
    for s in students:
        assert "Ada" not in texts(s) or s is students[0]
        assert not keys(s) & {"class_move_4", "class_end", "lesson_present", "my_make"}
        assert not q(s).get("teacher")
        assert not [e for e in s.expander if e.label.startswith("Make your own lesson")]
    # a choice alone sends nothing, nor "Lock in" with no choice: "Lock in" votes
    clean(button(students[1], "lesson_lock").click().run())
    assert "Choose an option first, then lock it in." in texts(students[1])
    first = f"nplk-keep-answer-class-{code}-0-1"
    clean(students[0].radio(key=first).set_value(opts[right]).run())
    assert store.counts(code, 0).answered == 0
    # the first vote: Ada and the nickname wrong, Bo right; the count and who is missing
    vote(students[0], code, 0, 1, opts[wrong])
    assert store.vote_of(code, class_common.Seat(browsers[0]), 0).first == wrong
    assert f"Your vote is in: “{opts[wrong]}”" in texts(students[0])
    # choosing another option (not locked in) leaves the vote as it was, and says so
    clean(students[0].radio(key=first).set_value(opts[right]).run())
    assert store.vote_of(code, class_common.Seat(browsers[0]), 0).first == wrong
    assert f"Not sent yet: your vote is still “{opts[wrong]}”" in texts(students[0])
    vote(students[0], code, 0, 1, opts[wrong])
    vote(students[1], code, 0, 1, opts[wrong])
    clean(teacher.run())
    assert "First vote: 2 of 3" in chart_titles(teacher)
    assert "1 of 3 joined have not voted yet: Bo" in texts(teacher)
    assert "The numbers say" not in texts(teacher)
    vote(students[2], code, 0, 1, opts[right])
    clean(teacher.run())
    assert "First vote: 3 of 3" in chart_titles(teacher)
    assert "rule of thumb" in texts(teacher) and "33 %" in texts(teacher)
    # the teacher reloads: a new session of the same browser is the teacher, at the step
    teacher = open_lessons(laptop, **{"class": code})
    assert {"class_move_1", "class_move_4", "class_end"} <= keys(teacher)
    # the split
    clean(button(teacher, "class_move_1").click().run())
    assert store.state(code).phase == SPLIT
    for s in students:
        clean(s.run())
        assert any(t and t.startswith("How the class voted (3)") for t in chart_titles(s))
    # talk, then vote again: the nickname changes to the right answer; Bo again right
    clean(button(teacher, "class_move_2").click().run())
    assert store.state(code).phase == REVOTE
    for s in students:
        clean(s.run())
        assert "Talk to your neighbour" in texts(s)
    vote(students[1], code, 0, 2, opts[right])
    vote(students[2], code, 0, 2, opts[right])
    clean(teacher.run())
    assert "Second vote: 2 of 3" in chart_titles(teacher)
    assert "1 of 3 joined have not voted yet: Ada" in texts(teacher)
    # a student reloads (the same browser): the same student, the vote kept
    again = open_lessons(browsers[1], **{"class": code})
    assert again.radio(key=f"nplk-keep-answer-class-{code}-0-2").value == opts[right]
    assert store.state(code).students == 3
    # ... and the same address in another browser is not that student
    other = open_lessons(None, **{"class": code, "step": 1})
    assert other.title and other.title[0].value == "Join the class"
    # the shift, then the reveal: the verdict on the answer each holds
    clean(button(teacher, "class_move_3").click().run())
    assert store.state(code).phase == SHIFT
    assert "First vote 3, second vote 2" in chart_titles(teacher)
    clean(button(teacher, "class_move_4").click().run())
    state = store.state(code)
    assert (state.phase, state.correct) == (REVEALED, right)
    verdicts = []
    for s in students:
        clean(s.run())
        shown = texts(s)
        verdicts.append("Right: you changed" if "Right: you changed" in shown else
                        "Right." if "Right." in shown else
                        "Not quite" if "Not quite" in shown else shown)
    assert verdicts == ["Not quite", "Right: you changed", "Right."]
    assert "First vote: 33 % right (1 of 3). Second vote: 100 % right (2 of 2)." in \
        texts(teacher)
    # the teacher moves the class: students follow
    clean(button(teacher, "lesson_next").click().run())
    assert store.state(code).step == 1
    for s in students:
        clean(s.run())
        assert q(s)["step"] == "2"
    # end: both votes per step, and every student in the answers
    clean(button(teacher, "class_end").click().run())
    assert store.state(code).ended
    assert "has ended" in " ".join(e.value for e in teacher.subheader)
    lines = store.summary_csv(code, class_common.Seat(laptop)).splitlines()
    assert lines[1].startswith("1,3,1,33,2,2,100,1,0,1.00,3,2,67"), lines
    answers = store.answers_csv(code, class_common.Seat(laptop))
    assert "Ada" in answers and "Bo" in answers
    clean(students[0].run())
    assert "The class has ended" in texts(students[0])


def test_join_by_typed_code_and_refusals(store_dir):
    teacher, code, laptop = start_class(2)
    browser = new_seat()
    s = open_lessons(browser, lesson=2)
    s.text_input(key="class_join_code").input(f"{code[:4].lower()}-{code[4:].lower()}")
    clean(button(s, "class_join").click().run())
    assert q(s)["class"] == code and q(s)["lesson"] == "2"
    store = ClassStore(store_dir)
    opts = L.lesson(2).steps[0].options
    vote(s, code, 0, 1, opts[1])
    # a second tab of the same browser: the same student, its vote there
    tab = open_lessons(browser, **q(s))
    assert not [t for t in tab.title if t.value == "Join the class"]
    assert tab.radio(key=f"nplk-keep-answer-class-{code}-0-1").value == opts[1]
    vote(tab, code, 0, 1, opts[0])
    assert store.state(code).students == 1
    assert store.counts(code, 0).by_choice == {0: 1}
    # a wrong code: a plain message
    w = open_lessons(None, lesson=2)
    w.text_input(key="class_join_code").input("ZZZZ-ZZZZ")
    clean(button(w, "class_join").click().run())
    assert any("no class with this code" in e.value for e in w.error)
    # a hostile name is refused with a clear message, not shown as markup
    h = open_lessons(None, **{"class": code})
    h.text_input(key="class_join_name").input("\u202e<b>x</b>")
    clean(button(h, "class_join").click().run())
    assert h.error, "a name with a direction override must be refused"
    # a made-up teacher link cannot lead the class
    fake = open_lessons(None, **{"class": code, "teacher": "A" * 43})
    assert any("not this class's" in e.value for e in fake.error)
    assert not keys(fake) & {"class_move_1", "class_move_4"}
    # the teacher's own link (a server without the lab's routes: in the address) makes
    # another browser a teacher device
    links = [c.value for c in teacher.code if "teacher=" in c.value]
    assert links, [c.value for c in teacher.code]
    token = links[0].split("teacher=")[1].split("&")[0]
    phone = open_lessons(None, **{"class": code, "teacher": token})
    assert "class_move_1" in keys(phone) and not q(phone).get("teacher")
    # outside the class, the teacher's browser is offered its class back
    home = open_lessons(laptop, lesson=2)
    assert f"class_resume_{code}" in keys(home)
    clean(button(home, f"class_resume_{code}").click().run())
    assert q(home)["class"] == code and "class_move_1" in keys(home)


def test_a_teacher_on_localhost_gets_a_join_link_phones_can_open(store_dir, monkeypatch):
    """The teacher's own address is this computer's (localhost): phones cannot open it.
    Behind ``nplk-lab classroom`` the join link and its QR code use the address the
    command printed (its network address), and say so; on a lab open to this computer
    only, the teacher is told how to let a class in."""
    here = "http://localhost:8501/Lessons"
    monkeypatch.setenv(class_web.PUBLIC_URL_ENV, "http://192.0.2.44:8501")
    t = open_lessons(url=here, lesson=1, step=1)
    clean(button(t, "class_start").click().run())
    code = q(t)["class"]
    links = [c.value for c in t.code if "class=" in c.value]
    assert links[0] == f"http://192.0.2.44:8501/Lessons?class={code}", links
    assert any("address on the network, 192.0.2.44" in w.value for w in t.warning)
    monkeypatch.delenv(class_web.PUBLIC_URL_ENV)
    t.run()
    assert [c.value for c in t.code if "class=" in c.value][0].startswith(here)
    assert any("open on this computer only" in w.value for w in t.warning)
    # a teacher on the network's address: no warning
    far = open_lessons(url="http://192.0.2.44:8501/Lessons", lesson=1, step=1)
    clean(button(far, "class_start").click().run())
    assert not [w for w in far.warning if "Phones cannot" in w.value]
