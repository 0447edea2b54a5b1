"""The defects a class on one link found (issue: "A class on one link", section 5), and
the classroom benchmark at a small class.

AppTest where a page run is enough; a real server and the protocol-level client of
``tools/st_client.py`` where the defect needs a server session (a tab that
reconnects after a restart)."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from _ports import free_port_block
from streamlit.testing.v1 import AppTest

import nplk_lab.model as lab
from nplk_lab.model import budget

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "benchmarks", ROOT / "tools", ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

CLASSIFICATION = str(ROOT / "pages" / "1_Classification.py")
SCALING = str(ROOT / "pages" / "5_Scaling.py")


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def csv_bytes(n: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    buf = io.StringIO()
    buf.write("x1,x2,label\n")
    for (a, b), c in zip(X, y, strict=True):
        buf.write(f"{a:.5f},{b:.5f},{c}\n")
    return buf.getvalue().encode()


# ---------------------------------------------------------------------------
# the budget's subsample meets the matrix figure
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_subsampled_fit_draws_its_matrix_with_its_own_labels():
    """``n_samples=1000&solver=pg`` is above the budget, so DANK is fitted on a
    subsample; the matrix view orders the subsample's K and F by the subsample's labels
    (it took the full training labels and raised IndexError)."""
    at = AppTest.from_file(CLASSIFICATION, default_timeout=300)
    at.query_params["n_samples"] = "1000"
    at.query_params["solver"] = "pg"
    at.run()
    assert_clean(at)
    assert any("subsample" in w.value for w in at.warning)
    import _components as chart_component
    figs = [chart_component.figure_of(e) for e in at.get("bidi_component")]
    heat = [f for f in figs if f and any(t.get("type") == "heatmap" for t in f["data"])]
    assert heat, "no matrix heatmap on the page"


@pytest.mark.slow
def test_labels_of_a_subsampled_result_are_the_subsample():
    data, _ = lab.prepare_data({**lab.defaults(), "n_samples": 1000, "solver": "pg"},
                               lab.CLASSIFICATION)
    res = lab.fit_method({**lab.defaults(), "solver": "pg"},
                         data.X_train, data.y_train, data.X_test, data.y_test,
                         method="dank")
    assert res.ok and len(res.X_train) < len(data.y_train)
    y = res.labels(data.y_train)
    assert len(y) == res.kernel.shape[0] == res.matrix.shape[0]
    # the subsample's labels are the full labels at the kept rows
    rows = [int(np.flatnonzero((data.X_train == x).all(axis=1))[0]) for x in res.X_train]
    assert np.array_equal(y, data.y_train[rows])


@pytest.mark.slow
@pytest.mark.parametrize("rows", [5000, 20000])
def test_large_csv_upload_draws_the_page(rows):
    at = AppTest.from_file(CLASSIFICATION, default_timeout=600)
    at.query_params["dataset"] = "csv"
    at.run()
    at.file_uploader(key="w_csv_classification").set_value(
        (f"big{rows}.csv", csv_bytes(rows), "text/csv")).run()
    assert_clean(at)
    assert any("subsample" in w.value for w in at.warning)


# ---------------------------------------------------------------------------
# the chart component is declared once per runtime
# ---------------------------------------------------------------------------

def test_chart_component_is_declared_once_per_runtime(monkeypatch):
    """Declaring a v1 component walks ``sys.modules`` (``inspect.getmodule``), which
    failed on a fresh server's concurrent first runs ("module is None"): the lab
    declares its components once per runtime (under a lock), not on every run; a new
    runtime (a restarted server) declares them again."""
    import threading
    from unittest.mock import MagicMock

    import streamlit as st
    from streamlit.runtime import Runtime

    import nplk_lab.ui.components.chart as chart_component
    import nplk_lab.ui.components.replay as replay_component

    calls = []
    monkeypatch.setattr(chart_component.components_v1, "declare_component",
                        lambda name, **k: calls.append(name) or MagicMock(name=name))
    monkeypatch.setattr(st.components.v2, "component",
                        lambda name, **k: calls.append(name) or MagicMock())
    monkeypatch.setattr(Runtime, "_instance", MagicMock(spec=Runtime))
    threads = [threading.Thread(target=lambda: (chart_component._register(),
                                                replay_component._register()))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    once = sorted(calls)
    assert once.count("plotlyjs") == 1 and once.count("nplk_live_chart") == 1
    assert once.count("nplk_replay") == 1
    chart_component._register()
    assert sorted(calls) == once                     # later runs: nothing declared
    monkeypatch.setattr(Runtime, "_instance", MagicMock(spec=Runtime))
    chart_component._register()                            # a new server: declared again
    assert calls.count("plotlyjs") == 2


# ---------------------------------------------------------------------------
# the Scaling page under the budget
# ---------------------------------------------------------------------------

def test_study_verdict_refuses_what_the_budget_cannot_hold():
    assert budget.study_verdict(200, 10).ok
    big = budget.study_verdict(20_000, 10)
    assert not big.ok and big.cost.bytes > budget.DEFAULT.memory
    ok = budget.study_verdict(big.n_max, 10)
    assert ok.ok and ok.cost.bytes <= budget.DEFAULT.memory


@pytest.mark.slow
def test_scaling_study_on_large_data_runs_on_a_subsample_within_memory():
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 6000
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    small = budget.Budget(patient_seconds=2.0, memory=60 * budget.MB)
    limit = budget.study_verdict(n, 3, budget=small).n_max
    lab.scaling_study(X[:60], y[:60], C=10.0, sigma=10.0, v=2, max_v=3)  # imports
    tracemalloc.start()
    try:
        s = lab.scaling_study(X, y, C=10.0, sigma=10.0, v=2, max_v=3, seed=0,
                              work_budget=small)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(s.y) == len(s.labels) == len(s.X) and limit - 2 <= len(s.y) <= limit < n
    assert any("subsample" in m.text for m in s.messages)
    assert peak < small.memory
    # the full data would have needed more than the budget (K alone: n² doubles)
    assert 8 * n * n > budget.DEFAULT.memory // 2


@pytest.mark.slow
def test_scaling_page_with_a_large_csv_gives_a_picture_and_a_note():
    at = AppTest.from_file(SCALING, default_timeout=600)
    at.query_params["dataset"] = "csv"
    at.query_params["scale_max_clusters"] = "3"
    at.run()
    at.file_uploader(key="w_csv_classification").set_value(
        ("big.csv", csv_bytes(20000), "text/csv")).run()
    assert_clean(at)
    assert any("subsample" in w.value for w in at.warning)
    assert at.metric, "no study drawn"


# ---------------------------------------------------------------------------
# the fit pool: fair, shared, superseded jobs cancelled, place in line
# ---------------------------------------------------------------------------

class _Gate:
    """A job function that blocks until the test opens its gate (no timing)."""

    def __init__(self):
        import threading
        self.events = {}
        self.started = []
        self.lock = threading.Lock()
        self.cv = threading.Condition(self.lock)

    def __call__(self, name):
        import threading
        with self.cv:
            ev = self.events.setdefault(name, threading.Event())
            self.started.append(name)
            self.cv.notify_all()
        ev.wait()
        return name

    def open(self, name):
        import threading
        with self.cv:
            self.events.setdefault(name, threading.Event()).set()

    def wait_started(self, k):
        with self.cv:
            assert self.cv.wait_for(lambda: len(self.started) >= k, timeout=30)


def _pool(workers=1):
    import concurrent.futures as cf

    from nplk_lab.serve.workers import Pool
    return Pool(workers, executor_factory=lambda: cf.ThreadPoolExecutor(workers))


def test_pool_takes_sessions_in_turn():
    """Student A queues three fits, B one: B's runs second, not fourth."""
    gate, pool = _Gate(), _pool(1)
    a0 = pool.submit("A", "a0", gate, "a0")
    gate.wait_started(1)
    a1 = pool.submit("A", "a1", gate, "a1")
    # A's own newer request supersedes a1; keep a1 alive by a second waiter
    pool.submit("C", "a1", gate, "a1")
    a2 = pool.submit("A", "a2", gate, "a2")
    b0 = pool.submit("B", "b0", gate, "b0")
    assert pool.ahead(b0) <= pool.ahead(a2)
    for name in ("a0", "a1", "a2", "b0"):
        gate.open(name)
    for j in (a0, a1, a2, b0):
        j.done.result(timeout=30)
    assert gate.started.index("b0") < gate.started.index("a2")


