r"""Lessons: guided walks through the lab for a student who knows an SVM but not the papers.

This file is long because it is the five lessons themselves, as data: 28 steps, each with
its sentence, state, question, options and the small function that measures its answer.
The fitting lives in :mod:`.lesson_fits` and the teacher's own lessons in
:mod:`.teacher_lessons`; splitting the lessons further would scatter one text.

A :class:`Lesson` is data: a title and 4–8 :class:`Step` s. A step is one sentence, a lab
page in a set state (settings as in the URL codec, the rest at their defaults), the
figure to draw there, and a predict-then-reveal question. The revealed answer is never
written in: each step's ``measure`` fits the lab at the step's state (through
:func:`nplk_lab.model.data.prepare_data` and :func:`nplk_lab.model.methods.fit_method`, exactly as
the pages do) and returns a :class:`Reveal` whose ``answer`` (the option the numbers
support) is decided in code from those numbers. ``expect`` is the option the lesson's
sentences were written around; the page shows the measured answer whatever ``expect``
says.

Every statement holds at any draw of the data, not only the one it was written at:
``tests/test_lessons.py`` checks each step at data seeds 0–9 and at seeds drawn at
random (the expected option at 9 or more of 10; :mod:`.lesson_seeds`,
``benchmarks/bench_lesson_seeds.py``). A step whose answer can change with the draw sets
``draws``: its reveal then counts the outcome at that many draws (this one and the next
ones) and says the count before this draw's numbers. A step whose question is about
several draws (five or ten) measures the draws that start at its own seed and lists
every one of them.

The honesty rule that shaped lesson 2: on the clowns at σ = 10, C = 10, DANK's learned F
stays within about ±1 % of the all-ones matrix, and most of its test-set gain over the
plain SVM comes from the out-of-sample rule (a test point takes the row of F of its
nearest training point), which makes DANK's test labels those of a 1-nearest-neighbour
classifier on 90 % or more of the test points (at all of data seeds 0–59). With F
switched off at test time DANK keeps more than half of its gain at 3 of those 60 draws
(all of it at 1; at 1 more there is no gain). The lesson measures all of this live
(:func:`dank_gain`) and counts it over ten draws.

The measuring helpers are in :mod:`.lesson_fits`; a teacher's own lesson (a link packing
lab states and sentences) in :mod:`.teacher_lessons`.

This module is long because it is the five lessons written out in full, each step's
words beside the function that measures its answer: split apart, a question would sit
away from its check. Pure Python (no Streamlit); scikit-learn only in the fits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any
from urllib.parse import urlencode

import numpy as np

from . import codec
from .data import LabData
from .lesson_fits import (
    _acc,
    _compare,
    _count,
    _pct,
    _share,
    _size,
    at_draw,
    dank_gain,
    draw_seeds,
    draws_phrase,
    f_off_scores,
    lesson_data,
    lesson_fit,
    lesson_pairwise,
    nearest_neighbour_labels,
    spread_counts,
    spread_text,
)
from .presets import PAGE_FILES, PAGE_PATHS
from .settings_table import CLASSIFICATION, REGRESSION, defaults

__all__ = ["FIGURES", "LESSONS", "STEP_PAGES", "Lesson", "Reveal", "Step", "dank_gain",
           "f_off_scores", "lesson", "lesson_data", "lesson_fit", "lesson_pairwise",
           "nearest_neighbour_labels", "step_file", "step_query", "step_url"]

#: pages a lesson step can show (their figure is drawn on the Lessons page)
STEP_PAGES = ("classification", "regression", "pairwise")
#: figures a step can draw, per page
FIGURES = MappingProxyType({
    "classification": ("surface", "matrix"),
    "regression": ("curve", "bandwidth"),
    "pairwise": ("constraints", "kmeans"),
})
_PAGE_METHOD = {"classification": "method", "regression": "reg_method"}


# ---------------------------------------------------------------------------
# lessons as data
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Reveal:
    """What the numbers at a step's state say: ``answer`` is the index of the option
    they support (−1: none of them), ``text`` says it in words with the numbers,
    ``numbers`` holds them for tests and the page."""

    answer: int
    text: str
    numbers: Mapping[str, float] = field(default_factory=dict)
    #: this draw's outcome in a few words, for a spread over draws ("" : the option's
    #: short name)
    label: str = ""
    #: (outcome, number of draws) over the step's ``draws`` draws of the data; empty when
    #: the step shows no spread
    spread: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Step:
    """One step: a sentence, a page in a set state, a figure and (optionally) a
    predict-then-reveal question."""

    sentence: str
    page: str
    state: Mapping[str, Any]
    figure: str
    question: str = ""
    options: tuple[str, ...] = ()
    expect: int = -1
    measure: Callable[[Mapping[str, Any]], Reveal] | None = field(default=None,
                                                                 compare=False)
    #: when > 1, the reveal also counts the outcome at this many draws of the data (this
    #: one and the next ones): the spread of a step whose answer can change with the draw
    draws: int = 0
    #: short names of the options for that count (default: the options)
    labels: tuple[str, ...] = ()

    @property
    def params(self) -> dict[str, Any]:
        """The full lab state of the step: the defaults with the step's settings."""
        return {**defaults(), **self.state}

    @property
    def method(self) -> str:
        if self.page == "pairwise":
            return "simple_npkl"
        return str(self.params[_PAGE_METHOD[self.page]])

    @property
    def task(self) -> str:
        return REGRESSION if self.page == "regression" else CLASSIFICATION

    def outcome(self, r: Reveal) -> str:
        """A draw's outcome in a few words: the reveal's label, else the option's short
        name."""
        if r.label:
            return r.label
        if r.answer < 0:
            return "none of the options"
        return (self.labels or self.options)[r.answer]

    def reveal(self) -> Reveal | None:
        """The measured answer (None for a step without a question); with ``draws``, the
        outcome at that many draws of the data is counted and said first, then this
        draw's numbers (so the count stays in view on a projector)."""
        if self.measure is None:
            return None
        p = self.params
        r = self.measure(p)
        if self.draws <= 1:
            return r
        labels = [self.outcome(r)] + [self.outcome(self.measure(at_draw(p, s)))
                                      for s in draw_seeds(p, self.draws)[1:]]
        return replace(r, text=f"{spread_text(labels)}\n\n{r.text}",
                       spread=spread_counts(labels))


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    summary: str
    steps: tuple[Step, ...]


