"""The context index finds, from a row upwards, what a walk of the whole path finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_matrix import CASES, write_case

import prime_nb
from prime_nb.session._context import walk_path
from prime_nb.session._context_index import ContextIndex


@pytest.mark.parametrize("case", CASES)
def test_index_agrees_with_the_path_walk_at_every_row(case: str, tmp_path: Path) -> None:
    session = prime_nb.load(write_case(case, tmp_path))
    cols, tree = session._cols, session._tree
    spec = session.dialect == "spec"
    index = ContextIndex(cols, tree, spec_dialect=spec)
    for row in range(len(cols)):
        walked = walk_path(tree.path(row), cols, spec_dialect=spec)
        found = index.facts(row)
        assert found.leaf == walked.leaf == row
        assert list(found.tail) == list(walked.tail), row
        assert (found.split, found.compaction, found.model_row) == (
            walked.split,
            walked.compaction,
            walked.model_row,
        ), row
        assert dict(found.settings) == dict(walked.settings), row
    assert index.facts(-1) == walk_path([], cols, spec_dialect=spec)


def test_refresh_rebuilds_the_index(tmp_path: Path) -> None:
    path = prime_nb.datasets.synthetic_session(tmp_path / "s.jsonl")
    session = prime_nb.load(path)
    before = session.context()
    lines = path.read_bytes().splitlines()
    leaf = session.leaf_id
    extra = (
        b'{"type":"compaction","id":"cmp00001","parentId":"' + leaf.encode() + b'",'
        b'"timestamp":"2026-01-06T10:00:00.000Z","summary":"short","firstKeptEntryId":"'
        + leaf.encode()
        + b'","tokensBefore":5}'
    )
    path.write_bytes(b"\n".join([*lines, extra]) + b"\n")
    session.refresh()
    after = session.context()
    assert after.compaction_id == "cmp00001"
    assert after[0]["role"] == "compactionSummary" and len(after) < len(before) + 1
