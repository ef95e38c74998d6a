"""Mutation fuzzing of session files: seeds, mutations, and the check every case must pass.

Shared by ``tests/session/test_fuzz.py`` (hypothesis, a few seconds in CI) and
``benchmarks/fuzz_sessions.py`` (random cases for as long as asked). A case is a seed
session (synthetic sessions of every version and dialect, the matrix's clean session, the
small agent-written fixtures) with a few mutations: odd values at random places in an
entry, lines deleted, repeated, swapped, glued, cut, blank, CRLF, BOM, invalid UTF-8,
lone surrogates, deep nesting, ids repeated and parents pointed anywhere.

:func:`check` loads the result, builds every table, the context at every leaf, the
widget's data and the HTML export, every research table (with its schema), the corpus
pass and the family, writes a label and a message to a copy, and returns the lines that
ended up neither as an entry nor as a reported problem (silent drops): it must be empty.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from schema_checks import mismatches
from session_matrix import FIXTURES, clean_lines, write_lines

import prime_nb
from prime_nb import analysis
from prime_nb.corpus._work import COMPACTIONS, summarise
from prime_nb.errors import (
    EntryNotFoundError,
    InvalidEntryError,
    SessionFormatError,
    TornLineWarning,
    UpgradeRequiredError,
)
from prime_nb.widget import export_html
from prime_nb.widget._data import SessionData
from sessiongen import synthetic_entries

ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**63,
    2**64 - 1,
    -(2**70),
    36893488147419103000,
    1e20,
    1e300,
    0.5,
    "",
    "x",
    "3",
    "2026-13-45T99:99:99Z",
    {},
    [],
    {"a": [1, {"b": None}]},
    [[1], "two", {"three": 3}],
    "🙂" * 3,
    "<script>alert(1)</script>",
]


@cache
def seeds() -> dict[str, bytes]:
    """The seed sessions, as file bytes."""
    out: dict[str, bytes] = {}
    for version in (1, 2, 3):
        for dialect in ("prime", "spec"):
            entries = synthetic_entries(version=version, dialect=dialect, turns=12, forks=2)
            out[f"synthetic-v{version}-{dialect}"] = b"".join(
                orjson.dumps(e) + b"\n" for e in entries
            )
    with tempfile.TemporaryDirectory() as tmp:
        out["clean"] = write_lines(Path(tmp) / "clean.jsonl", list(clean_lines())).read_bytes()
    for path in sorted((FIXTURES / "agent-written").glob("*.jsonl")):
        if path.stat().st_size < 40_000:
            out[f"fixture-{path.stem}"] = path.read_bytes()
    return out


def split(data: bytes) -> list[bytes]:
    """Lines without their newlines (the last one may be torn: no newline after it)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def join(lines: list[bytes], torn: bool = False) -> bytes:
    if not lines:
        return b""
    return b"\n".join(lines) + (b"" if torn else b"\n")


# -- mutations: (lines, a, b) -> lines; a and b pick the places and values ------------------
def _pick(lines: list[bytes], a: int) -> int:
    return a % len(lines) if lines else 0


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside a parsed line (dict keys and list positions)."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((*prefix, key))
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for k, item in enumerate(value[:8]):
            out.append((*prefix, k))
            out.extend(_paths(item, (*prefix, k)))
    return out


