"""Entries of a small session file, for the attack benchmarks (``bench_hostile_*.py``).

Why: each attack benchmark writes sessions a few entries long with a hostile value in
one field; every field an attack varies is a parameter here, so that each benchmark
states only what its sessions do differently.
"""

from __future__ import annotations

import json
from typing import Any

T0 = "2026-01-05T10:00:00Z"
#: a message's own timestamp (milliseconds), unless told another
MS = 1767607200000
#: an assistant message's usage, unless told another
USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"total": 0.001},
}
#: usage with only the fields most providers fill
SHORT_USAGE = {"input": 10, "output": 5, "cost": {"total": 0.01}}


def head(**fields: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": "s1", "timestamp": T0, "cwd": "/w", **fields}


def message(
    entry_id: Any, parent: Any, body: dict[str, Any], *, stamp: Any = T0, **fields: Any
) -> dict[str, Any]:
    """A message entry holding ``body`` (``fields``: more of the entry's members)."""
    entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp}
    return {**entry, "message": body, **fields}


def user(
    entry_id: Any, parent: Any, text: Any = "hi", *, ms: Any = MS, stamp: Any = T0, **fields: Any
) -> dict[str, Any]:
    """A user message (``ms=None``: without its own timestamp)."""
    body: dict[str, Any] = {"role": "user", "content": text}
    if ms is not None:
        body["timestamp"] = ms
    return message(entry_id, parent, body, stamp=stamp, **fields)


def assistant(
    entry_id: Any,
    parent: Any,
    text: Any = "ok",
    *,
    usage: Any = None,
    provider: Any = "p",
    model: Any = "m",
    stop: Any = "stop",
    ms: Any = MS,
    stamp: Any = T0,
    **fields: Any,
) -> dict[str, Any]:
    """An assistant message of one text block (``usage=None``: :data:`USAGE`)."""
    body: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "usage": USAGE if usage is None else usage,
        "provider": provider,
        "model": model,
        "stopReason": stop,
    }
    if ms is not None:
        body["timestamp"] = ms
    return message(entry_id, parent, body, stamp=stamp, **fields)


def tool_pair(
    parent: str,
    name: Any,
    args: Any,
    result: Any,
    *,
    ids: tuple[str, str, str] = ("tc", "call1", "tr"),
    ms: tuple[int, int] = (MS, MS),
    **call: Any,
) -> list[dict[str, Any]]:
    """A tool call and its result (``ids``: the call's entry, the call, the result's
    entry; ``call``: the calling message's :func:`assistant` fields)."""
    asked = assistant(ids[0], parent, ms=ms[0], **call)
    asked["message"]["content"] = [
        {"type": "toolCall", "id": ids[1], "name": name, "arguments": args}
    ]
    asked["message"]["stopReason"] = "toolUse"
    body = {
        "role": "toolResult",
        "toolCallId": ids[1],
        "toolName": name,
        "content": [{"type": "text", "text": result}],
        "isError": False,
        "timestamp": ms[1],
    }
    return [asked, message(ids[2], ids[0], body)]


def compaction(
    entry_id: Any, parent: Any, kept: Any, *, stamp: Any = None, **fields: Any
) -> dict[str, Any]:
    """A compaction entry keeping from ``kept`` (``stamp=None``: without a timestamp)."""
    entry = {"type": "compaction", "id": entry_id, "parentId": parent}
    if stamp is not None:
        entry["timestamp"] = stamp
    return {**entry, "summary": "s", "firstKeptEntryId": kept, "tokensBefore": 5, **fields}


def lines(*entries: Any, ensure_ascii: bool = True) -> bytes:
    """The file's bytes: each entry a line (bytes as they are)."""
    return b"".join(
        (e if isinstance(e, bytes) else json.dumps(e, ensure_ascii=ensure_ascii).encode()) + b"\n"
        for e in entries
    )
