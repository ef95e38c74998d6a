"""Lines of many medium keys and values walked as a stream write what the tree walk
writes, and report the same; a long line of them is walked as a stream.

A long line of many small values, or with no string long enough to be decoded apart
(``_lines.no_string_apart``: thousands of 4 KB keys), is walked as a stream of its bytes
(``prime_nb/redact/_stream.py``), not parsed into a tree as large as the line. Here such
lines go down each path in turn (as ``test_redact_stream.py`` sends its lines) and the
copies, reports and suspects must be identical; and the default thresholds send a long
line of them to the stream, and a line holding a long string (plain or escaped) to the
tree.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_redact_stream import _TOKEN, HEAD, _assert_same, _entry

from prime_nb.redact import redact
from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber

_file = sys.modules["prime_nb.redact._file"]
_lines = sys.modules["prime_nb.redact._lines"]
_apart = sys.modules["prime_nb.redact._apart"]
_stream = sys.modules["prime_nb.redact._stream"]


def _medium(i: int, width: int) -> str:
    """A text of about ``width`` characters, told apart by ``i``."""
    return f"{i} " + "deploy log " * (width // 11)


_KEY = _medium(0, 300)
#: lines of many medium keys and values (a long line of them, no string of it decoded
#: apart, is walked as a stream: ``_lines.no_string_apart``), and those the stream walk
#: must refuse: a medium key repeated, written alike or escaped once
MEDIUM_KEYS = {
    "medium keys and values": json.dumps(
        {
            _medium(i, 300) + (" password=hunter2xyz" if i % 4 == 0 else ""): _medium(i, 200)
            + (" " + _TOKEN[1:-1] if i % 3 == 0 else "")
            for i in range(40)
        }
    ),
    "escaped keys": json.dumps(
        {
            f'{i} "q" \\ \n\t\x01 café ' + _medium(i, 200) + " pw=hunter2xyz": _medium(i, 100)
            for i in range(30)
        },
        ensure_ascii=True,
    ),
    "a secret's key among them": json.dumps(
        {
            **{_medium(i, 300): _medium(i, 100) for i in range(20)},
            "api_key": _medium(0, 300),
            "password": {_medium(1, 200): "x"},
            _TOKEN[1:-1] + " " + _medium(2, 200): "a key holding a token",
            _medium(3, 300): "password=hunter2xyz",
        }
    ),
    # past 256 values under a secret's key: one placeholder, a digest of its strings
    "a secret's key over 256 medium keys, quotes escaped": json.dumps(
        {"token": {f'{i} "quoted" \\ ' + _medium(i, 40): [i] for i in range(300)}, "n": 1}
    ),
    "keys beyond ASCII": json.dumps(
        {
            f"{i} café 中文 😀 Ωmega жук " * 20 + ("password=hunter2xyz" if i % 2 else ""): (
                "ü 😀 " * 40
            )
            for i in range(30)
        },
        ensure_ascii=False,
    ),
    # items of a list read in runs of up to NARROWED bytes (set to 40 below): a run's
    # last item is cut inside its digits, or in a string, and read again
    "runs of numbers and strings": json.dumps(
        {"n": [12345678901.25e3, 1234567, -0.5, "pw=hunter2xyz", *range(10**6, 10**6 + 40)]}
    ),
    "a medium key repeated": '{"'
    + _KEY
    + '": "password=one1xyz", '
    + ", ".join(f'"{_medium(i, 300)}": {i}' for i in range(1, 30))
    + ', "'
    + _KEY
    + '": "password=two2xyz"}',
    "a medium key repeated, escaped once": '{"\\u0030'
    + _KEY[1:]
    + '": "password=one1xyz", '
    + ", ".join(f'"{_medium(i, 300)}": {i}' for i in range(1, 30))
    + ', "'
    + _KEY
    + '": "password=two2xyz"}',
}
#: the lines of MEDIUM_KEYS the stream walk refuses (the tree walk then decides)
REFUSED_MEDIUM = {"a medium key repeated", "a medium key repeated, escaped once"}


def test_stream_and_tree_walks_agree_on_lines_of_medium_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "medium.jsonl"
    lines = [_entry(40 + i, line) for i, line in enumerate(MEDIUM_KEYS.values())]
    path.write_text(json.dumps(HEAD) + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(_stream, "NARROWED", 40)
    tree = _assert_same(path, monkeypatch)
    assert tree.path is not None
    assert "hunter2xyz" not in tree.path.read_text("utf-8")
    assert (tree.report["field"].astype(str).str.endswith("(key)")).sum() >= 40
    with monkeypatch.context() as patch:  # which lines the stream walk took, as above
        patch.setattr(_lines, "STREAM_MIN", -1)
        patch.setattr(_lines, "VALUE_COST", 1 << 62)
        patch.setattr(_stream, "SMALL", 64)
        streamed = _file._learn(path, Scrubber(default_rules([])))
    names = list(MEDIUM_KEYS)
    taken = {names[number - 2] for number in streamed if number >= 2}  # 1: the header
    assert taken == set(names) - REFUSED_MEDIUM


def test_a_long_line_of_medium_keys_is_walked_as_a_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default thresholds: a line over 256 KB of 1 KB keys and values, too few to be
    many small values, holds no string decoded apart and takes the stream path (its
    bytes held, not parsed), and gives the tree walk's file, report and suspects. A
    string decoded apart keeps a line a tree: plain, or escaped (JSON in a string, whose
    escaped quotes break the stretch between quotes)."""
    keys = {_medium(i, 1000) + " pw=hunter2xyz": _medium(i, 1000) for i in range(150)}
    medium = json.dumps({"rows": keys, "password": "hunter2xyz"}).encode()
    assert len(medium) > _lines.STREAM_MIN
    assert not _lines.many_values(medium) and _lines.no_string_apart(medium)
    plain = json.dumps({"log": "x" * (_apart.LONG_STRING + 1), "rows": keys}).encode()
    assert not _lines.no_string_apart(plain)
    assert _lines.no_string_apart(plain.replace(b"x" * 16, b"x" * 15, 1))  # not long
    held = json.dumps({"json": json.dumps([{"k": "v" * 50}] * 2000), "rows": keys}).encode()
    assert held.count(b'\\"') > 1000 and not _lines.no_string_apart(held)
    path = tmp_path / "medium.jsonl"
    path.write_bytes(json.dumps(HEAD).encode() + b"\n" + _entry(1, medium.decode()).encode())
    assert [line.obj for line in _lines.read_lines(path, lambda n: n == 2)][1] is _lines.STREAMED
    outs = []
    for stream in (True, False):
        out = tmp_path / f"out.{stream}.jsonl"
        with monkeypatch.context() as patch:
            if not stream:
                patch.setattr(_lines, "STREAM_MIN", 1 << 62)
            outs.append(redact(path, out, hostnames=[]))
    assert outs[0].path.read_bytes() == outs[1].path.read_bytes()  # type: ignore[union-attr]
    assert outs[0].report.equals(outs[1].report) and outs[0].suspects.equals(outs[1].suspects)
    assert len(outs[0].report) > 150
    dry = redact(path, dry_run=True, hostnames=[])  # walked as a stream writing nothing
    assert dry.report.equals(outs[0].report) and dry.suspects.equals(outs[0].suspects)
