"""The rules of a class: its limits, all in one place; the moves of peer instruction
(first vote, the split, a second vote, the shift, the reveal) and what they measure; the
refusals and results :class:`~nplk_lab.serve.class_store.ClassStore` hands the pages;
the checks of every value a user gives (names, codes, seats, steps, options, times).
No database here."""

from __future__ import annotations

import hashlib
import secrets
import string
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

# ---------------------------------------------------------------------------
# limits, all in one place
# ---------------------------------------------------------------------------
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I: read off a projector
CODE_LENGTH = 8                 # 32**8 ≈ 1.1e12 codes
TOKEN_BYTES = 32                # the teacher token's randomness
SEAT_BYTES = 32                 # a browser's seat secret (its cookie), made by the server
SEAT_CHARS = (32, 128)          # a seat secret's length as a browser may send it back
MAX_STUDENTS = 500              # the largest class size a teacher can set
DEFAULT_CLASS_SIZE = 100        # a class's size until its teacher sets another
MAX_TEACHER_DEVICES = 8         # browsers made teacher devices of one class
MAX_NAME_CHARS = 40
MAX_LESSON_CHARS = 64
MAX_STEPS = 200                 # steps are 0 .. MAX_STEPS - 1
MAX_OPTIONS = 12                # options are 0 .. MAX_OPTIONS - 1
MAX_ANSWERS = 30                # votes per student per ANSWER_WINDOW_S
ANSWER_WINDOW_S = 60.0
# Wrong join codes (typed, or in a join link) per client address per JOIN_WINDOW_S. A
# correct code of a class someone from that address has joined always joins, so a class
# behind one NAT address gets in whatever its typos; past the limit that address finds
# no other class (the guesses of an enumeration stop there).
MAX_FAILED_JOINS = 30
JOIN_WINDOW_S = 600.0
MAX_COMBINING_RUN = 3           # combining marks in a row in a name (more: "Zalgo" text)
DEFAULT_IDLE_TIMEOUT_S = 2 * 3600.0
IDLE_TIMEOUT_RANGE_S = (60.0, 24 * 3600.0)
RETENTION_RANGE_S = (60.0, 30 * 86400.0)
REVIEW_S = 15 * 60.0            # an ended class stays at least this long (summary, CSV)
BUSY_TIMEOUT_S = 10.0           # wait for another writer's lock at most this long
POOL_SIZE = 8                   # idle connections kept per store
SQLITE_FILE = "classes.sqlite3"

# ---------------------------------------------------------------------------
# peer instruction: the moves of a question step, in order (Crouch & Mazur, "Peer
# Instruction: Ten years of experience and results", 2001)
# ---------------------------------------------------------------------------
VOTE, SPLIT, REVOTE, SHIFT, REVEALED = range(5)
PHASES = ("first vote", "the split", "second vote", "the shift", "revealed")
#: the published rule of thumb, on the share right in the first vote
DISCUSS_FROM, EXPLAIN_ABOVE = 0.30, 0.70


def open_round(phase: int) -> int | None:
    """The vote a phase takes (1 or 2), or None: votes are closed."""
    return {VOTE: 1, REVOTE: 2}.get(phase)


def next_move(share_right: float | None) -> str:
    """What peer instruction suggests after a vote with this share right: under
    DISCUSS_FROM "revisit" (explain the idea again, then vote), up to EXPLAIN_ABOVE
    "discuss" (talk to a neighbour, then vote again), above it "explain" (a short
    explanation, then move on)."""
    if share_right is None:
        return ""
    if share_right < DISCUSS_FROM:
        return "revisit"
    if share_right <= EXPLAIN_ABOVE:
        return "discuss"
    return "explain"


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
    """Only the teacher (the teacher link, or a teacher device) may do this."""


@dataclass(frozen=True)
class Seat:
    """A browser's seat: the secret of its HttpOnly cookie (the store keeps its hash).
    One browser is one seat: one student in a class, or one of its teacher devices."""

    secret: str

    def __repr__(self) -> str:   # never in a log or a traceback
        return "Seat(…)"


