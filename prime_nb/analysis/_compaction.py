"""Compaction forensics: what each compaction threw away, kept, and what it cost later.

Researchers studying compaction want to know how much a compaction shrank the context, what
it summarised, and whether the model had to go back for files the summary only mentioned
(re-reads after a compaction are the visible price of lost context).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..session import CONTEXT_TYPES, SessionLike, as_session
from ._common import READ_TOOLS, estimate_tokens, relative_path, tool_path, tree_arrays
from ._compaction_walk import _count, _files, walk_compactions
from ._schemas import SCHEMAS, conform

if TYPE_CHECKING:
    from ..session import Session

COLUMNS = list(SCHEMAS["compaction_forensics"])


def _check_compaction_ids(session: Session, wanted: set[str], compactions: pd.Index) -> None:
    """Each id asked for is a compaction: a missing one raises EntryNotFoundError (as
    everywhere), another entry's a ValueError that names its type."""
    for entry_id in sorted(wanted - set(compactions), key=str):
        row = session._row(entry_id)
        kind = session._cols.types[row]
        raise ValueError(
            f"entry {entry_id!r} is a {kind!r} entry, not a compaction; "
            "see session.compactions.index for the compactions"
        )


def compaction_forensics(
    session: SessionLike, ids: str | Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per compaction (index: its id), in file order; ``ids`` picks some (one id
    alone is one id; an id that is not a compaction of the session is an error).

    - ``tokens_before``: as the agent recorded it; ``tokens_after``: recorded when the file
      carries it (specification dialect), else estimated (chars/4) from the context rebuilt
      at the compaction: its summary plus the kept messages (``tokens_after_source`` says
      which). ``compression_ratio`` = before / after.
    - ``first_turn_context_tokens``: input + cache tokens of the first assistant turn after
      the compaction on its continuation: what the provider actually counted.
    - ``summarised_ids``: the entries between the previous kept boundary on the path (the
      previous compaction's first kept entry, or the root) and this compaction's first kept
      entry: what this compaction folded into its summary.
    - ``read_files`` / ``modified_files``: from the compaction's details, relative to cwd.
    - ``reread_files``: those files that a ``read`` tool call opened again after the
      compaction, on the branch that continues from it (to the last leaf below it).
    """
    session = as_session(session, "analysis.compaction_forensics")
    comps = session.compactions
    if ids is not None:
        wanted = {ids} if isinstance(ids, str) else set(ids)
        _check_compaction_ids(session, wanted, comps.index)
        comps = comps.loc[[i for i in comps.index if i in wanted]]
    entries = session.entries
    if comps.empty:
        return conform(pd.DataFrame(), "compaction_forensics")
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    arrays = tree_arrays(session)
    index = session._index
    types = entries["type"].to_numpy()
    stamps = entries["timestamp"]
    active = entries["on_active_path"].to_numpy()
    usage_in = (
        entries["input_tokens"].fillna(0).to_numpy(dtype=np.int64)
        + entries["cache_read_tokens"].fillna(0).to_numpy(dtype=np.int64)
        + entries["cache_write_tokens"].fillna(0).to_numpy(dtype=np.int64)
    )
    assistant = entries["role"].to_numpy(dtype=object) == "assistant"
    turns = np.flatnonzero(assistant & (usage_in > 0))
    calls = session.tool_calls
    reads = calls[calls["name"].isin(READ_TOOLS)]
    read_paths: dict[int, list[str]] = {}
    for assistant_id, arguments in zip(reads["assistant_id"], reads["arguments"], strict=True):
        target = tool_path(arguments)
        if target is not None:
            row = arrays.row_of[assistant_id]
            read_paths.setdefault(row, []).append(relative_path(target, cwd))

    all_kept = session.compactions["first_kept_entry_id"]
    kept_of = {
        arrays.row_of[cid]: arrays.row_of.get(kept, -1) if isinstance(kept, str) else -1
        for cid, kept in zip(all_kept.index, all_kept.astype(object), strict=True)
    }
    rows_of = [arrays.row_of[str(cid)] for cid in comps.index]
    details = comps["details"].tolist()
    read_files = [_files(d, "readFiles", cwd) for d in details]
    modified_files = [_files(d, "modifiedFiles", cwd) for d in details]
    known = [set(r) | set(m) for r, m in zip(read_files, modified_files, strict=True)]
    walked = walk_compactions(
        index, arrays.last_leaf(), rows_of, kept_of, turns.tolist(), read_paths, known
    )
    # the contexts, with the full compaction entries read for them: not session.compactions,
    # which loses a recorded count when another compaction lacks one (the column turns float)
    contexts = session._contexts_messages(rows_of)
    stamp_values = stamps.tolist()
    rows: list[dict[str, Any]] = []
    for k, (cid, kept, summary, from_hook) in enumerate(
        zip(
            comps.index,
            comps["first_kept_entry_id"].astype(object),
            comps["summary"].astype(object),
            comps["from_hook"],
            strict=True,
        )
    ):
        cid = str(cid)
        row = rows_of[k]
        walk = walked[k]
        context, read = contexts[k]
        estimate = sum(estimate_tokens(m) for m in context)
        raw = read[row]
        recorded = _count(raw.get("tokensAfter"))
        after = recorded if recorded is not None else estimate
        before_value = _count(raw.get("tokensBefore"))
        summary = summary if isinstance(summary, str) else ""
        previous = walk.previous
        rows.append(
            {
                "id": cid,
                "timestamp": stamp_values[row],
                "tokens_before": before_value,
                "tokens_after": after,
                "tokens_after_source": "recorded" if recorded is not None else "estimated",
                "compression_ratio": before_value / after if before_value and after else np.nan,
                "first_turn_context_tokens": int(usage_in[walk.first_turn])
                if walk.first_turn >= 0
                else None,
                "first_kept_entry_id": kept if isinstance(kept, str) else None,
                "summarised_ids": [arrays.ids[r] for r in walk.summarised],
                "summarised_entries": len(walk.summarised),
                "summarised_messages": sum(1 for r in walk.summarised if types[r] in CONTEXT_TYPES),
                "kept_messages": max(len(context) - 1, 0),
                "summary_chars": len(summary),
                "summary_tokens": estimate_tokens(
                    {"role": "compactionSummary", "summary": summary}
                ),
                "previous_compaction_id": arrays.ids[previous] if previous >= 0 else None,
                "since_previous": (stamp_values[row] - stamp_values[previous])
                if previous >= 0
                else None,
                "read_files": read_files[k],
                "modified_files": modified_files[k],
                "reread_files": walk.reread,
                "reread_count": len(walk.reread),
                "continued_to": arrays.ids[walk.leaf],
                "from_hook": bool(from_hook),
                "on_active_path": bool(active[row]),
            }
        )
    return conform(pd.DataFrame(rows).set_index("id"), "compaction_forensics")
