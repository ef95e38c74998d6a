"""Where the agent keeps its sessions, and a quick listing of them."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from .._names import shown_name
from .._paths import given_path
from ..format import Problem, RawEntry, header_to_canonical, scan
from ._columns import table_time_ms
from ._text import content_text, preview

LISTING_COLUMNS = [
    "path",
    "id",
    "cwd",
    "name",
    "created",
    "modified",
    "entries",
    "first_user_message",
]


def session_dir() -> Path:
    """The agent's sessions folder, honouring its environment variables."""
    for variable in ("PRIME_AGENT_SESSION_DIR", "PRIME_AGENT_CODING_AGENT_SESSION_DIR"):
        value = os.environ.get(variable)
        if value:
            return Path(value).expanduser()
    agent_dir = os.environ.get("PRIME_AGENT_CODING_AGENT_DIR")
    if agent_dir:
        return Path(agent_dir).expanduser() / "sessions"
    return Path.home() / ".prime" / "agent" / "sessions"


def find_session_files(folder: str | Path | None = None, pattern: str = "**/*.jsonl") -> list[Path]:
    """Session files below ``folder`` (sub-folders too: older releases nest by project)."""
    if Path(pattern).is_absolute():
        raise ValueError(
            f"pattern={pattern!r}: give a pattern below the folder, such as '**/*.jsonl' "
            "(pass the folder itself as the folder)"
        )
    if folder is None:
        root = session_dir()
    else:
        given = given_path(folder, "the folder", "name one folder (or one session file)")
        root = Path(given).expanduser()
    if not root.exists():
        raise FileNotFoundError(
            f"{root}: no such folder; pass the folder that holds your .jsonl sessions "
            "(or set PRIME_AGENT_SESSION_DIR)"
        )
    if root.is_file():
        return [root]
    return sorted(p for p in root.glob(pattern) if p.is_file())


def _peek(path: Path) -> dict[str, Any]:
    """Header, entry count, name and first user message without building tables."""
    header: dict[str, Any] | None = None
    entries = 0
    name = first_user = None
    for item in scan(path):
        if isinstance(item, Problem):
            continue
        assert isinstance(item, RawEntry)
        obj = item.entry
        if header is None:
            if obj["type"] not in ("session", "header"):
                break
            header = header_to_canonical(obj)
            continue
        entries += 1
        if obj["type"] in ("session_info", "sessionInfo") and isinstance(obj.get("name"), str):
            name = obj["name"]
        elif first_user is None and obj["type"] == "message":
            message = obj.get("message")
            if isinstance(message, dict) and message.get("role") == "user":
                first_user = preview(content_text(message.get("content")))
    stat = path.stat()
    created = header.get("timestamp") if header else None
    return {
        "path": shown_name(str(path)),
        "id": header.get("id") if header else None,
        "cwd": header.get("cwd") if header else None,
        "name": name,
        "created": created,
        "modified": datetime.fromtimestamp(stat.st_mtime, tz=UTC),
        "entries": entries if header else None,
        "first_user_message": first_user,
    }


def list_sessions(dir: str | Path | None = None) -> pd.DataFrame:
    """One row per session file below ``dir`` (default: the agent's folder), newest first."""
    rows = [_peek(path) for path in find_session_files(dir)]
    frame = pd.DataFrame(rows, columns=LISTING_COLUMNS)
    if frame.empty:
        return frame
    frame["created"] = pd.to_datetime(
        frame["created"].map(table_time_ms), unit="ms", utc=True, errors="coerce"
    )
    frame["modified"] = pd.to_datetime(frame["modified"], utc=True)
    frame["entries"] = frame["entries"].astype("Int64")
    return frame.sort_values("modified", ascending=False).reset_index(drop=True)
