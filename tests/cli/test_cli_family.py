"""prime-nb family, run as a user runs it: in a subprocess, once; its other cases, about
what it prints, run ``main`` in this process (``run_cli``, output captured as a
process's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_in_process import run_cli

import prime_nb
from prime_nb.cli import main
from sessiongen import synthetic_family

CLI = [sys.executable, "-m", "prime_nb.cli"]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=120)


def test_family_prints_the_tree_and_the_totals(tmp_path: Path) -> None:
    written = synthetic_family(tmp_path, seed=4)
    proc = run("family", written["subagent_of_subagent"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    family = prime_nb.load_family(written["root"])
    assert len(lines) == 7  # five sessions, the totals, what "own" and the total are
    kinds = [line.split()[0] for line in lines[:5]]
    assert sorted(kinds) == ["fork", "fork", "root", "subagent", "subagent"]
    indents = sorted(len(line) - len(line.lstrip()) for line in lines[:5])
    assert indents == [0, 2, 2, 4, 4]  # three levels
    assert lines[-2].startswith("total: 5 sessions,")
    assert f"${family.totals['cost']:.4f} (files summed:" in lines[-2]
    assert lines[-1].startswith("own: ")
    data = json.loads(run_cli("family", "--json", tmp_path).stdout)
    assert sorted(data) == ["links", "problems", "sessions", "totals"]
    assert len(data["links"]) == 4 and data["problems"] == []
    assert data["totals"]["cost"] == pytest.approx(family.totals["cost"])


def test_family_exits_1_on_a_missing_parent_and_names_it(tmp_path: Path) -> None:
    written = synthetic_family(tmp_path, seed=4)
    written["root"].unlink()
    proc = run_cli("family", written["fork"])
    assert proc.returncode == 1
    assert f"{written['fork']}: missing_parent: {written['fork']}: parentSession" in proc.stdout


def test_family_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proc = run_cli("family", tmp_path / "nope.jsonl")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == f"prime-nb: error: {tmp_path / 'nope.jsonl'}: no such file or folder"
    )
    with pytest.raises(SystemExit, match=r"^0$") as exit_info:
        main(["family", "--help"])
    assert exit_info.value.code == 0
    assert "usage: prime-nb family" in capsys.readouterr().out
    assert "family" in run_cli("--help").stdout
