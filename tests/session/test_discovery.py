"""Where sessions live and how they are listed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import header, msg, write_lines

import prime_nb


def test_session_dir_follows_the_agent_variables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in (
        "PRIME_AGENT_SESSION_DIR",
        "PRIME_AGENT_CODING_AGENT_SESSION_DIR",
        "PRIME_AGENT_CODING_AGENT_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert prime_nb.session_dir() == tmp_path / ".prime" / "agent" / "sessions"
    monkeypatch.setenv("PRIME_AGENT_CODING_AGENT_DIR", "/opt/agent")
    assert prime_nb.session_dir() == Path("/opt/agent/sessions")
    monkeypatch.setenv("PRIME_AGENT_CODING_AGENT_SESSION_DIR", "/old/name")
    assert prime_nb.session_dir() == Path("/old/name")
    monkeypatch.setenv("PRIME_AGENT_SESSION_DIR", "/new/name")
    assert prime_nb.session_dir() == Path("/new/name")


def test_list_sessions_walks_project_folders(tmp_path: Path) -> None:
    flat = write_lines(
        tmp_path / "abc.jsonl",
        [
            header(id="abc"),
            msg("u1", None, "user", "hello there"),
            {"type": "session_info", "id": "n1", "parentId": "u1", "name": "Named"},
        ],
    )
    nested_dir = tmp_path / "--home-dev-proj--"
    nested_dir.mkdir()
    nested = write_lines(
        nested_dir / "2026-01-05T10-00-00-000Z_def.jsonl",
        [header(id="def"), msg("u1", None, "user", "nested question")],
    )
    write_lines(tmp_path / "junk.jsonl", [b"not a session"])
    listing = prime_nb.list_sessions(tmp_path)
    by_id = listing.set_index("id")
    assert set(listing["path"]) == {str(flat), str(nested), str(tmp_path / "junk.jsonl")}
    assert by_id.loc["abc", "name"] == "Named"
    assert by_id.loc["abc", "entries"] == 2
    assert by_id.loc["def", "first_user_message"] == "nested question"
    assert str(by_id.loc["def", "created"]) == "2026-01-05 10:00:00+00:00"


def test_list_sessions_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such folder"):
        prime_nb.list_sessions(tmp_path / "nope")
