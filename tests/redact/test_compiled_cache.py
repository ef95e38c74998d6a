"""Compiled Hyperscan databases kept in the cache folder: used when sound, never trusted.

A saved database is loaded only when its header names the same key and its payload has
the recorded digest; every damaged, foreign or odd file (a FIFO, a folder, too large)
is passed over and the database compiled again, with the same hits, no crash, no hang.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import hyperscan
import pytest

from prime_nb.redact import _compiled

EXPRESSIONS = [b"abc", b"x[0-9]+y"]
TEXT = b"-- abc x12y abc"
WANT = [(0, 6), (1, 11), (0, 15)]


def _hits(db: Any) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []

    def event(item: int, _from: int, end: int, _flags: int, _ctx: object) -> bool:
        found.append((item, end))
        return False

    db.scan(TEXT, match_event_handler=event)
    return found


def _build() -> Any:
    return _compiled.compiled(EXPRESSIONS, [0, 1], [0, 0])


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PRIME_NB_HYPERSCAN_CACHE", str(tmp_path / "hs"))
    return tmp_path / "hs"


def _saved(folder: Path) -> Path:
    (path,) = folder.glob("*.hsdb")
    return path


def _no_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    class Refused:
        def __init__(self, **_: Any) -> None:
            raise AssertionError("compiled although a sound copy was saved")

    monkeypatch.setattr(hyperscan, "Database", Refused)


def test_saved_then_loaded(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _hits(_build()) == WANT
    assert _saved(folder).read_bytes().startswith(_compiled.MAGIC)
    _no_compile(monkeypatch)
    assert _hits(_build()) == WANT


def _flip(raw: bytes) -> bytes:
    at = len(raw) - 40
    return raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1 :]


def _foreign(raw: bytes) -> bytes:
    """Another database's header and payload under this one's name."""
    other = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    other.compile(expressions=[b"zzz"], ids=[0], elements=1, flags=[0])
    payload = hyperscan.dumpb(other)
    key = _compiled.database_key([b"zzz"], [0], [0], None)
    return _compiled.MAGIC + key + hashlib.sha256(payload).digest() + payload


def _garbage_with_digest(raw: bytes) -> bytes:
    """The right header and a digest that matches, over bytes Hyperscan cannot load."""
    head = len(_compiled.MAGIC) + 32
    payload = bytes(range(256)) * 8
    return raw[:head] + hashlib.sha256(payload).digest() + payload


DAMAGES = {
    "a payload byte flipped": _flip,
    "cut short": lambda raw: raw[: len(raw) // 2],
    "empty": lambda raw: b"",
    "no header": lambda raw: raw[len(_compiled.MAGIC) + 64 :],
    "another database's": _foreign,
    "garbage with its digest": _garbage_with_digest,
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_damaged_copy_is_compiled_again(folder: Path, damage: str) -> None:
    _build()
    path = _saved(folder)
    path.write_bytes(DAMAGES[damage](path.read_bytes()))
    assert _hits(_build()) == WANT
    assert _compiled._load(path, _compiled.database_key(EXPRESSIONS, [0, 1], [0, 0], None))


@pytest.mark.parametrize("kind", ["fifo", "folder", "too large"])
def test_odd_file_in_its_place(folder: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    _build()
    path = _saved(folder)
    if kind == "too large":
        monkeypatch.setattr(_compiled, "MAX_BYTES", 16)
    else:
        path.unlink()
        os.mkfifo(path) if kind == "fifo" else path.mkdir()
    assert _hits(_build()) == WANT  # a FIFO is never waited on


def test_folder_that_cannot_be_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("PRIME_NB_HYPERSCAN_CACHE", str(tmp_path / "file" / "hs"))
    assert _hits(_build()) == WANT


def test_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIME_NB_HYPERSCAN_CACHE", "0")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _hits(_build()) == WANT
    assert not list(tmp_path.rglob("*.hsdb"))


@pytest.mark.parametrize("setting", [None, "", "1"])
def test_cache_in_the_user_folder_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str | None
) -> None:
    if setting is None:
        monkeypatch.delenv("PRIME_NB_HYPERSCAN_CACHE", raising=False)
    else:
        monkeypatch.setenv("PRIME_NB_HYPERSCAN_CACHE", setting)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _hits(_build()) == WANT
    folder = tmp_path / "prime-nb" / "hyperscan"
    assert len(list(folder.glob("*.hsdb"))) == 1
    assert folder.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("bits", [0o020, 0o002])
def test_a_copy_others_may_write_is_compiled_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch, bits: int
) -> None:
    """A database another user could have written is never handed to the loader, even
    with a sound header and digest (a crafted payload could be)."""
    _build()
    path = _saved(folder)
    path.chmod(0o644 | bits)
    loaded: list[bytes] = []
    monkeypatch.setattr(hyperscan, "loadb", lambda raw, mode: loaded.append(raw))
    assert _hits(_build()) == WANT
    assert not loaded


def test_windows_are_kept(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regex's windows are saved too: a second process loads them, with the same
    answers."""
    import re

    from prime_nb.redact._prefilter import Windows

    pattern = re.compile(r"pass\w*\s*=\s*\S{6,}")
    text = "x password = hunter22 AKIA" + "B" * 16
    spans = [m.span() for m in Windows(pattern).finditer(text)]
    assert spans == [(2, 21)]
    assert len(list(folder.glob("*.hsdb"))) == 1
    _no_compile(monkeypatch)
    assert [m.span() for m in Windows(pattern).finditer(text)] == spans
