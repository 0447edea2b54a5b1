"""The Lessons page: a built-in lesson (or a teacher's own, from its link) step by step.

Each step shows its sentence, the figure at the step's state and its question. The
student picks an answer first; only then is the fitted figure drawn (before it, the
data alone, or nothing when the figure is the answer) and the measured answer revealed
(:meth:`nplk_lab.model.lessons.lessons.Step.reveal`: the numbers, and the option they support). Back
and Next (also the ← and → keys) step through the lesson; the lesson and the step are
in the URL (``lesson``, ``step``, or ``my_lesson`` for a teacher's lesson), so a teacher
can share "lesson 2, step 3". In presentation mode the figure takes the window's
height on the left and the words go on the right (a matrix view as a 2×2 grid), so every
step fits 1280×720 and 1920×1080 without scrolling (``tests/test_browser_present_fit.py``
measures each). Figures come from the :mod:`nplk_lab.figures` builders; the
fits from :mod:`nplk_lab.model.lessons.lessons` (the same functions the pages use).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

import nplk_lab.model as lab
from nplk_lab.model.lessons import lesson_answers as A
from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons import teacher_lessons as T
from nplk_lab.model.lessons.lesson_figures import HEIGHT as _HEIGHT
from nplk_lab.model.lessons.lesson_figures import step_figure
from nplk_lab.model.presets import PAGE_PATHS

from . import class_session
from .ablation import markdown_table
from .charts import chart
from .components import browser_files
from .keys import LESSON_NO_PICK, MY_LESSON_LINK, MY_STEPS
from .lesson_download import download_lesson_button
from .present_mode import KEEP, base_url, present_url, presenting, set_present
from .sharing import cached
from .state import params, safe_text, show_messages

_FIG_KEY = "lesson_figure"
_LOCK = "lesson_lock"


#: presentation mode's figure and words columns, by figure: a plot drawn to scale (the
#: surface, the clusters) with its legend and colour bar on its right needs about 1.85
#: times the words' width at 16:9; a matrix step's panels more (its words are short)
_PRESENT_COLUMNS = {"surface": [1.85, 1], "constraints": [1.85, 1], "kmeans": [1.85, 1],
                    "matrix": [2.2, 1]}


# ---------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------

def _current() -> tuple[str, str, Sequence[L.Step], list[lab.Message]]:
    """(lesson id, title, steps, messages) of what the state asks for: the teacher's
    lesson when ``my_lesson`` is set, else built-in lesson ``lesson``."""
    P = params()
    token = P.get("my_lesson") or ""
    if token:
        steps, msgs = cached("data", ("teacher-lesson", token),
                             lambda: T.decode_teacher_lesson(token))
        if steps:
            return "mine", "Your teacher's lesson", [s.as_step() for s in steps], []
        return f"L{P['lesson']}", "", [], msgs
    lesson = L.lesson(int(P["lesson"]))
    return f"L{lesson.number}", lesson.title, lesson.steps, []


def _go(delta: int, n: int) -> None:
    P = params()
    P["step"] = int(min(max(int(P["step"]) + delta, 1), n))


def _pick_lesson() -> None:
    P = params()
    P["lesson"] = int(st.session_state["lesson_pick"])
    P["step"] = 1
    P["my_lesson"], P["answers"] = "", ""


def _options(steps: Sequence[L.Step]) -> list[tuple[str, ...]]:
    """Each step's options (none for a step without a question)."""
    return [tuple(s.options) if s.question else () for s in steps]


def _answers(steps: Sequence[L.Step]) -> list[int | None]:
    """The options locked in at each step of the lesson shown (the link's ``answers``);
    what names no option is dropped, with a note, and the link made whole again."""
    P = params()
    got, notes = A.read_answers(P.get("answers") or "", _options(steps))
    if notes:
        show_messages([lab.Message("warning", n) for n in notes])
        P["answers"] = A.answers_text(got)
    return got


