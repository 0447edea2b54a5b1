"""Page-wide style fixes for readability, found by axe-core in Chromium
(``tests/test_browser_a11y.py``): each rule here answers one of its findings on
Streamlit's own elements, in the light and in the dark theme alike.

* Captions: Streamlit draws them in a faded grey (#828180 on white: contrast 3.9:1,
  under the 4.5:1 that normal-sized text needs). They take the page's text colour at
  80 % opacity instead, so they stay a step lighter than body text in either theme
  (about 7:1 on white, 10:1 on the dark background).
* A slider's value above its thumb: drawn in the theme's accent red, which in the dark
  theme gives 3.5:1 on the sidebar. It takes the text colour.
"""

from __future__ import annotations

import streamlit as st

CSS = """
<style>
[data-testid="stCaptionContainer"] { color: inherit !important; opacity: 0.8; }
[data-testid="stSliderThumbValue"] { color: inherit !important; }
</style>
"""


def style() -> None:
    """Send the page's style rules (an element with no height)."""
    st.html(CSS)
