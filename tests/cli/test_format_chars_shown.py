"""Invisible format characters from a session (zero-width spaces and joiners, BOMs,
bidirectional marks, tag characters: Unicode category Cf) are shown as escapes wherever
session text reaches a terminal: the CLI's output, its file names, and the reprs of the
package's objects. Printed raw, a terminal shows nothing for them, so text could hide
in a line (tag characters spell ASCII no one sees) and two names that look the same
could differ."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest
from cli_in_process import run_cli
from conftest import header, msg, write_lines

import prime_nb
from prime_nb._names import shown_text
from prime_nb.cli import printable
from prime_nb.cli._output import shown_path
from prime_nb.session import read_columns
from prime_nb.widget import SessionWidget

#: every format character of the running Python's Unicode tables
FORMAT = "".join(
    chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"
)
#: a zero-width space, joiner and no-break space (BOM), a word joiner, an invisible
#: separator, and "HI" in tag characters
HIDDEN = "\u200b\u200d\ufeff\u2060\u2063\U000e0048\U000e0049"
CF = re.compile(f"[{re.escape(FORMAT)}]")


def _named(folder: Path, name: str, file_name: str = "s.jsonl") -> Path:
    path: Path = write_lines(
        folder / file_name,
        [
            header(),
            {"type": "session_info", "id": "n1", "parentId": None, "name": name},
            msg(f"u{HIDDEN}1", "n1", "user", f"look{HIDDEN}here"),
            msg(f"a{HIDDEN}1", f"u{HIDDEN}1", "assistant", f"ok{HIDDEN}", 1),
        ],
    )
    return path


def test_every_format_character_is_shown_escaped_by_the_cli() -> None:
    everything = f"<{FORMAT}>"
    for shown in (
        printable(everything),
        printable(everything, newlines=False),
        shown_path(everything),
        shown_text(everything),
    ):
        assert not CF.search(shown), [hex(ord(c)) for c in CF.findall(shown)]
    # the zero-width ones as escapes a reader sees, not dropped
    assert printable(f"a{HIDDEN}b") == r"a\u200b\u200d\ufeff\u2060\u2063\U000e0048\U000e0049b"


@pytest.mark.parametrize(
    "command",
    [["info", "FILE"], ["validate", "FILE"], ["ls", "DIR"], ["grep", "look", "DIR"]],
    ids=lambda command: command[0],
)
def test_no_format_character_reaches_the_terminal(tmp_path: Path, command: list[str]) -> None:
    path = _named(tmp_path, f"name{HIDDEN}", f"file{HIDDEN}.jsonl")
    given = [str(path) if a == "FILE" else str(tmp_path) if a == "DIR" else a for a in command]
    done = run_cli(*given)
    assert done.returncode == 0, done.stderr
    assert not CF.search(done.stdout + done.stderr), done.stdout + done.stderr
    assert "\\x" in done.stdout  # the file's name, escaped as bytes that open it again


def test_a_printed_file_name_opens_the_file(tmp_path: Path) -> None:
    path = _named(tmp_path, "plain", f"a{HIDDEN}.jsonl")
    listed = run_cli("ls", tmp_path).stdout.splitlines()[-1].split()[-1]
    assert not CF.search(listed)
    assert run_cli("info", listed).returncode == 0
    assert listed != str(path)


def test_reprs_show_format_and_control_characters_escaped(tmp_path: Path) -> None:
    path = _named(tmp_path, f"name{HIDDEN}\x1b]0;title\x07", f"f{HIDDEN}.jsonl")
    session = prime_nb.load(path)
    shown = [
        repr(session),
        repr(session.context()),
        repr(read_columns(path)),
        repr(SessionWidget(session)),
    ]
    for text in shown:
        assert not CF.search(text), text
        assert "\x1b" not in text and "\x07" not in text, text
    assert r"name\u200b\u200d" in shown[0]
    assert r"at a\u200b" in shown[1]  # the leaf's id is the session's text too
