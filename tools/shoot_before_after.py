"""Before/after pictures of four defects a teacher met on a projector (lessons 1 and 2,
Classification), from two running servers: the app before they were fixed (``git
worktree add /tmp/old bec9e3a``, then ``streamlit run app.py`` there) and the app now.

Four views at 1280×720 in Debian's Chromium, the same on both servers:

- ``lesson1-step5``: Lessons, lesson 1 step 5 in presentation mode after a wrong answer
  (K at σ = 10: its colour scale);
- ``lesson2-step2``: lesson 2 step 2 likewise (the heatmaps' widths, colour-bar titles);
- ``lesson2-step3``: lesson 2 step 3 likewise (does the reveal fit the window?);
- ``classification``: the Classification page in its default state (the score table
  and the surface on the first screen?).

Every wait is a condition in the page (Streamlit idle, the verdict shown, the chart
drawn at its box's size, nothing moving), never a fixed sleep. Writes
``before-<view>.jpg`` and ``after-<view>.jpg`` (JPEG quality 80, the window only: what a
projector shows without scrolling) and prints what it measured::

    python tools/shoot_before_after.py --before http://localhost:8751 \\
        --after http://localhost:8752 --out docs/screenshots/before-after
"""

from __future__ import annotations

import argparse
from pathlib import Path

SIZE = {"width": 1280, "height": 720}
TIMEOUT_MS = 120_000   # bounds a hang only (a cold server on a loaded 2-core machine)
VIEWS = [("lesson1-step5", "/Lessons?lesson=1&step=5&present=1", True),
         ("lesson2-step2", "/Lessons?lesson=2&step=2&present=1", True),
         ("lesson2-step3", "/Lessons?lesson=2&step=3&present=1", True),
         ("classification", "/Classification", False)]

IDLE_JS = """() => { const a = document.querySelector('[data-testid=stApp]');
  return !!a && a.dataset.testScriptState === 'notRunning' && !document.querySelector(
    '[data-testid=stStatusWidgetRunningIcon],[data-testid=stStatusWidgetRunningManIcon]'); }"""

#: the verdict shown after an answer: 'wrong', 'right' or '' (none yet)
VERDICT_JS = """() => { const t = [...document.querySelectorAll('[data-testid=stAlert]')]
  .map((e) => e.innerText);
  return t.some((s) => s.includes('Not quite')) ? 'wrong'
       : t.some((s) => s.trim().startsWith('Right.')) ? 'right' : ''; }"""

