"""The teacher's side of a class (:mod:`.class_session` has the story): the join panel
(code, link, QR code; the address phones can open), the teacher link and the projector's
link, the class's size, the moves of peer instruction at a question step with the live
count and who has not voted yet, the suggested next move, and the results at the end.

Every control a teacher needs in front of the class sits in a container kept in
presentation mode (its key starts with :data:`~.present_mode.KEEP`), and each move has a
key: S shows the split, V opens the second vote, H shows the shift, A reveals the
answer; ← and → step through the lesson. What only the teacher should read (names of
students who have not voted, the suggested move, which option the numbers will support)
is never drawn in presentation mode: a projector shows the room's counts only.
"""

from __future__ import annotations

import time
from importlib import resources
from typing import Any
from urllib.parse import urlencode

import streamlit as st

import nplk_lab.figures as fg
from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_hall, class_web
from nplk_lab.serve.class_store import ClassError, format_code
from nplk_lab.serve.class_store_rules import (
    DISCUSS_FROM,
    EXPLAIN_ABOVE,
    MAX_STUDENTS,
    REVEALED,
    REVOTE,
    SHIFT,
    SPLIT,
    VOTE,
    WrongToken,
    next_move,
    shift_of,
)

from .charts import chart
from .class_common import (
    POLL_S,
    Klass,
    class_steps,
    fail,
    keep_token,
    origin,
    public_base,
    reveal_of,
    store,
)
from .keys import CLASS_ACTED, CLASS_ACTED_RUN, CLASS_LIVE_FIG, CLASS_MOVED
from .present_mode import KEEP
from .state import params

#: the moves a phase offers, in order: (phase to move to, label, key, help)
MOVES = {
    SPLIT: ("Show split", "s", "Closes the first vote and shows every screen how the "
            "class voted (no answer marked)."),
    REVOTE: ("Vote again", "v", "Students talk to a neighbour who voted "
             "differently, then vote a second time."),
    SHIFT: ("Show shift", "h", "Closes the second vote and shows the first and the "
            "second vote side by side."),
    REVEALED: ("Reveal", "a", "Every screen shows the figure, the numbers and "
               "whether the answer each student holds is right."),
}
NEXT_MOVES = {VOTE: (SPLIT, REVEALED), SPLIT: (REVOTE, REVEALED), REVOTE: (SHIFT, REVEALED),
              SHIFT: (REVEALED,), REVEALED: ()}
_LOW, _HIGH = f"{100 * DISCUSS_FROM:.0f}", f"{100 * EXPLAIN_ABOVE:.0f}"
#: peer instruction's rule of thumb in words (class_store_rules.next_move decides)
ADVICE = {
    "revisit": f"under {_LOW} % right: go over the idea again, then let them vote again",
    "discuss": f"{_LOW}–{_HIGH} % right: let them talk to a neighbour and vote again",
    "explain": f"over {_HIGH} % right: explain briefly and move on",
}


# ---------------------------------------------------------------------------
# the bar below the title
# ---------------------------------------------------------------------------

def join_link(k: Klass, base: str) -> str:
    """The class's join link: its light student page where the lab's routes are served
    (:mod:`nplk_lab.serve.class_hall`), else the Lessons page."""
    mine = (params().get("my_lesson") or "") if k.state.lesson.startswith("mine-") else ""
    if class_web.serving():
        return class_hall.hall_link(origin(base), k.code, mine)
    q = {"class": k.code, **({"my_lesson": mine} if mine else {})}
    return f"{base}?{urlencode(q)}"


def teacher_link(k: Klass, base: str, token: str, *, present: bool = False) -> str:
    """The class's teacher link: opened in a browser, it makes that browser a teacher
    device (through the lab's route, the token in the link's fragment; on a server
    without the routes, in the page's address)."""
    extra = {"my_lesson": params().get("my_lesson") or "", "present": "1" if present else ""}
    if class_web.serving():
        return class_web.teacher_link(origin(base), k.code, token, **extra)
    q = {"class": k.code, "teacher": token, **{n: v for n, v in extra.items() if v}}
    return f"{base}?{urlencode(q)}"


