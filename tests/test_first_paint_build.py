"""A fresh install's first page: every page's first picture prepared before the server
takes connections (nplk_lab/serve/firstpaint_build.py, run by the ``nplk-lab`` command),
keyed by the state a run starts from (the Regression page settles its view during its
run), and the command waiting for it before it serves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nplk_lab.serve import command, firstpaint, firstpaint_build

ROOT = Path(__file__).resolve().parents[1]


def test_every_lab_page_is_found_with_the_name_it_sets_itself_up_with():
    pages = dict(firstpaint_build.page_files(ROOT))
    assert pages["home"] == ROOT / "app.py"
    assert pages["classification"] == ROOT / "pages" / "1_Classification.py"
    assert pages["regression"] == ROOT / "pages" / "2_Regression.py"
    assert pages["paper"] == ROOT / "pages" / "6_Paper_results.py"   # a literal name
    assert len(pages) == 1 + len(list((ROOT / "pages").glob("*.py")))
    assert list(pages)[0] == "home"


FRESH_SERVER_PAGE = r"""
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.filterwarnings("ignore")
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1] + "/app.py", default_timeout=300)
at.switch_page(sys.argv[2])
at.run()
print("RESULT" + json.dumps({"exceptions": [str(e.value) for e in at.exception],
                             "sklearn": "sklearn" in sys.modules,
                             "metrics": [(m.label, m.value) for m in at.metric
                                         if "time" not in m.label.lower()]}))
"""


def _fresh_page(cache: Path, page: str) -> dict:
    env = {**os.environ, "NPLK_LAB_CACHE_DIR": str(cache), "NPLK_LAB_WORKERS": "0"}
    r = subprocess.run([sys.executable, "-c", FRESH_SERVER_PAGE, str(ROOT), page], env=env,
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")]
    assert line, r.stdout[-2000:] + r.stderr[-4000:]
    return json.loads(line[-1][len("RESULT"):])


@pytest.mark.slow
def test_prepared_pictures_are_what_a_fresh_server_draws_first(tmp_path):
    """The build writes a snapshot for every page whose default run stores something
    (the Regression page's too, which ends its run in another view than it started)
    and a marker for the ones that store nothing; a second build runs nothing; a new
    process then draws Classification and Regression from the snapshots without
    importing scikit-learn, with the metrics a computation without snapshots shows (the
    fit's time apart)."""
    cache = tmp_path / "cache"
    env = {**os.environ, "NPLK_LAB_CACHE_DIR": str(cache), "NPLK_LAB_WORKERS": "0"}
    r = subprocess.run([sys.executable, "-m", "nplk_lab.serve.firstpaint_build", str(ROOT)],
                       env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "first pictures prepared" in r.stderr
    for page in ("home", "classification", "regression", "pairwise"):
        assert list(cache.glob(f"{page}-*.pkl")), page
    assert list(cache.glob("paper-*.none"))  # stores nothing: not run again
    again = subprocess.run([sys.executable, "-m", "nplk_lab.serve.firstpaint_build",
                            str(ROOT)], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=900)
    assert again.returncode == 0 and "prepared" not in again.stderr
    for page in ("pages/1_Classification.py", "pages/2_Regression.py"):
        drawn = _fresh_page(cache, page)
        assert not drawn["exceptions"] and not drawn["sklearn"], (page, drawn)
        computed = _fresh_page(tmp_path / f"none-{Path(page).stem}", page)
        assert computed["sklearn"] and drawn["metrics"] == computed["metrics"]


def test_a_snapshot_is_keyed_by_the_state_its_run_started_from(tmp_path, monkeypatch):
    """A run that starts at the defaults and settles a setting on the way is written
    under the defaults (what the next server looks up); a run that started elsewhere
    writes nothing."""
    import nplk_lab.model as lab
    from nplk_lab.serve import stores

    monkeypatch.setenv("NPLK_LAB_CACHE_DIR", str(tmp_path))
    P = lab.defaults()
    key = ("unit-test-entry", 1)
    for start, written in ((P, True), ({**P, "sigma": 1.0}, False)):
        firstpaint.start("unit")
        firstpaint.restore("unit", start)
        stores.cache("fits").put(key, {"value": 1})
        stores.cache("fits").get(key)
        settled = {**start, "reg_view": "matrix"}  # the page changed a view meanwhile
        firstpaint.finish("unit", settled)
        assert firstpaint.snapshot_path("unit", P).exists() == written
        assert not firstpaint.snapshot_path("unit", settled).exists()
        for f in tmp_path.glob("unit-*.pkl"):
            f.unlink()


class _Exec(Exception):
    pass


def test_the_command_serves_only_after_the_first_pictures(monkeypatch):
    """``nplk-lab`` and the one-process class wait for the first pictures before the
    app's process replaces them; with snapshots off nothing is prepared."""
    events = []

    class Builder:
        def communicate(self):
            events.append("waited")
            return "nplk-lab: first pictures prepared (x) in 0.1 s\nnoise\n", None

    def fake_first(folder, env=None, **kw):
        events.append("started")
        return Builder()

    def fake_exec(path, args, env=None):
        events.append("exec")
        raise _Exec

    monkeypatch.setattr(command, "first_pictures", fake_first)
    monkeypatch.setattr(command.os, "execv", fake_exec)
    monkeypatch.setattr(command.os, "execve", fake_exec)
    monkeypatch.setattr(command, "find_proxy", lambda explicit=None: None)
    for argv in ([], ["classroom", "--workers", "2", "--port", "8612"]):
        events.clear()
        with pytest.raises(_Exec):
            command.main(argv)
        assert events == ["started", "waited", "exec"], argv


def test_no_builder_when_snapshots_are_off(monkeypatch):
    assert command.first_pictures(ROOT, {**os.environ, "NPLK_LAB_FIRST_PAINT": "0"}) is None
    command.await_first_pictures(None)  # nothing to wait for
