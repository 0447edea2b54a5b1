"""What the atlas tests share: the committed tables (and a mark that skips without
them), summary rows built from given per-seed scores, and a stand-in for the fitting
that records which jobs a run asked for."""

from __future__ import annotations

import pytest

from nplk_lab.model.atlas import atlas as A


def _seed_rows(method_scores, plain_scores, off_scores, *, agree_m=None, agree_p=None):
    rows = []
    for s, (m, p, o) in enumerate(zip(method_scores, plain_scores, off_scores, strict=True)):
        rows.append({"method": "dank", "dataset": "clowns", "task": "classification",
                     "sigma": 1.0, "C": 1.0, "seed": s, "error": "", "warned": False,
                     "fit_s": 0.1, "score_method": m, "score_plain": p, "score_off": o,
                     "score_nn": 0.5, "score_plain10": p, "score_plain100": p,
                     "score_cv": 0.5, "agree_method": (agree_m or [0.5] * 99)[s],
                     "agree_off": 0.5, "agree_plain": (agree_p or [0.5] * 99)[s]})
    return rows


def _fake_measure(calls):
    def measure(name, seed, cells):
        calls.append((name, seed, tuple(cells)))
        return [{**{c: 0.5 for c in A.SEED_COLUMNS}, "method": m, "dataset": name,
                 "task": "classification", "sigma": s, "C": C, "seed": seed, "error": ""}
                for m, s, C in cells]
    return measure


COMMITTED = A.load_atlas()
ROOT_OUT = A.table_path("atlas.csv").parent
needs_atlas = pytest.mark.skipif(not COMMITTED, reason="no committed atlas")
