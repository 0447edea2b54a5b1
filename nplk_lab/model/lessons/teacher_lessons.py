"""A teacher's own lesson: an ordered list of (page state, sentence) in one URL value.

:func:`teacher_step` takes a lab page's live state and a sentence; :func:`encode_teacher_lesson`
packs the steps (compact JSON, zlib, base64url) into the ``my_lesson`` URL value and
:func:`decode_teacher_lesson` unpacks one. Decoding is as strict as every other URL
input: the text is capped in length and step count, the inflated size is capped before
it is inflated (no zip bomb), every state is decoded by the settings codec (an unknown or
invalid setting refuses the lesson, naming the step), the expected work of all steps is
capped by the work budget, and sentences come back as one line of plain text for the
page to show as such (``st.text``). A link is refused when bytes follow its packed
stream, when its format number is not the integer 1 (``true`` is not), when any of its
text holds an invisible format character (direction overrides such as U+202E, which
show a sentence in another order than it is written, zero-width spaces and joiners),
and when a step shows an uploaded CSV (a link cannot carry the file, so the step could
never draw). A step can carry a question for the class from :data:`QUESTIONS` (the
teacher picks one; its choices are fixed and the number that decides its answer is
measured when the step is revealed, as in the built-in lessons); it then plays as a
predict-then-reveal :class:`nplk_lab.model.lessons.lessons.Step`, otherwise as a step without a
question. No Streamlit.
"""

from __future__ import annotations

import base64
import binascii
import json
import unicodedata
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import budget, codec
from ..methods import METHODS
from ..settings_table import REGRESSION, Message, _msg, clip, defaults
from .lesson_fits import _acc, _compare, lesson_fit, nearest_neighbour_labels
from .lessons import STEP_PAGES, Reveal, Step

MAX_TEACHER_STEPS = 12
MAX_SENTENCE = 300        # characters of one sentence
MAX_LESSON_CHARS = 6000   # the encoded URL value (base64url)
MAX_LESSON_JSON = 32 * 1024   # the inflated JSON, checked while inflating
MAX_STEP_KEYS = 80        # settings in one step (the lab has ~70)
MAX_LESSON_SECONDS = 60.0  # expected fit time of all steps together (like a sweep)
_FORMAT = 1


# ---------------------------------------------------------------------------
# the questions a teacher's step can ask
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TeacherQuestion:
    """A question a teacher can attach to a step: its wording (``{method}`` is the
    step's method by name), its fixed choices, the page it fits, and the measurement
    that decides the answer at the step's settings."""

    key: str
    page: str
    text: str
    options: tuple[str, ...]
    measure: Any  # Callable[[Mapping[str, Any]], Reveal]
    #: the method settings the question compares against (a step showing that method
    #: itself cannot ask it)
    not_for: tuple[str, ...] = ()

    def wording(self, params: Mapping[str, Any]) -> str:
        return self.text.format(method=_method_label(self.page, params))


def _method_key(page: str, params: Mapping[str, Any]) -> str:
    return str(params["reg_method" if page == "regression" else "method"])


def _method_label(page: str, params: Mapping[str, Any]) -> str:
    m = _method_key(page, params)
    return METHODS[m].label if m in METHODS else m


def _vs_plain_svm(p: Mapping[str, Any]) -> Reveal:
    method = str(p["method"])
    data, r = lesson_fit(p, method)
    _, s = lesson_fit({**p, "method": "svm"}, "svm")
    m = len(data.y_test)
    return Reveal(_compare(r.test_score, s.test_score, m),
                  f"{_method_label('classification', p)}: {_acc(r.test_score, m)}; plain SVM "
                  f"with the same σ and C: {_acc(s.test_score, m)}.",
                  {"here": r.test_score, "other": s.test_score})


def _vs_nearest(p: Mapping[str, Any]) -> Reveal:
    method = str(p["method"])
    data, r = lesson_fit(p, method)
    m = len(data.y_test)
    nn = float(np.mean(nearest_neighbour_labels(data) == data.y_test))
    return Reveal(_compare(r.test_score, nn, m),
                  f"{_method_label('classification', p)}: {_acc(r.test_score, m)}; "
                  f"1-nearest neighbour (each test point takes the label of the closest "
                  f"training point): {_acc(nn, m)}.",
                  {"here": r.test_score, "other": nn})


