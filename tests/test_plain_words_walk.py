"""Plain words on every student-facing screen: no paper reference
("§6.3", "eq. 23", "Theorem 6"), no specification name, no raw TeX, and no symbol a
student cannot decode unless it is explained where it appears.

Every page is walked with AppTest in several states and every step of every built-in
lesson before and after its reveal, on the page and in presentation mode (the browser
walk of tests/test_browser_present_fit.py reads what Plotly draws itself, the tick
labels, at both projector sizes). From each screen the walker collects, element by
element, every title, header, caption, markdown, alert, metric label, widget label,
option and help line, expander and tab label, table column, and the titles, axis
titles, colour-bar titles, annotations and legend names of every chart. Text inside a
"For researchers" expander (:func:`nplk_lab.ui.for_researchers`) is left out: that is
where the papers' equations and theorem numbers go. Paper results is the page of the
papers' own numbers and is not walked.

A symbol on the watched list (Q(π), h̃ or h̄, K*, λ, ∘) passes only when the same
element explains it: its own text or its hover help contains the words that name it
(:data:`GLOSSARY`)."""

from __future__ import annotations

import re
import sys

import pytest
from _screen_words import RESEARCHERS, ROOT, STATES, open_page, screen_texts
from streamlit.testing.v1 import AppTest

from nplk_lab.model.lessons import lessons as L

if str(ROOT) not in sys.path:  # nplk_lab/ui/ sits next to app.py (as with `streamlit run`)
    sys.path.insert(0, str(ROOT))


#: always wrong on a student's screen: references into the papers, the specification's
#: name, code-like maths
FORBIDDEN = [
    ("section sign", re.compile(r"§")),
    ("equation number", re.compile(r"\b[Ee]q\.\s*\(?\d")),
    ("theorem number", re.compile(r"\bTheorem\b|\bThm\b")),
    ("figure, table or algorithm number",
     re.compile(r"\b(Fig|Figure|Table|Alg|Algorithm|Lemma)\.?\s*\d")),
    ("specification", re.compile(r"\bSPEC\b")),
    ("PSD", re.compile(r"\bPSD\b")),
    ("11ᵀ", re.compile(r"11ᵀ")),
    ("raw TeX", re.compile(r"\\[A-Za-z]{2,}|_\{|\^\{|\$[^$\s][^$]*\$")),
]
#: numbers as a computer writes them, on every screen (a slider's stops, a metric, a caption)
COMPUTER_NUMBERS = [
    ("a number as a computer writes it", re.compile(r"\b\d(?:\.\d+)?e[-+]?\d+\b")),
    ("a whole number with a trailing .0", re.compile(r"\b\d{4,}\.0\b")),
]

#: symbols that may stay only where the same element says what they are: the symbol's
#: pattern and the words (any one of them) that explain it
GLOSSARY = {
    "Q(π)": (re.compile(r"Q\(π\)"), ("kernel mass between clusters",)),
    "h̃ / h̄": (re.compile(r"h̃|h̄"), ("objective",)),
    "K*": (re.compile(r"K\*(?!\*)"), ("learned kernel",)),
    "λ": (re.compile(r"λ"), ("eigenvalue", "ridge")),
    "∘": (re.compile(r"∘"), ("entry by entry",)),
}


#: more symbols a lesson explains where it uses them (a student meets them there first)
LESSON_GLOSSARY = {
    **GLOSSARY,
    "‖·‖": (re.compile(r"‖"), ("distance", "size")),
    "α": (re.compile(r"α"), ("weight",)),
    "θ": (re.compile(r"θ"), ("θ is", "θ, the")),
    "f(x)": (re.compile(r"\bf\(x\)"), ("decision value",)),
    "switched off": (re.compile(r"switched off|\boff at test time"),
                     ("plain kernel",)),
}


#: words of classification that have no place on the Regression page
CLASSIFICATION_WORDS = re.compile(r"\bSVMs?\b|SVM-CV|[Cc]lick to add|between the classes"
                                  r"|\bclassif|\bboundar")


