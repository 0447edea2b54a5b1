"""Presets: every preset is a valid, URL-round-tripping page state, and at every preset
the paper's effect is there, measured through the lab's own functions
(``prepare_data``, ``fit_method``, ``run_sweep``) at the seeds listed in each test --
exactly what the page computes on first load.

The claim tests fit DANK at n = 200 (a few seconds each); the file takes a few minutes
on 2 cores.
"""

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import nplk_app as lab
from nplk_app import presets as pr

ROOT = Path(__file__).resolve().parents[1]

# The names shared with nplk_app.reproduce (HELPERS.md, issue 10 §2-3).
NAMES = ("dank_clowns", "dank_matrix", "dank_solvers", "tau_sweep", "dank_svr_step",
         "dank_svr_harmonic", "knpl_sandwich", "onk_rho", "npkl_spiral", "lab_rbf_chirp",
         "lab_rbf_support")


# ---------------------------------------------------------------------------
# presets are valid page states
# ---------------------------------------------------------------------------

def test_the_shared_names_and_nothing_else():
    assert tuple(pr.PRESETS) == NAMES
    for name, p in pr.PRESETS.items():
        assert p.name == name and p.page in lab.PAGES and p.title and p.claim


@pytest.mark.parametrize("name", NAMES)
def test_params_are_valid_settings(name):
    p = pr.PRESETS[name]
    for key, value in p.params.items():
        assert lab.coerce(key, value) == value, key
        assert lab.setting(key).applies(page=p.page), f"{key} is not shown on {p.page}"
    full = pr.preset_params(name)
    assert set(full) == set(lab.defaults())
    method = {"classification": "method", "regression": "reg_method",
              "sensitivity": "sweep_method"}.get(p.page)
    if method is not None:
        assert lab.available(full[method])[0]


@pytest.mark.parametrize("name", NAMES)
def test_query_and_url_round_trip(name):
    p = pr.PRESETS[name]
    q = pr.preset_query(name)
    full = pr.preset_params(name)
    # the query holds every setting of the page, so it overrides a stale session state
    assert set(q) == set(lab.relevant_names(p.page, full))
    stale = {**lab.defaults(), "seed": 77, "n_samples": 40, "sigma": 0.3, "C": 0.5,
             "points": ((0.0, 0.0, 1),), "dataset": "moons", "reg_dataset": "chirp",
             "method": "svm", "reg_method": "krr", "sweep_method": "svm"}
    back, msgs = lab.decode_query(q, stale)
    assert msgs == []
    for key in q:
        assert back[key] == full[key], key
    url = urlparse(pr.preset_url(name))
    assert url.path == "/" + pr.PAGE_PATHS[p.page]
    from_url = {k: v for k, v in parse_qs(url.query, keep_blank_values=True).items()}
    back2, msgs2 = lab.decode_query(from_url)
    assert msgs2 == [] and {k: back2[k] for k in q} == {k: full[k] for k in q}


def test_page_files_exist_and_match_their_url_paths():
    for page in lab.PAGES:
        f = ROOT / pr.PAGE_FILES[page]
        assert f.is_file(), f
        assert re.sub(r"^\d+_", "", f.stem) == pr.PAGE_PATHS[page]


def test_unknown_preset_says_which_exist():
    with pytest.raises(ValueError, match="dank_clowns"):
        pr.preset_query("nope")


# ---------------------------------------------------------------------------
# the results table helpers (file-supplied text stays plain text)
# ---------------------------------------------------------------------------

