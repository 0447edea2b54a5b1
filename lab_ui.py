"""Streamlit glue shared by the NPLK Lab pages.

This module is long because it is still the whole Streamlit layer (state and URL,
widgets, progress, charts, exports); issue 12 splits it by concern.

Everything numeric lives in :mod:`nplk_core` (``lab`` for state, data and fits,
``figures`` for plots); this module only turns the settings table into widgets,
keeps the state (session + URL), caches fits, shows messages and offers exports.

State protocol. ``st.session_state[STORE]`` is the one ``params`` dict of the
session. Widgets use keys ``"w_<setting>"``; each is seeded from the store before it
is drawn and written back after, so values survive page switches (Streamlit drops
the state of widgets that are not drawn) and programmatic changes (config upload,
reset) only have to edit the store and drop the widget keys. The URL is read once
per session (a pasted link) and rewritten at the end of every run.
"""

from __future__ import annotations

import io
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import streamlit as st

import nplk_app as lab
import nplk_figures as fg
from lab_chart import clicks, live_chart, preload
from nplk_app import budget

STORE = "lab_params"
PREFIX = "w_"
_LAST_GOOD = "lab_last_good"
_PREV_FIT = "lab_prev_fit"
_CSV = "lab_csv"
_STATUS = "lab_status_slot"
_STOP = "lab_stop_request"
_STOPPED = "lab_stopped_fit"

PAGE_FILES = {
    "classification": "pages/1_Classification.py",
    "regression": "pages/2_Regression.py",
    "pairwise": "pages/3_Pairwise_constraints.py",
    "sensitivity": "pages/4_Sensitivity.py",
    "scaling": "pages/5_Scaling.py",
}


# ---------------------------------------------------------------------------
# caches (one LRU per kind, shared by the sessions of this server)
# ---------------------------------------------------------------------------

def nbytes(obj: Any, depth: int = 4) -> int:
    """Rough memory of a cached value: the numpy arrays reachable in a few hops."""
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if depth == 0 or isinstance(obj, (str, bytes, int, float, type(None))):
        return 0
    if isinstance(obj, dict):
        return sum(nbytes(v, depth - 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v, depth - 1) for v in obj[:64])
    d = getattr(obj, "__dict__", None)
    return nbytes(d, depth - 1) if isinstance(d, dict) else 0


class LRU:
    """A small thread-safe least-recently-used map bounded by entries and bytes."""

    def __init__(self, maxsize: int = 64, max_bytes: int = 200 * 2 ** 20) -> None:
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._d: OrderedDict = OrderedDict()
        self._sizes: dict = {}
        self._lock = threading.Lock()

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        return default

    def put(self, key: Any, value: Any) -> Any:
        """Store and return ``value``; a value larger than the whole byte budget is
        returned but not kept (it would evict everything else and stay)."""
        size = nbytes(value)
        with self._lock:
            if size > self.max_bytes:
                self._d.pop(key, None)
                self._sizes.pop(key, None)
                return value
            self._d[key] = value
            self._sizes[key] = size
            self._d.move_to_end(key)
            while self._d and (len(self._d) > self.maxsize or
                               sum(self._sizes.values()) > self.max_bytes):
                old, _ = self._d.popitem(last=False)
                self._sizes.pop(old, None)
        return value

    def __len__(self) -> int:
        return len(self._d)


@st.cache_resource(show_spinner=False)
def cache(name: str) -> LRU:
    """The LRU store ``name`` ("data", "fits", "grids", "figs", "sweeps")."""
    return LRU(128 if name == "figs" else 64,
               max_bytes=(300 if name == "fits" else 100) * 2 ** 20)


