"""Side tables of the entries the agent records for bookkeeping, read on first access.

Git states, child usage, bash runs, ``custom`` entries and branch summaries are few in a
session, and most of their fields are nowhere in the per-entry columns: the loader does
not extract them, and their entries are read back from disk when a table asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ._columns import EntryColumns, usage_tuple
from ._lookups import ReadRows, rows_of_type
from ._schema import dtype_of
from ._tables import str_or_none, utc_times
from ._tree import Tree


def _common(cols: EntryColumns, tree: Tree, row: int) -> dict[str, Any]:
    parent = tree.parent[row]
    return {
        "id": cols.ids[row],
        "parent_id": cols.ids[parent] if parent >= 0 else None,
        "line": cols.lines[row],
        "timestamp": cols.time_ms[row],
    }


def _table(
    cols: EntryColumns,
    tree: Tree,
    read_rows: ReadRows,
    rows: list[int],
    fields: Callable[[dict[str, Any]], dict[str, Any]],
    dtypes: dict[str, str | None],
) -> pd.DataFrame:
    """One row per row of ``rows``: id, parent, line and time, then ``fields`` of its
    entry (read from disk); ``dtypes`` lists those columns, with the dtype each is cast
    to (None: as pandas reads it)."""
    out = [
        {**_common(cols, tree, row), **fields(entry)}
        for row, entry in zip(rows, read_rows(rows), strict=True)
    ]
    frame = pd.DataFrame(out, columns=["id", "parent_id", "line", "timestamp", *dtypes])
    frame["line"] = frame["line"].astype("int64")
    frame["timestamp"] = utc_times(frame["timestamp"].astype("float64").tolist())
    for column, dtype in dtypes.items():
        if dtype is not None:
            frame[column] = frame[column].astype(dtype_of(dtype))
    return frame.set_index("id")


def label_table(cols: EntryColumns, labels: dict[int, str]) -> pd.DataFrame:
    """One row per label in force: the target, the label, and when the label was set
    (the timestamp of the label entry that set it, as the agent's labelTimestamps)."""
    set_by: dict[int, int] = {}
    for row, target, label in cols.label_events:
        target_row = cols.index_of.get(target) if target is not None else None
        if target_row is not None and label is not None:
            set_by[target_row] = row
    rows = [
        {
            "id": cols.ids[target],
            "label": label,
            "label_entry_id": cols.ids[set_by[target]],
            "timestamp": cols.time_ms[set_by[target]],
        }
        for target, label in labels.items()
    ]
    frame = pd.DataFrame(rows, columns=["id", "label", "label_entry_id", "timestamp"])
    frame["timestamp"] = utc_times(frame["timestamp"].astype("float64").tolist())
    return frame.set_index("id")


def git_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``git_state`` entry: repository, commit and branch."""

    def fields(entry: dict[str, Any]) -> dict[str, Any]:
        git = entry.get("git")
        found = git if isinstance(git, dict) else {}
        return {
            "repository": str_or_none(found.get("repoUrl")),
            "commit": str_or_none(found.get("commit")),
            "branch": str_or_none(found.get("branch")),
            "git": git,
        }

    dtypes = dict.fromkeys(["repository", "commit", "branch", "git"])
    return _table(cols, tree, read_rows, rows_of_type(cols, "git_state"), fields, dtypes)


def child_usage_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``child_usage_attributed`` entry: the child runs' usage, the aggregate
    the target assistant message carries from then on, and where the children came from."""

    def fields(entry: dict[str, Any]) -> dict[str, Any]:
        child, aggregate = entry.get("childUsage"), entry.get("aggregateUsage")
        child_t = usage_tuple(child) if isinstance(child, dict) else None
        total_t = usage_tuple(aggregate) if isinstance(aggregate, dict) else None
        return {
            "target_id": str_or_none(entry.get("targetId")),
            "origin": str_or_none(entry.get("origin")),
            "child_tokens": child_t[4] if child_t else None,
            "child_cost": child_t[5] if child_t else None,
            "aggregate_tokens": total_t[4] if total_t else None,
            "aggregate_cost": total_t[5] if total_t else None,
            "child_usage": child,
            "aggregate_usage": aggregate,
        }

    dtypes = {
        "target_id": None,
        "origin": None,
        "child_tokens": "Int64",
        "child_cost": "float64",
        "aggregate_tokens": "Int64",
        "aggregate_cost": "float64",
        "child_usage": None,
        "aggregate_usage": None,
    }
    rows = rows_of_type(cols, "child_usage_attributed")
    return _table(cols, tree, read_rows, rows, fields, dtypes)


def bash_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``bashExecution`` message: command, exit code, and the flags the
    agent records (``excludeFromContext``: run with ``!!``, kept out of the model's view)."""

    def fields(entry: dict[str, Any]) -> dict[str, Any]:
        message = entry.get("message")
        message = message if isinstance(message, dict) else {}
        code = message.get("exitCode")
        return {
            "command": str_or_none(message.get("command")),
            "exit_code": code if isinstance(code, int) and not isinstance(code, bool) else None,
            "cancelled": message.get("cancelled") is True,
            "truncated": message.get("truncated") is True,
            "exclude_from_context": message.get("excludeFromContext") is True,
            "full_output_path": str_or_none(message.get("fullOutputPath")),
        }

    dtypes = {
        "command": None,
        "exit_code": "Int64",
        "cancelled": "bool",
        "truncated": "bool",
        "exclude_from_context": "bool",
        "full_output_path": None,
    }
    rows = [row for row, role in enumerate(cols.roles) if role == "bashExecution"]
    return _table(cols, tree, read_rows, rows, fields, dtypes)


def custom_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``custom`` entry (an extension's state): its type and ``data``."""

    def fields(entry: dict[str, Any]) -> dict[str, Any]:
        return {"custom_type": str_or_none(entry.get("customType")), "data": entry.get("data")}

    dtypes = dict.fromkeys(["custom_type", "data"])
    return _table(cols, tree, read_rows, rows_of_type(cols, "custom"), fields, dtypes)


def branch_summary_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``branch_summary`` entry, with ``from_hook`` (an extension wrote it)."""

    def fields(entry: dict[str, Any]) -> dict[str, Any]:
        return {
            "from_id": str_or_none(entry.get("fromId")),
            "summary": entry.get("summary"),
            "details": entry.get("details"),
            "from_hook": entry.get("fromHook") is True,
        }

    dtypes: dict[str, str | None] = {
        "from_id": None,
        "summary": None,
        "details": None,
        "from_hook": "bool",
    }
    return _table(cols, tree, read_rows, rows_of_type(cols, "branch_summary"), fields, dtypes)
