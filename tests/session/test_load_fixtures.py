"""The agent's own v1 test sessions: deterministic ids, compactions, context."""

from __future__ import annotations

import json
import re
from pathlib import Path

import prime_nb


def raw_objects(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_ids_are_deterministic_and_unique(fixtures_dir: Path) -> None:
    for path in sorted(fixtures_dir.glob("*.jsonl")):
        a, b = prime_nb.load(path), prime_nb.load(str(path))
        assert list(a.entries.index) == list(b.entries.index)
        assert a.entries.index.is_unique
        assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in a.entries.index)
        assert a.version == 1 and a.dialect == "prime"
        assert len(a.problems) == 0
        # v1 is linear: each entry's parent is the one before it
        ids = list(a.entries.index)
        assert a.entries["parent_id"].iloc[0] is None or a.entries["parent_id"].isna().iloc[0]
        assert list(a.entries["parent_id"].iloc[1:]) == ids[:-1]
        assert a.leaf_id == ids[-1]
        assert len(a.leaves) == 1


def test_compactions_resolve_to_the_indexed_entries(fixtures_dir: Path) -> None:
    path = fixtures_dir / "before-compaction.jsonl"
    raw = raw_objects(path)
    session = prime_nb.load(path)
    ids = list(session.entries.index)  # entry k of the file (header = 0) is ids[k - 1]
    compactions = session.compactions
    assert len(compactions) == 2
    expected = [
        (k, obj["firstKeptEntryIndex"], obj["tokensBefore"])
        for k, obj in enumerate(raw)
        if obj["type"] == "compaction"
    ]
    assert [(k, kept) for k, kept, _ in expected] == [(359, 293), (628, 551)]
    for (k, kept, tokens), (cid, row) in zip(expected, compactions.iterrows(), strict=True):
        assert cid == ids[k - 1]
        assert row["first_kept_entry_id"] == ids[kept - 1]
        assert row["tokens_before"] == tokens
        assert row["line"] == k + 1
        kept_entry = session.entry(row["first_kept_entry_id"])
        assert kept_entry["timestamp"] == raw[kept]["timestamp"]

    # summarised away, by hand: messages from the previous cut up to the first kept entry
    def messages(lo: int, hi: int) -> int:
        return sum(1 for obj in raw[lo:hi] if obj["type"] == "message")

    assert compactions["entries_summarised"].tolist() == [messages(1, 293), messages(293, 551)]


def test_context_at_leaf_starts_with_second_compaction(fixtures_dir: Path) -> None:
    path = fixtures_dir / "before-compaction.jsonl"
    raw = raw_objects(path)
    session = prime_nb.load(path)
    context = session.context()
    second = raw[628]
    assert context[0]["role"] == "compactionSummary"
    assert context[0]["summary"] == second["summary"]
    assert context[0]["tokensBefore"] == 185014
    # by hand: messages kept from index 551 up to the compaction, then everything after it
    kept = [o for o in raw[551:628] if o["type"] == "message"]
    after = [o for o in raw[629:] if o["type"] == "message"]
    assert len(context) == 1 + len(kept) + len(after)
    assert [m["timestamp"] for m in context[1:]] == [
        o["message"]["timestamp"] for o in kept + after
    ]
    assert context[1]["entry_id"] == session.compactions["first_kept_entry_id"].iloc[1]
    # model: the last model_change or assistant message on the path
    last_model = next(
        (o.get("modelId") or o["message"]["model"])
        for o in reversed(raw[1:])
        if o["type"] == "model_change"
        or (o["type"] == "message" and o["message"]["role"] == "assistant")
    )
    assert context.model == last_model
    last_level = [o["thinkingLevel"] for o in raw if o["type"] == "thinking_level_change"][-1]
    assert context.thinking_level == last_level


def test_context_without_compaction_is_every_message(fixtures_dir: Path) -> None:
    path = fixtures_dir / "large-session.jsonl"
    raw = raw_objects(path)
    session = prime_nb.load(path)
    context = session.context()
    assert len(context) == sum(1 for o in raw if o["type"] == "message")
    assert context.compaction_id is None
    # an earlier leaf: the context there is every message up to it
    mid = session.entries.index[100]
    assert len(session.context(mid)) == sum(1 for o in raw[1:102] if o["type"] == "message")


def test_tables_match_raw_counts(fixtures_dir: Path) -> None:
    path = fixtures_dir / "before-compaction.jsonl"
    raw = raw_objects(path)
    session = prime_nb.load(path)
    calls = [
        b
        for o in raw
        if o["type"] == "message" and o["message"]["role"] == "assistant"
        for b in o["message"]["content"]
        if b["type"] == "toolCall"
    ]
    assert len(session.tool_calls) == len(calls)
    assert session.tool_calls["result_id"].notna().sum() == sum(
        1 for o in raw if o["type"] == "message" and o["message"]["role"] == "toolResult"
    )
    usage_total = sum(
        o["message"]["usage"]["totalTokens"]
        for o in raw
        if o["type"] == "message" and o["message"]["role"] == "assistant"
    )
    assert int(session.entries["total_tokens"].sum()) == usage_total
    assert session.leaves["tokens"].iloc[0] == usage_total
    graph = session.graph
    assert graph.number_of_nodes() == len(raw) - 1
    assert graph.number_of_edges() == len(raw) - 2
    assert graph.nodes[session.leaf_id]["on_active_path"]
