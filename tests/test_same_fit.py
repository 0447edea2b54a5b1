"""The same fit gives the same answer on every run, whatever runs it.

Scalable DANK fitted without a seed drew its k-means start from the operating system, so
two runs of one fit agreed on 99.5-99.8 % of the predictions; Lloyd's k-means summed its
threads' shares of a centre separately, so the centres changed in the last bits with the
number of OpenMP threads (2 here, 1 in a Dask or loky worker). These tests check the
result bit for bit across runs, thread counts, joblib backends and the order in which the
sub-problems finish (the Dask backend: tests/test_dask.py).
"""

import os
import threading

import joblib
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from nplk_core import DANKClassifier
from nplk_core import scalable as sc
from nplk_core.datasets import make_clowns
from nplk_core.parallel import iter_fits, map_fits


def _same(a, b):
    """Two scalable results are the same fit, bit for bit."""
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.centers, b.centers)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert a.eta == b.eta and a.objective == b.objective


@pytest.fixture(scope="module")
def clowns():
    X, y = make_clowns(3000, random_state=4)
    Xt, _ = make_clowns(4000, random_state=5)
    return X, 2.0 * y - 1, Xt


def test_a_fit_without_a_seed_is_the_same_on_every_run(clowns):
    X, y, Xt = clowns
    runs = [DANKClassifier(n_clusters=8).fit(X, y) for _ in range(3)]
    for r in runs[1:]:
        _same(r.scalable_, runs[0].scalable_)
        np.testing.assert_array_equal(r.predict(Xt), runs[0].predict(Xt))


def test_a_seeded_generator_gives_the_same_sample_and_partition():
    # above 5,000 points k-means runs on a sample, drawn before from the system's entropy
    # unless the seed was a Python int
    X, _ = make_clowns(6000, random_state=2)
    a = sc._partition(X, 6, np.random.RandomState(3))
    b = sc._partition(X, 6, np.random.RandomState(3))
    c = sc._partition(X, 6, np.random.default_rng(3))
    d = sc._partition(X, 6, np.random.default_rng(3))
    for u, v in ((a, b), (c, d)):
        np.testing.assert_array_equal(u[0], v[0])
        np.testing.assert_array_equal(u[1], v[1])
    for seed in (7, np.int64(7)):
        np.testing.assert_array_equal(sc._partition(X, 6, seed)[1],
                                      sc._partition(X, 6, 7)[1])
    with pytest.raises(ValueError, match="random_state"):
        sc.partition_seed("seven")


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: one OpenMP thread anyway")
def test_the_partition_does_not_depend_on_the_number_of_threads(clowns):
    X = clowns[0]
    out = {}
    for t in (1, 2):
        with threadpool_limits(limits=t, user_api="openmp"):
            out[t] = sc._partition(X, 8, 0)
    np.testing.assert_array_equal(out[1][0], out[2][0])
    np.testing.assert_array_equal(out[1][1], out[2][1])   # the centres, to the last bit


# ---------------------------------------------------------------------------
# sub-problems finishing in any order
# ---------------------------------------------------------------------------

class _Reversed:
    """Wraps a task so that, run on enough threads, the tasks *finish* in the reverse of
    the order they were handed out: a task waits for the event of the task after it.
    ``index(args)`` says which task a call is; ``finished`` records the order."""

    def __init__(self, fn, n, index):
        self.fn, self.index, self.__name__ = fn, index, fn.__name__
        self.done = [threading.Event() for _ in range(n)]
        self.finished = []

    def __call__(self, *args, **kwargs):
        i = self.index(args)
        if i + 1 < len(self.done):
            assert self.done[i + 1].wait(timeout=120), "the later task never finished"
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.finished.append(i)
            self.done[i].set()


def test_iter_fits_pairs_each_result_with_its_task_whatever_finishes_first():
    tasks = [(float(i),) for i in range(6)]
    slow = _Reversed(lambda a: a * a + 1, len(tasks), lambda args: int(args[0]))
    with joblib.parallel_config(backend="threading", n_jobs=len(tasks)):
        got = list(iter_fits(slow, tasks))
    assert slow.finished == list(range(6))[::-1]            # reverse order, as asked
    assert [i for i, _ in got] != list(range(6))             # and yielded as they came
    assert sorted(got) == list(enumerate(map_fits(lambda a: a * a + 1, tasks)))


def test_scalable_dank_is_the_same_on_every_backend_and_finishing_order(clowns, monkeypatch):
    X, y, Xt = clowns
    kw = dict(n_clusters=8, C=1.0, sigma=1.0, random_state=None)
    serial = sc.fit_scalable(X, y, **kw)
    pred = np.sign(sc.scalable_decision(serial, Xt))
    runs = {"loky, 2 processes": sc.fit_scalable(X, y, **kw, n_jobs=2)}
    with joblib.parallel_config(backend="threading", n_jobs=2):
        runs["2 threads"] = sc.fit_scalable(X, y, **kw)
    # every cluster's tasks finishing last-first (8 threads, chained by events)
    first_rows = {X[serial.labels == c][0].tobytes(): c for c in range(8)}
    which = lambda args: first_rows[args[0][0].tobytes()]   # noqa: E731
    svm = _Reversed(sc._cluster_svm, 8, which)
    solve = _Reversed(sc._solve_cluster, 8, which)
    monkeypatch.setattr(sc, "_cluster_svm", svm)
    monkeypatch.setattr(sc, "_solve_cluster", solve)
    with joblib.parallel_config(backend="threading", n_jobs=8):
        runs["reverse finishing order"] = sc.fit_scalable(X, y, **kw)
    assert svm.finished == solve.finished == list(range(8))[::-1]
    for name, r in runs.items():
        _same(r, serial)
        assert np.array_equal(np.sign(sc.scalable_decision(r, Xt)), pred), name


# ---------------------------------------------------------------------------
# a slow machine: no fit stops on the clock
# ---------------------------------------------------------------------------

def _slow_clock(monkeypatch):
    """A clock on which every reading is 1,000 s after the last: what a fit would see on
    a machine loaded beyond measure. A fit that stopped on a time limit would stop early."""
    import itertools
    import time

    ticks = itertools.count(start=1e6, step=1000.0)
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks))
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks))


def _lab_fits():
    import nplk_lab.model as lab
    from nplk_lab.model.studies import scaling_study

    p = {**lab.defaults(), "n_samples": 120}
    data, _ = lab.prepare_data(p, lab.CLASSIFICATION)
    exact = lab.fit_method(p, data.X_train, data.y_train, data.X_test, data.y_test,
                           method="dank")
    study = scaling_study(data.X_train, data.y_train, C=1.0, sigma=1.0, v=3, max_v=3)
    return exact, study


def test_no_fit_stops_on_the_clock(monkeypatch):
    exact, study = _lab_fits()
    _slow_clock(monkeypatch)
    exact_s, study_s = _lab_fits()
    assert exact_s.fit_time >= 1000.0                        # the slow clock was read
    assert exact.estimator is not None and not exact_s.stopped
    np.testing.assert_array_equal(exact.estimator.alpha_, exact_s.estimator.alpha_)
    assert exact.test_score == exact_s.test_score
    assert exact.estimator.n_iter_ == exact_s.estimator.n_iter_
    assert [m.text for m in exact.messages] == [m.text for m in exact_s.messages]
    for a, b in ((study.gap, study_s.gap), (study.labels, study_s.labels)):
        np.testing.assert_array_equal(a, b)
