"""Every relative link in the docs points at a file (and heading) that exists.

The README is a way in that links to the reference pages under docs/; moving or renaming
a page, or a heading another page links to, must not leave a dead link behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

#: the Markdown files a reader follows links through
PAGES = [REPO / "README.md", REPO / "ARCHITECTURE.md", REPO / "benchmarks" / "README.md"]
PAGES += sorted((REPO / "docs").glob("*.md"))

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub spells it: lower case, punctuation dropped, spaces to -."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text("utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}


def dead_links(page: Path) -> list[str]:
    """The links of ``page`` (outside code blocks) whose file or heading does not exist."""
    text = FENCE.sub("", page.read_text("utf-8"))
    dead = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            dead.append(target)
    return dead


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert page.exists(), f"{page.relative_to(REPO)} is gone: update PAGES in this test"
    assert dead_links(page) == [], f"fix these links in {page.relative_to(REPO)}"


def test_the_readme_links_to_every_reference_page() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    for page in sorted((REPO / "docs").glob("*.md")):
        assert f"docs/{page.name}" in readme, f"link docs/{page.name} from the README"


def test_a_dead_link_or_anchor_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading, with `code`\n", "utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-heading-with-code) [web](https://example.org/x)\n"
        "[gone](missing.md#a) ![gone](pic.png) [bad anchor](there.md#nope) [self](#nowhere)\n"
        "```\n[in code](not-a-link.md)\n```\n",
        "utf-8",
    )
    assert dead_links(page) == ["missing.md#a", "pic.png", "there.md#nope", "#nowhere"]
