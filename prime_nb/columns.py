"""One pass over parsed entries into plain column lists (no per-entry objects kept).

Full entries are never held: each row keeps its byte span so that the whole entry
can be re-read from disk when someone opens it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .reading import Problem, RawEntry
from .text import entry_text, preview

NAN = math.nan
ERROR_STOPS = ("error", "aborted")


def timestamp_ms(value: Any) -> float:
    """ISO string or Unix ms to float ms; NaN when absent or unreadable."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp() * 1000.0
        except ValueError:
            return NAN
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return NAN


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
    source_types: list[str | None] = field(default_factory=list)
    roles: list[str | None] = field(default_factory=list)
    time_ms: list[float] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    tool_names: list[str | None] = field(default_factory=list)
    providers: list[str | None] = field(default_factory=list)
    models: list[str | None] = field(default_factory=list)
    has_usage: list[bool] = field(default_factory=list)
    input_tokens: list[int] = field(default_factory=list)
    output_tokens: list[int] = field(default_factory=list)
    cache_read_tokens: list[int] = field(default_factory=list)
    cache_write_tokens: list[int] = field(default_factory=list)
    total_tokens: list[int] = field(default_factory=list)
    cost: list[float] = field(default_factory=list)
    stop_reasons: list[str | None] = field(default_factory=list)
    is_error: list[bool] = field(default_factory=list)
    has_text: list[bool] = field(default_factory=list)
    has_thinking: list[bool] = field(default_factory=list)
    has_image: list[bool] = field(default_factory=list)
    n_tool_calls: list[int] = field(default_factory=list)
    custom_types: list[str | None] = field(default_factory=list)
    # sparse facts, each with the entry's row index
    compactions: list[dict[str, Any]] = field(default_factory=list)
    branch_summaries: list[dict[str, Any]] = field(default_factory=list)
    label_events: list[tuple[int, str | None, str | None]] = field(default_factory=list)
    names: list[tuple[int, str]] = field(default_factory=list)
    tool_calls: list[ToolCallRow] = field(default_factory=list)
    tool_results: dict[str, tuple[int, bool, float]] = field(default_factory=dict)
    #: row of each id (first occurrence wins; later duplicates are renamed)
    index_of: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, raw: RawEntry, entry: dict[str, Any], problems: list[Problem]) -> None:
        """Append one migrated, canonical entry."""
        row = len(self.ids)
        entry_id = entry.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            entry_id = f"L{raw.line}"
            problems.append(Problem(raw.line, "missing_id", f"entry has no id; named {entry_id}"))
        if entry_id in self.index_of:
            renamed = f"{entry_id}@L{raw.line}"
            problems.append(
                Problem(
                    raw.line,
                    "duplicate_id",
                    f"id {entry_id} already used on line {self.lines[self.index_of[entry_id]]}; "
                    f"this entry is named {renamed}",
                    entry_id,
                )
            )
            entry_id = renamed
        self.index_of[entry_id] = row
        parent = entry.get("parentId")
        self.ids.append(entry_id)
        self.parent_ids.append(parent if isinstance(parent, str) and parent else None)
        kind = entry["type"]
        self.types.append(kind)
        self.source_types.append(entry.get("_sourceType"))
        self.lines.append(raw.line)
        self.offsets.append(raw.offset)
        self.lengths.append(raw.length)

        message = entry.get("message") if kind == "message" else None
        if not isinstance(message, dict):
            message = None
        stamp = entry.get("timestamp")
        if stamp is None and message is not None:
            stamp = message.get("timestamp")
        self.time_ms.append(timestamp_ms(stamp))

        role = tool_name = provider = model = stop = custom_type = None
        error = has_text = thinking = image = False
        calls = 0
        usage: Any = None
        if message is not None:
            role = message.get("role")
            if not isinstance(role, str):
                role = None
            content = message.get("content")
            if isinstance(content, list):
                for block in content:
                    if not isinstance(block, dict):
                        continue
                    btype = block.get("type")
                    if btype == "text":
                        has_text = has_text or bool(block.get("text"))
                    elif btype == "toolCall":
                        calls += 1
                        name = block.get("name")
                        tool_name = name if tool_name is None else f"{tool_name},{name}"
                        self.tool_calls.append(
                            ToolCallRow(
                                block.get("id"),
                                name,
                                block.get("arguments"),
                                row,
                                self.time_ms[-1],
                            )
                        )
                    elif btype == "thinking":
                        thinking = True
                    elif btype == "image":
                        image = True
            elif isinstance(content, str):
                has_text = bool(content)
            if role == "assistant":
                provider = message.get("provider")
                model = message.get("model")
                stop = message.get("stopReason")
                error = stop in ERROR_STOPS
                usage = message.get("usage")
            elif role == "toolResult":
                tool_name = message.get("toolName")
                error = bool(message.get("isError"))
                call_id = message.get("toolCallId")
                if isinstance(call_id, str):
                    self.tool_results[call_id] = (row, error, self.time_ms[-1])
            elif role == "bashExecution":
                code = message.get("exitCode")
                error = bool(code) if isinstance(code, int) else False
                has_text = True
            elif role == "custom":
                custom_type = message.get("customType")
        elif kind == "model_change":
            provider = entry.get("provider")
            model = entry.get("modelId")
        elif kind in ("custom", "custom_message"):
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
        elif kind == "branch_summary":
            self.branch_summaries.append(
                {"index": row, "from_id": entry.get("fromId"), "summary": entry.get("summary")}
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
            if target_row is not None and isinstance(entry.get("aggregateUsage"), dict):
                self.set_usage(target_row, entry["aggregateUsage"])

        self.roles.append(role)
        self.tool_names.append(tool_name if isinstance(tool_name, str) else None)
        self.providers.append(provider if isinstance(provider, str) else None)
        self.models.append(model if isinstance(model, str) else None)
        self.stop_reasons.append(stop if isinstance(stop, str) else None)
        self.is_error.append(error)
        self.has_text.append(has_text)
        self.has_thinking.append(thinking)
        self.has_image.append(image)
        self.n_tool_calls.append(calls)
        self.custom_types.append(custom_type if isinstance(custom_type, str) else None)
        self.texts.append(preview(entry_text(entry)))
        self.has_usage.append(False)
        self.input_tokens.append(0)
        self.output_tokens.append(0)
        self.cache_read_tokens.append(0)
        self.cache_write_tokens.append(0)
        self.total_tokens.append(0)
        self.cost.append(NAN)
        if isinstance(usage, dict):
            self.set_usage(row, usage)

    def set_usage(self, row: int, usage: dict[str, Any]) -> None:
        def num(key: str) -> int:
            value = usage.get(key)
            return int(value) if isinstance(value, int | float) and math.isfinite(value) else 0

        self.has_usage[row] = True
        self.input_tokens[row] = num("input")
        self.output_tokens[row] = num("output")
        self.cache_read_tokens[row] = num("cacheRead")
        self.cache_write_tokens[row] = num("cacheWrite")
        total = num("totalTokens")
        if not total:
            total = sum(
                (
                    self.input_tokens[row],
                    self.output_tokens[row],
                    self.cache_read_tokens[row],
                    self.cache_write_tokens[row],
                )
            )
        self.total_tokens[row] = total
        cost = usage.get("cost")
        value = cost.get("total") if isinstance(cost, dict) else cost
        self.cost[row] = float(value) if isinstance(value, int | float) else NAN
