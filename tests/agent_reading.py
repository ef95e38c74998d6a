"""The agent's reading of a session file, written out in Python from its SessionManager.

``loadEntriesFromFile`` splits the bytes on "\\n" and keeps each line ``JSON.parse``
reads (a line holding two entries glued together is dropped whole), and keeps nothing
when the first is no session header. The leaf is the last entry, and
``buildSessionContext`` walks from it to the root: the last compaction on the path
stands for what came before its ``firstKeptEntryId``. The tests compare prime_nb's
reading against this one where no ``.agent.json`` of the agent's own run exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def agent_entries(path: Path) -> list[dict[str, Any]]:
    """Header first, then the entries, as the agent's loader keeps them."""
    entries = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            value = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            continue
        entries.append(value)
    first = entries[0] if entries else {}
    if first.get("type") != "session" or not isinstance(first.get("id"), str):
        return []
    return entries


def _gives_a_message(entry: dict[str, Any]) -> bool:
    kind = entry.get("type")
    return kind in ("message", "custom_message") or (
        kind == "branch_summary" and bool(entry.get("summary"))
    )


def agent_context_ids(path: Path) -> list[str]:
    """The ids of the entries behind the messages of the agent's context at its leaf
    (the last entry), a compaction's own id standing for its summary."""
    body = [e for e in agent_entries(path) if e.get("type") != "session"]
    if not body:
        return []
    by_id = {e["id"]: e for e in body}
    chain: list[dict[str, Any]] = []
    current: dict[str, Any] | None = body[-1]
    while current is not None:
        chain.append(current)
        parent = current.get("parentId")
        current = by_id.get(parent) if parent else None
    chain.reverse()
    compactions = [i for i, e in enumerate(chain) if e.get("type") == "compaction"]
    if not compactions:
        return [e["id"] for e in chain if _gives_a_message(e)]
    at = compactions[-1]
    kept_id = chain[at].get("firstKeptEntryId")
    ids = [e["id"] for e in chain]
    start = ids.index(kept_id) if kept_id in ids[:at] else at
    kept = [e["id"] for e in chain[start:at] if _gives_a_message(e)]
    after = [e["id"] for e in chain[at + 1 :] if _gives_a_message(e)]
    return [chain[at]["id"], *kept, *after]
