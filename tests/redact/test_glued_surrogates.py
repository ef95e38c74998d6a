"""Glued entries holding lone surrogates are redacted, never a crash.

Two entries on one line (``{...}{...}``) are read by the standard library's JSON reader,
which keeps an escaped lone surrogate (``"\\ud800"``: Node cuts a string inside an
emoji) as a character no UTF-8 text can hold. Redacting such a line raised
UnicodeEncodeError where a value holding one was changed (written anew) or a key held
one (the report's field path). A glued value's lone surrogates are now read as U+FFFD,
as the lenient parser reads a line alone; a value left unchanged is still copied as
written.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import prime_nb
from prime_nb.redact import redact

_file = sys.modules["prime_nb.redact._file"]

HEAD = b'{"type":"session","version":3,"id":"s","timestamp":"2026"}'
SECRET = b"password=hunter2xyz"
#: the message's content (JSON as written), each with a lone surrogate or none
CONTENTS = [
    b'"' + SECRET + b' \\ud800 tail"',
    b'"plain \\udc00 text"',
    b'"\\ud83d\\ude00 a pair, ' + SECRET + b'"',
    b'"x\\ud800\\ud800y \\\\ud800 no escape"',
    b'["a", "\\udfff", "' + SECRET + b'"]',
    b'{"\\ud800key": "' + SECRET + b'"}',
    b"[" * 3000 + b'"\\udbff ' + SECRET + b'"' + b"]" * 3000,
]


def _entry(i: int, content: bytes, key: bytes = b"content") -> bytes:
    return (
        b'{"type":"message","id":"e%d","parentId":null,"timestamp":"2026",'
        b'"message":{"role":"user","%s":%s,"timestamp":0}}' % (i, key, content)
    )


def test_glued_entries_with_lone_surrogates_are_redacted(tmp_path: Path) -> None:
    pairs = list(itertools.product(CONTENTS, repeat=2))
    lines = [
        _entry(2 * n, a, key) + glue + _entry(2 * n + 1, b)
        for n, ((a, b), key, glue) in enumerate(
            itertools.product(pairs, [b"content", b"\\ud800k"], [b"", b" "])
        )
    ]
    path = tmp_path / "glued.jsonl"
    path.write_bytes(b"\n".join([HEAD, *lines]) + b"\n")
    done = redact(path, tmp_path / "out.jsonl", hostnames=[])
    out = (tmp_path / "out.jsonl").read_bytes()
    assert SECRET not in out
    out.decode("utf-8")  # no surrogate written
    read = prime_nb.load(tmp_path / "out.jsonl")  # each line still two glued entries
    assert list(read.problems["kind"]) == ["glued_entries"] * len(lines)
    assert done.report["field"].str.contains("\ufffdk", regex=False).any()
    # a line whose values hold no secret is copied as written, escapes and all
    plain = _entry(0, CONTENTS[1]) + _entry(1, CONTENTS[1])
    path.write_bytes(HEAD + b"\n" + plain + b"\n")
    redact(path, tmp_path / "plain.jsonl", hostnames=[])
    assert (tmp_path / "plain.jsonl").read_bytes().split(b"\n")[1] == plain


def test_compact_json_of_a_lone_surrogate_is_utf8() -> None:
    """What orjson refuses (a lone surrogate) is written by the standard library's
    encoder as U+FFFD, as a line the lenient parser reads is."""
    assert _file._dumps({"a": "x\ud800y"}) == '{"a":"x\ufffdy"}'.encode()
    assert json.loads(_file._dumps(["\udc00"])) == ["\ufffd"]
