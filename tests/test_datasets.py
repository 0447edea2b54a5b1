import csv
import inspect
import io
import subprocess
import sys

import numpy as np
import pytest

from nplk_core import datasets as ds
from nplk_core.datasets import (
    DATASETS,
    DEFAULT_DATASET,
    SAMPLE_DATA_DIR,
    DataError,
    chirp_function,
    dataset_to_csv,
    harmonic_function,
    list_datasets,
    load_csv,
    make_chessboard,
    make_chirp,
    make_circles,
    make_clowns,
    make_dataset,
    make_harmonic,
    make_moons,
    make_sandwich,
    make_spiral,
    make_step,
    step_function,
    to_pm1,
)

NAMES = list(DATASETS)
CLASSIFICATION = list_datasets("classification")
REGRESSION = list_datasets("regression")


# ---------------------------------------------------------------------------
# generators: shapes, dtypes, seeds, balance
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_shapes_dtypes_and_determinism(name):
    spec = DATASETS[name]
    X, y = make_dataset(name, random_state=3)
    assert X.shape == (spec.n_samples, spec.n_features) and X.dtype == np.float64
    assert y.shape == (spec.n_samples,) and np.all(np.isfinite(X))
    if spec.task == "classification":
        assert y.dtype == np.int64 and set(np.unique(y)) == {-1, 1}
    else:
        assert y.dtype == np.float64 and np.all(np.isfinite(y))
    X2, y2 = make_dataset(name, random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = make_dataset(name, random_state=4)
    assert not np.allclose(X, X3)
    # a Generator is used as given: same seed, same stream
    X4, _ = make_dataset(name, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(X, X4)
    # n_samples=None means the registry's default size; any n >= 2 works
    assert make_dataset(name, 7, random_state=0)[0].shape == (7, spec.n_features)


@pytest.mark.parametrize("name", CLASSIFICATION)
@pytest.mark.parametrize("n", [2, 3, 101])
def test_classes_balanced_and_shuffled(name, n):
    _, y = make_dataset(name, n, random_state=0)
    assert (y == 1).sum() - (y == -1).sum() == n % 2
    if n > 50:  # rows are shuffled, so a prefix holds both classes
        assert set(y[:10]) == {-1, 1}


def test_clowns_recipe():
    s, n = 0.7, 4000
    X, y = make_clowns(n, spread=s, standardize=False, random_state=0)
    P, N = X[y == 1], X[y == -1]
    # class +1 = s N(0, I) + (0, 6)
    np.testing.assert_allclose(P.mean(axis=0), [0.0, 6.0], atol=4 * s / np.sqrt(len(P)))
    np.testing.assert_allclose(P.std(axis=0), [s, s], rtol=0.06)
    # class -1: x1 ~ U(-3, 3), x2 - x1^2 ~ N(0, 1)
    assert N[:, 0].min() >= -3 and N[:, 0].max() <= 3
    np.testing.assert_allclose(N[:, 0].var(), 3.0, rtol=0.08)  # 6^2 / 12
    r = N[:, 1] - N[:, 0] ** 2
    assert abs(r.mean()) < 4 / np.sqrt(len(r)) and abs(r.std() - 1) < 0.06
    # the recipe's standardisation, applied to the same draw
    Z, yz = make_clowns(n, spread=s, random_state=0)
    np.testing.assert_array_equal(y, yz)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1.0, rtol=1e-12)
    np.testing.assert_allclose(Z, (X - X.mean(0)) / X.std(0), atol=1e-12)


def test_sandwich_blobs_lie_between_bands():
    X, y = make_sandwich(3000, noise=0.0, random_state=0)
    band_gap = np.abs(X[y == -1, 1][:, None] - np.array([-1.0, 0.0, 1.0])).min(axis=1)
    assert band_gap.max() < 0.3  # bands of std 0.05
    P = X[y == 1]
    assert np.all(np.abs(P[:, 1]) < 1.0) and np.all(np.abs(P[:, 1]) > 0.0)
    np.testing.assert_allclose(np.abs(P[:, 1]).mean(), 0.5, atol=0.02)
    # six blobs: centres at x1 in {-1, 0, 1} each get about a sixth of the points
    counts = np.bincount(np.round(P[:, 0]).astype(int) + 1, minlength=3)
    assert counts.min() > 0.28 * len(P)
    # noise pushes points across: training accuracy of "nearest band vs blob" drops
    Xn, yn = make_sandwich(3000, noise=0.3, random_state=0)
    assert np.abs(Xn - X).max() > 0.5


def test_chessboard_labels_follow_cells():
    for n_cells in (2, 3, 5):
        X, y = make_chessboard(500, n_cells=n_cells, random_state=1)
        assert np.all(np.abs(X) <= 1)
        ij = np.floor((X + 1) * n_cells / 2).astype(int)
        np.testing.assert_array_equal(y, np.where(ij.sum(axis=1) % 2 == 0, 1, -1))
        assert len(np.unique(ij[:, 0] * n_cells + ij[:, 1])) == n_cells ** 2


def test_spiral_arms_are_point_reflections():
    turns = 2.0
    X, y = make_spiral(400, n_turns=turns, noise=0.0, random_state=2)
    r = np.hypot(X[:, 0], X[:, 1])
    assert r.min() >= 0.1 - 1e-12 and r.max() <= 1.0 + 1e-12
    angle = np.arctan2(X[:, 1], X[:, 0]) + np.where(y == 1, 0.0, np.pi)
    expected = 2 * np.pi * turns * r
    gap = np.angle(np.exp(1j * (angle - expected)))  # wrapped difference
    np.testing.assert_allclose(gap, 0.0, atol=1e-9)


def test_moons_and_circles_geometry():
    X, y = make_moons(300, noise=0.0, random_state=0)
    P, N = X[y == 1], X[y == -1]
    np.testing.assert_allclose(np.hypot(*P.T), 1.0)
    assert np.all(P[:, 1] >= 0)
    np.testing.assert_allclose(np.hypot(N[:, 0] - 1, N[:, 1] - 0.5), 1.0)
    assert np.all(N[:, 1] <= 0.5)
    X, y = make_circles(300, factor=0.3, noise=0.0, random_state=0)
    np.testing.assert_allclose(np.hypot(*X.T), np.where(y == 1, 0.3, 1.0))


# ---------------------------------------------------------------------------
# regression functions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("s, w, a", [(3.0, 2.0, 0.05), (1.5, 0.7, 0.3), (-2.0, 1.0, 2.0)])
def test_step_function_continuous_at_multiples_of_w(s, w, a):
    k = np.arange(-4, 5)
    np.testing.assert_allclose(step_function(k * w, s, w, a), s * k, atol=1e-12)
    eps = 1e-9
    left = step_function(k * w - eps, s, w, a)
    right = step_function(k * w + eps, s, w, a)
    assert np.max(np.abs(left - right)) < 1e-6
    # each step adds exactly s
    x = np.linspace(-5, 5, 101)
    np.testing.assert_allclose(step_function(x + w, s, w, a) - step_function(x, s, w, a), s,
                               atol=1e-9)


def test_step_function_shape_in_a():
    s, w = 3.0, 2.0
    x = np.linspace(-5, 5, 1001)
    g = step_function(x, s, w, 0.05)
    assert np.all(np.diff(g) >= -1e-12)  # a staircase going up
    # small a: flat treads at s*(k + 1/2) in the middle of each cell
    mid = (np.arange(-3, 2) + 0.5) * w
    np.testing.assert_allclose(step_function(mid, s, w, 0.01), s * (np.arange(-3, 2) + 0.5))
    # large a: tends to the line s x / w (constant 0), error shrinking like 1/a^2
    errs = [np.abs(step_function(x, s, w, a) - s * x / w).max() for a in (1.0, 10.0, 100.0)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 1e-4
    assert errs[1] / errs[2] > 50


def test_harmonic_function_known_points():
    # centre: u_bar = 0 -> 42.659 * 0.1
    np.testing.assert_allclose(harmonic_function(0.5, 0.5), 4.2659)
    # (1, 1/2): u_bar = 1/2, v_bar = 0 -> 0.1 + 0.5 * (0.05 + 1/16)
    np.testing.assert_allclose(harmonic_function(1.0, 0.5), 42.659 * 0.15625)
    # (0, 0): u_bar = v_bar = -1/2 -> 0.1 - 0.5 * (0.05 + 1/16 - 10/16 + 5/16) = 0.2
    np.testing.assert_allclose(harmonic_function(0.0, 0.0), 42.659 * 0.2)
    # even in v_bar
    u, v = np.random.default_rng(0).uniform(size=(2, 50))
    np.testing.assert_allclose(harmonic_function(u, v), harmonic_function(u, 1 - v))
    X, y = make_harmonic(50, random_state=0)
    assert np.all((X >= 0) & (X <= 1))
    np.testing.assert_allclose(y, harmonic_function(X[:, 0], X[:, 1]))


def test_chirp_frequency_rises():
    x = np.linspace(0, 1, 200001)
    g = chirp_function(x, 1.0, 10.0)
    zeros = x[1:][np.sign(g[1:]) != np.sign(g[:-1])]
    gaps = np.diff(zeros)
    assert len(zeros) > 8 and np.all(np.diff(gaps) < 0)
    # local half-period 1 / (2 f(x)), f(x) = f0 + (f1 - f0) x
    mids = 0.5 * (zeros[1:] + zeros[:-1])
    np.testing.assert_allclose(gaps, 1 / (2 * (1 + 9 * mids)), rtol=0.02)
    # f0 == f1: a plain sine
    np.testing.assert_allclose(chirp_function(x, 3.0, 3.0), np.sin(6 * np.pi * x), atol=1e-12)


@pytest.mark.parametrize("make, f", [
    (make_step, lambda X: step_function(X[:, 0])),
    (make_chirp, lambda X: chirp_function(X[:, 0])),
    (make_harmonic, lambda X: harmonic_function(X[:, 0], X[:, 1])),
])
def test_regression_noise_is_additive_gaussian(make, f):
    X, y = make(20000, noise=0.3, random_state=0)
    r = y - f(X)
    assert abs(r.mean()) < 0.02 and abs(r.std() - 0.3) < 0.01
    X0, y0 = make(50, random_state=0)
    np.testing.assert_allclose(y0, f(X0))


def test_step_x_range():
    X, _ = make_step(500, x_range=(1.0, 2.0), random_state=0)
    assert X.min() >= 1.0 and X.max() <= 2.0


@pytest.mark.parametrize("call", [
    lambda: make_clowns(1),
    lambda: make_clowns(2.5),
    lambda: make_clowns(True),
    lambda: make_clowns(10, spread=0.0),
    lambda: make_clowns(10, random_state=-1),
    lambda: make_clowns(10, random_state="seed"),
    lambda: make_sandwich(10, noise=-0.1),
    lambda: make_moons(10, noise=float("nan")),
    lambda: make_circles(10, factor=1.0),
    lambda: make_chessboard(10, n_cells=1),
    lambda: make_chessboard(10, n_cells=2.5),
    lambda: make_spiral(10, n_turns=0),
    lambda: make_step(10, w=0.0),
    lambda: make_step(10, a=-1.0),
    lambda: make_step(10, s=np.inf),
    lambda: make_step(10, x_range=(1.0, 1.0)),
    lambda: make_step(10, x_range=5.0),
    lambda: make_harmonic(0),
    lambda: make_chirp(10, f0=0.0),
    lambda: make_dataset("nope"),
    lambda: make_dataset("moons", bogus=1.0),
    lambda: list_datasets("clustering"),
])
def test_parameter_errors(call):
    with pytest.raises(ValueError, match=r"\w+"):
        call()


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

def test_registry_lists_and_defaults():
    assert set(CLASSIFICATION) | set(REGRESSION) == set(NAMES)
    assert not set(CLASSIFICATION) & set(REGRESSION)
    assert {"clowns", "sandwich", "moons", "circles", "chessboard", "spiral"} <= set(
        CLASSIFICATION)
    assert {"step", "harmonic", "chirp"} <= set(REGRESSION)
    assert DEFAULT_DATASET == {"classification": "clowns", "regression": "step"}
    assert list_datasets() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry_consistent(name):
    spec = DATASETS[name]
    assert spec.name == name and spec.label and spec.description
    sig = inspect.signature(spec.make).parameters
    assert sig["n_samples"].default == spec.n_samples
    for pname, p in spec.params.items():
        # slider defaults are the generator's own defaults and lie in the declared range
        assert sig[pname].default == p.default
        assert p.min <= p.default <= p.max and p.step > 0 and p.help
        assert not p.log or p.min > 0
        assert p.integer == isinstance(sig[pname].default, int)
        for value in (p.min, p.max):
            X, y = make_dataset(name, 40, random_state=0, **{pname: value})
            assert X.shape == (40, spec.n_features)
            assert np.all(np.isfinite(X)) and np.all(np.isfinite(y))


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_sample_files_load_and_match_generators(name):
    spec = DATASETS[name]
    data = load_csv(SAMPLE_DATA_DIR / f"{name}.csv", task=spec.task)
    X, y = make_dataset(name, random_state=0)
    assert data.task == spec.task and data.has_header
    np.testing.assert_allclose(data.X, X, rtol=1e-7, atol=1e-12)
    if spec.task == "classification":
        assert data.feature_names == ("x1", "x2") and data.label_name == "label"
        np.testing.assert_array_equal(data.y, y)
        np.testing.assert_array_equal(data.classes, [-1, 1])
    else:
        np.testing.assert_allclose(data.y, y, rtol=1e-7, atol=1e-12)
        assert data.label_name == "y" and data.classes is None


def test_write_sample_data_reproduces_committed_files(tmp_path):
    paths = ds.write_sample_data(tmp_path)
    assert {p.name for p in paths} == {p.name for p in SAMPLE_DATA_DIR.glob("*.csv")}
    for p in paths:
        header = p.read_text().split("\n")[0]
        assert header == (SAMPLE_DATA_DIR / p.name).read_text().split("\n")[0]
        if p.name.startswith("bad_"):
            assert p.read_text() == (SAMPLE_DATA_DIR / p.name).read_text()
            continue
        task = DATASETS[p.stem].task
        a, b = load_csv(p, task=task), load_csv(SAMPLE_DATA_DIR / p.name, task=task)
        np.testing.assert_allclose(a.X, b.X, rtol=1e-6)
        np.testing.assert_allclose(a.y, b.y, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_dataset_to_csv_round_trip_is_exact(name):
    X, y = make_dataset(name, 60, random_state=5)
    task = DATASETS[name].task
    text = dataset_to_csv(X, y)
    for source in (text, text.encode(), io.BytesIO(text.encode()), io.StringIO(text)):
        data = load_csv(source, task=task)
        np.testing.assert_array_equal(data.X, X)
        np.testing.assert_array_equal(data.y, y)
        assert data.y.dtype == y.dtype
        assert data.feature_names == tuple(f"x{j + 1}" for j in range(X.shape[1]))


def test_dataset_to_csv_string_labels_names_and_precision(tmp_path):
    X = np.array([[0.1, 2.0], [1e-300, -3.5], [np.pi, 7.0]])
    y = np.array(["red", "blue, dark", "red"])
    text = dataset_to_csv(X, y, feature_names=["height", "weight"], label_name="colour")
    path = tmp_path / "c.csv"
    path.write_text(text)
    data = load_csv(str(path))
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    assert data.feature_names == ("height", "weight") and data.label_name == "colour"
    np.testing.assert_array_equal(data.classes, ["blue, dark", "red"])
    short = load_csv(dataset_to_csv(X, y, precision=3))
    np.testing.assert_allclose(short.X, X, rtol=5e-3)
    with pytest.raises(ValueError, match="NaN"):
        dataset_to_csv(np.array([[np.nan]]), np.array([1]))
    with pytest.raises(ValueError, match="feature names"):
        dataset_to_csv(X, y, feature_names=["a"])


@pytest.mark.parametrize("fname, row, column, value", [
    ("bad_nan.csv", 5, "'x2'", "'nan'"),
    ("bad_text.csv", 8, "'x1'", "'two'"),
    ("bad_one_class.csv", "2-31", "'label'", "'1'"),
])
def test_bad_sample_files(fname, row, column, value):
    with pytest.raises(DataError) as err:
        load_csv(SAMPLE_DATA_DIR / fname)
    msg = str(err.value)
    assert f"ow{'s' if isinstance(row, str) else ''} {row}" in msg
    assert column in msg and value in msg


GOOD = "x1,x2,label\n0.5,1.0,1\n-0.5,2.0,-1\n1.5,0.0,1\n"


@pytest.mark.parametrize("text, task, kwargs, pieces", [
    ("", "classification", {}, ["empty"]),
    ("\n \n\n", "classification", {}, ["empty"]),
    ("x1,x2,label\n0.5,1.0,1\n", "classification", {}, ["1 data row", "at least 2"]),
    ("x1,label\n1,1\n2\n3,-1\n", "classification", {}, ["Row 3", "1 cells", "x1, label"]),
    ("x1,x2,label\n1,2,1\n,3,-1\n", "classification", {}, ["Row 3", "'x1'", "empty"]),
    ("x1,x2,label\n1,2,1\n\n3,inf,-1\n", "classification", {}, ["Row 4", "'x2'", "'inf'"]),
    ("x1,x2,label\n1,2,1\n3,NA,-1\n", "classification", {}, ["Row 3", "'x2'", "'NA'", "missing"]),
    ("a;b;c\n1,5;2;1\n2;3;-1\n", "classification", {}, ["Row 2", "'a'", "'1,5'", "dot"]),
    ("x1,x2,label\n1,2,1\n3,4,\n", "classification", {}, ["Row 3", "'label'", "missing"]),
    ("x,y\n1,2\n3,abc\n", "regression", {}, ["Row 3", "'y'", "'abc'", "numeric"]),
    ("x,y\n1,2\n3,nan\n", "regression", {}, ["Row 3", "'y'", "'nan'"]),
    ("x,y\n" + "".join(f"{i},{i * 0.5}\n" for i in range(30)), "classification", {},
     ["'y'", "30 distinct", "limit is 20", "regression"]),
    (GOOD, "classification", {"max_rows": 2}, ["more than 2", "limit"]),
    (GOOD, "classification", {"max_features": 1}, ["2 feature columns", "limit is 1"]),
    (GOOD, "classification", {"label_column": "colour"}, ["'colour'", "'x1', 'x2', 'label'"]),
    (GOOD, "classification", {"label_column": 5}, ["out of range", "3 columns"]),
    ("1,2,1\n3,4,-1\n", "classification", {"label_column": "label"}, ["no header"]),
    ("x1\n1\n2\n", "classification", {}, ["single column"]),
    ("x1,x2,label\n1,2,1\n3,4,1\n", "classification", {}, ["only one class", "'1'",
                                                            "'label'", "rows 2-3"]),
])
def test_load_csv_errors(text, task, kwargs, pieces):
    with pytest.raises(DataError) as err:
        load_csv(text, task=task, **kwargs)
    for piece in pieces:
        assert piece in str(err.value), (piece, str(err.value))


def test_load_csv_missing_path_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="Cannot read"):
        load_csv(str(tmp_path / "nothing.csv"))
    with pytest.raises(ValueError, match="task"):
        load_csv(GOOD, task="clustering")


def test_load_csv_layouts():
    # no header: the last column is the label, features x1.., label may be text
    data = load_csv("0.5,1.0,red\n1.5,2.0,blue\n2.5,3.0,red\n")
    assert not data.has_header and data.feature_names == ("x1", "x2")
    np.testing.assert_array_equal(data.y, ["red", "blue", "red"])
    # a column named label/y/target/class wins over position; BOM, CRLF, tabs, spaces
    data = load_csv(b"\xef\xbb\xbfClass\t a \tb\r\n1\t 0.5\t2\r\n-1\t1.5\t3\r\n")
    assert data.label_name == "Class" and data.feature_names == ("a", "b")
    np.testing.assert_array_equal(data.X, [[0.5, 2.0], [1.5, 3.0]])
    np.testing.assert_array_equal(data.y, [1, -1])
    # label column by name or index, header forced off
    data = load_csv(GOOD, label_column="X1")
    assert data.label_name == "x1" and data.feature_names == ("x2", "label")
    data = load_csv("1,2,3\n4,5,6\n", label_column=0, task="regression")
    assert data.label_name == "label" and data.feature_names == ("x1", "x2")
    np.testing.assert_array_equal(data.y, [1.0, 4.0])
    data = load_csv("1,2,3\n4,5,6\n", header=False, label_column=-2, task="regression")
    np.testing.assert_array_equal(data.X, [[1, 3], [4, 6]])
    # pandas-style index column with an empty header cell
    data = load_csv(",f,target\n0,0.5,0\n1,0.7,1\n")
    assert data.feature_names == ("column 1", "f")
    np.testing.assert_array_equal(data.y, [0, 1])
    # 1.0/2.0 labels are ints; 0.5/1.5 labels stay float
    assert load_csv("a,label\n1,1.0\n2,2.0\n").y.dtype == np.int64
    assert load_csv("a,label\n1,0.5\n2,1.5\n").y.dtype == np.float64
    # a re-read UploadedFile-like buffer starts from the top again
    buf = io.BytesIO(GOOD.encode())
    load_csv(buf)
    assert load_csv(buf).n_samples == 3 and load_csv(buf).n_features == 2


def test_to_pm1():
    y, classes = to_pm1(np.array([0, 1, 1, 0]))
    np.testing.assert_array_equal(y, [-1, 1, 1, -1])
    np.testing.assert_array_equal(classes, [0, 1])
    y, classes = to_pm1(["spam", "ham", "spam"])
    np.testing.assert_array_equal(y, [1, -1, 1])
    assert list(classes) == ["ham", "spam"] and y.dtype == np.int64
    y0 = np.array([1, -1, -1])
    np.testing.assert_array_equal(to_pm1(y0)[0], y0)
    with pytest.raises(DataError, match="exactly two"):
        to_pm1([1, 2, 3])
    with pytest.raises(DataError, match="exactly two"):
        to_pm1([1, 1])


def test_entry_point_writes_files_without_streamlit(tmp_path):
    """``python -m nplk_core.datasets DIR`` writes every file; streamlit is never imported."""
    code = ("import runpy, sys; sys.argv = ['datasets', sys.argv[1]]; "
            "runpy.run_module('nplk_core.datasets', run_name='__main__'); "
            "print(any(m.split('.')[0] == 'streamlit' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "False"
    assert "chirp.csv" in out.stdout
    assert len(list(tmp_path.glob("*.csv"))) == len(NAMES) + 3


def test_the_toy_data_import_no_scikit_learn():
    """A page's first paint makes its toy data before any fit: the data sets (and the
    solvers' shared rules they use) must not pull in scikit-learn (about a second)."""
    code = ("import sys; from nplk_core.datasets import make_dataset; "
            "make_dataset('clowns', random_state=0); print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_load_csv_reads_utf16_and_utf8_bom(codec):
    text = "x1;x2;label\n0.5;1;a\n1.5;2;b\n2.5;3;a\n"
    got = load_csv(text.encode(codec))
    np.testing.assert_array_equal(got.X, [[0.5, 1.0], [1.5, 2.0], [2.5, 3.0]])
    assert got.y.tolist() == ["a", "b", "a"] and got.feature_names == ("x1", "x2")


def test_load_csv_binary_file_is_a_readable_error():
    with pytest.raises(DataError, match="not text") as err:
        load_csv(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 8)
    assert "\\x" not in str(err.value) and "CSV UTF-8" in str(err.value)


def test_class_lists_print_as_plain_values():
    """numpy 2 reprs (np.int64(0), np.str_('a')) never reach a message."""
    for y, shown in (([0, 1, 2, 0], "(0, 1, 2)"), (np.array(["a", "b", "c"]), "(a, b, c)"),
                     (np.arange(9), "(0, 1, 2, 3, 4, …)")):
        with pytest.raises(DataError, match="exactly two") as err:
            to_pm1(np.asarray(y))
        assert shown in str(err.value) and "np." not in str(err.value), str(err.value)


def test_headers_and_cells_are_clipped_in_messages():
    long = "H" * 500
    with pytest.raises(DataError) as err:
        load_csv(f"{long},x2,label\nabc,1,1\n0,1,-1\n")
    msg = str(err.value)
    assert "H" * 39 in msg and "H" * 41 not in msg and len(msg) < 200
    with pytest.raises(DataError) as err:
        load_csv("x1,x2,label\n" + "1,2,3\n" * 2, label_column="Z" * 500)
    assert "Z" * 41 not in str(err.value)


def test_dataset_to_csv_defuses_spreadsheet_formulas():
    """Uploaded headers and class names come back in the exported CSV; a cell that a
    spreadsheet would run as a formula is written as text (leading apostrophe), while
    numbers, negative ones included, stay numbers."""
    X = np.array([[-1.5, 2.0], [0.5, -3.0]])
    y = np.array(["=HYPERLINK(\"http://x\")", "-1"])
    text = dataset_to_csv(X, y, feature_names=["@SUM(A1)", "+x"], label_name="-cmd|' /C calc'!A0")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["'@SUM(A1)", "'+x", "'-cmd|' /C calc'!A0"]
    assert rows[1] == ["-1.5", "2.0", "'=HYPERLINK(\"http://x\")"]
    assert rows[2] == ["0.5", "-3.0", "-1"]
    for row in rows:
        assert not any(cell.startswith(("=", "+", "@")) for cell in row)
    back = load_csv(text)
    np.testing.assert_array_equal(back.X, X)


def test_regression_sliders_have_plain_names():
    """The step function's sliders were named "s", "w", "a" on screen; now in words."""
    import nplk_lab.model as lab

    table = lab.settings()
    assert [table[f"step_{p}"].label for p in "swa"] == [
        "Step height", "Step width", "Step smoothness"]
    assert table["chirp_f0"].label == "Frequency at the start"
    assert all(len(s.label) > 2 for s in table.values() if s.datasets)
