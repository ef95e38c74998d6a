"""The search index: every (entry, field) text of a corpus as Arrow columns, so that
searching an unchanged corpus reads no session file and matches on every core.

One folder per corpus folder in the cache folder, named as the corpus cache's file is
(``search-<folder>-<digest>``): ``manifest.json`` (``_search_manifest``) holds each
indexed path's stat key, the CRC-32s of its ends, its segment, session id and load
error; a segment (``_search_segment``) is an uncompressed Arrow IPC file of a group of
files' rows, written by the worker that read them. Why Arrow: a search memory-maps the
segments (no copy, no parse) and matches in Arrow's kernels, which release the GIL, on a
thread pool; only hits come to Python.

A file whose key or ends changed is read again into a new segment (an append moves the
active leaf, so any row's ``on_active_path`` may change); its old rows no longer count,
and a segment no file counts in is deleted. Each segment is checked whole before its
kernels run; a damaged one (or a manifest entry that is not as written) makes its files
be read again, so a damaged cache costs a re-read, never the process. One search at a
time brings an index up to date and reads it (a lock file beside the manifest):
another's clean-up would delete the segments a search is about to read.

Exact as the uncached search: where RE2 finds what Python finds (:attr:`Query.kernel_exact`)
the kernel matches and the snippets are cut in Arrow (:func:`snippets`); otherwise it only
proposes the rows holding the query's literal, and Python decides. Texts Arrow cannot
hold or RE2 may read otherwise (lone surrogates, NUL) are kept as bytes for Python.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .._names import shown_text
from ._cache import cache_folder, ends_hash, stat_key, usable_folder
from ._cache_file import _pyarrow, cache_name
from ._runner import file_sizes, run, usable_cores
from ._search_manifest import Entry, read_manifest, save_manifest
from ._search_match import (
    SNIPPET_AFTER,
    SNIPPET_BEFORE,
    Query,
    file_rows,
    kernel_pattern,
    snippet,
)
from ._search_segment import (
    HIT_COLUMNS,
    DamagedSegment,
    SegmentNotWritten,
    open_segment,
    row_schema,
    write_segment,
)

#: bytes of session files a segment holds the texts of (a worker holds one group's rows)
GROUP_BYTES = 32 << 20
#: the snippet's control characters (``_search_match._CONTROLS``) in RE2's syntax
CONTROLS_RE2 = r"[\x00-\x1f\x7f-\x{9f}\x{2028}\x{2029}\x{202a}-\x{202e}\x{2066}-\x{2069}]"


def _odd(text: str) -> bool:
    """Is ``text`` one Arrow cannot hold (a lone surrogate) or RE2 takes otherwise (NUL)?"""
    if "\x00" in text:
        return True
    try:
        text.isascii() or text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def index_name(root: str) -> str:
    """The index folder's name for the corpus below ``root`` (the corpus cache's name)."""
    return cache_name(root).replace("corpus-", "search-", 1).removesuffix(".parquet")


def index_file(path: str) -> tuple[str | None, str | None, Any]:
    """One file's session id, load error and rows (an Arrow table, or None)."""
    try:
        read = file_rows(path)
    except Exception as exc:  # a file that is no session: no rows, its error kept
        return None, f"{type(exc).__name__}: {exc}", None
    if not read.rows:
        return read.session_id, None, None
    pa, _ = _pyarrow()
    *columns, texts = (list(column) for column in zip(*read.rows, strict=True))
    odd = [text.encode("utf-8", "surrogatepass") if _odd(text) else None for text in texts]
    plain = ["" if bad else text for text, bad in zip(texts, odd, strict=True)]
    return read.session_id, None, pa.table([*columns, plain, odd], schema=row_schema())


