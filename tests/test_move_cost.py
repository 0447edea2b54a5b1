"""What a slider move sends and re-encodes: the matrix view drawn
as block means within a budget of cells, every entry on request; the figures' JSON
gzipped once per cached figure; the live chart's two payload forms read back alike.
``benchmarks/bench_move_cost.py`` measures the bytes and CPU against a real server."""

import gc
import gzip
import json
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from _components import figure_of, payload_of

import nplk_lab.figures as fg
import nplk_lab.figures.common as fgc
import nplk_lab.serve.figure_cache as figure_cache
from nplk_lab.figures.matrices import class_order

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture(autouse=True)
def _validate(monkeypatch):
    monkeypatch.setattr(fgc, "VALIDATE", True)


def slow_block_means(M: np.ndarray, side: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """``M`` averaged over ``side`` × ``side`` contiguous blocks cut at the whole parts
    of k·n/side (sizes n // side or one more), entry by entry; and the (first, last)
    row of every block."""
    n = M.shape[0]
    cuts = [k * n // side for k in range(side + 1)]
    assert set(np.diff(cuts)) <= {n // side, n // side + 1}
    blocks = [(cuts[b], cuts[b + 1] - 1) for b in range(side)]
    out = np.zeros((side, side))
    for a, (r0, r1) in enumerate(blocks):
        for b, (c0, c1) in enumerate(blocks):
            total, count = 0.0, 0
            for i in range(r0, r1 + 1):
                for j in range(c0, c1 + 1):
                    total += M[i, j]
                    count += 1
            out[a, b] = total / count
    return out, blocks


@pytest.mark.parametrize("n", [140, 97, 300])
def test_the_matrix_view_draws_block_means_of_the_class_ordered_matrices(n):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 2))
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    A = rng.normal(size=(n, n))
    F = 1 - 0.05 * np.abs(A + A.T)      # F∘K ≤ K ≤ 1: the shared scale stays 0 to 1
    fig = fg.matrix_triptych(K, F, y, difference=True, cells=fg.VIEW_CELLS)
    side = fg.view_side(4)
    assert side == 48 and sum(len(t.z) ** 2 for t in fig.data) <= fg.VIEW_CELLS
    order = class_order(y, n)
    expect = {"K": K, "F": F, "F × K": F * K, "F × K − K": F * K - K}
    assert [t.name for t in fig.data] == list(expect)
    for t in fig.data:
        M = expect[t.name][np.ix_(order, order)]
        ref, blocks = slow_block_means(M, side)
        np.testing.assert_allclose(np.asarray(t.z, float), ref, rtol=2e-6, atol=1e-6)
        # the hover names each block's rows (in class order) and says it is a mean
        assert list(t.y) == [f"{a}–{b}" for a, b in blocks]
        assert "mean of" in t.hovertemplate
    assert f"block-averaged to {side}×{side}" in fig.layout.title.text
    # the kernel keeps its fixed 0-1 scale (shared with F∘K): block means of a
    # Gaussian kernel stay inside it
    k = fig.data[0]
    assert (k.zmin, k.zmax) == (0.0, 1.0)
    # the class line is drawn before the first block starting at or after the first
    # point of class +1 (the block it cuts, if any, lies left of it)
    cut = int((y < 0).sum())
    xs = {s.x0 for s in fig.layout.shapes if s.xref == "x" and s.x0 == s.x1}
    assert len(xs) == 1
    b = int(xs.pop() + 0.5)
    assert blocks[b - 1][0] < cut <= blocks[b][0]


def test_small_matrices_and_every_entry_draw_each_pair():
    rng = np.random.default_rng(3)
    y = np.sign(rng.normal(size=300))
    for n, cells, rows in ((48, fg.VIEW_CELLS, 48), (49, fg.VIEW_CELLS, 48),
                           (140, None, 140), (300, None, 128)):
        A = rng.random((n, n))
        K = (A + A.T) / 2
        fig = fg.matrix_triptych(K, K + 1, y[:n], difference=True, cells=cells)
        assert {len(t.z) for t in fig.data} == {rows}
        if rows == n:
            order = class_order(y[:n], n)
            np.testing.assert_allclose(fig.data[0].z, K[np.ix_(order, order)], rtol=1e-6)
            assert list(fig.data[0].y) == [str(i) for i in order]
    # one panel (K of a plain kernel) gets the whole budget: 96 rows
    A = rng.random((140, 140))
    one = fg.matrix_heatmap((A + A.T) / 2, y[:140], name="K", center=None, zrange=(0, 1),
                            cells=fg.VIEW_CELLS)
    assert len(one.data[0].z) == fg.view_side(1) == 96
    assert "block-averaged to 96×96" in one.layout.title.text


def _figure() -> go.Figure:
    rng = np.random.default_rng(0)
    return fg.matrix_triptych(np.eye(60), 1 + rng.random((60, 60)), np.sign(rng.normal(size=60)),
                              difference=True)


def test_the_json_cache_gives_a_fresh_encodings_json_and_encodes_each_figure_once(
        monkeypatch):
    fig = _figure()
    fresh = json.loads(fig.to_json())
    gz = figure_cache.figure_gz(fig)
    assert json.loads(gzip.decompress(gz)) == json.loads(fg.figure_json(fig))
    # the same figure as plotly.py's own to_json: same traces and layout once decoded
    ours = go.Figure(json.loads(gzip.decompress(gz)))
    assert ours.to_plotly_json() == go.Figure(fresh).to_plotly_json()
    # a second call (another run, another session) encodes nothing
    calls = []
    real = fg.figure_json
    monkeypatch.setattr(fg, "figure_json", lambda f: calls.append(f) or real(f))
    assert figure_cache.figure_gz(fig) is gz and not calls
    # another figure is encoded, once
    other = _figure()
    assert figure_cache.figure_gz(other) is figure_cache.figure_gz(other)
    assert calls == [other]


def _kept(fig) -> bool:
    with figure_cache._LOCK:
        return id(fig) in figure_cache._GZ


def test_the_json_cache_lets_go_with_the_figure_and_keeps_its_byte_bound(monkeypatch):
    # (other tests' servers and stores may drop figures meanwhile: only this test's
    # own figures are looked at)
    fig = _figure()
    gz = figure_cache.figure_gz(fig)
    assert _kept(fig)
    k = id(fig)
    del fig
    gc.collect()
    with figure_cache._LOCK:
        assert k not in figure_cache._GZ
    # room for two and a half of these figures (older entries go first)
    monkeypatch.setattr(figure_cache, "MAX_BYTES", int(2.5 * len(gz)))
    figs = [_figure() for _ in range(4)]
    for f in figs:
        figure_cache.figure_gz(f)
    assert figure_cache.size()[1] <= figure_cache.MAX_BYTES
    assert not _kept(figs[0]) and _kept(figs[-1])     # the oldest went first


def test_the_classification_page_draws_block_means_then_every_entry_on_request():
    from _app_pages import assert_clean, open_page, widget


    def matrix(at):
        for e in at.get("bidi_component"):
            f = figure_of(e)
            if f and any(t.get("name") == "F × K" for t in f["data"]):
                return f, payload_of(e)
        raise AssertionError("no matrix view")

    at = open_page("pages/1_Classification.py", n_samples=120, max_iter=200)
    f, payload = matrix(at)
    heat = [t for t in f["data"] if t.get("type") == "heatmap"]
    assert len(heat) == 4 and {len(t["y"]) for t in heat} == {48}   # 84 training points
    assert "block-averaged to 48×48" in f["layout"]["title"]["text"]
    assert any("mean over a block" in c.value for c in at.caption)
    # sent gzipped after a line of JSON, read back whole
    el = next(e for e in at.get("bidi_component") if payload_of(e) == payload)
    assert el.proto.WhichOneof("data") == "bytes"
    assert json.loads(payload["figure"]) == f and payload["height"] == f["layout"]["height"]
    widget(at, "matrix_full").set_value(True).run()
    assert_clean(at)
    f, _ = matrix(at)
    heat = [t for t in f["data"] if t.get("type") == "heatmap"]
    assert {len(t["y"]) for t in heat} == {84}
    assert "block-averaged" not in f["layout"]["title"]["text"]
    assert not any("mean over a block" in c.value for c in at.caption)


def test_a_figures_text_alternative_is_made_once_and_let_go_with_the_figure(monkeypatch):
    fig = _figure()
    text = figure_cache.figure_alt(fig)
    assert text == fg.alt_text(fig) and text.startswith("Chart")
    calls = []
    real = fg.alt_text
    monkeypatch.setattr(fg, "alt_text", lambda f: calls.append(f) or real(f))
    assert figure_cache.figure_alt(fig) is text and not calls   # another run, no work
    other = _figure()
    assert figure_cache.figure_alt(other) == text and calls == [other]
    assert figure_cache.figure_alt(other) == text and calls == [other]
    k = id(fig)
    del fig
    gc.collect()
    with figure_cache._LOCK:
        assert k not in figure_cache._ALT
    monkeypatch.setattr(figure_cache, "MAX_ALTS", 2)
    figs = [_figure() for _ in range(3)]
    for f in figs:
        figure_cache.figure_alt(f)
    with figure_cache._LOCK:
        assert id(figs[0]) not in figure_cache._ALT and id(figs[-1]) in figure_cache._ALT