def step_query(step: Step) -> dict[str, str]:
    """URL query of the step's page in the step's whole state (every setting that
    matters there, so the link replaces what a session had set, like a preset)."""
    full = step.params
    return codec.encode_query(full, codec.relevant_names(step.page, full))


def step_url(step: Step) -> str:
    """A relative link that opens the step's lab page in the step's state."""
    return f"/{PAGE_PATHS[step.page]}?{urlencode(step_query(step))}"


def step_file(step: Step) -> str:
    return PAGE_FILES[step.page]


# ---------------------------------------------------------------------------
# lesson 1: what σ does to a kernel and an SVM
# ---------------------------------------------------------------------------

_CLOWNS_SVM = {"dataset": "clowns", "method": "svm", "C": 10.0, "show_baseline": False}


def _memorise(p: Mapping[str, Any]) -> Reveal:
    data, r = lesson_fit(p, "svm")
    m = len(data.y_test)
    tr, te = r.train_score, r.test_score
    ans = 0 if tr >= 0.97 and tr - te >= 0.05 else 1 if abs(tr - te) < 0.05 and te >= 0.8 \
        else 2
    why = (" With σ this small a point is similar only to itself and its closest "
           "neighbours, so the SVM can fit every training label, but that does not carry "
           "over to new points.") if ans == 0 else ""
    return Reveal(ans, f"Training accuracy {tr:.3f}, test accuracy {_acc(te, m)}.{why}",
                  {"train": tr, "test": te})


def _kernel_share(below: float | None = None, above: float | None = None
                  ) -> Callable[[Mapping[str, Any]], Reveal]:
    def measure(p: Mapping[str, Any]) -> Reveal:
        _, r = lesson_fit(p, str(p["method"]))
        K = r.kernel
        off = ~np.eye(K.shape[0], dtype=bool)
        if below is not None:
            frac = float(np.mean(K[off] < below))
            what = f"below {below:g}"
        else:
            frac = float(np.mean(K[off] > above))
            what = f"above {above:g}"
        return Reveal(_share(frac), f"{frac:.1%} of the off-diagonal entries of K are "
                                    f"{what} (σ = {p['sigma']:g}).", {"share": frac})
    return measure


def _against(other: Mapping[str, Any], what: str) -> Callable[[Mapping[str, Any]], Reveal]:
    """Compare the test accuracy at the step's state with the same state changed by
    ``other`` (same data: only model settings differ)."""
    def measure(p: Mapping[str, Any]) -> Reveal:
        method = str(p["method"])
        data, r = lesson_fit(p, method)
        q = {**p, **other}
        _, s = lesson_fit(q, str(q["method"]))
        m = len(data.y_test)
        return Reveal(_compare(r.test_score, s.test_score, m),
                      f"Here: {_acc(r.test_score, m)}; {what}: {_acc(s.test_score, m)}.",
                      {"here": r.test_score, "other": s.test_score})
    return measure


_HIGHER_SAME_LOWER = ("Higher", "About the same (within one test point)", "Lower")
_SHARES = ("Almost all (over 90 %)", "Some (10–90 %)", "Few (under 10 %)")
_SIZES = ("Under 1 %", "Between 1 % and 10 %", "Over 10 %")

