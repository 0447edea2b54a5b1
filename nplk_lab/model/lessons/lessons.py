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
from typing import Any

import numpy as np

from ...figures.common import for_people
from ..data import LabData
from ..settings_table import REGRESSION
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
    interval_words,
    lesson_data,
    lesson_fit,
    lesson_pairwise,
    nearest_neighbour_labels,
)
from .lesson_steps import (
    FIGURES,
    STEP_PAGES,
    DrawTable,
    Lesson,
    Reveal,
    Step,
    matrix_name,
    step_file,
    step_query,
    step_url,
)

__all__ = ["FIGURES", "LESSONS", "STEP_PAGES", "DrawTable", "Lesson", "Reveal", "Step",
           "dank_gain", "f_off_scores", "lesson", "lesson_data", "lesson_fit", "matrix_name",
           "lesson_pairwise", "nearest_neighbour_labels", "step_file", "step_query",
           "step_url"]

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
        return Reveal(_share(frac), f"{100 * frac:.1f} % of the off-diagonal entries of K are "
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


def _draw(i: int) -> str:
    """A draw's name in a draw-by-draw table (the first is the one in the figure)."""
    return str(i)


#: said with a learned multiplier's matrix: its colours span its own largest change
_STRETCHED = (" The colour scale of {name} spans its own largest change, so even a change "
              "this small shows as strong red and blue: read the numbers on its bar.")

_HIGHER_SAME_LOWER = ("Higher", "About the same (within one test point)", "Lower")
_SHARES = ("Almost all (over 90 %)", "Some (10–90 %)", "Few (under 10 %)")
_SIZES = ("Under 1 %", "Between 1 % and 10 %", "Over 10 %")

LESSON_SIGMA = Lesson(1, "What σ does to a kernel and an SVM",
    "The Gaussian kernel's width σ decides which points count as alike; too small and "
    "the SVM memorises, too large and it can only draw a nearly straight line.", (
    Step("The Gaussian kernel k(x, x′) = exp(−d² / (2σ²)), with d the distance between "
         "the points x and x′, measures how alike two points are: 1 for the same point, "
         "near 0 once they are a few σ apart. Here the "
         "plain SVM uses σ = 0.05, tiny next to the spread of the clowns (the data are "
         "scaled to about ±2).", "classification", {**_CLOWNS_SVM, "sigma": 0.05},
         "surface", "How will the SVM score on the points it trained on, and on new test "
         "points?", ("Near-perfect on training points, clearly lower on test points",
                     "About the same on both", "Low on both"), 0, _memorise),
    Step("The kernel matrix K holds k(xᵢ, xⱼ) for every pair of training points, "
         "ordered by class, here at the same σ = 0.05. Its picture appears once you "
         "answer.", "classification",
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
    Step("K again, now at σ = 10, wider than the whole data set. Its picture appears "
         "once you answer.", "classification",
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
                  f"{_acc(g['svm'], m)}.{interval_words(g)}", g)


def _f_size(p: Mapping[str, Any]) -> Reveal:
    g = dank_gain(p)
    return Reveal(_size(g["f_dev"]), f"F's entries differ from 1 by at most "
                                     f"{_pct(g['f_dev'])}: every kernel entry is multiplied "
                                     f"by a number between {1 - g['f_dev']:.4f} and "
                                     f"{1 + g['f_dev']:.4f}.{_STRETCHED.format(name='F')}",
                  g)


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
            f"off at test time (its own trained weights, with the plain kernel K for the "
            f"new points) {c['f_off']}; plain SVM {c['svm']}; 1-nearest-neighbour "
            f"(1-NN) {c['nn']}. DANK's test labels equal 1-NN's on {100 * g['agree_nn']:.0f} % of "
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
                  f"{_acc(g['svm'], m)}.{interval_words(g)}", g, label=label)


def _smooth_rule(p: Mapping[str, Any]) -> Reveal:
    """DANK with the smooth rule against DANK (the paper's rule) and against F off."""
    g = dank_gain(p)
    m = int(g["m"])
    c = {k: _count(g[k], m) for k in ("dank", "smooth", "f_off", "svm")}
    like_off, like_dank = abs(c["smooth"] - c["f_off"]) <= 1, c["dank"] - c["smooth"] <= 1
    ans = 0 if like_dank else 1 if like_off else 2
    return Reveal(ans, f"Test points right, of {m}: DANK with the paper's rule {c['dank']}, "
                       f"with the smooth rule {c['smooth']}, with F switched off (its own "
                       f"weights, the plain kernel K for new points) {c['f_off']}; plain "
                       f"SVM {c['svm']}. With the smooth rule DANK's labels equal 1-NN's on "
                       f"{100 * g['smooth_nn']:.0f} % of the test points.", g)


def _every_seed(p: Mapping[str, Any]) -> Reveal:
    gains = [dank_gain(at_draw(p, s)) for s in draw_seeds(p, 5)]
    agree = [g["agree_nn"] for g in gains]
    k = sum(a >= 0.9 for a in agree)
    ans = 0 if k == len(agree) else 2 if k == 0 else 1
    m = int(gains[0]["m"])
    rows = tuple((_draw(i), *(str(_count(g[key], int(g["m"]))) for key in ("dank", "svm", "nn")),
                  f"{100 * g['agree_nn']:.0f} %") for i, g in enumerate(gains, 1))
    return Reveal(ans, f"DANK agrees with 1-NN on at least 90 % of the test points at {k} "
                       f"of the 5 draws. Draw by draw (the first in the figure): test "
                       f"points right, of {m}, and how often DANK's label is 1-NN's.",
                  {"seeds_at_90": float(k), "min_agree": float(min(agree))},
                  draws=DrawTable(("draw", "DANK", "SVM", "1-NN", "same as 1-NN"), rows))


LESSON_DANK = Lesson(2, "What DANK learns, and where its gain comes from",
    "DANK (“Learning Data-adaptive Non-parametric Kernels”) learns a matrix F that "
    "multiplies the kernel entry by entry. On the clowns with a too-wide kernel, this "
    "lesson compares it with the plain SVM on new points and measures where any "
    "difference comes from.", (
    Step("DANK trains an SVM on F × K instead of K, multiplied entry by entry: every "
         "kernel entry k(xᵢ, xⱼ) is multiplied by a learned Fᵢⱼ, with F pulled towards "
         "the all-ones matrix (which would leave K unchanged). Both models here use "
         "σ = 10 and C = 10; once you answer, the figure draws DANK's decision boundary "
         "and the plain SVM's, dotted.", "classification",
         _DANK_STATE, "surface",
         "Which scores higher on the test points?",
         ("DANK", "About the same (within one test point)", "The plain SVM"), 0,
         _dank_vs_svm, draws=10, labels=("DANK higher", "about the same",
                                          "the plain SVM higher")),
    Step("DANK's learned F holds one multiplier for each pair of training points. Once "
         "you answer, the figure shows K, F, their product and the change it makes.",
         "classification",
         {**_DANK_STATE, "view": "matrix"}, "matrix",
         "How far is F from the all-ones matrix, at its largest entry?", _SIZES, 0, _f_size),
    Step("So F barely changes the kernel, yet in step 1 DANK got more of the 60 test "
         "points right than the plain SVM. To classify a new point DANK needs F's entries "
         "for it, which training never produced.", "classification", _DANK_STATE,
         "surface",
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
          "As with F switched off, the plain kernel (within one test point)", "Somewhere else"), 1,
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
    return Reveal(_size(rel), f"The change K̃ − K is {_pct(rel)} of the size of K at "
                              f"ρ = {for_people(p['onk_rho'])} (a matrix's size: the square "
                              f"root of the sum of its squared entries).",
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
    gamma = p["gamma"] if p["gamma"] == "auto" else for_people(float(p["gamma"]))
    return Reveal(_size(dev), f"G's entries differ from 1 by at most {_pct(dev)} at "
                              f"γ = {gamma}; KNPL {_acc(r.test_score, m)}, plain SVM "
                              f"{_acc(s.test_score, m)}.{_STRETCHED.format(name='G')}",
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
                       f"{100 * agree:.0f} % of the test points and the SVM's on "
                       f"{100 * agree_svm:.0f} %. "
                       f"Like DANK, KNPL extends G to a new point by the row of its nearest "
                       f"training point.", {"agree_nn": agree, "agree_svm": agree_svm,
                                   "knpl": r.test_score, "svm": s.test_score})


LESSON_MOVE = Lesson(3, "How far a kernel may move: ρ in ONK, γ in KNPL",
    "ONK (“Learning the Optimal Neighborhood Kernel for Classification”) and KNPL "
    "(“Nonlinear Pairwise Layer and Its Training for Kernel Learning”) learn a kernel near "
    "the Gaussian one; one number sets how near.", (
    Step("ONK looks for the best kernel K̃ (“K tilde”) near K; ρ is the price of moving "
         "away from K, so a large ρ keeps K̃ at K. Here ρ = 10⁴ (σ = 4, C = 1; once you "
         "answer, the plain SVM's boundary is drawn dotted).",
         "classification", {**_ONK, "onk_rho": 1e4}, "surface",
         "How does ONK's test accuracy compare with the plain SVM's?",
         ("The same (within one test point)", "Higher", "Lower"), 0, _onk_vs_svm),
    Step("Now ρ = 0.01: moving is cheap. Once you answer, the figure shows K̃ − K, what "
         "ONK learned.",
         "classification", {**_ONK, "onk_rho": 0.01, "view": "matrix"}, "matrix",
         "How large is the change K̃ − K, against the size of K itself?", _SIZES, 2,
         _onk_move),
    Step("K̃ has moved a long way from K.", "classification", {**_ONK, "onk_rho": 0.01},
         "surface", "Does ONK now beat the plain SVM on the test points?",
         ("Yes, by more than one test point", "No: about the same, or lower"), 1,
         _onk_gain, draws=10),
    Step("KNPL multiplies K by a learned G, like DANK's F; γ pulls G towards the "
         "all-ones matrix. On the sandwich data with γ = 10⁵:", "classification",
         {**_KNPL, "gamma": 1e5, "view": "matrix"}, "matrix",
         "How far is G from all-ones, at its largest entry?", _SIZES, 0, _knpl_move),
    Step("With γ = auto the lab sets γ from the plain SVM: five times the square of the "
         "largest weight the SVM gives a training point. G may move further.",
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
    rows = tuple((_draw(i), f"{x:.2f}") for i, x in enumerate(rand, 1))
    return Reveal(ans, f"SimpleNPKL's Rand index at {draws_phrase(len(seeds))}: over 0.9 "
                       f"at {levels.count(0)}, between 0.6 and 0.9 at {levels.count(1)}, "
                       f"under 0.6 at {levels.count(2)} (k-means: {min(km):.2f} to "
                       f"{max(km):.2f}). The first draw, in the figure, had "
                       f"{len(est.must_link_)} must-link and {len(est.cannot_link_)} "
                       f"cannot-link pairs.",
                  {"rand_min": lo, "rand_max": hi, "near_one": float(levels.count(0))},
                  draws=DrawTable(("draw", "Rand index"), rows))


LESSON_PAIRS = Lesson(4, "Learning a kernel from pairs: SimpleNPKL on the spirals",
    "SimpleNPKL (“A Family of Simple Non-Parametric Kernel Learning Algorithms”) learns "
    "a kernel from a few pairs marked “same class” or “different class”, then clusters "
    "with it.", (
    Step("Two interleaved spirals. The Rand index counts the share of point pairs that a "
         "clustering puts together or apart exactly as the true classes do (1 = "
         "perfect, about 0.5 = chance).", "pairwise", _PAIRS, "kmeans",
         "Plain k-means with two clusters on these points: what Rand index?", _RAND, 2,
         _kmeans_rand),
    Step("SimpleNPKL gets pairs drawn from 30 % of the labels: must-link pairs (points "
         "of the same class) and cannot-link pairs (points of different classes); once "
         "you answer, the figure joins them by solid green and dashed orange lines. It "
         "learns a kernel that keeps must-link pairs close and follows a neighbour graph, "
         "then clusters with that kernel.", "pairwise", _PAIRS,
         "constraints", "What Rand index will its clusters reach?", _RAND, 0, _npkl_rand),
    Step("Far fewer pairs, drawn from 5 % of the labels: which ones it gets depends on "
         "the draw of the data, so compare ten draws, each a new sample; the figure shows "
         "the first.", "pairwise",
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
    """LAB RBF's support points and their median kernel width on the slow (left) and
    fast (right) half of the chirp (a width is 1 over the point's learned θ)."""
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
    rows = tuple((_draw(i), f"{g['n_right']:.0f}", f"{g['n_left']:.0f}")
                 for i, g in enumerate(sides, 1))
    return Reveal(0 if more > n / 2 else 1,
                  f"LAB RBF puts more of its {first['n_left'] + first['n_right']:.0f} "
                  f"support points on the fast (right) half than on the slow half at "
                  f"{more} of {draws_phrase(n)}. On the first draw, in the figure, the "
                  f"median kernel width is {for_people(first['w_right'])} on the right "
                  f"and {for_people(first['w_left'])} on the left.",
                  {"draws_more_right": float(more), **first},
                  draws=DrawTable(("draw", "points fast", "slow"), rows))


def _widths_by_seed(p: Mapping[str, Any]) -> Reveal:
    sides = [_lab_sides(at_draw(p, s)) for s in draw_seeds(p, 10)]
    n = len(sides)
    narrower = [g["w_left"] >= 1.5 * g["w_right"] for g in sides]
    k = sum(narrower)
    ans = 0 if k == len(sides) else 2 if k == 0 else 1
    more = sum(g["n_right"] > g["n_left"] for g in sides)
    rows = tuple((_draw(i), for_people(g["w_right"]), for_people(g["w_left"]))
                 for i, g in enumerate(sides, 1))
    return Reveal(ans, f"The median width on the fast half is at least 1.5 times narrower "
                       f"than on the slow half at {k} of {draws_phrase(n)} (draw by draw: "
                       f"the median width on each half); more support points on the fast "
                       f"half: {more} of {n}."
                       + (" LAB RBF adapts to the rising frequency more reliably by where "
                          "it puts its support points than by their widths."
                          if more > k else ""),
                  {"seeds_narrower": float(k), "seeds_more_support": float(more)},
                  draws=DrawTable(("draw", "fast", "slow"), rows))


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
                           f"with σ = {ref:g} ({for_people(100 * ratio)} % of it). On the "
                           f"slow (left) half: "
                           f"{here['left']:.3g}, so this SVR's error is {where}.",
                      {"right": here["right"], "left": here["left"], "ratio": ratio})
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
        rows = tuple((_draw(i), for_people(a / b)) for i, (a, b) in enumerate(pairs, 1))
        return Reveal(ans, f"Relative test error, LAB RBF with {p['n_support']} support "
                           f"points against the SVR with one σ = {sigma:g}, at "
                           f"{draws_phrase(n)}: LAB RBF's is lower at {lab_lower} of {n}; "
                           f"at {wrong} its fit goes wrong (more than twice the SVR's "
                           f"error). Draw by draw: LAB RBF's error divided by the SVR's "
                           f"(under 1: LAB RBF's is lower).",
                      {"lab_lower": float(lab_lower), "lab_wrong": float(wrong)},
                      draws=DrawTable(("draw", "LAB ÷ SVR"), rows))
    return measure


_LOWER_SAME_HIGHER = ("LAB RBF's is less than half the SVR's",
                      "Within a factor of two of each other",
                      "LAB RBF's is more than twice the SVR's")

LESSON_LAB = Lesson(5, "Bandwidths that adapt: LAB RBF on a chirp",
    "LAB RBF (“Enhancing Kernel Flexibility via Learning Asymmetric Locally-Adaptive "
    "Kernels”) gives every support point its own kernel width, so one model can be smooth "
    "where the data are smooth and sharp where they wiggle.", (
    Step("A chirp: a sine whose frequency rises from left to right, sampled without "
         "noise; the dashed line is the chirp itself (“noiseless function”). Here an SVR "
         "fits it with one Gaussian width σ = 0.1 everywhere (C = 10).",
         "regression", {**_SVR, "sigma": 0.1}, "curve",
         "Where is the SVR's error larger?", ("On the right, where the signal is fast",
                                              "On the left, where it is slow",
                                              "About the same on both halves"), 0, _halves),
    Step("LAB RBF picks 30 support points from the data and learns a kernel width for "
         "each. Where it puts them changes from draw to draw, so count over ten draws of "
         "the data; once you answer, the figure shows the first draw's widths.",
         "regression", _LAB, "bandwidth",
         "At how many of the ten does it put more of its support points on the right, "
         "where the signal is fast, than on the left?",
         ("More than half of them", "Half of them or fewer"), 0, _supports),
    Step("Narrow kernels where the signal is fast is the idea behind LAB RBF. Now the "
         "learned widths, over the same ten draws; once you answer, the figure shows the "
         "first draw's.",
         "regression", _LAB,
         "bandwidth", "On how many of the ten are the widths on the fast half at least "
         "1.5 times narrower than on the slow half?",
         ("All ten", "Some of them", "None"), 1, _widths_by_seed),
    Step("LAB RBF's fit of the chirp with its 30 support points (drawn as rings once you "
         "answer).", "regression",
         _LAB, "curve",
         "Its test error, against the SVR with one σ = 0.1?", _LOWER_SAME_HIGHER, 0,
         _lab_vs_svr(0.1), draws=10,
         labels=("LAB RBF's under half", "within a factor of two", "LAB RBF's over twice")),
    Step("One narrower width everywhere also fits the fast part: an SVR with σ = 0.05.",
         "regression", {**_SVR, "sigma": 0.05}, "curve",
         "Its error on the fast (right) half, against the SVR with σ = 0.1 there?",
         ("Less than a fifth of it", "Between a fifth and the same", "Larger"), 0,
         _fast_half(0.1), draws=10,
         labels=("under a fifth", "a fifth to the same", "larger")),
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
