"""Every text a page shows a student, as (kind, text) pairs read from an AppTest run,
and the page states the plain-words walk opens (each page with its help states and the
Paper results page): shared by the walk and the register's check of on-screen words."""

from __future__ import annotations

import json
from pathlib import Path

from _components import figure_of
from _plain_words import SMALL, figure_texts
from _plain_words import STATES as HELP_STATES
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, Expander

ROOT = Path(__file__).resolve().parents[1]

TIMEOUT = 180

RESEARCHERS = "For researchers"


def screen_texts(at: AppTest) -> list[tuple[str, str]]:
    """Every (text, help) on the screen, leaving out the "For researchers" notes."""
    out: list[tuple[str, str]] = []

    def walk(node) -> None:
        if isinstance(node, Expander) and node.label.startswith(RESEARCHERS):
            return
        if isinstance(node, Block):
            if getattr(node, "label", ""):
                out.append((str(node.label), ""))
            for child in node.children.values():
                walk(child)
            return
        out.extend(element_texts(node))

    walk(at._tree)
    return [(t, h) for t, h in out if (t or h).strip()]


# the states the help-text test opens (but Paper results, where the papers' references
# belong), and more: every view, presentation mode
STATES = [*(s for s in HELP_STATES if not s[0].endswith("Paper_results.py")),
    ("pages/1_Classification.py", {**SMALL, "method": "knpl", "show_nn": "true"}),
    ("pages/1_Classification.py", {**SMALL, "method": "onk", "view": "spectra"}),
    ("pages/1_Classification.py", {**SMALL, "method": "lab_rbf", "view": "bandwidth"}),
    ("pages/1_Classification.py", {**SMALL, "dataset": "drawn"}),
    ("pages/1_Classification.py", {**SMALL, "view": "convergence", "compare_solvers": "true",
                                   "focus_point": "3", "influence_view": "pair",
                                   "ablation_cv": "true"}),
    ("pages/1_Classification.py", {**SMALL, "method": "onk", "view": "matrix",
                                   "present": "true"}),
    ("pages/2_Regression.py", {**SMALL, "reg_method": "svr", "reg_view": "spectra"}),
    ("pages/2_Regression.py", {**SMALL, "reg_dataset": "step", "show_nn": "true",
                               "ablation_cv": "true", "focus_point": "2"}),
    ("pages/2_Regression.py", {**SMALL, "reg_method": "krr", "present": "true"}),
    ("pages/3_Pairwise_constraints.py", {**SMALL, "pair_view": "spectra"}),
    ("pages/3_Pairwise_constraints.py", {**SMALL, "pair_view": "convergence",
                                         "npkl_loss": "hinge", "pair_lines": "10"}),
    ("pages/4_Sensitivity.py", {**SMALL, "sweep_points": "3", "sweep_repeats": "1",
                                "sweep_method": "lab_rbf", "sweep_param": "n_support",
                                "sweep_param2": "lam", "sweep_points2": "3"}),
    ("pages/4_Sensitivity.py", {**SMALL, "sweep_points": "3", "sweep_repeats": "1",
                                "sweep_method": "knpl", "sweep_param": "gamma"}),
    ("pages/5_Scaling.py", {**SMALL, "scale_max_clusters": "3", "present": "true"}),
    ("pages/7_Lessons.py", {"lesson": "2", "step": "2", "present": "true"}),
]


def open_page(page: str, query: dict[str, str]) -> AppTest:
    if page.endswith("Lessons.py"):
        # its links resolve against the entry script: reached from Home, as in the app
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
        at.switch_page(page)
    else:
        at = AppTest.from_file(str(ROOT / page), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return at.run()


def element_texts(node) -> list[tuple[str, str]]:
    """(text, help) pairs of one leaf element."""

    kind = node.type
    proto = node.proto
    if kind == "bidi_component":
        fig = figure_of(node)
        return [(t, "") for t in figure_texts(fig)] if fig is not None else []
    if kind == "plotly_chart":
        return [(t, "") for t in figure_texts(json.loads(proto.spec))]
    if kind == "arrow_data_frame":
        try:
            return [(str(c), "") for c in node.value.columns]
        except Exception:  # noqa: BLE001 - a table this walker cannot read adds nothing
            return []
    help_text = str(getattr(proto, "help", "") or "")
    parts = [v for field in ("body", "label", "text", "placeholder")
             for v in [getattr(proto, field, None)] if isinstance(v, str) and v]
    # a widget's options are read with its label and its help
    parts += [str(o) for o in getattr(proto, "options", []) or []]
    return [(" | ".join(parts), help_text)] if parts or help_text else []
