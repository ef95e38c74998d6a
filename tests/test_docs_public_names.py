"""The docs send users to public names only: a private module (``prime_nb.x._y``) may
move or change without notice, so naming one in a page teaches an import that breaks.

Where a page explains how the code works, it names the source file (``corpus/_heap.py``),
which is no import.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

import prime_nb.analysis

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
PRIVATE = re.compile(r"\bprime_nb(?:\.[A-Za-z]\w*)*\._\w+")
PUBLIC = re.compile(r"\bprime_nb\.(analysis|session|corpus|family|redact|datasets)\.([A-Z_]+)\b")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_names_a_private_module(page: Path) -> None:
    assert not PRIVATE.findall(page.read_text("utf-8"))


def test_the_research_schemas_have_a_public_name() -> None:
    text = (REPO / "docs" / "research.md").read_text("utf-8")
    named = PUBLIC.findall(text)
    assert ("analysis", "SCHEMAS") in named
    assert "compaction_forensics" in prime_nb.analysis.SCHEMAS
