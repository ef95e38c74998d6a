"""Tests for the session generators (sessiongen): the files are checked with plain JSON only.

Why not the loader: these files are what the loader is tested against, so they must be
checked independently of it.
"""

from __future__ import annotations

import base64
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from prime_nb.datasets import demo_session_path
from sessiongen import (
    large_session_entries,
    synthetic_entries,
    synthetic_session,
    write_large_session,
)

Entry = dict[str, Any]
HEX8 = re.compile(r"^[0-9a-f]{8}$")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
PNG = b"\x89PNG\r\n\x1a\n"

COMMON = {
    "label",
    "session_info",
    "session_state",
    "agent_status",
    "git_state",
    "child_usage_attributed",
    "service_tier_change",
    "compaction",
    "message",
    "future_thing",
}
PRIME_TYPES = COMMON | {
    "model_change",
    "thinking_level_change",
    "branch_summary",
    "custom",
    "custom_message",
}
SPEC_TYPES = COMMON | {"modelChange", "thinkingLevel", "branchSummary", "toolCall", "toolResult"}
TREE_CASES = [(v, d) for v in (2, 3) for d in ("prime", "spec")]
ALL_CASES = [(v, d) for v in (1, 2, 3) for d in ("prime", "spec")]


def read_jsonl(path: Path) -> list[Entry]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return [orjson.loads(line) for line in data.split(b"\n")[:-1]]


def ancestry(entries: list[Entry], leaf: str) -> list[Entry]:
    """Entries from the root to ``leaf`` (inclusive)."""
    by_id = {e["id"]: e for e in entries}
    path = []
    cur: str | None = leaf
    while cur is not None:
        path.append(by_id[cur])
        cur = by_id[cur]["parentId"]
    return path[::-1]


def check_tree(entries: list[Entry]) -> None:
    """Ids unique 8-hex, parents earlier, siblings in timestamp order, last = leaf."""
    seen: set[str] = set()
    assert entries[0]["parentId"] is None
    children: dict[str, list[Any]] = defaultdict(list)
    for e in entries:
        assert HEX8.match(e["id"]), e["id"]
        assert e["id"] not in seen
        assert e["parentId"] is None or e["parentId"] in seen, e
        seen.add(e["id"])
        children[e["parentId"]].append(e["timestamp"])
    for stamps in children.values():
        assert stamps == sorted(stamps)


def roles(entries: list[Entry]) -> set[str]:
    return {e["message"]["role"] for e in entries if e["type"] == "message"}


@pytest.mark.parametrize(("version", "dialect"), ALL_CASES)
def test_deterministic_for_a_seed(version: int, dialect: str) -> None:
    a = synthetic_entries(version=version, dialect=dialect, seed=7)
    b = synthetic_entries(version=version, dialect=dialect, seed=7)
    c = synthetic_entries(version=version, dialect=dialect, seed=8)
    assert orjson.dumps(a) == orjson.dumps(b)
    assert orjson.dumps(a) != orjson.dumps(c)


