"""The distribution is whole: the wheel built from this tree, installed (not editable)
into a new virtual environment, runs the app from a directory that is not the
repository, and every page opens in Chromium without an exception.

* The wheel is built from a copy of the source tree (what ``pip install .`` builds;
  nothing written into the checkout) and must hold every package and module of the lab,
  ``app.py``, ``pages/`` and ``.streamlit/config.toml``.
* The new environment gets the lab only from the wheel (``pip install --no-deps
  --no-index``). Its third-party dependencies are those of the test environment, seen
  through one ``.pth`` line: reinstalling numpy, SciPy, scikit-learn, Streamlit and
  Plotly from the index would take minutes and the network and test pip, not the lab.
  ``pip check`` in the new environment then proves the wheel's declared requirements
  are met by them, and the test checks that every lab module is imported from the new
  environment, none from the checkout (the test environment's own editable install of
  the lab is a ``.pth`` hook, which a path added by a ``.pth`` line does not run).
* ``nplk-lab --server.port P`` (the console script) runs in a temporary directory with
  no ``PYTHONPATH``; Chromium opens the home page and each page of the installed
  ``pages/``.

Skips, saying why, without Playwright or Chromium. Slow (a build and a server).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import _browser as tb
import pytest
from _browser import ARTIFACTS, exception_texts, wait_idle
from _waits import OutputLines

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info",
                                "__pycache__", ".pytest_cache", ".ruff_cache",
                                "test-artifacts", "reports", "tests", "benchmarks",
                                "tools")
LAB_MODULES = ["nplk_core", "nplk_lab.figures", "nplk_lab.model", "nplk_lab.ui",
               "nplk_lab.serve.command", "nplk_lab.ui.components.chart",
               "nplk_lab.ui.components.replay", "nplk_lab.ui.components.replay_file"]
BROWSER_FILES = ("js", "css", "html")
PAGE_TIMEOUT_MS = 180_000  # a page's first fits on a loaded 2-core machine
WITHOUT_FIGURE = {"/Paper_results"}  # a table and links; every other page draws on load


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{cmd}\n{out.stdout}\n{out.stderr}"
    return out


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(venv, wheel)``: a new environment with the lab installed from its wheel."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q",
          "-w", str(tmp / "dist")], env=_clean_env())
    wheel, = (tmp / "dist").glob("nplk-*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=_clean_env())
    py = venv / "bin" / "python"
    purelib = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                    "['purelib'])"]).stdout.strip()
    deps = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    Path(purelib, "test-environment-dependencies.pth").write_text("\n".join(deps) + "\n")
    _run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
         env=_clean_env())
    return venv, wheel


def test_the_wheel_holds_the_lab_the_app_its_pages_and_settings(installed):
    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for pkg in ("nplk_core", "nplk_lab"):
        on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / pkg).rglob("*.py")
                   if "__pycache__" not in p.parts}
        assert len(on_disk) > 10 and on_disk <= names, on_disk - names
    # the browser code, read by name from the package (importlib.resources)
    browser = {p.relative_to(ROOT).as_posix() for ext in BROWSER_FILES
               for p in (ROOT / "nplk_lab").rglob(f"*.{ext}")}
    assert {"nplk_lab/ui/components/chart.js", "nplk_lab/ui/components/replay.js",
            "nplk_lab/figures/offline_page.html"} <= browser
    assert browser <= names, browser - names
    assert {"nplk_lab/ui/components/chart.py", "nplk_lab/ui/components/replay.py",
            "nplk_lab_app/app.py",
            "nplk_lab_app/.streamlit/config.toml"} <= names
    pages = {f"nplk_lab_app/pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert pages and pages <= names, pages - names
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "nplk-lab = nplk_lab.serve.command:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_new_environment_imports_the_lab_from_the_wheel(installed, tmp_path):
    venv, _ = installed
    _run([str(venv / "bin" / "python"), "-m", "pip", "check"], env=_clean_env(),
         cwd=tmp_path)
    code = ("import importlib, json\n"
            f"print(json.dumps({{m: importlib.import_module(m).__file__ for m in "
            f"{LAB_MODULES!r}}}))")
    out = _run([str(venv / "bin" / "python"), "-c", code], env=_clean_env(), cwd=tmp_path)
    files = json.loads(out.stdout)
    outside = {m: f for m, f in files.items() if not f.startswith(str(venv))}
    assert not outside, outside


def test_the_installed_lab_reads_its_browser_files_from_the_wheel(installed, tmp_path):
    """The components' scripts and the offline page's shell come from the installed
    package: the replay's HTML file, made in the new environment, holds the player."""
    venv, _ = installed
    code = ("from nplk_lab.ui.components.replay_file import standalone_html\n"
            "page = standalone_html('{\"data\": [], \"layout\": {}, \"frames\": []}', "
            "title='t')\n"
            "print(page.startswith('<!DOCTYPE html>'), 'function playReplay(' in page, "
            "'playReplay({' in page)")
    out = _run([str(venv / "bin" / "python"), "-c", code], env=_clean_env(), cwd=tmp_path)
    assert out.stdout.split() == ["True", "True", "True"]


