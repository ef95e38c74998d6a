"""One policy for every folder walk: a file reached through a symlink that leads out of
the folder is left out, with a warning naming it, unless ``follow_symlinks=True`` (the
CLI's ``--follow-symlinks``): ``ls``, ``validate`` of a folder, ``list_sessions()``,
``find_session_files()``, the corpus and the exports that take a folder."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

from prime_nb.cli import main
from prime_nb.session import find_session_files, list_sessions


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``corpus/`` with its own session, a link to it, a link to a session outside and a
    link to a folder outside."""
    root = tmp_path_factory.mktemp("links")
    for path, session_id in (
        (root / "corpus" / "inside.jsonl", "inside"),
        (root / "outside" / "secret.jsonl", "outside-file"),
        (root / "elsewhere" / "deep.jsonl", "outside-folder"),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_lines(path, [header(id=session_id), msg("u1", None, "user", "hello")])
    folder = root / "corpus"
    (folder / "again.jsonl").symlink_to(folder / "inside.jsonl")
    (folder / "secret.jsonl").symlink_to(root / "outside" / "secret.jsonl")
    (folder / "project").symlink_to(root / "elsewhere", target_is_directory=True)
    return folder


def test_find_session_files_leaves_out_links_leading_out_and_says_so(linked: Path) -> None:
    with pytest.warns(UserWarning) as said:
        found = find_session_files(linked)
    assert sorted(p.name for p in found) == ["again.jsonl", "inside.jsonl"]
    (message,) = [str(w.message) for w in said]
    assert message.startswith(f"{linked / 'secret.jsonl'}: left out, a symlink leading outside")
    assert "follow_symlinks=True" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        followed = find_session_files(linked, follow_symlinks=True)
    assert sorted(p.name for p in followed) == ["again.jsonl", "inside.jsonl", "secret.jsonl"]
    # a file in a linked folder (``**`` does not walk into a linked folder; ``*/`` does)
    with pytest.warns(UserWarning, match="deep.jsonl: left out, a symlink leading outside"):
        assert find_session_files(linked, "*/*.jsonl") == []
    assert [p.name for p in find_session_files(linked, "*/*.jsonl", follow_symlinks=True)] == [
        "deep.jsonl"
    ]


def test_list_sessions_leaves_them_out(linked: Path) -> None:
    with pytest.warns(UserWarning, match="symlink leading outside"):
        frame = list_sessions(linked)
    assert sorted(frame["id"]) == ["inside", "inside"]
    followed = list_sessions(linked, follow_symlinks=True)
    assert sorted(followed["id"]) == ["inside", "inside", "outside-file"]


def test_ls_and_validate_leave_them_out_and_warn_once_each(
    linked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ls", str(linked), "--json"]) == 0
    out, err = capsys.readouterr()
    assert sorted(row["id"] for row in json.loads(out)) == ["inside", "inside"]
    (warned,) = err.splitlines()
    assert warned.startswith(f"prime-nb: warning: {linked / 'secret.jsonl'}: left out")
    assert "--follow-symlinks" in warned
    assert main(["ls", str(linked), "--json", "--follow-symlinks"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 3 and err == ""

    assert main(["validate", str(linked)]) == 0
    out, err = capsys.readouterr()
    assert sorted(Path(line.split(":")[0]).name for line in out.splitlines()) == [
        "again.jsonl",
        "inside.jsonl",
    ]
    assert err == f"{warned}\n"
    assert main(["validate", str(linked), "--follow-symlinks"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 3 and err == ""


def test_many_links_are_counted_not_each_named(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    write_lines(outside, [header(id="o"), msg("u1", None, "user", "hello")])
    folder = tmp_path / "folder"
    folder.mkdir()
    for n in range(40):
        (folder / f"link{n}.jsonl").symlink_to(outside)
    with pytest.warns(UserWarning) as said:
        assert find_session_files(folder) == []
    assert len(said) == 6
    assert "35 more files left out" in str(said[-1].message)


def test_a_local_folder_given_as_a_file_url_is_listed_the_same_way(linked: Path) -> None:
    from prime_nb.corpus._dask import resolve

    with pytest.warns(UserWarning, match="secret.jsonl: left out"):
        found = resolve(f"file://{linked}")
    assert sorted(Path(p.removeprefix("file://")).name for p in found) == [
        "again.jsonl",
        "inside.jsonl",
    ]
    followed = resolve(f"file://{linked}", follow_symlinks=True)
    assert sorted(Path(p).name for p in followed) == ["again.jsonl", "inside.jsonl", "secret.jsonl"]
