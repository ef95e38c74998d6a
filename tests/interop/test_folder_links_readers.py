"""Every public reader of a folder takes ``follow_symlinks``: a session reached through a
symlink leading out of the folder is left out with the listing's warning by default,
and read when asked. ``from_sessions``, ``to_scout`` (and ``compaction_probes``),
``load_family`` (and ``to_atif``'s search for sub-agents) and the commands ``convert``
and ``family`` (``--follow-symlinks``)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

from prime_nb.cli import main
from prime_nb.datasets import from_sessions
from prime_nb.family import load_family
from prime_nb.interop import to_scout

LEFT_OUT = "secret.jsonl: left out, a symlink leading outside"


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``corpus/`` with its own session and a link to a session outside it."""
    root = tmp_path_factory.mktemp("readers")
    for path, session_id in (
        (root / "corpus" / "inside.jsonl", "inside"),
        (root / "outside" / "secret.jsonl", "outside"),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [header(id=session_id), msg("u1", None, "user", "hello")]
        write_lines(path, [*lines, msg("a1", "u1", "assistant", "hi")])
    (root / "corpus" / "secret.jsonl").symlink_to(root / "outside" / "secret.jsonl")
    return root / "corpus"


def test_from_sessions(linked: Path) -> None:
    with pytest.warns(UserWarning, match=LEFT_OUT):
        table = from_sessions(linked, progress=False)
    assert table.column("session_id").to_pylist() == ["inside"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = from_sessions(linked, progress=False, follow_symlinks=True)
    assert sorted(table.column("session_id").to_pylist()) == ["inside", "outside"]


def test_to_scout(linked: Path, tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match=LEFT_OUT):
        ids = to_scout(linked, tmp_path / "default")
    assert [i.split(":")[0] for i in ids] == ["inside"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ids = to_scout(linked, tmp_path / "followed", follow_symlinks=True)
    assert sorted(i.split(":")[0] for i in ids) == ["inside", "outside"]


def test_load_family(linked: Path) -> None:
    with pytest.warns(UserWarning, match=LEFT_OUT):
        family = load_family(linked)
    assert list(family.sessions["id"]) == ["inside"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        family = load_family(linked, follow_symlinks=True)
    assert sorted(family.sessions["id"]) == ["inside", "outside"]
    # a file's family is searched in its folder: the same policy there
    with pytest.warns(UserWarning, match=LEFT_OUT):
        load_family(linked / "inside.jsonl")


def test_convert_and_family_commands(
    linked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["convert", str(linked), "--to", "atif", "-o", str(tmp_path / "a")]) == 0
    out, err = capsys.readouterr()
    assert [Path(line).name.split(".")[0] for line in out.splitlines()] == ["inside"]
    (warned,) = err.splitlines()
    assert warned.startswith(f"prime-nb: warning: {linked / 'secret.jsonl'}: left out")
    assert "--follow-symlinks" in warned
    argv = ["convert", str(linked), "--to", "atif", "-o", str(tmp_path / "b"), "--follow-symlinks"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert sorted(Path(line).name.split(".")[0] for line in out.splitlines()) == [
        "inside",
        "secret",
    ]
    assert err == ""

    assert main(["family", str(linked), "--json"]) == 0
    out, err = capsys.readouterr()
    assert [row["id"] for row in json.loads(out)["sessions"]] == ["inside"]
    assert err.startswith(f"prime-nb: warning: {linked / 'secret.jsonl'}: left out")
    assert main(["family", str(linked), "--json", "--follow-symlinks"]) == 0
    out, err = capsys.readouterr()
    assert sorted(row["id"] for row in json.loads(out)["sessions"]) == ["inside", "outside"]
    assert err == ""
