"""Context at several leaves of a hand-built tree, with and without compaction."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import header, msg, write_lines

import prime_nb

#   u1 - a1 - u2 - a2 - C1(kept u2) - u3 - a3 (leaf A, active? no)
#                  \- BS(branch summary) - u4 - a4 (leaf B)
#   the last line is a label on a3's branch: u5 under a3, making u5 the active leaf
ENTRIES = [
    header(thinkingLevel=None),
    msg("u1", None, "user", "first question", 0),
    msg("a1", "u1", "assistant", "first answer", 1),
    {
        "type": "model_change",
        "id": "mc",
        "parentId": "a1",
        "timestamp": "2026-01-05T10:02:00.000Z",
        "provider": "openai",
        "modelId": "gpt-x",
    },
    msg("u2", "mc", "user", "second question", 3),
    {
        "type": "thinking_level_change",
        "id": "tl",
        "parentId": "u2",
        "timestamp": "2026-01-05T10:04:00.000Z",
        "thinkingLevel": "high",
    },
    msg("a2", "tl", "assistant", "second answer", 5),
    {
        "type": "compaction",
        "id": "C1",
        "parentId": "a2",
        "timestamp": "2026-01-05T10:06:00.000Z",
        "summary": "we talked",
        "firstKeptEntryId": "u2",
        "tokensBefore": 1000,
    },
    msg("u3", "C1", "user", "third", 7),
    {
        "type": "custom_message",
        "id": "cm",
        "parentId": "u3",
        "customType": "note",
        "content": "ext says hi",
        "display": True,
        "timestamp": "2026-01-05T10:08:00.000Z",
    },
    {
        "type": "custom",
        "id": "cs",
        "parentId": "cm",
        "customType": "state",
        "data": {"k": 1},
        "timestamp": "2026-01-05T10:08:30.000Z",
    },
    msg("a3", "cs", "assistant", "third answer", 9),
    {
        "type": "branch_summary",
        "id": "BS",
        "parentId": "a1",
        "fromId": "a3",
        "summary": "tried X",
        "timestamp": "2026-01-05T10:10:00.000Z",
    },
    msg("u4", "BS", "user", "try again", 11),
    msg("a4", "u4", "assistant", "again", 12),
    {
        "type": "label",
        "id": "lb",
        "parentId": "a4",
        "targetId": "a4",
        "label": "good",
        "timestamp": "2026-01-05T10:13:00.000Z",
    },
    msg("u5", "a3", "user", "back on the first branch", 14),
]


@pytest.fixture()
def session(tmp_path: Path) -> prime_nb.Session:
    return prime_nb.load(write_lines(tmp_path / "tree.jsonl", ENTRIES))


def roles_and_ids(context: prime_nb.Context) -> list[tuple[str, str]]:
    return [(m["role"], m["entry_id"]) for m in context]


def test_active_leaf_with_compaction(session: prime_nb.Session) -> None:
    assert session.leaf_id == "u5"
    context = session.context()
    assert roles_and_ids(context) == [
        ("compactionSummary", "C1"),
        ("user", "u2"),
        ("assistant", "a2"),
        ("user", "u3"),
        ("custom", "cm"),
        ("assistant", "a3"),
        ("user", "u5"),
    ]
    assert context[0]["summary"] == "we talked" and context[0]["tokensBefore"] == 1000
    assert (context.provider, context.model) == ("anthropic", "claude-x")  # a3 came after mc
    assert context.thinking_level == "high"
    assert context.compaction_id == "C1"


def test_leaf_before_compaction(session: prime_nb.Session) -> None:
    context = session.context("a2")
    assert roles_and_ids(context) == [
        ("user", "u1"),
        ("assistant", "a1"),
        ("user", "u2"),
        ("assistant", "a2"),
    ]


def test_other_branch_has_branch_summary_and_no_compaction(session: prime_nb.Session) -> None:
    context = session.context("lb")
    assert roles_and_ids(context) == [
        ("user", "u1"),
        ("assistant", "a1"),
        ("branchSummary", "BS"),
        ("user", "u4"),
        ("assistant", "a4"),
    ]
    assert context[2]["summary"] == "tried X" and context[2]["fromId"] == "a3"
    assert context.thinking_level == "off"
    assert context.model == "claude-x"


def test_model_from_model_change(session: prime_nb.Session) -> None:
    context = session.context("u2")
    assert (context.provider, context.model) == ("openai", "gpt-x")


def test_tables_for_the_tree(session: prime_nb.Session) -> None:
    entries = session.entries
    assert entries.loc["a1", "children"] == 2
    assert list(session.children("a1")) == ["mc", "BS"]  # oldest first
    assert set(session.leaves.index) == {"lb", "u5"}
    assert session.leaves.loc["u5", "is_active"]
    assert session.leaves.loc["lb", "tokens"] == 15 * 2  # a1 and a4
    assert session.leaves.loc["u5", "tokens"] == 15 * 3  # a1, a2, a3
    assert session.labels == {"a4": "good"}
    assert entries.loc["a4", "label"] == "good"
    assert entries["on_active_path"].sum() == len(session.path())
    assert session.compactions.loc["C1", "entries_summarised"] == 2  # u1, a1
    assert session.messages.index.tolist() == [
        "u1",
        "a1",
        "u2",
        "a2",
        "u3",
        "cm",
        "a3",
        "u4",
        "a4",
        "u5",
    ]


def test_compaction_token_counts_survive_missing_ones(tmp_path: Path) -> None:
    entries = [
        header(),
        msg("u1", None, "user", "q", 0),
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "u1",
            "summary": "s1",
            "firstKeptEntryId": "u1",
            "tokensBefore": 1000,
        },
        msg("u2", "c1", "user", "q2", 2),
        {
            "type": "compaction",
            "id": "c2",
            "parentId": "u2",
            "summary": "s2",
            "firstKeptEntryId": "u2",
            "tokensBefore": 2000.0,
            "tokensAfter": 300,
        },
    ]
    frame = prime_nb.load(write_lines(tmp_path / "c.jsonl", entries)).compactions
    assert frame["tokens_before"].tolist() == [1000, 2000]
    assert frame.loc["c2", "tokens_after"] == 300
    assert frame["tokens_after"].isna().tolist() == [True, False]
