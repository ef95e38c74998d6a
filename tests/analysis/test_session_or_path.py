"""Every helper that reads a session takes the Session or the path of its file.

In a notebook the file is what one has in hand: ``branches("s.jsonl")`` failed with
``AttributeError: 'str' object has no attribute 'entries'``, and ``show(3)`` with
``Path``'s own TypeError. Each now loads a path, gives what it gives for the loaded
Session, and answers anything else with one TypeError that says what to pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import FIXTURES

import prime_nb
from prime_nb import analysis, plots
from prime_nb.widget import SessionWidget, export_html, show

#: a session with forks and a compaction, so that no helper has an empty answer
FILE = FIXTURES / "agent-written" / "random-2.jsonl"


def _leaves() -> tuple[str, str]:
    leaves = prime_nb.load(FILE).leaves.index
    return leaves[0], leaves[-1]


HELPERS: dict[str, Callable[[Any], Any]] = {
    "analysis.branches": analysis.branches,
    "analysis.fork_points": analysis.fork_points,
    "analysis.branch_segments": analysis.branch_segments,
    "analysis.abandoned_share": analysis.abandoned_share,
    "analysis.compaction_forensics": analysis.compaction_forensics,
    "analysis.common_ancestor": lambda s: analysis.common_ancestor(s, *_leaves()),
    "analysis.compare": lambda s: analysis.compare(s, *_leaves()),
    "analysis.context_frame": analysis.context_frame,
    "analysis.compaction_retention": analysis.compaction_retention,
    "plots.context_timeline": plots.context_timeline,
    "plots.cost_by_branch": plots.cost_by_branch,
    "plots.tool_usage": plots.tool_usage,
    "plots.turn_timeline": plots.turn_timeline,
    "plots.compaction_report": plots.compaction_report,
    "plots.model_changes": plots.model_changes,
    "plots.retention_by_kind": plots.retention_by_kind,
}


def _same(a: Any, b: Any) -> None:
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, float):
        assert a == b or (math.isnan(a) and math.isnan(b))
    elif hasattr(a, "to_plotly_json"):
        assert a.to_json() == b.to_json()
    elif isinstance(a, analysis.Comparison):
        for name in ("ancestor_id", "leaf_a", "leaf_b", "final_a", "final_b", "diff"):
            assert getattr(a, name) == getattr(b, name)
        _same(a.frame, b.frame)
        _same(a.totals, b.totals)
        _same(a.turns, b.turns)
    else:
        assert a == b


@pytest.mark.parametrize("name", list(HELPERS))
def test_a_path_is_the_session_it_names(name: str) -> None:
    helper = HELPERS[name]
    want = helper(prime_nb.load(FILE))
    for given in (FILE, str(FILE)):
        _same(helper(given), want)


@pytest.mark.parametrize("name", list(HELPERS))
@pytest.mark.parametrize("odd", [3, None, ["s.jsonl"]])
def test_anything_else_is_one_clear_error(name: str, odd: Any) -> None:
    with pytest.raises(TypeError, match=rf"^{name} takes a Session .* or the path .*, not "):
        HELPERS[name](odd)


def test_the_widget_and_the_export_take_a_path(tmp_path: Path) -> None:
    for widget in (SessionWidget(FILE), show(str(FILE))):
        assert widget.session.id == prime_nb.load(FILE).id
    out = export_html(FILE, tmp_path / "page.html")
    again = export_html(prime_nb.load(FILE), tmp_path / "again.html")
    assert out.read_bytes() == again.read_bytes()
    with pytest.raises(TypeError, match=r"^SessionWidget takes a Session .*, not int"):
        show(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^export_html takes a Session .*, not NoneType"):
        export_html(None, tmp_path / "none.html")  # type: ignore[arg-type]


def test_every_helper_that_reads_a_session_is_listed_here() -> None:
    """A new analysis or plot function taking ``session`` must be added above (and take a
    path through ``as_session``)."""
    import inspect

    for module, prefix in ((analysis, "analysis"), (plots, "plots")):
        for name in module.__all__:
            value = getattr(module, name)
            if not inspect.isfunction(value):
                continue
            first = next(iter(inspect.signature(value).parameters), None)
            if first == "session":
                assert f"{prefix}.{name}" in HELPERS, name
