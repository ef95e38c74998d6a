"""docs/format.md, the format reference, is in the repository and says what the code does.

It names every kind of problem the reader reports, with the severity the code gives it,
and the fields that real files hold beyond the agent's own types. No page points at a
reference outside the repository (a clone has only what is in it).
"""

from __future__ import annotations

import ast
import re

from conftest import REPO

from prime_nb.format import KINDS

FORMAT = REPO / "docs" / "format.md"
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_no_page_points_outside_the_repository() -> None:
    for page in PAGES:
        text = page.read_text("utf-8")
        assert "../shared" not in text and "FORMAT.md" not in text, page.name


def test_sessions_md_points_at_format_md() -> None:
    text = (REPO / "docs" / "sessions.md").read_text("utf-8")
    section = text[text.index("## The file format") :]
    assert "[format.md](format.md)" in section


def kinds_made_in_the_code() -> set[str]:
    """The kinds the package passes to ``Problem(...)`` as a literal, and those of the
    lenient parser's repairs (``("kind", message)``)."""
    found: set[str] = set()
    for path in (REPO / "prime_nb").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Problem"
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
            ):
                found.add(node.args[1].value)
    return found | {"deep_nesting", "lone_surrogate"}


def test_every_kind_of_problem_has_a_severity_and_a_line_in_format_md() -> None:
    made = kinds_made_in_the_code()
    assert "glued_entries" in made and "no_header" in made
    assert made <= set(KINDS), made - set(KINDS)
    text = FORMAT.read_text("utf-8")
    for kind in KINDS:
        assert f"`{kind}`" in text, kind
    # the table of the lines' problems: each row's kinds, then its severity
    rows = re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| (error|warning) \|", text, re.M)
    assert len(rows) >= 10
    for kinds, severity in rows:
        for kind in re.findall(r"`([a-z_]+)`", kinds):
            assert KINDS[kind] == severity, kind


def test_the_fields_seen_in_real_files_are_described() -> None:
    text = FORMAT.read_text("utf-8")
    for field in (
        "`injected`",
        "`responseId`",
        "`thinkingSignature`",
        "`textSignature`",
        "`partialJson`",
        "`partialArgs`",
        "`provenance`",
        "without `api`, `provider` or `model`",
        "lack `cost`",
        "`totalTokens`",
        "A file holding only a header",
        "embedding tools",
        "A count below 0",
    ):
        assert field in text, field
