"""The CLI's tables cut long session text where they print it: a 1 MB session name, ids,
a working folder and a role of 100,000 characters make short lines, not megabyte ones;
``--json`` keeps every value whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

from prime_nb.cli import main

LONG = 100_000


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    long_id = "u" * LONG
    return write_lines(
        tmp_path_factory.mktemp("long") / "s.jsonl",
        [
            header(id="i" * LONG, cwd="/" + "c" * LONG),
            {"type": "session_info", "id": "n1", "parentId": None, "name": "N" * 1_000_000},
            msg(long_id, "n1", "user", "find the needle"),
            msg(long_id, "n1", "user", "a duplicate id, named in a problem: needle"),
            msg("a1", "g" * LONG, "assistant", "an orphan", 1),
            msg("x1", "a1", "r" * LONG, "an odd role with a needle", 2),
        ],
    )


@pytest.mark.parametrize(
    "args", [["info"], ["validate"], ["grep", "needle"], ["ls"]], ids=lambda a: a[0]
)
def test_every_line_is_short(
    session: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    target = str(session.parent) if args == ["ls"] else str(session)
    main([*args, target])
    out, err = capsys.readouterr()
    lines = (out + err).splitlines()
    assert lines
    longest = max(lines, key=len)
    assert len(longest) <= len(target) + 700, longest[:200]


def test_json_keeps_the_values_whole(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--json", str(session)]) == 0
    held = json.loads(capsys.readouterr().out)
    assert len(held["name"]) == 1_000_000
    assert len(held["cwd"]) == LONG + 1


def test_an_exported_page_title_is_cut(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.html"
    assert main(["export", "-o", str(out), str(session)]) == 0
    page = out.read_text(encoding="utf-8")
    title = page[page.index("<title>") : page.index("</title>")]
    assert title.startswith("<title>NNN") and "…" in title
    assert len(title) < 300
