"""New entries: built canonical, checked against the file on disk, written in its dialect.

Everything here runs before a byte is written, so bad input never reaches the file.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from ..errors import EntryNotFoundError, InvalidEntryError, UpgradeRequiredError
from ..format import (
    PRIME_TO_SPEC,
    Snapshot,
    iso_timestamp,
    iter_entries,
    loader_name_hint,
    rlm_depth_of,
    to_dialect,
)

Entry = dict[str, Any]

#: roles a stored message can have (``hookMessage`` is the pre-v3 name of ``custom``)
ROLES = ("user", "assistant", "toolResult", "bashExecution", "custom")
#: roles the agent only builds in memory, with the append function to use instead
IN_MEMORY_ROLES = {
    "branchSummary": "append_branch_summary",
    "compactionSummary": "append_compaction",
}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def new_id(taken: Callable[[str], bool]) -> str:
    """8 random hex chars, as the agent draws them, not used in the file."""
    while True:
        candidate = secrets.token_hex(4)
        if not taken(candidate):
            return candidate


def new_entry(kind: str, parent_id: str | None, taken: Callable[[str], bool]) -> Entry:
    """The common fields, in the agent's key order."""
    return {
        "type": kind,
        "id": new_id(taken),
        "parentId": parent_id,
        "timestamp": iso_timestamp(now_ms()),
    }


def require_ids(snap: Snapshot) -> None:
    """Version 1 files have no ids, so no new entry could name its parent."""
    if snap.version < 2:
        raise UpgradeRequiredError(
            snap.path,
            f"is a version {snap.version} session: its entries have no ids, so nothing can "
            f"be appended to it. Call prime_nb.upgrade_file({str(snap.path)!r}) first "
            "(it rewrites the file as version 3 and keeps the original as a backup)",
        )


def check_message(path: Any, message: Any) -> dict[str, Any]:
    """A copy of ``message`` if it can be stored as a message entry, else a clear error."""
    if (
        isinstance(message, Mapping)
        and message.get("type") == "message"
        and isinstance(message.get("message"), Mapping)
    ):
        message = message["message"]  # a whole entry, e.g. from session.entry(id)
    if not isinstance(message, Mapping):
        raise InvalidEntryError(
            path, f"a message is a dict with a 'role' (got {type(message).__name__})"
        )
    out = dict(message)
    role = out.get("role")
    if role == "hookMessage":
        role = out["role"] = "custom"
    if role in IN_MEMORY_ROLES:
        raise InvalidEntryError(
            path,
            f"role {role!r} is only built in memory by the agent, never stored; "
            f"use prime_nb.{IN_MEMORY_ROLES[role]}() instead",
        )
    if role not in ROLES:
        raise InvalidEntryError(
            path, f"message role {role!r} is not one of {', '.join(map(repr, ROLES))}"
        )
    content = out.get("content")
    if role == "assistant" and isinstance(content, str):
        # the agent's assistant content is always a list of blocks: a string is its text
        content = out["content"] = [{"type": "text", "text": content}]
    if role in ("user", "assistant", "toolResult", "custom") or content is not None:
        _check_content(path, role, content)
    needs = {"toolResult": "toolCallId", "custom": "customType", "bashExecution": "command"}
    key = needs.get(role)
    if key is not None and not isinstance(out.get(key), str):
        raise InvalidEntryError(path, f"a {role!r} message needs a string {key!r}")
    out.setdefault("timestamp", now_ms())
    return out


def _check_content(path: Any, role: str, content: Any) -> None:
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise InvalidEntryError(
            path,
            f"a {role!r} message's content must be a string or a list of blocks "
            f"(got {type(content).__name__})",
        )
    for i, block in enumerate(content):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise InvalidEntryError(
                path,
                f"content block {i} of a {role!r} message must be a dict with a string "
                "'type' ('text', 'image', 'thinking', 'toolCall')",
            )


