"""Fork one branch of a loaded session to a new v3 session file, as the agent's own fork does.

Why here, above the writers: choosing what goes into the fork needs the loaded tree (the
path to the leaf, the labels in force), which is the Session's; writing the new file
whole uses the write layer's serialiser and its create-whole-or-not-at-all helper.
"""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import InvalidEntryError
from ..format import _ondisk as ondisk
from ..format._dialect import dialect_of_header, iso_timestamp, ms_timestamp
from ..format._migrating import CURRENT_VERSION
from ..format._reading import iter_entries, scan
from ..write._appending import io_error, normalise
from ..write._building import Entry, new_id, now_ms, rlm_depth, serialise
from ..write._upgrade import PathLike, write_new_file
from ._context import clone_usage

if TYPE_CHECKING:
    from ._session import Session

__all__ = ["fork_session"]


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


def _with_child_usage(session: Session, entries: list[Entry]) -> list[Entry]:
    """Assistant messages that child-usage entries target carry the aggregated usage, as
    in the agent's fork (its loader put the aggregate in the message before it forked):
    the attribution entry itself is rarely on the branch."""
    targets = session._child_usage_targets
    if not targets:
        return entries
    rows = [session._row(entry["id"]) for entry in entries]
    sources = session._read_rows([targets[row] for row in rows if row in targets])
    by_target = {
        row: source.get("aggregateUsage")
        for row, source in zip([r for r in rows if r in targets], sources, strict=True)
    }
    out = []
    for row, entry in zip(rows, entries, strict=True):
        aggregate = by_target.get(row)
        if isinstance(aggregate, dict) and isinstance(entry.get("message"), dict):
            entry = {**entry, "message": {**entry["message"], "usage": clone_usage(aggregate)}}
        out.append(entry)
    return out


def fork_session(
    session: Session, leaf_id: str | None = None, dest: PathLike | None = None
) -> Path:
    """Write the branch root -> ``leaf_id`` of a loaded session to a new v3 session file,
    as the agent forks (see :func:`prime_nb.fork_to_file`).

    The new file holds the entries on that path (label entries dropped, the others
    chained anew), then one label entry per label in force on the path, with the time
    that label was set, and its header names the source as ``parentSession`` and
    carries its ``rlmDepth``: the agent opens it as it is. ``dest`` defaults to the agent's
    naming in the source's folder (a folder as ``dest`` gets that name too). Returns
    the new file's path.
    """
    source = normalise(session.file)
    leaf = leaf_id if leaf_id is not None else session.leaf_id
    if leaf is None:
        raise InvalidEntryError(source, "the session has no entries, so nothing to fork")
    ids = session.path(leaf)
    entries = _without_labels(_with_child_usage(session, session.read_entries(ids)))
    labels = session.label_table
    set_at = {row["id"]: row for row in session.read_entries(list(labels["label_entry_id"]))}
    raw_header = next(iter_entries(source)).entry
    header = _new_header(raw_header, session.header.get("cwd"), source)

    target = ondisk.Snapshot(source, (0, 0))
    target.consume(scan(source))  # the spellings the source uses, for the spec dialect
    target.header = header
    kept = {entry["id"] for entry in entries}
    parent = entries[-1]["id"] if entries else None
    # in the order the agent keeps its labels (first set first), each with its own time
    for entry_id, label_text, label_entry_id in zip(
        labels.index, labels["label"], labels["label_entry_id"], strict=True
    ):
        if entry_id in kept:
            label: Entry = {
                "type": "label",
                "id": new_id(kept.__contains__),
                "parentId": parent,
                "timestamp": set_at[label_entry_id].get("timestamp"),
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
