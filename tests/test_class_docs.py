"""What the teacher's guide (docs/teaching-with-the-lab.md) and the teacher's screen say
about a class's limits and rules is what the code does: each number is read from the
text and compared with the constant that decides it, so neither drifts alone."""

from __future__ import annotations

import re
from pathlib import Path

from nplk_lab.serve.class_store_rules import (
    ANSWER_WINDOW_S,
    CODE_ALPHABET,
    DEFAULT_CLASS_SIZE,
    DEFAULT_IDLE_TIMEOUT_S,
    DISCUSS_FROM,
    EXPLAIN_ABOVE,
    JOIN_WINDOW_S,
    MAX_ANSWERS,
    MAX_COMBINING_RUN,
    MAX_FAILED_JOINS,
    MAX_NAME_CHARS,
    MAX_STUDENTS,
    MAX_TEACHER_DEVICES,
    RETENTION_RANGE_S,
    REVIEW_S,
)
from nplk_lab.serve.class_web import SEAT_MAX_AGE_S
from nplk_lab.ui.class_teacher import ADVICE

ROOT = Path(__file__).resolve().parents[1]
GUIDE_FILE = ROOT / "docs" / "teaching-with-the-lab.md"
GUIDE = " ".join(GUIDE_FILE.read_text(
    encoding="utf-8").split())


def says(text: str) -> None:
    assert " ".join(text.split()) in GUIDE, text


def test_the_guide_states_the_class_limits_the_store_applies():
    says(f"set the **class size** (at most {MAX_STUDENTS}; the default {DEFAULT_CLASS_SIZE};")
    says(f"A name is optional (at most {MAX_NAME_CHARS} characters")
    says(f"names**: {MAX_NAME_CHARS} characters, any script")
    says(f"no more than {MAX_COMBINING_RUN} marks on one letter")
    assert ANSWER_WINDOW_S == 60.0          # "a minute"
    says(f"**Votes**: {MAX_ANSWERS} a minute per student")
    says(f"{MAX_FAILED_JOINS} per {JOIN_WINDOW_S / 60:g} minutes per client address")
    says(f"teacher link (at most {MAX_TEACHER_DEVICES})")
    says(f"ends by itself after {DEFAULT_IDLE_TIMEOUT_S / 3600:g} hours without activity")
    says(f"never before {REVIEW_S / 60:g} minutes after it ended")
    says(f"kept {SEAT_MAX_AGE_S // 86400} days: the longest a class's results are kept")
    says("no 0/O or 1/I")
    assert not set("0O1I") & set(CODE_ALPHABET)


def test_a_seat_outlives_the_longest_kept_results():
    assert SEAT_MAX_AGE_S >= RETENTION_RANGE_S[1]


def test_the_rule_of_thumb_reads_as_it_decides():
    low, high = f"{100 * DISCUSS_FROM:.0f}", f"{100 * EXPLAIN_ABOVE:.0f}"
    assert (low, high) == ("30", "70")      # Crouch & Mazur's "about 30 %" and "70 %"
    says(f"under {low} % right, go over the idea again; {low}–{high} %, let them talk and "
         f"vote again; over {high} %, explain briefly and move on")
    assert ADVICE["revisit"].startswith(f"under {low} % right")
    assert ADVICE["discuss"].startswith(f"{low}–{high} % right")
    assert ADVICE["explain"].startswith(f"over {high} % right")


def test_the_guide_shows_the_pictures_it_names():
    """Every class picture the guide names is there (read beside the guide: only
    tools/docs_screenshots.py writes them)."""
    names = re.findall(r"\(screenshots/(class-[^)]+\.png)\)", GUIDE)
    assert len(names) >= 6, names
    for name in names:
        assert (GUIDE_FILE.parent / "screenshots" / name).is_file(), name
