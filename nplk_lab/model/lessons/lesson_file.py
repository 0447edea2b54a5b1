"""A lesson as one self-contained HTML file: it needs no server and fetches nothing.

:func:`lesson_html` takes a lesson's steps (built-in, or a teacher's own) and the
function that draws a step's figure on the Lessons page, and returns one HTML page
holding everything a student needs: Plotly.js (the installed ``plotly`` package's
minified copy, inline), every step's figures as the same JSON the page sends to the
browser (:func:`nplk_lab.figures.figure_json`: arrays as base64 typed arrays, float32
where the figure builders made them so), every step's measured reveal (the numbers and
the option they support, from :meth:`nplk_lab.model.lessons.lessons.Step.reveal`), and a small
plain-JavaScript player (``lesson_file.js``, in the page ``lesson_file.html`` with its
style ``lesson_file.css``, all three package data beside this module): choose an answer
and lock it in → the fitted figure, the numbers and whether the prediction was right
appear; Back and Next (also ← and →) step through; the answers locked in are kept in
the browser's storage, so a reload keeps them; after the last step, a summary of the
student's predictions. A teacher can put the file on a course
site: any number of students open it from ``file://`` or a static web page, with no lab
running.

Every piece of text (titles, sentences, questions, options, reveals) travels as JSON
data and is put on the page with ``textContent`` only, so a teacher's sentence is shown
as the characters typed, never read as HTML or markdown. The page is the lab's offline
shell (:func:`nplk_lab.figures.offline_page.offline_page`: Plotly.js inline, the JSON and
the scripts made safe inside ``<script>`` elements) around this module's body, style and
player.

No Streamlit: the Lessons page passes its own figure function in (so the file shows
exactly the page's figures) and offers the result through a download button.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from nplk_lab.figures.common import figure_json, plot_config
from nplk_lab.figures.offline_page import inline_script, offline_page, plotly_js

from .lessons import Step

__all__ = ["MAX_BYTES", "inline_script", "lesson_file_data", "lesson_html", "plotly_js"]

#: the largest file a lesson may make (a course site's upload limit is often 10 MB)
MAX_BYTES = 10 * 1024 * 1024

#: what a student sees instead of a figure that is itself the answer
NO_FIGURE_YET = "The figure appears once you have answered: here it is the answer."


@functools.lru_cache(maxsize=None)
def _browser_file(name: str) -> str:
    """The page's body, its style and its player: browser files beside this module
    (package data), read by name."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _figure(draw: Callable[[Step, bool], Any], step: Step, revealed: bool
            ) -> tuple[Any, str]:
    """(the figure as parsed JSON or None, a message when it could not be made)."""
    try:
        fig = draw(step, revealed)
    except ValueError as exc:
        return None, f"This step's figure could not be made: {exc}"
    return (None if fig is None else json.loads(figure_json(fig))), ""


def lesson_file_data(title: str, steps: Sequence[Step],
                     draw: Callable[[Step, bool], Any], *, summary: str = ""
                     ) -> dict[str, Any]:
    """Everything the file's player needs, as plain data: per step its sentence, its
    question and options, the figure before the answer (``before``: the data alone, or
    None when the figure is the answer), the figure after it (``after``), and the
    measured reveal (``answer``: the index of the option the numbers support, −1 for
    none; ``reveal``: the numbers in words; ``draws``: each draw's numbers, for a step
    measured over several draws). Steps without a question show ``after`` at once.
    ``key`` names the lesson (its title and words) where the player keeps a student's
    answers in the browser."""
    out = []
    for step in steps:
        after, err = _figure(draw, step, True)
        item: dict[str, Any] = {"sentence": step.sentence, "after": after, "error": err,
                                "question": "", "options": [], "before": None,
                                "answer": -1, "reveal": "", "draws": None}
        if step.question and step.options:
            before, err_before = _figure(draw, step, False)
            rev = step.reveal()
            item.update(question=step.question, options=list(step.options), before=before,
                         error_before=err_before,
                         answer=-1 if rev is None else int(rev.answer),
                         reveal="" if rev is None else rev.text,
                         draws=None if rev is None or rev.draws is None else
                         {"header": list(rev.draws.header),
                          "rows": [list(r) for r in rev.draws.rows]})
        out.append(item)
    # where a student's answers are kept in the browser: one key per lesson's words
    key = hashlib.sha256(json.dumps(
        [title, [[s["sentence"], s["question"], s["options"]] for s in out]],
        ensure_ascii=False).encode("utf-8")).hexdigest()[:16]
    return {"title": title, "summary": summary, "steps": out, "key": key,
            # no mode bar, as in the lab's presentation mode: a lesson's figure is read,
            # not explored (dragging still zooms, a double click resets), and the bar's
            # buttons covered a long title's end on hover
            "config": {**plot_config("nplk-lesson"), "displayModeBar": False},
            "noFigure": NO_FIGURE_YET}


def lesson_html(title: str, steps: Sequence[Step], draw: Callable[[Step, bool], Any],
                *, summary: str = "", fit_js: str = "") -> str:
    """The lesson as one HTML page (see the module docstring). ``draw(step, revealed)``
    is the Lessons page's figure function; ValueError when the page would be larger than
    :data:`MAX_BYTES`. ``fit_js`` is the lab's script that fits a figure's title to the
    width it has in the browser (the live chart's ``reactFitted``); the page draws with
    it when given."""
    if not steps:
        raise ValueError("A lesson file needs at least one step.")
    data = lesson_file_data(title, steps, draw, summary=summary)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    page = offline_page(title, _browser_file("lesson_file.html"),
                        style=_browser_file("lesson_file.css"), data={"nplk-lesson": text},
                        scripts=(fit_js, _browser_file("lesson_file.js")))
    size = len(page.encode("utf-8"))
    if size > MAX_BYTES:
        raise ValueError(f"The lesson file would be {size / 1e6:.1f} MB; a lesson file may "
                         f"be at most {MAX_BYTES / 1e6:.0f} MB.")
    return page
