"""The session matrix: every shape of session the public functions must survive.

Reusable by any test (and by ``benchmarks/fuzz_sessions.py``): ``CASES`` names every
session, ``write_case(name, folder)`` writes one and returns its path, ``shared_file(name)``
returns one written once per process (read-only: for tests that only read it). It holds

- ``synthetic-*``: :func:`sessiongen.synthetic_session` for every version (1-3) and
  dialect, with no fork, one fork and many forks (version 1 is linear);
- ``comp-*``: sessions with 0, 1, 2 and many compactions on the active path and 0, 1 or
  several on side branches, with no, one or many forks, in every version and dialect
  that can hold them;
- ``fixture-*``: every file in ``tests/fixtures``, ``agent-written/`` included;
- ``empty-*``: a header and nothing else;
- ``odd-*``: a clean session with one hostile line (odd values, bad lines, bad ids).

Nothing here imports ``conftest``, so scripts outside pytest can use it too.
"""

from __future__ import annotations

import atexit
import json
import random
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessiongen import synthetic_session, write_jsonl
from sessiongen._core import Builder, Converter
from sessiongen._large import SMALL, Story, Texts

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CWD = "/home/dev/projects/matrix"


class Torn(bytes):
    """A last line written without its newline (a writer still at work)."""


Lines = list[dict[str, Any] | str | bytes]


# -- synthetic -------------------------------------------------------------------------------
def _synthetic_names() -> list[str]:
    out = []
    for version in (1, 2, 3):
        for dialect in ("prime", "spec"):
            for forks in (0,) if version == 1 else (0, 1, 5):
                out.append(f"synthetic-v{version}-{dialect}-forks{forks}")
    return out


def _write_synthetic(name: str, path: Path) -> Path:
    _, v, dialect, forks = name.split("-")
    return synthetic_session(path, version=int(v[1:]), dialect=dialect, forks=int(forks[5:]))


# -- compaction variants ---------------------------------------------------------------------
#: (compactions on the active path, compactions on side branches, further forks)
SHAPES = [(0, 0, 0), (1, 0, 0), (2, 0, 1), (8, 0, 0), (0, 1, 0), (1, 1, 1), (0, 3, 3), (2, 2, 6)]


def _comp_names() -> list[str]:
    out = []
    for on, off, forks in SHAPES:
        for version in (1, 2, 3):
            for dialect in ("prime", "spec"):
                if version == 1 and (off or forks):
                    continue  # version 1 is one chain: no side branches
                if version == 2 and dialect == "spec" and (on, off) not in ((1, 1), (2, 2)):
                    continue  # keep the matrix small: v2 spec once with each kind
                out.append(f"comp-on{on}-off{off}-forks{forks}-v{version}-{dialect}")
    return out


def compaction_entries(
    on: int, off: int, forks: int, version: int = 3, dialect: str = "prime", seed: int = 0
) -> list[dict[str, Any]]:
    """A session with ``on`` compactions on the active path, ``off`` on side branches and
    ``forks`` further plain side branches; the active leaf is the last line."""
    rng = random.Random(seed)
    b = Builder(rng, cwd=CWD)
    conv = Converter(version, dialect, b.new_id)
    s = Story(b, Texts(rng, SMALL), cwd=CWD)
    for t in range(2 + 2 * on):
        if t >= 2 and t % 2 == 0:
            s.compact()
        s.main_turn()
    for j in range(off if version > 1 else 0):
        s.side(s.safe[j % len(s.safe)], 2, compaction=True)
    for k in range(forks if version > 1 else 0):
        pool = [*s.old_safe, *s.safe]
        s.side(pool[(k * 7) % len(pool)], 1 + k % 2)
    s.main_turn()
    header = conv.header(b.header, provider="anthropic", model=b.model, thinking="off")
    return [header, *(x for e in b.out for x in conv.convert(e))]


def _write_comp(name: str, path: Path) -> Path:
    _, on, off, forks, version, dialect = name.split("-")
    entries = compaction_entries(
        int(on[2:]), int(off[3:]), int(forks[5:]), int(version[1:]), dialect
    )
    return write_jsonl(path, entries)


# -- fixtures and empty sessions -------------------------------------------------------------
def _fixture_files() -> dict[str, Path]:
    if not FIXTURES.is_dir():
        raise FileNotFoundError(f"{FIXTURES}: the fixtures are checked in; restore tests/fixtures")
    return {
        "fixture-" + str(p.relative_to(FIXTURES)).replace("/", "--"): p
        for p in sorted(FIXTURES.rglob("*.jsonl"))
    }