def cached(kind: str, key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per ``key`` in the store ``kind``, also across sessions that
    ask at the same moment (see :func:`single_flight`)."""
    store = cache(kind)
    hit = store.get(key, _MISS)
    if hit is not _MISS:
        return hit
    return single_flight(kind, key, lambda: store.put(key, compute()))


_FLIGHTS: dict[Any, threading.Lock] = {}
_FLIGHTS_LOCK = threading.Lock()


def single_flight(kind: str, key: Any, compute: Callable[[], Any]) -> Any:
    """Run ``compute()`` for ``(kind, key)`` in one session at a time; a session that asks
    for a value another session is computing waits for it and reads it from the store.

    Without this, six students opening the same page at once made six identical fits
    compete for two cores. The waiting session reports through its status line each
    0.2 s: that Streamlit call is where a new widget value or a closed tab ends the wait.
    (``st.cache_data`` does the same for its own entries, but the lab's stores are
    byte-bounded LRUs shared with the fit runner, which reports progress as it goes.)"""
    with _FLIGHTS_LOCK:
        lock = _FLIGHTS.setdefault((kind, key), threading.Lock())
    if not lock.acquire(blocking=False):
        progress = Progress("Waiting for the same computation in another session")
        while not lock.acquire(timeout=0.2):
            progress.report("it will be shared with this page")
        progress.done()
        hit = cache(kind).get(key, _MISS)
        if hit is not _MISS:
            lock.release()
            return hit
    try:
        return compute()
    finally:
        lock.release()
        with _FLIGHTS_LOCK:
            if _FLIGHTS.get((kind, key)) is lock and not lock.locked():
                _FLIGHTS.pop((kind, key), None)


_MISS = object()


# ---------------------------------------------------------------------------
# page set-up, state and URL
# ---------------------------------------------------------------------------

def page_setup(page: str, title: str, icon: str = "🧪") -> dict[str, Any]:
    """Configure the page and load the state (applying the URL when it carries a state
    this session did not write); return the live ``params`` dict."""
    st.set_page_config(page_title=f"{title} · NPLK Lab", page_icon=icon, layout="wide")
    # First element of every page: the browser starts fetching Plotly.js now, while
    # this run imports scikit-learn and fits (the first run of a new server).
    with st.sidebar:
        preload()
    ss = st.session_state
    if STORE not in ss:
        ss[STORE] = lab.defaults()
    if ss.get("lab_page") != page:
        # A widget of another page keeps its state under the same key, but the new
        # page's widget is a different element and would start from its own default:
        # drop the keys so every widget re-seeds from the store.
        for key in [k for k in ss.keys() if isinstance(k, str) and k.startswith(PREFIX)]:
            del ss[key]
    _read_url(ss)
    ss["lab_page"] = page
    return ss[STORE]


def _read_url(ss: Any) -> None:
    """Apply the URL's state when it is not the one this session last wrote (a pasted
    link, a browser refresh, a "try this" link); invalid values become notes."""
    query = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
    flat = {k: v[-1] if v else "" for k, v in query.items()}
    if not query or flat == ss.get("lab_url_written"):
        return
    old = ss[STORE]
    new, msgs = lab.decode_query(query, old)
    ss[STORE] = new
    for name in [k for k in new if new[k] != old.get(k)]:
        for key in [k for k in ss.keys() if isinstance(k, str) and
                    (k == PREFIX + name or k.startswith(f"{PREFIX}{name}_"))]:
            del ss[key]
    ss["lab_url_written"] = flat
    notes = ss.setdefault("lab_notes", [])
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
    st.session_state["lab_url_written"] = q


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
    show_messages(st.session_state.pop("lab_notes", []))


# ---------------------------------------------------------------------------
# running work: progress line, Stop button, interruption
# ---------------------------------------------------------------------------

def _request_stop() -> None:
    st.session_state[_STOP] = True


def stop_requested() -> bool:
    """True once per press of a Stop button (the press reruns the script: the running fit
    was interrupted at its next progress report, and this run must not start it again)."""
    return bool(st.session_state.pop(_STOP, False))


class Progress:
    """A progress line with a Stop button in the page's status slot.

    The slot is created at the same position on every run (:func:`show_notes`), so while
    a fit runs the figures below it stay on screen (Streamlit dims what the running
    script has not redrawn yet) instead of being pushed down or replaced by a progress
    bar. Each report reaches a Streamlit call, which is where a newer widget value, a
    press of Stop or a closed tab interrupts the run: the fit stops at its next
    iteration. Reports are throttled (the first after ``delay`` seconds, then every
    0.15 s) so fast fits draw nothing."""

    _count = 0

    def __init__(self, label: str, *, delay: float = 0.3) -> None:
        self.label = label
        self.delay = delay
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.line = None
        slot = st.session_state.get(_STATUS)
        self.slot = slot if slot is not None else st.empty()

    def report(self, text: str, *, force: bool = False) -> bool:
        now = time.perf_counter() - self.t0
        if not force and (now < self.delay or now - self.last < 0.15):
            return False
        self.last = now
        if self.line is None:
            Progress._count += 1
            box = self.slot.container()
            left, right = box.columns([6, 1], vertical_alignment="center")
            self.line = left.empty()
            right.button("Stop", key=f"lab_stop_{Progress._count}", on_click=_request_stop,
                         help="Stop this computation; the last result stays on screen.")
        self.line.caption(f"Running · {self.label}: {text} ({now:.1f} s)")
        return False

    def callback(self, prefix: str = "") -> Callable:
        """A solver callback ``(iteration, state, elapsed)`` reporting the iteration and
        the objective."""
        def cb(iteration: int, info: Mapping[str, Any], elapsed: float) -> bool:
            obj = info.get("objective") if isinstance(info, Mapping) else None
            txt = f"{prefix}iteration {iteration + 1}"
            if isinstance(obj, (int, float)) and np.isfinite(obj):
                txt += f", objective {obj:.6g}"
            return self.report(txt)
        return cb

    def done(self) -> None:
        if self.line is not None:
            self.slot.empty()


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


def control(name: str, container: Any = None, *, options: Sequence | None = None,
            label: str | None = None, disabled: bool = False) -> Any:
    """Draw the widget of setting ``name`` (kind, range, log scale from the table),
    seeded from and written back to the store. Returns the value."""
    s = lab.setting(name)
    ss = st.session_state
    P = params()
    c = container or st
    key = PREFIX + name
    value = P.get(name, s.default)
    label = label or s.label
    kw = dict(key=key, help=s.help or None, disabled=disabled)
    if s.kind == "choice":
        opts = list(options if options is not None else s.options)
        if value not in opts:
            value = opts[0]
        if ss.get(key) not in opts:
            ss[key] = value
        if len(opts) <= 4 and all(isinstance(o, str) for o in opts) and name.endswith("view"):
            out = c.radio(label, opts, format_func=s.format, horizontal=True, **kw)
        else:
            out = c.selectbox(label, opts, format_func=s.format, **kw)
    elif s.kind == "bool":
        if key not in ss:
            ss[key] = bool(value)
        out = c.toggle(label, **kw)
    elif s.kind == "int" and not s.grid():
        if key not in ss or not isinstance(ss[key], int):
            ss[key] = int(value)
        out = c.slider(label, min_value=int(s.min), max_value=int(s.max),
                       step=int(s.step or 1), **kw)
    elif s.kind == "float" and not s.log:
        if key not in ss or not isinstance(ss[key], float):
            ss[key] = float(value)
        out = c.slider(label, min_value=float(s.min), max_value=float(s.max),
                       step=float(s.step) if s.step else None, **kw)
    elif s.kind in ("float", "float_auto", "int"):
        grid = list(s.grid())
        opts = (["auto"] if s.kind == "float_auto" else []) + _with_value(
            grid, value if value != "auto" else grid[0])
        if value not in opts:
            value = opts[0]
        if ss.get(key) not in opts:
            ss[key] = value
        out = c.select_slider(label, options=opts, format_func=s.format, **kw)
    else:
        raise ValueError(f"setting {name!r} of kind {s.kind!r} has no generic widget")
    P[name] = out
    return out


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
    up = container.file_uploader("CSV file (features…, label)", type=["csv", "txt"],
                                 key=f"{PREFIX}csv_{task}",
                                 help="One row per point; the label column is the one named "
                                      "label / y / target / class, else the last column.")
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


def fit_key(P: Mapping[str, Any], data: lab.LabData, method: str) -> tuple:
    spec = lab.METHODS[method]
    return (method, data.key, tuple((p, P.get(p)) for p in spec.params), P.get("seed"))


def fit(P: Mapping[str, Any], data: lab.LabData, method: str, *, page: str
        ) -> lab.LabResult:
    """Cached fit; warm-starts from this page's previous fit when only a continuous
    parameter moved; reports progress (with a Stop button) for long fits. After Stop, the
    same settings are not fitted again until one of them changes."""
    key = fit_key(P, data, method)
    store = cache("fits")
    res = store.get(key)
    ss = st.session_state
    prev = ss.setdefault(_PREV_FIT, {})
    if res is None:
        spec = lab.METHODS[method]
        if stop_requested():
            ss[_STOPPED] = key
        if ss.get(_STOPPED) == key:
            return lab.LabResult(method=method, task=spec.task, params=dict(P), stopped=True,
                                 messages=[lab.Message("warning", (
                                     f"{spec.label} stopped; the last result stays on "
                                     "screen. Change a setting to fit again."))])
        ss.pop(_STOPPED, None)
        warm = prev.get((page, method))
        if warm is not None and not (warm.data_key == data.key and
                                     lab.can_warm_start(warm.params, P, method)):
            warm = None
        def compute() -> lab.LabResult:
            progress = Progress(f"Fitting {spec.label}")
            out = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                                 method=method, warm_from=warm,
                                 callback=progress.callback(), data_key=data.key)
            progress.done()
            return store.put(key, out)
        res = single_flight("fits", key, compute)
    if res.ok:
        prev[(page, method)] = res
    return res


def keep_good(page: str, data: lab.LabData | None, res: Any,
              messages: Iterable[lab.Message] = ()) -> tuple[lab.LabData, Any] | None:
    """Return (data, res) when usable and remember it. After an error (bad CSV, one
    class, failed solve) return the last good pair of this page, with a caption, so
    the previous result stays on screen; when there is simply nothing yet (no upload,
    no points) return None."""
    ss = st.session_state
    good = ss.setdefault(_LAST_GOOD, {})
    if data is not None and res is not None and getattr(res, "ok", True):
        good[page] = (data, res)
        return data, res
    msgs = list(messages) + list(getattr(res, "messages", []) or [])
    if not (getattr(res, "stopped", False) or any(m.level == "error" for m in msgs)):
        return None
    last = good.get(page)
    if last is not None:
        st.caption("Showing the last good result until the problem above is fixed.")
    return last


def grid_for(data: lab.LabData, resolution: int | None = None) -> lab.Grid:
    """The surface grid: over the data without the points the user added (which only
    widen it when they lie outside), so adding a point never moves the axes; 100×100,
    coarser when the grid-to-training distances of a large sample would not fit the
    memory budget."""
    if resolution is None:
        resolution = budget.grid_resolution(len(data.X_train))

    def build():
        store = st.session_state.get(STORE) or {}
        points = store.get("points", ()) if data.task == lab.CLASSIFICATION else ()
        k = lab.added_rows(data.X_train, points)
        if not k:
            return lab.make_grid(data.X, resolution)
        return lab.canvas_grid(np.vstack([data.X_train[:-k], data.X_test]),
                               data.X_train[-k:], resolution)
    return cached("grids", ("grid", data.key, resolution), build)


def grid_values(res: lab.LabResult, data: lab.LabData, P: Mapping[str, Any],
                extension: str | None = None) -> tuple[np.ndarray | None, list]:
    """The fitted model on the 100×100 grid, once per fit (and out-of-sample rule)."""
    grid = grid_for(data)
    key = ("z", fit_key(res.params, data, res.method), extension)
    return cached("grids", key, lambda: lab.grid_values(
        res.estimator, grid, extension=extension, geometry=grid_geometry(data)))


def grid_geometry(data: lab.LabData) -> lab.GridGeometry:
    """Grid-to-training distances, once per data set (shared by every σ and model)."""
    return cached("grids", ("geometry", data.key),
                  lambda: lab.grid_geometry(grid_for(data), data.X_train))


def baseline_values(data: lab.LabData, C: float, sigma: float) -> np.ndarray | None:
    """The plain SVM's decision values on the grid (independent of DANK's parameters)."""
    def compute():
        svm = lab.fit_baseline_svm(data.X_train, data.y_train, C=C, sigma=sigma)
        return None if svm is None else lab.grid_values(
            svm, grid_for(data), geometry=grid_geometry(data))[0]
    return cached("grids", ("svm", data.key, float(C), float(sigma)), compute)


def solver_histories(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, *,
                     page: str) -> dict[str, dict]:
    """Convergence histories to overlay: the current fit, plus every other solver of
    the method when "compare_solvers" is on."""
    spec = lab.METHODS[res.method]
    param = "solver" if "solver" in spec.params else (
        "onk_solver" if "onk_solver" in spec.params else None)
    label = lab.setting(param).format(P.get(param)) if param else spec.label
    hist = {label: res.history}
    if not (P.get("compare_solvers") and param):
        return hist
    for s in lab.setting(param).options:
        if s in ("auto", P.get(param)):
            continue
        other = fit({**P, param: s}, data, res.method, page=page)
        if other.ok:
            hist[lab.setting(param).format(s)] = other.history
    return hist


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------

def chart(fig: Any, key: str, filename: str, **kw: Any) -> Any:
    """A figure with the lab's PNG export settings, updated in place on reruns
    (:func:`lab_chart.live_chart`; ``kw``: its click reporting, ``on_click``, ``ack``,
    ``mark_color``)."""
    return live_chart(fg.figure_json(fig), key=key, config=fg.plot_config(filename),
                      height=fig.layout.height, **kw)


def metrics(res: lab.LabResult, container: Any = None, per_row: int = 5) -> None:
    """Train/test score, fit time, rank and iterations as ``st.metric`` tiles,
    ``per_row`` to a row (2 in a side column next to a figure)."""
    c = container or st
    if per_row >= 5:
        cols = c.columns(5)
    else:
        cols = [col for _ in range(-(-5 // per_row)) for col in c.columns(per_row)]
    lower = res.metric == "relative error"
    name = "rel. error" if lower else "accuracy"
    fmt = "{:.3g}" if lower else "{:.3f}"
    cols[0].metric(f"Train {name}", _fmt(res.train_score, fmt))
    cols[1].metric(f"Test {name}", _fmt(res.test_score, fmt))
    cols[2].metric("Fit time", f"{res.fit_time * 1000:.0f} ms" if res.fit_time < 1
                   else f"{res.fit_time:.2f} s")
    if res.rank is not None:
        cols[3].metric(f"rank({res.matrix_name or 'F'})", str(res.rank))
    if res.n_iter is not None:
        conv = "" if res.converged in (None, True) else " (not converged)"
        cols[4].metric("Iterations", f"{res.n_iter}{conv}",
                       help="Warm-started from the previous fit." if res.warm_started
                       else None)


def _fmt(v: float, fmt: str = "{:.3f}") -> str:
    return "—" if v is None or not np.isfinite(v) else fmt.format(v)


def _npy(M: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(M))
    return buf.getvalue()


def exports(page: str, data: lab.LabData | None, res: lab.LabResult | None = None,
            container: Any = None) -> None:
    """Download buttons: data CSV, configuration JSON, learned matrix .npy."""
    c = container or st
    P = params()
    cols = c.columns(3)
    if data is not None:
        def csv_text() -> str:
            from nplk_core.datasets import dataset_to_csv
            return dataset_to_csv(data.X, data.y, feature_names=data.feature_names,
                                  label_name="label" if data.task == lab.CLASSIFICATION
                                  else data.label_name)
        cols[0].download_button("Data (CSV)", csv_text, file_name=f"nplk-{page}-data.csv",
                                mime="text/csv", key=f"dl_data_{page}", on_click="ignore")
    cols[1].download_button(
        "Configuration (JSON)", lambda: lab.params_to_json(P, lab.relevant_names(page, P)),
        file_name=f"nplk-{page}-config.json", mime="application/json",
        key=f"dl_cfg_{page}", on_click="ignore")
    if res is not None and res.matrix is not None:
        M = res.matrix
        cols[2].download_button(f"Learned {res.matrix_name} (.npy)", lambda: _npy(M),
                                file_name=f"nplk-{res.method}-{res.matrix_name}.npy",
                                mime="application/octet-stream", key=f"dl_mat_{page}",
                                on_click="ignore")
    c.caption("Figures: use the camera icon of each plot to save a PNG.")


def state_controls(page: str) -> None:
    """Sidebar footer: load a configuration, reset to defaults."""
    ss = st.session_state
    with st.sidebar.expander("Load / reset", expanded=False):
        up = st.file_uploader("Load a configuration (JSON)", type=["json"],
                              key=f"cfg_upload_{page}")
        if up is not None and ss.get("lab_cfg_applied") != up.file_id:
            ss["lab_cfg_applied"] = up.file_id
            new, msgs = lab.params_from_json(up.getvalue(), params())
            if not any(m.level == "error" for m in msgs):
                apply_params(new)
                ss["lab_notes"] = msgs + [lab.Message("info", "Configuration loaded.")]
                st.rerun()
            show_messages(msgs)
        if st.button("Reset to defaults", key=f"reset_{page}"):
            apply_params(lab.defaults())
            ss.pop("lab_points_undo", None)
            st.rerun()
        st.caption("The URL always holds the full state: copy it to share this view.")


# ---------------------------------------------------------------------------
# classification: the decision surface with click-to-add points
# ---------------------------------------------------------------------------

_UNDO = "lab_points_undo"
_SEEN = "lab_click_seen"      # id of the newest click applied (the chart resends newer)
_BOUNDS = "lab_click_bounds"  # where a click may add a point (around the drawn surface)
_SURFACE = "surface"          # the surface chart's key
_ADD_CLASS = f"{PREFIX}add_class"


def points_panel(force: bool = False) -> tuple[bool, int]:
    """Controls for adding points by clicking: on/off, class, undo, clear.

    Returns (add mode on, class to add)."""
    ss = st.session_state
    P = params()
    n = len(P.get("points", ()))
    with st.expander(f"Add points by clicking ({n} added)", expanded=force or n > 0):
        cols = st.columns([1.3, 1, 0.8, 0.8])
        if force:  # "your points": always on (shown on, not as a switch left off)
            on = cols[0].toggle("Click to add", value=True, key="add_mode_forced",
                                disabled=True)
        else:
            on = cols[0].toggle("Click to add", value=False, key=f"{PREFIX}add_mode")
        label = cols[1].radio("Class", (1, -1), format_func=lambda v: "+1" if v > 0 else "−1",
                              horizontal=True, key=_ADD_CLASS,
                              label_visibility="collapsed")
        if cols[2].button("Undo", key="points_undo", disabled=not ss.get(_UNDO)):
            P["points"] = ss[_UNDO].pop()
            st.rerun()
        if cols[3].button("Clear", key="points_clear", disabled=n == 0):
            ss.setdefault(_UNDO, []).append(P.get("points", ()))
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
                                         seen=ss.get(_SEEN, 0.0), bounds=ss.get(_BOUNDS))
    ss[_SEEN] = newest
    if new and STORE in ss:
        P = params()
        ss.setdefault(_UNDO, []).append(P.get("points", ()))
        P["points"] = lab.add_points(P.get("points", ()), new)


def surface_chart(P: Mapping[str, Any], data: lab.LabData | None, res: lab.LabResult | None,
                  *, add_mode: bool, add_label: int, page: str = "classification") -> None:
    """The decision surface (or the bare data) with the baseline SVM boundary; in add
    mode a click on the plot adds a point of class ``add_label`` there. The chart is
    updated in place and its axes come from the data without the added points
    (:func:`grid_for`), with ``uirevision`` keeping a user's zoom while they stay."""
    ss = st.session_state
    if data is not None and data.n_features != 2:
        st.info(f"The decision surface needs 2 features; these data have {data.n_features}. "
                "The other views still work.")
        return
    grid = grid_for(data) if data is not None else lab.make_grid(np.zeros((0, 2)))
    Z = base = None
    ext = P.get("extension") if res is not None and "extension" in _view_settings(res) \
        else None
    if res is not None:
        Z, msgs = grid_values(res, data, P, ext)
        show_messages(msgs)
        if P.get("show_baseline") and res.method != "svm":
            base = baseline_values(data, P["C"], P["sigma"])
    title = lab.METHODS[res.method].label if res is not None else "Data"
    if ext:
        title += f" — {lab.setting('extension').format(ext).split(' (')[0]} rule"
    key = ("surface", None if res is None else fit_key(res.params, data, res.method), ext,
           None if data is None else data.key, base is not None,
           float(P["C"]), float(P["sigma"]))
    x0, x1, y0, y1 = (float(v) for v in (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1]))

    def build():
        fig = fg.decision_surface(
            grid.xs, grid.ys, Z, data.X_train if data else np.zeros((0, 2)),
            data.y_train if data else np.zeros(0), data.X_test if data else None,
            data.y_test if data else None,
            support=None if res is None else res.support_points, baseline=base,
            baseline_name=f"SVM boundary (σ={P['sigma']:g}, C={P['C']:g})",
            train_score=None if res is None else res.train_score,
            test_score=None if res is None else res.test_score, title=title)
        # the same canvas keeps a user's zoom and pan across refits and added points
        fig.update_layout(uirevision=f"{x0:.6g},{x1:.6g},{y0:.6g},{y1:.6g}")
        return fig
    fig = cached("figs", key, build)
    if not add_mode:
        chart(fig, _SURFACE, f"nplk-{page}-surface")
        return
    # a click may land anywhere the user can see around the surface (zoomed out too)
    wx, wy = x1 - x0, y1 - y0
    ss[_BOUNDS] = ((x0 - wx, x1 + wx), (y0 - wy, y1 + wy))
    chart(fig, _SURFACE, f"nplk-{page}-surface", on_click=_add_clicked_points,
          ack=ss.get(_SEEN, 0.0), mark_color=fg.CLASS_COLORS[1 if add_label > 0 else -1])


