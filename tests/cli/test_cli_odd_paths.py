"""Paths that lie, as the CLI and ``load`` meet them: a file whose name holds a newline
and escape sequences, a symbolic link that loops, a socket.

A name is printed on one line with its control characters as ``\\xNN`` (a newline in a
name could forge a line of ``validate``'s report) and that printed name opens the file
again; a loop or a socket is one ``SessionFormatError`` that says what the path is.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.cli import main
from prime_nb.errors import SessionFormatError

EVIL = "evil\nforged.jsonl: ok (9 entries)\x1b]0;pwned\x07\u202e.jsonl"
PRINTED = r"evil\x0aforged.jsonl: ok (9 entries)\x1b]0;pwned\x07\xe2\x80\xae.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_lines(tmp_path / EVIL, [header(), msg("u1", None, "user", "find the needle")])
    return tmp_path


@pytest.mark.parametrize("command", [["ls"], ["validate"], ["grep", "needle"]])
def test_a_name_with_a_newline_and_escapes_prints_on_one_line(
    folder: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main([*command, str(folder)])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "evil" in line]
    assert len(lines) == 1
    assert PRINTED in lines[0]
    assert "\x1b" not in out and "\u202e" not in out
    assert not any(line.startswith("forged") for line in out.splitlines())


def test_the_printed_name_opens_the_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(folder / PRINTED)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"file         {folder}/{PRINTED}"


def test_an_error_is_one_line_whatever_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", str(tmp_path / "gone\nprime-nb: ok")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.startswith("prime-nb: error: ") and "no such file" in err


def test_a_looping_link_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    with pytest.raises(SessionFormatError, match=r"a\.jsonl: is a symbolic link that loops"):
        prime_nb.load(tmp_path / "a.jsonl")
    assert main(["info", str(tmp_path / "a.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "a.jsonl: is a symbolic link to no file (its target is missing, or it loops)" in err


@pytest.fixture
def bound_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "s.jsonl"
    with socket.socket(socket.AF_UNIX) as held:
        held.bind(str(path))
        yield path


def test_a_socket_is_no_session_file(
    bound_socket: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SessionFormatError, match=r"s\.jsonl: is not a regular file"):
        prime_nb.load(bound_socket)
    assert main(["info", str(bound_socket)]) == 1
    assert "s.jsonl: is not a regular file (a FIFO, device or socket)" in capsys.readouterr().err
