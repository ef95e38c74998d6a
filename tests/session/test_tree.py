"""Children are ordered by time (ties and missing times by file order), however they come:
newest first, shuffled, or appended out of order by later refreshes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import prime_nb
from sessiongen import write_shape


def expected_children(lines: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each parent's children sorted by (time, line), missing times last."""
    out: dict[str, list[tuple[float, int, str]]] = {}
    for k, e in enumerate(lines[1:]):
        t = e.get("timestamp")
        key = float(t) if isinstance(t, int | float) else float("inf")
        if e["parentId"] is not None:
            out.setdefault(e["parentId"], []).append((key, k, e["id"]))
    return {p: [i for _, _, i in sorted(kids)] for p, kids in out.items()}


def star(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s"}]
    ids = ["r0"]
    lines.append(
        {
            "type": "message",
            "id": "r0",
            "parentId": None,
            "timestamp": 0,
            "message": {"role": "user", "content": "q"},
        }
    )
    for i in range(1, n):
        parent = rng.choice(ids[:3] + ids[-2:])
        stamp = rng.choice([rng.randint(0, 50), None, 10])
        entry = {
            "type": "message",
            "id": f"e{i}",
            "parentId": parent,
            "message": {"role": "user", "content": "x"},
        }
        if stamp is not None:
            entry["timestamp"] = stamp
        lines.append(entry)
        ids.append(f"e{i}")
    return lines


def children_of(session: prime_nb.Session) -> dict[str, list[str]]:
    return {i: session.children(i) for i in session.entries.index if session.children(i)}


@pytest.mark.parametrize("seed", range(12))
def test_shuffled_times_are_sorted_on_load_and_on_refresh(seed: int, tmp_path: Path) -> None:
    lines = star(seed, 120)
    path = tmp_path / "s.jsonl"
    cut = len(lines) // 2
    path.write_text("".join(json.dumps(e) + "\n" for e in lines[:cut]))
    session = prime_nb.load(path)
    assert children_of(session) == expected_children(lines[:cut])
    with path.open("a") as fh:
        for e in lines[cut:]:
            fh.write(json.dumps(e) + "\n")
            if random.Random(seed).random() < 0.3:
                fh.flush()
                session.refresh()
    session.refresh()
    assert children_of(session) == expected_children(lines)
    assert children_of(prime_nb.load(path)) == expected_children(lines)


def test_siblings_written_newest_first(tmp_path: Path) -> None:
    path = write_shape(tmp_path / "r.jsonl", "reverse_siblings", 3_000)
    session = prime_nb.load(path)
    root = session.entries.index[0]
    kids = session.children(root)
    assert len(kids) == 2_999
    assert kids == list(reversed(session.entries.index[1:]))
