"""Ids that hold a secret: replaced the same way wherever the id is written, so that every
tool result still finds its call and every entry its parent; ids that hold none stay as
written (the fixtures' tree and calls are the same after redaction)."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from same_shape import same_shape

import prime_nb
from prime_nb.redact import redact


def _github(seed: int) -> str:
    r = random.Random(seed)
    return "ghp_" + "".join(r.choice(string.ascii_letters + string.digits) for _ in range(36))


_IN_ENTRY, _IN_CALL, _IN_NAME, _IN_SPEC_CALL = (_github(n) for n in range(4))
SECRETS = [_IN_ENTRY, _IN_CALL, _IN_NAME, _IN_SPEC_CALL]


def _line(entry_type: str, entry_id: str, parent: str | None, **fields: Any) -> str:
    entry = {"type": entry_type, "id": entry_id, "parentId": parent}
    return json.dumps({**entry, "timestamp": "2026-01-05T10:00:00.000Z", **fields})


def _message(role: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": content, "timestamp": 1767607200000, **extra}


def _session(path: Path) -> Path:
    """A tree whose root's id is a token (the parent of the next entry, a label's target,
    a compaction's first kept entry, a branch summary's start), a call whose id is one and
    one whose name is one, each with its result, and a call with an ordinary id."""
    root = f"u-{_IN_ENTRY}"
    call, plain = f"call_{_IN_CALL}", "toolu_01A09q90qw90lq917835lq9"
    calls = [
        {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": "ls"}},
        {"type": "toolCall", "id": plain, "name": f"mcp_{_IN_NAME}", "arguments": {}},
    ]

    def result(n: str, call_id: str) -> str:
        text = [{"type": "text", "text": "ok"}]
        fields = {"toolCallId": call_id, "toolName": "bash", "isError": False}
        return _line("message", n, "a1", message=_message("toolResult", text, **fields))

    lines = [
        json.dumps({"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-05"}),
        _line("message", root, None, message=_message("user", "hello")),
        _line("message", "a1", root, message=_message("assistant", calls, stopReason="toolUse")),
        result("r1", call),
        result("r2", plain),
        _line("label", "l1", "r2", targetId=root, label="start"),
        _line("compaction", "c1", "l1", summary="so far", firstKeptEntryId=root, tokensBefore=9),
        _line("branch_summary", "b1", root, fromId=root, summary="tried"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _spec_session(path: Path) -> Path:
    """The specification's dialect: a call and its result are entries of their own."""
    call = f"call_{_IN_SPEC_CALL}"
    lines = [
        {"type": "session", "version": 3, "id": "s2", "timestamp": 1767607200000},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": 1767607200000,
         "role": "user", "content": "hi"},
        {"type": "toolCall", "id": "t1", "parentId": "u1", "timestamp": 1767607201000,
         "toolCallId": call, "name": "bash", "arguments": {"command": "ls"}},
        {"type": "toolResult", "id": "t2", "parentId": "t1", "timestamp": 1767607202000,
         "toolCallId": call, "toolName": "bash", "content": "ok", "isError": False},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("make", [_session, _spec_session])
def test_a_secret_in_an_id_goes_and_the_tree_and_pairs_stay(tmp_path: Path, make: Any) -> None:
    src = make(tmp_path / "ids.jsonl")
    result = redact(src, tmp_path / "out.jsonl", hostnames=[])
    assert result.path is not None
    shown = result.path.read_text("utf-8") + result.report.to_csv() + result.suspects.to_csv()
    left = [secret for secret in SECRETS if secret[4:16] in shown]
    assert left == []
    assert src.read_text("utf-8").count("ghp_") > 0 and "ghp_" not in shown
    same_shape(src, result.path)


def test_an_id_is_replaced_the_same_way_wherever_it_is_written(tmp_path: Path) -> None:
    src = _session(tmp_path / "ids.jsonl")
    out = redact(src, tmp_path / "out.jsonl", hostnames=[]).path
    assert out is not None
    entries = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    root = entries[1]["id"]
    assert _IN_ENTRY not in root
    assert entries[2]["parentId"] == root and entries[5]["targetId"] == root
    assert entries[6]["firstKeptEntryId"] == root and entries[7]["fromId"] == root
    calls = entries[2]["message"]["content"]
    assert _IN_CALL not in calls[0]["id"]
    assert entries[3]["message"]["toolCallId"] == calls[0]["id"]
    # an id that holds no secret stays as written, beside a name that holds one
    assert calls[1]["id"] == entries[4]["message"]["toolCallId"] == "toolu_01A09q90qw90lq917835lq9"
    assert _IN_NAME not in calls[1]["name"]
    # the report names an entry by its id as the redacted file writes it
    report = redact(src, tmp_path / "again.jsonl", hostnames=[]).report
    named = set(report["entry_id"].astype(str))
    assert root in named and not any(_IN_ENTRY[4:16] in i for i in named)


SMALL_FIXTURES = [p for p in sorted(FIXTURES.rglob("*.jsonl")) if p.stat().st_size < 200_000]


@pytest.mark.parametrize("path", SMALL_FIXTURES, ids=lambda p: p.name)
def test_the_fixtures_keep_their_ids_and_pairs(tmp_path: Path, path: Path) -> None:
    """Their ids hold no secret: each stays as written, each call keeps its result."""
    out = redact(path, tmp_path / path.name, hostnames=[]).path
    assert out is not None
    renamed = same_shape(path, out)
    assert all(old == new for old, new in renamed.items())
    old, new = prime_nb.load(path).tool_calls, prime_nb.load(out).tool_calls
    assert old["call_id"].tolist() == new["call_id"].tolist()
