"""The lab's shared stores: one computation per key even when sessions ask at once."""

import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def waiters(monkeypatch):
    """The threads that found the key's computation in flight and wait for it.

    A waiter is the thread :func:`nplk_lab.serve.stores.single_flight` gives a "Waiting for
    the same computation" progress line (the pages' line, :mod:`nplk_lab.ui.sharing`): the
    line is made at the moment it finds another thread computing, so recording it is the
    event the tests wait on, not a guess at how long the other threads take to get there."""
    from nplk_lab.ui import sharing

    seen = {"threads": []}
    cond = threading.Condition()

    class Recorded(sharing.Progress):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            with cond:
                seen["threads"].append(threading.get_ident())
                cond.notify_all()

    def wait(n: int, timeout_s: float = 60.0) -> None:
        with cond:
            assert cond.wait_for(lambda: len(seen["threads"]) >= n, timeout_s), (
                f"{len(seen['threads'])} of {n} threads came to wait")

    monkeypatch.setattr(sharing, "Progress", Recorded)
    seen["wait"] = wait
    return seen


def test_concurrent_requests_for_one_key_compute_once(waiters):
    from nplk_lab.serve import stores
    from nplk_lab.ui import sharing

    stores.cache.clear()
    calls = []

    def compute():
        calls.append(threading.get_ident())
        waiters["wait"](5)   # hold the computation until the five others wait for it
        return {"value": 42}

    out = [None] * 6
    def ask(i):
        out[i] = sharing.cached("fits", ("same-key",), compute)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert len(calls) == 1, calls
    assert len(waiters["threads"]) == 5 and calls[0] not in waiters["threads"]
    assert all(o == {"value": 42} for o in out)
    assert sharing.cached("fits", ("same-key",), compute) == {"value": 42}
    assert len(calls) == 1
    assert not stores._FLIGHTS  # no lock is left behind


def test_a_failed_computation_lets_the_next_session_try(waiters):
    from nplk_lab.serve import stores
    from nplk_lab.ui import sharing

    stores.cache.clear()
    attempts = []
    a_computes = threading.Event()

    def flaky():
        attempts.append(1)
        if len(attempts) == 1:
            a_computes.set()
            waiters["wait"](1)   # fail only once b waits for this computation
            raise RuntimeError("first try fails")
        return "ok"

    results = {}
    def ask(name):
        try:
            results[name] = sharing.cached("fits", ("flaky",), flaky)
        except RuntimeError as exc:
            results[name] = str(exc)

    a = threading.Thread(target=ask, args=("a",))
    a.start()
    assert a_computes.wait(timeout=60)
    b = threading.Thread(target=ask, args=("b",))
    b.start()
    a.join(timeout=60)
    b.join(timeout=60)
    assert not a.is_alive() and not b.is_alive()
    assert results == {"a": "first try fails", "b": "ok"}
    assert len(attempts) == 2
    assert waiters["threads"] == [b.ident]


# ---------------------------------------------------------------------------
# the first-paint snapshot (nplk_lab/serve/firstpaint.py)
# ---------------------------------------------------------------------------

RUN_PAGE = r"""
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/tests")
warnings.filterwarnings("ignore")
from streamlit.testing.v1 import AppTest
import nplk_lab.ui.components.chart as chart_component
from _components import figure_of
at = AppTest.from_file(sys.argv[1] + "/pages/1_Classification.py", default_timeout=300)
at.run()
out = {"exceptions": [str(e.value) for e in at.exception],
       "sklearn": "sklearn" in sys.modules, "pandas": "pandas" in sys.modules,
       "figures": [f for f in (figure_of(c)
                               for c in at.get("bidi_component")) if f],
       "metrics": [(m.label, m.value) for m in at.metric]}
# the next move needs the real model: a new σ is fitted (scikit-learn imported then)
import nplk_lab.model as lab
grid = list(lab.setting("sigma").grid())
sigma = at.select_slider(key="w_sigma")
sigma.set_value(grid[grid.index(sigma.value) - 1])
at.run()
out["after_move"] = {"exceptions": [str(e.value) for e in at.exception],
                     "sklearn": "sklearn" in sys.modules,
                     "metrics": [(m.label, m.value) for m in at.metric]}
print("RESULT" + json.dumps(out))
"""


