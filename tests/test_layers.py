"""The layers and the only ways between them (``docs/architecture.md``)::

    nplk_core  <-  nplk_lab.figures  <-  nplk_lab.model  <-  nplk_lab.serve  <-  nplk_lab.ui
               <-  pages/, app.py

A module may import the project's modules of its own layer and of the layers to its
left, never to its right. The solver core imports neither Streamlit nor Plotly; the
figures and the model never Streamlit. The server's machinery (``nplk_lab.serve``: the
worker pool, the shared stores, first paint, the reaper, the ``nplk-lab`` command) may
import Streamlit, whose server it runs in, but never the ui nor the pages, and never
Plotly: it draws nothing. The browser components (``nplk_lab.ui.components``) import
only Streamlit, so a page can import them first; only the pages and ``app.py`` import
the Streamlit layer. The top level holds ``app.py`` and folders, no other module."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from _imports import import_graph, project_modules

import nplk_core

ROOT = Path(nplk_core.__file__).resolve().parent.parent


def _fresh_python(body: str) -> str:
    """What ``body`` prints, run by a new interpreter with the project first on its path
    (nothing imported before it)."""
    code = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n" + body
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout

LAYERS = ["nplk_core", "nplk_lab.figures", "nplk_lab.model", "nplk_lab.serve", "nplk_lab.ui"]
NEVER = {  # outside packages a layer must not import (the server's machinery: Streamlit is
    # allowed, it runs in Streamlit's server and reads its sessions)
    "nplk_core": {"streamlit", "plotly"},
    "nplk_lab.figures": {"streamlit"},
    "nplk_lab.model": {"streamlit"},
    "nplk_lab.serve": {"plotly"},
}
TOP_LEVEL_FOLDERS = {"nplk_core", "nplk_lab", "pages", "tests", "benchmarks", "tools", "docs",
                     "sample_data", "reports", "test-artifacts"}


def layer_of(module: str) -> str | None:
    for layer in sorted(LAYERS, key=len, reverse=True):
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


def outside_packages(path: Path) -> set[str]:
    """Top-level names of everything ``path`` imports (function-level imports and
    ``importlib.import_module("...")`` too), relative imports left out."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)):
            out.add(str(node.args[0].value).split(".")[0])
    return out


MODS = project_modules(ROOT)
GRAPH = import_graph(MODS)


def test_every_module_imports_only_its_own_layer_and_those_below():
    offenders = []
    for mod, deps in GRAPH.items():
        layer = layer_of(mod)
        if layer is None:
            continue
        allowed = set(LAYERS[:LAYERS.index(layer) + 1]) | {"nplk_lab"}
        for dep in sorted(deps):
            dep_layer = layer_of(dep) or dep
            if dep_layer not in allowed:
                offenders.append(f"{mod} imports {dep}")
    assert offenders == []


def test_every_module_of_the_lab_belongs_to_a_layer():
    """A new sub-package of ``nplk_lab`` outside ``LAYERS`` would escape the checks here."""
    assert {"nplk_lab.serve.stores", "nplk_lab.serve.workers", "nplk_lab.ui.running"} <= set(MODS)
    assert sorted(m for m in MODS if m.startswith("nplk_lab.") and layer_of(m) is None) == []


def test_the_ui_reaches_the_server_machinery_and_never_the_other_way():
    serve_deps = {d for m, deps in GRAPH.items() if layer_of(m) == "nplk_lab.serve"
                  for d in deps}
    assert not {d for d in serve_deps if layer_of(d) == "nplk_lab.ui" or d.startswith("pages")}
    assert any(layer_of(d) == "nplk_lab.serve"
               for m, deps in GRAPH.items() if layer_of(m) == "nplk_lab.ui" for d in deps)


def test_no_layer_imports_what_it_must_not():
    offenders = []
    for mod, path in MODS.items():
        banned = NEVER.get(layer_of(mod) or "", set())
        bad = outside_packages(path) & banned
        if bad:
            offenders.append(f"{mod} imports {sorted(bad)}")
    assert offenders == []


def _module_level_imports(path: Path) -> set[str]:
    """What a module imports when it is imported (its body's import statements)."""
    out = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
    return out


