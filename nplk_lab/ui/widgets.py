"""Widgets drawn from the settings table: settings, data, methods, click-to-add points."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.model as lab
from nplk_lab.ui.components.chart import clicks

from .keys import CLICK_BOUNDS, CLICK_SEEN, POINTS_UNDO
from .sharing import cached
from .state import _CSV, PREFIX, STORE, from_browser, params, safe_text

# ---------------------------------------------------------------------------
# widgets from the settings table
# ---------------------------------------------------------------------------


def _with_value(options: Sequence, value: Any) -> list:
    opts = list(options)
    if value in opts:
        return opts
    nums = [o for o in opts if isinstance(o, (int, float)) and not isinstance(o, bool)]
    if isinstance(value, (int, float)) and len(nums) == len(opts):
        return sorted(opts + [value])
    return opts


_Unset = object()   # the widget keeps the value the browser sent


def control(name: str, container: Any = None, *, options: Sequence | None = None,
            label: str | None = None, disabled: bool = False, help: str | None = None
            ) -> Any:
    """Draw the widget of setting ``name`` (kind, range, log scale from the table),
    seeded from and written back to the store. Returns the value. ``label`` and ``help``
    replace the table's words where a page needs its own (Regression's "plain SVR")."""
    s = lab.setting(name)
    ss = st.session_state
    P = params()
    c = container or st
    key = PREFIX + name
    value = P.get(name, s.default)
    label = label or s.label
    # the store takes a changed value before the rerun starts, so what is drawn above
    # this widget (the surface above "Show the plain SVM") sees the new value at once
    kw = dict(key=key, help=help or s.help or None, disabled=disabled, on_change=_to_store,
              args=(name, key))
    if from_browser(key):        # a reconnected tab's value (see state.from_browser)
        value = _Unset
    if s.kind == "choice":
        opts = list(options if options is not None else s.options)
        if value is not _Unset and value not in opts:
            value = opts[0]
        if value is not _Unset and ss.get(key) not in opts:
            ss[key] = value
        if len(opts) <= 4 and all(isinstance(o, str) for o in opts) and name.endswith("view"):
            out = c.radio(label, opts, format_func=s.format, horizontal=True, **kw)
        else:
            out = c.selectbox(label, opts, format_func=s.format, **kw)
    elif s.kind == "bool":
        if key not in ss and value is not _Unset:
            ss[key] = bool(value)
        out = c.toggle(label, **kw)
    elif s.kind == "int" and not s.grid():
        if value is not _Unset and (key not in ss or not isinstance(ss[key], int)):
            ss[key] = int(value)
        out = c.slider(label, min_value=int(s.min), max_value=int(s.max),
                       step=int(s.step or 1), **kw)
    elif s.kind == "float" and not s.log:
        if value is not _Unset and (key not in ss or not isinstance(ss[key], float)):
            ss[key] = float(value)
        out = c.slider(label, min_value=float(s.min), max_value=float(s.max),
                       step=float(s.step) if s.step else None, **kw)
    elif s.kind in ("float", "float_auto", "int"):
        grid = list(s.grid())
        held = P.get(name, s.default) if value is _Unset else value
        opts = (["auto"] if s.kind == "float_auto" else []) + _with_value(
            grid, held if held != "auto" else grid[0])
        if value is not _Unset and value not in opts:
            value = opts[0]
        if value is not _Unset and ss.get(key) not in opts:
            ss[key] = value
        out = c.select_slider(label, options=opts, format_func=s.format, **kw)
    else:
        raise ValueError(f"setting {name!r} of kind {s.kind!r} has no generic widget")
    P[name] = out
    return out


def _to_store(name: str, key: str) -> None:
    """``on_change`` of a setting's widget: its new value into the params store."""
    ss = st.session_state
    if STORE in ss and key in ss:
        ss[STORE][name] = ss[key]


def controls(names: Iterable[str], container: Any = None) -> None:
    for n in names:
        control(n, container)