def check_string(path: Any, what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidEntryError(path, f"{what} must be a string (got {type(value).__name__})")
    return value


def check_count(path: Any, what: str, value: Any) -> int:
    """A token count: an int (numpy ints from a DataFrame too), not a bool, not negative."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a count read from a DataFrame column with gaps is a float
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InvalidEntryError(path, f"{what} must be an integer (got {type(value).__name__})")
    number = int(value.__index__())
    if number < 0:
        raise InvalidEntryError(path, f"{what} must not be negative (got {number})")
    return number


def _missing(snap: Snapshot, entry_id: Any, role: str) -> EntryNotFoundError:
    error = EntryNotFoundError(str(entry_id), snap.path)
    error.message = (
        f"{role} {entry_id!r} is not an entry of {snap.path} as it is on disk now "
        f"({len(snap.parents)} entries with ids); nothing was written"
    )
    hint = loader_name_hint(entry_id) if isinstance(entry_id, str) else None
    if hint is not None:
        error.message += f". {hint}"
    return error


def check_refs(snap: Snapshot, entry: Entry, pending: Mapping[str, str | None]) -> None:
    """Every id the entry names must be in the file now (or earlier in the same call)."""
    known = pending.__contains__

    def check(entry_id: Any, role: str) -> None:
        if not isinstance(entry_id, str):
            raise InvalidEntryError(
                snap.path, f"{role} must be an id string (got {type(entry_id).__name__})"
            )
        if entry_id not in snap and not known(entry_id):
            raise _missing(snap, entry_id, role)

    parent = entry.get("parentId")
    if parent is not None:
        check(parent, "parent id")
    kind = entry["type"]
    if kind == "label":
        check(entry.get("targetId"), "label target id")
    elif kind == "branch_summary" and entry.get("fromId") != "root":
        check(entry.get("fromId"), "from_id")
    elif kind == "compaction":
        kept = entry.get("firstKeptEntryId")
        check(kept, "first_kept_entry_id")
        if kept not in snap.ancestors(parent, dict(pending)):
            raise InvalidEntryError(
                snap.path,
                f"first_kept_entry_id {kept!r} is not on the path from the root to the "
                f"compaction's parent {parent!r}; a compaction keeps entries of its own branch",
            )


def serialise(entry: Entry, snap: Snapshot) -> bytes:
    """One line, in the file's dialect and version, ending in a newline."""
    out = to_dialect(entry, snap.dialect)
    kind = entry["type"]
    renamed_only = out["type"] == PRIME_TO_SPEC.get(kind, kind)
    if snap.dialect == "spec" and kind != "message" and renamed_only:
        # the spec dialect has several spellings; use the one this file already uses
        out["type"] = snap.type_names.get(kind, out["type"])
    if snap.version < 3:
        message = out.get("message")
        if isinstance(message, dict) and message.get("role") == "custom":
            out["message"] = {**message, "role": "hookMessage"}
    try:
        return orjson.dumps(out, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n"
    except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
        raise InvalidEntryError(snap.path, f"the entry cannot be written as JSON: {exc}") from None


def valid_rlm_depth(value: Any) -> bool:
    """The agent's ``isValidRlmDepth`` (``format.rlm_depth_of``)."""
    return rlm_depth_of(value) is not None


def _depth_from_path(path: Path) -> int:
    """The agent's fallback: how many ``sub-<8 hex>`` folders the file sits in."""
    depth = 0
    for part in reversed(path.parent.parts):
        if not re.fullmatch(r"sub-[0-9a-f]{8}", part):
            break
        depth += 1
    return depth


def rlm_depth(header: dict[str, Any], path: Path, seen: frozenset[Path] = frozenset()) -> int:
    """The recursion depth the agent gives a session (its ``resolveSessionRlmDepth``):
    the header's ``rlmDepth`` if valid, 0 for a session with no parent, else found
    through the parent sessions' headers and the ``sub-*`` folders the file sits in."""
    depth = rlm_depth_of(header.get("rlmDepth"))
    if depth is not None:
        return depth
    parent_name = header.get("parentSession")
    if not parent_name or not isinstance(parent_name, str):
        return 0
    here = Path(os.path.abspath(path))
    by_path = _depth_from_path(here)
    if here in seen:
        return by_path
    parent = Path(os.path.abspath(here.parent / parent_name))
    try:
        first = next(iter_entries(parent), None)
    except OSError:
        first = None
    if first is None:
        return by_path
    depth = rlm_depth(first.entry, parent, seen | {here})
    return depth + 1 if by_path > 0 else depth
