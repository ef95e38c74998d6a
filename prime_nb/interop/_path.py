"""A root-to-leaf path as items every export writes: one per entry that says something.

Why one reading for every target: ATIF steps and Scout messages are both "what happened
on this branch, in order", and each must carry the entry it came from. So the entries of
a path are read once here (in chunks, so a long path never sits in memory as raw lines
and items at once) and turned into :class:`Item`s: who spoke, the text, the thinking,
the tool calls, a tool result's call id, the usage, the model in force. Entries that say
nothing (labels, names, states, custom state) give no item; a model or thinking level
change gives none either, but sets what the next assistant items carry.

The whole history of the branch is kept, compactions included: a compaction is an item
of its own with its summary, and the entries it summarised stay before it (what the
model saw after it is ``session.context(leaf)``, not this).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ..session import Session, arguments_object, to_json

#: entries read from the file per pass over it
CHUNK = 2000

ItemKind = Literal["user", "assistant", "tool", "compaction", "branch_summary", "bash", "custom"]


@dataclass
class Call:
    """One tool call of an assistant message."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Usage:
    """An assistant message's tokens and cost, as the agent recorded them."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float | None = None


@dataclass
class Item:
    """One entry that says something, in a form both ATIF and Scout are written from."""

    kind: ItemKind
    entry_id: str
    timestamp: str | None
    text: str = ""
    thinking: str = ""
    images: list[str] = field(default_factory=list)  # media types of images left out
    calls: list[Call] = field(default_factory=list)
    call_id: str = ""  # a tool result's call
    tool_name: str = ""
    is_error: bool = False
    usage: Usage | None = None
    provider: str | None = None
    model: str | None = None
    thinking_level: str | None = None
    stop_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def iso_time(value: Any) -> str | None:
    """An entry's ISO time, or None where it is missing or not a time (hostile files)."""
    if not isinstance(value, str):
        return None
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value


def _int(value: Any) -> int:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value == value
    return max(0, int(value)) if ok and abs(value) < 2**62 else 0


def _number(value: Any) -> float | None:
    """A finite number, or None (odd values in hostile files)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok and value == value and abs(value) < 1e300 else None


def _usage(value: Any) -> Usage | None:
    if not isinstance(value, dict):
        return None
    cost = value.get("cost")
    return Usage(
        _int(value.get("input")),
        _int(value.get("output")),
        _int(value.get("cacheRead")),
        _int(value.get("cacheWrite")),
        _number(cost.get("total")) if isinstance(cost, dict) else None,
    )


def _parts(content: Any) -> tuple[str, str, list[str], list[dict[str, Any]]]:
    """Text, thinking, image media types and tool-call blocks of a message's content."""
    if isinstance(content, str):
        return content, "", [], []
    texts: list[str] = []
    thinking: list[str] = []
    images: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
        elif kind == "image":
            mime = block.get("mimeType")
            images.append(mime if isinstance(mime, str) else "image")
        elif kind == "toolCall":
            calls.append(block)
    return "\n\n".join(texts), "\n\n".join(thinking), images, calls


def _bash_text(message: dict[str, Any]) -> str:
    output, code = message.get("output"), message.get("exitCode")
    text = f"$ {message.get('command', '')}\n"
    text += output if isinstance(output, str) else ""
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        text += f"\n(exit code {code})"
    return text


class _State:
    """What is in force along the path: the model and the thinking level."""

    def __init__(self) -> None:
        self.provider: str | None = None
        self.model: str | None = None
        self.thinking_level: str | None = None


