"""Write one branch of a loaded session to a new v3 session file, as the agent's own fork does.

Why among the writers: what goes into the fork comes from the loaded tree (the path to
the leaf, the labels in force), which the Session reads and hands here as plain values
(``Session.fork_to_file``); writing the new file whole is a writer's work (the
serialiser in the source's dialect, the create-whole-or-not-at-all helper). So the
session layer calls down into this one, and this one needs nothing of it.
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from ..errors import InvalidEntryError
from ..format import (
    CURRENT_VERSION,
    Snapshot,
    dialect_of_header,
    iso_timestamp,
    iter_entries,
    ms_timestamp,
    scan,
)
from ._appending import io_error, normalise
from ._building import Entry, new_id, now_ms, rlm_depth, serialise
from ._upgrade import PathLike, write_new_file

__all__ = ["write_fork"]


def _new_header(raw: dict[str, Any], cwd: Any, source: Path) -> dict[str, Any]:
    """A v3 header in the source's dialect, naming the source as ``parentSession``.

    It carries ``rlmDepth`` (the source's, as the agent's own fork does): a header with
    ``parentSession`` but no valid ``rlmDepth`` is rewritten by the agent when it opens it.
    """
    session_id = str(uuid.uuid4())
    depth = rlm_depth(raw, source)
    stamp = iso_timestamp(now_ms())
    if dialect_of_header(raw) == "spec":
        key = "sessionId" if "sessionId" in raw and "id" not in raw else "id"
        return {
            "type": "header",
            "version": CURRENT_VERSION,
            key: session_id,
            "timestamp": ms_timestamp(stamp),
            "workingDir": cwd,
            "parentSession": str(source),
            "rlmDepth": depth,
        }
    return {
        "type": "session",
        "version": CURRENT_VERSION,
        "id": session_id,
        "timestamp": stamp,
        "cwd": cwd,
        "parentSession": str(source),
        "rlmDepth": depth,
    }


def _default_name(header: dict[str, Any]) -> str:
    """``<iso time with : and . as ->_<session id>.jsonl``, as the agent names files."""
    stamp = iso_timestamp(now_ms()).replace(":", "-").replace(".", "-")
    return f"{stamp}_{header.get('id') or header.get('sessionId')}.jsonl"


def _without_labels(path: list[Entry]) -> list[Entry]:
    """The path minus its label entries, each entry's parent the one before it, as the
    agent forks (a compaction that kept from a label keeps from the entry after it)."""
    out: list[Entry] = []
    after_label: dict[str, str] = {}
    waiting: list[str] = []
    parent: str | None = None
    for entry in path:
        if entry.get("type") == "label":
            waiting.append(entry["id"])
            continue
        for label_id in waiting:
            after_label[label_id] = entry["id"]
        waiting.clear()
        entry = {**entry, "parentId": parent}
        kept = entry.get("firstKeptEntryId")
        if entry.get("type") == "compaction" and isinstance(kept, str):
            entry["firstKeptEntryId"] = after_label.get(kept, kept)
        out.append(entry)
        parent = entry["id"]
    return out


def write_fork(
    file: PathLike,
    cwd: Any,
    path: list[Entry],
    labels: Sequence[tuple[str, str, Any]],
    dest: PathLike | None = None,
) -> Path:
    """Write a branch of a loaded session to a new v3 session file, as the agent forks
    (:func:`prime_nb.fork_to_file` says what the new file holds); returns its path.

    ``path`` is the branch's entries root -> leaf as read from ``file`` (``cwd`` its
    header's), assistant messages carrying their child agents' aggregated usage;
    ``labels`` the labels in force as (target id, label, time set), first set first.
    """
    source = normalise(file)
    if not path:
        raise InvalidEntryError(source, "the session has no entries, so nothing to fork")
    entries = _without_labels(path)
    first = next(iter_entries(source)).entry
    # a source without a header (the tail of a session) forks as the agent's dialect
    raw_header = first if first["type"] in ("session", "header") else {}
    header = _new_header(raw_header, cwd, source)

    target = Snapshot(source, (0, 0))
    if raw_header:
        target.consume(scan(source))  # the spellings the source uses, for the spec dialect
    target.header = header
    kept = {entry["id"] for entry in entries}
    parent = entries[-1]["id"] if entries else None
    # in the order the agent keeps its labels (first set first), each with its own time
    for entry_id, label_text, set_at in labels:
        if entry_id in kept:
            label: Entry = {
                "type": "label",
                "id": new_id(kept.__contains__),
                "parentId": parent,
                "timestamp": set_at,
                "targetId": entry_id,
                "label": label_text,
            }
            kept.add(label["id"])
            entries.append(label)
            parent = label["id"]
    lines = [orjson.dumps(header) + b"\n"]
    lines.extend(serialise(entry, target) for entry in entries)

    if dest is None:
        out = source.parent / _default_name(header)
    else:
        out = normalise(dest)
        if out.is_dir():
            out = out / _default_name(header)
    try:
        write_new_file(out, lines, stat.S_IMODE(os.stat(source).st_mode))
    except FileExistsError:
        raise
    except OSError as exc:
        raise io_error(out, exc, "could not write the forked session", "Nothing written") from exc
    return out
