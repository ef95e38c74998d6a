"""``prime-nb validate``: errors fail it, warnings only with --strict; long lists are cut.

An error loses a line or an entry or changes the tree; a warning is an odd value kept as
written (a provider's negative token count), which must not fail a healthy file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from session_matrix import clean_lines

from prime_nb.cli import main


def run_main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join(x if isinstance(x, str) else json.dumps(x) + "\n" for x in lines))
    return path


def negative_usage(path: Path) -> Path:
    lines = clean_lines()
    lines[4]["message"]["usage"]["input"] = -154
    return write(path, list(lines))


def test_a_warning_alone_exits_0_and_1_with_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = negative_usage(tmp_path / "s.jsonl")
    code, out, _ = run_main(capsys, "validate", path)
    assert code == 0
    assert out == f"{path}:5: warning: bad_value: usage input=-154 below 0; kept as written\n"
    code, out2, _ = run_main(capsys, "validate", "--strict", path)
    assert code == 1 and out2 == out


def test_an_error_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "good.jsonl", list(clean_lines()))
    bad = write(tmp_path / "bad.jsonl", [*clean_lines(), "{not json\n"])
    code, out, _ = run_main(capsys, "validate", good, negative_usage(tmp_path / "w.jsonl"), bad)
    assert code == 1
    assert f"{bad}:12: error: invalid_json: " in out
    assert f"{good}: ok (10 entries, version 3)" in out


def test_at_most_20_problems_a_file_unless_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blanks = ["\n"] * 30  # 30 blank lines: warnings
    path = write(tmp_path / "s.jsonl", [*clean_lines(), *blanks, "{bad\n"])
    code, out, _ = run_main(capsys, "validate", path)
    lines = out.splitlines()
    assert code == 1
    assert len(lines) == 21
    assert all(": warning: blank_line: " in line for line in lines[:20])
    assert (
        lines[20] == f"{path}: 11 more problems not shown (1 error, 30 warnings in all); "
        "--all prints every one"
    )
    code, out, _ = run_main(capsys, "validate", "--all", path)
    lines = out.splitlines()
    assert code == 1 and len(lines) == 31
    assert lines[-1].startswith(f"{path}:42: error: invalid_json: ")


def test_a_file_without_a_header_is_read_by_info_and_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tail of a session (no header): info reads it; validate names the missing
    header as an error, and what else it found."""
    path = write(tmp_path / "tail.jsonl", list(clean_lines()[1:]))
    code, out, err = run_main(capsys, "info", path)
    assert (code, err) == (0, "")
    fields = dict(line.split(None, 1) for line in out.splitlines() if " " in line.strip())
    assert fields["entries"].strip() == "10" and fields["problems"].strip() == "1"
    code, out, _ = run_main(capsys, "validate", path)
    assert code == 1
    assert out.startswith(f"{path}:1: error: no_header: no session header: line 1 is a 'message'")
