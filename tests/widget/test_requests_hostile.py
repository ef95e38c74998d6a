"""Requests the browser sends the widget's Python side, whatever they hold.

A request names rows by index; JSON's ``true`` and ``false`` arrive as Python's bools,
which are ints: they must not stand for rows 1 and 0. Whatever a request holds, the
answer is a refusal said back to the browser, one line and short, never an exception
out of the comm handler.
"""

from __future__ import annotations

from typing import Any

import pytest

from prime_nb import load
from prime_nb.datasets import demo_session_path
from prime_nb.widget import SessionWidget
from prime_nb.widget._data import SessionData


@pytest.fixture(scope="module")
def data() -> SessionData:
    return SessionData(load(demo_session_path()))


@pytest.mark.parametrize("what", ["entry", "preview", "context"])
@pytest.mark.parametrize("index", [True, False, -1, 10**18, 1.0, "0", None, [0]])
def test_an_index_that_is_no_row_is_refused(data: SessionData, what: str, index: Any) -> None:
    with pytest.raises(ValueError, match="no entry at index"):
        data.answer({"what": what, "index": index})


def test_lists_of_odd_indices_get_nothing_in_their_places(data: SessionData) -> None:
    odd = [True, False, -1, 10**18, 1.5, "3", None, [1], {"i": 2}, data.n]
    assert data.answer({"what": "lines", "indices": odd})["lines"] == [""] * len(odd)
    entries = data.answer({"what": "entries", "indices": odd})["entries"]
    assert [e["error"].startswith("no entry at index") for e in entries] == [True] * len(odd)
    assert data.answer({"what": "lines", "indices": [1]})["lines"] != [""]


def test_a_long_value_is_said_back_short(data: SessionData) -> None:
    with pytest.raises(ValueError, match="no entry at index 'xxx") as caught:
        data.answer({"what": "entry", "index": "x" * 100_000})
    assert len(str(caught.value)) < 80


def test_the_comm_handler_answers_every_request_and_raises_nothing() -> None:
    widget = SessionWidget(demo_session_path())
    sent: list[Any] = []
    widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    for content in (
        None,
        [],
        {"type": "request", "rid": [1], "what": "entry", "index": True},
        {"type": "request", "rid": 2, "what": "entries", "indices": "x"},
        {"type": "request", "rid": 3, "what": ["entry"], "index": 0},
    ):
        widget._on_msg(widget, content, [])
    assert [s["rid"] for s in sent] == [[1], 2, 3]
    assert all(s["error"].startswith("ValueError: ") for s in sent)
    widget.close()


def test_an_unknown_id_is_refused_with_the_file_and_what_to_do() -> None:
    import pandas as pd

    from prime_nb.widget import show

    path = demo_session_path()
    with pytest.raises(Exception, match=r"no entry with id 'nope' in this session; pick") as caught:
        show(pd.Series({"file": str(path), "entry_id": "nope"}))
    assert str(caught.value).startswith(f"{path}: ")
    with pytest.raises(Exception, match=r"no entry with id 'xxx+'… in this session") as caught:
        SessionWidget(path, selected_id="x" * 10_000)
    assert len(str(caught.value)) < 300
    # a hit on no entry (a header line: no id) opens the file with nothing selected
    for missing in (None, float("nan")):
        widget = show(pd.Series({"file": str(path), "entry_id": missing}))
        assert widget.selected_id is None
        widget.close()
