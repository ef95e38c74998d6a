"""`prime-nb redact` and `prime-nb export --redact`, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.widget import read_export

CLI = [sys.executable, "-m", "prime_nb.cli"]
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    return write_lines(
        tmp_path / "leaky.jsonl",
        [
            header(cwd="/home/alice/app"),
            msg("u1", None, "user", f"use {TOKEN} from alice@corp-mail.com", 0),
            msg("a1", "u1", "assistant", "ok", 1),
        ],
    )


def test_redact_writes_a_copy_and_says_so(leaky: Path) -> None:
    proc = run("redact", leaky, "--host", "nohost-here")
    assert proc.returncode == 0, proc.stderr
    out = leaky.with_name("leaky.redacted.jsonl")
    assert proc.stdout.strip().endswith(f"{out}: 3 replacements")
    assert "github-token" in proc.stdout and TOKEN not in proc.stdout
    assert TOKEN not in out.read_text() and "alice" not in out.read_text()
    assert list(prime_nb.load(out).entries.index) == ["u1", "a1"]


def test_redact_dry_run_prints_the_report_only(leaky: Path, tmp_path: Path) -> None:
    before = sorted(tmp_path.iterdir())
    proc = run("redact", leaky, "--dry-run", "--rule", r"o(k)")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].split() == ["line", "entry_id", "field", "rule", "placeholder"]
    assert any(
        line.split()[:4] == ["3", "a1", "message.content[0].text", "user-0"] for line in lines
    )
    assert "/home/alice" not in proc.stdout and TOKEN not in proc.stdout
    assert sorted(tmp_path.iterdir()) == before


def test_redact_refuses_to_overwrite(leaky: Path, tmp_path: Path) -> None:
    proc = run("redact", leaky, "-o", leaky)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"prime-nb: error: {leaky}: is the source session; redaction never writes in place, "
        "pass a new file name as dest"
    )
    missing = run("redact", tmp_path / "nope.jsonl")
    assert missing.returncode == 2 and "nope.jsonl: no such file" in missing.stderr


def test_export_redact(leaky: Path, tmp_path: Path) -> None:
    plain, hidden = tmp_path / "plain.html", tmp_path / "hidden.html"
    assert run("export", leaky, "-o", plain).returncode == 0
    proc = run("export", leaky, "-o", hidden, "--redact")
    assert proc.returncode == 0, proc.stderr
    assert TOKEN in json.dumps(read_export(plain))
    page = hidden.read_text("utf-8") + json.dumps(read_export(hidden))
    assert (
        TOKEN not in page
        and "alice@" not in page
        and "/home/alice" not in page
        and "[REDACTED:github-token:1]" in page
    )


@pytest.mark.parametrize(
    "given, code, message",
    [
        (
            ".",
            2,
            ".: is a folder; prime-nb redact takes one session file "
            "(prime-nb ls . lists them, prime-nb validate checks a whole folder)",
        ),
        ("", 2, "no FILE given (an empty path); pass the .jsonl session file to redact"),
    ],
    ids=["dot", "empty"],
)
def test_redact_of_a_folder_or_of_no_path_says_so_in_one_line(
    tmp_path: Path, given: str, code: int, message: str
) -> None:
    """Both ended in ValueError ('.' has no name to make FILE.redacted.jsonl from; ''
    is '.')."""
    proc = subprocess.run(
        [*CLI, "redact", given], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert (proc.returncode, proc.stdout) == (code, "")
    assert proc.stderr.splitlines() == [f"prime-nb: error: {message}"]
    assert list(tmp_path.iterdir()) == []  # nothing written
