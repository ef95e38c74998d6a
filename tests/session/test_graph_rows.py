"""The graph's lazy node attributes read, write and copy like the dicts they replace."""

from __future__ import annotations

import copy
import math
import pickle
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd
import pytest

import prime_nb
from prime_nb.session._graph_rows import ColumnStore, RowAttributes
from sessiongen import synthetic_session


@pytest.fixture(scope="module")
def session_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic_session(tmp_path_factory.mktemp("graph_rows") / "s.jsonl", seed=3)


@pytest.fixture
def session(session_path: Path) -> prime_nb.Session:
    return prime_nb.load(session_path)


@pytest.fixture
def graph(session: prime_nb.Session) -> nx.DiGraph:
    return session.graph


def eager_attributes(entries: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """The node attributes as session_graph built them before they were lazy."""
    names = list(entries.columns)
    columns = [entries[name].tolist() for name in names]
    return {
        node: dict(zip(names, values, strict=True))
        for node, values in zip(entries.index.tolist(), zip(*columns, strict=True), strict=True)
    }


def same_value(a: Any, b: Any) -> bool:
    """Equal and of the same type, NaN equal to NaN (and NA/NaT to themselves)."""
    if type(a) is not type(b):
        return False
    if a is b:
        return True
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def same_items(a: Any, b: Any) -> bool:
    """Same keys in the same order, with the same values (see same_value)."""
    a_items, b_items = list(a.items()), list(b.items())
    return [k for k, _ in a_items] == [k for k, _ in b_items] and all(
        same_value(x, y) for (_, x), (_, y) in zip(a_items, b_items, strict=True)
    )


def store_of(graph: nx.DiGraph) -> ColumnStore:
    attributes = next(iter(graph.nodes.values()))
    assert isinstance(attributes, RowAttributes)
    store = attributes._store
    assert store is not None
    return store


def assistant_node(session: prime_nb.Session) -> str:
    entries = session.entries
    return str(entries.index[(entries["role"] == "assistant").to_numpy()][0])


# -- reading ----------------------------------------------------------------------------------


def test_every_node_reads_exactly_its_old_dict(session: prime_nb.Session) -> None:
    graph = session.graph
    expected = eager_attributes(session.entries)
    assert list(graph.nodes) == list(expected)
    for node, attributes in graph.nodes(data=True):
        assert isinstance(attributes, RowAttributes)
        want = expected[node]
        assert same_items(dict(attributes), want)  # keys in table order, values and types
        assert same_items(attributes, want)
        assert list(attributes) == list(want) == list(attributes.keys())
        assert len(attributes) == len(want)
        assert all(same_value(attributes[k], v) for k, v in want.items())
        pairs = zip(attributes.values(), want.values(), strict=True)
        assert all(same_value(a, b) for a, b in pairs)
    # the session really exercises every kind of value the table holds
    values = [v for attrs in expected.values() for v in attrs.values()]
    assert {str, int, float, bool, pd.Timestamp, type(pd.NA)} <= {type(v) for v in values}
    assert any(isinstance(v, float) and math.isnan(v) for v in values)


def test_networkx_views_and_helpers_read_the_rows(session: prime_nb.Session) -> None:
    graph, entries = session.graph, session.entries
    types = dict(zip(entries.index, entries["type"].tolist(), strict=True))
    assert dict(graph.nodes(data="type")) == types
    assert nx.get_node_attributes(graph, "type") == types
    assert dict(graph.nodes(data="nope", default=7)) == dict.fromkeys(types, 7)
    node = assistant_node(session)
    attributes = graph.nodes[node]
    assert attributes["role"] == "assistant"
    assert attributes.get("role") == "assistant"
    assert attributes.get("nope") is None and attributes.get("nope", 3) == 3
    assert "type" in attributes and "nope" not in attributes and 5 not in attributes
    with pytest.raises(KeyError, match=r"^'nope'$"):
        attributes["nope"]
    assert isinstance(attributes, MutableMapping)
    with pytest.raises(TypeError, match=r"^unhashable type: 'RowAttributes'$"):
        hash(attributes)
    assert attributes.keys() == set(entries.columns)
    assert list(reversed(attributes)) == list(reversed(entries.columns))


def test_columns_are_converted_once_and_only_when_read(session: prime_nb.Session) -> None:
    graph = session.graph
    store = store_of(graph)
    assert store._lists == {}  # building the graph converts nothing
    nodes = list(graph)
    assert "model" in graph.nodes[nodes[0]] and len(graph.nodes[nodes[0]]) == len(store.names)
    assert store._lists == {}  # neither do membership tests nor len
    assert graph.nodes[nodes[0]]["type"] == session.entries["type"].iloc[0]
    first = store._lists["type"]
    assert graph.nodes[nodes[-1]]["type"] == session.entries["type"].iloc[-1]
    assert store._lists["type"] is first and set(store._lists) == {"type"}
    assert len({id(graph.nodes[n]._store) for n in nodes}) == 1  # one store per graph


def test_repr_and_equality_are_those_of_a_dict(session: prime_nb.Session) -> None:
    graph = session.graph
    node = assistant_node(session)
    attributes = graph.nodes[node]
    plain = dict(attributes)
    assert repr(attributes) == repr(plain) and str(attributes) == str(plain)
    assert attributes == plain and plain == attributes
    assert (attributes != plain) is False
    assert attributes != {**plain, "type": "other"}
    assert {**plain, "type": "other"} != attributes
    assert attributes != {k: v for k, v in plain.items() if k != "type"}
    assert attributes != 5 and attributes != list(plain)
    assert attributes == graph.nodes[node]
    other = next(n for n in graph if n != node)
    assert attributes != graph.nodes[other]
    assert (attributes | {"x": 1}) == {**plain, "x": 1}
    assert ({"x": 1} | attributes) == {"x": 1, **plain}
    assert type(attributes | {"x": 1}) is dict


# -- writing ----------------------------------------------------------------------------------


def merge_in(mapping: Any, other: dict[str, Any]) -> Any:
    mapping |= other
    return mapping


MUTATIONS: list[tuple[str, Callable[[MutableMapping[str, Any]], Any]]] = [
    ("set a column", lambda d: d.__setitem__("type", "edited")),
    ("set a new key", lambda d: d.__setitem__("x", 1)),
    ("set another new key", lambda d: d.__setitem__("y", [2])),
    ("update", lambda d: d.update({"role": "r", "z": 3}, w=4)),
    ("update from pairs", lambda d: d.update([("model", "m2")])),
    ("setdefault of a column", lambda d: d.setdefault("depth", 99)),
    ("setdefault of a new key", lambda d: d.setdefault("v", 5)),
    ("delete a new key", lambda d: d.__delitem__("x")),
    ("pop a new key", lambda d: d.pop("z")),
    ("pop a missing key", lambda d: d.pop("missing", "default")),
    ("delete a column", lambda d: d.__delitem__("text")),
    ("set the deleted column again", lambda d: d.__setitem__("text", "back")),
    ("pop a column", lambda d: d.pop("line")),
    ("popitem", lambda d: d.popitem()),
    ("|=", lambda d: merge_in(d, {"q": 1})),
    ("setdefault after detaching", lambda d: d.setdefault("depth", 99)),
    ("clear", lambda d: d.clear()),
    ("set after clear", lambda d: d.__setitem__("type", "again")),
]


def test_mutations_behave_exactly_like_a_dict(session: prime_nb.Session) -> None:
    graph = session.graph
    node = assistant_node(session)
    attributes = graph.nodes[node]
    mirror = dict(attributes)
    for name, mutate in MUTATIONS:
        result = mutate(attributes)
        expected = mutate(mirror)
        if isinstance(result, tuple) or result is not attributes:
            assert result == expected, name
        assert same_items(attributes, mirror), name
        assert len(attributes) == len(mirror), name
        assert list(reversed(attributes)) == list(reversed(mirror)), name


def test_missing_keys_raise_like_a_dict(session: prime_nb.Session) -> None:
    attributes = session.graph.nodes[assistant_node(session)]
    with pytest.raises(KeyError, match=r"^'nope'$"):
        del attributes["nope"]
    with pytest.raises(KeyError, match=r"^'nope'$"):
        attributes.pop("nope")
    with pytest.raises(TypeError, match=r"^unhashable type: 'list'$"):
        attributes[[1]]
    attributes.clear()
    assert len(attributes) == 0 and dict(attributes) == {} and attributes == {}
    with pytest.raises(KeyError, match=r"^'popitem\(\): dictionary is empty'$"):
        attributes.popitem()


def test_mutations_stay_on_their_node(session: prime_nb.Session) -> None:
    graph = session.graph
    expected = eager_attributes(session.entries)
    store = store_of(graph)
    nodes = list(graph)
    first, second = nodes[0], nodes[1]
    graph.nodes[first]["type"] = "edited"
    graph.nodes[first]["x"] = 1
    del graph.nodes[second]["role"]
    graph.nodes[second]["role"] = "moved"
    assert graph.nodes[first]["type"] == "edited" and list(graph.nodes[first])[-1] == "x"
    assert list(graph.nodes[first])[:-1] == list(expected[first])  # "type" kept its place
    assert list(graph.nodes[second])[-1] == "role"  # deleted then set: last, as in a dict
    for node in nodes[2:]:
        assert same_items(graph.nodes[node], expected[node])
    # neither the shared columns nor the session's table see the edits
    assert store._lists["type"][0] == expected[first]["type"]
    assert session.entries["type"].iloc[0] == expected[first]["type"]
    assert "x" not in session.entries.columns
    fresh = prime_nb.load(session.file).graph
    assert same_items(fresh.nodes[first], expected[first])


def test_editing_the_table_afterwards_does_not_reach_the_graph(
    session: prime_nb.Session,
) -> None:
    graph = session.graph
    node = assistant_node(session)
    before = graph.nodes[node]["model"]
    session.entries.loc[node, "model"] = "changed"
    session.entries["extra"] = 1
    assert graph.nodes[node]["model"] == before
    assert "extra" not in graph.nodes[node]


def test_networkx_setters(session: prime_nb.Session) -> None:
    graph = session.graph
    nodes = list(graph)
    nx.set_node_attributes(graph, "v", name="flag")
    nx.set_node_attributes(graph, {nodes[0]: {"type": "t0", "extra": 1}})
    nx.set_node_attributes(graph, {nodes[1]: "t1"}, name="type")
    graph.add_node(nodes[2], added=True, depth=-1)
    assert all(graph.nodes[n]["flag"] == "v" for n in nodes)
    assert graph.nodes[nodes[0]]["type"] == "t0" and graph.nodes[nodes[0]]["extra"] == 1
    assert graph.nodes[nodes[1]]["type"] == "t1"
    assert graph.nodes[nodes[2]]["added"] is True and graph.nodes[nodes[2]]["depth"] == -1
    assert graph.number_of_nodes() == len(session.entries)
    graph.add_node("brand-new", type="mine")
    graph.add_edge(nodes[0], "brand-new")
    assert graph.nodes["brand-new"] == {"type": "mine"}
    assert type(graph.nodes["brand-new"]) is dict
    assert dict(graph.nodes(data="type"))["brand-new"] == "mine"
    graph.remove_node("brand-new")
    assert "brand-new" not in graph


# -- copying ----------------------------------------------------------------------------------


def test_graph_copies_hold_plain_dicts(session: prime_nb.Session) -> None:
    graph = session.graph
    expected = eager_attributes(session.entries)
    nodes = list(graph)
    graph.nodes[nodes[0]]["x"] = 1
    for copied in (graph.copy(), graph.subgraph(nodes[:5]).copy()):
        assert all(type(copied.nodes[n]) is dict for n in copied)
        for node in copied:
            assert copied.nodes[node] == dict(graph.nodes[node])
        copied.nodes[nodes[0]]["type"] = "in the copy"
        assert graph.nodes[nodes[0]]["type"] == expected[nodes[0]]["type"]
    assert copied.number_of_edges() == graph.subgraph(nodes[:5]).number_of_edges()
    attributes = graph.nodes[nodes[1]]
    for plain in (attributes.copy(), copy.copy(attributes)):
        assert type(plain) is dict and plain == attributes
        plain["type"] = "changed"
        assert attributes["type"] == expected[nodes[1]]["type"]


def test_deepcopy_is_independent(session: prime_nb.Session) -> None:
    graph = session.graph
    nodes = list(graph)
    graph.nodes[nodes[0]]["x"] = [1]
    del graph.nodes[nodes[1]]["role"]
    clone = copy.deepcopy(graph)
    for node in nodes:
        assert same_items(clone.nodes[node], graph.nodes[node])
    clone.nodes[nodes[0]]["x"].append(2)
    clone.nodes[nodes[0]]["type"] = "in the clone"
    clone.nodes[nodes[2]]["y"] = 1
    assert graph.nodes[nodes[0]]["x"] == [1]
    assert graph.nodes[nodes[0]]["type"] != "in the clone"
    assert "y" not in graph.nodes[nodes[2]]
    assert "role" not in clone.nodes[nodes[1]]
    assert set(clone.edges) == set(graph.edges)
    reverse = graph.reverse(copy=True)  # networkx deep-copies the node data here
    assert same_items(reverse.nodes[nodes[3]], graph.nodes[nodes[3]])


def test_pickle_round_trip(session: prime_nb.Session) -> None:
    graph = session.graph
    nodes = list(graph)
    graph.nodes[nodes[0]]["type"] = "edited"
    graph.nodes[nodes[0]]["x"] = 1
    del graph.nodes[nodes[1]]["text"]
    graph.nodes[nodes[2]]["model"]  # converted columns aren't pickled: the table is
    loaded = pickle.loads(pickle.dumps(graph))
    assert store_of(loaded)._lists == {}
    stores = {id(loaded.nodes[n]._store) for n in nodes[2:]}
    assert len(stores) == 1  # still one store for the whole graph
    assert loaded.nodes[nodes[1]]._store is None  # detached rows stay detached
    assert list(loaded) == nodes and set(loaded.edges) == set(graph.edges)
    for node in nodes:
        assert same_items(loaded.nodes[node], graph.nodes[node])


def test_node_link_data(session: prime_nb.Session) -> None:
    graph = session.graph
    expected = eager_attributes(session.entries)
    data = nx.node_link_data(graph, edges="links")
    assert [n["id"] for n in data["nodes"]] == list(expected)
    for item in data["nodes"]:
        node = item["id"]
        assert same_items(item, {**expected[node], "id": node})
    assert len(data["links"]) == graph.number_of_edges()


def test_node_attributes_make_a_frame(session: prime_nb.Session) -> None:
    graph = session.graph
    frame = pd.DataFrame.from_dict(dict(graph.nodes(data=True)), orient="index")
    assert list(frame.columns) == list(session.entries.columns)
    assert frame["type"].tolist() == session.entries["type"].tolist()
