"""Appending beside other writers: our own processes, an agent that takes no lock, a
writer killed mid-line, a program that renames a new copy over the file, a size limit."""

from __future__ import annotations

import errno
import multiprocessing as mp
import os
import resource
import signal
import time
import warnings
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import orjson
import pytest
from write_support import make_session, raw_lines

import prime_nb
from prime_nb import write
from prime_nb.write import _appending as appending

CTX = mp.get_context("fork")
WORKERS = 4
APPENDS = 250


def _agent_line(entry_id: str, parent: str, text: str) -> bytes:
    entry = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-05T12:00:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }
    return orjson.dumps(entry) + b"\n"


def _api_worker(path: Path, k: int, start: Any, out: Connection) -> None:
    """Appends a chain of its own through the API; sends back the acknowledged ids."""
    start.wait()
    ids: list[str] = []
    parent = "a3"
    for i in range(APPENDS):
        message = {"role": "user", "content": f"worker {k} message {i}"}
        parent = write.append_message(path, parent, message, fsync=(k == 0))
        ids.append(parent)
    out.send(ids)
    out.close()


def _agent_worker(path: Path, start: Any, out: Connection) -> None:
    """Imitates the agent: no lock, open with O_APPEND, one write per line, close."""
    start.wait()
    ids: list[str] = []
    parent = "nm"
    for i in range(APPENDS):
        entry_id = f"{0xA0000000 + i:08x}"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, _agent_line(entry_id, parent, f"agent {i} " + "x" * (i % 7 * 300)))
        finally:
            os.close(fd)
        ids.append(entry_id)
        parent = entry_id
    out.send(ids)
    out.close()


