"""``python -m sessiongen``: help without side effects, each command writes where it is told.

The files are checked with plain JSON (the loader is what these files test).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from prime_nb.datasets import demo_session_path
from sessiongen import SHAPES, main

ROOT = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_help_prints_the_commands_and_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    demo = demo_session_path()
    before = (demo.stat().st_mtime_ns, demo.read_bytes())
    with pytest.raises(SystemExit, match=r"^0$") as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for command in ("shape", "big", "small", "family", "demo"):
        assert command in out
    assert (demo.stat().st_mtime_ns, demo.read_bytes()) == before


def test_no_command_is_a_usage_error_that_writes_nothing() -> None:
    demo = demo_session_path()
    before = demo.stat().st_mtime_ns
    done = subprocess.run(
        [sys.executable, "-m", "sessiongen"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "usage:" in done.stderr
    assert demo.stat().st_mtime_ns == before


@pytest.mark.parametrize("shape", ["branchy", "linear"])
def test_shape_writes_the_named_shape(tmp_path: Path, shape: str) -> None:
    out = tmp_path / f"{shape}.jsonl"
    assert main(["shape", shape, str(out), "-n", "120"]) == 0
    lines = _lines(out)
    assert lines[0]["type"] in ("session", "header")
    assert len(lines) >= 121
    assert shape in SHAPES


def test_big_writes_about_the_size_asked(tmp_path: Path) -> None:
    out = tmp_path / "big.jsonl"
    assert main(["big", str(out), "--mb", "0.3"]) == 0
    assert out.stat().st_size >= 300_000
    assert _lines(out)[0]["type"] == "session"


def test_small_and_family_write_their_files(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    assert main(["small", str(small), "--version", "2"]) == 0
    assert _lines(small)[0]["version"] == 2
    assert main(["family", str(tmp_path / "fam")]) == 0
    assert len(list((tmp_path / "fam").rglob("*.jsonl"))) == 5


def test_demo_to_a_path_equals_the_shipped_demo(tmp_path: Path) -> None:
    out = tmp_path / "demo.jsonl"
    assert main(["demo", "-o", str(out)]) == 0
    assert out.read_bytes() == demo_session_path().read_bytes()


def test_a_bad_argument_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match=r"^2$") as stop:
        main(["shape", "nosuch", "x.jsonl"])
    assert stop.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
