"""Many sessions at once: one row per session, loaded in parallel processes.

Why: research questions ("how often do compactions lose files?", "what share of spend is
abandoned?") need every session in a folder, and a folder can hold thousands of files, some
of them broken. A broken file becomes a row with its error; it never stops the corpus.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._names import shown_name
from .._words import counted
from ..family import SessionFacts, facts_of, families_frame
from ..session import archived_kind, utc_times
from ._dtypes import CORPUS_DTYPES, RESEARCH_DTYPES
from ._listing import corpus_root, listed
from ._runner import run
from ._work import BRANCHES, COMPACTIONS, RETENTION, ROW, FileResult, error_row, summarise

if TYPE_CHECKING:
    from ..session import Session

CORPUS_COLUMNS = list(CORPUS_DTYPES)


def session_row(path: str) -> dict[str, Any]:
    """The corpus row of one file; a file that fails to load gives a row with ``error``.

    Read by the summary pass (one read, no tables built); times are UTC Timestamps.
    """
    row = summarise(path, (ROW,)).row
    if row.get("error") is None:
        row["started"], row["ended"] = utc_times([row["started"], row["ended"]])
        row["duration"] = row["ended"] - row["started"]
    return row


def session_entries(path: str) -> pd.DataFrame:
    """The entries table of one file with ``session`` (its id) and ``path`` columns."""
    return per_session(lambda session: session.entries, path)


Cache = bool | str | os.PathLike[str]


def _summaries(
    dir: str | Path | Iterable[str | Path] | None,
    pattern: str,
    files: Iterable[str | Path] | None,
    parts: tuple[str, ...],
    workers: int | None,
    desc: str,
    progress: bool | None,
    cache: Cache = False,
    follow_symlinks: bool = False,
    include_archived: bool = True,
) -> list[FileResult]:
    """The summary pass over the files (``_listing.listed``) in processes, in their
    order; with a cache, every part of each changed file (so that the other tables are
    cached too)."""
    paths, folders = listed(dir, pattern, files, follow_symlinks, include_archived=include_archived)
    if cache is not False and cache is not None:  # None: no cache, as False
        from ._cache import cached_summaries, usable_cache

        folder = usable_cache(cache)  # None: the user's cache folder cannot be one
        if folder is not None:
            root = corpus_root(folders)
            return cached_summaries(
                paths, parts, workers, desc, progress, folder, root, _problems_line
            )
    return run(
        partial(summarise, parts=parts),
        paths,
        workers,
        desc,
        progress,
        lambda path, exc: FileResult(error_row(path, exc), [], []),
        _problems_line,
    )


def _problems_line(results: list[FileResult]) -> str:
    problems = sum(int(r.row.get("problems") or 0) for r in results)
    errors = sum(1 for r in results if r.row.get("error") is not None)
    line = f"{counted(problems, 'problem')}, {counted(errors, 'file')} unreadable"
    unparsed = sum(1 for r in results if r.row.get("unparsed"))
    if not unparsed:
        return line
    # the files left unparsed have no known problems: say where the counts come from
    parsed = len(results) - unparsed
    skipped = f"{unparsed:,} held no compaction"
    return f"{line} in the {counted(parsed, 'file')} parsed; {skipped}" if parsed else skipped


def load_corpus(
    dir: str | Path | Iterable[str | Path] | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
    cache: Cache = False,
    follow_symlinks: bool = False,
    include_archived: bool = True,
) -> pd.DataFrame:
    """One row per session file below ``dir`` (default: the agent's sessions folder), or
    per file of a list given there or as ``files=`` (a folder in the list: each of its
    files that ``pattern`` matches; a file named twice: one row).

    Each file is read once by the summary pass (no tables built), in ``workers``
    processes (default: one per usable core, or this process alone for a corpus under
    8 MB; 1 reads in this process), with a tqdm progress bar (``progress=False`` hides
    it) and a final line: files, MB, MB/s and problems found. A file that fails to load
    is a row with its ``error`` and no figures.

    ``cache=True`` keeps each file's summary in Parquet in the user's cache folder (a
    path: in that folder), one file per corpus folder: an unchanged file is not read
    again, a file that only grew is read from where the last pass stopped, and a file
    that is gone leaves the cache (docs/corpus.md). It holds every table's rows, so
    ``corpus_compactions`` and ``corpus_branches`` with the same ``cache`` reuse it; a
    folder that cannot hold one is an error before any file is read.

    A file below a folder that a symlink leads out of the folder is left out (as
    ``grep -r`` leaves it) unless ``follow_symlinks=True``, in this table and every
    other corpus table; a file named in the list is read as named.

    A folder's OpenClaw archives of session files (``<id>.jsonl.reset.<time>``,
    ``<id>.jsonl.deleted.<time>``) are read too, their ``archived`` column ``"reset"``
    or ``"deleted"``; ``include_archived=False`` leaves them out. ``tokens`` adds each
    turn's total (cached context counts again on every turn); ``input_tokens``,
    ``output_tokens``, ``cache_read_tokens`` and ``cache_write_tokens`` are the parts.
    """
    results = _summaries(
        dir,
        pattern,
        files,
        (ROW,),
        workers,
        "sessions",
        progress,
        cache,
        follow_symlinks,
        include_archived,
    )
    return corpus_frame([r.row for r in results])


def corpus_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Session rows as the typed corpus table (the same dtypes however few rows)."""
    frame = pd.DataFrame(rows, columns=CORPUS_COLUMNS, dtype=object)
    for name in ("started", "ended"):
        frame[name] = _datetimes(pd.Series([row.get(name) for row in rows], dtype=None))
    frame["duration"] = frame["ended"] - frame["started"]
    frame["archived"] = [
        archived_kind(path) if isinstance(path, str) else None for path in frame["path"]
    ]
    return frame.astype(CORPUS_DTYPES)


