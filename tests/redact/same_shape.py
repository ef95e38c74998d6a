"""Whether a redacted session has its source's tree and tool-call pairs, its ids renamed
one to one (an id that held a secret is written anew, the same way everywhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

import prime_nb


def _pairs(session: prime_nb.Session, renamed: dict[str, str]) -> list[tuple[Any, ...]]:
    """Each call by position: its assistant entry and its result's entry (ids renamed)."""
    calls = session.tool_calls
    assistant = [renamed.get(i, i) for i in calls["assistant_id"].tolist()]
    results = [None if pd.isna(i) else renamed.get(i, i) for i in calls["result_id"].tolist()]
    return list(zip(assistant, results, strict=True))


def _tree(session: prime_nb.Session, renamed: dict[str, str]) -> list[tuple[Any, ...]]:
    """Each entry by position: its id, parent, type, and the ids its context holds."""
    entries = session.entries
    rows = []
    for entry_id, parent, kind in zip(
        entries.index, entries["parent_id"], entries["type"], strict=True
    ):
        parent = None if pd.isna(parent) else renamed.get(parent, parent)
        rows.append((renamed.get(entry_id, entry_id), parent, kind))
    contexts = [
        [renamed.get(m.get("entry_id"), m.get("entry_id")) for m in session.context(leaf)]
        for leaf in session.leaves.index
    ]
    return [*rows, *map(tuple, contexts)]


def same_shape(before: Path, after: Path) -> dict[str, str]:
    """Assert the redacted file has the same tree and pairs, its ids renamed one to one
    by position; return the renaming."""
    old, new = prime_nb.load(before), prime_nb.load(after)
    renamed = dict(zip(old.entries.index, new.entries.index, strict=True))
    assert len(set(renamed.values())) == len(renamed)  # one to one
    assert _tree(old, renamed) == _tree(new, {})
    assert _pairs(old, renamed) == _pairs(new, {})
    assert (
        new.tool_calls["result_id"].notna().tolist() == old.tool_calls["result_id"].notna().tolist()
    )
    return renamed
