"""The lab states the score-table tests share (nplk_lab.model.ablation): a split of the
lab's own data and its fits, each fitted once per test session — the fits are the
lab's own and no test changes them; everything a test checks is computed from them
afresh, so a mutation run (docs/mutation-testing.md) does not refit for every mutant."""

from __future__ import annotations

import functools

import nplk_lab.model as lab
from nplk_lab.model import ablation as ab


def split(task=lab.CLASSIFICATION, seed=0, **over):
    P = {**lab.defaults(), "n_samples": 80, "seed": seed, **over}
    data, msgs = lab.prepare_data(P, task)
    assert data is not None, msgs
    return P, data


@functools.lru_cache(maxsize=None)
def _fit(method, over):
    task = lab.METHODS[method].task
    P, data = split(task, **dict(over))
    return P, data, lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                                   method=method)


def fitted(method, **over):
    """A fit of the lab at a state (cached: see the module docstring)."""
    P, data, res = _fit(method, tuple(sorted(over.items())))
    assert res.ok, res.messages
    return dict(P), data, res


def table_at(method, **over):
    """The page's score table at a state of the lab (its own data and fits)."""
    task = lab.METHODS[method].task
    over = {"n_samples": lab.defaults()["n_samples"], **over}
    _, data, res = fitted(method, **over)
    _, _, plain = fitted("svm" if task == lab.CLASSIFICATION else "svr", **over)
    return ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                       data.y_test, plain=plain.estimator)
