"""A class that answers together, on the Lessons page (issue 32).

The teacher starts a class from a lesson: a join code shown big, a join link and its QR
code for the projector, and a secret teacher link (the URL with ``class`` and
``teacher``: the only link that reveals, moves or ends the class). Students open the
join link (or type the code), optionally type a name, and follow the teacher's step. At
a question step each student's answer goes to the class store; the teacher sees the live
count (a bar per option, the right one not marked) and reveals it for the class: every
student's screen then shows the figure, the numbers and whether they were right. Back
and Next on the teacher's screen move the class; a student who steps away ("Try it
yourself", or their own Back/Next) comes back with "Back to the class". At the end the
teacher sees the share of first answers right per step and downloads it as CSV.

How screens learn of a change without a push: a student's page polls the class's
``version`` once a second (a fragment, :func:`_watch`, one small read) and reruns the
page when it moved; the teacher's count polls ``counts`` once a second and draws the
bars again only when ``count_version`` moved. The store (one per process) is
:mod:`nplk_lab.serve.class_room`; its rules and limits :mod:`nplk_lab.serve.class_store_rules`.
Every text a user typed (a name) is shown as plain text; students never see names.
A student's URL carries their place (``seat``, their secret id in the store), so a page
that reconnects to another worker (a new session) answers as the same student.

The page calls three hooks: :func:`enter` (before the lesson is chosen: the class sets
lesson and step), :func:`bar` (below the title: join panel, teacher's panel, student's
status), :func:`question` (the step's question in a class) and :func:`start_or_join`
(the page's foot, outside a class).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import streamlit as st

import nplk_lab.figures as fg
from nplk_lab.model import lessons as L
from nplk_lab.serve import class_room
from nplk_lab.serve.class_store import ClassError, ClassState, format_code
from nplk_lab.serve.class_store_rules import MAX_NAME_CHARS, WrongToken

from .charts import chart
from .present_mode import KEEP, base_url
from .sharing import cached
from .state import params, safe_text

POLL_S = 1.0                       # a student's and the teacher's screens read the store
_STUDENTS = "lab_class_students"   # {code: (student id, handle)} of this session
_FOLLOW = "lab_class_follow"       # {code: bool}: this student follows the class's step
_AT = "lab_class_at"               # the step (1-based) the class last put this page at
_TEACHERS = "lab_class_teachers"   # {(code, token)}: tokens this session checked
_ERROR = "lab_class_error"         # a refusal to show on the next run
_COUNT_FIG = "lab_class_count_fig"  # (code, step, count_version, figure) last drawn


@dataclass
class Klass:
    code: str
    state: ClassState
    token: str = ""              # the teacher's token ("" for a student)
    student: str = ""            # the student's id ("" for the teacher)
    handle: str = ""
    following: bool = True

    @property
    def teacher(self) -> bool:
        return bool(self.token)


def lesson_tag(lesson_id: str, token: str) -> str:
    """What the store keeps of a class's lesson: "L2", or "mine-" and a hash of a
    teacher's own lesson (the lesson itself travels in the join link)."""
    if lesson_id == "mine":
        return "mine-" + hashlib.sha256(token.encode()).hexdigest()[:16]
    return lesson_id


def _store() -> Any:
    return class_room.store()


def _client() -> str:
    """The key that rate-limits wrong join codes: the address the proxy forwarded."""
    try:
        fwd = (st.context.headers.get("X-Forwarded-For") or "").split(",")[0].strip()
        return fwd or str(st.context.ip_address or "")
    except (AttributeError, RuntimeError):
        return ""


def _fail(exc: Exception) -> None:
    st.session_state[_ERROR] = str(exc)


def _leave() -> None:
    P = params()
    P["class"], P["teacher"], P["seat"] = "", "", ""
    st.session_state.pop(_AT, None)


# ---------------------------------------------------------------------------
# entering: the class sets the lesson and the step
# ---------------------------------------------------------------------------

