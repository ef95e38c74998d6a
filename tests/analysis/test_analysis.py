"""Research helpers on hand-written sessions; every expected number is worked out here."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from research_sessions import BRANCHY_TOTAL_COST, BRANCHY_TOTAL_TOKENS, branchy, compacted

import prime_nb
from prime_nb.analysis import (
    abandoned_share,
    branch_segments,
    branches,
    common_ancestor,
    compaction_forensics,
    compare,
    context_frame,
    estimate_tokens,
    fork_points,
)
from sessiongen import synthetic_session


@pytest.fixture
def branchy_session(tmp_path: Path) -> prime_nb.Session:
    return prime_nb.load(branchy(tmp_path / "branchy.jsonl"))


@pytest.fixture
def compacted_session(tmp_path: Path) -> prime_nb.Session:
    return prime_nb.load(compacted(tmp_path / "compacted.jsonl"))


# -- token estimate ---------------------------------------------------------------------------


def test_estimate_tokens_is_chars_over_four_rounded_up() -> None:
    assert estimate_tokens({"role": "user", "content": "abcde"}) == 2  # ceil(5/4)
    assert estimate_tokens({"role": "user", "content": [{"type": "text", "text": "x" * 8}]}) == 2
    # an image counts as 4800 chars: 1200 tokens
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    assert estimate_tokens({"role": "toolResult", "content": [image]}) == 1200
    # assistant: text + thinking + tool name + JSON of the arguments
    call = {"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "a"}}
    blocks = [{"type": "text", "text": "abc"}, {"type": "thinking", "thinking": "de"}, call]
    chars = 3 + 2 + len("read") + len('{"path":"a"}')
    assert estimate_tokens({"role": "assistant", "content": blocks}) == math.ceil(chars / 4)
    assert estimate_tokens({"role": "bashExecution", "command": "ls", "output": "a b"}) == 2
    assert estimate_tokens({"role": "compactionSummary", "summary": "s" * 9}) == 3


# -- compaction forensics ---------------------------------------------------------------------


def test_compaction_forensics_of_chosen_ids(compacted_session: prime_nb.Session) -> None:
    """One id alone is that id, not its characters; an id that is no compaction is an
    error that says what it is (it used to give an empty table, silently)."""
    from prime_nb.errors import EntryNotFoundError

    everything = compaction_forensics(compacted_session)
    first = everything.index[0]
    pd.testing.assert_frame_equal(compaction_forensics(compacted_session, first), everything[:1])
    pd.testing.assert_frame_equal(compaction_forensics(compacted_session, [first]), everything[:1])
    assert compaction_forensics(compacted_session, []).empty
    with pytest.raises(EntryNotFoundError, match="no entry with id 'nope'"):
        compaction_forensics(compacted_session, [first, "nope"])
    with pytest.raises(ValueError, match="'u1' is a 'message' entry, not a compaction"):
        compaction_forensics(compacted_session, ["u1"])


def test_compaction_forensics_by_hand(compacted_session: prime_nb.Session) -> None:
    frame = compaction_forensics(compacted_session)
    assert list(frame.index) == ["c1", "c2"]
    c1, c2 = frame.loc["c1"], frame.loc["c2"]

    # c1: summary 400 chars -> 100 tokens, kept u2 (40 chars -> 10) and a3 (80 -> 20)
    assert c1["tokens_before"] == 1000
    assert c1["tokens_after"] == 130
    assert c1["tokens_after_source"] == "estimated"
    assert c1["compression_ratio"] == pytest.approx(1000 / 130)
    assert c1["summarised_ids"] == ["u1", "a1", "t1", "a2"]
    assert c1["summarised_entries"] == 4
    assert c1["summarised_messages"] == 4
    assert c1["kept_messages"] == 2
    assert c1["summary_chars"] == 400
    assert c1["summary_tokens"] == 100
    assert pd.isna(c1["since_previous"])
    assert pd.isna(c1["previous_compaction_id"])
    assert c1["read_files"] == ["src/a.py", "src/c.py"]  # absolute path made relative
    assert c1["modified_files"] == ["src/b.py"]
    # a4 read src/a.py (listed) and src/d.py (not listed) after c1
    assert c1["reread_files"] == ["src/a.py"]
    assert c1["reread_count"] == 1
    assert c1["first_turn_context_tokens"] == 50 + 20 + 5
    assert c1["continued_to"] == "a6"

    # c2: from c1's kept boundary (u2) up to its own first kept entry (a5)
    assert c2["summarised_ids"] == ["u2", "a3", "c1", "u3", "a4", "t4"]
    assert c2["summarised_messages"] == 5  # the compaction entry c1 is no message
    assert c2["tokens_after"] == 300
    assert c2["tokens_after_source"] == "recorded"
    assert c2["compression_ratio"] == pytest.approx(2000 / 300)
    assert c2["previous_compaction_id"] == "c1"
    assert c2["since_previous"] == pd.Timedelta(minutes=15)
    assert c2["read_files"] == [] and c2["reread_files"] == []
    assert c2["first_turn_context_tokens"] == 10


def test_compaction_forensics_without_compactions(branchy_session: prime_nb.Session) -> None:
    frame = compaction_forensics(branchy_session)
    assert frame.empty and "compression_ratio" in frame.columns


# -- branching --------------------------------------------------------------------------------


def test_branches_by_hand(branchy_session: prime_nb.Session) -> None:
    table = branches(branchy_session).set_index("branch_id")
    assert list(table.index) == ["u2", "u3"]
    assert (table["fork_id"] == "a2").all()
    x, y = table.loc["u2"], table.loc["u3"]
    assert (x["entries"], x["tokens"], x["cost"]) == (2, 300, pytest.approx(0.30))
    assert (y["entries"], y["tokens"], y["cost"]) == (4, 450, pytest.approx(0.45))
    assert (x["leaf_id"], x["path_length"], x["is_active"]) == ("a3", 2, False)
    assert (y["leaf_id"], y["path_length"], y["is_active"]) == ("a5", 4, True)
    assert (y["last_role"], y["stop_reason"]) == ("assistant", "stop")


def test_fork_points_and_abandoned_share(branchy_session: prime_nb.Session) -> None:
    forks = fork_points(branchy_session)
    assert list(forks.index) == ["a2"]
    fork = forks.loc["a2"]
    assert fork["branches"] == 2 and fork["active_branch_id"] == "u3"
    assert fork["cost"] == pytest.approx(0.75)
    assert fork["abandoned_cost"] == pytest.approx(0.30)
    assert fork["abandoned_cost_share"] == pytest.approx(0.30 / 0.75)
    assert fork["abandoned_tokens"] == 300
    assert abandoned_share(branchy_session) == pytest.approx(0.30 / BRANCHY_TOTAL_COST)


def test_branch_segments_count_every_entry_once(branchy_session: prime_nb.Session) -> None:
    segments = branch_segments(branchy_session)
    assert set(segments.index) == {"a3", "a5"}
    assert segments.loc["a3", "start_id"] == "u2" and segments.loc["a3", "fork_id"] == "a2"
    assert segments.loc["a3", "entries"] == 2
    assert segments.loc["a5", "entries"] == 8  # the whole active path r1 .. a5
    assert segments["entries"].sum() == len(branchy_session)
    assert segments["tokens"].sum() == BRANCHY_TOTAL_TOKENS
    assert segments["cost"].sum() == pytest.approx(BRANCHY_TOTAL_COST)


@pytest.mark.parametrize(("version", "dialect"), [(3, "prime"), (2, "spec"), (1, "prime")])
def test_branching_sums_match_the_session(tmp_path: Path, version: int, dialect: str) -> None:
    path = synthetic_session(tmp_path / "s.jsonl", version=version, dialect=dialect, seed=3)
    session = prime_nb.load(path)
    summary = session.summary()
    segments = branch_segments(session)
    assert segments["tokens"].sum() == summary["tokens"]
    assert segments["cost"].sum() == pytest.approx(summary["cost"])
    assert len(fork_points(session)) == summary["forks"]
    forensics = compaction_forensics(session)
    assert len(forensics) == summary["compactions"]
    if dialect == "spec":  # the specification's compactions record tokensAfter
        assert (forensics["tokens_after_source"] == "recorded").all()


# -- compare ----------------------------------------------------------------------------------


def test_compare_branches(branchy_session: prime_nb.Session) -> None:
    assert common_ancestor(branchy_session, "a3", "a5") == "a2"
    result = compare(branchy_session, "a3", "a5")
    assert result.ancestor_id == "a2"
    frame = result.frame
    assert list(frame.index) == [1, 2]
    assert frame.loc[1, "a_entry_id"] == "a3" and frame.loc[1, "b_entry_id"] == "a4"
    assert frame.loc[1, "b_tools"] == "edit" and frame.loc[1, "b_files"] == ["src/b.py"]
    assert frame.loc[1, "a_tokens"] == 300 and frame.loc[1, "b_tokens"] == 400
    assert pd.isna(frame.loc[2, "a_entry_id"]) and frame.loc[2, "b_entry_id"] == "a5"
    totals = result.totals
    assert totals.loc["tokens", "a"] == 300 and totals.loc["tokens", "b"] == 450
    assert totals.loc["cost", "b"] == pytest.approx(0.45)
    assert totals.loc["tool_calls", "a"] == 0 and totals.loc["tool_calls", "b"] == 1
    assert totals.loc["entries", "a"] == 2 and totals.loc["entries", "b"] == 4
    assert result.final_a == "X answer" and result.final_b == "Y answer\nsecond line"
    assert "-X answer" in result.diff and "+Y answer" in result.diff
    assert "a2" in result._repr_html_()


# -- context frame ----------------------------------------------------------------------------


def test_context_frame_at_leaf(compacted_session: prime_nb.Session) -> None:
    frame = context_frame(compacted_session, "a6")
    assert frame["entry_id"].tolist() == ["c2", "a5", "u4", "a6"]
    assert frame["role"].tolist() == ["compactionSummary", "assistant", "user", "assistant"]
    # "T"*40 -> 10, "f"*12 -> 3, "u"*8 -> 2, "z"*16 -> 4
    assert frame["tokens_est"].tolist() == [10, 3, 2, 4]
    assert frame["cumulative_tokens_est"].tolist() == [10, 13, 15, 19]
    assert frame.attrs["compaction_id"] == "c2"


def test_context_frame_lists_tools(branchy_session: prime_nb.Session) -> None:
    frame = context_frame(branchy_session)  # active leaf a5: no compaction, whole path
    assert frame["entry_id"].tolist() == ["r1", "a1", "t1", "a2", "u3", "a4", "t4", "a5"]
    assert frame.set_index("entry_id").loc["a4", "tools"] == "edit"
    assert frame.attrs["compaction_id"] is None


@pytest.mark.parametrize("name", ["edge-compaction-offpath", "edge-firstkept-label", "random-2"])
def test_forensics_of_sessions_whose_compactions_have_no_predecessor(
    name: str, fixtures_dir: Path
) -> None:
    """Every ``since_previous`` is NaT: the column is still a timedelta (it used to raise)."""
    table = compaction_forensics(prime_nb.load(fixtures_dir / "agent-written" / f"{name}.jsonl"))
    assert len(table) >= 1 and table["since_previous"].isna().all()
    assert pd.api.types.is_timedelta64_dtype(table["since_previous"])


@pytest.mark.parametrize(
    ("before", "after", "want_before", "want_after"),
    [
        (1000.5, 300.5, None, None),  # not whole numbers: missing, as in session.compactions
        (1000.0, 300.0, 1000, 300),  # whole floats are counts
        (-5, True, None, None),  # negative, or a flag: missing
    ],
)
def test_forensics_token_counts_are_the_compactions_table(
    tmp_path: Path, before: Any, after: Any, want_before: int | None, want_after: int | None
) -> None:
    """A compaction's recorded counts are read once, by the loader: forensics shows what
    ``session.compactions`` shows (a fractional count once came out truncated), and
    without a usable ``tokensAfter`` it estimates the context after the compaction."""
    text = compacted(tmp_path / "c.jsonl").read_text()
    text = text.replace('"tokensBefore": 2000', f'"tokensBefore": {json.dumps(before)}')
    text = text.replace('"tokensAfter": 300', f'"tokensAfter": {json.dumps(after)}')
    (tmp_path / "c.jsonl").write_text(text)
    session = prime_nb.load(tmp_path / "c.jsonl")
    row, table = compaction_forensics(session).loc["c2"], session.compactions.loc["c2"]
    assert pd.isna(table["tokens_before"]) == (want_before is None)
    if want_before is None:
        assert pd.isna(row["tokens_before"])
    else:
        assert row["tokens_before"] == want_before
    if want_after is None:
        assert row["tokens_after_source"] == "estimated" and row["tokens_after"] > 0
    else:
        assert row["tokens_after_source"] == "recorded" and row["tokens_after"] == want_after