def _page_paths(venv: Path) -> list[tuple[str, str]]:
    """``(url path, expected title start)`` of the home page and each installed page
    (Streamlit names a page after its file, without the number prefix)."""
    pages_dir = next(venv.glob("lib/python*/site-packages/nplk_lab_app/pages"))
    out = [("/", "NPLK Lab")]
    for p in sorted(pages_dir.glob("*.py")):
        name = re.sub(r"^\d+_", "", p.stem)
        out.append(("/" + name, name.replace("_", " ")))
    return out


def test_nplk_lab_from_another_directory_opens_every_page(installed, chromium_path,
                                                          tmp_path):
    from playwright.sync_api import sync_playwright

    venv, _ = installed
    pages = _page_paths(venv)
    assert len(pages) == 1 + len(list((ROOT / "pages").glob("*.py")))
    elsewhere = tmp_path / "a-students-folder"
    elsewhere.mkdir()
    # port 0: Streamlit picks a free port and prints it (tb.wait_streamlit_url)
    proc = subprocess.Popen(
        [str(venv / "bin" / "nplk-lab"), "--server.port", "0",
         "--server.address", "127.0.0.1"],
        cwd=elsewhere, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True,
        env=_clean_env(NPLK_LAB_CACHE_DIR=str(tmp_path / "cache"), PYTHONUNBUFFERED="1"))
    output = OutputLines(proc.stdout, ARTIFACTS / "wheel-nplk-lab.log")
    try:
        url = tb.wait_streamlit_url(output, proc)
        with sync_playwright() as pw:
            browser = tb.launch_browser(pw, chromium_path)
            try:
                page = browser.new_context(viewport=tb.VIEWPORT).new_page()
                page.set_default_timeout(PAGE_TIMEOUT_MS)
                for path, title in pages:
                    page.goto(url + path, wait_until="domcontentloaded")
                    h1 = page.locator("h1").first
                    h1.wait_for()
                    wait_idle(page, timeout_ms=PAGE_TIMEOUT_MS)
                    if path not in WITHOUT_FIGURE:  # Plotly.js and the chart component
                        page.locator(".js-plotly-plot .main-svg").first.wait_for()
                    shot = "home" if path == "/" else path.strip("/")
                    page.screenshot(path=str(ARTIFACTS / f"wheel-{shot}.png"))
                    assert h1.inner_text().startswith(title), (path, h1.inner_text())
                    assert not exception_texts(page), (path, exception_texts(page))
                    assert page.get_by_text("Page not found").count() == 0, path
            finally:
                browser.close()
        assert "Traceback" not in output.text(), output.text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
