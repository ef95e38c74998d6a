"""Lines that hold two or more JSON objects glued together: ``{...}{...}``.

A writer that dies between writing an entry and writing its newline leaves the next
entry on the same line. The agent's ``JSON.parse`` refuses such a line, so it drops it
whole, and the loader drops it too (the tables and the context stay the agent's). What
the line held is told apart here, so that the problem names the entries that are
missing, and so that ``prime_nb.write.repair_file`` can write a copy with the line
split, which the agent then reads in full. Only lines that failed to parse come here.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["describe_glued", "glued_spans"]

#: JSON's white space between values (RFC 8259)
_SPACE = " \t\n\r"
#: most values looked at on one line: a line of thousands of `{}` is not worth reading
MOST_VALUES = 64


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def glued_spans(text: str) -> list[tuple[int, int, Any]] | None:
    """``(start, end, value)`` of each JSON value ``text`` holds one after another, when
    it holds two or more, at least one an object, and nothing else (white space apart);
    else None. ``text[start:end]`` is each value as written."""
    spans: list[tuple[int, int, Any]] = []
    at, size = 0, len(text)
    while True:
        while at < size and text[at] in _SPACE:
            at += 1
        if at >= size:
            break
        if len(spans) >= MOST_VALUES:
            return None
        try:
            value, end = _DECODER.raw_decode(text, at)
        except (ValueError, RecursionError):
            return None
        spans.append((at, end, value))
        at = end
    if len(spans) < 2 or not any(isinstance(v, dict) for _, _, v in spans):
        return None
    return spans


def describe_glued(values: list[Any]) -> str:
    """What glued values are, for a problem message: ``a 'message' entry (id 'u7') and
    a 'compaction' entry (id 'c1')``."""
    parts = [_describe(value) for value in values]
    if len(parts) > 4:
        parts = [*parts[:3], f"{len(parts) - 3} more"]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _describe(value: Any) -> str:
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__}"
    kind, entry_id = value.get("type"), value.get("id")
    what = f"a {_short(kind)} entry" if isinstance(kind, str) else "an object without a type"
    if isinstance(entry_id, str):
        return f"{what} (id {_short(entry_id)})"
    return f"{what} (no id)"


def _short(text: str, limit: int = 40) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
