"""Compare two runs' verdicts: what a fresh run judges differently from the committed
report (the test that keeps ``reports/reproduce`` current uses it)."""

from __future__ import annotations


def verdict_signature(results: dict) -> dict[str, tuple]:
    """Per row id: the verdict, whether it holds by construction, and the verdicts of its
    judged comparisons (label -> verdict) — what :func:`compare_verdicts` compares."""
    out = {}
    for r in results.get("rows", []):
        judged = tuple(sorted((st["label"], st["verdict"]) for st in r.get("stats", [])
                              if st.get("judged")))
        out[r["id"]] = (r.get("verdict"), bool(r.get("by_construction")), judged)
    return out


def compare_verdicts(committed: dict, fresh: dict) -> list[str]:
    """Where a fresh run's verdicts differ from the committed report's (empty: none).

    Compared: the set of rows, each row's verdict and by-construction label, and the
    verdict of each judged comparison. The numbers themselves may move in the last digits
    between machines (BLAS, thread counts); a verdict may not."""
    a, b = verdict_signature(committed), verdict_signature(fresh)
    diffs = [f"row {rid}: only in the committed report" for rid in a.keys() - b.keys()]
    diffs += [f"row {rid}: only in the fresh run" for rid in b.keys() - a.keys()]
    for rid in sorted(a.keys() & b.keys()):
        if a[rid] != b[rid]:
            diffs.append(f"row {rid}: committed {a[rid]!r}, fresh {b[rid]!r}")
    if bool(committed.get("quick")) != bool(fresh.get("quick")):
        diffs.append("the two runs are at different scales (quick / full)")
    return sorted(diffs)
