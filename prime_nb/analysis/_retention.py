"""Compaction retention: what each compaction's summary kept of its span, and what the
loss cost later.

Why: one study found that summaries keep about a tenth of the file paths and almost none
of the commands of the span they replace; no table showed what a compaction lost or what
that loss cost. The facts and their rules are in :mod:`prime_nb.analysis._retention_walk`.
"""

from __future__ import annotations

import pandas as pd

from ..session import SessionLike, as_session
from ._common import tree_arrays
from ._compaction_walk import walk_compactions
from ._retention_walk import retention_counts, retention_details
from ._schemas import conform


def compaction_retention(session: SessionLike, detail: bool = False) -> pd.DataFrame:
    """One row per compaction and kind of fact (``file``, ``command``, ``error``, ``url``,
    ``identifier``), compactions in file order, every kind even when it counts nothing.

    - ``in_span``: the distinct facts of the entries the compaction summarised (its
      ``summarised_ids`` in :func:`compaction_forensics`);
    - ``in_summary``: those its summary text names;
    - ``needed_later``: those a tool call on the continuing branch (to the last leaf below
      the compaction) uses again while the summary does not name them;
    - ``needed_later_tokens``: what those calls cost (each call once; chars / 4 of the
      call and its result, as the agent estimates).

    ``detail=True``: one row per fact instead, with its ``value``, ``in_summary``,
    ``needed_later`` and ``first_needed_id`` (the entry that used it again: the assistant
    entry of the call, or the error result's entry).
    """
    session = as_session(session, "analysis.compaction_retention")
    name = "compaction_retention_detail" if detail else "compaction_retention"
    comps = session.compactions
    if comps.empty:
        return conform(pd.DataFrame(), name)
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    arrays = tree_arrays(session)
    kept = comps["first_kept_entry_id"].astype(object)
    kept_of = {
        arrays.row_of[str(cid)]: arrays.row_of.get(k, -1) if isinstance(k, str) else -1
        for cid, k in zip(comps.index, kept, strict=True)
    }
    rows = [arrays.row_of[str(cid)] for cid in comps.index]
    walked = walk_compactions(
        session._index, arrays.last_leaf(), rows, kept_of, [], {}, [set() for _ in rows]
    )
    summaries = [s if isinstance(s, str) else "" for s in comps["summary"].astype(object)]
    details = retention_details(
        session,
        arrays.ids,
        rows,
        summaries,
        [w.summarised for w in walked],
        [w.leaf for w in walked],
        cwd,
    )
    if detail:
        return conform(pd.DataFrame(details), name)
    return conform(pd.DataFrame(retention_counts(details, [str(c) for c in comps.index])), name)