LESSON_SIGMA = Lesson(1, "What σ does to a kernel and an SVM",
    "The Gaussian kernel's width σ decides which points count as alike; too small and "
    "the SVM memorises, too large and it can only draw a nearly straight line.", (
    Step("The Gaussian kernel k(x, x′) = exp(−‖x − x′‖² / (2σ²)) measures how alike two "
         "points are: 1 for the same point, near 0 once they are a few σ apart. Here the "
         "plain SVM uses σ = 0.05, tiny next to the spread of the clowns (the data are "
         "scaled to about ±2).", "classification", {**_CLOWNS_SVM, "sigma": 0.05},
         "surface", "How will the SVM score on the points it trained on, and on new test "
         "points?", ("Near-perfect on training points, clearly lower on test points",
                     "About the same on both", "Low on both"), 0, _memorise),
    Step("The kernel matrix K holds k(xᵢ, xⱼ) for every pair of training points, "
         "ordered by class. At σ = 0.05 most pairs are several σ apart.", "classification",
         {**_CLOWNS_SVM, "sigma": 0.05, "view": "matrix"}, "matrix",
         "What share of the pairs does the kernel treat as unrelated (k below 0.1)?",
         _SHARES, 0, _kernel_share(below=0.1)),
    Step("Now σ = 1, about the size of one clown's head: neighbours are alike, distant "
         "points are not.", "classification", {**_CLOWNS_SVM, "sigma": 1.0}, "surface",
         "The test accuracy, compared with σ = 0.05?", _HIGHER_SAME_LOWER, 0,
         _against({"sigma": 0.05}, "at σ = 0.05")),
    Step("σ = 10 is wider than the whole data set.", "classification",
         {**_CLOWNS_SVM, "sigma": 10.0}, "surface",
         "The test accuracy, compared with σ = 1?", _HIGHER_SAME_LOWER, 2,
         _against({"sigma": 1.0}, "at σ = 1")),
    Step("Look at K at σ = 10: the colours are almost flat.", "classification",
         {**_CLOWNS_SVM, "sigma": 10.0, "view": "matrix"}, "matrix",
         "What share of the pairs look almost the same to the kernel (k above 0.9)?",
         _SHARES, 0, _kernel_share(above=0.9)),
))


# ---------------------------------------------------------------------------
# lesson 2: what DANK learns and where its gain comes from
# ---------------------------------------------------------------------------

_DANK_STATE = {"dataset": "clowns", "method": "dank", "sigma": 10.0, "C": 10.0,
               "show_baseline": True}


def _dank_vs_svm(p: Mapping[str, Any]) -> Reveal:
    g = dank_gain(p)
    m = int(g["m"])
    return Reveal(_compare(g["dank"], g["svm"], m),
                  f"DANK: {_acc(g['dank'], m)}; plain SVM with the same σ and C: "
                  f"{_acc(g['svm'], m)}.", g)


def _f_size(p: Mapping[str, Any]) -> Reveal:
    g = dank_gain(p)
    return Reveal(_size(g["f_dev"]), f"The largest |Fᵢⱼ − 1| is {_pct(g['f_dev'])}: every "
                                     f"kernel entry is multiplied by a number between "
                                     f"{1 - g['f_dev']:.4f} and {1 + g['f_dev']:.4f}.", g)


def _gain_source(p: Mapping[str, Any]) -> Reveal:
    g = dank_gain(p)
    m = int(g["m"])
    gain = _count(g["dank"], m) - _count(g["svm"], m)
    kept = _count(g["f_off"], m) - _count(g["svm"], m)   # of the gain, with F off
    if gain <= 1:
        ans = 2
    elif g["agree_nn"] >= 0.9 and kept <= gain / 2:
        ans = 1
    elif kept >= gain - 1:
        ans = 0
    else:
        ans = -1
    c = {k: _count(g[k], m) for k in ("dank", "f_off", "svm", "nn")}
    text = (f"Test points right, of {m}: DANK {c['dank']}; the same DANK with F switched "
            f"off at test time {c['f_off']}; plain SVM {c['svm']}; 1-nearest-neighbour "
            f"(1-NN) {c['nn']}. DANK's test labels equal 1-NN's on {g['agree_nn']:.0%} of "
            f"the test points. F is within {_pct(g['f_dev'])} of all-ones.")
    if gain > 1:
        k = max(kept, 0)
        text += (f" Of DANK's {gain} extra test points over the plain SVM, {k} "
                 f"{'stays' if k == 1 else 'stay'} with F switched off.")
    if ans == 1:
        text += (" A new point borrows the row of F of its nearest training point; that "
                 "row, not a new boundary, carries most of the gain.")
    return Reveal(ans, text, g)


def _no_gain(p: Mapping[str, Any]) -> Reveal:
    """DANK against the plain SVM: 0 when DANK is ahead by more than one test point,
    1 otherwise (within one, or behind: the label says which)."""
    g = dank_gain(p)
    m = int(g["m"])
    d = _compare(g["dank"], g["svm"], m)
    label = ("DANK higher", "within one test point", "DANK lower")[d]
    return Reveal(0 if d == 0 else 1,
                  f"DANK: {_acc(g['dank'], m)}; plain SVM with the same σ and C: "
                  f"{_acc(g['svm'], m)}.", g, label=label)


def _smooth_rule(p: Mapping[str, Any]) -> Reveal:
    """DANK with the smooth rule against DANK (the paper's rule) and against F off."""
    g = dank_gain(p)
    m = int(g["m"])
    c = {k: _count(g[k], m) for k in ("dank", "smooth", "f_off", "svm")}
    like_off, like_dank = abs(c["smooth"] - c["f_off"]) <= 1, c["dank"] - c["smooth"] <= 1
    ans = 0 if like_dank else 1 if like_off else 2
    return Reveal(ans, f"Test points right, of {m}: DANK with the paper's rule {c['dank']}, "
                       f"with the smooth rule {c['smooth']}, with F switched off "
                       f"{c['f_off']}; plain SVM {c['svm']}. With the smooth rule DANK's "
                       f"labels equal 1-NN's on {g['smooth_nn']:.0%} of the test points.", g)


