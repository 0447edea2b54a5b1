"""A new server's first picture with the fit pool on: the first-paint snapshot
holds the default fit the pool computed, and the pool's workers start without running a
page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_pool_workers_start_without_running_the_page(tmp_path):
    """Inside a Streamlit server ``sys.modules["__main__"]`` is the page being run; a
    spawned worker used to run that file again. Here the main module is a stand-in page
    that leaves a mark when it runs: the pool's worker must start from its own module
    and leave none."""
    import os as _os

    from nplk_lab.serve import worker_main
    from nplk_lab.serve.workers import Pool

    mark = tmp_path / "page-ran"
    page = tmp_path / "page.py"
    page.write_text(f"open({str(mark)!r}, 'a').write('ran')\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(page)
    fake.__spec__ = None
    real = sys.modules["__main__"]
    pool = Pool(1)
    sys.modules["__main__"] = fake   # as Streamlit does for each script run
    try:
        job = pool.submit("A", "who", worker_main.started_from)
        worker = job.done.result(timeout=120)
    finally:
        sys.modules["__main__"] = real
        if pool._executor is not None:
            pool._executor.shutdown(wait=True)
    assert worker["pid"] != _os.getpid()            # it ran in a worker process
    assert not mark.exists(), "a worker ran the page"
    assert worker["main"] == worker_main.MAIN


def test_pool_start_starts_every_worker_with_the_solvers_before_any_fit():
    """The warm-up after a new server's first picture starts the pool: one task per
    worker importing the solvers (each submit spawns a process), once."""
    import concurrent.futures as cf

    from nplk_lab.serve import workers

    tasks, futures = [], []

    class Executor(cf.ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            tasks.append(args[1])
            futures.append(super().submit(fn, *args, **kwargs))
            return futures[-1]
    made = []
    pool = workers.Pool(2, executor_factory=lambda: made.append(1) or Executor(2))
    pool.start()
    pool.start()
    cf.wait(futures, timeout=300)
    assert made == [1]
    assert tasks == [workers.import_solvers, workers.import_solvers]
    assert all(f.exception() is None for f in futures)
    pool._executor.shutdown(wait=True)


def test_other_processes_spawned_meanwhile_keep_their_main_module(tmp_path):
    """The switch is the pool's own: a spawn of anyone else still sends the main module
    (only this pool's launches get the worker's module)."""
    import multiprocessing.spawn as spawn

    from nplk_lab.serve import worker_main

    worker_main._install()
    page = tmp_path / "page.py"
    page.write_text("")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(page)
    fake.__spec__ = None
    real = sys.modules["__main__"]
    sys.modules["__main__"] = fake
    try:
        data = spawn.get_preparation_data("someone-else")
    finally:
        sys.modules["__main__"] = real
    assert data.get("init_main_from_path") == str(page)
    assert "init_main_from_name" not in data


# ---------------------------------------------------------------------------
# the snapshot of a default run whose fit the pool computed
# ---------------------------------------------------------------------------

RUN_PAGE = r"""
import concurrent.futures as cf, json, sys, threading, warnings
sys.path.insert(0, sys.argv[1])
warnings.filterwarnings("ignore")
from streamlit.testing.v1 import AppTest
from nplk_lab.serve import workers
# The fit pool as in a server, its processes replaced by a thread. A result is stored
# from a thread that is not the page's, as in a server, where the pool's thread reads
# the workers' results (a thread pool would run the callback in the page's thread when
# the fit is done before the page adds it).
pool = workers.Pool(1, executor_factory=lambda: cf.ThreadPoolExecutor(1))
submitted, storing = [], []
real_submit = pool.submit
def submit(session, key, fn, *a, **k):
    submitted.append(repr(key))
    cb = k.get("on_result")
    if cb is not None:
        def on_result(res, cb=cb):
            t = threading.Thread(target=cb, args=(res,), name="pool-result")
            t.start()
            t.join()
            storing.append(t.name)
        k["on_result"] = on_result
    return real_submit(session, key, fn, *a, **k)
pool.submit = submit
workers.pool = lambda: pool
at = AppTest.from_file(sys.argv[1] + "/pages/1_Classification.py", default_timeout=300)
at.run()
print("RESULT" + json.dumps({
    "exceptions": [str(e.value) for e in at.exception], "submitted": submitted,
    "storing": storing,
    "sklearn": "sklearn" in sys.modules}))
"""


def _run_page(cache_dir):
    env = {**os.environ, "NPLK_LAB_CACHE_DIR": str(cache_dir)}
    env.pop("NPLK_LAB_FIRST_PAINT", None)
    r = subprocess.run([sys.executable, "-c", RUN_PAGE, str(ROOT)], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")]
    assert line, r.stdout[-2000:] + r.stderr[-4000:]
    return json.loads(line[-1][len("RESULT"):])


def _snapshot_fits(path: Path) -> dict:
    """The fits a snapshot holds: fit key -> method."""
    import pickle

    entries = pickle.loads(path.read_bytes())
    return {key: getattr(value, "method", None)
            for kind, key, value in entries if kind == "fits"}


@pytest.mark.slow
def test_snapshot_holds_the_default_fit_the_pool_stored(tmp_path):
    """A new server at the Classification defaults, fits through the pool: the first
    run's snapshot holds the default model's fit (stored from the pool's thread), and
    the next new server draws from it without asking the pool for anything."""
    import nplk_lab.model as lab
    from nplk_lab.ui.running import fit_key

    first = _run_page(tmp_path)
    assert not first["exceptions"], first["exceptions"]
    P = lab.defaults()
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    key = fit_key(P, data, P["method"])
    assert repr(key) in first["submitted"]            # the pool computed the fit ...
    assert first["storing"]                           # ... and stored it off-thread
    snaps = list(tmp_path.glob("classification-*.pkl"))
    assert len(snaps) == 1, snaps
    fits = _snapshot_fits(snaps[0])
    assert fits.get(key) == P["method"], f"the default fit is not in the snapshot: {fits}"
    replay = _run_page(tmp_path)
    assert not replay["exceptions"], replay["exceptions"]
    assert replay["submitted"] == [], "a new server fitted before drawing"
    assert not replay["sklearn"]
