"""The report of a run: ``report.md``, ``results.json`` and one ``fig_<row id>.png`` per row
(kaleido; skipped with a note when no Chrome/Chromium is available), the same table as
plain text for the terminal, and reading a run's ``results.json`` back."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from .. import paired as P
from .. import verdicts as V
from .row import Row

DEFAULT_OUT = Path("reports/reproduce")
PAPERS = {"000": "DANK", "001": "KNPL", "002": "SimpleNPKL", "003": "ONK", "004": "LAB RBF",
          "real": "real data"}


def _write_pngs(rows: list[Row], out: Path) -> str:
    """Write each row's figure with kaleido; return a note ('' when all were written)."""
    todo = [r for r in rows if r.fig is not None]
    if not todo:
        return ""
    try:
        import plotly.io as pio

        paths = [out / f"fig_{r.id}.png" for r in todo]
        pio.write_images([r.fig for r in todo], paths, width=800, height=560)
    except Exception as exc:  # noqa: BLE001 - no browser / no kaleido is a documented state
        return (f"PNG figures were not written ({type(exc).__name__}: {str(exc)[:200]}). "
                "kaleido 1.x needs Chrome or Chromium: install one (e.g. `apt install "
                "chromium` or `plotly_get_chrome`) and rerun.")
    for r, p in zip(todo, paths, strict=True):
        r.figure = p.name if p.exists() else None
    return ""


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _row_verdict(r: Row) -> str:
    return V.verdict_text(r.verdict, r.by_construction, r.stats)


def table_markdown(rows: list[Row], *, with_figures: bool = True) -> str:
    head = "| paper | item | paper's value | ours | verdict | judged on (mean [95 % CI]) |"
    lines = [head, "|---|---|---|---|---|---|"]
    for r in rows:
        judged = V.judged_summary(r.as_dict())
        lines.append("| " + " | ".join(_cell(c) for c in (
            PAPERS.get(r.paper, r.paper), r.item, r.paper_value, r.ours,
            _row_verdict(r), judged)) + " |")
    return "\n".join(lines)


def write_report(rows: list[Row], out, *, quick: bool, seconds: float,
                 command: str | None = None) -> Path:
    """Write ``report.md``, ``results.json`` and the PNGs into ``out``; return report.md."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    png_note = _write_pngs(rows, out)
    command = command or "python -m nplk_lab.model.reproduce" + (" --quick" if quick else "")
    data = {"generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command, "quick": bool(quick), "seconds": round(float(seconds), 1),
            "rows": [r.as_dict() for r in rows]}
    (out / "results.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    counts = {v: sum(r.verdict == v for r in rows) for v in P.VERDICTS}
    n_bc = sum(bool(r.by_construction) for r in rows)
    scale = ("quick scale: 10 seeds or splits per comparison, fewer points" if quick else
             "full scale: 10 seeds or splits per comparison, the papers' sizes")
    md = [f"# Seed results reproduced ({scale})", "",
          f"`{command}` · {data['generated']} · {seconds:.0f} s · {len(rows)} rows: "
          f"{counts[P.HOLDS]} hold ({n_bc} of all rows by construction), {counts[P.FAILS]} "
          f"do not hold, {counts[P.INCONCLUSIVE]} inconclusive, {counts[P.SHOWN]} shown only.",
          "", "Every verdict comes from 95 % t-intervals of paired differences (method − "
          "baseline) over the seeds or splits: *holds* when the interval lies on the claimed "
          "side of 0, *does not hold* when it lies on the other side or at 0 (a loss is "
          "called a loss), *inconclusive* when it contains 0; see "
          "docs/how-verdicts-are-made.md.", ""]
    if png_note:
        md += [f"> {png_note}", ""]
    md += [table_markdown(rows), "", "## Rows", ""]
    for r in rows:
        md += [f"### {r.item} (`{r.id}`)", "", f"- **Claim:** {r.claim}",
               f"- **Paper:** {r.paper_value}", f"- **Ours:** {r.ours}",
               f"- **Verdict:** {_row_verdict(r)}"]
        md += [f"  - {line}" for line in V.stat_lines(r.as_dict())]
        if r.by_construction:
            md.append(f"- **By construction:** {r.by_construction}")
        if r.note:
            md.append(f"- **Note:** {r.note}")
        md += [f"- **Preset:** `{r.preset}`" if r.preset else "- **Preset:** none",
               f"- **Time:** {r.seconds:.1f} s", ""]
        if r.figure:
            md += [f"![{r.item}]({r.figure})", ""]
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path


def load_results(path=None) -> dict | None:
    """The last run's ``results.json`` (default ``reports/reproduce``), or None if absent."""
    p = Path(path) if path is not None else DEFAULT_OUT / "results.json"
    if p.is_dir():
        p = p / "results.json"
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def _plain_table(rows: list[Row]) -> str:
    out = []
    for r in rows:
        out.append(f"[{_row_verdict(r)}] {r.item}\n    paper: {r.paper_value}\n"
                   f"    ours:  {r.ours}")
        out += [f"    - {line}" for line in V.stat_lines(r.as_dict())]
        if r.note:
            out.append(f"    note:  {r.note}")
    return "\n".join(out)
