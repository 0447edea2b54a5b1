"""The defects a class on one link found (issue: "A class on one link", section 5), and
the classroom benchmark at a small class.

AppTest where a page run is enough; a real server and the protocol-level client of
``benchmarks/st_client.py`` where the defect needs a server session (a tab that
reconnects after a restart)."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nplk_app as lab
from nplk_app import budget

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "benchmarks", ROOT / "tests"):
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
    for (a, b), c in zip(X, y):
        buf.write(f"{a:.5f},{b:.5f},{c}\n")
    return buf.getvalue().encode()


# ---------------------------------------------------------------------------
# the budget's subsample meets the matrix figure
# ---------------------------------------------------------------------------

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
    import lab_chart
    figs = [lab_chart.figure_of(e) for e in at.get("bidi_component")]
    heat = [f for f in figs if f and any(t.get("type") == "heatmap" for t in f["data"])]
    assert heat, "no matrix heatmap on the page"


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

    import lab_chart
    import lab_replay
    import streamlit as st
    from streamlit.runtime import Runtime

    calls = []
    monkeypatch.setattr(lab_chart.components_v1, "declare_component",
                        lambda name, **k: calls.append(name) or MagicMock(name=name))
    monkeypatch.setattr(st.components.v2, "component",
                        lambda name, **k: calls.append(name) or MagicMock())
    monkeypatch.setattr(Runtime, "_instance", MagicMock(spec=Runtime))
    threads = [threading.Thread(target=lambda: (lab_chart._register(),
                                                lab_replay._register()))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    once = sorted(calls)
    assert once.count("plotlyjs") == 1 and once.count("nplk_live_chart") == 1
    assert once.count("nplk_replay") == 1
    lab_chart._register()
    assert sorted(calls) == once                     # later runs: nothing declared
    monkeypatch.setattr(Runtime, "_instance", MagicMock(spec=Runtime))
    lab_chart._register()                            # a new server: declared again
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