def _lock(steps: Sequence[L.Step], index: int, pick_key: str) -> None:
    """"Lock in": the option chosen at step ``index`` (0-based) becomes the answer."""
    step = steps[index]
    pick = st.session_state.get(pick_key)
    if pick not in step.options:
        st.session_state[LESSON_NO_PICK] = index
        return
    P = params()
    P["answers"] = A.lock_answer(P.get("answers") or "", _options(steps), index,
                                 step.options.index(pick))
    st.session_state.pop(LESSON_NO_PICK, None)


def lessons_page() -> None:
    """The whole Lessons page below its set-up (see the module docstring)."""
    P = params()
    present = presenting()
    klass = class_session.enter()            # a class sets the lesson and the step
    lesson_id, title, steps, msgs = _current()
    if not present:
        st.title("Lessons")
        st.caption("Guided walks through the lab for a student who knows an SVM. Each step: "
                   "a sentence, a figure, and a question to answer before the figure and "
                   "the numbers give it away. ← and → step through a lesson.")
    class_session.bar(klass, present)
    show_messages(msgs)
    # a student in a class sees the class's lesson only: no presenting, no file, no
    # lesson of their own
    student = klass is not None and not klass.teacher
    if not present and not student:
        _teacher_builder()   # a teacher's way in, at the top
    if not steps:
        if msgs:
            st.info("Pick a built-in lesson below instead.")
        lesson_id, title, steps = (f"L{P['lesson']}", L.lesson(int(P["lesson"])).title,
                                   L.lesson(int(P["lesson"])).steps)
        P["my_lesson"] = ""
    if not present and not student:
        # a class keeps the lesson it started with: no choice there
        _lesson_choice(lesson_id, choose=klass is None)
    n = len(steps)
    # step n + 1 is the end of the lesson: the student's answers and what comes next
    k = int(min(max(int(P["step"]), 1), n + 1))
    P["step"] = k
    teacher = lesson_id == "mine"
    if k > n:
        _end_of_lesson(title, steps, _answers(steps), present, teacher)
        return
    step = steps[k - 1]
    answers = _answers(steps)
    ask = (klass, steps, answers, lesson_id, k, present)
    if present:
        # For a projector, nothing below the fold: the figure takes the window's height
        # on the left, the words go on the right (a matrix step's panels need the wider
        # share; its words are short)
        with st.container(key="nplk-lesson-cols"):
            fig_col, text_col = st.columns(_PRESENT_COLUMNS.get(step.figure, [1.6, 1]),
                                           gap="small")
        with text_col:
            _nav(title, k, n, present)
            _sentence(step, teacher)
            revealed = _ask(*ask)
        with fig_col:
            _figure(step, revealed, present, lesson_id, k)
        return
    _nav(title, k, n, present)
    _sentence(step, teacher)
    left, right = st.columns([1.55, 1], gap="large")
    with right:
        revealed = _ask(*ask)
        st.page_link(L.step_file(step), label="Try it yourself", icon=":material/science:",
                     query_params=L.step_query(step),
                     help="Opens the lab page in this step's state, with every control.")
    with left:
        _figure(step, revealed, present, lesson_id, k)
    if klass is None:
        class_session.start_or_join(lesson_id)
    if student:
        return
    st.divider()
    download_lesson_button(lesson_id, title, steps, step_figure, token=P["my_lesson"] or "",
                           summary="" if teacher else L.lesson(int(P["lesson"])).summary)


