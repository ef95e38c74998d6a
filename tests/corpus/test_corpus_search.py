"""corpus.search: the result equals a brute-force scan of every loaded session, with and
without the index, and the index reads only what changed."""

from __future__ import annotations

import json
import os
import re
import sys
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import header, msg, write_lines
from session_matrix import write_all

import prime_nb
from prime_nb.corpus import _search_index, _search_match, search
from prime_nb.corpus._search import COLUMNS
from prime_nb.widget._data import SessionData

KEY = ["file", "session_id", "entry_id", "line", "role", "type", "field", "on_active_path"]

# -- the brute force: prime_nb.load + session.entry over every entry, written apart -------


def _all_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _all_strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _all_strings(item)]
    return []


def _text_blocks(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def brute_fields(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """The fields as search's docstring defines them, spelt out once more."""
    kind = entry.get("type")
    out: list[tuple[str, str]] = []
    if kind == "message" and isinstance(entry.get("message"), dict):
        m = entry["message"]
        role = m.get("role")
        if role == "bashExecution":
            out += [
                ("bash_command", _str(m.get("command"))),
                ("bash_output", _str(m.get("output"))),
            ]
        elif role == "toolResult":
            out.append(("tool_output", _text_blocks(m.get("content"))))
        else:
            out.append(("text", _text_blocks(m.get("content"))))
            blocks = m.get("content") if isinstance(m.get("content"), list) else []
            blocks = [b for b in blocks if isinstance(b, dict)]
            if role == "assistant":
                thinking = [b["thinking"] for b in blocks if b.get("type") == "thinking"]
                out.append(("thinking", "\n".join(t for t in thinking if isinstance(t, str))))
                calls = [
                    s
                    for b in blocks
                    if b.get("type") == "toolCall"
                    for s in _all_strings([b.get("name"), b.get("arguments")])
                ]
                out.append(("tool_args", "\n".join(calls)))
                out.append(("error", _str(m.get("errorMessage"))))
    elif kind == "custom_message":
        out.append(("text", _text_blocks(entry.get("content"))))
    elif kind in ("compaction", "branch_summary"):
        out.append(("summary", _str(entry.get("summary"))))
    elif kind == "agent_status":
        status = entry.get("status")
        out.append(("summary", _str(status.get("summary")) if isinstance(status, dict) else ""))
    elif kind == "label":
        out.append(("label", _str(entry.get("label"))))
    elif kind == "session_info":
        out.append(("label", _str(entry.get("name"))))
    elif kind == "custom":
        out.append(
            ("custom", "\n".join(_all_strings([entry.get("customType"), entry.get("data")])))
        )
    order = list(_search_match.FIELDS)
    return sorted(((f, t) for f, t in out if t), key=lambda pair: order.index(pair[0]))


#: what the brute force reads of one file: its session's id, each entry's id, line, time
#: and whole entry (``session.entry``), and the ids of its active path
Read = tuple[str | None, list[tuple[str, int, Any, dict[str, Any]]], set[str]]


def brute_read(path: Path | str) -> Read | None:
    """One file as the brute force reads it (None: it does not load)."""
    try:
        session = prime_nb.load(path)
    except Exception:
        return None
    table = session.entries
    active = set(session.path()) if len(table) else set()
    entries = [
        (entry_id, int(line), stamp, session.entry(entry_id))
        for entry_id, line, stamp in zip(
            table.index, table["line"], table["timestamp"], strict=True
        )
    ]
    return session.id, entries, active


def brute_force(
    paths: Iterable[Path | str],
    query: str,
    *,
    regex: bool = False,
    case: bool = False,
    roles: set[str] | None = None,
    types: set[str] | None = None,
    fields: set[str] | None = None,
    active_only: bool = False,
    limit: int | None = None,
    read: dict[str, Read | None] | None = None,
) -> pd.DataFrame:
    """Every hit of ``query`` in ``paths``, each file read anew, or taken from ``read``
    (:func:`brute_read` of each path, for files that do not change between searches)."""
    pattern = re.compile(query if regex else re.escape(query), 0 if case else re.IGNORECASE)
    rows: list[dict[str, Any]] = []
    for path in paths:
        loaded = brute_read(path) if read is None else read[str(path)]
        if loaded is None:
            continue
        session_id, entries, active = loaded
        for entry_id, line, stamp, entry in entries:
            message = entry.get("message")
            role = (
                message.get("role")
                if entry["type"] == "message" and isinstance(message, dict)
                else None
            )
            role = role if isinstance(role, str) else None
            for field, text in brute_fields(entry):
                if roles is not None and role not in roles:
                    continue
                if types is not None and entry["type"] not in types:
                    continue
                if fields is not None and field not in fields:
                    continue
                if active_only and entry_id not in active:
                    continue
                found = pattern.search(text)
                if found:
                    rows.append(
                        {
                            "file": str(path),
                            "session_id": session_id,
                            "entry_id": entry_id,
                            "line": line,
                            "role": role,
                            "type": entry["type"],
                            "field": field,
                            "on_active_path": entry_id in active,
                            "timestamp": stamp,
                            "match": found.group(0),
                        }
                    )
    frame = pd.DataFrame(rows, columns=[*KEY, "timestamp", "match"])
    return frame if limit is None else frame.iloc[:limit]


def assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(COLUMNS)
    assert got[KEY].to_dict("records") == want[KEY].to_dict("records")
    got_times = pd.to_datetime(got["timestamp"], utc=True).tolist()
    want_times = pd.to_datetime(want["timestamp"], utc=True).tolist()
    assert [None if pd.isna(t) else t for t in got_times] == [
        None if pd.isna(t) else t for t in want_times
    ]
    for snippet, match in zip(got["snippet"], want["match"], strict=True):
        shown = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", " ", match)
        if len(shown) < 60:  # a long match is cut by the snippet's context
            assert shown in snippet
        assert not re.search(r"[\x00-\x1f\x7f-\x9f]", snippet)


# -- the session matrix --------------------------------------------------------------------


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return list(write_all(tmp_path_factory.mktemp("matrix")).values())


@pytest.fixture(scope="module")
def matrix_read(matrix: list[Path]) -> Iterator[dict[str, Read | None]]:
    """The matrix as the brute force reads it, once for every query: search only reads
    the files (its index goes to each test's own folder), checked by their bytes."""
    read = {str(path): brute_read(path) for path in matrix}
    before = {path: path.read_bytes() for path in matrix}
    yield read
    assert {path: path.read_bytes() for path in matrix} == before


MATRIX_QUERIES: list[dict[str, Any]] = [
    {"query": "the"},
    {"query": "The", "case": True},
    {"query": "e"},
    {"query": "test", "fields": {"tool_args", "tool_output", "bash_command"}},
    {"query": r"\d{3,}", "regex": True},
    {"query": "summary", "types": {"compaction", "branch_summary"}},
    {"query": "a", "roles": {"user"}, "active_only": True},
    {"query": "o", "limit": 17},
]


def query_id(kwargs: dict[str, Any]) -> str:
    """A test id that is the same in every process: a set's order depends on the hash seed,
    which differs between pytest-xdist's workers."""
    return str(
        sorted((k, sorted(v) if isinstance(v, set | frozenset) else v) for k, v in kwargs.items())
    )


@pytest.mark.parametrize("kwargs", MATRIX_QUERIES, ids=lambda k: query_id(k))
def test_search_equals_brute_force_on_the_matrix(
    matrix: list[Path], matrix_read: dict[str, Read | None], kwargs: dict[str, Any], tmp_path: Path
) -> None:
    want = brute_force(matrix, **kwargs, read=matrix_read)
    assert len(want) > 0, "a query that finds nothing proves nothing"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the matrix's unloadable files say so
        got = search(matrix, workers=1, **kwargs)
        cached = search(matrix, workers=1, cache=tmp_path, **kwargs)
    assert_same(got, want)
    assert_same(cached, want)
    pd.testing.assert_frame_equal(got, cached)


# -- a corpus with planted needles ---------------------------------------------------------


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _entry(entry_id: str, parent: str | None, minute: int, **fields: Any) -> dict[str, Any]:
    stamp = f"2026-01-05T10:{minute:02d}:00.000Z"
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}


def _planted(folder: Path) -> list[Path]:
    """Sessions with needles in every field, behind JSON escapes, and hostile lines."""
    folder.mkdir(parents=True, exist_ok=True)
    head = {
        "type": "session",
        "version": 3,
        "id": "s-one",
        "timestamp": "2026-01-05T10:00:00Z",
        "cwd": "/w",
    }
    one = [
        _line(head),
        _line(
            _entry(
                "u1", None, 1, message={"role": "user", "content": "please rm -rf /tmp/x, Größe"}
            )
        ),
        _line(
            _entry(
                "a1",
                "u1",
                2,
                message={
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "I could rm -rf the build"},
                        {"type": "text", "text": "Running it\nrm -rf now"},
                        {
                            "type": "toolCall",
                            "id": "c1",
                            "name": "bash",
                            "arguments": {"command": "rm -rf build", "timeout": 30},
                        },
                    ],
                    "errorMessage": "Error: ENOENT while rm -rf",
                },
            )
        ),
        _line(
            _entry(
                "t1",
                "a1",
                3,
                message={
                    "role": "toolResult",
                    "toolCallId": "c1",
                    "toolName": "bash",
                    "content": [{"type": "text", "text": "Error: ENOENT: no such file"}],
                },
            )
        ),
        # the needle behind escapes: \u006d is "m", \/ is "/", \" and \n inside the text
        '{"type":"message","id":"b1","parentId":"t1","timestamp":"2026-01-05T10:04:00Z",'
        '"message":{"role":"bashExecution","command":"r\\u006d -rf \\/var\\/cache",'
        '"output":"said \\"rm -rf\\" then\\nrm -rf again"}}',
        _line(
            {
                "type": "compaction",
                "id": "c9",
                "parentId": "b1",
                "timestamp": "2026-01-05T10:05:00Z",
                "summary": "We ran rm -rf twice; 日本語 😀 \u212aelvin",
                "firstKeptEntryId": "b1",
                "tokensBefore": 10,
            }
        ),
        _line(
            {
                "type": "label",
                "id": "l1",
                "parentId": "c9",
                "timestamp": "2026-01-05T10:06:00Z",
                "targetId": "u1",
                "label": "rm-rf here",
            }
        ),
        _line(
            {
                "type": "custom",
                "id": "x1",
                "parentId": "l1",
                "timestamp": "2026-01-05T10:07:00Z",
                "customType": "ext",
                "data": {"note": ["rm -rf", {"deep": "ENOENT"}]},
            }
        ),
        # hostile lines: bad JSON, a non-object, NUL, a lone surrogate, a terminal escape
        '{"type":"message","id":"bad", rm -rf',
        "[1, 2, 3]",
        '{"type":"message","id":"h1","parentId":"x1","timestamp":"2026-01-05T10:08:00Z",'
        '"message":{"role":"user","content":'
        '"nul\\u0000rm -rf \\ud800 \\u001b[31mred rm -rf\\u001b[0m"}}',
        # a fork: the next entries leave u1's branch, so the ones above are off the path
        _line(
            _entry("u2", "u1", 9, message={"role": "user", "content": "no rm -rf, Dotless \u0131"})
        ),
        _line(
            {
                "type": "custom_message",
                "id": "cm",
                "parentId": "u2",
                "timestamp": "2026-01-05T10:10:00Z",
                "customType": "n",
                "content": [{"type": "text", "text": "custom rm -rf note"}],
                "display": True,
            }
        ),
        _line(_entry("u1", "cm", 11, message={"role": "user", "content": "duplicate id, rm -rf"})),
    ]
    v1 = [
        _line({"type": "session", "id": "s-v1", "timestamp": "2026-01-05T10:00:00Z", "cwd": "/w"}),
        _line(
            {
                "type": "message",
                "timestamp": "2026-01-05T10:01:00Z",
                "message": {"role": "user", "content": "old file: rm -rf old"},
            }
        ),
        _line(
            {
                "type": "message",
                "timestamp": "2026-01-05T10:02:00Z",
                "message": {"role": "hookMessage", "content": "hook says rm -rf"},
            }
        ),
    ]
    quiet = [
        _line({**head, "id": "s-quiet"}),
        _line(_entry("q1", None, 1, message={"role": "user", "content": "nothing to see"})),
    ]
    paths = []
    for name, lines in (("one", one), ("v1", v1), ("quiet", quiet)):
        path = folder / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        paths.append(path)
    (folder / "not-a-session.jsonl").write_bytes(b"\x00\x01 this is no session rm -rf\n")
    return paths


