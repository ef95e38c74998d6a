"""The prime-nb command, run as a user runs it: in a subprocess.

Each command runs at least once as a process; its further cases, about what it prints,
run ``main`` in this process (``run_cli``, output captured as a process's), to spare a
second of start-up each."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_in_process import run_cli
from research_sessions import branchy

import prime_nb
from prime_nb.cli import main
from sessiongen import synthetic_session

CLI = [sys.executable, "-m", "prime_nb.cli"]
SUBCOMMANDS = ["info", "validate", "ls", "upgrade", "export", "demo"]


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("prime-nb"), lines
    return lines[0]


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return branchy(tmp_path / "branchy.jsonl")


def test_help_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    top = run("--help")
    assert top.returncode == 0
    for name in SUBCOMMANDS:
        assert name in top.stdout
    assert "prime-nb demo" in top.stdout  # the main job is named up front
    for name in SUBCOMMANDS:
        with pytest.raises(SystemExit, match=r"^0$") as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0
        assert f"usage: prime-nb {name}" in capsys.readouterr().out


def test_info(session_file: Path) -> None:
    proc = run("info", session_file)
    assert proc.returncode == 0, proc.stderr
    fields = {line[:13].strip(): line[13:] for line in proc.stdout.splitlines()}
    # by hand: 10 entries, 1 fork (a2), 2 leaves, 5 assistant turns of 1,050 tokens, $1.05
    assert fields["entries"] == "10" and fields["forks"] == "1" and fields["leaves"] == "2"
    assert fields["tokens"] == "input 1,050  output 0  cache read 0  cache write 0"
    assert fields["total tokens"].startswith("1,050 (each turn's total summed")
    assert fields["cost"] == "$1.0500"
    assert fields["compactions"] == "0" and fields["problems"] == "0"
    assert fields["version"].startswith("3") and fields["dialect"] == "prime"
    data = json.loads(run_cli("info", "--json", session_file).stdout)
    assert (data["entries"], data["forks"], data["tokens"]) == (10, 1, 1050)
    assert data["cost"] == pytest.approx(1.05)


def test_validate(session_file: Path, tmp_path: Path) -> None:
    good = run("validate", session_file)
    assert good.returncode == 0 and "ok" in good.stdout
    bad = tmp_path / "bad.jsonl"
    lines = session_file.read_text().splitlines()
    lines.insert(2, "garbage{")  # line 3
    bad.write_text("\n".join(lines) + "\n" + '{"type":"message","id":"zz"')  # torn last line
    proc = run_cli("validate", session_file, bad, tmp_path / "missing.jsonl")
    assert proc.returncode == 1
    assert f"{bad}:3: error: invalid_json:" in proc.stdout
    assert f"{bad}:13: error: torn_line:" in proc.stdout
    assert f"{tmp_path / 'missing.jsonl'}: error: no such file" in proc.stdout
    assert f"{session_file}: ok" in proc.stdout


def test_usage_errors_are_one_line_exit_2(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args, start in (([], run), (["info", tmp_path / "missing.jsonl"], run_cli)):
        proc = start(*args)  # the first as a user runs it
        assert proc.returncode == 2, (args, proc.stderr)
        assert "error" in one_line_error(proc)
    for args in (
        ["info"],
        ["info", "--bogus", session_file],
        ["frobnicate"],
        ["ls", tmp_path / "nowhere"],
        ["demo", "--port", "x"],
    ):
        try:  # the same code in-process, to spare a second of start-up per case
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code
        assert code == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("prime-nb") and "error" in err[0], err


def test_problems_are_one_line_exit_1(tmp_path: Path) -> None:
    not_session = tmp_path / "notes.jsonl"
    not_session.write_text("just some notes, no JSON\n")
    proc = run_cli("info", not_session)
    assert proc.returncode == 1
    assert "header" in one_line_error(proc)


def test_ls(session_file: Path, tmp_path: Path) -> None:
    (tmp_path / "older").mkdir()
    shutil.copy(session_file, tmp_path / "older" / "copy.jsonl")
    proc = run("ls", tmp_path)
    assert proc.returncode == 0
    assert str(session_file) in proc.stdout and "copy.jsonl" in proc.stdout
    records = json.loads(run_cli("ls", "--json", tmp_path).stdout)
    assert {r["entries"] for r in records} == {10}


def test_upgrade(tmp_path: Path) -> None:
    path = synthetic_session(tmp_path / "old.jsonl", version=1, seed=2)
    before = prime_nb.load(path)
    proc = run("upgrade", path)
    assert proc.returncode == 0, proc.stderr
    assert "version 1 to version 3" in proc.stdout
    after = prime_nb.load(path)
    assert after.version == 3 and len(after) == len(before)
    assert (tmp_path / "old.jsonl.v1.bak").exists()
    again = run_cli("upgrade", path)
    assert again.returncode == 0 and "already version 3" in again.stdout


def test_export(session_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    proc = run("export", session_file, "-o", out)
    if (Path(prime_nb.__file__).parent / "static" / "widget.js").exists():
        assert proc.returncode == 0, proc.stderr
        assert out.read_text("utf-8").lstrip().lower().startswith("<!doctype html")
        assert proc.stdout.strip() == str(out)
    else:  # the JS bundle is not built: a clear one-line error, no traceback
        assert proc.returncode == 1
        one_line_error(proc)


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "prime-nb"
    assert script.exists(), "install the package (pip install -e .) to get the console script"
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("prime-nb ")


def test_demo_without_its_notebook_says_to_reinstall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An install that lost the quickstart notebook stops before starting a server, with
    one line that names the notebook and the cure."""
    from prime_nb.cli import _demo

    monkeypatch.setattr(_demo, "quickstart_notebook", lambda: None)
    folder = tmp_path / "demo"
    # a short timeout: were a server started, the call would end, not wait for Ctrl-C
    assert main(["demo", "--no-browser", "--timeout", "0.01", "--dir", str(folder)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "prime-nb: error: the quickstart notebook (01-quickstart.ipynb) is missing from "
        "this install; reinstall prime-nb"
    )
    assert not (folder / ".jupyter-server.log").exists()
