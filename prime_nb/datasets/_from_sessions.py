"""Branches as datasets: sessions to a table of chat examples, per leaf, compaction or turn.

Why: evaluation and training sets are tables of chat messages in a provider's format,
and a session tree holds many such examples (docs/datasets.md). Messages are stored as
JSON text, not nested Arrow columns: provider messages mix strings and lists of
differently shaped blocks in one field, which no single Arrow type holds without losing
or renaming fields. :func:`write_dataset` writes JSONL rows with the messages nested.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from tqdm.auto import tqdm

from .._names import real_name, shown_name, shown_text
from ..errors import DatasetTooLargeError, SessionFormatError
from ..session import Session, check_options, find_session_files, load
from ._units import Rows

if TYPE_CHECKING:
    import pyarrow as pa

UNITS = ("leaf", "compaction", "turn")
OUTPUTS = ("arrow", "hf")
ON_ERROR = ("warn", "raise")
Source = str | Path | Session
#: the messages one file's rows may hold in all unless the caller asks for more
MAX_MESSAGES = 1_000_000


def _check_size(rows: Rows, unit: str, file: str, max_messages: int | None) -> None:
    """Refuse, before building them, rows that would hold more than ``max_messages``."""
    if max_messages is None:
        return
    count, messages, largest = rows.size(unit)
    if messages > max_messages:
        other = "unit='leaf' (a branch's row holds all its turns)" if unit != "leaf" else ""
        raise DatasetTooLargeError(
            shown_text(
                f"{file}: {count:,} {unit} rows would hold about {messages:,} messages in all "
                f"(each holds its whole context, up to {largest:,} messages), over "
                f"max_messages={max_messages:,}; pass {other + ', or ' if other else ''}"
                "a larger max_messages (None: no limit), or leave this file out"
            )
        )


_COMMON: list[tuple[str, str]] = [
    ("file", "string"),
    ("session_id", "string"),
    ("messages", "string"),
    ("message_sources", "list<list<string>>"),
    ("n_messages", "int64"),
    ("is_active", "bool"),
    ("abandoned", "bool"),
    ("label", "string"),
    ("labels", "list<string>"),
    ("tokens", "int64"),
    ("cost", "float64"),
    ("errors", "int64"),
]
_SETTINGS = [("model", "string"), ("provider", "string"), ("thinking_level", "string")]
#: the columns of each unit, in order (types as pyarrow names them)
COLUMNS: dict[str, list[tuple[str, str]]] = {
    "leaf": [("leaf_id", "string"), *_COMMON, *_SETTINGS],
    "compaction": [
        ("entry_id", "string"),
        ("parent_id", "string"),
        *_COMMON,
        ("messages_before", "string"),
        ("n_messages_before", "int64"),
        ("summary", "string"),
        ("first_kept_entry_id", "string"),
        ("tokens_before", "int64"),
        ("tokens_after", "int64"),
        *_SETTINGS,
    ],
    "turn": [
        ("entry_id", "string"),
        ("end_id", "string"),
        *_COMMON,
        ("turn_start", "int64"),
        ("turn_tokens", "int64"),
        ("turn_cost", "float64"),
        *_SETTINGS,
    ],
}
#: columns that hold messages as JSON text
JSON_COLUMNS = ("messages", "messages_before")


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as exc:
        raise ImportError(
            "prime_nb.datasets.from_sessions needs pyarrow; install it with: "
            "pip install 'prime-nb[parquet]'"
        ) from exc
    return pyarrow


def schema(unit: str) -> pa.Schema:
    """The Arrow schema of a ``unit``'s table (the same however few rows)."""
    pa = _pyarrow()
    kinds = {
        "string": pa.string(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "list<string>": pa.list_(pa.string()),
        "list<list<string>>": pa.list_(pa.list_(pa.string())),
    }
    return pa.schema([(name, kinds[kind]) for name, kind in COLUMNS[unit]])


def _sources(paths_or_corpus: Any, follow_symlinks: bool) -> list[Source]:
    """Sessions and session files from what the caller gave, checked before any work."""
    if isinstance(paths_or_corpus, pd.DataFrame):
        if "path" not in paths_or_corpus.columns:
            raise ValueError(
                "a table of sessions needs a 'path' column, as prime_nb.corpus.load_corpus "
                f"makes; this one has {list(paths_or_corpus.columns)!r}"
            )
        # a corpus table shows a name that is not UTF-8 with \xNN escapes: the real one
        return [Path(real_name(p)) for p in paths_or_corpus["path"].dropna()]
    if isinstance(paths_or_corpus, str | Path | Session):
        items: Iterable[Any] = [paths_or_corpus]
    elif isinstance(paths_or_corpus, Iterable):
        items = paths_or_corpus
    else:
        raise TypeError(
            "from_sessions takes a path, a folder, a Session, a list of those, or a corpus "
            f"table; got {type(paths_or_corpus).__name__}"
        )
    out: list[Source] = []
    for item in items:
        if isinstance(item, Session):
            out.append(item)
        elif isinstance(item, str | Path):
            path = Path(item).expanduser()
            if path.is_dir():
                out.extend(find_session_files(path, follow_symlinks=follow_symlinks))
            elif path.exists():
                out.append(path)
            else:
                raise FileNotFoundError(shown_text(f"{path}: no such session file or folder"))
        else:
            raise TypeError(f"not a path or a Session: {item!r}")
    return out


def _rows(
    sources: list[Source],
    unit: str,
    options: tuple[str, str, bool],
    progress: bool,
    on_error: str,
    max_messages: int | None,
) -> Iterator[dict[str, Any] | tuple[str, str, str]]:
    """Rows of every source; a file that cannot be loaded, or whose rows would hold
    more than ``max_messages``, yields ``(file, error, what became of it)``."""
    for source in tqdm(sources, desc=f"{unit} rows", unit="file", disable=not progress):
        try:
            session = source if isinstance(source, Session) else load(source)
            made = Rows(session, *options)
            _check_size(made, unit, shown_name(str(session.file)), max_messages)
            rows = list(made.rows(unit))  # all of a file, or none of it
        except (SessionFormatError, OSError, DatasetTooLargeError) as exc:
            if on_error == "raise":
                raise
            file = shown_name(str(getattr(source, "file", source)))
            if isinstance(exc, DatasetTooLargeError):  # it says the file and what to do
                yield (file, str(exc).removeprefix(f"{file}: "), "skipped, too large")
            else:
                yield (file, shown_name(str(exc)), "skipped, it cannot be loaded")
            continue
        yield from rows


def from_sessions(
    paths_or_corpus: Any,
    unit: str = "leaf",
    format: str = "openai",
    output: str = "arrow",
    progress: bool = True,
    *,
    images: str = "data_url",
    thinking: bool = True,
    on_error: str = "warn",
    max_messages: int | None = MAX_MESSAGES,
    follow_symlinks: bool = False,
) -> Any:
    """A table of chat examples from session files: one row per leaf, compaction or turn.

    ``paths_or_corpus``: a session file, a folder (every ``*.jsonl`` below it), a
    :class:`Session`, a list of these, or a corpus table with a ``path`` column.
    ``unit``: ``"leaf"`` (the context at each leaf), ``"compaction"`` (the context
    before and after each compaction) or ``"turn"`` (each user turn; ``messages`` is
    the context at its end and ``messages[turn_start:]`` the turn itself). Every row
    has ``messages`` (JSON text in ``format``, as :meth:`Session.to_messages` makes them
    with ``images`` and ``thinking``), where it came from and its branch's facts; the
    columns are in docs/datasets.md.

    ``output``: ``"arrow"`` (a pyarrow Table; needs ``prime-nb[parquet]``) or ``"hf"``
    (a Hugging Face ``datasets.Dataset``; needs ``prime-nb[hf]``). A file that cannot be
    loaded is skipped with a warning (``on_error="raise"`` raises instead); the skipped
    files are in the schema metadata under ``prime_nb.skipped``.

    ``max_messages``: the messages one file's rows may hold in all (``None``: no limit).
    Each row holds its whole context, so the rows of a deep branch (its turns, or the
    leaves of a branch forked at every step) grow as the square of its depth; a file
    over the limit is found before its rows are built, and skipped with a warning (with
    ``on_error="raise"``, :class:`prime_nb.errors.DatasetTooLargeError` is raised). A
    symlink leading out of a folder given is left out, with a warning, unless
    ``follow_symlinks`` (:func:`prime_nb.session.find_session_files`).
    """
    for name, value, allowed in (
        ("unit", unit, UNITS),
        ("output", output, OUTPUTS),
        ("on_error", on_error, ON_ERROR),
    ):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
    if max_messages is not None and (
        isinstance(max_messages, bool) or not isinstance(max_messages, int) or max_messages < 0
    ):
        raise ValueError(f"max_messages must be a count of messages or None, not {max_messages!r}")
    check_options(format, images)
    pa = _pyarrow()
    if output == "hf":
        _hf()
    sources = _sources(paths_or_corpus, follow_symlinks)
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    options = (format, images, thinking)
    for item in _rows(sources, unit, options, progress, on_error, max_messages):
        if isinstance(item, tuple):
            skipped.append({"file": item[0], "error": item[1]})
            warnings.warn(shown_text(f"{item[0]}: {item[2]}: {item[1]}"), stacklevel=2)
        else:
            rows.append(item)
    metadata = {"prime_nb.unit": unit, "prime_nb.format": format}
    metadata["prime_nb.skipped"] = json.dumps(skipped)
    table = pa.Table.from_pylist(rows, schema=schema(unit).with_metadata(metadata))
    return _hf().Dataset(table) if output == "hf" else table


def _hf() -> Any:
    try:
        import datasets
    except ImportError as exc:
        raise ImportError(
            "from_sessions(output='hf') needs the Hugging Face datasets package; install "
            "it with: pip install 'prime-nb[hf]'"
        ) from exc
    return datasets
