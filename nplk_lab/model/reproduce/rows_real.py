"""The rows on real data that scikit-learn ships (:mod:`nplk_lab.model.realdata`): each
method against the cross-validated SVM or SVR (and kernel ridge) on repeated splits, one
row per data set and method, built by one function."""

from __future__ import annotations

import numpy as np

from .. import paired as P
from .. import realdata
from .. import verdicts as V
from .row import Row, Scale
from .scoring import _acc, _pm

#: per real-data row: (data set, method, paper of the method)
REAL_CLASSIFIERS = (("DANK", "000"), ("KNPL", "001"), ("ONK", "003"), ("LAB RBF", "004"))
REAL_REGRESSORS = (("DANK-SVR", "000"), ("LAB RBF", "004"))


def _real(sc: Scale, cache: dict, name: str) -> realdata.Scores:
    key = f"real:{name}"
    if key not in cache:
        fn = realdata.classification if name in realdata.CLASSIFICATION else realdata.regression
        cache[key] = fn(name, sc.seeds, sc.real_n_max)
    return cache[key]


def _real_row(sc: Scale, cache: dict, name: str, method: str, paper: str) -> Row:
    res = _real(sc, cache, name)
    cls = name in realdata.CLASSIFICATION
    base = "SVM-CV" if cls else "SVR-CV"
    kw = {"test_fraction": res.test_fraction}
    title = realdata.TITLES[name]
    row = Row(f"real_{name}_{method.lower().replace(' ', '_').replace('-', '_')}", "real",
              f"{method} on {title}",
              f"The learned kernel ({method}) predicts held-out data better than the "
              f"cross-validated {base}" + ("" if cls else " and kernel ridge") + ".",
              "not in the paper (a data set scikit-learn ships)", preset=None)

    def diff(a, b, label, **extra):
        if cls:
            return _acc(res.array(a), res.array(b), label, **kw, **extra)
        return P.paired(res.array(a), res.array(b), label=label + ", R²", **kw, **extra)

    judged = [diff(method, base, f"{method} − {base}")]
    if not cls:
        judged.append(diff(method, "KRR-CV", f"{method} − KRR-CV"))
    context = [diff(method, "1-NN", f"{method} − 1-NN")]
    if f"{method}, F off" in res.scores:
        context.append(diff(f"{method}, F off", base, f"{method} with F off − {base}"))
    row.judge(judged, context)
    unit = "accuracy %" if cls else "R²"
    fmt = (lambda v: _pm(v)) if cls else (lambda v: _pm(v, 1.0, 3))
    shown = [base] + ([] if cls else ["KRR-CV"]) + ["1-NN", method] + \
        [k for k in (f"{method}, F off",) if k in res.scores]
    row.ours = "; ".join(f"{k} {fmt(res.array(k))}" for k in shown)
    sig = sorted({p[0] for p in res.params})
    row.ours += (f" ({unit}, {len(res.params)} random 70/30 splits, n_train = {res.n_train}, "
                 f"CV σ ∈ {{{', '.join(f'{v:g}' for v in sig)}}})")
    notes = [f"{method} uses the CV baseline's σ and C on each split" if method not in
             ("LAB RBF",) else "LAB RBF with its defaults (30 support points)",
             "intervals use the corrected resampled variance of repeated splits"]
    if method in res.agree_1nn:
        notes.append(f"test labels equal 1-NN's on {100 * np.mean(res.agree_1nn[method]):.0f} "
                     "% of test points")
    row.note = "; ".join(notes) + "."
    if any(st["judged"] and V.is_loss(st) for st in row.stats):
        row.note = "A loss: " + row.note
    return row


def _real_row_fn(name: str, method: str, paper: str):
    def fn(sc: Scale, cache: dict) -> Row:
        return _real_row(sc, cache, name, method, paper)

    fn.__name__ = f"row_real_{name}_{method.lower().replace(' ', '_').replace('-', '_')}"
    return fn


REAL_ROWS = tuple(_real_row_fn(name, m, p) for name in realdata.CLASSIFICATION
                  for m, p in REAL_CLASSIFIERS) + \
    tuple(_real_row_fn(name, m, p) for name in realdata.REGRESSION for m, p in REAL_REGRESSORS)
