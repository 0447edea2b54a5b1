"""No import circles among the project's modules.

The graph is read from the source (``ast``): module-level and function-level imports,
``from . import x`` resolved against the package, and imports under ``TYPE_CHECKING``
too: a circle that only types close is still two modules that need each other, which
the house style makes one job in two files or a third module both import."""

from __future__ import annotations

from _imports import import_graph, project_modules


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
