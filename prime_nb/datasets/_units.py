"""The rows of one session for :func:`from_sessions`: per leaf, per compaction, per turn.

Every row carries the same branch facts (docs/datasets.md), taken at its anchor entry
(the leaf, the compaction, the turn's last message) from the session's own tables, so a
row can be traced back and filtered without loading the file again; ``tokens``, ``cost``
and ``errors`` are summed along the path root -> anchor, as ``session.leaves`` sums them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from .._names import shown_name
from ..session import Session, context_messages, to_json

_CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})

#: a provider message and the ids of the entries it came from (``context_messages``)
Message = tuple[dict[str, Any], list[str]]


class Rows:
    """The rows of one session, in one format; facts read once from its tables."""

    def __init__(self, session: Session, format: str, images: str, thinking: bool) -> None:
        self.session = session
        self.options = (format, images, thinking)
        entries = session.entries
        self.tokens = dict(zip(entries.index, entries["total_tokens"].fillna(0), strict=True))
        self.cost = dict(zip(entries.index, entries["cost"].fillna(0.0), strict=True))
        self.is_error = dict(zip(entries.index, entries["is_error"], strict=True))
        self.active = dict(zip(entries.index, entries["on_active_path"], strict=True))
        self.types = dict(zip(entries.index, entries["type"], strict=True))
        self.roles = dict(zip(entries.index, entries["role"], strict=True))
        self.labels = session.labels
        #: the contexts of the rows share most entries: each is read once (not per row)
        self.context = session.context_reader()

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
        path = self.session.path(anchor)
        return {
            "file": shown_name(str(self.session.file)),
            "session_id": self.session.id,
            "messages": to_json([m for m, _ in messages]),
            "message_sources": [sources for _, sources in messages],
            "n_messages": len(messages),
            "is_active": bool(self.active[anchor]),
            "abandoned": not self.active[anchor],
            "label": self.labels.get(anchor),
            "labels": [self.labels[i] for i in path if i in self.labels],
            "tokens": int(sum(self.tokens[i] for i in path)),
            "cost": float(sum(self.cost[i] for i in path)),
            "errors": int(sum(bool(self.is_error[i]) for i in path)),
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

    def turns(self) -> Iterator[dict[str, Any]]:
        """One row per user turn: from a user message to the last message before the
        next one (or the branch's end). A turn on several leaves' paths is one row; a
        turn whose answers fork is one row per answer."""
        seen: set[tuple[str, str]] = set()
        for leaf in self.session.leaves.index:
            for span in self._spans(self.session.path(leaf)):
                key = (span[0], span[-1])
                if key in seen:
                    continue
                seen.add(key)
                messages, settings = self._messages(span[-1])
                ids = set(span)
                start = next((n for n, (_, src) in enumerate(messages) if ids & set(src)), 0)
                yield {
                    "entry_id": span[0],
                    "end_id": span[-1],
                    **self._common(span[-1], messages),
                    "turn_start": start,
                    "turn_tokens": int(sum(self.tokens[i] for i in span)),
                    "turn_cost": float(sum(self.cost[i] for i in span)),
                    **settings,
                }

    def _spans(self, path: list[str]) -> Iterator[list[str]]:
        """The turns on a path: each from a user message to its last context message
        (bookkeeping entries and a compaction after that last message are left out)."""
        starts = [
            n
            for n, entry_id in enumerate(path)
            if self.types[entry_id] == "message" and self.roles[entry_id] == "user"
        ]
        stops = [*starts[1:], len(path)] if starts else []  # no user message: no turn
        for start, stop in zip(starts, stops, strict=True):
            end = stop - 1
            while end > start and self.types[path[end]] not in _CONTEXT_TYPES:
                end -= 1
            yield path[start : end + 1]

    def rows(self, unit: str) -> Iterator[dict[str, Any]]:
        return {"leaf": self.leaves, "compaction": self.compactions}.get(unit, self.turns)()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)
