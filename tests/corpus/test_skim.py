"""The byte skim that lets ``corpus_compactions`` leave files unparsed: never wrong.

A file it rules out must hold no compaction however the type is written (escapes, a
word across the skim's blocks, odd lines the loader repairs), and the table must equal
the one parsing every file gives.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import header, msg, write_lines
from hypothesis import given, settings
from hypothesis import strategies as st
from research_sessions import branchy, compacted
from test_summary import full_tables, session_matrix

from prime_nb.analysis import compaction_forensics
from prime_nb.corpus import _skim, corpus_compactions
from prime_nb.corpus._local import RESEARCH_DTYPES, conform, empty
from prime_nb.corpus._skim import may_hold_compaction
from prime_nb.corpus._work import BRANCHES, COMPACTIONS, ROW, summarise
from prime_nb.session import load


def compaction(entry_id: str, parent: str, kept: str) -> dict[str, object]:
    return {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:09.000Z",
        "summary": "what happened",
        "firstKeptEntryId": kept,
        "tokensBefore": 1000,
    }


def with_compaction(path: Path, spelled: bytes = b'"compaction"') -> Path:
    """A session with one compaction whose type is written as ``spelled``."""
    line = json.dumps(compaction("c", "b", "b")).encode().replace(b'"compaction"', spelled)
    return write_lines(
        path,
        [header(), msg("a", None, "user", "hi", 1), msg("b", "a", "assistant", "ok", 2), line],
    )


def test_every_file_of_the_matrix_with_a_compaction_is_kept(tmp_path: Path) -> None:
    from session_matrix import CASES, write_case

    paths = [*session_matrix(tmp_path / "m"), *(write_case(n, tmp_path / "c") for n in CASES)]
    kept = skipped = 0
    for path in paths:
        try:
            count = len(load(path).compactions)
        except Exception:  # not a session: the pass gives it no rows either way
            continue
        if count:
            assert may_hold_compaction(path), path
            kept += 1
        elif not may_hold_compaction(path):
            skipped += 1
    assert kept >= 5 and skipped >= 20  # the matrix exercises both answers


@pytest.mark.parametrize(
    "spelled",
    [
        b'"\\u0063ompaction"',  # each letter may be an escape, in either case of hex digit
        b'"compactio\\u006e"',
        b'"comp\\u0061ction"',
        b'"c\\u006Fmpaction"',
        b'"\\u0063\\u006f\\u006d\\u0070\\u0061\\u0063\\u0074\\u0069\\u006f\\u006e"',
    ],
)
def test_a_type_written_with_escapes_is_found(tmp_path: Path, spelled: bytes) -> None:
    path = with_compaction(tmp_path / "escaped.jsonl", spelled)
    assert b"compaction" not in path.read_bytes()
    assert len(load(path).compactions) == 1  # the loader reads it as a compaction
    assert may_hold_compaction(path)
    table = corpus_compactions(files=[path], workers=1, progress=False)
    assert table["id"].tolist() == ["c"]


def test_a_word_across_two_blocks_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_skim, "BLOCK", 16)
    for needle in (b"compaction", b"\\u0063"):
        for before in range(40):
            path = tmp_path / f"seam-{before}.jsonl"
            path.write_bytes(b"x" * before + needle + b"y" * 30)
            assert may_hold_compaction(path), (needle, before)
    path.write_bytes(b"compactio\\u0043 comp action \\u0080" * 7)  # near misses only
    assert not may_hold_compaction(path)


#: bytes of the word, of its escapes and of near misses, so that random strings of them
#: hold matches, partial matches and matches across the blocks' seams
PIECES = [b"compaction", b"compactio", b"ompaction", b"c", b"p", b"t", b"n", b"\\u0063"]
PIECES += [b"\\u006", b"\\u007", b"\\u0043", b"\\u0080", b"\\", b"u", b"0", b"6", b"7", b"x"]


@settings(max_examples=300, deadline=None, database=None)
@given(
    parts=st.lists(st.sampled_from(PIECES), max_size=40),
    block=st.integers(min_value=1, max_value=48),
)
def test_the_skim_answers_as_a_plain_search_does(
    tmp_path_factory: pytest.TempPathFactory, parts: list[bytes], block: int
) -> None:
    """numpy's first look at fixed offsets must never rule out what the plain search of
    the whole file finds, at any block size (the word or an escape across a seam)."""
    data = b"".join(parts)
    path = tmp_path_factory.getbasetemp() / "skim-property.jsonl"
    path.write_bytes(data)
    saved = _skim.BLOCK
    _skim.BLOCK = block
    try:
        got = may_hold_compaction(path)
    finally:
        _skim.BLOCK = saved
    assert got == (b"compaction" in data or re.search(rb"\\u00[67]", data) is not None)


def test_threads_skim_side_by_side_with_buffers_of_their_own(tmp_path: Path) -> None:
    """Each thread reads into its own block buffer: skims running at once in threads
    (a threaded Dask scheduler, say) give each file its own answer."""
    from concurrent.futures import ThreadPoolExecutor

    paths = []
    for k in range(40):
        path = tmp_path / f"t{k}.jsonl"
        word = b"compaction" if k % 3 == 0 else b"compact ion"
        path.write_bytes(b"x" * (k * 7919 % 300_000) + word + b"y" * (k * 104_729 % 200_000))
        paths.append(path)
    want = [k % 3 == 0 for k in range(40)]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(5):
            assert list(pool.map(may_hold_compaction, paths)) == want


def test_what_cannot_be_read_is_left_to_the_pass(tmp_path: Path) -> None:
    assert may_hold_compaction(tmp_path / "missing.jsonl")
    assert may_hold_compaction(tmp_path)  # a folder
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.jsonl"
        os.mkfifo(fifo)
        assert may_hold_compaction(fifo)  # refused without blocking
        row = summarise(str(fifo), (COMPACTIONS,)).row
        assert "not a regular file" in row["error"]


def test_a_skimmed_file_gives_an_unparsed_row_only_for_the_compactions(tmp_path: Path) -> None:
    path = branchy(tmp_path / "branchy.jsonl")
    assert not may_hold_compaction(path)
    only = summarise(str(path), (COMPACTIONS,))
    assert only.row == {"path": str(path), "error": None, "unparsed": True}
    assert only.compactions == [] and only.branches == []
    both = summarise(str(path), (ROW, COMPACTIONS))  # the row asked for too: parsed
    assert both.row["entries"] == 10 and "unparsed" not in both.row
    branches = summarise(str(path), (BRANCHES,))  # parsed: its row has the figures
    assert branches.row["problems"] == 0 and "unparsed" not in branches.row
    assert len(branches.branches) == 2


def test_the_table_equals_parsing_every_file(tmp_path: Path) -> None:
    paths = [
        branchy(tmp_path / "branchy.jsonl"),
        compacted(tmp_path / "compacted.jsonl"),
        with_compaction(tmp_path / "escaped.jsonl", b'"\\u0063ompaction"'),
        with_compaction(tmp_path / "plain.jsonl"),
    ]
    (tmp_path / "mentions.jsonl").write_bytes(  # the word in a message only: parsed, no rows
        json.dumps(header()).encode()
        + b"\n"
        + json.dumps(msg("a", None, "user", "what is compaction?", 1)).encode()
        + b"\n"
    )
    paths.append(tmp_path / "mentions.jsonl")
    for workers in (1, 2):
        got = corpus_compactions(files=paths, workers=workers, progress=False)
        want = conform(
            pd.concat([f for f, _ in map(full_tables, map(str, paths)) if len(f)]),
            empty(RESEARCH_DTYPES[COMPACTIONS]),
        ).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want)
    assert len(got) == len(compaction_forensics(load(paths[1]))) + 2


def test_the_final_line_says_which_files_were_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [branchy(tmp_path / "a.jsonl"), compacted(tmp_path / "b.jsonl")]
    corpus_compactions(files=paths, workers=1, progress=True)
    final = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.search(
        r"^2 files, .* MB/s\), 0 problems, 0 files unreadable in the 1 file parsed; "
        r"1 held no compaction$",
        final,
    ), final
    corpus_compactions(files=paths[:1], workers=1, progress=True)
    final = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.search(r"^1 file, .* MB/s\), 1 held no compaction$", final), final
