import numpy as np
import pytest

from nplk_core.kernels import gaussian_kernel
from nplk_core.spectral import (
    eigh_above,
    eigh_full,
    eigh_top,
    numerical_rank,
    psd_part,
    spectrum,
    svt,
    top_eigh,
)


def _random_psd(n, r, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, r))
    return A @ A.T


def _dense_svt(M, s):
    lam, V = np.linalg.eigh(M)
    return (V * np.maximum(lam - s, 0)) @ V.T


@pytest.mark.parametrize("s", [0.0, 0.1, 5.0])
@pytest.mark.parametrize("max_rank", [None, 3, 40])
def test_svt_matches_dense_eigh(s, max_rank):
    M = _random_psd(60, 12, 0)
    J, w, V = svt(M, s, max_rank=max_rank)
    np.testing.assert_allclose(J, _dense_svt(M, s), atol=1e-9)
    assert np.all(w > 0)
    np.testing.assert_allclose(V.T @ V, np.eye(w.size), atol=1e-10)


def test_svt_is_prox_of_nuclear_norm_on_psd():
    """J_s(M) minimises 1/2||F - M||^2 + s tr(F) over PSD F: check the optimality
    condition F - M + s I = Z with Z PSD and Z F = 0."""
    M = _random_psd(30, 5, 1) - 0.5 * np.eye(30)
    s = 0.3
    F, _, _ = svt(M, s)
    Z = F - M + s * np.eye(30)
    assert np.linalg.eigvalsh(Z).min() > -1e-9
    np.testing.assert_allclose(Z @ F, 0, atol=1e-8)


def test_top_eigh_and_spectrum():
    K = gaussian_kernel(np.random.default_rng(2).normal(size=(500, 2)), sigma=1.0)
    w, V = top_eigh(K, 10)
    ref = np.sort(np.linalg.eigvalsh(K))[::-1]
    np.testing.assert_allclose(w, ref[:10], rtol=1e-8)
    np.testing.assert_allclose(spectrum(K), ref, atol=1e-10)
    assert numerical_rank(ref, rtol=1e-6) < 500


def test_psd_part_is_projection():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(20, 20))
    A = A + A.T
    P = psd_part(A)
    assert np.linalg.eigvalsh(P).min() > -1e-10
    # projection: A - P is negative semidefinite and orthogonal to P
    assert np.linalg.eigvalsh(A - P).max() < 1e-10
    assert abs(np.sum((A - P) * P)) < 1e-8


def test_gaussian_kernel_matches_sklearn():
    from sklearn.metrics.pairwise import rbf_kernel
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(30, 3)), rng.normal(size=(7, 3))
    np.testing.assert_allclose(gaussian_kernel(X, Z, sigma=0.7),
                               rbf_kernel(X, Z, gamma=1 / (2 * 0.49)), atol=1e-12)
    K = gaussian_kernel(X, sigma=2.0)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_kernel(X, sigma=0)


# ---------------------------------------------------------------------------
# LAPACK driver failures: every eigensolver entry point falls back
# ---------------------------------------------------------------------------

def _issue11_matrix():
    return np.ones((14, 14)) + 1e-3 * np.eye(14)


def test_eigh_above_and_svt_on_the_issue11_matrix():
    M = _issue11_matrix()
    # closed form: eigenvalues 14 + 1e-3 (vector 1/sqrt(14)) and 1e-3 (13 times)
    lam, V = eigh_above(M, 0.0)
    assert lam.size == 14
    np.testing.assert_allclose(lam[-1], 14.001, rtol=1e-12)
    np.testing.assert_allclose(lam[:-1], 1e-3, rtol=1e-9)
    np.testing.assert_allclose((V * lam) @ V.T, M, atol=1e-12)
    lam2, V2 = eigh_above(M, 0.01)
    assert lam2.size == 1 and abs(abs(V2[:, 0] @ np.ones(14)) - np.sqrt(14)) < 1e-12
    J, w, _ = svt(M, 0.01)
    np.testing.assert_allclose(J, (14.001 - 0.01) / 14 * np.ones((14, 14)), atol=1e-12)


def test_every_driver_failure_falls_back(monkeypatch):
    import scipy.linalg

    real = scipy.linalg.eigh
    calls = []

    def flaky(M, *args, driver=None, **kw):
        calls.append(driver)
        if driver in ("evd", "evr"):
            raise np.linalg.LinAlgError("Internal Error.")
        return real(M, *args, driver=driver, **kw)

    real_np = np.linalg.eigh

    def np_fails(M, *args, **kw):
        calls.append("numpy")
        raise np.linalg.LinAlgError("Eigenvalues did not converge")

    monkeypatch.setattr(scipy.linalg, "eigh", flaky)
    monkeypatch.setattr(np.linalg, "eigh", np_fails)
    M = _random_psd(30, 5, 3)
    w, V = eigh_full(M)
    assert calls == ["numpy", "evd", "evr", "ev"]
    np.testing.assert_allclose((V * w) @ V.T, M, atol=1e-9)
    top_w, _ = eigh_top(M, 4)
    np.testing.assert_allclose(top_w, np.linalg.eigvalsh(M)[-4:], atol=1e-9)
    lam, _ = top_eigh(M, 8)  # dense subset path (n <= 300)
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(M)[::-1][:8], atol=1e-9)

    def broken(*args, **kw):
        raise np.linalg.LinAlgError("Internal Error.")

    monkeypatch.setattr(scipy.linalg, "eigh", broken)
    monkeypatch.setattr(np.linalg, "eigh", real_np)
    w2, _ = eigh_full(M)  # numpy's own eigh needs no SciPy driver
    np.testing.assert_allclose(w2, np.linalg.eigvalsh(M), atol=1e-9)


