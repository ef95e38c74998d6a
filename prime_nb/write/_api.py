"""Append forks, summaries, compactions, labels and names to a session file.

Each function checks its input against the file as it is on disk now (under a lock,
while the agent may be appending too), writes each new entry as one whole line in the
file's own dialect, and returns the new ids. Nothing already in the file changes.
``fsync=False`` skips the flush to disk: faster, but a power cut may lose the entry.

``upgrade_file`` (rewrite a version 1 or 2 file as version 3, keeping a backup) lives in
``_upgrade``; ``fork_to_file`` needs the loaded tree, so it lives in ``prime_nb.session``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InvalidEntryError
from ..format import Snapshot, js_trim
from ._appending import append_entries
from ._building import (
    Entry,
    check_count,
    check_message,
    check_string,
    new_entry,
    require_ids,
)

PathLike = str | os.PathLike[str]


def _taken(snap: Snapshot, chosen: Iterable[Entry] = ()) -> Any:
    ids = {entry["id"] for entry in chosen}
    return lambda candidate: candidate in snap or candidate in ids


def append_message(
    path: PathLike, parent_id: str | None, message: Mapping[str, Any], *, fsync: bool = True
) -> str:
    """Append ``message`` as a child of ``parent_id``; a parent with children makes a fork.

    The new entry becomes the active leaf: the branch the agent resumes.
    """

    def build(snap: Snapshot) -> list[Entry]:
        require_ids(snap)
        entry = new_entry("message", parent_id, _taken(snap))
        entry["message"] = check_message(path, message)
        return [entry]

    return append_entries(path, build, fsync=fsync)[0]


#: the ``customType`` of the entry ``keep_leaf=True`` writes: the agent keeps custom
#: entries as extension state, out of the model's context and of its tree view's default
KEEP_LEAF_TYPE = "prime_nb.keep_leaf"


def append_fork(
    path: PathLike,
    from_id: str,
    messages: Iterable[Mapping[str, Any]],
    *,
    keep_leaf: bool = False,
    fsync: bool = True,
) -> list[str]:
    """Append a chain of messages starting at ``from_id``; returns their ids in order.

    A message's ``content`` may be a string (an assistant's is stored as one text block,
    as the agent stores it). Like any append, the fork ends the file, so it becomes the
    active leaf: the branch the agent resumes. ``keep_leaf=True`` keeps the leaf where
    it was: in the same write, after the fork, a ``custom`` entry (``customType``
    ``"prime_nb.keep_leaf"``, which adds nothing to the model's context) hangs from the
    entry that ended the file before, so the agent resumes from there as if nothing
    had been appended. (``fork_to_file`` writes a branch to a new file instead.)
    """
    if isinstance(messages, Mapping | str | bytes):
        raise InvalidEntryError(path, "messages must be a list of message dicts")
    items = list(messages)
    if not items:
        raise InvalidEntryError(path, "messages is empty: a fork needs at least one message")

    def build(snap: Snapshot) -> list[Entry]:
        require_ids(snap)
        chain: list[Entry] = []
        parent: str | None = from_id
        for message in items:
            entry = new_entry("message", parent, _taken(snap, chain))
            entry["message"] = check_message(path, message)
            chain.append(entry)
            parent = entry["id"]
        if keep_leaf and snap.last_id is not None:
            marker = new_entry("custom", snap.last_id, _taken(snap, chain))
            marker["customType"] = KEEP_LEAF_TYPE
            marker["data"] = {"fork": chain[0]["id"]}
            chain.append(marker)
        return chain

    written = append_entries(path, build, fsync=fsync)
    return written[: len(items)]


def append_branch_summary(
    path: PathLike,
    parent_id: str | None,
    summary: str,
    from_id: str | None = None,
    details: Any = None,
    *,
    fsync: bool = True,
) -> str:
    """Append a summary of an abandoned branch under ``parent_id``, where work goes on.

    ``from_id`` is the entry the abandoned branch ended at; by default ``parent_id``
    (``"root"`` for a new root), as the agent writes it.
    """
    check_string(path, "summary", summary)

    def build(snap: Snapshot) -> list[Entry]:
        require_ids(snap)
        entry = new_entry("branch_summary", parent_id, _taken(snap))
        entry["fromId"] = from_id if from_id is not None else (parent_id or "root")
        entry["summary"] = summary
        if details is not None:
            entry["details"] = details
        return [entry]

    return append_entries(path, build, fsync=fsync)[0]


def append_compaction(
    path: PathLike,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int,
    parent_id: str | None = None,
    details: Any = None,
    tokens_after: int | None = None,
    *,
    fsync: bool = True,
) -> str:
    """Append a compaction: from here on the model sees ``summary`` instead of the path
    before ``first_kept_entry_id`` (which must be on the path to the parent).

    The parent defaults to the active leaf (the last entry in the file).
    """
    check_string(path, "summary", summary)
    before = check_count(path, "tokens_before", tokens_before)
    after = None if tokens_after is None else check_count(path, "tokens_after", tokens_after)

    def build(snap: Snapshot) -> list[Entry]:
        require_ids(snap)
        parent = parent_id if parent_id is not None else snap.last_id
        entry = new_entry("compaction", parent, _taken(snap))
        entry["summary"] = summary
        entry["firstKeptEntryId"] = first_kept_entry_id
        entry["tokensBefore"] = before
        if after is not None:
            entry["tokensAfter"] = after
        if details is not None:
            entry["details"] = details
        return [entry]

    return append_entries(path, build, fsync=fsync)[0]


def append_label(path: PathLike, target_id: str, label: str | None, *, fsync: bool = True) -> str:
    """Label an entry (``None`` or ``""`` clears its label); returns the label entry's id.

    Like the agent, the label entry hangs from the active leaf.
    """
    if label is not None:
        check_string(path, "label", label)

    def build(snap: Snapshot) -> list[Entry]:
        require_ids(snap)
        entry = new_entry("label", snap.last_id, _taken(snap))
        entry["targetId"] = target_id
        if label:
            entry["label"] = label
        return [entry]

    return append_entries(path, build, fsync=fsync)[0]


def append_session_name(path: PathLike, name: str, *, fsync: bool = True) -> str:
    """Name the session (the latest name wins); returns the new entry's id.

    The name is written trimmed, as the agent writes it (and reads it back).
    """
    check_string(path, "name", name)
    name = js_trim(name)
    if not name:
        raise InvalidEntryError(path, "a session name must not be empty")

    def build(snap: Snapshot) -> list[Entry]:
        require_ids(snap)
        entry = new_entry("session_info", snap.last_id, _taken(snap))
        entry["name"] = name
        return [entry]

    return append_entries(path, build, fsync=fsync)[0]
