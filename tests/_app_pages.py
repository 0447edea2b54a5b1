"""The AppTest side of the page tests: a page opened with a query, the checks every run
shares (no exception reached the page), its charts, metrics and widgets, a setting given
another valid value, and the Paper results page with its reproduction table read back as
rows of cells. Used by ``test_app.py`` and the page tests of other features."""

import json
import re
import sys
from pathlib import Path
from urllib.parse import parse_qs

from _components import figure_of
from streamlit.testing.v1 import AppTest

import nplk_lab.model as lab

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # nplk_lab/ui/ sits next to app.py (as with `streamlit run`)
    sys.path.insert(0, str(ROOT))

TIMEOUT = 180
SMALL = {"n_samples": "60"}


def open_page(page: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / page), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    at.run()
    assert_clean(at)
    return at


def open_panel(at: AppTest, name: str, page: str, is_open: bool = True) -> AppTest:
    """Open the closed panel ``name`` ("present", "load", "researchers": each such note
    the page drew) of ``page``, as a click on its label does: its state set, then the
    run the opening causes (a closed panel draws its label alone); ``is_open=False``
    closes it the same way."""
    from nplk_lab.ui.keys import OPEN

    key = f"{OPEN}{name}_{page}"
    keys = [k for k in at.session_state._state._state.filtered_state
            if k == key or k.startswith(key + "_")]
    assert keys, f"no panel {key} on the page"
    for k in keys:
        at.session_state[k] = is_open
    at.run()
    assert_clean(at)
    return at


def assert_clean(at: AppTest) -> None:
    """No exception element (no traceback reached the page)."""
    assert not at.exception, [e.value for e in at.exception]


def charts(at: AppTest) -> list[dict]:
    """The figures on the page: live charts (``nplk_lab.ui.components.chart``, updated in place) and
    ``st.plotly_chart`` (the click-to-add surface). Each must decode to a figure with
    at least one trace."""

    figs = [figure_of(e) for e in at.get("bidi_component")]
    figs = [f for f in figs if f is not None]
    figs += [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    for f in figs:
        assert f.get("data"), f"a chart without traces: {str(f)[:200]}"
    return figs


def live_figures(at: AppTest) -> list[dict]:
    """The figures of the page's live charts, in page order."""
    return [f for f in (figure_of(e) for e in at.get("bidi_component")) if f]


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r} in {[m.label for m in at.metric]}")


def widget(at: AppTest, name: str):
    key = "w_" + name
    for kind in ("selectbox", "select_slider", "slider", "toggle", "radio"):
        for w in getattr(at, kind):
            if w.key == key:
                return w
    raise AssertionError(f"no widget {key}")


def wiggle(at: AppTest, name: str):
    """Give setting ``name``'s widget another valid value; return the value set."""
    w = widget(at, name)
    s = lab.setting(name)
    if w.type == "toggle":
        new = not w.value
    elif w.type in ("selectbox", "radio"):
        opts = [o for o in (s.options if s.options else []) if s.format(o) in w.options]
        opts = opts or list(s.options)
        new = next(o for o in opts if o != w.value)
    elif w.type == "select_slider":
        grid = (["auto"] if s.kind == "float_auto" else []) + list(s.grid())
        i = grid.index(w.value) if w.value in grid else 0
        new = grid[i + 1] if i + 1 < len(grid) else grid[i - 1]
    else:  # slider: one step up (or down at the top)
        step = s.step or 1
        new = w.value + step if w.value + step <= s.max else w.value - step
        new = type(w.value)(round(new, 10))
    w.set_value(new)
    at.run()
    assert_clean(at)
    assert widget(at, name).value == new
    assert at.query_params[name] in (lab.to_text(name, new), [lab.to_text(name, new)])
    return new


PAPER = "pages/6_Paper_results.py"


def page_links(at: AppTest) -> list[tuple[str, dict[str, str]]]:
    """(page, query) of every st.page_link on the page."""
    out = []
    for e in at.main.get("page_link"):
        q = parse_qs(e.proto.query_string, keep_blank_values=True)
        out.append((e.proto.page, {k: v[-1] for k, v in q.items()}))
    return out


def open_paper() -> AppTest:
    """The Paper results page reached from Home (page links resolve against the
    entry script, app.py, as under ``streamlit run app.py``)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert_clean(at)
    at.switch_page(PAPER).run()
    assert_clean(at)
    return at


def fake_reproduce(monkeypatch, results):
    """Stand in for nplk_lab.model.reproduce (another branch) with a fixed load_results."""
    import types

    import nplk_lab.model
    mod = types.ModuleType("nplk_lab.model.reproduce")
    mod.load_results = lambda path=None: results
    monkeypatch.setitem(sys.modules, "nplk_lab.model.reproduce", mod)
    monkeypatch.setattr(nplk_lab.model, "reproduce", mod, raising=False)


def _cells(line: str) -> list[str]:
    """A Markdown table line's cells, their escapes undone (a cell split only at a ``|``
    that is not escaped)."""
    inner = line.strip()[1:-1]
    return [re.sub(r"\\(.)", r"\1", c).strip() for c in re.split(r"(?<!\\)\|", inner)]


def results_frames(at: AppTest) -> list[list[dict[str, str]]]:
    """The reproduction table(s) on Paper results as rows of cells (a Markdown table of
    plain text; the atlas view has a table of its own)."""
    out = []
    for m in at.markdown:
        lines = [ln for ln in str(m.value).splitlines() if ln.startswith("|")]
        if len(lines) < 2 or "verdict" not in _cells(lines[0]):
            continue
        head = _cells(lines[0])
        out.append([dict(zip(head, _cells(ln), strict=True)) for ln in lines[2:]])
    return out


LESSONS_PAGE = "pages/7_Lessons.py"


def open_lessons(**query) -> AppTest:
    """The Lessons page reached from Home (page links resolve against app.py)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(LESSONS_PAGE)
    for k, v in query.items():
        at.query_params[k] = str(v)
    at.run()
    assert_clean(at)
    return at
