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
from typing import Any, NamedTuple

from ..format._reading import Problem, trim_depth
from ._text import PREVIEW_CHARS, entry_text, message_text, preview

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
#: the usage fields a usage tuple holds, in the file's names (for problem messages)
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
#: largest |ms| whose timestamp fits the tables' datetime64[us] (about 292,000 years)
MAX_MS = 9.2e15
#: a tool call's arguments are kept in memory only from lines up to this size; bigger
#: ones are read from disk when the tool_calls table is built
INLINE_ARGS_BYTES = 64 * 1024


class OddUsage(tuple):  # type: ignore[type-arg]
    """A usage tuple with fields outside 0..2**63-1 set to None (``fields`` names them)."""

    fields: tuple[str, ...] = ()


class OnDisk:
    """Stands for tool-call arguments left on disk (a long line): read when needed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<on disk>"


ON_DISK = OnDisk()


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
    if isinstance(value, float):  # -1 for inf and NaN: usage_tuple's odd-value path
        return int(value) if math.isfinite(value) else -1
    return 0


def usage_tuple(usage: dict[str, Any]) -> Usage:
    inp, out = usage.get("input"), usage.get("output")
    read, write = usage.get("cacheRead"), usage.get("cacheWrite")
    if not (
        inp.__class__ is int
        and out.__class__ is int
        and read.__class__ is int
        and write.__class__ is int
    ):
        inp, out = _num(usage, "input"), _num(usage, "output")
        read, write = _num(usage, "cacheRead"), _num(usage, "cacheWrite")
    total = usage.get("totalTokens")
    if total.__class__ is not int:
        total = _num(usage, "totalTokens")
    total = total or inp + out + read + write
    cost = usage.get("cost")
    value = cost.get("total") if cost.__class__ is dict else cost
    if value.__class__ is not float:
        value = float(value) if isinstance(value, int | float) else NAN
    if (inp | out | read | write | total) >> 63:  # a value below 0 or past int64
        return _odd_usage(usage, (inp, out, read, write), value)
    return (inp, out, read, write, total, value)


def _odd_usage(usage: dict[str, Any], parts: tuple[int, ...], cost: float) -> OddUsage:
    """The slow path of :func:`usage_tuple`: fields out of 0..2**63-1 become missing."""
    fine = [v if 0 <= v < 2**63 else None for v in parts]
    total: int | None = _num(usage, "totalTokens")
    if not total:  # absent: the sum of the parts, when every part is usable and it fits
        total = sum(v for v in fine if v is not None)
        total = total if None not in fine and total < 2**63 else None
    elif not 0 <= total < 2**63:
        total = None
    out = OddUsage((*fine, total, cost))
    out.fields = tuple(k for k, v in zip(USAGE_KEYS, (*fine, total), strict=True) if v is None)
    return out


def _preview_blocks(content: list[Any]) -> str:
    if len(content) == 1:  # the usual tool result or user message: one text block
        block = content[0]
        if block.__class__ is dict and block.get("type") == "text":
            value = block.get("text")
            if value.__class__ is str:
                return preview(value[: PREVIEW_CHARS + 1])
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


class ToolCallRow(NamedTuple):
    call_id: str | None
    name: str | None
    #: the arguments, or ON_DISK (a long line: read them from the entry when needed)
    arguments: Any
    #: the assistant entry's row
    row: int
    time_ms: float
    #: the toolCall block's position in the message content
    block: int = 0


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
    names: list[tuple[int, str | None]] = field(default_factory=list)
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
        row, entry_id, message, now = self._start(line, entry, problems)
        if message.__class__ is dict:
            role, provider, model, usage, rest = self._message(
                row, message, now, (line, entry_id, length), problems
            )
        else:
            role = usage = None
            provider, model, rest = self._other(
                row, entry["type"], entry, (line, entry_id), problems
            )
        self._finish(
            line, offset, length, entry, entry_id, role, now, provider, model, usage, problems
        )
        self.rest.append(rest)

    def _start(
        self, line: int, entry: dict[str, Any], problems: list[Problem]
    ) -> tuple[int, str, Any, float]:
        """Row, usable id, message (or None) and time of an entry; odd times reported."""
        row = len(self.ids)
        entry_id = entry.get("id")
        if entry_id.__class__ is not str or not entry_id or entry_id in self.index_of:
            entry_id = self._usable_id(entry_id, line, problems)
        self.index_of[entry_id] = row
        stamp = entry.get("timestamp")
        message = entry.get("message") if entry["type"] == "message" else None
        if message.__class__ is dict and stamp is None:
            stamp = message.get("timestamp")
        now = timestamp_ms(stamp)
        if not -MAX_MS <= now <= MAX_MS:  # also NaN: unreadable, or out of range
            now = _odd_time(stamp, line, entry_id, problems)
        return row, entry_id, message, now

    def _finish(
        self,
        line: int,
        offset: int,
        length: int,
        entry: dict[str, Any],
        entry_id: str,
        role: Any,
        now: float,
        provider: Any,
        model: Any,
        usage: Usage | None,
        problems: list[Problem],
    ) -> None:
        """Append the columns every row has (a non-string parentId reported, made a root)."""
        parent = entry.get("parentId")
        if parent.__class__ is not str or not parent:
            if parent is not None and parent != "":
                problems.append(
                    Problem(
                        line,
                        "bad_parent_id",
                        f"parentId is {_show(parent)}, not a string; loaded as a root",
                        entry_id,
                    )
                )
            parent = None
        self.ids.append(entry_id)
        self.parent_ids.append(parent)
        self.types.append(entry["type"])
        self.roles.append(role)
        self.time_ms.append(now)
        self.lines.append(line)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.providers.append(provider if provider.__class__ is str else None)
        self.models.append(model if model.__class__ is str else None)
        self.usage.append(usage)

    def _usable_id(self, entry_id: Any, line: int, problems: list[Problem]) -> str:
        """A missing id gets a name from its line; a repeated one gets its line appended."""
        if entry_id.__class__ is not str or not entry_id:
            entry_id = f"L{line}"
            problems.append(Problem(line, "missing_id", f"entry has no id; named {entry_id}"))
        if entry_id in self.index_of:
            renamed = f"{entry_id}@L{line}"
            suffix = 1
            while renamed in self.index_of:  # an id may already spell the new name
                suffix += 1
                renamed = f"{entry_id}@L{line}.{suffix}"
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
        return str(entry_id)

    def _message(
        self,
        row: int,
        message: dict[str, Any],
        now: float,
        where: tuple[int, str, int],
        problems: list[Problem],
    ) -> tuple[Any, Any, Any, Usage | None, tuple[Any, ...]]:
        """Role, provider, model, usage and the ``rest`` tuple of a message entry.

        ``where``: the line, id and byte length of the entry (for problems, and to leave
        the arguments of tool calls on long lines on disk).
        """
        length = where[2]
        role = message.get("role")
        content = message.get("content")
        tool_name = provider = model = stop = custom_type = usage = text = None
        error = has_text = thinking = image = False
        calls = 0
        if content.__class__ is list:
            for position, block in enumerate(content):
                if block.__class__ is not dict:
                    continue
                btype = block.get("type")
                if btype == "text":
                    if not has_text and block.get("text"):
                        has_text = True
                elif btype == "toolCall":
                    calls += 1
                    name = block.get("name")
                    tool_name = name if tool_name is None else f"{tool_name},{name}"
                    call_id = block.get("id")
                    if call_id.__class__ is not str and call_id is not None:
                        problems.append(
                            _odd((where[0], where[1]), "toolCall id", call_id, "kept as missing")
                        )
                        call_id = None
                    arguments = block.get("arguments") if length <= INLINE_ARGS_BYTES else ON_DISK
                    self.tool_calls.append(
                        ToolCallRow(call_id, name, arguments, row, now, position)
                    )
                elif btype == "thinking":
                    thinking = True
                elif btype == "image":
                    image = True
            if has_text or role != "assistant":
                text = _preview_blocks(content)
        elif content.__class__ is str:
            has_text = bool(content)
            text = preview(content[: PREVIEW_CHARS + 1])
        if role == "assistant":
            provider = message.get("provider")
            model = message.get("model")
            stop = message.get("stopReason")
            if stop.__class__ is str:
                error = stop in ERROR_STOPS
            elif stop is not None:
                problems.append(_odd((where[0], where[1]), "stopReason", stop, "kept as missing"))
                stop = None
            raw_usage = message.get("usage")
            if raw_usage.__class__ is dict:
                usage = usage_tuple(raw_usage)
                if usage.__class__ is not tuple:
                    problems.append(_odd_usage_problem((where[0], where[1]), raw_usage, usage))
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
        if text is None:
            text = preview(message_text(message))
        return (
            role,
            provider,
            model,
            usage,
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
            ),
        )

    def _other(
        self,
        row: int,
        kind: str,
        entry: dict[str, Any],
        where: tuple[int, str],
        problems: list[Problem],
    ) -> tuple[Any, Any, tuple[Any, ...]]:
        """Provider, model and the ``rest`` tuple of an entry that is not a message."""
        provider = model = custom_type = None
        if kind == "model_change":
            provider = entry.get("provider")
            model = entry.get("modelId")
        elif kind == "custom" or kind == "custom_message":
            custom_type = entry.get("customType")
        elif kind == "compaction":
            kept = entry.get("firstKeptEntryId")
            if kept.__class__ is not str and kept is not None:
                problems.append(_odd(where, "firstKeptEntryId", kept, "kept as missing"))
                kept = None
            self.compactions.append(
                {
                    "index": row,
                    "first_kept_entry_id": kept,
                    "tokens_before": token_count(entry, "tokensBefore", where, problems),
                    "tokens_after": token_count(entry, "tokensAfter", where, problems),
                    "summary": entry.get("summary"),
                    "details": trim_depth(entry.get("details"))[0],
                    "from_hook": bool(entry.get("fromHook")),
                    "custom_instructions": entry.get("customInstructions"),
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
            name = entry.get("name")  # the latest wins, even without a name: it clears
            self.names.append((row, name if isinstance(name, str) else None))
        elif kind == "child_usage_attributed":
            target = entry.get("targetId")
            target_row = self.index_of.get(target) if isinstance(target, str) else None
            aggregate = entry.get("aggregateUsage")
            if (
                target_row is not None
                and isinstance(aggregate, dict)
                and self.roles[target_row] == "assistant"  # the agent's loader checks that
            ):
                usage = usage_tuple(aggregate)
                if usage.__class__ is not tuple:
                    problems.append(_odd_usage_problem(where, aggregate, usage))
                self.usage[target_row] = usage
        rest = (
            preview(entry_text(entry)),
            None,
            None,
            False,
            False,
            False,
            False,
            0,
            custom_type if custom_type.__class__ is str else None,
        )
        return provider, model, rest


def _show(value: Any, limit: int = 40) -> str:
    """A short repr of an odd value for a problem message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _odd(where: tuple[int, str], key: str, value: Any, outcome: str) -> Problem:
    return Problem(where[0], "bad_value", f"{key} is {_show(value)}; {outcome}", where[1])