def test_four_writers_and_the_agent_at_once(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    start = CTX.Event()
    pipes = [CTX.Pipe(duplex=False) for _ in range(WORKERS + 1)]
    procs = [
        CTX.Process(target=_api_worker, args=(path, k, start, pipes[k][1])) for k in range(WORKERS)
    ]
    procs.append(CTX.Process(target=_agent_worker, args=(path, start, pipes[-1][1])))
    for proc in procs:
        proc.start()
    start.set()
    results = [reader.recv() for reader, _ in pipes]
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0

    assert path.read_bytes().startswith(before)
    lines = raw_lines(path)  # every line parses
    counts = Counter(line.get("id") for line in lines[1:])
    for ids in results:
        assert len(ids) == APPENDS
        assert all(counts[i] == 1 for i in ids)
    assert len(lines) == 1 + 11 + (WORKERS + 1) * APPENDS
    s = prime_nb.load(path)
    assert len(s.problems) == 0
    for ids in results[:WORKERS]:  # every chain intact, in order
        assert s.path(ids[-1])[-APPENDS:] == ids


# -- a writer killed mid-line ----------------------------------------------------------


def _killed_mid_write(path: Path, ready: Connection) -> None:
    """Our own writer, stopped for good half way through its line."""
    real_write = os.write

    def half_then_hang(fd: int, data: Any) -> int:
        n = real_write(fd, bytes(data[: len(data) // 2]))
        ready.send("half written")
        time.sleep(60)
        return n

    appending.os.write = half_then_hang  # type: ignore[attr-defined]
    write.append_message(path, "a3", {"role": "user", "content": "never finished " * 20})


def test_writer_killed_mid_write(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    reader, writer = CTX.Pipe(duplex=False)
    proc = CTX.Process(target=_killed_mid_write, args=(path, writer))
    proc.start()
    assert reader.poll(30), "the writer never started its line"
    reader.recv()
    os.kill(proc.pid, signal.SIGKILL)  # type: ignore[arg-type]
    proc.join()
    assert proc.exitcode == -signal.SIGKILL

    torn = path.read_bytes()
    assert torn.startswith(before) and not torn.endswith(b"\n")
    s = prime_nb.load(path)
    assert s.problems["kind"].tolist() == ["torn_line"]
    # the lock died with the writer; the next append lands on a line of its own
    with pytest.warns(prime_nb.TornLineWarning):
        new_id = write.append_message(path, "a3", {"role": "user", "content": "after"})
    after = path.read_bytes()
    assert after.startswith(torn + b"\n") and after.endswith(b"\n")
    s.refresh()
    assert s.leaf_id == new_id and s.entry(new_id)["message"]["content"] == "after"
    assert s.problems["kind"].tolist() == ["invalid_json"]


def test_agent_killed_mid_line(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    line = _agent_line("deadbeef", "nm", "cut short")
    with open(path, "ab") as fh:
        fh.write(line[:-9])
    s = prime_nb.load(path)
    with pytest.warns(prime_nb.TornLineWarning):
        write.append_session_name(path, "after the crash")
    assert s.refresh() == 1 and s.name == "after the crash"
    assert s.problems["kind"].tolist() == ["invalid_json"]


# -- another program renames a new copy over the file ----------------------------------


def _renamer(path: Path, tokens: Any, stop: Any, out: Connection) -> None:
    """Like the agent re-creating a file: read it, write a temp copy, rename it over.

    One copy per token, so that renames race with the appends without starving them.
    """
    tmp = path.with_name(".renamer.tmp")
    renames = 0
    while tokens.acquire() and not stop.is_set():
        tmp.write_bytes(path.read_bytes())
        os.rename(tmp, path)
        renames += 1
    out.send(renames)
    out.close()


def test_file_renamed_over_while_appending(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    tokens, stop = CTX.Semaphore(0), CTX.Event()
    reader, writer = CTX.Pipe(duplex=False)
    proc = CTX.Process(target=_renamer, args=(path, tokens, stop, writer))
    proc.start()
    acknowledged: list[str] = []
    parent = "a3"
    try:
        for i in range(300):
            tokens.release()  # a rename now runs alongside this append
            message = {"role": "user", "content": f"appended {i}"}
            parent = write.append_message(path, parent, message, fsync=i % 10 == 0)
            acknowledged.append(parent)
    finally:
        stop.set()
        tokens.release()
        renames = reader.recv()
        proc.join()
    assert renames > 100
    # a copy read before our write and renamed after our check is caught by reconcile
    write.reconcile(path)
    counts = Counter(line.get("id") for line in _parsed_lines(path))
    assert [i for i in acknowledged if counts[i] != 1] == []
    s = prime_nb.load(path)
    assert s.path(acknowledged[-1])[-len(acknowledged) :] == acknowledged


def test_renamed_between_write_and_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent read the file before our write and renames its copy before our check."""
    path = make_session(tmp_path / "s.jsonl")
    real_write_all = appending.write_all
    renamed: list[int] = []

    def write_then_replace(file: Path, fd: int, data: bytes) -> None:
        copy = path.read_bytes()
        real_write_all(file, fd, data)
        if not renamed:
            path.with_name("copy").write_bytes(copy)
            os.rename(path.with_name("copy"), path)
            renamed.append(1)

    monkeypatch.setattr(appending, "write_all", write_then_replace)
    new_id = write.append_message(path, "a3", {"role": "user", "content": "once"})
    assert renamed
    ids = [line.get("id") for line in raw_lines(path)]
    assert ids.count(new_id) == 1 and ids[-1] == new_id
    assert write.reconcile(path) == []


def _parsed_lines(path: Path) -> list[dict[str, Any]]:
    """Lines that parse (a copy taken mid-write may hold a torn piece of a line)."""
    out = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            out.append(orjson.loads(raw))
        except orjson.JSONDecodeError:
            continue
    return out


def test_replacement_that_drops_the_parent_raises(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    original = path.read_bytes()
    first = write.append_message(path, "a3", {"role": "user", "content": "one"})
    second = write.append_message(path, first, {"role": "user", "content": "two"})
    # another program puts the old copy back (dropping both), then drops "a3" as well
    replaced = path.with_name("copy")
    replaced.write_bytes(b"\n".join(original.split(b"\n")[:6]) + b"\n")
    os.rename(replaced, path)
    with pytest.raises(prime_nb.EntryLostError, match=first) as caught:
        write.append_label(path, "u1", "x")
    assert [e["id"] for e in caught.value.entries] == [first, second]
    assert caught.value.entries[1]["message"]["content"] == "two"
    # reported once; the next append goes through
    write.append_label(path, "u1", "x")
    assert prime_nb.load(path).labels == {"u1": "x"}


def test_replacement_is_repaired_at_the_next_append(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    original = path.read_bytes()
    first = write.append_message(path, "a3", {"role": "user", "content": "one"})
    replaced = path.with_name("copy")
    replaced.write_bytes(original)  # read before our append, renamed after it
    os.rename(replaced, path)
    second = write.append_message(path, first, {"role": "user", "content": "two"})
    s = prime_nb.load(path)
    assert s.path()[-2:] == [first, second]
    assert write.reconcile(path) == []


# -- a file-size limit -----------------------------------------------------------------


def _limited(path: Path, limit: int, precheck: bool, out: Connection) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    if not precheck:
        appending.check_room = lambda *args: None
    try:
        write.append_message(path, "a3", {"role": "user", "content": "y" * 500})
    except prime_nb.SessionWriteError as exc:
        out.send((exc.errno, str(exc)))
    else:
        out.send((None, "no error"))
    out.close()


@pytest.mark.parametrize("precheck", [True, False], ids=["refused-before", "short-write"])
def test_file_size_limit(tmp_path: Path, precheck: bool) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    reader, writer = CTX.Pipe(duplex=False)
    proc = CTX.Process(target=_limited, args=(path, len(before) + 100, precheck, writer))
    proc.start()
    code, message = reader.recv()
    proc.join()
    assert code == errno.EFBIG, message
    assert "file-size limit" in message and "intact" in message
    data = path.read_bytes()
    assert data.startswith(before)
    s = prime_nb.load(path)  # still loads
    if precheck:
        assert data == before and len(s.problems) == 0
    else:
        assert "partial line of 100 bytes" in message
        assert len(data) == len(before) + 100
        assert s.problems["kind"].tolist() == ["torn_line"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        new_id = write.append_label(path, "u1", "after")
    assert [w.category for w in caught] == ([] if precheck else [prime_nb.TornLineWarning])
    s.refresh()
    assert s.leaf_id == new_id and s.labels["u1"] == "after"
