"""Every module over 600 lines is split by job or says in its docstring why it is one
piece ("long because ...")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 600
SKIP = {"build", "dist", "node_modules", "__pycache__", "test-artifacts", "mutants"}
REASON = re.compile(r"(?is)\blong\b[^.]{0,80}\bbecause\b|\bone piece\b")


def project_files():
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT).parts[:-1]
        if not any(s.startswith(".") or s in SKIP or s.endswith(".egg-info") for s in parts):
            yield p


def test_the_reason_pattern_reads_the_house_phrasings():
    assert REASON.search("This file is long because the four solvers share ...")
    assert REASON.search("Long (about 700 lines) because each solver ...")
    assert not REASON.search("A long-standing result. Because of it ...")


def test_every_long_module_says_why_it_is_one_piece():
    offenders = []
    for path in sorted(project_files()):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") + 1 <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not REASON.search(doc):
            offenders.append(f"{path.relative_to(ROOT)} ({text.count(chr(10)) + 1} lines)")
    assert offenders == [], "split these by job or say in the docstring why each is one piece"