def index_group(first: str, group: list[str], folder: str) -> tuple[str | None, list[Any]]:
    """A group of files into one segment, in a worker (why there: the texts never cross
    to the parent, and the writing runs on every core); each file's session id, load
    error and whether it has rows."""
    read = [index_file(path) for path in group]
    segment = write_segment(Path(folder), group, [table for _, _, table in read])
    return segment, [[session_id, error, table is not None] for session_id, error, table in read]


def update(
    folder: Path,
    paths: Sequence[str],
    workers: int | None,
    progress: bool | None,
    damaged: frozenset[str] = frozenset(),
) -> tuple[dict[str, Entry], list[str]]:
    """Index the listed files that changed (their stat key, or with the same key the
    CRC-32s of their ends: a same-size rewrite with the mtime put back), and those whose
    segment is in ``damaged``; forget the files that are gone. Return the manifest and
    the paths read (to tell a caller, or a test, what was read)."""
    files, changed = read_manifest(folder, len(paths))
    keys = {path: stat_key(path) for path in paths}
    # before any file is read, as the key: a file rewritten meanwhile is read next time
    ends = {path: ends_hash(path, key[0]).hex() for path, key in keys.items() if key is not None}
    stale = [
        p
        for p in paths
        if keys[p] is not None
        and (
            p not in files
            or tuple(files[p][:4]) != keys[p]
            or files[p][7] != ends[p]
            or files[p][4] in damaged
        )
    ]
    gone = [p for p in files if (keys[p] is None if p in keys else not os.path.exists(p))]
    for path in gone:
        del files[path]
    group = (np.cumsum(file_sizes(stale)) - 1) // GROUP_BYTES
    groups = [[p for p, g in zip(stale, group, strict=True) if g == k] for k in set(group.tolist())]
    by_first = {members[0]: members for members in groups}

    def failed(first: str, exc: BaseException) -> tuple[None, list[Any]]:
        if isinstance(exc, SegmentNotWritten):  # the disk, not the files: search without
            raise exc
        return None, [[None, f"{type(exc).__name__}: {exc}", False]] * len(by_first[first])

    work = partial(index_group, folder=str(folder))
    done = run(work, list(by_first), workers, "indexing", progress, failed, extra=groups)
    for members, (segment, read) in zip(groups, done, strict=True):
        for path, (session_id, error, held) in zip(members, read, strict=True):
            key = keys[path] or ()
            files[path] = [*key, segment if held else None, session_id, error, ends[path]]
    if gone or stale or changed:
        try:
            save_manifest(folder, files, set(paths))
        except OSError as exc:  # a full disk, a folder where the manifest goes
            warnings.warn(
                shown_text(
                    f"{folder}: the search index was not updated ({exc.strerror or exc}); the "
                    "hits are complete, and the next search reads the changed files again"
                ),
                stacklevel=5,  # the caller of search
            )
    return files, stale


