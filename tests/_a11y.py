"""axe-core (vendored, tests/vendor/axe-core) run in a page: the serious and critical
accessibility violations it finds. Used by the accessibility tests of every page and of
the class hall."""

from __future__ import annotations

import re
from pathlib import Path

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"


AXE_JS = """
async () => {
  const r = await axe.run(document, { resultTypes: ['violations'] });
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.map((n) => ({ target: n.target.join(' '),
                                                 html: n.html.slice(0, 160),
                                                 why: (n.failureSummary || '').slice(0, 300)
                                               })) }));
}
"""


def _serious(page) -> list[dict]:
    """axe-core's serious and critical violations on ``page``, less :data:`EXCUSED`."""
    page.add_script_tag(path=str(AXE))
    out = []
    for v in page.evaluate(AXE_JS):
        nodes = [n for n in v["nodes"] if not any(
            re.search(sel, n["target"]) for sel in EXCUSED.get(v["id"], ()))]
        if nodes:
            out.append({**v, "nodes": nodes})
    return out


#: Violations inside Streamlit's own widgets that the lab cannot fix, each by rule and
#: the selector of the element it concerns (none so far: every finding was fixed).
EXCUSED: dict[str, tuple[str, ...]] = {}