def enter() -> Klass | None:
    """The class this page is in (None: none), after setting ``lesson``/``my_lesson``
    and ``step`` from it. A student who has not joined yet gets the join form (and the
    page stops there); a wrong teacher token or an unknown code a message."""
    P = params()
    ss = st.session_state
    code = P.get("class") or ""
    if not code:
        return None
    store = _store()
    try:
        class_room.tidy()
        state = store.state(code)
    except ClassError as exc:
        st.error(safe_text(str(exc)))
        _leave()
        return None
    code = state.code
    token = P.get("teacher") or ""
    if token and (code, token) not in ss.setdefault(_TEACHERS, set()):
        try:
            store.summary(code, token)
            ss[_TEACHERS].add((code, token))
        except WrongToken:
            st.error("This teacher link is not this class's: you join as a student.")
            P["teacher"] = token = ""
    if not token:   # checked earlier in this session: the session knows its teacher
        token = next((t for c, t in ss.get(_TEACHERS, ()) if c == code), "")
    # The token leaves the address bar once this session has checked it: a projector
    # shows the URL to the whole room. The teacher link (in the teacher's panel, hidden
    # while presenting) brings a new tab or a reload back as the teacher.
    P["teacher"] = ""
    # the class's lesson
    lesson = state.lesson
    if lesson.startswith("L") and lesson[1:].isdigit():
        P["lesson"], P["my_lesson"] = int(lesson[1:]), ""
    elif lesson_tag("mine", P.get("my_lesson") or "") != lesson:
        st.error("This class plays its teacher's own lesson: open the class's join link "
                 "(it carries the lesson).")
        _leave()
        return None
    k = Klass(code, state, token=token)
    if not token:
        joined = ss.setdefault(_STUDENTS, {}).get(code)
        if joined is None and P.get("seat"):
            # this page's session is new (a refresh, a restarted or replaced worker): the
            # seat in its URL keeps the student's answers theirs, not a second student's
            joined = ss[_STUDENTS][code] = (P["seat"], "")
        if joined is None:
            if state.ended:
                st.info("This class has ended.")
                _leave()
                return None
            _join_form(code)
            st.stop()
        k.student, k.handle = joined
        if state.ended:
            st.info("The class has ended: the lesson stays open for you to explore.")
            _leave()
            return None
        k.following = ss.setdefault(_FOLLOW, {}).get(code, True)
    # the step: the class's, unless this page moved since the class last set it
    at = ss.get(_AT)
    moved = at is not None and int(P["step"]) != at
    if token and moved and not state.ended:
        try:
            k.state = store.advance(code, token, int(P["step"]) - 1)
        except ClassError as exc:
            st.error(safe_text(str(exc)))
    elif not token and moved:
        k.following = ss[_FOLLOW][code] = False
    if k.teacher or k.following:
        P["step"] = k.state.step + 1
    ss[_AT] = int(P["step"])
    return k


def _join(code: str) -> None:
    ss = st.session_state
    name = (ss.get("class_join_name") or "").strip() or None
    typed = code or ss.get("class_join_code") or ""
    try:
        store = _store()
        joined = store.join(typed, name, client=_client())
        state = store.state(typed)
    except (ClassError, ValueError) as exc:
        _fail(exc)
        return
    ss.setdefault(_STUDENTS, {})[state.code] = tuple(joined)
    ss.setdefault(_FOLLOW, {})[state.code] = True
    ss.pop(_AT, None)
    P = params()
    P["class"], P["teacher"], P["seat"] = state.code, "", joined.student


def _show_error() -> None:
    err = st.session_state.pop(_ERROR, None)
    if err:
        st.error(safe_text(err))


