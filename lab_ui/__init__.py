"""Streamlit glue shared by the NPLK Lab pages, split by concern.

:mod:`.state` (the params store, URL sync, page set-up, messages), :mod:`.widgets`
(widgets from the settings table), :mod:`.ablation` (the score table of a learned
kernel against 1-NN and the plain SVM, and the 1-NN overlay), :mod:`.progress`
(progress line and Stop button),
:mod:`.stores` (the caches shared across sessions, single flight; not ``cache.py``: that
name is the function :func:`cache` here), :mod:`.firstpaint` (a page's default run
replayed from disk on a new server, without scikit-learn), :mod:`.running` (fits,
grids, sweeps and studies through the stores), :mod:`.charts` (chart assembly per view),
:mod:`.exports` (downloads, configuration save and load). This package re-exports what
the pages use, so ``import lab_ui as ui`` keeps working; ``lab_chart`` (the live chart
component) sits beside it at the top level. Installed with the lab (``pip install .``)
together with ``app.py`` and the pages; :mod:`.serve` is the ``nplk-lab`` command.

Everything numeric lives below: :mod:`nplk_app` (state, data and fits; imported as
``lab``) and :mod:`nplk_figures` (plots); this package only turns the settings table into
widgets, keeps the state (session + URL), caches fits, shows messages and offers exports.

State protocol. ``st.session_state[STORE]`` is the one ``params`` dict of the
session. Widgets use keys ``"w_<setting>"``; each is seeded from the store before it
is drawn and written back after, so values survive page switches (Streamlit drops
the state of widgets that are not drawn) and programmatic changes (config upload,
reset) only have to edit the store and drop the widget keys. The URL is read once
per session (a pasted link) and rewritten at the end of every run.
"""

from __future__ import annotations

from .ablation import (  # noqa: F401
    ablation_panel,
    ablation_table,
    nn_values,
)
from .charts import (  # noqa: F401
    bandwidth_chart_figure,
    chart,
    convergence_chart_figure,
    home_figure,
    matrix_caption,
    matrix_figure,
    metrics,
    regression_chart,
    spectra_chart_figure,
    surface_chart,
    view_panel,
)
from .eigenmaps import (  # noqa: F401
    eigen_panel,
)
from .exports import (  # noqa: F401
    exports,
    state_controls,
)
from .influence import (  # noqa: F401
    influence_panel,
)
from .lessons import lessons_page, step_figure  # noqa: F401
from .maps import (  # noqa: F401
    follow_cell_click,
    maps_panel,
    sweep_map,
)
from .presentation import presentation, presenting  # noqa: F401
from .progress import (  # noqa: F401
    Progress,
    stop_requested,
)
from .replay import replay_panel  # noqa: F401
from .running import (  # noqa: F401
    Failed,
    available,
    baseline_values,
    fit,
    fit_key,
    grid_for,
    grid_geometry,
    grid_values,
    keep_good,
    pairwise_fit,
    scaling,
    solver_histories,
    sweep,
)
from .state import (  # noqa: F401
    MAX_MESSAGE,
    PAGE_FILES,
    PREFIX,
    STORE,
    apply_params,
    page_done,
    page_setup,
    params,
    safe_text,
    show_messages,
    show_notes,
    sync_url,
)
from .stores import (  # noqa: F401
    _FLIGHTS,  # noqa: F401  (the single-flight test checks no lock is left)
    LRU,
    cache,
    cached,
    nbytes,
    single_flight,
)
from .widgets import (  # noqa: F401
    control,
    controls,
    dataset_controls,
    get_data,
    method_controls,
    points_panel,
    range_control,
    uploaded_csv,
)

__all__ = [
    "Failed",
    "LRU",
    "MAX_MESSAGE",
    "PAGE_FILES",
    "PREFIX",
    "Progress",
    "STORE",
    "ablation_panel",
    "ablation_table",
    "apply_params",
    "available",
    "bandwidth_chart_figure",
    "baseline_values",
    "cache",
    "cached",
    "chart",
    "control",
    "controls",
    "convergence_chart_figure",
    "dataset_controls",
    "eigen_panel",
    "exports",
    "fit",
    "fit_key",
    "follow_cell_click",
    "get_data",
    "grid_for",
    "grid_geometry",
    "grid_values",
    "home_figure",
    "influence_panel",
    "keep_good",
    "lessons_page",
    "maps_panel",
    "matrix_caption",
    "matrix_figure",
    "method_controls",
    "metrics",
    "nn_values",
    "nbytes",
    "page_done",
    "page_setup",
    "pairwise_fit",
    "params",
    "points_panel",
    "presentation",
    "presenting",
    "range_control",
    "regression_chart",
    "replay_panel",
    "safe_text",
    "scaling",
    "show_messages",
    "show_notes",
    "single_flight",
    "solver_histories",
    "spectra_chart_figure",
    "step_figure",
    "state_controls",
    "stop_requested",
    "surface_chart",
    "sweep",
    "sweep_map",
    "sync_url",
    "uploaded_csv",
    "view_panel",
]
