"""What every dataset row says about its path, computed once per entry, top-down.

Why: a row's ``tokens``, ``cost``, ``errors`` and ``labels`` are sums and lists along
the path root -> anchor, and the turns of a branch are spans of that path. Taken path by
path they cost the path's depth per row, so a deep chain's rows (a turn every second
entry) cost the square of its depth even when each row's context is short (compactions
bound it). Carried from parent to child instead, every fact costs one step per entry,
and each row reads its own in constant time (its labels: one step per label). The same
walk estimates each row's context (the messages a row holds) before any is built, so
:func:`from_sessions` can refuse a file whose rows would hold more than asked.

The sums run root -> anchor, left to right from 0, as ``sum()`` over the path did: the
floats are the same to the last bit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..session import Session

#: entry types that become context messages (a compaction adds its summary)
CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})


@dataclass
class PathFacts:
    """Facts along each entry's path, by entry id (the session's own tree: ``depth``)."""

    parent: dict[str, str | None] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    #: the nearest labelled entry at or above (a chain read back to front)
    labelled: dict[str, str | None] = field(default_factory=dict)
    #: the user message that opens the turn an entry is in (None: before any)
    turn_start: dict[str, str | None] = field(default_factory=dict)
    #: the last context entry from that user message down to this entry
    turn_end: dict[str, str] = field(default_factory=dict)
    turn_tokens: dict[str, int] = field(default_factory=dict)
    turn_cost: dict[str, float] = field(default_factory=dict)
    #: how many messages the context at an entry holds, about (an upper bound but for
    #: images an OpenAI context moves into user messages of their own)
    context_size: dict[str, int] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)

    def path_labels(self, entry_id: str) -> list[str]:
        """The labels in force on the path root -> ``entry_id``, root first."""
        out: list[str] = []
        at = self.labelled.get(entry_id)
        while at is not None:
            out.append(self.labels[at])
            up = self.parent[at]
            at = self.labelled[up] if up is not None else None
        return out[::-1]

    def turns_up(self, leaf: str) -> Iterator[tuple[str, str]]:
        """The turns on the path to ``leaf`` as ``(user message, last context entry)``,
        the leaf's first, walking up: each user message's turn ends before the next
        user message (a caller stops where it has been before)."""
        at: str | None = leaf
        while at is not None:
            start = self.turn_start.get(at)
            if start is None:
                return
            yield start, self.turn_end[at]
            at = self.parent[start]


def path_facts(session: Session) -> PathFacts:
    """Every entry's facts, parents before children (the session's ``depth`` orders them;
    an entry whose parent is not one level up is taken as a root, as the tree took it)."""
    entries = session.entries
    facts = PathFacts(labels=session.labels)
    ids: list[str] = list(entries.index)
    depth = dict(zip(ids, entries["depth"].tolist(), strict=True))
    parents = entries["parent_id"].tolist()
    types = entries["type"].tolist()
    roles = entries["role"].tolist()
    tokens = entries["total_tokens"].fillna(0).tolist()
    cost = entries["cost"].fillna(0.0).tolist()
    errors = entries["is_error"].tolist()
    kept = _kept_ids(session)
    row = {entry_id: n for n, entry_id in enumerate(ids)}
    for n in sorted(range(len(ids)), key=lambda n: depth[ids[n]]):
        parent = parents[n] if isinstance(parents[n], str) else None
        up = parent is not None and parent in facts.parent and depth[parent] == depth[ids[n]] - 1
        facts.parent[ids[n]] = parent if up else None
    order, span = _preorder(ids, facts.parent)
    base: dict[str, int] = {}  # context entries above where an entry's context starts
    count: dict[str, int] = {}  # context entries on the path, this one included
    for entry_id in order:
        n = row[entry_id]
        parent = facts.parent[entry_id]
        kind = types[n]
        is_context = kind in CONTEXT_TYPES
        opens_turn = kind == "message" and roles[n] == "user"
        up_tokens = facts.tokens[parent] if parent else 0
        facts.tokens[entry_id] = up_tokens + int(tokens[n])
        facts.cost[entry_id] = (facts.cost[parent] if parent else 0.0) + float(cost[n])
        facts.errors[entry_id] = (facts.errors[parent] if parent else 0) + bool(errors[n])
        labelled = entry_id in facts.labels
        facts.labelled[entry_id] = (
            entry_id if labelled else (facts.labelled[parent] if parent else None)
        )
        count[entry_id] = (count[parent] if parent else 0) + is_context
        if kind == "compaction":
            # the summary, then what is kept from above (if it is above), then what follows
            first = kept.get(entry_id)
            above = first in span and first != entry_id and _within(entry_id, first, span)
            start = facts.parent[first] if above and first is not None else None
            base[entry_id] = (count[start] if start else 0) - 1 if above else count[entry_id] - 1
        else:
            base[entry_id] = base[parent] if parent else 0
        facts.context_size[entry_id] = count[entry_id] - base[entry_id]
        if opens_turn:
            facts.turn_start[entry_id] = entry_id
            facts.turn_end[entry_id] = entry_id
            facts.turn_tokens[entry_id] = int(tokens[n])
            facts.turn_cost[entry_id] = 0.0 + float(cost[n])
        elif parent is not None and facts.turn_start.get(parent) is not None:
            facts.turn_start[entry_id] = facts.turn_start[parent]
            facts.turn_end[entry_id] = entry_id if is_context else facts.turn_end[parent]
            facts.turn_tokens[entry_id] = facts.turn_tokens[parent] + int(tokens[n])
            facts.turn_cost[entry_id] = facts.turn_cost[parent] + float(cost[n])
        else:
            facts.turn_start[entry_id] = None
    return facts


def _kept_ids(session: Session) -> dict[str, str]:
    """Each compaction's first kept entry id (a string), by compaction id."""
    table = session.compactions
    if table.empty:
        return {}
    kept: list[Any] = table["first_kept_entry_id"].tolist()
    return {str(c): k for c, k in zip(table.index, kept, strict=True) if isinstance(k, str)}


def _preorder(
    ids: list[str], parent: dict[str, str | None]
) -> tuple[list[str], dict[str, tuple[int, int]]]:
    """The entries parents first, and each one's place in that order with the end of its
    subtree there: ``a`` is above ``b`` when ``b``'s place falls in ``a``'s span."""
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for entry_id in ids:
        up = parent[entry_id]
        (children.setdefault(up, []) if up is not None else roots).append(entry_id)
    order: list[str] = []
    stack = roots[::-1]
    while stack:
        entry_id = stack.pop()
        order.append(entry_id)
        stack.extend(children.get(entry_id, ())[::-1])
    place = {entry_id: n for n, entry_id in enumerate(order)}
    size = dict.fromkeys(order, 1)
    for entry_id in reversed(order):
        up = parent[entry_id]
        if up is not None:
            size[up] += size[entry_id]
    return order, {e: (place[e], place[e] + size[e]) for e in order}


def _within(below: str, above: str, span: dict[str, tuple[int, int]]) -> bool:
    """Whether ``below`` is in ``above``'s subtree."""
    return span[above][0] <= span[below][0] < span[above][1]
