"""export_html's view state: a keyword, view or filter the widget does not know raises
instead of being dropped (the page would open in a state nobody asked for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prime_nb.datasets import demo_session_path
from prime_nb.widget._export import export_html


@pytest.mark.parametrize(
    ("state", "error", "words"),
    [
        ({"view": "graph"}, ValueError, "unknown view 'graph'; use one of tree, branches"),
        ({"selected": "abc"}, TypeError, "unknown keyword 'selected'; use selected_id"),
        ({"filter": "everything"}, ValueError, "unknown filter 'everything'"),
        ({"selected_id": 7}, TypeError, "selected_id must be an entry id"),
    ],
)
def test_unknown_state_raises(
    tmp_path: Path, state: dict[str, object], error: type, words: str
) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(")) as got:
        export_html(demo_session_path(), tmp_path / "out.html", **state)
    assert str(got.value).startswith("export_html: ")
    assert not (tmp_path / "out.html").exists()


def test_known_state_is_written(tmp_path: Path) -> None:
    out = export_html(
        demo_session_path(), tmp_path / "out.html", view="branches", filter="all", search="x"
    )
    assert out.exists()