def _qr_svg(link: str) -> str:
    import segno
    return segno.make(link, error="m").svg_inline(scale=6, border=2)


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def bar(k: Klass, present: bool) -> None:
    """The teacher's panel below the page's title."""
    # the buttons whose callback ran before this run (and only those: a button that is
    # not drawn again, End or Leave, leaves no mark for a later run)
    st.session_state[CLASS_ACTED_RUN] = st.session_state.pop(CLASS_ACTED, set())
    s = k.state
    with st.container(key=f"{KEEP}-class", border=True):
        if s.ended:
            _end_summary(k)
            return
        base, note = public_base()
        link = join_link(k, base)
        if present:
            # on the projector one row: the join panel folds once students are in (its
            # QR code a click away for a latecomer), the question needs the room
            # (the last column stays empty: "Exit presentation" is pinned over it)
            row = st.columns([3.2, 1.3, 1, 0.8], vertical_alignment="center")
            with row[0]:
                _join_panel(k, link, note, expanded=s.students == 0)
            with row[1]:
                _joined(k.code)
            _button(row[2], "End the class", "class_end", _end, (k,),
                    help="Closes the votes and shows the results per step.")
            return
        _join_panel(k, link, note, expanded=True)
        _joined(k.code)
        _teacher_links(k, base)
        st.caption(f"Back and Next move the whole class. The class ends by itself after "
                   f"{s.idle_timeout_s / 3600:g} h without activity; its answers are "
                   f"deleted at {_when(s.delete_at)} (server time).")
        c = st.columns(3)
        _button(c[0], "End the class", "class_end", _end, (k,),
                help="Closes the votes and shows the results per step.")
        _button(c[1], "Present here", "class_present_here", _present_here,
                icon=":material/slideshow:",
                help="This tab in presentation mode: the figure, the count and your "
                     "moves, no other control (Exit presentation brings them back).")
        with c[2].popover("Present on another screen", icon=":material/cast:"):
            _projector_link(k, base)


def _join_panel(k: Klass, link: str, note: str, *, expanded: bool) -> None:
    with st.expander(f"Join the class: {format_code(k.code)}", expanded=expanded):
        c = st.columns([1.4, 1], vertical_alignment="center")
        c[0].markdown(f"# {format_code(k.code)}")   # our alphabet: letters, digits
        c[0].caption(_how_to_join(link))
        c[0].code(link, language=None, wrap_lines=True)
        if note:
            c[0].warning(note)
        c[1].image(_qr_svg(link), caption="Scan to join", width=220)


def _how_to_join(link: str) -> str:
    if class_web.serving():
        return ("Students scan the code or open the link (a light page for phones), or "
                f"open {link.split('?', 1)[0]} and type the class code; a name is "
                "optional.")
    return ("Students scan the code or open the link, or type the class code on their "
            "Lessons page; a name is optional.")


def _acted(key: str, action: Any, *args: Any) -> None:
    st.session_state.setdefault(CLASS_ACTED, set()).add(key)
    action(*args)


def _button(where: Any, label: str, key: str, action: Any, args: tuple = (),
            **kw: Any) -> None:
    """A teacher's button whose click is never lost (as the moves, :func:`_moves`): its
    callback makes the click before the run; when the session had not drawn the button
    yet (a page reconnected to another worker, the dead worker's page still on screen)
    Streamlit calls no callback, but the button still says it was clicked: the action
    is taken here and the page runs again."""
    clicked = where.button(label, key=key, on_click=_acted, args=(key, action, *args), **kw)
    if clicked and key not in st.session_state.get(CLASS_ACTED_RUN, set()):
        action(*args)
        st.rerun()


def _present_here() -> None:
    params()["present"] = True


