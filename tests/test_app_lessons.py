"""AppTest for the Lessons page and presentation mode: a shared "lesson 2, step 3" link
opens that step; the answer stays hidden until the student picks one; the revealed
answer is the one measured at the step's state (with the outcome counted over ten
draws of the data where it can change with the draw); Back / Next move through the lesson
and into the URL; a teacher's lesson link plays with its sentences as plain text, and a
hostile one is refused with a message; present=1 hides the controls on any page; the
views a teacher collects on a lab page become one lesson link."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from _app_pages import LESSONS_PAGE, assert_clean, open_lessons, open_panel, wiggle
from _components import figure_of
from streamlit.testing.v1 import AppTest

import nplk_lab.model as lab
from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons import teacher_lessons as T

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # nplk_lab/ui/ sits next to app.py (as with `streamlit run`)
    sys.path.insert(0, str(ROOT))

TIMEOUT = 180

pytestmark = pytest.mark.slow


def query(at: AppTest) -> dict[str, str]:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def figure(at: AppTest) -> dict:
    figs = [figure_of(e) for e in at.get("bidi_component")]
    figs = [f for f in figs if f is not None and f.get("data")]
    assert len(figs) == 1, len(figs)
    return figs[0]


def trace_names(fig: dict) -> set[str]:
    return {t.get("name", "") for t in fig["data"]}


def plain(text: str) -> str:
    """A message as the student reads it (safe_text escapes Markdown with backslashes)."""
    return text.replace("\\", "")


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def lock_in(at: AppTest, key: str, option: str) -> None:
    """Choose ``option`` in the radio ``key`` (nothing is revealed yet), then lock it in."""
    at.radio(key=key).set_value(option).run()
    assert_clean(at)
    assert not at.success and not at.error, "a choice alone revealed the answer"
    at.button(key="lesson_lock").click().run()
    assert_clean(at)


def test_lesson_2_step_3_from_a_link_hides_the_answer_until_one_is_picked():
    at = open_lessons(lesson=2, step=3)
    step = L.lesson(2).steps[2]
    assert "step 3 of 6" in markdown(at)
    assert step.sentence in markdown(at)
    radio = at.radio(key="lesson_pick-L2-3")
    assert radio.value is None and list(radio.options) == list(step.options)
    # nothing revealed yet: no verdict, no numbers, the data without the fitted model
    assert not at.success and not at.error
    assert "1-NN" not in markdown(at)
    assert "decision function" not in trace_names(figure(at))
    # "Lock in" with nothing chosen reveals nothing and says what to do
    at.button(key="lesson_lock").click().run()
    assert not at.success and not at.error
    assert any("Choose an option first" in c.value for c in at.caption)

    rev = step.reveal()                       # measured at the step's state
    lock_in(at, "lesson_pick-L2-3", step.options[rev.answer])
    assert [s.value for s in at.success] == [f"Right: “{step.options[rev.answer]}”."]
    assert query(at)["answers"] == "--" + str(rev.answer)
    assert all(part in markdown(at) for part in rev.text.split("\n\n"))
    assert "1-NN" in rev.text and "F switched off" in rev.text
    assert "decision function" in trace_names(figure(at))
    # a "try it yourself" link opens the Classification page in the step's state
    links = [(e.proto.page, parse_qs(e.proto.query_string, keep_blank_values=True))
             for e in at.get("page_link")]
    page, q = next((p, q) for p, q in links if p.endswith("Classification"))
    assert {k: v[-1] for k, v in q.items()} == L.step_query(step)


def test_a_wrong_answer_names_the_measured_one():
    at = open_lessons(lesson=1, step=4)
    step = L.lesson(1).steps[3]
    rev = step.reveal()
    wrong = next(o for i, o in enumerate(step.options) if i != rev.answer)
    lock_in(at, "lesson_pick-L1-4", wrong)
    assert not at.success
    assert at.error and step.options[rev.answer] in at.error[0].value
    assert wrong in at.error[0].value


def test_a_step_whose_answer_varies_shows_the_count_over_ten_draws():
    """Lesson 3, step 3 (ONK at a small ρ): after the pick, the page gives this draw's
    numbers and the outcome counted over ten draws, as the model measures them."""
    at = open_lessons(lesson=3, step=3)
    step = L.lesson(3).steps[2]
    assert step.draws == 10
    assert "At 10 draws" not in markdown(at)
    rev = step.reveal()
    lock_in(at, "lesson_pick-L3-3", step.options[rev.answer])
    assert [s.value for s in at.success] == [f"Right: “{step.options[rev.answer]}”."]
    shown = markdown(at)
    assert all(part in shown for part in rev.text.split("\n\n"))
    assert "At 10 draws of the data (this one and the next nine)" in shown
    assert sum(k for _, k in rev.spread) == 10
    for label, k in rev.spread:
        assert f"“{label}” at {k}" in shown


def test_back_and_next_step_through_the_lesson_and_into_the_url():
    at = open_lessons(lesson=4, step=1)
    assert query(at)["step"] == "1" and query(at)["lesson"] == "4"
    back = at.button(key="lesson_back")
    assert back.disabled
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    assert query(at)["step"] == "2" and "step 2 of 4" in markdown(at)
    at.button(key="lesson_back").click().run()
    assert query(at)["step"] == "1"
    # a step beyond the lesson's end is clamped to the end of the lesson
    at2 = open_lessons(lesson=4, step=9)
    assert "the end" in markdown(at2) and query(at2)["step"] == "5"
    at2.button(key="lesson_back").click().run()
    assert "step 4 of 4" in markdown(at2) and query(at2)["step"] == "4"


def test_a_teachers_lesson_plays_with_its_sentences_as_plain_text():
    P = lab.defaults()
    hostile = "Look <img src=x onerror=alert(1)> **here** [x](http://evil)"
    steps = [T.teacher_step("classification", {**P, "method": "svm", "n_samples": 60},
                            hostile),
             T.teacher_step("regression", {**P, "n_samples": 60}, "Second step.")]
    at = open_lessons(my_lesson=T.encode_teacher_lesson(steps), step=1)
    assert "step 1 of 2" in markdown(at)
    assert hostile in [t.value for t in at.text]           # st.text: never markup
    assert hostile not in markdown(at)
    assert not at.radio                                       # no question: nothing hidden
    assert "decision function" in trace_names(figure(at))
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    assert "Second step." in [t.value for t in at.text]
    assert "DANK-SVR" in trace_names(figure(at))             # the page's default regressor


def test_a_damaged_teachers_lesson_is_refused_with_a_message():
    at = open_lessons(my_lesson="AAAAbbbbCCCC", step=2)
    assert any("This lesson link cannot be opened" in plain(e.value) for e in at.error)
    assert "step 2 of" in markdown(at)                        # the built-in lesson instead
    at = open_lessons(my_lesson="<script>alert(1)</script>")
    assert any("my_lesson" in plain(w.value) and "invalid" in w.value for w in at.warning)


def test_present_hides_the_controls_on_the_lessons_page_and_any_page():
    at = open_lessons(lesson=2, step=1, present=1)
    html = "\n".join(h.proto.body for h in at.get("html"))
    assert "stSidebar" in html and "display: none" in html
    assert at.button(key="present_exit")
    assert not at.selectbox                                   # the lesson picker is not drawn
    assert at.radio(key="lesson_pick-L2-1")                   # the question stays
    assert query(at)["present"] == "1"
    at.button(key="present_exit").click().run()
    assert query(at)["present"] == "0" and at.selectbox

    page = AppTest.from_file(str(ROOT / "pages/1_Classification.py"), default_timeout=TIMEOUT)
    page.query_params["present"] = "1"
    page.query_params["n_samples"] = "60"
    page.run()
    assert_clean(page)
    assert "stSidebar" in "\n".join(h.proto.body for h in page.get("html"))
    assert page.button(key="present_exit")


def test_exit_presentation_on_home_which_does_not_rewrite_its_url():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["present"] = "1"
    at.run()
    assert_clean(at)
    assert at.button(key="present_exit")
    at.button(key="present_exit").click().run()
    assert_clean(at)
    assert not [b for b in at.button if b.key == "present_exit"]
    at.run()                                   # and it stays off on the next run
    assert not [b for b in at.button if b.key == "present_exit"]


def test_present_presents_and_its_link_is_plain_text_with_no_empty_parameter():
    at = open_lessons(lesson=3, step=2)
    code = [c.value for c in at.code if "present=1" in c.value]
    assert code, "no link shown"
    q = parse_qs(urlsplit(code[-1]).query, keep_blank_values=True)
    assert {k: v[-1] for k, v in q.items()} == {"present": "1", "lesson": "3", "step": "2"}
    at.button(key="lesson_present").click().run()
    assert_clean(at)
    assert query(at)["present"] == "1" and at.button(key="present_exit")
    assert any("step 2 of" in c.value for c in at.caption) and not at.selectbox
    assert "" not in query(at).values()                      # no empty parameter


def test_a_sentence_typed_in_the_collector_outlives_closing_its_panel():
    """The collector's panel draws its widgets only while open, and Streamlit forgets
    a widget's value once it is not drawn: a sentence typed and a question chosen but
    not yet added come back when the panel opens again, after moves; once added, the
    next step starts empty."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/1_Classification.py")
    at.query_params["n_samples"] = "60"
    at.query_params["method"] = "svm"
    at.run()
    open_panel(at, "present", "classification")
    at.text_input(key="collect_text_classification").input("Watch the margin.").run()
    chosen = "vs_1nn"      # the question the SVM's step can ask: against 1-NN
    at.selectbox(key="collect_ask_classification").set_value(chosen).run()
    assert at.selectbox(key="collect_ask_classification").value == chosen
    open_panel(at, "present", "classification", is_open=False)
    assert not at.text_input                  # closed: its widgets are not drawn
    wiggle(at, "C")
    at.run()
    assert_clean(at)
    open_panel(at, "present", "classification")
    assert at.text_input(key="collect_text_classification").value == "Watch the margin."
    assert at.selectbox(key="collect_ask_classification").value == chosen
    at.button(key="collect_add_classification").click().run()
    assert_clean(at)
    assert at.text_input(key="collect_text_classification").value == ""
    open_panel(at, "present", "classification", is_open=False)
    open_panel(at, "present", "classification")
    assert at.text_input(key="collect_text_classification").value == ""


