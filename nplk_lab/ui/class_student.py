"""A student's side of a class's question (:mod:`.class_session` has the story): the
vote, chosen then locked in as a lesson's answer is (and, if they like, how sure they
are), the class's split once the teacher shows it, "talk to your neighbour" and the
second vote, the shift, and at the reveal the verdict on the answer the student holds
then: the second vote if they voted again, else the first. What the student sees of the
class is counts only, never a name.
"""

from __future__ import annotations

import streamlit as st

import nplk_lab.figures as fg
from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve.class_store import ClassError, Vote
from nplk_lab.serve.class_store_rules import REVEALED, REVOTE, SHIFT, SPLIT, VOTE, shift_of

from .charts import chart
from .class_common import Klass, fail, reveal_of, store
from .components import browser_files
from .keys import CLASS_NO_PICK
from .present_mode import KEEP

SURE = ("sure", "not sure")
#: "Lock in"'s key: the one lessons.js presses on Enter (a page has one question)
LOCK = "lesson_lock"


def _key(k: Klass, index: int, rnd: int) -> str:
    return f"{KEEP}-answer-class-{k.code}-{index}-{rnd}"


def question(k: Klass, step: L.Step, index: int) -> bool:
    """The question step in the class, for a student; True once revealed here (the page
    then draws the fitted figure)."""
    s = k.state
    st.markdown(f"**{step.question}**")
    mine = store().vote_of(k.code, k.seat, index)
    if index != s.step:                  # a step the student went to on their own
        if index in s.revealed_steps:
            _verdict(step, mine, int(reveal_of(step).answer))
            st.markdown(reveal_of(step).text)
            return True
        st.info(f"The class answers this question together later: your teacher's step "
                f"is {s.step + 1}.")
        return False
    phase = s.phase
    if phase == VOTE:
        _vote(k, step, index, 1, mine)
    elif phase == SPLIT:
        _held(step, mine)
        _split(k, step, index)
        st.caption("This is how the class voted. Your teacher says what comes next.")
    elif phase == REVOTE:
        st.info("Talk to your neighbour: convince them, or let them convince you. Then "
                "vote again.")
        if mine is not None and mine.first is not None:
            st.caption(f"Your first vote: {step.options[mine.first]}.")
        _vote(k, step, index, 2, mine)
    elif phase == SHIFT:
        _held(step, mine)
        _shift(k, step, index, None)
    else:
        correct = s.correct if s.correct is not None else int(reveal_of(step).answer)
        _verdict(step, mine, correct)
        pairs = store().pairs(k.code, index)
        if any(b is not None for _, b in pairs):
            _shift(k, step, index, correct)
        st.markdown(reveal_of(step).text)
    return phase == REVEALED


def _vote(k: Klass, step: L.Step, index: int, rnd: int, mine: Vote | None) -> None:
    """The options and "Lock in", as on a question outside a class: choosing an option
    sends nothing (the arrow keys move between them); "Lock in" (or Enter on an option)
    votes. Until the teacher closes the vote, another option locked in replaces it."""
    key, sure_key = _key(k, index, rnd), _key(k, index, rnd) + "-sure"
    ss = st.session_state
    held = None if mine is None else (mine.first if rnd == 1 else mine.second)
    said = None if mine is None else (mine.first_sure if rnd == 1 else mine.second_sure)
    if key not in ss and held is not None:
        ss[key] = step.options[held]
    if sure_key not in ss and said is not None:
        ss[sure_key] = SURE[0] if said else SURE[1]
    keys = browser_files.read("lessons.js", __package__)   # Enter on an option locks in
    st.html(f"<script>{keys}</script>", unsafe_allow_javascript=True)
    with st.container(key=f"{KEEP}-question-class"):
        st.radio("Your vote", step.options, key=key, label_visibility="collapsed",
                 index=None,
                 help="Your own prediction: the class sees only how many chose each "
                      "option. Choose, then lock it in.")
        st.segmented_control("How sure are you? (optional)", SURE, key=sure_key)
        st.button("Lock in", key=LOCK, type="primary", icon=":material/lock:",
                  on_click=_send, args=(k, index, rnd, key, sure_key, tuple(step.options)),
                  help="Send your vote (Enter on an option): until your teacher closes "
                       "the vote, another option locked in replaces it.")
    chosen = ss.get(key)
    if ss.get(CLASS_NO_PICK) == (k.code, index, rnd):
        st.caption("Choose an option first, then lock it in.")
    elif held is None:
        st.caption("Vote alone first: choose an option and lock it in. Your teacher will "
                   "show how the class voted." if rnd == 1 else
                   "Choose an option and lock it in: your second vote.")
    elif chosen in step.options and chosen != step.options[held]:
        st.caption(f"Not sent yet: your vote is still “{step.options[held]}”. Lock in "
                   "to change it.")
    else:
        st.caption(f"Your vote is in: “{step.options[held]}”. Until your teacher closes "
                   "the vote you can change it: choose another option and lock it in.")


def _send(k: Klass, index: int, rnd: int, key: str, sure_key: str,
          options: tuple[str, ...]) -> None:
    """"Lock in": the option chosen (and how sure, if said) is the student's vote."""
    pick = st.session_state.get(key)
    if pick not in options:
        st.session_state[CLASS_NO_PICK] = (k.code, index, rnd)
        return
    st.session_state.pop(CLASS_NO_PICK, None)
    said = st.session_state.get(sure_key)
    try:
        store().vote(k.code, k.seat, index, options.index(pick),
                     None if said not in SURE else said == SURE[0])
    except ClassError as exc:
        fail(exc)


def _held(step: L.Step, mine: Vote | None) -> None:
    if mine is None or mine.held is None:
        st.caption("You did not vote on this one.")
    else:
        st.text(f"Your vote: {step.options[mine.held]}")


def _split(k: Klass, step: L.Step, index: int) -> None:
    c = store().counts(k.code, index)
    chart(fg.answer_counts_figure(step.options, c.by_choice, c.answered,
                                  title=f"How the class voted ({c.answered})", height=280),
          "class_split", "nplk-class-split")


def _shift(k: Klass, step: L.Step, index: int, correct: int | None) -> None:
    sh = shift_of(store().pairs(k.code, index), correct)
    chart(fg.shift_figure(step.options, sh.first, sh.second, correct, height=300),
          "class_shift", "nplk-class-shift")


def _verdict(step: L.Step, mine: Vote | None, right: int) -> None:
    """Whether the answer the student holds at the reveal is right."""
    held = None if mine is None else mine.held
    if held is None:
        st.info("You did not vote on this one.")
    elif right < 0:
        st.warning("The numbers here fit none of the options exactly.")
    elif held == right:
        changed = mine.second is not None and mine.first is not None and \
            mine.first != mine.second
        st.success("Right: you changed to the right answer." if changed else "Right.")
    else:
        st.error(f"Not quite: the numbers say “{step.options[right]}”.")
