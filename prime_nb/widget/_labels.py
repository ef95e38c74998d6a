"""One line per tree node that says what the entry is, by type.

The tree view writes it beside every node, so none is blank: ``compaction · 10.2k → 0.6k
tokens``, ``model → anthropic/claude-sonnet-4-5``, ``bash · (no output)``, an unknown
type's name. Built once for every row, so the export and the saved state get the same
lines as the live widget.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..session import one_line

if TYPE_CHECKING:
    from ..session import Session

LINE_CHARS = 200


def short_count(n: float) -> str:
    """12345 -> "12.3k", 999 -> "999"."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(int(n))


#: The patterns read a line in time linear in its length, whatever it holds (session
#: text is untrusted, and a line may be megabytes): no two quantifiers may share what
#: they match (possessive ``*+`` where they could), and an opening mark's content stops
#: at the next opening mark, so a line of a thousand unclosed marks reads each stretch
#: once, not once per mark.
_FENCE = re.compile(r"^\s*+(```|~~~)")
#: a link's target in parentheses, which may hold one level of its own: ``(/wiki/a_(b))``
_TARGET = r"\((?:[^()]|\([^()]*\))*\)"
_TABLE_RULE = re.compile(r"^\s*+\|?\s*+:?-{3,}+:?\s*+(\|\s*+:?-{3,}+:?\s*+)*+\|?\s*+$")
_BLOCK = re.compile(r"^\s*+(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d{1,3}[.)]\s+)")
#: each with the text it cannot match without (looked for first, in C: most lines hold
#: no mark, and a pattern that cannot match leaves the line as it is)
_INLINE = (
    ("![", re.compile(rf"!\[([^\[\]]*)\]{_TARGET}"), r"\1"),  # image: its alt text
    ("](", re.compile(rf"\[([^\[\]]+)\]{_TARGET}"), r"\1"),  # link: its text
    ("`", re.compile(r"`([^`]+)`"), r"\1"),
    ("**", re.compile(r"\*\*(?=\S)((?:[^*]|\*(?!\*))+?)(?<=\S)\*\*"), r"\1"),
    ("__", re.compile(r"__(?=\S)((?:[^_]|_(?!_))+?)(?<=\S)__"), r"\1"),
    ("~~", re.compile(r"~~(?=\S)((?:[^~]|~(?!~))+?)(?<=\S)~~"), r"\1"),
    ("*", re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])"), r"\1"),
    ("_", re.compile(r"(?<!\w)_(?=\S)([^_]+?)(?<=\S)_(?!\w)"), r"\1"),
)


def plain_line(line: str) -> str:
    """One line of Markdown as the plain text a reader sees: no heading, quote or list
    marks, no emphasis or code marks, links as their text, a table row as its cells."""
    if line.lstrip().startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        line = " · ".join(c for c in cells if c)
    line = _BLOCK.sub("", line, count=1)
    for needle, pattern, repl in _INLINE:
        if needle in line:
            line = pattern.sub(repl, line)
    return line


#: where ``str.splitlines`` ends a line
_LINE_END = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _lines(text: str) -> Iterator[str]:
    """``text.splitlines()`` one line at a time: the label needs the first line with
    words, and a message may be megabytes of lines."""
    start = 0
    for end in _LINE_END.finditer(text):
        yield text[start : end.start()]
        start = end.end()
    if start < len(text):
        yield text[start:]


def first_line(text: Any, limit: int = LINE_CHARS) -> str:
    """The first line with words, as plain text (``plain_line``: rows show text, not
    Markdown; fences and a table's rule are skipped), whitespace collapsed, cut to
    ``limit`` characters."""
    if not isinstance(text, str):
        return ""
    for line in _lines(text):
        if not line.strip() or _FENCE.match(line) or _TABLE_RULE.match(line):
            continue
        plain = plain_line(line)
        if plain.strip():
            return one_line(plain, limit)
    return ""