def _join_form(code: str) -> None:
    st.title("Join the class")
    _show_error()
    st.markdown(f"Class **{format_code(code)}**")
    st.text_input("Your name (optional)", key="class_join_name", max_chars=MAX_NAME_CHARS,
                  placeholder="leave empty for a random nickname",
                  help="Only your teacher sees it, in the class's results.")
    st.button("Join", key="class_join", type="primary", on_click=_join, args=(code,),
              help="Join the class: your screen then follows your teacher's.")


# ---------------------------------------------------------------------------
# the bar below the title
# ---------------------------------------------------------------------------

def _qr_svg(link: str) -> str:
    import segno
    return segno.make(link, error="m").svg_inline(scale=6, border=2)


def join_link(k: Klass) -> str:
    q = {"class": k.code}
    if k.state.lesson.startswith("mine-"):
        q["my_lesson"] = params().get("my_lesson") or ""
    return f"{base_url()}?{urlencode(q)}"


def teacher_link(k: Klass) -> str:
    P = params()
    q = {"class": k.code, "teacher": k.token}
    if P.get("my_lesson"):
        q["my_lesson"] = P["my_lesson"]
    return f"{base_url()}?{urlencode(q)}"


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def bar(k: Klass | None, present: bool) -> None:
    """The class's panel below the page's title (nothing outside a class)."""
    if k is None:
        return
    _show_error()
    if k.teacher:
        _teacher_bar(k, present)
    else:
        _student_bar(k)


def _teacher_bar(k: Klass, present: bool) -> None:
    s = k.state
    with st.container(key=f"{KEEP}-class", border=True):
        if s.ended:
            _end_summary(k)
            return
        with st.expander(f"Join the class: {format_code(k.code)} · {s.students} joined",
                         expanded=not present or s.step == 0):
            c = st.columns([1.4, 1], vertical_alignment="center")
            c[0].markdown(f"# {format_code(k.code)}")   # our alphabet: letters, digits
            c[0].caption("Students scan the code or open the link, or type the class "
                         "code on their Lessons page; a name is optional.")
            c[0].code(join_link(k), language=None, wrap_lines=True)
            c[1].image(_qr_svg(join_link(k)), caption="Scan to join", width=220)
        if not present:
            with st.expander("Your teacher link (secret: it reveals, moves and ends the "
                             "class)"):
                st.code(teacher_link(k), language=None, wrap_lines=True)
                st.caption("Keep it to yourself; open it on the projector's computer to "
                           "present from there.")
            st.caption(f"Back and Next move the whole class. The class ends by itself after "
                       f"{s.idle_timeout_s / 3600:g} h without activity; its answers are "
                       f"deleted at {_when(s.delete_at)} (server time).")
        st.button("End the class", key="class_end", on_click=_end, args=(k.code, k.token),
                  help="Closes the answers and shows the results per step.")


def _end(code: str, token: str) -> None:
    try:
        _store().end(code, token)
    except (ClassError, WrongToken) as exc:
        _fail(exc)


def _end_summary(k: Klass) -> None:
    store = _store()
    st.subheader(f"Class {format_code(k.code)} has ended")
    steps = _steps()
    rows = []
    for s in store.summary(k.code, k.token):
        q = steps[s.step].question if s.step < len(steps) else ""
        rows.append({"step": s.step + 1, "question": q, "answered": s.answered,
                     "first answers right": "" if s.right is None else s.right,
                     "share right": "" if s.share_right is None else
                     f"{100 * s.share_right:.0f} %",
                     "changed their answer": s.changed})
    if rows:
        st.dataframe(rows, hide_index=True, key="class_summary")
    else:
        st.caption("No answers in this class.")
    c = st.columns(2)
    c[0].download_button("Results per step (CSV)", store.summary_csv(k.code, k.token),
                         file_name=f"class-{k.code}-steps.csv", mime="text/csv",
                         key="class_csv", icon=":material/download:")
    options = {i: s.options for i, s in enumerate(steps) if s.question}
    c[1].download_button("Every answer (CSV; names only where typed)",
                         store.answers_csv(k.code, k.token, options),
                         file_name=f"class-{k.code}-answers.csv", mime="text/csv",
                         key="class_answers_csv", icon=":material/download:")
    st.caption(f"The class's answers are deleted at {_when(k.state.delete_at)} (server "
               "time).")
    st.button("Leave the class", key="class_leave", on_click=_leave,
              help="Back to the lesson on your own.")


