"""Hand-made mutants of the lab's words: what mutmut does not mutate (module-level
constants, thresholds, seed ranges, which table a check reads, the numbers and words
inside sentences), each applied to a copy of the checkout and run against the fast
tests that guard it (docs/mutation-testing.md).

    python tools/hand_mutants.py            # every mutant, a table of the outcomes
    python tools/hand_mutants.py --list     # the mutants only
    python tools/hand_mutants.py -k follows # the mutants whose name contains a word

A mutant is one exact text replacement in one file (it must occur exactly once, so a
mutant that no longer applies says so instead of passing); it is *killed* when a test
fails. The checkout itself is never changed: each mutant runs in a fresh copy of the
tracked files (``git ls-files``) under a temporary folder, with ``python -m pytest``
started there so the copy's ``nplk_lab`` is the one imported.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAST = ["-m", "not slow and not browser", "-q", "-x", "-p", "no:cacheprovider"]


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


_WORDS = ("tests/test_ablation_words.py",)
_ATLAS = ("tests/test_atlas.py", "tests/test_atlas_command.py", "tests/test_atlas_words.py")
_CLAIMS = ("tests/test_claims.py", "tests/test_register.py")

MUTANTS = (
    # ablation.py: the score table's paragraph
    Mutant("follows-1-NN threshold 0.9 → 0.85", "nplk_lab/model/ablation.py",
           "FOLLOWS_NN_AT = 0.9", "FOLLOWS_NN_AT = 0.85", _WORDS),
    Mutant("'the rest' without 'and follows'", "nplk_lab/model/ablation.py",
           '        if e_side == "above" and follows:\n            parts.append(f"The rest',
           '        if e_side == "above":\n            parts.append(f"The rest', _WORDS),
    Mutant("'gain comes from the rule' without the method above its off model",
           "nplk_lab/model/ablation.py",
           'elif follows and g_side == "above" and v_side == "above":',
           'elif follows and g_side == "above":', _WORDS),
    Mutant("'part of the gain' said of the whole gain", "nplk_lab/model/ablation.py",
           'elif o_side == "above" and v_side == "above":',
           'elif o_side == "above" and v_side != "below":', _WORDS),
    Mutant("the no-gain case says 'part of the gain survives'", "nplk_lab/model/ablation.py",
           'parts.append(f"So the α and b learned with {sym} × K beat the plain {base} on "',
           'parts.append(f"So part of the gain survives: the α and b learned with {sym} × '
           'K beat the plain {base} on "', _WORDS),
    Mutant("a method dropped from the score table's methods", "nplk_lab/model/ablation.py",
           'ABLATION_METHODS = ("dank", "knpl", "dank_svr")',
           'ABLATION_METHODS = ("dank", "knpl")', ("tests/test_ablation.py",)),
    # atlas.py: what is measured
    Mutant("the ×10 C baseline fitted at C", "nplk_lab/model/atlas/atlas.py",
           '"plain10": plain_pred(sigma, 10 * C)', '"plain10": plain_pred(sigma, C)', _ATLAS),
    Mutant("the ×100 C baseline fitted at 10 C", "nplk_lab/model/atlas/atlas.py",
           '"plain100": plain_pred(sigma, 100 * C)', '"plain100": plain_pred(sigma, 10 * C)',
           _ATLAS),
    Mutant("the atlas's seeds 1–10 instead of 0–9", "nplk_lab/model/atlas/atlas.py",
           "SEEDS = tuple(range(10))", "SEEDS = tuple(range(1, 11))", _ATLAS + _CLAIMS),
    Mutant("DANK-SVR left out of the 1-NN rule's methods", "nplk_lab/model/atlas/atlas.py",
           'NN_RULE_METHODS = ("dank", "knpl", "dank_svr")',
           'NN_RULE_METHODS = ("dank", "knpl")', _ATLAS),
    Mutant("off against 10 C compared with 100 C", "nplk_lab/model/atlas/atlas.py",
           '"off_vs_plain10": ("off", "plain10"),', '"off_vs_plain10": ("off", "plain100"),',
           _ATLAS + _CLAIMS),
    Mutant("the method-vs-off interval kept as the agreement edge", "nplk_lab/model/atlas/atlas.py",
           '"pt_vs_off": "vs_off"}', '"pt_vs_off": "nn_edge"}', _ATLAS),
    Mutant("the cache accepts a row without every column", "nplk_lab/model/atlas/atlas_cache.py",
           'return bool(r.get("error")) or all(c in r for c in columns if c != "error")',
           'return True', _ATLAS),
    # atlas_words.py: two sets of draws
    Mutant("the held-out table paired with the atlas itself", "nplk_lab/model/claims_tables.py",
           "first = {cell_key(r): r for r in atlas}",
           "first = {cell_key(r): r for r in held}", ("tests/test_atlas_words.py",)
           + _CLAIMS),
    # claims.py: numbers and checks
    Mutant("a number inside a sentence typed wrong (4.3 → 4.4)", "nplk_lab/model/claims.py",
           '"knpl_sandwich": {"gain_lo": "12", "gain_hi": "18", "agree": "99", '
           '"off_a": "1.8",\n                      "off_h": "4.3"}',
           '"knpl_sandwich": {"gain_lo": "12", "gain_hi": "18", "agree": "99", '
           '"off_a": "1.8",\n                      "off_h": "4.4"}', _CLAIMS),
    Mutant("a number rendered with another precision", "nplk_lab/model/claims.py",
           '"off_a": f"{-_v(a, \'off_gain_mean\'):.1f}",',
           '"off_a": f"{-_v(a, \'off_gain_mean\'):.2f}",', _CLAIMS),
    Mutant("a claim checked on the atlas only (the held-out draws dropped)",
           "nplk_lab/model/claims.py",
           "    return fn(atlas) + fn(held)",
           "    return fn(atlas) + fn(atlas)", _CLAIMS),
    Mutant("'follows 1-NN' at 0.85 in the claims", "nplk_lab/model/claims_tables.py",
           "atlas: Rows, held: Rows, *, follows: float = 0.9",
           "atlas: Rows, held: Rows, *, follows: float = 0.85", _CLAIMS),
    Mutant("ONK left out of the atlas sentence's methods", "nplk_lab/model/claims_tables.py",
           'LEARNED = ("dank", "knpl", "onk", "dank_svr")',
           'LEARNED = ("dank", "knpl", "dank_svr")', _CLAIMS),
    Mutant("a cell counted at one set of draws", "nplk_lab/model/claims_tables.py",
           "        return [(a, h) for a, h in pairs if pred(a) and pred(h)]",
           "        return [(a, h) for a, h in pairs if pred(a)]", _CLAIMS),
    Mutant("a preset's cell left out of the presets' finding", "nplk_lab/model/claims.py",
           "    for key in (_CLOWNS, _SANDWICH, _STEP, _HARMONIC):",
           "    for key in (_CLOWNS, _SANDWICH, _STEP):", _CLAIMS),
    # atlas_report.py: the README's words
    Mutant("a region's short name changed", "nplk_lab/model/atlas/atlas_report.py",
           'REGION_SHORT = {"matrix_alone": "matrix alone",',
           'REGION_SHORT = {"matrix_alone": "matrix-alone",',
           ("tests/test_atlas_report.py", "tests/test_atlas_words.py")),
    Mutant("the larger-C count reads 100 C for 10 C", "nplk_lab/model/atlas/atlas_report.py",
           '"beats_plain10": sum(r.get("off_vs_plain10_verdict") == "holds" for r in alone),',
           '"beats_plain10": sum(r.get("off_vs_plain100_verdict") == "holds" for r in alone),',
           ("tests/test_atlas_report.py",)),
    # paired.py and verdicts.py: defaults and constants
    Mutant("a 90 % interval for 95 %", "nplk_lab/model/paired.py",
           "           level: float = 0.95) -> Paired:",
           "           level: float = 0.9) -> Paired:", ("tests/test_paired.py",)),
    Mutant("file text cut at 60 characters", "nplk_lab/model/verdicts.py",
           "_MAX_TEXT = 600", "_MAX_TEXT = 60", ("tests/test_verdicts.py",)),
    # the smooth rule's sentence and map
    Mutant("the smooth rule helping at either set of draws counted as both",
           "nplk_lab/model/claims_tables.py",
           "both = [(a, h) for a, h in pairs if _helps(a) and _helps(h)]",
           "both = [(a, h) for a, h in pairs if _helps(a) or _helps(h)]", _CLAIMS),
    Mutant("the smooth rule's check forgets the tuned baseline",
           "nplk_lab/model/claims_tables.py",
           'if r["method"] in RULE and _over(r) and r.get("smooth_cv_gap_verdict") != "holds":',
           'if r["method"] in RULE and _over(r):', _CLAIMS),
    Mutant("the smooth rule's map without the other draws", "nplk_lab/ui/where_it_holds.py",
           "AV.smooth_grid(cells, method, dataset, _held())",
           "AV.smooth_grid(cells, method, dataset)", ("tests/test_atlas.py",)),
)


def _copy(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)


def run(m: Mutant, base: Path) -> tuple[str, float, str]:
    """``killed`` / ``survived`` / ``does not apply``, the seconds it took and the test
    that failed first (a collection error counts as no kill: the mutant broke the
    import, not a test)."""
    work = base / "work"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(base / "clean", work)
    path = work / m.path
    text = path.read_text()
    if text.count(m.old) != 1:
        return "does not apply", 0.0, ""
    path.write_text(text.replace(m.old, m.new))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pytest", *FAST, "-rf", *m.tests], cwd=work,
                       capture_output=True, text=True)
    took = time.perf_counter() - t0
    failed = [ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("FAILED ")]
    if r.returncode == 1 and failed:
        return "killed", took, failed[0].split("::", 1)[-1][:70]
    if r.returncode == 0:
        return "survived", took, ""
    return f"error (pytest exit {r.returncode})", took, ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-k", default="", help="only the mutants whose name contains this")
    a = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if a.k.lower() in m.name.lower()]
    if a.list:
        for m in chosen:
            print(f"{m.path}: {m.name}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "clean").mkdir()
        _copy(base / "clean")
        print("| module | mutant | outcome | the first test that fails | seconds |\n"
              "|---|---|---|---|---|")
        outcomes = []
        for m in chosen:
            outcome, s, first = run(m, base)
            outcomes.append(outcome)
            print(f"| {Path(m.path).name} | {m.name} | {outcome} | {first or '—'} | "
                  f"{s:.0f} |", flush=True)
    killed = outcomes.count("killed")
    print(f"\n{killed} of {len(outcomes)} killed")
    return 0 if killed == len(outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
