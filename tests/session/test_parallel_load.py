"""A file read in chunks by several processes loads exactly as in one pass: the same
tables, problems, tree and graph, whatever lands on a chunk border, and a dead worker
costs nothing but time. The parallel path is forced on small files (threshold 0), and
``chunks`` huge cuts the file at every line, so every line sits on a border."""

from __future__ import annotations

import json
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd
import pytest
from session_matrix import CASES, FIXTURES, write_case

import prime_nb
from prime_nb import _workers
from prime_nb._workers import end_quietly_on_interrupt
from prime_nb.session import _parallel
from prime_nb.session._parallel import SETTINGS

EVERY_LINE = 10**12
TABLES = ("entries", "messages", "leaves", "compactions", "problems", "tool_calls", "label_table")


def load_serial(path: Path) -> prime_nb.Session:
    saved = SETTINGS.threshold
    SETTINGS.threshold = 1 << 62
    try:
        session = prime_nb.load(path)
    finally:
        SETTINGS.threshold = saved
    assert session._load_report.processes == 1
    return session


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> _parallel.ParallelSettings:
    """Every file is read in parallel (3 processes: 2 workers), cut at every line."""
    monkeypatch.setattr(SETTINGS, "threshold", 0)
    monkeypatch.setattr(SETTINGS, "min_entries", 0)
    monkeypatch.setattr(SETTINGS, "cold_min_entries", 0)
    monkeypatch.setattr(SETTINGS, "processes", 3)
    monkeypatch.setattr(SETTINGS, "chunks", EVERY_LINE)
    monkeypatch.setattr(SETTINGS, "fail_in_worker", {})
    monkeypatch.setattr(SETTINGS, "server_start", 0.0)  # wait for the workers' server
    monkeypatch.setattr(SETTINGS, "chunks_here", 1)  # workers read every chunk but the first
    return SETTINGS


def assert_same(got: prime_nb.Session, want: prime_nb.Session) -> None:
    """Every table, the problems, the tree, the graph and the header agree."""
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(got, name), getattr(want, name), obj=name)
    assert got._line_problems == want._line_problems
    assert got._tree.parent == want._tree.parent
    assert got._tree.children == want._tree.children
    assert got._tree.depth == want._tree.depth
    assert got._tree.problems == want._tree.problems
    assert got._tree.orphans == want._tree.orphans
    for leaf in want.leaves.index:
        assert got.path(leaf) == want.path(leaf)
    assert (got.header, got.version, got.dialect) == (want.header, want.version, want.dialect)
    assert (got.leaf_id, got.name, got.state) == (want.leaf_id, want.name, want.state)
    assert got.labels == want.labels
    where = ("offset", "line", "owes_newline", "torn_tail")  # newline_paid: a refresh's own
    assert [getattr(got._state, k) for k in where] == [getattr(want._state, k) for k in where]
    graph, expected = got.graph, want.graph
    assert list(graph.edges(data=True)) == list(expected.edges(data=True))
    pd.testing.assert_frame_equal(node_table(graph), node_table(expected))


def node_table(graph: nx.DiGraph) -> pd.DataFrame:
    rows = {node: dict(data) for node, data in graph.nodes(data=True)}
    return pd.DataFrame.from_dict(rows, orient="index")


def went_parallel(session: prime_nb.Session) -> bool:
    """Read in chunks, workers read some of them, and none failed."""
    report = session._load_report
    return (
        report.processes > 1
        and report.chunks_here < report.chunks
        and report.fell_back is None
        and report.worker_cpu > 0
    )