class Started(NamedTuple):
    code: str            # the join code, CODE_LENGTH characters (format_code shows it)
    teacher_token: str   # secret: only the teacher link carries it
    delete_at: float     # when the class's answers are deleted (seconds since the epoch)


class Entry(NamedTuple):
    """What a browser is in a class: "teacher" (a teacher device), "student" (with its
    handle) or "visitor" (not joined yet)."""
    state: ClassState
    role: str
    handle: str = ""


class Joined(NamedTuple):
    handle: str          # the typed name, or a random handle
    again: bool          # this browser had joined already: the same student


class Vote(NamedTuple):
    """A student's votes on a step (None: not voted in that round)."""
    first: int | None
    first_sure: bool | None
    second: int | None
    second_sure: bool | None
    changes: int         # how many times a vote was changed before its round closed

    @property
    def held(self) -> int | None:
        """The answer the student holds now: the second vote, else the first."""
        return self.first if self.second is None else self.second


class Counts(NamedTuple):
    answered: int               # students who voted in the round
    by_choice: dict[int, int]   # option -> students whose vote now is that option
    count_version: int          # changes with every join and vote


class Missing(NamedTuple):
    count: int                  # joined students with no vote in the round
    names: tuple[str, ...]      # their names, where typed (teacher only)


class Shift(NamedTuple):
    """From the first vote to the second, per option and in total (Crouch & Mazur)."""
    first: dict[int, int]       # option -> first votes
    second: dict[int, int]      # option -> second votes
    voted_first: int
    voted_second: int
    right_first: int | None     # None: no right option known, or no vote in the round
    right_second: int | None
    share_first: float | None   # right / voted (None: unknown or no vote)
    share_second: float | None
    to_right: int | None        # wrong first, right second (None: nobody voted twice)
    from_right: int | None      # right first, wrong second
    both: int                   # students with both votes
    gain: float | None          # normalised gain over them: (after - before) / (1 - before)


class StepSummary(NamedTuple):
    step: int
    correct: int | None         # the right option given at the reveal (-1: none)
    shift: Shift                # both votes (the second empty without a second vote)
    held: int                   # students holding an answer at the end
    right_held: int | None      # of them right (None: not revealed)
    share_held: float | None


class Purged(NamedTuple):
    ended: int                  # classes ended for their idle time
    deleted: int                # classes deleted with their students and answers


@dataclass(frozen=True)
class ClassState:
    """What every screen polls: poll ``version`` (step, phase, reveal, end) or, on the
    teacher's count, ``count_version`` (joins and votes); both only grow."""

    code: str
    lesson: str
    step: int
    phase: int                  # the current step's phase (VOTE .. REVEALED)
    correct: int | None         # the current step's right option once revealed
    revealed_steps: tuple[int, ...]
    ended: bool
    version: int
    count_version: int
    students: int
    size: int                   # the most students this class takes
    started_at: float
    delete_at: float
    idle_timeout_s: float

    @property
    def revealed(self) -> bool:
        return self.phase == REVEALED


def shift_of(pairs: Mapping[tuple[int | None, int | None], int],
             correct: int | None) -> Shift:
    """:class:`Shift` from ``pairs``: (first vote, second vote) -> students (None: no
    vote in that round); ``correct`` the right option (None or -1: not known, no share
    right)."""
    first: dict[int, int] = {}
    second: dict[int, int] = {}
    for (a, b), n in pairs.items():
        if a is not None:
            first[a] = first.get(a, 0) + n
        if b is not None:
            second[b] = second.get(b, 0) + n
    n1, n2 = sum(first.values()), sum(second.values())
    both = sum(n for (a, b), n in pairs.items() if a is not None and b is not None)
    if correct is None or correct < 0:
        return Shift(first, second, n1, n2, None, None, None, None, None, None, both, None)
    r1, r2 = first.get(correct, 0), second.get(correct, 0)
    to_right = sum(n for (a, b), n in pairs.items()
                   if a is not None and b is not None and a != correct and b == correct)
    from_right = sum(n for (a, b), n in pairs.items()
                     if a is not None and b is not None and a == correct and b != correct)
    gain = None
    if both:
        before = sum(n for (a, b), n in pairs.items() if a == correct and b is not None)
        after = sum(n for (a, b), n in pairs.items() if b == correct and a is not None)
        if before < both:
            gain = (after - before) / (both - before)
    return Shift(first, second, n1, n2, r1 if n1 else None, r2 if n2 else None,
                 r1 / n1 if n1 else None, r2 / n2 if n2 else None,
                 to_right if both else None, from_right if both else None, both, gain)


