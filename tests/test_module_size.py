"""No module of the project is over 800 lines: a longer one is split by job (an estimator
over a module of its maths, a package of one module per job, a benchmark over a helper
module of its browser half). There is no escape clause and no list of exceptions.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 800
SKIP = {"build", "dist", "node_modules", "__pycache__", "test-artifacts", "mutants"}


def project_files():
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT).parts[:-1]
        if not any(s.startswith(".") or s in SKIP or s.endswith(".egg-info") for s in parts):
            yield p


def _lines(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n") + 1


def test_the_walk_sees_the_project_and_its_largest_modules():
    files = {p.relative_to(ROOT).as_posix(): _lines(p) for p in project_files()}
    assert {"app.py", "nplk_core/dank.py", "tests/test_app.py", "benchmarks/bench_app.py",
            "nplk_lab/serve/command.py"} <= set(files)
    assert max(files.values()) > LIMIT / 2      # the walk reads whole files


def test_no_module_is_over_the_limit():
    offenders = [f"{p.relative_to(ROOT).as_posix()} ({n} lines)"
                 for p in sorted(project_files()) if (n := _lines(p)) > LIMIT]
    assert offenders == [], f"split these by job: every module has at most {LIMIT} lines"
