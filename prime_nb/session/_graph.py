"""The conversation tree as a networkx DiGraph (edges parent -> child)."""

from __future__ import annotations

from typing import Any

import networkx as nx
import pandas as pd

from ._graph_rows import row_attributes
from ._tree import Tree


def session_graph(entries: pd.DataFrame, tree: Tree) -> nx.DiGraph:
    """One node per entry with its table row as attributes; children in timestamp order.

    The adjacency dicts are filled directly (networkx's documented data layout: node,
    successor and predecessor dicts) because add_nodes_from/add_edges_from cost more
    than the whole load; node attributes are lazy (see ``_graph_rows``).
    """
    ids: list[str] = entries.index.tolist()
    nodes = dict(zip(ids, row_attributes(entries), strict=True))
    succ: dict[str, dict[str, dict[str, Any]]] = {node: {} for node in ids}
    pred: dict[str, dict[str, dict[str, Any]]] = {node: {} for node in ids}
    for row, kids in enumerate(tree.children):
        if not kids:
            continue
        parent = ids[row]
        out = succ[parent]
        for child_row in kids:
            child = ids[child_row]
            data: dict[str, Any] = {}
            out[child] = data
            pred[child][parent] = data
    graph = nx.DiGraph()
    graph._node = nodes
    graph._adj = succ
    graph._succ = succ
    graph._pred = pred
    return graph
