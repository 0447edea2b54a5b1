"""The Lessons page's "Download this lesson" button: the lesson as one HTML file that
needs no server (:func:`nplk_lab.model.lessons.lesson_file.lesson_html`).

The file is made only when the button is pressed (Streamlit runs the deferred callable
in a thread of its own, off the page's script run), so drawing the page costs nothing;
the last few files made are kept, shared by every session of the server, so a class
pressing the button together builds each lesson once (one build at a time: the others
wait for it and take the kept copy). A built-in lesson took 3–7 s to make from cold on
a shared 2-core machine (``python benchmarks/bench_lesson_file.py``); the
download starts when it is made.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import streamlit as st

from nplk_lab.model.lessons.lesson_file import lesson_html
from nplk_lab.model.lessons.lessons import Step
from nplk_lab.ui.components.browser_files import title_fit

_KEEP = 6   # files kept (about 5-6 MB each)
_BUILT: OrderedDict[Hashable, str] = OrderedDict()
_LOCK = threading.Lock()


def built_lesson(key: Hashable, title: str, steps: Sequence[Step],
                 draw: Callable[[Step, bool], Any], summary: str = "") -> str:
    """The lesson's HTML file, made once per ``key`` while it stays among the last
    :data:`_KEEP` made."""
    with _LOCK:
        page = _BUILT.get(key)
        if page is None:
            page = lesson_html(title, steps, draw, summary=summary, fit_js=title_fit())
            _BUILT[key] = page
            while len(_BUILT) > _KEEP:
                _BUILT.popitem(last=False)
        _BUILT.move_to_end(key)
        return page


#: Greek letters of the lessons' titles, spelt out in a file name
_GREEK = str.maketrans({"σ": " sigma ", "ρ": " rho ", "γ": " gamma ", "τ": " tau ",
                        "η": " eta ", "θ": " theta ", "α": " alpha ", "λ": " lambda "})


def _file_name(lesson_id: str, title: str) -> str:
    """``nplk-lesson-l1-what-sigma-does-to-a-kernel.html``: the lesson's id and its
    title's first six words, ASCII (a Greek letter spelt out: it was dropped)."""
    words = "".join(c if c.isascii() and c.isalnum() else " "
                    for c in title.lower().translate(_GREEK))
    return f"nplk-lesson-{lesson_id.lower()}-{'-'.join(words.split()[:6]) or 'lesson'}.html"


def download_lesson_button(lesson_id: str, title: str, steps: Sequence[Step],
                           draw: Callable[[Step, bool], Any], *, token: str = "",
                           summary: str = "") -> None:
    """The button. ``lesson_id`` names a built-in lesson (``L2``) or a teacher's
    (``mine``, told apart by its link's ``token``); ``draw`` is the page's figure
    function, so the file shows the page's figures."""
    key = (lesson_id, token)
    steps = tuple(steps)

    def build() -> str:
        return built_lesson(key, title, steps, draw, summary)
    st.download_button(
        "Download this lesson", build, file_name=_file_name(lesson_id, title),
        mime="text/html", key="lesson_download", on_click="ignore",
        icon=":material/download:",
        help="One HTML file with every step's figures, questions and measured answers "
             "inside (about 5-6 MB). It opens in any browser without the lab or a "
             "network: put it on a course site and each student works through it alone.")
