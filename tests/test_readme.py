"""The README is the front door: at most 200 lines, every link in it (and in the docs
index) resolves, and `.ci/run` runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _local_links(md: Path) -> list[str]:
    return [t for t in LINK.findall(md.read_text(encoding="utf-8"))
            if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def test_the_readme_is_at_most_200_lines():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_every_local_link_of_the_readme_and_the_docs_index_resolves():
    for md in (ROOT / "README.md", ROOT / "docs" / "README.md"):
        links = _local_links(md)
        assert links, md
        missing = [t for t in links if not (md.parent / t.split("#")[0]).exists()]
        assert missing == [], f"{md.relative_to(ROOT)}: {missing}"


def test_every_doc_is_in_the_docs_index():
    listed = set(_local_links(ROOT / "docs" / "README.md"))
    docs = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert docs <= listed, docs - listed


def test_ci_runs_the_readmes_test_command_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    test_cmd = next(b.strip() for b in blocks if "pytest" in b)
    assert test_cmd in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