def snippets(text: Any, rows: Any, at: Any, length: int) -> Any:
    """Python's :func:`snippet` of each row of ``text`` (a LargeStringArray) whose match
    of ``length`` characters starts at byte ``at``, cut in Arrow: the bytes either side
    of the match that hold the context (4 bytes a character at most, moved to the next
    character's start) become views on the text's buffer, then sliced by characters."""
    pa, _ = _pyarrow()
    import pyarrow.compute as pc

    if not len(rows):
        return pa.array([], pa.large_string())
    offsets = np.frombuffer(text.buffers()[1], np.int64)[text.offset :]
    data = np.frombuffer(text.buffers()[2], np.uint8)
    start, end = offsets[rows], offsets[rows + 1]
    at = start + at
    lo = np.maximum(start, at - 4 * SNIPPET_BEFORE - 4)
    hi = np.minimum(end, at + 4 * (length + SNIPPET_AFTER) + 3)
    for _ in range(3):  # a UTF-8 character's continuation bytes are 10xxxxxx
        lo += (lo < at) & (data[np.minimum(lo, len(data) - 1)] & 0xC0 == 0x80)
        hi -= (hi < end) & (data[np.minimum(hi, len(data) - 1)] & 0xC0 == 0x80)
    bounds = np.stack([lo, at, hi], axis=1).ravel()
    parts = pa.LargeStringArray.from_buffers(
        len(bounds) - 1, pa.py_buffer(bounds), text.buffers()[2]
    )
    before, after = parts.take(np.arange(0, len(parts), 3)), parts.take(np.arange(1, len(parts), 3))
    dots = pa.scalar("...", pa.large_string()), pa.scalar("", pa.large_string())
    shown = pc.binary_join_element_wise(
        pc.utf8_slice_codeunits(before, -SNIPPET_BEFORE),
        pc.utf8_slice_codeunits(after, 0, length + SNIPPET_AFTER),
        dots[1],
    )
    left = pc.or_(pa.array(lo > start), pc.greater(pc.utf8_length(before), SNIPPET_BEFORE))
    right = pc.or_(pa.array(hi < end), pc.greater(pc.utf8_length(after), length + SNIPPET_AFTER))
    return pc.binary_join_element_wise(
        pc.if_else(left, *dots),
        pc.replace_substring_regex(shown, CONTROLS_RE2, " "),
        pc.if_else(right, *dots),
        dots[1],
    )


def _segment_hits(folder: Path, name: str, live: dict[str, int], query: Query) -> tuple[Any, ...]:
    """One segment's hits among the listed files it counts for: their order in the
    listing, their rows (``HIT_COLUMNS``) and snippets, in row order. Checked first
    (``open_segment``): a damaged one raises DamagedSegment before any kernel reads it."""
    pa, _ = _pyarrow()
    import pyarrow.compute as pc

    table, names = open_segment(folder, name)
    order = np.array([live.get(path, -1) for path in names] + [-1], np.int64)
    order = order[table["file"].to_numpy()]
    keep = order >= 0
    for column, wanted in (("role", query.roles), ("type", query.types), ("field", query.fields)):
        if wanted is not None:
            value_set = pa.array(sorted(wanted), pa.string())
            keep &= pc.is_in(table[column], value_set).fill_null(False).to_numpy()
    if query.active_only:
        keep &= table["active"].to_numpy()
    odd = pc.is_valid(table["odd"]).to_numpy()
    text = table["text"].chunk(0)  # one batch a segment: a view on the mapped file
    if query.kernel_exact:
        pattern = kernel_pattern(query.text, not query.case)
        at = pc.find_substring_regex(text, pattern, ignore_case=not query.case).to_numpy()
        exact = np.flatnonzero(keep & ~odd & (at >= 0))
        shown = snippets(text, exact, at[exact], len(query.text))
        others = np.flatnonzero(keep & odd)
    else:
        exact, shown = np.zeros(0, np.int64), pa.array([], pa.large_string())
        literal = query.kernel_literal
        if literal:
            held = pc.match_substring_regex(text, literal, ignore_case=query.literal[1])
            held = held.to_numpy(zero_copy_only=False)
            keep &= held | odd
        others = np.flatnonzero(keep)
    pairs = zip(text.take(others).to_pylist(), table["odd"].take(others).to_pylist(), strict=True)
    values = [
        plain if raw is None else raw.decode("utf-8", "surrogatepass") for plain, raw in pairs
    ]
    spans = [query.first_match(value) for value in values]
    found = [row for row, span in zip(others, spans, strict=True) if span]
    cut = [snippet(value, *span) for value, span in zip(values, spans, strict=True) if span]
    rows = np.concatenate([exact, np.array(found, np.int64)])
    ranked = np.argsort(rows, kind="stable")
    shown = pa.concat_arrays([shown, pa.array(cut, pa.large_string())]).take(ranked)
    rows = rows[ranked]
    return order[rows], table.select(list(HIT_COLUMNS)).take(rows), shown


