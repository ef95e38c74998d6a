"""`prime-nb redact` and `prime-nb export --redact`: what they print and write.

Run in this process (``run_cli``: ``main`` with its output captured as a process's) but
for the FIFO, which a process bounds with a timeout; tests/redact/test_redact_corpus.py
runs both commands as processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_in_process import run_cli
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.widget import read_export

CLI = [sys.executable, "-m", "prime_nb.cli"]
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)


def run_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
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
    assert proc.stdout.strip().endswith(f"{out}: 3 replacements, 0 suspects")
    assert "github-token" in proc.stdout and TOKEN not in proc.stdout
    assert TOKEN not in out.read_text() and "alice" not in out.read_text()
    assert list(prime_nb.load(out).entries.index) == ["u1", "a1"]


def test_redact_dry_run_prints_the_report_only(leaky: Path, tmp_path: Path) -> None:
    before = sorted(tmp_path.iterdir())
    proc = run("redact", leaky, "--dry-run", "--details", "--rule", r"o(k)")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].split() == ["line", "entry_id", "field", "rule", "placeholder"]
    assert any(
        line.split()[:4] == ["3", "a1", "message.content[0].text", "rule-1"] for line in lines
    )
    assert lines[-1] == "0 suspects"
    assert "/home/alice" not in proc.stdout and TOKEN not in proc.stdout
    assert sorted(tmp_path.iterdir()) == before


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """A session with 60 replacements of 3 kinds."""
    lines = [header(cwd="/srv/app")]
    parent = None
    for i in range(20):
        token = "ghp_" + f"{i:02d}" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
        text = f"use {token}, mail bob{i}@corp-mail.com, see /home/bob{i}/src"
        lines.append(msg(f"u{i}", parent, "user", text, i))
        parent = f"u{i}"
    return write_lines(tmp_path / "many.jsonl", lines)


def test_redact_prints_a_summary_by_rule_and_details_on_demand(many: Path) -> None:
    """One row per replacement ran to hundreds of lines; the summary has one per rule."""
    proc = run("redact", many, "--dry-run", "--host", "nohost-here")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].split() == ["rule", "replacements", "values", "lines"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:4]}
    assert rows == {
        "github-token": ["20", "20", "20"],
        "email": ["20", "20", "20"],
        "home-path": ["20", "20", "20"],
    }
    assert len(lines) == 5 and lines[-1] == "0 suspects"
    details = run("redact", many, "--dry-run", "--details", "--host", "nohost-here")
    assert len(details.stdout.strip().splitlines()) == 1 + 60 + 1


def test_a_rule_given_a_name_is_reported_by_it(many: Path) -> None:
    proc = run("redact", many, "--dry-run", "--rule", r"project=s(rc)", "--rule", r"(mail)")
    assert proc.returncode == 0, proc.stderr
    names = {line.split()[0] for line in proc.stdout.splitlines()[1:]}
    assert {"project", "rule-2"} <= names and "user-0" not in proc.stdout
    bad = run("redact", many, "--dry-run", "--rule", "name=(")
    assert bad.returncode == 2
    assert bad.stderr.startswith("prime-nb: error: --rule 'name=(': not a valid regex")


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
    # it says what was redacted, as redact does (it printed nothing at all)
    assert proc.stdout.splitlines()[0].split() == ["rule", "replacements", "values", "lines"]
    assert "github-token" in proc.stdout and TOKEN not in proc.stdout
    assert proc.stdout.strip().endswith(f"{hidden}: 3 replacements, 0 suspects")
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
    proc = run_cli("redact", given, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (code, "")
    assert proc.stderr.splitlines() == [f"prime-nb: error: {message}"]
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_redact_of_a_fifo_says_what_it_is(tmp_path: Path) -> None:
    """It said the FIFO "is a folder"."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    proc = run_process("redact", fifo, "--dry-run")
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"prime-nb: error: {fifo}: is a FIFO, not a regular file; pass one .jsonl session file"
    ]
