"""``prime-nb repair FILE -o NEW``: a copy with glued lines split; never in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_reading import agent_entries
from session_matrix import clean_lines

from prime_nb.cli import main


def run_main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def glued(path: Path) -> Path:
    lines = [json.dumps(entry) for entry in clean_lines()]
    lines[6:8] = [lines[6] + lines[7]]
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_repair_writes_a_new_file_the_agent_reads_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = glued(tmp_path / "s.jsonl")
    before = source.read_bytes()
    new = tmp_path / "fixed.jsonl"
    code, out, err = run_main(capsys, "repair", source, "-o", new)
    assert (code, err) == (0, "")
    assert (
        out == f"{source}:7: split into 2 lines\n{new}: written, 1 glued line split into 2 lines\n"
    )
    assert source.read_bytes() == before
    assert [e["id"] for e in agent_entries(new)[1:]] == [e["id"] for e in clean_lines()[1:]]
    code, out, _ = run_main(capsys, "validate", new)
    assert code == 0 and "ok (10 entries" in out


def test_repair_refuses_to_overwrite_without_force_and_never_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = glued(tmp_path / "s.jsonl")
    before = source.read_bytes()
    other = tmp_path / "other.jsonl"
    other.write_text("keep me\n")
    code, _, err = run_main(capsys, "repair", source, "-o", other)
    assert code == 1
    assert (
        err == f"prime-nb: error: {other}: exists; pass --force (force=True) to overwrite it, "
        "or choose another file\n"
    )
    assert other.read_text() == "keep me\n"
    code, _, err = run_main(capsys, "repair", source, "-o", source, "--force")
    assert code == 1 and "is the file being repaired" in err
    assert source.read_bytes() == before
    code, _, _ = run_main(capsys, "repair", source, "-o", other, "--force")
    assert code == 0 and len(agent_entries(other)) == 11


def test_repair_of_a_sound_file_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "s.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in clean_lines()))
    code, out, _ = run_main(capsys, "repair", source, "-o", tmp_path / "new.jsonl")
    assert code == 0 and "nothing to repair, nothing written" in out
    assert not (tmp_path / "new.jsonl").exists()
    code, _, err = run_main(capsys, "repair", tmp_path / "nope.jsonl", "-o", tmp_path / "n.jsonl")
    assert code == 2 and "no such file" in err
