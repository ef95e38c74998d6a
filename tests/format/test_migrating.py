"""Version 1 files migrate as the agent's own migration leaves them, case by case.

The agent's ``migrateV1ToV2`` (its session manager) gives every entry an id and walks
the file once: a compaction's ``firstKeptEntryIndex`` becomes ``firstKeptEntryId`` only
when it is a number (``typeof === "number"``), and then names whatever entry sits at
that index at that moment, the compaction itself included. Each case is checked where
prime_nb migrates: the loader (tables and context), ``migrate()`` and ``upgrade_file``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb import write
from prime_nb.format import migrate

ABSENT = object()


def v1_file(path: Path, compaction: dict[str, Any]) -> Path:
    """Header (index 0), q1 (1), a1 (2), the compaction (3), q2 (4): a version 1 file."""
    q1, a1, q2 = (
        msg("-", None, "user", "q1"),
        msg("-", None, "assistant", "a1"),
        msg("-", None, "user", "q2", 6),
    )
    for entry in (q1, a1, q2):
        del entry["id"], entry["parentId"]
    base = {"type": "compaction", "timestamp": "2026-01-05T10:05:00.000Z", "summary": "s"}
    compacted = {**base, "tokensBefore": 5, **compaction}
    return write_lines(path, [header(version=None), q1, a1, compacted, q2])


def texts(context: prime_nb.Context) -> list[str]:
    """Each message's text (a summary: its role)."""
    out = []
    for message in context:
        content = message.get("content") or message["role"]
        out.append(content if isinstance(content, str) else content[0]["text"])
    return out


def test_an_index_naming_the_compaction_itself_names_its_own_id(tmp_path: Path) -> None:
    """The agent gives the compaction its id before it resolves the index, so index 3
    names the compaction: ``firstKeptEntryId`` is its own id (prime_nb wrote null). No
    entry before it has that id, so nothing is kept, in the agent's context and ours."""
    path = v1_file(tmp_path / "v1.jsonl", {"firstKeptEntryIndex": 3})
    session = prime_nb.load(path)
    (own,) = session.compactions.index
    assert session.compactions.loc[own, "first_kept_entry_id"] == own
    assert session.entry(own)["firstKeptEntryId"] == own
    context = session.context()
    assert context[0]["retainedMessageCount"] == 0
    assert texts(context) == ["compactionSummary", "q2"]
    objects = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    migrated = migrate(objects)
    assert migrated[3]["firstKeptEntryId"] == migrated[3]["id"]
    assert "firstKeptEntryIndex" not in migrated[3]

    write.upgrade_file(path, backup=False)
    line = orjson.loads(path.read_bytes().splitlines()[3])
    assert line["firstKeptEntryId"] == line["id"] == own
    after = prime_nb.load(path)
    assert after.compactions.loc[own, "first_kept_entry_id"] == own
    assert list(after.context()) == list(context)


@pytest.mark.parametrize("index", ["2", True, None, [2]], ids=["string", "bool", "null", "list"])
@pytest.mark.parametrize("raw_id", [ABSENT, "zz000000"], ids=["no-id", "raw-id"])
def test_an_index_that_is_no_number_is_left_as_written(
    tmp_path: Path, index: Any, raw_id: Any
) -> None:
    """The agent migrates only a number: a string index ("2"), a boolean, null or a list
    stays in the entry, and ``firstKeptEntryId`` is whatever the line held (prime_nb
    dropped the index and wrote null over it). In a v1 file every id is new, so a
    ``firstKeptEntryId`` it held names nothing: nothing is kept either way."""
    fields: dict[str, Any] = {"firstKeptEntryIndex": index}
    if raw_id is not ABSENT:
        fields["firstKeptEntryId"] = raw_id
    path = v1_file(tmp_path / "v1.jsonl", fields)
    session = prime_nb.load(path)
    (own,) = session.compactions.index
    kept = session.compactions.loc[own, "first_kept_entry_id"]
    assert pd.isna(kept) if raw_id is ABSENT else kept == raw_id
    entry = session.entry(own)
    assert entry["firstKeptEntryIndex"] == index
    assert entry.get("firstKeptEntryId", ABSENT) == raw_id
    context = session.context()
    assert context[0]["retainedMessageCount"] == 0
    assert texts(context) == ["compactionSummary", "q2"]
    objects = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    migrated = migrate(objects)[3]
    assert migrated["firstKeptEntryIndex"] == index
    assert migrated.get("firstKeptEntryId", ABSENT) == raw_id

    write.upgrade_file(path, backup=False)
    line = orjson.loads(path.read_bytes().splitlines()[3])
    assert line["firstKeptEntryIndex"] == index and line["id"] == own
    assert line.get("firstKeptEntryId", ABSENT) == raw_id
    after = prime_nb.load(path)
    assert list(after.context()) == list(context)


def test_a_typeless_line_of_a_v1_file_is_no_entry_and_the_contexts_are_the_agents(
    tmp_path: Path,
) -> None:
    """Where prime_nb differs from the agent on purpose.

    The agent's migration gives a JSON object line without a ``type`` an id and makes it
    the next entry's parent: it is a node of the chain, typeless, and the active leaf
    when it is the last line. prime_nb reports it (``missing_type``) and chains the
    entries around it instead, in every version, because (1) the format says every
    entry has a string type, and a line must not be an entry or not depending on the
    header's version; (2) ``upgrade_file`` must give a file that loads with the same ids
    and contexts (a typeless line is no entry of a version 3 file, so a v3 entry whose
    parent it were would become an orphan); (3) the agent's context building adds no
    message for an entry of no known type, so every context is the agent's: at each
    entry, the same messages; at the agent's typeless leaf, those of the entry before.
    """
    lines = [
        header(version=None),
        msg("-", None, "user", "q1"),
        {"note": "no type"},
        msg("-", None, "assistant", "a1", 1),
        msg("-", None, "user", "q2", 2),
        {"note": "no type, last"},
    ]
    for entry in lines[1:]:
        entry.pop("id", None)
        entry.pop("parentId", None)
    path = write_lines(tmp_path / "v1.jsonl", lines)
    session = prime_nb.load(path)
    assert session.problems["kind"].tolist() == ["missing_type", "missing_type"]
    q1, a1, q2 = session.entries.index
    assert session.entries["parent_id"].tolist()[1:] == [q1, a1]  # chained around it
    # the agent's chain is q1 -> X -> a1 -> q2 -> X2; its contexts, by hand:
    agent = {q1: ["q1"], "X": ["q1"], a1: ["q1", "a1"], q2: ["q1", "a1", "q2"]}
    agent["X2"] = agent[q2]  # the agent's active leaf: the last line
    for leaf in (q1, a1, q2):
        assert texts(session.context(leaf)) == agent[leaf]
    assert session.leaf_id == q2 and texts(session.context()) == agent["X2"]