PLANTED_QUERIES: list[dict[str, Any]] = [
    {"query": "rm -rf"},
    {"query": "rm -rf", "case": True},
    {"query": "RM -RF", "case": True},
    {"query": "rm -rf /var/cache", "case": True},  # behind \u006d and \/
    {"query": 'said "rm', "case": True},  # behind \"
    {"query": "it\nrm", "case": True},  # across a \n
    {"query": "then\nrm -rf", "case": False},
    {"query": r"rm\s+-rf\s+\S+", "regex": True},
    {"query": r"ENOENT", "regex": True, "case": True, "fields": {"error", "tool_output"}},
    {"query": "rm -rf", "roles": {"user"}},
    {"query": "rm -rf", "types": {"custom", "label", "compaction"}},
    {"query": "rm -rf", "active_only": True},
    {"query": "rm -rf", "limit": 3},
    {"query": "rm -rf", "limit": 0},
    {"query": "größe"},
    {"query": "日本語 😀", "case": True},
    {"query": "k"},  # the Kelvin sign matches k under case=False
    {"query": "kelvin"},
    {"query": "Kelvin", "case": True},
    {"query": "dotless i"},  # and dotless i matches i
    {"query": "\x00rm", "case": True},
    {"query": "\ud800", "case": True},
    {"query": "no such needle anywhere"},
    {"query": "rm", "fields": {"bash_command"}},
]


