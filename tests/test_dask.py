"""Fits through joblib's active backend: map_fits locally, and scalable DANK and the
baselines' grid search on a real 2-worker Dask cluster.

The Dask tests start a ``LocalCluster`` (2 worker processes, 1 thread each, on
127.0.0.1, no dashboard) whose workers import this checkout's ``nplk_core``; they skip
when ``dask.distributed`` is not installed (``pip install -e ".[dask]"``).
"""

import os
import threading
from pathlib import Path

import joblib
import numpy as np
import pytest

from nplk_core import DANKClassifier, SVMCVClassifier
from nplk_core.datasets import make_clowns
from nplk_core.parallel import active_backend, map_fits

ROOT = Path(__file__).resolve().parents[1]


def _affine(a, b, *, X, offset=0.0):
    """A task: ``a * X.sum() + b + offset`` and where it ran."""
    return a * float(X.sum()) + b + offset, os.getpid(), threading.get_ident()


# ---------------------------------------------------------------------------
# map_fits on the local backends
# ---------------------------------------------------------------------------

def test_map_fits_keeps_order_and_passes_shared_data():
    X = np.arange(12.0).reshape(4, 3)                      # sum 66
    tasks = [(a, b) for a in (1.0, -2.0, 0.5) for b in (0.0, 3.0)]
    out = map_fits(_affine, tasks, shared={"X": X, "offset": 1.0})
    assert [o[0] for o in out] == [a * 66.0 + b + 1.0 for a, b in tasks]
    assert map_fits(_affine, [], shared={"X": X}) == []


def test_map_fits_follows_the_active_joblib_backend():
    X = np.ones((3, 2))
    tasks = [(1.0, float(i)) for i in range(6)]
    assert active_backend()[0] == "loky"
    # no config: one job, in this process and thread
    serial = map_fits(_affine, tasks, shared={"X": X})
    assert {(p, t) for _, p, t in serial} == {(os.getpid(), threading.get_ident())}
    # a threading config: other threads of this process
    with joblib.parallel_config(backend="threading", n_jobs=2):
        assert active_backend() == ("threading", 2)
        threaded = map_fits(_affine, tasks, shared={"X": X})
    assert {p for _, p, _ in threaded} == {os.getpid()}
    assert threading.get_ident() not in {t for _, _, t in threaded}
    # n_jobs=2 on the default backend: worker processes
    procs = map_fits(_affine, tasks, n_jobs=2, shared={"X": X})
    assert os.getpid() not in {p for _, p, _ in procs}
    assert [o[0] for o in serial] == [o[0] for o in threaded] == [o[0] for o in procs]


# ---------------------------------------------------------------------------
# a real Dask cluster
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip(
        "dask.distributed", reason='dask.distributed is not installed: pip install -e ".[dask]"')
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       host="127.0.0.1", dashboard_address=None,
                                       env={"PYTHONPATH": path})
    client = distributed.Client(cluster)
    yield client
    from nplk_core import parallel
    for c in parallel._CLIENTS.values():       # the pages' clients to this cluster
        c.close()
    parallel._CLIENTS.clear()
    client.close()
    cluster.close()


def _task_stream(client):
    from dask.distributed import get_task_stream

    return get_task_stream(client=client)


@pytest.fixture
def scatter_log(dask_client, monkeypatch):
    """Every object joblib's Dask backend scatters, with its size in bytes."""
    from dask.sizeof import sizeof

    log = []
    original = dask_client.scatter

    def spy(data, *args, **kwargs):
        log.append((id(data), sizeof(data)))
        return original(data, *args, **kwargs)

    monkeypatch.setattr(dask_client, "scatter", spy)
    return log


@pytest.mark.slow
def test_map_fits_on_dask_scatters_shared_data_once(dask_client, scatter_log):
    X = np.random.default_rng(0).normal(size=(2000, 5))    # 80 kB: joblib scatters it
    tasks = [(1.0, float(i)) for i in range(8)]
    with joblib.parallel_config(backend="dask"):
        assert active_backend()[0] == "dask"
        out = map_fits(_affine, tasks, shared={"X": X})
    workers = set(dask_client.run(os.getpid).values())
    assert {p for _, p, _ in out} <= workers and os.getpid() not in workers
    assert [o[0] for o in out] == pytest.approx([X.sum() + i for i in range(8)], rel=1e-12)
    assert [n for i, n in scatter_log if i == id(X)] == [X.nbytes]   # once, not 8 times


