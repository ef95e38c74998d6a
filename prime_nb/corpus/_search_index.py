"""The search index: every (entry, field) text of a corpus in SQLite, so that searching
an unchanged corpus reads no session file.

One SQLite file per corpus folder in the cache folder, named as the corpus cache's
Parquet file is (``search-<folder>-<digest>.sqlite``). ``files`` holds each indexed
path's stat key (size, mtime, inode, device), session id and load error; ``texts`` one
row per (entry, field) with what a hit reports; ``fts`` the same texts in an FTS5 table
with the trigram tokenizer (substrings of three characters or more, case folded) and no
positions kept (``detail=none``: less than half the size, built twice as fast; a query
asks for rows holding each of its trigrams, which the exact match then sorts out).

Why re-index a whole file when it grew: an append moves the active leaf, so every
row's ``on_active_path`` may change; the texts are cheap to read again next to keeping
that right. A file whose key changed (grew, rewritten) is read again, a listed file
that no longer exists leaves the index, and a search of a file the index holds opens
nothing but the index.

The index only proposes rows: every candidate is matched again in Python exactly as
the uncached search matches, so the two give the same result. FTS proposes them for a
plain query of three or more characters when its case folding cannot lose a match
(:func:`fts_phrase`); a regex, a short query, or an ``i`` under ``case=False`` (Python
matches it to dotted and dotless I, which SQLite does not fold) scans the stored texts
of the listed files instead, still without reading a session file. Texts that SQLite
cannot index as they are (lone surrogates, NUL) are stored as UTF-8 bytes, always
proposed, and decoded back for the exact match.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from .._version import __version__
from ._cache_file import cache_name
from ._runner import file_sizes, run
from ._search_match import FIELDS, FileHits, FileTexts, Hit, Query, file_rows, snippet

#: the index's layout; bump it when the tables or what a row holds change
INDEX_LAYOUT = 1
#: bytes of changed files read per round: their texts are written before the next round
#: is read, so that indexing a big corpus holds one round's texts in memory at a time
ROUND_BYTES = 256 << 20
_FIELD_ORDER = {name: k for k, name in enumerate(FIELDS)}

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    path BLOB PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, device INTEGER,
    session_id TEXT, error TEXT
);
CREATE TABLE IF NOT EXISTS texts (
    id INTEGER PRIMARY KEY, path BLOB, seq INTEGER, entry_id TEXT, line INTEGER,
    role TEXT, type TEXT, field TEXT, active INTEGER, time_ms REAL, odd INTEGER
);
CREATE INDEX IF NOT EXISTS texts_path ON texts (path, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, {FTS_OPTIONS});
"""
#: the FTS5 table's options (the trigram tokenizer came with SQLite 3.34)
FTS_OPTIONS = "tokenize='trigram', detail='none'"


def fts_problem() -> str | None:
    """Why this Python's SQLite cannot hold the index (no FTS5, or too old for the
    trigram tokenizer), or None."""
    with closing(sqlite3.connect(":memory:")) as con:
        try:
            con.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, {FTS_OPTIONS})")
        except sqlite3.OperationalError as exc:
            return str(exc)
    return None


def index_file_name(root: str) -> str:
    """The index's file name for the corpus below ``root`` (the corpus cache's name)."""
    return cache_name(root).replace("corpus-", "search-", 1).removesuffix(".parquet") + ".sqlite"


def index_file(path: str) -> FileTexts:
    """Every text of one file, for the index (a file that cannot be read: its error)."""
    try:
        return file_rows(path)
    except Exception as exc:
        return FileTexts(None, [], f"{type(exc).__name__}: {exc}")