EMPTY_HEADERS: dict[str, dict[str, Any]] = {
    "empty-v3-prime": {"type": "session", "version": 3, "id": "e3", "cwd": CWD},
    "empty-v2-prime": {"type": "session", "version": 2, "id": "e2", "cwd": CWD},
    "empty-v1-prime": {"type": "session", "id": "e1", "cwd": CWD, "provider": "anthropic"},
    "empty-v3-spec": {"type": "header", "version": 3, "id": "s3", "workingDir": CWD},
    "empty-v1-spec": {"type": "header", "id": "s1", "workingDir": CWD, "timestamp": 0},
}


# -- one odd line in a clean session ---------------------------------------------------------
def _usage(total: int = 15) -> dict[str, Any]:
    return {
        "input": 10,
        "output": 5,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"total": 0.01},
    }


def _message(entry_id: str, parent: str | None, minute: int, **message: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-01-05T10:{minute:02d}:00.000Z",
        "message": {"timestamp": 1767607200000 + minute * 60_000, **message},
    }


def clean_lines() -> list[dict[str, Any]]:
    """A small clean v3 session: a tool call, a compaction, a fork; lines 1-11."""
    call = {"type": "toolCall", "id": "k1", "name": "read", "arguments": {"path": "src/a.py"}}
    return [
        {"type": "session", "version": 3, "id": "odd", "timestamp": "2026-01-05T10:00:00Z"}
        | {"cwd": CWD},
        _message("u1", None, 1, role="user", content="hello"),
        _message(
            "a1",
            "u1",
            2,
            role="assistant",
            content=[{"type": "text", "text": "reading"}, call],
            provider="anthropic",
            model="claude-x",
            stopReason="toolUse",
            usage=_usage(),
        ),
        _message(
            "t1",
            "a1",
            3,
            role="toolResult",
            toolCallId="k1",
            toolName="read",
            content=[{"type": "text", "text": "print(1)"}],
            isError=False,
        ),
        _message(
            "a2",
            "t1",
            4,
            role="assistant",
            content=[{"type": "text", "text": "done"}],
            provider="anthropic",
            model="claude-x",
            stopReason="stop",
            usage=_usage(),
        ),
        _message("u2", "a2", 5, role="user", content="more"),
        _message(
            "a3",
            "u2",
            6,
            role="assistant",
            content=[{"type": "text", "text": "ok"}],
            provider="anthropic",
            model="claude-x",
            stopReason="stop",
            usage=_usage(),
        ),
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "a3",
            "timestamp": "2026-01-05T10:07:00.000Z",
            "summary": "the story so far",
            "firstKeptEntryId": "u2",
            "tokensBefore": 1000,
            "details": {"readFiles": ["src/a.py"], "modifiedFiles": []},
        },
        _message("u3", "c1", 8, role="user", content="again"),
        _message("x1", "a2", 9, role="user", content="a side branch"),
        _message(
            "a4",
            "u3",
            10,
            role="assistant",
            content=[{"type": "text", "text": "fine"}],
            provider="anthropic",
            model="claude-x",
            stopReason="stop",
            usage=_usage(),
        ),
    ]


def _set(line: int, *path: Any) -> Callable[[Lines], Lines]:
    """Set ``entry[path[0]]...[path[-2]] = path[-1]`` on 1-based ``line``."""

    def edit(lines: Lines) -> Lines:
        target = lines[line - 1]
        assert isinstance(target, dict)
        for key in path[:-2]:
            target = target[key]
        target[path[-2]] = path[-1]
        return lines

    return edit


def _replace_line(line: int, text: str | bytes) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[line - 1] = text
        return lines

    return edit


def _insert(line: int, *new: dict[str, Any] | str | bytes) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[line - 1 : line - 1] = list(new)
        return lines

    return edit


def _raw(line: int, old: str, new: str) -> Callable[[Lines], Lines]:
    """Replace text in the JSON of ``line`` (for what json.dumps cannot write)."""

    def edit(lines: Lines) -> Lines:
        text = json.dumps(lines[line - 1])
        assert old in text, (old, text)
        lines[line - 1] = text.replace(old, new)
        return lines

    return edit


