"""The summary pass of a big file in chunks by several processes equals the single pass.

The corpus reads a file bigger than a fair share of the corpus with every core
(``read_summary(path, parallel=True)``): workers run the light extraction on their
chunks and send back, beside the loader's columns, each row's stop reason, the chunk's
first user message and the read tools' arguments. The parallel path is forced on small
files here (threshold 0; ``chunks`` huge cuts the file at every line).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from conftest import header, msg, write_lines
from session_matrix import CASES, FIXTURES, write_case

from prime_nb.corpus import _cache, _runner
from prime_nb.corpus._local import (
    branches_frame,
    compactions_frame,
    corpus_compactions,
    corpus_frame,
    load_corpus,
)
from prime_nb.corpus._state import dump
from prime_nb.corpus._summary import SummarySession, read_summary
from prime_nb.corpus._work import ALL_PARTS, results_of
from prime_nb.session import _parallel
from prime_nb.session._parallel import SETTINGS
from sessiongen import write_large_session

EVERY_LINE = 10**12


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> _parallel.ParallelSettings:
    """Every summary asked to be parallel is: 2 workers, the first chunk read here."""
    for name, value in (
        ("threshold", 0),
        ("min_entries", 0),
        ("cold_min_entries", 0),
        ("processes", 3),
        ("chunks", EVERY_LINE),
        ("fail_in_worker", {}),
        ("server_start", 0.0),
        ("chunks_here", 1),
    ):
        monkeypatch.setattr(SETTINGS, name, value)
    return SETTINGS


def state_of(session: SummarySession) -> dict[str, Any]:
    """Everything the corpus tables read from a summary pass."""
    cols, tree = session.cols, session._tree
    return {
        "columns": [
            getattr(cols, name)
            for name in ("ids", "parent_ids", "types", "roles", "providers", "models", "stops")
        ],
        "numbers": [bytes(getattr(cols, name)) for name in ("time_ms", "lines", "offsets")],
        "usage": (bytes(cols.usage.tokens), bytes(cols.usage.cost), cols.usage.present),
        "odd_usage": {row: tuple(map(repr, u)) for row, u in cols.usage.odd.items()},
        "first_user_text": cols.first_user_text,
        "tool_calls": [tuple(map(repr, call)) for call in cols.tool_calls],
        "tool_results": cols.tool_results,
        "sparse": (cols.compactions, cols.label_events, cols.names),
        "problems": session._line_problems,
        "tree": (tree.parent, tree.children, tree.depth, tree.problems, tree.orphans),
        "scan": (session._state.offset, session._state.line, session._state.torn_tail),
    }


def assert_same_summary(path: Path) -> SummarySession:
    got = read_summary(str(path), parallel=True)
    want = read_summary(str(path))
    assert want._load_report.processes == 1
    assert state_of(got) == state_of(want)
    assert dump(got) == dump(want)  # what the corpus cache keeps to resume the file
    a, b = results_of(got, str(path), ALL_PARTS), results_of(want, str(path), ALL_PARTS)
    pd.testing.assert_frame_equal(corpus_frame([a.row]), corpus_frame([b.row]))
    pd.testing.assert_frame_equal(
        compactions_frame(a.compactions), compactions_frame(b.compactions)
    )
    pd.testing.assert_frame_equal(branches_frame(a.branches), branches_frame(b.branches))
    return got


def went_parallel(session: SummarySession) -> bool:
    report = session._load_report
    return report.processes > 1 and report.chunks_here < report.chunks and not report.fell_back


@pytest.mark.parametrize("chunks", [3, EVERY_LINE])
@pytest.mark.parametrize("case", CASES)
def test_every_matrix_session_summarises_alike(
    case: str, chunks: int, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    parallel.chunks = chunks
    path = write_case(case, tmp_path)
    got = assert_same_summary(path)
    with open(path, "rb") as fh:
        if _parallel.plan(fh, path.stat().st_size) is not None:
            assert went_parallel(got), got._load_report


@pytest.mark.parametrize(
    "fixture", sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*.jsonl"))
)
def test_every_fixture_summarises_alike(fixture: str, parallel: _parallel.ParallelSettings) -> None:
    assert_same_summary(FIXTURES / fixture)


def read_call(call_id: str, target: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": target}}


def test_what_only_the_summary_keeps_crosses_chunk_borders(
    tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    """Stop reasons, the first user message found in a later chunk, read-tool arguments
    in every chunk, a user message carrying a tool call, odd values and a compaction."""
    lines: list[Any] = [
        header(),
        {"type": "model_change", "id": "m", "parentId": None, "provider": "p", "modelId": "x"},
        msg("a0", "m", "assistant", "before any prompt", minute=1, stopReason="length"),
        msg("u1", "a0", "user", "the first prompt", minute=2),
        msg(
            "a1",
            "u1",
            "assistant",
            minute=3,
            content=[read_call("c1", "/tmp/project/src/a.py"), {"type": "text", "text": "x"}],
            stopReason="toolUse",
        ),
        msg("r1", "a1", "toolResult", "file a", minute=4, toolCallId="c1", toolName="read"),
        msg("u2", "r1", "user", minute=5, content=[read_call("c9", "/tmp/project/odd.py")]),
        b"{broken",
        msg("a2", "u2", "assistant", minute=6, stopReason={"not": "a string"}),
        msg(
            "a3",
            "a2",
            "assistant",
            minute=7,
            content=[read_call("c2", "/elsewhere/b.py"), {"type": "toolCall", "id": 5}],
        ),
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "a3",
            "timestamp": "2026-01-05T10:08:00.000Z",
            "summary": "so far",
            "firstKeptEntryId": "a2",
            "tokensBefore": 1000,
            "details": {"readFiles": ["src/a.py"], "modifiedFiles": []},
        },
        msg("a1", "k1", "assistant", "a duplicate id", minute=9),
        msg("u3", "missing", "user", "an orphan", minute=10),
        msg(
            "a4",
            "k1",
            "assistant",
            minute=11,
            content=[read_call("c3", "/tmp/project/src/a.py")],
            usage={"input": -1, "output": 2**70, "totalTokens": 3},
        ),
    ]
    path = write_lines(tmp_path / "s.jsonl", lines)
    for chunks in (2, 3, 5, EVERY_LINE):
        parallel.chunks = chunks
        got = assert_same_summary(path)
        assert went_parallel(got), got._load_report
    assert got.cols.first_user_text == "the first prompt"
    assert got.cols.stops[:3] == [None, "length", None]
    kept = {call.call_id: call.arguments for call in got.cols.tool_calls}
    assert kept["c1"] == {"path": "/tmp/project/src/a.py"}
    assert kept["c9"] == {"path": "/tmp/project/odd.py"}  # read tools only, wherever they are


def test_the_corpus_reads_a_dominant_file_with_every_core(
    tmp_path: Path, parallel: _parallel.ParallelSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file bigger than a fair share of the corpus is read in this process by the
    parallel summary, after the others went through the worker pool; the tables are the
    same as with every file read whole."""
    paths = [write_case(case, tmp_path / case) for case in CASES[:4]]
    big = tmp_path / "big.jsonl"
    write_large_session(big, 3 * sum(p.stat().st_size for p in paths), seed=3)
    paths.append(big)
    assert _runner.split_indexes([p.stat().st_size for p in paths], 2, 1 << 40) == []
    assert _runner.split_indexes([p.stat().st_size for p in paths], 2, 0) == [4]
    assert _runner.split_indexes([p.stat().st_size for p in paths], 1, 0) == []
    whole = {
        name: fn(files=paths, workers=1, progress=False)
        for name, fn in (("sessions", load_corpus), ("compactions", corpus_compactions))
    }
    split: list[str] = []
    real = read_summary

    def spy(path: str, parallel: bool = False) -> SummarySession:
        session = real(path, parallel)
        if parallel:
            split.append(path)
            assert went_parallel(session), session._load_report
        return session

    monkeypatch.setattr("prime_nb.corpus._work.read_summary", spy)
    monkeypatch.setattr(_runner, "SPLIT_MIN", 0)
    for name, fn in (("sessions", load_corpus), ("compactions", corpus_compactions)):
        split.clear()
        table = fn(files=paths, workers=2, progress=False)
        assert split == [str(big)], name
        pd.testing.assert_frame_equal(table, whole[name], obj=name)


