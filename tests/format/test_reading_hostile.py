"""Hostile files load without raising and report each problem with its line number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.errors import SessionFormatError


def kinds(session: prime_nb.Session) -> list[tuple[int, str]]:
    return list(zip(session.problems["line"], session.problems["kind"], strict=True))


def test_every_bad_line_is_reported_with_its_line(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "bad.jsonl",
        [
            header(),  # 1
            msg("a1", None, "user", "hello"),  # 2
            b"",  # 3 blank
            b"   ",  # 4 blank
            b"{not json",  # 5
            b"[1, 2, 3]",  # 6 not an object
            b'"just a string"',  # 7
            b'{"no_type": true}',  # 8
            b'{"type": 42}',  # 9
            msg("a2", "a1", "assistant", "hi"),  # 10
            b'{"type":"message","id":"a3","parentId":"a2","message":{"role":"user",'
            b'"content":"caf\xe9 bad utf8"}}',  # 11 invalid UTF-8, repaired
            b"\xff\xfe\x00garbage",  # 12 invalid UTF-8 and JSON
            {"type": "future_thing", "id": "f1", "parentId": "a3", "x": 1},  # 13 unknown type
        ],
    )
    with open(path, "ab") as fh:
        fh.write(b'{"type":"message","id":"torn","parentId":"f1","mess')  # 14, torn
    session = prime_nb.load(path)
    assert kinds(session) == [
        (3, "blank_line"),
        (4, "blank_line"),
        (5, "invalid_json"),
        (6, "not_an_object"),
        (7, "not_an_object"),
        (8, "missing_type"),
        (9, "missing_type"),
        (11, "invalid_utf8"),
        (12, "invalid_json"),
        (14, "torn_line"),
    ]
    assert list(session.entries.index) == ["a1", "a2", "a3", "f1"]
    assert session.entries.loc["a3", "text"] == "caf\ufffd bad utf8"
    assert session.entries.loc["f1", "type"] == "future_thing"
    assert session.leaf_id == "f1"
    assert session.path() == ["a1", "a2", "a3", "f1"]


def test_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    lines = [
        json.dumps(header()),
        json.dumps(msg("a1", None, "user", "x")),
        json.dumps(msg("a2", "a1", "assistant", "y")),
    ]
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(x.encode() for x in lines) + b"\r\n")
    session = prime_nb.load(path)
    assert list(session.entries.index) == ["a1", "a2"]
    assert kinds(session) == [(1, "bom")]
    assert session.entry("a2")["message"]["content"][0]["text"] == "y"


def test_tree_problems_duplicates_orphans_self_parents_cycles(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "tree.jsonl",
        [
            header(),  # 1
            msg("r1", None, "user", "root"),  # 2
            msg("r1", None, "user", "dup"),  # 3 duplicate id
            msg("o1", "missing", "user", "orphan"),  # 4 orphan
            msg("s1", "s1", "user", "self"),  # 5 self parent
            msg("c1", "c2", "user", "cycle a", 1),  # 6 cycle c1 -> c2 -> c1
            msg("c2", "c1", "user", "cycle b", 2),  # 7
            msg("k1", "c2", "user", "child of cycle", 3),  # 8
        ],
    )
    session = prime_nb.load(path)
    assert kinds(session) == [(3, "duplicate_id"), (4, "orphan"), (5, "self_parent"), (6, "cycle")]
    entries = session.entries
    assert "r1@L3" in entries.index
    assert entries.loc["c1", "parent_id"] is None or entries["parent_id"].isna()["c1"]
    assert entries.loc["c2", "parent_id"] == "c1"
    assert entries.loc["k1", "depth"] == 2
    assert session.path("k1") == ["c1", "c2", "k1"]
    assert set(session.graph.successors("c2")) == {"k1"}


def test_huge_line(tmp_path: Path) -> None:
    big = "x" * (12 * 1024 * 1024)  # larger than the 4 MiB read chunk
    path = write_lines(
        tmp_path / "huge.jsonl",
        [header(), msg("a1", None, "user", big), msg("a2", "a1", "assistant", "ok")],
    )
    session = prime_nb.load(path)
    assert len(session.problems) == 0
    assert len(session.entries.loc["a1", "text"]) == 300
    assert len(session.entry("a1")["message"]["content"]) == len(big)


@pytest.mark.parametrize("content", [b"", b"\n\n", b"{bad", b"[1]\n{bad\n"])
def test_no_header_raises_one_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "nohead.jsonl"
    path.write_bytes(content)
    with pytest.raises(prime_nb.SessionFormatError, match=r"nohead\.jsonl.*header"):
        prime_nb.load(path)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such session file"):
        prime_nb.load(tmp_path / "nope.jsonl")
    with pytest.raises(prime_nb.SessionFormatError, match="folder"):
        prime_nb.load(tmp_path)


@pytest.mark.parametrize("url", ["s3://bucket/x.jsonl", "gs://b/s.jsonl", "https://h/s.jsonl"])
def test_a_url_is_one_clear_error(url: str) -> None:
    """A URL used to read as a missing local file, its name mangled (``s3:/bucket``)."""
    with pytest.raises(FileNotFoundError, match=rf"^{re.escape(url)}: a URL.*sessions_dask"):
        prime_nb.load(url)
    (row,) = prime_nb.corpus.load_corpus([url], workers=1, progress=False).to_dict("records")
    assert row["path"] == url and f"{url}: a URL" in row["error"]


def test_a_missing_local_name_that_looks_odd_is_still_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such session file"):
        prime_nb.load(tmp_path / "not:a-url.jsonl")


@pytest.mark.parametrize(
    ("module", "kind", "tool"),
    [("gzip", "gzip", "gunzip"), ("bz2", "bzip2", "bunzip2"), ("lzma", "xz", "unxz")],
)
def test_a_compressed_session_says_so(tmp_path: Path, module: str, kind: str, tool: str) -> None:
    """Archived corpora are often compressed: the error names the tool, where 'is this
    a session file?' would leave the reader guessing."""
    import importlib

    plain = write_lines(tmp_path / "s.jsonl", [header(), msg("a1", None, "user", "x")])
    packed = tmp_path / f"s.jsonl.{kind}"
    packed.write_bytes(importlib.import_module(module).compress(plain.read_bytes()))
    said = rf"compressed with {kind}, not a \.jsonl session; decompress it first \({tool}\)"
    with pytest.raises(prime_nb.SessionFormatError, match=said):
        prime_nb.load(packed)
    with pytest.raises(prime_nb.SessionFormatError, match=said):
        prime_nb.append_label(packed, "a1", "kept")
    (row,) = prime_nb.corpus.load_corpus([packed], workers=1, progress=False).to_dict("records")
    assert re.search(said, row["error"])
    assert len(prime_nb.load(plain).entries) == 1


