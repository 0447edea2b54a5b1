"""The data sets of the atlas (``python -m nplk_lab.model.atlas``): the lab's own toys,
two scikit-learn generators per task and the real sets scikit-learn ships.

Every data set is drawn at a *data seed*: the seed draws the points (toys, generators),
the subsample (real sets larger than :data:`N_MAX`) and the 70 / 30 train/test split.
The lab's toys go through :func:`nplk_lab.model.data.prepare_data` with the page's own
defaults (n = 200, 30 % test), so a cell of the atlas is exactly the state a page shows
at that seed. The other sets are standardised with the training split's mean and
deviation (features; regression targets too, so that ε = 0.1 and C mean the same on
every set). Pure numpy / scikit-learn; never imports streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..settings_table import CLASSIFICATION, REGRESSION

#: points drawn from a generator, and the cap on a real set (stratified subsample)
N_MAX = 200
TEST_SIZE = 0.3


@dataclass(frozen=True)
class AtlasSet:
    """One data set of the atlas: its name, task, where it comes from and its title."""

    name: str
    task: str
    source: str          # "lab" (a page's toy), "generator" (scikit-learn), "real"
    title: str

    @property
    def on_a_page(self) -> bool:
        """Whether a page of the lab can show this data set (its toys only)."""
        return self.source == "lab"


SETS: dict[str, AtlasSet] = {s.name: s for s in (
    AtlasSet("clowns", CLASSIFICATION, "lab", "clowns"),
    AtlasSet("sandwich", CLASSIFICATION, "lab", "sandwich"),
    AtlasSet("moons", CLASSIFICATION, "lab", "moons"),
    AtlasSet("circles", CLASSIFICATION, "lab", "circles"),
    AtlasSet("chessboard", CLASSIFICATION, "lab", "chessboard"),
    AtlasSet("spiral", CLASSIFICATION, "lab", "spiral"),
    AtlasSet("sk_classification", CLASSIFICATION, "generator",
             "scikit-learn make_classification (2-D, 2 clusters a class, 5 % flipped labels)"),
    AtlasSet("sk_blobs_xor", CLASSIFICATION, "generator",
             "scikit-learn make_blobs (4 overlapping blobs, opposite corners one class)"),
    AtlasSet("wine", CLASSIFICATION, "real", "wine (classes 1 vs 0, 13 features)"),
    AtlasSet("breast_cancer", CLASSIFICATION, "real", "breast cancer (30 features)"),
    AtlasSet("iris_vv", CLASSIFICATION, "real", "iris (versicolor vs virginica, 4 features)"),
    AtlasSet("step", REGRESSION, "lab", "step function"),
    AtlasSet("harmonic", REGRESSION, "lab", "2-D harmonic surface"),
    AtlasSet("chirp", REGRESSION, "lab", "chirp"),
    AtlasSet("sk_friedman1", REGRESSION, "generator",
             "scikit-learn make_friedman1 (10 features, 5 informative, noise 1)"),
    AtlasSet("sk_friedman2", REGRESSION, "generator",
             "scikit-learn make_friedman2 (4 features, noise 20)"),
    AtlasSet("diabetes", REGRESSION, "real", "diabetes (10 features)"),
)}


@dataclass(frozen=True)
class Split:
    """One data set at one data seed, split into training and test points."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def sets_for(task: str) -> list[str]:
    return [n for n, s in SETS.items() if s.task == task]


def load(name: str, seed: int) -> Split:
    """``name`` at data seed ``seed`` (see the module docstring). Raises ValueError for
    an unknown name or a toy the lab cannot make."""
    spec = SETS.get(name)
    if spec is None:
        raise ValueError(f"unknown atlas data set {name!r}; choose one of {sorted(SETS)}.")
    if spec.source == "lab":
        from ..data import prepare_data
        key = "dataset" if spec.task == CLASSIFICATION else "reg_dataset"
        data, msgs = prepare_data({key: name, "seed": int(seed)}, spec.task)
        if data is None:
            raise ValueError(f"could not make {name} at seed {seed}: {msgs}")
        return Split(data.X_train, data.y_train, data.X_test, data.y_test)
    X, y = _draw(name, seed)
    return _split_standardised(X, y, spec.task, seed)


def _draw(name: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets as skd

    rng = int(seed)
    if name == "sk_classification":
        X, y = skd.make_classification(N_MAX, n_features=2, n_informative=2, n_redundant=0,
                                       n_clusters_per_class=2, flip_y=0.05, class_sep=1.0,
                                       random_state=rng)
        return X, np.where(y == 1, 1.0, -1.0)
    if name == "sk_blobs_xor":
        centers = np.array([[-2.0, -2.0], [2.0, 2.0], [-2.0, 2.0], [2.0, -2.0]])
        X, c = skd.make_blobs(N_MAX, centers=centers, cluster_std=1.3, random_state=rng)
        return X, np.where(c < 2, 1.0, -1.0)
    if name == "sk_friedman1":
        return skd.make_friedman1(N_MAX, n_features=10, noise=1.0, random_state=rng)
    if name == "sk_friedman2":
        return skd.make_friedman2(N_MAX, noise=20.0, random_state=rng)
    if name in ("wine", "breast_cancer", "diabetes"):
        from ..realdata import load as load_real
        X, y = load_real(name)
    elif name == "iris_vv":
        X, y = skd.load_iris(return_X_y=True)
        keep = y > 0
        X, y = X[keep], np.where(y[keep] == 2, 1.0, -1.0)
    else:  # pragma: no cover - SETS and this function list the same names
        raise ValueError(f"no loader for {name!r}")
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if len(y) > N_MAX:
        from sklearn.model_selection import train_test_split
        strat = y if SETS[name].task == CLASSIFICATION else None
        X, _, y, _ = train_test_split(X, y, train_size=N_MAX, random_state=rng,
                                      stratify=strat)
    return X, y


def _split_standardised(X: np.ndarray, y: np.ndarray, task: str, seed: int) -> Split:
    from ..data import split

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Xtr, Xte, ytr, yte = split(X, y, task=task, test_size=TEST_SIZE, seed=int(seed))
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd[sd <= 0] = 1.0
    Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    if task == REGRESSION:
        ym, ys = float(ytr.mean()), float(ytr.std()) or 1.0
        ytr, yte = (ytr - ym) / ys, (yte - ym) / ys
    return Split(Xtr, ytr, Xte, yte)


__all__ = ["N_MAX", "SETS", "TEST_SIZE", "AtlasSet", "Split", "load", "sets_for"]
