"""Presets: every preset is a valid, URL-round-tripping page state, and at every preset
the paper's effect is there, measured through the lab's own functions
(``prepare_data``, ``fit_method``, ``run_sweep``) at the seeds listed in each test --
exactly what the page computes on first load. Claims about DANK, KNPL and DANK-SVR are
measured with the score table of the page (:mod:`nplk_lab.model.ablation`: the method, the
same model with its learned matrix switched off at test time, 1-nearest neighbour and
the plain SVM/SVR) at seeds 0-9, the mechanism as well as the gain.

The claim tests fit DANK at n = 200 (a fraction of a second each); the file takes a
few minutes on 2 cores.
"""

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import nplk_lab.model as lab
from nplk_lab.model import presets as pr

ROOT = Path(__file__).resolve().parents[1]

# The names shared with nplk_lab.model.reproduce (its rows and the presets that open them).
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
        import nplk_lab.model.reproduce  # noqa: F401
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
SEEDS10 = tuple(range(10))   # the seeds every mechanism claim is measured at


def ablation_at(name, method, seed, *, cv=False, **over):
    """The page's score table for the preset at ``seed``: (ablation, fit, data)."""
    from nplk_lab.model import ablation as ab

    res, data, _ = fit_at(name, method, seed, **over)
    base = "svm" if res.task == lab.CLASSIFICATION else "svr"
    plain, _, _ = fit_at(name, base, seed, **over)
    ref = fit_at(name, base + "_cv", seed, **over)[0] if cv else None
    assert res.ok and plain.ok, res.messages + plain.messages
    a = ab.ablation(method, res.estimator, res.X_train, res.y_train, data.X_test,
                    data.y_test, plain=plain.estimator,
                    cv=None if ref is None else ref.estimator)
    return a, res, data


def table_at(name, method, seeds=SEEDS10, **kw):
    """Per seed: the five scores and the agreement with 1-NN, as arrays."""
    rows = [ablation_at(name, method, s, **kw)[0] for s in seeds]
    out = {k: np.array([a.score(k) for a in rows]) for k in ("method", "off", "nn", "plain",
                                                              "cv")}
    out["follows"] = np.array([a.follows_nn for a in rows])
    return out


@pytest.mark.slow
def test_dank_clowns_gain_is_the_nearest_neighbour_rule():
    """DANK Fig. 1 preset, seeds 0-9: DANK about 10 points above the SVM (mean 8-13,
    at least 5 at every seed) while F stays within 1 % of 11ᵀ; its test labels are
    1-NN's on at least 95 % of test points at every seed (about 99 % on average) and
    1-NN alone scores as well; with F switched off at test time DANK scores like the
    SVM (mean difference within 2 points)."""
    t = table_at("dank_clowns", "dank")
    gain = t["method"] - t["plain"]
    assert 0.08 <= gain.mean() <= 0.13 and np.all(gain >= 0.05 - 1e-9), gain
    assert np.all(t["follows"] >= 0.95) and t["follows"].mean() >= 0.98, t["follows"]
    assert t["nn"].mean() >= t["method"].mean() - 0.01, (t["nn"], t["method"])
    assert abs((t["off"] - t["plain"]).mean()) <= 0.02, t["off"] - t["plain"]
    for seed in SEEDS10:
        res, _, _ = fit_at("dank_clowns", "dank", seed)
        assert np.abs(res.matrix - 1.0).max() < 0.01


def test_dank_clowns_boundary_is_the_nearest_neighbours_and_not_the_svms():
    """At seed 0 (the page's first load) DANK's drawn boundary (nearest-point rule)
    agrees in sign with 1-NN's labels on at least 95 % of the grid, and disagrees with
    the plain SVM's on at least 5 %."""
    from nplk_lab.model import ablation as ab
    d, data, _ = fit_at("dank_clowns", "dank", 0)
    s, _, _ = fit_at("dank_clowns", "svm", 0)
    grid = lab.make_grid(data.X)
    Z, _ = lab.grid_values(d.estimator, grid, extension="nearest")
    B, _ = lab.grid_values(s.estimator, grid)
    nn = ab.nn_grid(lab.grid_geometry(grid, data.X_train).nearest, data.y_train)
    assert np.mean(np.sign(Z).ravel() == nn) >= 0.95
    assert np.mean(np.sign(Z) != np.sign(B)) >= 0.05


