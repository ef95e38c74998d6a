"""A JSON text's repeated keys, told first by a count of its key ends in C.

``_stream.repeated_keys`` compares the keys a parsed value holds with those its text
writes; the text's strings are read one by one only when the quotes a colon follows
outnumber the value's keys. These tests compare it with the plain count on texts that
repeat keys, escape quotes, nest JSON in strings and put blanks before colons.
"""

from __future__ import annotations

import random

import orjson

from prime_nb.redact._stream import _KEYED_STRING, key_count, raw_key_count, repeated_keys

STRINGS = ['"a"', '"b"', '"\\""', '"\\\\"', '":x"', '"{\\"a\\":1}"', '"\\":"', '"\\u0022:"']
BLANKS = ["", " ", "\t", "\n", "\r\n ", "  "]


def _text(r: random.Random, depth: int = 0) -> str:
    """A JSON text whose objects may repeat a key, with blanks anywhere JSON allows."""
    pick = r.random()
    if depth > 3 or pick < 0.4:
        return r.choice([*STRINGS, "1", "null"])
    blank = r.choice(BLANKS)
    if pick < 0.6:
        items = [_text(r, depth + 1) for _ in range(r.randrange(4))]
        return "[" + blank + ("," + blank).join(items) + "]"
    keys = [r.choice(STRINGS) for _ in range(r.randrange(5))]
    pairs = [k + r.choice(BLANKS) + ":" + blank + _text(r, depth + 1) for k in keys]
    return "{" + blank + ("," + blank).join(pairs) + r.choice(BLANKS) + "}"


def test_repeated_keys_is_the_plain_count() -> None:
    r = random.Random(7)
    repeated = 0
    for _ in range(3000):
        body = _text(r).encode()
        value = orjson.loads(body)
        want = isinstance(value, dict | list) and key_count(value) != raw_key_count(body)
        repeated += want
        assert repeated_keys(value, body) == want, body
    assert 300 < repeated < 2700  # both answers, many times


def test_short_key_count_is_the_regex_count() -> None:
    """(Pins what held: the colons alone are the regex's groups.)"""
    r = random.Random(4)
    for _ in range(2000):
        body = _text(r).encode()
        want = [m.group(1) for m in _KEYED_STRING.finditer(body)].count(b":")
        assert raw_key_count(body) == want, body