def _deep(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


ODD: dict[str, Callable[[Lines], Lines]] = {
    # one odd value must never break a table
    "stop-reason-dict": _set(5, "message", "stopReason", {}),
    "stop-reason-list": _set(5, "message", "stopReason", []),
    "stop-reason-number": _set(5, "message", "stopReason", 7),
    "usage-2-63": _set(5, "message", "usage", "input", 2**63),
    "usage-u64-max": _set(5, "message", "usage", "totalTokens", 2**64 - 1),
    "usage-node-2-65": _raw(5, '"output": 5', '"output": 36893488147419103000'),
    "usage-sum-past-int64": _set(
        5,
        "message",
        "usage",
        {"input": 2**62, "output": 2**62, "cacheRead": 2**62, "cacheWrite": 2**62},
    ),
    "usage-negative": _set(5, "message", "usage", "input", -(2**70)),
    # a provider billed a negative count (seen in a real file): kept as written
    "usage-below-zero": _set(5, "message", "usage", "input", -154),
    "usage-not-numbers": _set(5, "message", "usage", {"input": "10", "cost": "free"}),
    "tokens-before-u64": _set(8, "tokensBefore", 2**64 - 1),
    "tokens-after-huge": _set(8, "tokensAfter", 1e300),
    "timestamp-1e20": _set(5, "timestamp", 1e20),
    "timestamp-2-63": _set(5, "timestamp", 2**63),
    "timestamp-message-2-63": _set(6, "message", "timestamp", -(2**63)),
    "timestamp-garbage": _set(5, "timestamp", "yesterday"),
    "tool-call-id-object": _set(3, "message", "content", 1, "id", {"a": 1}),
    "tool-call-id-list": _set(3, "message", "content", 1, "id", [1, 2]),
    "tool-call-args-string": _set(3, "message", "content", 1, "arguments", "{not json"),
    "tool-result-id-list": _set(4, "message", "toolCallId", ["k1"]),
    "first-kept-object": _set(8, "firstKeptEntryId", {"id": "u2"}),
    "first-kept-list": _set(8, "firstKeptEntryId", ["u2"]),
    "first-kept-missing-id": _set(8, "firstKeptEntryId", "nope"),
    "summary-number": _set(8, "summary", 42),
    "details-list": _set(8, "details", [1, 2]),
    "content-dict": _set(6, "message", "content", {"text": "x"}),
    "role-number": _set(6, "message", "role", 5),
    "message-string": _set(6, "message", "just text"),
    "model-list": _set(5, "message", "model", ["a"]),
    "label-target-dict": _insert(
        11, {"type": "label", "id": "l1", "parentId": "u3", "targetId": {}, "label": []}
    ),
    "name-number": _insert(11, {"type": "session_info", "id": "n1", "parentId": "u3", "name": 5}),
    "child-usage-self": _insert(
        11,
        {
            "type": "child_usage_attributed",
            "id": "cu1",
            "parentId": "u3",
            "targetId": "cu1",
            "aggregateUsage": _usage(99),
        },
    ),
    "child-usage-odd-fields": _insert(
        12,
        {
            "type": "child_usage_attributed",
            "id": "cu2",
            "parentId": "a4",
            "targetId": "a4",
            "childUsage": {"input": 2**64, "output": None, "cost": {"total": 0.01}},
            "aggregateUsage": _usage(99),
        },
    ),
    # lines the agent reads must not be dropped
    "lone-surrogate": _raw(6, '"content": "more"', '"content": "emoji cut \\ud83d"'),
    "lone-low-surrogate-key": _raw(6, '"content": "more"', '"content": "x", "\\udc00": 1'),
    "lone-surrogate-big-int": _raw(
        6, '"content": "more"', '"content": "cut \\ud83d", "n": 1180591620717411303424'
    ),
    "numbers-past-double": _raw(
        5, '"output": 5', '"output": 1e400, "n": -1' + "0" * 400 + ', "s": "\\udc00"'
    ),
    "deep-details": _raw(8, '"modifiedFiles": []', f'"modifiedFiles": {_deep(260)}'),
    # deeper than orjson writes, shallower than it reads: kept by the scan as it is
    "deep-read-arguments": _raw(
        3,
        '"arguments": {"path": "src/a.py"}',
        f'"arguments": {{"path": "src/a.py", "deep": {_deep(300)}}}',
    ),
    "deep-nesting": _raw(
        3, '"arguments": {"path": "src/a.py"}', f'"arguments": {{"deep": {_deep(1500)}}}'
    ),
    "parent-id-number": _set(6, "parentId", 42),
    "parent-id-dict": _set(6, "parentId", {}),
    "parent-id-list": _set(6, "parentId", []),
    "parent-id-true": _set(6, "parentId", True),
    "header-timestamp-1e308": _set(1, "timestamp", 1e308),
    "header-timestamp-dict": _set(1, "timestamp", {"when": "now"}),
    "header-cwd-dict": _set(1, "cwd", {"path": "/x"}),
    "header-id-number": _set(1, "id", 7),
    "header-parent-session-list": _set(1, "parentSession", ["a"]),
    "header-rlm-depth-2-63": _set(1, "rlmDepth", 2**63),
    "assistant-content-number": _set(5, "message", "content", 1.5),
    "user-content-true": _set(6, "message", "content", True),
    "version-string": _set(1, "version", "3"),
    "version-float": _set(1, "version", 3.0),
    "version-garbage": _set(1, "version", "three"),
    "duplicate-id-taken-rename": _insert(
        6,
        _message("a2@L7", "a2", 4, role="user", content="named like a rename"),
        _message("a2", "a2", 4, role="user", content="a duplicate"),
    ),
    "missing-id-taken-name": _insert(
        6,
        _message("L8", "a2", 4, role="user", content="named like line 8"),
        _message("L8@L8", "a2", 4, role="user", content="named like its rename"),
        {"type": "custom", "parentId": "a2", "customType": "no id"},
    ),
    # bad lines and broken trees
    "bad-lines": _insert(
        6,
        "{not json",
        "",
        "[1, 2]",
        '{"no": "type"}',
        b'{"type": "message", "id": "bad\xff", "parentId": "a2", "message": {"role": "user"}}',
        '{"type": "x", "id": "nan", "parentId": "a2", "v": NaN}',
        {"type": "session", "id": "second-header"},
    ),
    "orphan-and-cycle": _insert(
        11,
        _message("o1", "missing", 11, role="user", content="orphan"),
        _message("y1", "y2", 11, role="user", content="cycle"),
        _message("y2", "y1", 11, role="user", content="cycle"),
        _message("s1", "s1", 11, role="user", content="self"),
    ),
    "torn-tail": lambda lines: [*lines, Torn(b'{"type": "message", "id": "torn", "par')],
    "crlf-bom": lambda lines: [
        b"\xef\xbb\xbf" + json.dumps(lines[0]).encode() + b"\r",
        *(json.dumps(x) + "\r" for x in lines[1:] if isinstance(x, dict)),
    ],
    "long-tool-call-line": _set(
        3,
        "message",
        "content",
        [
            {"type": "text", "text": "x" * 70_000},
            {"type": "toolCall", "id": "k1", "name": "read", "arguments": {"path": "src/a.py"}},
        ],
    ),
}


def odd_lines(name: str) -> Lines:
    """The lines of hostile case ``name`` (without the ``odd-`` prefix)."""
    lines: Lines = list(clean_lines())
    return ODD[name](lines)


def write_lines(path: Path, lines: Lines) -> Path:
    with open(path, "wb") as fh:
        for line in lines:
            if isinstance(line, dict):
                fh.write(json.dumps(line).encode() + b"\n")
            elif isinstance(line, str):
                fh.write(line.encode("utf-8", "surrogatepass") + b"\n")
            elif isinstance(line, Torn):
                fh.write(line)
            else:
                fh.write(line + b"\n")
    return path


# -- the matrix ------------------------------------------------------------------------------
CASES: list[str] = [
    *_synthetic_names(),
    *_comp_names(),
    *_fixture_files(),
    *EMPTY_HEADERS,
    *(f"odd-{name}" for name in ODD),
]

#: Cases whose file differs from their twin's (a version 2 header and layout against a
#: version 3 one) but which load to the same Session: the same tables, contexts and
#: leaves (``tests/session/test_matrix_twins.py`` checks it). Tests of the reading keep
#: them; tests of what is done with a loaded Session would only repeat their twin's.
TWINS: dict[str, str] = {
    **{n: n.replace("-v2-", "-v3-") for n in _comp_names() if "-v2-" in n},
    "empty-v2-prime": "empty-v3-prime",
}
#: ``CASES`` without the twins: for tests that take a loaded Session.
LOADED_CASES: list[str] = [name for name in CASES if name not in TWINS]


def write_case(name: str, folder: Path) -> Path:
    """Write matrix session ``name`` into ``folder`` (fixtures are used in place)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    if name.startswith("synthetic-"):
        return _write_synthetic(name, path)
    if name.startswith("comp-"):
        return _write_comp(name, path)
    if name.startswith("fixture-"):
        return _fixture_files()[name]
    if name.startswith("empty-"):
        return write_lines(path, [EMPTY_HEADERS[name]])
    if name.startswith("odd-"):
        return write_lines(path, odd_lines(name[4:]))
    raise KeyError(f"{name}: not a matrix session; see session_matrix.CASES")


def write_all(folder: Path) -> dict[str, Path]:
    return {name: write_case(name, folder) for name in CASES}


_SHARED: dict[str, Path] = {}


def shared_file(name: str) -> Path:
    """Matrix session ``name``, written once per process and shared by every test that
    asks for it: many test functions run over the whole matrix, and each used to write
    its own copy of every session. The file is read-only, so a test that would append
    to it fails at once instead of changing what the next test reads; a test that
    writes must copy it (or call ``write_case``)."""
    if name not in _SHARED:
        if not _SHARED:
            folder = Path(tempfile.mkdtemp(prefix="prime-nb-matrix-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            _SHARED[""] = folder
        path = write_case(name, _SHARED[""])
        if not name.startswith("fixture-"):  # the fixtures are read in place
            path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        _SHARED[name] = path
    return _SHARED[name]
