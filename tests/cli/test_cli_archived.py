"""``--no-archived`` on every command that reads a folder of sessions: archived files
(OpenClaw's ``<id>.jsonl.reset.<time>``, ``<id>.jsonl.deleted.<time>``) are read by
default and left out with the flag; a file named on the command line is read as given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

from prime_nb.cli import main

#: the commands that read a folder of sessions, each with the flag
FOLDER_COMMANDS = ("ls", "validate", "grep", "family", "convert")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A live session and two archived ones (a reset and a deleted), each of its own id,
    all saying "go on"."""
    root = tmp_path_factory.mktemp("archived")
    names = {
        "live.jsonl": "live",
        "old.jsonl.reset.2026-02-01T10-20-30.123Z": "old",
        "gone.jsonl.deleted.2026-02-02T08-00-00.000Z": "gone",
    }
    for name, session_id in names.items():
        write_lines(
            root / name,
            [
                header(id=session_id),
                msg("u1", None, "user", "go on"),
                msg("a1", "u1", "assistant", "done", 1),
            ],
        )
    return root


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().out


def _names(paths: list[str]) -> set[str]:
    return {Path(p).name.split(".")[0] for p in paths}


def test_ls_leaves_archived_files_out(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "ls", "--json", folder)
    assert code == 0 and _names([r["path"] for r in json.loads(out)]) == {"live", "old", "gone"}
    code, out = _run(capsys, "ls", "--json", "--no-archived", folder)
    assert code == 0 and [r["archived"] for r in json.loads(out)] == [None]
    code, out = _run(capsys, "ls", "--no-archived", folder)
    assert code == 0 and out.splitlines()[1].endswith(str(folder / "live.jsonl"))
    assert len(out.splitlines()) == 2  # the header and the live session


def test_grep_leaves_archived_files_out(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "grep", "go on", folder)
    assert code == 0 and _names([line.split(":")[0] for line in out.splitlines()]) == {
        "live",
        "old",
        "gone",
    }
    code, out = _run(capsys, "grep", "--no-archived", "go on", folder)
    assert code == 0 and out.splitlines() == [f"{folder / 'live.jsonl'}:2 u1 user text: go on"]


def test_validate_leaves_archived_files_out_of_a_folder_only(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(capsys, "validate", folder)
    assert code == 0 and len(out.splitlines()) == 3
    code, out = _run(capsys, "validate", "--no-archived", folder)
    assert code == 0 and out.splitlines() == [f"{folder / 'live.jsonl'}: ok (2 entries, version 3)"]
    reset = next(folder.glob("old.*"))  # named on the command line: read as given
    code, out = _run(capsys, "validate", "--no-archived", reset)
    assert code == 0 and out.startswith(f"{reset}: ok")


def test_family_leaves_archived_files_out(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "family", "--json", folder)
    assert code == 0 and {s["id"] for s in json.loads(out)["sessions"]} == {"live", "old", "gone"}
    code, out = _run(capsys, "family", "--json", "--no-archived", folder)
    assert code == 0 and [s["id"] for s in json.loads(out)["sessions"]] == ["live"]
    code, out = _run(capsys, "family", "--json", "--no-archived", folder / "live.jsonl")
    assert code == 0 and [s["id"] for s in json.loads(out)["sessions"]] == ["live"]


def test_convert_leaves_archived_files_out(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(capsys, "convert", folder, "--to", "atif", "-o", tmp_path / "all")
    assert code == 0 and _names(out.splitlines()) == {"live", "old", "gone"}
    code, out = _run(
        capsys, "convert", folder, "--to", "atif", "-o", tmp_path / "live", "--no-archived"
    )
    assert code == 0 and _names(out.splitlines()) == {"live"}


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_help_says_what_archived_means(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match=r"^0$"):  # --help exits 0
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--no-archived" in text
    assert "reset or deleted the session" in text and "<id>.jsonl.reset.<time>" in text
