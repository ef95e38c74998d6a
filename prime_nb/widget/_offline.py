"""What the widget's saved state holds so that its JavaScript can answer without a kernel.

A saved notebook keeps every widget's synced traits. When a page later runs the widget's
JavaScript with no kernel behind it (an HTML export of the notebook, a notebook reopened
with its widget state), the requests for texts go unanswered. ``js/src/io/offline.ts``
answers them from this instead: the first line of each entry and its tool name, and the
time origin. It is bounded: lines are cut to :data:`LINE_CHARS` and only the first rows,
up to :data:`MAX_CHARS` characters in all, are kept; ``kept`` says how many (``n`` is the
session's size), and the JS says so for the others. Full entries and contexts are never
embedded: they need the kernel.
"""

from __future__ import annotations

from typing import Any

from ..session import one_line
from ._data import SessionData, _strings

LINE_CHARS = 120
MAX_CHARS = 250_000
MAX_ROWS = 5_000


def offline_data(
    data: SessionData, *, max_chars: int = MAX_CHARS, max_rows: int = MAX_ROWS
) -> dict[str, Any]:
    """``{"n", "kept", "origin", "lines", "tools"}`` for the first rows within the limits."""
    entries = data.session.entries
    node_lines = data.node_lines
    tools = _strings(entries["tool_name"])
    lines: list[str] = []
    tool_rows: list[list[Any]] = []
    total = 0
    for row in range(min(data.n, max_rows)):
        line = one_line(node_lines[row], LINE_CHARS)
        tool = tools[row]
        cost = len(line) + (len(tool) if tool else 0) + 4
        if total + cost > max_chars:
            break
        total += cost
        lines.append(line)
        if tool:
            tool_rows.append([row, one_line(tool, LINE_CHARS)])
    return {
        "n": data.n,
        "kept": len(lines),
        "origin": data.origin.isoformat() if data.origin is not None else None,
        "lines": lines,
        "tools": tool_rows,
    }
