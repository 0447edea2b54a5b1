"""The lab's words at every cell and seed of the atlas, and the atlas at two sets of
draws (``nplk_lab/model/atlas/atlas_words.py``).

The score table's paragraph is written again at every cell and data seed of both
committed tables (seeds 0–9 and 10–19) from the numbers the page would show there, and
each of its clauses is held to its premise (``tests/_paragraph_premises.py``): a
paragraph that says "part of the gain survives" where there is no gain, or "the rest"
where nothing is left, fails here."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import _paragraph_premises as premises
import pytest

from nplk_lab.model import ablation as ab
from nplk_lab.model.atlas import atlas as A
from nplk_lab.model.atlas import atlas_data as AD
from nplk_lab.model.atlas import atlas_report as AR
from nplk_lab.model.atlas import atlas_words as AW

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / A.DEFAULT_OUT
SEEDS = {"0-9": OUT / "seeds.csv.gz", "10-19": OUT / "held-out" / "seeds.csv.gz"}


def _seed_rows(path: Path) -> list[dict]:
    rows = A.read_csv(path) if path.exists() else []
    return [r for r in rows if r["method"] in A.NN_RULE_METHODS and not r.get("error")
            and "pt_gain_lo" in r]


def _nums(r: dict) -> dict:
    return {"gain": (r["pt_gain_lo"], r["pt_gain_hi"]),
            "off": (r["pt_off_gain_lo"], r["pt_off_gain_hi"]),
            "edge": (r["pt_edge_lo"], r["pt_edge_hi"]),
            "vs_off": (r["pt_vs_off_lo"], r["pt_vs_off_hi"]),
            "follows": r["agree_method"], "at": ab.FOLLOWS_NN_AT}


ROWS = {k: _seed_rows(p) for k, p in SEEDS.items()}      # read once per session


@pytest.mark.parametrize("draws", list(SEEDS))
def test_every_clause_of_the_paragraph_has_its_premise_at_every_cell_and_seed(draws):
    rows = ROWS[draws]
    if not rows:
        pytest.skip(f"no committed per-seed table with the score table's intervals ({draws})")
    # every cell of DANK, KNPL and DANK-SVR at every seed
    assert len(rows) == 10 * sum(1 for m in A.NN_RULE_METHODS for n in AD.SETS
                                 if AD.SETS[n].task == A.METHODS[m]
                                 for _ in A.SIGMAS for _ in A.CS)
    bad = []
    for r in rows:
        text = AW.paragraph(r)
        broken = premises.broken(text, _nums(r))
        if broken:
            bad.append((AW.cell_key(r), int(r["seed"]), broken))
    assert not bad, bad[:5]


@pytest.mark.parametrize("draws", list(SEEDS))
def test_the_paragraphs_cases_each_occur(draws):
    """The atlas reaches every branch of the paragraph (so the test above reads each)."""
    rows = ROWS[draws]
    if not rows:
        pytest.skip("no committed per-seed table")
    seen = Counter()
    for r in rows:
        t = AW.paragraph(r)
        for key in ("part of the gain survives", "The rest comes", "So the gain survives",
                    "on their own, with the plain kernel", "gain comes from the nearest",
                    "cannot tell the explanations apart", "cannot say how much",
                    "does not beat the plain"):
            seen[key] += key in t
    assert all(seen.values()), seen


@pytest.mark.slow
def test_the_paragraph_from_a_seed_row_is_the_pages(monkeypatch):
    """A per-seed row of the atlas gives the paragraph the page shows at that state
    (DANK on the sandwich, σ = 4.5, C = 10, data seed 2, and KNPL on the clowns), all but
    the smooth rule's sentence: the atlas keeps the smooth rule's score, not its interval
    over the test points, and that sentence only reads its own interval's side."""
    from nplk_lab.model.methods import make_estimator

    for method, name, sigma, C, seed in (("dank", "sandwich", 4.5, 10.0, 2),
                                         ("knpl", "clowns", 10.0, 1.0, 3),
                                         ("dank_svr", "step", 10.0, 10.0, 1)):
        (row,) = A.measure_set(name, seed, [(method, sigma, C)])
        d = AD.load(name, seed)
        est, _ = make_estimator(method, {"sigma": sigma, "C": C, "seed": seed})
        base = "svm" if A.METHODS[method] == "classification" else "svr"
        plain, _ = make_estimator(base, {"sigma": sigma, "C": C, "seed": seed})
        est.fit(d.X_train, d.y_train)
        plain.fit(d.X_train, d.y_train)
        full = ab.ablation(method, est, d.X_train, d.y_train, d.X_test, d.y_test,
                           plain=plain).verdict
        with monkeypatch.context() as mp:
            mp.setattr(ab, "smooth_predict", lambda *_: None)
            page = ab.ablation(method, est, d.X_train, d.y_train, d.X_test, d.y_test,
                               plain=plain).verdict
        assert AW.paragraph(row) == page
        before, _, after = full.partition(" With the smooth rule, which copies no row")
        assert after and page == before + " " + after.split(")). ", 1)[1]


