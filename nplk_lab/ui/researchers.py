"""The "For researchers" note: a collapsed expander that holds what a student does not
need to read a page — the papers' equation, section and theorem numbers and the
formulas behind a figure. Everything outside it is written in plain words
(``tests/test_plain_words_walk.py`` walks every page and leaves only these notes out).
Its paragraphs are drawn only while it is open."""

from __future__ import annotations

import zlib

import streamlit as st

from .keys import OPEN, PAGE
from .state import params

#: the expander's label; the plain-words walk recognises the notes by it
LABEL = "For researchers: the papers' formulas"


def for_researchers(*paragraphs: str) -> None:
    """A collapsed "For researchers" note with ``paragraphs`` (the lab's own Markdown,
    never text from a user), one paragraph each. Left out in presentation mode: the
    projector shows the class the figure, and the page must fit the screen."""
    if params().get("present"):
        return
    # closed, it sends its label alone: its paragraphs are drawn once it is opened
    # (which reruns the page), not on every run of every student
    # a page may hold several notes (the eigen view's): each is keyed by its own text
    note = zlib.crc32("".join(paragraphs).encode())
    box = st.expander(LABEL, icon=":material/menu_book:", expanded=False,
                      key=f"{OPEN}researchers_{st.session_state.get(PAGE, '')}_{note:08x}",
                      on_change="rerun")
    if box.open:
        with box:
            for text in paragraphs:
                st.markdown(text)
