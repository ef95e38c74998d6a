"""What the agent reads from its bookkeeping entries, without a table: the session's
state, its agent status, and which assistant rows carry a sub-agent's usage.

Why apart from ``_records``: reading a session (its context, the corpus's forensics)
needs these answers, and builds no table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._columns import EntryColumns

ReadRows = Callable[[Sequence[int]], list[dict[str, Any]]]

#: the agent's session states; it reads the older ``hidden`` and ``sleep`` as archived
SESSION_STATES = {"active": "active", "archived": "archived", "crash": "crash"}
SESSION_STATES.update(hidden="archived", sleep="archived")


def rows_of_type(cols: EntryColumns, kind: str) -> list[int]:
    return [row for row, value in enumerate(cols.types) if value == kind]


def child_usage_targets(cols: EntryColumns, read_rows: ReadRows) -> dict[int, int]:
    """Assistant row -> the ``child_usage_attributed`` row whose aggregate it carries (the
    last one in the file wins, as the agent applies them in file order)."""
    rows = rows_of_type(cols, "child_usage_attributed")
    out: dict[int, int] = {}
    for row, entry in zip(rows, read_rows(rows), strict=True):
        target = entry.get("targetId")
        target_row = cols.index_of.get(target) if isinstance(target, str) else None
        if target_row is not None and cols.roles[target_row] == "assistant":
            out[target_row] = row
    return out


def session_state(cols: EntryColumns, read_rows: ReadRows) -> str | None:
    """The last recognised ``session_state`` in the file, as the agent reads it."""
    rows = rows_of_type(cols, "session_state")
    for entry in reversed(read_rows(rows)):
        state = entry.get("state")
        status = state.get("status") if isinstance(state, dict) else None
        if isinstance(status, str) and status in SESSION_STATES:
            return SESSION_STATES[status]
    return None


def agent_status(
    cols: EntryColumns, read_rows: ReadRows, path: Sequence[int] | None = None
) -> dict[str, Any] | None:
    """The last ``agent_status`` in the file, as the agent's session list shows it; or,
    given a ``path`` (rows root -> leaf), the one nearest the leaf on it, as the agent
    resumes a branch with it (a sibling branch's status later in the file then does not
    count)."""
    candidates = range(len(cols)) if path is None else path
    rows = [row for row in reversed(candidates) if cols.types[row] == "agent_status"]
    if not rows:
        return None
    status = read_rows(rows[:1])[0].get("status")
    return dict(status) if isinstance(status, dict) else None
