r"""NPLK app model: the lab's state and plumbing, importable and tested without Streamlit.

One declared table of every setting (:mod:`.settings_table`, not ``settings``: that name
is the function :func:`settings`), URL and JSON round trips
(:mod:`.codec`), data preparation (:mod:`.data`), the method registry and a fit that
never raises (:mod:`.methods`), what a fit hands a page (:mod:`.results`), values on
grids and lines (:mod:`.grids`), studies over many fits (:mod:`.studies`), plus the work
budget (:mod:`.budget`), the paper presets (:mod:`.presets`) and the reproduction
command (:mod:`.reproduce`, ``python -m nplk_lab.model.reproduce``). This package re-exports
the public names of the first seven, so ``import nplk_lab.model as lab`` reaches them all;
``presets`` and ``reproduce`` are imported by name. Imports ``nplk_core`` and
``nplk_lab.figures`` only, and scikit-learn only inside the functions that fit (cold start).

Pure Python/numpy (no Streamlit): the pages only draw widgets from :func:`settings`,
collect one ``params`` dict and call :func:`prepare_data` and :func:`fit_method`; what
comes back is a :class:`LabResult` that the figure builders in :mod:`nplk_lab.figures`
turn into plots.

Modelled on TensorFlow Playground's ``state.ts``: every setting has a name (its URL
key), a type, a default, a range, a log-scale flag, the methods and pages it applies
to, and a label with the paper's symbol. :func:`encode_query` / :func:`decode_query`
turn a ``params`` dict into URL query values and back; bad values fall back to the
defaults with a message instead of an exception.
"""

from __future__ import annotations

from . import budget  # noqa: F401
from .codec import (  # noqa: F401
    CONFIG_FORMAT,
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    MAX_COORD,
    MAX_NOTES,
    MAX_POINTS,
    MIN_ROWS,
    coerce,
    decode_query,
    encode_query,
    params_from_json,
    params_to_json,
    relevant_names,
    to_text,
)
from .data import (  # noqa: F401
    MAX_CSV_BYTES,
    MAX_CSV_MB,
    LabData,
    array_key,
    dataset_params,
    datasets_available,
    prepare_data,
    split,
    standardize_features,
    subsample_indices,
)
from .eigenmaps import (  # noqa: F401
    EigenMaps,
    eigenfunction_maps,
    index_from_clicks,
    map_indices,
)
from .grids import (  # noqa: F401
    Grid,
    GridGeometry,
    add_points,
    added_rows,
    canvas_grid,
    click_grid,
    cluster_regions,
    decision_values,
    drawn_rule,
    fit_baseline_svm,
    fit_baseline_svr,
    grid_geometry,
    grid_values,
    line_points,
    make_grid,
    points_from_clicks,
    predict_values,
    true_function,
)
from .influence import (  # noqa: F401
    INFLUENCE_METHODS,
    Influence,
    InfluenceBasis,
    influence_basis,
    point_from_clicks,
    row_from_clicks,
)
from .methods import (  # noqa: F401
    METHODS,
    BaselineScore,
    MethodSpec,
    available,
    baseline_name,
    baseline_scores,
    can_warm_start,
    fit_method,
    fit_pairwise,
    make_estimator,
    method_params,
    methods_for,
    plain_method,
    relative_error,
    score,
    shows_baseline,
)
from .replay import REPLAY_METHODS, Replay, ReplayFrame, replay_frames  # noqa: F401
from .results import (  # noqa: F401
    LabResult,
    PairwiseResult,
    ScalingStudy,
    SweepResult,
)
from .settings_table import (  # noqa: F401
    CLASSIFICATION,
    CLASSIFICATION_DATASETS,
    CLASSIFICATION_METHODS,
    CLUSTERING,
    PAGES,
    REGRESSION,
    REGRESSION_DATASETS,
    REGRESSION_METHODS,
    Message,
    Setting,
    clip,
    defaults,
    log_options,
    setting,
    settings,
)
from .studies import (  # noqa: F401
    run_sweep,
    scaling_study,
    sweep_table,
    sweep_values,
    sweepable,
    timing_study,
)

__all__ = [
    "CLASSIFICATION",
    "CLASSIFICATION_DATASETS",
    "CLASSIFICATION_METHODS",
    "CLUSTERING",
    "CONFIG_FORMAT",
    "EigenMaps",
    "Grid",
    "INFLUENCE_METHODS",
    "Influence",
    "InfluenceBasis",
    "GridGeometry",
    "LabData",
    "LabResult",
    "MAX_CONFIG_BYTES",
    "MAX_CSV_BYTES",
    "MAX_CSV_MB",
    "MAX_CONFIG_DEPTH",
    "MAX_COORD",
    "MAX_NOTES",
    "MAX_POINTS",
    "BaselineScore",
    "METHODS",
    "MIN_ROWS",
    "Message",
    "MethodSpec",
    "PAGES",
    "PairwiseResult",
    "REGRESSION",
    "REGRESSION_DATASETS",
    "REGRESSION_METHODS",
    "REPLAY_METHODS",
    "Replay",
    "ReplayFrame",
    "ScalingStudy",
    "Setting",
    "SweepResult",
    "add_points",
    "added_rows",
    "array_key",
    "available",
    "can_warm_start",
    "canvas_grid",
    "click_grid",
    "clip",
    "cluster_regions",
    "coerce",
    "dataset_params",
    "datasets_available",
    "decision_values",
    "decode_query",
    "defaults",
    "eigenfunction_maps",
    "encode_query",
    "baseline_name",
    "baseline_scores",
    "fit_baseline_svm",
    "fit_baseline_svr",
    "fit_method",
    "fit_pairwise",
    "grid_geometry",
    "grid_values",
    "index_from_clicks",
    "influence_basis",
    "line_points",
    "log_options",
    "make_estimator",
    "make_grid",
    "map_indices",
    "method_params",
    "methods_for",
    "params_from_json",
    "params_to_json",
    "point_from_clicks",
    "points_from_clicks",
    "predict_values",
    "prepare_data",
    "relative_error",
    "relevant_names",
    "replay_frames",
    "row_from_clicks",
    "run_sweep",
    "scaling_study",
    "score",
    "setting",
    "plain_method",
    "shows_baseline",
    "settings",
    "split",
    "standardize_features",
    "subsample_indices",
    "sweep_table",
    "sweep_values",
    "sweepable",
    "timing_study",
    "to_text",
    "true_function",
]
