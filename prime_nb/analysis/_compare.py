"""Side-by-side comparison of two branches from the point where they diverged.

When a user rewinds and retries, the question is "what did the second attempt do
differently, and was it cheaper?": tools called, spend and files touched per turn, and how
the two final answers differ.
"""

from __future__ import annotations

import difflib
import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..session import SessionLike, as_session, message_text
from ._common import relative_path, tool_path
from ._schemas import conform

if TYPE_CHECKING:
    from ..session import Session

SIDE_COLUMNS = ["entry_id", "tools", "tokens", "cost", "files", "text"]


@dataclass
class Comparison:
    """The result of :func:`compare`; shows itself as the side-by-side table and the diff."""

    ancestor_id: str | None
    leaf_a: str
    leaf_b: str
    frame: pd.DataFrame
    totals: pd.DataFrame
    final_a: str
    final_b: str
    diff: str = field(repr=False)

    def _repr_html_(self) -> str:
        return (
            f"<p>Branches <code>{html.escape(self.leaf_a)}</code> (a) and "
            f"<code>{html.escape(self.leaf_b)}</code> (b) from common ancestor "
            f"<code>{html.escape(str(self.ancestor_id))}</code></p>"
            + self.totals.to_html()
            + self.frame.to_html()
            + f"<pre>{html.escape(self.diff) or '(final assistant messages are identical)'}</pre>"
        )


def common_ancestor(session: SessionLike, leaf_a: str, leaf_b: str) -> str | None:
    """The deepest entry on both paths (None when they share no root)."""
    session = as_session(session, "analysis.common_ancestor")
    ancestor = None
    for a, b in zip(session.path(leaf_a), session.path(leaf_b), strict=False):
        if a != b:
            break
        ancestor = a
    return ancestor


def _turns(session: Session, ids: list[str], cwd: str | None) -> list[dict[str, Any]]:
    entries = session.entries
    calls = session.tool_calls
    wanted = set(ids)
    by_assistant: dict[str, list[tuple[str, str | None]]] = {}
    for assistant_id, name, arguments in zip(
        calls["assistant_id"], calls["name"], calls["arguments"], strict=True
    ):
        if assistant_id in wanted:
            target = tool_path(arguments)
            by_assistant.setdefault(assistant_id, []).append(
                (str(name), relative_path(target, cwd) if target else None)
            )
    turns = []
    for entry_id in ids:
        row = entries.loc[entry_id]
        if row["role"] != "assistant":
            continue
        made = by_assistant.get(entry_id, [])
        tokens = row["total_tokens"]
        cost = row["cost"]
        turns.append(
            {
                "entry_id": entry_id,
                "tools": ", ".join(name for name, _ in made),
                "tokens": 0 if pd.isna(tokens) else int(tokens),
                "cost": 0.0 if pd.isna(cost) else float(cost),
                "files": sorted({f for _, f in made if f}),
                "text": row["text"] if isinstance(row["text"], str) else "",
            }
        )
    return turns


def _final_text(session: Session, ids: list[str]) -> str:
    roles = session.entries["role"]
    for entry_id in reversed(ids):
        if roles.at[entry_id] == "assistant":
            message = session.entry(entry_id).get("message")
            return message_text(message) if isinstance(message, dict) else ""
    return ""


def compare(session: SessionLike, leaf_a: str, leaf_b: str) -> Comparison:
    """Align the branches ending at ``leaf_a`` and ``leaf_b`` from their common ancestor.

    ``frame`` has one row per assistant turn after the ancestor (turn 1 of a beside turn 1
    of b) with each side's tools, tokens, cost, files touched and text preview; ``totals``
    sums each side; ``diff`` is a unified diff of their last assistant messages.
    """
    session = as_session(session, "analysis.compare")
    path_a, path_b = session.path(leaf_a), session.path(leaf_b)
    ancestor = common_ancestor(session, leaf_a, leaf_b)
    shared = path_a.index(ancestor) + 1 if ancestor is not None else 0
    rest_a, rest_b = path_a[shared:], path_b[shared:]
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    turns_a, turns_b = _turns(session, rest_a, cwd), _turns(session, rest_b, cwd)
    length = max(len(turns_a), len(turns_b))
    empty: dict[str, Any] = {
        "entry_id": None,
        "tools": None,
        "tokens": None,
        "cost": None,
        "files": None,
        "text": None,
    }
    rows = []
    for k in range(length):
        a = turns_a[k] if k < len(turns_a) else empty
        b = turns_b[k] if k < len(turns_b) else empty
        rows.append(
            {**{f"a_{c}": a[c] for c in SIDE_COLUMNS}, **{f"b_{c}": b[c] for c in SIDE_COLUMNS}}
        )
    frame = pd.DataFrame(
        rows,
        columns=[f"{side}_{c}" for c in SIDE_COLUMNS for side in ("a", "b")],
        index=pd.RangeIndex(1, length + 1, name="turn"),
    )
    frame = conform(frame, "compare")

    def totals(ids: list[str], turns: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "entries": len(ids),
            "assistant_turns": len(turns),
            "tool_calls": sum(len(t["tools"].split(", ")) for t in turns if t["tools"]),
            "tokens": sum(t["tokens"] for t in turns),
            "cost": sum(t["cost"] for t in turns),
            "files_touched": sorted({f for t in turns for f in t["files"]}),
            "leaf_id": ids[-1] if ids else None,
        }

    final_a, final_b = _final_text(session, rest_a), _final_text(session, rest_b)
    diff = "\n".join(
        difflib.unified_diff(
            final_a.splitlines(),
            final_b.splitlines(),
            fromfile=f"a ({leaf_a})",
            tofile=f"b ({leaf_b})",
            lineterm="",
        )
    )
    return Comparison(
        ancestor_id=ancestor,
        leaf_a=leaf_a,
        leaf_b=leaf_b,
        frame=frame,
        totals=pd.DataFrame({"a": totals(rest_a, turns_a), "b": totals(rest_b, turns_b)}),
        final_a=final_a,
        final_b=final_b,
        diff=diff,
    )
