"""The writers' lock file is gone after each write, and still excludes every other writer.

A lock file left beside each session littered the user's sessions folder (the agent's
own). Removing it is racy with plain flock (a waiter locks the removed file while a
newcomer locks a new one), so these tests run writers in many processes at once and
count: a critical section that two writers enter together loses an update.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from write_support import make_session

import prime_nb
from prime_nb import write
from prime_nb.write import _appending as appending

CTX = mp.get_context("fork")
WORKERS = 4
ROUNDS = 60


def hidden_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_no_lock_file_is_left_beside_the_session(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    write.append_label(path, "u1", "first")
    write.append_fork(path, "a3", [{"role": "user", "content": "again"}])
    write.reconcile(path)
    assert hidden_files(tmp_path) == []
    session = prime_nb.load(path)
    session.append_session_name("named")
    session.fork_to_file(session.leaf_id, tmp_path / "fork.jsonl")
    assert hidden_files(tmp_path) == []


def test_no_lock_file_is_left_after_a_refused_or_failed_write(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    with pytest.raises(prime_nb.EntryNotFoundError, match="nope"):
        write.append_label(path, "nope", "x")
    with pytest.raises(prime_nb.InvalidEntryError, match="robot"):
        write.append_fork(path, "a3", [{"role": "robot", "content": "x"}])
    assert hidden_files(tmp_path) == []


def _count_under_lock(path: Path, counter: Path, start: Any) -> None:
    """ROUNDS times: read the counter, wait, write it plus one, all under the lock."""
    start.wait()
    for _ in range(ROUNDS):
        with appending.locked(path):
            value = int(counter.read_text() or "0")
            time.sleep(0.0005)
            counter.write_text(str(value + 1))
    os._exit(0)


def test_concurrent_writers_exclude_each_other_though_the_file_goes(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    counter = tmp_path / "counter"
    counter.write_text("0")
    start = CTX.Event()
    workers = [
        CTX.Process(target=_count_under_lock, args=(path, counter, start)) for _ in range(WORKERS)
    ]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert int(counter.read_text()) == WORKERS * ROUNDS  # no update lost
    assert hidden_files(tmp_path) == []


def _append_labels(path: Path, k: int, start: Any) -> None:
    start.wait()
    for i in range(ROUNDS // 3):
        write.append_label(path, "u1", f"w{k}-{i}", fsync=False)
    os._exit(0)


def test_concurrent_appends_all_land_and_leave_no_lock_file(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = len(prime_nb.load(path))
    start = CTX.Event()
    workers = [CTX.Process(target=_append_labels, args=(path, k, start)) for k in range(WORKERS)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    session = prime_nb.load(path)
    assert len(session) == before + WORKERS * (ROUNDS // 3)
    assert session.problems.empty
    assert len(set(session.entries.index)) == len(session)
    assert hidden_files(tmp_path) == []


def test_threads_exclude_each_other_too(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    inside = 0
    most = 0
    guard = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(20):
            with appending.locked(path):
                with guard:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.0005)
                with guard:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert most == 1
    assert hidden_files(tmp_path) == []


def test_a_lock_held_by_filelock_is_respected_and_then_cleaned_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older prime_nb (filelock, which keeps its file) holding the lock: we wait for
    it, and the file it left is removed by the next write."""
    path = make_session(tmp_path / "s.jsonl")
    monkeypatch.setattr(appending, "LOCK_TIMEOUT", 0.2)
    refused = pytest.raises(prime_nb.SessionWriteError, match="held the lock file")
    with FileLock(appending.lock_path(path)), refused:
        write.append_label(path, "u1", "x")
    assert hidden_files(tmp_path) == [appending.lock_path(path).name]
    write.append_label(path, "u1", "x")
    assert hidden_files(tmp_path) == []
