"""One pass over parsed entries into plain column lists (no per-entry objects kept).

Full entries are never held: each row keeps its byte span so that the whole entry
can be re-read from disk when someone opens it. Columns that the tree and context
code read are kept as lists; the rest travel as one tuple per row (one append per
entry instead of twenty) and are transposed when a table is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .reading import Problem
from .text import PREVIEW_CHARS, entry_text, preview

NAN = math.nan
ERROR_STOPS = frozenset({"error", "aborted"})

#: order of the per-row tuple in ``EntryColumns.rest``
REST_FIELDS = (
    "text",
    "tool_name",
    "stop_reason",
    "is_error",
    "has_text",
    "has_thinking",
    "has_image",
    "n_tool_calls",
    "custom_type",
)
USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost",
)
Usage = tuple[int, int, int, int, int, float]


def timestamp_ms(value: Any) -> float:
    """ISO string or Unix ms to float ms; NaN when absent or unreadable."""
    if value.__class__ is str:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return NAN
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)  # the agent writes UTC
        return moment.timestamp() * 1000.0
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return NAN


def _num(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    if value.__class__ is int:
        return value  # type: ignore[no-any-return,unused-ignore]
    return int(value) if isinstance(value, float) and math.isfinite(value) else 0


def usage_tuple(usage: dict[str, Any]) -> Usage:
    inp, out = _num(usage, "input"), _num(usage, "output")
    read, write = _num(usage, "cacheRead"), _num(usage, "cacheWrite")
    total = _num(usage, "totalTokens") or inp + out + read + write
    cost = usage.get("cost")
    value = cost.get("total") if isinstance(cost, dict) else cost
    return (inp, out, read, write, total, float(value) if isinstance(value, int | float) else NAN)


def _preview_blocks(content: list[Any]) -> str:
    parts: list[str] = []
    size = 0
    for block in content:
        if block.__class__ is dict:
            kind = block.get("type")
            if kind == "text":
                value = block.get("text")
                if value.__class__ is str:
                    parts.append(value[: PREVIEW_CHARS + 1])
                    size += len(value)
            elif kind == "image":
                parts.append("[image]")
        if size > PREVIEW_CHARS:
            break
    return preview("\n".join(parts))


@dataclass
class ToolCallRow:
    call_id: str | None
    name: str | None
    arguments: Any
    index: int
    time_ms: float


@dataclass
class EntryColumns:
    """Append-only columns, one slot per entry, in file order."""

    ids: list[str] = field(default_factory=list)
    parent_ids: list[str | None] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    roles: list[str | None] = field(default_factory=list)
    time_ms: list[float] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    providers: list[str | None] = field(default_factory=list)
    models: list[str | None] = field(default_factory=list)
    usage: list[Usage | None] = field(default_factory=list)
    rest: list[tuple[Any, ...]] = field(default_factory=list)
    # sparse facts, each with the entry's row index
    compactions: list[dict[str, Any]] = field(default_factory=list)
    label_events: list[tuple[int, str | None, str | None]] = field(default_factory=list)
    names: list[tuple[int, str]] = field(default_factory=list)
    tool_calls: list[ToolCallRow] = field(default_factory=list)
    tool_results: dict[str, tuple[int, bool, float]] = field(default_factory=dict)
    #: row of each id (first occurrence wins; later duplicates are renamed)
    index_of: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def cold(self) -> dict[str, list[Any]]:
        """The per-row tuple columns, transposed (built on demand for tables)."""
        if not self.rest:
            return {name: [] for name in REST_FIELDS}
        return dict(zip(REST_FIELDS, map(list, zip(*self.rest, strict=True)), strict=True))

    def usage_columns(self) -> dict[str, list[Any]]:
        zero: Usage = (0, 0, 0, 0, 0, NAN)
        filled = [u if u is not None else zero for u in self.usage]
        if not filled:
            return {name: [] for name in USAGE_FIELDS}
        return dict(zip(USAGE_FIELDS, map(list, zip(*filled, strict=True)), strict=True))

    def add(
        self, line: int, offset: int, length: int, entry: dict[str, Any], problems: list[Problem]
    ) -> None:
        """Append one migrated, canonical entry."""
        row = len(self.ids)
        entry_id = entry.get("id")
        if entry_id.__class__ is not str or not entry_id:
            entry_id = f"L{line}"
            problems.append(Problem(line, "missing_id", f"entry has no id; named {entry_id}"))
        if entry_id in self.index_of:
            renamed = f"{entry_id}@L{line}"
            first = self.lines[self.index_of[entry_id]]
            problems.append(
                Problem(
                    line,
                    "duplicate_id",
                    f"id {entry_id} already used on line {first}; this entry is named {renamed}",
                    entry_id,
                )
            )
            entry_id = renamed
        self.index_of[entry_id] = row
        parent = entry.get("parentId")
        kind = entry["type"]
        message = entry.get("message") if kind == "message" else None
        stamp = entry.get("timestamp")
        if message.__class__ is not dict:
            message = None
        elif stamp is None:
            stamp = message.get("timestamp")
        now = timestamp_ms(stamp)

        role = tool_name = provider = model = stop = custom_type = None
        error = has_text = thinking = image = False
        calls = 0
        usage = None
        text = None
        if message is not None:
            role = message.get("role")
            content = message.get("content")
            if content.__class__ is list:
                for block in content:
                    if block.__class__ is not dict:
                        continue
                    btype = block.get("type")
                    if btype == "text":
                        has_text = has_text or bool(block.get("text"))
                    elif btype == "toolCall":
                        calls += 1
                        name = block.get("name")
                        tool_name = name if tool_name is None else f"{tool_name},{name}"
                        self.tool_calls.append(
                            ToolCallRow(block.get("id"), name, block.get("arguments"), row, now)
                        )
                    elif btype == "thinking":
                        thinking = True
                    elif btype == "image":
                        image = True
                if role != "assistant":
                    text = _preview_blocks(content)
            elif content.__class__ is str:
                has_text = bool(content)
                text = preview(content[: PREVIEW_CHARS + 1])
            if role == "assistant":
                provider = message.get("provider")
                model = message.get("model")
                stop = message.get("stopReason")
                error = stop in ERROR_STOPS
                raw_usage = message.get("usage")
                if raw_usage.__class__ is dict:
                    usage = usage_tuple(raw_usage)
                if has_text and isinstance(content, list):
                    text = _preview_blocks(content)
            elif role == "toolResult":
                tool_name = message.get("toolName")
                error = bool(message.get("isError"))
                call_id = message.get("toolCallId")
                if call_id.__class__ is str:
                    self.tool_results[call_id] = (row, error, now)
            elif role == "bashExecution":
                code = message.get("exitCode")
                error = bool(code) if code.__class__ is int else False
                has_text = True
                text = None
            elif role == "custom":
                custom_type = message.get("customType")
            elif role.__class__ is not str:
                role = None
        elif kind == "model_change":
            provider = entry.get("provider")
            model = entry.get("modelId")
        elif kind == "custom" or kind == "custom_message":
            custom_type = entry.get("customType")
        elif kind == "compaction":
            self.compactions.append(
                {
                    "index": row,
                    "first_kept_entry_id": entry.get("firstKeptEntryId"),
                    "tokens_before": entry.get("tokensBefore"),
                    "tokens_after": entry.get("tokensAfter"),
                    "summary": entry.get("summary"),
                    "details": entry.get("details"),
                    "from_hook": bool(entry.get("fromHook")),
                }
            )
        elif kind == "label":
            label = entry.get("label")
            target = entry.get("targetId")
            self.label_events.append(
                (
                    row,
                    target if isinstance(target, str) else None,
                    label if isinstance(label, str) and label else None,
                )
            )
        elif kind == "session_info":
            name = entry.get("name")
            if isinstance(name, str):
                self.names.append((row, name))
        elif kind == "child_usage_attributed":
            target = entry.get("targetId")
            target_row = self.index_of.get(target) if isinstance(target, str) else None
            aggregate = entry.get("aggregateUsage")
            if target_row is not None and isinstance(aggregate, dict):
                self.usage[target_row] = usage_tuple(aggregate)

        if text is None:
            text = preview(entry_text(entry))
        self.ids.append(entry_id)
        self.parent_ids.append(parent if parent.__class__ is str and parent else None)
        self.types.append(kind)
        self.roles.append(role)
        self.time_ms.append(now)
        self.lines.append(line)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.providers.append(provider if provider.__class__ is str else None)
        self.models.append(model if model.__class__ is str else None)
        self.usage.append(usage)
        self.rest.append(
            (
                text,
                tool_name if tool_name.__class__ is str else None,
                stop if stop.__class__ is str else None,
                error,
                has_text,
                thinking,
                image,
                calls,
                custom_type if custom_type.__class__ is str else None,
            )
        )
