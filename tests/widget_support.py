"""Sessions for the widget tests: a hostile one (XSS payloads everywhere) and the filter rules.

The filter rules here are an independent Python reading of docs/format.md's tree-view table,
used to check what the JS shows.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

PAYLOADS = [
    "<img src=x onerror=\"window.__pwned='img'\">",
    "<script>window.__pwned='script'</script>",
    "<svg onload=\"window.__pwned='svg'\"><script>window.__pwned='svg2'</script></svg>",
    "[click me](javascript:window.__pwned='mdlink')",
    "<a href=\"javascript:window.__pwned='a'\">link</a>",
    "<a href=\"JaVaScRiPt&colon;window.__pwned='a2'\">link2</a>",
    "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
    '<div onmouseover="window.__pwned=\'hover\'" style="position:fixed;inset:0">cover</div>',
    "\"><img src=x onerror=window.__pwned='attr'>",
    "</script><script>window.__pwned='break'</script>",
    "<!--<script>window.__pwned='comment'</script>-->",
    "<details open ontoggle=\"window.__pwned='toggle'\">d</details>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned='mxss'>",
    "<form><button formaction=\"javascript:window.__pwned='form'\">go</button></form>",
    "<object data=\"javascript:window.__pwned='object'\"></object>",
    "<embed src=\"javascript:window.__pwned='embed'\">",
    '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=\'meta\'">',
    "<input autofocus onfocus=\"window.__pwned='focus'\">",
    "<video><source onerror=\"window.__pwned='video'\"></video>",
    "![pic](javascript:window.__pwned='mdimg')",
    "![remote](https://example.invalid/tracker.png)",
    "<style>@import url(https://example.invalid/x.css);</style>",
    "<body onload=\"window.__pwned='body'\">",
    "javascript:window.__pwned='bare'",
]
ALL = "\n\n".join(PAYLOADS)
SVG = base64.b64encode(
    b"<svg xmlns='http://www.w3.org/2000/svg' onload=\"window.__pwned='svgimg'\">"
    b"<script>window.__pwned='svgimg2'</script></svg>"
).decode()


def _ts(minute: int) -> str:
    return f"2026-01-05T10:{minute:02d}:00.000Z"


def hostile_entries() -> list[dict[str, Any]]:
    """Header + entries whose every text field carries XSS payloads."""
    usage = {
        "input": 10,
        "output": 5,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 15,
        "cost": {"total": 0.01},
    }
    out: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": "sess-<img src=x onerror=window.__pwned='sid'>",
            "timestamp": _ts(0),
            "cwd": "/tmp/<img src=x onerror=\"window.__pwned='cwd'\">",
        }
    ]

    def add(entry_id: str, parent: str | None, minute: int, **fields: Any) -> None:
        out.append({"id": entry_id, "parentId": parent, "timestamp": _ts(minute), **fields})

    def message(entry_id: str, parent: str | None, minute: int, msg: dict[str, Any]) -> None:
        add(entry_id, parent, minute, type="message", message={"timestamp": 0, **msg})

    add("a0000001", None, 1, type="session_info", name=f"Hostile {PAYLOADS[0]}")
    add("a0000002", "a0000001", 1, type="model_change", provider="x<script>", modelId=PAYLOADS[1])
    message("a0000003", "a0000002", 2, {"role": "user", "content": ALL})
    message(
        "a0000004",
        "a0000003",
        3,
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": ALL},
                {"type": "text", "text": ALL},
                {
                    "type": "toolCall",
                    "id": "call-1",
                    "name": PAYLOADS[0],
                    "arguments": {"command": ALL, PAYLOADS[2]: PAYLOADS[4]},
                },
            ],
            "provider": "p",
            "model": PAYLOADS[0],
            "usage": usage,
            "stopReason": "toolUse",
        },
    )
    message(
        "a0000005",
        "a0000004",
        4,
        {
            "role": "toolResult",
            "toolCallId": "call-1",
            "toolName": PAYLOADS[0],
            "isError": True,
            "content": [
                {"type": "text", "text": ALL},
                {"type": "image", "mimeType": "image/svg+xml", "data": SVG},
                {
                    "type": "image",
                    "mimeType": "image/png\" onerror=\"window.__pwned='mime'",
                    "data": "iVBORw0KGgo=",
                },
                {"type": "image", "mimeType": "image/png", "data": 'x" onerror="a()'},
            ],
        },
    )
    message(
        "a0000006",
        "a0000005",
        5,
        {
            "role": "bashExecution",
            "command": ALL,
            "output": ALL,
            "exitCode": 1,
            "cancelled": False,
            "truncated": False,
        },
    )
    add(
        "a0000007",
        "a0000006",
        6,
        type="custom_message",
        customType=PAYLOADS[0],
        content=ALL,
        display=True,
    )
    message(
        "a0000008",
        "a0000007",
        7,
        {
            "role": "custom",
            "customType": PAYLOADS[1],
            "content": [{"type": "text", "text": ALL}],
            "display": True,
        },
    )
    add(
        "a0000009",
        "a0000008",
        8,
        type="compaction",
        summary=ALL,
        firstKeptEntryId="a0000003",
        tokensBefore=1234,
        details={"readFiles": [PAYLOADS[0]], "modifiedFiles": [PAYLOADS[2]]},
    )
    add("a0000010", "a0000003", 9, type="branch_summary", fromId=PAYLOADS[0], summary=ALL)
    message(
        "a0000011",
        "a0000010",
        10,
        {
            "role": "assistant",
            "content": [{"type": "text", "text": ALL}],
            "provider": "p",
            "model": "m",
            "usage": usage,
            "stopReason": "error",
            "errorMessage": ALL,
        },
    )
    add("a0000012", "a0000011", 11, type="label", targetId="a0000011", label=PAYLOADS[0])
    add("a0000013", "a0000012", 12, type="custom", customType=PAYLOADS[2], data={"x": ALL})
    add("a0000014", "a0000013", 13, type="weird_<script>", payload=ALL)
    add("a0000015", "a0000009", 14, type="label", targetId="a0000004", label=PAYLOADS[9])
    add("a0000016", "a0000009", 15, type="thinking_level_change", thinkingLevel=PAYLOADS[3])
    message(
        "a0000017",
        "a0000016",
        16,
        {
            "role": "user",
            "content": [
                {"type": "text", "text": ALL},
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            ],
        },
    )
    return out


def write_hostile_session(path: Path) -> Path:
    with open(path, "wb") as fh:
        for entry in hostile_entries():
            fh.write(orjson.dumps(entry) + b"\n")
    return path


BOOKKEEPING = {
    "label",
    "custom",
    "model_change",
    "thinking_level_change",
    "service_tier_change",
    "session_info",
    "child_usage_attributed",
}


def shown_by_filter(session: Any, mode: str) -> set[str]:
    """Entry ids the agent's tree view shows under ``mode`` (docs/format.md)."""
    e: pd.DataFrame = session.entries
    types = e["type"].astype(object)
    roles = e["role"].astype(object)
    stop = e["stop_reason"].astype(object)
    tool_only = (
        (roles == "assistant")
        & (e["n_tool_calls"] > 0)
        & ~e["has_text"]
        & ~stop.isin(["error", "aborted"])
    )
    if mode == "all":
        keep = ~tool_only
    elif mode == "user-only":
        keep = (types == "message") & (roles == "user")
    elif mode == "labeled-only":
        keep = e["label"].notna()
    else:
        keep = ~types.isin(BOOKKEEPING)
        if mode == "no-tools":
            keep &= ~((types == "message") & (roles == "toolResult"))
    keep &= ~tool_only
    ids = set(e.index[keep.to_numpy(bool)])
    ids.add(session.leaf_id)
    return ids
