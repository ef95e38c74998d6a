"""The widget's watch thread survives every failure, shows it, and keeps polling."""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

from prime_nb.widget import SessionWidget, show


def wait_for(condition: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def line(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def test_watch_survives_a_half_written_replacement_and_shows_it(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    widget = show(path, watch=True)
    assert widget._watcher is not None
    widget._watcher.interval = 0.02
    try:
        new = line(header(id="sess-2")) + line(msg("v1", None, "user", "new"))
        partial = tmp_path / "new.jsonl"
        partial.write_bytes(new[:25])  # the agent's new file, its header half written
        os.replace(partial, path)
        assert wait_for(lambda: "no session header" in widget.watch_error)
        assert widget.watch_error.startswith("live update failed: SessionFormatError: ")
        assert widget._watcher._thread.is_alive()
        assert widget.session.leaf_id == "u1"  # the session is as it was
        with open(path, "ab") as fh:
            fh.write(new[25:])
        assert wait_for(lambda: widget.session.leaf_id == "v1")
        assert wait_for(lambda: widget.watch_error == "")
        with open(path, "ab") as fh:  # and it goes on following appends
            fh.write(line(msg("v2", "v1", "assistant", "more", 1)))
        assert wait_for(lambda: widget.session.leaf_id == "v2")
    finally:
        widget.unwatch()


def test_watch_survives_any_exception(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    widget = show(path, watch=True)
    assert widget._watcher is not None
    widget._watcher.interval = 0.02
    calls: list[int] = []
    real = SessionWidget.refresh

    def flaky(self: SessionWidget) -> int:
        calls.append(1)
        if len(calls) <= 2:
            raise RuntimeError("boom from a table")
        return real(self)

    monkeypatch.setattr(SessionWidget, "refresh", flaky)
    try:
        with open(path, "ab") as fh:
            fh.write(line(msg("a1", "u1", "assistant", "y", 1)))
        assert wait_for(lambda: widget.session.leaf_id == "a1")  # retried without a new change
        assert len(calls) >= 3
        assert wait_for(lambda: widget.watch_error == "")
        assert widget._watcher._thread.is_alive()
    finally:
        widget.unwatch()


def test_watch_error_is_shown_until_the_next_success(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    widget = show(path, watch=True)
    assert widget._watcher is not None
    widget._watcher.interval = 0.02
    broken = {"on": True}
    real = SessionWidget.refresh

    def refresh(self: SessionWidget) -> int:
        if broken["on"]:
            raise KeyError("odd value")
        return real(self)

    monkeypatch.setattr(SessionWidget, "refresh", refresh)
    try:
        with open(path, "ab") as fh:
            fh.write(line(msg("a1", "u1", "assistant", "y", 1)))
        assert wait_for(lambda: widget.watch_error == "live update failed: KeyError: 'odd value'")
        broken["on"] = False
        assert wait_for(lambda: widget.watch_error == "")
        assert widget.session.leaf_id == "a1"
    finally:
        widget.unwatch()


def test_del_after_a_failed_constructor_raises_nothing(tmp_path: Path) -> None:
    seen: list[Any] = []
    previous = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        for bad in (tmp_path / "missing.jsonl", write_lines(tmp_path / "e.jsonl", [b"not json"])):
            with pytest.raises(
                (FileNotFoundError, ValueError),
                match=r"no such session file; check the path|no session header",
            ):
                SessionWidget(bad)
            gc.collect()
    finally:
        sys.unraisablehook = previous
    assert [f"{u.exc_type.__name__}: {u.exc_value}" for u in seen] == []