def _every_seed(p: Mapping[str, Any]) -> Reveal:
    gains = [dank_gain(at_draw(p, s)) for s in draw_seeds(p, 5)]
    agree = [g["agree_nn"] for g in gains]
    k = sum(a >= 0.9 for a in agree)
    ans = 0 if k == len(agree) else 2 if k == 0 else 1
    rows = "\n".join(
        f"- draw {i}: DANK {_count(g['dank'], int(g['m']))}, plain SVM "
        f"{_count(g['svm'], int(g['m']))}, 1-NN {_count(g['nn'], int(g['m']))} of "
        f"{int(g['m'])} test points right; DANK's labels equal 1-NN's on "
        f"{g['agree_nn']:.0%}" + (" (the draw in the figure)" if i == 1 else "")
        for i, g in enumerate(gains, 1))
    return Reveal(ans, f"DANK agrees with 1-NN on at least 90 % of the test points at {k} "
                       f"of the 5 draws.\n\n{rows}",
                  {"seeds_at_90": float(k), "min_agree": float(min(agree))})


LESSON_DANK = Lesson(2, "What DANK learns, and where its gain comes from",
    "DANK (“Learning Data-adaptive Non-parametric Kernels”) learns a matrix F that "
    "multiplies the kernel entry by entry. On the clowns with a too-wide kernel it beats "
    "the plain SVM on test points — and this lesson measures why.", (
    Step("DANK trains an SVM on F × K instead of K, multiplied entry by entry: every "
         "kernel entry k(xᵢ, xⱼ) is multiplied by a learned Fᵢⱼ, with F pulled towards "
         "the all-ones matrix (which would leave K unchanged). Both models here use "
         "σ = 10 and C = 10; the plain SVM's boundary is dotted.", "classification",
         _DANK_STATE, "surface",
         "Which scores higher on the test points?",
         ("DANK", "About the same (within one test point)", "The plain SVM"), 0,
         _dank_vs_svm, draws=10, labels=("DANK higher", "about the same",
                                          "the plain SVM higher")),
    Step("This is the learned F, on a colour scale centred at 1 that spans its largest "
         "deviation (so even a tiny change shows).", "classification",
         {**_DANK_STATE, "view": "matrix"}, "matrix",
         "How far is F from the all-ones matrix, at its largest entry?", _SIZES, 0, _f_size),
    Step("So F barely changes the kernel, yet DANK scores higher on new points. To "
         "classify a new point DANK needs F's entries for it, which training never "
         "produced.", "classification", _DANK_STATE, "surface",
         "Where does DANK's gain come from?",
         ("The learned F reshapes the decision boundary",
          "Mostly the out-of-sample rule: a test point takes the row of F of its nearest "
          "training point, which copies that neighbour's label",
          "Nowhere: it is within one test point of the plain SVM"), 1, _gain_source,
         draws=10, labels=("the learned F", "mostly the out-of-sample rule",
                           "no gain")),
    Step("A rule that copies no neighbour: the lab's smooth rule gives a new point an "
         "average of all the rows of F, weighted by the kernel. The surface is drawn "
         "with it.", "classification", {**_DANK_STATE, "extension": "smooth"}, "surface",
         "With the smooth rule, how does DANK score on the test points?",
         ("As with the paper's rule (within one test point)",
          "As with F switched off (within one test point)", "Somewhere else"), 1,
         _smooth_rule, draws=10, labels=("as the paper's rule", "as F off", "elsewhere")),
    Step("One data set could be a fluke. The same comparison on five draws of the data, "
         "each a new sample with its own train/test split; the figure shows the first.",
         "classification", _DANK_STATE, "surface",
         "On how many of the five does DANK agree with 1-NN on at least 90 % of the test "
         "points?", ("All five", "Some of them", "None"), 0, _every_seed),
    Step("With a kernel of the right width (σ = 1) the plain SVM is already good.",
         "classification", {**_DANK_STATE, "sigma": 1.0}, "surface",
         "Does DANK still beat the plain SVM?",
         ("Yes, by more than one test point", "No: it is within one test point, or lower"),
         1, _no_gain, draws=10),
))


# ---------------------------------------------------------------------------
# lesson 3: how far a kernel may move (ρ in ONK, γ in KNPL)
# ---------------------------------------------------------------------------

_ONK = {"dataset": "clowns", "method": "onk", "sigma": 4.0, "C": 1.0, "show_baseline": True}
_KNPL = {"dataset": "sandwich", "method": "knpl", "sigma": 1.0, "C": 1.0,
         "show_baseline": True}


def _onk_vs_svm(p: Mapping[str, Any]) -> Reveal:
    data, r = lesson_fit(p, "onk")
    _, s = lesson_fit({**p, "method": "svm"}, "svm")
    m = len(data.y_test)
    d = _compare(r.test_score, s.test_score, m)
    ans = {1: 0, 0: 1, 2: 2}[d]
    return Reveal(ans, f"ONK (ρ = {p['onk_rho']:g}): {_acc(r.test_score, m)}; plain SVM: "
                       f"{_acc(s.test_score, m)}.", {"onk": r.test_score, "svm": s.test_score})


def _onk_move(p: Mapping[str, Any]) -> Reveal:
    _, r = lesson_fit(p, "onk")
    rel = float(np.linalg.norm(r.matrix - r.kernel) / np.linalg.norm(r.kernel))
    return Reveal(_size(rel), f"‖G − K‖ / ‖K‖ = {_pct(rel)} at ρ = {p['onk_rho']:g}.",
                  {"relative_move": rel})


