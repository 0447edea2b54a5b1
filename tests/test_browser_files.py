"""Browser code lives in browser files: ``.js``, ``.css`` and ``.html`` package data read by
name (``nplk_lab/ui/components/browser_files.py``, ``nplk_lab/figures/offline_page.py``),
linted by ESLint's recommended rules, never held in a Python string nor cut out of one.

* ESLint (pinned in ``tools/package.json`` and its lockfile; ``npm ci --prefix tools``,
  which ``.ci/run`` does and this test does when it is missing) passes on every ``.js``
  file of the package. Skips, saying why, without Node.js or when npm cannot install it.
* A component's script is its files joined in order, nothing cut: what every Plotly
  component shares, the title fit, the component's file, then its entry point.
* Every browser file of the package is read by name by one of its modules.
* No Python string of the two packages holds more than 20 lines of HTML, CSS or
  JavaScript (the title fit, the last to move, is ``titles.js`` now).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
ESLINT = TOOLS / "node_modules" / ".bin" / "eslint"
NODE_AT_LEAST = (20, 19)   # the pinned ESLint's "engines"
PACKAGES = ("nplk_core", "nplk_lab")
BROWSER_FILES = ("js", "css", "html")
MAX_LINES = 20
#: a line of HTML, CSS or JavaScript: a tag, a comment, an arrow, or a statement or block end
CODE_LINE = re.compile(r"^\s*(</?[A-Za-z!]|//|/\*|\*/)|=>|[;{}]\s*$")


def _eslint_installed() -> Path:
    """ESLint from ``tools/``, installed from the lockfile when it is not there yet."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed: the browser files are not linted "
                    "(apt-get install nodejs npm; then npm ci --prefix tools)")
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
    if tuple(int(v) for v in re.findall(r"\d+", version)[:2]) < NODE_AT_LEAST:
        pytest.skip(f"Node.js {version.strip()} is older than the pinned ESLint needs "
                    f"({'.'.join(map(str, NODE_AT_LEAST))}): the browser files are not linted")
    if not ESLINT.exists():
        out = subprocess.run(["npm", "ci", "--prefix", str(TOOLS), "--no-audit", "--no-fund"],
                             capture_output=True, text=True, timeout=600)
        if out.returncode != 0 or not ESLINT.exists():
            pytest.skip(f"npm ci --prefix tools could not install ESLint:\n{out.stderr[-2000:]}")
    return ESLINT


def test_the_browser_files_pass_eslint_recommended_rules():
    """Every ``.js`` file of the two packages, named one by one: a file the configuration
    did not cover would come back as a warning, and a warning fails too."""
    eslint = _eslint_installed()
    files = sorted(p.relative_to(ROOT).as_posix() for pkg in PACKAGES
                   for p in (ROOT / pkg).rglob("*.js"))
    assert len(files) >= 4
    out = subprocess.run([str(eslint), "--config", "tools/eslint.config.js",
                          "--max-warnings", "0", *files], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_components_script_is_its_files_joined_in_order():
    from nplk_lab.ui.components import browser_files, chart, replay
    common = browser_files.read("plotly_common.js")
    titles = browser_files.read("titles.js")
    for module, name, entry in ((chart, "chart.js", "liveChart"),
                                (replay, "replay.js", "playReplay")):
        own = browser_files.read(name)
        assert module._JS == f"{common}\n{titles}\n{own}\nexport default {entry};\n"
        assert f"function {entry}(component)" in own
        # the entry is exported once, by its module
        assert not re.search(r"^\s*export\b", common + own, flags=re.M)


def test_every_browser_file_is_read_by_name_by_a_module():
    sources = "\n".join(p.read_text(encoding="utf-8") for pkg in PACKAGES
                        for p in (ROOT / pkg).rglob("*.py"))
    files = [p for pkg in PACKAGES for ext in BROWSER_FILES
             for p in (ROOT / pkg).rglob(f"*.{ext}")]
    assert len(files) >= 7
    unread = [p.relative_to(ROOT).as_posix() for p in files if f'"{p.name}"' not in sources]
    assert unread == []


def _strings(tree: ast.Module):
    """The string literals of a module that are not docstrings (an f-string as a whole)."""
    docs, inner = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
        if isinstance(node, ast.JoinedStr):
            inner |= {id(v) for v in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (
                isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docs | inner):
            yield node


def _browser_code_in_strings(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    found = []
    for node in _strings(ast.parse(source)):
        if node.end_lineno - node.lineno < MAX_LINES:
            continue
        lines = [ln for ln in (ast.get_source_segment(source, node) or "").splitlines()
                 if ln.strip()]
        code = sum(bool(CODE_LINE.search(ln)) for ln in lines)
        if len(lines) > MAX_LINES and code > len(lines) / 2:
            found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} "
                         f"({code} of {len(lines)} lines)")
    return found


def test_the_browser_code_pattern_tells_code_from_prose():
    assert CODE_LINE.search("const a = (x) => x + 1;")
    assert CODE_LINE.search("  <div id='host'></div>")
    assert CODE_LINE.search("body { margin: 0; }")
    assert not CODE_LINE.search("    Parameters")
    assert not CODE_LINE.search("    timeout client 1h")


def test_no_python_string_holds_browser_code():
    found = [hit for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))
             for hit in _browser_code_in_strings(p)]
    assert found == [], "move this code into .js/.css/.html files read by name"
