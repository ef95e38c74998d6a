"""Long session text in figures is cut where it is shown, never in the data.

A session whose name is 1 MB, and whose ids, tool names, models, stop reasons, texts and
paths are 50,000 characters each (markup among them): every string a figure draws is
short, titles end in "…", labels keep a digest so that long names stay apart, and the
entry ids linking reads stay whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines
from hostile_session import hostile_session
from test_plots_markup import strings

import prime_nb
from prime_nb import plots
from prime_nb._cut import LABEL, TEXT, cut, cut_label
from prime_nb.widget._linking import point_ids

FIGURES = [getattr(plots, name) for name in plots.__all__]
LONG = 50_000
#: the longest string a figure may draw: its own template, or a cut text escaped
#: (``&`` becomes five characters)
SHORT_ENOUGH = 5 * TEXT + 400


def long_text(what: str) -> str:
    return f"{what}:" + "a<b&" * ((1_000_000 if what == "name" else LONG) // 4)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> prime_nb.Session:
    path = hostile_session(tmp_path_factory.mktemp("long") / "s.jsonl", 9, long_text)
    return prime_nb.load(path)


@pytest.mark.parametrize("make", FIGURES, ids=lambda f: f.__name__)
def test_every_string_a_figure_draws_is_short(make: Any, session: prime_nb.Session) -> None:
    fig = make(session)
    found = list(strings(fig.to_plotly_json()))
    assert found
    longest = max(found, key=lambda item: len(item[1]))
    assert len(longest[1]) <= SHORT_ENOUGH, longest[0]
    assert "…" in fig.layout.title.text
    assert sum(len(text) for _, text in found) < 100_000  # the ids linking reads aside


def test_the_ids_linking_reads_stay_whole(session: prime_nb.Session) -> None:
    fig = plots.context_timeline(session)
    ids = point_ids(fig.data[0])
    assert any(len(entry_id) > LONG for entry_id in ids)
    assert set(ids) <= set(session.entries.index)


def test_the_data_stays_whole(session: prime_nb.Session) -> None:
    assert session.name is not None and len(session.name) > 1_000_000
    assert (session.tool_calls["name"].str.len() > LONG).all()


def test_cut_texts_and_labels() -> None:
    assert cut("short") == "short"
    assert cut("x" * 500) == "x" * (TEXT - 1) + "…"
    assert cut("abcdef", 4) == "abc…"
    first, second = cut_label("t" * 100 + "1"), cut_label("t" * 100 + "2")
    assert first != second
    assert len(first) == len(second) == LABEL
    assert first.startswith("t" * (LABEL - 9) + "…")
    assert cut_label("t" * LABEL) == "t" * LABEL


def test_two_long_tool_names_that_share_their_start_stay_two_bars(tmp_path: Path) -> None:
    names = ["tool-" + "x" * 5000 + "-read", "tool-" + "x" * 5000 + "-write"]
    lines: list[Any] = [header(), msg("u1", None, "user", "go", 0)]
    parent = "u1"
    for k, name in enumerate(names):
        block = {"type": "toolCall", "id": f"k{k}", "name": name, "arguments": {}}
        lines.append(msg(f"a{k}", parent, "assistant", minute=2 * k + 1, content=[block]))
        lines.append(msg(f"t{k}", f"a{k}", "toolResult", "ok", 2 * k + 2, toolCallId=f"k{k}"))
        parent = f"t{k}"
    session = prime_nb.load(write_lines(tmp_path / "s.jsonl", lines))
    fig = plots.tool_usage(session)
    assert len(fig.data[0].x) == 2
    assert len(set(fig.data[0].x)) == 2
    assert all(len(label) <= LABEL for label in fig.data[0].x)
