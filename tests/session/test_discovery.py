"""Where sessions live and how they are listed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import header, msg, write_lines

import prime_nb
import prime_nb.session


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


def _archives(folder: Path) -> dict[str, Path]:
    """A live session, OpenClaw's two kinds of archive, and files that are neither."""
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for kind, name in (
        ("live", "live.jsonl"),
        ("reset", "old.jsonl.reset.2026-02-01T10-20-30.123Z"),
        ("deleted", "gone.jsonl.deleted.2026-04-13T00-53-49.392Z"),
    ):
        made[kind] = write_lines(
            folder / name, [header(id=kind), msg("u1", None, "user", f"{kind} question")]
        )
    for other in ("x.jsonl.lock", "y.jsonl.deleted.123.zst", "z.jsonl.bak"):
        (folder / other).write_text("not listed\n")
    return made


def test_archived_files_are_listed_with_their_kind(tmp_path: Path) -> None:
    made = _archives(tmp_path)
    listing = prime_nb.list_sessions(tmp_path).set_index("id")
    assert set(listing.index) == {"live", "reset", "deleted"}
    assert listing.loc["reset", "archived"] == "reset"
    assert listing.loc["deleted", "archived"] == "deleted"
    assert prime_nb.session.archived_kind(made["live"]) is None
    assert listing["archived"].isna().sum() == 1
    assert listing.loc["deleted", "first_user_message"] == "deleted question"
    live_only = prime_nb.list_sessions(tmp_path, include_archived=False)
    assert live_only["id"].tolist() == ["live"]
    assert prime_nb.session.find_session_files(tmp_path, include_archived=False) == [made["live"]]
    assert len(prime_nb.session.find_session_files(tmp_path)) == 3


def test_corpus_and_search_read_archived_files(tmp_path: Path) -> None:
    from prime_nb import corpus

    _archives(tmp_path)
    table = corpus.load_corpus(tmp_path, workers=1, progress=False).set_index("id")
    assert table.loc["reset", "archived"] == "reset" and pd.isna(table.loc["live", "archived"])
    live = corpus.load_corpus(tmp_path, workers=1, progress=False, include_archived=False)
    assert live["id"].tolist() == ["live"] and live["archived"].dtype == table["archived"].dtype
    hits = corpus.search(tmp_path, "question", workers=1)
    assert len(hits) == 3
    assert len(corpus.search(tmp_path, "question", workers=1, include_archived=False)) == 1


def _agent_homes(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    for name in (
        "PRIME_AGENT_SESSION_DIR",
        "PRIME_AGENT_CODING_AGENT_SESSION_DIR",
        "PRIME_AGENT_CODING_AGENT_DIR",
        "PI_CODING_AGENT_DIR",
        "OPENCLAW_STATE_DIR",
        "CLAWDBOT_STATE_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))


def test_session_folders_know_the_agents_that_write_this_format(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _agent_homes(monkeypatch, tmp_path)
    assert prime_nb.session.session_folders() == {}
    own = tmp_path / ".prime" / "agent" / "sessions"
    pi = tmp_path / ".pi" / "agent" / "sessions"
    claw = tmp_path / ".openclaw" / "agents"
    for folder in (own, pi, claw / "main" / "sessions", claw / "work" / "sessions"):
        folder.mkdir(parents=True)
    assert prime_nb.session.session_folders() == {
        "prime": own,
        "pi": pi,
        "openclaw:main": claw / "main" / "sessions",
        "openclaw:work": claw / "work" / "sessions",
    }
    moved_pi, state = tmp_path / "pi-home", tmp_path / "claw-state"
    (moved_pi / "sessions").mkdir(parents=True)
    (state / "agents" / "ops" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(moved_pi))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    folders = prime_nb.session.session_folders()
    assert folders["pi"] == moved_pi / "sessions"
    assert folders["openclaw:ops"] == state / "agents" / "ops" / "sessions"
    assert "openclaw:main" not in folders


def test_openclaw_old_state_folder_and_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _agent_homes(monkeypatch, tmp_path)
    (tmp_path / ".clawdbot").mkdir()
    assert prime_nb.session.openclaw_state_dir() == tmp_path / ".clawdbot"
    (tmp_path / ".openclaw").mkdir()
    assert prime_nb.session.openclaw_state_dir() == tmp_path / ".openclaw"
    monkeypatch.setenv("CLAWDBOT_STATE_DIR", str(tmp_path / "old-var"))
    assert prime_nb.session.openclaw_state_dir() == tmp_path / "old-var"


def test_list_sessions_by_default_lists_every_agents_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _agent_homes(monkeypatch, tmp_path)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        prime_nb.list_sessions()
    own = tmp_path / ".prime" / "agent" / "sessions"
    own.mkdir(parents=True)
    write_lines(own / "a.jsonl", [header(id="mine")])
    _archives(tmp_path / ".openclaw" / "agents" / "main" / "sessions")
    pi = tmp_path / ".pi" / "agent" / "sessions" / "--proj--"
    pi.mkdir(parents=True)
    write_lines(pi / "p.jsonl", [header(id="pi")])
    listing = prime_nb.list_sessions().set_index("id")
    assert listing["agent"].to_dict() == {
        "mine": "prime",
        "pi": "pi",
        "live": "openclaw:main",
        "reset": "openclaw:main",
        "deleted": "openclaw:main",
    }
    assert prime_nb.list_sessions(own)["agent"].isna().all()