def test_simple_npkl_positive_part_survives_the_issue11_matrix():
    from nplk_core._npkl_core import _dense_positive

    w, V = _dense_positive(_issue11_matrix())
    np.testing.assert_allclose(w[0], 14.001, rtol=1e-12)
    np.testing.assert_allclose((V * w) @ V.T, _issue11_matrix(), atol=1e-12)


def _svt_of(lam, V, s):
    return (V * (lam - s)) @ V.T


def _check_partial_eigh_above(seed, n=None):
    """The value-subset route (``expected`` small) returns the same eigenvalues above
    the threshold and the same SVT as the filtered full decomposition, to 1e-12, on a
    random PSD matrix shaped like DANK's (ones plus a low-rank part), with tied
    eigenvalues, the threshold inside a cluster, and nothing above the threshold."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 120)) if n is None else n
    k = int(rng.integers(1, 6))
    B = rng.standard_normal((n, k))
    cases = []
    M = np.ones((n, n)) + B @ B.T / n
    cases.append((M, 1e-3))
    # ties: a repeated eigenvalue above the threshold and a block of zeros below
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = np.zeros(n)
    lam[-4:] = [2.0, 2.0, 2.0, 5.0]
    lam[:n - 4] = rng.uniform(0.0, 0.01, n - 4)
    cases.append(((Q * lam) @ Q.T, 0.5 * 3e-4))
    cases.append(((Q * lam) @ Q.T, 2.0))           # threshold on the tie: none of it kept
    cases.append((B @ B.T * 1e-6, 1.0))             # every eigenvalue below the threshold
    cases.append((np.zeros((n, n)), 0.0))           # all zero: nothing strictly above
    kept = []
    for M, s in cases:
        M = 0.5 * (M + M.T)
        lf, Vf = eigh_above(M, s)
        lp, Vp = eigh_above(M, s, expected=0)
        scale = max(1.0, np.abs(M).max())
        # an eigenvalue on the threshold (the tie case) may land on either side of it in
        # round-off; it adds ~1e-16 to the SVT either way, which the SVT check covers
        clear = 1e-10 * scale
        np.testing.assert_allclose(lp[lp > s + clear], lf[lf > s + clear], rtol=0,
                                   atol=1e-12 * scale)
        np.testing.assert_allclose(_svt_of(lp, Vp, s), _svt_of(lf, Vf, s), rtol=0,
                                   atol=1e-12 * scale)
        assert np.all(lp > s)
        kept.append(int(np.sum(lp > s + clear)))
    return kept


def test_partial_eigh_above_keeps_exactly_what_lies_above_the_threshold():
    """The threshold of the partial eigensolver, fast (one 40 × 40 draw, every case of
    the slow test): the one-plus-low-rank matrix keeps its large eigenvalues, the tie at
    2 with the threshold below it keeps the three tied values and 5 (and the small ones
    above the threshold), with the threshold on the tie keeps only 5, and nothing is
    kept when everything lies at or below."""
    kept = _check_partial_eigh_above(0, n=40)
    assert kept[2:] == [1, 0, 0]
    assert 1 <= kept[0] <= 6 and 4 <= kept[1] <= 40


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_partial_eigh_above_equals_the_full_decomposition(seed):
    """:func:`_check_partial_eigh_above` at six draws of n between 30 and 120."""
    _check_partial_eigh_above(seed)


def test_partial_eigh_above_falls_back_when_lapack_fails(monkeypatch):
    import nplk_core.spectral as spectral

    real = spectral._dsyevr
    calls = []

    def failing(M, **kw):
        calls.append(kw["range"])
        w, Z, m, isuppz, _ = real(M, **kw)
        return w, Z, m, isuppz, 2  # LAPACK's "internal error" code

    monkeypatch.setattr(spectral, "_dsyevr", failing)
    M = _random_psd(40, 3, 1)
    lam, V = eigh_above(M, 1e-3, expected=1)
    assert calls == ["V"]  # the value subset was tried, then the full decomposition
    w = np.linalg.eigvalsh(M)
    np.testing.assert_allclose(lam, w[w > 1e-3], atol=1e-10)
    np.testing.assert_allclose(np.abs(V.T @ M @ V), np.diag(lam), atol=1e-9)
    lam2, _ = eigh_above(_issue11_matrix() * 3, 0.01, expected=0)  # below the size cut
    np.testing.assert_allclose(lam2, [42.003], rtol=1e-12)
