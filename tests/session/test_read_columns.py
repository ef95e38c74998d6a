"""``read_columns``: a read from the start, a resumed read, and a read kept as bytes.

A resumed read must equal a read from the start of the file as it is now, whatever was
appended (or replaced); a summary read must come back from its bytes as it was left, on
every session of the shared matrix.
"""

from __future__ import annotations

import math
import os
import pickle
from pathlib import Path
from typing import Any

import pytest
from research_sessions import branchy, compacted
from session_matrix import CASES, write_all

from prime_nb.errors import SessionFormatError
from prime_nb.session import ColumnsRead, Session, load, read_columns
from sessiongen import write_large_session

COLUMNS = ("ids", "parent_ids", "types", "roles", "lines", "offsets", "lengths")


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN (a missing time or cost)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def facts(read: ColumnsRead) -> dict[str, Any]:
    """What a read holds, as plain values to compare."""
    cols = read.columns
    calls = cols.tool_calls
    out = {
        **{name: list(getattr(cols, name)) for name in COLUMNS},
        "time_ms": list(cols.time_ms),
        "usage": [None if u is None else (type(u), tuple(u)) for u in cols.usage],
        "odd_fields": {row: u.fields for row, u in enumerate(cols.usage) if _odd(u)},
        "tool_calls": list(
            zip(calls.call_ids, calls.names, calls.rows, calls.times, calls.blocks, strict=True)
        ),
        "kept_arguments": sorted(calls.arguments),
        "problems": [tuple(p) for p in read.problems],
        "tree_problems": [tuple(p) for p in read.tree.problems],
        "parents": list(read.tree.parent),
        "header": read.header,
        "end": read.end,
    }
    if read.kind == "summary":
        out["stops"] = list(cols.stop_reasons)
        out["first_user_text"] = cols.first_user_text
    return out


def _odd(usage: Any) -> bool:
    """A usage with fields kept as missing (an ``OddUsage``)."""
    return usage is not None and usage.__class__ is not tuple


def assert_same(got: ColumnsRead, want: ColumnsRead, label: str) -> None:
    a, b = facts(got), facts(want)
    for name in b:
        assert same(a[name], b[name]), f"{label}: {name}"


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("reads")
    written = sorted(write_all(root).values())
    return [p for p in written if _readable(p)]


def _readable(path: Path) -> bool:
    try:
        read_columns(path)
    except SessionFormatError:
        return False
    return True


def test_the_matrix_covers_odd_usage_and_read_tools(paths: list[Path]) -> None:
    assert {"odd-child-usage-odd-fields"} <= set(CASES)
    reads = [read_columns(p, columns="summary", arguments={"read"}) for p in paths]
    assert len(reads) > 30
    assert any(_odd(u) for r in reads for u in r.columns.usage)
    assert any(r.columns.tool_calls.arguments for r in reads)


def test_a_summary_read_comes_back_from_its_bytes(paths: list[Path]) -> None:
    for path in paths:
        read = read_columns(path, columns="summary", arguments={"read", "read_file"})
        back = ColumnsRead.from_bytes(read.to_bytes(), path)
        assert_same(back, read, path.name)
        assert back.to_bytes() == read.to_bytes(), path.name


@pytest.mark.parametrize("columns", ["full", "summary"])
def test_a_read_pickles(paths: list[Path], columns: str) -> None:
    """A read goes to another process (a worker) and comes back whole."""
    for path in paths[:10]:
        read = read_columns(path, columns=columns)
        assert_same(pickle.loads(pickle.dumps(read)), read, path.name)