def _key(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def _connect(file: Path) -> sqlite3.Connection:
    """The index, made or checked: one written by another layout or version of prime_nb
    (or damaged) is removed and made anew."""
    for attempt in range(2):
        con = sqlite3.connect(file, timeout=60)
        try:
            # a lost index is rebuilt, never trusted half-written: WAL keeps it whole
            # through a crash, and the writes need not wait for the disk
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            con.execute("PRAGMA cache_size=-65536")
            con.executescript(SCHEMA.format(FTS_OPTIONS=FTS_OPTIONS))
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            want = {"layout": str(INDEX_LAYOUT), "version": __version__}
            if not meta:
                con.executemany("INSERT INTO meta VALUES (?, ?)", list(want.items()))
                con.commit()
                return con
            if meta == want:
                return con
        except sqlite3.DatabaseError:
            if attempt:
                raise
        con.close()
        for leftover in (file, Path(f"{file}-wal"), Path(f"{file}-shm")):
            leftover.unlink(missing_ok=True)
    raise sqlite3.DatabaseError(f"{file}: cannot make the search index")  # pragma: no cover


def _storable(text: str) -> tuple[str | bytes, int]:
    """The text as SQLite can hold it, and whether it is odd (always a candidate)."""
    if "\x00" in text:
        return text.encode("utf-8", "surrogatepass"), 1
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass"), 1
    return text, 0


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


def update(
    con: sqlite3.Connection, paths: Sequence[str], workers: int | None, progress: bool | None
) -> list[str]:
    """Index the listed files whose key changed, drop the listed files that are gone;
    return the paths read (to tell a caller, or a test, what was read)."""
    stored = {
        os.fsdecode(path): tuple(key)
        for path, *key in con.execute("SELECT path, size, mtime_ns, inode, device FROM files")
    }
    keys = {path: _key(path) for path in paths}
    stale = [p for p in paths if keys[p] is not None and stored.get(p) != keys[p]]
    gone = [p for p in paths if keys[p] is None and p in stored]
    gone += [p for p in stored if p not in keys and not os.path.exists(p)]
    with con:
        for path in gone:
            _forget(con, path)
    for chunk in _rounds(stale):
        texts = run(
            index_file,
            chunk,
            workers,
            "indexing",
            progress,
            lambda path, exc: FileTexts(None, [], f"{type(exc).__name__}: {exc}"),
        )
        with con:
            for path, read in zip(chunk, texts, strict=True):
                if path in stored:
                    _forget(con, path)
                _store(con, path, keys[path], read)
    return stale


def _rounds(paths: list[str]) -> Iterator[list[str]]:
    current: list[str] = []
    held = 0
    for path, size in zip(paths, file_sizes(paths), strict=True):
        current.append(path)
        held += size
        if held >= ROUND_BYTES:
            yield current
            current, held = [], 0
    if current:
        yield current


def _forget(con: sqlite3.Connection, path: str) -> None:
    raw = os.fsencode(path)
    con.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM texts WHERE path = ?)", (raw,))
    con.execute("DELETE FROM texts WHERE path = ?", (raw,))
    con.execute("DELETE FROM files WHERE path = ?", (raw,))


def _store(con: sqlite3.Connection, path: str, key: Any, read: FileTexts) -> None:
    raw = os.fsencode(path)
    con.execute(
        "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?)", (raw, *key, read.session_id, read.error)
    )
    start = con.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM texts").fetchone()[0]
    stored = [_storable(row.text) for row in read.rows]
    con.executemany(
        "INSERT INTO texts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                start + k,
                raw,
                k,
                row.entry_id,
                row.line,
                row.role,
                row.type,
                row.field,
                int(row.on_active_path),
                row.time_ms,
                odd,
            )
            for k, (row, (_, odd)) in enumerate(zip(read.rows, stored, strict=True))
        ],
    )
    con.executemany(
        "INSERT INTO fts (rowid, text) VALUES (?, ?)",
        [(start + k, text) for k, (text, _) in enumerate(stored)],
    )