def _message_item(entry: dict[str, Any], state: _State) -> Item | None:
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    eid, when = str(entry["id"]), iso_time(entry.get("timestamp"))
    role = message.get("role")
    text, thinking, images, blocks = _parts(message.get("content"))
    if role == "assistant":
        provider, model = message.get("provider"), message.get("model")
        if isinstance(model, str) and model:
            state.model = model
            state.provider = provider if isinstance(provider, str) else state.provider
        calls = []
        for n, block in enumerate(blocks):
            raw = block.get("id")
            name = block.get("name")
            calls.append(
                Call(
                    raw if isinstance(raw, str) and raw else f"{eid}-call-{n}",
                    name if isinstance(name, str) and name else "unknown",
                    arguments_object(block.get("arguments")),
                )
            )
        stop = message.get("stopReason")
        error = message.get("errorMessage")
        return Item(
            "assistant",
            eid,
            when,
            text,
            thinking,
            images,
            calls,
            usage=_usage(message.get("usage")),
            provider=state.provider,
            model=state.model,
            thinking_level=state.thinking_level,
            stop_reason=stop if isinstance(stop, str) else None,
            extra={"error_message": error} if isinstance(error, str) and error else {},
        )
    if role == "toolResult":
        call, name = message.get("toolCallId"), message.get("toolName")
        return Item(
            "tool",
            eid,
            when,
            text,
            images=images,
            call_id=call if isinstance(call, str) else "",
            tool_name=name if isinstance(name, str) else "",
            is_error=message.get("isError") is True,
        )
    if role == "user":
        return Item("user", eid, when, text, images=images)
    if role in ("custom", "hookMessage"):
        kind = message.get("customType")
        return Item("custom", eid, when, text, images=images, extra={"custom_type": kind})
    if role == "bashExecution":
        keep = ("command", "exitCode", "cancelled", "truncated", "excludeFromContext")
        facts = {k: message[k] for k in keep if k in message}
        return Item("bash", eid, when, _bash_text(message), extra={"bash_execution": facts})
    return None


def entry_item(entry: dict[str, Any], state: _State) -> Item | None:
    """The item of one canonical entry (None for one that says nothing)."""
    kind = entry.get("type")
    eid, when = str(entry["id"]), iso_time(entry.get("timestamp"))
    if kind == "message":
        return _message_item(entry, state)
    if kind == "custom_message":
        text, _, images, _ = _parts(entry.get("content"))
        return Item(
            "custom", eid, when, text, images=images, extra={"custom_type": entry.get("customType")}
        )
    if kind == "compaction":
        summary = entry.get("summary")
        facts = {
            "tokens_before": entry.get("tokensBefore"),
            "tokens_after": entry.get("tokensAfter"),
            "first_kept_entry_id": entry.get("firstKeptEntryId"),
            "details": entry.get("details"),
            "from_hook": entry.get("fromHook"),
        }
        facts = {k: v for k, v in facts.items() if v is not None}
        return Item(
            "compaction", eid, when, summary if isinstance(summary, str) else "", extra=facts
        )
    if kind == "branch_summary":
        summary = entry.get("summary")
        facts = {"from_id": entry.get("fromId")}
        return Item(
            "branch_summary", eid, when, summary if isinstance(summary, str) else "", extra=facts
        )
    if kind == "model_change":
        provider, model = entry.get("provider"), entry.get("modelId")
        state.provider = provider if isinstance(provider, str) else None
        state.model = model if isinstance(model, str) else None
    elif kind == "thinking_level_change":
        level = entry.get("thinkingLevel")
        state.thinking_level = level if isinstance(level, str) else None
    return None


def path_items(session: Session, leaf_id: str | None) -> Iterator[Item]:
    """The items of the path root -> ``leaf_id`` (default: the active leaf), in order."""
    path = session.path(leaf_id)
    state = _State()
    for start in range(0, len(path), CHUNK):
        for entry in session.read_entries(path[start : start + CHUNK]):
            item = entry_item(entry, state)
            if item is not None:
                yield item


#: deepest nesting an export writes: JSON readers stop at some depth (pydantic's parser
#: at a few hundred levels), so a hostile file's deeper values are cut there
MAX_DEPTH = 32
CUT = "[nested too deep; cut]"


def _cut(value: Any, depth: int) -> Any:
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return CUT
        return {k: _cut(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return CUT if depth >= MAX_DEPTH else [_cut(v, depth + 1) for v in value]
    return value


def json_safe(value: Any) -> Any:
    """A value as JSON reads it back (tuples as lists, odd numbers as text), nesting cut
    at :data:`MAX_DEPTH`: what a format's validator and a round trip through a file see."""
    return _cut(json.loads(to_json(value)), 0)
