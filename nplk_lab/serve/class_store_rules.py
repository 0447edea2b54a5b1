"""The rules of a class (issue 32): its limits, all in one place; the refusals and
results :class:`~nplk_lab.serve.class_store.ClassStore` hands the pages; the checks of
every value a user gives (names, codes, steps, options, times). No database here."""

from __future__ import annotations

import hashlib
import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

# ---------------------------------------------------------------------------
# limits, all in one place
# ---------------------------------------------------------------------------
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I: read off a projector
CODE_LENGTH = 8                 # 32**8 ≈ 1.1e12 codes
TOKEN_BYTES = 32                # the teacher token's randomness
MAX_STUDENTS = 200              # per class
MAX_NAME_CHARS = 40
MAX_LESSON_CHARS = 64
MAX_STEPS = 200                 # steps are 0 .. MAX_STEPS - 1
MAX_OPTIONS = 12                # options are 0 .. MAX_OPTIONS - 1
MAX_ANSWERS = 30                # per student per ANSWER_WINDOW_S
ANSWER_WINDOW_S = 60.0
MAX_FAILED_JOINS = 30           # wrong codes per client key per JOIN_WINDOW_S
JOIN_WINDOW_S = 600.0
MAX_COMBINING_RUN = 2           # combining marks in a row in a name ("Zalgo" text)
DEFAULT_IDLE_TIMEOUT_S = 2 * 3600.0
IDLE_TIMEOUT_RANGE_S = (60.0, 24 * 3600.0)
RETENTION_RANGE_S = (60.0, 30 * 86400.0)
REVIEW_S = 15 * 60.0            # an ended class stays at least this long (summary, CSV)
BUSY_TIMEOUT_S = 10.0           # wait for another writer's lock at most this long
POOL_SIZE = 8                   # idle connections kept per store
SQLITE_FILE = "classes.sqlite3"


# ---------------------------------------------------------------------------
# refusals and results
# ---------------------------------------------------------------------------
class ClassError(ValueError):
    """A refusal in plain words, for the page to show as it is."""


class UnknownClass(ClassError):
    """No class (or no such student in it) with this code."""


class ClassOver(ClassError):
    """The class has ended (by its teacher or its idle time)."""


class TooMany(ClassError):
    """A limit: class size, answer rate, wrong join codes."""


class WrongToken(PermissionError):
    """Only the teacher's link may do this."""


class Started(NamedTuple):
    code: str            # the join code, CODE_LENGTH characters (format_code shows it)
    teacher_token: str   # secret: only the teacher's link carries it
    delete_at: float     # when the class's answers are deleted (seconds since the epoch)


class Joined(NamedTuple):
    student: str         # secret id of the student, for answer()
    handle: str          # the typed name, or a random handle


class Answered(NamedTuple):
    first: int           # the student's first answer to the step (what the summary counts)
    choice: int          # the student's answer now
    changes: int         # how many times the answer changed after the first


class Counts(NamedTuple):
    answered: int               # students who answered the step
    by_choice: dict[int, int]   # option -> students whose answer now is that option
    count_version: int          # changes with every join and answer


class StepSummary(NamedTuple):
    step: int
    answered: int
    right: int | None           # first answers that were right (None: not revealed)
    share_right: float | None   # right / answered (None: not revealed or no answer)
    changed: int                # students who changed their answer
    correct: int | None         # the right option given at the reveal (-1: none)


class Purged(NamedTuple):
    ended: int                  # classes ended for their idle time
    deleted: int                # classes deleted with their students and answers


@dataclass(frozen=True)
class ClassState:
    """What every screen polls: poll ``version`` (step, reveal, end) or, on the
    teacher's count, ``count_version`` (joins and answers); both only grow."""

    code: str
    lesson: str
    step: int
    revealed: bool              # the current step's answer is revealed
    correct: int | None         # the current step's right option once revealed
    revealed_steps: tuple[int, ...]
    ended: bool
    version: int
    count_version: int
    students: int
    started_at: float
    delete_at: float
    idle_timeout_s: float



# ---------------------------------------------------------------------------
# values from users
# ---------------------------------------------------------------------------
def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed character')}"


def clean_name(name: object) -> str | None:
    """The name as stored (NFC, trimmed), or None for a random handle (no name, or only
    spaces); :class:`ClassError` saying what is wrong otherwise: longer than
    MAX_NAME_CHARS, control, format (bidirectional, zero-width), private-use or
    unassigned characters, line breaks, or a pile of combining marks."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise ClassError("A name is text.")
    name = unicodedata.normalize("NFC", name).strip(" ")
    if not name:
        return None
    if len(name) > MAX_NAME_CHARS:
        raise ClassError(f"A name has at most {MAX_NAME_CHARS} characters "
                         f"(this one has {len(name)}).")
    run = 0
    for ch in name:
        cat = unicodedata.category(ch)
        if cat[0] == "C" or cat in ("Zl", "Zp"):
            raise ClassError("A name cannot hold invisible or control characters "
                             f"(it holds {_describe(ch)}).")
        run = run + 1 if cat[0] == "M" else 0
        if run > MAX_COMBINING_RUN:
            raise ClassError(f"A name cannot pile more than {MAX_COMBINING_RUN} accents "
                             "on one letter.")
    return name


def plain_text(value: object, what: str, limit: int) -> str:
    text = str(value)
    if not text or len(text) > limit or any(unicodedata.category(c)[0] == "C" for c in text):
        raise ClassError(f"{what} is plain text of 1 to {limit} characters.")
    return text


def whole_number(value: object, limit: int, what: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < limit:
        raise ClassError(f"{what} is a whole number from {low} to {limit - 1}.")
    return value


def seconds_in(value: object, bounds: tuple[float, float], what: str) -> float:
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ClassError(f"{what} is from {lo:g} to {hi:g} seconds.")
    return float(value)


def normal_code(code: object) -> str:
    """A join code as typed (any case, spaces or a dash) in its stored form."""
    if not isinstance(code, str):
        return ""
    return code.strip().upper().replace("-", "").replace(" ", "")


def well_formed(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)


def format_code(code: str) -> str:
    """The join code as a projector shows it: ``ABCD-EFGH``."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def end_of_day(now: float) -> float:
    """The next local midnight after ``now`` (``mktime`` carries the day over and
    knows daylight saving)."""
    t = time.localtime(now)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday + 1, 0, 0, 0, 0, 0, -1))


_ADJECTIVES = ("Blue", "Brave", "Calm", "Clever", "Quick", "Quiet", "Bright", "Gentle",
               "Green", "Happy", "Kind", "Lucky", "Merry", "Red", "Swift", "Wise")
_ANIMALS = ("Otter", "Heron", "Fox", "Owl", "Lynx", "Robin", "Seal", "Wren", "Hare",
            "Badger", "Crane", "Finch", "Panda", "Tiger", "Whale", "Koala")


def random_handle() -> str:
    return (f"{secrets.choice(_ADJECTIVES)} {secrets.choice(_ANIMALS)} "
            f"{10 + secrets.randbelow(90)}")


def token_hash(token: object) -> str:
    if not isinstance(token, str):
        return ""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def csv_cell(text: str) -> str:
    """A typed name as a spreadsheet shows it: never a formula (OWASP's rule)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
