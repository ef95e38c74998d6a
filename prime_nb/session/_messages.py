"""A leaf's context as a provider's chat messages: OpenAI Chat Completions or Anthropic.

Why: evaluation and training tools read chat messages in a provider's request format,
not session entries. This turns :meth:`Session.context` (what the model saw) into a
list that the provider's own request validator accepts, by the agent's own rules where
it has them, so the messages are what the agent sent. ``docs/datasets.md`` lists the
rules (roles, failed turns, calls paired with results, images, thinking); besides:

- bash runs made with ``!!`` stay out, as the agent keeps them out of context; any
  other role is dropped; blank text is dropped, and so is a message left with nothing.
- Repeated call ids are made unique (``id_2``); for Anthropic, cut to its id alphabet.
- Anthropic: an image type it does not take becomes a one-line note; redacted thinking
  is a ``redacted_thinking`` block (dropped for OpenAI, which has no such field);
  neighbouring messages of one role are merged (tool results first), and a context
  that opens with the assistant gets a one-line user message before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._context import Context
from ._turns import (
    Turn,
    anthropic_id,
    arguments_json,
    arguments_object,
    check_options,
    neutral_turns,
    pair_calls,
)

Message = tuple[dict[str, Any], list[str]]  # a provider message and its source entry ids

#: the text before images that OpenAI tool messages cannot hold
TOOL_IMAGES = "Images from the tool results above:"
#: the user message put before a context that opens with the assistant (Anthropic)
OPENS_WITH_ASSISTANT = "(the conversation starts with an assistant message)"
ANTHROPIC_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def _name(value: Any) -> str:
    return value if isinstance(value, str) and value else "unknown_tool"


def _thinking_text(block: dict[str, Any]) -> str:
    return f"<thinking>\n{block['text']}\n</thinking>"


# -- OpenAI Chat Completions -----------------------------------------------------------------
def _openai_part(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] == "image":
        url = f"data:{block['mime']};base64,{block['data']}"
        return {"type": "image_url", "image_url": {"url": url}}
    return {"type": "text", "text": block["text"]}


def _openai_content(parts: list[dict[str, Any]]) -> Any:
    """One text part as a plain string (as most readers expect), else the list."""
    return parts[0]["text"] if len(parts) == 1 and parts[0]["type"] == "text" else parts


def _openai_assistant(turn: Turn) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in turn.blocks:
        if block["type"] == "text":
            parts.append({"type": "text", "text": block["text"]})
        elif block["type"] == "thinking" and not block["redacted"]:
            parts.append({"type": "text", "text": _thinking_text(block)})
        elif block["type"] == "call":
            function = {
                "name": _name(block["name"]),
                "arguments": arguments_json(block["arguments"]),
            }
            calls.append({"id": block["id"], "type": "function", "function": function})
    if not parts and not calls:
        return None  # held only redacted thinking
    message: dict[str, Any] = {"role": "assistant", "content": _openai_content(parts) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def to_openai(turns: list[Turn]) -> list[Message]:
    """Chat Completions messages: tool results as ``tool`` messages, their images after."""
    out: list[Message] = []
    images: list[dict[str, Any]] = []
    image_sources: list[str] = []

    def release() -> None:
        if images:
            content = [{"type": "text", "text": TOOL_IMAGES}, *images]
            out.append(({"role": "user", "content": content}, list(image_sources)))
            images.clear()
            image_sources.clear()

    for turn in turns:
        if turn.role != "tool":
            release()
        if turn.role == "user":
            parts = [_openai_part(block) for block in turn.blocks]
            out.append(({"role": "user", "content": _openai_content(parts)}, turn.sources))
        elif turn.role == "assistant":
            message = _openai_assistant(turn)
            if message is not None:
                out.append((message, turn.sources))
        else:
            text = "\n".join(b["text"] for b in turn.blocks if b["type"] == "text")
            tool = {"role": "tool", "tool_call_id": turn.call_id, "content": text}
            out.append((tool, turn.sources))
            found = [_openai_part(b) for b in turn.blocks if b["type"] == "image"]
            if found:
                images.extend(found)
                image_sources.extend(turn.sources)
    release()
    return out


# -- Anthropic Messages ----------------------------------------------------------------------
def _anthropic_block(block: dict[str, Any]) -> dict[str, Any]:
    kind = block["type"]
    if kind == "image":
        if block["mime"] not in ANTHROPIC_IMAGE_TYPES:
            note = f"[image left out: Anthropic does not take {block['mime']!r}]"
            return {"type": "text", "text": note}
        source = {"type": "base64", "media_type": block["mime"], "data": block["data"]}
        return {"type": "image", "source": source}
    if kind == "thinking":
        if block["redacted"]:
            return {"type": "redacted_thinking", "data": block["signature"]}
        if block["signature"] is None:
            return {"type": "text", "text": _thinking_text(block)}
        return {"type": "thinking", "thinking": block["text"], "signature": block["signature"]}
    if kind == "call":
        name, arguments = _name(block["name"]), arguments_object(block["arguments"])
        return {"type": "tool_use", "id": block["id"], "name": name, "input": arguments}
    return {"type": "text", "text": block["text"]}


def to_anthropic(turns: list[Turn]) -> list[Message]:
    """Messages API messages: roles alternate, tool results in the next user message."""
    out: list[Message] = []
    for turn in turns:
        role = "assistant" if turn.role == "assistant" else "user"
        blocks = [_anthropic_block(block) for block in turn.blocks]
        if turn.role == "tool":
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": turn.call_id}
            if blocks:
                result["content"] = blocks
            result["is_error"] = turn.is_error
            blocks = [result]
        if out and out[-1][0]["role"] == role:
            out[-1][0]["content"].extend(blocks)
            out[-1][1].extend(turn.sources)
        else:
            out.append(({"role": role, "content": blocks}, list(turn.sources)))
    if out and out[0][0]["role"] == "assistant":
        opener = {"role": "user", "content": [{"type": "text", "text": OPENS_WITH_ASSISTANT}]}
        out.insert(0, (opener, []))
    return out


def context_messages(
    context: Context | Sequence[dict[str, Any]],
    format: str = "openai",
    images: str = "data_url",
    thinking: bool = True,
) -> list[Message]:
    """The context as provider messages, each with the entry ids it came from."""
    check_options(format, images)
    turns = neutral_turns(context, images == "data_url", thinking)
    if format == "openai":
        return to_openai(pair_calls(turns, lambda raw: raw))
    return to_anthropic(pair_calls(turns, anthropic_id))


def to_messages(
    context: Context | Sequence[dict[str, Any]],
    format: str = "openai",
    images: str = "data_url",
    thinking: bool = True,
) -> list[dict[str, Any]]:
    """The context as a list of provider messages (see the module docstring for rules)."""
    return [message for message, _ in context_messages(context, format, images, thinking)]
