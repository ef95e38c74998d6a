"""The corpus cache: the same tables, nothing read for unchanged files, only new bytes read
for grown ones, and a full read for files rewritten, truncated or replaced."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import header, msg, write_lines
from research_sessions import branchy, compacted
from session_matrix import write_all
from test_summary import session_matrix

from prime_nb.corpus import _cache, _cache_file, corpus_branches, corpus_compactions, load_corpus
from prime_nb.corpus._cache_file import cache_name
from sessiongen import write_large_session


class Reads:
    """Counts full passes and resumed passes in this process (``workers=1``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full: list[str] = []
        self.resumed: list[str] = []
        real_read = _cache.read_summary

        def read(path: str, state: Any = None) -> Any:
            (self.full if state is None else self.resumed).append(Path(path).name)
            return real_read(path, state)

        monkeypatch.setattr(_cache, "read_summary", read)

    def clear(self) -> None:
        self.full.clear()
        self.resumed.clear()


def tables(folder: Path, cache: Any) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    kw: dict[str, Any] = {"workers": 1, "progress": False, "cache": cache}
    return (
        load_corpus(folder, **kw),
        corpus_compactions(folder, **kw),
        corpus_branches(folder, **kw),
    )


def assert_same(got: tuple[pd.DataFrame, ...], want: tuple[pd.DataFrame, ...]) -> None:
    for a, b in zip(got, want, strict=True):
        pd.testing.assert_frame_equal(a, b)


def cache_file(cache: Path, corpus: Path) -> Path:
    """The file the tables keep in the cache folder ``cache`` for the folder ``corpus``."""
    return cache / cache_name(os.path.realpath(corpus))


def only_cache_file(cache: Path) -> Path:
    """The one corpus cache file in ``cache``."""
    (file,) = cache.glob("corpus-*.parquet")
    return file


def bump(path: Path) -> None:
    """A new mtime even on file systems with coarse timestamps."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    branchy(root / "branchy.jsonl")
    compacted(root / "compacted.jsonl")
    write_large_session(root / "large.jsonl", 200_000, seed=3)
    (root / "broken.jsonl").write_text("not a session\n")
    return root


def test_cached_tables_equal_uncached_on_the_whole_matrix(tmp_path: Path) -> None:
    """The corpus's own matrix and every session of the shared one (``CASES``: a read
    tool's arguments nested deeper than orjson writes once made the cache's state fail,
    and the cached table held an error row where the plain one held the session)."""
    paths = session_matrix(tmp_path / "m") + sorted(write_all(tmp_path / "cases").values())
    kw: dict[str, Any] = {"files": paths, "workers": 2, "progress": False}
    want = (load_corpus(**kw), corpus_compactions(**kw), corpus_branches(**kw))
    cache = tmp_path / "cache"
    first = (
        load_corpus(**kw, cache=cache),
        corpus_compactions(**kw, cache=cache),
        corpus_branches(**kw, cache=cache),
    )
    assert only_cache_file(cache).is_file()
    assert_same(first, want)
    again = (
        load_corpus(**kw, cache=cache),
        corpus_compactions(**kw, cache=cache),
        corpus_branches(**kw, cache=cache),
    )
    assert_same(again, want)


def test_unchanged_files_are_not_read(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = Reads(monkeypatch)
    cache = tmp_path / "cache"
    first = tables(folder, cache)
    assert sorted(reads.full) == ["branchy.jsonl", "broken.jsonl", "compacted.jsonl", "large.jsonl"]
    reads.clear()
    states_read = []
    real = _cache_file.CacheFile.read_states
    monkeypatch.setattr(
        _cache_file.CacheFile, "read_states", lambda self: states_read.append(1) or real(self)
    )
    assert_same(tables(folder, cache), first)
    assert reads.full == [] and reads.resumed == []
    assert states_read == []  # the saved states (most of the cache's bytes) are not even read
    bump(folder / "branchy.jsonl")
    assert_same(tables(folder, cache), first)
    # the first call after the change reads the states (to write every record back);
    # the next two find nothing changed again
    assert states_read == [1]


def test_cache_true_uses_the_user_cache_folder(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    load_corpus(folder, workers=1, progress=False, cache=True)
    assert cache_file(tmp_path / "xdg" / "prime-nb" / "corpus", folder).is_file()


def _grow(path: Path, lines: list[dict[str, Any]]) -> None:
    with open(path, "ab") as fh:
        for line in lines:
            fh.write(json.dumps(line).encode() + b"\n")


def test_a_grown_file_is_read_from_where_it_was_read_up_to(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    tables(folder, cache)
    reads = Reads(monkeypatch)
    target = folder / "branchy.jsonl"
    # a new fork under r1, a compaction on it, and a new active leaf
    _grow(
        target,
        [
            msg("n1", "r1", "user", "again", 20),
            {
                "type": "compaction",
                "id": "n2",
                "parentId": "n1",
                "timestamp": "2026-01-05T10:21:00.000Z",
                "summary": "S" * 80,
                "firstKeptEntryId": "n1",
                "tokensBefore": 500,
            },
            msg("n3", "n2", "assistant", "done", 22),
        ],
    )
    bump(target)
    got = tables(folder, cache)
    assert reads.full == [] and reads.resumed == ["branchy.jsonl"]
    assert_same(got, tables(folder, False))
    row = got[0].set_index("path").loc[str(target)]
    assert row["entries"] == 13 and row["compactions"] == 1 and row["forks"] == 2


def test_a_torn_tail_is_finished_later(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    target = folder / "branchy.jsonl"
    line = json.dumps(msg("n1", "a5", "user", "more", 20)).encode()
    with open(target, "ab") as fh:
        fh.write(line[:20])
    torn = tables(folder, cache)
    assert torn[0].set_index("path").loc[str(target), "problems"] == 1
    reads = Reads(monkeypatch)
    with open(target, "ab") as fh:
        fh.write(line[20:] + b"\n")
    bump(target)
    got = tables(folder, cache)
    assert reads.full == [] and reads.resumed == ["branchy.jsonl"]
    assert_same(got, tables(folder, False))
    assert got[0].set_index("path").loc[str(target), "problems"] == 0


@pytest.mark.parametrize("change", ["rewrite", "truncate", "replace", "grow_after_edit"])
def test_changed_files_are_read_again_in_full(
    change: str, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    tables(folder, cache)
    reads = Reads(monkeypatch)
    target = folder / "compacted.jsonl"
    data = target.read_bytes()
    if change == "rewrite":  # same size, same inode, other content
        target.write_bytes(data.replace(b'"one"', b'"uno"'))
    elif change == "truncate":  # same inode, shorter
        with open(target, "r+b") as fh:
            fh.truncate(len(data) - len(data.splitlines(keepends=True)[-1]))
    elif change == "replace":  # another file renamed over it (a new inode)
        other = folder / "other.tmp"
        branchy(other)
        os.replace(other, target)
    else:  # an earlier line edited, then lines appended: the tail check catches it
        edited = data.replace(b'"a6"', b'"b6"')
        target.write_bytes(edited + b'{"type": "label", "id": "l9", "parentId": "b6"}\n')
    bump(target)
    got = tables(folder, cache)
    assert reads.resumed == [] and reads.full == ["compacted.jsonl"]
    assert_same(got, tables(folder, False))


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_same_size_rewrite_with_its_mtime_put_back_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Size, mtime and inode as recorded, other bytes in the first or the last 4 KB (the
    first prompt, the last message's cost): the cache's row was reused, stale."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    entries = [header()] + [
        msg(f"m{k}", f"m{k - 1}" if k else None, ("user", "assistant")[k % 2], f"{k:03d}" * 40)
        for k in range(60)
    ]
    target = write_lines(corpus / "s.jsonl", entries)
    assert target.stat().st_size > 4 * _cache.TAIL  # the edits are at either end only
    cache = tmp_path / "cache"
    first = load_corpus(corpus, workers=1, progress=False, cache=cache)
    before = target.stat()
    data = target.read_bytes()
    if where == "first":  # the first prompt
        edited = data.replace(b'"000000', b'"999999', 1)
    else:  # the last message's cost
        cut = data.rindex(b'"total": 0.01')
        edited = data[:cut] + data[cut:].replace(b"0.01", b"0.07", 1)
    assert len(edited) == len(data) and edited != data
    with open(target, "r+b") as fh:
        fh.write(edited)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _cache.stat_key(str(target)) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
        before.st_dev,
    )
    reads = Reads(monkeypatch)
    got = load_corpus(corpus, workers=1, progress=False, cache=cache)
    assert reads.full == ["s.jsonl"]
    pd.testing.assert_frame_equal(got, load_corpus(corpus, workers=1, progress=False))
    assert not got.equals(first)


def test_a_damaged_cache_is_rebuilt(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    cache_file(cache, folder).write_bytes(b"PAR1 not really parquet")
    assert_same(tables(folder, cache), tables(folder, False))
    assert cache_file(cache, folder).stat().st_size > 100


def test_a_fifo_where_the_cache_file_goes_is_replaced_not_waited_on(tmp_path: Path) -> None:
    """A plain open of a FIFO waits for a writer forever; the call runs in a thread so
    that a regression fails here instead of hanging the run."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    branchy(corpus / "branchy.jsonl")
    cache = tmp_path / "cache"
    cache.mkdir()
    os.mkfifo(cache_file(cache, corpus))
    got: list[pd.DataFrame] = []
    with pytest.warns(UserWarning, match=r"not a regular file .* the cache is rebuilt"):
        thread = threading.Thread(
            target=lambda: got.append(load_corpus(corpus, workers=1, progress=False, cache=cache)),
            daemon=True,
        )
        thread.start()
        thread.join(30)
    assert not thread.is_alive(), "load_corpus waited on the FIFO at the cache's path"
    pd.testing.assert_frame_equal(got[0], load_corpus(corpus, workers=1, progress=False))
    assert cache_file(cache, corpus).is_file()  # a regular cache file took its place


