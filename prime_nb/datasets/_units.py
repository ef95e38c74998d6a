"""The rows of one session for :func:`from_sessions`: per leaf, per compaction, per turn.

Every row carries the same branch facts (docs/datasets.md), taken at its anchor entry
(the leaf, the compaction, the turn's last message) from the session's own tables, so a
row can be traced back and filtered without loading the file again; ``tokens``, ``cost``
and ``errors`` are summed along the path root -> anchor, as ``session.leaves`` sums them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import Any

import pandas as pd

from .._names import shown_name
from ..session import Session, context_messages, to_json
from ._path_facts import PathFacts, path_facts

#: a provider message and the ids of the entries it came from (``context_messages``)
Message = tuple[dict[str, Any], list[str]]


class Rows:
    """The rows of one session, in one format; facts read once from its tables."""

    def __init__(self, session: Session, format: str, images: str, thinking: bool) -> None:
        self.session = session
        self.options = (format, images, thinking)
        entries = session.entries
        self.active = dict(zip(entries.index, entries["on_active_path"], strict=True))
        self.depth = dict(zip(entries.index, entries["depth"], strict=True))
        self.labels = session.labels
        #: the contexts of the rows share most entries: each is read once (not per row)
        self.context = session.context_reader()

    @cached_property
    def facts(self) -> PathFacts:
        """Sums, labels and turns along each path, carried down once (not per row); built
        on first use (a session without compactions has no compaction row to make)."""
        return path_facts(self.session)

    def _messages(self, anchor: str | None) -> tuple[list[Message], dict[str, Any]]:
        if anchor is None:
            return [], {"model": None, "provider": None, "thinking_level": None}
        context = self.context(anchor)
        settings = {
            "model": context.model,
            "provider": context.provider,
            "thinking_level": context.thinking_level,
        }
        return context_messages(context, *self.options), settings

    def _common(self, anchor: str, messages: list[Message]) -> dict[str, Any]:
        facts = self.facts
        return {
            "file": shown_name(str(self.session.file)),
            "session_id": self.session.id,
            "messages": to_json([m for m, _ in messages]),
            "message_sources": [sources for _, sources in messages],
            "n_messages": len(messages),
            "is_active": bool(self.active[anchor]),
            "abandoned": not self.active[anchor],
            "label": self.labels.get(anchor),
            "labels": facts.path_labels(anchor),
            "tokens": facts.tokens[anchor],
            "cost": facts.cost[anchor],
            "errors": facts.errors[anchor],
        }

    def leaves(self) -> Iterator[dict[str, Any]]:
        """One row per leaf, in file order: the context the model saw there."""
        for leaf in self.session.leaves.index:
            messages, settings = self._messages(leaf)
            yield {"leaf_id": leaf, **self._common(leaf, messages), **settings}

    def compactions(self) -> Iterator[dict[str, Any]]:
        """One row per compaction: the context before it (at its parent), its summary,
        and the context after it (the summary and the kept messages)."""
        table = self.session.compactions
        for entry_id, row in table.iterrows():
            parent = row["parent_id"] if isinstance(row["parent_id"], str) else None
            before, _ = self._messages(parent)
            after, settings = self._messages(str(entry_id))
            yield {
                "entry_id": entry_id,
                "parent_id": parent,
                **self._common(str(entry_id), after),
                "messages_before": to_json([m for m, _ in before]),
                "n_messages_before": len(before),
                "summary": row["summary"] if isinstance(row["summary"], str) else None,
                "first_kept_entry_id": _str(row["first_kept_entry_id"]),
                "tokens_before": _int(row["tokens_before"]),
                "tokens_after": _int(row["tokens_after"]),
                **settings,
            }

    def turn_keys(self) -> list[tuple[str, str]]:
        """Each turn as ``(user message, last context entry)``, leaf by leaf, root first:
        a turn on several leaves' paths once; a turn whose answers fork once per answer."""
        seen: set[tuple[str, str]] = set()
        out: list[tuple[str, str]] = []
        for leaf in self.session.leaves.index:
            # the turns above one already made are the same turns: made already
            new: list[tuple[str, str]] = []
            for key in self.facts.turns_up(leaf):
                if key in seen:
                    break
                new.append(key)
            seen.update(new)
            out.extend(reversed(new))
        return out

    def turns(self) -> Iterator[dict[str, Any]]:
        """One row per user turn: from a user message to the last message before the
        next one (or the branch's end)."""
        facts = self.facts
        for start_id, end_id in self.turn_keys():
            messages, settings = self._messages(end_id)
            top = self.depth[start_id]  # a message of the turn comes from its span
            start = next((n for n, (_, src) in enumerate(messages) if self._below(src, top)), 0)
            yield {
                "entry_id": start_id,
                "end_id": end_id,
                **self._common(end_id, messages),
                "turn_start": start,
                "turn_tokens": facts.turn_tokens[end_id],
                "turn_cost": facts.turn_cost[end_id],
                **settings,
            }

    def size(self, unit: str) -> tuple[int, int, int]:
        """The rows of ``unit``, the messages they would hold in all and in the largest
        row, estimated before any is built (from each anchor's context size)."""
        if unit == "compaction" and self.session.compactions.empty:
            return 0, 0, 0
        sizes = self.facts.context_size
        if unit == "leaf":
            counts = [sizes.get(leaf, 0) for leaf in self.session.leaves.index]
        elif unit == "compaction":
            table = self.session.compactions
            parents = [p if isinstance(p, str) else None for p in table["parent_id"].tolist()]
            counts = [
                sizes.get(str(c), 0) + (sizes.get(p, 0) if p else 0)
                for c, p in zip(table.index, parents, strict=True)
            ]
        else:
            counts = [sizes.get(end, 0) for _, end in self.turn_keys()]
        return len(counts), sum(counts), max(counts, default=0)

    def _below(self, sources: list[str], top: int) -> bool:
        """Whether a context message comes from the path at or below depth ``top`` (its
        sources are entries of the path it was built on)."""
        return any(self.depth.get(source, -1) >= top for source in sources)

    def rows(self, unit: str) -> Iterator[dict[str, Any]]:
        return {"leaf": self.leaves, "compaction": self.compactions}.get(unit, self.turns)()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)
