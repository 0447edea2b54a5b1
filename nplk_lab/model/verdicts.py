"""The verdicts of ``results.json`` as plain text: the report, the command line and the
Paper results page read them through here (no Streamlit; no import of the runner).

A row of ``results.json`` carries ``verdict`` (see :mod:`nplk_lab.model.paired`),
``by_construction`` (why the result follows from a parameter choice, or "") and ``stats``
(the paired comparisons: label, unit, n, mean, lo, hi, better, margin, corrected, wins,
ties, losses, verdict, judged). Files written before verdicts existed have only
``holds``; they are shown with that.
"""

from __future__ import annotations

import re
from typing import Any

from . import paired as P

_MAX_TEXT = 600

_SUBSCRIPT = dict(zip("aehijklmnoprstuvx0123456789", "ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₀₁₂₃₄₅₆₇₈₉",
                      strict=True))
#: an underscore subscript of the report's notes ("n_train", "α_SVM", "σ_CV", "h_{t}")
_SUB = re.compile(r"(?<=[^\s_])_\{?([A-Za-z0-9]+)\}?")


def maths(text: str) -> str:
    """The report's plain-text maths as it reads on screen: a subscript written with an
    underscore becomes a Unicode subscript when every character has one ("n_train" →
    "nₜᵣₐᵢₙ"), else a bracketed one ("α_SVM" → "α(SVM)", "σ_CV" → "σ(CV)"). Names of
    code (``make_blobs``: a lower-case word before the underscore) are left alone."""
    def sub(m: re.Match) -> str:
        before = text[:m.start()].split()[-1] if text[:m.start()].split() else ""
        word = re.sub(r"\W", "", before)
        if len(word) > 1 and word.isascii() and word.islower():    # make_blobs, fit_s
            return m.group(0)
        s = m.group(1)
        if all(c in _SUBSCRIPT for c in s):
            return "".join(_SUBSCRIPT[c] for c in s)
        return f"({s})"
    return _SUB.sub(sub, text)


def _text(value: Any) -> str:
    """File-supplied text, cut to a sane length (shown as plain text by the callers),
    its underscore subscripts shown as subscripts (:func:`maths`)."""
    return "—" if value is None else maths(str(value)[:_MAX_TEXT])


def _num(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _count(value: Any) -> int:
    """A file-supplied count (n, wins, ties, losses) as an int; 0 when it is missing or
    not a finite number (a null or a word in the file must not break the page)."""
    v = _num(value)
    return int(v) if v == v and abs(v) != float("inf") else 0


def is_loss(st: dict) -> bool:
    """Whether a judged comparison's whole interval is on the losing side of 0."""
    if _num(st.get("margin", 0.0)) > 0:
        return False
    sign = 1 if st.get("better", "higher") == "higher" else -1
    return sign * _num(st.get("hi")) < 0 and sign * _num(st.get("lo")) < 0


def verdict_text(verdict: Any, by_construction: Any = "", stats: Any = ()) -> str:
    """``holds`` / ``does not hold: a loss`` / ``does not hold`` / ``inconclusive`` /
    ``shown``, followed by ``(by construction)`` when the result follows from a parameter
    choice."""
    v = verdict if verdict in P.VERDICTS else P.SHOWN
    stats = stats if isinstance(stats, list) else []
    if v == P.FAILS and any(isinstance(st, dict) and st.get("judged") and is_loss(st)
                            for st in stats):
        v = "does not hold: a loss"
    return v + (" (by construction)" if by_construction else "")


def row_verdict(row: dict) -> str:
    """The verdict of one results.json row (old files: from ``holds``)."""
    if "verdict" not in row:
        return {True: P.HOLDS, False: P.FAILS}.get(row.get("holds"), P.SHOWN)
    return verdict_text(row.get("verdict"), row.get("by_construction"), row.get("stats"))


def _paired(st: dict) -> P.Paired:
    return P.Paired(_text(st.get("label")), _text(st.get("unit", "")),
                    _count(st.get("n")), _num(st.get("mean")), _num(st.get("lo")),
                    _num(st.get("hi")), sign=1 if st.get("better", "higher") == "higher" else -1,
                    margin=_num(st.get("margin", 0.0)) or 0.0,
                    corrected=bool(st.get("corrected", False)),
                    wins=_count(st.get("wins")), ties=_count(st.get("ties")),
                    losses=_count(st.get("losses")))


def stat_text(st: dict) -> str:
    """One comparison as a line: label, mean, 95 % interval, n, better/equal/worse, its
    verdict, and "(context)" when it is shown but not judged."""
    p = _paired(st)
    return p.text() + f" → {p.verdict}" + ("" if st.get("judged", True) else " (context)")


def judged_summary(row: dict) -> str:
    """The judged comparisons of a row, short: ``label: mean [lo, hi] unit; ...``."""
    parts = []
    for st in row.get("stats") or []:
        if isinstance(st, dict) and st.get("judged"):
            p = _paired(st)
            parts.append(f"{p.label}: {P._num(p.mean)} [{P._num(p.lo)}, {P._num(p.hi)}] "
                         f"{p.unit}".rstrip())
    return "; ".join(parts) or "—"


def stat_lines(row: dict) -> list[str]:
    """Every comparison of a row (judged first), as plain-text lines."""
    return [stat_text(st) for st in row.get("stats") or [] if isinstance(st, dict)]


#: the page's columns, what a reader scans first first
COLUMNS = ("result", "verdict", "judged on: mean [95 % CI]", "paper's value", "ours", "note")


def table(results: dict | None) -> list[dict[str, str]]:
    """The rows of ``results.json`` as plain-text cells under :data:`COLUMNS`."""
    out = []
    for row in (results or {}).get("rows", []) or []:
        if not isinstance(row, dict):
            continue
        out.append({"result": _text(row.get("item")), "verdict": row_verdict(row),
                    "judged on: mean [95 % CI]": judged_summary(row),
                    "paper's value": _text(row.get("paper_value")),
                    "ours": _text(row.get("ours")), "note": _text(row.get("note"))})
    return out


def by_preset(results: dict | None, names) -> dict[str, list[dict[str, str]]]:
    """The :func:`table` rows grouped under the preset each names (unknown presets and
    rows without one are left out)."""
    groups: dict[str, list[dict[str, str]]] = {name: [] for name in names}
    rows = [r for r in (results or {}).get("rows", []) or [] if isinstance(r, dict)]
    for row, cells in zip(rows, table(results), strict=True):
        if isinstance(row.get("preset"), str) and row["preset"] in groups:
            groups[row["preset"]].append(cells)
    return groups


def counts(results: dict | None) -> dict[str, int]:
    """How many rows hold, do not hold, are inconclusive or only shown; and how many of
    all rows hold by construction (``"by construction"``)."""
    c = {v: 0 for v in P.VERDICTS}
    c["by construction"] = 0
    for row in (results or {}).get("rows", []) or []:
        if isinstance(row, dict):
            v = row.get("verdict") if "verdict" in row else \
                {True: P.HOLDS, False: P.FAILS}.get(row.get("holds"), P.SHOWN)
            c[v if v in P.VERDICTS else P.SHOWN] += 1
            c["by construction"] += bool(row.get("by_construction"))
    return c
