"""A synthetic session family: a fork of a fork, and a sub-agent of a sub-agent.

Why: families span files, and the real shapes are few (the agent-written fixtures hold
one fork). This writes, for a seed, the folder layout the agent uses::

    sessions/<time>_<root id>.jsonl                             root (rlmDepth 0)
    sessions/<time>_<fork id>.jsonl                             fork of the root
    sessions/<time>_<id>.jsonl                                  fork of the fork
    session-artifacts/<root id>/sub-xxxxxxxx/<time>_<id>.jsonl  sub-agent (rlmDepth 1)
    .../sub-xxxxxxxx/sub-yyyyyyyy/<time>_<id>.jsonl             its sub-agent (rlmDepth 2)

Forks copy their source's path with the same entry ids and name the source file in
``parentSession`` (the agent's ``createBranchedSession``). Each sub-agent reply is
attributed to the parent's spawning message with ``child_usage_attributed``, as the
agent does: the aggregate grows by the child's usage, its ``totalTokens`` stays the
parent's own context size.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ._core import Builder, Converter, Entry, iso, session_uuid, tool_call_id
from ._large import SMALL, Story, Texts

FAMILY_CWD = "/home/dev/projects/sample-app"
ROLES = ("root", "fork", "fork_of_fork", "subagent", "subagent_of_subagent")


@dataclass
class _Part:
    """One session file to write: its header fields and its (internal) entries."""

    builder: Builder
    session_id: str
    created_ms: int
    entries: list[Entry] = field(default_factory=list)
    parent: str | None = None  # role of the parent session
    depth: int = 0


def _spawn(b: Builder) -> tuple[str, str, Entry]:
    """A user turn whose assistant message calls a sub-agent: (call id, message id, usage)."""
    b.user("Ask a sub-agent to review the change while you keep going.")
    call = tool_call_id(b.rng)
    block = {"type": "toolCall", "id": call, "name": "spawn_task", "arguments": {"task": "review"}}
    aid = b.assistant([{"type": "text", "text": "Starting a reviewer."}, block], stop="toolUse")
    return call, aid, b.last_usage


def _attribute(b: Builder, target: str, own: Entry, child: list[Entry]) -> None:
    """One ``child_usage_attributed`` per child reply, as ``attributeChildUsage`` does."""
    aggregate = {**own, "cost": dict(own["cost"])}
    for entry in child:
        message = entry.get("message") or {}
        if message.get("role") != "assistant" or message.get("stopReason") in ("error", "aborted"):
            continue
        used = message["usage"]
        for k in ("input", "output", "cacheRead", "cacheWrite"):
            aggregate[k] += used[k]
        for k in aggregate["cost"]:
            aggregate["cost"][k] += used["cost"][k]
        fields = {
            "targetId": target,
            "childUsage": used,
            "aggregateUsage": {**aggregate, "cost": dict(aggregate["cost"])},
            "origin": "spawn_task",
        }
        b.add("child_usage_attributed", fields)


def _subagents(seed: int, start_ms: int, depth: int, levels: int) -> list[_Part]:
    """A sub-agent session (and, ``levels`` > 1, its own sub-agent): parts, outer first."""
    rng = random.Random(seed)
    b = Builder(rng, cwd=FAMILY_CWD)
    b.now = start_ms
    part = _Part(b, session_uuid(rng), start_ms, depth=depth)
    story = Story(b, Texts(rng, SMALL), cwd=FAMILY_CWD)
    b.model_change("claude-sonnet-4-5")
    story.turn(rounds=1)
    inner: list[_Part] = []
    if levels > 1:
        call, target, own = _spawn(b)
        inner = _subagents(seed + 1, b.now + 5, depth + 1, levels - 1)
        b.now = max(b.now, inner[0].builder.now) + 10
        b.tool_result(call, "spawn_task", "Review done: no risks found.")
        _attribute(b, target, own, inner[0].entries)
        b.assistant([{"type": "text", "text": "The reviewer found no risks."}])
    story.turn(rounds=1)
    part.entries = list(b.out)
    return [part, *inner]


def _path(by_id: dict[str, Entry], leaf: str) -> list[Entry]:
    out = []
    node: str | None = leaf
    while node is not None:
        out.append(by_id[node])
        node = by_id[node]["parentId"]
    return out[::-1]


def _last_assistant(entries: list[Entry]) -> str:
    return str(
        next(
            e["id"]
            for e in reversed(entries)
            if e["type"] == "message" and e["message"]["role"] == "assistant"
        )
    )


def family_parts(seed: int = 0) -> dict[str, _Part]:
    """The five sessions of :func:`synthetic_family`, in memory (internal entry form)."""
    rng = random.Random(seed)
    b = Builder(rng, cwd=FAMILY_CWD)
    story = Story(b, Texts(rng, SMALL), cwd=FAMILY_CWD)
    root = _Part(b, b.header["id"], b.now)
    b.model_change("claude-sonnet-4-5")
    story.turn(rounds=1)
    call, target, own = _spawn(b)
    sub, subsub = _subagents(seed * 7919 + 1, b.now + 5, 1, 2)
    sub.parent, subsub.parent = "root", "subagent"
    b.now = max(b.now, subsub.builder.now, sub.builder.now) + 10
    b.tool_result(call, "spawn_task", "Review done: no risks found.")
    _attribute(b, target, own, sub.entries)
    b.assistant([{"type": "text", "text": "The reviewer is done; going on."}])
    fork_at = story.turn(rounds=1)
    story.turn(rounds=1)
    story.turn(rounds=0)
    root.entries = list(b.out)
    by_id = {e["id"]: e for e in root.entries}

    def fork(leaf: str, parent: str) -> _Part:
        b.out, b.head = [], leaf
        part = _Part(b, session_uuid(rng), b.tick(60_000, 120_000), parent=parent)
        story.turn(rounds=1)
        story.turn(rounds=1)
        new = list(b.out)
        by_id.update((e["id"], e) for e in new)
        part.entries = [*_path(by_id, leaf), *new]
        return part

    first = fork(fork_at, "root")
    second = fork(_last_assistant(first.entries[: len(first.entries) - 3]), "fork")
    return {
        "root": root,
        "fork": first,
        "fork_of_fork": second,
        "subagent": sub,
        "subagent_of_subagent": subsub,
    }


def _file_name(ms: int, session_id: str) -> str:
    return f"{iso(ms).replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def synthetic_family(
    folder: str | Path, *, seed: int = 0, version: int = 3, dialect: str = "prime"
) -> dict[str, Path]:
    """Write a 3-level family below ``folder``; return its files by role.

    Roles: ``root``; ``fork`` (of the root) and ``fork_of_fork``; ``subagent`` (of the
    root, rlmDepth 1) and ``subagent_of_subagent`` (rlmDepth 2). Deterministic for a
    seed. ``parentSession`` holds the absolute paths written here, so moving the folder
    afterwards leaves them stale, as a moved folder does in real life.
    """
    if version not in (2, 3):
        raise ValueError(f"version must be 2 or 3 (a fork shares entry ids), not {version!r}")
    parts = family_parts(seed)
    base = Path(folder).resolve()
    root_id = parts["root"].session_id
    sub_dir = base / "session-artifacts" / root_id / f"sub-{seed * 2654435761 % 2**32:08x}"
    folders = {
        "root": base / "sessions",
        "fork": base / "sessions",
        "fork_of_fork": base / "sessions",
        "subagent": sub_dir,
        "subagent_of_subagent": sub_dir / f"sub-{(seed + 1) * 40503 % 2**32:08x}",
    }
    paths = {
        role: folders[role] / _file_name(part.created_ms, part.session_id)
        for role, part in parts.items()
    }
    converted: dict[int, dict[str, list[Entry]]] = {}  # per builder: each entry once
    for role in ROLES:
        part = parts[role]
        conv = Converter(version, dialect, part.builder.new_id)
        done = converted.setdefault(id(part.builder), {})
        head: dict[str, Any] = {**part.builder.header, "id": part.session_id}
        head["timestamp"] = part.created_ms
        header = conv.header(head, provider="anthropic", model="claude-sonnet-4-5")
        if part.parent is not None:
            header["parentSession"] = str(paths[part.parent])
        header["rlmDepth"] = part.depth
        lines = [header]
        for entry in part.entries:
            if entry["id"] not in done:
                done[entry["id"]] = conv.convert(entry)
            lines.extend(done[entry["id"]])
        paths[role].parent.mkdir(parents=True, exist_ok=True)
        paths[role].write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return paths
