"""Checks that chat messages are a request the provider accepts.

Two layers: the SDKs' own typed request models (``openai`` and ``anthropic`` ship their
message params as TypedDicts), validated strictly with pydantic and with unknown keys
forbidden; then the rules those types cannot say and the APIs enforce (every tool call
answered right after it, Anthropic's alternating roles and id alphabet, no blank text).

pydantic validates ``Iterable`` fields lazily, so :func:`_force` walks the result and
consumes every iterator: otherwise a wrong block inside a list would pass unseen.
Messages are validated one by one and remembered: the contexts of one session share
most of their messages, and the SDKs' large unions take milliseconds per message.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pydantic import ConfigDict, TypeAdapter

STRICT = ConfigDict(strict=True, extra="forbid")
ANTHROPIC_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ANTHROPIC_IMAGES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


@cache
def _openai_adapter() -> TypeAdapter[Any]:
    from openai.types.chat import ChatCompletionMessageParam

    return TypeAdapter(ChatCompletionMessageParam, config=STRICT)


@cache
def _anthropic_adapter() -> TypeAdapter[Any]:
    from anthropic.types import MessageParam

    return TypeAdapter(MessageParam, config=STRICT)


_VALID: set[tuple[str, str]] = set()  # (format, message as JSON) already validated


def _validate(adapter: TypeAdapter[Any], format: str, messages: list[dict[str, Any]]) -> None:
    """Each message through the SDK's type (a request body is JSON, so it must dump)."""
    for message in messages:
        key = (format, json.dumps(message, sort_keys=True))
        if key not in _VALID:
            _force(adapter.validate_python(message))
            _VALID.add(key)


def _force(value: Any) -> Any:
    """Consume pydantic's lazy iterators, so that every nested item is validated."""
    if isinstance(value, dict):
        return {key: _force(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_force(item) for item in value]
    if hasattr(value, "__next__"):
        return [_force(item) for item in value]
    return value


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content or [] if part.get("type") == "text"]


def check_openai(messages: list[dict[str, Any]]) -> None:
    """Chat Completions: the SDK's types, and tool messages right after their calls."""
    assert isinstance(messages, list)
    _validate(_openai_adapter(), "openai", messages)
    i = 0
    while i < len(messages):
        message = messages[i]
        role = message["role"]
        assert role in ("user", "assistant", "tool"), message
        assert role != "tool", f"tool message {i} does not follow its call"
        calls = message.get("tool_calls") or []
        if role == "assistant":
            assert calls or _texts(message.get("content")), f"empty assistant message {i}"
        if role == "user":
            assert message["content"], f"empty user message {i}"
        for text in _texts(message.get("content")):
            assert text.strip(), f"blank text in message {i}"
        ids = [call["id"] for call in calls]
        assert len(set(ids)) == len(ids), f"repeated call ids in message {i}"
        answers = messages[i + 1 : i + 1 + len(ids)]
        assert [m["role"] for m in answers] == ["tool"] * len(ids), f"calls {ids} unanswered"
        assert sorted(m["tool_call_id"] for m in answers) == sorted(ids)
        i += 1 + len(ids)


def check_anthropic(messages: list[dict[str, Any]]) -> None:
    """Messages API: the SDK's types, alternating roles from a user message, every
    tool_use answered first thing in the next user message, ids in Anthropic's alphabet."""
    assert isinstance(messages, list)
    _validate(_anthropic_adapter(), "anthropic", messages)
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        assert message["role"] == ("user" if i % 2 == 0 else "assistant"), f"message {i}"
        content = message["content"]
        assert isinstance(content, list) and content, f"empty message {i}"
        for block in content:
            kind = block["type"]
            if kind == "text":
                assert block["text"].strip(), f"blank text in message {i}"
            elif kind == "image":
                assert block["source"]["media_type"] in ANTHROPIC_IMAGES
            elif kind in ("thinking", "redacted_thinking", "tool_use"):
                assert message["role"] == "assistant", f"{kind} in a user message {i}"
        uses = [b["id"] for b in content if b["type"] == "tool_use"]
        for use in uses:
            assert ANTHROPIC_ID.match(use), use
            assert use not in seen_ids, f"tool_use id {use!r} repeated"
            seen_ids.add(use)
        results = [b for b in content if b["type"] == "tool_result"]
        if results:
            assert message["role"] == "user"
            # results come first, and answer exactly the calls just before
            assert [b["type"] for b in content[: len(results)]] == ["tool_result"] * len(results)
            previous = messages[i - 1]["content"] if i else []
            asked = [b["id"] for b in previous if b["type"] == "tool_use"]
            assert sorted(b["tool_use_id"] for b in results) == sorted(asked), f"message {i}"
        if uses:
            assert i + 1 < len(messages), f"tool_use in the last message {i} is unanswered"
            after = messages[i + 1]["content"]
            answered = [b["tool_use_id"] for b in after if b["type"] == "tool_result"]
            assert sorted(answered) == sorted(uses)


def check(messages: list[dict[str, Any]], format: str) -> None:
    (check_openai if format == "openai" else check_anthropic)(messages)
