"""A test run leaves the checkout as it found it: no test writes the docs' pictures.

The browser tests take the pictures the docs show into ``test-artifacts/pictures/``
(git-ignored); ``python tools/docs_screenshots.py`` runs those tests and copies the
pictures into ``docs/screenshots/``. Read statically, so the check does not depend on
which tests ran, in which order, or whether Chromium is installed.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (text, not paths)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _path_parts(node: ast.AST) -> list[str | None]:
    """The parts of a ``a / "b" / "c"`` chain, left to right (None: not a constant)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _path_parts(node.left) + _path_parts(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return [None]


def paths_under_docs(source: str) -> list[str]:
    """Where ``source`` names a file under ``docs/`` other than a note to read (a
    ``.md``): a ``… / "docs" / …`` chain or a ``"docs/…"`` string, docstrings aside."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            parts = _path_parts(node)
            for i, part in enumerate(parts[:-1]):
                after = parts[i + 1]
                if part == "docs" and not (isinstance(after, str) and after.endswith(".md")):
                    found.append(f"line {node.lineno}: .../docs/{after or '<expression>'}")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in skip):
            for m in re.finditer(r"(?:^|[\s'\"(/])docs/([^\s'\"),]+)", node.value):
                if not m.group(1).split("#")[0].endswith(".md"):
                    found.append(f"line {node.lineno}: docs/{m.group(1)}")
    return sorted(set(found))


def test_the_check_finds_a_picture_written_under_docs():
    """The check itself can fail: the ways the tests used to name their pictures."""
    assert paths_under_docs('SHOT = ROOT / "docs" / "screenshots" / "a.png"')
    assert paths_under_docs('SHOTS = Path(__file__).parents[1] / "docs" / "screenshots"')
    assert paths_under_docs('page.screenshot(path="docs/screenshots/a.png")')
    assert paths_under_docs('p = f"{ROOT}/docs/screenshots/{name}.png"')
    # reading a note, or naming one in a docstring or a message, is not writing
    assert not paths_under_docs('text = (ROOT / "docs" / "README.md").read_text()')
    assert not paths_under_docs('"""Writes docs/screenshots/a.png."""')
    assert not paths_under_docs('msg = "see docs/where-the-gain-comes-from.md"')
    assert not paths_under_docs('docs = {p.name for p in (ROOT / "docs").glob("*.md")}')


def test_no_test_names_a_file_under_docs_but_its_notes():
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        hits = paths_under_docs(path.read_text(encoding="utf-8"))
        if hits and path != Path(__file__):
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}, ("tests write their pictures to test-artifacts/pictures "
                         "(test_browser.PICTURES); tools/docs_screenshots.py copies "
                         f"them into docs/: {found}")


def test_every_picture_the_command_copies_is_taken_by_the_test_it_runs():
    spec = importlib.util.spec_from_file_location(
        "docs_screenshots", ROOT / "tools" / "docs_screenshots.py")
    cmd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmd)
    assert cmd.PICTURES == ROOT / "test-artifacts" / "pictures"
    for name, node in cmd.TAKEN_BY.items():
        file, test = node.split("::")
        source = (ROOT / file).read_text(encoding="utf-8")
        assert re.search(rf"^def {test}\(", source, re.M), node
        assert "PICTURES" in source, file
        # the name itself, or its f-string (classification-present-{w}x{h}.png)
        assert name in source or name.rsplit("-", 1)[0] + "-{" in source, (name, file)
        assert (ROOT / "docs" / "screenshots" / name).exists(), name


def test_every_folder_the_command_copies_is_filled_by_the_test_file_it_runs():
    spec = importlib.util.spec_from_file_location(
        "docs_screenshots", ROOT / "tools" / "docs_screenshots.py")
    cmd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmd)
    assert cmd.FOLDERS
    for folder, file in cmd.FOLDERS.items():
        source = (ROOT / file).read_text(encoding="utf-8")
        assert "PICTURES" in source and f'"{folder}"' in source, (folder, file)
        assert not set(cmd.TAKEN_BY) & {folder}, folder
        shots = ROOT / "docs" / "screenshots" / folder
        assert shots.is_dir() and any(shots.iterdir()), shots
