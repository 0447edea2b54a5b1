"""No import circles among the project's modules.

The graph is read from the source (``ast``): module-level and function-level imports,
``from . import x`` resolved against the package, and imports under ``TYPE_CHECKING``
too: a circle that only types close is still two modules that need each other, which
the house style makes one job in two files or a third module both import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted name -> file for every module of the project's packages (folders at the
    top level with an ``__init__.py``) and the top-level scripts."""
    mods: dict[str, Path] = {}
    for pkg in sorted(p for p in root.iterdir() if (p / "__init__.py").is_file()):
        for f in pkg.rglob("*.py"):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = f
    for f in root.glob("*.py"):
        mods[f.stem] = f
    return mods


def _owner(name: str, mods: dict[str, Path]) -> str | None:
    """The longest project module that ``name`` names or lies inside."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps |= {_owner(a.name, mods) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    full = ".".join(base + ([node.module] if node.module else []))
                else:
                    full = node.module or ""
                for alias in node.names:  # `from pkg import submodule` names the submodule
                    sub = f"{full}.{alias.name}"
                    deps.add(sub if sub in mods else _owner(full, mods))
        deps.discard(None)
        deps.discard(mod)
        graph[mod] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_reader_finds_a_circle_it_is_shown(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.c import y\n")
    (pkg / "c.py").write_text("def f():\n    from . import a\n")
    (pkg / "d.py").write_text("from pkg import a\n")  # into the circle, not part of it
    mods = project_modules(tmp_path)
    assert cycles(import_graph(mods)) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_project_has_no_import_circles():
    mods = project_modules()
    assert len(mods) > 50  # the reader found the project
    assert cycles(import_graph(mods)) == []