def _view_settings(res: lab.LabResult) -> set[str]:
    return {s.name for s in lab.settings().values()
            if s.methods is not None and res.method in s.methods}


def matrix_figure(res: lab.LabResult, data: lab.LabData):
    """K | F | F∘K | F∘K − K for DANK and KNPL, K | G | G − K for ONK, K alone for
    plain kernels."""
    key = ("matrix", fit_key(res.params, data, res.method))

    def build():
        if res.matrix is not None and res.kernel is not None and \
                res.matrix.shape == res.kernel.shape:
            return fg.matrix_triptych(res.kernel, res.matrix, data.y_train,
                                      name=res.matrix_name, product=res.method != "onk",
                                      difference=True)
        if res.matrix is not None:
            return fg.matrix_heatmap(res.matrix, data.y_train, name=res.matrix_name)
        if res.kernel is not None:
            return fg.matrix_heatmap(res.kernel, data.y_train, name="K", center=None,
                                     title="Gaussian kernel K (points ordered by class)")
        return None
    return cached("figs", key, build)


def matrix_caption(res: lab.LabResult) -> str:
    """What the matrix view's colours mean (a multiplier F or G, or ONK's kernel G)."""
    name = res.matrix_name or "F"
    head = ("Training points ordered by class (or by target), black lines between the "
            "classes; hover for i, j and the value. ")
    if res.method == "onk":
        return head + (f"ONK's {name} = K + a rank-one term is itself a kernel: K and {name} "
                       f"share one colour scale. {name} − K is what was learned, diverging "
                       "around 0 (red = entries it strengthens, blue = entries it weakens; "
                       "the ends are ± its largest entry).")
    return head + (f"K and {name}∘K share one colour scale. {name} is diverging around 1 "
                   f"(white = the plain kernel, red = entries it strengthens, blue = entries "
                   f"it weakens; the ends are 1 ± its largest deviation, so even a small "
                   f"change shows). {name}∘K − K is where the kernel moved, around 0.")


