"""Make the docs' screenshots of the app: the browser tests that take them run against a
new ``streamlit run app.py`` in headless Chromium, then their pictures are copied from
``test-artifacts/pictures/`` into ``docs/screenshots/``.

Each picture is taken by a test at the state it has just checked (the eigenfunction
maps of j = 2, the selected point's influence, lesson 2 step 3 in presentation mode at
1280×720, ...), at the viewport sizes the tests use: 1400×1000 and its clips for the lab
pages, 1280×720 and 1920×1080 for presentation mode. A test run itself never writes
under ``docs/`` (``tests/test_docs_pictures.py`` checks); this command does, and only
with the pictures of tests that passed in this run::

    python tools/docs_screenshots.py               # all the pictures
    python tools/docs_screenshots.py influence.png # only the tests taking these
    python tools/docs_screenshots.py present-fit   # a folder: every lesson step

A folder (:data:`FOLDERS`) holds a set too large to list picture by picture: every step
of every lesson in presentation mode at 1280×720 and 1920×1080, and on a phone. Its
test writes them into ``test-artifacts/pictures/<folder>/``; the folder under
``docs/screenshots/`` is replaced by the pictures of that run.

Needs Playwright and Debian's Chromium, as the browser tests do. The other pictures in
``docs/screenshots/`` (dark theme, pairwise clusters, regression, replay, the DANK map)
were taken by hand or by their own benchmark (``docs/two-parameter-maps.md``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PICTURES = ROOT / "test-artifacts" / "pictures"   # where the tests put them
DOCS = ROOT / "docs" / "screenshots"

# picture -> the test that takes it
TAKEN_BY = {
    "eigenmaps.png": "tests/test_browser_eigenmaps.py::"
                     "test_clicking_an_eigenvalue_draws_its_eigenfunctions",
    "influence.png": "tests/test_browser_influence.py::"
                     "test_click_a_point_then_a_heatmap_row_selects_and_draws_its_influence",
    "maps-page.png": "tests/test_browser_maps.py::"
                     "test_clicking_a_map_cell_opens_the_method_in_that_state",
    **{name: "tests/test_browser_lessons.py::test_walk_a_lesson_in_presentation_mode"
       for name in ("lesson-present-1280x720.png", "lesson-present-1920x1080.png",
                    "classification-present-1280x720.png",
                    "classification-present-1920x1080.png")},
    **{name: "tests/test_browser_class.py::test_a_class_answers_together"
       for name in ("class-teacher-join.png", "class-teacher-count.png",
                    "class-student-phone.png")},
    **{name: "tests/test_browser_class_sequence.py::"
             "test_peer_instruction_survives_reloads_a_killed_worker_and_a_restart"
       for name in ("class-projector-split-1280x720.png", "class-projector-split-1920x1080.png",
                    "class-projector-shift-1280x720.png", "class-projector-shift-1920x1080.png",
                    "class-phone-second-vote.png", "class-phone-revealed.png")},
}


# folder -> the test file that takes every picture in it (all its tests run, the slow
# ones included)
FOLDERS = {"present-fit": "tests/test_browser_present_fit.py"}


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="PICTURE",
                    help="pictures or folders to make (default: all): "
                         f"{', '.join([*TAKEN_BY, *FOLDERS])}")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.names) - set(TAKEN_BY) - set(FOLDERS))
    if unknown:
        ap.error(f"no test takes {', '.join(unknown)}")
    folders = [n for n in args.names if n in FOLDERS] if args.names else list(FOLDERS)
    names = [n for n in args.names if n in TAKEN_BY] if args.names else list(TAKEN_BY)
    tests = sorted({TAKEN_BY[n] for n in names} | {FOLDERS[f] for f in folders})

    for name in names:                    # a picture of an earlier run is never copied
        (PICTURES / name).unlink(missing_ok=True)
    for folder in folders:
        shutil.rmtree(PICTURES / folder, ignore_errors=True)
    started = time.time()
    passed = set()
    for test in tests:                    # one run each: a failure spoils only its own
        print(f"running {test}", flush=True)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-m", "browser", test], cwd=ROOT, env=os.environ.copy())
        if run.returncode == 0:
            passed.add(test)

    DOCS.mkdir(parents=True, exist_ok=True)
    missing = []
    for name in names:
        src = PICTURES / name
        if TAKEN_BY[name] not in passed or not src.exists() or src.stat().st_mtime < started:
            missing.append(name)
            continue
        shutil.copyfile(src, DOCS / name)
        w, h = png_size(src)
        print(f"docs/screenshots/{name}: {w}×{h}, {src.stat().st_size / 1024:.0f} KB")
    for folder in folders:
        made = sorted((PICTURES / folder).glob("*")) if (PICTURES / folder).is_dir() else []
        if FOLDERS[folder] not in passed or not made:
            missing.append(folder + "/")
            continue
        shutil.rmtree(DOCS / folder, ignore_errors=True)
        (DOCS / folder).mkdir(parents=True)
        for src in made:
            shutil.copyfile(src, DOCS / folder / src.name)
        size = sum(p.stat().st_size for p in made) / 1024
        print(f"docs/screenshots/{folder}/: {len(made)} pictures, {size:.0f} KB")
    if missing:
        print(f"not made (their test failed, was skipped or took no picture): "
              f"{', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
