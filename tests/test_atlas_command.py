"""The atlas's command and files (``python -m nplk_lab.model.atlas``): every column of
a summary row against its mean, the tables byte for byte, the committed tables' headers
and where they are found, the run's cache, how a run says it went (on loky and on a
Dask cluster), and the command line itself — its help, its choices of cells, --quick,
--report and --claims. Tests asked for by mutation testing (docs/mutation-testing.md)."""

from __future__ import annotations

import numpy as np
import pytest
from _atlas_runs import COMMITTED, ROOT_OUT, _fake_measure, _seed_rows, needs_atlas

from nplk_lab.model import paired as P
from nplk_lab.model.atlas import atlas as A

# ---------------------------------------------------------------------------
# every column of a summary row, the files byte for byte, the command line
# ---------------------------------------------------------------------------

def _distinct_seed_rows():
    """Three seeds whose every score and agreement differs, so a column read from
    another's key cannot pass."""
    rows = []
    for s in range(3):
        r = {"method": "dank", "dataset": "clowns", "task": "classification", "sigma": 1.0,
             "C": 1.0, "seed": s, "error": "", "warned": s == 1, "fit_s": 0.1 * (s + 1)}
        for i, k in enumerate(A.SCORED):
            r["score_" + k] = 0.5 + 0.03 * i + 0.01 * s * (i % 3)
        for i, k in enumerate(A.AGREED):
            r["agree_" + k] = 0.6 + 0.1 * i + 0.02 * s
        r["score_smooth"], r["agree_smooth"] = 0.77 + 0.01 * s, 0.55 - 0.01 * s
        rows.append(r)
    return rows


def test_a_summary_row_has_every_column_with_its_mean():
    rows = _distinct_seed_rows()
    (row,) = A.summarize(rows)
    assert set(A.summary_columns()) <= set(row)
    assert (row["task"], row["n_seeds"], row["errors"], row["warned"]) == \
        ("classification", 3, 0, 1)
    assert row["fit_s"] == pytest.approx(0.2)
    for k in A.SCORED:
        assert row["score_" + k] == pytest.approx(np.mean([r["score_" + k] for r in rows]))
    for k in A.AGREED:
        assert row["agree_" + k] == pytest.approx(np.mean([r["agree_" + k] for r in rows]))
    assert row["score_smooth"] == pytest.approx(0.78) and row["agree_smooth"] == \
        pytest.approx(0.54)
    best = [max(r[f"score_{k}"] for k in ("method", "off", "nn", "plain")) for r in rows]
    assert row["cv_best_mean"] == pytest.approx(
        100 * np.mean([r["score_cv"] - b for r, b in zip(rows, best, strict=True)]))
    for name, (a, b) in A.COMPARISONS.items():
        if b == "best_other":
            continue
        ka = a if a.startswith("agree_") else "score_" + a
        kb = b if b.startswith("agree_") else "score_" + b
        assert row[f"{name}_mean"] == pytest.approx(
            100 * np.mean([r[ka] - r[kb] for r in rows])), name


def test_a_cell_measured_at_one_seed_has_no_interval():
    (row,) = A.summarize(_distinct_seed_rows()[:1])
    assert all(np.isnan(row[f"{c}_mean"]) and row[f"{c}_verdict"] == P.SHOWN
               for c in A.COMPARISONS)
    assert row["region"] == "none"


def test_rows_come_in_the_order_of_methods_data_sets_sigma_c_and_seed():
    rows = [{"method": m, "dataset": d, "sigma": s, "C": c, "seed": k}
            for m, d, s, c, k in (("onk", "clowns", 1.0, 1.0, 0),
                                  ("dank", "moons", 1.0, 1.0, 0),
                                  ("dank", "clowns", 2.0, 1.0, 1),
                                  ("dank", "clowns", 2.0, 1.0, 0),
                                  ("dank", "clowns", 1.0, 10.0, 0))]
    got = sorted(rows, key=A._row_key)
    assert [(r["method"], r["dataset"], r["sigma"], r["C"], r["seed"]) for r in got] == [
        ("dank", "clowns", 1.0, 10.0, 0), ("dank", "clowns", 2.0, 1.0, 0),
        ("dank", "clowns", 2.0, 1.0, 1), ("dank", "moons", 1.0, 1.0, 0),
        ("onk", "clowns", 1.0, 1.0, 0)]