def fts_phrase(query: Query) -> str | None:
    """The FTS5 query that proposes every row the query can match (each of its trigrams,
    the index keeping no positions), or None when the index cannot be trusted to (then
    the stored texts are scanned).

    Trigram FTS finds substrings of three characters or more, folding case. Folding
    both sides keeps every exact match, so a case-sensitive query may use it; under
    ``case=False`` Python also matches ASCII letters to a few other characters (k to
    the Kelvin sign and s to the long s, which SQLite folds alike, and i to dotted and
    dotless I, which it does not): such a query uses it only when it is ASCII with no i.
    """
    if query.regex or len(query.text) < 3 or "\x00" in query.text:
        return None
    if not query.case and (not query.text.isascii() or "i" in query.text.lower()):
        return None
    try:
        query.text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    text = query.text
    grams = dict.fromkeys(text[k : k + 3] for k in range(len(text) - 2))
    return " AND ".join('"' + gram.replace('"', '""') + '"' for gram in grams)


def search_index(
    con: sqlite3.Connection, paths: Sequence[str], query: Query, limit: int | None
) -> list[FileHits]:
    """The hits of each listed file, from the index alone (in the order of ``paths``)."""
    con.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (path BLOB PRIMARY KEY, ord INTEGER)")
    con.execute("DELETE FROM wanted")
    con.executemany(
        "INSERT OR IGNORE INTO wanted VALUES (?, ?)",
        [(os.fsencode(p), k) for k, p in enumerate(paths)],
    )
    where, params = [], []
    for column, names in (("role", query.roles), ("type", query.types), ("field", query.fields)):
        if names is not None:
            where.append(f"t.{column} IN ({', '.join('?' * len(names))})")
            params.extend(sorted(names))
    if query.active_only:
        where.append("t.active = 1")
    phrase = fts_phrase(query)
    if phrase is not None:
        where.append("(t.odd = 1 OR t.id IN (SELECT rowid FROM fts WHERE fts MATCH ?))")
        params.append(phrase)
    sql = (
        "SELECT w.ord, t.entry_id, t.line, t.role, t.type, t.field, t.active, t.time_ms, f.text"
        " FROM wanted w JOIN texts t ON t.path = w.path JOIN fts f ON f.rowid = t.id"
        + (" WHERE " + " AND ".join(where) if where else "")
        + " ORDER BY w.ord, t.seq"
    )
    ids = {
        os.fsdecode(path): (session_id, error)
        for path, session_id, error in con.execute(
            "SELECT f.path, f.session_id, f.error FROM files f JOIN wanted w ON w.path = f.path"
        )
    }
    hits: list[list[Hit]] = [[] for _ in paths]
    found = 0
    with closing(con.execute(sql, params)) as cursor:
        for order, entry_id, line, role, kind, field, active, time_ms, stored in cursor:
            text = _text(stored)
            span = query.first_match(text)
            if span is None:
                continue
            path = paths[order]
            hits[order].append(
                Hit(
                    path,
                    ids[path][0],
                    entry_id,
                    line,
                    role,
                    kind,
                    field,
                    bool(active),
                    time_ms if time_ms is not None else float("nan"),
                    snippet(text, *span),
                )
            )
            found += 1
            if limit is not None and found >= limit:
                break
    return [FileHits(hits[k], ids.get(path, (None, None))[1]) for k, path in enumerate(paths)]


def indexed_search(
    paths: list[str],
    root: str,
    cache: bool | str | os.PathLike[str],
    query: Query,
    limit: int | None,
    workers: int | None,
    progress: bool | None,
) -> list[FileHits]:
    """The search through the corpus's index in ``cache`` (brought up to date first)."""
    from ._cache import cache_folder, usable_folder

    problem = fts_problem()
    if problem is not None:
        raise RuntimeError(
            f"search(cache=...) needs SQLite's FTS5 with the trigram tokenizer (SQLite 3.34 "
            f"or later); this Python's SQLite {sqlite3.sqlite_version} says: {problem}. "
            "Search without cache=, or run a Python built with a newer SQLite"
        )
    folder = cache_folder(cache)
    usable_folder(folder)
    with closing(_connect(folder / index_file_name(root))) as con:
        update(con, paths, workers, progress)
        return search_index(con, paths, query, limit)
