"""Lessons: guided, step-by-step walks through the lab with predict-then-reveal
questions whose answers are measured live; also plays a teacher's own lesson link."""

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.ui as ui

PAGE = "lessons"
P = ui.page_setup(PAGE, "Lessons")
ui.presentation(PAGE)
ui.show_notes()
ui.lessons_page()
ui.sync_url(PAGE)
