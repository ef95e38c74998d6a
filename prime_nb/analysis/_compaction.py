"""Compaction forensics: what each compaction threw away, kept, and what it cost later.

Researchers studying compaction want to know how much a compaction shrank the context, what
it summarised, and whether the model had to go back for files the summary only mentioned
(re-reads after a compaction are the visible price of lost context). The rows come from
the session's read and its tree alone, so the corpus's summary pass
(:func:`corpus_compaction_rows`) gives the same answers without an entries table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..session import (
    CONTEXT_TYPES,
    ColumnsRead,
    Session,
    SessionLike,
    TreeIndex,
    active_path_mask,
    as_session,
    view,
)
from ._common import estimate_tokens, read_paths, relative_path, session_cwd, tree_arrays
from ._schemas import SCHEMAS, conform

COLUMNS = list(SCHEMAS["compaction_forensics"])


def _files(details: Any, key: str, cwd: str | None) -> list[str]:
    values = details.get(key) if isinstance(details, dict) else None
    if not isinstance(values, list):
        return []
    return sorted({relative_path(v, cwd) for v in values if isinstance(v, str) and v})


@dataclass
class Walked:
    """What one compaction's path and continuation hold (rows of the session)."""

    #: the nearest compaction above it on its path (-1: none)
    previous: int
    #: the entries it folded into its summary, root first
    summarised: list[int]
    #: the last leaf in file order below it: the branch the agent resumes
    leaf: int
    #: the first of ``turns`` below it on the way to ``leaf`` (-1: none)
    first_turn: int
    #: the ``known`` files that ``reads`` below it on the way to ``leaf`` opened, sorted
    reread: list[str]


def walk_compactions(
    index: TreeIndex,
    last_leaf: np.ndarray,
    comps: Sequence[int],
    kept_of: Mapping[int, int],
    turns: Iterable[int],
    reads: Mapping[int, Sequence[str]],
    known: Sequence[set[str]],
) -> list[Walked]:
    """The tree facts of forensics for the compaction rows ``comps``, in linear time.

    ``kept_of`` maps every compaction row to its first kept entry's row (-1: none);
    ``turns`` are the rows that count as a turn (assistant rows with input usage);
    ``reads`` the files each row's read tools opened; ``known[k]`` the files that
    ``comps[k]``'s details list.

    Positions on a path are depths, so the previous compaction, the summarised span and
    "below it on its continuation" need no path: the rows below a compaction on the way
    to its last leaf are exactly the deeper rows with the same last leaf, so turns and
    reads are grouped by last leaf and met in one sweep up each group.
    """
    depth: list[int] = index.depth.tolist()  # lists: a numpy item read costs more
    leaf_of: list[int] = last_leaf.tolist()
    groups: dict[int, list[tuple[int, int, int]]] = {}  # leaf -> (depth, kind, row or k)
    for row in turns:
        groups.setdefault(leaf_of[row], []).append((depth[row], 0, row))
    for row in reads:
        groups.setdefault(leaf_of[row], []).append((depth[row], 1, row))
    for k, row in enumerate(comps):
        groups.setdefault(leaf_of[row], []).append((depth[row], 2, k))
    first_turn = [-1] * len(comps)
    reread: list[list[str]] = [[] for _ in comps]
    for events in groups.values():
        events.sort(reverse=True)  # deepest first: one row per depth on a leaf's path
        turn = -1
        opened: set[str] = set()
        for _, kind, value in events:
            if kind == 0:
                turn = value
            elif kind == 1:
                opened.update(reads[value])
            else:
                first_turn[value] = turn
                reread[value] = sorted(f for f in known[value] if f in opened)
    out: list[Walked] = []
    for k, row in enumerate(comps):
        previous = index.above(index.compaction_at, row)
        boundary = 0
        if previous >= 0:
            prev_kept = kept_of.get(previous, -1)
            if prev_kept >= 0 and index.strictly_above(prev_kept, previous):
                boundary = depth[prev_kept]
            else:
                boundary = depth[previous] + 1
        kept = kept_of.get(row, -1)
        above_cut = row
        if kept >= 0 and index.strictly_above(kept, row):
            above_cut = kept
        summarised = index.path_between(int(index.parent[above_cut]), boundary)
        out.append(Walked(previous, summarised, leaf_of[row], first_turn[k], reread[k]))
    return out


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


def kept_rows(session: Session) -> dict[int, int]:
    """Each compaction's row -> its first kept entry's row (-1: missing, not text, or not
    an entry of the file)."""
    index_of = session._cols.index_of
    return {
        c["index"]: index_of.get(c["first_kept_entry_id"], -1)
        if isinstance(c["first_kept_entry_id"], str)
        else -1
        for c in session._cols.compactions
    }