def test_pool_shares_identical_requests_and_cancels_superseded_ones():
    gate, pool = _Gate(), _pool(1)
    pool.submit("A", "k0", gate, "k0")
    gate.wait_started(1)
    mine = pool.submit("B", "k1", gate, "k1")
    same = pool.submit("C", "k1", gate, "k1")
    assert same is mine                         # one computation for both sessions
    newer = pool.submit("B", "k2", gate, "k2")  # B moved on: k1 still wanted by C
    assert not mine.done.cancelled()
    pool.release(mine, "C")                     # C's page run ended early too
    assert mine.done.cancelled()                # nobody waits: dropped before it ran
    assert pool.ahead(newer) == 1               # only the running fit is ahead
    for n in ("k0", "k2"):
        gate.open(n)
    assert newer.done.result(timeout=30) == "k2"
    assert "k1" not in gate.started


def test_pool_stores_a_result_nobody_waits_for_any_more():
    gate, pool = _Gate(), _pool(1)
    kept = {}
    job = pool.submit("A", "k", gate, "k", on_result=lambda r: kept.setdefault("k", r))
    gate.wait_started(1)
    pool.release(job, "A")                      # the page moved on while it ran
    gate.open("k")
    assert job.done.result(timeout=30) == "k" and kept == {"k": "k"}