def _num(value: Any) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _message(
    role: str, line: str, tool: str, error: bool, calls: float | None, thinking: bool, image: bool
) -> str:
    if role == "toolResult":
        head = f"{tool or 'tool'}{' ✗' if error else ''}"
        return f"{head} · {line}" if line else f"{head} · (no output)"
    if line:
        return line
    if role == "assistant":
        if calls:
            if tool:
                return f"→ {tool.replace(',', ', ')}"
            return f"→ {int(calls)} tool call{'s' if calls > 1 else ''}"
        return "(thinking only)" if thinking else "(no text)"
    if role == "user":
        return "(image)" if image else "(empty message)"
    return f"{role} · (empty)" if role else "(empty message)"


def entry_labels(session: Session) -> list[str]:
    """The node line of every row of ``session.entries``, in row order."""
    e = session.entries
    n = len(e)
    if n == 0:
        return []

    def col(name: str) -> list[Any]:
        return e[name].astype(object).tolist() if name in e else [None] * n

    types, roles, texts, tools = col("type"), col("role"), col("text"), col("tool_name")
    errors, calls = col("is_error"), col("n_tool_calls")
    thinking, images = col("has_thinking"), col("has_image")
    customs = col("custom_type")
    tokens: dict[str, tuple[float | None, float | None, float | None]] = {}
    comp = session.compactions
    if len(comp):
        before = comp["tokens_before"].astype(object).tolist()
        after = comp["tokens_after"].astype(object).tolist()
        summaries = comp["summary"].astype(object).tolist()
        for i, b, a, text in zip(comp.index, before, after, summaries, strict=True):
            tokens[str(i)] = (_num(b), _num(a), len(text) / 4 if isinstance(text, str) else None)
    ids = [str(i) for i in e.index]
    out: list[str] = []
    for r in range(n):
        kind = _str(types[r])
        line = first_line(texts[r])
        if kind == "message":
            out.append(
                _message(
                    _str(roles[r]),
                    line,
                    _str(tools[r]),
                    errors[r] is True,
                    _num(calls[r]),
                    thinking[r] is True,
                    images[r] is True,
                )
            )
        elif kind == "compaction":
            b, a, est = tokens.get(ids[r], (None, None, None))
            if b is not None and a is not None:
                out.append(f"compaction · {short_count(b)} → {short_count(a)} tokens")
            elif b is not None and est is not None:
                # the file records no size after: the summary's own size, estimated
                out.append(f"compaction · {short_count(b)} → ~{short_count(est)} tokens")
            elif b is not None:
                out.append(f"compaction · {short_count(b)} tokens summarised")
            else:
                out.append("compaction")
        else:
            out.append(_other(kind, line, _str(customs[r])))
    return out


_PREFIX = {
    "branch_summary": "branch summary",
    "model_change": "model →",
    "thinking_level_change": "thinking →",
    "service_tier_change": "service tier →",
    "label": "label:",
    "session_info": "name:",
    "session_state": "session state:",
    "agent_status": "status ·",
    "child_usage_attributed": "sub-agent ·",
}


def _other(kind: str, line: str, custom: str) -> str:
    if kind == "git_state":
        parts = line.split()
        if len(parts) >= 2 and len(parts[1]) >= 7:
            return f"git · {parts[0]} @ {parts[1][:7]}"
        return f"git · {line}" if line else "git state"
    if kind in ("custom_message", "custom"):
        head = custom or kind.replace("_", " ")
        return f"{head} · {line}" if line and line != custom else head
    if kind == "label" and not line:
        return "label cleared"
    if kind == "session_info" and not line:
        return "name cleared"
    prefix = _PREFIX.get(kind)
    if prefix is None:
        return f"{kind or 'entry'} · {line}" if line else (kind or "entry")
    if prefix.endswith("·") or prefix.endswith(":") or prefix.endswith("→"):
        return f"{prefix} {line}" if line else prefix.rstrip(" ·:→")
    return f"{prefix} · {line}" if line else prefix
