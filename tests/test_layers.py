"""The layers: core <- figures <- app model <- Streamlit layer <- pages, nothing upward.

nplk_core (estimators, datasets) imports nothing of the project above it; nplk_figures
only nplk_core; nplk_app only nplk_core and nplk_figures; none of them Streamlit or the
Streamlit layer (lab_ui, lab_chart), which only the pages and app.py import."""

import ast
import subprocess
import sys
from pathlib import Path

import nplk_core

CORE = Path(nplk_core.__file__).parent


def test_core_source_never_imports_streamlit():
    offenders = [p.name for p in CORE.rglob("*.py")
                 if any(line.strip().startswith(("import streamlit", "from streamlit"))
                        for line in p.read_text().splitlines())]
    assert offenders == []


def test_importing_every_core_module_does_not_load_streamlit():
    modules = sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")
    code = ("import importlib, sys\n"
            f"for m in {modules!r}:\n"
            "    importlib.import_module('nplk_core.' + m)\n"
            "print('streamlit' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


ROOT = CORE.parent


def test_a_page_reaches_its_first_widgets_without_scikit_learn():
    """The cold-start order: a new server's first run imports the Streamlit glue and
    builds the settings (every widget) before anything imports scikit-learn (~1 s), and
    the live-chart module imports nothing of the core, so the page can start the
    browser's Plotly.js download first."""
    code = ("import sys\n"
            f"sys.path.insert(0, {str(ROOT)!r})\n"
            "import lab_chart\n"
            "light = [m for m in ('nplk_core', 'sklearn') if m in sys.modules]\n"
            "import lab_ui\n"
            "import nplk_app as lab\n"
            "lab.defaults(); [lab.setting(n) for n in lab.settings()]\n"
            "print(light, 'sklearn' in sys.modules, 'scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[] False False"


# ---------------------------------------------------------------------------
# import directions, read from every module's source (ast), function-level imports too
# ---------------------------------------------------------------------------

UI = {"lab_ui", "lab_chart", "lab_replay", "streamlit"}
FORBIDDEN = {
    "nplk_core": {"nplk_figures", "nplk_app"} | UI,
    "nplk_figures": {"nplk_app"} | UI,
    "nplk_app": UI,
}


def imported_packages(path: Path) -> set[str]:
    """Top-level names of everything ``path`` imports: ``import``, ``from ... import``
    (relative ones resolved against its package) and ``importlib.import_module("...")``."""
    package = path.relative_to(ROOT).parent.parts
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                out.add(base[0] if base else (node.module or "").split(".")[0])
            else:
                out.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)):
            out.add(str(node.args[0].value).split(".")[0])
    return out


def test_the_import_reader_sees_module_level_function_level_and_relative_imports():
    assert {"numpy", "nplk_core", "nplk_figures"} <= imported_packages(
        ROOT / "nplk_app" / "reproduce.py")  # nplk_figures at the top, nplk_core inside
    assert "nplk_app" in imported_packages(ROOT / "nplk_app" / "methods.py")  # from .results
    assert "nplk_core" in imported_packages(ROOT / "nplk_app" / "settings_table.py")  # importlib
    assert {"streamlit", "lab_chart", "nplk_app"} <= imported_packages(
        ROOT / "lab_ui" / "charts.py")


def test_every_layer_imports_only_downward():
    offenders = []
    for layer, banned in FORBIDDEN.items():
        files = sorted((ROOT / layer).rglob("*.py"))
        assert files, layer
        for path in files:
            bad = imported_packages(path) & banned
            if bad:
                offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert offenders == []


def _project_files():
    """The project's Python files: not a virtual environment, build or cache folder
    inside the checkout (CI makes ``.venv`` there)."""
    skip = {"build", "dist", "node_modules", "__pycache__", "test-artifacts"}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT).parts[:-1]
        if not any(part.startswith(".") or part in skip or part.endswith(".egg-info")
                   for part in parts):
            yield p


def test_only_pages_and_app_import_the_streamlit_layer():
    users = sorted(str(p.relative_to(ROOT)) for p in _project_files()
                   if "lab_ui" in imported_packages(p)
                   and p.relative_to(ROOT).parts[0] not in ("lab_ui", "tests", "benchmarks"))
    assert users == ["app.py"] + sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
