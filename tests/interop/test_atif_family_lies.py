"""``to_atif`` over sessions whose ``parentSession`` links lie (a cycle of two files, a
file its own parent, a parent outside every folder), with ``family=True``.

``family=True`` reads as "find the family", as the default does; it raised
``AttributeError: 'bool' object has no attribute 'key'`` from deep inside. Anything
else that is no Family is refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_nb.interop import to_atif

T0 = "2026-01-05T10:00:00Z"


def _session(path: Path, session_id: str, parent: str) -> Path:
    reply = {"role": "assistant", "content": [{"type": "text", "text": "y"}],
             "usage": {"input": 1, "output": 1, "cost": {"total": 1}}}  # fmt: skip
    entries = [
        {
            "type": "session",
            "version": 3,
            "id": session_id,
            "timestamp": T0,
            "cwd": "/w",
            "parentSession": parent,
        },
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": T0,
            "message": {"role": "user", "content": "x"},
        },
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": T0, "message": reply},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "parents", [("b.jsonl", "a.jsonl"), ("a.jsonl", None), ("/etc/passwd", None)]
)
def test_family_true_is_the_default(tmp_path: Path, parents: tuple[str, str | None]) -> None:
    first = _session(tmp_path / "a.jsonl", "A", parents[0])
    if parents[1] is not None:
        _session(tmp_path / "b.jsonl", "B", parents[1])
    default = to_atif(first, tmp_path / "default")
    asked = to_atif(first, tmp_path / "asked", family=True)
    assert [p.name for p in asked] == [p.name for p in default]
    for one, two in zip(asked, default, strict=True):
        assert one.read_bytes() == two.read_bytes()


def test_a_family_that_is_no_family_is_refused(tmp_path: Path) -> None:
    first = _session(tmp_path / "a.jsonl", "A", "a.jsonl")
    with pytest.raises(TypeError, match="to_atif: family is str; pass a Family"):
        to_atif(first, tmp_path / "out", family="yes")  # type: ignore[arg-type]