def _nav(title: str, k: int, n: int, present: bool) -> None:
    """Back and Next (also ← and →) and where the lesson stands; kept in presentation
    mode, where the heading goes on its own line in small print (the pinned "Exit
    presentation" button takes the row's right end)."""
    with st.container(key=f"{KEEP}-nav"):
        # (the third column leaves the pinned "Exit presentation" its room)
        c = st.columns([1, 1, 1.6] if present else [1.1, 1.1, 6],
                       vertical_alignment="center")
        # no tooltips: the buttons show their arrow keys, and a tooltip left over the
        # words below (the end of a lesson's score) by the click that opened them
        c[0].button("◀ Back", key="lesson_back", on_click=_go, args=(-1, n),
                    disabled=k <= 1, shortcut="ArrowLeft", width="stretch")
        last = k >= n
        c[1].button("Finish ▶" if last else "Next ▶", key="lesson_next", on_click=_go,
                    args=(1, n + 1), disabled=k > n, shortcut="ArrowRight",
                    width="stretch", type="primary")
        where = safe_text(f"{title} — " + (f"step {k} of {n}" if k <= n else "the end"), 200)
        # on a projector the words of the step matter more: the heading in small print
        (st.caption if present else c[2].markdown)(f"**{where}**")


def _end_of_lesson(title: str, steps: Sequence[L.Step], answers: Sequence[int | None],
                   present: bool, teacher: bool) -> None:
    """The screen after the last step: each question, the student's answer and the
    measured one (only for questions answered: the others keep their answer hidden, so
    the student can still go back and predict), the count right, and the next lesson."""
    n = len(steps)
    _nav(title, n + 1, n, present)
    rows, right, answered = [], 0, 0
    for i, (step, got) in enumerate(zip(steps, answers, strict=True), 1):
        if not step.question:
            continue
        if got is None:
            rows.append((i, step.question, "(not answered)", "(answer to see it)", ""))
            continue
        rev = class_session.reveal_of(step)
        measured = step.options[rev.answer] if rev.answer >= 0 else "none of the options"
        ok = rev.answer >= 0 and got == rev.answer
        answered += 1
        right += ok
        rows.append((i, step.question, step.options[got], measured,
                     "right" if ok else "not quite"))
    with st.container(key=f"{KEEP}-end"):
        st.markdown("**The end of the lesson**")
        if rows and not answered:
            st.markdown(f"You have not answered any of its {len(rows)} questions yet: go "
                        "back and predict before the figure gives the answer away.")
        elif rows:
            st.markdown(f"You answered **{answered} of {len(rows)}** questions; "
                        f"**{right}** of your predictions "
                        f"{'was' if right == 1 else 'were'} what the lab measured.")
        number = None if teacher else int(params()["lesson"])
        nxt = next((les for les in L.LESSONS if number is not None
                    and les.number == number + 1), None)
        c = st.columns([2.2, 1])   # the next lesson's whole title on its button
        if nxt is not None:
            c[0].button(f"Next lesson: {nxt.title}", key="lesson_after", type="primary",
                        on_click=_start_lesson, args=(nxt.number,),
                        icon=":material/arrow_forward:",
                        help="Open the next lesson at its first step.")
        elif not teacher:
            c[0].caption("That was the last lesson.")
        c[1].button("Start this lesson again", key="lesson_again", on_click=_again,
                    icon=":material/replay:",
                    help="Back to the first step, with your answers cleared.")
        # the table last: the next lesson's button stays on a 720 px screen
        if rows:   # a table in the lesson's own text size (a data grid was 13–14 px)
            head = ("step", "question", "your answer", "the numbers said", "verdict")
            st.markdown(markdown_table([dict(zip(head, map(str, r), strict=True))
                                        for r in rows]))
        else:
            st.markdown("This lesson asked no questions.")


def _start_lesson(number: int) -> None:
    P = params()
    P["lesson"], P["step"], P["my_lesson"], P["answers"] = int(number), 1, "", ""


def _again() -> None:
    P = params()
    P["step"], P["answers"] = 1, ""


def _sentence(step: L.Step, teacher: bool) -> None:
    if teacher:
        st.text(step.sentence)            # a teacher's words: plain text only
    else:
        st.markdown(step.sentence)        # the lab's own text


def _ask(klass: class_session.Klass | None, steps: Sequence[L.Step],
         answers: Sequence[int | None], lesson_id: str, k: int, present: bool) -> bool:
    """The question alone (:func:`_question`) or in a class (its store, the teacher's
    count and reveal: :mod:`.class_session`)."""
    step = steps[k - 1]
    if klass is not None and step.question:
        return class_session.question(klass, step, k - 1, present)
    return _question(steps, answers, lesson_id, k, present)