@st.fragment(run_every=POLL_S)
def _joined(code: str) -> None:
    """How many have joined, read once a second (a student who joins shows at once)."""
    try:
        s = store().state(code)
    except ClassError:
        return
    st.text(f"{s.students} joined · the class takes {s.size}")


def _resize(k: Klass) -> None:
    try:
        store().resize(k.code, k.seat, int(st.session_state["class_size"]))
    except (ClassError, WrongToken, ValueError) as exc:
        fail(exc)


def _new_link(k: Klass) -> None:
    try:
        keep_token(k.code, store().new_teacher_link(k.code, k.seat))
    except (ClassError, WrongToken) as exc:
        fail(exc)


def _projector_link(k: Klass, base: str) -> None:
    st.caption("Open this link on the projector's computer: it leads this class too, in "
               "presentation mode (keys: S split, V vote again, H shift, A reveal, ← → "
               "steps). It is secret: it lets a browser lead the class.")
    if k.token:
        st.code(teacher_link(k, base, k.token, present=True), language=None,
                wrap_lines=True)
    else:
        _button(st, "Make the projector's link", "class_new_link_present", _new_link, (k,),
                help="A new teacher link; an earlier one stops working (browsers it "
                     "opened stay teacher devices).")


def _teacher_links(k: Klass, base: str) -> None:
    with st.expander("Teacher link, class size"):
        if k.token:
            st.caption("Your teacher link (secret): opened in another browser (a phone as "
                       "a remote, the projector's computer), it makes that browser a "
                       "teacher device of this class. This browser is one already.")
            st.code(teacher_link(k, base, k.token), language=None, wrap_lines=True)
            label = "Make a new teacher link"
        else:
            st.caption("This browser leads the class. To lead it from another browser too "
                       "(a phone, the projector's computer), make a teacher link.")
            label = "Make a teacher link"
        _button(st, label, "class_new_link", _new_link, (k,),
                help="A new secret link; an earlier teacher link stops working (browsers "
                     "it opened stay teacher devices).")
        st.session_state.setdefault("class_size", k.state.size)
        st.number_input("Class size", key="class_size", min_value=1, max_value=MAX_STUDENTS,
                        step=10, on_change=_resize, args=(k,),
                        help="The most students who can join: one per browser.")


def _end(k: Klass) -> None:
    try:
        store().end(k.code, k.seat)
    except (ClassError, WrongToken) as exc:
        fail(exc)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f} %"


def _end_summary(k: Klass) -> None:
    s = store()
    st.subheader(f"Class {format_code(k.code)} has ended")
    steps = class_steps()
    rows = []
    for r in s.summary(k.code, k.seat):
        sh = r.shift
        rows.append({
            "step": r.step + 1,
            "question": steps[r.step].question if r.step < len(steps) else "",
            "first vote": sh.voted_first, "right at first": _pct(sh.share_first),
            "second vote": sh.voted_second or "", "right at second": _pct(sh.share_second),
            "changed to the right answer": "" if sh.to_right is None else sh.to_right,
            "changed away from it": "" if sh.from_right is None else sh.from_right,
            "normalised gain": "" if sh.gain is None else f"{sh.gain:.2f}",
            "right at the end": _pct(r.share_held)})
    if rows:
        st.dataframe(rows, hide_index=True, key="class_summary")
    else:
        st.caption("No votes in this class.")
    c = st.columns(2)
    c[0].download_button("Results per step (CSV)", s.summary_csv(k.code, k.seat),
                         file_name=f"class-{k.code}-steps.csv", mime="text/csv",
                         key="class_csv", icon=":material/download:")
    options = {i: st_.options for i, st_ in enumerate(steps) if st_.question}
    c[1].download_button("Every student's answers (CSV; names only where typed)",
                         s.answers_csv(k.code, k.seat, options),
                         file_name=f"class-{k.code}-answers.csv", mime="text/csv",
                         key="class_answers_csv", icon=":material/download:")
    st.caption(f"The class's answers are deleted at {_when(k.state.delete_at)} (server "
               "time).")
    _button(st, "Leave the class", "class_leave", _leave,
            help="Back to the lesson on your own.")


