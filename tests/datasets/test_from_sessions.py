"""prime_nb.datasets.from_sessions and write_dataset: sessions as tables of chat examples.

Each unit is checked against the session's own tables and ``to_messages`` over the whole
session matrix (every version, dialect, fixture, empty and hostile file), and the
messages in every row against the providers' request types (``tests/chat_checks.py``).
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from chat_checks import check
from conftest import header, msg, write_lines
from session_matrix import LOADED_CASES, write_case

import prime_nb
from prime_nb.corpus import load_corpus
from prime_nb.datasets import from_sessions, write_dataset
from prime_nb.datasets._from_sessions import COLUMNS, schema
from prime_nb.errors import SessionFormatError
from sessiongen import synthetic_family

UNITS = ("leaf", "compaction", "turn")
#: rows per table checked one by one against the session (all rows are checked as requests)
SAMPLE = 12


def _sample(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    step = max(1, len(rows) // SAMPLE)
    return [*rows[::step], *rows[-1:]]


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    return table.to_pylist()


def _user_ids(session: prime_nb.Session) -> set[str]:
    entries = session.entries
    users = entries[(entries["type"] == "message") & (entries["role"] == "user")]
    return set(users.index)


_SUMMED: dict[int, tuple[prime_nb.Session, dict[str, int], dict[str, np.ndarray]]] = {}


def _summed_columns(session: prime_nb.Session) -> tuple[dict[str, int], dict[str, np.ndarray]]:
    """The entries' row numbers by id and the columns a row sums (missing as 0), as numpy
    arrays once per session: a path's sums are then a positional take, not a ``.loc``."""
    if id(session) not in _SUMMED or _SUMMED[id(session)][0] is not session:
        entries = session.entries
        rows = {entry_id: n for n, entry_id in enumerate(entries.index)}
        columns = {
            "tokens": entries["total_tokens"].fillna(0).to_numpy(dtype=np.int64),
            "cost": entries["cost"].fillna(0).to_numpy(dtype=float),
            "errors": entries["is_error"].to_numpy(dtype=bool),
        }
        _SUMMED[id(session)] = (session, rows, columns)
    _, rows, columns = _SUMMED[id(session)]
    return rows, columns


def _check_common(session: prime_nb.Session, row: dict[str, Any], anchor: str, fmt: str) -> None:
    messages = json.loads(row["messages"])
    check(messages, fmt)
    assert messages == session.to_messages(anchor, format=fmt)
    assert row["n_messages"] == len(messages) == len(row["message_sources"])
    assert row["file"] == str(session.file) and row["session_id"] == session.id
    path = session.path(anchor)
    rows, columns = _summed_columns(session)
    on_path = [rows[entry_id] for entry_id in path]
    assert row["tokens"] == int(columns["tokens"][on_path].sum())
    assert math.isclose(row["cost"], float(columns["cost"][on_path].sum()), abs_tol=1e-12)
    assert row["errors"] == int(columns["errors"][on_path].sum())
    assert row["is_active"] == bool(session.entries.at[anchor, "on_active_path"])
    assert row["abandoned"] is not row["is_active"]
    assert row["label"] == session.labels.get(anchor)
    assert row["labels"] == [session.labels[i] for i in path if i in session.labels]


