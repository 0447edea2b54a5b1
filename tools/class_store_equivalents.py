"""Which surviving mutants of the class store are equivalent, by rule
(docs/mutation-testing.md, "The class store"): read from each survivor's own change
(``mutmut show``), so the judgement does not hang on mutant numbers. Each rule says why
no input can tell the mutant from the original on the mutation run's store (SQLite).

    python tools/class_store_equivalents.py          # the survivors, each with its rule

:func:`reason` is what ``tools/mutation_summary.py`` asks for every class-store survivor.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from collections.abc import Callable

#: an SQL text, or the names of the store's tables and columns that go into one
SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|WHERE|FROM|VALUES|ORDER BY|GROUP BY|"
                 r"RETURNING|JOIN|SET|NULL|CONFLICT|COUNT|AND|THEN|ELSE)\b|\?|"
                 r"count_version|vote[12]|\bversion\b|for table in", re.I)

#: (reason, test of the mutant's change: its removed and its added text)
RULES: list[tuple[str, Callable[[str, str], object]]] = [
    ("SQL keywords and unquoted names are the same in any case (SQLite and PostgreSQL)",
     lambda old, new: old != new and old.lower() == new.lower() and SQL.search(old)),
    ("a row lock: the SQLite store takes none (BEGIN IMMEDIATE already holds the "
     "database's write lock); on PostgreSQL these are FOR UPDATE",
     lambda old, new: "lock" in old and re.sub(r"lock=(True|False|None)|\(lock\) (and False"
                                               r"|or True)|lock: bool = (True|False)|, \)",
                                               "L", new) != new),
    ("a read in a write transaction (True) or read-only all the same (None): the same "
     "answer; a write run read-only fails, and every one of those is killed",
     lambda old, new: "self._run(False" in old and re.search(r"self\._run\((True|None)",
                                                             new)),
    ("secrets.token_urlsafe's default is 32 bytes, the lab's own",
     lambda old, new: "token_urlsafe(" in old and "token_urlsafe(None)" in new),
    ('"UTF-8" and "utf-8" name one codec',
     lambda old, new: '"utf-8"' in old and '"UTF-8"' in new),
    ("no Unicode category starts with X",
     lambda old, new: '"LMS"' in old and '"XXLMSXX"' in new),
    ("mktime ignores the weekday and the day of the year, and reads any negative "
     "daylight flag as -1",
     lambda old, new: "time.mktime" in old),
    ("the durations start at 60 s: True and False are out of range either way",
     lambda old, new: "isinstance(value, bool) or" in old and
     "isinstance(value, bool) and" in new),
    ("the first try of a new window counts 1 or 2, both under the limit (the row keeps 1)",
     lambda old, new: "start, fails = now, 1" in old),
    ("a malformed code finds no class whether it is looked up or not",
     lambda old, new: "if well_formed(wanted)" in old and "or True" in new),
    ("the default client is one key whatever its text",
     lambda old, new: 'client: str = ""' in old),
    ("an ended class's state reads no clock",
     lambda old, new: "self._state(tx, c.code, now)" in old and "None)" in new),
    ("csv.writer's own line end is \\r\\n",
     lambda old, new: 'lineterminator="\\r\\n"' in old and "lineterminator" not in new),
    ("no vote is kept under the step None: the lookup finds nothing either way",
     lambda old, new: "votes.get((key, step)) if step is not None" in old),
    ("the answers CSV does not show a vote's changes within a round",
     lambda old, new: "_bool_or_none(sb), int(n))" in old and "None)" in new),
]


@functools.cache
def _change(name: str) -> tuple[str, str]:
    out = subprocess.run([sys.executable, "-m", "mutmut", "show", name],
                         capture_output=True, text=True).stdout
    old = " ".join(ln[1:].strip() for ln in out.splitlines()
                   if ln.startswith("-") and not ln.startswith("---"))
    new = " ".join(ln[1:].strip() for ln in out.splitlines()
                   if ln.startswith("+") and not ln.startswith("+++"))
    return old, new


def reason(name: str) -> str | None:
    """Why the class-store mutant ``name`` is equivalent (None: it is not judged so)."""
    if ".class_store" not in name:
        return None
    old, new = _change(name)
    return next((why for why, test in RULES if test(old, new)), None)


def main() -> int:
    out = subprocess.run([sys.executable, "-m", "mutmut", "results"], capture_output=True,
                         text=True).stdout
    names = [ln.split(":")[0].strip() for ln in out.splitlines() if "survived" in ln]
    names = [n for n in names if ".class_store" in n]
    counts: dict[str, int] = {}
    for n in names:
        why = reason(n) or "NOT JUDGED EQUIVALENT"
        counts[why] = counts.get(why, 0) + 1
        if why == "NOT JUDGED EQUIVALENT":
            print(n, _change(n))
    for why, k in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{k:4d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