@pytest.mark.parametrize(("version", "dialect"), TREE_CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_ids_and_parents(version: int, dialect: str, seed: int) -> None:
    header, *entries = synthetic_entries(version=version, dialect=dialect, seed=seed)
    assert header["version"] == version
    check_tree(entries)


@pytest.mark.parametrize(("version", "dialect"), TREE_CASES)
def test_every_type_present(version: int, dialect: str) -> None:
    header, *entries = synthetic_entries(version=version, dialect=dialect)
    types = {e["type"] for e in entries}
    custom = "custom" if version == 3 else "hookMessage"
    if dialect == "prime":
        expected = PRIME_TYPES
        assert header["type"] == "session"
        assert roles(entries) == {"user", "assistant", "toolResult", "bashExecution", custom}
    else:
        expected = SPEC_TYPES | {custom}
        assert header["type"] == "header"
        assert roles(entries) == {"user", "assistant", "bashExecution", custom}
    assert types == expected
    labels = [e for e in entries if e["type"] == "label"]
    assert any("label" not in e for e in labels)  # a cleared label
    by_target: dict[str, list[str]] = defaultdict(list)
    for e in labels:
        if "label" in e:
            by_target[e["targetId"]].append(e["label"])
    assert any(len(set(v)) > 1 for v in by_target.values())  # a changed label
    assert len([e for e in entries if e["type"] == "session_info"]) == 2


@pytest.mark.parametrize(("version", "dialect"), ALL_CASES)
def test_message_contents(version: int, dialect: str) -> None:
    _, *entries = synthetic_entries(version=version, dialect=dialect)
    msgs = [e["message"] for e in entries if e["type"] == "message"]
    errors = [m for m in msgs if m.get("stopReason") == "error"]
    assert errors and all(m["errorMessage"] for m in errors)
    blocks = [b for m in msgs if isinstance(m.get("content"), list) for b in m["content"]]
    images = [b for b in blocks if b.get("type") == "image"]
    assert images and base64.b64decode(images[0]["data"]).startswith(PNG)
    assert any(b.get("type") == "thinking" and b["thinking"] for b in blocks)
    models = {m["model"] for m in msgs if m["role"] == "assistant"}
    assert len(models) == 2  # a model change
    for m in msgs:
        if m["role"] == "assistant":
            u = m["usage"]
            assert u["totalTokens"] == u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"]
            assert set(u["cost"]) == {"input", "output", "cacheRead", "cacheWrite", "total"}
    grown = [m["usage"]["cacheRead"] for m in msgs if m["role"] == "assistant"]
    assert max(grown) > 5_000
    if dialect == "prime":
        calls = {b["id"] for b in blocks if b.get("type") == "toolCall"}
        results = [m for m in msgs if m["role"] == "toolResult"]
    else:
        assert not any(b.get("type") == "toolCall" for b in blocks)
        calls = {e["toolCallId"] for e in entries if e["type"] == "toolCall"}
        results = [e for e in entries if e["type"] == "toolResult"]
    assert all(c.startswith("toolu_") for c in calls)
    assert {r["toolCallId"] for r in results} == calls
    assert any(r["isError"] for r in results)


@pytest.mark.parametrize("dialect", ["prime", "spec"])
def test_v1_is_linear_with_compaction_indices(dialect: str) -> None:
    lines = synthetic_entries(version=1, dialect=dialect)
    header = lines[0]
    assert "version" not in header
    if dialect == "prime":
        assert header["type"] == "session"
        assert {"provider", "modelId", "thinkingLevel"} <= set(header)
    else:
        assert set(header) == {"type", "id", "workingDir", "timestamp"}
    assert not any("id" in e or "parentId" in e for e in lines[1:])
    compactions = [(i, e) for i, e in enumerate(lines) if e["type"] == "compaction"]
    assert len(compactions) == 2
    previous = 0
    for i, e in compactions:
        assert "firstKeptEntryId" not in e
        kept = e["firstKeptEntryIndex"]
        assert previous < kept < i
        assert lines[kept]["type"] == "message"
        previous = i
    assert "hookMessage" in roles(lines[1:])
    assert not {"label", "branch_summary", "branchSummary"} & {e["type"] for e in lines}


@pytest.mark.parametrize("version", [1, 2, 3])
def test_spec_dialect_uses_ms_and_its_names(version: int) -> None:
    header, *entries = synthetic_entries(version=version, dialect="spec")
    assert header["type"] == "header"
    assert isinstance(header["timestamp"], int) and header["timestamp"] == 1_767_607_200_000
    assert all(type(e["timestamp"]) is int for e in entries)
    types = {e["type"] for e in entries}
    assert not types & {"model_change", "thinking_level_change", "branch_summary", "custom_message"}
    assert {"modelChange", "thinkingLevel", "toolCall", "toolResult"} <= types
    for e in entries:
        if e["type"] == "compaction":
            assert {"tokensBefore", "tokensAfter", "summary"} <= set(e)
            assert e["tokensAfter"] < e["tokensBefore"]
        if e["type"] == "toolCall":
            assert set(e) - {"id", "parentId"} == {
                "type",
                "timestamp",
                "toolCallId",
                "name",
                "arguments",
            }
        if e["type"] == "toolResult":
            assert set(e) - {"id", "parentId"} == {
                "type",
                "timestamp",
                "toolCallId",
                "toolName",
                "content",
                "isError",
            }
    if version > 1:
        by_id = {e["id"]: e for e in entries}
        for e in entries:
            if e["type"] == "toolCall":
                parent = by_id[e["parentId"]]
                assert parent["type"] == "toolCall" or parent["message"]["role"] == "assistant"


@pytest.mark.parametrize("version", [1, 2, 3])
def test_prime_dialect_uses_iso(version: int) -> None:
    header, *entries = synthetic_entries(version=version)
    assert ISO.match(header["timestamp"]) and header["timestamp"].startswith("2026-01-05T10")
    stamps = [e["timestamp"] for e in entries]
    assert all(ISO.match(s) for s in stamps)
    assert stamps == sorted(stamps)  # file order = time order


@pytest.mark.parametrize(("version", "dialect"), TREE_CASES)
@pytest.mark.parametrize("seed", [0, 3])
def test_compactions_and_active_leaf(version: int, dialect: str, seed: int) -> None:
    _, *entries = synthetic_entries(version=version, dialect=dialect, seed=seed)
    compactions = [e for e in entries if e["type"] == "compaction"]
    assert len(compactions) == 3
    path = ancestry(entries, entries[-1]["id"])
    assert [e["type"] for e in path].count("compaction") == 2
    assert entries[-1]["type"] == "message"
    for comp in compactions:
        ids = [e["id"] for e in ancestry(entries, comp["id"])]
        kept = ids.index(comp["firstKeptEntryId"])
        earlier = [
            ids.index(e["id"]) for e in entries if e["type"] == "compaction" and e["id"] in ids[:-1]
        ]
        for prev_pos in earlier:
            prev = entries[[e["id"] for e in entries].index(ids[prev_pos])]
            assert kept > ids.index(prev["firstKeptEntryId"])
    summaries = [e for e in entries if e["type"] in ("branch_summary", "branchSummary")]
    assert len(summaries) == 1
    assert summaries[0]["fromId"] not in {e["id"] for e in path}


def test_fork_count() -> None:
    for forks in (0, 1, 3, 6):
        _, *entries = synthetic_entries(forks=forks, turns=20)
        n_children: dict[str, int] = defaultdict(int)
        for e in entries:
            n_children[e["parentId"]] += 1
        assert sum(n - 1 for n in n_children.values() if n > 1) <= forks
        if forks:
            assert any(n > 1 for n in n_children.values())
        check_tree(entries)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"^version must be 1, 2 or 3, not 4$"):
        synthetic_entries(version=4)
    with pytest.raises(ValueError, match=r"^dialect must be 'prime' or 'spec', not 'other'$"):
        synthetic_entries(dialect="other")
    with pytest.raises(ValueError, match=r"^turns must be at least 12 to fit every entry type$"):
        synthetic_entries(turns=3)