# -- the matrix and the fixtures -------------------------------------------------------------
@pytest.mark.parametrize("chunks", [3, EVERY_LINE])
@pytest.mark.parametrize("case", CASES)
def test_every_matrix_session_loads_alike(
    case: str, chunks: int, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    parallel.chunks = chunks
    path = write_case(case, tmp_path)
    got = prime_nb.load(path)
    want = load_serial(path)
    assert_same(got, want)
    if want.version < 2:
        assert got._load_report.processes == 1  # v1 ids depend on every line before
    elif planned(path):
        assert went_parallel(got), got._load_report


@pytest.mark.parametrize(
    "fixture",
    sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*.jsonl")),
)
@pytest.mark.parametrize("chunks", [2, 7, EVERY_LINE])
def test_every_fixture_loads_alike(
    fixture: str, chunks: int, parallel: _parallel.ParallelSettings
) -> None:
    parallel.chunks = chunks
    path = FIXTURES / fixture
    got = prime_nb.load(path)
    want = load_serial(path)
    assert_same(got, want)
    if planned(path):
        assert went_parallel(got), got._load_report


def planned(path: Path) -> bool:
    """Whether the parallel path applies to the file (v2+, a header on line 1, cuts)."""
    with open(path, "rb") as fh:
        return _parallel.plan(fh, path.stat().st_size) is not None


# -- hostile lines on chunk borders -----------------------------------------------------------
def header(version: int = 3, **extra: Any) -> bytes:
    obj = {"type": "session", "version": version, "id": "h", "cwd": "/tmp/p"} | extra
    return json.dumps(obj).encode()


def message(entry_id: Any, parent: Any, role: str = "user", minute: int = 0, **more: Any) -> bytes:
    body: dict[str, Any] = {"role": role, "content": f"text of {entry_id}"}
    if role == "assistant":
        body = {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "toolCall", "id": f"k-{entry_id}", "name": "read", "arguments": {"p": 1}},
            ],
            "provider": "anthropic",
            "model": "claude-x",
            "stopReason": "toolUse",
            "usage": {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.01}},
        }
    body.update(more)
    obj: dict[str, Any] = {
        "type": "message",
        "parentId": parent,
        "timestamp": f"2026-01-05T10:{minute % 60:02d}:00.000Z",
        "message": body,
    }
    if entry_id is not None:
        obj["id"] = entry_id
    return json.dumps(obj).encode()


def hostile_lines() -> list[bytes]:
    """Every kind of trouble, each next to clean lines, so that with a cut at every line
    each trouble sits right at a chunk border (and with fewer cuts, somewhere inside)."""
    return [
        header(),
        message("u1", None),
        message("a1", "u1", "assistant", 1),
        b"{not json",
        message("u2", "a1", minute=2),
        b"",
        b"   ",
        message("u1", "u2", minute=3),  # a duplicate of line 2, chunks away
        b"[1, 2]",
        b'{"no": "type"}',
        message(None, "u2", minute=4),  # no id: named after its line
        message("L12", "u2", minute=4),  # takes the name the next missing id would get
        message(None, "u2", minute=5),
        b'{"type": "message", "id": "bad\xff", "parentId": "u2", "message": {"role": "user"}}',
        b"\xef\xbb\xbf" + message("bom", "u2", minute=6),
        message("crlf", "bom", minute=7) + b"\r",
        message("a2", "crlf", "assistant", 8),
        json.dumps(
            {
                "type": "child_usage_attributed",
                "id": "cu1",
                "parentId": "a2",
                "targetId": "a1",  # an assistant many chunks back
                "aggregateUsage": {"input": 100, "output": 50, "totalTokens": 150},
            }
        ).encode(),
        json.dumps(
            {
                "type": "child_usage_attributed",
                "id": "cu2",
                "parentId": "cu1",
                "targetId": "a2",
                "aggregateUsage": {"input": -1, "output": 2**70},  # odd: reported
            }
        ).encode(),
        json.dumps(
            {
                "type": "child_usage_attributed",
                "id": "cu3",
                "parentId": "cu2",
                "targetId": "later",  # not yet in the file: nothing, and no problem
                "aggregateUsage": {"input": -1},
            }
        ).encode(),
        message("later", "cu3", "assistant", 9),
        message("o1", "missing", minute=10),  # an orphan
        message("y1", "y2", minute=11),  # a cycle across a border
        message("y2", "y1", minute=12),
        json.dumps({"type": "session", "id": "second-header"}).encode(),
        message("s1", "s1", minute=13),  # its own parent
        message("big", "a2", minute=14, content="x" * 300_000),
        json.dumps(
            {"type": "label", "id": "l1", "parentId": "big", "targetId": "u1", "label": "first"}
        ).encode(),
        json.dumps(
            {
                "type": "compaction",
                "id": "c1",
                "parentId": "l1",
                "summary": "so far",
                "firstKeptEntryId": "u2",
                "tokensBefore": 2**64,
            }
        ).encode(),
        json.dumps(
            {"type": "custom", "id": "u9", "parentId": "c1", "timestamp": "yesterday"}
        ).encode(),
        message("bad-parent", {"not": "a string"}, minute=16),
        message("end", "u9", minute=17),
    ]