def test_wait_reports_the_place_in_line():
    from nplk_lab.serve import workers

    gate, pool = _Gate(), _pool(1)
    pool.submit("A", "a", gate, "a")
    gate.wait_started(1)
    mine = pool.submit("B", "b", gate, "b")
    said = []

    def report(text):
        said.append(text)
        if len(said) == 1:
            gate.open("a")
        if "running" in text:
            gate.open("b")
    assert workers.wait(mine, "B", report, pool) == "b"
    assert said[0] == "1 fit ahead of yours"


@pytest.mark.slow
def test_worker_process_reports_iterations_and_stops_when_nobody_waits():
    """A real process pool: a long fit reports its iteration through the shared slot;
    once its only waiter gives it up (Stop, a newer move, a closed tab) the solver stops
    at its next iteration and the half-done result is not stored. The server logs that
    the job ended, at which iteration and when it was told to stop (the browser test of
    a closed tab reads that line)."""
    import concurrent.futures as cf
    import logging
    import re

    from nplk_lab.model.offload import fit_for_page
    from nplk_lab.serve.workers import Pool

    data, _ = lab.prepare_data({**lab.defaults(), "n_samples": 300}, lab.CLASSIFICATION)
    P = {**lab.defaults(), "solver": "pg", "max_iter": 5000, "tol": 0.0}
    pool = Pool(1)
    kept = []
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = records.append
    logger = logging.getLogger("nplk_lab.workers")
    logger.addHandler(handler)
    try:
        job = pool.submit("A", "long", fit_for_page, P, data.X_train, data.y_train,
                          data.X_test, data.y_test, method="dank", data_key=data.key,
                          on_result=kept.append)
        seen = None
        while not seen:                       # condition: the solver has reported
            try:
                job.done.result(timeout=0.1)
                break
            except cf.TimeoutError:
                seen = pool.iteration(job)
        assert seen, "the fit finished before reporting an iteration"
        pool.release(job, "A")
        res = job.done.result(timeout=120)
        assert res.n_iter is not None and res.n_iter < 5000
        assert kept == []
        # logged before the job's result was handed over
        line, = [r.getMessage() for r in records if "nobody waits" in r.getMessage()]
        m = re.search(r"ended at iteration (\d+) \(told to stop at iteration (\d+)\)",
                      line)
        assert m and int(m[1]) == res.n_iter, line
        assert int(m[2]) >= seen and int(m[2]) <= res.n_iter <= int(m[2]) + 2, line
        assert line.endswith("; session A"), line
    finally:
        logger.removeHandler(handler)
        pool._executor.shutdown(wait=True)


def test_offloaded_fit_pickles_back_with_its_views():
    import pickle

    from nplk_lab.model.offload import fit_for_page
    data, _ = lab.prepare_data({**lab.defaults(), "n_samples": 60}, lab.CLASSIFICATION)
    res = fit_for_page(lab.defaults(), data.X_train, data.y_train, data.X_test,
                       data.y_test, method="dank", data_key=data.key)
    back = pickle.loads(pickle.dumps(res))
    assert back.ok and back._lazy.keys() >= {"kernel", "spectra", "rank"}
    assert np.array_equal(back.matrix, res.matrix)
    assert np.array_equal(back.estimator.predict(data.X_test), res.estimator.predict(data.X_test))


# ---------------------------------------------------------------------------
# real server: a reconnected tab, and the benchmark at a class of two
# ---------------------------------------------------------------------------

def _port() -> int:
    import socket
    for port in range(8650, 8660):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    return 0


