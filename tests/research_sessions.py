"""Small hand-written sessions whose figures are worked out by hand in the tests.

BRANCHY (cwd /proj), file order; the active leaf is the last line, a5:

    r1 user
    a1 assistant  100 tok  $0.10   read /proj/src/a.py
    t1 toolResult
    a2 assistant  200 tok  $0.20                      <- fork: u2 (branch X), u3 (branch Y)
      u2 user                  X
      a3 assistant 300 tok $0.30 "X answer"
      u3 user                  Y
      a4 assistant 400 tok $0.40 edit /proj/src/b.py
      t4 toolResult
      a5 assistant  50 tok $0.05 "Y answer\\nsecond line"

COMPACTED (linear, cwd /proj):

    u1 user "one"; a1 read /proj/src/a.py; t1; a2 "first"; u2 "q"*40; a3 "r"*80
    c1 compaction first kept u2, tokensBefore 1000, summary "S"*400,
       readFiles [src/a.py, /proj/src/c.py], modifiedFiles [src/b.py]
    u3 "again"; a4 reads /proj/src/a.py and /proj/src/d.py (usage in 50, cache 20+5); t4
    a5 "f"*12
    c2 compaction first kept a5, tokensBefore 2000, tokensAfter 300, summary "T"*40
    u4 "u"*8; a6 "z"*16
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import header, msg, write_lines


def usage(total: int, cost: float, **parts: int) -> dict[str, Any]:
    return {
        "input": parts.get("input", total),
        "output": parts.get("output", 0),
        "cacheRead": parts.get("cacheRead", 0),
        "cacheWrite": parts.get("cacheWrite", 0),
        "totalTokens": total,
        "cost": {"total": cost},
    }


def call(call_id: str, name: str, path: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"path": path}}


def assistant(
    entry_id: str,
    parent: str,
    minute: int,
    total: int,
    cost: float,
    *blocks: dict[str, Any],
    text: str = "",
    stop: str = "stop",
    **parts: int,
) -> dict[str, Any]:
    content = ([{"type": "text", "text": text}] if text else []) + list(blocks)
    return msg(
        entry_id,
        parent,
        "assistant",
        minute=minute,
        content=content,
        stopReason=stop,
        usage=usage(total, cost, **parts),
    )


def result(entry_id: str, parent: str, minute: int, call_id: str, name: str) -> dict[str, Any]:
    return msg(
        entry_id,
        parent,
        "toolResult",
        "ok",
        minute,
        toolCallId=call_id,
        toolName=name,
        isError=False,
    )


def branchy(path: Path) -> Path:
    return write_lines(
        path,
        [
            header(cwd="/proj"),
            msg("r1", None, "user", "start", 0),
            assistant(
                "a1", "r1", 1, 100, 0.10, call("c1", "read", "/proj/src/a.py"), stop="toolUse"
            ),
            result("t1", "a1", 2, "c1", "read"),
            assistant("a2", "t1", 3, 200, 0.20, text="done first part"),
            msg("u2", "a2", "user", "try X", 4),
            assistant("a3", "u2", 5, 300, 0.30, text="X answer"),
            msg("u3", "a2", "user", "try Y", 6),
            assistant(
                "a4", "u3", 7, 400, 0.40, call("c4", "edit", "/proj/src/b.py"), stop="toolUse"
            ),
            result("t4", "a4", 8, "c4", "edit"),
            assistant("a5", "t4", 9, 50, 0.05, text="Y answer\nsecond line"),
        ],
    )


BRANCHY_TOTAL_COST = 0.10 + 0.20 + 0.30 + 0.40 + 0.05
BRANCHY_TOTAL_TOKENS = 100 + 200 + 300 + 400 + 50


def compacted(path: Path) -> Path:
    return write_lines(
        path,
        [
            header(cwd="/proj"),
            msg("u1", None, "user", "one", 0),
            assistant(
                "a1", "u1", 1, 10, 0.01, call("k1", "read", "/proj/src/a.py"), stop="toolUse"
            ),
            result("t1", "a1", 2, "k1", "read"),
            assistant("a2", "t1", 3, 10, 0.01, text="first"),
            msg("u2", "a2", "user", "q" * 40, 4),
            assistant("a3", "u2", 5, 10, 0.01, text="r" * 80),
            {
                "type": "compaction",
                "id": "c1",
                "parentId": "a3",
                "timestamp": "2026-01-05T10:06:00.000Z",
                "summary": "S" * 400,
                "firstKeptEntryId": "u2",
                "tokensBefore": 1000,
                "details": {
                    "readFiles": ["src/a.py", "/proj/src/c.py"],
                    "modifiedFiles": ["src/b.py"],
                },
            },
            msg("u3", "c1", "user", "again", 7),
            assistant(
                "a4",
                "u3",
                8,
                82,
                0.02,
                call("k4", "read", "/proj/src/a.py"),
                call("k5", "read", "/proj/src/d.py"),
                stop="toolUse",
                input=50,
                cacheRead=20,
                cacheWrite=5,
                output=7,
            ),
            result("t4", "a4", 9, "k4", "read"),
            assistant("a5", "t4", 10, 10, 0.01, text="f" * 12),
            {
                "type": "compaction",
                "id": "c2",
                "parentId": "a5",
                "timestamp": "2026-01-05T10:21:00.000Z",
                "summary": "T" * 40,
                "firstKeptEntryId": "a5",
                "tokensBefore": 2000,
                "tokensAfter": 300,
            },
            msg("u4", "c2", "user", "u" * 8, 22),
            assistant("a6", "u4", 23, 10, 0.01, text="z" * 16),
        ],
    )


def row_or_die(path: str) -> dict[str, Any]:
    """A corpus worker that dies (as on out-of-memory) on files named *die*."""
    import os

    from prime_nb.corpus import session_row

    if "die" in Path(path).name:
        os._exit(3)
    return session_row(path)
