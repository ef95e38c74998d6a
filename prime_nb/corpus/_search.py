"""Search the texts of many sessions: where did the agent run ``rm -rf``, which sessions
hit this error?

One row per (entry, field) whose text matches the query, in the order the files are
listed, then by line, then by field. The texts are those of each entry as
``prime_nb.load(path).entry(id)`` gives it (canonical: migrated, ids as load() names
them), cut into fields (:func:`entry_fields`) so that a hit says where it was found.

Reading is the corpus's: batches of files over the process pool of ``_runner`` (a small
corpus in this process). Each file's bytes are first searched for the longest part of the
query's literal that no JSON escape can hide (:attr:`Query.raw_filter`): a file without
it is not parsed, and of the rest only the lines that hold it. ``cache=`` searches an
index of Arrow columns instead (``_search_index``). What is matched: ``_search_match``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._names import shown_text
from ..session import utc_times
from ._listing import corpus_root, listed
from ._runner import run
from ._search_match import FIELDS, FileHits, Hit, Query, search_file

__all__ = ["FIELDS", "search"]


#: the result's columns and their dtypes (the same for an empty result)
COLUMNS = {
    "file": "object",
    "session_id": "object",
    "entry_id": "object",
    "line": "int64",
    "role": "object",
    "type": "object",
    "field": "object",
    "on_active_path": "bool",
    "timestamp": "datetime64[us, UTC]",
    "snippet": "object",
}

# -- the corpus ----------------------------------------------------------------------------


def _names(value: str | Iterable[str] | None, what: str) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset([value])
    try:
        return frozenset(str(item) for item in value)
    except TypeError:
        raise TypeError(f"{what}={value!r}: pass a name or a list of names") from None


def search(
    folder_or_files: str | Path | Iterable[str | Path] | None,
    query: str,
    *,
    regex: bool = False,
    case: bool = False,
    roles: str | Iterable[str] | None = None,
    types: str | Iterable[str] | None = None,
    fields: str | Iterable[str] | None = None,
    active_only: bool = False,
    limit: int | None = None,
    cache: bool | str | os.PathLike[str] = False,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    progress: bool | None = False,
    follow_symlinks: bool = False,
    include_archived: bool = True,
) -> pd.DataFrame:
    """Find ``query`` in the texts of every session below a folder (``None``: the agent's
    sessions folder), or of a list of files and folders, as the corpus tables list them.

    One row per (entry, field) whose text matches (its first match in the snippet), in
    the order the files are listed, then by line, then by field. Columns: ``file``,
    ``session_id``, ``entry_id`` (as ``prime_nb.load()`` names it: v1 files get derived
    ids, a repeated id is renamed), ``line`` (the file's line, header = 1), ``role``
    (a message's role, else None), ``type`` (the entry type, canonical), ``field`` (see
    :func:`~prime_nb.corpus._search_match.entry_fields` for which part of an entry each of
    ``text, thinking, tool_args, tool_output, summary, bash_command, bash_output, error,
    label, custom`` covers), ``on_active_path``, ``timestamp`` (UTC) and ``snippet``
    (the hit with context, control characters as spaces).

    ``query`` is plain text, or a Python regex with ``regex=True``; ``case=False``
    ignores case (as ``re.IGNORECASE``). ``roles``, ``types``, ``fields``: keep only
    hits of those (a name or a list); ``active_only``: only entries on the active path;
    ``limit``: the first that many rows. ``cache=True`` (or a folder) keeps the texts in
    an index in the user's cache folder (Arrow files: it needs pyarrow, as the corpus
    cache does), one per corpus folder: a later search reads only the files that
    changed (``_search_index``). The result is the same with or without it.

    What is read: a file below a folder that a symlink leads out of the folder is left
    out (as ``grep -r`` leaves it) unless ``follow_symlinks=True``; a file named in the
    list is read as named. A path that is not a regular file (a FIFO, a device such as
    ``/dev/zero``, a socket) is refused without being read or waited on.

    A file that cannot be read as a session gives no hits, and one warning names the
    files and why (the corpus tables give such a file an error row; a hit table has no
    row to give it). A file whose raw bytes rule the query out is not parsed at
    all, so it is not warned of; the index reads every file and warns of each.

    A folder's OpenClaw archives of session files (``<id>.jsonl.reset.<time>``) are
    searched too; ``include_archived=False`` leaves them out.
    """
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise ValueError(f"limit={limit!r}: pass a whole number of rows, 0 or more, or None")
    spec = Query(
        query,
        regex=bool(regex),
        case=bool(case),
        roles=_names(roles, "roles"),
        types=_names(types, "types"),
        fields=_names(fields, "fields"),
        active_only=bool(active_only),
    )
    paths, folders = listed(
        folder_or_files,
        pattern,
        None,
        bool(follow_symlinks),
        include_archived=bool(include_archived),
    )
    columns: dict[str, Any] | None = None
    if cache is not False and cache is not None:
        from ._cache import usable_cache

        if usable_cache(cache) is None:  # the user's cache folder cannot be one: said once
            cache = False
    if cache is not False and cache is not None:
        from ._search_index import indexed_search
        from ._search_segment import SegmentNotWritten

        try:
            columns, failed = indexed_search(
                paths, corpus_root(folders), cache, spec, limit, workers, progress
            )
        except SegmentNotWritten as exc:  # a full disk: the same hits, without the index
            warnings.warn(str(exc), stacklevel=2)
    if columns is None:
        columns, failed = _uncached(paths, spec, limit, workers, progress)
    if failed:
        shown = "; ".join(f"{path}: {error}" for path, error in failed[:3])
        more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
        warnings.warn(
            shown_text(
                f"search: {len(failed)} file(s) could not be read as sessions and gave no "
                f"hits: {shown}{more}; check them with `prime-nb validate`"
            ),
            stacklevel=2,
        )
    return _frame(columns)


def _uncached(
    paths: list[str], spec: Query, limit: int | None, workers: int | None, progress: bool | None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The hits' columns read from every file, and the files that could not be read."""
    results = run(
        partial(search_file, query=spec, limit=limit),
        paths,
        workers,
        "search",
        progress,
        lambda path, exc: FileHits([], f"{type(exc).__name__}: {exc}"),
    )
    failed = [(path, r.error) for path, r in zip(paths, results, strict=True) if r.error]
    hits = [hit for r in results for hit in r.hits][:limit]
    return {name: [getattr(hit, name) for hit in hits] for name in Hit._fields}, failed


def _frame(columns: dict[str, Any]) -> pd.DataFrame:
    """The hit table of its columns (lists, or arrays from the index)."""
    # the entries table's conversion: NaT, not an error, for a time no datetime holds
    # (a forged index segment may hold any float)
    columns["timestamp"] = utc_times(np.asarray(columns.pop("time_ms"), dtype=np.float64))
    columns["line"] = np.asarray(columns["line"], dtype=np.int64)
    columns["on_active_path"] = np.asarray(columns["on_active_path"], dtype=bool)
    for name in ("file", "session_id", "entry_id", "role", "type", "field", "snippet"):
        # object as given (pandas' str inference copies each row), a missing value as
        # that inference leaves it: NaN beside strings, None in a column of none
        column = pd.Series(columns[name], dtype=object)
        missing = column.isna().to_numpy()
        if not missing.all():
            column[missing] = np.nan
        columns[name] = column
    return pd.DataFrame(columns, columns=list(COLUMNS))
