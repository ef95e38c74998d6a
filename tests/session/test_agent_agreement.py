"""prime_nb reads the agent's own sessions as the agent's own code does, field for field.

Each ``NAME.jsonl`` in ``fixtures/agent-written/`` was written by the agent's
``SessionManager``; ``NAME.agent.json`` beside it is what the agent's code reads from it
(its README says how). For every entry taken as the leaf, every field of every context
message, the model, the thinking level and the service tier must match; so must the
leaf, the labels and their timestamps, the name and the tree.

Version 1 files get random ids when the agent migrates them, so they are compared by
position: the n-th entry of the file is the n-th entry of the agent's migrated chain.
prime_nb names each message's entry ``entry_id`` where the fixture says ``entryId``.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any

import pytest
from agent_agreement import context_differences, reading_differences
from conftest import FIXTURES

import prime_nb

AGENT_DIR = FIXTURES / "agent-written"
FILES = sorted(p.stem for p in AGENT_DIR.glob("*.jsonl"))


@cache
def agent(stem: str) -> dict[str, Any]:
    reading: dict[str, Any] = json.loads((AGENT_DIR / f"{stem}.agent.json").read_text("utf-8"))
    return reading


@cache
def session(stem: str) -> prime_nb.Session:
    return prime_nb.load(AGENT_DIR / f"{stem}.jsonl")


def _chain(tree: dict[str, Any]) -> list[str]:
    """The agent's ids of a migrated v1 file, in file order (a v1 file is one chain)."""
    (root,) = tree["roots"]
    out = [root]
    while tree["children"][out[-1]]:
        (child,) = tree["children"][out[-1]]
        out.append(child)
    return out


@cache
def id_map(stem: str) -> dict[str, str]:
    """Agent id -> prime_nb id."""
    ours = list(session(stem).entries.index)
    if session(stem).version == 1:
        theirs = _chain(agent(stem)["tree"])
        assert len(theirs) == len(ours), f"{stem}: the agent has {len(theirs)} entries"
        return dict(zip(theirs, ours, strict=True))
    return {entry_id: entry_id for entry_id in ours}


def _cases() -> list[Any]:
    out = []
    for stem in FILES:
        for n, entry_id in enumerate(agent(stem)["contexts"]):
            name = f"{stem}:{entry_id}" if not stem.endswith("-v1") else f"{stem}:entry{n + 1}"
            out.append(pytest.param(stem, entry_id, id=name))
    return out


@pytest.mark.parametrize(("stem", "agent_leaf"), _cases())
def test_context_at_every_entry_matches_the_agent(stem: str, agent_leaf: str) -> None:
    wrong = context_differences(session(stem), agent(stem), agent_leaf, id_map(stem))
    assert not wrong, f"{stem} at {agent_leaf}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("stem", FILES)
def test_leaf_name_labels_and_tree_match_the_agent(stem: str) -> None:
    wrong = reading_differences(session(stem), agent(stem), id_map(stem))
    assert not wrong, f"{stem}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("stem", FILES)
def test_header_keeps_what_the_agent_would_rewrite(stem: str) -> None:
    """A v1/v2 file: the agent rewrites it as v3 when it opens it; prime_nb leaves it
    alone, says the version on disk, loads it as v3, and keeps every header field."""
    expected, s = agent(stem), session(stem)
    assert expected["rewrote"] == (s.version < 3)
    assert s.loaded_version == 3
    if expected["rewrote"]:
        rewritten = expected["rewrittenHeader"]
        assert s.header["id"] == rewritten["id"] and s.header["cwd"] == rewritten["cwd"]
        if "modelId" in rewritten:  # v1: visible, though no longer in force
            assert s.header["model_id"] == rewritten["modelId"]
            assert s.header["thinking_level"] == rewritten["thinkingLevel"]
            assert s.context(s.path()[0]).thinking_level == "off"


def test_an_assistant_message_without_a_model_leaves_no_model() -> None:
    """The agent's model is then ``{}`` (an empty one), not the earlier model; prime_nb
    says so with provider and model both None (there is no third state to tell apart)."""
    stem = "edge-assistant-no-model"
    expected = agent(stem)
    leaf = expected["leafId"]
    assert expected["contexts"][leaf]["model"] == {}
    first = session(stem).path(leaf)[1]
    assert session(stem).context(first).model is not None  # a model before it
    context = session(stem).context(leaf)
    assert (context.provider, context.model) == (None, None)


def test_an_unknown_leaf_raises_where_the_agent_falls_back() -> None:
    """The agent quietly builds the context at the last entry; in a notebook a typo
    should not look like an answer."""
    with pytest.raises(prime_nb.EntryNotFoundError, match="nope"):
        session("feature-tour").context("nope")


def test_timestamps_of_built_messages_are_unix_ms() -> None:
    """custom, branchSummary and compactionSummary messages carry the entry's time as
    Unix ms, as the agent's ``new Date(timestamp).getTime()``."""
    s = session("feature-tour")
    for message in s.context():
        if message["role"] in ("custom", "branchSummary", "compactionSummary"):
            stamp = s.entry(message["entry_id"])["timestamp"]
            moment = datetime.fromisoformat(stamp)
            assert message["timestamp"] == round(moment.timestamp() * 1000)
