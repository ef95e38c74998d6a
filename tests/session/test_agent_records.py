"""What the agent records beyond the conversation: session state, agent status, git
state, label times, child usage, bash flags, custom data, fromHook, names, versions."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import FIXTURES, header, msg, write_lines

import prime_nb
from sessiongen import synthetic_session

AGENT_DIR = FIXTURES / "agent-written"
VARIANTS = list(itertools.product((1, 2, 3), ("prime", "spec")))


def stamp(minute: int) -> str:
    return f"2026-01-05T10:{minute:02d}:00.000Z"


def entry(kind: str, entry_id: str, parent: str | None, minute: int, **fields: Any) -> dict:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp(minute), **fields}


@pytest.fixture(
    params=[
        *(f"synthetic-v{v}-{d}" for v, d in VARIANTS),
        "header-only",
        "hostile",
        *sorted(p.stem for p in AGENT_DIR.glob("*.jsonl")),
    ]
)
def any_session(request: pytest.FixtureRequest, tmp_path: Path) -> prime_nb.Session:
    name: str = request.param
    if name.startswith("synthetic"):
        _, version, dialect = name.split("-")
        return prime_nb.load(
            synthetic_session(tmp_path / "s.jsonl", version=int(version[1]), dialect=dialect)
        )
    if name == "header-only":
        return prime_nb.load(write_lines(tmp_path / "h.jsonl", [header()]))
    if name == "hostile":
        lines: list[Any] = [
            header(),
            msg("u1", None, "user", "hi", 1),
            b"{not json",
            entry("git_state", "g1", "u1", 2, git="not a dict"),
            entry("session_state", "s1", "g1", 3, state={"status": 7}),
            entry("agent_status", "st", "s1", 4, status=["no"]),
            entry("child_usage_attributed", "cu", "st", 5, targetId="nope", childUsage=3),
            {"type": "message", "id": "b1", "parentId": "cu", "message": {"role": "bashExecution"}},
            entry("custom", "c1", "b1", 6),
            entry("branch_summary", "bs", "c1", 7, summary=None, fromHook="yes"),
            entry("label", "l1", "bs", 8, targetId="u1", label="x"),
            b'{"type":"session_info","id":"n1","parentId":"l1","name":',
        ]
        return prime_nb.load(write_lines(tmp_path / "x.jsonl", lines))
    return prime_nb.load(AGENT_DIR / f"{name}.jsonl")


SIDE_TABLES = {
    "git_states": ("git_state", ["repository", "commit", "branch", "git"]),
    "child_usage": (
        "child_usage_attributed",
        [
            "target_id",
            "origin",
            "child_tokens",
            "child_cost",
            "aggregate_tokens",
            "aggregate_cost",
            "child_usage",
            "aggregate_usage",
        ],
    ),
    "custom_entries": ("custom", ["custom_type", "data"]),
    "branch_summaries": ("branch_summary", ["from_id", "summary", "details", "from_hook"]),
}


def test_side_tables_hold_one_row_per_entry_of_their_type(any_session: prime_nb.Session) -> None:
    s = any_session
    entries = s.entries
    for attribute, (kind, columns) in SIDE_TABLES.items():
        table = getattr(s, attribute)
        assert list(table.columns) == ["parent_id", "line", "timestamp", *columns], attribute
        assert list(table.index) == list(entries.index[entries["type"] == kind]), attribute
        assert table["line"].tolist() == entries.loc[table.index, "line"].tolist()
        assert table["timestamp"].dtype == s.entries["timestamp"].dtype
    bash = s.bash_runs
    assert list(bash.index) == list(entries.index[entries["role"] == "bashExecution"])
    assert bash["exit_code"].dtype == "Int64"
    for flag in ("cancelled", "truncated", "exclude_from_context"):
        assert bash[flag].dtype == bool
    for row_id, row in bash.iterrows():
        message = s.entry(str(row_id))["message"]
        assert row["command"] == message.get("command")
        assert row["exclude_from_context"] == (message.get("excludeFromContext") is True)
        assert row["cancelled"] == (message.get("cancelled") is True)
    for row_id, row in s.git_states.iterrows():
        git = s.entry(str(row_id)).get("git")
        assert row["git"] == git
        assert row["branch"] == (git.get("branch") if isinstance(git, dict) else None)
    for row_id, row in s.custom_entries.iterrows():
        assert row["data"] == s.entry(str(row_id)).get("data")
    for row_id, row in s.branch_summaries.iterrows():
        assert row["from_hook"] == (s.entry(str(row_id)).get("fromHook") is True)
    assert s.loaded_version == 3 and s.version in (1, 2, 3)
    assert s.state in (None, "active", "archived", "crash")
    assert s.agent_status is None or isinstance(s.agent_status, dict)


def test_label_table_says_when_each_label_was_set(any_session: prime_nb.Session) -> None:
    s = any_session
    table = s.label_table
    assert list(table.columns) == ["label", "label_entry_id", "timestamp"]
    assert dict(table["label"]) == s.labels
    for target, row in table.iterrows():
        setter = s.entry(row["label_entry_id"])
        assert setter["type"] == "label" and setter["targetId"] == target
        assert row["timestamp"] == pd.Timestamp(setter["timestamp"])


def test_the_agents_feature_tour_surfaces_every_record() -> None:
    s = prime_nb.load(AGENT_DIR / "feature-tour.jsonl")
    assert s.state == "archived"
    assert s.agent_status == {
        "summary": "Fixed flaky sniffer; documented.",
        "taskState": "completed",
        "basedOnMessageCount": 20,
    }
    git = s.git_states
    assert git[["repository", "commit", "branch"]].values.tolist() == [
        ["https://github.com/example/csvkit", "0123abcd", "fix-sniffer"]
    ]
    assert s.context().git == {
        "repoUrl": "https://github.com/example/csvkit",
        "commit": "0123abcd",
        "branch": "fix-sniffer",
    }
    usage = s.child_usage.iloc[0]
    assert (usage["target_id"], usage["origin"]) == ("46a9d0a2", "spawn_task")
    assert (usage["child_tokens"], usage["aggregate_tokens"]) == (110, 29500)
    assert s.entries.at["46a9d0a2", "total_tokens"] == 29500  # the aggregate, as the agent
    assert s.bash_runs["exclude_from_context"].sum() == 1
    assert s.custom_entries.at["20077ec2", "data"] == {"name": "careful", "since": "u2"}
    assert s.compactions.at["adc97f8a", "custom_instructions"] == "focus on the test changes"
    assert s.compactions["custom_instructions"].isna().sum() == len(s.compactions) - 1
    text = s.entries["text"]
    assert text[s.entries["type"] == "session_state"].tolist() == ["archived"]
    assert text[s.entries["type"] == "agent_status"].tolist() == [
        "[completed] Fixed flaky sniffer; documented."
    ]


def _write(tmp_path: Path, *entries: dict[str, Any], head: dict | None = None) -> Path:
    return write_lines(tmp_path / "s.jsonl", [head or header(), *entries])


def test_session_state_is_the_last_one_the_agent_recognises(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        entry("session_state", "s1", "u1", 2, state={"status": "crash"}),
        entry("session_state", "s2", "s1", 3, state={"status": "sleep"}),
        entry("session_state", "s3", "s2", 4, state={"status": "dancing"}),
        entry("session_state", "s4", "s3", 5, state="archived"),
    )
    assert prime_nb.load(path).state == "archived"  # sleep; the last two are not states
    assert prime_nb.load(_write(tmp_path, msg("u1", None, "user"))).state is None


def test_agent_status_latest_and_on_a_branch(tmp_path: Path) -> None:
    status = {"summary": "side", "taskState": "needs_input", "basedOnMessageCount": 3}
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        entry(
            "agent_status", "main", "u1", 2, status={"summary": "main", "basedOnMessageCount": 1}
        ),
        msg("u2", "main", "user", "on", 3),
        entry("agent_status", "side", "u1", 4, status=status),
        msg("u3", "u2", "user", "resumed here", 5),
    )
    s = prime_nb.load(path)
    assert s.agent_status == status  # the latest in the file, as the session list shows
    assert s.agent_status_at() == {"summary": "main", "basedOnMessageCount": 1}
    assert s.agent_status_at("u1") is None
    s.append_message("side", {"role": "user", "content": "now on the side branch"})
    assert s.agent_status_at() == status
    with pytest.raises(prime_nb.EntryNotFoundError, match="nope"):
        s.agent_status_at("nope")


def test_git_in_force_falls_back_to_the_header(tmp_path: Path) -> None:
    first = {"repoUrl": "r", "commit": "c0", "branch": "main"}
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        entry("git_state", "g1", "u1", 2, git={"repoUrl": "r", "commit": "c1", "branch": "x"}),
        msg("u2", "g1", "user", "later", 3),
        head=header(git=first),
    )
    s = prime_nb.load(path)
    assert s.context("u1").git == first
    assert s.context("u2").git["commit"] == "c1"
    assert s.git_states.at["g1", "commit"] == "c1"


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["  spaced  "], "spaced"),
        (["first", ""], None),
        (["first", None], None),  # a session_info without a name clears it too
        (["first", "   "], None),
        (["first", 5], None),
        (["\ufeffbom\u00a0"], "bom"),  # JavaScript's trim, not Python's strip
        (["\x1ckept"], "\x1ckept"),
    ],
)
def test_name_is_read_as_the_agent_reads_it(
    tmp_path: Path, names: list[Any], expected: str | None
) -> None:
    entries: list[dict[str, Any]] = [msg("u1", None, "user", "hi", 1)]
    for n, name in enumerate(names):
        fields = {} if name is None else {"name": name}
        entries.append(entry("session_info", f"n{n}", entries[-1]["id"], n + 2, **fields))
    assert prime_nb.load(_write(tmp_path, *entries)).name == expected


def test_names_are_written_trimmed(tmp_path: Path) -> None:
    s = prime_nb.load(_write(tmp_path, msg("u1", None, "user", "hi", 1)))
    name_id = s.set_name("  spaced out \n")
    assert s.entry(name_id)["name"] == "spaced out"
    assert s.name == "spaced out"
    with pytest.raises(ValueError, match="must not be empty"):
        s.set_name(" \ufeff ")


def test_context_follows_the_service_tier_and_the_model_in_force(tmp_path: Path) -> None:
    bare = msg("a2", "tier", "assistant", "no model named", 4)
    del bare["message"]["provider"], bare["message"]["model"]
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        msg("a1", "u1", "assistant", "hello", 2),
        entry("service_tier_change", "tier", "a1", 3, serviceTier="priority"),
        bare,
        entry("thinking_level_change", "tl", "a2", 5, thinkingLevel=7),
        head=header(provider="openai", modelId="gpt-x", thinkingLevel="high"),
    )
    s = prime_nb.load(path)
    first = s.context("u1")
    assert (first.provider, first.model, first.thinking_level, first.service_tier) == (
        None,
        None,
        "off",
        "default",
    )
    assert s.context("tier").service_tier == "priority"
    assert (s.context("tier").provider, s.context("tier").model) == ("anthropic", "claude-x")
    assert (s.context("a2").provider, s.context("a2").model) == (None, None)
    assert s.context("tl").thinking_level is None  # not a string: the agent has no level
    assert s.header["model_id"] == "gpt-x"  # the header's model stays visible


def test_child_usage_becomes_the_targets_usage_in_the_context(tmp_path: Path) -> None:
    aggregate = {"input": 9, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 10}
    aggregate["cost"] = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "total": 3}
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        msg("a1", "u1", "assistant", "hello", 2),
        entry(
            "child_usage_attributed",
            "cu",
            "a1",
            3,
            targetId="a1",
            childUsage={"totalTokens": 2},
            aggregateUsage={**aggregate, "extra": "dropped, as the agent's cloneUsage does"},
        ),
        entry("child_usage_attributed", "cu2", "cu", 4, targetId="u1", aggregateUsage=aggregate),
    )
    s = prime_nb.load(path)
    user, answer = s.context()
    assert answer["usage"] == aggregate
    assert "usage" not in user  # only assistant messages take it
    assert s.entry("a1")["message"]["usage"]["totalTokens"] == 15  # the file is as it was
    assert s.child_usage["target_id"].tolist() == ["a1", "u1"]


def test_built_messages_have_the_agents_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        entry("custom_message", "cm", "u1", 2, customType="note", content="x", display=False),
        entry("branch_summary", "bs", "cm", 3, fromId="u1", summary={}, fromHook=True),
        entry("branch_summary", "b0", "bs", 4, fromId="u1", summary=""),
        entry("compaction", "c1", "b0", 5, summary="s", firstKeptEntryId="cm", tokensBefore=9),
        {**entry("custom_message", "late", "c1", 6, customType="n"), "timestamp": "garbage"},
    )
    s = prime_nb.load(path)
    summary, custom, branch, late = s.context()
    assert summary == {
        "role": "compactionSummary",
        "summary": "s",
        "tokensBefore": 9,
        "retainedMessageCount": 2,
        "timestamp": 1767607500000,
        "entry_id": "c1",
    }
    assert custom == {
        "role": "custom",
        "customType": "note",
        "content": "x",
        "display": False,
        "timestamp": 1767607320000,
        "entry_id": "cm",
    }
    # an empty object is a summary to JavaScript; an empty string is not
    assert (branch["role"], branch["summary"], branch["entry_id"]) == ("branchSummary", {}, "bs")
    assert late == {"role": "custom", "customType": "n", "timestamp": None, "entry_id": "late"}
    assert s.branch_summaries["from_hook"].tolist() == [True, False]


def test_every_agent_fixture_reads_back_as_json(tmp_path: Path) -> None:
    """The context is plain JSON data, as the agent's: it survives a round trip."""
    for path in sorted(AGENT_DIR.glob("*.jsonl")):
        context = prime_nb.load(path).context()
        assert json.loads(json.dumps(list(context))) == list(context)