def own_folder(folder: Path) -> Path:
    """The index's own folder, made if need be. Anything else in its place (a symlink to
    another folder, a file, a FIFO) is removed, not followed: the index deletes the
    segments its manifest does not name, and must never do so in a folder of the user's."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        try:
            folder.unlink()
        except OSError as exc:
            raise type(exc)(
                shown_text(
                    f"{folder}: cannot hold the search index ({exc.strerror or exc}); remove "
                    "it, or pass cache= another folder"
                )
            ) from None
    folder.mkdir(exist_ok=True)
    return folder


def indexed_search(
    paths: list[str],
    root: str,
    cache: bool | str | os.PathLike[str],
    query: Query,
    limit: int | None,
    workers: int | None,
    progress: bool | None,
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The hits' columns through the corpus's index in ``cache`` (brought up to date
    first), and the listed files that could not be read, with why."""
    from filelock import FileLock

    folder = cache_folder(cache)
    usable_folder(folder)
    folder = own_folder(folder / index_name(root))
    lock = folder / "index.lock"
    if lock.is_symlink():  # never one the index made: removed, not followed
        lock.unlink(missing_ok=True)
    guard = FileLock(lock)
    try:
        guard.acquire()
    except OSError as exc:  # a folder in its place, say
        raise type(exc)(
            shown_text(
                f"{lock}: cannot lock the search index ({exc.strerror or exc}); remove it, or "
                "pass cache= another folder"
            )
        ) from None
    try:
        return _search_locked(folder, paths, query, limit, workers, progress)
    finally:
        guard.release()


def _search_locked(
    folder: Path,
    paths: list[str],
    query: Query,
    limit: int | None,
    workers: int | None,
    progress: bool | None,
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    pa, _ = _pyarrow()
    damaged: frozenset[str] = frozenset()
    for _ in range(2):  # a damaged segment's files are read again into a new one, once
        files, _ = update(folder, paths, workers, progress, damaged)
        where = {path: k for k, path in reversed(list(enumerate(paths)))}  # the first listing
        by_segment: dict[str, dict[str, int]] = {}
        for path, k in where.items():
            if path in files and files[path][4] is not None:
                by_segment.setdefault(files[path][4], {})[path] = k
        threads = max(1, min(len(by_segment), workers or usable_cores()))
        with ThreadPoolExecutor(threads) as pool:
            tried = [
                pool.submit(_segment_hits, folder, name, live, query)
                for name, live in by_segment.items()
            ]
        failed = [job.exception() for job in tried]
        damaged = frozenset(
            name for name, exc in zip(by_segment, failed, strict=True) if exc is not None
        )
        for exc in failed:
            if exc is not None and not isinstance(exc, DamagedSegment):
                raise exc
        if not damaged:
            break
    else:
        first = next(exc for exc in failed if exc is not None)
        raise DamagedSegment(
            shown_text(
                f"{folder}: the search index was damaged again as it was rebuilt ({first}); "
                "pass cache=False, or another cache folder"
            )
        )
    parts = [job.result() for job in tried]
    order = np.concatenate([part[0] for part in parts] + [np.zeros(0, np.int64)])
    ranked = np.argsort(order, kind="stable")[:limit]
    table = pa.concat_tables(
        [part[1] for part in parts] or [row_schema().empty_table().select(list(HIT_COLUMNS))]
    )
    table = table.append_column(
        "snippet", pa.chunked_array([part[2] for part in parts], pa.large_string())
    )
    table = table.take(ranked)
    listed = np.array([*paths, ""], dtype=object)[order[ranked]]
    columns = {name: table[name].to_numpy() for name in table.column_names}
    columns["file"] = listed
    columns["session_id"] = [files[path][5] for path in listed]
    columns["on_active_path"] = columns.pop("active")
    errors = [(path, files[path][6] if path in files else "FileNotFoundError") for path in where]
    return columns, [(path, error) for path, error in errors if error]
