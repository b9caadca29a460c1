"""The README is the front door and docs/ holds the reference pages (issue 24): every page
is linked from the README, and every relative link in them leads to a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_every_docs_page_is_linked_from_the_readme():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))
    assert pages, "docs/ holds the reference pages"
    assert [p for p in pages if f"]({p})" not in readme] == []


def test_relative_links_lead_to_files_that_exist():
    for page in [REPO / "README.md", *(REPO / "docs").glob("*.md")]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"