def _onk_gain(p: Mapping[str, Any]) -> Reveal:
    """ONK against the plain SVM: 0 when ONK is ahead by more than one test point, 1
    otherwise (the label says whether about the same or lower)."""
    data, r = lesson_fit(p, "onk")
    _, s = lesson_fit({**p, "method": "svm"}, "svm")
    m = len(data.y_test)
    d = _compare(r.test_score, s.test_score, m)
    return Reveal(0 if d == 0 else 1,
                  f"ONK (ρ = {p['onk_rho']:g}): {_acc(r.test_score, m)}; plain SVM: "
                  f"{_acc(s.test_score, m)}." + ("" if d == 0 else " Here, moving the kernel "
                                                 "did not improve it."),
                  {"onk": r.test_score, "svm": s.test_score},
                  label=("ONK higher", "about the same", "ONK lower")[d])


def _knpl_move(p: Mapping[str, Any]) -> Reveal:
    data, r = lesson_fit(p, "knpl")
    _, s = lesson_fit({**p, "method": "svm"}, "svm")
    dev = float(np.max(np.abs(r.matrix - 1.0)))
    m = len(data.y_test)
    return Reveal(_size(dev), f"The largest |Gᵢⱼ − 1| is {_pct(dev)} at γ = {p['gamma']}; "
                              f"KNPL {_acc(r.test_score, m)}, plain SVM "
                              f"{_acc(s.test_score, m)}.",
                  {"g_dev": dev, "knpl": r.test_score, "svm": s.test_score})


def _knpl_copies(p: Mapping[str, Any]) -> Reveal:
    data, r = lesson_fit(p, "knpl")
    _, s = lesson_fit({**p, "method": "svm"}, "svm")
    pred = r.estimator.predict(data.X_test)
    nn = nearest_neighbour_labels(data)
    agree = float(np.mean(pred == nn))
    agree_svm = float(np.mean(pred == s.estimator.predict(data.X_test)))
    m = len(data.y_test)
    nn_acc = float(np.mean(nn == data.y_test))
    ans = 0 if agree >= 0.9 else 2 if agree < 0.5 else 1
    return Reveal(ans, f"KNPL {_acc(r.test_score, m)}, plain SVM {_acc(s.test_score, m)}, "
                       f"1-NN {_acc(nn_acc, m)}. KNPL's test labels equal 1-NN's on "
                       f"{agree:.0%} of the test points and the SVM's on {agree_svm:.0%}. "
                       f"Like DANK, KNPL extends G to a new point by the row of its nearest "
                       f"training point.", {"agree_nn": agree, "agree_svm": agree_svm,
                                   "knpl": r.test_score, "svm": s.test_score})


LESSON_MOVE = Lesson(3, "How far a kernel may move: ρ in ONK, γ in KNPL",
    "ONK (“Learning the Optimal Neighborhood Kernel for Classification”) and KNPL "
    "(“Nonlinear Pairwise Layer and Its Training for Kernel Learning”) learn a kernel near "
    "the Gaussian one; one number sets how near.", (
    Step("ONK looks for the best kernel G near K; ρ is the price of moving away from K, so "
         "a large ρ keeps G at K. Here ρ = 10⁴ (σ = 4, C = 1; the plain SVM dotted).",
         "classification", {**_ONK, "onk_rho": 1e4}, "surface",
         "How does ONK's test accuracy compare with the plain SVM's?",
         ("The same (within one test point)", "Higher", "Lower"), 0, _onk_vs_svm),
    Step("Now ρ = 0.01: moving is cheap. The matrix view shows G − K, what ONK learned.",
         "classification", {**_ONK, "onk_rho": 0.01, "view": "matrix"}, "matrix",
         "How large is G − K relative to K (‖G − K‖ / ‖K‖)?", _SIZES, 2, _onk_move),
    Step("G has moved a long way from K.", "classification", {**_ONK, "onk_rho": 0.01},
         "surface", "Does ONK now beat the plain SVM on the test points?",
         ("Yes, by more than one test point", "No: about the same, or lower"), 1,
         _onk_gain, draws=10),
    Step("KNPL multiplies K by a learned G, like DANK's F; γ pulls G towards the "
         "all-ones matrix. On the sandwich data with γ = 10⁵:", "classification",
         {**_KNPL, "gamma": 1e5, "view": "matrix"}, "matrix",
         "How far is G from all-ones, at its largest entry?", _SIZES, 0, _knpl_move),
    Step("With γ = auto (5 × the largest αᵢ² of the plain SVM) G may move further.",
         "classification", {**_KNPL, "gamma": "auto", "view": "matrix"}, "matrix",
         "How far is G from all-ones now?", _SIZES, 1, _knpl_move),
    Step("At γ = auto KNPL beats the plain SVM on the sandwich's test points at most "
         "draws of the data. Check where that comes from, as lesson 2 did for DANK.",
         "classification", {**_KNPL, "gamma": "auto"}, "surface",
         "On what share of the test points are KNPL's labels those of a "
         "1-nearest-neighbour classifier?",
         ("90 % or more", "Between half and 90 %", "Under half"), 0, _knpl_copies,
         draws=10),
))


# ---------------------------------------------------------------------------
# lesson 4: learning a kernel from pairs (SimpleNPKL on the spirals)
# ---------------------------------------------------------------------------

_PAIRS = {"dataset": "spiral", "constraint_fraction": 0.3, "npkl_C": 0.1,
          "pair_view": "embedding"}