def unescape(text: str) -> str:
    """Text as the student reads it: safe_text escapes Markdown with a backslash before
    punctuation, which is not TeX."""
    return re.sub(r"\\([^A-Za-z0-9\s])", r"\1", str(text))


def problems(text: str, help_text: str = "", glossary: dict = GLOSSARY) -> list[str]:
    """What a student could not decode in one element: ``text`` with its hover help
    (symbols from ``glossary`` left unexplained, numbers as a computer writes them)."""
    t, h = unescape(text), unescape(help_text)
    forbidden = FORBIDDEN + COMPUTER_NUMBERS
    found = [f"{name}: {m.group(0)!r}" for name, rx in forbidden
             for src in (t, h) for m in [rx.search(src)] if m]
    both = (t + " " + h).lower()
    for name, (rx, words) in glossary.items():
        if rx.search(t + " " + h) and not any(w in both for w in words):
            found.append(f"unexplained {name}")
    return found


def test_the_checker_catches_what_it_should():
    assert problems("the rule of KNPL eq. 23")
    assert problems("DANK §6.3")
    assert problems("Theorem 6: bound vs actual gap")
    assert problems("screened non-SVs (Thm 7)")
    assert problems("Nesterov (Alg. 1)") and problems("(DANK paper, Fig. 4)")
    assert problems("(Data-adaptive Kernels paper, Table 5)")
    assert problems("a learned PSD matrix F")
    assert problems("F stays near 11ᵀ")
    assert problems("max_{t≤k} h_t") and problems(r"\max h") and problems("$x^2$")
    assert problems("Q(π)") and problems("rank(K*)") and problems("√λ₁ v₁")
    assert problems("F∘K") and problems("h(α*) − h̃(α̃)")
    # explained where it appears
    assert not problems("Q(π)", "Q(π) is the kernel mass between clusters")
    assert not problems("the eigenvalue λᵢ")
    assert not problems("F∘K (F times K entry by entry)")
    assert not problems("rank of the learned kernel")
    # plain words and the symbols the lab keeps
    assert not problems("τ (nuclear-norm weight)", "Larger τ gives a lower-rank F.")
    assert not problems(r"Relative squared error \(lower is better\)\.")
    assert not problems("the equation of a line; equal weights; Thermal")


def test_every_symbol_a_slider_is_named_by_is_explained_in_its_help():
    """A control named by a symbol (τ, η, ρ, C, σ, …) says in its help what the symbol
    does, starting with the symbol itself, so the hover explains it where it appears."""
    import nplk_lab.model as lab

    bad = {}
    for name, s in lab.settings().items():
        first = s.label.split()[0]
        if len(first) == 1 and not s.help.startswith(first + " "):
            bad[name] = (s.label, s.help[:80])
    assert not bad, bad


# ---------------------------------------------------------------------------
# the walker: (text, help) per element, outside the researchers' notes
# ---------------------------------------------------------------------------

# every text a figure shows: the same reader as the plain-words test's


def researchers_notes(at: AppTest) -> list[str]:
    return [e.label for e in at.expander if e.label.startswith(RESEARCHERS)]


def screen_problems(at: AppTest, glossary: dict = GLOSSARY) -> dict[str, list[str]]:
    assert not at.exception, [e.value for e in at.exception]
    shown = screen_texts(at)
    assert len(shown) > 5, shown
    return {f"{t[:100]!r} (help {h[:60]!r})": p for t, h in shown
            for p in [problems(t, h, glossary)] if p}


# ---------------------------------------------------------------------------
# pages
# ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("page,query", STATES,
                         ids=[f"{p.split('/')[-1]}-{i}" for i, (p, _) in enumerate(STATES)])