def test_results_table_is_plain_text_and_grouped_by_known_presets():
    results = {"rows": [
        {"id": "a", "paper": "DANK", "item": "Fig. 1", "claim": "<b>x</b>",
         "paper_value": 0.9, "ours": "0.93", "holds": True, "note": None,
         "preset": "dank_clowns", "figure": None},
        {"id": "b", "paper": "ONK", "item": "Fig. 3", "holds": None, "preset": "no_such"},
        "not a row",
        {"id": "c", "holds": False, "ours": "x" * 5000, "preset": None}]}
    table = pr.results_table(results)
    assert len(table) == 3
    assert table[0]["claim"] == "<b>x</b>" and table[0]["holds"] == "yes"
    assert table[0]["paper's value"] == "0.9" and table[0]["note"] == "—"
    assert table[1]["holds"] == "—" and table[2]["holds"] == "no"
    assert len(table[2]["ours"]) <= 400
    assert all(isinstance(v, str) for row in table for v in row.values())
    groups = pr.results_by_preset(results)
    assert set(groups) == set(NAMES)
    assert [r["result"] for r in groups["dank_clowns"]] == ["Fig. 1"]
    assert sum(len(v) for v in groups.values()) == 1
    assert pr.results_by_preset(None) == {n: [] for n in NAMES}


def test_load_paper_results_without_a_file(tmp_path):
    results, why = pr.load_paper_results(tmp_path / "missing.json")
    assert results is None
    try:
        import nplk_app.reproduce  # noqa: F401
    except ImportError:
        assert "not installed" in why
    else:
        assert pr.REPRODUCE_COMMAND in why or "Could not read" in why


# ---------------------------------------------------------------------------
# the claims, measured as the pages measure them
# ---------------------------------------------------------------------------

def fit_at(name, method, seed, **over):
    """``fit_method`` on the preset's data at ``seed`` (as the page does)."""
    p = pr.PRESETS[name]
    task = lab.METHODS[method].task
    P = {**pr.preset_params(name), **over, "seed": seed}
    data, msgs = lab.prepare_data(P, task)
    assert data is not None, msgs
    return lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                          method=method, data_key=data.key), data, p


def sweep_at(name, **over):
    P = {**pr.preset_params(name), **over}
    method, param = P["sweep_method"], P["sweep_param"]
    lo, hi = P["sweep_range"] or (None, None)
    values = lab.sweep_values(param, lo, hi, int(P["sweep_points"]))
    return lab.run_sweep(P, method, param, values, repeats=int(P["sweep_repeats"])), P


SEEDS = (0, 1, 2)


def test_dank_clowns_dank_beats_the_svm_and_the_boundaries_differ():
    """DANK Fig. 1: at seeds 0-2, DANK's test accuracy is at least the SVM's at every
    seed and one point above it on average; at seed 0 (the page's first load) the two
    decision functions disagree in sign on at least 5 % of the drawn grid."""
    dank, svm = [], []
    for seed in SEEDS:
        d, data, _ = fit_at("dank_clowns", "dank", seed)
        s, _, _ = fit_at("dank_clowns", "svm", seed)
        assert d.ok and s.ok
        dank.append(d.test_score)
        svm.append(s.test_score)
        if seed == 0:
            grid = lab.make_grid(data.X)
            Z, _ = lab.grid_values(d.estimator, grid, extension="nearest")
            B, _ = lab.grid_values(s.estimator, grid)
            assert np.mean(np.sign(Z) != np.sign(B)) >= 0.05
    dank, svm = np.array(dank), np.array(svm)
    assert np.all(dank >= svm), (dank, svm)
    assert dank.mean() >= svm.mean() + 0.01, (dank, svm)


def test_dank_matrix_F_is_near_all_ones_with_low_rank():
    """DANK Fig. 2: F moves away from 11ᵀ, but only a little, and has low rank."""
    res, data, _ = fit_at("dank_matrix", "dank", 0)
    F = res.matrix
    assert F.shape == (len(data.y_train),) * 2
    dev = np.abs(F - 1.0).max()
    assert 1e-4 < dev < 0.05, dev
    assert res.rank is not None and res.rank <= 5 < len(data.y_train) // 10


def _iterations_to(obj: np.ndarray, ref: float, tol: float) -> int:
    """First iteration whose relative gap to ``ref`` is below ``tol`` (len if never)."""
    gap = (ref - obj) / abs(ref)
    hit = np.flatnonzero(gap < tol)
    return int(hit[0]) if hit.size else obj.size


