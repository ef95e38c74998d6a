"""Side tables of the entries the agent records for bookkeeping, read on first access.

Git states, child usage, bash runs, ``custom`` entries, branch summaries, session states
and agent statuses are few in a session, and most of their fields are nowhere in the
per-entry columns. So the loader's hot path does not extract them: their rows are found
by type in the columns, and their whole entries are read back from disk (by byte offset)
the first time a table asks for them.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._columns import EntryColumns, usage_tuple
from ._lookups import ReadRows, rows_of_type
from ._tables import _times
from ._tree import Tree


def _common(cols: EntryColumns, tree: Tree, row: int) -> dict[str, Any]:
    parent = tree.parent[row]
    return {
        "id": cols.ids[row],
        "parent_id": cols.ids[parent] if parent >= 0 else None,
        "line": cols.lines[row],
        "timestamp": cols.time_ms[row],
    }


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["id", "parent_id", "line", "timestamp", *columns])
    frame["line"] = frame["line"].astype("int64")
    frame["timestamp"] = _times(frame["timestamp"].astype("float64").tolist())
    return frame.set_index("id")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


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
    frame["timestamp"] = _times(frame["timestamp"].astype("float64").tolist())
    return frame.set_index("id")


def git_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``git_state`` entry: repository, commit and branch."""
    rows = rows_of_type(cols, "git_state")
    out = []
    for row, entry in zip(rows, read_rows(rows), strict=True):
        git = entry.get("git")
        git = git if isinstance(git, dict) else {}
        out.append(
            {
                **_common(cols, tree, row),
                "repository": _text(git.get("repoUrl")),
                "commit": _text(git.get("commit")),
                "branch": _text(git.get("branch")),
                "git": entry.get("git"),
            }
        )
    return _frame(out, ["repository", "commit", "branch", "git"])


def child_usage_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``child_usage_attributed`` entry: the child runs' usage, the aggregate
    the target assistant message carries from then on, and where the children came from."""
    rows = rows_of_type(cols, "child_usage_attributed")
    out = []
    for row, entry in zip(rows, read_rows(rows), strict=True):
        child = entry.get("childUsage")
        aggregate = entry.get("aggregateUsage")
        child_t = usage_tuple(child) if isinstance(child, dict) else None
        total_t = usage_tuple(aggregate) if isinstance(aggregate, dict) else None
        out.append(
            {
                **_common(cols, tree, row),
                "target_id": _text(entry.get("targetId")),
                "origin": _text(entry.get("origin")),
                "child_tokens": child_t[4] if child_t else None,
                "child_cost": child_t[5] if child_t else None,
                "aggregate_tokens": total_t[4] if total_t else None,
                "aggregate_cost": total_t[5] if total_t else None,
                "child_usage": child,
                "aggregate_usage": aggregate,
            }
        )
    frame = _frame(
        out,
        [
            "target_id",
            "origin",
            "child_tokens",
            "child_cost",
            "aggregate_tokens",
            "aggregate_cost",
            "child_usage",
            "aggregate_usage",
        ],
    )
    for column in ("child_tokens", "aggregate_tokens"):
        frame[column] = frame[column].astype("Int64")
    for column in ("child_cost", "aggregate_cost"):
        frame[column] = frame[column].astype("float64")
    return frame


def _flag(value: Any) -> bool:
    return value is True


def bash_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``bashExecution`` message: command, exit code, and the flags the
    agent records (``excludeFromContext``: run with ``!!``, kept out of the model's view)."""
    rows = [row for row, role in enumerate(cols.roles) if role == "bashExecution"]
    out = []
    for row, entry in zip(rows, read_rows(rows), strict=True):
        message = entry.get("message")
        message = message if isinstance(message, dict) else {}
        code = message.get("exitCode")
        out.append(
            {
                **_common(cols, tree, row),
                "command": _text(message.get("command")),
                "exit_code": code if isinstance(code, int) and not isinstance(code, bool) else None,
                "cancelled": _flag(message.get("cancelled")),
                "truncated": _flag(message.get("truncated")),
                "exclude_from_context": _flag(message.get("excludeFromContext")),
                "full_output_path": _text(message.get("fullOutputPath")),
            }
        )
    frame = _frame(
        out,
        [
            "command",
            "exit_code",
            "cancelled",
            "truncated",
            "exclude_from_context",
            "full_output_path",
        ],
    )
    frame["exit_code"] = frame["exit_code"].astype("Int64")
    for column in ("cancelled", "truncated", "exclude_from_context"):
        frame[column] = frame[column].astype(bool)
    return frame


def custom_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``custom`` entry (an extension's state): its type and ``data``."""
    rows = rows_of_type(cols, "custom")
    out = [
        {
            **_common(cols, tree, row),
            "custom_type": _text(entry.get("customType")),
            "data": entry.get("data"),
        }
        for row, entry in zip(rows, read_rows(rows), strict=True)
    ]
    return _frame(out, ["custom_type", "data"])


def branch_summary_table(cols: EntryColumns, tree: Tree, read_rows: ReadRows) -> pd.DataFrame:
    """One row per ``branch_summary`` entry, with ``from_hook`` (an extension wrote it)."""
    rows = rows_of_type(cols, "branch_summary")
    out = [
        {
            **_common(cols, tree, row),
            "from_id": _text(entry.get("fromId")),
            "summary": entry.get("summary"),
            "details": entry.get("details"),
            "from_hook": _flag(entry.get("fromHook")),
        }
        for row, entry in zip(rows, read_rows(rows), strict=True)
    ]
    frame = _frame(out, ["from_id", "summary", "details", "from_hook"])
    frame["from_hook"] = frame["from_hook"].astype(bool)
    return frame