def _cell(method="dank", region="none", **kw):
    return {"method": method, "dataset": "clowns", "sigma": 1.0, "C": 1.0,
            "region": region, **kw}


def test_unsettled_cells_and_the_changes_table():
    atlas = [_cell(region="nn_rule"), _cell(sigma=2.0, region="none"),
             _cell("knpl", region="worse")]
    held = [_cell(region="nn_rule"), _cell(sigma=2.0, region="matrix_alone"),
            _cell("knpl", region="none"), _cell("onk")]         # a cell only one table has
    assert AW.unsettled(atlas, held) == {("dank", "clowns", 2.0, 1.0),
                                         ("knpl", "clowns", 1.0, 1.0)}
    assert AW.settled_rows(atlas, held) == [atlas[0]]
    ch = AW.changes(atlas, held)
    assert ch["dank"]["cells"] == 2 and ch["dank"]["same"] == 1
    assert ch["dank"][("none", "matrix_alone")] == 1
    md = AR.changes_markdown(atlas, held)
    assert "Of the 3 cells measured at both sets of draws, 2 change region" in md
    assert "10–19 (67 %)" in md
    one = AR.changes_markdown(atlas[:1], [{**atlas[0], "region": "worse"}])
    assert "Of the 1 cells measured at both sets of draws, 1 change region" in one
    assert "10–19 (100 %)" in one
    # a method with no cells is skipped, not the end of the table; no change is a dash
    skip = AR.changes_markdown([atlas[0], _cell("onk")], [atlas[0], _cell("onk")])
    assert "| ONK | 1 | 1 | 0 | — |" in skip and "| DANK | 1 | 1 | 0 | — |" in skip
    assert "| DANK | 2 | 1 | 1 | no difference → matrix alone: 1 |" in md
    assert "| KNPL | 1 | 0 | 1 | worse → no difference: 1 |" in md


ATLAS = A.load_atlas()
HELD = A.load_atlas(OUT / "held-out" / "atlas.csv")


@pytest.mark.skipif(not (ATLAS and HELD), reason="no committed atlas")
def test_the_readme_counts_the_cells_that_change_region():
    text = (OUT / "README.md").read_text()
    assert AR.changes_markdown(ATLAS, HELD) in text
    moved = len(AW.unsettled(ATLAS, HELD))
    assert f", {moved} change region between data seeds 0–9 and 10–19" in text


@pytest.mark.slow
def test_the_two_states_where_the_paragraph_overreached():
    """Circles, σ = 4.5, C = 10, data seed 5, DANK: F off (+31.7) beats DANK (+30.0), so
    there is no "rest" and no "part"; sandwich, σ = 0.5, C = 10, data seed 4, KNPL: level
    with the SVM (+3.3, interval −1.3 to +8.0), so no gain "survives"."""
    (r,) = A.measure_set("circles", 5, [("dank", 4.5, 10.0)])
    text = AW.paragraph(r)
    assert "So the gain survives with F switched off" in text
    assert "part of the gain" not in text and "The rest" not in text
    assert premises.broken(text, _nums(r)) == []
    (r,) = A.measure_set("sandwich", 4, [("knpl", 0.5, 10.0)])
    text = AW.paragraph(r)
    assert r["pt_gain_lo"] < 0 < r["pt_off_gain_lo"]
    assert "survives" not in text and "beat the plain SVM on their own" in text


