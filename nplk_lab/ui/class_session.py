"""A class that answers together, on the Lessons page: peer instruction on phones.

The teacher starts a class from a lesson: a join code shown big, a join link and its QR
code for the projector (with this machine's address on the network when the teacher's
own is ``localhost``), and a secret teacher link. Students open the join link (or type
the code), optionally type a name, and follow the teacher's step. At a question step the
teacher leads peer instruction (Crouch & Mazur, "Peer Instruction: Ten years of
experience and results", 2001), one move at a time (:mod:`.class_teacher`): everyone
votes alone; the split is shown; students talk to a neighbour and vote again; the shift
from the first vote to the second is shown; the answer is revealed, and each student
learns whether the answer they hold is right (:mod:`.class_student`). Back and Next on
the teacher's screen move the class; a student who steps away comes back with "Back to
the class". At the end, both votes per step and every answer, as CSV.

Who is who lives in the class store, never in a tab: the browser's seat (an HttpOnly
cookie, :mod:`nplk_lab.serve.class_web`) is one student, or one of the class's teacher
devices: the browser that started it and each one that opened the teacher link. So a
reload, a closed and reopened tab, a dead worker or a restarted classroom bring the
teacher back to the controls and a student back to their votes; a second tab is the same
student; a student's address opened in another browser is not that student. The address
bar carries the class's code and step, never a secret.

How screens learn of a change without a push: every class screen polls the class's
``version`` once a second (:func:`.class_common.watch`, one small read) and reruns the
page when it moved; the teacher's count polls the votes once a second.

The page calls four hooks: :func:`enter` (before the lesson is chosen: the class sets
lesson and step), :func:`bar` (below the title), :func:`question` (a question step in a
class) and :func:`start_or_join` (the page's foot, outside a class).
"""

from __future__ import annotations

import html

import streamlit as st

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_hall, class_room, class_web
from nplk_lab.serve.class_store import ClassError, format_code
from nplk_lab.serve.class_store_rules import (
    DEFAULT_CLASS_SIZE,
    MAX_NAME_CHARS,
    MAX_STUDENTS,
    WrongToken,
)

from . import class_student, class_teacher
from .class_common import (
    Klass,
    browser_seat,
    client,
    fail,
    keep_token,
    lesson_tag,
    reveal_of,
    show_error,
    step_key,
    store,
    watch,
)
from .components import browser_files
from .keys import CLASS_AT, CLASS_FOLLOW, CLASS_TO_HALL
from .present_mode import KEEP
from .state import params, safe_text

__all__ = ["Klass", "enter", "bar", "question", "start_or_join", "reveal_of", "step_key",
           "lesson_tag"]



def _leave() -> None:
    P = params()
    P["class"], P["teacher"] = "", ""
    st.session_state.pop(CLASS_AT, None)


# ---------------------------------------------------------------------------
# entering: the class sets the lesson and the step
# ---------------------------------------------------------------------------

