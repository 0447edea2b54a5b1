"""The atlas's SimpleNPKL part: its Rand indices against an independent computation, its
intervals and regions by hand, and the committed table (coverage and a re-measure)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _components import figure_of
from scipy import stats

from nplk_lab.model import paired as P
from nplk_lab.model.atlas import atlas_npkl as N


def _rows(a, b):
    return [{"dataset": "spiral", "fraction": 0.3, "C": 0.1, "seed": s, "rand": x,
             "rand_kmeans": y, "fit_s": 0.1, "error": ""}
            for s, (x, y) in enumerate(zip(a, b, strict=True))]


def test_summary_is_the_paired_t_interval_and_its_region():
    a, b = [0.95, 0.99, 0.90, 1.0], [0.50, 0.52, 0.49, 0.51]
    (row,) = N.summarize_npkl(_rows(a, b))
    d = 100 * (np.array(a) - np.array(b))
    half = stats.t.ppf(0.975, 3) * d.std(ddof=1) / math.sqrt(4)
    assert row["diff_lo"] == pytest.approx(d.mean() - half)
    assert row["region"] == "beats_kmeans"
    (row,) = N.summarize_npkl(_rows(b, a))
    assert row["region"] == "kmeans_better"
    (row,) = N.summarize_npkl(_rows([0.5, 0.6, 0.4, 0.5], [0.5, 0.5, 0.5, 0.5]))
    assert row["region"] == "none" and row["diff_verdict"] == P.INCONCLUSIVE


def test_a_cell_is_what_the_pairwise_page_computes():
    from sklearn.metrics import rand_score

    import nplk_lab.model as lab

    (row,) = N.measure_npkl_set("spiral", 2, [(0.3, 0.1)])
    Pm = {"dataset": "spiral", "seed": 2, "constraint_fraction": 0.3, "npkl_C": 0.1}
    data, _ = lab.prepare_data(Pm, "classification")
    res = lab.fit_pairwise(Pm, data.X, data.y)
    assert row["rand"] == pytest.approx(rand_score(data.y, res.estimator.labels_))
    assert row["rand_kmeans"] == pytest.approx(res.rand_kmeans)


COMMITTED = N.load_npkl()


@pytest.mark.skipif(not COMMITTED, reason="no committed SimpleNPKL table")
def test_the_committed_table_covers_its_grid():
    assert {r["dataset"] for r in COMMITTED} == set(N.NPKL_SETS)
    assert len(COMMITTED) == len(N.NPKL_SETS) * len(N.FRACTIONS) * len(N.NPKL_CS)
    assert all(r["n_seeds"] == 10 for r in COMMITTED)
    assert all(N.npkl_region(r) == r["region"] for r in COMMITTED)


@pytest.mark.slow
@pytest.mark.skipif(not COMMITTED, reason="no committed SimpleNPKL table")
def test_quick_cells_reproduce_the_committed_regions():
    cells = {}
    for name, f, C in N.QUICK:
        cells.setdefault(name, []).append((f, C))
    rows, _ = N.run_npkl(cells, n_jobs=2)
    fresh = {(r["dataset"], r["fraction"], r["C"]): r for r in N.summarize_npkl(rows)}
    for r in COMMITTED:
        key = (r["dataset"], r["fraction"], r["C"])
        if key in fresh:
            assert (fresh[key]["region"], fresh[key]["diff_verdict"]) == \
                (r["region"], r["diff_verdict"]), key


@pytest.mark.skipif(not COMMITTED, reason="no committed SimpleNPKL table")
def test_paper_results_draws_the_simplenpkl_map():
    from _app_pages import open_paper

    from nplk_lab.model.atlas import atlas_view as AV

    at = open_paper()
    at.selectbox(key="atlas_npkl_dataset").set_value("spiral").run()
    assert not at.exception, [e.value for e in at.exception]
    figs = [figure_of(e) for e in at.get("bidi_component")]
    (fig,) = [f for f in figs if f and f["layout"].get("title", {}).get("text") ==
              "SimpleNPKL on spiral"]
    grid = AV.npkl_grid(COMMITTED, "spiral")
    assert fig["data"][0]["text"] == grid.hover.tolist()
    shown = " ".join(t.value for t in at.text)
    better = int(np.sum(grid.regions == N.NPKL_REGIONS.index("beats_kmeans")))
    assert f"better than k-means' in {better}," in shown
