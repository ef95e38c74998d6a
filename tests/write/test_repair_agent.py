"""``repair_file`` against the agent itself: its own ``SessionManager`` read the files.

``fixtures/agent-read/`` holds a session with two glued lines (``{...}{...}``: a writer
that stopped between two writes), the copy ``prime-nb repair`` writes of it, and a
session without its header, each with ``NAME.agent.json``: what the agent's own code
read from it (that folder's README says how). The agent drops a glued line whole; from
the repaired copy it reads every entry. prime_nb must read each file as the agent does:
the same entries, leaf, labels and tree, and the same context at every entry.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from agent_agreement import context_differences, reading_differences
from conftest import FIXTURES

import prime_nb
from prime_nb.write import repair_file

READ_DIR = FIXTURES / "agent-read"
# the entries of the two glued lines: a compaction and the user message after it (line
# 41), and the last two messages of the file (line 54, with a space between them)
GLUED = {41: ("b6fc4be8", "c9e9e42a"), 54: ("1ac06971", "ddf6e6c4")}
GLUED_IDS = {entry_id for pair in GLUED.values() for entry_id in pair}


@cache
def agent(stem: str) -> dict[str, Any]:
    reading: dict[str, Any] = json.loads((READ_DIR / f"{stem}.agent.json").read_text("utf-8"))
    return reading


def differences(session: prime_nb.Session, reading: dict[str, Any]) -> list[str]:
    """Everything prime_nb reads otherwise than the agent: the leaf, entries, labels and
    tree, then the context at every entry the agent read (ids are the file's own)."""
    ids = {entry_id: entry_id for entry_id in [*session.entries.index, *reading["contexts"]]}
    wrong = reading_differences(session, reading, ids)
    for entry_id in reading["contexts"]:
        if entry_id in session.entries.index:
            problems = context_differences(session, reading, entry_id, ids)
            wrong.extend(f"context at {entry_id}: {problem}" for problem in problems)
    return wrong


def context_entries(reading: dict[str, Any], leaf: str) -> list[str]:
    return [message["entryId"] for message in reading["contexts"][leaf]["messages"]]


def test_the_recorded_copy_is_what_repair_writes(tmp_path: Path) -> None:
    repair = repair_file(READ_DIR / "glued.jsonl", tmp_path / "fixed.jsonl")
    assert repair.split == [(line, 2) for line in GLUED] and repair.entries == 4
    assert repair.path is not None
    assert repair.path.read_bytes() == (READ_DIR / "glued-repaired.jsonl").read_bytes()


def test_the_agent_reads_both_entries_of_each_glued_line_from_the_copy() -> None:
    reading = agent("glued-repaired")
    assert set(reading["contexts"]) >= GLUED_IDS
    assert reading["leafId"] == "ddf6e6c4" and not reading["rewrote"]
    assert context_entries(reading, "ddf6e6c4")[-2:] == ["1ac06971", "ddf6e6c4"]
    # the compaction of line 41 is back: the agent's context past it starts with it
    assert context_entries(reading, "a0724f70")[:2] == ["b6fc4be8", "c56fefc1"]
    session = prime_nb.load(READ_DIR / "glued-repaired.jsonl")
    assert session.problems.empty
    assert set(session.entries.index) >= GLUED_IDS
    assert differences(session, reading) == []


def test_the_agent_drops_each_glued_line_as_prime_nb_does() -> None:
    reading = agent("glued")
    assert not GLUED_IDS & set(reading["contexts"])
    # its leaf is the last entry it kept; the child of the lost message is a root
    assert reading["leafId"] == "cf17f5e9"
    assert reading["tree"]["roots"] == ["ed2237ac", "0c692ec6"]
    assert context_entries(reading, "a0724f70")[0] == "0c692ec6"  # no compaction summary
    session = prime_nb.load(READ_DIR / "glued.jsonl")
    assert not GLUED_IDS & set(session.entries.index)
    assert differences(session, reading) == []
    glued = session.problems[session.problems["kind"] == "glued_entries"]
    assert glued["line"].tolist() == list(GLUED)
    for message, pair in zip(glued["message"], GLUED.values(), strict=True):
        assert all(f"(id '{entry_id}')" in message for entry_id in pair), message


def test_the_agent_reads_nothing_of_a_headerless_file_where_prime_nb_reads_it_all() -> None:
    """The agent keeps no entry of a file whose first line is no header and rewrites it
    as a new session; prime_nb reads every line, touches nothing, and at the session's
    leaf builds the context the agent built from the whole file (its last compaction
    keeps only entries the tail still holds)."""
    reading = agent("headerless")
    assert reading["contexts"] == {} and reading["leafId"] is None
    assert reading["rewrote"] and reading["rewrittenHeader"] == reading["header"]
    path = READ_DIR / "headerless.jsonl"
    before = path.read_bytes()
    session = prime_nb.load(path)
    assert path.read_bytes() == before
    assert len(session) == before.count(b"\n") == 47
    assert session.problems["kind"].tolist()[0] == "no_header"
    whole = json.loads((FIXTURES / "agent-written" / "feature-tour.agent.json").read_text())
    assert session.leaf_id == whole["leafId"] == "009ec49b"
    ids = {entry_id: entry_id for entry_id in whole["contexts"]}
    assert context_differences(session, whole, "009ec49b", ids) == []