_RAND = ("Near 1 (over 0.9)", "In between (0.6–0.9)", "Near chance (under 0.6)")


def _rand_level(r: float) -> int:
    return 0 if r > 0.9 else 2 if r < 0.6 else 1


def _kmeans_rand(p: Mapping[str, Any]) -> Reveal:
    _, r = lesson_pairwise(p)
    return Reveal(_rand_level(r.rand_kmeans),
                  f"Plain k-means: Rand index {r.rand_kmeans:.3f} (two random labellings "
                  f"agree on about half of the pairs).", {"kmeans": r.rand_kmeans})


def _npkl_rand(p: Mapping[str, Any]) -> Reveal:
    _, r = lesson_pairwise(p)
    est = r.estimator
    return Reveal(_rand_level(r.rand),
                  f"SimpleNPKL: Rand index {r.rand:.3f} with {len(est.must_link_)} must-link "
                  f"and {len(est.cannot_link_)} cannot-link pairs (k-means on the raw "
                  f"points: {r.rand_kmeans:.3f}).",
                  {"rand": r.rand, "kmeans": r.rand_kmeans,
                   "must_link": float(len(est.must_link_))})


def _rand_by_draw(p: Mapping[str, Any]) -> Reveal:
    """SimpleNPKL's Rand index at 10 draws of the data: 0 when over 0.9 at every draw,
    2 when under 0.6 at every draw, 1 when under 0.6 at some and over 0.8 at others."""
    seeds = draw_seeds(p, 10)
    fits = [lesson_pairwise(at_draw(p, s))[1] for s in seeds]
    rand = [f.rand for f in fits]
    lo, hi = min(rand), max(rand)
    ans = 0 if lo > 0.9 else 2 if hi < 0.6 else 1 if lo < 0.6 and hi > 0.8 else -1
    levels = [_rand_level(x) for x in rand]
    est = fits[0].estimator
    km = [f.rand_kmeans for f in fits]
    return Reveal(ans, f"SimpleNPKL's Rand index at {draws_phrase(len(seeds))}: "
                       f"{', '.join(f'{x:.2f}' for x in rand)}. Over 0.9 at "
                       f"{levels.count(0)}, between 0.6 and 0.9 at {levels.count(1)}, under "
                       f"0.6 at {levels.count(2)}. The first draw (in the figure) had "
                       f"{len(est.must_link_)} must-link and {len(est.cannot_link_)} "
                       f"cannot-link pairs; k-means on the raw points: {min(km):.2f} to "
                       f"{max(km):.2f}.",
                  {"rand_min": lo, "rand_max": hi, "near_one": float(levels.count(0))})


LESSON_PAIRS = Lesson(4, "Learning a kernel from pairs: SimpleNPKL on the spirals",
    "SimpleNPKL (“A Family of Simple Non-Parametric Kernel Learning Algorithms”) learns "
    "a kernel from a few pairs marked “same class” or “different class”, then clusters "
    "with it.", (
    Step("Two interleaved spirals. The Rand index counts the share of point pairs that a "
         "clustering puts together or apart exactly as the true classes do (1 = "
         "perfect, about 0.5 = chance).", "pairwise", _PAIRS, "kmeans",
         "Plain k-means with two clusters on these points: what Rand index?", _RAND, 2,
         _kmeans_rand),
    Step("SimpleNPKL gets pairs drawn from 30 % of the labels: solid green lines join "
         "points of the same class (must-link), dashed ones points of different classes "
         "(cannot-link). It learns a kernel that keeps must-link pairs close and follows "
         "a neighbour graph, then clusters with that kernel.", "pairwise", _PAIRS,
         "constraints", "What Rand index will its clusters reach?", _RAND, 0, _npkl_rand),
    Step("Far fewer pairs: drawn from 5 % of the labels. Which few pairs it gets now "
         "depends on the draw of the data, so compare ten draws, each a new sample; the "
         "figure shows the first.", "pairwise",
         {**_PAIRS, "constraint_fraction": 0.05}, "constraints",
         "How does SimpleNPKL's Rand index come out over the ten draws?",
         ("Near 1 (over 0.9) at every draw",
          "It depends on the draw: near chance (under 0.6) at some, over 0.8 at others",
          "Near chance (under 0.6) at every draw"), 1, _rand_by_draw),
    Step("Back to 30 %, but the pairs now weigh a hundred times more against the "
         "smoothness along the neighbour graph (C = 10 instead of 0.1).", "pairwise",
         {**_PAIRS, "npkl_C": 10.0}, "constraints",
         "What Rand index now?", _RAND, 2, _npkl_rand),
))


# ---------------------------------------------------------------------------
# lesson 5: bandwidths that adapt (LAB RBF on a chirp)
# ---------------------------------------------------------------------------

_CHIRP = {"reg_dataset": "chirp", "show_baseline": False}
_SVR = {**_CHIRP, "reg_method": "svr", "C": 10.0}
_LAB = {**_CHIRP, "reg_method": "lab_rbf_reg", "n_support": 30, "reg_view": "bandwidth"}


