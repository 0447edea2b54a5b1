"""The register of the lab's general sentences: every sentence the lab states as a
finding, where it stands, its domain and the check that makes it true.

The register itself is ``sentences.toml`` beside this module, one ``[[sentence]]`` per
finding-shaped sentence of the texts a student, teacher or reader meets: the pages'
captions and help texts, the Home page, the presets, the lessons, the words the model
layer writes from numbers (the score table's paragraph, the atlas view), the README and
``docs/*.md``. :func:`scan` reads those texts (Markdown by paragraph; Python by its string
literals, f-strings with ``{}`` where a value goes, docstrings left out) and splits them
into sentences; :func:`finding_shaped` picks the sentences that name a method or a
baseline and say something a measurement could contradict ("comes from", "follows",
"every", "always", "never", "beats", "wins", "loses", "falls back", a number of points,
…). ``tests/test_register.py`` fails on such a sentence the register does not hold, on a
registered sentence that no longer stands where it says, and on a check that does not
exist or does not hold.

An entry's ``kind`` says what sort of sentence it is and so what its check is:

* ``finding`` — a general statement about scores or where they come from; its check is
  a claim of :mod:`nplk_lab.model.claims` (``claim:<key>``), run against the atlas at
  data seeds 0–9 and again at 10–19;
* ``state`` — a statement about one named state (a preset, a lesson step, a setting a
  doc names); its check is an atlas claim when the state is a cell of the atlas, else the
  test that measures it (``test:<file>::<function>``);
* ``generated`` — words the lab writes from the numbers it shows (the score table's
  paragraph, the atlas view's summary); their check is the test that holds each clause to
  its premise;
* ``definition`` — how a method, a rule or a measure works (true by construction); its
  check is the test that verifies the construction;
* ``record`` — a measurement a doc reports with its command and state, kept as
  measured (a benchmark, an earlier grid); its check is the script that made it.

Pure Python (no Streamlit, no fitting).
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

#: the texts scanned, relative to the repository's root (globs)
SOURCES = ("README.md", "docs/*.md", "app.py", "pages/*.py", "nplk_lab/ui/*.py",
           "nplk_lab/model/settings_table.py", "nplk_lab/model/presets.py",
           "nplk_lab/model/lessons/lessons.py", "nplk_lab/model/lessons/teacher_lessons.py",
           "nplk_lab/model/methods.py", "nplk_lab/model/ablation.py",
           "nplk_lab/model/atlas/atlas_view.py",
           "nplk_lab/model/atlas/atlas.py", "nplk_lab/model/lab_rbf_halves.py",
           "nplk_lab/model/lessons/lesson_fits.py")

KINDS = ("finding", "state", "generated", "definition", "record")

#: a sentence speaks of a method, a baseline or the parts the lab switches off
SUBJECT = re.compile(
    r"\b(DANK|KNPL|ONK|LAB RBF|SimpleNPKL|SVMs?|SVR|1-NN|nearest[- ]neighbour|[FG]|"
    r"learned (matrix|kernel|widths?|bandwidths?)|([FG]|matrix) (switched )?off|"
    r"matrix alone|k-means|"
    r"baselines?)\b", re.I)
#: ... and says something a measurement could contradict
FINDING = re.compile(
    r"\b(comes? from|came from|follows?|following|every|always|never|beats?|beating|"
    r"wins?|loses?|falls? back|scores? like|better|worse|above|below|gains?|helps?|"
    r"survives?|level with|same as|equals?|as well|stays? within)\b|"
    r"\b\d[\d.,]*\s+(percentage )?points\b(?! of)",
    re.I)
#: sentences about time, memory or the machine (benchmarks' findings, measured by the
#: scripts their docs name): not findings about what a method learns
PERFORMANCE = re.compile(
    r"\bp90\b|\b\d+(\.\d+)? ?(ms|s|MB|GB|KB)\b|\bCPU\b|\bseconds?\b|\bfaster\b|\bslower\b|"
    r"\bthreads?\b|\bmemory\b|\blatency\b|\bwall\b", re.I)


_DEFINES = re.compile(r"\b(lower|higher) is better\b")
#: browser code or markup inside a string, not a sentence
_CODE = re.compile(r"</?[a-z]+[\s>]|data-testid|\{\s*[a-z-]+\s*:")


def normalise(text: str) -> str:
    """One line, single spaces."""
    return " ".join(str(text).split())


def finding_shaped(sentence: str) -> bool:
    """Whether a sentence names a method or baseline (or has a hole one can fill) and
    states something a measurement could contradict (questions, time and memory left
    out)."""
    s = normalise(sentence)
    if not s or s.rstrip("*_ ").endswith("?") or PERFORMANCE.search(s) or _CODE.search(s):
        return False
    # a hole of an f-string ("{}") can hold a method's name; "lower is better" defines a
    # measure, it finds nothing
    said = _DEFINES.sub("", s)
    return bool((SUBJECT.search(said) or "{}" in said) and FINDING.search(said))


_SPLIT = re.compile(r"(?<=[.!])\s+(?=[A-Z0-9(“\"*`{])")


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph (a full stop or ! followed by a capital; decimals and
    "e.g." stay whole)."""
    text = normalise(text)
    out: list[str] = []
    for part in _SPLIT.split(text):
        if out and re.search(r"\b(e\.g|i\.e|vs|cf|eq|Fig|al)\.$", out[-1]):
            out[-1] += " " + part
        else:
            out.append(part)
    return [s for s in out if s]


