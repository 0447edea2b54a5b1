"""Each clause of the score table's paragraph and the premise that makes it true, read
from the numbers alone (not from the code that writes the paragraph).

``broken(paragraph, nums)`` splits a paragraph into sentences and returns, for every
clause whose premise the numbers contradict, a line saying which; a sentence no clause
below knows is returned too, so a new wording has to come with its premise.

``nums`` holds the intervals over the test points as ``(lo, hi)`` pairs — ``gain``
(method − plain), ``off`` (the method with its matrix off − plain), ``edge`` (agreement
with 1-NN, method − plain), ``vs_off`` (method − its off model), ``smooth`` (the method
under the smooth rule − plain, when the table has that row) — and ``follows`` (the
method's agreement, or closeness, with 1-NN) and ``at`` (the threshold for "follows").
"""

from __future__ import annotations

import re

EPS = 1e-9


def _above(iv) -> bool:
    return iv is not None and iv[0] > EPS


def _below(iv) -> bool:
    return iv is not None and iv[1] < -EPS


def _level(iv) -> bool:
    return not _above(iv) and not _below(iv)


def _follows(n) -> bool:
    return n["follows"] >= n["at"]


#: (clause, premise in words, premise on the numbers)
CLAUSES = (
    (r"is [\d.]+(?: points)? above the plain", "the method above the baseline",
     lambda n: _above(n["gain"])),
    (r"is [\d.]+(?: points)? below the plain", "the method below the baseline",
     lambda n: _below(n["gain"])),
    (r"is level with the plain", "the method level with the baseline",
     lambda n: _level(n["gain"])),
    (r"^With \w switched off at test time.* above the plain \w+ beyond its interval",
     "the off model above the baseline", lambda n: _above(n["off"])),
    (r"^With \w switched off at test time.* below the plain \w+ beyond its interval",
     "the off model below the baseline", lambda n: _below(n["off"])),
    (r"^With \w switched off at test time.* level with the plain \w+ within its interval",
     "the off model level", lambda n: _level(n["off"])),
    (r"^With the smooth rule.* above the plain \w+ beyond its interval",
     "the smooth rule above the baseline", lambda n: _above(n.get("smooth"))),
    (r"^With the smooth rule.* below the plain \w+ beyond its interval",
     "the smooth rule below the baseline", lambda n: _below(n.get("smooth"))),
    (r"^With the smooth rule.* level with the plain \w+ within its interval",
     "the smooth rule level", lambda n: _level(n.get("smooth"))),
    (r"part of the gain survives", "a gain, the off model above the baseline and the "
     "method above its off model", lambda n: _above(n["gain"]) and _above(n["off"])
     and _above(n["vs_off"])),
    (r"The rest comes with the nearest-neighbour rule", "the method above its off model, "
     "following 1-NN more than the baseline", lambda n: _above(n["vs_off"])
     and _follows(n) and _above(n["edge"])),
    (r"So the gain survives with", "a gain, the off model above the baseline, the method "
     "not above its off model", lambda n: _above(n["gain"]) and _above(n["off"])
     and not _above(n["vs_off"])),
    (r"the rule costs points here", "the method below its off model",
     lambda n: _below(n["vs_off"])),
    (r"the rule adds nothing the test points can tell", "the method level with its off "
     "model", lambda n: _level(n["vs_off"])),
    (r"beat the plain \w+ on their own, with the plain kernel", "the off model above the "
     "baseline, the method not", lambda n: _above(n["off"]) and not _above(n["gain"])),
    (r"agrees with 1-NN as much as", "the agreement edge level",
     lambda n: _level(n["edge"])),
    (r"agrees with 1-NN at least as much as", "the agreement edge below 0",
     lambda n: _below(n["edge"])),
    (r"cannot tell the explanations apart", "no agreement edge",
     lambda n: not _above(n["edge"])),
    (r"gain comes from the nearest-neighbour rule", "a gain, the method above its off "
     "model, following 1-NN more than the baseline, the off model not above the baseline",
     lambda n: _above(n["gain"]) and _above(n["vs_off"]) and _above(n["edge"])
     and _follows(n) and not _above(n["off"])),
    (r"so not from a reshaped kernel", "the off model not above the baseline at all",
     lambda n: n["off"][1] <= EPS),
    (r"show no gain from a reshaped kernel alone", "the off model not above the baseline",
     lambda n: not _above(n["off"])),
    (r"follows 1-NN more closely than", "following 1-NN, more than the baseline",
     lambda n: _above(n["edge"]) and _follows(n)),
    (r"switched off (it|\S+) loses", "the method above its off model",
     lambda n: _above(n["vs_off"])),
    (r"cannot say how much of its gain", "a gain, the method not above its off model, "
     "the off model not above the baseline", lambda n: _above(n["gain"])
     and not _above(n["vs_off"]) and not _above(n["off"])),
    (r"rule decides its (labels|predictions), though it does not beat", "following 1-NN "
     "without a gain", lambda n: _follows(n) and not _above(n["gain"])),
    (r"^Its (labels differ from 1-NN's|predictions are not close)", "not following 1-NN",
     lambda n: not _follows(n)),
    (r"test predictions lie close to 1-nearest", "following 1-NN", _follows),
    (r"test predictions differ from 1-nearest", "not following 1-NN",
     lambda n: not _follows(n)),
)

#: sentences that state numbers only (checked by the table's own tests)
NUMBERS_ONLY = (r"^Here \S+ gives the same label as 1-nearest neighbour on",
                r"^Test R²:", r"^With \w switched off at test time", r"^With the smooth rule",
                r"^Here the \d+ test targets are all equal")


def sentences(paragraph: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.)])\s+(?=[A-Z])", paragraph) if s]


def broken(paragraph: str, nums: dict) -> list[str]:
    """The clauses of ``paragraph`` whose premise ``nums`` contradicts, and any sentence
    no clause knows."""
    out = []
    for s in sentences(paragraph):
        known = any(re.search(rx, s) for rx in NUMBERS_ONLY)
        for rx, words, premise in CLAUSES:
            if re.search(rx, s):
                known = True
                if not premise(nums):
                    out.append(f"{rx!r} needs {words}: {s}")
        if not known:
            out.append(f"no premise known for: {s}")
    return out
