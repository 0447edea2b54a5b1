"""The pairwise page draws the clusters it found on the plane and the constraints only on
demand, as a sample (issue: 114 lines and no clusters)."""

import sys
from pathlib import Path

import numpy as np
import pytest
from _components import figure_of
from streamlit.testing.v1 import AppTest

import nplk_lab.figures as fg
import nplk_lab.model as lab
from nplk_lab.figures.clusters import sample_pairs

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def test_cluster_regions_take_the_nearest_points_cluster():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-2, 0.3, (20, 2)), rng.normal(2, 0.3, (20, 2))])
    labels = np.repeat([3, 5], 20)
    xs, ys, Z = lab.cluster_regions(X, labels, resolution=50)
    assert Z.shape == (50, 50) and set(np.unique(Z)) == {3.0, 5.0}
    # each cell is the label of its nearest point (brute force on a few cells)
    for r, c in ((0, 0), (49, 49), (10, 40), (25, 25)):
        p = np.array([xs[c], ys[r]])
        assert Z[r, c] == labels[np.argmin(np.sum((X - p) ** 2, axis=1))]


def test_sample_pairs_is_a_seeded_subset():
    pairs = np.arange(228).reshape(-1, 2)
    s = sample_pairs(pairs, 25)
    assert len(s) == 25 and np.array_equal(s, sample_pairs(pairs, 25))
    assert {tuple(p) for p in s} <= {tuple(p) for p in pairs}
    assert not np.array_equal(s, pairs[:25])          # random, not the first ones
    assert len(sample_pairs(pairs, 0)) == 0 and len(sample_pairs(pairs[:3], 25)) == 3


def test_constraints_figure_regions_and_line_counts():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    labels = (X[:, 0] > 0).astype(int)
    must = rng.integers(0, 30, (114, 2))
    fig = fg.constraints_figure(X, labels, must, must[:40], max_lines=0,
                                regions=lab.cluster_regions(X, labels, 40))
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 1 and heat[0].showlegend and heat[0].opacity < 0.5
    lines = {t.name: t for t in fig.data if t.type == "scatter" and t.mode == "lines"}
    assert set(lines) == {"must-link (0 of 114 shown)", "cannot-link (0 of 40 shown)"}
    assert all(len(t.x) == 0 for t in lines.values())
    fig = fg.constraints_figure(X, labels, must, must[:40], max_lines=10)
    seg = next(t for t in fig.data if t.name.startswith("must-link"))
    assert np.sum(np.isnan(np.asarray(seg.x, float))) == 10   # 10 segments, NaN-separated


@pytest.mark.slow
def test_pairwise_page_hides_lines_until_asked():

    at = AppTest.from_file(str(ROOT / "pages/3_Pairwise_constraints.py"), default_timeout=180)
    at.query_params["n_samples"] = "80"
    at.run()
    assert not at.exception

    def fig():
        figs = [figure_of(e) for e in at.get("bidi_component")]
        return next(f for f in figs if f and f["layout"].get("title", {}).get("text", "")
                    .startswith("Clusters of the learned kernel"))
    f = fig()
    assert any(t["type"] == "heatmap" for t in f["data"])          # the clusters, drawn
    drawn = [t for t in f["data"] if t.get("mode") == "lines"]
    assert all("shown" in t["name"] or t["name"].endswith("(0)") for t in drawn)
    next(s for s in at.selectbox if s.key == "w_pair_lines").set_value(25)
    at.run()
    assert not at.exception
    names = [t["name"] for t in fig()["data"] if t.get("mode") == "lines"]
    assert any(n.startswith("must-link (25 of") or n.startswith("must-link (")
               for n in names), names
    assert at.query_params["pair_lines"] in ("25", ["25"])