def test_the_cache_reads_a_dominant_file_with_every_core_and_resumes_it(
    tmp_path: Path, parallel: _parallel.ParallelSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a cache, the dominant file is read in chunks too, its state is the single
    pass's (so a grown file resumes from it), and the tables equal the uncached ones."""
    root = tmp_path / "corpus"
    paths = [write_case(case, root / case) for case in CASES[:4]]
    big = root / "big.jsonl"
    write_large_session(big, 3 * sum(p.stat().st_size for p in paths), seed=5)
    paths.append(big)
    split: list[str] = []
    resumed: list[str] = []
    real_read = read_summary
    real_restore = _cache.restore

    def spy(path: str, parallel: bool = False) -> SummarySession:
        session = real_read(path, parallel)
        if parallel:
            split.append(path)
            assert went_parallel(session), session._load_report
        return session

    def restore(path: str, blob: bytes) -> SummarySession:
        resumed.append(path)
        return real_restore(path, blob)

    monkeypatch.setattr(_cache, "read_summary", spy)
    monkeypatch.setattr(_cache, "restore", restore)
    monkeypatch.setattr(_runner, "SPLIT_MIN", 0)
    cache = tmp_path / "cache"
    tables = (load_corpus, corpus_compactions)

    def cached() -> list[pd.DataFrame]:
        return [fn(files=paths, workers=2, progress=False, cache=cache) for fn in tables]

    def uncached() -> list[pd.DataFrame]:
        return [fn(files=paths, workers=1, progress=False) for fn in tables]

    for got, want in zip(cached(), uncached(), strict=True):
        pd.testing.assert_frame_equal(got, want)
    assert split == [str(big)] and any(cache.glob("corpus-*.parquet"))

    split.clear()
    last = read_summary(str(big)).cols.ids[-1]
    with open(big, "ab") as fh:
        fh.write(orjson.dumps(msg("grown", last, "user", "one more", minute=59)) + b"\n")
    for got, want in zip(cached(), uncached(), strict=True):
        pd.testing.assert_frame_equal(got, want)
    assert split == [] and resumed == [str(big)]