@pytest.mark.parametrize("case", LOADED_CASES)
def test_every_unit_over_the_matrix(
    case: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    session = matrix_session(case)
    file = session.file
    for fmt in ("openai", "anthropic"):
        # the file read anew once (a path as input), the loaded session after that
        leaves = from_sessions(file if fmt == "openai" else [session], "leaf", fmt, progress=False)
        assert leaves.schema.equals(schema("leaf"))
        assert leaves.column("leaf_id").to_pylist() == list(session.leaves.index)
        assert leaves.column("tokens").to_pylist() == session.leaves["tokens"].tolist()
        for row in _sample(_rows(leaves)):
            _check_common(session, row, row["leaf_id"], fmt)
        assert sum(leaves.column("is_active").to_pylist()) == (1 if len(session) else 0)

        compactions = from_sessions([session], "compaction", fmt, progress=False)
        assert compactions.schema.equals(schema("compaction"))
        table = session.compactions
        assert compactions.column("entry_id").to_pylist() == list(table.index)
        for row in _sample(_rows(compactions)):
            _check_common(session, row, row["entry_id"], fmt)
            parent = table.at[row["entry_id"], "parent_id"]
            before = session.to_messages(parent, format=fmt) if isinstance(parent, str) else []
            assert json.loads(row["messages_before"]) == before
            assert row["n_messages_before"] == len(before)
            summary = table.at[row["entry_id"], "summary"]
            assert row["summary"] == (summary if isinstance(summary, str) else None)

        turns = from_sessions([session], "turn", fmt, progress=False)
        assert turns.schema.equals(schema("turn"))
        rows = _rows(turns)
        # every user message starts a turn; a turn (start, end) is one row
        assert {r["entry_id"] for r in rows} == _user_ids(session)
        keys = [(r["entry_id"], r["end_id"]) for r in rows]
        assert len(keys) == len(set(keys))
        for row in rows:
            check(json.loads(row["messages"]), fmt)
        for row in _sample(rows):
            _check_common(session, row, row["end_id"], fmt)
            span = session.path(row["end_id"])
            assert row["entry_id"] in span
            sources = row["message_sources"]
            shown = [n for n, src in enumerate(sources) if row["entry_id"] in src]
            if shown:
                assert row["turn_start"] <= shown[0]


@pytest.mark.parametrize("case", [c for c in LOADED_CASES if c.startswith("comp-")])
def test_compaction_rows_are_every_compaction(case: str, tmp_path: Path) -> None:
    _, on, off, *_ = case.split("-")
    table = from_sessions(write_case(case, tmp_path), unit="compaction", progress=False)
    expected = int(on[2:]) + (int(off[3:]) if "-v1-" not in case else 0)
    assert table.num_rows == expected
    assert table.column("is_active").to_pylist().count(True) == int(on[2:])
    for row in _rows(table):
        after = json.loads(row["messages"])
        assert "<summary>" in after[0]["content"]  # the context after opens with it
        assert row["summary"] in after[0]["content"]


def _tree(tmp_path: Path) -> Path:
    """u1 a1 u2 a2 (leaf 1); a1 -> u3 a3 (leaf 2); u2 -> a2b (leaf 3, active)."""
    lines = [
        header(),
        msg("u1", None, "user", "first question", 1),
        msg("a1", "u1", "assistant", "first answer", 2),
        msg("u2", "a1", "user", "second question", 3),
        msg("a2", "u2", "assistant", "second answer", 4),
        {
            "type": "label",
            "id": "l1",
            "parentId": "a2",
            "targetId": "a2",
            "label": "good",
            "timestamp": "2026-01-05T10:05:00.000Z",
        },
        msg("u3", "a1", "user", "other question", 6),
        msg("a3", "u3", "assistant", "other answer", 7, stopReason="error"),
        msg("a2b", "u2", "assistant", "second answer, retried", 8),
    ]
    return write_lines(tmp_path / "tree.jsonl", lines)


def test_turns_shared_by_leaves_are_one_row(tmp_path: Path) -> None:
    table = from_sessions(_tree(tmp_path), unit="turn", progress=False)
    rows = {(r["entry_id"], r["end_id"]): r for r in _rows(table)}
    assert list(rows) == [("u1", "a1"), ("u2", "a2"), ("u3", "a3"), ("u2", "a2b")]
    assert rows["u1", "a1"]["turn_start"] == 0 and rows["u1", "a1"]["turn_tokens"] == 15
    second = rows["u2", "a2"]
    assert second["turn_start"] == 2 and second["tokens"] == 30 and second["turn_tokens"] == 15
    assert [m["content"] for m in json.loads(second["messages"])[2:]] == [
        "second question",
        "second answer",
    ]
    assert rows["u2", "a2b"]["is_active"] and not rows["u2", "a2"]["is_active"]
    assert rows["u1", "a1"]["is_active"]  # on the active path, shared by every leaf
    # a failed answer: the agent never replays it, so the turn ends at its question
    other = rows["u3", "a3"]
    assert other["errors"] == 1
    assert json.loads(other["messages"])[-1] == {"role": "user", "content": "other question"}
    leaves = {r["leaf_id"]: r for r in _rows(from_sessions(_tree(tmp_path), progress=False))}
    assert list(leaves) == ["l1", "a3", "a2b"]
    assert leaves["l1"]["labels"] == ["good"] and leaves["l1"]["abandoned"]


def test_inputs_folder_list_session_and_corpus(tmp_path: Path) -> None:
    files = synthetic_family(tmp_path / "family", seed=0)
    folder = from_sessions(tmp_path / "family", progress=False)
    assert set(folder.column("file").to_pylist()) == {str(p) for p in files.values()}
    one = from_sessions(str(files["root"]), progress=False)
    assert set(one.column("file").to_pylist()) == {str(files["root"])}
    mixed = from_sessions([prime_nb.load(files["root"]), files["fork"]], progress=False)
    assert mixed.num_rows == one.num_rows + from_sessions(files["fork"], progress=False).num_rows
    corpus = load_corpus(tmp_path / "family", workers=1, progress=False)
    from_corpus = from_sessions(corpus, progress=False)
    assert sorted(from_corpus.column("leaf_id").to_pylist()) == sorted(
        folder.column("leaf_id").to_pylist()
    )
    with pytest.raises(ValueError, match="needs a 'path' column"):
        from_sessions(corpus.drop(columns="path"), progress=False)
    with pytest.raises(FileNotFoundError, match="no such session file or folder"):
        from_sessions(tmp_path / "missing.jsonl", progress=False)
    with pytest.raises(TypeError, match="got int"):
        from_sessions(3, progress=False)
    with pytest.raises(TypeError, match="not a path or a Session"):
        from_sessions([files["root"], 3], progress=False)


def test_empty_sessions_and_folders_give_empty_tables(tmp_path: Path) -> None:
    empty = write_lines(tmp_path / "empty.jsonl", [header()])
    (tmp_path / "none").mkdir()
    for unit in UNITS:
        table = from_sessions(empty, unit=unit, progress=False)
        assert table.num_rows == 0 and table.schema.equals(schema(unit))
        assert table.column_names == [name for name, _ in COLUMNS[unit]]
        assert from_sessions(tmp_path / "none", unit=unit, progress=False).num_rows == 0
        assert from_sessions([], unit=unit, progress=False).num_rows == 0


def test_a_file_that_cannot_load_is_skipped_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    good = write_lines(folder / "a.jsonl", [header(), msg("u1", None, "user", "hi")])
    (folder / "b.jsonl").write_bytes(b"\x00\xff garbage\n{not json\n")
    (folder / "c.jsonl").write_bytes(b"")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = from_sessions(folder, progress=False)
    messages = [str(w.message) for w in caught]
    assert [Path(m.split(":")[0]).name for m in messages] == ["b.jsonl", "c.jsonl"]
    assert all(": skipped, it cannot be loaded: " in m for m in messages)
    assert table.column("file").to_pylist() == [str(good)]
    skipped = json.loads(table.schema.metadata[b"prime_nb.skipped"])
    assert [Path(s["file"]).name for s in skipped] == ["b.jsonl", "c.jsonl"]
    assert all("no session header" in s["error"] for s in skipped)
    with pytest.raises(SessionFormatError, match="no session header"):
        from_sessions(folder, progress=False, on_error="raise")


def test_options_are_checked_before_any_work(tmp_path: Path) -> None:
    missing = tmp_path / "not-there.jsonl"
    with pytest.raises(ValueError, match=r"unit must be one of \('leaf', 'compaction', 'turn'\)"):
        from_sessions(missing, unit="branch")
    with pytest.raises(ValueError, match="output must be one of"):
        from_sessions(missing, output="pandas")
    with pytest.raises(ValueError, match="format must be one of"):
        from_sessions(missing, format="gemini")
    with pytest.raises(ValueError, match="on_error must be one of"):
        from_sessions(missing, on_error="ignore")


def test_hugging_face_output(tmp_path: Path) -> None:
    import datasets

    file = _tree(tmp_path)
    dataset = from_sessions(file, unit="turn", output="hf", progress=False)
    assert isinstance(dataset, datasets.Dataset)
    table = from_sessions(file, unit="turn", progress=False)
    assert dataset.num_rows == table.num_rows == 4
    assert dataset.column_names == table.column_names
    assert json.loads(dataset[1]["messages"]) == json.loads(table.column("messages")[1].as_py())


def test_missing_extras_name_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = _tree(tmp_path)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"pip install 'prime-nb\[hf\]'"):
        from_sessions(file, output="hf", progress=False)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"pip install 'prime-nb\[parquet\]'"):
        from_sessions(file, progress=False)