def markdown_paragraphs(text: str) -> list[str]:
    """Paragraphs, list items and table cells of a Markdown file (code blocks and
    headings left out)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    paras: list[str] = []
    cur: list[str] = []

    def flush():
        if cur:
            paras.append(" ".join(cur))
            cur.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            flush()
            paras.extend(c.strip() for c in stripped.strip("|").split("|")
                         if c.strip() and not set(c.strip()) <= set("-: "))
            continue
        if not stripped or stripped.startswith("#"):
            flush()
            continue
        if re.match(r"([-*]|\d+\.)\s", stripped):
            flush()
        cur.append(stripped)
    flush()
    return paras


def python_strings(source: str) -> list[str]:
    """The string literals of a Python file that are not docstrings, f-strings with
    ``{}`` where a value goes (adjacent literals are one string already)."""
    tree = ast.parse(source)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and \
                    isinstance(body[0].value, ast.Constant) and \
                    isinstance(body[0].value.value, str):
                skip.add(id(body[0].value))
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            for sub in ast.walk(node):
                skip.add(id(sub))
            out.append("".join(v.value if isinstance(v, ast.Constant) else "{}"
                               for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


@dataclass(frozen=True)
class Said:
    """One sentence as it stands in one file."""

    where: str
    text: str


def sentences_of(path: Path, root: Path) -> list[Said]:
    """Every sentence of one source file."""
    rel = path.relative_to(root).as_posix()
    text = path.read_text()
    if path.suffix == ".md":
        chunks = markdown_paragraphs(text)
    else:
        chunks = [s for s in python_strings(text) if len(s) > 30 and " " in s]
    return [Said(rel, s) for c in chunks for s in split_sentences(c)]


def source_files(root: Path, sources: Sequence[str] = SOURCES) -> list[Path]:
    files: list[Path] = []
    for pattern in sources:
        for p in sorted(root.glob(pattern)):
            if p.is_file() and p not in files:
                files.append(p)
    return files


def claim_sentences() -> list[Said]:
    """The sentences the pages, presets and Home take from
    :data:`nplk_lab.model.claims.TEXT`, each where ``claims:<key>``."""
    from .claims import TEXT

    return [Said(f"claims:{key}", s) for key, text in TEXT.items()
            for s in split_sentences(text)]


def scan(root: Path, sources: Sequence[str] = SOURCES) -> list[Said]:
    """Every finding-shaped sentence of the lab's texts (the files of ``sources`` and
    :func:`claim_sentences`)."""
    said = [s for p in source_files(root, sources) for s in sentences_of(p, root)]
    return [s for s in said + claim_sentences() if finding_shaped(s.text)]


@dataclass(frozen=True)
class Entry:
    """One registered sentence: where it stands, its words, what kind of sentence it
    is, its domain (methods, data sets, σ, C, seeds, or the state it names) and its
    check (``claim:<key>``, ``test:<file>::<function>``, ``script:<path>``)."""

    where: str
    text: str
    kind: str
    check: str
    domain: dict = field(default_factory=dict)
    note: str = ""
    #: for words put together from several pieces: a pattern of the sentence as shown
    rendered: str = ""

    def matches(self, said: Said) -> bool:
        return said.where == self.where and normalise(said.text) == normalise(self.text)


def load(text: str | None = None) -> list[Entry]:
    """The register (``sentences.toml``), or the register written in ``text``."""
    if text is None:
        text = resources.files(__package__).joinpath("sentences.toml").read_text()
    data = tomllib.loads(text)
    out = []
    for e in data.get("sentence", []):
        domain = {k: v for k, v in e.items() if k not in ("where", "text", "kind", "check",
                                                          "note", "rendered")}
        out.append(Entry(e["where"], normalise(e["text"]), e["kind"], e["check"], domain,
                         e.get("note", ""), e.get("rendered", "")))
    return out


def claim_entries() -> list[Entry]:
    """The sentences of :data:`nplk_lab.model.claims.CLAIMS` as entries, where each
    stands (``claims:<key>`` and the Markdown files it is written into): their check is
    the claim (kind ``finding``)."""
    from .claims import CLAIMS, NPKL_CLAIMS, TEXT

    out = []
    for c in CLAIMS + NPKL_CLAIMS:
        places = [f"claims:{c.key}"] + [w for w in c.where if w.endswith(".md")]
        out += [Entry(w, normalise(s), "finding", f"claim:{c.key}", {"domain": c.domain})
                for w in places for s in split_sentences(TEXT[c.key])]
    return out


def unregistered(said: Iterable[Said], entries: Sequence[Entry]) -> list[Said]:
    """The finding-shaped sentences no entry (nor claim) holds."""
    index = {(e.where, e.text) for e in list(entries) + claim_entries()}
    return [s for s in said if (s.where, normalise(s.text)) not in index]


def stale(entries: Sequence[Entry], root: Path) -> list[Entry]:
    """Entries whose sentence no longer stands in their file."""
    by_file: dict[str, set[str]] = {}
    out = []
    for e in entries:
        if e.where not in by_file:
            path = root / e.where
            by_file[e.where] = {normalise(s.text) for s in sentences_of(path, root)} \
                if path.exists() else set()
        if e.text not in by_file[e.where]:
            out.append(e)
    return out


__all__ = ["FINDING", "KINDS", "PERFORMANCE", "SOURCES", "SUBJECT", "Entry", "Said",
           "claim_entries", "claim_sentences", "finding_shaped", "load",
           "markdown_paragraphs", "normalise", "python_strings",
           "scan", "sentences_of", "source_files", "split_sentences", "stale",
           "unregistered"]
