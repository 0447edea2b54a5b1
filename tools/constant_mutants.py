"""Hand-made mutants of the class's constants and checks that mutmut leaves alone.

mutmut changes code inside functions only; a class's limits, its secrets' lengths, the
hash, the accent rule and the cookie's attributes are module-level constants or single
calls. Each mutant below changes one of them, as a careless edit would; the class's fast
tests (SQLite: the store, its limits, rules and schema, the lab's HTTP) then run against
a copy of the tree holding that change, and the mutant is killed when a test fails.

    python tools/constant_mutants.py            # every mutant, a table (docs/mutation-testing.md)
    python tools/constant_mutants.py --list     # the mutants only

"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = "nplk_lab/serve/class_store_rules.py"
WEB = "nplk_lab/serve/class_web.py"
TESTS = ["tests/test_class_store.py", "tests/test_class_store_limits.py",
         "tests/test_class_store_refusals.py", "tests/test_class_store_rules.py",
         "tests/test_class_store_schema.py", "tests/test_class_web.py",
         "tests/test_class_docs.py"]

#: (file, text, changed to, what it stands for)
MUTANTS: list[tuple[str, str, str, str]] = [
    (RULES, "TOKEN_BYTES = 32", "TOKEN_BYTES = 16", "the teacher token's randomness halved"),
    (RULES, "SEAT_BYTES = 32", "SEAT_BYTES = 24", "a seat's randomness cut"),
    (RULES, "SEAT_CHARS = (32, 128)", "SEAT_CHARS = (16, 128)",
     "shorter seats taken back from a browser"),
    (RULES, "CODE_LENGTH = 8", "CODE_LENGTH = 7", "a shorter join code"),
    (RULES, 'CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"',
     'CODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"',
     "0/O and 1/I back in the code's letters"),
    (RULES, "MAX_STUDENTS = 500", "MAX_STUDENTS = 299", "a class of 300 refused"),
    (RULES, "DEFAULT_CLASS_SIZE = 100", "DEFAULT_CLASS_SIZE = 101",
     "another default class size"),
    (RULES, "MAX_TEACHER_DEVICES = 8", "MAX_TEACHER_DEVICES = 9",
     "one more teacher device"),
    (RULES, "MAX_NAME_CHARS = 40", "MAX_NAME_CHARS = 41", "a longer name"),
    (RULES, "MAX_ANSWERS = 30", "MAX_ANSWERS = 31", "one more vote a minute"),
    (RULES, "ANSWER_WINDOW_S = 60.0", "ANSWER_WINDOW_S = 30.0", "a shorter vote window"),
    (RULES, "MAX_FAILED_JOINS = 30", "MAX_FAILED_JOINS = 31", "one more wrong code"),
    (RULES, "MAX_FAILED_JOINS = 30", "MAX_FAILED_JOINS = 29", "one wrong code less"),
    (RULES, "JOIN_WINDOW_S = 600.0", "JOIN_WINDOW_S = 300.0", "a shorter wrong-code window"),
    (RULES, "MAX_COMBINING_RUN = 3", "MAX_COMBINING_RUN = 2",
     "the accent rule refusing 'ज़िंदगी'"),
    (RULES, "MAX_COMBINING_RUN = 3", "MAX_COMBINING_RUN = 4",
     "the accent rule letting four marks through"),
    (RULES, "MAX_COMBINING_RUN = 3", "MAX_COMBINING_RUN = 1",
     "the accent rule refusing 'مُحَمَّد'"),
    (RULES, '_JOINERS = ("\\u200c", "\\u200d")', "_JOINERS = ()",
     "no joiner kept (Persian names, emoji sequences refused)"),
    (RULES, '_JOINERS = ("\\u200c", "\\u200d")',
     '_JOINERS = ("\\u200c", "\\u200d", "\\u200b")', "a zero-width space kept as a joiner"),
    (RULES, "DISCUSS_FROM, EXPLAIN_ABOVE = 0.30, 0.70",
     "DISCUSS_FROM, EXPLAIN_ABOVE = 0.25, 0.70", "the rule of thumb's lower edge moved"),
    (RULES, "DISCUSS_FROM, EXPLAIN_ABOVE = 0.30, 0.70",
     "DISCUSS_FROM, EXPLAIN_ABOVE = 0.30, 0.75", "the rule of thumb's upper edge moved"),
    (RULES, "REVIEW_S = 15 * 60.0", "REVIEW_S = 14 * 60.0",
     "an ended class kept a minute less"),
    (RULES, 'return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()',
     'return hashlib.sha1(token.encode("utf-8", "surrogatepass")).hexdigest()',
     "a weaker hash of the secrets"),
    (RULES, 'return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()',
     'return token', "secrets kept as they are"),
    (RULES, "return secrets.token_urlsafe(SEAT_BYTES)", 'return "s" * 43',
     "every browser the same seat"),
] + [
    (RULES, 'FORMULA_PREFIXES = ("=", "+", "-", "@", "\\t", "\\r")',
     "FORMULA_PREFIXES = (" + ", ".join(f'"{q}"' for q in ("=", "+", "-", "@", "\\t", "\\r")
                                        if q != p) + ")",
     f"{p!r} let through as a formula")
    for p in ("=", "+", "-", "@", "\\t", "\\r")
] + [
    (WEB, "SEAT_MAX_AGE_S = 31 * 86400", "SEAT_MAX_AGE_S = 1 * 86400",
     "a seat forgotten before its class's results"),
    (WEB, '"SameSite=Lax"', '"SameSite=None"', "the seat sent with other sites' requests"),
    (WEB, "HttpOnly; ", "", "the seat readable by a page's scripts"),
    (WEB, 'return got.strip()[:64]', 'return (peer or "")[:64]',
     "the proxy's header ignored"),
    (WEB, 'name = os.environ.get(CLIENT_HEADER_ENV, "")', 'name = "X-Forwarded-For"',
     "the client's own X-Forwarded-For trusted"),
]


def run_one(src: Path, mutant: tuple[str, str, str, str] | None) -> tuple[bool, str]:
    """Run the tests in a copy of the tree holding ``mutant`` (None: as it is); return
    (the tests failed, their last line)."""
    with tempfile.TemporaryDirectory(prefix="nplk-constant-mutant-") as tmp:
        work = Path(tmp)
        for name in ("nplk_lab", "nplk_core", "tests", "pages", "tools"):
            shutil.copytree(src / name, work / name,
                            ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        for name in ("app.py", "pyproject.toml"):
            shutil.copy2(src / name, work / name)
        shutil.copytree(src / "docs", work / "docs")
        if mutant is not None:
            path, old, new = work / mutant[0], mutant[1], mutant[2]
            text = path.read_text(encoding="utf-8")
            assert text.count(old) == 1, (mutant[0], old)
            path.write_text(text.replace(old, new), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(work)}
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p",
                              "no:cacheprovider", "-m", "not slow and not browser", "-k",
                              "not postgresql", *TESTS], cwd=work, env=env,
                             capture_output=True, text=True, timeout=1800)
        last = (out.stdout.strip().splitlines() or [""])[-1]
        return out.returncode != 0, last


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = ap.parse_args(argv)
    if args.list:
        for f, old, new, what in MUTANTS:
            print(f"{f}: {what}: {old!r} -> {new!r}")
        return 0
    failed, last = run_one(ROOT, None)
    if failed:
        print(f"the tests fail on the tree as it is: {last}")
        return 1
    rows, killed = [], 0
    for m in MUTANTS:
        died, last = run_one(ROOT, m)
        killed += died
        rows.append(f"| {m[3]} | `{m[0].rsplit('/', 1)[-1]}` | "
                    f"{'killed' if died else 'survived'} | {last} |")
        print(rows[-1], flush=True)
    print(f"\n{killed} of {len(MUTANTS)} hand-made mutants killed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
