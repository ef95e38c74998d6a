"""A line orjson refuses for a long number is redacted as it was before its memory was
bounded: the same file, report and suspects.

A number of a million digits is past a double's range: orjson refuses its line, and the
lenient parser reads it as ``load()`` does (infinity, written ``null``). The glued
reading (``{...}{...}``) and the lenient parser each decoded a text of the line from its
bytes, and the glued reading's was made while the bytes were held: the bytes, the text
and the number's digits (``json``'s scanner cuts them out as a ``str`` to convert them)
at once, 3x the line. The text is made once now, the bytes let go before either reads it
(``_lines._decoded``): the text and the digits, 2x. The peak is measured with the
other shapes of ``test_memory_keys.py`` (one measuring run, not one more).

The code before is the oracle, kept here (``_lines.parse_line`` as it was): long
integers and floats, exponents past a double's range, negative ones, numbers in lists
and nested, beside secrets, under each of the probe's keys, glued, with a BOM, with
bytes that are not UTF-8, nested past orjson's depth.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from prime_nb.format import BOM, deep_enough, lenient_loads
from prime_nb.redact import Redaction, redact

_lines = sys.modules["prime_nb.redact._lines"]


def _content(value: Any) -> dict[str, Any]:
    message = {"role": "user", "content": value, "timestamp": 0}
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026",
        "message": message,
    }


HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
SECRET = "password=Zq8vN2xL5pT7"
#: long enough to be read into one buffer (over 64 KB), and a long line over 256 KB
LONG, LONGER = 66_000, 270_000


def _custom(key: str, value: Any) -> dict[str, Any]:
    data = {key: value, "n": SECRET}
    return {"type": "custom", "id": "c1", "parentId": None, "customType": "x", "data": data}


def _command(value: Any) -> dict[str, Any]:
    call = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": value}}
    return _content([call])


#: where a number goes: the probe's keys (``probe_redact_memory.KEYS``)
PLACES: list[Callable[[Any], dict[str, Any]]] = [
    _content,
    lambda v: _custom("description", v),
    _command,
    lambda v: _custom("value", v),
    lambda v: _custom("api_key", v),
]
#: numbers as written: long, past a double's range, past 64 bits, floats, exponents
NUMBERS = [
    "9" * LONG,
    "-" + "9" * LONG,
    "1." + "5" * LONG,
    "-0." + "25" * (LONG // 2) + "e-7",
    "9" * 400,
    "3" * 30,
    "1" + "0" * 4300,
    "1e400",
    "-1E+400",
    "1.5e-400",
    "12.5e999",
]
#: a placeholder where a number goes in an entry's JSON
MARK = "__number__"


def _with(entry: dict[str, Any], number: str) -> str:
    return json.dumps(entry).replace(json.dumps(MARK), number)


def _number_lines() -> list[str]:
    lines = []
    for i, number in enumerate(NUMBERS):
        place = PLACES[i % len(PLACES)]
        lines.append(_with(place(MARK), number))  # the value itself
        if len(number) < LONG:  # in lists, nested, beside a secret
            lines.append(_with(place([1, MARK, SECRET, {"x": [MARK]}]), number))
    for place in PLACES:  # a long number under each of the probe's keys, beside a secret
        lines.append(_with(place({"deep": {"n": MARK}, "note": SECRET}), "9" * LONG))
    lines.append(_with(_content(MARK), "9" * LONGER))  # the probe's line
    entry = _with(_content(SECRET), "1")[:-1]
    glued = [
        entry + ', "n": ' + "7" * 30 + "}" + entry + "}",  # glued, a number past 64 bits
        entry + ', "n": 1e400}' + entry + "}",
        entry + ', "n": ' + "9" * LONG + "}" + entry + "}",  # too long for int(): refused
        "[" + "9" * 30 + "]" + entry + "}",
    ]
    nested = "[" * 1100 + "9" * LONG + "]" * 1100
    return [
        *lines,
        *glued,
        entry + ', "deep": ' + nested + "}",  # nested past orjson's depth
        BOM.decode() + entry + ', "n": ' + "9" * LONG + "}",
        entry + ', "n": ' + "9" * LONG + "}\r",  # a CR before the line end
    ]


#: lines that are not UTF-8 (the lenient parser reads U+FFFD), glued and not
NOT_UTF8 = [
    b'{"type": "custom", "id": "c2", "data": "\xff ' + SECRET.encode() + b'", "n": 1e400}',
    b'{"type": "custom", "id": "c3", "data": "\xff"}{"type": "custom", "id": "c4", "n": 1}',
    b'{"type": "custom", "id": "c5", "data": "\xfe", "n": ' + b"9" * LONG + b"}",
]


def _base_parse_line(
    number: int, offset: int, held: list[bytes | bytearray], streamed: bool = False
) -> object:
    """``parse_line`` before: a refused line's glued reading decoded its own text while
    the line's bytes were held, and the lenient parser another."""
    Line = _lines.Line
    raw = held.pop()
    length = len(raw)
    tail = _lines.line_end(raw)
    head = BOM if raw.startswith(BOM) else b""
    if streamed and (_lines.many_values(raw) or _lines.no_string_apart(raw)):
        return Line(number, offset, raw, length, head, tail, _lines.STREAMED, None)
    kept = raw if length <= _lines.KEEP_RAW else None
    body = raw[len(head) : length - len(tail)] if head else raw
    if not body or body.isspace():
        return Line(number, offset, kept, length, head, tail, None, None)
    refused = False
    try:
        obj = _lines.parsed_apart(body) if length > _lines.KEEP_RAW else None
        obj = orjson.loads(body) if obj is None else obj
    except orjson.JSONDecodeError:
        refused = True
    if not refused:
        rewrite = "repeated-key" if _lines.repeated_keys(obj, body) else None
        return Line(number, offset, kept, length, head, tail, obj, rewrite)
    if body is raw:
        body = _lines._without_end(raw, tail, kept is None)
    del raw
    glued = _lines.read_glued(body)
    if glued is not None:
        return Line(number, offset, kept, length, head, tail, glued, None)
    deep = deep_enough(body)
    text = body.decode("utf-8", errors="replace")
    del body
    obj, _repair = lenient_loads(text)
    del text
    obj = _lines.fit(obj) if deep else obj
    return Line(number, offset, kept, length, head, tail, obj, "repaired-line")


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Redaction, Redaction]:
    """The session of number lines redacted as the code is, then as it was."""
    path = tmp_path_factory.mktemp("numbers") / "session.jsonl"
    text = "\n".join([json.dumps(HEAD), *_number_lines()]) + "\n"
    path.write_bytes(text.encode("utf-8") + b"\n".join(NOT_UTF8) + b"\n")
    return now_and_before(path)


