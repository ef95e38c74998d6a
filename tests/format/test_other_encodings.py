"""A session saved in UTF-32 or UTF-16 (with or without a BOM, either byte order) is
named in the loader's one error with a command that converts it. UTF-32's BOM begins
like UTF-16's, so it was called UTF-16 text (and ``iconv -f UTF-16`` garbles it), and
without a BOM it was "is this a Prime Agent session file?"; big-endian UTF-16 without
a BOM was sent to ``iconv -f UTF-16``, which takes it for little-endian."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import prime_nb
from prime_nb.errors import SessionFormatError

T0 = "2026-01-05T10:00:00Z"
TEXT = "".join(
    json.dumps(entry) + "\n"
    for entry in (
        {"type": "session", "version": 3, "id": "s1", "timestamp": T0, "cwd": "/w"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": T0,
            "message": {"role": "user", "content": "hi"},
        },
    )
)


@pytest.mark.parametrize(
    "codec", ["utf-32", "utf-32-le", "utf-32-be", "utf-16", "utf-16-le", "utf-16-be"]
)
def test_wide_text_is_named_with_a_command_that_converts_it(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(TEXT.encode(codec))
    with pytest.raises(SessionFormatError, match="no session header: the file is") as raised:
        prime_nb.load(path)
    said = str(raised.value)
    family = codec[:6].upper()
    assert said.startswith(
        f"{path}: no session header: the file is {family} text, not UTF-8; save it as UTF-8 ("
    )
    command = said.rsplit("(", 1)[1].rstrip(")").split()
    assert command[0] == "iconv"
    converted = subprocess.run(command, input=path.read_bytes(), capture_output=True, check=True)
    assert converted.stdout.decode() == TEXT  # the command it gives converts the file
