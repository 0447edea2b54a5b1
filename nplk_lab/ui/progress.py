"""Running work: the progress line, the Stop button, and the stop request."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import streamlit as st
from streamlit.logger import get_logger
from streamlit.runtime.scriptrunner import get_script_run_ctx

from .keys import STATUS as _STATUS
from .keys import STOP as _STOP

_LOG = get_logger("nplk_lab.work")
# Streamlit (1.67, fast reruns) ends a run with StopException for a closed tab and
# also for a Stop press or a newer widget value, so the log cannot say which
_REASONS = {"StopException": "the run was stopped: a closed tab, a Stop press or a newer "
                             "widget value",
            "RerunException": "a rerun: a newer widget value or the Stop button"}


def _session_id() -> str:
    ctx = get_script_run_ctx(suppress_warning=True)
    return getattr(ctx, "session_id", "-") or "-"


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
        try:
            self._draw(text, now)
        except BaseException as exc:
            # Streamlit raises here when the run must end: a closed tab, a newer widget
            # value or a Stop press (StopException or RerunException). The work stops
            # with it; the server log says so (tests/test_browser_stop.py reads it).
            _LOG.info("%s interrupted (%s) after %.1f s at %s; session %s", self.label,
                      _REASONS.get(type(exc).__name__, type(exc).__name__), now, text,
                      _session_id())
            raise
        return False

    def _draw(self, text: str, now: float) -> None:
        if self.line is None:
            Progress._count += 1
            box = self.slot.container()
            left, right = box.columns([6, 1], vertical_alignment="center")
            self.line = left.empty()
            right.button("Stop", key=f"lab_stop_{Progress._count}", on_click=_request_stop,
                         help="Stop this computation; the last result stays on screen.")
        self.line.caption(f"Running · {self.label}: {text} ({now:.1f} s)")

    def callback(self, prefix: str = "") -> Callable:
        """A solver callback ``(iteration, state, elapsed)`` reporting the iteration and
        the objective."""
        def cb(iteration: int, info: Mapping[str, Any], elapsed: float) -> bool:
            obj = info.get("objective") if isinstance(info, Mapping) else None
            txt = f"{prefix}iteration {iteration + 1}"
            if isinstance(obj, (int, float)) and np.isfinite(obj):
                from nplk_lab.figures.common import for_people  # 2.45 × 10³, not 2.45e+03
                txt += f", objective {for_people(obj, 6)}"
            return self.report(txt)
        return cb

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: Any) -> bool:
        """The work of a ``with Progress(...)`` block is over: done when it finished; when
        the run was stopped (a closed tab, a Stop press, a newer widget value), the log
        says that the block has been left, so none of its work runs any more in this
        thread (tests/test_browser_stop.py waits for this line)."""
        if exc_type is None:
            self.done()
        elif exc_type.__name__ in _REASONS:
            _LOG.info("%s: its work ended with the interruption after %.1f s; session %s",
                      self.label, time.perf_counter() - self.t0, _session_id())
        return False

    def done(self) -> None:
        if self.line is not None:
            _LOG.info("%s finished after %.1f s; session %s", self.label,
                      time.perf_counter() - self.t0, _session_id())
            self.slot.empty()