def test_the_browser_components_import_only_streamlit_when_imported():
    """Pages import the live-chart component first, to start Plotly.js's download
    before the lab's heavy imports: importing a component loads Streamlit and the other
    component only (a function may import more when it runs, e.g. a figure's config)."""
    comps = {m: p for m, p in MODS.items() if m.startswith("nplk_lab.ui.components")}
    assert {"nplk_lab.ui.components.chart", "nplk_lab.ui.components.replay"} <= set(comps)
    for mod, path in comps.items():
        for name in _module_level_imports(path):
            top = name.lstrip(".").split(".")[0]
            ok = (name.startswith(".") or top in sys.stdlib_module_names
                  or top in ("streamlit", "__future__")
                  or name.startswith("nplk_lab.ui.components"))
            assert ok, f"{mod} imports {name} when imported"


def test_only_the_pages_and_app_import_the_streamlit_layer():
    users = sorted(m for m, deps in GRAPH.items()
                   if layer_of(m) != "nplk_lab.ui" and any(
                       layer_of(d) == "nplk_lab.ui" for d in deps))
    pages = sorted(f"pages.{p.stem}" for p in (ROOT / "pages").glob("*.py"))
    assert set(users) <= {"app", *pages}
    assert "app" in users


def test_the_top_level_holds_app_py_and_folders():
    modules = sorted(p.name for p in ROOT.glob("*.py"))
    assert modules == ["app.py"]
    packages = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())
    assert packages == ["nplk_core", "nplk_lab"]
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
               and not p.name.endswith(".egg-info")
               and p.name not in ("build", "dist", "mutants")}   # tool output, git-ignored
    assert folders <= TOP_LEVEL_FOLDERS | {"__pycache__"}, folders - TOP_LEVEL_FOLDERS


def test_a_package_init_hands_names_on_and_defines_nothing():
    for init in sorted((ROOT / "nplk_lab").rglob("__init__.py")):
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            assert not isinstance(node, (ast.ClassDef,)), init
    assert outside_packages(ROOT / "nplk_lab" / "__init__.py") == set()


def test_core_source_never_imports_streamlit():
    offenders = [p.name for p in (ROOT / "nplk_core").rglob("*.py")
                 if "streamlit" in outside_packages(p)]
    assert offenders == []


@pytest.mark.slow
def test_importing_every_core_module_does_not_load_streamlit():
    modules = sorted(p.stem for p in (ROOT / "nplk_core").glob("*.py") if p.stem != "__init__")
    out = _fresh_python(
        "import importlib\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module('nplk_core.' + m)\n"
        "print('streamlit' in sys.modules, 'plotly' in sys.modules)\n")
    assert out.strip() == "False False"


@pytest.mark.slow
def test_a_page_reaches_its_first_widgets_without_scikit_learn():
    """The cold-start order: a new server's first run imports the Streamlit glue and
    builds the settings (every widget) before anything imports scikit-learn (~1 s), and
    the live-chart component imports nothing of the core, so the page can start the
    browser's Plotly.js download first."""
    out = _fresh_python(
        "import nplk_lab.ui.components.chart\n"
        "light = [m for m in ('nplk_core', 'sklearn', 'nplk_lab.model')\n"
        "         if m in sys.modules]\n"
        "import nplk_lab.ui as ui\n"
        "import nplk_lab.model as lab\n"
        "ui.page_setup  # the lazy hand-on imports the layer\n"
        "lab.defaults(); [lab.setting(n) for n in lab.settings()]\n"
        "print(light, 'sklearn' in sys.modules, 'scipy.stats' in sys.modules)\n")
    assert out.strip().splitlines()[-1] == "[] False False"


def test_the_ui_package_hands_on_no_name_of_one_of_its_modules():
    """Importing a submodule sets the package attribute of that name, which would hide a
    lazily handed-on function of the same name (``ui.exports`` once was both)."""
    import types

    import nplk_lab.ui as ui

    modules = {p.stem for p in (ROOT / "nplk_lab" / "ui").glob("*.py")} | {"components"}
    assert set(ui.__all__) & modules == set()
    for name in ui.__all__:
        assert not isinstance(getattr(ui, name), types.ModuleType), name


def test_a_fresh_process_reaches_the_ui_modules_through_the_package():
    """Pages use ``ui.running.cluster_choice``: in a process that imported nothing else
    (a spawned worker re-running the page), the lazy package must import the module."""
    out = _fresh_python(
        "import nplk_lab.ui as ui\n"
        "print(callable(ui.running.cluster_choice), callable(ui.page_setup))\n"
        "try:\n"
        "    ui.no_such_name\n"
        "except AttributeError:\n"
        "    print('AttributeError')\n")
    assert out.split() == ["True", "True", "AttributeError"]
