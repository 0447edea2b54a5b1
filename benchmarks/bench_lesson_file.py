"""Size and build time of every built-in lesson's downloadable HTML file.

    python benchmarks/bench_lesson_file.py

Each lesson is built in a fresh interpreter (cold: no fit cached, Plotly.js read from
disk), as the Lessons page's "Download this lesson" button builds it, with the page's own
figure function. Prints the file's size (the limit is 10 MB), the part that is Plotly.js,
and the wall-clock build time, then the time of a second build in the same process (the
fits cached by the lessons' own cache).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_ONE = """
import sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
from nplk_lab.model.lessons import lessons as L
from nplk_lab.model.lessons.lesson_file import lesson_html, plotly_js
from nplk_lab.ui.lessons import step_figure
les = L.lesson({n})
t1 = time.perf_counter()
page = lesson_html(les.title, les.steps, step_figure, summary=les.summary)
t2 = time.perf_counter()
lesson_html(les.title, les.steps, step_figure, summary=les.summary)
t3 = time.perf_counter()
print(len(page.encode()), len(plotly_js().encode()), len(les.steps), t2 - t1, t3 - t2)
"""


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from nplk_lab.model.lessons import lessons as L
    print(f"{'lesson':>6} {'steps':>5} {'file MB':>8} {'Plotly.js MB':>12} "
          f"{'build s (cold)':>14} {'again s':>8}")
    for les in L.LESSONS:
        out = subprocess.run([sys.executable, "-c", _ONE.format(root=str(ROOT), n=les.number)],
                             capture_output=True, text=True, check=True, cwd=ROOT).stdout
        size, js, steps, cold, warm = out.split()
        print(f"{les.number:>6} {steps:>5} {int(size) / 1e6:>8.2f} {int(js) / 1e6:>12.2f} "
              f"{float(cold):>14.2f} {float(warm):>8.2f}")


if __name__ == "__main__":
    main()
