"""A teacher's click is never lost: each of the teacher's buttons (End the class, Present
here, the teacher and projector links, Leave) acts once per click, whether Streamlit ran
its callback before the run (the usual case) or ran none because the session had not
drawn that button yet (a page reconnected to another worker after its worker died, the
dead worker's page still on screen: the button reports the click, nothing else does).
The moves have the same rule and a browser test of it (the class's whole sequence)."""

from __future__ import annotations

import pytest

from nplk_lab.ui import class_teacher as ct


class Rerun(Exception):
    pass


class FakeSt:
    def __init__(self):
        self.session_state = {}

    def rerun(self):
        raise Rerun


class Where:
    """A place a button is drawn: ``callback`` says whether Streamlit calls on_click
    before the run (a session that drew the button) or not (a reconnected one)."""

    def __init__(self, clicked: bool, callback: bool):
        self.clicked, self.callback, self.drawn = clicked, callback, []

    def button(self, label, key, on_click, args, **kw):
        self.drawn.append((label, key, kw))
        if self.clicked and self.callback:
            on_click(*args)
        return self.clicked


@pytest.fixture
def fake_st(monkeypatch):
    st = FakeSt()
    monkeypatch.setattr(ct, "st", st)
    return st


def _run(st):
    """What the teacher's panel does at the start of each run."""
    st.session_state[ct.CLASS_ACTED_RUN] = st.session_state.pop(ct.CLASS_ACTED, set())


def _click(where, calls, key="class_end"):
    """One run of the page: the callback (if Streamlit calls one) before it, then the
    panel, then the button."""
    if where.clicked and where.callback:
        ct._acted(key, lambda *a: calls.append(a), "klass")
        where.callback = False            # called once, before the run
    _run(ct.st)
    ct._button(where, "End the class", key, lambda *a: calls.append(a), ("klass",),
               help="Closes the votes.")


def test_a_click_whose_callback_ran_acts_once(fake_st):
    calls = []
    _click(Where(clicked=True, callback=True), calls)
    assert calls == [("klass",)]
    _click(Where(clicked=False, callback=False), calls)         # the next run: no click
    assert calls == [("klass",)]
    assert fake_st.session_state[ct.CLASS_ACTED_RUN] == set()  # forgotten by then


def test_a_click_not_drawn_again_leaves_no_mark_for_a_later_class(fake_st):
    """End's callback ran and the next run showed the summary, not the button; later,
    in a new class, a click on End from a reconnected page still acts."""
    calls = []
    ct._acted("class_end", lambda *a: calls.append(a), "old class")
    _run(fake_st)                                   # the summary: End is not drawn
    _run(fake_st)                                   # a new class's first run
    with pytest.raises(Rerun):
        _click(Where(clicked=True, callback=False), calls)
    assert calls == [("old class",), ("klass",)]


def test_a_click_on_a_page_reconnected_before_its_first_run_still_acts(fake_st):
    calls = []
    with pytest.raises(Rerun):                                  # and the page runs again
        _click(Where(clicked=True, callback=False), calls)
    assert calls == [("klass",)]
    _click(Where(clicked=False, callback=False), calls)
    assert calls == [("klass",)]


def test_no_click_no_action_and_the_button_keeps_its_words(fake_st):
    calls, where = [], Where(clicked=False, callback=False)
    _click(where, calls)
    assert calls == [] and where.drawn == [("End the class", "class_end",
                                            {"help": "Closes the votes."})]


def test_two_buttons_in_one_run_each_act_on_their_own_click(fake_st):
    ends, links = [], []
    ct._acted("class_end", lambda *a: ends.append(a), "k")      # End's callback
    _run(fake_st)
    ct._button(Where(True, False), "End the class", "class_end",
               lambda *a: ends.append(a), ("k",))
    ct._button(Where(False, False), "Make a teacher link", "class_new_link",
               lambda *a: links.append(a), ("k",))
    assert ends == [("k",)] and links == []
