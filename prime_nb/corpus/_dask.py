"""The corpus tables on Dask: one partition per group of files, any Dask cluster.

Same rows as :mod:`prime_nb.corpus` (the per-file work is the same functions), so a
team can move from one machine to a cluster without changing its analysis. Paths may
be local or any URL that fsspec reads (``s3://``, ``gs://``, ``abfs://``...): remote
files are copied to a worker's temp folder, because a session is read by byte offset.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

import pandas as pd

try:
    import dask
    import dask.dataframe as dd
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "prime_nb's Dask support needs the dask extra: pip install 'prime-nb[dask]'"
    ) from exc

from .._names import real_name, shown_name
from .._paths import given_path, is_path_list, is_url
from ..family import FAMILY_COLUMNS, SessionFacts, facts_of, families_frame
from ..session import empty_entries
from . import _local as corpus
from ._heap import roomy_heap
from ._listing import found_below, named_files
from ._local import conform, empty, research_frame
from ._runner import usable_cores
from ._work import BRANCHES, COMPACTIONS, RETENTION, ROW, summarise

#: partitions per thread of the cluster when ``files_per_partition`` is not given: enough
#: to even out the end, few enough that the per-partition cost (a task to schedule, a
#: typed frame to build and send) stays small
PARTITIONS_PER_THREAD = 4

Paths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
T = TypeVar("T")


def pandas_dtypes() -> contextlib.AbstractContextManager[Any]:
    """Build a collection whose partitions keep the dtypes they were made with.

    Why: by default Dask wraps every ``from_map`` and ``from_delayed`` in a task per
    partition that recasts text columns to its own string dtype (missing = NA). The
    partitions here already carry pandas' dtypes, declared in their meta, so that task
    only costs time and makes the Dask tables' dtypes differ from the pandas path's,
    which ``tests/corpus/test_corpus_dask.py`` holds equal.
    """
    return dask.config.set({"dataframe.convert-string": False})


def entries_meta() -> pd.DataFrame:
    """The empty entries table with its real dtypes (built by the loader's own code)."""
    frame = empty_entries().reset_index()
    # the ids as the pandas path has them: reset_index gives a table's ids pandas' str
    # dtype, but leaves an empty one's as object
    frame["id"] = frame["id"].astype("str")
    frame.insert(0, "path", pd.Series([], dtype="str"))
    frame.insert(0, "session", pd.Series([], dtype="str"))
    return frame


def resolve(
    paths_or_dir: Paths,
    pattern: str = "**/*.jsonl",
    storage_options: dict[str, Any] | None = None,
    follow_symlinks: bool = False,
) -> list[str]:
    """Session files named, or found below a folder (local, or a URL fsspec lists); a
    list as the pandas tables read one (each local folder searched, each file once, a
    symlink leading out of a folder followed only with ``follow_symlinks``)."""
    if is_path_list(paths_or_dir):
        return named_files(paths_or_dir, pattern, follow_symlinks).paths
    target = given_path(paths_or_dir, "paths_or_dir", "give a folder, a file, or a list of files")
    if not is_url(target):
        return found_below(target, pattern, follow_symlinks)
    if target.startswith("file://") and os.path.isdir(local := target.removeprefix("file://")):
        # a local folder by URL: listed as a local one, links leading out left out
        return ["file://" + path for path in found_below(local, pattern, follow_symlinks)]
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(target, **(storage_options or {}))
    if not fs.isdir(root):
        return [target]
    found = sorted(p for p in fs.glob(f"{root.rstrip('/')}/{pattern}") if fs.isfile(p))
    return [fs.unstrip_protocol(p) for p in found]


@contextmanager
def local_copy(path: str, storage_options: dict[str, Any] | None) -> Iterator[str]:
    """A local path for ``path``: itself, or a temp copy of a remote file."""
    if not is_url(path) or path.startswith("file://"):
        yield path.removeprefix("file://")
        return
    import fsspec

    folder = tempfile.mkdtemp(prefix="prime-nb-")
    try:
        local = os.path.join(folder, os.path.basename(path) or "session.jsonl")
        with fsspec.open(path, "rb", **(storage_options or {})) as src, open(local, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        yield local
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _each(
    paths: Sequence[str], storage_options: dict[str, Any] | None, work: Callable[[str], T]
) -> list[T]:
    """``work`` on each file (a remote one copied first), on a roomy heap."""
    out = []
    with roomy_heap():
        for path in paths:
            with local_copy(path, storage_options) as local:
                out.append(work(local))
    return out


def _entries_partition(
    group: Sequence[str], storage_options: dict[str, Any] | None
) -> pd.DataFrame:
    meta = entries_meta()
    frames = _each(group, storage_options, corpus.session_entries)
    for path, frame in zip(group, frames, strict=True):
        if len(frame):
            frame["path"] = shown_name(path)
    frames = [f for f in frames if len(f)]
    return conform(pd.concat(frames, ignore_index=True) if frames else meta, meta)


def _sessions_partition(
    group: Sequence[str], storage_options: dict[str, Any] | None
) -> pd.DataFrame:
    rows = [r.row for r in _each(group, storage_options, partial(summarise, parts=(ROW,)))]
    for path, row in zip(group, rows, strict=True):
        row["path"] = shown_name(path)
    return corpus.corpus_frame(rows)


def cluster_threads() -> int:
    """Threads of the Dask client in use (its workers'), or this machine's usable cores
    (the local schedulers) when there is none."""
    try:
        from distributed import default_client

        threads = sum(default_client().nthreads().values())
    except (ImportError, ValueError):  # no distributed, or no client
        threads = 0
    return threads or usable_cores()


def _groups(paths: list[str], files_per_partition: int | None) -> list[list[str]]:
    """Files per partition: as many as asked, else the same number of files in each of
    about :data:`PARTITIONS_PER_THREAD` partitions per thread of the cluster."""
    if files_per_partition is not None and files_per_partition < 1:
        raise ValueError("files_per_partition must be at least 1")
    if not paths:
        raise FileNotFoundError("no session files to read; check the folder or the pattern")
    if files_per_partition is None:
        files_per_partition = -(-len(paths) // (PARTITIONS_PER_THREAD * cluster_threads()))
    return [paths[k : k + files_per_partition] for k in range(0, len(paths), files_per_partition)]


def _from_map(
    partition: Callable[[Sequence[str], dict[str, Any] | None], pd.DataFrame],
    groups: list[list[str]],
    meta: pd.DataFrame,
    storage_options: dict[str, Any] | None,
) -> dd.DataFrame:
    with pandas_dtypes():
        return dd.from_map(
            partition, groups, storage_options=storage_options, meta=meta, enforce_metadata=False
        )


def to_dask(
    paths_or_dir: Paths,
    pattern: str = "**/*.jsonl",
    *,
    files_per_partition: int | None = None,
    storage_options: dict[str, Any] | None = None,
    follow_symlinks: bool = False,
) -> dd.DataFrame:
    """Every entry of every session as a Dask DataFrame (``session`` and ``path`` columns).

    Partitions hold ``files_per_partition`` files, or by default the same number each.
    Files that fail to load contribute no rows; :func:`sessions_dask` lists their errors.
    A local file that a symlink leads out of its folder is read only with
    ``follow_symlinks=True``, as in :func:`prime_nb.corpus.load_corpus`.
    """
    groups = _groups(
        resolve(paths_or_dir, pattern, storage_options, follow_symlinks), files_per_partition
    )
    return _from_map(_entries_partition, groups, entries_meta(), storage_options)


def sessions_dask(
    paths_or_dir: Paths,
    pattern: str = "**/*.jsonl",
    *,
    files_per_partition: int | None = None,
    storage_options: dict[str, Any] | None = None,
    follow_symlinks: bool = False,
) -> dd.DataFrame:
    """One row per session (the :func:`prime_nb.corpus.load_corpus` table) on Dask, read
    by the summary pass; partitions and ``follow_symlinks`` as in :func:`to_dask`."""
    groups = _groups(
        resolve(paths_or_dir, pattern, storage_options, follow_symlinks), files_per_partition
    )
    return _from_map(_sessions_partition, groups, corpus.corpus_frame([]), storage_options)


def _research(
    sessions: pd.DataFrame, part: str, storage_options: dict[str, Any] | None
) -> pd.DataFrame:
    """One research table's rows for the readable sessions of a partition."""
    paths = sessions.loc[sessions["error"].isna(), "path"].tolist()
    found = _each([real_name(p) for p in paths], storage_options, partial(summarise, parts=(part,)))
    rows = [
        {**row, "path": path}
        for path, result in zip(paths, found, strict=True)
        for row in getattr(result, part)
    ]
    return research_frame(part, rows)


def _research_dask(
    sessions: dd.DataFrame, part: str, storage_options: dict[str, Any] | None
) -> dd.DataFrame:
    meta = research_frame(part, [])
    return sessions.map_partitions(
        _research, part, storage_options, meta=meta, enforce_metadata=False
    )


def compactions_dask(
    sessions: dd.DataFrame, storage_options: dict[str, Any] | None = None
) -> dd.DataFrame:
    """Compaction forensics of every session in ``sessions`` (from :func:`sessions_dask`),
    computed per partition; equal to :func:`prime_nb.corpus.corpus_compactions`."""
    return _research_dask(sessions, COMPACTIONS, storage_options)


def branches_dask(
    sessions: dd.DataFrame, storage_options: dict[str, Any] | None = None
) -> dd.DataFrame:
    """Branching summary (one row per branch of a fork) per partition; equal to
    :func:`prime_nb.corpus.corpus_branches`."""
    return _research_dask(sessions, BRANCHES, storage_options)


def retention_dask(
    sessions: dd.DataFrame, storage_options: dict[str, Any] | None = None
) -> dd.DataFrame:
    """Compaction retention per partition; equal to
    :func:`prime_nb.corpus.corpus_retention`."""
    return _research_dask(sessions, RETENTION, storage_options)


def _facts_group(
    group: Sequence[str], storage_options: dict[str, Any] | None
) -> list[SessionFacts]:
    found = _each(group, storage_options, facts_of)
    for path, facts in zip(group, found, strict=True):
        facts.path = path
    return found


def _stitch_all(parts: list[list[SessionFacts]]) -> pd.DataFrame:
    return families_frame([facts for part in parts for facts in part])


def families_dask(
    paths_or_dir: Paths,
    pattern: str = "**/*.jsonl",
    *,
    files_per_partition: int = 1,
    storage_options: dict[str, Any] | None = None,
    follow_symlinks: bool = False,
) -> dd.DataFrame:
    """One row per session family (:func:`prime_nb.corpus.families`) on Dask.

    Files are read in parallel, one task per group of files; a family may span any
    files, so the stitching (plain values, no file access) runs as one last task and the
    result is a single partition.
    """
    from dask.delayed import delayed

    groups = _groups(
        resolve(paths_or_dir, pattern, storage_options, follow_symlinks), files_per_partition
    )
    parts = [delayed(_facts_group)(group, storage_options) for group in groups]
    with pandas_dtypes():
        return dd.from_delayed(
            [delayed(_stitch_all)(parts)], meta=empty(FAMILY_COLUMNS), verify_meta=False
        )