@pytest.mark.slow
def test_the_sentences_doc_gives_the_tables_numbers():
    """docs/every-sentence-against-the-atlas.md lists the sentences that overreached with
    the numbers that back them now: each count there is the tables' (cells at both sets of
    draws per method, and the paragraph's cases per set of per-seed rows)."""
    from nplk_lab.model.claims_tables import pair_cells, value

    doc = " ".join((ROOT / "docs" / "every-sentence-against-the-atlas.md").read_text()
                   .split())
    atlas = A.load_atlas()
    held = A.load_atlas(OUT / "held-out" / "atlas.csv")
    pairs = pair_cells(atlas, held).values()

    def both(m, pred):
        return sum(pred(a) and pred(h) for a, h in pairs if a["method"] == m)

    def nn(r):
        return r["region"] == "nn_rule"

    def kept(r):
        return r["gain_verdict"] == "holds" and r["off_gain_verdict"] == "holds"

    def follows(r):
        return r["agree_gap_verdict"] == "holds" and value(r, "agree_method") >= 0.9

    def no_edge(r):
        return r["agree_gap_verdict"] != "holds"

    assert (f"at both in {both('dank', nn)} DANK and {both('knpl', nn)} KNPL cells; the "
            f"gain holds and part of it survives with the matrix off at both in "
            f"{both('dank', kept)} DANK and {both('knpl', kept)} KNPL cells") in doc
    assert (f"at both in {both('dank', follows)} DANK and {both('knpl', follows)} KNPL "
            f"cells; no edge at both in {both('dank', no_edge)} and "
            f"{both('knpl', no_edge)}") in doc
    assert (f"DANK-SVR follows at both in {both('dank_svr', follows)} cells, has no edge "
            f"at both in {both('dank_svr', no_edge)}") in doc
    cases = {k: Counter() for k in SEEDS}
    for k, rows in ROWS.items():
        for r in rows:
            t = AW.paragraph(r)
            for phrase in ("So the gain survives", "The rest comes",
                           "on their own, with the plain kernel", "part of the gain survives"):
                cases[k][phrase] += phrase in t
    a, h = cases["0-9"], cases["10-19"]
    assert (f"the whole-gain case at {a['So the gain survives']} (seeds 0–9) and "
            f"{h['So the gain survives']} (10–19) per-seed rows") in doc
    assert f"({a['The rest comes']} and {h['The rest comes']} rows)" in doc
    assert (f"the no-gain case at {a['on their own, with the plain kernel']} and "
            f"{h['on their own, with the plain kernel']} per-seed rows") in doc
    assert (f"({a['part of the gain survives']} and {h['part of the gain survives']} "
            "rows)") in doc


@pytest.mark.parametrize("state", [("dank", "sandwich", 4.5, 10.0, 2),
                                   ("knpl", "clowns", 10.0, 1.0, 3),
                                   ("dank_svr", "step", 10.0, 10.0, 1)])