def spectra_chart_figure(res: lab.LabResult, data: lab.LabData):
    key = ("spectra", fit_key(res.params, data, res.method))
    return cached("figs", key, lambda: fg.spectra_figure(
        res.spectra, rank=res.rank, rank_label=f"rank({res.matrix_name or 'F'})")
        if res.spectra else None)


def convergence_chart_figure(P: Mapping[str, Any], res: lab.LabResult, data: lab.LabData,
                             page: str):
    hist = solver_histories(P, data, res, page=page)
    extra = {k: v for k, v in _extra_histories(res).items()}
    key = ("conv", fit_key(res.params, data, res.method), tuple(hist), tuple(extra))
    if not any(h for h in hist.values()):
        return None

    def build():
        label = lab.METHODS[res.method].label
        figs = [fg.convergence_figure(hist, title=f"Convergence of {label}")]
        for name, h in extra.items():
            figs.append(fg.convergence_figure({name: h}, title=name))
        stages = getattr(res.estimator, "stages_", None)
        if isinstance(stages, dict) and len(stages.get("support_size", ())) > 1:
            figs.append(fg.lines_figure(
                np.asarray(stages["support_size"]),
                {"training loss (share of var y)": np.asarray(stages["loss"])},
                x_title="support points N", y_title="loss", log_y=True,
                title="LAB RBF: loss after each support stage (Alg. 1)"))
        return figs
    return cached("figs", key, build)


