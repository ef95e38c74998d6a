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

from ._common import READ_TOOLS, estimate_tokens, relative_path, tool_path, tree_arrays

if TYPE_CHECKING:
    from ..session._session import Session

CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})

COLUMNS = [
    "timestamp",
    "tokens_before",
    "tokens_after",
    "tokens_after_source",
    "compression_ratio",
    "first_turn_context_tokens",
    "first_kept_entry_id",
    "summarised_ids",
    "summarised_entries",
    "summarised_messages",
    "kept_messages",
    "summary_chars",
    "summary_tokens",
    "previous_compaction_id",
    "since_previous",
    "read_files",
    "modified_files",
    "reread_files",
    "reread_count",
    "continued_to",
    "from_hook",
    "on_active_path",
]


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        return None
    return int(value)


def _files(details: Any, key: str, cwd: str | None) -> list[str]:
    values = details.get(key) if isinstance(details, dict) else None
    if not isinstance(values, list):
        return []
    return sorted({relative_path(v, cwd) for v in values if isinstance(v, str) and v})


def compaction_forensics(session: Session, ids: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per compaction (index: its id), in file order; ``ids`` picks some.

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
    comps = all_comps = session.compactions
    if ids is not None:
        wanted = set(ids)
        comps = comps.loc[[i for i in comps.index if i in wanted]]
    entries = session.entries
    if comps.empty:
        return pd.DataFrame(columns=COLUMNS, index=pd.Index([], name="id", dtype=object))
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    arrays = tree_arrays(session)
    last_leaf = arrays.last_leaf()
    types = entries["type"].to_numpy()
    roles = entries["role"].to_numpy()
    stamps = entries["timestamp"]
    active = entries["on_active_path"].to_numpy()
    usage_in = (
        entries["input_tokens"].fillna(0).to_numpy(dtype=np.int64)
        + entries["cache_read_tokens"].fillna(0).to_numpy(dtype=np.int64)
        + entries["cache_write_tokens"].fillna(0).to_numpy(dtype=np.int64)
    )
    calls = session.tool_calls
    reads = calls[calls["name"].isin(READ_TOOLS)]
    read_paths: dict[str, list[str]] = {}
    for assistant_id, arguments in zip(reads["assistant_id"], reads["arguments"], strict=True):
        target = tool_path(arguments)
        if target is not None:
            read_paths.setdefault(assistant_id, []).append(relative_path(target, cwd))

    # a compaction's path is a prefix of the path to the last leaf below it: one path (and
    # one position map) per distinct leaf serves every compaction that continues to it
    leaf_paths: dict[int, tuple[list[str], dict[str, int]]] = {}
    rows: list[dict[str, Any]] = []
    for cid, comp in comps.iterrows():
        cid = str(cid)
        leaf_row = int(last_leaf[arrays.row_of[cid]])
        if leaf_row not in leaf_paths:
            full = session.path(arrays.ids[leaf_row])
            leaf_paths[leaf_row] = (full, {entry_id: k for k, entry_id in enumerate(full)})
        full, pos = leaf_paths[leaf_row]
        here = pos[cid]
        path = full[: here + 1]
        previous = next(
            (
                path[k]
                for k in range(here - 1, -1, -1)
                if types[arrays.row_of[path[k]]] == "compaction"
            ),
            None,
        )
        boundary = 0
        if previous is not None:
            prev_kept = str(all_comps.at[previous, "first_kept_entry_id"])
            prev_pos = pos[previous]
            boundary = pos[prev_kept] if pos.get(prev_kept, prev_pos) < prev_pos else prev_pos + 1
        kept = comp["first_kept_entry_id"]
        cut = pos[kept] if isinstance(kept, str) and pos.get(kept, here) < here else here
        summarised = path[boundary:cut]
        n_messages = sum(1 for e in summarised if types[arrays.row_of[e]] in CONTEXT_TYPES)

        context = session.context(cid)
        estimate = sum(estimate_tokens(m) for m in context)
        # the full entry, not session.compactions: that table loses a recorded count when
        # another compaction in the file lacks one (the column turns float)
        raw = session.entry(cid)
        recorded = _count(raw.get("tokensAfter"))
        after = recorded if recorded is not None else estimate
        before_value = _count(raw.get("tokensBefore"))
        summary = comp["summary"] if isinstance(comp["summary"], str) else ""

        first_turn = next(
            (
                int(usage_in[arrays.row_of[e]])
                for e in full[here + 1 :]
                if roles[arrays.row_of[e]] == "assistant" and usage_in[arrays.row_of[e]] > 0
            ),
            None,
        )
        read_files = _files(comp["details"], "readFiles", cwd)
        modified_files = _files(comp["details"], "modifiedFiles", cwd)
        known = set(read_files) | set(modified_files)
        reread = sorted(
            {
                f
                for e, files in read_paths.items()
                if pos.get(e, -1) > here
                for f in files
                if f in known
            }
        )
        rows.append(
            {
                "id": cid,
                "timestamp": stamps.iloc[arrays.row_of[cid]],
                "tokens_before": before_value,
                "tokens_after": after,
                "tokens_after_source": "recorded" if recorded is not None else "estimated",
                "compression_ratio": before_value / after if before_value and after else np.nan,
                "first_turn_context_tokens": first_turn,
                "first_kept_entry_id": kept if isinstance(kept, str) else None,
                "summarised_ids": summarised,
                "summarised_entries": len(summarised),
                "summarised_messages": n_messages,
                "kept_messages": max(len(context) - 1, 0),
                "summary_chars": len(summary),
                "summary_tokens": estimate_tokens(
                    {"role": "compactionSummary", "summary": summary}
                ),
                "previous_compaction_id": previous,
                "since_previous": (
                    stamps.iloc[arrays.row_of[cid]] - stamps.iloc[arrays.row_of[previous]]
                )
                if previous is not None
                else pd.NaT,
                "read_files": read_files,
                "modified_files": modified_files,
                "reread_files": reread,
                "reread_count": len(reread),
                "continued_to": arrays.ids[leaf_row],
                "from_hook": bool(comp["from_hook"]),
                "on_active_path": bool(active[arrays.row_of[cid]]),
            }
        )
    frame = pd.DataFrame(rows).set_index("id")
    for column in ("tokens_before", "tokens_after", "first_turn_context_tokens"):
        frame[column] = pd.array(frame[column].tolist(), dtype="Int64")
    # as objects: a column of only NaT is inferred as datetimes, which to_timedelta refuses
    frame["since_previous"] = pd.to_timedelta(frame["since_previous"].astype(object))
    return frame[COLUMNS]
