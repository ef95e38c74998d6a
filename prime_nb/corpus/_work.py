"""The per-file work of the corpus tables: one summary pass, the parts that were asked for.

Why one function for all three tables: a file is read once whichever tables are wanted
(the cache asks for all of them), and a worker returns a few small dicts per file, never
per-entry objects, so what crosses the process boundary is tiny next to the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from .._names import shown_name
from ..analysis import corpus_branch_rows, corpus_compaction_rows, corpus_retention_rows
from ..session import ColumnsRead
from ._skim import may_hold_compaction
from ._summary import read_summary, row_of

ROW, COMPACTIONS, BRANCHES, RETENTION = "row", "compactions", "branches", "retention"
#: the parts the cache keeps (retention is read afresh: it reads whole entries)
ALL_PARTS = frozenset({ROW, COMPACTIONS, BRANCHES})
#: parts that only a file holding a compaction has rows for
COMPACTION_PARTS = frozenset({COMPACTIONS, RETENTION})


class FileResult(NamedTuple):
    """What the summary pass found in one file (empty lists for parts not asked for)."""

    row: dict[str, Any]
    compactions: list[dict[str, Any]]
    branches: list[dict[str, Any]]
    retention: list[dict[str, Any]] = []  # noqa: RUF012 (a NamedTuple: never mutated)


def error_row(path: str, exc: BaseException) -> dict[str, Any]:
    """The row of a file that could not be read (``path`` as tables show it)."""
    return {"path": shown_name(path), "error": shown_name(f"{type(exc).__name__}: {exc}")}


def summarise(path: str, parts: Iterable[str] = ALL_PARTS) -> FileResult:
    """The summary of one file; a file that fails to load gives a row with ``error``
    (and no research rows, as the full path gives none for it).

    When only compaction parts are asked for, a file whose bytes rule out a compaction
    (``_skim``) is not parsed: its row says ``unparsed`` and holds no figures."""
    wanted = frozenset(parts)
    if wanted and wanted <= COMPACTION_PARTS and not may_hold_compaction(path):
        return FileResult(unparsed_row(path), [], [])
    try:
        read = read_summary(path)
    except Exception as exc:  # one bad file must not stop the corpus
        return FileResult(error_row(path, exc), [], [])
    return results_of(read, path, parts)


def unparsed_row(path: str) -> dict[str, Any]:
    """The row of a file the pass did not parse (its bytes hold no compaction)."""
    return {"path": shown_name(path), "error": None, "unparsed": True}


#: each research part's rows from a finished pass
RESEARCH_ROWS = {
    COMPACTIONS: corpus_compaction_rows,
    BRANCHES: corpus_branch_rows,
    RETENTION: corpus_retention_rows,
}


def results_of(read: ColumnsRead, path: str, parts: Iterable[str] = ALL_PARTS) -> FileResult:
    """The row and the research parts asked for, from a finished pass (``path`` as tables
    show it)."""
    path = shown_name(path)
    try:
        row = row_of(read, path)
    except Exception as exc:
        return FileResult(error_row(path, exc), [], [])
    found: dict[str, list[dict[str, Any]]] = {COMPACTIONS: [], BRANCHES: []}
    for part in RESEARCH_ROWS.keys() & set(parts):
        try:
            found[part] = RESEARCH_ROWS[part](read, path)
        except Exception:  # as the full path: a file whose research rows fail has none
            found[part] = []
    return FileResult(row, **found)
