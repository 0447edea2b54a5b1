"""Lesson 2 on a 1920×1080 projector, before and after: one picture per step, with what
the back row can read measured beside it.

Each step of lesson 2 in presentation mode at 1920×1080 in Debian's Chromium, answered
wrong (the "Not quite" verdict and the numbers shown: the tallest state), every fold
opened ("Draw by draw"). The app is any running server; the pictures of one run are
named after ``--side``, so the same command shoots the app before a change and after it::

    git worktree add --detach /tmp/before <commit>      # then, there:
    PYTHONPATH=/tmp/before streamlit run app.py --server.port 8751 --server.headless true
    python tools/shoot_lesson_projector.py --url http://localhost:8751 --side before \\
        --out docs/screenshots/lesson2-projector
    python tools/shoot_lesson_projector.py --url http://localhost:8752 --side after \\
        --out docs/screenshots/lesson2-projector

An answer is given as the app asks for it: the option clicked, then "Lock in" when the
page has that button; the wrong option is the first the lab does not measure (computed by
this checkout's lessons). Every wait is a condition in the page (Streamlit idle, the
verdict shown, the chart drawn at its box's size, nothing moving), never a fixed sleep.
Writes ``<side>-lesson2-step<k>-1920x1080.png`` (the window only: what a projector
shows without scrolling) and ``<side>.json`` (the measurements), and prints
them; with both sides' JSON in the folder it prints them side by side.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from shoot_before_after import CHART_JS, IDLE_JS, READY_JS, TIMEOUT_MS, VERDICT_JS

SIZE = {"width": 1920, "height": 1080}
LESSON, STEPS = 2, 5

#: the tallest scrolling height, the chart's smallest text (px) and how many of its
#: texts are under 24 px, the share of the window's width the figure's drawing (its plot
#: areas, colour bars and legend) and its plot areas alone span, and the empty band
#: between a plot and its colour bar (px)
MEASURE_JS = f"""() => {{
  const els = [document.scrollingElement, ...document.querySelectorAll(
    '[data-testid=stAppViewContainer],[data-testid=stMain],[data-testid=stMainBlockContainer]')];
  const height = Math.max(...els.filter(Boolean).map((e) => e.scrollHeight));
  const g = ({CHART_JS})();
  if (!g) return {{ height, inner: innerHeight, figure: 0, plots: 0, minFont: null,
                   under24: 0, texts: 0 }};
  const fl = g._fullLayout, box = g.getBoundingClientRect();
  const xs = Object.keys(fl).filter((k) => /^xaxis\\d*$/.test(k)).map((k) => fl[k])
    .filter((a) => a._length > 0);
  const left = Math.min(...xs.map((a) => a._offset)),
        right = Math.max(...xs.map((a) => a._offset + a._length));
  const fonts = [...g.querySelectorAll('svg text')].filter((t) => t.textContent.trim() &&
    t.getBoundingClientRect().width > 0).map((t) => parseFloat(getComputedStyle(t).fontSize));
  // the drawing: plot areas, colour bars and legend, left to right (as the tests measure)
  const spans = xs.map((a) => [box.left + a._offset, box.left + a._offset + a._length]);
  for (const e of g.querySelectorAll('.colorbar, .legend')) {{
    const r = e.getBoundingClientRect();
    if (r.width > 0) spans.push([r.left, r.right]);
  }}
  const drawing = (Math.max(...spans.map((x) => x[1])) - Math.min(...spans.map((x) => x[0])))
    / innerWidth;
  const cb = g.querySelector('.colorbar');
  const band = cb && xs.length === 1 ? cb.getBoundingClientRect().left - (box.left + right) : 0;
  return {{ height, inner: innerHeight, figure: box.width / innerWidth,
           plots: (right - left) / innerWidth, drawing, band: Math.round(band),
           minFont: Math.min(...fonts),
           under24: fonts.filter((f) => f < 24 - 0.01).length, texts: fonts.length }};
}}"""


def answer_wrong(page, k: int) -> str:
    """Pick the first option the lab does not measure at step ``k`` (computed here, from
    this checkout's lessons) and lock it in when the page asks for that; returns the
    verdict line once shown."""
    from nplk_lab.model.lessons import lessons as L

    step = L.lesson(LESSON).steps[k - 1]
    right = step.reveal().answer
    wrong = next(i for i in range(len(step.options)) if i != right)
    option = page.locator('[data-testid=stRadio] label:has(input[type=radio])').filter(
        has_text=step.options[wrong]).first
    option.wait_for(timeout=TIMEOUT_MS)
    option.click()
    lock = page.get_by_role("button", name="Lock in")
    if lock.count():
        lock.first.click()
    page.wait_for_function(f"() => ({VERDICT_JS})() === 'wrong' && ({IDLE_JS})()",
                           timeout=TIMEOUT_MS, polling=50)
    return page.locator('[data-testid=stAlert]').filter(has_text="Not quite").first.inner_text()


def open_folds(page) -> int:
    """Open every closed fold (expander) of the page; how many were opened."""
    opened = 0
    for summary in page.locator('[data-testid=stMain] [data-testid=stExpander] summary').all():
        if not summary.is_visible():
            continue
        details = summary.locator("xpath=..")
        if details.get_attribute("open") is None:
            summary.click()
            opened += 1
    if opened:
        page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=50)
    return opened


def shoot(browser, base: str, k: int, out: Path, side: str) -> dict:
    ctx = browser.new_context(viewport=SIZE)
    page = ctx.new_page()
    page.goto(f"{base.rstrip('/')}/Lessons?lesson={LESSON}&step={k}&present=1",
              wait_until="domcontentloaded")
    page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=50)
    verdict = answer_wrong(page, k)
    folds = open_folds(page)
    page.mouse.move(1, 1)   # no hover label in the picture
    page.wait_for_function(READY_JS, timeout=TIMEOUT_MS, polling="raf")
    m = page.evaluate(MEASURE_JS)
    m.update(step=k, folds=folds, verdict=verdict.split("\n")[0][:60])
    page.screenshot(path=str(out / f"{side}-lesson{LESSON}-step{k}-1920x1080.png"))
    ctx.close()
    return m


def table(rows: list[dict]) -> list[str]:
    lines = [f"{'step':>4} {'page height':>11} {'smallest text':>13} {'texts < 24 px':>13} "
             f"{'drawing':>7} {'plot areas':>10} {'band':>4} {'folds':>5}"]
    for m in rows:
        lines.append(f"{m['step']:>4} {m['height']:>11} {m['minFont'] or 0:>13g} "
                     f"{m['under24']:>6} of {m['texts']:<4} {m.get('drawing', 0):>7.0%} "
                     f"{m['plots']:>10.0%} {m.get('band', 0):>4} {m['folds']:>5}")
    return lines


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="the running app")
    ap.add_argument("--side", required=True, choices=("before", "after"))
    ap.add_argument("--out", required=True, type=Path, help="folder for the pictures")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        try:
            rows = [shoot(browser, args.url, k, args.out, args.side)
                    for k in range(1, STEPS + 1)]
        finally:
            browser.close()
    (args.out / f"{args.side}.json").write_text(json.dumps(rows, indent=1) + "\n")
    sides = {s: json.loads((args.out / f"{s}.json").read_text())
             for s in ("before", "after") if (args.out / f"{s}.json").exists()}
    for side, got in sides.items():
        print(f"\n{side} (window 1080 px tall, {SIZE['width']} px wide)")
        print("\n".join(table(got)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
