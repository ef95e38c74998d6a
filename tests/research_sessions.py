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

PLANTED (cwd /proj), for compaction retention: the span the compaction summarises reads
four files, runs three commands (one fails), greps three patterns (two identifiers); the
summary names three files (in three spellings), one command and one identifier. After the
compaction, on the branch the agent resumes, the agent reads the lost file again, runs
the failed command again (meeting its error again), greps the lost identifier again, and
reads a named file again (not needed: the summary had it). A side branch, not resumed,
runs the curl again. ``EXPECTED`` holds the counts per kind.
"""

from __future__ import annotations

import json
import math
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


SUMMARY = (
    "Read ./src/kept.py, /proj/src/abs.py and src/rel.py; old copy at src/lost.py.orig. "
    "Ran make test. Looked at load_rows and RetryPolicyX. See https://example.com/api/v10."
)
CURL = "curl https://example.com/api/v1"


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def _calls(entry_id: str, parent: str, minute: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    return msg(
        entry_id, parent, "assistant", "", minute, content=list(blocks), stopReason="toolUse"
    )


def _result(
    entry_id: str, parent: str, minute: int, call_id: str, text: str, error: bool = False
) -> dict[str, Any]:
    return msg(
        entry_id,
        parent,
        "toolResult",
        text,
        minute,
        toolCallId=call_id,
        toolName="t",
        isError=error,
    )


def _tokens(name: str, arguments: dict[str, Any], result: str) -> int:
    """A call's cost as the agent estimates it: chars / 4 of the call, then of its result."""
    call = len(name) + len(json.dumps(arguments, separators=(",", ":")))
    return math.ceil(call / 4) + math.ceil(len(result) / 4)


DENIED = "Error:   permission denied\nat line 2"
LOST_TEXT = "x = 1\n" * 30
RETRY_TEXT = "src/net.py:3: class RetryPolicy"


def planted(path: Path) -> Path:
    return write_lines(
        path,
        [
            header(cwd="/proj"),
            msg("u1", None, "user", "start", 0),
            _calls(
                "a1",
                "u1",
                1,
                _call("k1", "read", path="/proj/src/kept.py"),
                _call("k2", "read", path="/proj/src/lost.py"),
                _call("k3", "read", path="/proj/src/abs.py"),
                _call("k4", "edit", path="src/rel.py", oldText="a", newText="b"),
            ),
            _result("t1", "a1", 2, "k1", "kept"),
            _result("t2", "t1", 2, "k2", LOST_TEXT),
            _result("t3", "t2", 2, "k3", "abs"),
            _result("t4", "t3", 2, "k4", "edited"),
            _calls(
                "a2",
                "t4",
                3,
                _call("k5", "bash", command="make   test"),
                _call("k6", "bash", command="rm -rf build"),
                _call("k7", "bash", command=CURL),
            ),
            _result("t5", "a2", 4, "k5", "ok"),
            _result("t6", "t5", 4, "k6", DENIED, error=True),
            _result("t7", "t6", 4, "k7", "{}"),
            _calls(
                "a3",
                "t7",
                5,
                _call("k8", "grep", pattern="load_rows"),
                _call("k9", "grep", pattern="RetryPolicy"),
                _call("k10", "grep", pattern="cfg\\b"),
            ),
            _result("t8", "a3", 6, "k8", "none"),
            _result("t9", "t8", 6, "k9", RETRY_TEXT),
            _result("t10", "t9", 6, "k10", "none"),
            msg("u2", "t10", "user", "go on", 7),
            msg("a4", "u2", "assistant", "ok", 8),
            {
                "type": "compaction",
                "id": "c1",
                "parentId": "a4",
                "timestamp": "2026-01-05T10:09:00.000Z",
                "summary": SUMMARY,
                "firstKeptEntryId": "u2",
                "tokensBefore": 5000,
            },
            msg("u3", "c1", "user", "next", 10),
            # a side branch the agent does not resume: its curl is no need of the summary
            _calls("s1", "u3", 11, _call("s9", "bash", command=CURL)),
            _result("s2", "s1", 12, "s9", "{}"),
            _calls(
                "a5",
                "u3",
                13,
                _call("m1", "read", path="/proj/src/lost.py"),
                _call("m2", "read", path="./src/kept.py"),
                _call("m3", "bash", command="make test"),
            ),
            _result("r1", "a5", 14, "m1", LOST_TEXT),
            _result("r2", "r1", 14, "m2", "kept"),
            _result("r3", "r2", 14, "m3", "ok"),
            _calls("a6", "r3", 15, _call("m4", "bash", command="rm  -rf build")),
            _result("r4", "a6", 16, "m4", DENIED, error=True),
            _calls("a7", "r4", 17, _call("m5", "grep", pattern="RetryPolicy")),
            _result("r5", "a7", 18, "m5", RETRY_TEXT),
            msg("a8", "r5", "assistant", "done", 19),
        ],
    )


#: kind -> (in_span, in_summary, needed_later, needed_later_tokens)
EXPECTED = {
    "file": (4, 3, 1, _tokens("read", {"path": "/proj/src/lost.py"}, LOST_TEXT)),
    "command": (3, 1, 1, _tokens("bash", {"command": "rm  -rf build"}, DENIED)),
    "error": (1, 0, 1, _tokens("bash", {"command": "rm  -rf build"}, DENIED)),
    "url": (1, 0, 0, 0),
    "identifier": (2, 1, 1, _tokens("grep", {"pattern": "RetryPolicy"}, RETRY_TEXT)),
}


def row_or_die(path: str) -> dict[str, Any]:
    """A corpus worker that dies (as on out-of-memory) on files named *die*."""
    import os

    from prime_nb.corpus import session_row

    if "die" in Path(path).name:
        os._exit(3)
    return session_row(path)