def test_views_collected_on_a_lab_page_become_one_lesson_link():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/1_Classification.py")
    at.query_params["n_samples"] = "60"
    at.query_params["method"] = "svm"
    at.run()
    assert_clean(at)
    assert not at.text_input        # the panel, closed, draws its label alone
    open_panel(at, "present", "classification")
    at.text_input(key="collect_text_classification").input("See the margin.").run()
    at.button(key="collect_add_classification").click().run()
    assert_clean(at)
    at.switch_page(LESSONS_PAGE).run()
    assert_clean(at)
    assert any(t.value.endswith("See the margin.") for t in at.text)
    at.button(key="my_make").click().run()
    link = [c.value for c in at.code if "my_lesson=" in c.value]
    assert link
    token = parse_qs(urlsplit(link[-1]).query)["my_lesson"][-1]
    steps, msgs = T.decode_teacher_lesson(token)
    assert msgs == [] and len(steps) == 1
    assert steps[0].page == "classification" and steps[0].sentence == "See the margin."
    assert steps[0].state["method"] == "svm" and steps[0].state["n_samples"] == 60
    at.button(key="my_open").click().run()
    assert_clean(at)
    assert "step 1 of 1" in markdown(at) and "See the margin." in [t.value for t in at.text]


def test_a_question_chosen_on_a_lab_page_is_asked_in_the_teachers_lesson():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/1_Classification.py")
    at.query_params["n_samples"] = "60"
    at.query_params["method"] = "knpl"
    at.run()
    assert_clean(at)
    open_panel(at, "present", "classification")
    ask = at.selectbox(key="collect_ask_classification")
    assert ask.options[0].startswith("No question")
    ask.set_value("vs_svm").run()
    at.text_input(key="collect_text_classification").input("Predict, then look.").run()
    at.button(key="collect_add_classification").click().run()
    assert_clean(at)
    at.switch_page(LESSONS_PAGE).run()
    assert any("asks: On the test points, does KNPL" in t.value for t in at.text)
    at.button(key="my_make").click().run()
    at.button(key="my_open").click().run()
    assert_clean(at)
    radio = at.radio[0]
    assert radio.options == list(T.QUESTIONS["vs_svm"].options)
    key = radio.key
    drawn = [figure_of(e) for e in at.get("bidi_component")]
    assert not [f for f in drawn if f and "decision function" in trace_names(f)], \
        "the fitted surface is the answer: hidden until the class has answered"
    step = T.decode_teacher_lesson(query(at)["my_lesson"])[0][0].as_step()
    rev = step.measure(step.params)
    lock_in(at, key, step.options[rev.answer])
    assert "decision function" in trace_names(figure(at))
    assert [e.value for e in at.success] == [f"Right: “{step.options[rev.answer]}”."]
    assert any(plain(rev.text) in plain(m.value) for m in at.markdown)