@pytest.mark.parametrize("unit", UNITS)
def test_parquet_and_jsonl_round_trip(unit: str, tmp_path: Path) -> None:
    files = synthetic_family(tmp_path / "family", seed=1)
    compacted = write_case("comp-on2-off1-forks1-v3-prime", tmp_path)
    table = from_sessions([*files.values(), _tree(tmp_path), compacted], unit=unit, progress=False)
    assert table.num_rows > 0
    parquet = write_dataset(table, tmp_path / "out.parquet", progress=False)
    back = pq.read_table(parquet)
    assert back.equals(table) and back.schema.metadata == table.schema.metadata
    jsonl = write_dataset(table, tmp_path / "out.jsonl", progress=False)
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    expected = _rows(table)
    assert len(lines) == len(expected)
    for line, row in zip(lines, expected, strict=True):
        for column in ("messages", "messages_before"):
            if column in row:
                row[column] = json.loads(row[column])  # nested in JSONL
        assert line == row
    hf = from_sessions(files["root"], unit=unit, output="hf", progress=False)
    again = write_dataset(hf, tmp_path / "hf.parquet", progress=False)
    assert pq.read_table(again).num_rows == hf.num_rows


def test_writing_empty_tables_and_bad_names(tmp_path: Path) -> None:
    empty = from_sessions(write_lines(tmp_path / "e.jsonl", [header()]), progress=False)
    back = pq.read_table(write_dataset(empty, tmp_path / "e.parquet", progress=False))
    assert back.num_rows == 0 and back.schema.equals(empty.schema)
    assert write_dataset(empty, tmp_path / "e.jsonl", progress=False).read_bytes() == b""
    with pytest.raises(ValueError, match=r"must end in \.parquet or \.jsonl"):
        write_dataset(empty, tmp_path / "out.csv")
    with pytest.raises(TypeError, match=r"takes a pyarrow Table or a datasets\.Dataset"):
        write_dataset([1, 2], tmp_path / "out.jsonl")
    assert not (tmp_path / "out.csv").exists()


def test_progress_bar_is_shown_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _tree(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = from_sessions(file, unit="turn")
        write_dataset(table, tmp_path / "t.jsonl")
    err = capsys.readouterr().err
    assert "turn rows" in err and "t.jsonl" in err


def test_a_session_whose_file_is_gone_is_skipped_whole(tmp_path: Path) -> None:
    session = prime_nb.load(_tree(tmp_path))
    session.file.unlink()
    with pytest.warns(UserWarning, match=r"tree\.jsonl: skipped, it cannot be loaded"):
        table = from_sessions([session], unit="turn", progress=False)
    assert table.num_rows == 0
