r"""NPLK figures: Plotly figure builders for the lab: pure functions from arrays to ``go.Figure``.

One module per view: :mod:`.common` (palette, layout, ``figure_json``), :mod:`.surfaces`,
:mod:`.matrices`, :mod:`.convergence`, :mod:`.regression`, :mod:`.clusters`, :mod:`.sweeps`,
:mod:`.ablation` (the 1-nearest-neighbour overlay), :mod:`.alt` (a figure's text
alternative);
this package re-exports every public builder, so ``import nplk_lab.figures as fg`` reaches them
all. Pure functions with no state; imports nothing of the project but ``nplk_core``.

Conventions (scikit-learn gallery, ``shared/STYLE.md``):

* decision functions filled in colour bands (a heatmap with a stepped scale: the look of
  a filled contour at a fraction of its redraw cost) in a colour-blind-safe diverging
  palette centred at 0, the 0 level solid, the ±1 levels dashed, the baseline SVM's 0 level
  dotted on the same axes; support vectors as hollow circles; test points hollow;
  the scores in a corner;
* learned multipliers (DANK's F, KNPL's G) in a diverging palette centred at 1 that
  spans 1 ± their largest deviation, points ordered by class; kernels (K, F∘K, ONK's
  G) in one sequential palette; the change F∘K − K diverging around 0;
* spectra on a log-scale y axis; overlaid solvers each with their own colour, dash
  and marker, coinciding ones named;
* one palette for classes and clusters across every figure (:data:`CLASS_COLORS`,
  :data:`CLUSTER_COLORS`); clusters as filled dots, true classes as outline shapes,
  in separate legend groups;
* arrays go to Plotly as float32 numpy (sent base64-encoded), never as Python lists,
  and a figure at default sizes stays under 0.5 MB.

Every builder assembles plain trace and layout dicts and constructs the figure once
(no ``make_subplots``/``add_hline``/templates: they cost tens of milliseconds per
figure, and the app redraws on every slider move). Panels are laid out by axis
domains (:func:`_stacked`, :func:`_side_by_side`).
"""

from __future__ import annotations

from .ablation import (  # noqa: F401
    NN_COLOR,
    NN_NAME,
    nn_step,
)
from .alt import alt_text  # noqa: F401
from .class_counts import answer_counts_figure, shift_figure  # noqa: F401
from .clusters import (  # noqa: F401
    constraints_figure,
    embedding_figure,
)
from .common import (  # noqa: F401
    BASELINE_COLOR,
    BOUNDARY_NAME,
    CANNOT_LINK_COLOR,
    CLASS_COLORS,
    CLASS_NAMES,
    CLASS_SYMBOLS,
    CLUSTER_COLORS,
    CLUSTER_SYMBOLS,
    DECISION_VALUE,
    DIVERGING,
    MARGIN_NAME,
    MUST_LINK_COLOR,
    SCATTER,
    SEQUENTIAL,
    SERIES_COLORS,
    SURFACE_BANDS,
    TEXT_COLOR,
    TICK_COLOR,
    VALIDATE,
    banded,
    bar_title,
    class_color,
    cluster_color,
    cluster_symbol,
    f32,
    figure_json,
    figure_nbytes,
    for_people,
    from_people,
    plot_config,
)
from .convergence import (  # noqa: F401
    SOLVER_STYLES,
    coinciding,
    convergence_figure,
    mark_eigenvalue,
    spectra_figure,
)
from .eigenmaps import eigenfunction_figure  # noqa: F401
from .influence import (  # noqa: F401
    FOCUS_COLOR,
    focus_ring,
    influence_curve,
    influence_figure,
    linked_matrix,
)
from .lab_rbf_halves import halves_figure  # noqa: F401
from .maps import map_figure, map_hover  # noqa: F401
from .matrices import (  # noqa: F401
    VIEW_CELLS,
    class_order,
    matrix_heatmap,
    matrix_triptych,
    symmetric_limits,
    view_side,
)
from .regression import (  # noqa: F401
    ELLIPSE_MIN_SCALE,
    bandwidth_figure,
    clip_polyline,
    parity_figure,
    regression_curve,
    regression_surface,
)
from .replay import replay_figure, replay_gif, replay_json  # noqa: F401
from .surfaces import (  # noqa: F401
    decision_surface,
    level_lines,
)
from .sweeps import (  # noqa: F401
    lines_figure,
    partition_figure,
    sensitivity_figure,
)

__all__ = [
    "answer_counts_figure",
    "shift_figure",
    "BASELINE_COLOR",
    "BOUNDARY_NAME",
    "CANNOT_LINK_COLOR",
    "CLASS_COLORS",
    "CLASS_NAMES",
    "CLASS_SYMBOLS",
    "CLUSTER_COLORS",
    "CLUSTER_SYMBOLS",
    "DECISION_VALUE",
    "DIVERGING",
    "ELLIPSE_MIN_SCALE",
    "MARGIN_NAME",
    "MUST_LINK_COLOR",
    "NN_COLOR",
    "NN_NAME",
    "SCATTER",
    "SEQUENTIAL",
    "SERIES_COLORS",
    "SOLVER_STYLES",
    "SURFACE_BANDS",
    "TEXT_COLOR",
    "TICK_COLOR",
    "VALIDATE",
    "alt_text",
    "banded",
    "bandwidth_figure",
    "class_color",
    "class_order",
    "clip_polyline",
    "cluster_color",
    "cluster_symbol",
    "coinciding",
    "constraints_figure",
    "convergence_figure",
    "decision_surface",
    "eigenfunction_figure",
    "embedding_figure",
    "f32",
    "FOCUS_COLOR",
    "focus_ring",
    "halves_figure",
    "influence_curve",
    "influence_figure",
    "linked_matrix",
    "figure_json",
    "for_people",
    "from_people",
    "figure_nbytes",
    "level_lines",
    "lines_figure",
    "mark_eigenvalue",
    "map_figure",
    "map_hover",
    "matrix_heatmap",
    "matrix_triptych",
    "VIEW_CELLS",
    "view_side",
    "nn_step",
    "parity_figure",
    "partition_figure",
    "plot_config",
    "regression_curve",
    "replay_figure",
    "replay_gif",
    "replay_json",
    "regression_surface",
    "sensitivity_figure",
    "spectra_figure",
    "symmetric_limits",
]