def _vs_plain_svr(p: Mapping[str, Any]) -> Reveal:
    method = str(p["reg_method"])
    _, r = lesson_fit(p, method, REGRESSION)
    _, s = lesson_fit({**p, "reg_method": "svr"}, "svr", REGRESSION)
    a, b = r.test_score, s.test_score
    ans = 0 if a < 0.9 * b else 2 if a > b / 0.9 else 1
    return Reveal(ans, f"Relative test error (0 is a perfect fit): "
                       f"{_method_label('regression', p)} {a:.3g}; plain SVR with the same σ, "
                       f"C and ε {b:.3g}.", {"here": a, "other": b})


_HIGHER_SAME_LOWER = ("Higher", "About the same (within one test point)", "Lower")

#: every question a teacher's step can ask, by key (the key travels in the link)
QUESTIONS: Mapping[str, TeacherQuestion] = {q.key: q for q in (
    TeacherQuestion("vs_svm", "classification",
                    "On the test points, does {method} score higher than the plain SVM with "
                    "the same σ and C?", _HIGHER_SAME_LOWER, _vs_plain_svm, ("svm",)),
    TeacherQuestion("vs_1nn", "classification",
                    "On the test points, does {method} score higher than 1-nearest neighbour "
                    "(each test point taking the label of the closest training point)?",
                    _HIGHER_SAME_LOWER, _vs_nearest),
    TeacherQuestion("vs_svr", "regression",
                    "Is the test error of {method} lower than the plain SVR's with the same "
                    "σ, C and ε?",
                    ("Lower (by more than 10 %)", "About the same (within 10 %)",
                     "Higher (by more than 10 %)"), _vs_plain_svr, ("svr",)),
)}


def questions_for(page: str, params: Mapping[str, Any]) -> tuple[TeacherQuestion, ...]:
    """The questions a step on ``page`` with these settings can ask."""
    method = _method_key(page, params) if page in ("classification", "regression") else ""
    return tuple(q for q in QUESTIONS.values()
                 if q.page == page and method not in q.not_for)


@dataclass(frozen=True)
class TeacherStep:
    page: str
    state: Mapping[str, Any]   # only the settings that differ from the defaults
    sentence: str
    #: the key of a question from :data:`QUESTIONS` ("" : the step asks nothing)
    ask: str = ""

    @property
    def params(self) -> dict[str, Any]:
        return {**defaults(), **self.state}

    def as_step(self) -> Step:
        """A built-in-like step without a question; its figure is the page's main one
        (decision surface, fitted curve, clusters)."""
        fig = {"classification": "surface", "regression": "curve",
               "pairwise": "constraints"}[self.page]
        q = QUESTIONS.get(self.ask)
        if q is None:
            return Step(self.sentence, self.page, dict(self.state), fig)
        return Step(self.sentence, self.page, dict(self.state), fig,
                    q.wording(self.params), q.options, -1, q.measure)


def teacher_step(page: str, params: Mapping[str, Any], sentence: str,
                 ask: str = "") -> TeacherStep:
    """A step from a page's live state: the settings that matter on ``page`` and differ
    from the defaults; the sentence as plain text (invisible format characters dropped),
    cut to :data:`MAX_SENTENCE`; ``ask`` the key of a question of :func:`questions_for`
    or "". ValueError (a message for the teacher) for a page a lesson cannot show, a
    view of an uploaded CSV or a question this view cannot ask."""
    if page not in STEP_PAGES:
        raise ValueError("A lesson step can show the Classification, Regression or "
                         "Pairwise constraints page.")
    if ask and ask not in {q.key for q in questions_for(page, params)}:
        raise ValueError("That question does not fit this view (it compares the method "
                         "with itself, or belongs to another page).")
    dflt = defaults()
    names = codec.relevant_names(page, params)
    if _shows_csv({k: params.get(k) for k in names}):
        raise ValueError(f"This view {_CSV_STEP}.")
    state = {k: params[k] for k in names if k in params and params[k] != dflt.get(k)
             and k not in _NOT_IN_STEPS}
    return TeacherStep(page, state, _plain(sentence)[:MAX_SENTENCE], ask)