def enter() -> Klass | None:
    """The class this page is in (None: none), after setting ``lesson``/``my_lesson``
    and ``step`` from it. A browser that has not joined gets the join form (and the page
    stops there); an unknown code or a refusal, a message."""
    P = params()
    ss = st.session_state
    code = P.get("class") or ""
    if not code:
        return None
    seat, kept = browser_seat()
    token = P.get("teacher") or ""
    P["teacher"] = ""   # a teacher link in the page's own address (``?teacher=``)
    try:
        class_room.tidy()
        if token:
            try:
                entry = store().claim_teacher(code, token, seat)
                keep_token(entry.state.code, token)
            except WrongToken:
                st.error("This teacher link is not this class's: you join as a student.")
        entry = store().enter(code, seat, client=client())
    except ClassError as exc:
        st.error(safe_text(str(exc)))
        _leave()
        return None
    state = entry.state
    code = state.code
    # the class's lesson
    lesson = state.lesson
    if lesson.startswith("L") and lesson[1:].isdigit():
        P["lesson"], P["my_lesson"] = int(lesson[1:]), ""
    elif lesson_tag("mine", P.get("my_lesson") or "") != lesson:
        st.error("This class plays its teacher's own lesson: open the class's join link "
                 "(it carries the lesson).")
        _leave()
        return None
    if entry.role == "visitor":
        if state.ended:
            st.info("This class has ended.")
            _leave()
            return None
        _join_form(code, kept)
        st.stop()
    k = Klass(code, state, seat, entry.role, entry.handle)
    if not k.teacher:
        if state.ended:
            st.info("The class has ended: the lesson stays open for you to explore.")
            _leave()
            return None
        k.following = ss.setdefault(CLASS_FOLLOW, {}).get(code, True)
    # the step: the class's, unless this page moved since the class last set it
    at = ss.get(CLASS_AT)
    moved = at is not None and int(P["step"]) != at
    if k.teacher and moved and not state.ended:
        try:
            k.state = store().advance(code, seat, int(P["step"]) - 1)
        except (ClassError, WrongToken) as exc:
            st.error(safe_text(str(exc)))
    elif not k.teacher and moved:
        k.following = ss[CLASS_FOLLOW][code] = False
    if k.teacher or k.following:
        P["step"] = k.state.step + 1
    ss[CLASS_AT] = int(P["step"])
    return k


def _join(code: str) -> None:
    ss = st.session_state
    name = (ss.get("class_join_name") or "").strip() or None
    typed = code or ss.get("class_join_code") or ""
    seat, _ = browser_seat()
    try:
        s = store()
        s.join(typed, name, seat=seat, client=client())
        state = s.state(typed)
    except (ClassError, ValueError) as exc:
        fail(exc)
        return
    ss.setdefault(CLASS_FOLLOW, {})[state.code] = True
    ss.pop(CLASS_AT, None)
    P = params()
    P["class"], P["teacher"] = state.code, ""
    if not code:
        # a code typed on the page (not the join form of a /Lessons?class= address):
        # served with the lab's routes, on to the class's page for phones, as the join
        # link and the QR code open it
        ss[CLASS_TO_HALL] = state.code


def _join_form(code: str, kept: bool) -> None:
    st.title("Join the class")
    show_error()
    st.markdown(f"Class **{format_code(code)}**")
    st.text_input("Your name (optional)", key="class_join_name", max_chars=MAX_NAME_CHARS,
                  placeholder="leave empty for a random nickname",
                  help="Only your teacher sees it, in the class's results.")
    st.button("Join", key="class_join", type="primary", on_click=_join, args=(code,),
              help="Join the class: your screen then follows your teacher's.")
    if not kept:
        st.caption("This browser keeps no cookie for the lab: a reload will make you a "
                   "new student (your earlier votes stay in the class).")


# ---------------------------------------------------------------------------
# the bar below the title
# ---------------------------------------------------------------------------

def bar(k: Klass | None, present: bool) -> None:
    """The class's panel below the page's title (nothing outside a class)."""
    if k is None:
        return
    show_error()
    if k.teacher:
        class_teacher.bar(k, present)
    else:
        _student_bar(k)
    watch(k.code, k.state.version)


def _back_to_class(code: str) -> None:
    st.session_state.setdefault(CLASS_FOLLOW, {})[code] = True
    st.session_state.pop(CLASS_AT, None)


def _to_hall(k: Klass) -> None:
    """Right after a code typed here joined the class: the browser opens the class's
    light page (to_hall.js), as the join link does; the bar's "Back to the class" stays
    for a browser that runs no script."""
    if st.session_state.pop(CLASS_TO_HALL, None) != k.code or not class_web.serving():
        return
    to = class_hall.hall_link("", k.code, params().get("my_lesson") or "")
    script = browser_files.read("to_hall.js", __package__)
    st.html(f'<span hidden data-nplk-to-hall="{html.escape(to, quote=True)}"></span>'
            f"<script>{script}</script>", unsafe_allow_javascript=True)


