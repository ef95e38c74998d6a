"""A line orjson refuses for a number past a double's range is walked as a stream, and
the stream walk writes and reports what the tree walk does.

orjson reads no number past a double's range (``1e400``, an integer of 400 digits), so
it refuses the line; the tree walk reads it by the lenient parser, as ``load()`` does
(infinity, which orjson writes ``null``), and reports the line repaired. The stream
walk reads each value orjson refuses by the lenient parser alone
(``prime_nb/redact/_past_double.py``). Here every line is sent down each walk in turn
(``test_redact_stream._both``) and the files, reports and suspects compared: lists of
such numbers, negative ones, beside secrets, in objects and lists, nested, with long
mantissas and exponents, ``-0``, numbers orjson takes beside ones it refuses, under each
of the memory probe's keys, and a line's own id; and which lines the stream walk takes
(one with a lone surrogate, bytes not UTF-8 or glued values it leaves to the tree walk).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_redact_stream import HEAD, _assert_same

from prime_nb.redact import Redaction
from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber

_file = sys.modules["prime_nb.redact._file"]
_lines = sys.modules["prime_nb.redact._lines"]

SECRET = "password=Zq8vN2xL5pT7"


def _content(value: Any) -> dict[str, Any]:
    message = {"role": "user", "content": value, "timestamp": 0}
    return {"type": "message", "id": "u1", "parentId": None, "message": message}


def _custom(key: str) -> Callable[[Any], dict[str, Any]]:
    def entry(value: Any) -> dict[str, Any]:
        data = {key: value, "n": SECRET}
        return {"type": "custom", "id": "c1", "parentId": None, "customType": "x", "data": data}

    return entry


def _command(value: Any) -> dict[str, Any]:
    call = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": value}}
    return _content([call])


#: the memory probe's keys (``probe_redact_memory.KEYS``)
PLACES: list[Callable[[Any], dict[str, Any]]] = [
    _content,
    _custom("description"),
    _command,
    _custom("value"),
    _custom("api_key"),
]
#: numbers orjson refuses: past a double's range, as written
PAST = [
    "1e400",
    "-1E+400",
    "12.5e999",
    "9" * 400,
    "-" + "9" * 400,
    "1" + "0" * 4300,  # the most digits ``int()`` converts
    "9" * 5000,  # more: the lenient parser reads infinity without ``int()``
    "1" + "5" * 220 + "e99",
    "-0." + "0" * 10 + "1e400",
]
#: numbers orjson takes, as the lenient parser reads them too
TAKEN = ["-0", "-0.0", "0", "1.5e-400", "3" * 30, "18446744073709551616", "-9223372036854775809",
         "1." + "5" * 400, "4.9e-324", "2E3", "1e308"]  # fmt: skip
MARK = "__number__"


def _with(entry: dict[str, Any], numbers: list[str]) -> str:
    """``entry``'s JSON with each mark in it replaced by the next of ``numbers``."""
    text = json.dumps(entry)
    for number in numbers:
        text = text.replace(json.dumps(MARK), number, 1)
    return text


def _values(numbers: list[str]) -> list[Any]:
    """Marks for ``numbers``, among secrets, objects and lists."""
    return [MARK if i % 3 else {"n": MARK, "s": [SECRET, MARK]} for i in range(len(numbers))]


def _streamed_lines() -> list[str]:
    lines = []
    mixed = [number for pair in zip(PAST, TAKEN, strict=False) for number in pair]
    for place in PLACES:
        lines.append(_with(place([MARK] * len(PAST)), PAST))  # a list of them
        lines.append(_with(place([MARK, SECRET, *[MARK] * 299]), ["1e400"] * 300))  # long
        values = _values(mixed)  # those orjson takes beside those it refuses
        lines.append(_with(place(values), _marked(values, mixed)))
        nested: Any = [MARK, SECRET]
        for _ in range(40):
            nested = {"k": [nested, MARK]}
        lines.append(_with(place(nested), ["-1e400"] * 41))
    lines.append(_with({**_content(SECRET), "id": MARK}, ["1e400"]))  # a number as its id
    return lines


def _marked(values: list[Any], numbers: list[str]) -> list[str]:
    """The numbers for the marks in ``values``, in the order they are written."""
    out: list[str] = []
    for value, number in zip(values, numbers, strict=True):
        out.extend([number] if isinstance(value, str) else [number, number])
    return out


#: lines holding such a number that the stream walk leaves to the tree walk
TREE_LINES = [
    _with(_content(["\ud800", MARK, SECRET]), ["1e400"]),  # a lone surrogate
    _with(_content([MARK, SECRET]), ["1e400"]) + _with(_content([SECRET]), []),  # glued
]
#: bytes not UTF-8 beside such a number
NOT_UTF8 = _with(_content(["\xff", MARK, SECRET]), ["1e400"]).replace("\\u00ff", "\udcff")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("past_double") / "session.jsonl"
    lines = [json.dumps(HEAD), *_streamed_lines(), *TREE_LINES, NOT_UTF8]
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
    return path


def test_the_stream_walk_writes_what_the_tree_walk_writes(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree: Redaction = _assert_same(session, monkeypatch)
    rules = tree.report["rule"].astype(str)
    # each line but the glued one, whose values are read apart
    assert (rules == "repaired-line").sum() == len(_streamed_lines()) + 2
    assert b"Zq8vN2xL5pT7" not in tree.path.read_bytes()  # type: ignore[union-attr]


def test_the_stream_walk_takes_each_line_but_those_it_cannot_vouch_for(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_lines, "STREAM_MIN", -1)
    monkeypatch.setattr(_lines, "VALUE_COST", 1 << 62)
    streamed = _file._learn(session, Scrubber(default_rules([])))
    assert streamed - {1} == set(range(2, len(_streamed_lines()) + 2))  # the header aside