@pytest.mark.slow
def test_dank_clowns_cross_validated_svm_scores_like_dank():
    """The preset's last sentence, seeds 0-9: SVM-CV's mean test accuracy is within two
    points of DANK's."""
    t = table_at("dank_clowns", "dank", cv=True)
    assert abs(t["cv"].mean() - t["method"].mean()) <= 0.02, (t["cv"], t["method"])


@pytest.mark.slow
def test_dank_matrix_F_is_a_small_low_rank_change_that_adds_each_points_own_label():
    """DANK Fig. 2, seeds 0-9: F within 1 % of 11ᵀ (and not equal to it), rank(F) ≤ 2;
    the term F adds at each support vector j, Σᵢ uᵢ (Fᵢⱼ − 1) Kᵢⱼ, has the sign of
    uⱼ = yⱼ αⱼ (its own label) at every support vector; training accuracy ≥ 0.98."""
    for seed in SEEDS10:
        res, data, _ = fit_at("dank_matrix", "dank", seed)
        F, est = res.matrix, res.estimator
        assert F.shape == (len(data.y_train),) * 2
        dev = np.abs(F - 1.0).max()
        assert 1e-4 < dev < 0.01, (seed, dev)
        assert res.rank is not None and res.rank <= 2, (seed, res.rank)
        u = est.dual_u_
        S = np.flatnonzero(u)
        added = ((F - 1.0) * est.K_).T @ u
        assert np.all(np.sign(added[S]) == np.sign(u[S])), seed
        assert res.train_score >= 0.98, (seed, res.train_score)


def _iterations_to(obj: np.ndarray, ref: float, tol: float) -> int:
    """First iteration whose relative gap to ``ref`` is below ``tol`` (len if never)."""
    gap = (ref - obj) / abs(ref)
    hit = np.flatnonzero(gap < tol)
    return int(hit[0]) if hit.size else obj.size


@pytest.mark.slow
def test_dank_solvers_nesterov_needs_fewer_iterations_than_pg():
    """DANK Fig. 4: on the same problem (seed 0), Nesterov reaches a 1e-3 relative gap
    to the best objective either solver found in under half PG's iterations."""
    runs = {s: fit_at("dank_solvers", "dank", 0, solver=s)[0] for s in ("nesterov", "pg")}
    h = {s: r.history["objective"] for s, r in runs.items()}
    ref = max(v.max() for v in h.values())
    it = {s: _iterations_to(v, ref, 1e-3) for s, v in h.items()}
    assert it["nesterov"] < it["pg"] / 2, it


@pytest.mark.slow
def test_tau_sweep_rank_falls_accuracy_follows_1nn_then_drops_to_the_svm():
    """DANK Table 5, as the Sensitivity page sweeps it (7 τ values) but at seeds 0-9:
    mean rank(F) never rises with τ and ends lower; at the smallest τ DANK's mean
    accuracy is at least 8 points above the plain SVM's and its test labels follow 1-NN
    (mean agreement ≥ 0.95); at the largest τ it is within one point of the SVM's; with
    F switched off at test time DANK is within 2 points of the SVM at every τ."""
    sw, P = sweep_at("tau_sweep", sweep_repeats=10)
    rank = np.nanmean(sw.ranks, axis=1)
    acc = np.nanmean(sw.scores, axis=1)
    assert np.all(np.diff(rank) <= 1e-9) and rank[-1] < rank[0] and rank[-1] == 1, rank
    base = lab.run_sweep(P, "svm", "C", np.array([P["C"]]), repeats=10)
    svm = float(np.nanmean(base.scores))
    assert acc[0] >= svm + 0.08, (acc, svm)
    assert abs(acc[-1] - svm) <= 0.01, (acc, svm)
    for k, tau in enumerate(sw.values):
        t = table_at("tau_sweep", "dank", tau=float(tau))
        assert t["method"].mean() == pytest.approx(acc[k], abs=0.01), (tau, acc[k])
        assert abs((t["off"] - t["plain"]).mean()) <= 0.02, (tau, t["off"] - t["plain"])
        if k == 0:
            assert t["follows"].mean() >= 0.95, t["follows"]


@pytest.mark.slow
def test_home_knpl_at_the_defaults_labels_like_1nn():
    """Home's introduction (DANK and KNPL label like 1-NN at the defaults): KNPL on the
    clowns at σ = 10, C = 10 (the page defaults), seeds 0-9, gives 1-NN's label on at
    least 95 % of test points on average, and with G switched off at test time scores
    like the SVM (mean difference within 3 points) while KNPL is 5+ points above it."""
    t = table_at("dank_clowns", "knpl")
    assert t["follows"].mean() >= 0.95, t["follows"]
    assert abs((t["off"] - t["plain"]).mean()) <= 0.03, t["off"] - t["plain"]
    assert (t["method"] - t["plain"]).mean() >= 0.05, (t["method"], t["plain"])


