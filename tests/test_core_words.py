"""The solver core speaks words a reader of the repository can resolve.

No "issue N" (a tracker the repository does not ship), no "SPEC §N" (no SPEC in the
repository), no "seed 00N" (a numbering defined nowhere): the papers are named by title
and the formulas are referenced to sections of ``docs/the-maths-of-every-method.md`` by
name. Every public estimator's docstring ends with a numpydoc "References" section that
names its paper by a title the maths doc's section headings hold, as scikit-learn does.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import nplk_core

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "nplk_core"
MATHS = ROOT / "docs" / "the-maths-of-every-method.md"

#: Words that point outside the repository: a tracker's issue number, the SPEC's
#: paragraphs, the seed files' numbering and "the seed" meaning a paper.
UNRESOLVABLE = re.compile(
    r"\bSPEC\b|(?i:\bissues? #?\d+|\bseeds? 00\d|\bseed files?\b|\bthe seed's"
    r"|(?<![-\w])seed (?:§|Table|Fig|eq(?:\b|\.)|Appendix|Alg)|\bseed papers?\b)")
#: A reference to a section of the maths doc: the file's name, a comma, the quoted name.
SECTION_REF = re.compile(r"the-maths-of-every-method\.md,\s+'([^']+)'")
REFERENCES = re.compile(r"\n[ \t]*References\n[ \t]*-{10}\n(?P<body>.*?)(?=\n[ \t]*\w[\w ]*\n"
                        r"[ \t]*-{3,}\n|\Z)", re.S)


def _flat(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def _sections() -> list[str]:
    """The maths doc's section names, emphasis stripped ("DANK — Learning ...")."""
    return [_flat(m) for m in re.findall(r"(?m)^## (.+)$", MATHS.read_text(encoding="utf-8"))]


def _titles() -> list[str]:
    """The papers' titles: the emphasised part of the maths doc's section headings."""
    heads = re.findall(r"(?m)^## .+$", MATHS.read_text(encoding="utf-8"))
    return [_flat(t) for h in heads for t in re.findall(r"\*([^*]+)\*", h)]


def _core_files() -> list[Path]:
    return sorted(p for p in CORE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _estimators() -> list[tuple[str, object]]:
    found = []
    for name in nplk_core.__all__:
        obj = getattr(nplk_core, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found.append((name, obj))
    from nplk_core.scalable import fit_scalable  # the scalable DANK is a function
    found.append(("fit_scalable", fit_scalable))
    return found


def test_the_pattern_catches_the_old_words_and_spares_random_seeds():
    for bad in ("(issue 11)", "issue 10 §5", "SPEC §6", "(SPEC §0 on G o K)", "seed 002 §7.1",
                "seeds 000-004", "the seed's Table 4 value", "seed Table 5", "seed papers"):
        assert UNRESOLVABLE.search(bad), bad
    for fine in ("random_state seeds every candidate fit", "chirp n = 100 seed 0",
                 "on seeds 5-9", "10 seeds each", "1-NN per seed equals scikit-learn's",
                 "no committed per-seed table",
                 "the seed is partition_seed", "an issue of scale", "Theorem 6 and 7"):
        assert not UNRESOLVABLE.search(fine), fine


def test_the_maths_doc_names_the_five_papers():
    titles = _titles()
    assert len(titles) == 5, titles
    assert "Learning Data-adaptive Non-parametric Kernels" in titles


def test_the_core_holds_no_word_a_reader_cannot_resolve():
    hits = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
            for p in _core_files() if p.suffix in {".py", ".js", ".css", ".html", ".md", ".txt"}
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if UNRESOLVABLE.search(line)]
    assert not hits, "name the paper, the maths doc's section or the reason:\n" + "\n".join(hits)


#: the tests that hold the bad words up as examples of what is refused
WORD_EXAMPLES = {"test_core_words.py", "test_plain_words.py"}


def _repository_texts() -> list[Path]:
    """The lab's own texts besides the core: packages, pages, benchmarks, tools, docs, tests."""
    files = [ROOT / "app.py", ROOT / "README.md", ROOT / "sample_data" / "README.md",
             ROOT / ".streamlit" / "config.toml"]
    for folder in ("nplk_lab", "pages", "benchmarks", "tools", "docs", "tests"):
        files += [p for p in (ROOT / folder).rglob("*")
                  if p.is_file() and p.suffix in {".py", ".js", ".css", ".html", ".md", ".toml"}
                  and not {"node_modules", "__pycache__"} & set(p.parts)
                  and p.name not in WORD_EXAMPLES]
    return sorted(files)


def test_the_lab_docs_tests_and_benchmarks_hold_no_word_a_reader_cannot_resolve():
    files = _repository_texts()
    assert any(p.name == "sentences.toml" for p in files) and len(files) > 100
    hits = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
            for p in files
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if UNRESOLVABLE.search(line)]
    assert not hits, "say what the thing is, not where it was asked for:\n" + "\n".join(hits)


def test_every_section_the_core_cites_is_in_the_maths_doc():
    sections = set(_sections())
    cited = {(p.relative_to(ROOT), _flat(name))
             for p in _core_files() if p.suffix == ".py"
             for name in SECTION_REF.findall(p.read_text(encoding="utf-8"))}
    assert cited, "the core cites the maths doc's sections by name"
    missing = sorted(f"{path}: '{name}'" for path, name in cited if name not in sections)
    assert not missing, f"no such section in {MATHS.name}: {missing}"


@pytest.mark.parametrize("name, obj", _estimators(), ids=[n for n, _ in _estimators()])
def test_every_public_estimator_names_its_paper_in_references(name, obj):
    doc = inspect.getdoc(obj) or ""
    match = REFERENCES.search("\n" + doc)
    assert match, f"{name}'s docstring has no numpydoc References section"
    body = _flat(match.group("body"))
    named = [t for t in _titles() if t in body]
    assert named, f"{name}'s References names none of the papers of {MATHS.name}: {body!r}"
    assert re.search(r"\b(19|20)\d\d\b", body), f"{name}'s reference gives no year"