def _extra_histories(res: lab.LabResult) -> dict[str, dict]:
    """Secondary histories some solvers keep (KNPL's ADMM residuals)."""
    est = res.estimator
    out = {}
    for attr in ("admm_history_", "inner_history_"):
        h = getattr(est, attr, None)
        if isinstance(h, dict) and h:
            out["ADMM (inner solver)"] = {k: np.asarray(v, dtype=float) for k, v in h.items()
                                          if np.ndim(v) == 1}
    return out


def bandwidth_chart_figure(res: lab.LabResult, data: lab.LabData):
    est = res.estimator
    if getattr(est, "bandwidths_", None) is None:
        return None
    key = ("bandwidth", fit_key(res.params, data, res.method))
    return cached("figs", key, lambda: fg.bandwidth_figure(
        est.support_vectors_, est.bandwidths_, X=data.X_train, y=data.y_train,
        kernel=getattr(est, "kernel", "gaussian")))


# ---------------------------------------------------------------------------
# regression: the fit over the data
# ---------------------------------------------------------------------------

def regression_chart(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult,
                     page: str = "regression") -> None:
    """Curve (1-D), surface (2-D) or predicted-vs-true (more features) with the plain
    SVR and the noiseless function for comparison."""
    spec = lab.METHODS[res.method]
    ext = P.get("extension") if res.method == "dank_svr" else None
    fkey = fit_key(res.params, data, res.method)
    d = data.n_features
    base_on = bool(P.get("show_baseline")) and res.method != "svr"
    key = ("regfig", fkey, ext, base_on, float(P["C"]), float(P["sigma"]),
           float(P["epsilon"]))

    def build():
        msgs: list[lab.Message] = []
        if d == 1:
            xl = lab.line_points(data.X)
            yl, m = lab.predict_values(res.estimator, xl, extension=ext)
            msgs += m
            if yl is None:
                return None, msgs
            others = {}
            truth = lab.true_function(P["reg_dataset"], P) if P["reg_dataset"] != "csv" \
                else None
            if truth is not None:
                others["noiseless function"] = truth(xl)
            if base_on:
                svr = lab.fit_baseline_svr(data.X_train, data.y_train, C=P["C"],
                                           sigma=P["sigma"], epsilon=P["epsilon"])
                if svr is not None:
                    others[f"SVR (σ={P['sigma']:g}, C={P['C']:g})"] = svr.predict(xl)
            sup = res.support_points
            sup_y = None
            if sup is not None and len(sup):
                sup_y, _ = lab.predict_values(res.estimator, sup, extension=ext)
            fig = fg.regression_curve(
                data.X_train, data.y_train, xl[:, 0], yl, X_test=data.X_test,
                y_test=data.y_test, support=sup, support_y=sup_y, others=others,
                name=spec.label, train_score=res.train_score, test_score=res.test_score,
                title=f"{spec.label} fit")
            return fig, msgs
        if d == 2:
            grid = grid_for(data)
            z, m = lab.predict_values(res.estimator, grid.points, extension=ext)
            msgs += m
            if z is None:
                return None, msgs
            fig = fg.regression_surface(
                grid.xs, grid.ys, z.reshape(grid.shape), data.X_train, data.y_train,
                X_test=data.X_test, y_test=data.y_test, support=res.support_points,
                train_score=res.train_score, test_score=res.test_score,
                title=f"{spec.label} fit")
            return fig, msgs
        yp, m = lab.predict_values(res.estimator, data.X_test if len(data.y_test)
                                   else data.X_train, extension=ext)
        if yp is None:
            return None, m
        yt = data.y_test if len(data.y_test) else data.y_train
        return fg.parity_figure(yt, yp, title=f"{spec.label}: predicted vs true (test)"), m

    fig, msgs = cached("figs", key, build)
    show_messages(msgs)
    if fig is not None:
        chart(fig, "regression_fit", f"nplk-{res.method}-fit")


