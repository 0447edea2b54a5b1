"""The tests' own house rules: a test module imports no other test module (what tests
share lives in ``conftest.py`` fixtures or underscore helper modules such as
``_browser``, ``_classroom`` and ``_class_store``), and neither do the benchmarks and
tools that reuse the tests' helpers."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_no_module_imports_a_test_module():
    files = sorted([*ROOT.glob("tests/*.py"), *ROOT.glob("benchmarks/*.py"),
                    *ROOT.glob("tools/*.py")])
    assert len(files) > 100
    found = [f"{p.relative_to(ROOT)} imports {name}" for p in files
             for name in sorted(_imported(p)) if name.startswith("test_")]
    assert not found, "share it through conftest.py or a _helper module:\n" + "\n".join(found)


def test_the_check_reads_every_form_of_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import test_a as t\nfrom test_b import x\n"
                     "def f():\n    from test_c import y\n")
    assert _imported(probe) == {"test_a", "test_b", "test_c"}
