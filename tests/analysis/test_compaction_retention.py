"""Compaction retention counts exactly the facts planted in a session by hand
(``research_sessions.planted``: what it plants, and the counts it expects)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import header, msg, write_lines
from research_sessions import CURL, EXPECTED, planted
from schema_checks import mismatches
from session_matrix import CASES, compaction_entries, write_case

import prime_nb
from prime_nb.analysis import compaction_forensics, compaction_retention
from prime_nb.analysis._retention import KINDS
from sessiongen import write_jsonl


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


def test_chained_compactions_each_find_the_first_use_below_them(tmp_path: Path) -> None:
    """c1 loses a.py, c2 loses b.py; a.py is read again only after c2, b.py after both."""

    def read(entry_id: str, parent: str, file: str) -> list[dict[str, Any]]:
        call = {"type": "toolCall", "id": f"k{entry_id}", "name": "read", "arguments": {}}
        call["arguments"]["path"] = file
        return [
            msg(entry_id, parent, "assistant", "", 1, content=[call]),
            msg(f"t{entry_id}", entry_id, "toolResult", "x", 1, toolCallId=f"k{entry_id}"),
        ]

    def compaction(entry_id: str, parent: str, kept: str) -> dict[str, Any]:
        return {
            "type": "compaction",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2026-01-05T10:30:00.000Z",
            "summary": "nothing named",
            "firstKeptEntryId": kept,
            "tokensBefore": 100,
        }

    path = write_lines(
        tmp_path / "chained.jsonl",
        [
            header(cwd="/proj"),
            msg("u1", None, "user", "one"),
            *read("a1", "u1", "/proj/a.py"),
            msg("u2", "ta1", "user", "two"),
            compaction("c1", "u2", "u2"),
            *read("a2", "c1", "/proj/b.py"),
            msg("u3", "ta2", "user", "three"),
            compaction("c2", "u3", "u3"),
            *read("a3", "c2", "/proj/a.py"),
            *read("a4", "ta3", "/proj/b.py"),
        ],
    )
    detail = compaction_retention(path, detail=True)
    files = detail[detail["kind"] == "file"]
    got = list(zip(files["compaction_id"], files["value"], files["first_needed_id"], strict=True))
    assert got == [("c1", "a.py", "a3"), ("c2", "b.py", "a4")]


@pytest.mark.parametrize("shape", [(2, 2, 6), (8, 0, 0), (2, 0, 1)])
def test_both_dialects_of_one_session_keep_the_same_facts(
    shape: tuple[int, int, int], tmp_path: Path
) -> None:
    """The specification dialect writes each tool call as an entry of its own; the facts,
    what the summaries name and what was needed again do not change with the spelling."""
    tables = []
    for dialect in ("prime", "spec"):
        path = write_jsonl(tmp_path / f"{dialect}.jsonl", compaction_entries(*shape, 3, dialect))
        tables.append(compaction_retention(path))
    assert tables[0]["in_span"].sum() > 0 and tables[0]["needed_later"].sum() > 0
    pd.testing.assert_frame_equal(tables[0], tables[1])