def _edit_json(
    lines: list[bytes], a: int, change: Callable[[Any, tuple[Any, ...]], None]
) -> list[bytes]:
    k = _pick(lines, a)
    try:
        obj = json.loads(lines[k])
    except (ValueError, RecursionError):
        return lines
    paths = _paths(obj)
    if not paths:
        return lines
    path = paths[(a // max(len(lines), 1)) % len(paths)]
    change(obj, path)
    lines[k] = json.dumps(obj).encode()
    return lines


def _container(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        obj = obj[key]
    return obj


def set_odd_value(lines: list[bytes], a: int, b: int) -> list[bytes]:
    def change(obj: Any, path: tuple[Any, ...]) -> None:
        _container(obj, path)[path[-1]] = ODD_VALUES[b % len(ODD_VALUES)]

    return _edit_json(lines, a, change)


def delete_key(lines: list[bytes], a: int, b: int) -> list[bytes]:
    def change(obj: Any, path: tuple[Any, ...]) -> None:
        holder = _container(obj, path)
        if isinstance(holder, dict):
            del holder[path[-1]]
        else:
            holder.pop(path[-1])

    return _edit_json(lines, a, change)


def point_parent(lines: list[bytes], a: int, b: int) -> list[bytes]:
    """parentId (or id) set to another line's id, its own, or one that is nowhere."""
    k, other = _pick(lines, a), _pick(lines, b)
    try:
        obj, source = json.loads(lines[k]), json.loads(lines[other])
    except (ValueError, RecursionError):
        return lines
    if not isinstance(obj, dict) or not isinstance(source, dict):
        return lines
    key = "parentId" if b % 3 else "id"
    obj[key] = source.get("id") if b % 5 else f"nowhere-{b}"
    lines[k] = json.dumps(obj).encode()
    return lines


def delete_line(lines: list[bytes], a: int, b: int) -> list[bytes]:
    if len(lines) > 1:
        del lines[1 + a % (len(lines) - 1)]
    return lines


def repeat_line(lines: list[bytes], a: int, b: int) -> list[bytes]:
    k = _pick(lines, a)
    lines.insert(_pick(lines, b), lines[k])
    return lines


def swap_lines(lines: list[bytes], a: int, b: int) -> list[bytes]:
    i, j = _pick(lines, a), _pick(lines, b)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def glue_lines(lines: list[bytes], a: int, b: int) -> list[bytes]:
    k = _pick(lines, a)
    if k + 1 < len(lines):
        lines[k : k + 2] = [lines[k] + lines[k + 1]]
    return lines


def cut_line(lines: list[bytes], a: int, b: int) -> list[bytes]:
    k = _pick(lines, a)
    lines[k] = lines[k][: b % (len(lines[k]) + 1)]
    return lines


def raw_bytes(lines: list[bytes], a: int, b: int) -> list[bytes]:
    """Blank lines, CR, a BOM, invalid UTF-8, NUL, a lone surrogate escape, deep nesting,
    numbers past 64 bits and past a double."""
    k = _pick(lines, a)
    line = lines[k]
    at = b % (len(line) + 1)
    choice = b % 10
    if choice == 0:
        lines.insert(k, b"   ")
    elif choice == 1:
        lines[k] = line + b"\r"
    elif choice == 2:
        lines[k] = b"\xef\xbb\xbf" + line
    elif choice == 3:
        lines[k] = line[:at] + b"\xff\xfe" + line[at:]
    elif choice == 4:
        lines[k] = line[:at] + b"\x00" + line[at:]
    elif choice == 5 and b'"' in line:
        q = line.index(b'"', min(at, len(line) - 1)) if b'"' in line[at:] else line.index(b'"')
        lines[k] = line[: q + 1] + b"\\ud83d" + line[q + 1 :]
    elif choice == 6 and line.endswith(b"}"):
        depth = 100 + b % 1200
        lines[k] = line[:-1] + b', "deep": ' + b"[" * depth + b"]" * depth + b"}"
    elif choice == 7:
        lines[k] = line.replace(b":", b":" + str(2**64 + b).encode() + b',"z":', 1)
    elif choice == 8:
        lines[k] = line.replace(b":", b':-1e400,"z":', 1)
    else:
        lines.append(b"")  # an empty last line
    return lines


#: secrets for redaction to replace, beside a lone surrogate and as a key: a value
#: redaction changes is written anew, where one it keeps is copied
SECRET_VALUES: list[Any] = [
    "password=hunter2xyz",
    "password=hunter2xyz \ud83d tail",
    {"\udc00 key": "token ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8"},
    ["\ud800", "api_key=Zq8vN2xL5pT7rWk3J9mB"],
]


def plant_secret(lines: list[bytes], a: int, b: int) -> list[bytes]:
    def change(obj: Any, path: tuple[Any, ...]) -> None:
        _container(obj, path)[path[-1]] = SECRET_VALUES[b % len(SECRET_VALUES)]

    return _edit_json(lines, a, change)


MUTATIONS: list[Callable[[list[bytes], int, int], list[bytes]]] = [
    set_odd_value,
    set_odd_value,
    set_odd_value,
    delete_key,
    point_parent,
    delete_line,
    repeat_line,
    swap_lines,
    glue_lines,
    cut_line,
    raw_bytes,
    raw_bytes,
    plant_secret,  # last: the indexes above are those of the examples found
]


def mutate(seed: bytes, ops: list[tuple[int, int, int]], torn: bool = False) -> bytes:
    """``seed`` with each (mutation index, a, b) applied in turn; ``torn``: no last newline."""
    lines = split(seed)
    for which, a, b in ops:
        lines = MUTATIONS[which % len(MUTATIONS)](lines, a, b)
    return join(lines, torn)


# -- the check -------------------------------------------------------------------------------
class Refused(Exception):
    """The file has no header: load() refuses it by design (a SessionFormatError)."""


def check(path: Path, out_dir: Path) -> list[int]:
    """Run everything on ``path``; return the line numbers silently dropped.

    Raises :class:`Refused` when the file has no session header (load's documented
    refusal); any other exception is a crash and propagates.
    """
    try:
        session = prime_nb.load(path)
    except SessionFormatError as exc:
        raise Refused(str(exc)) from exc
    for table in ("entries", "messages", "tool_calls", "compactions", "leaves", "problems"):
        getattr(session, table)
    session.graph  # noqa: B018
    session.summary()
    session.labels  # noqa: B018
    for leaf in session.leaves.index:
        session.context(leaf)
    data = SessionData(session)
    data.tree()
    data.sparse()
    for index in range(data.n):
        orjson.dumps(data.answer({"what": "entry", "index": index}))
        orjson.dumps(data.answer({"what": "context", "index": index}))
    data.answer({"what": "search", "query": "a"})
    export_html(session, out_dir / "fuzz.html")
    check_research(path, session)
    check_writes(path, session, out_dir)
    return silent_drops(path, session)


def research_tables(session: prime_nb.Session) -> dict[str, Any]:
    """Every research table of ``session``, by its schema's name (``compare``: its first
    and last leaves, when it has leaves)."""
    leaves = list(session.leaves.index)
    tables = {
        "compaction_forensics": analysis.compaction_forensics(session),
        "branches": analysis.branches(session),
        "fork_points": analysis.fork_points(session),
        "branch_segments": analysis.branch_segments(session),
        "context_frame": analysis.context_frame(session),
        "compaction_retention": analysis.compaction_retention(session),
        "compaction_retention_detail": analysis.compaction_retention(session, detail=True),
    }
    if leaves:
        compared = analysis.compare(session, leaves[0], leaves[-1])
        tables["compare"] = compared.frame
        tables["compare_turns"] = compared.turns
    return tables


def check_research(path: Path, session: prime_nb.Session) -> None:
    """The layers above load: every research table with its schema, the corpus pass
    finding the same rows, and the file's family loading it."""
    tables = research_tables(session)
    for name, table in tables.items():
        assert mismatches(name, table) == [], name
    found = summarise(str(path))
    assert found.row.get("error") is None, found.row.get("error")
    assert len(found.compactions) == len(tables["compaction_forensics"])
    assert len(found.branches) == len(tables["branches"])
    only = summarise(str(path), (COMPACTIONS,))  # a file its bytes rule out is not parsed
    assert [r["id"] for r in only.compactions] == [r["id"] for r in found.compactions]
    family = prime_nb.load_family(path)
    assert family.problems.query("kind == 'load_error'").empty, family.problems
    family.sessions  # noqa: B018


def check_writes(path: Path, session: prime_nb.Session, out_dir: Path) -> None:
    """A label and a message at the last leaf of a copy: the old bytes stay and the copy
    loads with both, or a clear refusal writes nothing."""
    copy = out_dir / "fuzz-write.jsonl"
    copy.write_bytes(path.read_bytes())
    before = copy.read_bytes()
    leaves = list(session.leaves.index)
    leaf = leaves[-1] if leaves else None
    target = prime_nb.load(copy)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TornLineWarning)  # a torn tail says so
            target.append_label(leaf, "fuzz", fsync=False)
            target.append_message(leaf, {"role": "user", "content": "again"}, fsync=False)
    except (UpgradeRequiredError, InvalidEntryError):
        assert copy.read_bytes() == before
        return
    except SessionFormatError as error:  # no header: the agent reads nothing, nor do we write
        assert "not the session header" in str(error) and copy.read_bytes() == before
        return
    except EntryNotFoundError as error:  # a name the loader made up: said so
        assert "loader's name" in str(error) and copy.read_bytes() == before
        return
    assert copy.read_bytes().startswith(before)
    assert len(prime_nb.load(copy)) == len(session) + 2


def silent_drops(path: Path, session: prime_nb.Session) -> list[int]:
    """Lines that are neither an entry, the header, nor the line of a reported problem."""
    data = path.read_bytes()
    lines = split(data)
    count = len(lines)
    if lines and not data.endswith(b"\n") and not lines[-1].strip():
        count -= 1  # blanks with no newline yet: a line still being written, read later
    entries = set(session.entries["line"].tolist())
    problems = set(session.problems["line"].tolist())
    header = min((n for n in range(1, count + 1) if n not in problems), default=0)
    return [
        n for n in range(1, count + 1) if n not in entries and n not in problems and n != header
    ]