@pytest.mark.slow
def test_scalable_dank_on_dask_matches_the_local_backend(dask_client, scatter_log):
    X, y = make_clowns(5000, random_state=0)
    Xt, yt = make_clowns(2000, random_state=1)
    params = dict(n_clusters=8, random_state=0)            # eta="auto": two rounds
    local = DANKClassifier(**params, n_jobs=2).fit(X, y)
    with _task_stream(dask_client) as stream, joblib.parallel_config(backend="dask"):
        remote = DANKClassifier(**params).fit(X, y)
    # the same fit, bit for bit (it once agreed on only 99.78 % of predictions)
    np.testing.assert_array_equal(remote.alpha_, local.alpha_)
    assert remote.eta_ == local.eta_
    np.testing.assert_array_equal(remote.cluster_labels_, local.cluster_labels_)
    np.testing.assert_array_equal(remote.scalable_.centers, local.scalable_.centers)
    np.testing.assert_array_equal(remote.predict(Xt), local.predict(Xt))
    assert local.score(Xt, yt) > 0.8
    # every sub-problem ran in a worker process, and both workers took some
    workers = set(dask_client.run(os.getpid).values())
    pids = [w[0] for w in remote.scalable_.workers]
    assert len(pids) == 8 and set(pids) <= workers and os.getpid() not in pids
    keys = [t["key"] for t in stream.data]
    assert any("_cluster_svm" in k for k in keys) and any("_solve_cluster" in k for k in keys)
    assert len({t["worker"] for t in stream.data}) == 2
    # each cluster's rows went out once per round: never more than twice the data set
    # (plus the small SVM starts), never once per worker or per task
    data_bytes = X.nbytes + y.astype(float).nbytes
    assert data_bytes <= sum(n for _, n in scatter_log) <= 2 * data_bytes + 64_000
    assert max(np.unique([i for i, _ in scatter_log], return_counts=True)[1]) <= 2



@pytest.mark.slow
def test_a_fit_without_a_seed_is_the_same_here_on_dask_and_inside_a_worker(dask_client):
    """No seed, three places: this process, its sub-problems on the workers, and the whole
    fit inside a worker (one OpenMP thread there, two here). Before: k-means drew its
    start from the system and its centres changed with the thread count."""
    X, y = make_clowns(5000, random_state=0)
    Xt, _ = make_clowns(2000, random_state=1)
    local = DANKClassifier(n_clusters=8).fit(X, y)
    with joblib.parallel_config(backend="dask"):
        remote = DANKClassifier(n_clusters=8).fit(X, y)
    inside = dask_client.submit(DANKClassifier(n_clusters=8).fit, X, y, pure=False).result()
    assert inside.scalable_.workers[0][0] in set(dask_client.run(os.getpid).values())
    for other in (remote, inside):
        np.testing.assert_array_equal(other.scalable_.centers, local.scalable_.centers)
        np.testing.assert_array_equal(other.alpha_, local.alpha_)
        np.testing.assert_array_equal(other.predict(Xt), local.predict(Xt))

