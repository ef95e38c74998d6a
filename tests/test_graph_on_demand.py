"""Nothing but ``session.graph`` (and ``Family.graph``) builds a networkx graph.

``session.graph`` costs more than the tables it is made from at 100k entries, so it is
built on first access only, and every other feature (tables, context, the widget, the
export, analysis, plots, redaction, the corpus, families, datasets) works on the array
tree. Two checks: in this process, ``session_graph`` and networkx's graph constructor
are patched to fail while every feature runs on several sessions; in a fresh process,
networkx is not even imported after all of that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fresh_python import run_fresh
from session_matrix import write_case

import prime_nb
from prime_nb import analysis, corpus, plots
from prime_nb.datasets import demo_session_path, from_sessions
from prime_nb.widget._data import SessionData
from prime_nb.widget._offline import offline_data
from prime_nb.widget._static import static_html, text_repr
from sessiongen import synthetic_family, synthetic_session

CASES = [
    "synthetic-v3-prime-forks5",
    "synthetic-v3-spec-forks1",
    "synthetic-v1-prime-forks0",
    "comp-on2-off2-forks6-v3-spec",
    "fixture-agent-written--compaction-heavy.jsonl",
    "fixture-agent-written--feature-tour.jsonl",
    "odd-first-kept-missing-id",
    "empty-v3-prime",
]


def use_everything(session: prime_nb.Session, tmp: Path) -> None:
    """Every feature of a loaded session except its graph."""
    for table in (
        "entries",
        "messages",
        "tool_calls",
        "compactions",
        "leaves",
        "problems",
        "labels",
        "label_table",
        "git_states",
        "child_usage",
        "bash_runs",
        "custom_entries",
        "branch_summaries",
    ):
        getattr(session, table)
    repr(session)
    session.summary()
    _ = (session.header, session.name, session.state, session.agent_status, session.leaf_id)
    if not len(session):
        return
    session.agent_status_at()
    leaves = session.leaves.index.tolist()
    for leaf in leaves[:20]:
        session.path(leaf)
        session.context(leaf)
        session.to_messages(leaf)
    first = session.entries.index[0]
    session.children(first)
    session.entry(first)
    session.read_entries(session.entries.index[:50].tolist())
    session.fork_to_file(dest=tmp / "fork.jsonl")

    analysis.compaction_forensics(session)
    analysis.branches(session)
    analysis.fork_points(session)
    analysis.branch_segments(session)
    analysis.abandoned_share(session)
    analysis.context_frame(session)
    if len(leaves) > 1:
        analysis.compare(session, leaves[0], leaves[-1])
        analysis.common_ancestor(session, leaves[0], leaves[-1])
    for figure in (
        plots.context_timeline,
        plots.cost_by_branch,
        plots.tool_usage,
        plots.turn_timeline,
        plots.compaction_report,
        plots.model_changes,
    ):
        figure(session)

    data = SessionData(session)
    data.tree()
    for what in ("entry", "preview", "context"):
        data.answer({"what": what, "index": data.n - 1})
    data.answer({"what": "search", "query": "the"})
    data.answer({"what": "lines", "indices": list(range(min(data.n, 30)))})
    offline_data(data)
    static_html(data)
    text_repr(session)
    prime_nb.SessionWidget(session).close()
    prime_nb.export_html(session, tmp / "page.html")
    prime_nb.redact(session, tmp / "redacted.jsonl")


def use_many(folder: Path, tmp: Path) -> None:
    """The corpus, families and datasets over a folder of sessions, in this process."""
    corpus.load_corpus(folder, workers=1)
    corpus.corpus_compactions(folder, workers=1)
    corpus.corpus_branches(folder, workers=1)
    corpus.corpus_entries(folder, workers=1)
    corpus.families(folder, workers=1)
    for path in sorted(folder.rglob("*.jsonl"))[:3]:
        family = prime_nb.load_family(path)
        _ = (family.sessions, family.links, family.problems, family.totals, family.outline())
        for key in family.sessions["session"].tolist()[:3]:
            family.lineage(key)
            family.context(key)
    from_sessions(sorted(folder.rglob("*.jsonl")), progress=False)


@pytest.fixture
def no_graphs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make building any graph fail, and say who tried."""
    import networkx as nx  # here, not at the top: the fresh process imports this module

    from prime_nb.session import _graph

    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append("graph")
        raise AssertionError("a networkx graph was built without being asked for")

    monkeypatch.setattr(_graph, "session_graph", refuse)
    monkeypatch.setattr(nx.Graph, "__init__", refuse)
    return attempts


@pytest.mark.parametrize("name", CASES)
def test_no_feature_builds_the_graph(name: str, tmp_path: Path, no_graphs: list[str]) -> None:
    session = prime_nb.load(write_case(name, tmp_path / "in"))
    use_everything(session, tmp_path)
    assert "graph" not in session.__dict__
    assert no_graphs == []


def test_the_demo_and_many_sessions_build_no_graph(tmp_path: Path, no_graphs: list[str]) -> None:
    session = prime_nb.load(demo_session_path())
    use_everything(session, tmp_path)
    assert "graph" not in session.__dict__
    folder = tmp_path / "corpus"
    synthetic_family(folder / "family", seed=3)
    synthetic_session(folder / "alone.jsonl", seed=4)
    use_many(folder, tmp_path)
    assert no_graphs == []


def test_the_graph_is_still_there_when_asked(tmp_path: Path) -> None:
    session = prime_nb.load(write_case("synthetic-v3-prime-forks5", tmp_path))
    assert "graph" not in session.__dict__
    graph = session.graph
    assert graph.number_of_nodes() == len(session.entries)
    assert "graph" in session.__dict__


def test_networkx_is_not_even_imported(tmp_path: Path) -> None:
    """In a fresh process, every feature runs without importing networkx."""
    script = f"""
        import sys
        from pathlib import Path
        import prime_nb
        from prime_nb.datasets import demo_session_path
        from sessiongen import synthetic_family, synthetic_session
        from test_graph_on_demand import use_everything, use_many
        tmp = Path({str(tmp_path)!r})
        use_everything(prime_nb.load(demo_session_path()), tmp)
        synthetic_family(tmp / "corpus" / "family", seed=3)
        synthetic_session(tmp / "corpus" / "alone.jsonl", seed=4)
        use_many(tmp / "corpus", tmp)
        assert "networkx" not in sys.modules, "networkx was imported"
        print("no networkx")
        """
    assert "no networkx" in run_fresh(script)
