"""The learned kernels on real data that scikit-learn ships (issue: honest verdicts §3).

Each experiment repeats ``splits`` random train/test splits (70 / 30, stratified for
classification) of one data set; the features are standardised with the training split's
mean and deviation. On every split the CV-tuned baseline chooses σ and C by 5-fold CV on
the training split (:mod:`nplk_lab.model.cvgrid`, the same search as
``SVMCVClassifier`` / ``SVRCVRegressor``) and the learned kernels use that σ and C, so a
difference is what learning the kernel adds at the baseline's own setting.
1-nearest-neighbour is the reference that DANK's and KNPL's out-of-sample rule (a test
point borrows the row of F of a training point) can collapse to; "F off" predicts with
the learned α and b and the plain kernel (``F' = 11ᵀ``).

Data (``load``):

- ``wine``: the two largest classes of ``load_wine`` (class 1, 71 wines, against class 0,
  59 wines; 13 features);
- ``breast_cancer``: ``load_breast_cancer`` (569 tumours, 30 features, binary);
- ``diabetes``: ``load_diabetes`` (442 patients, 10 features, disease progression).

Larger sets are first subsampled (stratified) to ``n_max`` points to keep the run short.
Never imports streamlit.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

CLASSIFICATION = ("wine", "breast_cancer")
REGRESSION = ("diabetes",)
TITLES = {"wine": "Wine (classes 1 vs 0)", "breast_cancer": "Breast cancer",
          "diabetes": "Diabetes (regression)"}
TEST_SIZE = 0.3


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of one of the shipped data sets (see the module docstring)."""
    from sklearn import datasets

    if name == "wine":
        X, y = datasets.load_wine(return_X_y=True)
        keep = np.isin(y, (0, 1))  # the two largest classes: 1 (71) and 0 (59)
        return X[keep], np.where(y[keep] == 1, 1, -1)
    if name == "breast_cancer":
        X, y = datasets.load_breast_cancer(return_X_y=True)
        return X, np.where(y == 1, 1, -1)
    if name == "diabetes":
        X, y = datasets.load_diabetes(return_X_y=True)
        return X, y.astype(float)
    raise ValueError(f"unknown data set {name!r}; choose one of "
                     f"{CLASSIFICATION + REGRESSION}.")


def _subsample(X, y, n_max: int, seed: int, stratify: bool):
    if X.shape[0] <= n_max:
        return X, y
    from sklearn.model_selection import train_test_split

    X, _, y, _ = train_test_split(X, y, train_size=n_max, random_state=10_000 + seed,
                                  stratify=y if stratify else None)
    return X, y


def split(name: str, seed: int, n_max: int):
    """One standardised 70/30 split: ``Xtr, Xte, ytr, yte``."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load(name)
    cls = name in CLASSIFICATION
    X, y = _subsample(X, y, n_max, seed, cls)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=TEST_SIZE, random_state=seed,
                                          stratify=y if cls else None)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


@dataclass
class Scores:
    """Per split test scores of every method (accuracy, or R² for regression)."""

    name: str
    n_train: int
    n_test: int
    scores: dict[str, list[float]] = field(default_factory=dict)
    agree_1nn: dict[str, list[float]] = field(default_factory=dict)
    params: list[tuple[float, float]] = field(default_factory=list)

    def add(self, method: str, value: float) -> None:
        self.scores.setdefault(method, []).append(float(value))

    def array(self, method: str) -> np.ndarray:
        return np.asarray(self.scores[method], dtype=float)

    @property
    def test_fraction(self) -> float:
        return self.n_test / self.n_train


def plain_kernel_decision(X_fit, dual_coef, intercept, sigma, X) -> np.ndarray:
    """``sum_i u_i k(x_i, x) + b``: a learned model's α and b with the plain kernel (F off)."""
    from nplk_core.kernels import gaussian_kernel

    u = np.asarray(dual_coef, dtype=float)
    S = np.flatnonzero(u)
    if S.size == 0:
        return np.full(X.shape[0], float(intercept))
    return u[S] @ gaussian_kernel(X_fit[S], X, sigma=sigma) + float(intercept)


