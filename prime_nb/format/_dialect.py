"""The two dialects of the format: Prime Agent's files and the specification's names.

Everything inside prime_nb works on the canonical form (Prime Agent's names);
`to_canonical` maps a spec-dialect entry in, `to_dialect` maps one back out for writing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

Dialect = Literal["prime", "spec"]

SPEC_TO_PRIME = {
    "header": "session",
    "modelChange": "model_change",
    "thinkingLevel": "thinking_level_change",
    "thinkingLevelChange": "thinking_level_change",
    "branchSummary": "branch_summary",
    "serviceTierChange": "service_tier_change",
    "sessionInfo": "session_info",
    "sessionState": "session_state",
    "agentStatus": "agent_status",
    "gitState": "git_state",
    "childUsageAttributed": "child_usage_attributed",
    "customMessage": "custom_message",
}
PRIME_TO_SPEC = {
    "session": "header",
    "model_change": "modelChange",
    "thinking_level_change": "thinkingLevel",
    "branch_summary": "branchSummary",
}

#: key under which a canonical entry remembers its on-disk type when that differs
SOURCE_TYPE = "_sourceType"


def dialect_of_header(header: dict[str, Any]) -> Dialect:
    return "spec" if header.get("type") == "header" else "prime"


def iso_timestamp(value: Any) -> Any:
    """Unix ms (spec dialect) to the ISO form Prime Agent writes; others unchanged."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return value
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return value


def ms_timestamp(value: Any) -> Any:
    """ISO timestamp to Unix ms, for writing in the spec dialect."""
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)  # Prime Agent's timestamps are UTC
        # round, not int(): float seconds * 1000 can land just below the exact ms
        return round(moment.timestamp() * 1000)
    return value


def iso_moment(value: Any) -> datetime | None:
    """The moment :func:`iso_timestamp` writes for Unix ms ``value`` (cut to the ms), when
    its text is the plain ``YYYY-MM-DDTHH:MM:SS.mmmZ``: years 1000 to 9999, which every
    platform's ``%Y`` writes with four digits. None otherwise (not a number, out of range).

    The loader reads the time from this moment directly, not from the text: the same
    value, without writing and parsing a string per entry.
    """
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    if not 1000 <= moment.year <= 9999:
        return None
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def to_canonical(entry: dict[str, Any], iso_times: bool = True) -> dict[str, Any]:
    """Rename a spec-dialect entry in place to Prime Agent's names and shapes.

    ``iso_times=False`` leaves the entry's ``timestamp`` in Unix ms, for a reader that
    takes the time with :func:`iso_moment` (the loader); all else is as with ``True``.
    """
    kind = entry["type"]
    renamed = SPEC_TO_PRIME.get(kind)
    if renamed is not None:
        entry["type"] = renamed
    elif kind in ("custom", "hookMessage"):
        if "content" in entry and "data" not in entry:
            entry["type"] = "custom_message"
            entry.setdefault("display", True)
        else:
            entry["type"] = "custom"
        if kind == "hookMessage":
            entry[SOURCE_TYPE] = kind
    elif kind == "toolCall":
        entry["type"] = "message"
        entry[SOURCE_TYPE] = kind
        entry["message"] = {
            "role": "assistant",
            "content": [
                {
                    "type": "toolCall",
                    "id": entry.pop("toolCallId", None),
                    "name": entry.pop("name", None),
                    "arguments": entry.pop("arguments", {}),
                }
            ],
            "timestamp": entry.get("timestamp"),
        }
    elif kind == "toolResult":
        entry["type"] = "message"
        entry[SOURCE_TYPE] = kind
        message = {"role": "toolResult", "timestamp": entry.get("timestamp")}
        for key in ("toolCallId", "toolName", "content", "isError", "details"):
            if key in entry:
                message[key] = entry.pop(key)
        entry["message"] = message
    if iso_times and "timestamp" in entry:
        entry["timestamp"] = iso_timestamp(entry["timestamp"])
    return entry


def header_to_canonical(header: dict[str, Any]) -> dict[str, Any]:
    """A spec header as a Prime Agent header (``workingDir`` -> ``cwd``, ISO time)."""
    out = dict(header)
    out["type"] = "session"
    if "workingDir" in out and "cwd" not in out:
        out["cwd"] = out.pop("workingDir")
    if "sessionId" in out and "id" not in out:
        out["id"] = out.pop("sessionId")
    if "timestamp" in out:
        out["timestamp"] = iso_timestamp(out["timestamp"])
    return out


def to_dialect(entry: dict[str, Any], dialect: Dialect) -> dict[str, Any]:
    """A canonical entry written as ``dialect`` would (for appending to such a file)."""
    out = {k: v for k, v in entry.items() if k != SOURCE_TYPE}
    if dialect == "prime":
        return out
    kind = out["type"]
    message = out.get("message")
    if kind == "message" and isinstance(message, dict):
        role = message.get("role")
        if role == "toolResult":
            del out["message"]
            out["type"] = "toolResult"
            for key in ("toolCallId", "toolName", "content", "isError", "details"):
                if key in message:
                    out[key] = message[key]
        elif role == "assistant" and _is_bare_tool_call(message):
            call = message["content"][0]
            del out["message"]
            out["type"] = "toolCall"
            out["toolCallId"] = call.get("id")
            out["name"] = call.get("name")
            out["arguments"] = call.get("arguments", {})
    elif kind == "custom_message":
        out["type"] = "custom"
    else:
        out["type"] = PRIME_TO_SPEC.get(kind, kind)
    if kind == "session":
        out["type"] = "header"
        if "cwd" in out:
            out["workingDir"] = out.pop("cwd")
    if "timestamp" in out:
        out["timestamp"] = ms_timestamp(out["timestamp"])
    return out


def _is_bare_tool_call(message: dict[str, Any]) -> bool:
    """An assistant message that is one tool call and nothing else (no usage, model...).

    Only such a message becomes a spec ``toolCall`` entry: that entry has no room for
    anything more, and an assistant message with toolCall blocks loads in both dialects.
    """
    content = message.get("content")
    if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
        return False
    block = content[0]
    return (
        block.get("type") == "toolCall"
        and set(block) <= {"type", "id", "name", "arguments"}
        and set(message) <= {"role", "content", "timestamp"}
    )


#: what JavaScript's ``String.prototype.trim`` strips (Python's ``str.strip`` differs:
#: it strips U+001C..U+001F and U+0085, but not U+FEFF)
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``text.trim()`` as the agent computes it (session names are trimmed so)."""
    return text.strip(JS_WHITESPACE)


def rlm_depth_of(value: Any) -> int | None:
    """A header's ``rlmDepth`` as the agent accepts it (``isValidRlmDepth``: a number that
    is a safe integer, 0 or more; JSON's ``3.0`` is the number 3), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not (0 <= value <= 2**53 - 1) or value != int(value):
        return None
    return int(value)
