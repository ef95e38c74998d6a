"""The compactions table walks each row once (it was quadratic on chained compactions: 61 s
for 50k); its figures equal those of the plain walk it replaced, kept here as the oracle."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from session_matrix import LOADED_CASES, write_case

import prime_nb
from prime_nb.session import CONTEXT_TYPES
from prime_nb.session._columns import EntryColumns
from prime_nb.session._tree import Tree


def oracle(
    cols: EntryColumns, tree: Tree, row: int, kept_of: dict[int, int | None]
) -> tuple[int, bool]:
    """The former walk: up to the previous compaction, then on to its first kept entry."""
    parent, types = tree.parent, cols.types
    kept_row = kept_of[row]
    span: list[int] = []
    up = parent[row]
    while up >= 0 and types[up] != "compaction":
        span.append(up)
        up = parent[up]
    if up >= 0:
        prev_kept = kept_of.get(up)
        extra: list[int] = []
        walk = up
        while walk >= 0 and walk != prev_kept:
            extra.append(walk)
            walk = parent[walk]
        if walk >= 0:
            span.extend([*extra, walk])
    if kept_row is not None and kept_row in span:
        counted = span[span.index(kept_row) + 1 :]
        on_path = True
    else:
        on_path = kept_row is not None and kept_row in tree.path(row)
        counted = [] if on_path else span
    return sum(1 for r in counted if types[r] in CONTEXT_TYPES), on_path


def check(session: prime_nb.Session) -> int:
    cols, tree = session._cols, session._tree
    kept_of = {
        c["index"]: cols.index_of.get(c["first_kept_entry_id"] or "") for c in cols.compactions
    }
    table = session.compactions
    for item in cols.compactions:
        row = item["index"]
        summarised, on_path = oracle(cols, tree, row, kept_of)
        got = table.loc[cols.ids[row]]
        assert (got["entries_summarised"], got["first_kept_on_path"]) == (summarised, on_path)
    return len(cols.compactions)


#: the version 2 twins load to their version 3 twins' sessions (session_matrix.TWINS)
WITH_COMPACTIONS = [
    c for c in LOADED_CASES if c.startswith(("synthetic-", "comp-", "fixture-", "odd-first"))
]


@pytest.mark.parametrize("name", WITH_COMPACTIONS)
def test_the_matrix_agrees_with_the_walk(name: str, tmp_path: Path) -> None:
    check(prime_nb.load(write_case(name, tmp_path)))


@pytest.mark.parametrize("seed", range(40))
def test_random_trees_agree_with_the_walk(seed: int, tmp_path: Path) -> None:
    """Random parents (forks everywhere, some chains of compactions) and random first kept
    entries: on the path, off it, the compaction itself, missing."""
    rng = random.Random(seed)
    lines = [{"type": "session", "version": 3, "id": "r"}]
    ids: list[str] = []
    for i in range(rng.randint(1, 60)):
        parent = rng.choice([None, *ids[-5:], *ids]) if ids else None
        entry_id = f"e{i}"
        if rng.random() < 0.35:
            kept = rng.choice([*ids, entry_id, "missing", None]) if ids else None
            lines.append(
                {
                    "type": "compaction",
                    "id": entry_id,
                    "parentId": parent,
                    "summary": "s",
                    "firstKeptEntryId": kept,
                    "tokensBefore": 1,
                }
            )
        else:
            kind = rng.choice(["message", "message", "custom_message", "branch_summary", "label"])
            entry = {"type": kind, "id": entry_id, "parentId": parent}
            if kind == "message":
                entry["message"] = {"role": "user", "content": "x"}
            lines.append(entry)
        ids.append(entry_id)
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    check(prime_nb.load(path))


def test_chained_compactions_agree(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "c"},
        {
            "type": "message",
            "id": "u0",
            "parentId": None,
            "message": {"role": "user", "content": "x"},
        },
    ]
    previous = "u0"
    for i in range(300):
        lines.append(
            {
                "type": "message",
                "id": f"u{i + 1}",
                "parentId": previous,
                "message": {"role": "user", "content": "x"},
            }
        )
        lines.append(
            {
                "type": "compaction",
                "id": f"c{i}",
                "parentId": f"u{i + 1}",
                "summary": "s",
                "firstKeptEntryId": f"u{i + 1}" if i % 3 else "gone",
                "tokensBefore": 5,
            }
        )
        previous = f"c{i}"
    path = tmp_path / "chain.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert check(prime_nb.load(path)) == 300


def test_compactions_chained_under_their_kept_root_agree(tmp_path: Path) -> None:
    """The quadratic shape (67 s at 20k before): compactions in one chain, each keeping the
    root message at the far end of its path."""
    lines = [
        {"type": "session", "version": 3, "id": "c"},
        {
            "type": "message",
            "id": "u0",
            "parentId": None,
            "message": {"role": "user", "content": "q"},
        },
    ]
    previous = "u0"
    for i in range(300):
        lines.append(
            {
                "type": "compaction",
                "id": f"c{i}",
                "parentId": previous,
                "summary": "s",
                "firstKeptEntryId": "u0",
                "tokensBefore": 9,
            }
        )
        previous = f"c{i}"
    path = tmp_path / "rooted.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    session = prime_nb.load(path)
    assert check(session) == 300
    assert session.compactions["entries_summarised"].tolist() == [0] * 300
    assert session.compactions["first_kept_on_path"].all()
