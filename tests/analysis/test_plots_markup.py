"""Session text in figures is text, not plotly markup: every string a figure draws holds
its ``<`` and ``>`` as entities, and linking still reads the entry ids as they are.

(``tests/browser/test_figures_browser.py`` draws the same figures in Chromium and counts
the links, elements and requests they made.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hostile_session import hostile_session, markup

import prime_nb
from prime_nb import plots
from prime_nb._cut import cut, cut_label
from prime_nb.widget._linking import highlight, point_ids

FIGURES = [getattr(plots, name) for name in plots.__all__]
#: the tags the figures write themselves
OWN_TAGS = re.compile(r"</?(br|sup|extra)>")
PORT = 9


def strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a figure's JSON with where it is; the entry ids linking reads
    (``customdata`` column 0, drawn by no template) left out."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "customdata":
                rows = [row[1:] if isinstance(row, list | tuple) else [] for row in item]
                yield from strings(rows, f"{where}.customdata[1:]")
            else:
                yield from strings(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for k, item in enumerate(value):
            yield from strings(item, f"{where}[{k}]")
    elif hasattr(value, "tolist"):
        yield from strings(value.tolist(), where)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> prime_nb.Session:
    path = hostile_session(tmp_path_factory.mktemp("hostile") / "s.jsonl", PORT)
    return prime_nb.load(path)


@pytest.mark.parametrize("make", FIGURES, ids=lambda f: f.__name__)
def test_no_session_markup_reaches_a_figure(make: Any, session: prime_nb.Session) -> None:
    fig = make(session)
    found = list(strings(fig.to_plotly_json()))
    tagged = [(where, text) for where, text in found if "<" in OWN_TAGS.sub("", text)]
    assert tagged == []
    for trace in fig.data:  # no template shows the unescaped ids
        rows = trace.customdata if trace.customdata is not None else []
        first = [
            row if isinstance(row, str) or not hasattr(row, "__len__") else row[0] for row in rows
        ]
        if any(isinstance(value, str) for value in first):
            assert "customdata[0]" not in trace.hovertemplate
            assert "%{customdata}" not in trace.hovertemplate


def test_the_markup_is_shown_as_text(session: prime_nb.Session) -> None:
    """Escaped, not dropped: the name in the title, tool names on the axis, models (cut
    to a readable length first, ``test_plots_long_text.py``)."""
    shown = plots.escape_markup(cut(markup(PORT, "name")))
    assert shown in plots.context_timeline(session).layout.title.text
    tool = plots.escape_markup(cut_label(markup(PORT, "tool")))
    assert tool in plots.tool_usage(session).data[0].x
    models = plots.model_changes(session).data[0].y
    assert f"{plots.escape_markup(cut_label(markup(PORT, 'provider')))}/" in models[0]
    assert plots.escape_markup("a < b & c > d") == "a &lt; b &amp; c &gt; d"


def test_linking_reads_the_ids_as_they_are(session: prime_nb.Session) -> None:
    fig = plots.context_timeline(session)
    ids = point_ids(fig.data[0])
    assert markup(PORT, "id-a1") in ids and markup(PORT, "id-a4") in ids
    assert highlight(fig, markup(PORT, "id-a4")) == 4
