"""Memory back to idle after a class (``nplk_lab/serve/reaper.py``): the stores' entries
expire, the caches and fit workers are released once no tab is connected, and the closed
tabs' sessions are dropped from Streamlit's store, with the heap trimmed after them.

The reaper's steps take their clock and session counts from the test; one test runs a
real server and waits for the reaper's log lines."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tools", ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))



def test_stores_expire_unused_entries_and_the_reaper_releases_after_the_class():
    from nplk_lab.serve.reaper import Reaper
    from nplk_lab.serve.stores import LRU

    store = LRU(8, name="test")
    store.put("old", np.zeros(1000))
    t_put = __import__("time").monotonic()
    assert store.expire(60, now=t_put + 30) == 0
    assert store.expire(60, now=t_put + 61) == 1 and store.get("old") is None

    store.put("a", np.zeros(1000))
    sessions = {"n": 3}
    r = Reaper(lambda: sessions["n"], ttl=1e9, idle=30)
    t = __import__("time").monotonic()
    assert r.step(t) == "busy" and store.get("a") is not None
    sessions["n"] = 0
    assert r.step(t + 1) == "idle" and store.get("a") is not None
    assert r.step(t + 32) == "released" and len(store) == 0
    sessions["n"] = 1
    assert r.step(t + 40) == "busy"


def test_reaper_drops_closed_tabs_sessions_and_trims_once_they_are_gone(monkeypatch):
    """After the class: every idle step asks Streamlit to drop the closed tabs' expired
    sessions (its store keeps them until its next write otherwise); once a drop removed
    some, the heap is trimmed again: at once after the release, or at the step after it
    when the drop came before (the release's own trim then comes first)."""
    from nplk_lab.serve import reaper as rp

    trims = []
    monkeypatch.setattr(rp, "trim_heap", lambda: trims.append("trim"))
    monkeypatch.setattr(rp, "release_all", lambda: trims.append("release"))
    removed = {"n": 0}                # what the event loop's drops removed, unread

    def dropped():
        n, removed["n"] = removed["n"], 0
        return n
    reaps = []
    r = rp.Reaper(lambda: 0, ttl=1e9, idle=30, held=lambda: 0,
                  reap=lambda: reaps.append(1), dropped=dropped)
    t = 1000.0
    assert r.step(t) == "idle" and r.step(t + 5) == "idle" and not trims
    assert r.step(t + 30) == "released" and trims == ["release"]
    assert r.step(t + 35) == "idle" and trims == ["release"]  # nothing dropped yet
    removed["n"] = 30                                         # a reap removed 30
    assert r.step(t + 40) == "trimmed" and trims == ["release", "trim"]
    assert r.step(t + 45) == "idle" and trims == ["release", "trim"]
    assert len(reaps) == 6  # every idle step asked for the reap

    # the drop is seen before the release (the first step after the tab closed came
    # after its session had expired): the release trims, then the drop is logged
    trims.clear()
    r = rp.Reaper(lambda: 0, ttl=1e9, idle=1, held=lambda: 0, reap=lambda: None,
                  dropped=dropped)
    assert r.step(t) == "idle"
    removed["n"] = 1
    assert r.step(t + 5) == "released" and trims == ["release"]
    assert r.step(t + 10) == "trimmed" and trims == ["release", "trim"]
    assert r.step(t + 15) == "idle" and trims == ["release", "trim"]

    # drops counted while a tab is connected are not for after the class
    r = rp.Reaper(lambda: 1, ttl=1e9, idle=1, held=lambda: 1, reap=lambda: None,
                  dropped=dropped)
    removed["n"] = 2
    assert r.step(t) == "busy" and r.trim_pending is False and removed["n"] == 0


def test_reap_closed_sessions_is_a_no_op_outside_a_server():
    from nplk_lab.serve.reaper import dropped_sessions, held_sessions, reap_closed_sessions

    assert reap_closed_sessions() is False and held_sessions() is None
    assert dropped_sessions() == 0


@pytest.mark.slow
def test_a_closed_tabs_session_is_dropped_and_the_heap_trimmed_after_it(tmp_path):
    """A real server (a closed tab's session kept 3 s, release after 1 s alone): after
    the only tab closes, the server releases its caches and workers, then the closed
    tab's session is dropped from Streamlit's store and the heap trimmed again; the
    test waits for those log lines (the reaper's events), not for a time."""
    from deployment import serve
    from st_client import Tab

    server = serve(log=tmp_path / "server.log",
                   env={"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": "3",
                        "NPLK_LAB_IDLE_RELEASE": "1"})

    async def visit():
        tab = Tab(server.url)
        await tab.connect()
        run = await tab.rerun(page="Classification", timeout=300)
        await tab.close()
        return run
    try:
        mark = server.output.mark()
        run = asyncio.run(visit())
        server.output.wait_line(lambda ln: "caches emptied, workers stopped" in ln,
                                start=mark, timeout_s=300, what="the release")
        line = server.output.wait_line(
            lambda ln: "Closed tabs' sessions dropped" in ln and ln, start=mark,
            timeout_s=300, what="the closed tab's session dropped")
    finally:
        server.stop()
    assert not run.exceptions
    assert "(0 still held)" in line
