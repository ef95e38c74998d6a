"""Subtree figures over Python lists give exactly what the former numpy walk gave: the
same float additions in the same order (branches' costs sum to the last bit), and the
same last leaf below each row."""

from __future__ import annotations

import random

import numpy as np
import pytest

from prime_nb.analysis._common import TreeArrays


def former_sum(arrays: TreeArrays, values: np.ndarray) -> np.ndarray:
    out = values.astype(np.float64, copy=True)
    for row in np.argsort(-arrays.depth, kind="stable").tolist():
        p = int(arrays.parent[row])
        if p >= 0:
            out[p] += out[row]
    return out


def former_max(arrays: TreeArrays, values: np.ndarray) -> np.ndarray:
    out = values.astype(np.int64, copy=True)
    for row in np.argsort(-arrays.depth, kind="stable").tolist():
        p = int(arrays.parent[row])
        if p >= 0 and out[row] > out[p]:
            out[p] = out[row]
    return out


def random_tree(seed: int) -> TreeArrays:
    """Forks, chains and several roots; parents may come after their children."""
    rng = random.Random(seed)
    n = rng.randint(0, 300)
    order = list(range(n))
    rng.shuffle(order)  # a row's parent is any row placed before it in this order
    parent = [-1] * n
    for k, row in enumerate(order[1:], 1):
        if rng.random() > 0.05:
            parent[row] = (
                order[rng.randrange(max(0, k - 4), k)]
                if rng.random() < 0.8
                else order[rng.randrange(k)]
            )
    depth = [0] * n
    for row in order:
        depth[row] = depth[parent[row]] + 1 if parent[row] >= 0 else 0
    costs = np.array([rng.choice([0.0, 1e-9, 0.1, 3.3, 1e6]) * rng.random() for _ in range(n)])
    return TreeArrays(
        ids=[f"e{r}" for r in range(n)],
        parent=np.array(parent, dtype=np.int64),
        depth=np.array(depth, dtype=np.int64),
        tokens=np.array([rng.randrange(10**6) for _ in range(n)], dtype=np.float64),
        cost=costs,
        row_of={f"e{r}": r for r in range(n)},
    )


@pytest.mark.parametrize("seed", range(40))
def test_subtree_figures_equal_the_former_walk_to_the_bit(seed: int) -> None:
    arrays = random_tree(seed)
    n = len(arrays.ids)
    size, tokens, cost, leaves, last = arrays.subtree_figures()
    is_leaf = _leaf_rows(arrays) >= 0
    for got, values in (
        (size, np.ones(n)),
        (tokens, arrays.tokens),
        (cost, arrays.cost),
        (leaves, is_leaf.astype(np.float64)),
    ):
        assert np.array_equal(np.array(got, dtype=np.float64), former_sum(arrays, values))
    assert np.array_equal(np.array(last, dtype=np.int64), former_max(arrays, _leaf_rows(arrays)))
    assert np.array_equal(arrays.last_leaf(), former_max(arrays, _leaf_rows(arrays)))


def _leaf_rows(arrays: TreeArrays) -> np.ndarray:
    n = len(arrays.ids)
    has_child = np.zeros(n, dtype=bool)
    has_child[arrays.parent[arrays.parent >= 0]] = True
    return np.where(has_child, -1, np.arange(n, dtype=np.int64))
