"""The project's own modules and the import graph between them, read from the source
(nothing is imported): what the tests of import cycles and of the layers read."""

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


def _owner(name: str, mods: dict[str, Path]) -> str | None:
    """The longest project module that ``name`` names or lies inside."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None
