"""The session's one ``params`` store, the URL read once and rewritten each run, page
set-up and the page's messages (escaped user text)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import streamlit as st

import nplk_lab.model as lab

from .keys import CSV as _CSV  # noqa: F401  (the session-state entries: .keys)
from .keys import FROM_BROWSER, NOTES, PAGE, PREFIX, STORE, URL_WRITTEN, URLS_WRITTEN  # noqa: F401
from .keys import LAST_GOOD as _LAST_GOOD  # noqa: F401
from .keys import PREV_FIT as _PREV_FIT  # noqa: F401
from .keys import STATUS as _STATUS  # noqa: F401
from .keys import STOP as _STOP  # noqa: F401
from .keys import STOPPED as _STOPPED  # noqa: F401

PAGE_FILES = {
    "classification": "pages/1_Classification.py",
    "regression": "pages/2_Regression.py",
    "pairwise": "pages/3_Pairwise_constraints.py",
    "sensitivity": "pages/4_Sensitivity.py",
    "scaling": "pages/5_Scaling.py",
}


# ---------------------------------------------------------------------------
# page set-up, state and URL
# ---------------------------------------------------------------------------

#: the tab's icon, served by the lab itself: a Material icon as page_icon makes every
#: page load fetch it from Google's font host (the lab works with no internet)
ICON = Path(__file__).with_name("icon.svg")


def page_setup(page: str, title: str) -> dict[str, Any]:
    """Configure the page (its tab's title, the lab's :data:`ICON`) and load the state
    (applying the URL when it carries a state this session did not write); return the
    live ``params`` dict."""
    st.set_page_config(page_title=f"{title} · NPLK Lab", page_icon=ICON, layout="wide")
    # The pages call nplk_lab.ui.components.chart.preload() before importing the lab, so the browser
    # starts on Plotly.js before this module is even imported.
    ss = st.session_state
    if STORE not in ss:
        ss[STORE] = lab.defaults()
        # a tab that reconnects (the server restarted) sends its widgets' values with
        # the new session's first run: they win over the URL and the defaults
        ss[FROM_BROWSER] = browser_widget_keys()
    else:
        ss.pop(FROM_BROWSER, None)
    if ss.get(PAGE) != page:
        # A widget of another page keeps its state under the same key, but the new
        # page's widget is a different element and would start from its own default:
        # drop the keys so every widget re-seeds from the store.
        for key in [k for k in ss.keys() if isinstance(k, str) and k.startswith(PREFIX)]:
            del ss[key]
    _read_url(ss, page)
    ss[PAGE] = page
    sidebar_nav()
    from . import a11y  # captions and slider values readable in both themes (axe-core)
    a11y.style()
    # a new server draws a page's default state from a disk snapshot, without
    # importing scikit-learn (see firstpaint); this run's store accesses are recorded
    from nplk_lab.serve import firstpaint, reaper
    reaper.start()
    firstpaint.start(page)
    firstpaint.restore(page, ss[STORE])
    return ss[STORE]


def nav_entries(root: Path | None = None) -> list[tuple[str, str]]:
    """(file, label) of every page in the sidebar, Home first: ``app.py``, then the
    files of ``pages/`` in Streamlit's order, each named as Streamlit names it ("2_Regression.py"
    -> "Regression")."""
    if root is None:
        # the entry script's folder (the repository, or the installed nplk_lab_app)
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        ctx = get_script_run_ctx()
        main = getattr(ctx, "main_script_path", None) if ctx is not None else None
        root = Path(main).resolve().parent if main else Path(__file__).resolve().parents[1]
    files = sorted((root / "pages").glob("*.py"),
                   key=lambda f: (int(m.group(1)) if (m := re.match(r"(\d+)", f.name))
                                  else float("inf"), f.name))
    out = [("app.py", "Home")]
    for f in files:
        if f.name.startswith((".", "_")):
            continue
        label = re.sub(r"^\d*[_ -]*", "", f.stem).replace("_", " ").strip() or f.stem
        out.append((f"pages/{f.name}", label))
    return out


def sidebar_nav() -> None:
    """The page list at the top of the sidebar, its first entry "Home". Streamlit names
    the entry page after its file (app.py: "app") and offers no title for it while the
    pages live in ``pages/`` (which keeps the URLs /Classification, ...), so its own list
    is hidden (``client.showSidebarNavigation = false``) and this one drawn instead."""
    from streamlit.errors import StreamlitAPIException
    with st.sidebar:
        box = st.container()
        for file, label in nav_entries():
            try:
                box.page_link(file, label=label)
            except StreamlitAPIException:
                # a page run on its own (AppTest from its file) has no pages to link
                return
        st.divider()


_URLS_KEPT = 32


def _key_of(flat: Mapping[str, Any]) -> tuple:
    return tuple(sorted((str(k), str(v)) for k, v in flat.items()))


def browser_widget_keys() -> frozenset[str]:
    """The keys of the widgets whose values the browser sent with this run although
    this session has not drawn them yet: a tab that was open when the server restarted
    reconnects as a new session and sends its widgets' values (the slider the student
    just moved among them) with its first run. Seeding those widgets from the store
    would drop that move. Read from Streamlit's incoming widget states (element ids
    carry the user key); empty when they cannot be read."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import (
            get_script_run_ctx,
        )
        from streamlit.runtime.state.common import user_key_from_element_id

        ctx = get_script_run_ctx()
        ids = list(ctx.session_state._state._new_widget_state.states)
    except (AttributeError, ImportError, TypeError):
        return frozenset()
    keys = (user_key_from_element_id(i) for i in ids)
    return frozenset(k for k in keys if k and k.startswith(PREFIX))


