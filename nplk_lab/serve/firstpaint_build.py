"""Every page's first picture at its defaults, made before a new server accepts its first
connection (the ``nplk-lab`` command runs this first).

A server whose first-paint cache (:mod:`.firstpaint`) is empty, the first start after an
install or after the lab's code changed, used to compute the first student's page itself:
importing scikit-learn and fitting, 3.4-3.9 s on a quiet 2-core machine before the first
picture. ``python -m nplk_lab.serve.firstpaint_build [APP_DIR]`` runs each page of the
app at its default state in Streamlit's ``AppTest`` (the page's own code; fits in this
process, no fit pool), so each run writes its snapshot exactly as a server's first run
would, keyed by the same code version and state. A page whose snapshot exists is not run;
a page that fails is reported and left to compute on its first visit (a snapshot is an
optimisation, never a reason not to serve). ``NPLK_LAB_FIRST_PAINT=0`` turns it off
with the snapshots themselves.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from . import firstpaint

#: a page's name as it passes it to ``ui.page_setup`` (a literal, or the ``PAGE`` constant)
_SETUP = re.compile(r"page_setup\(\s*\"(\w+)\"")
_CONSTANT = re.compile(r"^PAGE\s*=\s*\"(\w+)\"", re.M)
#: beside a snapshot's path: this page's default run stores nothing to replay
NOTHING = ".none"


def page_files(folder: Path) -> list[tuple[str, Path]]:
    """``(page name, script)`` of the home script and every page of ``folder`` that sets
    itself up as a lab page, home first, then the pages in Streamlit's order."""
    out = []
    for path in [folder / "app.py", *sorted((folder / "pages").glob("*.py"))]:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        found = _SETUP.search(text) or (_CONSTANT.search(text) if "page_setup(PAGE" in text
                                        else None)
        if found:
            out.append((found.group(1), path))
    return out


def missing(folder: Path) -> list[tuple[str, Path]]:
    """The pages whose default state has no snapshot for this code version."""
    defaults = lab_defaults()
    out = []
    for name, path in page_files(folder):
        snap = firstpaint.snapshot_path(name, defaults)
        if not (snap.exists() or snap.with_suffix(NOTHING).exists()):
            out.append((name, path))
    return out


def build(folder: Path, *, timeout: float = 300.0, log=sys.stderr) -> dict[str, float]:
    """Run every page without a snapshot at its defaults; seconds per page built."""
    if not firstpaint.enabled():
        return {}
    todo = missing(folder)
    if not todo:
        return {}
    os.environ["NPLK_LAB_WORKERS"] = "0"  # fit here: a pool's start would only add to it
    from streamlit.testing.v1 import AppTest

    done: dict[str, float] = {}
    defaults = lab_defaults()
    for name, path in todo:
        t0 = time.perf_counter()
        try:
            # from the entry script, as a browser arrives: links to other pages resolve
            at = AppTest.from_file(str(folder / "app.py"), default_timeout=timeout)
            if path.name != "app.py":
                at.switch_page(str(path.relative_to(folder)))
            at.run()
            failed = [e.value for e in at.exception]
        except Exception as e:  # noqa: BLE001 (this page computes on its first visit)
            failed = [repr(e)]
        seconds = time.perf_counter() - t0
        snap = firstpaint.snapshot_path(name, defaults)
        if failed:
            print(f"nplk-lab: the first picture of {name} was not prepared "
                  f"({str(failed[0])[:200]})", file=log, flush=True)
        elif snap.exists():
            done[name] = seconds
        else:  # its default run stores nothing to replay: do not run it again
            try:
                snap.parent.mkdir(parents=True, exist_ok=True)
                snap.with_suffix(NOTHING).touch()
            except OSError:
                pass
    return done


def lab_defaults() -> dict:
    import nplk_lab.model as lab

    return lab.defaults()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else Path(__file__).resolve().parents[2]
    t0 = time.perf_counter()
    done = build(folder)
    if done:
        print(f"nplk-lab: first pictures prepared ({', '.join(done)}) in "
              f"{time.perf_counter() - t0:.1f} s, once for this version of the lab",
              file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
