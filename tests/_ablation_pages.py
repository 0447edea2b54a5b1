"""The score-table page tests' AppTest side: a page opened with a query and the
figures it draws."""

from __future__ import annotations

from pathlib import Path

from _components import figure_of

ROOT = Path(__file__).resolve().parents[1]


def open_page(page, **query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / page), default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = str(v)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _figures(at):
    return [f for f in (figure_of(e) for e in at.get("bidi_component")) if f]