def from_browser(key: str) -> bool:
    """Whether widget ``key`` takes the value the browser sent (see
    :func:`browser_widget_keys`) instead of being seeded from the store."""
    return key in (st.session_state.get(FROM_BROWSER) or ())


def _read_url(ss: Any, page: str = "") -> None:
    """Apply the URL's state when it is not the one this session last wrote (a pasted
    link, a browser refresh, a "try this" link); invalid values become notes. A Lessons
    link says everything about the lesson it opens: a lesson setting it leaves out (an
    empty token is never written) takes its default, so a pasted link to lesson 2 does
    not keep the teacher's lesson or the answers this session had."""
    query = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
    flat = {k: v[-1] if v else "" for k, v in query.items()}
    if not query or flat == ss.get(URL_WRITTEN) or \
            _key_of(flat) in ss.get(URLS_WRITTEN, ()):
        # the URL this session wrote, or one it wrote a few runs ago: a move made
        # before the browser had the newest URL carries the previous one (under load
        # that race dropped moves); it is not a pasted link
        return
    old = ss[STORE]
    new, msgs = lab.decode_query(query, old)
    if page == "lessons":
        for name, s in lab.settings().items():
            if s.group == "lesson" and name not in query:
                new[name] = s.default
    ss[STORE] = new
    for name in [k for k in new if new[k] != old.get(k)]:
        for key in [k for k in ss.keys() if isinstance(k, str) and
                    (k == PREFIX + name or k.startswith(f"{PREFIX}{name}_"))]:
            del ss[key]
    ss[URL_WRITTEN] = flat
    notes = ss.setdefault(NOTES, [])
    notes += msgs
    for task in (lab.CLASSIFICATION, lab.REGRESSION):
        name = "dataset" if task == lab.CLASSIFICATION else "reg_dataset"
        if new.get(name) == "csv" and f"{_CSV}_{task}" not in ss:
            notes.append(lab.Message("info", "Links cannot carry uploaded files: upload "
                                             "the CSV again."))


def params() -> dict[str, Any]:
    return st.session_state[STORE]


def apply_params(new: Mapping[str, Any]) -> None:
    """Replace the state (config upload, reset) and re-seed every widget from it."""
    ss = st.session_state
    ss[STORE] = dict(new)
    for k in [k for k in ss.keys() if isinstance(k, str) and k.startswith(PREFIX)]:
        del ss[k]


def sync_url(page: str) -> None:
    """Write the page's full state into the URL (so a pasted link reproduces it)."""
    P = params()
    q = lab.encode_query(P, lab.relevant_names(page, P))
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if current != q:
        st.query_params.from_dict(q)
    st.session_state[URL_WRITTEN] = q
    written = st.session_state.setdefault(URLS_WRITTEN, [])
    k = _key_of(q)
    if k in written:
        written.remove(k)
    written.append(k)
    del written[:-_URLS_KEPT]
    page_done(page)


def page_done(page: str) -> None:
    """The end of a page run (called by :func:`sync_url`; the home page calls it
    itself): the first run at the page's defaults writes its first-paint snapshot."""
    from nplk_lab.serve import firstpaint
    firstpaint.finish(page, params())


# Characters that start Markdown, HTML or Streamlit syntax (links, images, tags,
# autolinks such as http:// and www., emphasis, code, tables, maths, :colour[] and
# :icon: directives, entities). A backslash makes each a literal character.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()!<>#|~$:&@.+\-])")
# C0/C1 controls and bidirectional overrides (they could reorder the visible text)
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+")
# GFM autolink literals (http://…, www.…, a@b.c) and Streamlit's icons
# (:material/home:) are found in the text *after* the escapes are resolved, so
# escaping cannot stop them: a zero-width space after the scheme, "www", "@" or a
# colon before a letter does (the text reads the same; checked in Chromium).
_AUTOLINK = re.compile(r"(?i)(?:(?:https?|ftp|mailto|xmpp|www)(?=[:.])|@|:(?=[a-z]))")
MAX_MESSAGE = 400  # characters of one message on the page


def safe_text(text: Any, limit: int = MAX_MESSAGE) -> str:
    """``text`` as Markdown that renders as exactly that plain text: one line, cut to
    ``limit`` characters, every syntax character escaped, autolinks and icons broken
    by a zero-width space. Every message that can quote user input (URL keys and
    values, CSV headers and cells, config keys, file names) goes through this before
    ``st.error``/``warning``/``info``/``caption``."""
    t = _INVISIBLE.sub(" ", str(text))
    if len(t) > limit:
        t = t[:limit - 1] + "…"
    t = _AUTOLINK.sub(lambda m: m.group(0) + "\u200b", t)
    return _MD_SPECIAL.sub(r"\\\1", t)


def show_messages(messages: Iterable[lab.Message], container: Any = None) -> None:
    """Short, deduplicated messages (never a traceback), shown as plain text."""
    c = container or st
    seen = set()
    for m in messages:
        if m.text in seen:
            continue
        seen.add(m.text)
        {"error": c.error, "warning": c.warning}.get(m.level, c.info)(safe_text(m.text))


def show_notes() -> None:
    """The run-status line, then the messages queued for this run (e.g. invalid link
    parameters). Every page calls this right below its title, so the status line sits at
    the same place on every run (see :class:`Progress`)."""
    st.session_state[_STATUS] = st.empty()
    show_messages(st.session_state.pop(NOTES, []))