def _question(steps: Sequence[L.Step], answers: Sequence[int | None], lesson_id: str,
              k: int, present: bool) -> bool:
    """Step ``k``'s question: its options and "Lock in" until an answer is locked in
    (choosing an option reveals nothing: the arrow keys move between them), then the
    answer, the verdict and the measured numbers. True when the figure may show its
    answer (answered, or no question). Each draw's numbers, for a step measured over
    several draws, go in a collapsed "Draw by draw" (the count, said first, stays in
    view)."""
    step = steps[k - 1]
    if not step.question:
        return True
    keys = browser_files.read("lessons.js", __package__)
    st.html(f"<script>{keys}</script>", unsafe_allow_javascript=True)
    chosen = answers[k - 1]
    with st.container(key=f"{KEEP}-question"):
        st.markdown(f"**{step.question}**")
        if chosen is None:
            pick_key = f"lesson_pick-{lesson_id}-{k}"
            st.radio("Your answer", step.options, index=None, key=pick_key,
                     label_visibility="collapsed",
                     help="Choose what you predict, then lock it in: the lab then measures "
                          "it. The up and down arrow keys move between the options.")
            st.button("Lock in", key=_LOCK, type="primary", on_click=_lock,
                      args=(tuple(steps), k - 1, pick_key), icon=":material/lock:",
                      help="Lock in your prediction (Enter): the figure and the numbers "
                           "then show what the lab measures here. A prediction is made "
                           "once.")
    if chosen is None:
        if st.session_state.get(LESSON_NO_PICK) == k - 1:
            st.caption("Choose an option first, then lock it in.")
        else:
            st.caption("Choose an option and lock it in: the figure and the numbers then "
                       "show what the lab measures here.")
        return False
    rev = class_session.reveal_of(step)
    mine = step.options[chosen]
    with st.container(key=f"{KEEP}-reveal"):
        # (on a projector, where every line counts, the wrong answer is not repeated)
        said = "" if present else f"you predicted “{mine}”; "
        if rev.answer < 0:
            st.warning(f"You predicted “{mine}”. The numbers here fit none of the "
                       "options exactly.")
        elif chosen == rev.answer:
            st.success(f"Right: “{mine}”.")
        else:
            st.error(f"Not quite: {said}the numbers say “{step.options[rev.answer]}”.")
        for part in rev.text.split("\n\n"):
            st.markdown(part)
        if rev.draws is not None:
            with st.expander("Draw by draw", expanded=False):
                _draw_table(rev.draws)
    return True


def _draw_table(table: L.DrawTable) -> None:
    """Each draw's numbers, one row a draw; ten draws as two tables of five side by
    side, so the fold opened still fits a projector's window."""
    def markdown(rows: Sequence[Sequence[str]]) -> str:
        return markdown_table([dict(zip(table.header, r, strict=True)) for r in rows])
    rows = table.rows
    if len(rows) <= 6:
        st.markdown(markdown(rows))
        return
    half = (len(rows) + 1) // 2
    for col, part in zip(st.columns(2, gap="small"), (rows[:half], rows[half:]),
                         strict=True):
        col.markdown(markdown(part))


def _figure(step: L.Step, revealed: bool, present: bool, lesson_id: str, k: int) -> None:
    """The step's figure, made once for every session (presentation mode's browser sizes
    its text and legend for the projector; a matrix grid's colour bars get a projector's
    share of the width)."""
    grid = present and step.figure == "matrix"
    try:
        key = ("lesson-fig",) + class_session.step_key(step) + (revealed, _HEIGHT, grid)
        fig = cached("figs", key,
                     lambda: step_figure(step, revealed, _HEIGHT, projector=grid))
    except ValueError as exc:
        fig = None
        st.error(safe_text(f"This step's figure could not be made: {exc}"))
    if fig is None:
        st.info("The figure appears once you have answered: here it is the answer.")
    else:
        chart(fig, _FIG_KEY, f"nplk-lesson-{lesson_id}-{k}")


