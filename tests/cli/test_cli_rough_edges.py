"""What a new user met on real sessions: token totals, folders where a file goes, the
listing's header and JSON, family's exit code and costs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.cli import main
from sessiongen import synthetic_family

#: three turns' costs whose float sum is 0.6000000000000001
COSTS = (0.1, 0.2, 0.3)


def _cached_turns(path: Path, turns: int = 3) -> Path:
    """A session of ``turns`` turns that each read 1,000 cached tokens: the per-turn
    totals add the cached context once per turn."""
    entries: list[dict[str, Any]] = [header(id="cached")]
    parent = None
    for turn in range(turns):
        user, answer = f"u{turn}", f"a{turn}"
        entries.append(msg(user, parent, "user", "go on", minute=2 * turn))
        reply = msg(answer, user, "assistant", "done", minute=2 * turn + 1)
        reply["message"]["usage"] = {
            "input": 10,
            "output": 5,
            "cacheRead": 1000,
            "cacheWrite": 20,
            "totalTokens": 1035,
            "cost": {"total": COSTS[turn]},
        }
        entries.append(reply)
        parent = answer
    return write_lines(path, entries)


def _out(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_info_shows_the_four_token_figures_and_says_what_the_total_sums(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _cached_turns(tmp_path / "cached.jsonl")
    code, out, _ = _out(capsys, "info", path)
    assert code == 0
    fields = {line[:13].strip(): line[13:] for line in out.splitlines()}
    assert fields["tokens"] == "input 30  output 15  cache read 3,000  cache write 60"
    assert fields["total tokens"] == (
        "3,105 (each turn's total summed, so cached context counts again on every turn)"
    )
    code, out, _ = _out(capsys, "info", "--json", path)
    data = json.loads(out)
    parts = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    assert [data[key] for key in parts] == [30, 15, 3000, 60]
    assert data["tokens"] == 3105


def test_costs_in_json_carry_no_float_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _cached_turns(tmp_path / "cached.jsonl")
    assert sum(COSTS) != 0.6  # the float sum carries noise
    _, out, _ = _out(capsys, "info", "--json", path)
    assert '"cost": 0.6,' in out
    _, out, _ = _out(capsys, "family", "--json", path)
    assert json.loads(out)["totals"]["cost"] == 0.6
    assert "00000001" not in out


@pytest.mark.parametrize("command", ["info", "upgrade", "export", "redact"])
def test_a_folder_where_one_file_goes_says_what_to_use(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cached_turns(tmp_path / "cached.jsonl")
    code, out, err = _out(capsys, command, tmp_path)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"prime-nb: error: {tmp_path}: is a folder; prime-nb {command} takes one session "
        f"file (prime-nb ls {tmp_path} lists them, prime-nb validate checks a whole folder)"
    )


def test_validate_takes_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _cached_turns(tmp_path / "a.jsonl")
    (tmp_path / "deeper").mkdir()
    other = _cached_turns(tmp_path / "deeper" / "b.jsonl")
    code, out, _ = _out(capsys, "validate", tmp_path)
    assert code == 0
    assert f"{good}: ok" in out and f"{other}: ok" in out
    with pytest.raises(SystemExit, match=r"^0$"):
        main(["validate", "--help"])
    assert "a session file, or a folder" in " ".join(capsys.readouterr().out.split())
    (tmp_path / "empty").mkdir()
    code, _, err = _out(capsys, "validate", tmp_path / "empty")
    assert code == 2 and "no session files in this folder" in err


def test_ls_has_a_header_and_plain_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "projB").mkdir()
    path = _cached_turns(tmp_path / "projB" / "cached.jsonl")
    code, out, _ = _out(capsys, "ls", tmp_path)
    assert code == 0
    head, row = out.splitlines()
    assert head.split() == ["MODIFIED", "ENTRIES", "ARCHIVED", "TITLE", "PATH"]
    assert row.endswith(str(path)) and "go on" in row
    _, out, _ = _out(capsys, "ls", "--json", tmp_path)
    assert "\\/" not in out and f'"{path}"' in out
    assert json.loads(out)[0]["path"] == str(path)


def test_family_help_names_every_problem_that_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = synthetic_family(tmp_path / "family", seed=4)
    shutil.copy(written["root"], tmp_path / "family" / "again.jsonl")  # one id, two files
    code, out, _ = _out(capsys, "family", tmp_path / "family")
    assert code == 1 and "duplicate_session" in out
    with pytest.raises(SystemExit, match=r"^0$"):
        main(["family", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Exit 1 if the family has a problem" in text
    for problem in ("does not load", "one session id in two files", "missing or ambiguous"):
        assert problem in text


def test_family_says_what_own_and_total_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = synthetic_family(tmp_path, seed=4)
    for role in ("subagent", "subagent_of_subagent"):
        written[role].unlink()  # their usage stays attributed in the root
    _, out, _ = _out(capsys, "family", written["root"])
    lines = out.splitlines()
    assert lines[-1].startswith("own: a session's new entries, less what its sub-agents added")
    assert "attributed to sub-agents whose files were not found" in lines[-1]
    family = prime_nb.load_family(written["root"])
    assert f"plus ${family.totals['unmatched_child_cost']:.4f} attributed" in lines[-1]


def test_ls_and_grep_find_openclaw_archives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live = _cached_turns(tmp_path / "live.jsonl")
    reset = tmp_path / "old.jsonl.reset.2026-02-01T10-20-30.123Z"
    shutil.copy(live, reset)
    code, out, _ = _out(capsys, "ls", tmp_path)
    assert code == 0
    rows = {line.split()[-1]: line.split() for line in out.splitlines()[1:]}
    assert rows[str(reset)][3] == "reset" and rows[str(live)][3] != "reset"
    _, out, _ = _out(capsys, "ls", "--json", tmp_path)
    assert {r["path"]: r["archived"] for r in json.loads(out)} == {
        str(live): None,
        str(reset): "reset",
    }
    code, out, _ = _out(capsys, "grep", "go on", tmp_path)
    assert code == 0 and {line.split(":")[0] for line in out.splitlines()} == {
        str(live),
        str(reset),
    }
