"""`compaction_probes`: each compaction's summary alone, as a Scout transcript to question.

Why: whether a summary kept what the agent needed is a question about the summary by
itself, the only thing the model had after the compaction. A transcript that holds just
the summary (its message id the compaction's entry id) lets an LLM scanner be asked
"does this summary let you tell which files were edited?" once per compaction; the
answers sit beside ``analysis.compaction_retention(detail=True)``'s facts of the span,
joined on ``compaction_id`` (notebook ``06-compaction-probes``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .._names import shown_name
from ._extras import require
from ._path import json_safe
from ._scout import SOURCE_TYPE, SessionsOrFolder, run_async, sessions_of, transcript_id

COLUMNS = {"transcript_id": "str", "file": "str", "session_id": "str", "compaction_id": "str"}


def compaction_probes(
    sessions_or_folder: SessionsOrFolder, db: str | Path, *, follow_symlinks: bool = False
) -> pd.DataFrame:
    """Write one transcript per compaction of the sessions into the Scout database at
    ``db``: a user message with the summary, its id the compaction's entry id, and the
    columns ``file``, ``session_id``, ``compaction_id``.

    ``sessions_or_folder`` and ``follow_symlinks`` as for :func:`to_scout`. Returns one
    row per transcript written (``transcript_id``, ``file``, ``session_id``,
    ``compaction_id``), in file order. Raises ImportError without the ``scout`` extra.
    """
    scout = require("inspect_scout", "scout", "prime_nb.interop.compaction_probes")
    model = require("inspect_ai.model", "scout", "prime_nb.interop.compaction_probes")
    rows: list[dict[str, Any]] = []
    transcripts = []
    for session in sessions_of(sessions_or_folder, follow_symlinks):
        session_id = session.id or shown_name(session.file.name.removesuffix(".jsonl"))
        table = session.compactions
        for compaction_id, summary in zip(table.index, table["summary"], strict=True):
            row = {
                "transcript_id": transcript_id(session_id, "probe", str(compaction_id)),
                "file": shown_name(str(session.file.resolve())),
                "session_id": session_id,
                "compaction_id": str(compaction_id),
            }
            text = summary if isinstance(summary, str) else ""
            transcripts.append(
                scout.Transcript(
                    transcript_id=row["transcript_id"],
                    source_type=SOURCE_TYPE,
                    source_id=session_id,
                    source_uri=row["file"],
                    agent=SOURCE_TYPE,
                    message_count=1,
                    messages=[model.ChatMessageUser(id=row["compaction_id"], content=text)],
                    metadata=json_safe({k: v for k, v in row.items() if k != "transcript_id"}),
                )
            )
            rows.append(row)
    Path(db).mkdir(parents=True, exist_ok=True)

    async def insert() -> None:
        async with scout.transcripts_db(str(db)) as database:
            await database.insert(transcripts)

    if transcripts:
        run_async(insert())
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