def _lesson_choice(current: str, choose: bool = True) -> None:
    """The lesson to show (``choose``: not in a class, which keeps its lesson) and,
    beside it, "Present": presentation mode at this step, one click (outside a class,
    the link for another computer in the popover beside it; a class's teacher link
    must not be written twice)."""
    numbers = [les.number for les in L.LESSONS]
    P = params()
    c = st.columns([5, 1.2, 1.2], vertical_alignment="bottom")
    if choose:
        st.session_state["lesson_pick"] = int(P["lesson"])
        c[0].selectbox("Lesson", numbers, key="lesson_pick", on_change=_pick_lesson,
                       format_func=lambda i: f"{i}. {L.lesson(i).title}",
                       help="A guided walk through the lab, one question per step.")
    c[1].button("Present", key="lesson_present", icon=":material/slideshow:",
                type="primary", width="stretch", on_click=set_present, args=(True,),
                help="This lesson for a projector, from this step: no controls, the "
                     "figure and the words large; ← and → step through.")
    if choose:   # (a class's teacher has the teacher link, which presents too)
        with c[2].popover("Link", icon=":material/link:", width="stretch",
                          help="The presentation link, to open on the projector's "
                               "computer."):
            st.caption("Presentation link (copy it, or open it on the projector): no "
                       "controls, large figure and text; ← and → step through the "
                       "lesson.")
            st.code(present_url("lessons", P), language=None, wrap_lines=True)
    if current == "mine":
        st.caption("Showing a teacher's lesson from the link; pick a built-in lesson to "
                   "leave it.")
    elif choose:
        st.caption(L.lesson(int(P["lesson"])).summary)


def _teacher_builder() -> None:
    """The steps a teacher collected on the lab pages: order, remove, make the link."""
    ss = st.session_state
    steps: list[T.TeacherStep] = ss.setdefault(MY_STEPS, [])
    with st.expander(f"Make your own lesson ({len(steps)} step"
                     f"{'s' if len(steps) != 1 else ''} so far)", expanded=bool(steps),
                     icon=":material/edit_note:"):
        if not steps:
            st.caption("For a teacher: on the Classification, Regression or Pairwise "
                       "constraints page, open “Present · add to a lesson” in the sidebar, "
                       "write a sentence for the class, pick a question if you want one, "
                       "and add the view. The steps collect here; order them and make one "
                       "link for the class.")
            return
        for i, s in enumerate(steps):
            c = st.columns([0.5, 6, 0.7, 0.7], vertical_alignment="center")
            c[0].text(f"{i + 1}.")
            c[1].text(f"{PAGE_PATHS[s.page].replace('_', ' ')}: "
                      f"{s.sentence or '(no sentence)'}"
                      + (" · asks: " + T.QUESTIONS[s.ask].wording(s.params) if s.ask else ""))
            if c[2].button("↑", key=f"my_up_{i}", disabled=i == 0, help="Move up"):
                steps[i - 1], steps[i] = steps[i], steps[i - 1]
                st.rerun()
            if c[3].button("✕", key=f"my_del_{i}", help="Remove"):
                del steps[i]
                st.rerun()
        if st.button("Make the lesson link", key="my_make", type="primary"):
            try:
                ss[MY_LESSON_LINK] = T.encode_teacher_lesson(steps)
            except ValueError as exc:
                ss.pop(MY_LESSON_LINK, None)
                st.error(safe_text(str(exc)))
        my_lesson = ss.get(MY_LESSON_LINK)
        if my_lesson:
            st.caption("Send this link to the class; it opens your lesson here:")
            st.code(f"{base_url()}?my_lesson={my_lesson}&step=1", language=None,
                    wrap_lines=True)
            if st.button("Open it here", key="my_open"):
                P = params()
                P["my_lesson"], P["step"], P["answers"] = my_lesson, 1, ""
                st.rerun()