def _odd_time(stamp: Any, line: int, entry_id: str, problems: list[Problem]) -> float:
    """An unreadable or out-of-range timestamp: reported, and kept as missing (NaN)."""
    if stamp is not None:
        problems.append(
            Problem(
                line,
                "bad_value",
                f"timestamp {_show(stamp)} is not a readable time within ±292,000 years; "
                "kept as missing",
                entry_id,
            )
        )
    return NAN


def _odd_usage_problem(where: tuple[int, str], raw: dict[str, Any], usage: Any) -> Problem:
    fields = ", ".join(f"{k}={_show(raw.get(k), 30)}" for k in getattr(usage, "fields", ()))
    return Problem(
        where[0], "bad_value", f"usage {fields} outside 0..2**63-1; kept as missing", where[1]
    )


def token_count(
    entry: dict[str, Any], key: str, where: tuple[int, str], problems: list[Problem]
) -> Any:
    """A compaction's token count: ints and whole floats in 0..2**63-1; else missing."""
    value = entry.get(key)
    if value is None:
        return None
    if value.__class__ is int and 0 <= value < 2**63:
        return value
    if value.__class__ is float and value.is_integer() and 0 <= value < 2**63:
        return int(value)
    problems.append(_odd(where, key, value, "kept as missing"))
    return None