def view_panel(P: Mapping[str, Any], data: lab.LabData, res: lab.LabResult, *,
               setting: str, page: str) -> None:
    """The selectable second figure: learned matrix, eigen-decay, convergence or
    bandwidths — only the views the method supports are offered."""
    spec = lab.METHODS[res.method]
    views = [v for v in lab.setting(setting).options if v in spec.views]
    if not views:
        st.info(f"{spec.label} has no learned matrix or history to show; the fit says it "
                "all.")
        return
    view = control(setting, options=views)
    if view == "matrix":
        fig = matrix_figure(res, data)
        if fig is not None:
            chart(fig, f"{page}_matrix", f"nplk-{res.method}-matrix")
            st.caption(matrix_caption(res))
    elif view == "spectra":
        fig = spectra_chart_figure(res, data)
        if fig is not None:
            chart(fig, f"{page}_spectra", f"nplk-{res.method}-spectra")
    elif view == "convergence":
        if "compare_solvers" in _view_settings(res):
            control("compare_solvers")
        figs = convergence_chart_figure(P, res, data, page)
        for i, fig in enumerate(figs or []):
            chart(fig, f"{page}_convergence_{i}", f"nplk-{res.method}-convergence")
        if not figs:
            st.info("This method keeps no per-iteration history.")
    elif view == "bandwidth":
        fig = bandwidth_chart_figure(res, data)
        if fig is not None:
            chart(fig, f"{page}_bandwidth", "nplk-lab-rbf-bandwidths")


