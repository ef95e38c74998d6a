"""Tree parents against a row-by-row oracle: roots, orphans, self-parents, parents
further down the file, cycles, built at once and extended by refreshes."""

from __future__ import annotations

import random
from array import array

import pytest

from prime_nb.session import EntryColumns
from prime_nb.session._tree import Tree


def columns(
    ids: list[str],
    parent_ids: list[str | None],
    times: list[float],
    lines: list[int],
    index_of: dict[str, int],
) -> EntryColumns:
    """The loader's columns that the tree reads."""
    return EntryColumns(
        ids=ids, parent_ids=parent_ids, time_ms=array("d", times), lines=lines, index_of=index_of
    )


def oracle(ids: list[str], parent_ids: list[str | None], index_of: dict[str, int]) -> dict:
    """The rules one row at a time: a parent row, or a root that is an orphan (its parent
    not in the file) or its own parent (a problem)."""
    parent, orphans, waiting, selfs, forward = [], [], set(), [], False
    for i, pid in enumerate(parent_ids):
        j = -1
        if pid is not None:
            found = index_of.get(pid)
            if found is None:
                orphans.append(i)
                waiting.add(pid)
            elif found == i:
                selfs.append(i)
            else:
                j = found
                forward = forward or j > i
        parent.append(j)
    return {"parent": parent, "orphans": orphans, "waiting": waiting, "self": selfs, "fwd": forward}


def random_rows(rng: random.Random, n: int) -> tuple[list[str], list[str | None]]:
    ids = [f"e{k}" for k in range(n)]
    parent_ids: list[str | None] = []
    for k in range(n):
        pick = rng.random()
        if pick < 0.1 or k == 0:
            parent_ids.append(None)
        elif pick < 0.2:
            parent_ids.append(f"gone{rng.randrange(3)}")  # an orphan
        elif pick < 0.25:
            parent_ids.append(ids[k])  # its own parent
        elif pick < 0.3:
            parent_ids.append(ids[rng.randrange(n)])  # anywhere: later rows, cycles
        else:
            parent_ids.append(ids[rng.randrange(k)])
    return ids, parent_ids


@pytest.mark.parametrize("seed", range(40))
def test_parents_as_the_rules_say_row_by_row(seed: int) -> None:
    rng = random.Random(seed)
    ids, parent_ids = random_rows(rng, rng.choice([1, 2, 5, 30, 200]))
    index_of = {entry_id: k for k, entry_id in enumerate(ids)}
    lines = list(range(1, len(ids) + 1))
    times = [float(k) for k in range(len(ids))]
    tree = Tree.build(columns(ids, parent_ids, times, lines, index_of))
    want = oracle(ids, parent_ids, index_of)
    assert [p.line - 1 for p in tree.problems if p.kind == "orphan"] == want["orphans"]
    assert tree.waiting == want["waiting"]
    selfs = [p for p in tree.problems if p.kind == "self_parent"]
    assert [p.line - 1 for p in selfs] == want["self"]
    assert all(p.entry_id == ids[p.line - 1] for p in selfs)
    if not want["fwd"]:  # with parents further down, cycles are cut after: checked below
        assert tree.parent == want["parent"]
        assert not [p for p in tree.problems if p.kind == "cycle"]
    for up in tree.parent:  # always a forest: every walk up ends
        seen = set()
        while up >= 0:
            assert up not in seen
            seen.add(up)
            up = tree.parent[up]
    for row, up in enumerate(tree.parent):
        assert tree.depth[row] == (0 if up < 0 else tree.depth[up] + 1)


@pytest.mark.parametrize("seed", range(20))
def test_a_refresh_adds_rows_as_a_fresh_build_reads_them(seed: int) -> None:
    rng = random.Random(1000 + seed)
    n = rng.choice([10, 60])
    ids = [f"e{k}" for k in range(n)]
    parent_ids: list[str | None] = [None] + [
        ids[rng.randrange(k)] if rng.random() < 0.85 else ids[k] for k in range(1, n)
    ]
    index_of = {entry_id: k for k, entry_id in enumerate(ids)}
    lines = list(range(1, n + 1))
    times = [float(k) for k in range(n)]
    cut = rng.randrange(1, n)
    grown = Tree.build(columns(ids[:cut], parent_ids[:cut], times[:cut], lines[:cut], index_of))
    every = columns(ids, parent_ids, times, lines, index_of)
    grown.extend(every, cut)
    fresh = Tree.build(every)
    assert grown.parent == fresh.parent
    assert list(grown.depth) == list(fresh.depth)
    assert [(p.line, p.kind) for p in grown.problems] == [(p.line, p.kind) for p in fresh.problems]
    assert [grown.children[r] for r in range(n)] == [fresh.children[r] for r in range(n)]
