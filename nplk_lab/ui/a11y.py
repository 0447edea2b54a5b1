"""Page-wide style fixes for readability, found by axe-core in Chromium
(``tests/test_browser_a11y.py``): each rule here answers one of its findings on
Streamlit's own elements, in the light and in the dark theme alike.

* Captions: Streamlit draws them in a faded grey (#828180 on white: contrast 3.9:1,
  under the 4.5:1 that normal-sized text needs). They take the page's text colour at
  80 % opacity instead, so they stay a step lighter than body text in either theme
  (about 7:1 on white, 10:1 on the dark background).
* A slider's value above its thumb: drawn in the theme's accent red, which in the dark
  theme gives 3.5:1 on the sidebar. It takes the text colour.

Two rules make a page fit a 1280×720 projector (the figure and its score table on the
first screen): the main block's top padding drops from Streamlit's 6rem to 3rem, and
metric tiles drawn compact (``charts.metrics(..., compact=True)``) and the score table
beside the surface use smaller text.
"""

from __future__ import annotations

import streamlit as st

CSS = """
<style>
[data-testid="stCaptionContainer"] { color: inherit !important; opacity: 0.8; }
[data-testid="stSliderThumbValue"] { color: inherit !important; }
[data-testid="stMainBlockContainer"] { padding-top: 3rem; }
.st-key-nplk-metrics-compact [data-testid="stMetricValue"] { font-size: 1.6rem; }
.st-key-nplk-metrics-compact [data-testid="stMetric"] { padding-bottom: 0.25rem; }
.st-key-nplk-metrics-compact [data-testid="stMetricLabel"] p { font-size: 0.8rem; }
.st-key-nplk-score-table table { font-size: 0.85rem; }
.st-key-nplk-score-table th, .st-key-nplk-score-table td { padding: 0.3rem 0.45rem; }
</style>
"""


def style() -> None:
    """Send the page's style rules (an element with no height)."""
    st.html(CSS)
