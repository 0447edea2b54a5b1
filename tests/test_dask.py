"""Fits through joblib's active backend: map_fits locally, and scalable DANK and the
baselines' grid search on a real 2-worker Dask cluster (issue 14).

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


def test_scalable_dank_on_dask_matches_the_local_backend(dask_client, scatter_log):
    X, y = make_clowns(5000, random_state=0)
    Xt, yt = make_clowns(2000, random_state=1)
    params = dict(n_clusters=8, random_state=0)            # eta="auto": two rounds
    local = DANKClassifier(**params, n_jobs=2).fit(X, y)
    with _task_stream(dask_client) as stream, joblib.parallel_config(backend="dask"):
        remote = DANKClassifier(**params).fit(X, y)
    np.testing.assert_allclose(remote.alpha_, local.alpha_, rtol=0, atol=1e-8)
    assert remote.eta_ == pytest.approx(local.eta_, rel=1e-12)
    np.testing.assert_array_equal(remote.cluster_labels_, local.cluster_labels_)
    assert remote.score(Xt, yt) == local.score(Xt, yt)
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