@pytest.mark.parametrize("where", ["a file", "below a file"])
def test_a_cache_folder_that_cannot_be_is_an_error_before_any_read(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    cache = blocker if where == "a file" else blocker / "cache"
    reads = Reads(monkeypatch)
    with pytest.raises(OSError, match=r"cannot hold the corpus cache.*cache=False") as error:
        load_corpus(folder, workers=1, progress=False, cache=cache)
    assert str(cache) in str(error.value)
    assert reads.full == []  # said before the work, not after it
    assert blocker.read_text() == "x"


def test_a_cache_that_cannot_be_written_keeps_the_tables(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_cache, "write_store", full_disk)
    with pytest.warns(UserWarning, match=r"was not updated.*No space left.*tables are complete"):
        got = tables(folder, tmp_path / "cache")
    assert_same(got, tables(folder, False))


def test_a_parquet_file_of_another_shape_is_rebuilt(folder: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    cache = tmp_path / "cache"
    cache.mkdir()
    pq.write_table(pa.table({"path": ["x"], "size": [1]}), cache_file(cache, folder))
    assert_same(tables(folder, cache), tables(folder, False))
    assert set(pq.read_schema(cache_file(cache, folder)).names) >= {"mtime_ns", "state"}


def rewrite_cache(cache: Path, change: Any) -> None:
    """The cache file with ``change(table) -> table`` applied (its metadata kept unless
    the change replaces it)."""
    import pyarrow.parquet as pq

    file = only_cache_file(cache)
    pq.write_table(change(pq.read_table(file)), file)


@pytest.mark.parametrize(
    "metadata",
    [
        {b"prime_nb.cache_layout": b"0", b"prime_nb.version": _cache_file.__version__.encode()},
        {
            b"prime_nb.cache_layout": str(_cache_file.CACHE_LAYOUT).encode(),
            b"prime_nb.version": b"0.0.1",
        },
        {},
    ],
    ids=["older layout", "other version", "no metadata"],
)
def test_a_cache_from_another_writer_is_not_trusted(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, metadata: dict[bytes, bytes]
) -> None:
    """Rows summarised by another prime_nb may follow other rules: every file is read
    again, and the cache is rewritten as this version's."""
    cache = tmp_path / "cache"
    want = tables(folder, cache)
    rewrite_cache(cache, lambda table: table.replace_schema_metadata(metadata))
    reads = Reads(monkeypatch)
    assert_same(tables(folder, cache), want)
    assert sorted(set(reads.full)) == sorted(p.name for p in folder.iterdir())
    reads.clear()
    assert_same(tables(folder, cache), want)  # rewritten as this version's: trusted now
    assert reads.full == [] and reads.resumed == []


@pytest.mark.parametrize(
    "column, value",
    [
        ("row", b"{not json"),
        ("row", b"[1, 2]"),
        ("row", None),
        ("compactions", b"{}"),
        ("compactions", None),
        ("branches", b"[3]"),
        ("branches", None),
    ],
)
def test_a_cache_with_a_damaged_record_is_rebuilt(
    folder: Path, tmp_path: Path, column: str, value: bytes
) -> None:
    import pyarrow as pa

    cache = tmp_path / "cache"
    want = tables(folder, cache)

    # a record with rows in that column
    target = str(folder / ("compacted.jsonl" if column == "compactions" else "branchy.jsonl"))

    def damage(table: Any) -> Any:
        paths = [os.fsdecode(p) for p in table["path"].to_pylist()]
        values = table[column].to_pylist()
        values[paths.index(target)] = value
        at = table.schema.get_field_index(column)
        return table.set_column(at, column, pa.array(values, pa.binary()))

    rewrite_cache(cache, damage)
    bump(folder / "large.jsonl")  # the cache is written back before the damage is decoded
    assert_same(tables(folder, cache), want)
    assert_same(tables(folder, cache), want)


def test_the_states_come_from_the_cache_file_that_was_opened(folder: Path, tmp_path: Path) -> None:
    """The records and, later, their states are read through one open file: a cache that
    another call renames over it meanwhile cannot pair one file's records with the
    other's states."""
    cache = tmp_path / "cache"
    tables(folder, cache)
    file = only_cache_file(cache)
    with _cache_file.CacheFile(file) as before:
        before.read_states()
        saved = {path: r.state for path, r in before.records.items()}
    assert sum(state is not None for state in saved.values()) == 3  # not the broken file's
    with _cache_file.CacheFile(file) as opened:
        other = {
            path: _cache_file.Record(r.key, r.offset, r.tail, r.result, b"another state")
            for path, r in opened.records.items()
        }
        _cache_file.write_store(file, other)  # a temporary file renamed over the cache
        opened.read_states()
        assert {path: r.state for path, r in opened.records.items()} == saved
    with _cache_file.CacheFile(file) as reopened:
        reopened.read_states()
        assert {r.state for r in reopened.records.values()} == {b"another state"}


@pytest.mark.parametrize(
    "state",
    [
        "text",
        7,
        b"\x05",
        (10_000).to_bytes(8, "little") + b"not zstd",
        (2**62).to_bytes(8, "little") + b"a length no frame this short could have",
    ],
    ids=["text", "number", "too short", "not a frame", "a length past belief"],
)
def test_a_damaged_state_column_reads_the_grown_file_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: Any
) -> None:
    """A grown file is resumed from its saved state; a state column that turns out
    damaged (read only then) drops the records: the file is read in full instead."""
    import pyarrow as pa

    cache = tmp_path / "cache"
    tables(folder, cache)

    def damage(table: Any) -> Any:
        at = table.schema.get_field_index("state")
        return table.set_column(at, "state", pa.array([state] * len(table)))

    rewrite_cache(cache, damage)
    target = folder / "branchy.jsonl"
    _grow(target, [msg("n1", "r1", "user", "again", 20)])
    bump(target)
    reads = Reads(monkeypatch)
    assert_same(tables(folder, cache), tables(folder, False))
    assert reads.resumed == [] and "branchy.jsonl" in reads.full


@pytest.mark.parametrize("column", ["compactions", "branches"])
def test_research_rows_are_decoded_only_for_their_table(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, column: str
) -> None:
    """Listing the sessions from the cache decodes no research rows: a damaged record
    there costs nothing until its table is asked for, which then reads that file again.
    Rows never decoded are written back as they were when another file changes."""
    import pyarrow as pa

    cache = tmp_path / "cache"
    want = tables(folder, cache)
    target = str(folder / "compacted.jsonl")

    def damage(table: Any) -> Any:
        paths = [os.fsdecode(p) for p in table["path"].to_pylist()]
        values = table[column].to_pylist()
        values[paths.index(target)] = b"{not json"
        at = table.schema.get_field_index(column)
        return table.set_column(at, column, pa.array(values, pa.binary()))

    rewrite_cache(cache, damage)
    reads = Reads(monkeypatch)
    kw: dict[str, Any] = {"workers": 1, "progress": False, "cache": cache}
    pd.testing.assert_frame_equal(load_corpus(folder, **kw), want[0])
    assert reads.full == []
    bump(folder / "branchy.jsonl")  # the cache is written again, the damage still in it
    pd.testing.assert_frame_equal(load_corpus(folder, **kw), want[0])
    assert reads.full == ["branchy.jsonl"]
    reads.clear()
    other = corpus_branches if column == "compactions" else corpus_compactions
    table = corpus_compactions if column == "compactions" else corpus_branches
    pd.testing.assert_frame_equal(other(folder, **kw), want[2 if other is corpus_branches else 1])
    assert reads.full == []  # the other part's rows, kept undecoded, were written back
    pd.testing.assert_frame_equal(
        table(folder, **kw), want[1 if table is corpus_compactions else 2]
    )
    assert reads.full == ["compacted.jsonl"]
    reads.clear()
    assert_same(tables(folder, cache), want)  # read again, cached again
    assert reads.full == []


def test_a_new_and_a_removed_file(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    tables(folder, cache)
    (folder / "large.jsonl").unlink()
    write_lines(folder / "new.jsonl", [header(), msg("a", None, "user", "hi", 1)])
    got = tables(folder, cache)
    assert_same(got, tables(folder, False))
    assert sorted(Path(p).name for p in got[0]["path"]) == [
        "branchy.jsonl",
        "broken.jsonl",
        "compacted.jsonl",
        "new.jsonl",
    ]


def stored_paths(cache: Path, corpus: Path) -> list[str]:
    with _cache_file.CacheFile(cache_file(cache, corpus)) as opened:
        return sorted(Path(p).name for p in opened.records)


def test_each_corpus_has_a_cache_file_of_its_own(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One cache folder (the user's, by default) serves many corpora: listing one reads
    and rewrites its own records, never another corpus's, whatever its size."""
    cache = tmp_path / "cache"
    other = tmp_path / "other"
    other.mkdir()
    write_lines(other / "one.jsonl", [header(), msg("a", None, "user", "hi", 1)])
    want = tables(folder, False)
    tables(folder, cache)
    first = cache_file(cache, folder)
    before = first.stat()
    reads = Reads(monkeypatch)
    assert_same(tables(other, cache), tables(other, False))
    assert reads.full == ["one.jsonl"]  # once: the other two tables find it cached
    after = first.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert stored_paths(cache, other) == ["one.jsonl"]
    assert stored_paths(cache, folder) == sorted(p.name for p in folder.iterdir())
    reads.clear()
    assert_same(tables(folder, cache), want)
    assert reads.full == [] and reads.resumed == []


def test_a_list_of_files_is_cached_for_the_folder_that_holds_them(
    folder: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    paths = sorted(folder.iterdir())
    load_corpus(files=paths, workers=1, progress=False, cache=cache)
    load_corpus(paths[:2], workers=1, progress=False, cache=cache)  # as the first argument
    assert [p.name for p in cache.glob("corpus-*.parquet")] == [cache_file(cache, folder).name]
    assert cache_file(cache, folder).name.startswith("corpus-corpus-")  # the folder's name


def test_a_list_of_folders_is_cached_for_the_folder_that_holds_them(tmp_path: Path) -> None:
    """Named for the folders given, not for the files found in them: a new sub-folder in
    one of them keeps the corpus in its cache file."""
    cache = tmp_path / "cache"
    a, b = tmp_path / "corpora" / "a", tmp_path / "corpora" / "b"
    (a / "x").mkdir(parents=True)
    b.mkdir()
    write_lines(a / "x" / "s.jsonl", [header(), msg("a", None, "user", "hi", 1)])
    write_lines(b / "t.jsonl", [header(), msg("b", None, "user", "yo", 1)])
    load_corpus([a, b], workers=1, progress=False, cache=cache)
    (a / "y").mkdir()
    write_lines(a / "y" / "u.jsonl", [header(), msg("c", None, "user", "hey", 1)])
    got = load_corpus([a, b], workers=1, progress=False, cache=cache)
    assert list(cache.glob("corpus-*.parquet")) == [cache_file(cache, tmp_path / "corpora")]
    assert stored_paths(cache, tmp_path / "corpora") == ["s.jsonl", "t.jsonl", "u.jsonl"]
    assert_same((got,), (load_corpus([a, b], workers=1, progress=False),))


def test_a_new_sub_folder_keeps_the_folder_s_cache_file(folder: Path, tmp_path: Path) -> None:
    """The cache file is named for the folder given, not for the files found in it."""
    cache = tmp_path / "cache"
    nested = tmp_path / "nested"
    (nested / "project-a").mkdir(parents=True)
    write_lines(nested / "project-a" / "s.jsonl", [header(), msg("a", None, "user", "hi", 1)])
    load_corpus(nested, workers=1, progress=False, cache=cache)
    (nested / "project-b").mkdir()
    write_lines(nested / "project-b" / "t.jsonl", [header(), msg("b", None, "user", "yo", 1)])
    load_corpus(nested, workers=1, progress=False, cache=cache)
    assert list(cache.glob("corpus-*.parquet")) == [cache_file(cache, nested)]
    assert stored_paths(cache, nested) == ["s.jsonl", "t.jsonl"]


def test_a_removed_file_leaves_the_cache(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even when nothing else changed; files another pattern listed stay while they
    are there."""
    cache = tmp_path / "cache"
    tables(folder, cache)
    kw: dict[str, Any] = {"workers": 1, "progress": False, "cache": cache}
    load_corpus(folder, "b*.jsonl", **kw)  # lists two of the four files
    assert stored_paths(cache, folder) == sorted(p.name for p in folder.iterdir())
    (folder / "large.jsonl").unlink()
    reads = Reads(monkeypatch)
    assert_same(tables(folder, cache), tables(folder, False))
    assert reads.full == [] and reads.resumed == []
    assert stored_paths(cache, folder) == ["branchy.jsonl", "broken.jsonl", "compacted.jsonl"]
    (folder / "compacted.jsonl").unlink()
    load_corpus(folder, "b*.jsonl", **kw)  # gone, although this call did not list it
    assert stored_paths(cache, folder) == ["branchy.jsonl", "broken.jsonl"]


def test_the_one_cache_file_of_older_versions_is_removed(folder: Path, tmp_path: Path) -> None:
    """Before caches were kept per corpus, a folder held one file for every corpus listed
    with it; nothing reads it now. It goes once a corpus's file is written, if prime_nb
    wrote it: another file of that name stays."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    old = _cache_file.OLD_CACHE_FILE
    pq.write_table(pa.table({"path": [b"x"]}, metadata=_cache_file.WRITER), ours / old)
    pq.write_table(pa.table({"path": [b"x"]}), theirs / old)
    for cache in (ours, theirs):
        load_corpus(folder, workers=1, progress=False, cache=cache)
    assert not (ours / old).exists()
    assert (theirs / old).exists()
    assert cache_file(ours, folder).is_file()


@pytest.mark.parametrize(
    "root",
    ["/", "", "/data/..", "/data/" + "x" * 300, "/data/caf\udce9 \u00e9t\u00e9", "/data/a/b/"],
    ids=["file system root", "none", "dots", "long", "not UTF-8", "trailing slash"],
)
def test_a_cache_file_name_is_one_plain_name_whatever_the_folder(root: str) -> None:
    name = cache_name(root)
    assert name.startswith("corpus-") and name.endswith(".parquet")
    assert len(name) < 80 and os.sep not in name and name.isascii()
    assert not name.startswith(".") and "\0" not in name
    assert cache_name(root + "x") != name  # the digest tells folders apart


def test_two_folders_of_one_name_have_two_cache_files() -> None:
    assert cache_name("/data/a/sessions") != cache_name("/data/b/sessions")
    assert cache_name("/data/a/sessions").split("-")[1] == "sessions"