@pytest.mark.parametrize("columns", ["full", "summary"])
def test_a_resumed_read_equals_a_read_from_the_start(tmp_path: Path, columns: str) -> None:
    """Lines appended in three rounds (one cut in the middle of a line) are read from
    where the last read stopped, into the same columns."""
    source = write_large_session(tmp_path / "big.jsonl", 300_000, seed=3)
    data = source.read_bytes()
    target = tmp_path / "grown.jsonl"
    cuts = [len(data) // 3, len(data) // 2 + 7, len(data)]  # the middle one tears a line
    target.write_bytes(data[: cuts[0]])
    read = read_columns(target, columns=columns, arguments={"read"})
    for cut in cuts[1:]:
        with open(target, "ab") as fh:
            fh.write(data[len(target.read_bytes()) : cut])
        before = len(read)
        again = read_columns(target, state=read)
        assert again is read and not again.fresh and again.changed
        assert again.added == len(again) - before
        assert_same(again, read_columns(target, columns=columns, arguments={"read"}), str(cut))
    assert read.end == len(data)
    unchanged = read_columns(target, state=read)
    assert unchanged is read and not unchanged.changed and unchanged.added == 0


def test_a_replaced_file_is_read_anew_and_the_old_read_is_left_alone(tmp_path: Path) -> None:
    path = compacted(tmp_path / "s.jsonl")
    read = read_columns(path)
    kept = facts(read)
    other = branchy(tmp_path / "other.jsonl")
    os.replace(other, path)
    again = read_columns(path, state=read)
    assert again is not read and again.fresh
    assert_same(again, read_columns(path), "replaced")
    assert facts(read) == kept


def test_a_failed_resume_leaves_the_read_as_it_was(tmp_path: Path) -> None:
    path = compacted(tmp_path / "s.jsonl")
    read = read_columns(path)
    kept = facts(read)
    path.unlink()
    with pytest.raises(FileNotFoundError, match="the session file is gone"):
        read_columns(path, state=read)
    assert facts(read) == kept


def test_a_session_over_a_read_is_the_loaded_session(tmp_path: Path) -> None:
    path = compacted(tmp_path / "s.jsonl")
    session, loaded = Session.from_read(read_columns(path)), load(path)
    assert session.header == loaded.header and session.leaf_id == loaded.leaf_id
    assert session.entries.equals(loaded.entries)
    assert session.to_messages() == loaded.to_messages()


def test_the_tables_of_a_summary_read_say_what_to_do(tmp_path: Path) -> None:
    session = Session.from_read(read_columns(compacted(tmp_path / "s.jsonl"), columns="summary"))
    assert session.id is not None and len(session.path()) > 1  # the tree works
    with pytest.raises(ValueError, match=r"columns='summary'.*load\(\) the file"):
        _ = session.entries


def test_wrong_requests_are_clear_errors(tmp_path: Path) -> None:
    path = compacted(tmp_path / "s.jsonl")
    with pytest.raises(ValueError, match=r"columns='some': pass one of full, summary"):
        read_columns(path, columns="some")
    with pytest.raises(ValueError, match=r"only a finished read with columns='summary'"):
        read_columns(path).to_bytes()
    with pytest.raises(FileNotFoundError, match="no such session file"):
        read_columns(tmp_path / "missing.jsonl")


def test_a_resumed_read_takes_its_marks_from_the_bytes_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marks a later read compares (to tell a grown file from a replaced one) are
    those of the file whose lines were read, even if another file is renamed over the
    path the moment after: never the other file's. (Unlinking the file read changes its
    ctime while it is read, so the read may instead leave marks that match nothing, which
    makes the next read start afresh.)"""
    import prime_nb.session._read as reading

    path = compacted(tmp_path / "s.jsonl")
    read = read_columns(path)
    with open(path, "ab") as fh:
        fh.write(b'{"type":"label","id":"l1","parentId":"a1","targetId":"a1","label":"x"}\n')
    grown = path.read_bytes()
    real_scan = reading.scan

    def scan_then_replace(*args: Any, **kwargs: Any) -> Any:
        items = list(real_scan(*args, **kwargs))
        other = tmp_path / "other.jsonl"
        other.write_bytes(grown.replace(b'"a1"', b'"z1"'))
        os.replace(other, path)
        return items

    monkeypatch.setattr(reading, "scan", scan_then_replace)
    read_columns(path, state=read)
    mark = reading.MARK
    assert read.end == len(grown)
    assert read.marks in (b"", grown[:mark] + grown[max(0, len(grown) - mark) :])
    monkeypatch.setattr(reading, "scan", real_scan)
    again = read_columns(path, state=read)
    assert list(again.columns.ids) == list(read_columns(path).columns.ids)
    assert "z1" in again.columns.ids