@pytest.mark.slow
def test_reconnected_tab_keeps_the_move_it_sends_with_its_first_run(tmp_path):
    """A server restart: the open tab reconnects as a new session and sends its URL
    (the old state) with its widgets' values (the move just made); the move wins."""
    from deployment import serve
    from st_client import Tab, number, query_value

    server = serve(port=_port() or None, log=tmp_path / "server.log")

    async def go():
        a = Tab(server.url)
        await a.connect()
        await a.rerun(page="Classification")
        opts = a.widgets["w_tau"].options
        now = query_value(a.query, "tau")
        new = next(o for o in opts if not np.isclose(number(o), float(now)))
        await a.close()
        b = Tab(server.url)                   # the same tab after the restart
        await b.connect()
        b.pages, b.page, b.widgets = a.pages, "Classification", dict(a.widgets)
        b.query = a.query
        b.set("w_tau", new)
        run = await b.rerun(timeout=300)
        await b.close()
        return new, run
    try:
        new, run = asyncio.run(go())
    finally:
        server.stop()
    assert not run.exceptions
    assert np.isclose(float(query_value(run.query, "tau")), number(new))


@pytest.mark.slow
def test_a_move_sent_before_the_newest_url_arrived_is_not_lost(tmp_path):
    """Under load a student moves again before the page's newest URL has reached the
    browser, so the request carries the URL of the run before: that is not a pasted
    link, and the earlier move must survive."""
    from deployment import serve
    from st_client import Tab, number, query_value

    server = serve(port=_port() or None, log=tmp_path / "server.log")

    async def go():
        t = Tab(server.url)
        await t.connect()
        await t.rerun(page="Classification")
        stale = t.query
        tau = next(o for o in t.widgets["w_tau"].options
                   if not np.isclose(number(o), float(query_value(stale, "tau"))))
        t.set("w_tau", tau)
        await t.rerun(timeout=300)                   # the page wrote a new URL ...
        sigma = next(o for o in t.widgets["w_sigma"].options
                     if not np.isclose(number(o), float(query_value(stale, "sigma"))))
        t.set("w_sigma", sigma)
        run = await t.rerun(query=stale, timeout=300)  # ... the browser had the old one
        await t.close()
        return tau, sigma, run
    try:
        tau, sigma, run = asyncio.run(go())
    finally:
        server.stop()
    assert not run.exceptions
    assert np.isclose(float(query_value(run.query, "tau")), number(tau))
    assert np.isclose(float(query_value(run.query, "sigma")), number(sigma))


def test_the_benchmark_reads_a_move_kept_in_the_url_as_kept():
    """A move to a slider stop written as people write it ("7 × 10⁻⁴") is kept when the
    URL holds its number: the benchmark once counted every such move as lost (11 of
    601 in a class of 60, all explorers' small τ)."""
    import bench_classroom

    class Run:
        query = "tau=0.0007&sigma=3.0"
    assert not bench_classroom._check(Run, "tau", "7 × 10⁻⁴")
    assert not bench_classroom._check(Run, "sigma", "3")
    assert bench_classroom._check(Run, "tau", "5 × 10⁻⁴")
    assert bench_classroom._check(Run, "C", "1")        # not in the URL: lost


@pytest.mark.slow
def test_classroom_benchmark_runs_a_class_of_two(capsys):
    import bench_classroom

    port = _port()
    assert bench_classroom.main(["--students", "2", "--moves", "3", "--gap", "2",
                                 "--linger", "0", "--port", str(port - 1 if port > 8650
                                                                   else 8648)]) == 0
    row = bench_classroom.main.rows[0]
    out = capsys.readouterr().out
    assert "| 2 |" in out
    assert row["moves"] >= 2 * 3 and not row["errors"] and row["lost"] == 0
    assert row["p50"] > 0 and row["peak"] > row["idle"] > 0 and row["floor"] > 0
    assert row["open_sessions"] == [2]     # the server's own count: both tabs were open


@pytest.mark.slow
def test_classroom_benchmark_measures_a_light_class_beside_it(capsys):
    """``--hall 4``: four light-page students vote through the same server while two
    students move sliders; every light vote acknowledged is stored, and the line says so."""
    import bench_classroom

    port = _port()
    assert bench_classroom.main(["--students", "2", "--moves", "3", "--gap", "2",
                                 "--linger", "0", "--hall", "4", "--processes", "2",
                                 "--port", str(port - 1 if port > 8650 else 8648)]) == 0
    row = bench_classroom.main.rows[0]
    assert row["hall"] == 4 and not row["errors"] and row["lost"] == 0
    light = row["beside"].result
    acked, final = sum(light["acked"].values()), sum(light["final"].values())
    assert acked == final == 4 * 2 * light["questions"]
    assert not light["errors"]
    out = capsys.readouterr().out
    assert f"4 light students beside 2: votes {acked} acknowledged, {final} stored, 0 lost" \
        in out


