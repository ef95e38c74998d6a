"""A session whose every shown string is markup aimed at a figure: a link, an image and a
styled span, each pointing at a local server (``port``), in the session's name, entry
ids, tool names, providers and models, texts, a thinking level, a stop reason and the
paths a compaction re-read.

Every figure of ``prime_nb.plots`` draws something from it (a fork, tool calls with
results, a model change, a thinking-level change, a compaction whose files are read
again), so the tests can count what a figure drew of the markup.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import header, msg, write_lines
from research_sessions import usage


def markup(port: int, what: str) -> str:
    """A link, an image, a styled span, a style sheet and a ``javascript:`` link, each
    naming ``what`` in its URL; plotly's own ``<br>`` and ``<b>``, an entity, and a
    right-to-left override."""
    base = f"http://127.0.0.1:{port}"
    return (
        f'<a href="{base}/link-{what}">{what}</a>'
        f'<img src="{base}/img-{what}">'
        f'<span style="background:url({base}/css-{what});color:red">{what}</span>'
        f"<style>*{{background:url({base}/sheet-{what})}}</style>"
        f"<a href=\"javascript:fetch('{base}/js-{what}')\">js</a>"
        "<br><b>bold</b>&lt;i&gt;\u202eRTL"
    )


def hostile_session(path: Path, port: int, made: Callable[[str], str] | None = None) -> Path:
    """The session at ``path``; see the module docstring. ``made`` makes each string
    instead of :func:`markup` (given what it is for)."""

    def bad(what: str) -> str:
        return markup(port, what) if made is None else made(what)

    a1, a2, a4, c1 = bad("id-a1"), bad("id-a2"), bad("id-a4"), bad("id-c1")
    tool, provider, model = bad("tool"), bad("provider"), bad("model")
    read = bad("path")

    def assistant(entry_id: str, parent: str, minute: int, *blocks: Any, **extra: Any) -> Any:
        return msg(
            entry_id,
            parent,
            "assistant",
            minute=minute,
            content=list(blocks),
            provider=provider,
            model=model,
            stopReason=extra.pop("stop", bad("stop")),
            usage=usage(100 * minute, 0.01 * minute),
            **extra,
        )

    def call(call_id: str) -> dict[str, Any]:
        return {"type": "toolCall", "id": call_id, "name": tool, "arguments": {"path": read}}

    def result(entry_id: str, parent: str, minute: int, call_id: str) -> Any:
        return msg(
            entry_id,
            parent,
            "toolResult",
            bad("output"),
            minute,
            toolCallId=call_id,
            toolName=tool,
            isError=minute % 2 == 0,
        )

    def entry(kind: str, entry_id: str, parent: str, minute: int, **fields: Any) -> Any:
        stamp = f"2026-01-05T10:{minute:02d}:00.000Z"
        return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}

    text = {"type": "text", "text": bad("text")}
    lines = [
        header(id=bad("session-id"), cwd="/proj"),
        msg("r1", None, "user", bad("user"), 0),
        entry("session_info", "n1", "r1", 0, name=bad("name")),
        assistant(a1, "n1", 1, text, call("k1"), stop="toolUse"),
        result("t1", a1, 2, "k1"),
        assistant(a2, "t1", 3, text),
        msg("u2", a2, "user", bad("branch"), 4),
        assistant("a3", "u2", 5, text),  # the abandoned branch
        msg("u3", a2, "user", bad("other"), 6),
        entry("model_change", "m1", "u3", 7, provider=provider, modelId=model),
        entry("thinking_level_change", "h1", "m1", 8, thinkingLevel=bad("thinking")),
        assistant(a4, "h1", 9, text, call("k4"), stop="toolUse"),
        result("t4", a4, 10, "k4"),
        entry(
            "compaction",
            c1,
            "t4",
            11,
            summary=bad("summary"),
            firstKeptEntryId="t4",
            tokensBefore=5000,
            details={"readFiles": [read], "modifiedFiles": []},
        ),
        msg("u5", c1, "user", bad("again"), 12),
        assistant("a5", "u5", 13, text, call("k5"), stop="toolUse"),
        result("t5", "a5", 14, "k5"),
        assistant("a6", "t5", 15, text),
    ]
    write_lines(path, lines)
    return path
