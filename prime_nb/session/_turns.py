"""Session messages in a provider-neutral form, with tool calls and results paired.

The first half of :mod:`._messages`: the agent's own rules (roles, summaries, bash runs,
failed turns, stand-in results) applied once, so each provider's renderer only spells
the result; see that module's docstring for the rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

FORMATS = ("openai", "anthropic")
IMAGE_MODES = ("data_url", "drop")

#: the agent's wording around summaries, as the model read them
COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUFFIX = "\n</summary>"
BRANCH_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUFFIX = "</summary>"
#: the agent's stand-in result for a call that never got one
NO_RESULT = "No result provided"


@dataclass
class Turn:
    """One message in a provider-neutral form: blocks of ``text``, ``image``,
    ``thinking`` and ``call``; ``sources`` are the entry ids it came from."""

    role: Literal["user", "assistant", "tool"]
    blocks: list[dict[str, Any]]
    sources: list[str] = field(default_factory=list)
    call_id: str = ""
    is_error: bool = False
    failed: bool = False  # an assistant message that ended in error or was aborted


def check_options(format: str, images: str) -> None:
    """Reject an unknown format or image mode before any work."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    if images not in IMAGE_MODES:
        raise ValueError(f"images must be one of {IMAGE_MODES}, not {images!r}")


def _text(value: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}] if isinstance(value, str) and value.strip() else []


def _blocks(content: Any, images: bool, thinking: bool) -> list[dict[str, Any]]:
    """The usable blocks of a content (a string or a list of blocks); odd ones dropped."""
    if not isinstance(content, list):
        return _text(content)
    out: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            out += _text(block.get("text"))
        elif kind == "image" and images:
            data, mime = block.get("data"), block.get("mimeType")
            if isinstance(data, str) and data and isinstance(mime, str) and mime:
                out.append({"type": "image", "data": data, "mime": mime})
        elif kind == "thinking" and thinking:
            text, signature = block.get("thinking"), block.get("thinkingSignature")
            redacted = block.get("redacted") is True
            if redacted and not (isinstance(signature, str) and signature):
                continue
            if not redacted and not (isinstance(text, str) and text.strip()):
                continue
            signature = signature if isinstance(signature, str) and signature else None
            out.append(
                {"type": "thinking", "text": text, "signature": signature, "redacted": redacted}
            )
        elif kind == "toolCall":
            call = {key: block.get(key) for key in ("id", "name", "arguments")}
            out.append({"type": "call", **call})
    return out


def _bash_text(message: dict[str, Any]) -> str:
    """A bash run as the agent shows it to the model."""
    output, code = message.get("output"), message.get("exitCode")
    text = f"Ran `{message.get('command', '')}`\n"
    text += f"```\n{output}\n```" if isinstance(output, str) and output else "(no output)"
    if message.get("cancelled") is True:
        text += "\n\n(command cancelled)"
    elif isinstance(code, int) and not isinstance(code, bool) and code != 0:
        text += f"\n\nCommand exited with code {code}"
    full = message.get("fullOutputPath")
    if message.get("truncated") is True and isinstance(full, str) and full:
        text += f"\n\n[Output truncated. Full output: {full}]"
    return text


def neutral_turns(context: Sequence[dict[str, Any]], images: bool, thinking: bool) -> list[Turn]:
    """The context's messages as neutral turns, in order (roles mapped, parts cleaned)."""
    out: list[Turn] = []
    for message in context:
        role = message.get("role")
        ids = message.get("entry_ids") or [message.get("entry_id")]
        sources = [str(i) for i in ids if i is not None]
        if role == "assistant":
            stop = message.get("stopReason")
            blocks = _blocks(message.get("content"), images=False, thinking=thinking)
            out.append(Turn("assistant", blocks, sources, failed=stop in ("error", "aborted")))
        elif role == "toolResult":
            blocks = _blocks(message.get("content"), images, thinking=False)
            call = message.get("toolCallId")
            error = message.get("isError") is True
            out.append(Turn("tool", blocks, sources, call if isinstance(call, str) else "", error))
        elif role in ("user", "custom"):
            out.append(Turn("user", _blocks(message.get("content"), images, False), sources))
        elif role in ("compactionSummary", "branchSummary"):
            summary = message.get("summary")
            summary = summary if isinstance(summary, str) else ""
            if role == "compactionSummary":
                text = COMPACTION_PREFIX + summary + COMPACTION_SUFFIX
            else:
                text = BRANCH_PREFIX + summary + BRANCH_SUFFIX
            out.append(Turn("user", _text(text), sources))
        elif role == "bashExecution" and message.get("excludeFromContext") is not True:
            out.append(Turn("user", _text(_bash_text(message)), sources))
    return out


def pair_calls(turns: list[Turn], fix_id: Callable[[str], str]) -> list[Turn]:
    """Drop failed assistant turns and empty ones, give every call exactly one result
    right after it (a stand-in if none came), drop orphan results; ids made unique."""
    out: list[Turn] = []
    pending: dict[str, list[str]] = {}  # call id in the file -> final ids still unanswered
    used: set[str] = set()

    def settle() -> None:
        for finals in pending.values():
            for final in finals:
                out.append(Turn("tool", [{"type": "text", "text": NO_RESULT}], [], final, True))
        pending.clear()

    def unique(raw: str) -> str:
        base = fix_id(raw) or "call"
        final, n = base, 1
        while final in used:
            n += 1
            final = f"{base}_{n}"
        used.add(final)
        return final

    for turn in turns:
        if turn.role == "tool":
            finals = pending.get(turn.call_id)
            if finals:  # an orphan (no pending call of that id) is dropped
                turn.call_id = finals.pop(0)
                out.append(turn)
            continue
        settle()
        if turn.failed or not turn.blocks:
            continue
        for block in turn.blocks:
            if block["type"] == "call":
                raw = block["id"] if isinstance(block["id"], str) else ""
                block["id"] = unique(raw)
                pending.setdefault(raw, []).append(block["id"])
        out.append(turn)
    settle()
    return out


_ANTHROPIC_ID = re.compile(r"[^A-Za-z0-9_-]")


def anthropic_id(raw: str) -> str:
    """A tool call id in the alphabet Anthropic accepts (letters, digits, _ and -; 64)."""
    return _ANTHROPIC_ID.sub("_", raw)[:60]


def arguments_object(arguments: Any) -> dict[str, Any]:
    """Tool arguments as a JSON object: a JSON string of an object is read; any other
    value that is not an object is kept under ``value``."""
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    if isinstance(arguments, dict):
        return arguments
    return {} if arguments is None else {"value": arguments}


def to_json(value: Any) -> str:
    """Compact JSON text (orjson; the standard library for integers beyond 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def arguments_json(arguments: Any) -> str:
    """Tool arguments as the JSON text OpenAI carries (a string is taken as it is)."""
    if isinstance(arguments, str):
        return arguments
    return to_json({} if arguments is None else arguments)