@needs_atlas
def test_the_committed_tables_have_the_atlas_columns_in_order():
    import gzip

    header = (ROOT_OUT / "atlas.csv").read_text().splitlines()[0].split(",")
    assert tuple(header) == A.summary_columns()
    seeds = gzip.decompress((ROOT_OUT / "seeds.csv.gz").read_bytes()).decode()
    assert tuple(seeds.splitlines()[0].split(",")) == A.SEED_COLUMNS


def test_write_csv_byte_for_byte(tmp_path):
    import gzip

    rows = [{"method": "dank", "x": 0.123456789, "n": 3, "ok": True, "v": float("nan"),
             "w": "does not hold"}, {"method": "knpl", "x": -1e-9, "n": 10, "ok": False}]
    cols = ("method", "x", "n", "ok", "v", "w")
    A.write_csv(rows, cols, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == (
        "method,x,n,ok,v,w\ndank,0.123457,3,True,nan,does not hold\n"
        "knpl,-1e-09,10,False,,\n")
    A.write_csv(rows, cols, tmp_path / "t.csv.gz")
    first = (tmp_path / "t.csv.gz").read_bytes()
    A.write_csv(rows, cols, tmp_path / "t.csv.gz")
    assert (tmp_path / "t.csv.gz").read_bytes() == first        # no time stamp inside
    assert gzip.decompress(first).decode() == (tmp_path / "t.csv").read_text()
    back = A.read_csv(tmp_path / "t.csv.gz")
    assert back[0]["ok"] is True and back[1]["ok"] is False and back[0]["n"] == 3.0
    assert back[0]["w"] == "does not hold" and np.isnan(back[0]["v"])


@pytest.mark.parametrize("comparison", ["gain", "off_gain", "agree_gap", "cv_best"])
def test_compare_sees_a_change_of_each_judged_verdict(comparison):
    (cell,) = A.summarize(_seed_rows([0.9, 0.8, 0.95], [0.8, 0.8, 0.8], [0.85, 0.8, 0.9]))
    other = {**cell, f"{comparison}_verdict": "XX"}
    (line,) = A.compare([cell], [other])
    assert line.startswith("('dank', 'clowns', 1.0, 1.0): committed (")
    assert A.compare([cell], [{**cell, "method_vs_nn_verdict": "XX"}]) == []


def test_the_cells_a_run_can_choose():
    cells = A.full_cells(["onk"], ["clowns", "step"])
    assert list(cells) == ["clowns"] and len(cells["clowns"]) == len(A.SIGMAS) * len(A.CS)
    assert cells["clowns"][0] == ("onk", A.SIGMAS[0], A.CS[0])
    both = A.full_cells(["dank", "dank_svr"], ["clowns", "step"])
    assert {m for m, _, _ in both["clowns"]} == {"dank"}
    assert {m for m, _, _ in both["step"]} == {"dank_svr"}
    quick = A.quick_cells()
    assert sum(len(v) for v in quick.values()) == len(A.QUICK_CELLS)
    from nplk_lab.model.claims import CLAIM_CELLS
    claimed = A.claim_cells()
    flat = {(m, d, s, c) for d, cs in claimed.items() for m, s, c in cs}
    assert flat == set(A.QUICK_CELLS) | set(CLAIM_CELLS)
    assert sum(len(v) for v in claimed.values()) == len(flat)       # each cell once


def test_a_run_says_how_it_went(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    seen = []
    rows, info = A.run({"moons": [("dank", 2.0, 1.0), ("dank", 1.0, 1.0)],
                        "clowns": [("knpl", 1.0, 1.0)]}, (1, 0), n_jobs=1,
                       progress=lambda i, n: seen.append((i, n)))
    assert (info["jobs"], info["fits"], info["backend"], info["workers"],
            info["cached_jobs"]) == (4, 6, "loky", 1, 0)
    assert info["seconds"] >= 0 and seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert [(r["method"], r["dataset"], r["sigma"], r["seed"]) for r in rows][:3] == [
        ("dank", "moons", 1.0, 0), ("dank", "moons", 1.0, 1), ("dank", "moons", 2.0, 0)]
    assert A.run({}, (0,), n_jobs=1)[1]["jobs"] == 0


def test_the_command_writes_the_tables_the_run_and_the_readme(tmp_path, monkeypatch,
                                                               capsys):
    import json

    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    argv = ["--sets", "clowns", "--methods", "onk", "--seeds", "2", "--first-seed", "3",
            "--workers", "1", "--out", str(tmp_path)]
    assert A.main(argv) == 0
    assert {c[1] for c in calls} == {3, 4} and len(calls) == 2
    seeds = A.read_csv(tmp_path / "seeds.csv.gz")
    assert len(seeds) == 2 * len(A.SIGMAS) * len(A.CS)
    assert len(A.read_csv(tmp_path / "atlas.csv")) == len(A.SIGMAS) * len(A.CS)
    info = json.loads((tmp_path / "run.json").read_text())
    assert info["seeds"] == [3, 4] and info["command"] == " ".join(argv)
    readme = (tmp_path / "README.md").read_text()
    assert f"`python -m nplk_lab.model.atlas {' '.join(argv)}`" in readme
    assert "data seeds 3–4" in readme
    assert (tmp_path / ".cache" / "clowns-seed3.json").exists()
    out = capsys.readouterr().out
    assert f"{len(A.SIGMAS) * len(A.CS)} cells, 64 fits" in out
    # the README again from the files alone, and a second run from the cache
    (tmp_path / "README.md").unlink()
    assert A.main(["--report", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "README.md").read_text() == readme
    assert A.main(argv) == 0 and len(calls) == 2
    assert A.main([*argv, "--no-cache"]) == 0 and len(calls) == 4


def test_the_quick_command_compares_with_the_committed_verdicts(tmp_path, monkeypatch,
                                                                 capsys):
    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    assert A.main(["--quick", "--seeds", "2", "--workers", "1", "--out",
                   str(tmp_path)]) == 1                 # nothing committed in tmp_path
    out = capsys.readouterr().out
    assert "not in the committed atlas" in out and f"{len(A.QUICK_CELLS)} cells" in out
    fresh = A.summarize([r for c in calls for r in _fake_measure([])(*c)])
    A.write_csv(fresh, A.summary_columns(), tmp_path / "atlas.csv")
    assert A.main(["--quick", "--seeds", "2", "--workers", "1", "--out",
                   str(tmp_path)]) == 0
    assert "every verdict as committed" in capsys.readouterr().out


@needs_atlas
def test_the_claims_command_prints_every_claims_numbers(capsys):
    from nplk_lab.model import claims as C

    assert A.main(["--claims", "--out", str(ROOT_OUT)]) == 0
    lines = capsys.readouterr().out.splitlines()
    held = A.load_atlas(ROOT_OUT / "held-out" / "atlas.csv")
    for c in C.CLAIMS:
        assert f"{c.key}: {c.values(COMMITTED, held)}; holds" in lines
    assert any(line.startswith("npkl: {") for line in lines)


def test_the_committed_tables_are_found_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = A.table_path("atlas.csv")
    assert path.exists() and path == ROOT_OUT / "atlas.csv"
    assert [repr(r) for r in A.load_atlas()] == [repr(r) for r in A.read_csv(path)]
    assert A.load_atlas(tmp_path / "missing.csv") == []


def test_a_table_the_checkout_lacks_is_looked_for_in_the_working_folder(tmp_path,
                                                                        monkeypatch):
    """An installed lab has no checkout: its tables are ``reports/atlas/`` of the folder
    it runs in. The default table is the atlas itself."""
    monkeypatch.chdir(tmp_path)
    assert A.table_path() == ROOT_OUT / "atlas.csv"
    path = A.table_path("not-committed.csv")
    assert path == tmp_path / "reports" / "atlas" / "not-committed.csv"
    A.write_csv([{"method": "dank", "sigma": 1.0}], ("method", "sigma"), path)
    assert A.load_atlas(path) == [{"method": "dank", "sigma": 1.0}]


def test_empty_cells_read_back_as_what_they_were(tmp_path):
    """A verdict a cell has none of (the smooth rule's, for a method without it) reads
    back as empty text, like the committed atlas's, not as a number; an empty number
    reads back as NaN."""
    cols = ("method", "smooth_gain_verdict", "gain_verdict", "score_method", "region")
    A.write_csv([{"method": "dank", "smooth_gain_verdict": "", "gain_verdict": "holds",
                  "region": "none"}], cols, tmp_path / "t.csv.gz")
    (back,) = A.read_csv(tmp_path / "t.csv.gz")
    assert back["smooth_gain_verdict"] == "" and back["gain_verdict"] == "holds"
    assert isinstance(back["score_method"], float) and np.isnan(back["score_method"])
    for r in COMMITTED:
        assert all(isinstance(v, str) for k, v in r.items() if k.endswith("_verdict"))


def test_read_csv_keeps_names_verdicts_and_booleans_as_they_are(tmp_path):
    (tmp_path / "a.csv").write_text("method,dataset,gain_verdict,region,error,x,flag,y\n"
                                    "1,2,holds,none,,0.5,True,nan\n")
    (r,) = A.read_csv(tmp_path / "a.csv")
    assert (r["method"], r["dataset"], r["gain_verdict"], r["region"], r["error"]) == \
        ("1", "2", "holds", "none", "")
    assert r["x"] == 0.5 and r["flag"] is True and np.isnan(r["y"])


def test_files_and_caches_make_their_folders(tmp_path):
    A.write_csv([{"a": 1.0}], ("a",), tmp_path / "x" / "y" / "t.csv")
    assert (tmp_path / "x" / "y" / "t.csv").read_text() == "a\n1\n"
    A.write_cached(tmp_path / "c" / "d", "moons", 3, [{"a": 1}])
    assert A.cache_path(tmp_path / "c" / "d", "moons", 3).read_text() == '[{"a": 1}]'
    assert not list((tmp_path / "c" / "d").glob("*.tmp"))


def test_a_cached_row_is_complete_with_every_column_or_an_error():
    from nplk_lab.model.atlas.atlas_cache import complete

    cols = ("method", "score_method", "error")
    assert complete({"method": "dank", "score_method": 0.5}, cols)      # no error key
    assert complete({"method": "dank", "error": "ValueError: x"}, cols)
    assert not complete({"method": "dank", "error": ""}, cols)


def test_a_row_without_its_interval_is_no_loss():
    assert not A.is_loss({}, "gain") and not A.is_loss({"gain_hi": "x"}, "gain")
    assert A.region({"method": "dank", **{f"{c}_verdict": P.INCONCLUSIVE
                                          for c in A.COMPARISONS}}) == "none"


def test_the_command_says_what_each_option_does(capsys):
    with pytest.raises(SystemExit):
        A.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: python -m nplk_lab.model.atlas [-h]")
    for words in (A.__doc__.split("\n\n")[0].split()[0],
                  "re-measure the quick cells and compare with the committed atlas",
                  "processes (default: cores)", "a Dask scheduler's address",
                  "how many data seeds", "the first data seed (10 with --seeds 10: the "
                  "held-out draws)", "a folder for each job's rows: a run stopped "
                  "part-way resumes from it (default: <out>/.cache; --no-cache to measure "
                  "afresh)", "print the numbers of every sentence of "
                  "nplk_lab/model/claims.py from the committed tables (no fitting)",
                  "write README.md again from the committed tables and run.json (no "
                  "fitting)", "which cells: the whole grid, the quick cells, or the cells "
                  "the lab's sentences speak of", "{all,quick,claims}",
                  "{" + ",".join(A.METHODS) + "}"):
        assert words in text, words


def test_the_command_measures_the_quick_or_the_claimed_cells_and_shows_progress(
        tmp_path, monkeypatch, capsys):
    import json

    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    for which, cells in (("quick", A.quick_cells()), ("claims", A.claim_cells())):
        out = tmp_path / which
        assert A.main(["--cells", which, "--seeds", "1", "--workers", "1", "--out",
                       str(out)]) == 0
        got = {(r["method"], r["dataset"], r["sigma"], r["C"])
               for r in A.read_csv(out / "atlas.csv")}
        assert got == {(m, d, s, c) for d, cs in cells.items() for m, s, c in cs}
        text = (out / "run.json").read_text()
        assert text == json.dumps(json.loads(text), indent=1) + "\n"
    err = capsys.readouterr().err
    assert f"\r{len(A.quick_cells())}/{len(A.quick_cells())} jobs" in err
    assert A.main(["--quick", "--seeds", "1", "--workers", "1", "--out",
                   str(tmp_path / "quick")]) == 0
    assert ("| method | data set | σ | C | method | off | 1-NN | plain | tuned | method − "
            "plain | off − plain | agree 1-NN (method / plain) | region |") in \
        capsys.readouterr().out


@needs_atlas
def test_report_rewrites_the_committed_readme_from_a_copy_of_the_tables(tmp_path):
    import shutil

    for rel in ("atlas.csv", "run.json", "held-out/atlas.csv"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT_OUT / rel, tmp_path / rel)
    assert A.main(["--report", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "README.md").read_text() == (ROOT_OUT / "README.md").read_text()


@needs_atlas
def test_the_claims_command_reads_the_simplenpkl_table(capsys):
    import ast

    from nplk_lab.model import claims as C

    assert A.main(["--claims", "--out", str(ROOT_OUT)]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("npkl: ")]
    assert ast.literal_eval(line[len("npkl: "):]) == C.NUMBERS["npkl"]


def test_a_run_on_a_dask_cluster_says_so(monkeypatch):
    """The run hands its jobs to the cluster's backend (here threads standing in for
    it) and says so; without a worker count it uses every core."""
    import contextlib
    import os

    import joblib

    import nplk_core.parallel as par

    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    seen = []
    monkeypatch.setattr(par, "dask_client", lambda address: seen.append(address) or "c")

    @contextlib.contextmanager
    def backend(client):
        seen.append(client)
        with joblib.parallel_config(backend="threading"):
            yield client

    monkeypatch.setattr(par, "dask_backend", backend)
    rows, info = A.run({"clowns": [("dank", 1.0, 1.0)]}, (0, 1), dask="tcp://x:8786")
    assert seen == ["tcp://x:8786", "c"] and len(rows) == 2 and len(calls) == 2
    assert (info["backend"], info["workers"]) == ("dask", "dask")
    with joblib.parallel_config(backend="threading"):
        _, info = A.run({"clowns": [("dank", 1.0, 1.0)]}, (0,))
    assert info["workers"] == (os.cpu_count() or 1) and info["backend"] == "loky"


def test_two_seeds_are_enough_for_an_interval_and_no_fitted_seed_gives_no_numbers():
    rows = _distinct_seed_rows()[:2]
    (row,) = A.summarize(rows)
    assert np.isfinite(row["gain_lo"]) and row["gain_verdict"] in P.VERDICTS
    failed = [{**r, "error": "ValueError: x"} for r in rows]
    (row,) = A.summarize(failed)
    assert row["n_seeds"] == 0 and row["errors"] == 2 and np.isnan(row["fit_s"])
    assert np.isnan(row["score_method"]) and np.isnan(row["agree_off"])


def test_a_column_a_seed_row_lacks_is_not_a_number():
    rows = [{k: v for k, v in r.items() if k != "score_plain10"}
            for r in _distinct_seed_rows()]
    (row,) = A.summarize(rows)
    assert np.isnan(row["score_plain10"]) and np.isnan(row["off_vs_plain10_mean"])


def test_numbers_are_written_with_six_digits_and_no_infinity():
    from nplk_lab.model.atlas.atlas_files import _fmt

    assert [_fmt(x) for x in (float("inf"), float("-inf"), float("nan"), 1 / 3, 12.0)] \
        == ["nan", "nan", "nan", "0.333333", "12"]
    assert _fmt("x") == "x" and _fmt(True) == "True"


def test_the_gzip_table_carries_no_time(tmp_path):
    A.write_csv([{"a": 1.0}], ("a",), tmp_path / "t.csv.gz")
    head = (tmp_path / "t.csv.gz").read_bytes()[:10]
    assert head[:3] == b"\x1f\x8b\x08" and head[4:8] == b"\x00\x00\x00\x00"


def _word(text: str, words: str) -> bool:
    import re
    return re.search(r"(?<![A-Za-z])" + re.escape(words) + r"(?![A-Za-z])", text) is not None


def test_each_option_says_exactly_what_it_does(capsys):
    with pytest.raises(SystemExit):
        A.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("re-measure the quick cells and compare with the committed atlas",
                  "processes (default: cores)", "a Dask scheduler's address",
                  "how many data seeds", "the first data seed (10 with --seeds 10: the "
                  "held-out draws)"):
        assert _word(text, words), words
    assert _word(text, A.__doc__.split("\n\n")[0].split("\n")[0])
    # the help says what the command is in one paragraph, not the module's whole docstring
    assert "For every method (DANK, KNPL" in A.__doc__ and "For every method" not in text
    with pytest.raises(SystemExit):
        A.main(["--sets", "nowhere"])
    assert "invalid choice: 'nowhere'" in capsys.readouterr().err


def _copy_tables(dst, with_npkl=True):
    import shutil

    names = ["atlas.csv", "run.json", "held-out/atlas.csv"] + (
        ["simple_npkl.csv"] if with_npkl else [])
    for rel in names:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT_OUT / rel, dst / rel)


@needs_atlas
def test_the_default_folder_and_the_command_line_of_the_process(tmp_path, monkeypatch):
    import json
    import sys

    _copy_tables(tmp_path)
    monkeypatch.setattr(A, "DEFAULT_OUT", tmp_path)
    assert A.main(["--report"]) == 0
    assert (tmp_path / "README.md").read_text() == (ROOT_OUT / "README.md").read_text()
    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    out = tmp_path / "run"
    monkeypatch.setattr(sys, "argv", ["atlas", "--cells", "quick", "--seeds", "1",
                                      "--workers", "1", "--out", str(out)])
    assert A.main() == 0
    info = json.loads((out / "run.json").read_text())
    assert info["command"] == f"--cells quick --seeds 1 --workers 1 --out {out}"
    assert info["seeds"] == [0] and info["workers"] == 1


def test_the_command_prints_its_progress_its_tables_and_its_differences(
        tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    assert A.main(["--cells", "quick", "--seeds", "1", "--workers", "1", "--out",
                   str(tmp_path)]) == 0
    n = len(A.quick_cells())
    got = capsys.readouterr()
    assert got.err == "".join(f"\r{i}/{n} jobs" for i in range(1, n + 1)) + "\n"
    assert "| method | data set | cells | matrix alone |" in got.out
    readme = (tmp_path / "README.md").read_text()
    assert readme.splitlines()[2].endswith("says what every column means.")
    assert A.main(["--quick", "--seeds", "1", "--workers", "1", "--out",
                   str(tmp_path / "none")]) == 1
    got = capsys.readouterr()
    assert got.err == "".join(f"\r{i}/{n} jobs" for i in range(1, n + 1)) + "\n"
    lines = got.out.splitlines()
    assert sum(ln.endswith(": not in the committed atlas") for ln in lines) == \
        len(A.QUICK_CELLS)
    assert A.main(["--quick", "--seeds", "1", "--workers", "1", "--out",
                   str(tmp_path)]) == 0
    assert "every verdict as committed" in capsys.readouterr().out.splitlines()


def test_a_run_hands_its_worker_count_to_the_pool(monkeypatch):
    import contextlib

    import nplk_core.parallel as par

    calls, seen = [], []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    real = par.iter_fits

    def record(fn, tasks, *, n_jobs=None, shared=None):
        seen.append(n_jobs)
        return real(fn, tasks, n_jobs=1, shared=shared)

    monkeypatch.setattr(par, "iter_fits", record)
    _, info = A.run({"clowns": [("dank", 1.0, 1.0)]}, (0,), n_jobs=3)
    monkeypatch.setattr(par, "dask_client", lambda address: "c")
    monkeypatch.setattr(par, "dask_backend", lambda c: contextlib.nullcontext(c))
    A.run({"clowns": [("dank", 1.0, 1.0)]}, (0,), dask="tcp://x:1")
    assert seen == [3, -1] and 0 <= info["seconds"] < 60


@needs_atlas
def test_the_claims_command_reads_the_folder_it_is_given(tmp_path, capsys):
    import ast

    from nplk_lab.model import claims as C

    _copy_tables(tmp_path, with_npkl=False)
    rows = A.read_csv(tmp_path / "atlas.csv")
    rows = [{**r, "region": "none"} if r["region"] == "matrix_alone" else r for r in rows]
    A.write_csv(rows, A.summary_columns(), tmp_path / "atlas.csv")
    assert A.main(["--claims", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    atlas = next(c for c in C.CLAIMS if c.key == "atlas")
    held = A.load_atlas(tmp_path / "held-out" / "atlas.csv")
    want = atlas.values(A.load_atlas(tmp_path / "atlas.csv"), held)
    assert want["alone"] == 0
    (line,) = [x for x in lines if x.startswith("atlas: ")]
    assert line[len("atlas: "):line.rindex("; ")] == repr(want)
    (line,) = [x for x in lines if x.startswith("npkl: ")]
    assert ast.literal_eval(line[len("npkl: "):])["cells"] == 0      # no SimpleNPKL table


def test_one_seed_of_the_smooth_rule_has_no_interval_and_two_have_one():
    rows = _distinct_seed_rows_local()
    (one,) = A.summarize(rows[:1])
    assert all(one[f"{c}_verdict"] == P.SHOWN and np.isnan(one[f"{c}_mean"])
               for c in A.SMOOTH_COMPARISONS)
    (two,) = A.summarize(rows[:2])
    assert all(np.isfinite(two[f"{c}_lo"]) for c in A.SMOOTH_COMPARISONS)


def _distinct_seed_rows_local():
    rows = _seed_rows([0.9, 0.8, 0.95], [0.8, 0.8, 0.8], [0.85, 0.8, 0.9])
    for i, r in enumerate(rows):
        r.update(score_smooth=0.7 + 0.05 * i, agree_smooth=0.6)
    return rows


def test_the_command_runs_on_the_dask_cluster_it_is_given(tmp_path, monkeypatch):
    """``--dask ADDRESS`` sends the jobs to that cluster, with ``--quick`` and without."""
    import contextlib

    import nplk_core.parallel as par

    calls, addresses = [], []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    monkeypatch.setattr(par, "dask_client", lambda address: addresses.append(address))
    monkeypatch.setattr(par, "dask_backend", lambda c: contextlib.nullcontext(c))
    monkeypatch.setattr(par, "iter_fits", lambda fn, tasks, *, n_jobs=None, shared=None:
                        ((k, fn(*t)) for k, t in enumerate(tasks)))
    for args in (["--cells", "quick"], ["--quick"]):
        A.main(args + ["--seeds", "1", "--dask", "tcp://x:1", "--out", str(tmp_path)])
    assert addresses == ["tcp://x:1", "tcp://x:1"]


def test_the_progress_shows_as_each_job_ends(tmp_path, monkeypatch):
    """Each "i/n jobs" reaches the terminal when its job ends, not at the end of the run
    (standard error holds a line without its newline back)."""
    import io
    import sys

    class Terminal(io.StringIO):
        shown: list[str] = []

        def flush(self):
            self.shown.append(self.getvalue())

    calls = []
    monkeypatch.setattr(A, "measure_set", _fake_measure(calls))
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    A.main(["--cells", "quick", "--seeds", "1", "--workers", "1", "--out", str(tmp_path)])
    n = len(A.quick_cells())
    for i in range(1, n + 1):
        assert "".join(f"\r{j}/{n} jobs" for j in range(1, i + 1)) in term.shown


def test_a_regression_cells_scores_are_r2_and_closeness_to_1nn():
    """A regression cell's score is the test R² (scikit-learn's) and its agreement with
    1-NN the closeness 1 − Σ(p − nn)² / Σ(y − ȳ)², both on the targets' own spread."""
    from sklearn.metrics import r2_score

    rng = np.random.default_rng(3)
    y = rng.normal(size=30)
    p, nn = y + 0.3 * rng.normal(size=30), y + 0.5 * rng.normal(size=30)
    score, close = A._scores("regression", y, p, nn)
    assert score == pytest.approx(r2_score(y, p), rel=1e-12)
    assert close == pytest.approx(1 - np.sum((p - nn) ** 2) / np.sum((y - y.mean()) ** 2),
                                  rel=1e-12)
    assert A._scores("classification", np.array([1, -1, 1]), np.array([1, 1, 1]),
                     np.array([1, -1, -1])) == (pytest.approx(2 / 3), pytest.approx(1 / 3))


def test_a_fit_that_stops_at_its_iteration_limit_is_counted_as_warned():
    """The atlas's ``warned`` column: DANK stopped after one iteration warned that it did
    not converge; the plain SVM did not."""
    from nplk_lab.model.atlas.atlas_data import load

    d = load("clowns", 0)
    assert A._fit("dank", {"sigma": 1.0, "C": 1.0, "max_iter": 1}, d.X_train, d.y_train)[1] \
        is True
    assert A._fit("svm", {"sigma": 1.0, "C": 1.0}, d.X_train, d.y_train)[1] is False


def test_a_method_without_a_score_table_has_every_interval_column_empty():
    """ONK and LAB RBF have no score table: their rows still hold every interval column
    (NaN), so a run's cache counts them complete and does not measure them again."""
    from nplk_lab.model.atlas.atlas_cache import complete

    out = A.per_point_intervals("onk", np.zeros(3), {})
    assert set(out) == {c for c in A.SEED_COLUMNS if c.startswith("pt_")}
    assert all(np.isnan(v) for v in out.values())
    row = {c: 0.0 for c in A.SEED_COLUMNS if not c.startswith("pt_")}
    assert complete({**row, **out}, A.SEED_COLUMNS)