#: settings a step never carries (presentation and lesson navigation, user points)
_NOT_IN_STEPS = frozenset({"present", "lesson", "step", "my_lesson", "class", "teacher",
                           "points", "focus_point", "replay", "replay_step"})


def _invisible(ch: str) -> bool:
    """A format character (Unicode category Cf): direction marks, embeddings, overrides
    and isolates (U+200E/F, U+202A-E, U+2066-9, U+061C), zero-width spaces and joiners
    (U+200B-D, U+2060, U+FEFF), soft hyphens. Each changes how text looks without
    showing itself."""
    return unicodedata.category(ch) == "Cf"


def _plain(text: Any) -> str:
    """One line of plain text: control characters and line breaks as spaces, invisible
    format characters dropped."""
    t = "".join(ch for ch in str(text)[:MAX_SENTENCE * 2] if not _invisible(ch))
    return " ".join(clip(t, MAX_SENTENCE * 2).split())


#: the settings that name a step's data set; an uploaded CSV cannot travel in a link
_DATASET_SETTINGS = ("dataset", "reg_dataset")
_CSV_STEP = ("shows an uploaded CSV, which a lesson link cannot carry: choose one of the "
             "lab's data sets for that step")


def _shows_csv(state: Mapping[str, Any]) -> bool:
    return any(state.get(k) == "csv" for k in _DATASET_SETTINGS)


def encode_teacher_lesson(steps: Sequence[TeacherStep]) -> str:
    """One URL value for ``steps`` (ValueError above the caps)."""
    if not 1 <= len(steps) <= MAX_TEACHER_STEPS:
        raise ValueError(f"A lesson has 1 to {MAX_TEACHER_STEPS} steps.")
    for i, s in enumerate(steps, 1):
        if _shows_csv(s.state):
            raise ValueError(f"Step {i} {_CSV_STEP}.")
    body = {"v": _FORMAT, "steps": [
        {"page": s.page, "q": codec.encode_query(dict(s.state)), "text": s.sentence,
         **({"ask": s.ask} if s.ask else {})}
        for s in steps]}
    raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    token = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")
    if len(token) > MAX_LESSON_CHARS:
        raise ValueError(f"The lesson's link would be {len(token):,} characters; the lab "
                         f"takes at most {MAX_LESSON_CHARS:,}. Use fewer steps or shorter "
                         "sentences.")
    return token


