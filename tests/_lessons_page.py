"""What the browser tests of the Lessons page do on it: wait for a step, read the
chart's box, lock in an option and read the verdict, answer a step as its measured
reveal says, and open a page at a given size; and the smallest font a projector may show
at each screen size (the lessons' own rule)."""

from __future__ import annotations

from _browser import wait_idle

from nplk_lab.model.lessons import lessons as L


def wait_step(page, k: int, n: int) -> None:
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('strong')].some((e) => e.textContent"
        ".includes(t))", arg=f"step {k} of {n}", timeout=60_000)
    wait_idle(page, 60_000)


def chart_box(page, fitted: bool | None = None) -> dict:
    """The chart's box once it is drawn; with ``fitted`` True (False) once it shows
    (does not show) the decision function."""
    want = "true" if fitted is None else \
        f"b.names.includes('decision function') === {str(fitted).lower()}"
    page.wait_for_function(f"() => {{ const b = ({CHART_BOX_JS})(); return !!b && {want}; }}",
                           timeout=60_000)
    return page.evaluate(CHART_BOX_JS)


def lock_in(page, option: str, verdict: str | None = None) -> None:
    """Choose ``option`` with a click (nothing is revealed: the page reruns and no
    verdict appears), press "Lock in", and wait for the ``verdict`` ('right' or
    'wrong'; None: any) and for the page to be idle."""
    label = page.locator('[data-testid="stRadio"] label').filter(has_text=option).first
    label.click()
    page.wait_for_function("(o) => [...document.querySelectorAll('[data-testid=stRadio] "
                           "label')].some((l) => l.textContent.includes(o) && "
                           "l.querySelector('input').checked)", arg=option, timeout=60_000)
    wait_idle(page, 60_000)
    assert page.evaluate(VERDICT_JS) == "", "choosing alone revealed the answer"
    page.locator('.st-key-lesson_lock').get_by_role("button", name="Lock in").click()
    page.wait_for_function(f"(v) => v ? ({VERDICT_JS})() === v : ({VERDICT_JS})() !== ''",
                           arg=verdict, timeout=60_000)
    wait_idle(page, 60_000)


def answer(page, step: L.Step) -> L.Reveal:
    """Lock in the option the lab measures at the step's state; wait for the verdict."""
    rev = step.reveal()
    assert rev.answer >= 0, rev.text
    assert page.evaluate(VERDICT_JS) == ""                 # nothing revealed yet
    lock_in(page, step.options[rev.answer], "right")
    return rev


def new_page(browser, size):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    return ctx, page


#: the bottom of the page's first drawn chart and the window's height
CHART_BOX_JS = """
() => {
  const c = [...document.querySelectorAll('[data-testid="stMain"] .nplk-live-chart')]
    .find((e) => e.getBoundingClientRect().width > 0 && e.querySelector('.main-svg'));
  if (!c) return null;
  const r = c.getBoundingClientRect();
  const svg = c.querySelector('.main-svg').getBoundingClientRect();
  return { top: r.top, bottom: Math.max(r.bottom, svg.bottom), inner: innerHeight,
           names: (c.data || []).map((t) => t.name || '') };
}
"""


#: the verdict shown once an answer is locked in: 'wrong', 'right', 'none' or ''
VERDICT_JS = """() => { const t = [...document.querySelectorAll('[data-testid=stAlert]')]
  .map((e) => e.innerText.trim());
  return t.some((s) => s.startsWith('Not quite')) ? 'wrong'
       : t.some((s) => s.startsWith('Right:')) ? 'right'
       : t.some((s) => s.startsWith('You predicted')) ? 'none' : ''; }"""


# the windows a lesson is projected in: a laptop's and a hall's
SMALL, LARGE = (1280, 720), (1920, 1080)
#: the least chart text size, px, at each window: read from the back of a hall
MIN_FONT = {SMALL: 16, LARGE: 24}