def _halves(p: Mapping[str, Any]) -> Reveal:
    data, r = lesson_fit(p, str(p["reg_method"]), REGRESSION)
    x = data.X_test[:, 0]
    err = (r.estimator.predict(data.X_test) - data.y_test) ** 2
    mid = _mid(data)
    left, right = float(err[x < mid].mean()), float(err[x >= mid].mean())
    ans = 0 if right > 2 * left else 1 if left > 2 * right else 2
    return Reveal(ans, f"Mean squared test error on the left half {left:.3g}, on the right "
                       f"half {right:.3g} (σ = {p['sigma']:g}); relative error overall "
                       f"{r.test_score:.3g}.", {"left": left, "right": right})


def _mid(data: LabData) -> float:
    """The middle of the chirp's x range: the local frequency rises linearly in x."""
    x = data.X[:, 0]
    return float((x.min() + x.max()) / 2)


def _lab_sides(p: Mapping[str, Any]) -> dict[str, float]:
    """LAB RBF's support points and their median kernel width 1/θ on the slow (left)
    and fast (right) half of the chirp."""
    data, r = lesson_fit(p, "lab_rbf_reg", REGRESSION)
    est = r.estimator
    x = np.asarray(est.support_vectors_)[:, 0]
    with np.errstate(divide="ignore"):
        width = 1.0 / np.abs(np.asarray(est.bandwidths_)).reshape(len(x), -1)[:, 0]
    mid = _mid(data)
    left, right = x < mid, x >= mid
    return {"n_left": float(left.sum()), "n_right": float(right.sum()),
            "w_left": float(np.median(width[left])) if left.any() else float("nan"),
            "w_right": float(np.median(width[right])) if right.any() else float("nan")}


def _supports(p: Mapping[str, Any]) -> Reveal:
    """Where LAB RBF puts its support points at 10 draws of the data: 0 when more on the
    fast (right) half at more than half of the draws, 1 otherwise."""
    sides = [_lab_sides(at_draw(p, s)) for s in draw_seeds(p, 10)]
    n = len(sides)
    more = sum(g["n_right"] > g["n_left"] for g in sides)
    first = sides[0]
    listed = ", ".join(f"{g['n_right']:.0f}" for g in sides)
    return Reveal(0 if more > n / 2 else 1,
                  f"Support points on the fast (right) half, of "
                  f"{first['n_left'] + first['n_right']:.0f}, at {draws_phrase(n)}: "
                  f"{listed}. More than on the slow half at {more} of {n}. On the first "
                  f"draw (in the figure) the median kernel width 1/θ is "
                  f"{first['w_right']:.3g} on the right and {first['w_left']:.3g} on the "
                  f"left.", {"draws_more_right": float(more), **first})


def _widths_by_seed(p: Mapping[str, Any]) -> Reveal:
    sides = [_lab_sides(at_draw(p, s)) for s in draw_seeds(p, 10)]
    n = len(sides)
    narrower = [g["w_left"] >= 1.5 * g["w_right"] for g in sides]
    k = sum(narrower)
    ans = 0 if k == len(sides) else 2 if k == 0 else 1
    widths = ", ".join(f"{g['w_right']:.2g} vs {g['w_left']:.2g}" for g in sides)
    more = sum(g["n_right"] > g["n_left"] for g in sides)
    return Reveal(ans, f"Median width on the fast half vs the slow half at "
                       f"{draws_phrase(len(sides))}: "
                       f"{widths}: at least 1.5 times narrower on {k} of {n}. More support "
                       f"points on the fast half: {more} of {n}."
                       + (" LAB RBF adapts to the rising frequency more reliably by where "
                          "it puts its support points than by their widths."
                          if more > k else ""),
                  {"seeds_narrower": float(k), "seeds_more_support": float(more)})


def _lab_vs_svr(sigma: float) -> Callable[[Mapping[str, Any]], Reveal]:
    def measure(p: Mapping[str, Any]) -> Reveal:
        data, r = lesson_fit(p, "lab_rbf_reg", REGRESSION)
        q = {**p, **_SVR, "sigma": sigma}
        _, s = lesson_fit(q, "svr", REGRESSION)
        a, b = r.test_score, s.test_score
        ans = 0 if a < b / 2 else 2 if a > 2 * b else 1
        return Reveal(ans, f"Relative test error: LAB RBF with {p['n_support']} support "
                           f"points {a:.3g}; SVR with one σ = {sigma:g} everywhere {b:.3g}.",
                      {"lab_rbf": a, "svr": b})
    return measure


def _fast_half(ref: float) -> Callable[[Mapping[str, Any]], Reveal]:
    """The SVR's error on the fast (right) half against the same SVR with σ = ``ref``
    there: 0 under a fifth of it, 1 up to the same, 2 larger."""
    def measure(p: Mapping[str, Any]) -> Reveal:
        here = _halves(p).numbers
        other = _halves({**p, "sigma": ref}).numbers
        ratio = here["right"] / other["right"]
        ans = 0 if ratio < 0.2 else 1 if ratio <= 1 else 2
        where = ("larger on the right" if here["right"] > 2 * here["left"] else
                 "larger on the left" if here["left"] > 2 * here["right"] else
                 "within a factor of two on both halves")
        return Reveal(ans, f"Mean squared test error on the fast (right) half: "
                           f"{here['right']:.3g} with σ = {p['sigma']:g}, {other['right']:.3g} "
                           f"with σ = {ref:g} ({ratio:.0%} of it). On the slow (left) half: "
                           f"{here['left']:.3g}, so this SVR's error is {where}.",
                      {"right": here["right"], "left": here["left"], "ratio": ratio},
                      label=where)
    return measure