# ---------------------------------------------------------------------------
# pairwise constraints, sensitivity, scaling
# ---------------------------------------------------------------------------

def pairwise_fit(P: Mapping[str, Any], data: lab.LabData) -> lab.PairwiseResult:
    """SimpleNPKL on all points (cached on its parameters and the data)."""
    spec = lab.METHODS["simple_npkl"]
    key = ("npkl", data.key, tuple((p, P.get(p)) for p in spec.params), P.get("seed"))

    def compute():
        progress = Progress("Fitting SimpleNPKL")
        out = lab.fit_pairwise(P, data.X, data.y, callback=progress.callback())
        progress.done()
        return out
    if stop_requested() and cache("fits").get(key, _MISS) is _MISS:
        return lab.PairwiseResult(stopped=True, messages=[lab.Message(
            "warning", "SimpleNPKL stopped; change a setting to fit again.")])
    return cached("fits", key, compute)


def _sweep_fit(p: Mapping[str, Any], X_train, y_train, X_test, y_test, *, method: str,
               data_key: str, warm_from: lab.LabResult | None = None,
               callback: Callable | None = None, only_cached: bool = False
               ) -> lab.LabResult:
    key = ("sweep-fit", method, data_key,
           tuple((n, p.get(n)) for n in lab.METHODS[method].params), p.get("seed"))
    if only_cached:
        hit = cache("fits").get(key, _MISS)
        return hit if hit is not _MISS else lab.LabResult(method=method, task="",
                                                           params=dict(p), stopped=True)
    return cached("fits", key, lambda: lab.fit_method(
        p, X_train, y_train, X_test, y_test, method=method, data_key=data_key,
        warm_from=warm_from, callback=callback))


