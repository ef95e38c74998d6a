"""A file that holds no UTF-8 line is refused by ``redact`` as ``load`` refuses it.

Why: read line by line, a UTF-16, UTF-32 or compressed file is all lines that are not
JSON, each withheld as a placeholder line: the dry run reported a withheld line per
line of a large file, read whole, and the "redacted" copy was a file of placeholders.
Its first bytes already say what it is.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import prime_nb
from prime_nb.cli import main
from prime_nb.errors import SessionFormatError
from prime_nb.redact import redact

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
TEXT = json.dumps(HEAD) + "\n" + json.dumps({"type": "message", "id": "a"}) + "\n"

FILES = {
    "utf-16": lambda: TEXT.encode("utf-16"),
    "utf-16-be": lambda: TEXT.encode("utf-16-be"),
    "utf-32": lambda: TEXT.encode("utf-32"),
    "gzip": lambda: gzip.compress(TEXT.encode()),
}


@pytest.mark.parametrize("kind", FILES)
def test_redact_refuses_a_file_with_no_utf8_line_as_load_does(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(FILES[kind]())
    with pytest.raises(SessionFormatError, match=r"UTF-16|UTF-32|gzip") as loaded:
        prime_nb.load(path)
    for dest, dry_run in ((None, True), (tmp_path / "out.jsonl", False)):
        with pytest.raises(SessionFormatError, match=r"UTF-16|UTF-32|gzip") as redacted:
            redact(path, dest, dry_run=dry_run, hostnames=[])
        assert str(redacted.value) == str(loaded.value)
    assert not (tmp_path / "out.jsonl").exists()


def test_the_cli_says_what_the_file_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(FILES["utf-16"]())
    assert main(["redact", "--dry-run", str(path)]) != 0
    err = capsys.readouterr().err
    assert "UTF-16" in err and "iconv" in err and "Traceback" not in err