def _lab_vs_svr_draws(sigma: float) -> Callable[[Mapping[str, Any]], Reveal]:
    """LAB RBF against the SVR with one σ at 10 draws of the data: 0 when LAB RBF's
    error is lower at 6 or more, 1 when the SVR's is lower at 6 or more, 2 otherwise."""
    def measure(p: Mapping[str, Any]) -> Reveal:
        pairs = []
        for s in draw_seeds(p, 10):
            q = at_draw(p, s)
            _, r = lesson_fit(q, "lab_rbf_reg", REGRESSION)
            _, v = lesson_fit({**q, **_SVR, "sigma": sigma}, "svr", REGRESSION)
            pairs.append((r.test_score, v.test_score))
        n = len(pairs)
        lab_lower = sum(a < b for a, b in pairs)
        wrong = sum(a > 2 * b for a, b in pairs)
        ans = 0 if lab_lower > n / 2 else 1 if lab_lower < n / 2 else 2
        listed = ", ".join(f"{a:.2g} vs {b:.2g}" for a, b in pairs)
        return Reveal(ans, f"Relative test error, LAB RBF with {p['n_support']} support points "
                           f"vs the SVR with one σ = {sigma:g}, at {draws_phrase(n)}: "
                           f"{listed}. LAB RBF's is lower at {lab_lower} of {n}; at {wrong} "
                           f"its fit goes wrong (more than twice the SVR's error).",
                      {"lab_lower": float(lab_lower), "lab_wrong": float(wrong)})
    return measure


_LOWER_SAME_HIGHER = ("LAB RBF's is less than half the SVR's",
                      "Within a factor of two of each other",
                      "LAB RBF's is more than twice the SVR's")

LESSON_LAB = Lesson(5, "Bandwidths that adapt: LAB RBF on a chirp",
    "LAB RBF (“Enhancing Kernel Flexibility via Learning Asymmetric Locally-Adaptive "
    "Kernels”) gives every support point its own kernel width, so one model can be smooth "
    "where the data are smooth and sharp where they wiggle.", (
    Step("A chirp: a sine whose frequency rises from left to right, sampled without "
         "noise. An SVR with one Gaussian width σ = 0.1 everywhere (C = 10); the chirp "
         "itself dotted.",
         "regression", {**_SVR, "sigma": 0.1}, "curve",
         "Where is the SVR's error larger?", ("On the right, where the signal is fast",
                                              "On the left, where it is slow",
                                              "About the same on both halves"), 0, _halves),
    Step("LAB RBF picks 30 support points from the data and learns a kernel width for "
         "each of them. The figure shows each support point's width 1/θ at its x. Where "
         "it puts them changes from draw to draw, so count over ten draws of the data, "
         "each a new sample; the figure shows the first.",
         "regression", _LAB, "bandwidth",
         "At how many of the ten does it put more of its support points on the right, "
         "where the signal is fast, than on the left?",
         ("More than half of them", "Half of them or fewer"), 0, _supports),
    Step("Narrow kernels where the signal is fast is the idea behind LAB RBF. Look at "
         "the learned widths over the same ten draws; the figure shows the first.",
         "regression", _LAB,
         "bandwidth", "On how many of the ten are the widths on the fast half at least "
         "1.5 times narrower than on the slow half?",
         ("All ten", "Some of them", "None"), 1, _widths_by_seed),
    Step("LAB RBF's fit of the chirp, with its 30 support points as rings.", "regression",
         _LAB, "curve",
         "Its test error, against the SVR with one σ = 0.1?", _LOWER_SAME_HIGHER, 0,
         _lab_vs_svr(0.1), draws=10,
         labels=("LAB RBF's under half", "within a factor of two", "LAB RBF's over twice")),
    Step("One narrower width everywhere also fits the fast part: an SVR with σ = 0.05.",
         "regression", {**_SVR, "sigma": 0.05}, "curve",
         "Its error on the fast (right) half, against the SVR with σ = 0.1 there?",
         ("Less than a fifth of it", "Between a fifth and the same", "Larger"), 0,
         _fast_half(0.1), draws=10),
    Step("So one σ = 0.05 does far better than σ = 0.1 here. Compare LAB RBF with it, "
         "and with only 5 support points.", "regression", {**_LAB, "n_support": 5},
         "curve", "LAB RBF with 5 support points, against the SVR with σ = 0.05?",
         _LOWER_SAME_HIGHER, 2, _lab_vs_svr(0.05)),
    Step("And with 30 support points again. One draw can mislead, so compare ten draws, "
         "each a new sample; the figure shows the first.", "regression", _LAB, "curve",
         "Over the ten draws, whose test error is lower more often: LAB RBF with 30 "
         "support points, or the SVR with σ = 0.05?",
         ("LAB RBF's, at most of the draws", "The SVR's, at most of the draws",
          "Each at half of them"), 0, _lab_vs_svr_draws(0.05)),
))

LESSONS: tuple[Lesson, ...] = (LESSON_SIGMA, LESSON_DANK, LESSON_MOVE, LESSON_PAIRS,
                               LESSON_LAB)


def lesson(number: int) -> Lesson:
    """Lesson ``number`` (1-based); ValueError naming the range otherwise."""
    if not 1 <= int(number) <= len(LESSONS):
        raise ValueError(f"There are {len(LESSONS)} lessons (1–{len(LESSONS)}).")
    return LESSONS[int(number) - 1]