def _steps() -> Sequence[L.Step]:
    from nplk_lab.model import teacher_lessons as T
    P = params()
    if P.get("my_lesson"):
        steps, _ = cached("data", ("teacher-lesson", P["my_lesson"]),
                          lambda: T.decode_teacher_lesson(P["my_lesson"]))
        return [s.as_step() for s in steps or ()]
    return L.lesson(int(P["lesson"])).steps


def _back_to_class(code: str) -> None:
    st.session_state.setdefault(_FOLLOW, {})[code] = True
    st.session_state.pop(_AT, None)


def _student_bar(k: Klass) -> None:
    with st.container(key=f"{KEEP}-class", border=True):
        c = st.columns([3, 1.4], vertical_alignment="center")
        c[0].text(f"Class {format_code(k.code)}" +
                  (f" · you are {k.handle}" if k.handle else " · welcome back"))
        if k.following:
            c[0].caption("Following your teacher: the step moves with the class.")
        else:
            c[1].button(f"Back to the class (step {k.state.step + 1})", key="class_back",
                        type="primary", on_click=_back_to_class, args=(k.code,),
                        help="Back to the step your teacher shows.")
        _watch(k.code, k.state.version)


@st.fragment(run_every=POLL_S)
def _watch(code: str, version: int) -> None:
    """Rerun the page once the class changed (a reveal, a step, the end)."""
    try:
        now = _store().state(code).version
    except ClassError:
        now = -1
    if now != version:
        st.rerun(scope="app")


# ---------------------------------------------------------------------------
# the question in a class
# ---------------------------------------------------------------------------

def question(k: Klass, step: L.Step, index: int) -> bool:
    """The step's question in the class; returns whether its answer is revealed here
    (the page then draws the fitted figure)."""
    s = k.state
    revealed = index in s.revealed_steps
    st.markdown(f"**{step.question}**")
    if k.teacher:
        return _teacher_question(k, step, index, revealed)
    return _student_question(k, step, index, revealed)


def step_key(step: L.Step) -> tuple:
    """What a lesson step's figure and measured answer depend on: the shared caches'
    key for them."""
    return (step.page, step.figure, tuple(sorted((k, repr(v)) for k, v in
                                                 step.params.items())))


def reveal_of(step: L.Step) -> Any:
    """The step's measured answer, measured once for every session (a student who
    answers alone, the Lessons page's end screen and a class share it)."""
    return cached("figs", ("lesson-reveal",) + step_key(step) + (step.question,),
                  step.reveal)


def _teacher_question(k: Klass, step: L.Step, index: int, revealed: bool) -> bool:
    if k.state.ended:
        return True
    if not revealed:
        _count(k.code, index, tuple(step.options))
        st.button("Reveal for the class", key="class_reveal", type="primary",
                  on_click=_reveal, args=(k.code, k.token, index, step),
                  help="Every student's screen shows the figure, the numbers and whether "
                       "they were right.")
        # measured now, while the class answers, so the click reveals at once (the
        # reveal needs the step's right option; a first measurement is a fit)
        reveal_of(step)
        return False
    counts = _store().counts(k.code, index)
    chart(fg.answer_counts_figure(step.options, counts.by_choice, counts.answered,
                                  k.state.students), "class_count", "nplk-class-count")
    rev = reveal_of(step)
    if rev.answer >= 0:
        st.success(f"The numbers say “{step.options[rev.answer]}”.")
    else:
        st.warning("The numbers here fit none of the options exactly.")
    st.markdown(rev.text)
    return True


