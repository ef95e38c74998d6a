"""A long line's cheaper passes answer as the ones they replace: the test for control
characters in a long plain string (one Hyperscan pass, not orjson a piece at a time),
and the test for many small values (two counts when two settle it, not three)."""

from __future__ import annotations

import random
import sys

import orjson
import pytest

from prime_nb.redact import _lines

_apart = sys.modules["prime_nb.redact._apart"]


def _orjson_reads(text: bytes) -> bool:
    try:
        orjson.loads(b'"' + text + b'"')
    except orjson.JSONDecodeError:
        return False
    return True


@pytest.mark.parametrize("seed", range(3))
def test_plain_is_no_control_character(seed: int) -> None:
    """``_plain`` says whether orjson would take the text, but for UTF-8 that is not:
    that string's decoding fails after, and the line is parsed whole."""
    r = random.Random(seed)
    alphabet = [b"a", b"Z", b"9", b" ", b"\x7f", "é".encode(), "☃".encode(), b"\x00", b"\x1f"]
    for _ in range(300):
        text = b"".join(r.choice(alphabet) for _ in range(r.randrange(1, 30)))
        body = bytearray(b"xx" + text + b"yy") if r.random() < 0.5 else b"xx" + text + b"yy"
        assert _apart._plain(body, 2, 2 + len(text)) == _orjson_reads(text), text
    # the bounds are the string's: a control character beside it does not count
    assert _apart._plain(b"\x01abc\x01", 1, 4)
    assert not _apart._plain(b"\x01abc\x01", 0, 4)


def _three_counts(raw: bytes) -> bool:
    strings = (raw.count(b'"') - raw.count(b'\\"')) // 2
    return (strings + raw.count(b",")) * _lines.VALUE_COST > len(raw)


def test_many_values_as_with_three_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lines, "STREAM_MIN", 0)
    r = random.Random(5)
    answers = set()
    for _ in range(400):
        size = r.randrange(1, 400)
        parts = [b'"', b'\\"', b",", b"a" * r.randrange(1, 80)]
        raw = b"".join(r.choice(parts) for _ in range(size))
        assert _lines.many_values(raw) == _three_counts(raw), raw
        answers.add(_three_counts(raw))
    assert answers == {True, False}
