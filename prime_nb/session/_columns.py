"""One pass over parsed entries into columns (no per-entry objects kept).

Full entries are never held: each row keeps its byte span so that the whole entry can
be re-read from disk when someone opens it, and tool-call arguments, full texts and
thinking stay there until a table or a context asks for them.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..format import Problem, iso_moment, iso_timestamp, line_id, renamed_id, trim_depth
from ._store import ToolCalls, UsageColumn
from ._text import clip, content_text, entry_text, message_text, preview

__all__ = ["EntryColumns", "timestamp_ms", "usage_tuple"]

NAN = math.nan
INF = math.inf
ERROR_STOPS = frozenset({"error", "aborted"})
Usage = tuple[int, int, int, int, int, float]
#: the usage fields a usage tuple holds, in the file's names (for problem messages)
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
#: a count no int64 column holds: what an infinite or NaN token count reads as
_PAST_INT64 = 2**63
#: largest |ms| whose timestamp fits the tables' datetime64[us] (about 292,000 years)
MAX_MS = 9.2e15


class OddUsage(tuple):  # type: ignore[type-arg]
    """A usage tuple with a field below 0 (kept as written: ``negative`` names them) or
    past int64 (set to None: ``fields`` names them), or one that is there but no number
    (``unread``: a count read as 0, the cost as missing)."""

    unread: tuple[str, ...] = ()
    #: the cost was infinite (``1e400``): kept as missing, as a count past int64 is
    infinite_cost: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(k for k, v in zip(USAGE_KEYS, self[:5], strict=True) if v is None)

    @property
    def negative(self) -> tuple[str, ...]:
        return tuple(
            k for k, v in zip((*USAGE_KEYS, "cost"), self, strict=True) if v is not None and v < 0
        )


#: whole ms within 2**32 s of 1970 (years 1833 to 2106): ``spec_timestamp_ms``'s shortcut
_EXACT_MS = 2**32 * 1000 - 1


def spec_timestamp_ms(value: Any) -> float:
    """The time of a spec-dialect entry's ``timestamp`` (Unix ms), exactly as
    :func:`timestamp_ms` reads the ISO text the dialect mapping writes for it.

    Whole ms within 2**32 s of 1970 take a shortcut, ``value / 1000 * 1000.0`` (there the
    float seconds are within half a microsecond, so the text holds the very ms)."""
    if value.__class__ is int and -_EXACT_MS <= value <= _EXACT_MS:
        return value / 1000 * 1000.0
    moment = iso_moment(value)
    if moment is None:
        return timestamp_ms(iso_timestamp(value))
    return moment.timestamp() * 1000.0


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


def table_time_ms(value: Any) -> float:
    """:func:`timestamp_ms` within what the tables' datetime64[us] holds (NaN beyond it):
    a single far-off time must not fail a whole table."""
    ms = timestamp_ms(value)
    return ms if -MAX_MS <= ms <= MAX_MS else NAN


def _num(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    if value.__class__ is int:
        return value  # type: ignore[no-any-return,unused-ignore]
    if isinstance(value, float):  # past int64 for inf and NaN: usage_tuple's odd-value path
        return int(value) if math.isfinite(value) else _PAST_INT64
    return 0


def usage_tuple(usage: dict[str, Any]) -> Usage:
    """A usage dict as ``(input, output, cacheRead, cacheWrite, total, cost)``: an
    ``OddUsage`` when a count is below 0 (kept: sums then match what the provider
    billed) or past int64 (missing)."""
    inp, out = usage.get("input"), usage.get("output")
    read, write = usage.get("cacheRead"), usage.get("cacheWrite")
    if not (  # the usual usage: four ints (a call to _num each costs 3% of a corpus pass)
        inp.__class__ is int
        and out.__class__ is int
        and read.__class__ is int
        and write.__class__ is int
    ):
        inp, out, read, write = (_num(usage, k) for k in USAGE_KEYS[:4])
        unread = tuple(k for k in USAGE_KEYS if _no_number(usage.get(k)))
    else:
        unread = ()
    total = _num(usage, "totalTokens") or inp + out + read + write
    cost = usage.get("cost")
    value = cost.get("total") if cost.__class__ is dict else cost
    if value.__class__ is not float:
        if _no_number(value):
            unread += ("cost",)
        value = float(value) if isinstance(value, int | float) else NAN
    # below 0, past int64, no number; a cost below 0 or infinite
    if (inp | out | read | write | total) >> 63 or unread or value < 0.0 or value == INF:
        infinite = value == INF or value == -INF
        odd = _odd_usage(usage, (inp, out, read, write), NAN if infinite else value)
        odd.unread = unread
        odd.infinite_cost = infinite
        return odd
    return (inp, out, read, write, total, value)


def _plain(usage: OddUsage) -> Usage:
    """An ``OddUsage`` whose values are all usable, as the plain tuple it equals."""
    inp, out, read, write, total, cost = usage
    return (inp, out, read, write, total, cost)


def _no_number(value: Any) -> bool:
    """Is ``value`` there but no number (a usage count or cost written as text, say)?"""
    return value is not None and not isinstance(value, int | float)


def _fits(value: int) -> bool:
    return -(2**63) <= value < 2**63


def _odd_usage(usage: dict[str, Any], parts: tuple[int, ...], cost: float) -> OddUsage:
    """The slow path of :func:`usage_tuple`: fields past int64 become missing; fields
    below 0 are kept as written (a provider wrote them, and billed by them)."""
    fine = [v if _fits(v) else None for v in parts]
    total: int | None = _num(usage, "totalTokens")
    if not total:  # absent: the sum of the parts, when every part is usable and it fits
        total = sum(v for v in fine if v is not None)
        total = total if None not in fine and _fits(total) else None
    elif not _fits(total):
        total = None
    return OddUsage((*fine, total, cost))


@dataclass
class EntryColumns:
    """Append-only columns, one slot per entry, in file order.

    ``previews=False`` (the corpus's summary read) skips the text previews, whose cost
    a corpus row does not need, and leaves the columns only the entries table reads
    empty; the first user message's preview is kept as ``first_user_text``. Tool-call
    arguments are kept only for the tools named in ``arguments`` (the summary's
    compaction forensics need the read tools' paths).
    """

    ids: list[str] = field(default_factory=list)
    #: parent ids as written; a known parent's string is the parent's own ``ids`` object
    parent_ids: list[str | None] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    roles: list[str | None] = field(default_factory=list)
    time_ms: array[float] = field(default_factory=lambda: array("d"))
    lines: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    providers: list[str | None] = field(default_factory=list)
    models: list[str | None] = field(default_factory=list)
    usage: UsageColumn = field(default_factory=UsageColumn)
    texts: list[str] = field(default_factory=list)
    tool_names: list[str | None] = field(default_factory=list)
    stop_reasons: list[str | None] = field(default_factory=list)
    is_error: list[bool] = field(default_factory=list)
    has_text: list[bool] = field(default_factory=list)
    has_thinking: list[bool] = field(default_factory=list)
    has_image: list[bool] = field(default_factory=list)
    n_tool_calls: list[int] = field(default_factory=list)
    custom_types: list[str | None] = field(default_factory=list)
    # sparse facts, each with the entry's row index
    compactions: list[dict[str, Any]] = field(default_factory=list)
    label_events: list[tuple[int, str | None, str | None]] = field(default_factory=list)
    names: list[tuple[int, str | None]] = field(default_factory=list)
    tool_calls: ToolCalls = field(default_factory=ToolCalls)
    tool_results: dict[str, tuple[int, bool, float]] = field(default_factory=dict)
    #: row of each id (first occurrence wins; later duplicates are renamed)
    index_of: dict[str, int] = field(default_factory=dict)
    #: entries come from a spec-dialect file with their ``timestamp`` left in Unix ms
    #: (``Migrator.apply(iso_times=False)``): read with :func:`spec_timestamp_ms`
    spec_times: bool = False
    previews: bool = True
    arguments: frozenset[str] = frozenset()
    first_user_text: str | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def add(
        self, line: int, offset: int, length: int, entry: dict[str, Any], problems: list[Problem]
    ) -> None:
        """Append one migrated, canonical entry."""
        row = len(self.ids)
        entry_id = entry.get("id")
        if entry_id.__class__ is not str or not entry_id or entry_id in self.index_of:
            entry_id = self._usable_id(entry_id, line, problems)
        self.index_of[entry_id] = row
        stamp = entry.get("timestamp")
        message = entry.get("message") if entry["type"] == "message" else None
        in_ms = stamp is not None and self.spec_times  # left in ms by the migration
        if stamp is None and message.__class__ is dict:
            stamp = message.get("timestamp")
        now = spec_timestamp_ms(stamp) if in_ms else timestamp_ms(stamp)
        if not -MAX_MS <= now <= MAX_MS:  # also NaN: unreadable, or out of range
            now = _odd_time(iso_timestamp(stamp) if in_ms else stamp, line, entry_id, problems)
        if message.__class__ is dict:
            role, provider, model, usage, rest = self._message(
                row, message, now, (line, entry_id), problems
            )
        else:
            role = usage = None
            provider, model, rest = self._other(
                row, entry["type"], entry, (line, entry_id), problems
            )
        parent = entry.get("parentId")
        if parent.__class__ is not str and parent is not None:
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
        if parent:  # a known parent's own string: one copy, not two ("" is a root)
            found = self.index_of.get(parent)
            self.parent_ids.append(self.ids[found] if found is not None else parent)
        else:
            self.parent_ids.append(None)
        self.types.append(entry["type"])
        self.roles.append(role)
        self.time_ms.append(now)
        self.lines.append(line)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.providers.append(provider if provider.__class__ is str else None)
        self.models.append(model if model.__class__ is str else None)
        self.usage.append(usage)
        text, tool_name, stop, error, has_text, thinking, image, calls, custom_type = rest
        self.stop_reasons.append(stop if stop.__class__ is str else None)
        if not self.previews:  # a summary: the entries table's other columns stay empty
            return
        self.texts.append(text)
        self.tool_names.append(tool_name if tool_name.__class__ is str else None)
        self.is_error.append(error)
        self.has_text.append(has_text)
        self.has_thinking.append(thinking)
        self.has_image.append(image)
        self.n_tool_calls.append(calls)
        self.custom_types.append(custom_type if custom_type.__class__ is str else None)

    def _usable_id(self, entry_id: Any, line: int, problems: list[Problem]) -> str:
        """A missing id gets a name from its line; a repeated one gets its line appended."""
        if entry_id.__class__ is not str or not entry_id:
            entry_id = line_id(line)
            problems.append(Problem(line, "missing_id", f"entry has no id; named {entry_id}"))
        if entry_id in self.index_of:
            renamed = renamed_id(entry_id, line, self.index_of)
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
        where: tuple[int, str],
        problems: list[Problem],
    ) -> tuple[Any, Any, Any, Usage | None, tuple[Any, ...]]:
        """Role, provider, model, usage and the rest of a message entry's columns;
        ``where``: its line and id (for problems)."""
        role = message.get("role")
        content = message.get("content")
        tool_name = provider = model = stop = custom_type = usage = text = None
        first_user = role == "user" and self.first_user_text is None
        error = has_text = thinking = image = False
        calls = 0
        if not (self.previews or first_user):  # a summary: of the content, the calls alone
            text = ""
            for position, block in enumerate(content if content.__class__ is list else ()):
                if block.__class__ is dict and block.get("type") == "toolCall":
                    self._call(block, row, now, position, where, problems)
        elif content.__class__ is list:
            for position, block in enumerate(content):
                if block.__class__ is not dict:
                    continue
                btype = block.get("type")
                if btype == "text":
                    if not has_text and block.get("text"):
                        has_text = True
                elif btype == "toolCall":
                    calls += 1
                    name = self._call(block, row, now, position, where, problems)
                    tool_name = name if tool_name is None else f"{tool_name},{name}"
                elif btype == "thinking":
                    thinking = True
                elif btype == "image":
                    image = True
            if text is None and (has_text or role != "assistant"):
                text = preview(content_text(content))
        elif content.__class__ is str:
            has_text = bool(content)
            if text is None:
                text = preview(content)
        if role == "assistant":
            provider = message.get("provider")
            model = message.get("model")
            stop = message.get("stopReason")
            if stop.__class__ is str:
                error = stop in ERROR_STOPS
            elif stop is not None:
                problems.append(_odd(where, "stopReason", stop, "kept as missing"))
                stop = None
            raw_usage = message.get("usage")
            if raw_usage.__class__ is dict:
                usage = usage_tuple(raw_usage)
                if isinstance(usage, OddUsage):
                    problems.extend(_odd_usage_problems(where, raw_usage, usage))
                    if not (usage.fields or usage.negative):  # no number: its values as read
                        usage = _plain(usage)
            elif raw_usage is not None:
                problems.append(_odd(where, "usage", raw_usage, "kept as missing"))
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
            text = None if self.previews else ""  # the command and output, not the content
        elif role == "custom":
            custom_type = message.get("customType")
        elif role.__class__ is not str:
            role = None
        if text is None:
            text = preview(message_text(message))
        if first_user:
            self.first_user_text = text
        rest = (text, tool_name, stop, error, has_text, thinking, image, calls, custom_type)
        return role, provider, model, usage, rest

    def _call(
        self,
        block: dict[str, Any],
        row: int,
        now: float,
        position: int,
        where: tuple[int, str],
        problems: list[Problem],
    ) -> Any:
        """Add a toolCall block's call (its arguments kept only for the tools named in
        ``arguments``); returns its name."""
        name, call_id = block.get("name"), block.get("id")
        if call_id.__class__ is not str and call_id is not None:
            problems.append(_odd(where, "toolCall id", call_id, "kept as missing"))
            call_id = None
        if name.__class__ is str and name in self.arguments:
            self.tool_calls.arguments[len(self.tool_calls)] = block.get("arguments")
        self.tool_calls.add(call_id, name, row, now, position)
        return name

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
            if target.__class__ is not str:
                problems.append(_odd(where, "targetId", target, "the label applies to nothing"))
            if label is not None and label.__class__ is not str:
                problems.append(_odd(where, "label", label, "read as a label cleared"))
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
            self._child_usage(row, entry, where, problems)
        text = preview(entry_text(entry)) if self.previews else ""
        return provider, model, (text, None, None, False, False, False, False, 0, custom_type)

    def _child_usage(
        self, row: int, entry: dict[str, Any], where: tuple[int, str], problems: list[Problem]
    ) -> None:
        """A child_usage_attributed entry: its target, an earlier assistant message, carries
        the aggregate usage from now on (the agent's loader checks the role too)."""
        target = entry.get("targetId")
        target_row = self.index_of.get(target) if isinstance(target, str) else None
        aggregate = entry.get("aggregateUsage")
        if (
            target_row is not None
            and target_row < row  # not itself: the entry being read is no assistant
            and isinstance(aggregate, dict)
            and self.roles[target_row] == "assistant"
        ):
            usage = usage_tuple(aggregate)
            if usage.__class__ is not tuple:
                problems.extend(_odd_usage_problems(where, aggregate, usage))
            self.usage[target_row] = usage


def _show(value: Any, limit: int = 40) -> str:
    """A short repr of an odd value for a problem message."""
    return clip(repr(value), limit)


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


def _usage_field(raw: dict[str, Any], key: str) -> str:
    """A usage field as a problem shows it (the cost by its total)."""
    if key == "cost":
        cost = raw.get("cost")
        return f"cost={_show(cost.get('total') if isinstance(cost, dict) else cost, 30)}"
    return f"{key}={_show(raw.get(key), 30)}"


def _odd_usage_problems(where: tuple[int, str], raw: dict[str, Any], usage: Any) -> list[Problem]:
    """A warning for the usage fields below 0 (kept as written) and one for those past
    int64 (kept as missing)."""
    found = []
    for names, outcome in (
        (usage.negative, "below 0; kept as written"),
        (usage.fields, "outside -2**63..2**63-1; kept as missing"),
        (("cost",) if usage.infinite_cost else (), "infinite; kept as missing"),
    ):
        if names:
            shown = ", ".join(_usage_field(raw, k) for k in names)
            found.append(Problem(where[0], "bad_value", f"usage {shown} {outcome}", where[1]))
    if usage.unread:
        shown = ", ".join(_usage_field(raw, k) for k in usage.unread)
        found.append(
            Problem(
                where[0],
                "bad_value",
                f"usage {shown} not a number; a count read as 0, a cost as missing",
                where[1],
            )
        )
    return found


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
