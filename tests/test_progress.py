"""The progress block of running work: what the server log says when the block ends.

The closed-tab browser test (tests/test_browser_stop.py) waits for the line a stopped
block writes; here, outside a server, the block is left in each of its three ways."""

from __future__ import annotations

import logging

import pytest
from streamlit.runtime.scriptrunner import RerunException, StopException

from nplk_lab.ui import progress


@pytest.fixture
def log_lines():
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("nplk_lab.work")
    handler, level = Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lines
    logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.mark.parametrize("exc", [StopException(), RerunException(None)])
def test_a_stopped_block_says_its_work_ended(log_lines, exc):
    ran = []
    with pytest.raises(type(exc)), progress.Progress("Sweeping σ", delay=0.0):
        ran.append(1)
        raise exc
    ran.append(2)                           # not reached inside the block
    assert ran == [1, 2]
    ended = [ln for ln in log_lines if "its work ended with the interruption" in ln]
    assert len(ended) == 1 and ended[0].startswith("Sweeping σ: ")
    assert ended[0].endswith("; session -")  # no session outside a server
    assert not [ln for ln in log_lines if "finished" in ln]


def test_a_block_that_fails_otherwise_says_nothing_of_an_interruption(log_lines):
    with pytest.raises(ValueError), progress.Progress("Fitting DANK", delay=0.0):
        raise ValueError("bad data")
    assert not [ln for ln in log_lines if "interruption" in ln]


def test_a_block_that_finishes_after_a_report_says_finished(log_lines):
    with progress.Progress("Fitting DANK", delay=0.0) as p:
        p.report("iteration 1", force=True)
    assert [ln for ln in log_lines if "finished" in ln] == [
        ln for ln in log_lines if ln.startswith("Fitting DANK finished after ")]
    assert len(log_lines) == 1


def test_a_quick_block_draws_and_logs_nothing(log_lines):
    with progress.Progress("Fitting DANK") as p:   # first report only after 0.3 s
        assert p.report("iteration 1") is False
    assert log_lines == []