def _leave() -> None:
    P = params()
    P["class"], P["teacher"] = "", ""


# ---------------------------------------------------------------------------
# the question: peer instruction's moves
# ---------------------------------------------------------------------------

def question(k: Klass, step: L.Step, index: int, present: bool) -> bool:
    """The question step in the class, for its teacher; True once revealed."""
    s = k.state
    with st.container(key=f"{KEEP}-class-q"):
        st.markdown(f"**{step.question}**")
    if s.ended:
        return True
    phase = s.phase if index == s.step else REVEALED if index in s.revealed_steps else VOTE
    if phase == REVOTE and not present:   # on a projector the count's title says it
        st.info("Talk to your neighbour: convince them, or let them convince you. Then "
                "vote again.")
    # the moves first: on a projector they stay above the fold whatever the sentence,
    # and they are on the screen before the measurement below
    _moves(k, step, index, phase)
    if present:   # the count takes the height left in its column (class_fit.js)
        fit = resources.files(__package__).joinpath("class_fit.js").read_text("utf-8")
        st.html(f"<script>{fit}</script>", unsafe_allow_javascript=True)
    if phase == REVEALED:
        rev = reveal_of(step)
        if not present:                   # a projector's reveal: the words, no chart
            _live(k, index, step, phase, present, int(rev.answer))
        _revealed(k, step, index, rev, present)
        return True
    _live(k, index, step, phase, present, None)
    # measured now, while the class votes, so the reveal needs no fit
    reveal_of(step)
    return False


def _second_vote(pairs: dict) -> bool:
    return any(b is not None for _, b in pairs)


@st.fragment(run_every=POLL_S)
def _live(k: Klass, index: int, step: L.Step, phase: int, present: bool,
          correct: int | None) -> None:
    """The votes on the class's screens, read once a second: the count of the vote
    open (VOTE, REVOTE) or closed (SPLIT), the shift (SHIFT, and after the reveal when
    there was a second vote); the figure made again only when a vote or a join changed
    the class's count. Off the projector: who has not voted yet, and the move peer
    instruction suggests from the share right (the option the numbers support: the
    step's measured answer)."""
    ss = st.session_state
    options = tuple(step.options)
    s = store()
    try:
        state = s.state(k.code)
        pairs = s.pairs(k.code, index)
    except ClassError as exc:
        st.error(str(exc))
        return
    shift = phase == SHIFT or (phase == REVEALED and _second_vote(pairs))
    rnd = 2 if phase in (REVOTE, SHIFT) else 1
    by: dict[int, int] = {}
    for (a, b), n in pairs.items():
        v = a if rnd == 1 else b
        if v is not None:
            by[v] = by.get(v, 0) + n
    voted = sum(by.values())
    what = (k.code, index, phase, correct, state.count_version, present)
    last = ss.get(CLASS_LIVE_FIG)
    if last is None or last[0] != what:
        height = 210 if present else 320   # on a projector beside the step's figure
        if shift:
            sh = shift_of(pairs, correct)
            fig = fg.shift_figure(options, sh.first, sh.second, correct, height=height + 40)
        else:
            title = {VOTE: f"First vote: {voted} of {state.students}",
                     SPLIT: f"The split: {voted} voted",
                     REVOTE: ("Talk to your neighbour, then vote again: " if present
                              else "Second vote: ") + f"{voted} of {state.students}"}.get(
                         phase, f"{voted} voted")
            fig = fg.answer_counts_figure(options, by, voted, title=title, correct=correct,
                                          height=height)
        ss[CLASS_LIVE_FIG] = last = (what, fig)
    with st.container(key="class-count"):
        # the lab's chart component: st.plotly_chart's conversion imports pandas, which
        # another session's thread may be importing at that moment
        chart(last[1], "class_count", "nplk-class-count")
    if phase in (VOTE, REVOTE) and not present:   # a projector's title has the count
        try:
            m = s.missing(k.code, k.seat, index, round=rnd)
        except (ClassError, WrongToken):
            return
        said = f"{m.count} of {state.students} joined have not voted yet"
        if m.names:
            said += ": " + ", ".join(m.names[:30]) + (" …" if len(m.names) > 30 else "")
        st.text(said)
    if present or phase == REVEALED or not voted:
        return
    answer = int(reveal_of(step).answer)
    if answer < 0:
        return
    share = by.get(answer, 0) / voted
    vote = "second" if rnd == 2 else "first"
    st.caption(f"Only you see this: {100 * share:.0f} % of the {vote} vote is right "
               f"(“{options[answer]}”, as the numbers will say). Peer instruction's rule "
               f"of thumb: {ADVICE[next_move(share)]}.")