def test_synthetic_session_writes_jsonl(tmp_path: Path) -> None:
    path = synthetic_session(tmp_path / "s.jsonl", version=2, seed=4)
    assert path == tmp_path / "s.jsonl"
    assert read_jsonl(path) == synthetic_entries(version=2, seed=4)


@pytest.mark.parametrize("dialect", ["prime", "spec"])
def test_write_large_session_size(tmp_path: Path, dialect: str) -> None:
    target = 5_000_000
    path = write_large_session(tmp_path / "big.jsonl", target, seed=1, dialect=dialect)
    size = path.stat().st_size
    assert abs(size - target) <= target * 0.1
    header, *entries = read_jsonl(path)
    assert header["version"] == 3
    check_tree(entries)
    types = {e["type"] for e in entries}
    assert {"compaction", "label"} <= types
    path_types = [e["type"] for e in ancestry(entries, entries[-1]["id"])]
    assert path_types.count("compaction") >= 2
    n_children: dict[str, int] = defaultdict(int)
    for e in entries:
        n_children[e["parentId"]] += 1
    assert sum(1 for n in n_children.values() if n > 1) >= len(entries) // 100
    assert max(len(orjson.dumps(e)) for e in entries) > 20_000  # some big file reads


def test_large_session_entries_count() -> None:
    for n in (0, 1, 2, 5, 39, 41, 1_000):
        out = list(large_session_entries(n, seed=2))
        assert len(out) == n + 1
        if n:
            check_tree(out[1:])
    entries = list(large_session_entries(3_000))[1:]
    check_tree(entries)
    assert entries[-1]["type"] == "message"
    assert [e["type"] for e in entries] == [
        e["type"] for e in list(large_session_entries(3_000))[1:]
    ]


def test_demo_session() -> None:
    path = demo_session_path()
    assert path.name == "demo-session.jsonl" and path.parent.name == "data"
    assert path.stat().st_size < 400_000
    header, *entries = read_jsonl(path)
    assert header["type"] == "session" and header["version"] == 3
    assert header["cwd"] == "/home/dev/projects/csvkit-lite"
    assert 150 <= len(entries) <= 250
    check_tree(entries)
    assert {e["type"] for e in entries} == PRIME_TYPES
    assert roles(entries) == {"user", "assistant", "toolResult", "bashExecution", "custom"}
    path_entries = ancestry(entries, entries[-1]["id"])
    assert [e["type"] for e in path_entries].count("compaction") == 2
    for e in entries:
        if e["type"] == "compaction":
            assert set(e["details"]) == {"readFiles", "modifiedFiles"}
    labels = {e.get("label") for e in entries if e["type"] == "label"}
    assert {"good fix", "bug found", None} <= labels


def test_demo_is_up_to_date() -> None:
    from sessiongen._demo import demo_entries

    expected = b"".join(orjson.dumps(e) + b"\n" for e in demo_entries())
    assert demo_session_path().read_bytes() == expected
