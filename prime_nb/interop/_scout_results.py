"""`scout_references`: a Scout scan's results as rows that name entries of session files.

Why: Scout's results are one row per scanner result, its citations a JSON list in
``message_references``. Research goes on from the entry: one row per cited message,
with the ``file``, ``session_id`` and ``entry_id`` it came from (the transcripts
``to_scout`` wrote carry them), is a table to count, filter and join with prime_nb's
own tables, and ``prime_nb.show(row)`` opens the widget at that entry, as for a row of
``corpus.search``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pandas as pd

from ._extras import require

COLUMNS = {
    "scanner": "str",
    "transcript_id": "str",
    "file": "str",
    "session_id": "str",
    "leaf_id": "str",
    "entry_id": "str",
    "cite": "str",
    "label": "str",
    "value": "object",
    "answer": "str",
    # one text per result, shared by its references (a str column would copy it per row:
    # a grep result cites every match, and its explanation quotes them all)
    "explanation": "object",
    "result_uuid": "str",
}


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _rows(scanner: str, frame: pd.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for record in frame.to_dict("records"):
        meta = _json(record.get("transcript_metadata"))
        meta = meta if isinstance(meta, dict) else {}
        refs = _json(record.get("message_references"))
        for ref in refs if isinstance(refs, list) else []:
            if not isinstance(ref, dict) or not isinstance(ref.get("id"), str):
                continue
            rows.append(
                {
                    "scanner": scanner,
                    "transcript_id": _text(record.get("transcript_id")),
                    "file": _text(meta.get("file")) or _text(record.get("transcript_source_uri")),
                    "session_id": _text(meta.get("session_id"))
                    or _text(record.get("transcript_source_id")),
                    "leaf_id": _text(meta.get("leaf_id")),
                    "entry_id": ref["id"],
                    "cite": _text(ref.get("cite")),
                    "label": _text(record.get("label")),
                    "value": record.get("value"),
                    "answer": _text(record.get("answer")),
                    "explanation": _text(record.get("explanation")),
                    "result_uuid": _text(record.get("uuid")),
                }
            )
    return rows


def scout_references(results: Any) -> pd.DataFrame:
    """One row per message a Scout scan's results cite: ``scanner``, ``transcript_id``,
    ``file``, ``session_id``, ``leaf_id``, ``entry_id`` (the cited message's id: its
    entry in transcripts ``to_scout`` wrote), ``cite`` (``[M3]``), ``label``, ``value``,
    ``answer``, ``explanation``, ``result_uuid``.

    ``results``: what ``inspect_scout.scan`` returned (its ``Status``), the scan's
    folder, or ``inspect_scout.scan_results_df(...)``. A result that cites no message
    gives no row. Raises ImportError without the ``scout`` extra.
    """
    scout = require("inspect_scout", "scout", "prime_nb.interop.scout_references")
    if isinstance(results, str | os.PathLike):
        results = scout.scan_results_df(os.fspath(results))
    elif hasattr(results, "location") and not hasattr(results, "scanners"):
        results = scout.scan_results_df(results.location)
    rows: list[dict[str, Any]] = []
    for scanner in list(results.scanners.keys()):
        rows += _rows(str(scanner), results.scanners[scanner])
    frame = pd.DataFrame(rows, columns=list(COLUMNS), dtype=object)  # nothing copied yet
    return frame.astype(COLUMNS)