def _move(k: Klass, index: int, phase: int, step: L.Step) -> None:
    st.session_state[CLASS_MOVED] = phase
    try:
        correct = int(reveal_of(step).answer) if phase == REVEALED else None
        store().move(k.code, k.seat, phase, index, correct)
    except (ClassError, WrongToken) as exc:
        fail(exc)


def _moves(k: Klass, step: L.Step, index: int, phase: int) -> None:
    """The phase's moves. A click is made by the button's callback, before the run;
    except when the session had not drawn that button yet: a page whose worker died
    reconnects to another one with the dead worker's page still on screen, and a click
    there before its first run on the new worker reaches a session with no callback for
    it (Streamlit then calls none). The button still says it was clicked: the move is
    made here, and the page runs again in the new phase."""
    moved = st.session_state.pop(CLASS_MOVED, None)
    moves = NEXT_MOVES[phase]
    if not moves:
        return
    with st.container(key=f"{KEEP}-class-moves"):
        c = st.columns(len(moves))
        for col, to in zip(c, moves, strict=True):
            label, key, why = MOVES[to]
            clicked = col.button(
                label, key=f"class_move_{to}",
                type="primary" if to != REVEALED or len(moves) == 1 else "secondary",
                on_click=_move, args=(k, index, to, step), shortcut=key, width="stretch",
                help=why)
            if clicked and moved != to:
                _move(k, index, to, step)
                st.rerun()


def _revealed(k: Klass, step: L.Step, index: int, rev: Any, present: bool) -> None:
    if rev.answer >= 0:
        st.success(f"The numbers say “{step.options[rev.answer]}”.")
    else:
        st.warning("The numbers here fit none of the options exactly.")
    sh = shift_of(store().pairs(k.code, index), int(rev.answer))
    if sh.voted_first or sh.voted_second:
        st.markdown(_shift_words(sh))
    _reveal_text(rev.text, present)


def _shift_words(sh: Any) -> str:
    """The shift in one sentence (plain words, numbers for people)."""
    out = []
    if sh.voted_first:
        out.append(f"First vote: {_pct(sh.share_first)} right ({sh.right_first} of "
                   f"{sh.voted_first}).")
    if sh.voted_second:
        out.append(f"Second vote: {_pct(sh.share_second)} right ({sh.right_second} of "
                   f"{sh.voted_second}).")
    if sh.to_right is not None:
        out.append(f"{sh.to_right} changed to the right answer, {sh.from_right} away from "
                   "it" + ("" if sh.gain is None else
                           f"; normalised gain {sh.gain:.2f}") + ".")
    return " ".join(out)


def _reveal_text(text: str, present: bool) -> None:
    """The measured numbers; on a projector a list of draws folds away."""
    if not present:
        st.markdown(text)
        return
    for part in text.split("\n\n"):
        if part.lstrip().startswith("- "):
            with st.expander("Draw by draw", expanded=False):
                st.markdown(part)
        else:
            st.markdown(part)