def classification(name: str, splits: int, n_max: int) -> Scores:
    """Test accuracy per split of SVM-CV, DANK, KNPL, ONK, LAB RBF, 1-NN and F off."""
    from sklearn.neighbors import KNeighborsClassifier

    from nplk_core import DANKClassifier, KNPLClassifier, LABRBFClassifier, ONKClassifier

    from . import cvgrid

    out = None
    for s in range(splits):
        Xtr, Xte, ytr, yte = split(name, s, n_max)
        if out is None:
            out = Scores(name, len(ytr), len(yte))
        cv = cvgrid.fit_cv(Xtr, ytr, seed=s)
        sigma, C = float(cv.best_sigma_), float(cv.best_C_)
        out.params.append((sigma, C))
        nn = KNeighborsClassifier(1).fit(Xtr, ytr)
        p_nn = nn.predict(Xte)
        out.add("SVM-CV", cv.score(Xte, yte))
        out.add("1-NN", np.mean(p_nn == yte))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            models = {
                "DANK": DANKClassifier(C=C, sigma=sigma).fit(Xtr, ytr),
                "KNPL": KNPLClassifier(C=C, sigma=sigma).fit(Xtr, ytr),
                "ONK": ONKClassifier(C=C, sigma=sigma).fit(Xtr, ytr),
                "LAB RBF": LABRBFClassifier(random_state=s).fit(Xtr, ytr),
            }
        for m, model in models.items():
            pred = model.predict(Xte)
            out.add(m, np.mean(pred == yte))
            out.agree_1nn.setdefault(m, []).append(float(np.mean(pred == p_nn)))
        for m, coef in (("DANK", models["DANK"].dual_u_), ("KNPL", models["KNPL"].dual_coef_)):
            f = plain_kernel_decision(Xtr, coef, models[m].intercept_, sigma, Xte)
            classes = models[m].classes_
            out.add(f"{m}, F off", np.mean(classes[(f > 0).astype(int)] == yte))
    return out


def regression(name: str, splits: int, n_max: int) -> Scores:
    """Test R² per split of SVR-CV, KRR-CV, DANK-SVR, LAB RBF, 1-NN and DANK-SVR F off."""
    from sklearn.metrics import r2_score
    from sklearn.neighbors import KNeighborsRegressor

    from nplk_core import DANKRegressor, KernelRidgeBaseline, LABRBFRegressor

    from . import cvgrid

    out = None
    for s in range(splits):
        Xtr, Xte, ytr, yte = split(name, s, n_max)
        mu, sd = ytr.mean(), ytr.std()
        ztr = (ytr - mu) / sd  # the targets on a unit scale, so ε = 0.1 and C's grid fit
        if out is None:
            out = Scores(name, len(ytr), len(yte))

        def r2(z, yte=yte, mu=mu, sd=sd):
            return r2_score(yte, mu + sd * np.asarray(z))

        cv = cvgrid.fit_cv(Xtr, ztr, regression=True, seed=s)
        sigma, C = float(cv.best_sigma_), float(cv.best_C_)
        out.params.append((sigma, C))
        nn = KNeighborsRegressor(1).fit(Xtr, ztr)
        out.add("SVR-CV", r2(cv.predict(Xte)))
        out.add("KRR-CV", r2(KernelRidgeBaseline(cv=5, random_state=s).fit(Xtr, ztr)
                             .predict(Xte)))
        out.add("1-NN", r2(nn.predict(Xte)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dank = DANKRegressor(C=C, sigma=sigma).fit(Xtr, ztr)
            lab = LABRBFRegressor(random_state=s).fit(Xtr, ztr)
        out.add("DANK-SVR", r2(dank.predict(Xte)))
        out.add("LAB RBF", r2(lab.predict(Xte)))
        out.add("DANK-SVR, F off", r2(plain_kernel_decision(Xtr, dank.dual_u_,
                                                           dank.intercept_, sigma, Xte)))
    return out
