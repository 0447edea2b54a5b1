"""Words on screen are for a student: no seed numbers of the papers ("seed 000"), no code
names (``tau``, ``onk_rho``), and every control says in one line what it does.

Two levels: the settings table (every label, option and help line, whether or not a page
shows it now) and every page walked with AppTest in several states, collecting every
text element, widget label, option, help line, metric and the titles, axis titles,
legend names and annotations of every chart.
"""

import json
import re
import sys
from pathlib import Path

import pytest
from _components import figure_of
from _plain_words import STATES, figure_texts
from streamlit.testing.v1 import AppTest

import nplk_lab.model as lab

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TIMEOUT = 180
SEED_PAPER = re.compile(r"seed\s*0\d\d|\bseeds?\s+\d{3}\b|the seed use|\(seed:", re.I)
SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
# parameter names of the estimators that a student would see as code
BARE = re.compile(r"\b(tau|sigma|eta|gamma|lam|epsilon|rho|onk|npkl|knpl_solver)\b")
# text shown on purpose as code: the Python package a reader imports, file names
ALLOWED = re.compile(r"`[^`]*`|nplk_core|nplk_lab\.model\.\w+"
                     r"|[\w.-]+\.(py|csv|json|npy|md|gif|html)")


def offending(text: str, *, code_names: bool = True) -> list[str]:
    """The seed numbers and code names in ``text`` (text in backticks excepted)."""
    t = ALLOWED.sub(" ", str(text))
    bad = SEED_PAPER.findall(t)
    if code_names:
        bad += SNAKE.findall(t) + BARE.findall(t)
    return bad


def test_the_checker_catches_what_it_should():
    assert offending("DANK (seed 000 Fig. 4)")
    assert offending("Swept parameter: onk_rho")
    assert offending("tau")
    assert not offending("τ (nuclear-norm weight)")
    assert not offending("the solvers live in `nplk_core`")
    assert not offending("Seed")  # the data seed is a setting, not a paper's number


# ---------------------------------------------------------------------------
# the settings table
# ---------------------------------------------------------------------------

def test_settings_table_words():
    bad = {}
    for name, s in lab.settings().items():
        words = [s.label, s.help] + [s.format(o) for o in s.options]
        found = [w for t in words for w in offending(t)]
        if found:
            bad[name] = found
        if not s.help.strip():
            bad.setdefault(name, []).append("no help line")
    assert not bad, bad


def test_method_descriptions_and_labels():
    for m, spec in lab.METHODS.items():
        assert not offending(spec.label + " " + spec.description), (m, spec.description)


def test_sweep_parameter_list_uses_slider_names():
    s = lab.setting("sweep_param")
    for p in s.options:
        assert s.format(p) == lab.setting(p).label, p


# ---------------------------------------------------------------------------
# every page, several states
# ---------------------------------------------------------------------------


def _page_texts(at: AppTest) -> tuple[list[str], list[str]]:
    """(words shown, controls without a help line)."""

    shown, no_help = [], []
    for kind in ("title", "header", "subheader", "caption", "markdown", "info", "warning",
                 "error", "success", "text"):
        shown += [str(e.value) for e in getattr(at, kind)]
    for m in at.metric:
        shown += [m.label, m.help or ""]
    widgets = ("selectbox", "select_slider", "slider", "toggle", "radio", "checkbox",
               "button", "number_input", "text_input", "multiselect")
    for kind in widgets:
        for w in getattr(at, kind):
            shown.append(w.label)
            shown += [str(o) for o in getattr(w, "options", [])]
            # a button with a keyboard shortcut shows its key instead of a tooltip (the
            # lesson's Back and Next: a tooltip stayed over the words the click revealed)
            keyed = kind == "button" and getattr(w.proto, "shortcut", "")
            if not (w.help or "").strip() and not keyed:
                no_help.append(f"{kind} {w.label!r}")
            shown.append(w.help or "")
    for kind in ("download_button", "file_uploader", "page_link"):
        for e in at.get(kind):
            proto = e.proto
            shown.append(getattr(proto, "label", ""))
            if kind != "page_link" and not getattr(proto, "help", "").strip():
                no_help.append(f"{kind} {proto.label!r}")
    for e in at.get("bidi_component"):
        fig = figure_of(e)
        if fig is not None:
            shown += figure_texts(fig)
    for e in at.get("plotly_chart"):
        shown += figure_texts(json.loads(e.proto.spec))
    for e in at.get("arrow_data_frame"):
        try:
            shown += [str(c) for c in e.value.columns]
        except Exception:  # noqa: BLE001 - a table this walker cannot read adds nothing
            pass
    return shown, no_help


@pytest.mark.slow
@pytest.mark.parametrize("page,query", STATES,
                         ids=[f"{p.split('/')[-1]}-{i}" for i, (p, _) in enumerate(STATES)])
def test_page_shows_plain_words(page, query):
    if page.endswith(("Paper_results.py", "Lessons.py")):
        # its links resolve against the entry script: reached from Home, as in the app
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
        at.switch_page(page)
    else:
        at = AppTest.from_file(str(ROOT / page), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown, no_help = _page_texts(at)
    assert len(shown) > 5
    # the Paper results table quotes the committed report (reports/reproduce), whose notes
    # use symbols such as n_train: seed numbers only are checked there
    names = not page.endswith("Paper_results.py")
    bad = {t[:120]: offending(t, code_names=names) for t in shown
           if offending(t, code_names=names)}
    assert not bad, bad
    assert not no_help, no_help