def test_the_paragraph_states_its_rows_own_numbers(state):
    """The paragraph written from a committed per-seed row says that row's scores,
    agreements and intervals, in points for a classifier and in R² for a regressor
    (the fast twin of the page's comparison above, which fits the models)."""
    rows = [r for r in ROWS["0-9"]
            if (r["method"], r["dataset"], r["sigma"], r["C"], int(r["seed"])) == state]
    if not rows:
        pytest.skip("no committed per-seed table")
    (r,) = rows
    text = AW.paragraph(r)
    n = int(r["n_test"])
    if r["task"] == "classification":
        name = {"dank": "DANK", "knpl": "KNPL"}[r["method"]]
        wants = [f"on {100 * r['agree_method']:.0f} % of the {n} test points",
                 f"the plain SVM on {100 * r['agree_plain']:.0f} %",
                 f"1-NN scores {r['score_nn']:.3f}, {name} {r['score_method']:.3f}",
                 f"{name} is {r['pt_gain_mean']:.1f} points above the plain SVM "
                 f"({r['score_plain']:.3f}; 95 % interval over the test points "
                 f"{r['pt_gain_lo']:+.1f} to {r['pt_gain_hi']:+.1f})",
                 f"it scores {r['score_off']:.3f}",
                 f"({r['pt_off_gain_mean']:+.1f} points ({r['pt_off_gain_lo']:+.1f} to "
                 f"{r['pt_off_gain_hi']:+.1f}))",
                 f"({r['pt_edge_mean']:+.1f} points of agreement ({r['pt_edge_lo']:+.1f} to "
                 f"{r['pt_edge_hi']:+.1f}))",
                 f"{r['pt_vs_off_mean']:+.1f} points ({r['pt_vs_off_lo']:+.1f} to "
                 f"{r['pt_vs_off_hi']:+.1f})"]
    else:
        wants = [f"the spread of the {n} test targets",
                 f"Test R²: DANK-SVR {r['score_method']:.3f}, 1-NN {r['score_nn']:.3f}, "
                 f"F switched off {r['score_off']:.3f}, plain SVR {r['score_plain']:.3f}",
                 f"DANK-SVR's R² is {r['pt_gain_mean']:.3f} above the plain SVR's "
                 f"({r['score_plain']:.3f}; 95 % interval over the test points "
                 f"{r['pt_gain_lo']:+.3f} to {r['pt_gain_hi']:+.3f})",
                 f"(+{r['pt_edge_mean']:.3f} in closeness (+{r['pt_edge_lo']:.3f} to "
                 f"+{r['pt_edge_hi']:.3f}))",
                 f"loses +{r['pt_vs_off_mean']:.3f} (+{r['pt_vs_off_lo']:.3f} to "
                 f"+{r['pt_vs_off_hi']:.3f})"]
    for w in wants:
        assert w in text, (w, text)
    # a missing interval is no interval: the paragraph then cannot say how much of the
    # gain the rule carries, and says nothing about agreement against the baseline
    no_edge = AW.paragraph({**r, "pt_edge_hi": float("nan")})
    assert "points of agreement (" not in no_edge and "in closeness (" not in no_edge
    # and a table written before the intervals were kept (no such columns) reads the same
    older = {k: v for k, v in r.items() if not k.startswith("pt_edge_")}
    assert AW.paragraph(older) == no_edge != text
    # without the method-against-its-off-model interval the paragraph quotes none
    no_vs_off = AW.paragraph({**r, "pt_vs_off_lo": float("nan")})
    assert (" off: " in text) is (r["method"] == "knpl")   # KNPL's case quotes it here
    assert " off: " not in no_vs_off and "()" not in no_vs_off and "XX" not in no_vs_off


def test_where_the_gain_survives_the_rule_is_weighed_by_its_own_interval():
    """DANK on the sandwich (σ 4.5, C 10, data seed 6) keeps its gain with F switched
    off: the paragraph says the rule adds nothing the test points can tell, quoting the
    method-against-off interval; a row without that interval ends the sentence there."""
    rows = [r for r in ROWS["0-9"] if (r["method"], r["dataset"], r["sigma"], r["C"],
                                       int(r["seed"])) == ("dank", "sandwich", 4.5, 10.0, 6)]
    if not rows:
        pytest.skip("no committed per-seed table")
    (r,) = rows
    text = AW.paragraph(r)
    assert text.endswith(f"adds nothing the test points can tell (DANK − F off: "
                         f"{r['pt_vs_off_mean']:+.1f} points ({r['pt_vs_off_lo']:+.1f} to "
                         f"{r['pt_vs_off_hi']:+.1f})).")
    assert AW.paragraph({**r, "pt_vs_off_mean": float("nan")}).endswith(
        "adds nothing the test points can tell.")