def test_the_last_step_leads_to_the_students_answers_and_the_next_lesson():
    lesson = L.lesson(1)
    n = len(lesson.steps)
    at = open_lessons(lesson=1, step=n)
    nxt = at.button(key="lesson_next")
    assert nxt.label == "Finish ▶" and not nxt.disabled
    # answer the last step's question wrong, leave the others unanswered
    step = lesson.steps[n - 1]
    rev = step.reveal()
    wrong = next(o for i, o in enumerate(step.options) if i != rev.answer)
    lock_in(at, f"lesson_pick-L1-{n}", wrong)
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    assert query(at)["step"] == str(n + 1)
    assert "the end" in markdown(at)
    # the answers as a table in the lesson's own text: one row per question
    text = next(plain(m.value) for m in at.markdown if m.value.startswith("| step |"))
    cells = [[c.strip() for c in line.strip("|").split("|")]
             for line in text.splitlines()[2:]]
    asked = [i for i, s in enumerate(lesson.steps, 1) if s.question]
    assert [int(r[0]) for r in cells] == asked
    last = next(r for r in cells if r[0] == str(n))
    assert last[2:] == [wrong, step.options[rev.answer], "not quite"]
    # unanswered questions keep their answer hidden
    assert {r[3] for r in cells if r[0] != str(n)} <= {"(answer to see it)"}
    assert f"You answered **1 of {len(asked)}** questions; **0** of your" in markdown(at)
    at.button(key="lesson_after").click().run()
    assert_clean(at)
    assert query(at)["lesson"] == "2" and query(at)["step"] == "1"