def now_and_before(path: Path) -> tuple[Redaction, Redaction]:
    """``path`` redacted as the code is, then with lines parsed as they were."""
    now = redact(path, path.with_name("now.jsonl"), hostnames=[])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lines, "parse_line", _base_parse_line)
        before = redact(path, path.with_name("before.jsonl"), hostnames=[])
    return now, before


def assert_same(now: Redaction, before: Redaction) -> None:
    """The same file, report and suspects."""
    assert now.path is not None and before.path is not None
    assert now.path.read_bytes() == before.path.read_bytes()
    assert now.report.equals(before.report), (now.report, before.report)
    assert now.suspects.equals(before.suspects)


def test_number_lines_are_redacted_as_before(both: tuple[Redaction, Redaction]) -> None:
    assert_same(*both)


def test_the_session_holds_what_the_oracle_reads(both: tuple[Redaction, Redaction]) -> None:
    """Each kind of line is there to compare: refused lines repaired, glued lines read
    as glued (a secret replaced in each value), a line not UTF-8 glued withheld."""
    now, _ = both
    assert now.path is not None
    rules = now.report["rule"].astype(str)
    assert (rules == "repaired-line").sum() >= 20
    written = now.path.read_bytes().splitlines()
    glued = [row for row in written if row.count(b'"type":') >= 2]
    assert len(glued) >= 3, [row[:80] for row in glued]
    assert any(b"Zq8vN2xL5pT7" not in row and b"REDACTED" in row for row in glued)
    assert b"WITHHELD" in written[-2], written[-2]
