"""Lines orjson refuses but the agent's JSON.parse reads are kept (format/_reading.py)."""

from __future__ import annotations

import math

import pytest

from prime_nb.format._reading import KEEP_DEPTH, parse_line


def test_a_lone_surrogate_becomes_replacement_character() -> None:
    raw = rb'{"type":"x","a":"cut \ud83d","b":"\\ud83d is text","c":"\ud83d\ude00"}'
    obj, problem = parse_line(raw, 4)
    assert obj == {"type": "x", "a": "cut \ufffd", "b": "\\ud83d is text", "c": "😀"}
    assert problem is not None and (problem.line, problem.kind) == (4, "lone_surrogate")


def test_deep_nesting_is_cut_at_keep_depth_and_strings_are_not_brackets() -> None:
    deep = b'["]\\"[{",' * 1500 + b"1" + b"]" * 1500
    obj, problem = parse_line(b'{"type":"x","a":' + deep + b',"b":2}', 9)
    assert obj is not None and obj["b"] == 2
    assert problem is not None and problem.kind == "deep_nesting"
    value, depth = obj["a"], 1
    while isinstance(value, list):
        assert value[0] == ']"[{'
        value, depth = value[1] if len(value) > 1 else value[0], depth + 1
    assert value is None and depth == KEEP_DEPTH


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (b"1e400", math.inf),
        (b"-1e400", -math.inf),
        (b"1" + b"0" * 400, math.inf),
        (b"-" + b"9" * 5000, -math.inf),
        (b"1180591620717411303424", float(2**70)),
    ],
)
def test_numbers_past_a_double_read_as_json_parse_reads_them(
    number: bytes, expected: float
) -> None:
    obj, _ = parse_line(b'{"type":"x","s":"\\udc00","n":' + number + b"}", 2)
    assert obj is not None and obj["n"] == expected
    obj, problem = parse_line(b'{"type":"x","n":' + number + b"}", 2)
    assert obj is not None and obj["n"] == expected and problem is None


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_what_json_parse_refuses_stays_refused(literal: bytes) -> None:
    obj, problem = parse_line(b'{"type":"x","n":' + literal + b"}", 3)
    assert obj is None and problem is not None and problem.kind == "invalid_json"
