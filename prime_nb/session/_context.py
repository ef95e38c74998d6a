"""Rebuild what the model saw at a leaf, exactly as the agent builds its context."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._columns import EntryColumns

CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})


class Context(list[dict[str, Any]]):
    """The messages sent to the model at one leaf, plus the settings in force there."""

    def __init__(
        self,
        messages: list[dict[str, Any]],
        *,
        leaf_id: str | None,
        provider: str | None,
        model: str | None,
        thinking_level: str,
        compaction_id: str | None,
    ) -> None:
        super().__init__(messages)
        self.leaf_id = leaf_id
        self.provider = provider
        self.model = model
        self.thinking_level = thinking_level
        self.compaction_id = compaction_id

    def __repr__(self) -> str:
        return (
            f"Context({len(self)} messages at {self.leaf_id}, model={self.provider}/{self.model}, "
            f"thinking={self.thinking_level}, compaction={self.compaction_id})"
        )


def to_context_message(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The message an entry contributes to the context, or None."""
    kind = entry.get("type")
    base = {"entry_id": entry.get("id"), "timestamp": entry.get("timestamp")}
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return None
        return {**message, "entry_id": entry.get("id")}
    if kind == "custom_message":
        return {
            "role": "custom",
            "customType": entry.get("customType"),
            "content": entry.get("content"),
            "display": entry.get("display"),
            "details": entry.get("details"),
            **base,
        }
    if kind == "branch_summary" and entry.get("summary"):
        return {
            "role": "branchSummary",
            "summary": entry["summary"],
            "fromId": entry.get("fromId"),
            **base,
        }
    if kind == "compaction":
        return {
            "role": "compactionSummary",
            "summary": entry.get("summary"),
            "tokensBefore": entry.get("tokensBefore"),
            **base,
        }
    return None


def _append(out: list[dict[str, Any]], entry: dict[str, Any]) -> None:
    message = to_context_message(entry)
    if message is None:
        return
    # spec-dialect tool calls are entries of their own; the model saw them in one turn
    if (
        entry.get("_sourceType") == "toolCall"
        and out
        and out[-1].get("role") == "assistant"
        and isinstance(out[-1].get("content", []), list)  # odd content: not merged
        and isinstance(message.get("content", []), list)
    ):
        previous = out[-1]
        previous["content"] = [*previous.get("content", []), *message.get("content", [])]
        previous.setdefault("entry_ids", [previous["entry_id"]]).append(message["entry_id"])
        return
    out.append(message)


def build_context(
    path: Sequence[int],
    cols: EntryColumns,
    read_rows: Callable[[Sequence[int]], list[dict[str, Any]]],
    header: dict[str, Any],
) -> Context:
    """Context at the last row of ``path`` (rows root -> leaf)."""
    provider = header.get("provider")
    model = header.get("modelId")
    thinking_row = -1
    compaction_pos = -1
    for pos, row in enumerate(path):
        kind = cols.types[row]
        if (kind == "model_change" or cols.roles[row] == "assistant") and cols.models[row]:
            provider, model = cols.providers[row], cols.models[row]
        elif kind == "thinking_level_change":
            thinking_row = pos
        elif kind == "compaction":
            compaction_pos = pos

    wanted: list[int] = []
    if compaction_pos >= 0:
        wanted.append(path[compaction_pos])
    first_kept_pos = compaction_pos + 1
    if compaction_pos >= 0:
        kept = next(c for c in cols.compactions if c["index"] == path[compaction_pos])
        kept_row = cols.index_of.get(kept["first_kept_entry_id"] or "")
        positions = {row: pos for pos, row in enumerate(path[:compaction_pos])}
        if kept_row is not None and kept_row in positions:
            first_kept_pos = positions[kept_row]
    elif compaction_pos < 0:
        first_kept_pos = 0
    wanted.extend(
        row
        for pos, row in enumerate(path)
        if pos >= first_kept_pos and pos != compaction_pos and cols.types[row] in CONTEXT_TYPES
    )
    if thinking_row >= 0:
        wanted.append(path[thinking_row])
    entries = dict(zip(wanted, read_rows(wanted), strict=True))

    thinking = str(header.get("thinkingLevel") or "off")
    if thinking_row >= 0:
        level = entries[path[thinking_row]].get("thinkingLevel")
        if isinstance(level, str):
            thinking = level

    messages: list[dict[str, Any]] = []
    if compaction_pos >= 0:
        _append(messages, entries[path[compaction_pos]])
    for pos, row in enumerate(path):
        if pos >= first_kept_pos and pos != compaction_pos and cols.types[row] in CONTEXT_TYPES:
            _append(messages, entries[row])
    return Context(
        messages,
        leaf_id=cols.ids[path[-1]] if path else None,
        provider=provider,
        model=model,
        thinking_level=thinking,
        compaction_id=cols.ids[path[compaction_pos]] if compaction_pos >= 0 else None,
    )
