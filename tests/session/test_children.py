"""Children as compressed rows: the same order as a list per row sorted by time (missing
times last, ties by row), built at once or row by row as a refresh adds them."""

from __future__ import annotations

import math
import pickle
import random
import tracemalloc

import numpy as np
import pytest

from prime_nb.session._children import Children


def naive(parent: list[int], time_ms: list[float]) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in parent]
    for row, up in enumerate(parent):
        if up >= 0:
            out[up].append(row)
    key = [math.inf if math.isnan(t) else t for t in time_ms]
    return [sorted(kids, key=lambda r: (key[r], r)) for kids in out]


def forest(seed: int, n: int) -> tuple[list[int], list[float]]:
    """Parents anywhere (before or after the child), times with ties and gaps."""
    rng = random.Random(seed)
    parent = [-1 if rng.random() < 0.1 else rng.randrange(n) for _ in range(n)]
    time_ms = [rng.choice([float(rng.randrange(5)), math.nan, 1e15, -3.0]) for _ in range(n)]
    return parent, time_ms


@pytest.mark.parametrize("seed", range(40))
def test_built_at_once_equals_sorted_lists(seed: int) -> None:
    parent, time_ms = forest(seed, seed * 7 + 1)
    want = naive(parent, time_ms)
    got = Children.of(parent, time_ms)
    assert len(got) == len(want)
    assert [got[r] for r in range(len(got))] == want
    assert list(got) == want and got == want
    assert got.counts().tolist() == [len(k) for k in want]
    starts, flat = got.arrays()
    assert [flat[starts[r] : starts[r + 1]].tolist() for r in range(len(want))] == want


@pytest.mark.parametrize("seed", range(40))
def test_rows_added_later_take_their_place(seed: int) -> None:
    """A build of the first rows, then the rest one by one (as a refresh adds them,
    parents before children), sorted once per parent at the end."""
    rng = random.Random(seed)
    n = 3 + seed * 5
    parent = [-1] + [rng.randrange(row) if rng.random() < 0.9 else -1 for row in range(1, n)]
    time_ms = [rng.choice([float(rng.randrange(4)), math.nan]) for _ in range(n)]
    cut = rng.randrange(n)
    kids = Children.of(parent[:cut], time_ms[:cut])
    kids.grow(n)
    unsorted = {p for row in range(cut, n) if (p := parent[row]) >= 0 and kids.add(p, row, time_ms)}
    for p in unsorted:
        kids.sort(p, time_ms)
    want = naive(parent, time_ms)
    assert kids == want and list(kids) == want
    assert kids.counts().tolist() == [len(k) for k in want]
    starts, flat = kids.lists()
    assert [flat[starts[r] : starts[r + 1]] for r in range(n)] == want
    assert pickle.loads(pickle.dumps(kids)) == want


def test_indexing_like_a_list() -> None:
    kids = Children.of([-1, 0, 0, 1], [0.0, 2.0, 1.0, 0.0])
    assert kids[0] == [2, 1] and kids[-1] == [] and kids[-4] == [2, 1]
    assert kids[1:3] == [[3], []]
    with pytest.raises(IndexError, match=r"^children: row out of range$"):
        kids[4]
    with pytest.raises(IndexError, match=r"^children: row out of range$"):
        kids[-5]
    kids[0].append(99)  # a copy: the tree does not change
    assert kids[0] == [2, 1]
    assert Children() == [] and len(Children()) == 0 and Children().counts().size == 0
    assert kids != [[2, 1], [3], [], [5]] and kids != [[2, 1]]


def test_a_chain_of_rows_costs_a_few_bytes_each() -> None:
    """The point of the layout: about 12 bytes a row (a list per row cost about 120)."""
    n = 200_000
    parent = list(range(-1, n - 1))
    time_ms = np.arange(n, dtype=np.float64)
    tracemalloc.start()
    try:
        kids = Children.of(parent, time_ms)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kids[0] == [1] and kids[n - 1] == []
    assert held / n < 16
