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
