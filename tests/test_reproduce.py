"""The reproduction command (its rows and their verdicts): one ``--quick`` run, then its report.

The numbers themselves are not asserted (they are the experiment); the tests check that
every listed paper result and real-data row is present with the paper's value and a
computed one, that every judged comparison is paired over at least 10 seeds or splits
with an interval that contains its mean and a verdict that follows from it, that
``results.json`` follows the shared schema, that ``report.md`` carries the table, that
the PNGs exist when a browser is available — and that the committed report
(``reports/reproduce/results.json``) has the verdicts the current code produces: the
quick run here is compared with it and any changed verdict fails the test.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from nplk_lab.model import paired as P
from nplk_lab.model import realdata, reproduce
from nplk_lab.model.reproduce import rows_dank

COMMITTED = Path(__file__).resolve().parents[1] / "reports" / "reproduce" / "results.json"

#: the rows every paper must have, by id
REQUIRED_IDS = {
    "dank_fig1", "dank_fig1b", "dank_fig2", "dank_fig4", "dank_table5", "dank_svr_step",
    "dank_svr_harmonic", "knpl_fig2", "knpl_fig3", "onk_fig1", "onk_fig3", "npkl_table2",
    "npkl_table4", "npkl_table5", "lab_rbf_fig1", "lab_rbf_fig4", "npkl_iris",
    "real_wine_dank", "real_wine_knpl", "real_wine_onk", "real_wine_lab_rbf",
    "real_breast_cancer_dank", "real_breast_cancer_knpl", "real_breast_cancer_onk",
    "real_breast_cancer_lab_rbf", "real_diabetes_dank_svr", "real_diabetes_lab_rbf",
}
#: preset names shared with the presets helper (HELPERS.md)
PRESET_NAMES = {
    "dank_clowns", "dank_matrix", "dank_solvers", "tau_sweep", "dank_svr_step",
    "dank_svr_harmonic", "knpl_sandwich", "onk_rho", "npkl_spiral", "lab_rbf_chirp",
    "lab_rbf_support",
}
ROW_KEYS = {"id", "paper", "item", "claim", "paper_value", "ours", "holds", "verdict",
            "by_construction", "stats", "note", "preset", "figure"}
STAT_KEYS = {"label", "unit", "n", "mean", "lo", "hi", "better", "margin", "corrected", "wins",
             "ties", "losses", "verdict", "judged"}


def _browser() -> bool:
    return any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome",
                                         "chrome"))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    code = reproduce.main(["--quick", "--out", str(out)])
    return code, out


@pytest.mark.slow
def test_quick_run_writes_schema(quick_run):
    code, out = quick_run
    assert code == 0
    data = json.loads((out / "results.json").read_text())
    assert set(data) == {"generated", "command", "quick", "seconds", "rows"}
    assert data["quick"] is True
    assert "--quick" in data["command"]
    assert isinstance(data["seconds"], float) and data["seconds"] > 0
    dt.datetime.fromisoformat(data["generated"])
    for row in data["rows"]:
        assert set(row) == ROW_KEYS, row["id"]
        assert row["holds"] in (True, False, None)
        assert row["verdict"] in P.VERDICTS
        assert row["holds"] == P.legacy_holds(row["verdict"])
        assert isinstance(row["by_construction"], str)
        for st in row["stats"]:
            assert set(st) == STAT_KEYS, (row["id"], st)
        assert row["preset"] is None or row["preset"] in PRESET_NAMES, row["preset"]
        assert row["paper"] in reproduce.PAPERS
    assert reproduce.load_results(out) == data
    assert reproduce.load_results(out / "results.json") == data


@pytest.mark.slow
def test_every_required_row_has_both_numbers(quick_run):
    _, out = quick_run
    rows = json.loads((out / "results.json").read_text())["rows"]
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    assert REQUIRED_IDS <= set(ids)
    for r in rows:
        # a row that raised is kept with "(row failed)": none may have failed
        assert r["claim"] != "(row failed)", (r["id"], r["note"])
        assert r["paper_value"].strip() and r["ours"].strip(), r["id"]
        assert re.search(r"\d", r["ours"]), (r["id"], r["ours"])
        if r["verdict"] == P.FAILS:
            assert r["note"].strip() or r["stats"], f"{r['id']} does not hold, no reason"


@pytest.mark.slow
def test_every_judged_comparison_is_paired_over_ten_with_its_interval(quick_run):
    _, out = quick_run
    rows = json.loads((out / "results.json").read_text())["rows"]
    for r in rows:
        judged = [st for st in r["stats"] if st["judged"]]
        verdicts = [st["verdict"] for st in judged]
        if r["verdict"] == P.HOLDS:  # a verdict of holds needs all its parts to hold
            assert all(v == P.HOLDS for v in verdicts), r["id"]
        if P.FAILS in verdicts:
            assert r["verdict"] == P.FAILS, r["id"]
        for st in r["stats"]:
            assert st["n"] >= 10, (r["id"], st["label"], st["n"])
            assert st["lo"] <= st["mean"] + 1e-9 and st["mean"] <= st["hi"] + 1e-9
            assert st["wins"] + st["ties"] + st["losses"] == st["n"]
    # every real-data row is judged against its CV baseline and shows 1-NN beside it
    for r in rows:
        if r["id"].startswith("real_"):
            labels = " ".join(st["label"] for st in r["stats"])
            assert "-CV" in labels and "1-NN" in labels, r["id"]
            assert all(st["corrected"] for st in r["stats"]), r["id"]


@pytest.mark.slow
def test_committed_report_has_the_verdicts_of_the_current_code(quick_run):
    """Section 5: a committed verdict that differs from a fresh run fails here. Regenerate
    with ``python -m nplk_lab.model.reproduce --quick`` and commit reports/reproduce/."""
    _, out = quick_run
    committed = reproduce.load_results(COMMITTED)
    assert committed is not None, f"no committed report at {COMMITTED}"
    assert committed["quick"] is True, "the committed report must be the --quick run"
    fresh = json.loads((out / "results.json").read_text())
    diffs = reproduce.compare_verdicts(committed, fresh)
    assert not diffs, "the committed report is stale:\n" + "\n".join(diffs)


def _results(*rows) -> dict:
    return {"quick": True, "rows": [
        {"id": rid, "verdict": v, "by_construction": bc,
         "stats": [{"label": "m − b", "verdict": sv, "judged": True},
                   {"label": "context", "verdict": P.HOLDS, "judged": False}]}
        for rid, v, bc, sv in rows]}


def test_compare_verdicts_catches_every_kind_of_change():
    base = _results(("a", P.HOLDS, "", P.HOLDS), ("b", P.FAILS, "", P.FAILS))
    assert reproduce.compare_verdicts(base, base) == []
    # a row's verdict
    d = reproduce.compare_verdicts(base, _results(("a", P.INCONCLUSIVE, "", P.HOLDS),
                                                  ("b", P.FAILS, "", P.FAILS)))
    assert len(d) == 1 and d[0].startswith("row a")
    # a judged comparison's verdict, the by-construction label, a missing row
    assert reproduce.compare_verdicts(base, _results(("a", P.HOLDS, "", P.FAILS),
                                                     ("b", P.FAILS, "", P.FAILS)))
    assert reproduce.compare_verdicts(base, _results(("a", P.HOLDS, "why", P.HOLDS),
                                                     ("b", P.FAILS, "", P.FAILS)))
    assert reproduce.compare_verdicts(base, _results(("a", P.HOLDS, "", P.HOLDS)))
    # context comparisons and numbers are not compared
    other = _results(("a", P.HOLDS, "", P.HOLDS), ("b", P.FAILS, "", P.FAILS))
    other["rows"][0]["stats"][1]["verdict"] = P.FAILS
    other["rows"][0]["ours"] = "different numbers"
    assert reproduce.compare_verdicts(base, other) == []


@pytest.mark.slow
def test_report_has_the_table_and_figures(quick_run):
    _, out = quick_run
    rows = json.loads((out / "results.json").read_text())["rows"]
    md = (out / "report.md").read_text()
    assert "quick scale" in md
    assert "| paper | item | paper's value | ours | verdict | judged on (mean [95 % CI]) |" in md
    names = tuple(f"| {name} |" for name in reproduce.PAPERS.values())
    table = [ln for ln in md.splitlines() if ln.startswith(names)]
    assert len(table) == len(rows)
    for r, line in zip(rows, table, strict=True):
        assert r["item"] in line
    if _browser():
        for r in rows:
            if r["id"].startswith("real_"):  # the real-data rows are tables, no figure
                assert r["figure"] is None, r["id"]
                continue
            assert r["figure"] == f"fig_{r['id']}.png", r["id"]
            assert (out / r["figure"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert f"]({r['figure']})" in md
    else:
        assert "PNG figures were not written" in md


def _fake_rows() -> list[reproduce.Row]:
    fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 0]))
    a = reproduce.Row("a", "000", "DANK Fig. 1", "claim | with a pipe", "0.9", ours="1.0",
                      fig=fig)
    a.judge([P.paired([0.9, 0.95, 0.92], [0.8, 0.8, 0.8], label="DANK − SVM")])
    b = reproduce.Row("b", "004", "LAB RBF Fig. 4", "c", "2", ours="3", note="why", fig=None)
    b.judge([P.paired([0.5, 0.6, 0.55], [0.8, 0.8, 0.8], label="m − b")])
    return [a, b]


def test_a_loss_is_called_a_loss(tmp_path, monkeypatch):
    import plotly.io as pio

    monkeypatch.setattr(pio, "write_images", lambda *a, **k: None)
    rows = _fake_rows()
    assert [r.verdict for r in rows] == [P.HOLDS, P.FAILS]
    assert [r.holds for r in rows] == [True, False]
    md = reproduce.write_report(rows, tmp_path, quick=True, seconds=1.0).read_text()
    assert "does not hold: a loss" in md
    assert "DANK − SVM: +" in md and "95 % CI" in md


def test_missing_browser_degrades_to_a_note(tmp_path, monkeypatch):
    import plotly.io as pio

    def no_browser(*args, **kwargs):
        raise RuntimeError("no Chrome found")

    monkeypatch.setattr(pio, "write_images", no_browser)
    path = reproduce.write_report(_fake_rows(), tmp_path, quick=False, seconds=1.0)
    md = path.read_text()
    assert "PNG figures were not written" in md and "no Chrome found" in md
    data = json.loads((tmp_path / "results.json").read_text())
    assert [r["figure"] for r in data["rows"]] == [None, None]
    assert not list(tmp_path.glob("*.png"))
    # the pipe inside a cell is escaped so the table keeps six columns
    line = next(ln for ln in md.splitlines() if ln.startswith("| DANK |"))
    assert line.count(" | ") == 5


def test_f_off_is_the_plain_kernel_model():
    """The 'F off' prediction with an SVC's own α y and b is the SVC's decision."""
    from sklearn.svm import SVC

    from nplk_core import datasets as ds
    from nplk_core.kernels import sigma_to_gamma

    X, y = ds.make_clowns(80, random_state=0)
    svc = SVC(C=1.0, gamma=sigma_to_gamma(2.0)).fit(X, y)
    coef = np.zeros(len(y))
    coef[svc.support_] = svc.dual_coef_[0]
    f = realdata.plain_kernel_decision(X, coef, svc.intercept_[0], 2.0, X[:20])
    np.testing.assert_allclose(f, svc.decision_function(X[:20]), atol=1e-10)


@pytest.mark.parametrize("name, classes, n", [("wine", {-1, 1}, 130),
                                              ("breast_cancer", {-1, 1}, 569)])
def test_real_classification_data(name, classes, n):
    X, y = realdata.load(name)
    assert set(np.unique(y)) == classes and len(y) == n
    Xtr, Xte, ytr, yte = realdata.split(name, 0, 150)
    assert len(ytr) + len(yte) == min(n, 150)
    # standardised with the training split's statistics
    np.testing.assert_allclose(Xtr.mean(axis=0), 0, atol=1e-12)
    assert not np.allclose(Xte.mean(axis=0), 0, atol=1e-3)


def test_load_results_absent(tmp_path):
    assert reproduce.load_results(tmp_path) is None
    assert reproduce.load_results(tmp_path / "nothing.json") is None


def test_helpers_against_hand_values():
    y = np.array([1.0, 2.0, 3.0])
    # sum (p - y)^2 = 0.25 + 0 + 0.25, sum (y - 2)^2 = 2
    assert reproduce._rse(y, np.array([1.5, 2.0, 2.5])) == pytest.approx(0.25)
    gap = np.array([1.0, 1e-2, 5e-4, 2e-3, 1e-6])
    assert rows_dank._first_below(gap, 1e-3) == 3
    assert rows_dank._first_below(gap, 1e-5) == 5
    assert rows_dank._first_below(gap, 1e-7) is None


def test_a_failing_row_is_reported_not_raised(monkeypatch):
    def broken(sc, cache):
        raise ValueError("solver exploded")

    broken.__name__ = "row_broken"
    monkeypatch.setattr(reproduce.runner, "ROWS", (broken,))  # the list run() reads
    calls = []
    rows = reproduce.run(quick=True, progress=lambda i, n, rid: calls.append((i, n, rid)))
    assert calls == [(0, 1, "broken")]
    assert rows[0].holds is None and "solver exploded" in rows[0].note


def test_no_streamlit_import():
    code = ("import sys, nplk_lab.model.reproduce; "
            "sys.exit(1 if 'streamlit' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("regression", [False, True])
def test_fast_cv_chooses_what_the_baseline_estimators_choose(regression):
    from nplk_core import SVMCVClassifier, SVRCVRegressor
    from nplk_core import datasets as ds
    from nplk_lab.model import cvgrid

    if regression:
        X, y = ds.make_step(50, random_state=1)
        ref = SVRCVRegressor(random_state=3).fit(X, y)
    else:
        X, y = ds.make_clowns(50, random_state=1)
        ref = SVMCVClassifier(random_state=3).fit(X, y)
    m = cvgrid.fit_cv(X, y, regression=regression, seed=3)
    assert (m.best_sigma_, m.best_C_) == (ref.best_sigma_, ref.best_C_)
    np.testing.assert_allclose(m.predict(X), ref.predict(X), atol=1e-8)