@pytest.mark.parametrize("kwargs", PLANTED_QUERIES, ids=lambda k: ascii(query_id(k)))
def test_search_equals_brute_force_on_planted_needles(
    kwargs: dict[str, Any], tmp_path: Path
) -> None:
    paths = _planted(tmp_path / "corpus")
    want = brute_force(paths, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = search(tmp_path / "corpus", workers=1, **kwargs)
    # the unreadable file is read (and warned of) unless its raw bytes rule the query out
    skips = _search_match.Query(
        kwargs["query"], regex=kwargs.get("regex", False), case=kwargs.get("case", False)
    ).raw_filter
    if skips is None or len(
        skips.marks((tmp_path / "corpus" / "not-a-session.jsonl").read_bytes())
    ):
        assert any("not-a-session.jsonl" in str(w.message) for w in caught)
    with pytest.warns(UserWarning, match="could not be read as sessions"):
        cached = search(tmp_path / "corpus", workers=1, cache=tmp_path / "cache", **kwargs)
    want["file"] = want["file"].map(str)
    assert_same(got, want)
    pd.testing.assert_frame_equal(got, cached)


def test_planted_needles_are_found_where_planted(tmp_path: Path) -> None:
    """The brute force is right too: the hits land on the lines and fields planted."""
    _planted(tmp_path / "corpus")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hits = search(tmp_path / "corpus", "rm -rf", case=True, workers=1)
        escaped = search(tmp_path / "corpus", "rm -rf /var/cache", case=True, workers=1)
    found = set(zip(hits["entry_id"], hits["field"], strict=True))
    assert {("u1", "text"), ("a1", "thinking"), ("a1", "tool_args"), ("a1", "error")} <= found
    assert {("b1", "bash_command"), ("b1", "bash_output"), ("c9", "summary")} <= found
    assert {("x1", "custom"), ("h1", "text"), ("cm", "text")} <= found
    assert "u1@L14" in set(hits["entry_id"])  # the repeated id, renamed as load() does
    assert hits["file"].str.endswith("v1.jsonl").sum() == 2  # v1: derived ids
    assert escaped[["entry_id", "line"]].values.tolist() == [["b1", 5]]
    red = hits[hits["entry_id"] == "h1"]["snippet"].iloc[0]
    assert "\x1b" not in red and "\x00" not in red and "red rm -rf" in red
    assert not hits[hits["entry_id"] == "a1"]["on_active_path"].any()
    assert hits[hits["entry_id"] == "cm"]["on_active_path"].all()


def test_one_schema_for_an_empty_result(tmp_path: Path) -> None:
    paths = _planted(tmp_path / "corpus")
    empty = search(paths[2:3], "rm -rf", workers=1)
    full = search(paths[:1], "rm -rf", workers=1)
    assert empty.empty and list(empty.columns) == list(COLUMNS)
    assert empty.dtypes.to_dict() == full.dtypes.to_dict()
    assert {name: str(dtype) for name, dtype in full.dtypes.items()} == COLUMNS


def test_bad_arguments_say_what_to_pass(tmp_path: Path) -> None:
    paths = _planted(tmp_path / "corpus")
    with pytest.raises(ValueError, match="give the text"):
        search(paths, "")
    with pytest.raises(ValueError, match=r"no valid regex.*regex=False"):
        search(paths, "rm (", regex=True)
    with pytest.raises(ValueError, match="unknown \\['nope'\\]; choose among text"):
        search(paths, "rm", fields="nope")
    with pytest.raises(ValueError, match="limit=-1: pass a whole number"):
        search(paths, "rm", limit=-1)


def test_raw_filter_seeks_what_no_escape_can_hide() -> None:
    """The raw pre-filter seeks the longest part of the literal with no character JSON
    escapes (ASCII only under case=False), for a regex the longest run of literal
    characters every match holds; an ASCII needle with i, k or s reads every non-ASCII
    line."""
    Query, RawFilter = _search_match.Query, _search_match.RawFilter
    assert Query("rm -rf /", case=True).raw_filter == RawFilter(b"rm -rf /", False, True)
    assert Query("Größe", case=True).raw_filter == RawFilter("Größe".encode(), False, False)
    assert Query("RM -RF").raw_filter == RawFilter(b"rm -rf", True, False, False)
    assert Query("Exit").raw_filter == RawFilter(b"exit", True, False, True)
    assert Query("Größe").raw_filter == RawFilter(b"gr", True, False, False)
    assert Query("ö").raw_filter is None
    assert Query('ab"c', case=True).raw_filter == RawFilter(b"ab", False, False)
    assert Query("a\nbc", case=True).raw_filter == RawFilter(b"bc", False, False)
    assert Query("rm", case=True, regex=True).raw_filter == RawFilter(b"rm", False, False)
    assert Query(r"rm\s+-rf\s+\S+", regex=True).raw_filter == RawFilter(b"-rf", True, False)
    assert Query(r"(?i)EXIT \d", regex=True, case=True).raw_filter == RawFilter(
        b"exit ", True, False, True
    )
    assert Query(r"rm|del", regex=True).raw_filter is None  # either may match
    assert Query(r"(rm -rf)?x*", regex=True).raw_filter is None
    exit_filter = Query("exit").raw_filter
    assert exit_filter is not None
    line = b'{"a": "EXIT"}\n{"b": "exot"}\n{"c": "\\u0065xit"}\n{"d": "ex\xc4\xb1t"}\n'
    # not the exot line; the dotless i line once (its first non-ASCII byte), not per byte
    assert exit_filter.marks(line).tolist() == [7, 35, 56]
    error_filter = Query("error").raw_filter
    assert error_filter is not None  # a key is no text: "isError": false holds none
    assert error_filter.marks(b'{"isError": false, "e": "an Error"}').tolist() == [28]


def test_arrow_kernels_decide_only_where_they_match_as_python() -> None:
    """The index trusts ``find_substring`` alone for plain text matched as is, or folded
    when ASCII without an i; otherwise its kernel seeks a literal part it folds as
    Python does (no i, ASCII under case=False) and Python decides."""
    Query = _search_match.Query
    assert Query("rm -rf", case=True).kernel_exact and Query("Größe", case=True).kernel_exact
    assert Query("rm -rf").kernel_exact and Query("KS").kernel_exact  # k, s fold alike
    assert Query("exit").kernel_exact and not Query("größe").kernel_exact
    assert not Query("\x00rm", case=True).kernel_exact and not Query("rm", regex=True).kernel_exact
    assert (
        Query("größe").kernel_literal == "gr"
        and Query("Exit").kernel_literal == r"Ex[iI\x{130}\x{131}]t"
    )
    assert Query("\ud800ab", case=True).kernel_literal == "ab"
    assert Query(r"rm\s+-rf\s+\S+", regex=True).kernel_literal == r"\x{2d}rf"
    assert Query(r"\d+", regex=True).kernel_literal == ""


def test_snippets_cut_in_arrow_equal_python_s(tmp_path: Path) -> None:
    """Hits at the start, the end and every distance around the snippet's context,
    behind characters of 1 to 4 bytes: the index's snippets (cut in Arrow) are the
    uncached search's, character for character."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    lines = [
        _line({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"})
    ]
    parent = None
    for k, (before, after) in enumerate(
        (b, a) for b in (0, 1, 39, 40, 41, 42, 90) for a in (0, 79, 80, 81, 82, 200)
    ):
        filler = "aé日😀\x1b"[k % 5]
        text = filler * before + "NeeDle" + "\u2028é😀b"[k % 4] * after
        lines.append(
            _line(_entry(f"e{k}", parent, k % 50, message={"role": "user", "content": text}))
        )
        parent = f"e{k}"
    (folder / "s.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for kwargs in ({"query": "needle"}, {"query": "NeeDle", "case": True}):
        got = _same_with_and_without(folder, tmp_path / "cache", **kwargs)
        assert len(got) == 42 and got["snippet"].str.contains("NeeDle").all()


def test_the_pool_gives_what_this_process_gives(tmp_path: Path) -> None:
    paths = _planted(tmp_path / "corpus")[:2] * 1
    one = search(paths, "rm -rf", workers=1)
    two = search(paths, "rm -rf", workers=2)
    pd.testing.assert_frame_equal(one, two)


# -- the index -----------------------------------------------------------------------------


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = _search_index.index_file

    def counted(path: str) -> Any:
        read.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(_search_index, "index_file", counted)
    return read


def _same_with_and_without(folder: Path, cache: Path, **kwargs: Any) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = search(folder, workers=1, **kwargs)
        cached = search(folder, workers=1, cache=cache, **kwargs)
    pd.testing.assert_frame_equal(plain, cached)
    return cached


def test_index_reads_only_changed_files_and_stays_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    paths = _planted(folder)
    read = _counting(monkeypatch)
    first = _same_with_and_without(folder, cache, query="rm -rf")
    assert sorted(read) == ["not-a-session.jsonl", "one.jsonl", "quiet.jsonl", "v1.jsonl"]
    assert list(cache.glob("search-corpus-*/*.arrow"))

    read.clear()  # unchanged: nothing is read, whatever the query
    for kwargs in ({"query": "rm -rf"}, {"query": r"ENO\w+", "regex": True}, {"query": "x"}):
        _same_with_and_without(folder, cache, **kwargs)
    assert read == []

    # an append: the file is read again, its new leaf moves the active path
    with open(paths[0], "a", encoding="utf-8") as fh:
        fh.write(
            _line(_entry("z1", "a1", 30, message={"role": "user", "content": "again rm -rf"}))
            + "\n"
        )
    grown = _same_with_and_without(folder, cache, query="rm -rf")
    assert read == ["one.jsonl"]
    assert len(grown) == len(first) + 1
    assert grown[grown["entry_id"] == "a1"]["on_active_path"].all()

    # a rewrite (same path, other content) and a deletion
    read.clear()
    paths[2].write_text(
        _line({"type": "session", "version": 3, "id": "s-q2", "timestamp": "2026-01-05T10:00:00Z"})
        + "\n"
        + _line(_entry("q9", None, 1, message={"role": "user", "content": "now rm -rf too"}))
        + "\n",
        encoding="utf-8",
    )
    paths[1].unlink()
    after = _same_with_and_without(folder, cache, query="rm -rf")
    assert read == ["quiet.jsonl"]
    assert "q9" in set(after["entry_id"]) and not after["file"].str.endswith("v1.jsonl").any()
    index = next(cache.glob("search-corpus-*"))
    held = json.loads((index / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert str(paths[1]) not in held  # the deleted file left the index
    segments = {entry[4] for entry in held.values()}
    assert {p.name for p in index.glob("*.arrow")} == segments - {None}  # old ones gone


def test_index_of_another_version_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    _planted(folder)
    _same_with_and_without(folder, cache, query="rm -rf")
    manifest = next(cache.glob("search-corpus-*/manifest.json"))
    held = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**held, "layout": 0}), encoding="utf-8")
    read = _counting(monkeypatch)
    _same_with_and_without(folder, cache, query="rm -rf")
    assert len(read) == 4


def test_an_index_without_pyarrow_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _planted(tmp_path / "corpus")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"needs pyarrow; install it with: pip install"):
        search(paths[:1], "rm", cache=tmp_path / "cache")


def test_lines_appended_after_the_bytes_read_are_read_from_the_file(tmp_path: Path) -> None:
    """A line past the bytes the search read (appended since) still gives its texts."""
    path = _planted(tmp_path / "corpus")[0]
    whole = _search_match.file_rows(str(path))
    cut = _search_match.file_rows(str(path), data=path.read_bytes()[:200])
    assert len(whole.rows) > 3 and cut == whole


@pytest.mark.parametrize("damage", ["truncate", "delete"])
def test_a_damaged_segment_s_files_are_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    _planted(folder)
    _same_with_and_without(folder, cache, query="rm -rf")
    segment = next(cache.glob("search-corpus-*/*.arrow"))
    manifest = json.loads((segment.parent / "manifest.json").read_text(encoding="utf-8"))
    held = sorted(Path(p).name for p, e in manifest["files"].items() if e[4] == segment.name)
    if damage == "truncate":
        segment.write_bytes(segment.read_bytes()[:100])
    else:
        segment.unlink()
    read = _counting(monkeypatch)
    _same_with_and_without(folder, cache, query="rm -rf")
    assert sorted(read) == held  # the files of that segment, and only them


@pytest.mark.filterwarnings("ignore:search. 1 file")  # the corpus's unreadable file
def test_searches_of_one_index_take_turns(tmp_path: Path) -> None:
    """A search waits while another holds the index (bringing it up to date, or reading
    segments another's clean-up would delete), then answers exactly."""
    import threading

    from filelock import FileLock

    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    _planted(folder)
    want = _same_with_and_without(folder, cache, query="rm -rf")
    index = next(cache.glob("search-corpus-*"))
    got: list[pd.DataFrame] = []
    with FileLock(index / "index.lock"):
        waiting = threading.Thread(
            target=lambda: got.append(search(folder, "rm -rf", workers=1, cache=cache))
        )
        waiting.start()
        waiting.join(timeout=1.0)
        assert waiting.is_alive() and got == []
    waiting.join(timeout=60)
    assert len(got) == 1
    pd.testing.assert_frame_equal(got[0], want)


def test_concurrent_searches_while_files_change_stay_exact(tmp_path: Path) -> None:
    """Searches in four threads, while a file grows between rounds, each equal the search
    without the index."""
    from concurrent.futures import ThreadPoolExecutor

    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    paths = _planted(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(3):
            with open(paths[0], "a", encoding="utf-8") as fh:
                message = {"role": "user", "content": f"round {k}: rm -rf"}
                fh.write(_line(_entry(f"r{k}", "a1", 40 + k, message=message)) + "\n")
            want = search(folder, "rm -rf", workers=1)
            with ThreadPoolExecutor(4) as pool:
                runs = list(
                    pool.map(lambda _: search(folder, "rm -rf", workers=1, cache=cache), range(4))
                )
            for got in runs:
                pd.testing.assert_frame_equal(got, want)


def test_an_image_is_text_for_the_widget_search_but_not_for_the_corpus(tmp_path: Path) -> None:
    """Both searches read a content's text through ``content_text``; the widget shows an
    image as ``[image]`` and finds it so, the corpus searches only what the file wrote."""
    content = [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    content.append({"type": "text", "text": "see the picture"})
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", content=content)])
    assert prime_nb.session.content_text(content) == "[image]\nsee the picture"
    assert prime_nb.session.content_text(content, images=False) == "see the picture"
    assert SessionData(prime_nb.load(path)).search("[image] picture") == [0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hits = search(path, "[image]", workers=1)
        text = search(path, "picture", workers=1)
    assert hits.empty
    assert text["snippet"].tolist() == ["see the picture"]


def test_a_line_full_of_the_query_is_one_mark_not_one_per_match(tmp_path: Path) -> None:
    """The raw filter says which lines to parse: one mark per line that holds the query.
    A text of 100 MB of one letter once made a hundred million marks (a Python int
    each: a minute and gigabytes to search one file for that letter); now each line
    holding it is one mark, and the hits are as before."""
    lines = [
        header(),
        msg("u1", None, "user", "x" * 200_000),
        msg("a1", "u1", "assistant", "none here"),
        msg("u2", "a1", "user", "a \\u0078 and x and x"),
    ]
    path = write_lines(tmp_path / "s.jsonl", lines)
    data = path.read_bytes()
    marks = _search_match.Query("x").raw_filter.marks(data)
    starts = [at for at, line in enumerate(data.split(b"\n")) if b"x" in line]
    assert len(marks) <= 2 * len(starts)  # a needle and an escape at most, per line
    hits = search(path, "x", workers=1)
    assert hits["entry_id"].tolist() == ["u1", "u2"]
    assert hits["snippet"].iloc[0].startswith("x" * 20)
