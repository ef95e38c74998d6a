"""The scan's sink mode hands on the same lines, in the same order, as its yields."""

from __future__ import annotations

from dataclasses import replace
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


def _resumed(path: Path) -> tuple[list[Any], ScanState]:
    """The scan stopped after every entry and started again from its state, as the
    loader stops after the header (a line's problems come before its entry)."""
    state = ScanState()
    items: list[Any] = []
    with open_regular(path, READ_BUFFER) as fh:
        while True:
            before = replace(state)
            for item in scan_file(fh, state):
                items.append(tuple(item))
                if isinstance(item, RawEntry):
                    break
            else:  # the scan ran to its end (a torn tail's problem is its last word)
                return items, state
            assert state != before, f"the state stayed before the entry of line {item[0]}"


@pytest.mark.parametrize("name", [*CASES, "header-only-no-newline"])
def test_a_scan_stopped_after_any_item_goes_on_from_its_state(name: str, tmp_path: Path) -> None:
    """The loader stops after the header and scans on in sink mode: a header that was the
    file's last line, without its newline yet (a session the agent has just started),
    was read twice and reported as a second header."""
    if name == "header-only-no-newline":
        path = tmp_path / "new.jsonl"
        path.write_bytes(b'{"type": "session", "version": 3, "id": "s", "cwd": "/p"}')
    else:
        path = write_case(name, tmp_path)
    assert _resumed(path) == _yielded(path)


def test_a_session_of_a_header_without_its_newline_loads_clean(tmp_path: Path) -> None:
    import prime_nb

    path = tmp_path / "new.jsonl"
    path.write_bytes(b'{"type": "session", "version": 3, "id": "s", "cwd": "/p"}')
    session = prime_nb.load(path)
    assert session.problems.empty  # it said "a second header" on line 1
    with open(path, "ab") as fh:  # the agent finishes the line and goes on
        fh.write(b'\n{"type": "session_info", "id": "n", "parentId": null, "name": "x"}\n')
    session.refresh()
    assert session.problems.empty and session.name == "x"