#: the page's first chart on screen, once Plotly has drawn it at its box's size
CHART_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]
  .find((g) => g.getBoundingClientRect().width > 0 && g._fullLayout
          && g.querySelector('.main-svg'))"""

#: drawn, idle and still: no animation with an end running, no hover label, every plot
#: as wide and tall as its box
READY_JS = f"""() => {{
  if (!({IDLE_JS})() || !({CHART_JS})()) return false;
  if (document.getAnimations().some((a) => a.playState === 'running' && a.effect &&
      Number.isFinite(a.effect.getComputedTiming().endTime))) return false;
  return [...document.querySelectorAll('.js-plotly-plot')].every((g) => {{
    const h = g.querySelector('.hoverlayer'), fl = g._fullLayout, r = g.getBoundingClientRect();
    if (h && h.childElementCount) return false;
    return !fl || !fl.width || (Math.abs(fl.width - r.width) < 1 &&
                                Math.abs(fl.height - r.height) < 2); }}); }}"""

#: what is printed: the tallest scrolling height of the page, the bottoms of the chart
#: and of its lowest plot area, its smallest text (px), its heatmaps (plot-area width,
#: colour range), overlapping colour-bar titles, the score table's place and width
MEASURE_JS = rf"""() => {{
  const els = [document.scrollingElement, ...document.querySelectorAll(
    '[data-testid=stAppViewContainer],[data-testid=stMain],[data-testid=stMainBlockContainer]')];
  const height = Math.max(...els.filter(Boolean).map((e) => e.scrollHeight));
  const g = ({CHART_JS})(), fl = g._fullLayout, box = g.getBoundingClientRect();
  const heatmaps = (g._fullData || []).filter((t) => t.type === 'heatmap' && t.visible)
    .map((t) => ({{ w: Math.round(fl[t.xaxis.replace('x', 'xaxis')]._length),
                   zmin: t.zmin, zmax: t.zmax,
                   title: (t.colorbar && t.colorbar.title && t.colorbar.title.text) || '' }}));
  const ys = Object.keys(fl).filter((k) => /^yaxis\d*$/.test(k)).map((k) => fl[k]);
  const plotBottom = Math.round(box.top + Math.max(...ys.map((a) => a._offset + a._length)));
  const fonts = [...g.querySelectorAll('svg text')].filter((t) => t.textContent.trim() &&
    t.getBoundingClientRect().width > 0).map((t) => parseFloat(getComputedStyle(t).fontSize));
  const bars = [...g.querySelectorAll('.colorbar .cbtitle')].map((e) =>
    e.getBoundingClientRect()).filter((r) => r.width > 0);
  let overlaps = 0;
  bars.forEach((a, i) => bars.slice(i + 1).forEach((b) => {{
    if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
        Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) overlaps += 1; }}));
  const table = [...document.querySelectorAll('[data-testid=stMain] table')]
    .find((t) => t.innerText.includes('SVM'));
  const tr = table ? table.getBoundingClientRect() : null;
  return {{ height, inner: innerHeight, chartBottom: Math.round(box.bottom), heatmaps,
           plotBottom, minFont: Math.min(...fonts),
           overlaps, tableTop: tr ? Math.round(tr.top) : null,
           tableBottom: tr ? Math.round(tr.bottom) : null,
           tableWidth: tr ? Math.round(tr.width) : null }}; }}"""


def answer_wrong(page) -> str:
    """Click the first radio option; if the lab says "Right.", the second (then only one
    is right); return the "Not quite" verdict once shown."""
    options = page.locator('[data-testid=stRadio] label:has(input[type=radio])')
    options.first.wait_for(timeout=TIMEOUT_MS)
    options.first.click()
    page.wait_for_function(f"() => ({VERDICT_JS})() !== '' && ({IDLE_JS})()",
                           timeout=TIMEOUT_MS, polling=50)
    if page.evaluate(VERDICT_JS) == "right":
        options.nth(1).click()
    page.wait_for_function(f"() => ({VERDICT_JS})() === 'wrong' && ({IDLE_JS})()",
                           timeout=TIMEOUT_MS, polling=50)
    return page.locator('[data-testid=stAlert]').filter(has_text="Not quite").first.inner_text()


def shoot(browser, base: str, name: str, path: str, lesson: bool, out: Path,
          side: str) -> dict:
    ctx = browser.new_context(viewport=SIZE)
    page = ctx.new_page()
    page.goto(base.rstrip("/") + path, wait_until="domcontentloaded")
    page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=50)
    verdict = answer_wrong(page) if lesson else ""
    if not lesson:   # the score table is drawn in the same run as the surface
        page.wait_for_function("() => [...document.querySelectorAll('[data-testid=stMain]"
                               " table')].some((t) => t.innerText.includes('SVM'))",
                               timeout=TIMEOUT_MS, polling=100)
    page.mouse.move(1, 1)   # no hover label, no mode bar in the picture
    page.wait_for_function(READY_JS, timeout=TIMEOUT_MS, polling="raf")
    m = page.evaluate(MEASURE_JS)
    m["verdict"] = verdict.split("\n")[0]
    page.screenshot(path=str(out / f"{side}-{name}.jpg"), type="jpeg", quality=80)
    ctx.close()
    return m


def k_range(m: dict) -> str:
    """The colour range of the view's K heatmap (colour-bar title K, else the first)."""
    maps = m["heatmaps"]
    if not maps:
        return "—"
    k = next((h for h in maps if h["title"].strip().startswith("K")), maps[0])
    return f"{k['zmin']:.3g}–{k['zmax']:.3g}"


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="URL of the app before (bec9e3a)")
    ap.add_argument("--after", required=True, help="URL of the app now")
    ap.add_argument("--out", required=True, type=Path, help="folder for the pictures")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        try:
            for name, path, lesson in VIEWS:
                rows[name] = {side: shoot(browser, url, name, path, lesson, args.out, side)
                              for side, url in (("before", args.before),
                                                ("after", args.after))}
        finally:
            browser.close()

    fold = SIZE["height"]

    def above(s: dict) -> str:   # the figure's box, then its lowest plot area
        return "/".join("yes" if y <= fold else f"no {y}"
                        for y in (s["chartBottom"], s["plotBottom"]))

    print(f"{'view':15} {'page height':>15}  {'figure / plot area above the fold':34}  "
          "K colour range")
    print(f"{'':15} {'before':>7} {'after':>7}  {'before':16} {'after':17}  before / after")
    for name, r in rows.items():
        b, a = r["before"], r["after"]
        rng = f"{k_range(b)} / {k_range(a)}" if name == "lesson1-step5" else ""
        print(f"{name:15} {b['height']:>7} {a['height']:>7}  {above(b):16} {above(a):17}  "
              f"{rng}")
    print("\ndetails: smallest chart text px, heatmap plot-area widths px, overlapping "
          "colour-bar titles, score table y top–bottom and width, the verdict")
    for name, r in rows.items():
        for side in ("before", "after"):
            s = r[side]
            widths = ",".join(str(h["w"]) for h in s["heatmaps"]) or "—"
            table = (f"table y {s['tableTop']}–{s['tableBottom']} w {s['tableWidth']}"
                     if s["tableTop"] is not None else "")
            print(f"  {name:15} {side:6} text {s['minFont']:g} heatmaps [{widths}] "
                  f"overlaps {s['overlaps']} {table} {s['verdict'][:60]}".rstrip())
    sizes = sum(p.stat().st_size for p in args.out.glob("*.jpg"))
    print(f"\n{len(list(args.out.glob('*.jpg')))} pictures, {sizes / 1024:.0f} KB "
          f"in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