def test_the_last_lesson_ends_without_a_next_one():
    n = len(L.LESSONS[-1].steps)
    at = open_lessons(lesson=L.LESSONS[-1].number, step=n + 1, answers="1")
    assert "the end" in markdown(at)
    assert not [b for b in at.button if b.key == "lesson_after"]
    at.button(key="lesson_again").click().run()
    assert query(at)["step"] == "1" and "answers" not in query(at)   # cleared


def test_answers_stay_with_the_lesson_through_back_next_and_a_new_session():
    """Answers locked in are kept when the step changes and come back from the link in
    a new session (a refresh); a damaged answer in the link is dropped with a note;
    another lesson starts with none."""
    lesson = L.lesson(1)
    at = open_lessons(lesson=1, step=1)
    picks = {}
    for k in (1, 2):
        step = lesson.steps[k - 1]
        picks[k] = (step.reveal().answer + 1) % len(step.options)
        lock_in(at, f"lesson_pick-L1-{k}", step.options[picks[k]])
        at.button(key="lesson_next").click().run()
    at.button(key="lesson_back").click().run()
    at.button(key="lesson_back").click().run()
    assert "step 1 of 5" in markdown(at) and at.error          # still answered
    assert not [r for r in at.radio if r.key == "lesson_pick-L1-1"]
    q = query(at)
    assert q["answers"] == f"{picks[1]}{picks[2]}"
    again = open_lessons(**q)                                  # a refresh: a new session
    assert at.error and again.error[0].value == at.error[0].value
    damaged = open_lessons(lesson=1, step=1, answers=f"9{picks[2]}")
    assert any("Step 1's answer" in w.value for w in damaged.warning)
    assert query(damaged)["answers"] == f"-{picks[2]}"
    assert damaged.radio(key="lesson_pick-L1-1")               # step 1 asks again
    damaged.selectbox(key="lesson_pick").set_value(2).run()
    assert "answers" not in query(damaged)


def test_a_lessons_comparison_is_the_one_the_page_it_opens_shows():
    """Lesson 2 step 1's reveal gives DANK's difference from the plain SVM with its 95 %
    interval; "Try it yourself" opens the Classification page in the step's state, whose
    score table shows the same difference and interval."""
    import re

    step = L.lesson(2).steps[0]
    g = L.dank_gain(step.params)
    rev = step.reveal()
    shown = f"{g['diff']:+.1f} points, 95 % interval {g['lo']:+.1f} to {g['hi']:+.1f}"
    assert shown.replace("-", "−") in rev.text
    at = AppTest.from_file(str(ROOT / "pages/1_Classification.py"), default_timeout=TIMEOUT)
    for k, v in L.step_query(step).items():
        at.query_params[k] = v
    at.run()
    assert_clean(at)
    table = next(plain(m.value) for m in at.markdown if "against the plain SVM" in m.value)
    row = next(line for line in table.splitlines() if line.startswith("| DANK ("))
    got = re.search(r"([+-]?\d+\.\d) points \(([+-]?\d+\.\d) to ([+-]?\d+\.\d)\)", row)
    assert got, row
    assert [float(x) for x in got.groups()] == pytest.approx(
        [g["diff"], g["lo"], g["hi"]], abs=0.051)