def test_page_has_no_paper_reference_or_unexplained_symbol(page, query):
    at = open_page(page, query)
    bad = screen_problems(at)
    assert not bad, bad
    if not page.endswith("Lessons.py"):
        # the papers' formulas have a home on every lab page (not on the projector)
        assert bool(researchers_notes(at)) != bool(query.get("present")), \
            researchers_notes(at)
    if page.endswith("Regression.py"):
        # written for regression: no classifier's words
        wrong = {f"{t[:100]!r} (help {h[:60]!r})": m.group(0) for t, h in screen_texts(at)
                 for m in [CLASSIFICATION_WORDS.search(unescape(t + " " + h))] if m}
        assert not wrong, wrong


# ---------------------------------------------------------------------------
# lessons: every step of every built-in lesson, before and after the reveal
# ---------------------------------------------------------------------------

def test_the_lesson_checker_catches_what_the_lessons_said():
    """What a student met in the lessons before: each is caught, and its plain-words
    form passes."""
    caught = ["k(x, x′) = exp(−‖x − x′‖² / (2σ²))", "‖G − K‖ / ‖K‖ = 14 %",
              "5 × the largest αᵢ² of the plain SVM", "width 1/θ at its x",
              "f(x) = 0", "DANK with F switched off at test time 50",
              "at γ = 100000.0", "1 ± 2.6e-06", "9.2e-05 vs 0.012"]
    for text in caught:
        assert problems(text, glossary=LESSON_GLOSSARY), text
    for text in ["exp(−d² / (2σ²)), with d the distance between x and x′",
                 "the change K̃ − K is 14 % of the size of K",
                 "F switched off at test time (its own weights, the plain kernel K)",
                 "the kernel width at its x", "decision boundary", "at γ = 10⁵",
                 "1 ± 2.6 × 10⁻⁶"]:
        assert not problems(text, glossary=LESSON_GLOSSARY), text


def _lesson_walk(number: int, present: bool) -> dict:
    """Every step of lesson ``number`` before its answer and after one (the right one in
    the page, a wrong one in presentation mode, where the reveal is laid out apart)."""
    bad = {}
    lesson = L.lesson(number)
    mode = "presentation" if present else "page"
    for i, step in enumerate(lesson.steps, 1):
        query = {"lesson": number, "step": i, **({"present": "1"} if present else {})}
        at = open_page("pages/7_Lessons.py", query)
        for p in screen_problems(at, LESSON_GLOSSARY).items():
            bad[f"{mode}, step {i}, before: {p[0]}"] = p[1]
        if step.measure is None:
            continue
        rev = step.reveal()
        right = rev.answer if rev.answer >= 0 else 0
        pick = step.options[(right + 1) % len(step.options) if present else right]
        at.radio(key=f"lesson_pick-L{number}-{i}").set_value(pick).run()
        at.button(key="lesson_lock").click().run()
        assert at.success or at.error, "the answer was not revealed"
        for p in screen_problems(at, LESSON_GLOSSARY).items():
            bad[f"{mode}, step {i}, after: {p[0]}"] = p[1]
    return bad


@pytest.mark.slow
@pytest.mark.parametrize("number", [lesson.number for lesson in L.LESSONS])
def test_lesson_steps_have_no_paper_reference_or_unexplained_symbol(number):
    """Every lesson state, on the page and in presentation mode: no paper reference, no
    unexplained symbol (the lessons' own list too: ‖·‖, α, θ, f(x), "switched off"), no
    number as a computer writes it ("2.6e-06", "100000.0")."""
    bad = {**_lesson_walk(number, False), **_lesson_walk(number, True)}
    assert not bad, bad


def test_paper_results_shows_underscore_subscripts_as_subscripts():
    from nplk_lab.model.verdicts import maths
    assert maths("n_train = 105") == "nₜᵣₐᵢₙ = 105"
    assert maths("η = ‖α_SVM‖²") == "η = ‖α(SVM)‖²"
    assert maths("at 2σ_CV") == "at 2σ(CV)"
    assert maths("F_ij") == "Fᵢⱼ"
    # names of code stay as they are
    assert maths("scikit-learn make_blobs") == "scikit-learn make_blobs"
    assert maths("python -m nplk_lab.model.reproduce") == "python -m nplk_lab.model.reproduce"
