"""The conversation tree as a networkx DiGraph (edges parent -> child)."""

from __future__ import annotations

import networkx as nx
import pandas as pd

from .tree import Tree


def session_graph(entries: pd.DataFrame, tree: Tree) -> nx.DiGraph:
    """One node per entry with its table row as attributes; children added oldest first."""
    graph = nx.DiGraph()
    ids = entries.index.tolist()
    records = entries.reset_index(drop=True).to_dict("records")
    graph.add_nodes_from(zip(ids, records, strict=True))
    graph.add_edges_from(
        (ids[row], ids[child]) for row, kids in enumerate(tree.children) for child in kids
    )
    return graph
