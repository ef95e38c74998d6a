"""``prime-nb grep``: one clean line per hit, grep's exit codes, the search's options."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

from prime_nb.cli import main

#: a window title, an OSC 52 clipboard write, a screen clear (7-bit and 8-bit), a bell
NASTY = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[H\x9b2J\x9d0;t\x9c\x07\x08\r"
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def _corpus(folder: Path) -> Path:
    folder.mkdir()
    write_lines(
        folder / "a.jsonl",
        [
            header(),
            msg("u1", None, "user", f"please rm -rf /tmp {NASTY} now"),
            msg("a1", "u1", "assistant", "I will not RM -RF anything", 1),
            msg(f"u2{NASTY}", "a1", "user", "fine, rm -rf it"),
        ],
    )
    write_lines(folder / "b.jsonl", [header(), msg("u1", None, "user", "nothing here")])
    (folder / "broken.jsonl").write_text("not json at all rm -rf\n")
    return folder


def test_grep_prints_one_clean_line_per_hit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _corpus(tmp_path / "c")
    assert main(["grep", "rm -rf", str(folder)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{folder / 'a.jsonl'}:2 u1 user text: please rm -rf /tmp")
    assert re.match(
        rf"{re.escape(str(folder / 'a.jsonl'))}:4 u2 +user text: fine, rm -rf it$", lines[1]
    )
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "broken.jsonl" in err and "warning" in err


def test_grep_options_reach_the_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _corpus(tmp_path / "c")
    assert main(["grep", "-i", "rm -rf", str(folder), "--role", "assistant"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[1:4] == ["a1", "assistant", "text:"]
    assert main(["grep", "--regex", r"rm\s-rf\s/\w+", str(folder / "a.jsonl")]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    assert main(["grep", "-i", "rm -rf", str(folder), "--limit", "1", "--active-only"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    cache = tmp_path / "cache"
    assert main(["grep", "rm -rf", str(folder), f"--cache={cache}", "--field", "text"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert list(cache.glob("search-*/*.arrow"))


def test_grep_exits_1_when_nothing_is_found_and_2_on_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _corpus(tmp_path / "c")
    assert main(["grep", "no such words", str(folder)]) == 1
    assert capsys.readouterr().out == ""
    assert main(["grep", "rm", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["grep", "rm (", str(folder), "--regex"]) == 2
    assert "no valid regex" in capsys.readouterr().err
