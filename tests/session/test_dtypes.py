"""Dtypes are a contract: every table has one schema (``prime_nb.session._schema``),
whatever the session holds (docs/tables.md is generated from that schema)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import header, msg, write_lines
from schema_checks import frame_mismatches
from session_matrix import LOADED_CASES, write_case

import prime_nb
from prime_nb.session._schema import INDEX, SCHEMAS

TABLES = list(SCHEMAS)
#: every session of the matrix (empty, clean, hostile, every fixture) but the twins
SESSIONS = LOADED_CASES


@pytest.mark.parametrize("name", SESSIONS)
def test_every_table_has_its_schema(
    name: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    session = matrix_session(name)
    for table in TABLES:
        found = frame_mismatches(getattr(session, table), SCHEMAS[table], INDEX[table])
        assert found == [], (name, table)


def test_the_dtypes_that_used_to_change_with_content(tmp_path: Path) -> None:
    empty = prime_nb.load(write_case("empty-v3-prime", tmp_path))
    assert str(empty.problems["kind"].dtype) == "str"
    assert str(empty.problems["message"].dtype) == "str"
    assert str(empty.leaves["depth"].dtype) == "int64"
    assert str(empty.tool_calls["is_error"].dtype) == "boolean"
    assert str(empty.compactions["tokens_before"].dtype) == "Int64"
    assert str(empty.compactions["timestamp"].dtype) == "datetime64[us, UTC]"
    # a call that waits for its result, and a sub-millisecond timestamp
    call = {"type": "toolCall", "id": "k1", "name": "read", "arguments": {"path": "a"}}
    lines = [
        header(),
        msg("u1", None, "user", "hi", 0),
        msg("a1", "u1", "assistant", "", 1, content=[call]),
    ]
    lines[2]["timestamp"] = "2026-01-05T10:01:00.123456Z"
    waiting = prime_nb.load(write_lines(tmp_path / "waiting.jsonl", lines))
    assert str(waiting.tool_calls["is_error"].dtype) == "boolean"
    assert waiting.tool_calls["is_error"].isna().all()
    assert str(waiting.entries["timestamp"].dtype) == "datetime64[us, UTC]"
    assert waiting.entries.at["a1", "timestamp"].microsecond == 123456


def test_the_removed_schema_check_says_what_to_use() -> None:
    with pytest.raises(ImportError, match=r"frame_mismatches was removed: .* dtype_of\(spec\)"):
        from prime_nb.session import frame_mismatches  # noqa: F401
    with pytest.raises(AttributeError, match=r"has no attribute 'nothing_here'"):
        prime_nb.session.nothing_here  # type: ignore[attr-defined]  # noqa: B018
