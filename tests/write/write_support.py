"""Small hand-made session files for the writer tests (both dialects, versions 1-3).

The tree (canonical ids), oldest first:

    u1 -> a1 -> u2 -> a2 (tool call) -> t1 (tool result) -> a3 -> lab (label on a1)
             \\-> u3 -> a4 -> h1 (custom/hookMessage) -> nm (session name)

The active leaf is ``nm`` (the last line). Version 1 files are the linear list
u1 a1 u2 a2 t1 a3 (no ids; the loader derives them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from prime_nb.format._dialect import to_dialect

SESSION_ID = "5e55a0b1-0000-4000-8000-000000000001"
BASE_MS = 1_767_607_200_000  # 2026-01-05T10:00:00Z


def _iso(minute: int) -> str:
    return f"2026-01-05T10:{minute:02d}:00.000Z"


def _message(
    entry_id: str, parent: str | None, minute: int, message: dict[str, Any]
) -> dict[str, Any]:
    message.setdefault("timestamp", BASE_MS + minute * 60_000)
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": _iso(minute),
        "message": message,
    }


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "provider": "anthropic",
        "model": "claude-x",
        "stopReason": "stop",
        "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
    }


def canonical_entries(version: int = 3) -> list[dict[str, Any]]:
    """Canonical (prime-dialect, v3-named) entries without the header."""
    linear = [
        _message("u1", None, 1, user("hello")),
        _message("a1", "u1", 2, assistant("hi there")),
        _message("u2", "a1", 3, user("list files")),
        _message(
            "a2",
            "u2",
            4,
            {
                "role": "assistant",
                "content": [
                    {"type": "toolCall", "id": "call-1", "name": "bash", "arguments": {"c": "ls"}}
                ],
            },
        ),
        _message(
            "t1",
            "a2",
            5,
            {
                "role": "toolResult",
                "toolCallId": "call-1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "a.txt"}],
                "isError": False,
            },
        ),
        _message("a3", "t1", 6, assistant("one file")),
    ]
    if version < 2:
        return linear
    return [
        *linear,
        {
            "type": "label",
            "id": "lab",
            "parentId": "a3",
            "timestamp": _iso(7),
            "targetId": "a1",
            "label": "greeting",
        },
        _message("u3", "a1", 8, user("something else")),
        _message("a4", "u3", 9, assistant("sure")),
        _message(
            "h1",
            "a4",
            10,
            {"role": "custom", "customType": "note", "content": "hook said hi", "display": True},
        ),
        {
            "type": "session_info",
            "id": "nm",
            "parentId": "h1",
            "timestamp": _iso(11),
            "name": "first name",
        },
    ]


def header(version: int, dialect: str) -> dict[str, Any]:
    if dialect == "spec":
        out: dict[str, Any] = {
            "type": "header",
            "id": SESSION_ID,
            "timestamp": BASE_MS,
            "workingDir": "/tmp/project",
        }
    else:
        out = {"type": "session", "id": SESSION_ID, "timestamp": _iso(0), "cwd": "/tmp/project"}
    if version > 1:
        out["version"] = version
    return out


def disk_entry(entry: dict[str, Any], version: int, dialect: str) -> dict[str, Any]:
    """A canonical entry as a file of that version and dialect stores it."""
    out = to_dialect(entry, dialect)  # type: ignore[arg-type]
    if version < 2:
        out.pop("id", None)
        out.pop("parentId", None)
    message = out.get("message")
    if version < 3 and isinstance(message, dict) and message.get("role") == "custom":
        out["message"] = {**message, "role": "hookMessage"}
    return out


def make_session(path: Path, version: int = 3, dialect: str = "prime") -> Path:
    lines = [header(version, dialect)]
    lines += [disk_entry(e, version, dialect) for e in canonical_entries(version)]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def raw_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of the file parsed strictly (fails on a broken line)."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), "the file must end with a newline"
    return [orjson.loads(line) for line in data.split(b"\n")[:-1]]


VARIANTS = [(v, d) for v in (2, 3) for d in ("prime", "spec")]