def _run_page(cache_dir, **env):
    import json
    import os
    import subprocess

    e = {**os.environ, "NPLK_LAB_CACHE_DIR": str(cache_dir), **env}
    r = subprocess.run([sys.executable, "-c", RUN_PAGE, str(ROOT)], env=e, cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")]
    assert line, r.stdout[-2000:] + r.stderr[-4000:]
    return json.loads(line[-1][len("RESULT"):])


@pytest.mark.slow
def test_first_picture_from_the_snapshot_equals_a_fresh_computation(tmp_path):
    """A new process at the Classification defaults: the first one computes (importing
    scikit-learn) and writes the snapshot; the next draws the same figures and metrics
    from it without importing scikit-learn or pandas, and its first slider move fits
    as usual."""
    fresh = _run_page(tmp_path)
    assert not fresh["exceptions"], fresh["exceptions"]
    assert fresh["sklearn"]  # it did compute
    assert list(tmp_path.glob("classification-*.pkl")), "no snapshot written"
    replay = _run_page(tmp_path)
    assert not replay["exceptions"], replay["exceptions"]
    assert not replay["sklearn"] and not replay["pandas"]
    assert len(fresh["figures"]) >= 2  # the surface and the view below it
    assert replay["figures"] == fresh["figures"]
    assert replay["metrics"] == fresh["metrics"] and fresh["metrics"]
    # the snapshot's fit behaves as the real one for what comes next
    assert not replay["after_move"]["exceptions"], replay["after_move"]["exceptions"]
    assert replay["after_move"]["sklearn"]
    assert _timeless(replay["after_move"]["metrics"]) == _timeless(
        fresh["after_move"]["metrics"])
    # ... and an independent computation with the snapshot off agrees too
    off = _run_page(tmp_path, NPLK_LAB_FIRST_PAINT="0")
    assert off["figures"] == fresh["figures"]
    assert _timeless(off["metrics"]) == _timeless(fresh["metrics"])


def _timeless(metrics):
    """The metric tiles without the fit time (a measurement, not a result)."""
    return [m for m in metrics if m[0] != "Fit time"]


def test_a_snapshot_is_keyed_by_the_state_and_the_code(tmp_path, monkeypatch):
    monkeypatch.setenv("NPLK_LAB_CACHE_DIR", str(tmp_path))
    import nplk_lab.model as lab
    from nplk_lab.serve import firstpaint

    P = lab.defaults()
    a = firstpaint.snapshot_path("classification", P)
    assert a.parent == tmp_path
    assert firstpaint.snapshot_path("classification", dict(P)) == a
    assert firstpaint.snapshot_path("regression", P) != a
    assert firstpaint.snapshot_path("classification", {**P, "sigma": 1.0}) != a
    monkeypatch.setattr(firstpaint, "_VERSION", ["another code version"])
    assert firstpaint.snapshot_path("classification", P) != a
    assert not firstpaint.restore("classification", P)  # nothing on disk: no-op


def test_a_lazy_estimator_acts_as_the_estimator_it_holds():
    import copy
    import pickle

    import numpy as np
    from sklearn.svm import SVC

    from nplk_lab.serve import stores
    from nplk_lab.serve.firstpaint import LazyEstimator, _estimator_blob

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    svc = SVC(C=3.0, gamma=0.5).fit(X, y)
    svc.callback = lambda *a: False  # a closure, as a fit's progress callback is
    blob = _estimator_blob(svc)
    lazy = LazyEstimator(blob)
    # the store's size estimate reads the blob, without unpickling
    assert stores.nbytes(lazy) == len(blob)
    assert object.__getattribute__(lazy, "_real") is None
    assert isinstance(lazy, SVC)
    np.testing.assert_array_equal(lazy.decision_function(X), svc.decision_function(X))
    assert lazy.callback is None  # the closure was dropped, the rest kept
    assert lazy.get_params()["C"] == 3.0
    clone = copy.deepcopy(lazy)
    assert type(clone) is SVC
    np.testing.assert_array_equal(clone.predict(X), svc.predict(X))
    again = pickle.loads(pickle.dumps(lazy))
    assert type(again) is SVC and again.C == 3.0


def test_a_store_is_read_without_asking_streamlit_cache_until_it_is_cleared(monkeypatch):
    """``stores.cache(name)`` hands out the one store of its name from the lab's own map
    (Streamlit's cached function hashes the name on every call, some 15 calls per page
    run); both clears Streamlit offers still drop every store."""
    import streamlit as st

    from nplk_lab.serve import stores

    stores.cache.clear()
    figs = stores.cache("figs")
    figs.put(("k",), 1)
    asked = []
    original = stores._held
    monkeypatch.setattr(stores, "_held", lambda name: asked.append(name) or original(name))
    for _ in range(5):
        assert stores.cache("figs") is figs
    assert asked == []                          # read from the lab's map each time
    stores.cache.clear()                        # the stores' own clear
    fresh = stores.cache("figs")
    assert fresh is not figs and fresh.get(("k",)) is None
    assert asked == ["figs"]
    fresh.put(("k",), 2)
    st.cache_resource.clear()                   # Streamlit's clear of every resource
    again = stores.cache("figs")
    assert again is not fresh and again.get(("k",)) is None
    assert asked == ["figs", "figs"]
    assert stores.cache("figs") is again and asked == ["figs", "figs"]