def _reveal(code: str, token: str, index: int, step: L.Step) -> None:
    try:
        rev = reveal_of(step)
        _store().reveal(code, token, index, correct=int(rev.answer))
    except (ClassError, WrongToken) as exc:
        _fail(exc)


@st.fragment(run_every=POLL_S)
def _count(code: str, index: int, options: tuple[str, ...]) -> None:
    """The live count: read once a second, the figure made again only when an answer
    (or a join) changed the class's count version."""
    ss = st.session_state
    try:
        c = _store().counts(code, index)
    except ClassError as exc:
        st.error(safe_text(str(exc)))
        return
    last = ss.get(_COUNT_FIG)
    if last is None or last[:3] != (code, index, c.count_version):
        students = _store().state(code).students
        fig = fg.answer_counts_figure(options, c.by_choice, c.answered, students)
        ss[_COUNT_FIG] = last = (code, index, c.count_version, fig)
    with st.container(key="class-count"):
        # the lab's chart component: st.plotly_chart's conversion imports pandas, which
        # another session's thread may be importing at that moment
        chart(last[3], "class_count", "nplk-class-count")


def _student_question(k: Klass, step: L.Step, index: int, revealed: bool) -> bool:
    store = _store()
    key = f"{KEEP}-answer-class-{k.code}-{index}"
    mine = store.answer_of(k.code, k.student, index)
    if key not in st.session_state and mine is not None:
        st.session_state[key] = step.options[mine.choice]
    st.radio("Your answer", step.options, index=None if key not in st.session_state
             else step.options.index(st.session_state[key]) if
             st.session_state[key] in step.options else None,
             key=key, label_visibility="collapsed", disabled=revealed,
             on_change=_answer, args=(k.code, k.student, index, key, tuple(step.options)),
             help="Pick what you predict; your teacher reveals what the lab measures.")
    if not revealed:
        st.caption("Your answer is in once picked; you can change it until your teacher "
                   "reveals the answer." if mine else
                   "Pick an answer: your teacher reveals the figure and the numbers.")
        return False
    correct = k.state.correct if index == k.state.step else None
    rev = reveal_of(step)
    right = rev.answer if correct is None else correct
    if mine is None:
        st.info("You did not answer this one.")
    elif right < 0:
        st.warning("The numbers here fit none of the options exactly.")
    elif mine.first == right:
        st.success("Right." if mine.choice == right else "Your first answer was right.")
    else:
        st.error(f"Not quite: the numbers say “{step.options[right]}”.")
    st.markdown(rev.text)
    return True


def _answer(code: str, student: str, index: int, key: str, options: tuple[str, ...]) -> None:
    pick = st.session_state.get(key)
    if pick not in options:
        return
    try:
        _store().answer(code, student, index, options.index(pick))
    except ClassError as exc:
        _fail(exc)


# ---------------------------------------------------------------------------
# outside a class: start one, or join with a code
# ---------------------------------------------------------------------------

def _start(lesson_id: str, token: str) -> None:
    try:
        class_room.tidy()
        started = _store().start_class(lesson_tag(lesson_id, token))
    except (ClassError, ValueError) as exc:
        _fail(exc)
        return
    P = params()
    P["class"], P["teacher"], P["seat"] = started.code, started.teacher_token, ""
    P["step"] = 1
    st.session_state.pop(_AT, None)
    st.session_state.setdefault(_TEACHERS, set()).add((started.code, started.teacher_token))


def start_or_join(lesson_id: str) -> None:
    """The page's foot outside a class: start a class with this lesson, or join one."""
    _show_error()
    with st.expander("A class that answers together"):
        st.caption("Start a class: your students join with a code on their phones, everyone "
                   "answers each question, you see the count and reveal the answer for all.")
        st.button("Start a class", key="class_start", icon=":material/groups:",
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