def forensics_rows(
    session: Session,
    comp_rows: Sequence[int],
    read_paths: Mapping[int, Sequence[str]],
    stamps: Sequence[Any],
) -> list[dict[str, Any]]:
    """The rows of :func:`compaction_forensics` for the compaction rows ``comp_rows``,
    from the session's read: ``read_paths`` are the files each assistant row's read
    tools opened, ``stamps`` the rows' times as the caller shows them (the previous
    compaction's time is carried as ``previous_ms``)."""
    cols, tree = session._cols, session._tree
    cwd = session_cwd(session)
    ids, types, roles = cols.ids, cols.types, cols.roles
    active = active_path_mask(tree, len(cols) - 1)
    tokens: np.ndarray = view(cols.usage.tokens, np.int64).reshape(-1, 5)
    usage_in: list[int] = (tokens[:, 0] + tokens[:, 2] + tokens[:, 3]).tolist()
    by_row = {c["index"]: c for c in cols.compactions}
    comps = [by_row[row] for row in comp_rows]
    read_files = [_files(c["details"], "readFiles", cwd) for c in comps]
    modified_files = [_files(c["details"], "modifiedFiles", cwd) for c in comps]
    known = [set(r) | set(m) for r, m in zip(read_files, modified_files, strict=True)]
    turns = [r for r, role in enumerate(roles) if role == "assistant" and usage_in[r] > 0]
    last_leaf = tree_arrays(session).last_leaf()
    walked = walk_compactions(
        session._index, last_leaf, comp_rows, kept_rows(session), turns, read_paths, known
    )
    contexts = session._contexts_messages(comp_rows)  # the compactions' entries among them
    rows: list[dict[str, Any]] = []
    for k, comp in enumerate(comps):
        row, walk = comp_rows[k], walked[k]
        previous = walk.previous if walk.previous >= 0 else None
        context = contexts[k][0]
        # the counts as the loader checked them (session.compactions shows the same)
        recorded, before = comp["tokens_after"], comp["tokens_before"]
        after = recorded if recorded is not None else sum(estimate_tokens(m) for m in context)
        summary = comp["summary"] if isinstance(comp["summary"], str) else ""
        kept = comp["first_kept_entry_id"]
        rows.append(
            {
                "id": ids[row],
                "timestamp": stamps[row],
                "tokens_before": before,
                "tokens_after": after,
                "tokens_after_source": "recorded" if recorded is not None else "estimated",
                "compression_ratio": before / after if before and after else math.nan,
                "first_turn_context_tokens": usage_in[walk.first_turn]
                if walk.first_turn >= 0
                else None,
                "first_kept_entry_id": kept if isinstance(kept, str) else None,
                "summarised_ids": [ids[r] for r in walk.summarised],
                "summarised_entries": len(walk.summarised),
                "summarised_messages": sum(1 for r in walk.summarised if types[r] in CONTEXT_TYPES),
                "kept_messages": max(len(context) - 1, 0),
                "summary_chars": len(summary),
                "summary_tokens": estimate_tokens(
                    {"role": "compactionSummary", "summary": summary}
                ),
                "previous_compaction_id": ids[previous] if previous is not None else None,
                "previous_ms": stamps[previous] if previous is not None else math.nan,
                "read_files": read_files[k],
                "modified_files": modified_files[k],
                "reread_files": walk.reread,
                "reread_count": len(walk.reread),
                "continued_to": ids[walk.leaf],
                "from_hook": bool(comp["from_hook"]),
                "on_active_path": bool(active[row]),
            }
        )
    return rows


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
    if comps.empty:
        return conform(pd.DataFrame(), "compaction_forensics")
    row_of = session._cols.index_of
    calls = session.tool_calls
    rows = map(row_of.__getitem__, calls["assistant_id"])
    triples = zip(rows, calls["name"], calls["arguments"], strict=True)
    opened = read_paths(triples, session_cwd(session))
    stamps = session.entries["timestamp"].tolist()
    found = forensics_rows(session, [row_of[str(c)] for c in comps.index], opened, stamps)
    frame = pd.DataFrame(found).set_index("id")
    previous = frame.pop("previous_ms")
    frame["since_previous"] = [
        None if pd.isna(p) else t - p for t, p in zip(frame["timestamp"], previous, strict=True)
    ]
    return conform(frame, "compaction_forensics")


def corpus_compaction_rows(read: ColumnsRead, path: str) -> list[dict[str, Any]]:
    """:func:`compaction_forensics` of a summary read (``read_columns(path, columns=
    "summary", arguments=READ_TOOLS)``: the read tools' arguments name the files read),
    as the corpus's rows: with ``session`` and ``path``, times in float ms."""
    session = Session.from_read(read)
    cols = session._cols
    if not cols.compactions:
        return []
    calls = cols.tool_calls
    opened = read_paths(  # the pass keeps only the read tools' arguments
        ((calls.rows[k], calls.names[k], calls.arguments[k]) for k in sorted(calls.arguments)),
        session_cwd(session),
    )
    comp_rows = [c["index"] for c in cols.compactions]
    rows = forensics_rows(session, comp_rows, opened, cols.time_ms)
    return [{"session": session.id, "path": path, **row} for row in rows]
