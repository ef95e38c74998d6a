"""FamilyWidget's Python side: the payload, the selection, opening a session's own widget."""

from __future__ import annotations

from pathlib import Path

import pytest
import traitlets
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.widget import FamilyWidget, SessionWidget, show_family
from prime_nb.widget._family_data import family_payload
from prime_nb.widget._session_widget import STATIC
from sessiongen import synthetic_family


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return synthetic_family(tmp_path_factory.mktemp("family"), seed=6)


def test_payload_has_one_record_per_session_with_its_branch_row(written: dict[str, Path]) -> None:
    family = prime_nb.load_family(written["root"])
    payload = family_payload(family)
    sessions = {s["key"]: s for s in payload["sessions"]}
    assert list(sessions) == family.sessions["session"].tolist()
    for row in family.sessions.itertuples():
        record = sessions[row.session]
        assert (record["kind"], record["parent"], record["level"]) == (
            row.kind,
            row.parent if isinstance(row.parent, str) else None,
            row.level,
        )
        assert record["new"] == row.entries - row.shared_entries
        if isinstance(row.parent, str):  # `at` is the parent entry's row in the parent file
            parent_ids = family.session(row.parent).entries.index.tolist()
            assert parent_ids[record["at"]] == row.forked_from
        else:
            assert record["at"] == -1
    # a fork is labelled by its own first prompt, not the one it copied
    fork = sessions[family.key(str(written["fork"]))]
    copied = family.copied(str(written["fork"]))
    entries = family.session(str(written["fork"])).entries
    own_users = entries[(entries["role"] == "user") & ~entries.index.isin(list(copied))]
    assert fork["label"] == own_users["text"].iloc[0]
    assert payload["totals"]["cost"] == pytest.approx(family.totals["cost"])


def test_selection_opens_the_session_widget(written: dict[str, Path]) -> None:
    widget = FamilyWidget(written["fork"])
    assert len(widget._family["sessions"]) == 5
    assert (STATIC / "family.js").is_file(), "build the bundle: cd js && npm ci && npm run build"
    assert widget._esm == (STATIC / "family.js").read_text()
    opened: list[SessionWidget] = []
    widget.on_open(opened.append)
    key = widget.family.key(str(written["subagent_of_subagent"]))
    widget.selected_session = key
    assert len(opened) == 1 and opened[0].session.file == written["subagent_of_subagent"]
    assert widget.open_session().session.file == written["subagent_of_subagent"]
    assert widget.open_session(widget.family.roots[0]).session.file == written["root"]
    widget.selected_session = None
    assert len(opened) == 1
    with pytest.raises(ValueError, match="no session selected; click one, or pass its name"):
        widget.open_session()
    with pytest.raises(traitlets.TraitError, match="no session named 'nope' in this family"):
        widget.selected_session = "nope"
    assert prime_nb.FamilyWidget is FamilyWidget


def test_show_family_puts_the_clicked_session_under_the_view(written: dict[str, Path]) -> None:
    box = show_family(written["root"], height=400)
    view = box.children[0]
    assert isinstance(view, FamilyWidget) and len(box.children) == 1
    view.selected_session = view.family.key(str(written["fork"]))
    opened = box.children[1]
    assert isinstance(opened, SessionWidget) and opened.session.file == written["fork"]
    assert opened.height == 400
    view.selected_session = None
    assert box.children == (view,)
    assert prime_nb.show_family is show_family


def test_the_family_view_takes_a_path_or_says_what_it_takes(written: dict[str, Path]) -> None:
    """Given a number, it failed with ``Path``'s own TypeError."""
    root = next(iter(written.values()))
    for given in (root, str(root)):
        assert len(FamilyWidget(given).family.sessions) == len(prime_nb.load_family(root).sessions)
    for odd in (3, None, [root]):
        with pytest.raises(TypeError, match=r"^FamilyWidget takes a Family .* not "):
            show_family(odd)  # type: ignore[arg-type]


def test_a_parent_session_that_is_a_symlink_loop_is_a_missing_parent(tmp_path: Path) -> None:
    """Resolving the path raised RuntimeError (a symlink loop) out of the family view."""
    loop = tmp_path / "loop-a.jsonl"
    loop.symlink_to(tmp_path / "loop-b.jsonl")
    (tmp_path / "loop-b.jsonl").symlink_to(loop)
    child = write_lines(
        tmp_path / "child.jsonl",
        [header(id="sess-c", parentSession=str(loop)), msg("c1", None, "user")],
    )
    widget = FamilyWidget(child)
    assert widget.family.problems["kind"].tolist() == ["missing_parent"]
    assert [s["key"] for s in family_payload(widget.family)["sessions"]] == ["sess-c"]