def test_dank_solvers_nesterov_needs_fewer_iterations_than_pg():
    """DANK Fig. 4: on the same problem (seed 0), Nesterov reaches a 1e-3 relative gap
    to the best objective either solver found in under half PG's iterations."""
    runs = {s: fit_at("dank_solvers", "dank", 0, solver=s)[0] for s in ("nesterov", "pg")}
    h = {s: r.history["objective"] for s, r in runs.items()}
    ref = max(v.max() for v in h.values())
    it = {s: _iterations_to(v, ref, 1e-3) for s, v in h.items()}
    assert it["nesterov"] < it["pg"] / 2, it


def test_tau_sweep_rank_falls_and_accuracy_peaks_above_the_svm():
    """DANK Table 5, as the Sensitivity page sweeps it (7 τ values, seeds 0-2): mean
    rank(F) never rises with τ and ends lower; mean accuracy peaks at least one point
    above the plain SVM's (the page's dotted line) and falls at least one point by the
    largest τ."""
    sw, P = sweep_at("tau_sweep")
    rank = np.nanmean(sw.ranks, axis=1)
    acc = np.nanmean(sw.scores, axis=1)
    assert np.all(np.diff(rank) <= 1e-9) and rank[-1] < rank[0], rank
    base = lab.run_sweep(P, "svm", "C", np.array([P["C"]]), repeats=int(P["sweep_repeats"]))
    svm = float(np.nanmean(base.scores))
    assert acc.max() >= svm + 0.01, (acc, svm)
    assert acc[-1] <= acc.max() - 0.01, acc


def test_dank_svr_step_beats_svr():
    """DANK §6.3: on the step function (seeds 0-2) DANK-SVR's test relative error is at
    most half the plain SVR's with the same σ, C and ε (the page's baseline curve)."""
    for seed in SEEDS:
        d, _, _ = fit_at("dank_svr_step", "dank_svr", seed)
        s, _, _ = fit_at("dank_svr_step", "svr", seed)
        assert d.ok and s.ok
        assert d.test_score <= 0.5 * s.test_score, (seed, d.test_score, s.test_score)


def test_npkl_spiral_beats_kmeans():
    """SimpleNPKL Tables 4-5: on the spirals (seeds 0-2) the learned kernel's clusters
    reach a Rand index of 0.95 or more, at least 0.3 above plain k-means'."""
    for seed in SEEDS:
        P = {**pr.preset_params("npkl_spiral"), "seed": seed}
        data, msgs = lab.prepare_data(P, lab.CLASSIFICATION)
        assert data is not None, msgs
        res = lab.fit_pairwise(P, data.X, data.y)
        assert res.ok, res.messages
        assert res.rand >= 0.95 and res.rand >= res.rand_kmeans + 0.3, \
            (seed, res.rand, res.rand_kmeans)


def test_dank_svr_harmonic_beats_svr():
    """DANK §6.3 (2-D harmonic surface, seeds 0-2): DANK-SVR's relative error is at
    most 0.6 of the plain SVR's (measured on seed 0: 0.31 against 0.98)."""
    for seed in SEEDS:
        d, _, _ = fit_at("dank_svr_harmonic", "dank_svr", seed)
        s, _, _ = fit_at("dank_svr_harmonic", "svr", seed)
        assert d.ok and s.ok
        assert d.test_score <= 0.6 * s.test_score, (seed, d.test_score, s.test_score)


def test_knpl_sandwich_beats_the_svm():
    """KNPL Fig. 2-3 (sandwich, seeds 0-2): KNPL's test accuracy is at least the plain
    SVM's (same σ, C) at every seed and five points above it on average."""
    knpl, svm = [], []
    for seed in SEEDS:
        k, _, _ = fit_at("knpl_sandwich", "knpl", seed)
        s, _, _ = fit_at("knpl_sandwich", "svm", seed)
        assert k.ok and s.ok, k.messages
        knpl.append(k.test_score)
        svm.append(s.test_score)
    knpl, svm = np.array(knpl), np.array(svm)
    assert np.all(knpl >= svm) and knpl.mean() >= svm.mean() + 0.05, (knpl, svm)