def _datetimes(values: pd.Series) -> pd.Series:
    """Float ms (the summary pass) or Timestamps as UTC datetimes; ms go through the
    entries table's own conversion (``utc_times``), so a row's ``started`` is its
    entries' first ``timestamp`` to the microsecond."""
    if pd.api.types.is_numeric_dtype(values.dtype) or values.isna().all():
        ms = values.to_numpy(dtype="float64", na_value=float("nan"))
        return pd.Series(utc_times(ms), index=values.index)
    return pd.to_datetime(values, utc=True)


def corpus_entries(
    dir: str | Path | Iterable[str | Path] | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
    follow_symlinks: bool = False,
) -> pd.DataFrame:
    """Every entry of every session, with ``session`` (id) and ``path`` columns.

    Files that fail to load are left out here; :func:`load_corpus` lists them.
    """
    frames = run(
        session_entries,
        listed(dir, pattern, files, follow_symlinks).paths,
        workers,
        "entries",
        progress,
        lambda path, exc: pd.DataFrame(),
    )
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["session", "path", "id"])
    return pd.concat(frames, ignore_index=True)


def to_parquet(frame: pd.DataFrame, path: str | Path) -> Path:
    """Save a corpus or entries table as Parquet (needs pyarrow: ``pip install pyarrow``).

    Columns of lists or dicts are stored as JSON text, so any table from prime_nb saves.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError(
            "to_parquet needs pyarrow; install it with: pip install 'prime-nb[parquet]'"
        ) from None
    import orjson

    out = frame.copy()
    for column in out.columns:
        if (
            out[column].dtype == object
            and out[column].map(lambda v: isinstance(v, list | dict | tuple)).any()
        ):
            out[column] = out[column].map(
                lambda v: orjson.dumps(v, default=str).decode() if v is not None else None
            )
    target = Path(path)
    out.to_parquet(target)
    return target


def empty(dtypes: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in dtypes.items()})


def conform(frame: pd.DataFrame, meta: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with exactly meta's columns and dtypes (empty partitions included)."""
    if not len(frame):
        return meta.copy()
    out = frame.reindex(columns=meta.columns)
    for name, dtype in meta.dtypes.items():
        if out[name].dtype != dtype:
            out[name] = out[name].astype(dtype)
    return out.reset_index(drop=True)


