"""The scan's sink mode hands on the same lines, in the same order, as its yields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from session_matrix import CASES, write_case

from prime_nb.format._reading import (
    READ_BUFFER,
    Problem,
    RawEntry,
    ScanState,
    open_regular,
    scan_file,
)


def _yielded(path: Path, end: int | None = None) -> tuple[list[Any], ScanState]:
    state = ScanState()
    with open_regular(path, READ_BUFFER) as fh:
        items = [tuple(item) for item in scan_file(fh, state, end)]
    return items, state


def _sunk(path: Path, end: int | None = None) -> tuple[list[Any], ScanState]:
    state = ScanState()
    items: list[Any] = []
    problems: list[Problem] = []

    def sink(line: int, offset: int, length: int, obj: dict[str, Any], given: list[Any]) -> None:
        assert given is problems
        assert obj["type"] not in ("session", "header")  # the consumer reads those itself
        items.append((line, offset, length, obj))

    with open_regular(path, READ_BUFFER) as fh:
        for item in scan_file(fh, state, end, sink, problems):
            if isinstance(item, RawEntry):  # what a sink never takes: headers, careful parses
                assert item.entry["type"] in ("session", "header") or item.line in _careful(path)
            items.append(tuple(item))
    return items, state


def _careful(path: Path) -> set[int]:
    """Lines the fast parse refuses (BOM, CRLF, spaces, bad JSON...), counted from 1."""
    import orjson

    out = set()
    for number, raw in enumerate(path.read_bytes().split(b"\n"), 1):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            out.add(number)
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            out.add(number)
    return out


@pytest.mark.parametrize("name", CASES)
def test_sink_mode_hands_on_what_the_yields_do(name: str, tmp_path: Path) -> None:
    path = write_case(name, tmp_path)
    want, want_state = _yielded(path)
    got, got_state = _sunk(path)
    assert got == want
    assert got_state == want_state


@pytest.mark.parametrize("name", CASES[:12])
def test_sink_mode_stops_at_the_end_asked(name: str, tmp_path: Path) -> None:
    path = write_case(name, tmp_path)
    size = path.stat().st_size
    cuts = sorted({0, *(k + 1 for k, b in enumerate(path.read_bytes()) if b == 10)})
    end = cuts[len(cuts) // 2] if len(cuts) > 2 else None
    assert end is not None and end < size  # every case has lines to cut between
    assert _sunk(path, end) == _yielded(path, end)


def test_state_is_past_a_line_when_it_is_handed_on(tmp_path: Path) -> None:
    """A consumer that stops after any item resumes, from the state, with the next line."""
    path = tmp_path / "s.jsonl"
    lines = [b'{"type":"session","id":"h"}', b'{"type":"message","id":"a"}', b"not json"]
    path.write_bytes(b"\n".join(lines) + b"\n" + b'{"type":"message","id":"b"}\n')
    state = ScanState()
    with open_regular(path, READ_BUFFER) as fh:
        first = next(scan_file(fh, state))
        assert isinstance(first, RawEntry) and first.entry["id"] == "h"
        assert state.offset == len(lines[0]) + 1 and state.line == 2
        rest = list(scan_file(fh, state))
    assert [getattr(item, "line", None) for item in rest] == [2, 3, 4]