def test_knpl_sandwich_converges_and_G_stays_near_all_ones():
    """At the preset (seed 0) KNPL converges without a warning and G stays positive
    and within 1 of the all-ones matrix (the paper's G lies in 0.95-1.05)."""
    res, _, _ = fit_at("knpl_sandwich", "knpl", 0)
    assert res.ok
    assert not [m for m in res.messages if "converge" in m.text], res.messages
    assert np.abs(res.matrix - 1.0).max() < 1.0


def test_lab_rbf_support_error_falls_with_more_support_points():
    """LAB RBF Fig. 4, as the Sensitivity page sweeps it (N = 2 … 60, seeds 0-2): the
    mean test error at the largest N is under a tenth of that at the smallest, and the
    second half of the sweep is never worse than the first value."""
    sw, _ = sweep_at("lab_rbf_support")
    err = np.nanmean(sw.scores, axis=1)
    assert np.all(np.isfinite(err)), err
    assert err[-1] <= 0.1 * err[0], err
    assert np.all(err[len(err) // 2:] < err[0]), err


def test_lab_rbf_chirp_beats_one_bandwidth_on_the_same_support_points():
    """LAB RBF Fig. 1 (chirp, seeds 0-2): with 30 support points LAB RBF's test error is
    no larger than kernel ridge with one bandwidth on the same 30 points, for the best σ
    of the lab's σ grid (the same λ)."""
    from sklearn.kernel_ridge import KernelRidge

    from nplk_core.kernels import sigma_to_gamma
    for seed in SEEDS:
        res, data, _ = fit_at("lab_rbf_chirp", "lab_rbf_reg", seed)
        assert res.ok, res.messages
        sv = res.estimator.support_
        Xs, ys = data.X_train[sv], data.y_train[sv]
        lam = pr.preset_params("lab_rbf_chirp")["lam"]
        best = min(lab.relative_error(
            data.y_test, KernelRidge(alpha=lam, kernel="rbf", gamma=sigma_to_gamma(s))
            .fit(Xs, ys).predict(data.X_test)) for s in lab.setting("sigma").grid())
        assert res.test_score <= best, (seed, res.test_score, best)


@pytest.mark.xfail(strict=False, reason="measured with the robust default (issue 10 §5): "
                   "Spearman(x, θ) = 0.11, −0.10, 0.32 on seeds 0-2 while the test error "
                   "is 1e-4; LAB RBF adapts to the rising frequency by where it puts its "
                   "support points (denser at high frequency) more than by their θ")
def test_lab_rbf_chirp_bandwidths_narrow_where_the_frequency_rises():
    """On the chirp (frequency rising with x, seeds 0-2), the learned θ_i (inverse
    widths) rise with the support point's x: Spearman correlation ≥ 0.3."""
    from scipy.stats import spearmanr
    for seed in SEEDS:
        res, _, _ = fit_at("lab_rbf_chirp", "lab_rbf_reg", seed)
        est = res.estimator
        x = est.support_vectors_[:, 0]
        theta = np.asarray(est.bandwidths_).reshape(len(x), -1).mean(axis=1)
        assert spearmanr(x, theta)[0] >= 0.3, seed


def test_onk_rho_sweep_tends_to_the_svm():
    """ONK Fig. 3, as the Sensitivity page sweeps it (7 ρ values, seeds 0-2): ρ changes
    ONK's accuracy (by a point or more on the mean), and at the largest ρ ONK's test
    accuracy is the plain SVM's at every seed (within one test point)."""
    sw, P = sweep_at("onk_rho")
    base = lab.run_sweep(P, "svm", "C", np.array([P["C"]]), repeats=int(P["sweep_repeats"]))
    n_test = int(round(P["test_size"] * P["n_samples"]))
    assert np.all(np.abs(sw.scores[-1] - base.scores[0]) <= 1.0 / n_test + 1e-12), \
        (sw.scores[-1], base.scores[0])
    acc = np.nanmean(sw.scores, axis=1)
    assert acc.max() - acc.min() >= 0.01, acc
