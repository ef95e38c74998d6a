"""Plain-text renderings of entries: previews for tables, full text for search."""

from __future__ import annotations

import re
from typing import Any

from ._turns import to_json

PREVIEW_CHARS = 300
#: a character ``str.strip`` keeps (it strips what ``re`` calls ``\s``)
_SHOWS = re.compile(r"\S")


def content_text(content: Any, images: bool = True) -> str:
    """The text of a message content (string or list of blocks), one block a line.

    Images show as ``[image]`` where a person reads the text (previews, the widget's
    search); ``images=False`` leaves them out, for the corpus search, whose fields hold
    only what the session wrote.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            value = block.get("text")
            if isinstance(value, str):
                parts.append(value)
        elif kind == "image" and images:
            parts.append("[image]")
    return "\n".join(parts)


def tool_call_text(block: dict[str, Any]) -> str:
    """``name(arguments)``, the arguments as the same JSON text a chat message carries."""
    args = block.get("arguments")
    rendered = to_json(args) if args is not None else ""
    return f"{block.get('name')}({rendered[:PREVIEW_CHARS]})"


def message_text(message: dict[str, Any], full: bool = False) -> str:
    """What a person reads first in a message: its text, else its tool calls or thinking."""
    role = message.get("role")
    if role == "bashExecution":
        return f"$ {message.get('command', '')}\n{message.get('output', '')}"
    content = message.get("content")
    text = content_text(content)
    if role == "assistant" and isinstance(content, list):
        extra: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "toolCall":
                extra.append(tool_call_text(block))
            elif block.get("type") == "thinking" and (full or not text):
                thinking = block.get("thinking")
                if isinstance(thinking, str):
                    extra.append(thinking)
        if extra and (full or not text):
            text = "\n".join([text, *extra]) if text else "\n".join(extra)
    if not text and message.get("errorMessage"):
        text = str(message["errorMessage"])
    return text


def context_message_text(message: dict[str, Any]) -> str:
    """What a person reads first in a message of a context (``Session.context``): the
    summary that stands in for a compaction or a branch, else :func:`message_text`."""
    if message.get("role") in ("compactionSummary", "branchSummary"):
        return str(message.get("summary") or "")
    return message_text(message)


def entry_text(entry: dict[str, Any], full: bool = False) -> str:
    """Text of any entry type, as the tree view and the search box see it."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        return message_text(message, full) if isinstance(message, dict) else ""
    if kind in ("compaction", "branch_summary"):
        return str(entry.get("summary") or "")
    if kind == "custom_message":
        return content_text(entry.get("content"))
    if kind == "label":
        return str(entry.get("label") or "")
    if kind == "session_info":
        return str(entry.get("name") or "")
    if kind == "model_change":
        return f"{entry.get('provider')}/{entry.get('modelId')}"
    if kind == "thinking_level_change":
        return str(entry.get("thinkingLevel") or "")
    if kind == "service_tier_change":
        return str(entry.get("serviceTier") or "")
    if kind == "custom":
        return str(entry.get("customType") or "")
    return _bookkeeping_text(kind, entry)


def _bookkeeping_text(kind: Any, entry: dict[str, Any]) -> str:
    """Session state, agent status and git state, as the tree view shows them."""
    if kind == "session_state":
        state = entry.get("state")
        return str(state.get("status") or "") if isinstance(state, dict) else ""
    if kind == "agent_status":
        status = entry.get("status")
        if not isinstance(status, dict):
            return ""
        task = status.get("taskState")
        summary = str(status.get("summary") or "")
        return f"[{task}] {summary}" if isinstance(task, str) and task else summary
    if kind == "git_state":
        git = entry.get("git")
        if not isinstance(git, dict):
            return ""
        parts = (git.get("repoUrl"), git.get("branch"), git.get("commit"))
        return " ".join(str(part) for part in parts if isinstance(part, str) and part)
    if kind == "child_usage_attributed":  # as the agent's tree view shows it
        usage = entry.get("childUsage")
        if not isinstance(usage, dict):
            return "child usage"
        counts = [usage.get(key) for key in ("input", "cacheRead", "cacheWrite", "output")]
        numbers = [c for c in counts if isinstance(c, int | float) and not isinstance(c, bool)]
        if len(numbers) < len(counts):
            return "child usage"
        read, written = sum(numbers[:3]), numbers[3]
        return f"child usage: {_count(read)} input, {_count(written)} output"
    return ""


def _count(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last an ellipsis where it was cut, so
    that every preview, node line and short text of the package says so the same way."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (each run of whitespace one space), clipped to ``limit``."""
    return clip(" ".join(text.split()), limit)


def preview(text: str) -> str:
    """``clip(text.strip(), PREVIEW_CHARS)``, without copying more of a long text than
    it shows (the tables take one of every entry): a cut ending in whitespace keeps its
    ellipsis when the text goes on past it."""
    text = text.lstrip()  # no copy when there is nothing to strip
    if len(text) <= PREVIEW_CHARS + 1:
        return clip(text.rstrip(), PREVIEW_CHARS)
    head = text[: PREVIEW_CHARS + 1]
    if head[-1].isspace() and _SHOWS.search(text, PREVIEW_CHARS + 1):
        return clip(head, PREVIEW_CHARS)
    return clip(head.rstrip(), PREVIEW_CHARS)
