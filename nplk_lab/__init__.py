"""NPLK Lab, the app: one package, a sub-package per layer.

:mod:`nplk_lab.figures` (Plotly builders, pure functions over arrays and the core's
results), :mod:`nplk_lab.model` (settings, URL codec, data, fits, results, budget,
studies, presets, lessons, reproduction; no Streamlit) and :mod:`nplk_lab.ui` (the
Streamlit glue, with the browser components in :mod:`nplk_lab.ui.components`). The solver
core, :mod:`nplk_core`, sits below all three. ``docs/architecture.md`` gives the rules.
Importing this package imports nothing else.
"""