# ---------------------------------------------------------------------------
# values from users
# ---------------------------------------------------------------------------
def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed character')}"


def clean_name(name: object) -> str | None:
    """The name as stored (NFC, trimmed), or None for a random handle (no name, or only
    spaces); :class:`ClassError` saying what is wrong otherwise: longer than
    MAX_NAME_CHARS, control, format (bidirectional, zero-width), private-use or
    unassigned characters, line breaks, or a pile of combining marks.

    Names in every script are kept as typed: a Devanagari syllable can carry three
    marks on one letter (a nukta, a vowel sign and a nasal mark: "ज़िं"), Arabic two (a
    shadda and a vowel), Thai two (a vowel and a tone); emoji are symbols. The two
    joiners (U+200C, U+200D) are format characters, kept only between two characters
    outside ASCII that are letters, marks or symbols: inside a Persian name
    ("علی‌رضا") or an emoji sequence ("👩‍🔬"), never beside a Latin letter, where they
    would only make two names look the same."""
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
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if ch in _JOINERS and _joins(name[i - 1:i], name[i + 1:i + 2]):
            continue            # (marks on both sides of it count as one pile)
        if cat[0] == "C" or cat in ("Zl", "Zp"):
            raise ClassError("A name cannot hold invisible or control characters "
                             f"(it holds {_describe(ch)}).")
        run = run + 1 if cat[0] == "M" else 0
        if run > MAX_COMBINING_RUN:
            raise ClassError(f"A name cannot pile more than {MAX_COMBINING_RUN} accents "
                             "on one letter.")
    return name


_JOINERS = ("\u200c", "\u200d")


def _joins(before: str, after: str) -> bool:
    """A joiner between ``before`` and ``after`` joins two characters of a script or an
    emoji sequence (both outside ASCII; letters, marks or symbols)."""
    return all(len(c) == 1 and not c.isascii() and unicodedata.category(c)[0] in "LMS"
               for c in (before, after))


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


def sure_value(sure: object) -> bool | None:
    """"sure" / "not sure" as a student says it with a vote (None: not said)."""
    if sure is None or isinstance(sure, bool):
        return sure
    raise ClassError("Sure or not sure is yes, no or not said.")


def normal_code(code: object) -> str:
    """A join code as typed (any case, spaces or a dash) in its stored form."""
    if not isinstance(code, str):
        return ""
    return code.strip().upper().replace("-", "").replace(" ", "")


def well_formed(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)


_SEAT_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")


def seat_secret(seat: object) -> str:
    """A seat's secret as a browser sent it back, checked (the cookie's alphabet and
    length), or :class:`ClassError`."""
    secret = seat.secret if isinstance(seat, Seat) else seat
    lo, hi = SEAT_CHARS
    if not isinstance(secret, str) or not lo <= len(secret) <= hi or \
            not set(secret) <= _SEAT_ALPHABET:
        raise ClassError("This browser has no seat in the class: reload the page "
                         "(cookies must be allowed for this site).")
    return secret


def new_seat() -> str:
    """A new browser's seat secret (what the server's cookie carries)."""
    return secrets.token_urlsafe(SEAT_BYTES)


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
    """What the store keeps of a secret (a teacher token, a seat): its SHA-256."""
    if not isinstance(token, str):
        return ""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


#: what makes a spreadsheet read a cell as a formula (OWASP's CSV injection list)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """A typed name as a spreadsheet shows it: never a formula."""
    return "'" + text if text[:1] in FORMULA_PREFIXES else text