def test_a_tab_sends_the_cookies_of_its_first_answer_with_every_later_request():
    """A tab is a browser tab for a proxy with cookie affinity: the page load's answer
    sets the affinity cookie, and the websocket upgrade, the upload's health request
    and its PUT all carry it (the PUT also Streamlit's XSRF cookie and header). A fake
    server (Tornado, as Streamlit's) records what each request sent."""
    import tornado.web
    import tornado.websocket
    from st_client import Tab, Widget
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    seen: list[tuple[str, str, str | None, str | None]] = []

    class Recorded(tornado.web.RequestHandler):
        def prepare(self):
            r = self.request
            seen.append((r.method, r.path, r.headers.get("Cookie"),
                         r.headers.get("X-Xsrftoken")))

        def get(self):
            if self.request.path == "/":
                self.add_header("Set-Cookie", "NPLK_WORKER=w2; path=/; HttpOnly; "
                                "SameSite=Lax")
            else:  # the health route: Streamlit's XSRF cookie
                self.add_header("Set-Cookie", "_streamlit_xsrf=2|ab|cd|17; expires=Thu, "
                                "26 Nov 2026 18:00:00 GMT; Path=/; SameSite=Lax")
            self.write("ok")

        def put(self):
            self.write("")

    class Stream(tornado.websocket.WebSocketHandler):
        def prepare(self):
            seen.append(("GET", self.request.path, self.request.headers.get("Cookie"), None))

        def select_subprotocol(self, subprotocols):
            return "streamlit"

        def on_message(self, message):
            req = BackMsg()
            req.ParseFromString(message)
            msg = ForwardMsg()
            msg.file_urls_response.response_id = req.file_urls_request.request_id
            urls = msg.file_urls_response.file_urls.add()
            urls.file_id, urls.upload_url = "f1", "/_stcore/upload_file/s1/f1"
            self.write_message(msg.SerializeToString(), binary=True)

    async def go():
        app = tornado.web.Application([(r"/_stcore/stream", Stream), (r"/.*", Recorded)])
        server = app.listen(0, address="127.0.0.1")
        port = next(iter(server._sockets.values())).getsockname()[1]
        tab = Tab(f"http://127.0.0.1:{port}")
        try:
            await tab.connect()
            tab.widgets["w_csv"] = Widget("w_csv", "$$ID-x-w_csv", "file_uploader", [],
                                          False)
            await tab.upload("w_csv", "class.csv", b"x1,x2,label\n0,1,1\n")
        finally:
            await tab.close()
            server.stop()
        return tab

    tab = asyncio.run(go())
    assert seen == [
        ("GET", "/", None, None),                          # the page: no cookie yet
        ("GET", "/_stcore/stream", "NPLK_WORKER=w2", None),  # the websocket upgrade
        ("GET", "/_stcore/health", "NPLK_WORKER=w2", None),  # the upload's XSRF cookie
        ("PUT", "/_stcore/upload_file/s1/f1",                # the upload itself
         "NPLK_WORKER=w2; _streamlit_xsrf=2|ab|cd|17", "2|ab|cd|17")]
    assert tab.states["w_csv"].file_uploader_state_value.uploaded_file_info[0].file_id == "f1"


@pytest.mark.slow
def test_classroom_benchmark_spreads_a_class_of_two_over_two_processes(capsys):
    """``--processes 2``: the class through ``nplk-lab classroom --workers 2``. HAProxy
    gives each student its own process (the cookie its tab kept), each process counts
    one open session of its own, and nothing errs or is lost (student 0's upload
    reached its session's process)."""
    from nplk_lab.serve import command as serve_command

    if serve_command.find_proxy() is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    import bench_classroom

    assert bench_classroom.main(["--students", "2", "--moves", "3", "--gap", "2",
                                 "--linger", "0", "--processes", "2",
                                 "--port", str(free_port_block(4))]) == 0
    row = bench_classroom.main.rows[0]
    out = capsys.readouterr().out
    assert "2 Streamlit processes behind HAProxy" in out and "| 2 |" in out
    assert row["moves"] >= 2 * 3 and not row["errors"] and row["lost"] == 0
    assert row["spread"] == {"w1": 1, "w2": 1}
    assert row["open_sessions"] == [1, 1]
    assert row["left_over"] == []              # the command stopped its whole tree
    assert row["peak"] > row["idle"] > 0 and row["cpu"] > 0