def test_unknown_entry_id_error(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("a1", None, "user", "x")])
    session = prime_nb.load(path)
    with pytest.raises(prime_nb.EntryNotFoundError, match="no entry with id 'zz'"):
        session.context("zz")


def test_iter_entries_streams_with_offsets(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), b"junk", msg("a1", None, "user", "x")])
    problems: list[prime_nb.Problem] = []
    items = list(prime_nb.iter_entries(path, problems))
    assert [(i.line, i.entry["type"]) for i in items] == [(1, "session"), (3, "message")]
    data = path.read_bytes()
    assert data[items[1].offset : items[1].offset + items[1].length].endswith(b"\n")
    assert json.loads(data[items[1].offset : items[1].offset + items[1].length])["id"] == "a1"
    assert [(p.line, p.kind) for p in problems] == [(2, "invalid_json")]


def test_the_header_is_looked_for_in_a_few_short_lines(tmp_path: Path) -> None:
    """``header_object`` skips blank and bad lines before the header, as the loader does,
    within its bound of lines; ``looks_like_session`` looks at the first line alone (a
    writer must not take a file whose first line is not a header for a session), and
    a FIFO is a session for it (never waited on, never overwritten)."""
    import os

    from prime_nb.format import header_object, looks_like_session

    late = write_lines(tmp_path / "late.txt", ["", "not json", header(), msg("a", None, "user")])
    assert header_object(late) == header()
    assert header_object(late, lines=2) is None
    assert not looks_like_session(late)
    first = write_lines(tmp_path / "first.txt", [header()])
    assert looks_like_session(first) and header_object(first, lines=1) == header()
    other = write_lines(tmp_path / "other.txt", [msg("a", None, "user"), header()])
    assert header_object(other) is None and not looks_like_session(other)
    assert header_object(write_lines(tmp_path / "empty.txt", [])) is None
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    assert looks_like_session(fifo)
    with pytest.raises(prime_nb.SessionFormatError, match="not a regular file"):
        header_object(fifo)


SHAPES = {
    "UTF-16 with a BOM": (
        lambda text: text.encode("utf-16"),
        "the file is UTF-16 text, not UTF-8; save it as UTF-8",
    ),
    "UTF-16 without a BOM": (
        lambda text: text.encode("utf-16-le"),
        "the file is UTF-16 text, not UTF-8; save it as UTF-8",
    ),
    "UTF-16, big-endian": (
        lambda text: text.encode("utf-16-be"),
        "the file is UTF-16 text, not UTF-8; save it as UTF-8",
    ),
    "CR line ends": (
        lambda text: text.replace("\n", "\r").encode(),
        "the file's lines end in CR only, not LF; convert them",
    ),
    "only NUL bytes": (lambda text: b"\x00" * 5000, "the file holds only NUL bytes"),
    "empty": (lambda text: b"", "the file is empty; a session file starts with its header"),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_session_text_in_another_shape_says_what_it_is(tmp_path: Path, shape: str) -> None:
    """A session saved as UTF-16 or with CR line ends (an editor's doing), or a file a
    crash left as NUL bytes, holds no JSON line the reader can find; the error says what
    the bytes are and what to do, not only that there is no header."""
    encode, words = SHAPES[shape]
    text = json.dumps(header()) + "\n" + json.dumps(msg("u1", None, "user", "hi")) + "\n"
    path = tmp_path / "s.jsonl"
    path.write_bytes(encode(text))
    with pytest.raises(SessionFormatError, match="no session header: ") as caught:
        prime_nb.load(path)
    assert str(caught.value).startswith(f"{path}: no session header: {words}")
