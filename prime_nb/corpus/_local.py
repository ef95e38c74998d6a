"""Many sessions at once: one row per session, loaded in parallel processes.

Why: research questions ("how often do compactions lose files?", "what share of spend is
abandoned?") need every session in a folder, and a folder can hold thousands of files, some
of them broken. A broken file becomes a row with its error; it never stops the corpus.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from ..family import SessionFacts, facts_of, families_frame
from ..session._discovery import find_session_files

if TYPE_CHECKING:
    from ..session._session import Session

T = TypeVar("T")

CORPUS_COLUMNS = [
    "id",
    "path",
    "cwd",
    "name",
    "version",
    "dialect",
    "entries",
    "leaves",
    "forks",
    "compactions",
    "tool_calls",
    "tokens",
    "cost",
    "started",
    "ended",
    "duration",
    "first_user_message",
    "problems",
    "error",
]


def session_row(path: str) -> dict[str, Any]:
    """The corpus row of one file; a file that fails to load gives a row with ``error``."""
    from ..session._session import load

    try:
        session = load(path)
        summary = session.summary()
        entries = session.entries
        stamps = entries["timestamp"].dropna()
        users = entries.loc[entries["role"] == "user", "text"].dropna()
        started: Any = stamps.min() if len(stamps) else pd.NaT
        ended: Any = stamps.max() if len(stamps) else pd.NaT
        return {
            "id": summary["id"],
            "path": path,
            "cwd": summary["cwd"],
            "name": summary["name"],
            "version": summary["version"],
            "dialect": summary["dialect"],
            "entries": summary["entries"],
            "leaves": summary["leaves"],
            "forks": summary["forks"],
            "compactions": summary["compactions"],
            "tool_calls": summary["tool_calls"],
            "tokens": summary["tokens"],
            "cost": summary["cost"],
            "started": started,
            "ended": ended,
            "duration": ended - started,
            "first_user_message": users.iloc[0] if len(users) else None,
            "problems": summary["problems"],
            "error": None,
        }
    except Exception as exc:  # one bad file must not stop the corpus
        return _error_row(path, exc)


def _error_row(path: str, exc: BaseException) -> dict[str, Any]:
    return {"path": path, "error": f"{type(exc).__name__}: {exc}"}


def session_entries(path: str) -> pd.DataFrame:
    """The entries table of one file with ``session`` (its id) and ``path`` columns."""
    return per_session(lambda session: session.entries, path)


def _progress(total: int, desc: str, show: bool | None) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="file", disable=None if show is None else not show)


def _run(
    func: Callable[[str], T],
    paths: list[str],
    workers: int | None,
    desc: str,
    progress: bool | None,
    on_error: Callable[[str, BaseException], T],
) -> list[T]:
    """``func`` over ``paths``, in worker processes when there is more than one file."""
    if workers is None:
        workers = min(len(paths), os.cpu_count() or 1)
    results: dict[int, T] = {}
    with _progress(len(paths), desc, progress) as bar:
        if workers <= 1 or len(paths) <= 1:
            for k, path in enumerate(paths):
                results[k] = func(path)
                bar.update(1)
        else:
            # forkserver: a notebook kernel has threads, and forking a threaded process is unsafe
            with ProcessPoolExecutor(workers, mp_context=get_context("forkserver")) as pool:
                futures = {pool.submit(func, path): k for k, path in enumerate(paths)}
                for future in as_completed(futures):
                    k = futures[future]
                    try:
                        results[k] = future.result()
                    except Exception as exc:  # a worker died (out of memory, killed...)
                        results[k] = on_error(paths[k], exc)
                    bar.update(1)
    return [results[k] for k in range(len(paths))]


def _paths(dir: str | Path | None, pattern: str, files: Iterable[str | Path] | None) -> list[str]:
    if files is not None:
        return [str(Path(f)) for f in files]
    return [str(p) for p in find_session_files(dir, pattern)]


def load_corpus(
    dir: str | Path | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """One row per session file below ``dir`` (default: the agent's sessions folder).

    Files load in ``workers`` processes (default: one per core; 1 loads in this process),
    with a tqdm progress bar (a notebook bar in Jupyter; ``progress=False`` hides it).
    A file that fails to load is a row with its ``error`` and no figures.
    """
    rows = _run(session_row, _paths(dir, pattern, files), workers, "sessions", progress, _error_row)
    return corpus_frame(rows)


COUNT_COLUMNS = (
    "version",
    "entries",
    "leaves",
    "forks",
    "compactions",
    "tool_calls",
    "tokens",
    "problems",
)


def corpus_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Session rows as the typed corpus table (the same dtypes however few rows)."""
    frame = pd.DataFrame(rows, columns=CORPUS_COLUMNS)
    for column in COUNT_COLUMNS:
        frame[column] = pd.array(
            [None if pd.isna(v) else int(v) for v in frame[column]], dtype="Int64"
        )
    for column in ("id", "path", "cwd", "name", "dialect", "first_user_message", "error"):
        frame[column] = pd.array(frame[column].tolist(), dtype="str")
    frame["cost"] = frame["cost"].astype("float64")
    for column in ("started", "ended"):
        frame[column] = pd.to_datetime(frame[column], utc=True).astype("datetime64[us, UTC]")
    # from objects: a column of NaT alone (only empty sessions) would read as datetime64
    frame["duration"] = pd.to_timedelta(frame["duration"].astype(object)).astype("timedelta64[us]")
    return frame


def corpus_entries(
    dir: str | Path | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Every entry of every session, with ``session`` (id) and ``path`` columns.

    Files that fail to load are left out here; :func:`load_corpus` lists them.
    """
    frames = _run(
        session_entries,
        _paths(dir, pattern, files),
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


#: dtypes of the research tables (declared, so Dask never computes a partition to infer them)
FORENSICS_DTYPES: dict[str, Any] = {
    "session": "str",
    "path": "str",
    "id": "str",
    "timestamp": "datetime64[us, UTC]",
    "tokens_before": "Int64",
    "tokens_after": "Int64",
    "tokens_after_source": "str",
    "compression_ratio": "float64",
    "first_turn_context_tokens": "Int64",
    "first_kept_entry_id": "str",
    "summarised_ids": "object",
    "summarised_entries": "int64",
    "summarised_messages": "int64",
    "kept_messages": "int64",
    "summary_chars": "int64",
    "summary_tokens": "int64",
    "previous_compaction_id": "str",
    "since_previous": "timedelta64[us]",
    "read_files": "object",
    "modified_files": "object",
    "reread_files": "object",
    "reread_count": "int64",
    "continued_to": "str",
    "from_hook": "bool",
    "on_active_path": "bool",
}
BRANCH_DTYPES: dict[str, Any] = {
    "session": "str",
    "path": "str",
    "fork_id": "str",
    "branch_id": "str",
    "leaf_id": "str",
    "entries": "int64",
    "leaves": "int64",
    "path_length": "int64",
    "tokens": "int64",
    "cost": "float64",
    "last_type": "str",
    "last_role": "str",
    "stop_reason": "str",
    "is_active": "bool",
    "started": "datetime64[us, UTC]",
    "ended": "datetime64[us, UTC]",
}


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
    from ..session._session import load

    try:
        session = load(path)
        result = func(session)
        frame = result.reset_index(drop=result.index.name is None)
    except Exception:
        return pd.DataFrame()
    frame.insert(0, "path", path)
    frame.insert(0, "session", session.id)
    return frame


def _forensics_of(path: str) -> pd.DataFrame:
    from ..analysis import compaction_forensics

    return per_session(compaction_forensics, path)


def _branches_of(path: str) -> pd.DataFrame:
    from ..analysis import branches

    return per_session(branches, path)


def _no_rows(path: str, exc: BaseException) -> pd.DataFrame:
    return pd.DataFrame()


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def corpus_compactions(
    dir: str | Path | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Compaction forensics of every session (one row per compaction, ``session`` column)."""
    frames = _run(
        _forensics_of, _paths(dir, pattern, files), workers, "compactions", progress, _no_rows
    )
    return conform(_concat(frames), empty(FORENSICS_DTYPES))


def corpus_branches(
    dir: str | Path | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Branching summary of every session (one row per branch of a fork, ``session`` column)."""
    frames = _run(
        _branches_of, _paths(dir, pattern, files), workers, "branches", progress, _no_rows
    )
    return conform(_concat(frames), empty(BRANCH_DTYPES))


def _facts_error(path: str, exc: BaseException) -> SessionFacts:
    return SessionFacts(path, error=f"{type(exc).__name__}: {exc}")


def families(
    dir: str | Path | None = None,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    *,
    files: Iterable[str | Path] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """One row per session family below ``dir`` (forks and sub-agents linked across files).

    Each file is read once, in ``workers`` processes; the families are stitched from what
    each file contributes (:func:`prime_nb.family.facts_of`), so tokens and cost count
    copied prefixes and sub-agents once (``naive_*``: the plain sums, for comparison).
    :func:`prime_nb.load_family` gives one family's sessions, links and graph.
    """
    facts = _run(facts_of, _paths(dir, pattern, files), workers, "families", progress, _facts_error)
    return families_frame(facts)
