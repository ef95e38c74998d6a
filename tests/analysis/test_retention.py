"""Compaction retention counts exactly the facts planted in a session by hand.

PLANTED (cwd /proj): the span the compaction summarises reads four files, runs three
commands (one fails), greps three patterns (two identifiers); the summary names three
files (in three spellings), one command and one identifier. After the compaction, on the
branch the agent resumes, the agent reads the lost file again, runs the failed command
again (meeting its error again), greps the lost identifier again, and reads a named file
again (not needed: the summary had it). A side branch, not resumed, runs the curl again.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import header, msg, write_lines
from session_matrix import CASES, write_case

import prime_nb
from prime_nb.analysis import compaction_forensics, compaction_retention
from prime_nb.analysis._retention_walk import KINDS
from prime_nb.analysis._schemas import mismatches

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


def test_each_count_is_what_was_planted(tmp_path: Path) -> None:
    table = compaction_retention(planted(tmp_path / "p.jsonl"))
    assert mismatches("compaction_retention", table) == []
    assert table["compaction_id"].tolist() == ["c1"] * 5
    got = {
        kind: (span, summary, later, tokens)
        for kind, span, summary, later, tokens in table[
            ["kind", "in_span", "in_summary", "needed_later", "needed_later_tokens"]
        ].itertuples(index=False)
    }
    assert got == EXPECTED


def test_the_detail_names_each_fact_and_where_it_was_needed(tmp_path: Path) -> None:
    detail = compaction_retention(planted(tmp_path / "p.jsonl"), detail=True)
    assert mismatches("compaction_retention_detail", detail) == []
    rows = {
        (kind, value): (named, needed, None if pd.isna(first) else first)
        for kind, value, named, needed, first in detail[
            ["kind", "value", "in_summary", "needed_later", "first_needed_id"]
        ].itertuples(index=False)
    }
    missing = None
    assert rows == {
        ("file", "src/kept.py"): (True, False, missing),
        ("file", "src/lost.py"): (False, True, "a5"),
        ("file", "src/abs.py"): (True, False, missing),
        ("file", "src/rel.py"): (True, False, missing),
        ("command", "make test"): (True, False, missing),
        ("command", "rm -rf build"): (False, True, "a6"),
        ("command", CURL): (False, False, missing),
        ("url", "https://example.com/api/v1"): (False, False, missing),
        ("error", "Error: permission denied"): (False, True, "r4"),
        ("identifier", "load_rows"): (True, False, missing),
        ("identifier", "RetryPolicy"): (False, True, "a7"),
    }


def test_the_span_is_what_forensics_says_was_summarised(tmp_path: Path) -> None:
    """A fact of the kept messages is no fact of the span: the agent still sees it."""
    path = planted(tmp_path / "p.jsonl")
    assert compaction_forensics(path).at["c1", "summarised_ids"][-1] == "t10"


@pytest.mark.parametrize("name", CASES)
def test_every_session_of_the_matrix(name: str, tmp_path: Path) -> None:
    session = prime_nb.load(write_case(name, tmp_path))
    table = compaction_retention(session)
    detail = compaction_retention(session, detail=True)
    assert mismatches("compaction_retention", table) == []
    assert mismatches("compaction_retention_detail", detail) == []
    comps = session.compactions.index.tolist()
    assert table["compaction_id"].tolist() == [c for c in comps for _ in KINDS]
    assert table["kind"].tolist() == list(KINDS) * len(comps)
    assert (table["in_summary"] <= table["in_span"]).all()
    assert (table["needed_later"] <= table["in_span"] - table["in_summary"]).all()
    assert ((table["needed_later_tokens"] > 0) == (table["needed_later"] > 0)).all()
    assert not (detail["in_summary"] & detail["needed_later"]).any()
    assert (detail["needed_later"] == detail["first_needed_id"].notna()).all()
    counted = detail.groupby(["compaction_id", "kind"]).agg(
        in_span=("value", "size"), in_summary=("in_summary", "sum")
    )
    for (cid, kind), row in counted.iterrows():
        mine = table[(table["compaction_id"] == cid) & (table["kind"] == kind)].iloc[0]
        assert (mine["in_span"], mine["in_summary"]) == (row["in_span"], row["in_summary"])
