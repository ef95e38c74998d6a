"""prime-nb convert: a file or a folder into ATIF files or a Scout database; a missing
file, a missing extra and an unknown target are one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from session_matrix import clean_lines, write_lines

import prime_nb
from prime_nb.cli import main
from prime_nb.cli._convert import TARGETS

CLI = [sys.executable, "-m", "prime_nb.cli"]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=120)


def test_convert_to_atif_writes_a_valid_file_per_path(tmp_path: Path) -> None:
    import atif  # here: its pydantic models cost every worker's collection

    (tmp_path / "in").mkdir()
    source = write_lines(tmp_path / "in" / "clean.jsonl", clean_lines())
    proc = run("convert", source, "--to", "atif", "-o", tmp_path / "out", "--all-leaves")
    assert proc.returncode == 0, proc.stderr
    written = [Path(line) for line in proc.stdout.splitlines()]
    assert len(written) == len(prime_nb.load(source).leaves) == 2
    for path in written:
        atif.Trajectory.model_validate(json.loads(path.read_text("utf-8")))


def test_convert_a_folder_to_scout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in").mkdir()
    for name in ("a", "b"):
        write_lines(tmp_path / "in" / f"{name}.jsonl", clean_lines())
    assert main(["convert", str(tmp_path / "in"), "--to", "scout", "-o", str(tmp_path / "db")]) == 0
    # the last line is ours (Scout's database may print a blank line before it)
    assert capsys.readouterr().out.splitlines()[-1] == f"{tmp_path / 'db'}: 2 transcripts"
    assert list((tmp_path / "db").glob("*.parquet"))


def test_convert_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["convert", str(tmp_path / "nope.jsonl"), "--to", "atif", "-o", "x"]) == 2
    assert capsys.readouterr().err == (
        f"prime-nb: error: {tmp_path / 'nope.jsonl'}: no such session file or folder\n"
    )
    source = write_lines(tmp_path / "clean.jsonl", clean_lines())
    monkeypatch.setitem(sys.modules, "atif", None)
    assert main(["convert", str(source), "--to", "atif", "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'prime-nb[atif]'" in err
    assert main(["convert", str(source), "--to", "scout"]) == 2
    assert capsys.readouterr().err == "prime-nb: error: --to scout writes files; pass -o DEST\n"
    with pytest.raises(SystemExit, match="2"):
        main(["convert", str(source), "--to", "nothing", "-o", "x"])
    assert "invalid choice: 'nothing'" in capsys.readouterr().err


def test_every_target_says_what_it_writes() -> None:
    assert {"atif", "scout"} <= set(TARGETS)
    assert all(target.help and callable(target.write) for target in TARGETS.values())