def range_control(name: str, param: str, container: Any = None) -> tuple[float, float]:
    """A range slider over the grid of setting ``param`` (the sweep range)."""
    s = lab.setting(param)
    ss = st.session_state
    P = params()
    c = container or st
    key = f"{PREFIX}{name}_{param}"
    if s.kind == "int":
        grid = sorted({int(v) for v in np.linspace(s.min, s.max, 25).round()})
    else:
        grid = list(s.grid()) or [float(f"{v:.4g}") for v in np.linspace(s.min, s.max, 25)]
    value = tuple(P.get(name) or ())
    if len(value) != 2 or value[0] not in grid or value[1] not in grid:
        value = (grid[0], grid[-1])
    cur = ss.get(key)
    if cur is not None and not (isinstance(cur, (tuple, list)) and len(cur) == 2 and
                                cur[0] in grid and cur[1] in grid):
        del ss[key]
    # a range slider must get its default through value= (Streamlit decides range vs
    # single from it); the state, once the widget exists, wins over value=
    lo, hi = c.select_slider(f"Range of {s.label}", options=grid, value=value,
                             format_func=s.format, key=key, help=lab.setting(name).help)
    if lo == hi:
        i = grid.index(lo)
        lo, hi = (grid[i - 1], hi) if i > 0 else (lo, grid[i + 1])
    P[name] = (lo, hi)
    return lo, hi


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

def _seeded_selectbox(c: Any, name: str, s: Any, opts: list, fmt: Callable) -> Any:
    """A selectbox over ``opts`` seeded from the store (falling back to the first option
    when the stored value is not offered) and written back to it."""
    ss = st.session_state
    key = PREFIX + name
    P = params()
    if P.get(name) not in opts:
        P[name] = opts[0]
    if ss.get(key) not in opts:
        ss[key] = P[name]
    P[name] = c.selectbox(s.label, opts, format_func=fmt, key=key, help=s.help)
    return P[name]


def dataset_controls(page: str, task: str, container: Any = None,
                     options: Sequence[str] | None = None) -> None:
    """Dataset choice, its own parameters, size, test fraction, seed and CSV upload."""
    c = container or st
    name = "reg_dataset" if task == lab.REGRESSION else "dataset"
    s = lab.setting(name)
    opts = list(options or s.options)
    ds_labels = _dataset_labels()

    def label_of(v: str) -> str:
        return ds_labels.get(v, s.format(v))

    chosen = _seeded_selectbox(c, name, s, opts, label_of)
    if chosen == "csv":
        _csv_uploader(task, c)
        control("standardize", c)
    elif chosen != "drawn":
        for st_ in lab.settings().values():
            if st_.datasets == (chosen,):
                control(st_.name, c)
        control("n_samples", c)
    if page in ("classification", "regression", "sensitivity"):
        control("test_size", c)
    control("seed", c)


def _dataset_labels() -> dict[str, str]:
    try:
        from nplk_core import datasets
        return {k: v.label for k, v in datasets.DATASETS.items()}
    except (ImportError, AttributeError):
        return {}


def _csv_uploader(task: str, container: Any) -> None:
    ss = st.session_state
    up = container.file_uploader(f"CSV file (features…, label; at most {lab.MAX_CSV_MB} MB)",
                                 type=["csv", "txt"], key=f"{PREFIX}csv_{task}",
                                 help="One row per point; the label column is the one named "
                                      "label / y / target / class, else the last column.")
    if up is not None and up.size > lab.MAX_CSV_BYTES:
        # refused by its size alone: its bytes are not kept in the session
        ss.pop(f"{_CSV}_{task}", None)
        container.error(safe_text(
            f"“{lab.clip(up.name)}” is {up.size / 1e6:.1f} MB; the lab reads CSV files "
            f"of at most {lab.MAX_CSV_MB} MB. Upload a random subset of its rows."))
        return
    if up is not None:
        ss[f"{_CSV}_{task}"] = (up.name, up.getvalue())
    held = ss.get(f"{_CSV}_{task}")
    if up is None and held is not None:
        container.caption(safe_text(f"Using the earlier upload “{lab.clip(held[0])}”."))


def uploaded_csv(task: str) -> bytes | None:
    held = st.session_state.get(f"{_CSV}_{task}")
    return None if held is None else held[1]


