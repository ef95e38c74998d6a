"""I/O failures (disk full, permission denied, flush errors, a held lock) give a clear
exception; what is on disk stays intact and loadable; the next append starts afresh."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from write_support import make_session

import prime_nb
from prime_nb import write
from prime_nb.write import _appending as appending

USER = {"role": "user", "content": "hello again"}


def _patch_session_writes(
    monkeypatch: pytest.MonkeyPatch, fake: Any
) -> None:  # only writes to session files; pytest and filelock keep the real os.write
    real = os.write

    def write_hook(fd: int, data: Any) -> int:
        if os.path.realpath(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            return int(fake(real, fd, data))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write_hook)


def test_disk_full_after_a_partial_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    calls: list[int] = []

    def ten_bytes_then_full(real: Any, fd: int, data: Any) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return int(real(fd, bytes(data[:10])))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    _patch_session_writes(monkeypatch, ten_bytes_then_full)
    with pytest.raises(prime_nb.SessionWriteError, match="disk is full") as caught:
        write.append_message(path, "a3", USER)
    assert caught.value.errno == errno.ENOSPC
    assert "partial line of 10 bytes" in str(caught.value)
    assert "next append starts on a fresh line" in str(caught.value)
    monkeypatch.undo()

    data = path.read_bytes()
    assert data.startswith(before) and len(data) == len(before) + 10
    s = prime_nb.load(path)
    assert s.problems["kind"].tolist() == ["torn_line"]
    with pytest.warns(prime_nb.TornLineWarning):
        new_id = write.append_message(path, "a3", USER)
    assert s.refresh() == 1 and s.leaf_id == new_id
    assert s.problems["kind"].tolist() == ["invalid_json"]


def test_disk_full_before_any_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()

    def full(real: Any, fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    _patch_session_writes(monkeypatch, full)
    with pytest.raises(prime_nb.SessionWriteError, match="disk is full"):
        write.append_fork(path, "a3", [USER, USER])
    assert path.read_bytes() == before


def test_free_space_is_checked_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    no_room = os.statvfs_result((4096, 4096, 1000, 0, 0, 100, 0, 0, 0, 255))
    monkeypatch.setattr(os, "fstatvfs", lambda fd: no_room)
    with pytest.raises(prime_nb.SessionWriteError, match=r"disk is full \(0 bytes free"):
        write.append_label(path, "u1", "x")
    assert path.read_bytes() == before


def test_short_writes_are_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")
    sizes: list[int] = []

    def seven_at_a_time(real: Any, fd: int, data: Any) -> int:
        sizes.append(int(real(fd, bytes(data[:7]))))
        return sizes[-1]

    _patch_session_writes(monkeypatch, seven_at_a_time)
    new_id = write.append_message(path, "a3", USER)
    assert len(sizes) > 10
    assert prime_nb.load(path).entry(new_id)["message"]["content"] == "hello again"


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")
    before = path.read_bytes()
    real_open = os.open

    def refuse(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(file) == str(path):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(prime_nb.SessionWriteError, match="permission denied") as caught:
        write.append_message(path, "a3", USER)
    assert caught.value.errno == errno.EACCES
    monkeypatch.undo()
    assert path.read_bytes() == before


def test_flush_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")

    def broken_fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(prime_nb.SessionWriteError, match="could not be flushed"):
        write.append_message(path, "a3", USER)
    new_id = write.append_message(path, "a3", USER, fsync=False)  # no flush asked, no error
    monkeypatch.undo()
    assert new_id in prime_nb.load(path).entries.index


def test_a_held_lock_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_session(tmp_path / "s.jsonl")
    monkeypatch.setattr(appending, "LOCK_TIMEOUT", 0.2)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with FileLock(appending.lock_path(path)):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    try:
        with pytest.raises(prime_nb.SessionWriteError, match="held the lock file"):
            write.append_label(path, "u1", "x")
    finally:
        release.set()
        holder.join()
    write.append_label(path, "u1", "x")
