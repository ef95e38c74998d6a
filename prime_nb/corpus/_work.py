"""The per-file work of the corpus tables: one summary pass, the parts that were asked for.

Why one pass: a corpus row needs counts, spend, the first prompt and the tree's shape,
never the entries table or a graph, whose pandas and networkx objects cost more than the
parse itself for a file of a few hundred entries. The pass is ``read_columns(path,
columns="summary")``, the loader's own reading with a lighter per-entry extraction;
``tests/corpus/test_summary.py`` compares every column with the full ``load()`` path. A
file is read once whichever tables are wanted (the cache asks for all of them), and a
worker returns a few small dicts per file, so what crosses the process boundary is tiny.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from .._names import shown_name
from ..analysis import (
    READ_TOOLS,
    corpus_branch_rows,
    corpus_compaction_rows,
    corpus_retention_rows,
)
from ..session import ColumnsRead, Session, read_columns
from ._skim import may_hold_compaction

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
        return FileResult({"path": shown_name(path), "error": None, "unparsed": True}, [], [])
    try:
        read = read_summary(path)
    except Exception as exc:  # one bad file must not stop the corpus
        return FileResult(error_row(path, exc), [], [])
    return results_of(read, path, parts)


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


def read_summary(path: str, state: ColumnsRead | None = None) -> ColumnsRead:
    """The summary pass over one file (raises as ``load`` does on a file that is no
    session); from ``state``: only what was appended since (or all of a replaced file)."""
    return read_columns(path, columns="summary", state=state, arguments=READ_TOOLS)


#: the corpus row's columns that are the Session's headline figures (``Session.summary``)
SUMMARY_KEYS: tuple[str, ...] = ("id", "cwd", "name", "version", "dialect", "entries")
SUMMARY_KEYS += ("leaves", "forks", "compactions", "tool_calls")
SUMMARY_KEYS += ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
SUMMARY_KEYS += ("tokens", "cost", "problems")


def row_of(read: ColumnsRead, path: str) -> dict[str, Any]:
    """The corpus row (``load_corpus``'s columns); times as float ms, made datetimes later.
    Its figures are ``Session.summary``'s, counted once for both."""
    summary = Session.from_read(read).summary()
    stamps = np.frombuffer(read.columns.time_ms, dtype=np.float64)
    known = stamps[~np.isnan(stamps)]
    return {
        "path": path,
        **{key: summary[key] for key in SUMMARY_KEYS},
        "started": float(known.min()) if len(known) else np.nan,
        "ended": float(known.max()) if len(known) else np.nan,
        "first_user_message": read.columns.first_user_text,
        "error": None,
    }