def per_session(func: Callable[[Session], pd.DataFrame], path: str) -> pd.DataFrame:
    """``func(load(path))`` with ``session`` and ``path`` columns in front (index kept as
    a column); empty for a file that fails to load (load_corpus lists those)."""
    from ..session import load

    try:
        session = load(path)
        result = func(session)
        frame = result.reset_index(drop=result.index.name is None)
    except Exception:
        return pd.DataFrame()
    frame.insert(0, "path", shown_name(path))
    # typed as text even where the file has no id (no header), so tables concatenate as str
    frame.insert(0, "session", pd.Series(session.id, index=frame.index, dtype="str"))
    return frame


def research_frame(part: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows of a research ``part`` of the summary pass as its typed corpus table."""
    meta = empty(RESEARCH_DTYPES[part])
    if not rows:
        return meta
    frame = pd.DataFrame(rows)
    if part == COMPACTIONS:
        frame["timestamp"] = _datetimes(frame["timestamp"])
        frame["since_previous"] = frame["timestamp"] - _datetimes(frame.pop("previous_ms"))
        for column in ("tokens_before", "tokens_after", "first_turn_context_tokens"):
            frame[column] = pd.array(frame[column].tolist(), dtype="Int64")
    elif part == BRANCHES:
        for column in ("started", "ended"):
            frame[column] = _datetimes(frame[column])
    return conform(frame, meta)


def _research_table(
    part: str,
    dir: str | Path | Iterable[str | Path] | None,
    pattern: str,
    files: Iterable[str | Path] | None,
    workers: int | None,
    progress: bool | None,
    cache: Cache = False,
    follow_symlinks: bool = False,
) -> pd.DataFrame:
    results = _summaries(
        dir, pattern, files, (part,), workers, part, progress, cache, follow_symlinks
    )
    return research_frame(part, [row for r in results for row in getattr(r, part)])


def corpus_compactions(
    dir: str | Path | Iterable[str | Path] | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
    cache: Cache = False,
    follow_symlinks: bool = False,
) -> pd.DataFrame:
    """Compaction forensics of every session (one row per compaction, ``session`` column),
    from the summary pass; ``cache`` as in :func:`load_corpus`.

    Without a cache, a file whose bytes rule out a compaction entry is not parsed (most
    sessions never compacted; the table is the same): the final line counts problems in
    the files parsed and says how many held no compaction."""
    return _research_table(
        COMPACTIONS, dir, pattern, files, workers, progress, cache, follow_symlinks
    )


def corpus_branches(
    dir: str | Path | Iterable[str | Path] | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
    cache: Cache = False,
    follow_symlinks: bool = False,
) -> pd.DataFrame:
    """Branching summary of every session (one row per branch of a fork, ``session`` column),
    from the summary pass; ``cache`` as in :func:`load_corpus`."""
    return _research_table(BRANCHES, dir, pattern, files, workers, progress, cache, follow_symlinks)


def corpus_retention(
    dir: str | Path | Iterable[str | Path] | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
    follow_symlinks: bool = False,
) -> pd.DataFrame:
    """Compaction retention of every session (:func:`prime_nb.analysis.compaction_retention`:
    one row per compaction and kind of fact, ``session`` and ``path`` columns), from the
    summary pass. No cache: the rows read the summarised spans' whole entries, which the
    cache does not keep; a file whose bytes rule out a compaction is not parsed."""
    return _research_table(
        RETENTION, dir, pattern, files, workers, progress, False, follow_symlinks
    )


def _facts_error(path: str, exc: BaseException) -> SessionFacts:
    return SessionFacts(path, error=f"{type(exc).__name__}: {exc}")


def families(
    dir: str | Path | Iterable[str | Path] | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
    follow_symlinks: bool = False,
) -> pd.DataFrame:
    """One row per session family below ``dir`` (forks and sub-agents linked across files),
    stitched from what each file contributes (:func:`prime_nb.family.facts_of`, read in
    ``workers`` processes): copied prefixes and sub-agents counted once (``naive_*``: the
    plain sums). :func:`prime_nb.load_family` gives one family's sessions and graph."""
    paths = listed(dir, pattern, files, follow_symlinks).paths
    return families_frame(run(facts_of, paths, workers, "families", progress, _facts_error))