@pytest.mark.parametrize("version", [2, 3])
def test_both_dialects_give_the_same_settings_and_roles(tmp_path: Path, version: int) -> None:
    """The same conversation in the specification's dialect (tool calls as entries of
    their own, which name no model) has the same model, thinking level, service tier,
    git state and message roles at every entry both files hold."""
    prime = prime_nb.load(synthetic_session(tmp_path / "p.jsonl", version=version))
    spec = prime_nb.load(synthetic_session(tmp_path / "s.jsonl", version=version, dialect="spec"))
    shared = [i for i in spec.entries.index if i in prime.entries.index]
    assert len(shared) > 100
    for entry_id in shared:
        a, b = prime.context(entry_id), spec.context(entry_id)
        assert (a.provider, a.model, a.thinking_level, a.service_tier, a.git) == (
            b.provider,
            b.model,
            b.thinking_level,
            b.service_tier,
            b.git,
        ), entry_id
        assert [m["role"] for m in a] == [m["role"] for m in b], entry_id
        built = ("branchSummary", "compactionSummary")  # times the context makes
        assert [m["timestamp"] for m in a if m["role"] in built] == [
            m["timestamp"] for m in b if m["role"] in built
        ], entry_id


def test_bookkeeping_rows_have_text(tmp_path: Path) -> None:
    child = {"input": 1_000_000, "output": 7, "cacheRead": 2.0, "cacheWrite": 0}
    path = _write(
        tmp_path,
        msg("u1", None, "user", "hi", 1),
        msg("a1", "u1", "assistant", "hello", 2),
        entry("child_usage_attributed", "cu", "a1", 3, targetId="a1", childUsage=child),
        entry("child_usage_attributed", "c2", "cu", 4, targetId="a1", childUsage={"input": "x"}),
        entry("agent_status", "st", "c2", 5, status={"summary": "no task state"}),
        entry("git_state", "g", "st", 6, git={"branch": "main", "commit": None}),
        entry("session_state", "ss", "g", 7, state={"status": "crash"}),
    )
    text = prime_nb.load(path).entries["text"]
    assert text[["cu", "c2", "st", "g", "ss"]].tolist() == [
        "child usage: 1000002 input, 7 output",  # as the agent's tree view writes it
        "child usage",
        "no task state",
        "main",
        "crash",
    ]


def test_context_at_every_leaf_is_plain_data(any_session: prime_nb.Session) -> None:
    """Over the matrix (every version and dialect, header-only, hostile, the agent's own):
    the context is JSON data, its settings are strings or None, built times are ints."""
    s = any_session
    leaves = list(s.leaves.index) or [None]
    for leaf in leaves:
        context = s.context(leaf)
        assert json.loads(json.dumps(list(context))) == list(context)
        for value in (context.thinking_level, context.service_tier, context.provider):
            assert value is None or isinstance(value, str)
        assert context.git is None or isinstance(context.git, dict)
        for message in context:
            assert message["entry_id"] in s.entries.index
            if message["role"] in ("branchSummary", "compactionSummary"):
                assert message["timestamp"] is None or isinstance(message["timestamp"], int)
            if message["role"] == "compactionSummary":
                assert 0 <= message["retainedMessageCount"] < len(context)
    if not len(s):
        assert list(s.context()) == [] and s.context().leaf_id is None
