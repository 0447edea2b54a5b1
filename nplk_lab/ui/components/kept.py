"""A text kept in the browser's storage across page loads: :func:`keep` mounts an
invisible component (its JavaScript is ``kept.js``, package data beside this module) that
writes the text the page gives it into the browser's ``localStorage`` under a name, and,
when the page has none, sends the kept text back once (the page then reruns with it).

For state a refresh must not lose although no link carries it: a teacher's collected
lesson steps survive a refresh, a typed address and a closed tab in the same browser
(another browser or computer has the lesson link for that). Imports only Streamlit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from . import browser_files
from .chart import once_per_runtime


def _declare() -> Any:
    js = browser_files.read("kept.js") + "\nexport default keptText;\n"
    return st.components.v2.component("nplk_kept", js=js, isolate_styles=False)


def keep(name: str, text: str | None, *, key: str,
         on_restore: Callable[[str], None]) -> None:
    """Keep ``text`` in the browser under ``name`` ("" removes it; None: leave what is
    kept alone). With ``text`` None and something kept, ``on_restore(kept)`` runs before
    the next script run (once per page load). Mount it where it is drawn on every run
    (an element of height 0)."""
    live = once_per_runtime("nplk_lab.ui.components.kept", _declare)

    def restored() -> None:
        value = (st.session_state.get(key) or {}).get("restore")
        if isinstance(value, str) and value:
            on_restore(value)

    data = {"name": name, "empty": text is None}
    if text is not None:
        data["save"] = text
    live(data=data, key=key, height=0, on_restore_change=restored)
