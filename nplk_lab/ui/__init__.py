"""Streamlit glue shared by the NPLK Lab pages, split by concern.

:mod:`.state` (the params store, URL sync, page set-up, messages), :mod:`.widgets`
(widgets from the settings table), :mod:`.ablation` (the score table of a learned
kernel against 1-NN and the plain SVM, and the 1-NN overlay), :mod:`.progress`
(progress line and Stop button), :mod:`.sharing` (the shared stores as the panels use
them: a wait for another session's computation shows in the progress line),
:mod:`.running` (fits, grids, sweeps and studies through the stores), :mod:`.charts`
(chart assembly per view),
:mod:`.downloads` (downloads, configuration save and load). This package re-exports what
the pages use (``import nplk_lab.ui as ui``); the browser components (the live chart and
the replay player) are in :mod:`.components`. Installed with the lab (``pip install .``)
together with ``app.py`` and the pages.

The server's machinery is below, in :mod:`nplk_lab.serve` (the stores shared across
sessions, the fit worker pool, first paint, the reaper, the ``nplk-lab`` command).
Everything numeric lives below that: :mod:`nplk_lab.model` (state, data and fits; imported
as ``lab``) and :mod:`nplk_lab.figures` (plots); this package only turns the settings table
into widgets, keeps the state (session + URL), shows messages and offers exports.

State protocol. ``st.session_state[STORE]`` is the one ``params`` dict of the
session. Widgets use keys ``"w_<setting>"``; each is seeded from the store before it
is drawn and written back after, so values survive page switches (Streamlit drops
the state of widgets that are not drawn) and programmatic changes (config upload,
reset) only have to edit the store and drop the widget keys. The URL is read once
per session (a pasted link) and rewritten at the end of every run.

The names are handed on lazily (PEP 562 ``__getattr__``): importing
:mod:`nplk_lab.ui.components.chart` first, as every page does, runs this file without
importing the layer's modules, so the browser starts on Plotly.js before the server
imports scikit-learn."""

from __future__ import annotations

import importlib

# name -> (module of this package, name there)
_NAMES = {
    'Failed': ('running', 'Failed'),
    'MAX_MESSAGE': ('state', 'MAX_MESSAGE'),
    'PAGE_FILES': ('state', 'PAGE_FILES'),
    'PREFIX': ('state', 'PREFIX'),
    'Progress': ('progress', 'Progress'),
    'STORE': ('state', 'STORE'),
    'ablation_panel': ('ablation', 'ablation_panel'),
    'ablation_table': ('ablation', 'ablation_table'),
    'markdown_table': ('ablation', 'markdown_table'),
    'apply_params': ('state', 'apply_params'),
    'atlas_panel': ('where_it_holds', 'atlas_panel'),
    'available': ('running', 'available'),
    'bandwidth_chart_figure': ('charts', 'bandwidth_chart_figure'),
    'baseline_values': ('running', 'baseline_values'),
    'chart': ('charts', 'chart'),
    'control': ('widgets', 'control'),
    'controls': ('widgets', 'controls'),
    'convergence_chart_figure': ('charts', 'convergence_chart_figure'),
    'dataset_controls': ('widgets', 'dataset_controls'),
    'eigen_panel': ('eigenmaps', 'eigen_panel'),
    'exports': ('downloads', 'exports'),
    'fit': ('running', 'fit'),
    'fit_key': ('running', 'fit_key'),
    'for_researchers': ('researchers', 'for_researchers'),
    'follow_cell_click': ('maps', 'follow_cell_click'),
    'get_data': ('widgets', 'get_data'),
    'grid_for': ('running', 'grid_for'),
    'grid_geometry': ('running', 'grid_geometry'),
    'grid_values': ('running', 'grid_values'),
    'home_figure': ('charts', 'home_figure'),
    'influence_panel': ('influence', 'influence_panel'),
    'keep_good': ('running', 'keep_good'),
    'lab_rbf_panel': ('lab_rbf_halves', 'lab_rbf_panel'),
    'lessons_page': ('lessons', 'lessons_page'),
    'maps_panel': ('maps', 'maps_panel'),
    'matrix_caption': ('charts', 'matrix_caption'),
    'matrix_figure': ('charts', 'matrix_figure'),
    'method_controls': ('widgets', 'method_controls'),
    'metrics': ('charts', 'metrics'),
    'npkl_panel': ('where_it_holds', 'npkl_panel'),
    'nn_values': ('ablation', 'nn_values'),
    'page_done': ('state', 'page_done'),
    'page_setup': ('state', 'page_setup'),
    'pairwise_chart': ('charts', 'pairwise_chart'),
    'pairwise_fit': ('running', 'pairwise_fit'),
    'params': ('state', 'params'),
    'points_panel': ('widgets', 'points_panel'),
    'presentation': ('present_mode', 'presentation'),
    'presenting': ('present_mode', 'presenting'),
    'range_control': ('widgets', 'range_control'),
    'regression_chart': ('charts', 'regression_chart'),
    'replay_panel': ('replay', 'replay_panel'),
    'safe_text': ('state', 'safe_text'),
    'scaling': ('running', 'scaling'),
    'timing_run': ('running', 'timing_run'),
    'last_timing': ('running', 'last_timing'),
    'show_messages': ('state', 'show_messages'),
    'show_notes': ('state', 'show_notes'),
    'solver_histories': ('running', 'solver_histories'),
    'spectra_chart_figure': ('charts', 'spectra_chart_figure'),
    'state_controls': ('downloads', 'state_controls'),
    'step_figure': ('lessons', 'step_figure'),
    'stop_requested': ('progress', 'stop_requested'),
    'surface_chart': ('charts', 'surface_chart'),
    'sweep': ('running', 'sweep'),
    'sweep_map': ('maps', 'sweep_map'),
    'sync_url': ('state', 'sync_url'),
    'uploaded_csv': ('widgets', 'uploaded_csv'),
    'view_panel': ('charts', 'view_panel'),
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    """A handed-on name, or one of this package's modules (``ui.running``), imported on
    first use as an eager package would have had it."""
    if name in _NAMES:
        module, attr = _NAMES[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        globals()[name] = value  # later look-ups skip this function
        return value
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))
