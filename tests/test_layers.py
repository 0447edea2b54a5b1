"""The solver core must stay free of Streamlit."""

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
