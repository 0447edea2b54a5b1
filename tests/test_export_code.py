"""'Export as code': the script the lab writes runs as it is, in a fresh interpreter, and
prints the scores the lab shows (the method's and the plain SVM's / SVR's)."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nplk_lab.model as lab
from nplk_lab.model.export_code import export_script

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    (lab.CLASSIFICATION, "dank", {}),
    (lab.CLASSIFICATION, "onk", {"dataset": "moons", "sigma": 1.0}),
    (lab.CLASSIFICATION, "svm", {"dataset": "circles"}),
    (lab.CLASSIFICATION, "lab_rbf", {}),
    (lab.CLASSIFICATION, "dank", {"points": ((0.1, 0.2, 1), (-0.3, 0.4, -1))}),
    (lab.REGRESSION, "dank_svr", {"reg_dataset": "harmonic", "sigma": 1.0}),
    (lab.REGRESSION, "lab_rbf_reg", {"reg_dataset": "chirp"}),
    (lab.REGRESSION, "krr", {}),
]


def _run(script: str, tmp_path: Path) -> str:
    f = tmp_path / "fit.py"
    f.write_text(script, encoding="utf-8")
    out = subprocess.run([sys.executable, str(f)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                              "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _numbers(line: str) -> list[float]:
    return [float(v) for v in re.findall(r"(?:relative error|accuracy|R\^2) (-?[\d.e+-]+)",
                                         line)]


@pytest.mark.slow
@pytest.mark.parametrize("task,method,kw", CASES,
                         ids=[f"{m}-{i}" for i, (_, m, _) in enumerate(CASES)])
def test_exported_script_prints_the_labs_scores(task, method, kw, tmp_path):
    P = {**lab.defaults(), "n_samples": 80, "show_baseline": True, **kw}
    data, msgs = lab.prepare_data(P, task)
    assert data is not None, msgs
    res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                         method=method)
    assert res.ok, res.messages
    script = export_script(P, data, method)
    assert len(script.splitlines()) < 60 or "points" in kw   # short unless data inline
    lines = _run(script, tmp_path).strip().splitlines()
    got = _numbers(lines[0])
    np.testing.assert_allclose(got[:2], [res.train_score, res.test_score], rtol=1e-5,
                               atol=1e-6)
    if lab.shows_baseline(method, P):
        bs = lab.baseline_scores(P, data.X_train, data.y_train, data.X_test, data.y_test,
                                 task=task)
        np.testing.assert_allclose(_numbers(lines[1])[:2], [bs.train, bs.test], rtol=1e-5,
                                   atol=1e-6)
    else:
        assert len(lines) == 1


def test_inline_data_round_trip_exactly():
    P = {**lab.defaults(), "n_samples": 40, "points": ((0.1, 0.2, 1), (-0.3, 0.4, -1))}
    data, _ = lab.prepare_data(P, lab.CLASSIFICATION)
    script = export_script(P, data, "svm")
    ns: dict = {}
    body = script.split("# the data")[1].split("\n\n")[0]
    exec("import numpy as np\n# the data" + body, ns)  # noqa: S102 - our own output
    np.testing.assert_array_equal(ns["X_train"], data.X_train)
    np.testing.assert_array_equal(ns["y_test"], data.y_test)


def test_no_export_for_clustering():
    P = lab.defaults()
    with pytest.raises(ValueError):
        export_script(P, None, "simple_npkl")
