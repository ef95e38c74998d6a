"""Versions 1-3 and both dialects load into the same canonical tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

import prime_nb

T0 = 1767607200000  # 2026-01-05T10:00:00Z in Unix ms


def spec_entries(version: int | None) -> list[dict[str, Any]]:
    head: dict[str, Any] = {"type": "header", "id": "spec-1", "workingDir": "/w", "timestamp": T0}
    if version is not None:
        head["version"] = version
    body: list[dict[str, Any]] = [
        {
            "type": "message",
            "timestamp": T0 + 1000,
            "message": {"role": "user", "content": "list files", "timestamp": T0 + 1000},
        },
        {
            "type": "message",
            "timestamp": T0 + 2000,
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "sure"}],
                "provider": "p",
                "model": "m",
                "stopReason": "toolUse",
                "usage": {"input": 5, "output": 5, "totalTokens": 10},
            },
        },
        {
            "type": "toolCall",
            "timestamp": T0 + 2500,
            "toolCallId": "call_1",
            "name": "bash",
            "arguments": {"command": "ls"},
        },
        {
            "type": "toolResult",
            "timestamp": T0 + 4000,
            "toolCallId": "call_1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "a.txt"}],
            "isError": False,
        },
        {"type": "modelChange", "timestamp": T0 + 5000, "provider": "p2", "modelId": "m2"},
        {"type": "thinkingLevel", "timestamp": T0 + 6000, "thinkingLevel": "low"},
        {
            "type": "hookMessage" if (version or 1) < 3 else "custom",
            "timestamp": T0 + 6500,
            "customType": "ext",
            "content": "from a hook",
            "display": True,
        },
        {
            "type": "compaction",
            "timestamp": T0 + 7000,
            "summary": "S",
            "tokensBefore": 900,
            "tokensAfter": 100,
        },
        {
            "type": "message",
            "timestamp": T0 + 8000,
            "message": {"role": "user", "content": "go on", "timestamp": T0 + 8000},
        },
    ]
    if version is None or version < 2:
        body[7]["firstKeptEntryIndex"] = 3
    else:
        ids = [f"{k:08x}" for k in range(1, len(body) + 1)]
        for k, entry in enumerate(body):
            entry["id"] = ids[k]
            entry["parentId"] = ids[k - 1] if k else None
        body[7]["firstKeptEntryId"] = ids[2]
    return [head, *body]


def test_spec_dialect_all_versions(tmp_path: Path) -> None:
    for version in (None, 2, 3):
        path = write_lines(tmp_path / f"spec{version}.jsonl", spec_entries(version))
        session = prime_nb.load(path)
        assert session.dialect == "spec"
        assert session.version == (version or 1)
        assert len(session.problems) == 0
        entries = session.entries
        assert list(entries["type"]) == [
            "message",
            "message",
            "message",
            "message",
            "model_change",
            "thinking_level_change",
            "custom_message",
            "compaction",
            "message",
        ]
        assert list(entries["role"].fillna("-")) == [
            "user",
            "assistant",
            "assistant",
            "toolResult",
            "-",
            "-",
            "-",
            "-",
            "user",
        ]
        assert str(entries["timestamp"].iloc[0]) == "2026-01-05 10:00:01+00:00"
        calls = session.tool_calls
        assert calls[["call_id", "name", "is_error"]].values.tolist() == [["call_1", "bash", False]]
        assert calls["latency"].iloc[0] == 1.5
        assert session.header["cwd"] == "/w"
        compaction = session.compactions.iloc[0]
        assert compaction["tokens_after"] == 100
        assert compaction["first_kept_entry_id"] == entries.index[2]
        context = session.context()
        assert [m["role"] for m in context] == [
            "compactionSummary",
            "assistant",
            "toolResult",
            "custom",
            "user",
        ]
        # the spec's separate toolCall entry is part of one assistant turn for the model
        assert context[1]["content"][-1]["name"] == "bash"
        assert context.thinking_level == "low" and context.model == "m2"
        full = session.entry(entries.index[2])
        assert full["type"] == "message" and full["message"]["content"][0]["type"] == "toolCall"
        assert full["timestamp"] == "2026-01-05T10:00:02.500Z"


def test_v2_hook_message_role_becomes_custom(tmp_path: Path) -> None:
    hook = msg("h1", "u1", "hookMessage", "hook text", 1, customType="x", display=True)
    path = write_lines(tmp_path / "v2.jsonl", [header(2), msg("u1", None, "user", "x"), hook])
    session = prime_nb.load(path)
    assert session.version == 2
    assert session.entries.loc["h1", "role"] == "custom"
    assert session.entry("h1")["message"]["role"] == "custom"
    assert session.context()[-1]["role"] == "custom"


def test_child_usage_attributed(tmp_path: Path) -> None:
    aggregate = {
        "input": 100,
        "output": 50,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 150,
        "cost": {"total": 0.5},
    }
    path = write_lines(
        tmp_path / "cu.jsonl",
        [
            header(),
            msg("u1", None, "user", "x"),
            msg("a1", "u1", "assistant", "y", 1),
            {
                "type": "child_usage_attributed",
                "id": "cu",
                "parentId": "a1",
                "targetId": "a1",
                "childUsage": {},
                "aggregateUsage": aggregate,
            },
        ],
    )
    row = prime_nb.load(path).entries.loc["a1"]
    assert (row["total_tokens"], row["cost"]) == (150, 0.5)


def test_labels_and_names_latest_wins(tmp_path: Path) -> None:
    def label(i: str, target: str, value: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "label", "id": i, "parentId": "u1", "targetId": target}
        if value is not None:
            out["label"] = value
        return out

    path = write_lines(
        tmp_path / "lab.jsonl",
        [
            header(),
            msg("u1", None, "user", "x"),
            label("l1", "u1", "one"),
            label("l2", "u1", "two"),
            label("l3", "l1", "tmp"),
            label("l4", "l1", None),
            {"type": "session_info", "id": "n1", "parentId": "u1", "name": "first"},
            {"type": "session_info", "id": "n2", "parentId": "u1", "name": "second"},
        ],
    )
    session = prime_nb.load(path)
    assert session.labels == {"u1": "two"}
    assert session.name == "second"


def test_migrate_list_of_dicts() -> None:
    raw = spec_entries(None)
    migrated = prime_nb.migrate(raw)
    assert raw[1].get("id") is None  # input untouched
    assert migrated[0]["type"] == "session" and migrated[0]["version"] == 3
    assert migrated[0]["cwd"] == "/w"
    ids = [e["id"] for e in migrated[1:]]
    assert len(set(ids)) == len(ids)
    assert migrated[1]["parentId"] is None and migrated[2]["parentId"] == ids[0]
    assert migrated[8]["firstKeptEntryId"] == ids[2]
    assert migrated[7]["type"] == "custom_message"
    assert prime_nb.migrate(raw) == migrated  # deterministic


@pytest.mark.parametrize("given", ["s.jsonl", b"s.jsonl", Path("s.jsonl")])
def test_migrate_given_a_path_says_what_reads_a_file(given: Any) -> None:
    """A path used to be iterated as characters: AttributeError: 'str' object has no
    attribute 'get'."""
    with pytest.raises(TypeError, match=r"not a path; .*prime_nb\.load\(path\)"):
        prime_nb.migrate(given)


def test_migrate_names_an_entry_that_is_no_dict() -> None:
    with pytest.raises(TypeError, match="entry 1 is of type str, not a dict"):
        prime_nb.migrate([{"type": "session", "version": 3, "id": "s"}, "line"])
    assert prime_nb.migrate([]) == []
