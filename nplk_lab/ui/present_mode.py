"""Presentation mode (``present=1`` on any page) and collecting lab states into a lesson.

:func:`presentation` is the one call every page makes right after :func:`page_setup`.
With ``present`` on it hides the sidebar, the header and every control of the page (CSS
injected once per run; the widgets are still drawn, so the state stays intact), removes
the page padding, sizes the text to the window and the page's first chart to the
window's height, and pins an "Exit presentation" button to a corner (on a phone, above
the page). The charts themselves (``components/chart.py``) grow their text with the
window while the button is on the page (14 px at 1280×720, 18 px at 1920×1080) and
drop the modebar; the fitting script here redraws them when the window or the mode
changes; a window under 640 px wide (a phone) leaves presentation mode at once, with a
note (the page as usual is what a phone shows well). Off, it adds to the sidebar a
"Present" button that presents at once, the page's presentation link as copyable plain
text, and, on the
pages a lesson can show, "Add this view to my lesson" (a sentence and the page's state,
collected in the session, kept in the browser's storage so a refresh or a typed address
loses none, and turned into one link on the Lessons page).

Controls that must stay visible while presenting (a lesson's question and its Back /
Next buttons) sit in containers whose key starts with :data:`KEEP`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st

import nplk_lab.model as lab
from nplk_lab.model.lessons import lessons as lessons_model
from nplk_lab.model.lessons import teacher_lessons as teacher

from .components import browser_files
from .components.kept import keep
from .keys import MY_STEP_DRAFT, MY_STEPS, MY_STEPS_HAD, OPEN, PRESENT_NARROW
from .state import params, safe_text

#: key prefix of containers whose widgets stay visible in presentation mode
KEEP = "nplk-keep"
#: session key of the steps a teacher has collected (a list of TeacherStep)

def presenting() -> bool:
    return bool(params().get("present"))


def presentation(page: str) -> bool:
    """Presentation mode for ``page`` when the state says so (returns True), else the
    sidebar's "Present" and "Add this view to my lesson". Call right after
    :func:`page_setup`."""
    P = params()
    if P.get("present"):
        # the style, and the script that fits the figure to the window (beside this module)
        style = browser_files.read("present_mode.css", __package__)
        fit = browser_files.read("present_mode.js", __package__)
        st.html(f"<style>{style}</style>")
        st.html(f"<script>{fit}</script>", unsafe_allow_javascript=True)
        with st.container(key=f"{KEEP}-exit"):
            st.button("Exit presentation", key="present_exit", on_click=set_present,
                      args=(False,), help="Show the controls and the sidebar again.")
        # pressed by present_mode.js in a window under 640 px wide (never shown)
        with st.container(key=f"{KEEP}-narrow"):
            st.button("Leave presentation mode: the window is narrow", key="present_narrow",
                      on_click=_narrow)
        return True
    if st.session_state.pop(PRESENT_NARROW, False):
        st.info("Presentation mode is made for a projector or a large screen. On a screen "
                "this narrow the page shows as usual; open the presentation link on the "
                "projector's computer.")
    # closed, the panel sends its label alone: its widgets are drawn once it is opened
    # (which reruns the page), not on every run of every student
    box = st.sidebar.expander("Present · add to a lesson", expanded=False,
                              key=f"{OPEN}present_{page}", on_change="rerun")
    if box.open:
        _present_panel(page, P, box)
    _keep_collected()
    return False


def _present_panel(page: str, P: dict[str, Any], box: Any) -> None:
    """The open "Present · add to a lesson" panel: the Present button, the presentation
    link and the collector."""
    with box:
        st.button("Present", key="present_here", icon=":material/slideshow:",
                  on_click=set_present, args=(True,),
                  help="This page for a projector: no controls, the figure large.")
        if P.get("class"):
            # another browser needs the class's teacher link to show its controls
            st.caption("In a class, “Present on another screen” on the class's panel gives "
                       "the projector's link.")
        else:
            st.caption("Presentation link (copy it, or open it on the projector's computer):")
            st.code(present_url(page, P), language=None, wrap_lines=True)
        if page in lessons_model.STEP_PAGES:
            _collector(page, P)




def _keep_collected() -> None:
    """The steps a teacher collected, kept in this browser's storage (a refresh, a
    typed address or a closed tab loses no step) and brought back into a new session
    that has none."""
    ss = st.session_state
    steps = ss.get(MY_STEPS) or []
    text = None
    if steps:
        ss[MY_STEPS_HAD] = True
        try:
            text = teacher.encode_teacher_lesson(steps)
        except ValueError:   # not a lesson (yet): keep what the browser has
            text = None
    elif ss.get(MY_STEPS_HAD):
        text = ""
    with st.sidebar:
        keep("my-lesson", text, key="lab_my_kept", on_restore=_restore_collected)


def _restore_collected(token: str) -> None:
    ss = st.session_state
    if ss.get(MY_STEPS):
        return
    steps, _ = teacher.decode_teacher_lesson(token)
    if steps:   # a damaged text is dropped: the next step collected replaces it
        ss[MY_STEPS] = list(steps)




def _narrow() -> None:
    set_present(False)
    st.session_state[PRESENT_NARROW] = True


def set_present(on: bool) -> None:
    """Presentation mode on or off (a button's callback)."""
    params()["present"] = bool(on)
    # Home and Paper results do not rewrite their URL: a present=1 left there would be
    # read again on the next run
    if "present" in st.query_params:
        st.query_params["present"] = "1" if on else "0"


def page_query(page: str, P: dict[str, Any]) -> dict[str, str]:
    """The query a page's link carries: its relevant settings."""
    if page in lab.PAGES or page == "lessons":
        return lab.encode_query(P, lab.relevant_names(page, P))
    return {}


def base_url() -> str:
    """This page's address without its query ("" when Streamlit does not know it)."""
    try:
        url = st.context.url or ""
    except (AttributeError, RuntimeError):
        url = ""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else parts.path


#: what a presentation link never carries: a class's secrets (a projector shows its
#: address to the room; the teacher link, kept apart, brings the teacher back)
_PRIVATE = ("teacher", "seat")


def present_url(page: str, P: dict[str, Any]) -> str:
    """The page's link in its current state with presentation mode on (no class
    credential in it)."""
    q = {k: v for k, v in page_query(page, P).items() if k not in _PRIVATE}
    return f"{base_url()}?{urlencode({**q, 'present': '1'})}"


def _collector(page: str, P: dict[str, Any]) -> None:
    """"Add this view to my lesson": the page's state and a sentence, collected in
    the session (at most MAX_TEACHER_STEPS)."""
    ss = st.session_state
    steps = ss.setdefault(MY_STEPS, [])
    st.divider()
    st.caption("Build your own lesson: add this view with a sentence for the class; "
               "order the steps and make the link on the Lessons page.")
    asks = {q.key: q.wording(P) for q in teacher.questions_for(page, P)}
    # the panel draws its widgets only while open, and Streamlit forgets a widget's
    # value once it is not drawn: a sentence typed (or a question chosen) and not yet
    # added is kept beside them and given back when the panel opens again
    text_key, ask_key = f"collect_text_{page}", f"collect_ask_{page}"
    drafts = {text_key: f"{MY_STEP_DRAFT}text_{page}", ask_key: f"{MY_STEP_DRAFT}ask_{page}"}
    for key, draft in drafts.items():
        if key not in ss and ss.get(draft) and (key == text_key or ss[draft] in asks):
            ss[key] = ss[draft]
    text = st.text_input("Sentence for this step", key=text_key,
                         max_chars=teacher.MAX_SENTENCE,
                         placeholder="What should the class notice here?",
                         help="One sentence the class reads with this view in your lesson.")
    ss[drafts[text_key]] = text
    ask = ""
    if asks:
        ask = st.selectbox(
            "Question for the class", ["", *asks], key=ask_key,
            format_func=lambda k: asks.get(k, "No question: the class reads and looks"),
            help="Optional: the class answers before the figure appears; the lab measures "
                 "the numbers that decide the answer when the step is revealed, so the "
                 "answer is always the one these settings give.")
        ss[drafts[ask_key]] = ask
    full = len(steps) >= teacher.MAX_TEACHER_STEPS
    if st.button("Add this view to my lesson", key=f"collect_add_{page}", disabled=full,
                 help="Keep this page's settings and your sentence as the next step of "
                      "your lesson (ordered and linked on the Lessons page)."):
        try:
            steps.append(teacher.teacher_step(page, P, text, ask))
        except ValueError as exc:  # e.g. a view of an uploaded CSV
            st.error(safe_text(str(exc)))
        else:
            for key in (*drafts, *drafts.values()):
                ss.pop(key, None)
            st.rerun()
    if steps:
        st.caption(safe_text(f"Your lesson has {len(steps)} step"
                             f"{'s' if len(steps) != 1 else ''}"
                             + (" (the most a lesson holds)." if full else ".")))
        st.page_link("pages/7_Lessons.py", label="Make the lesson link",
                     icon=":material/school:")
