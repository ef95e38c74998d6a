"""Dataset rows of deep and wide trees: linear work where the output is linear, a clear
refusal, before any row is built, where the output itself grows as the depth's square.

Each row holds its whole context: the turns of a chain N deep hold about N²/4 messages,
and so do the leaves of a branch forked at every step (a comb). Such a file is refused
by ``max_messages`` (skipped with a warning, or raised), with what to do. A chain of
compactions has short contexts: its rows are built without walking each row's path.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.datasets import demo_session_path, from_sessions
from prime_nb.errors import DatasetTooLargeError
from sessiongen import write_shape

#: entries of the deep chain: its turn rows would hold about DEPTH²/4 messages
DEPTH = 3000


@pytest.fixture(scope="module")
def deep_chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines: list[dict[str, Any]] = [header()]
    parent = None
    for k in range(DEPTH):
        entry_id = f"e{k}"
        lines.append(msg(entry_id, parent, "user" if k % 2 == 0 else "assistant", "x"))
        parent = entry_id
    return write_lines(tmp_path_factory.mktemp("deep") / "chain.jsonl", lines)


def _no_context_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the contexts turned into messages (a refused file builds none)."""
    from prime_nb.datasets import _units

    built: list[int] = []
    real = _units.context_messages

    def counted(*args: Any) -> Any:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(_units, "context_messages", counted)
    return built


def test_turns_of_a_deep_chain_are_refused_before_any_is_built(
    deep_chain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _no_context_built(monkeypatch)
    with pytest.raises(DatasetTooLargeError, match="1,500 turn rows") as caught:
        from_sessions(deep_chain, unit="turn", progress=False, on_error="raise")
    said = str(caught.value)
    assert "\n" not in said and said.startswith(f"{deep_chain}: 1,500 turn rows")
    assert "about 2,251,500 messages" in said and "up to 3,000 messages" in said
    assert "max_messages=1,000,000" in said and "unit='leaf'" in said
    assert built == []


def test_a_refused_file_is_skipped_with_a_warning_and_listed(deep_chain: Path) -> None:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        table = from_sessions(deep_chain, unit="turn", progress=False)
    assert table.num_rows == 0
    (warning,) = [w for w in said if "max_messages" in str(w.message)]
    assert str(warning.message).startswith(f"{deep_chain}: skipped, too large: 1,500 turn rows")
    (skipped,) = json.loads(table.schema.metadata[b"prime_nb.skipped"])
    assert skipped["file"] == str(deep_chain) and "max_messages" in skipped["error"]


def test_the_leaf_of_a_deep_chain_is_one_row(deep_chain: Path) -> None:
    (leaf,) = from_sessions(deep_chain, unit="leaf", progress=False).to_pylist()
    assert leaf["n_messages"] == DEPTH and leaf["leaf_id"] == f"e{DEPTH - 1}"


def test_no_limit_builds_them(tmp_path: Path) -> None:
    """``max_messages=None`` builds what the default refuses (here a small budget)."""
    lines: list[dict[str, Any]] = [header()]
    for k in range(40):
        role = "user" if k % 2 == 0 else "assistant"
        lines.append(msg(f"e{k}", f"e{k - 1}" if k else None, role, "x"))
    chain = write_lines(tmp_path / "chain.jsonl", lines)
    with pytest.raises(DatasetTooLargeError, match="420 messages"):
        from_sessions(chain, "turn", progress=False, on_error="raise", max_messages=400)
    turns = from_sessions(chain, "turn", progress=False, max_messages=None)
    assert turns.column("n_messages").to_pylist() == list(range(2, 41, 2))


def test_the_leaves_of_a_comb_are_refused(tmp_path: Path) -> None:
    """A chain with a leaf forked at every step: each leaf's row holds its depth."""
    comb = write_shape(tmp_path / "comb.jsonl", "comb", 3000)
    with pytest.raises(DatasetTooLargeError, match=r"1,500 leaf rows would hold about"):
        from_sessions(comb, unit="leaf", progress=False, on_error="raise")
    with pytest.raises(DatasetTooLargeError, match=r"turn rows"):
        from_sessions(comb, unit="turn", progress=False, on_error="raise")


def test_the_estimate_is_close_to_the_rows_built() -> None:
    """The budget counts what the rows hold: within 5% on the demo's turns."""
    built = from_sessions(demo_session_path(), unit="turn", progress=False)
    total = sum(built.column("n_messages").to_pylist())
    over = from_sessions(demo_session_path(), "turn", progress=False, max_messages=total * 21 // 20)
    assert over.num_rows == built.num_rows
    with pytest.raises(DatasetTooLargeError, match="turn rows would hold about"):
        from_sessions(
            demo_session_path(),
            "turn",
            progress=False,
            on_error="raise",
            max_messages=total * 19 // 20,
        )


@pytest.mark.parametrize("bad", [-1, True, 2.5])
def test_max_messages_is_a_count_or_none(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_messages must be a count"):
        from_sessions(demo_session_path(), progress=False, max_messages=bad)


def test_rows_of_a_compaction_chain_do_not_walk_their_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,000 compactions in a chain: short contexts, so the rows' work is linear; no row
    walks its path from the root for its sums and labels (once did: 10⁶ steps here)."""
    chain = write_shape(tmp_path / "chain.jsonl", "chained_compactions", 2000)
    session = prime_nb.load(chain)
    walked: list[int] = []
    real = prime_nb.Session.path

    def counted(self: prime_nb.Session, leaf_id: str | None = None) -> list[str]:
        path = real(self, leaf_id)
        walked.append(len(path))
        return path

    monkeypatch.setattr(prime_nb.Session, "path", counted)
    rows = from_sessions(session, unit="compaction", progress=False).to_pylist()
    assert len(rows) == len(session.compactions) >= 999
    assert sum(walked) <= len(session.entries)
    monkeypatch.setattr(prime_nb.Session, "path", real)
    # the sums along the path are what the path gives
    last = rows[-1]
    path = session.path(last["entry_id"])
    tokens = session.entries["total_tokens"].fillna(0)
    assert last["tokens"] == int(sum(tokens[i] for i in path))