def decode_teacher_lesson(token: Any) -> tuple[tuple[TeacherStep, ...], list[Message]]:
    """The steps of a teacher's lesson link, or ``()`` and a message saying why it was
    refused. Never raises; never inflates more than :data:`MAX_LESSON_JSON` bytes."""
    def refuse(why: str) -> tuple[tuple[TeacherStep, ...], list[Message]]:
        return (), [_msg("error", f"This lesson link cannot be opened: {why} Ask for a "
                                  "new link made with the lab's “Make the lesson link”.")]
    if not isinstance(token, str) or not token:
        return refuse("it is empty.")
    if len(token) > MAX_LESSON_CHARS:
        return refuse(f"it is {len(token):,} characters long; a lesson link holds at most "
                      f"{MAX_LESSON_CHARS:,}.")
    if not all(c.isascii() and (c.isalnum() or c in "-_") for c in token):
        return refuse("it contains characters a lesson link never has.")
    try:
        packed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        z = zlib.decompressobj()
        raw = z.decompress(packed, MAX_LESSON_JSON)
        if z.unconsumed_tail or not z.eof:
            return refuse("it is damaged or too large once unpacked."
                          if not z.unconsumed_tail else
                          f"unpacked it is over {MAX_LESSON_JSON // 1024} KB.")
        if z.unused_data:
            return refuse("it has extra data after the lesson (the link was changed "
                          "after it was made).")
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError, zlib.error, UnicodeDecodeError):
        return refuse("it is damaged (not a packed lesson).")

    if codec._nesting_depth(text) > 4:
        return refuse("its contents are nested too deeply.")
    try:
        doc = json.loads(text)
    except ValueError:
        return refuse("its contents are not valid.")
    if any(_invisible(ch) for t in _strings(doc) for ch in t):  # escaped as \u202e too
        return refuse("its text holds invisible characters (direction overrides or "
                      "zero-width characters), which can make a sentence look different "
                      "from what it says.")
    # type(...) is int: JSON's true is a Python bool, and True == 1
    if not isinstance(doc, dict) or type(doc.get("v")) is not int or doc["v"] != _FORMAT or \
            not isinstance(doc.get("steps"), list):
        return refuse("it was not made by this version of the lab.")
    raw_steps = doc["steps"]
    if not 1 <= len(raw_steps) <= MAX_TEACHER_STEPS:
        return refuse(f"it has {len(raw_steps)} steps; a lesson has 1 to "
                      f"{MAX_TEACHER_STEPS}.")
    steps: list[TeacherStep] = []
    seconds = 0.0
    for i, s in enumerate(raw_steps, 1):
        if not isinstance(s, dict) or set(s) - {"page", "q", "text", "ask"}:
            return refuse(f"step {i} is not a lesson step.")
        page, q, sentence = s.get("page"), s.get("q", {}), s.get("text", "")
        ask = s.get("ask", "")
        if page not in STEP_PAGES:
            return refuse(f"step {i} names a page a lesson cannot show "
                          f"(“{clip(page, 24)}”).")
        if not isinstance(q, dict) or len(q) > MAX_STEP_KEYS or \
                not all(isinstance(k, str) and isinstance(v, str) for k, v in q.items()):
            return refuse(f"step {i}'s settings are not a list of lab settings.")
        if not isinstance(sentence, str) or len(sentence) > MAX_SENTENCE:
            return refuse(f"step {i}'s sentence is not text of at most {MAX_SENTENCE} "
                          "characters.")
        bad = sorted(set(q) & _NOT_IN_STEPS)
        if bad:
            return refuse(f"step {i} sets “{clip(bad[0], 24)}”, which a step cannot carry.")
        base = defaults()
        params, msgs = codec.decode_query(q, base)
        if msgs:
            return refuse(f"step {i}: {msgs[0].text}")
        state = {k: params[k] for k in q}
        if _shows_csv(state):
            return refuse(f"step {i} {_CSV_STEP}.")
        if ask != "" and (not isinstance(ask, str) or ask not in {
                qq.key for qq in questions_for(page, {**base, **state})}):
            return refuse(f"step {i} asks a question this lab does not know for its view "
                          f"(“{clip(ask, 24)}”).")
        step = TeacherStep(page, state, _plain(sentence), ask)
        seconds += _expected_seconds(step)
        if seconds > MAX_LESSON_SECONDS:
            return refuse(f"its steps would take about {seconds:.0f} s of fitting in all "
                          f"(up to step {i}); a lesson may take at most "
                          f"{MAX_LESSON_SECONDS:.0f} s. Use smaller samples.")
        steps.append(step)
    return tuple(steps), []


def _strings(doc: Any) -> list[str]:
    """Every string in a decoded JSON document, keys included (its depth is capped)."""
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [t for k, v in doc.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(doc, list):
        return [t for v in doc for t in _strings(v)]
    return []


def _expected_seconds(step: TeacherStep) -> float:
    """The work budget's estimate for the step's fit (on the training points)."""
    p = step.params
    method = Step("", step.page, p, "surface").method
    n_train = max(int(round(int(p["n_samples"]) * (1 - float(p["test_size"])))), 1)
    if step.page == "pairwise":
        n_train = int(p["n_samples"])
    verdict = budget.fit_verdict(method, n_train, 2, p)
    n = n_train if verdict.ok else verdict.n_max  # the lab fits a live subsample then
    return budget.fit_cost(method, n, 2, p).seconds
