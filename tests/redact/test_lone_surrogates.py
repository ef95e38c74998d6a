"""A long line orjson refuses for a lone surrogate (Node cuts a string inside an emoji and
writes ``"\\ud83d"``) is redacted as it was when the lenient parser read it: the same
file, report and suspects.

Such a line is parsed by orjson once each lone surrogate's escape is written as U+FFFD's
in the line's own buffer (``_lines._parsed_with_lone_surrogates_replaced``): what the
lenient parser reads it as, without its text, the string two bytes a character and its
copy with U+FFFD (6.4x the line, 2.05x now: ``test_memory_keys.py`` holds the bound). A
line orjson refuses still (glued, a number past a double's range, nested past its
depth) has its escapes written back and is read by the lenient parser as before.

The code before is the oracle (``test_memory_numbers._base_parse_line``): lone
surrogates high and low, pairs, escaped backslashes before them, upper case, in keys,
beside floats, big integers, repeated keys and secrets, under each of the probe's keys,
glued, past orjson's depth, with a BOM.
"""

from __future__ import annotations

import json
import random
import re
import sys
from typing import Any

import pytest
from test_memory_numbers import PLACES, _content, assert_same, now_and_before

from prime_nb.format import BOM
from prime_nb.redact import Redaction

_lines = sys.modules["prime_nb.redact._lines"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
SECRET = "password=Zq8vN2xL5pT7"
#: long enough to be read into one buffer (over 64 KB)
FILL = "the deploy failed again so I read the logs and retried " * 1300
#: JSON string texts (escaped) around which the long text is written
CUTS = [
    "\\ud83d",
    "\\uD83D",
    "\\ude00 then \\ud83d",
    "\\ud83d\\ude00 a pair, then \\udbff",
    "\\\\ud83d is no escape",
    "\\\\\\ud83d after an escaped backslash",
    "\\ud83d\\ud83d\\ude00",
    "\\ud83d\\u0041\\ude00",
]
_SURROGATE = re.compile("[\ud800-\udfff]")


def _text_line(place: Any, cut: str, extra: str = "") -> str:
    """An entry of ``place`` whose long text holds the escaped ``cut`` (and ``extra``
    members after the text's)."""
    marked = json.dumps(place(FILL + SECRET))
    line = marked.replace(FILL, cut + " " + FILL[: len(FILL) // 2] + cut + FILL[len(FILL) // 2 :])
    return line[:-1] + extra + "}" if extra else line


def _lines_of_surrogates() -> list[str]:
    lines = []
    for i, cut in enumerate(CUTS):
        lines.append(_text_line(PLACES[i % len(PLACES)], cut))
    numbers = ', "f": 0.1, "g": 1.7976931348623157e308, "i": 18446744073709551616, "j": -0'
    lines.append(_text_line(_content, "\\ud83d", numbers))
    lines.append(_text_line(_content, "\\ud83d", ', "n": 1e400'))  # refused still
    lines.append(_text_line(_content, "\\ud83d", ', "k": 1, "k": "' + SECRET + '"'))  # repeated
    lines.append(_text_line(_content, "\\ud83d", ', "\\udc00key": "' + SECRET + '"'))  # in a key
    # glued: read as it was, its values kept as written (one changed is written with its
    # lone surrogate as U+FFFD: ``test_glued_surrogates.py``)
    glued = json.dumps(_content(FILL)).replace(FILL, "\\ud83d " + FILL)
    lines.append(glued + glued)
    lines.append(glued + json.dumps(_content(SECRET)))  # kept as written beside one changed
    nested = "[" * 1100 + '"\\ud83d"' + "]" * 1100
    lines.append(_text_line(_content, "\\ud83d", ', "deep": ' + nested))
    lines.append(BOM.decode() + _text_line(_content, "\\udfff"))
    return lines


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Redaction, Redaction]:
    """The session of lone surrogates redacted as the code is, then as it was."""
    path = tmp_path_factory.mktemp("surrogates") / "session.jsonl"
    text = "\n".join([json.dumps(HEAD), *_lines_of_surrogates()]) + "\n"
    path.write_text(text, encoding="utf-8")
    return now_and_before(path)


def test_lone_surrogate_lines_are_redacted_as_before(both: tuple[Redaction, Redaction]) -> None:
    assert_same(*both)


def test_the_session_holds_what_the_oracle_reads(both: tuple[Redaction, Redaction]) -> None:
    """Each line is repaired but the glued ones and the one with no lone surrogate (its
    ``\\ud83d`` is no escape), and every secret is replaced."""
    now, _ = both
    assert now.path is not None
    rules = now.report["rule"].astype(str)
    assert (rules == "repaired-line").sum() == len(_lines_of_surrogates()) - 3
    written = now.path.read_bytes()
    assert b"Zq8vN2xL5pT7" not in written and "\ufffd".encode() in written


def test_lone_surrogates_are_found_as_json_reads_them() -> None:
    """Strings of random escapes, surrogates among them, read as ``json`` reads them
    once the lone ones found are written as U+FFFD's."""
    pieces = ["\\ud83d", "\\ude00", "\\uDBFF", "\\uDC00", "\\\\", "\\u0041", "u", "d83d", "x"]
    rng = random.Random(43)
    for _ in range(2000):
        text = '"' + "".join(rng.choices(pieces, k=rng.randint(1, 8))) + '"'
        buf = bytearray(text.encode())
        for at in _lines._lone_surrogates(buf):
            buf[at : at + 4] = b"fffd"
        expected = _SURROGATE.sub("\ufffd", json.loads(text))
        assert json.loads(bytes(buf)) == expected, text