def sweep(P: Mapping[str, Any], method: str, param: str, values: np.ndarray,
          repeats: int) -> lab.SweepResult:
    """A cached sensitivity sweep with a progress line (fit k of N, iteration, objective)
    and a Stop button; every fit is cached on its own, so an interrupted sweep resumes
    where it stopped, and a stopped one shows the fits done so far."""
    spec = lab.METHODS[method]
    task = spec.task
    name = P["reg_dataset"] if task == lab.REGRESSION else P["dataset"]
    dkeys = tuple((s.name, P.get(s.name)) for s in lab.settings().values()
                  if s.datasets == (name,))
    key = ("sweep", method, param, tuple(np.asarray(values).tolist()), int(repeats), name,
           dkeys, P["n_samples"], P["test_size"], P["seed"],
           tuple((n, P.get(n)) for n in spec.params if n != param),
           P.get("points", ()) if task == lab.CLASSIFICATION else ())
    label = lab.setting(param).label

    def data_fn(seed: int):
        return get_data(task, seed=seed)

    hit = cache("sweeps").get(key, _MISS)
    if hit is not _MISS:
        return hit
    if stop_requested() or st.session_state.get(_STOPPED) == key:
        st.session_state[_STOPPED] = key
        done = lab.run_sweep(P, method, param, values, repeats=repeats, data_fn=data_fn,
                             fit=lambda *a, **k: _sweep_fit(*a, **k, only_cached=True))
        done.messages.insert(0, lab.Message(
            "warning", "Sweep stopped: the fits done so far are shown. Change a setting "
                       "to sweep again (finished fits are kept)."))
        return done
    st.session_state.pop(_STOPPED, None)
    progress = Progress(f"Sweeping {label}", delay=0.0)
    state = {"done": 0, "total": int(np.asarray(values).size) * max(int(repeats), 1)}

    def prefix() -> str:
        return f"fit {state['done'] + 1} of {state['total']}, "

    def fit_one(*a, **k):
        return _sweep_fit(*a, **k, callback=lambda i, info, elapsed: progress.report(
            f"{prefix()}iteration {i + 1}"))

    def on_fit(done: int, total: int) -> bool:
        state["done"] = done
        progress.report(f"fit {done} of {total} done", force=True)
        return False

    out = lab.run_sweep(P, method, param, values, repeats=repeats, progress=on_fit,
                        fit=fit_one, data_fn=data_fn)
    progress.done()
    return cache("sweeps").put(key, out)


@dataclass
class Failed:
    """A study that could not run: ``ok`` is False and ``messages`` say why and what
    to do (:func:`keep_good` then keeps the last good result on screen)."""

    messages: list[lab.Message] = field(default_factory=list)
    ok: bool = False


def scaling(P: Mapping[str, Any], data: lab.LabData) -> lab.ScalingStudy | Failed | None:
    """The decomposition study (cached); a :class:`Failed` with a message when the
    data cannot be split into the clusters asked for or the solve fails."""
    v, max_v = int(P["scale_clusters"]), int(P["scale_max_clusters"])
    key = ("scaling", data.key, float(P["C"]), float(P["sigma"]), v, max_v, int(P["seed"]))
    n = len(data.y)
    need = max(v, max_v)
    if n < need:
        return Failed([lab.Message(
            "error", f"The study splits the data into up to {need} clusters, so it needs at "
                     f"least {need} points; these data have {n}. Lower “Largest v in the "
                     "sweep” and “Clusters v”, or use more data.")])

    def compute():
        progress = Progress("Solving the decompositions", delay=0.0)
        try:
            return lab.scaling_study(
                data.X, data.y, C=P["C"], sigma=P["sigma"], v=v, max_v=max_v,
                seed=int(P["seed"]),
                progress=lambda d, t: progress.report(f"v = {d} of {t}", force=True))
        except (ValueError, ArithmeticError, np.linalg.LinAlgError, MemoryError) as exc:
            return Failed([lab.Message(
                "error", f"The decomposition study failed on these data ({lab.clip(exc, 120)})."
                         " Try another σ or C, fewer clusters, or data on a moderate scale.")])
        finally:
            progress.done()
    return cached("sweeps", key, compute)


# ---------------------------------------------------------------------------
# home page picture
# ---------------------------------------------------------------------------

def home_figure():
    """DANK against the plain SVM at the ``dank_clowns`` preset (cached for the server)."""
    def build():
        from nplk_app.presets import preset_params
        P = preset_params("dank_clowns")  # the preset exactly (its claim is tested)
        C, sigma = P["C"], P["sigma"]
        data, msgs = lab.prepare_data(P, lab.CLASSIFICATION)
        if data is None:
            return None
        grid = lab.make_grid(data.X)
        svm = lab.fit_baseline_svm(data.X_train, data.y_train, C=C, sigma=sigma)
        base = lab.grid_values(svm, grid)[0] if svm is not None else None
        ok, _ = lab.available("dank")
        res = lab.fit_method(P, data.X_train, data.y_train, data.X_test, data.y_test,
                             method="dank") if ok else None
        if res is not None and res.ok:
            Z = lab.grid_values(res.estimator, grid, extension="nearest")[0]
            return fg.decision_surface(
                grid.xs, grid.ys, Z, data.X_train, data.y_train, data.X_test, data.y_test,
                support=res.support_points, baseline=base,
                baseline_name=f"plain SVM boundary (σ = {sigma:g}, C = {C:g})",
                train_score=res.train_score, test_score=res.test_score,
                title=f"DANK on the clowns (σ = {sigma:g}, C = {C:g})", height=620)
        return fg.decision_surface(grid.xs, grid.ys, base, data.X_train, data.y_train,
                                   data.X_test, data.y_test, title="Plain SVM on the clowns",
                                   height=620)
    return cached("figs", ("home",), build)