def _student_bar(k: Klass) -> None:
    _to_hall(k)
    with st.container(key=f"{KEEP}-class", border=True):
        c = st.columns([3, 1.4], vertical_alignment="center")
        c[0].text(f"Class {format_code(k.code)} · you are {k.handle}")
        if k.following:
            c[0].caption("Following your teacher: the step moves with the class.")
            if class_web.serving():
                # the class's own page for students: the light one (its join link's)
                c[1].link_button("Back to the class", class_hall.hall_link(
                    "", k.code, params().get("my_lesson") or ""), type="primary",
                    help="Back to the class's page for phones: the step your teacher "
                         "shows, your vote.")
        else:
            c[1].button(f"Back to the class (step {k.state.step + 1})", key="class_back",
                        type="primary", on_click=_back_to_class, args=(k.code,),
                        help="Back to the step your teacher shows.")


# ---------------------------------------------------------------------------
# the question in a class
# ---------------------------------------------------------------------------

def question(k: Klass, step: L.Step, index: int, present: bool = False) -> bool:
    """The step's question in the class; returns whether its answer is revealed here
    (the page then draws the fitted figure)."""
    if k.teacher:
        return class_teacher.question(k, step, index, present)
    return class_student.question(k, step, index)


# ---------------------------------------------------------------------------
# outside a class: start one, go back to yours, or join with a code
# ---------------------------------------------------------------------------

def _start(lesson_id: str, my_lesson: str) -> None:
    seat, _ = browser_seat()
    size = st.session_state.get("class_size_start", DEFAULT_CLASS_SIZE)
    try:
        class_room.tidy()
        started = store().start_class(lesson_tag(lesson_id, my_lesson), seat=seat,
                                      size=int(size))
    except (ClassError, ValueError) as exc:
        fail(exc)
        return
    keep_token(started.code, started.teacher_token)
    P = params()
    P["class"], P["teacher"] = started.code, ""
    P["step"] = 1
    st.session_state.pop(CLASS_AT, None)


def _back_to(code: str) -> None:
    P = params()
    P["class"], P["teacher"] = code, ""
    st.session_state.pop(CLASS_AT, None)


def start_or_join(lesson_id: str) -> None:
    """The page's foot outside a class: back to a class this browser teaches, start a
    class with this lesson, or join one."""
    show_error()
    seat, _ = browser_seat()
    try:
        mine = store().teaching(seat)
    except ClassError:
        mine = ()
    for s in mine[:3]:
        st.button(f"Back to your class {format_code(s.code)} (step {s.step + 1})",
                  key=f"class_resume_{s.code}", type="primary", icon=":material/groups:",
                  on_click=_back_to, args=(s.code,),
                  help="This browser leads that class: its controls, where it is now.")
    with st.expander("A class that answers together", expanded=bool(mine)):
        st.caption("Start a class: your students join with a code on their phones and vote "
                   "on each question; you show the split, let them talk and vote again, "
                   "show the shift, then reveal the answer for all.")
        c = st.columns([1, 1.6], vertical_alignment="bottom")
        c[0].number_input("Class size", key="class_size_start", min_value=1,
                          max_value=MAX_STUDENTS, value=DEFAULT_CLASS_SIZE, step=10,
                          help="The most students who can join (you can change it in "
                               "the class).")
        c[1].button("Start a class", key="class_start", icon=":material/groups:",
                    on_click=_start, args=(lesson_id, params().get("my_lesson") or ""),
                    help="Starts a class with this lesson at its first step.")
        st.divider()
        c = st.columns([1, 1.4, 0.8], vertical_alignment="bottom")
        c[0].text_input("Class code", key="class_join_code", max_chars=12,
                        placeholder="ABCD-EFGH",
                        help="The code on your teacher's screen (dash and case optional).")
        c[1].text_input("Your name (optional)", key="class_join_name",
                        max_chars=MAX_NAME_CHARS,
                        help="Only your teacher sees it; leave it empty for a nickname.")
        c[2].button("Join", key="class_join", on_click=_join, args=("",),
                    help="Join the class: your screen then follows your teacher's.")
