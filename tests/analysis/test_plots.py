"""plotly figures and their link to the widget, checked against hand-worked numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest
import traitlets
from plotly.callbacks import Points
from research_sessions import BRANCHY_TOTAL_COST, EXPECTED, branchy, compacted, planted
from session_matrix import LOADED_CASES, write_case

import prime_nb
from prime_nb import plots
from prime_nb.widget._linking import highlight, link, point_ids
from sessiongen import synthetic_session

FIGURES = [
    plots.context_timeline,
    plots.cost_by_branch,
    plots.tool_usage,
    plots.turn_timeline,
    plots.compaction_report,
    plots.model_changes,
    plots.retention_by_kind,
]


@pytest.fixture
def branchy_session(tmp_path: Path) -> prime_nb.Session:
    return prime_nb.load(branchy(tmp_path / "branchy.jsonl"))


@pytest.fixture
def compacted_session(tmp_path: Path) -> prime_nb.Session:
    return prime_nb.load(compacted(tmp_path / "compacted.jsonl"))


def by_name(fig: go.Figure, name: str) -> go.BaseTraceType:
    return next(t for t in fig.data if t.name == name)


@pytest.mark.parametrize("make", FIGURES, ids=lambda f: f.__name__)
def test_every_figure_is_labelled(make, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session = prime_nb.load(synthetic_session(tmp_path / "s.jsonl", seed=1))
    fig = make(session)
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text
    axes = fig.to_dict()["layout"]
    for axis in ("xaxis", "yaxis"):  # subplots: at least one of each carries a title
        assert any(v.get("title", {}).get("text") for k, v in axes.items() if k.startswith(axis))
    assert fig.data and all(t.hovertemplate for t in fig.data)
    fig.to_json()  # serialisable as is


def test_context_timeline_stacks_usage(compacted_session: prime_nb.Session) -> None:
    fig = plots.context_timeline(compacted_session)
    assert fig.layout.barmode == "stack"
    inputs = by_name(fig, "input")
    # assistant turns along the path: a1 a2 a3 | c1 | a4 a5 | c2 | a6
    assert list(inputs.y) == [10, 10, 10, 50, 10, 10]
    assert list(by_name(fig, "cache read").y) == [0, 0, 0, 20, 0, 0]
    assert list(by_name(fig, "cache write").y) == [0, 0, 0, 5, 0, 0]
    assert list(by_name(fig, "output").y) == [0, 0, 0, 7, 0, 0]
    assert point_ids(inputs) == ["a1", "a2", "a3", "a4", "a5", "a6"]
    # the two compactions as annotated lines between the turns around them
    assert [s.x0 for s in fig.layout.shapes] == [3.5, 5.5]
    texts = [a.text for a in fig.layout.annotations]
    assert any("1000 → 130 (est.)" in t for t in texts)
    assert any("2000 → 300" in t and "est." not in t for t in texts)


def test_context_timeline_of_another_leaf(branchy_session: prime_nb.Session) -> None:
    fig = plots.context_timeline(branchy_session, "a3")
    assert point_ids(by_name(fig, "input")) == ["a1", "a2", "a3"]
    assert list(by_name(fig, "input").y) == [100, 200, 300]
    assert not fig.layout.shapes


def test_cost_by_branch(branchy_session: prime_nb.Session) -> None:
    fig = plots.cost_by_branch(branchy_session)
    active, abandoned = by_name(fig, "active path"), by_name(fig, "abandoned")
    assert point_ids(active) == ["a5"] and point_ids(abandoned) == ["a3"]
    assert active.x[0] == pytest.approx(0.75) and abandoned.x[0] == pytest.approx(0.30)
    assert sum(active.x) + sum(abandoned.x) == pytest.approx(BRANCHY_TOTAL_COST)
    assert "29% of $1.05 abandoned" in fig.layout.title.text  # 0.30 / 1.05
    # the active segment starts at the root; the abandoned one left the fork a2
    assert list(active.y) == ["a5 (root)"] and list(abandoned.y) == ["a3 (from a2)"]


@pytest.mark.parametrize("name", LOADED_CASES)
def test_cost_by_branch_titles_the_abandoned_share(name: str, tmp_path: Path) -> None:
    """The title's share is analysis.abandoned_share; a session that cost nothing (its
    share NaN) says so rather than dividing by zero."""
    session = prime_nb.load(write_case(name, tmp_path))
    share = prime_nb.analysis.abandoned_share(session)
    title = plots.cost_by_branch(session).layout.title.text
    assert (f"{share:.0%} of $" in title) if share == share else ("no cost" in title)


def test_tool_usage(branchy_session: prime_nb.Session) -> None:
    fig = plots.tool_usage(branchy_session)
    calls = by_name(fig, "calls")
    assert dict(zip(calls.x, calls.y, strict=True)) == {"read": 1, "edit": 1}
    assert list(by_name(fig, "error rate").y) == [0.0, 0.0]
    # latency: call at minute 1, result at minute 2 -> 60 s
    boxes = [t for t in fig.data if isinstance(t, go.Box)]
    assert sorted(float(b.y[0]) for b in boxes) == [60.0, 60.0]


def test_turn_timeline(branchy_session: prime_nb.Session) -> None:
    fig = plots.turn_timeline(branchy_session)
    assert point_ids(by_name(fig, "turn (active path)")) == ["a1", "a2", "a4", "a5"]
    assert point_ids(by_name(fig, "turn (other branch)")) == ["a3"]
    bars = by_name(fig, "tool call")
    assert sorted(bars.y) == ["edit", "read"] and list(bars.x) == [60000.0, 60000.0]
    assert fig.layout.xaxis.type == "date"


def test_compaction_report(compacted_session: prime_nb.Session) -> None:
    fig = plots.compaction_report(compacted_session)
    assert list(by_name(fig, "before").y) == [1000, 2000]
    assert list(by_name(fig, "after (recorded or estimated)").y) == [130, 300]
    assert list(by_name(fig, "files re-read after").y) == [1, 0]
    assert point_ids(by_name(fig, "before")) == ["c1", "c2"]


def test_retention_by_kind(tmp_path: Path) -> None:
    """The planted session of ``test_retention``: each bar is its planted count."""
    fig = plots.retention_by_kind(planted(tmp_path / "p.jsonl"))
    assert list(by_name(fig, "named in the summary").x) == list(EXPECTED)
    kept = by_name(fig, "named in the summary").y
    needed = by_name(fig, "lost, needed later").y
    unneeded = by_name(fig, "lost, not needed again").y
    tokens = by_name(fig, "tokens of the calls that needed them").y
    for k, (span, in_summary, later, cost) in enumerate(EXPECTED.values()):
        assert (kept[k], needed[k], unneeded[k]) == (in_summary, later, span - in_summary - later)
        assert tokens[k] == cost


def test_model_changes(branchy_session: prime_nb.Session) -> None:
    fig = plots.model_changes(branchy_session)
    turns = by_name(fig, "assistant turn")
    assert set(turns.y) == {"anthropic/claude-x"}
    assert point_ids(turns) == ["a1", "a2", "a4", "a5"]


# -- linking ----------------------------------------------------------------------------------


class FakeWidget(traitlets.HasTraits):
    selected_id = traitlets.Unicode(None, allow_none=True)


def test_link_follows_and_leads_the_selection(branchy_session: prime_nb.Session) -> None:
    widget = FakeWidget()
    live = link(widget, plots.context_timeline(branchy_session))
    assert isinstance(live, go.FigureWidget)
    widget.selected_id = "a4"
    assert all(t.selectedpoints == (2,) for t in live.data)
    widget.selected_id = "u2"  # not a point of this figure: nothing selected
    assert all(t.selectedpoints == () for t in live.data)
    widget.selected_id = None
    assert all(t.selectedpoints is None for t in live.data)
    # a click on a point selects its entry in the widget
    live.data[0]._dispatch_on_click(
        Points(point_inds=[1], xs=[2], ys=[200], trace_name="input", trace_index=0), None
    )
    assert widget.selected_id == "a2"
    live._prime_nb_link.unlink()
    widget.selected_id = "a5"  # no longer followed: a2 stays highlighted
    assert all(t.selectedpoints == (1,) for t in live.data)


def test_link_with_the_session_widget(branchy_session: prime_nb.Session) -> None:
    import prime_nb.widget as widget_module

    widget = widget_module.SessionWidget(branchy_session)
    live = link(widget, plots.cost_by_branch(branchy_session))
    widget.selected_id = "a3"
    assert by_name(live, "abandoned").selectedpoints == (0,)
    assert by_name(live, "active path").selectedpoints == ()


def test_highlight_counts_matches(branchy_session: prime_nb.Session) -> None:
    fig = plots.context_timeline(branchy_session)
    assert highlight(fig, "a5") == 4  # one point in each of the four stacked traces
    assert highlight(fig, "nope") == 0


@pytest.mark.parametrize(
    ("figure", "cells"),
    [
        (plots.tool_usage, [(1, 1), (1, 2), (1, 3)]),
        (plots.compaction_report, [(1, 1), (2, 1)]),
        (plots.retention_by_kind, [(1, 1), (2, 1)]),
    ],
)
def test_subplot_figures_keep_their_grid(
    compacted_session: prime_nb.Session, figure: Any, cells: list[tuple[int, int]]
) -> None:
    """The figures of several subplots are built in one step on make_subplots's layout:
    they still take ``row``/``col`` as make_subplots's figures do, and each trace sits on
    its own cell's axes."""
    fig = figure(compacted_session)
    axes = {(t.xaxis or "x", t.yaxis or "y") for t in fig.data}
    for row, col in cells:
        fig.add_trace(go.Scatter(x=[0], y=[0], name="added"), row=row, col=col)
        added = fig.data[-1]
        ref = (added.xaxis or "x", added.yaxis or "y")
        assert ref in axes, (row, col, ref, axes)
        fig.update_yaxes(title_text=f"cell {row},{col}", row=row, col=col)
        name = "yaxis" if ref[1] == "y" else f"yaxis{ref[1][1:]}"
        assert fig.layout[name].title.text == f"cell {row},{col}"