@pytest.mark.slow
def test_dank_svr_step_gain_is_the_nearest_neighbour_rule():
    """DANK §6.3 preset (step function), seeds 0-9: DANK-SVR's test relative error is
    4-13 % of the plain SVR's (same σ, C, ε; bounds 3-15 %) at every seed; its
    predictions lie within 1 % of the target spread of 1-NN's (closeness ≥ 0.99); with
    F switched off at test time its error is 85-115 % of the SVR's."""
    t = table_at("dank_svr_step", "dank_svr")
    ratio = (1 - t["method"]) / (1 - t["plain"])
    off = (1 - t["off"]) / (1 - t["plain"])
    assert np.all((ratio >= 0.03) & (ratio <= 0.15)), ratio
    assert np.all(t["follows"] >= 0.99), t["follows"]
    assert np.all((off >= 0.85) & (off <= 1.15)), off


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


@pytest.mark.slow
def test_dank_svr_harmonic_gain_is_the_rule_and_1nn_does_better():
    """DANK §6.3 (2-D harmonic surface, seeds 0-9): the plain SVR's mean relative error
    is near 1 (≥ 0.9) and DANK-SVR's at most 0.6 of it at every seed; with F switched
    off at test time DANK-SVR is as flat as the SVR (mean R² within 0.1 of it, ≤ 0.15);
    1-NN's mean R² is at least 0.05 above DANK-SVR's."""
    t = table_at("dank_svr_harmonic", "dank_svr")
    err_m, err_p = 1 - t["method"], 1 - t["plain"]
    assert err_p.mean() >= 0.9 and np.all(err_m <= 0.6 * err_p), (err_m, err_p)
    assert abs((t["off"] - t["plain"]).mean()) <= 0.1 and t["off"].mean() <= 0.15, t["off"]
    assert t["nn"].mean() >= t["method"].mean() + 0.05, (t["nn"], t["method"])


@pytest.mark.slow
def test_knpl_sandwich_gain_is_the_nearest_neighbour_rule():
    """KNPL Fig. 2-3 (sandwich, seeds 0-9): KNPL's mean test accuracy is at least 10
    points above the plain SVM's (same σ, C), its test labels are 1-NN's on every test
    point at every seed, and with G switched off at test time it scores like the SVM
    (mean difference within 3 points)."""
    t = table_at("knpl_sandwich", "knpl")
    assert (t["method"] - t["plain"]).mean() >= 0.10, (t["method"], t["plain"])
    assert np.all(t["follows"] == 1.0), t["follows"]
    assert abs((t["off"] - t["plain"]).mean()) <= 0.03, t["off"] - t["plain"]


def test_knpl_sandwich_converges_and_G_stays_near_all_ones():
    """At the preset (seed 0) KNPL converges without a warning and G stays positive
    and within 1 of the all-ones matrix (the paper's G lies in 0.95-1.05)."""
    res, _, _ = fit_at("knpl_sandwich", "knpl", 0)
    assert res.ok
    assert not [m for m in res.messages if "converge" in m.text], res.messages
    assert np.abs(res.matrix - 1.0).max() < 1.0


@pytest.mark.slow
def test_lab_rbf_support_error_falls_with_more_support_points():
    """LAB RBF Fig. 4, as the Sensitivity page sweeps it (N = 2 … 60, seeds 0-2): the
    mean test error at the largest N is under a tenth of that at the smallest, and the
    second half of the sweep is never worse than the first value."""
    sw, _ = sweep_at("lab_rbf_support")
    err = np.nanmean(sw.scores, axis=1)
    assert np.all(np.isfinite(err)), err
    assert err[-1] <= 0.1 * err[0], err
    assert np.all(err[len(err) // 2:] < err[0]), err


@pytest.mark.slow
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


@pytest.mark.xfail(strict=False, reason="measured with the robust default: "
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


def test_lab_rbf_chirp_puts_more_support_points_where_the_frequency_rises():
    """What the chirp card says (seeds 0-4): more support points on the fast (right)
    half than on the slow half, on every seed."""
    from nplk_lab.model.lessons.lessons import _lab_sides
    P = {**lab.defaults(), **pr.preset_params("lab_rbf_chirp")}
    for seed in range(5):
        g = _lab_sides({**P, "seed": seed})
        assert g["n_right"] > g["n_left"], (seed, g)


@pytest.mark.slow
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