@pytest.mark.slow
def test_baselines_grid_search_runs_on_dask_workers(dask_client):
    X, y = make_clowns(200, random_state=0)
    kw = dict(sigma_grid=[0.5, 1.0, 2.0], C_grid=[1.0, 10.0], cv=3, random_state=0)
    local = SVMCVClassifier(**kw).fit(X, y)
    with _task_stream(dask_client) as stream, joblib.parallel_config(backend="dask"):
        remote = SVMCVClassifier(**kw).fit(X, y)
    assert remote.best_params_ == local.best_params_
    np.testing.assert_allclose(remote.cv_results_["mean_test_score"],
                               local.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    # 6 candidates x 3 folds ran as Dask tasks
    assert len(stream.data) >= 1
    assert sum(k.count("fit_and_score") for k in (t["key"] for t in stream.data)) >= 1


# ---------------------------------------------------------------------------
# the sensitivity sweep on the cluster
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("method", ["svm", "dank"])
def test_sweep_on_dask_matches_the_local_run(dask_client, scatter_log, method):
    import nplk_lab.model as lab
    from nplk_lab.model.studies import run_sweep

    p = {**lab.defaults(), "n_samples": 200}
    vals = [0.1, 0.3, 1.0, 3.0, 10.0]
    # in process: the page's default (SVC has no warm start, so fit for fit the same)
    local = run_sweep(p, method, "C", vals, repeats=2, parallel=method == "dank")
    pids, done = [], []
    with _task_stream(dask_client) as stream, joblib.parallel_config(backend="dask"):
        remote = run_sweep(p, method, "C", vals, repeats=2, parallel=True,
                           on_result=lambda q, key, s: pids.append(s["pid"]),
                           progress=lambda d, t: done.append(d) and False)
    for a, b in [(local.scores, remote.scores), (local.train_scores, remote.train_scores),
                 (local.ranks, remote.ranks)]:
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(remote.scores).all() and done == list(range(1, 11))
    # all ten fits ran in the worker processes, as Dask tasks
    workers = set(dask_client.run(os.getpid).values())
    assert len(pids) == 10 and set(pids) <= workers and os.getpid() not in pids
    assert sum(k.count("_sweep_task") for k in (t["key"] for t in stream.data)) >= 1
    # each seed's training data went out once, not once per fit (5 fits per seed)
    ids, counts = np.unique([i for i, _ in scatter_log], return_counts=True)
    assert counts.max() == 1 and len(ids) <= 2 * 4


@pytest.mark.slow
def test_map_on_dask_matches_the_local_run(dask_client):
    import nplk_lab.model as lab
    from nplk_lab.model import maps

    p = {**lab.defaults(), "n_samples": 60}
    args = (p, "dank", "sigma", [0.5, 2.0, 10.0], "C", [1.0, 10.0, 100.0])
    local = maps.run_map(*args, repeats=2)
    pids = []
    with _task_stream(dask_client) as stream, joblib.parallel_config(backend="dask"):
        remote = maps.run_map(*args, repeats=2, parallel=True,
                              on_result=lambda key, cells: pids.extend(c["pid"] for c in cells))
    for a, b in [(local.scores, remote.scores), (local.ranks, remote.ranks),
                 (local.baseline, remote.baseline), (local.f_off, remote.f_off)]:
        np.testing.assert_array_equal(a, b)
    # six lines (3 σ × 2 seeds) of three cells, all fitted in the worker processes
    workers = set(dask_client.run(os.getpid).values())
    assert len(pids) == 18 and set(pids) <= workers and os.getpid() not in pids
    assert sum(k.count("line_task") for k in (t["key"] for t in stream.data)) >= 1


# ---------------------------------------------------------------------------
# the pages' option (AppTest): configured by the server, never by the URL
# ---------------------------------------------------------------------------

SCALING = str(ROOT / "pages" / "5_Scaling.py")
SENSITIVITY = str(ROOT / "pages" / "4_Sensitivity.py")


def _page(path, **query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(path, default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return at


def _dask_boxes(at):
    return [c for c in at.sidebar.checkbox if c.key.startswith("lab_dask_")]


@pytest.mark.slow
def test_no_cluster_option_without_configuration(monkeypatch):
    monkeypatch.delenv("NPLK_DASK_SCHEDULER", raising=False)
    for path in (SCALING, SENSITIVITY):
        # a crafted link cannot name a scheduler either
        at = _page(path, n_samples=60, scale_max_clusters=3, dask_scheduler="tcp://1.2.3.4:1",
                   NPLK_DASK_SCHEDULER="tcp://1.2.3.4:1").run()
        assert not at.exception and not _dask_boxes(at)
        assert not any("Dask" in w.value for w in at.warning)


def test_scaling_page_runs_the_study_on_the_configured_cluster(dask_client, monkeypatch):
    address = dask_client.scheduler.address
    monkeypatch.setenv("NPLK_DASK_SCHEDULER", address)
    at = _page(SCALING, n_samples=80, scale_clusters=3, scale_max_clusters=3, seed=7).run()
    (box,) = _dask_boxes(at)
    assert box.label == f"Run on the Dask cluster at {address}" and box.value is False
    local = at.metric[1].value, at.metric[2].value          # Q(pi), support vectors
    with _task_stream(dask_client) as stream:
        box.check().run()
    assert not at.exception and not any("Could not connect" in w.value for w in at.warning)
    keys = [t["key"] for t in stream.data]
    assert any("_svm_and_solve" in k for k in keys) and any("_solve_cluster" in k for k in keys)
    assert (at.metric[1].value, at.metric[2].value) == local   # same study, run there


@pytest.mark.slow
def test_sensitivity_page_sweeps_on_the_configured_cluster(dask_client, monkeypatch):
    monkeypatch.setenv("NPLK_DASK_SCHEDULER", dask_client.scheduler.address)
    at = _page(SENSITIVITY, n_samples=60, sweep_method="svm", sweep_param="C",
               sweep_points=3, sweep_repeats=2).run()
    table = at.dataframe[0].value.copy()
    with _task_stream(dask_client) as stream:
        _dask_boxes(at)[0].check().run()
    assert not at.exception
    assert sum(k.count("_sweep_task") for k in (t["key"] for t in stream.data)) >= 1
    assert any("ran on the Dask cluster" in i.value for i in at.info)
    remote = at.dataframe[0].value
    assert remote["test accuracy"].tolist() == table["test accuracy"].tolist()


@pytest.mark.slow
def test_sensitivity_page_maps_on_the_configured_cluster(dask_client, monkeypatch):
    monkeypatch.setenv("NPLK_DASK_SCHEDULER", dask_client.scheduler.address)
    at = _page(SENSITIVITY, n_samples=60, sweep_method="svm", sweep_param="sigma",
               sweep_param2="C", sweep_points=3, sweep_points2=3, sweep_repeats=2).run()
    table = at.dataframe[0].value.copy()
    import streamlit as st
    st.cache_resource.clear()          # the lines fitted here are shared: fit them again
    with _task_stream(dask_client) as stream:
        _dask_boxes(at)[0].check().run()
    assert not at.exception
    assert sum(k.count("line_task") for k in (t["key"] for t in stream.data)) >= 1
    assert any("ran on the Dask cluster" in i.value for i in at.info)
    col = "SVM test accuracy (mean)"
    assert at.dataframe[0].value[col].tolist() == table[col].tolist()


@pytest.mark.slow
def test_dead_scheduler_is_a_message_and_the_study_runs_here(monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.delenv("NPLK_DASK_SCHEDULER", raising=False)
    at = _page(SCALING, n_samples=60, scale_clusters=2, scale_max_clusters=3)
    at.secrets["dask_scheduler"] = "tcp://127.0.0.1:9"      # secrets.toml; nothing there
    at.run()
    box, = _dask_boxes(at)
    box.check().run()
    assert not at.exception
    msg = [w.value for w in at.warning if "Could not connect" in w.value]
    assert msg and "tcp://127.0.0.1:9" in msg[0] and "Running on this machine" in msg[0]
    assert at.metric[0].value == "2" and len(at.metric) == 4    # the study is shown


# ---------------------------------------------------------------------------
# scalable DANK's two additions to the paper (off by default)
# ---------------------------------------------------------------------------

def _gauss(A, B, sigma):
    return np.exp(-((A[:, None, :] - B[None]) ** 2).sum(axis=2) / (2 * sigma ** 2))


@pytest.mark.slow
def test_scaled_cluster_C_solves_each_cluster_with_C_n_over_n_c():
    from sklearn.datasets import make_moons

    from nplk_core.scalable import fit_scalable, solve_box_quartic

    X, y01 = make_moons(300, noise=0.3, random_state=3)
    y = 2.0 * y01 - 1
    same = fit_scalable(X, y, n_clusters=3, C=0.5, eta=20.0, random_state=0, tol=1e-8)
    res = fit_scalable(X, y, n_clusters=3, C=0.5, eta=20.0, random_state=0, tol=1e-8,
                       cluster_C="scaled")
    np.testing.assert_array_equal(res.labels, same.labels)
    np.testing.assert_allclose(same.cluster_C, 0.5)
    for c in range(3):
        idx = np.flatnonzero(res.labels == c)
        Cc = 0.5 * 300 / idx.size
        assert res.cluster_C[c] == pytest.approx(Cc)
        # independent reference: the cluster's quartic on its full kernel, box [0, C n/n_c]
        ref, *_ = solve_box_quartic(y[idx], _gauss(X[idx], X[idx], 1.0), Cc, 20.0,
                                    tol=1e-8)
        np.testing.assert_allclose(res.alpha[idx], ref, atol=2e-4 * Cc)
        assert res.alpha[idx].max() > 0.5          # the wider box is used
    with pytest.raises(ValueError, match="cluster_C"):
        fit_scalable(X, y, n_clusters=3, cluster_C="big")


@pytest.mark.slow
def test_vote_sums_the_local_models_of_the_nearest_centres():
    from sklearn.datasets import make_moons

    from nplk_core.scalable import fit_scalable, scalable_decision

    X, y01 = make_moons(400, noise=0.25, random_state=1)
    Xt, _ = make_moons(150, noise=0.25, random_state=2)
    res = fit_scalable(X, 2.0 * y01 - 1, n_clusters=5, eta=30.0, random_state=0, vote=3)
    u = res.y * res.alpha

    def local(c, x):                                 # the paper's local model of cluster c
        mem = np.flatnonzero(res.labels == c)
        j = mem[np.argmin(((res.X[mem] - x) ** 2).sum(axis=1))]
        k = _gauss(res.X[mem], x[None], res.sigma)[:, 0]
        kj = _gauss(res.X[mem], res.X[j][None], res.sigma)[:, 0]
        return np.sum(u[mem] * (1.0 + u[mem] * kj * u[j] / (4 * res.eta)) * k)

    near = np.argsort(((Xt[:, None, :] - res.centers[None]) ** 2).sum(axis=2), axis=1)
    ref3 = np.array([sum(local(c, x) for c in near[t, :3]) for t, x in enumerate(Xt)])
    ref1 = np.array([local(near[t, 0], x) for t, x in enumerate(Xt)])
    np.testing.assert_allclose(scalable_decision(res, Xt, max_bytes=1), ref3, rtol=1e-10,
                               atol=1e-12)
    res.vote = 1
    np.testing.assert_allclose(scalable_decision(res, Xt), ref1, rtol=1e-10, atol=1e-12)
    assert not np.allclose(ref1, ref3)