def write_raw(path: Path, lines: list[bytes], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    return path


@pytest.mark.parametrize("chunks", [2, 3, 5, 8, 13, EVERY_LINE])
@pytest.mark.parametrize("processes", [2, 3])
def test_hostile_lines_on_borders(
    chunks: int, processes: int, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    parallel.chunks, parallel.processes = chunks, processes
    path = write_raw(tmp_path / "hostile.jsonl", hostile_lines())
    got, want = prime_nb.load(path), load_serial(path)
    assert went_parallel(got)
    assert_same(got, want)
    kinds = set(want.problems["kind"])
    assert {"duplicate_id", "missing_id", "invalid_json", "blank_line", "invalid_utf8"} <= kinds
    assert {"bom", "extra_header", "orphan", "cycle", "self_parent", "bad_value"} <= kinds
    assert want.entries.at["a1", "total_tokens"] == 150  # the child usage, chunks away


@pytest.mark.parametrize(
    "tail",
    [
        b'{"type": "message", "id": "torn", "par',  # torn: left for later
        message("whole", "u1"),  # complete, only its newline missing
        b"   ",
        b"\r",
    ],
)
@pytest.mark.parametrize("chunks", [2, EVERY_LINE])
def test_the_last_line_and_its_refresh(
    tail: bytes, chunks: int, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    parallel.chunks = chunks
    lines = hostile_lines()
    path = write_raw(tmp_path / "tail.jsonl", lines, tail)
    got, want = prime_nb.load(path), load_serial(path)
    assert went_parallel(got)
    assert_same(got, want)
    with open(path, "ab") as fh:  # the writer finishes the line and goes on
        fh.write(b'ish"}\n' if tail.endswith(b"par") else b"\n")
        fh.write(message("next", "end", minute=20) + b"\n")
    got.refresh()
    assert_same(got, load_serial(path))


def test_a_six_megabyte_line_on_a_border(
    tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    lines = [header(), message("u1", None)]
    lines += [message(f"m{k}", "u1", minute=k) for k in range(40)]
    lines.insert(20, message("huge", "m10", "user", 30, content="y" * 6_000_000))
    path = write_raw(tmp_path / "huge.jsonl", lines)
    for chunks in (2, 3, 4, 16, EVERY_LINE):  # cuts inside the huge line move past it
        parallel.chunks = chunks
        got = prime_nb.load(path)
        assert went_parallel(got)
        assert_same(got, load_serial(path))


def test_crlf_and_a_bom_before_the_header(
    tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    lines = [b"\xef\xbb\xbf" + header() + b"\r"]
    lines += [message(f"m{k}", f"m{k - 1}" if k else None, minute=k) + b"\r" for k in range(30)]
    path = write_raw(tmp_path / "crlf.jsonl", lines)
    got, want = prime_nb.load(path), load_serial(path)
    assert went_parallel(got)
    assert_same(got, want)
    assert list(want.problems["kind"]) == ["bom"]


def test_spec_dialect_and_version_2(tmp_path: Path, parallel: _parallel.ParallelSettings) -> None:
    for name in (
        "synthetic-v2-spec-forks5",
        "synthetic-v3-spec-forks5",
        "synthetic-v2-prime-forks5",
    ):
        path = write_case(name, tmp_path)
        got = prime_nb.load(path)
        assert went_parallel(got)
        assert_same(got, load_serial(path))


# -- what stays on one process ----------------------------------------------------------------
def test_version_1_and_odd_starts_stay_on_one_process(
    tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    v1 = write_case("synthetic-v1-prime-forks0", tmp_path)
    blank_first = write_raw(tmp_path / "blank.jsonl", [b"", header(), message("u1", None)])
    no_newline = tmp_path / "header-only.jsonl"
    no_newline.write_bytes(header())
    for path in (v1, blank_first, no_newline):
        got = prime_nb.load(path)
        assert got._load_report.processes == 1
        assert_same(got, load_serial(path))


def test_small_files_stay_on_one_process(tmp_path: Path) -> None:
    path = write_case("synthetic-v3-prime-forks5", tmp_path)
    assert path.stat().st_size < SETTINGS.threshold
    assert prime_nb.load(path)._load_report.processes == 1


def test_the_threshold_counts_entries_not_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per-entry work decides the load time: of two files of one size, the one of many
    small entries goes parallel and the one of few big entries does not (the count is
    estimated from a sample); while no forkserver runs yet, only longer files do."""
    lines = [header(), *(message(f"m{k}", None) for k in range(2000))]
    small = write_raw(tmp_path / "small.jsonl", lines)
    size = small.stat().st_size
    text = "z" * (size // 200)
    lines = [header(), *(message(f"b{k}", None, content=text) for k in range(200))]
    big = write_raw(tmp_path / "big.jsonl", lines)
    monkeypatch.setattr(SETTINGS, "threshold", 0)
    monkeypatch.setattr(SETTINGS, "min_entries", 1000)
    monkeypatch.setattr(SETTINGS, "cold_min_entries", 10**6)
    monkeypatch.setattr(SETTINGS, "start_method", "forkserver")
    monkeypatch.setattr(_parallel, "forkserver_running", lambda: True)
    assert planned(small) and not planned(big)
    monkeypatch.setattr(_parallel, "forkserver_running", lambda: False)
    assert not planned(small)  # starting a server costs more than it saves
    monkeypatch.setattr(SETTINGS, "start_method", "fork")  # no server to start
    assert planned(small)


def test_the_corpus_summary_pass_stays_on_one_process(
    tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    from prime_nb.corpus._summary import read_summary

    path = write_case("synthetic-v3-prime-forks5", tmp_path)
    assert read_summary(str(path))._load_report.processes == 1


# -- dead workers -------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["exit", "kill", "raise"])
@pytest.mark.parametrize("given", [0, 1])
def test_a_failed_worker_falls_back_to_one_process(
    how: str, given: int, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    """Workers take chunks from the end of the file, one each at first: the first given
    out is the last chunk (merged after all others), the second the one before it."""
    path = write_raw(tmp_path / "dies.jsonl", hostile_lines())
    parallel.fail_in_worker = {given: how}
    got = prime_nb.load(path)
    report = got._load_report
    assert report.fell_back is not None, report
    expected = "BrokenProcessPool" if how != "raise" else "RuntimeError"
    assert expected in report.fell_back, report  # the whole report: which branch fell back
    assert_same(got, load_serial(path))


def test_a_failed_worker_on_a_big_file_still_gives_whole_tables(
    tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    path = write_case("synthetic-v3-prime-forks5", tmp_path)
    parallel.chunks = 6
    parallel.fail_in_worker = {1: "kill"}
    got = prime_nb.load(path)
    assert got._load_report.fell_back is not None
    want = load_serial(path)
    assert len(got.entries) == len(want.entries)
    assert_same(got, want)


# -- start methods -------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_every_start_method(
    method: str, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    parallel.start_method = method
    parallel.chunks = 4
    path = write_raw(tmp_path / "m.jsonl", hostile_lines())
    got = prime_nb.load(path)
    assert got._load_report.start_method == method
    assert went_parallel(got)
    assert_same(got, load_serial(path))


def test_threads_choose_the_forkserver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SETTINGS, "start_method", None)
    monkeypatch.setattr(_parallel, "threads_running", lambda: 4)
    assert _parallel.start_method() == "forkserver"
    monkeypatch.setattr(_parallel, "threads_running", lambda: 1)
    assert _parallel.start_method() == "fork"
    monkeypatch.setattr(_parallel, "threads_running", lambda: 0)  # unknown: not Linux
    monkeypatch.setattr(_parallel, "get_all_start_methods", lambda: ["spawn"])  # Windows
    assert _parallel.start_method() == "spawn"


def test_boundaries_fall_on_line_starts(tmp_path: Path) -> None:
    data = b"a\n" * 5 + b"x" * 100 + b"\n" + b"b\n" * 3
    path = tmp_path / "b.jsonl"
    path.write_bytes(data)
    with open(path, "rb") as fh:
        assert _parallel.boundaries(fh, len(data), 10**9) == [2, 4, 6, 8, 10, 111, 113, 115]
        assert _parallel.boundaries(fh, len(data), 4) == [111]  # points inside the long line
        assert _parallel.boundaries(fh, len(data), 1) == []
    torn = tmp_path / "t.jsonl"
    torn.write_bytes(b"a\n" * 5 + b"x" * 100)
    with open(torn, "rb") as fh:
        assert _parallel.boundaries(fh, 110, 10**9) == [2, 4, 6, 8, 10]


def test_a_slow_starting_server_leaves_the_file_to_this_process(
    tmp_path: Path, parallel: _parallel.ParallelSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Until the workers' server is up, this process reads chunks itself; a file read
    before then is read entirely here, and no worker is started for it."""
    monkeypatch.setattr(_parallel, "start_method", lambda: "forkserver")
    monkeypatch.setattr(_parallel, "_server_ready_at", time.monotonic() + 3600)
    path = write_raw(tmp_path / "early.jsonl", hostile_lines())
    got = prime_nb.load(path)
    report = got._load_report
    assert (report.processes, report.chunks_here) == (1, report.chunks)
    assert report.chunks > 10
    assert_same(got, load_serial(path))


class InstantExecutor:
    """An executor whose every task is done at once (the fastest workers there are)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.submitted: list[tuple[Any, ...]] = []

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        self.submitted.append(args)
        future: Future[Any] = Future()
        future.set_result({})
        return future

    def shutdown(self, *args: Any, **kwargs: Any) -> None:
        pass


def test_workers_never_take_the_header_chunk_however_fast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each finished chunk hands its worker the next at once: instant workers take every
    chunk from the back down to chunk 1, and chunk 0 stays for this process."""
    monkeypatch.setattr(_workers, "ProcessPoolExecutor", InstantExecutor)
    pool = _parallel._Pool(2, "fork", lambda k, given: (k, given), 0, 10)
    assert sorted(pool.futures) == list(range(1, 10))
    assert pool.claim() == 0
    assert pool.claim() is None


def test_no_room_to_spill_reads_the_file_here(
    tmp_path: Path, parallel: _parallel.ParallelSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_room(*args: Any, **kwargs: Any) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_parallel.tempfile, "mkdtemp", no_room)
    path = write_raw(tmp_path / "full.jsonl", hostile_lines())
    got = prime_nb.load(path)
    assert got._load_report.processes == 1
    assert "No space left" in (got._load_report.fell_back or "")
    assert_same(got, load_serial(path))


def test_spill_goes_to_shared_memory_only_with_room_for_the_file() -> None:
    assert _parallel.spill_root(10**18) is None  # the temporary folder
    root = _parallel.spill_root(1)
    assert root is None or Path(root).is_dir()


@pytest.mark.parametrize("here", [None, 2, 7, 20])
def test_wherever_this_process_and_the_workers_meet(
    here: int | None, tmp_path: Path, parallel: _parallel.ParallelSettings
) -> None:
    """This process reads from the front, workers from the back: the merge is exact for
    any meeting point (None: wherever the two get to, as outside tests)."""
    parallel.chunks_here = here
    path = write_raw(tmp_path / "meet.jsonl", hostile_lines())
    got = prime_nb.load(path)
    if here is not None:
        assert got._load_report.chunks_here == here and went_parallel(got)
    assert_same(got, load_serial(path))


class BreakingExecutor(InstantExecutor):
    """A pool whose first worker dies at once: its task fails, later submits raise."""

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        self.submitted.append(args)
        if len(self.submitted) > 1:
            raise BrokenProcessPool("a child process terminated abruptly")
        future: Future[Any] = Future()
        future.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        return future


def test_a_pool_broken_while_handing_out_chunks_falls_back_with_its_reason(
    tmp_path: Path, parallel: _parallel.ParallelSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks that were never given (the pool broke first) are read here, and the
    report says the pool broke, not which chunk was missing."""
    monkeypatch.setattr(_workers, "ProcessPoolExecutor", BreakingExecutor)
    path = write_raw(tmp_path / "broke.jsonl", hostile_lines())
    got = prime_nb.load(path)
    assert "BrokenProcessPool" in (got._load_report.fell_back or "")
    assert_same(got, load_serial(path))


def test_the_workers_end_quietly_on_an_interrupt(
    tmp_path: Path, parallel: _parallel.ParallelSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook's interrupt signals every worker: each ends without printing a
    KeyboardInterrupt traceback (the corpus's pool tests the worker's handler itself)."""
    made: list[object] = []
    real = _workers.ProcessPoolExecutor

    def recording(*args: object, **kwargs: object) -> object:
        made.append(kwargs.get("initializer"))
        return real(*args, **kwargs)

    monkeypatch.setattr(_workers, "ProcessPoolExecutor", recording)
    parallel.chunks = 4
    got = prime_nb.load(write_raw(tmp_path / "m.jsonl", hostile_lines()))
    assert went_parallel(got)
    assert made == [end_quietly_on_interrupt]