def get_data(task: str, *, seed: int | None = None) -> tuple[lab.LabData | None,
                                                            list[lab.Message]]:
    """The current data (cached on every setting that shapes it)."""
    P = params()
    name = P["reg_dataset"] if task == lab.REGRESSION else P["dataset"]
    csv = uploaded_csv(task) if name == "csv" else None
    dkeys = tuple((s.name, P.get(s.name)) for s in lab.settings().values()
                  if s.datasets == (name,))
    key = (task, name, P["n_samples"], P["test_size"], P["seed"] if seed is None else seed,
           dkeys, P.get("points", ()) if task == lab.CLASSIFICATION else (),
           None if csv is None else lab.array_key(np.frombuffer(csv, dtype=np.uint8)))
    return cached("data", key, lambda: lab.prepare_data(P, task, seed=seed, csv=csv))


# ---------------------------------------------------------------------------
# methods and fits
# ---------------------------------------------------------------------------

def method_controls(name: str, container: Any = None,
                    options: Sequence[str] | None = None) -> str:
    """Method choice and the parameters that apply to it. (Whether the method's solver
    imports is checked by the page before fitting, not here: importing every solver to
    label the options would put scikit-learn's ~1 s import before the first widget.)"""
    c = container or st
    s = lab.setting(name)
    opts = list(options or s.options)
    method = _seeded_selectbox(c, name, s, opts, s.format)
    spec = lab.METHODS[method]
    c.caption(spec.description)
    P = params()
    for p in spec.params:
        if all(P.get(k) == v for k, v in lab.setting(p).when):
            control(p, c)
    return method


# ---------------------------------------------------------------------------
# classification: the decision surface with click-to-add points
# ---------------------------------------------------------------------------

_SURFACE = "surface"          # the surface chart's key
_ADD_CLASS = f"{PREFIX}add_class"


_ADD_HELP = ("On: a click on the plot adds a point of the chosen class there. Off: a click "
             "selects a training point and shows its learned influence.")


def points_panel(force: bool = False) -> tuple[bool, int]:
    """Controls for adding points by clicking: on/off, class, undo, clear.

    Returns (add mode on, class to add)."""
    ss = st.session_state
    P = params()
    n = len(P.get("points", ()))
    with st.expander(f"Add points by clicking ({n} added)", expanded=force or n > 0):
        # the four controls side by side in one row (one layout element, not 4 columns)
        row = st.container(horizontal=True, vertical_alignment="center")
        cols = [row] * 4
        if force:  # "your points": always on (shown on, not as a switch left off)
            on = cols[0].toggle("Click to add", value=True, key="add_mode_forced",
                                disabled=True, help=_ADD_HELP)
        else:
            on = cols[0].toggle("Click to add", value=False, key=f"{PREFIX}add_mode",
                                help=_ADD_HELP)
        label = cols[1].radio("Class", (1, -1), format_func=lambda v: "+1" if v > 0 else "−1",
                              horizontal=True, key=_ADD_CLASS,
                              label_visibility="collapsed",
                              help="The class of the points your clicks add.")
        if cols[2].button("Undo", key="points_undo", disabled=not ss.get(POINTS_UNDO),
                          help="Take back the last points added (or the last Clear)."):
            P["points"] = ss[POINTS_UNDO].pop()
            st.rerun()
        if cols[3].button("Clear", key="points_clear", disabled=n == 0,
                          help="Remove every point you added (Undo brings them back)."):
            ss.setdefault(POINTS_UNDO, []).append(P.get("points", ()))
            P["points"] = ()
            st.rerun()
        st.caption("Switch on “Click to add”, then click the plot where a point of the "
                   "chosen class should go; the model refits at once. Drag to zoom; the "
                   "axes stay put while you add points.")
    return bool(on or force), int(label)


def _add_clicked_points() -> None:
    """``on_click`` of the surface (runs before the script): the clicked spots become
    points of the chosen class, one undo step per click batch."""
    ss = st.session_state
    label = ss.get(_ADD_CLASS, 1)
    new, newest = lab.points_from_clicks(clicks(_SURFACE), int(label) if label else 1,
                                         seen=ss.get(CLICK_SEEN, 0.0), bounds=ss.get(CLICK_BOUNDS))
    ss[CLICK_SEEN] = newest
    if new and STORE in ss:
        P = params()
        ss.setdefault(POINTS_UNDO, []).append(P.get("points", ()))
        P["points"] = lab.add_points(P.get("points", ()), new)
