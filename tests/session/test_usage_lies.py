"""A usage whose cost lies (below 0, or ``1e400``, which JSON readers take as infinite)
is reported with its line, as counts that lie are. An infinite cost is missing, so the
session's cost and every sum over it stay finite; a cost below 0 is kept as written, as
a count below 0 is."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import prime_nb

T0 = "2026-01-05T10:00:00Z"


def _assistant(entry_id: str, parent: str, usage: dict[str, Any]) -> str:
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "model": "m",
        "provider": "p",
        "usage": usage,
    }
    entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": T0}
    return json.dumps({**entry, "message": message})


def test_costs_that_lie_are_reported(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": T0, "cwd": "/w"}
    user = {"type": "message", "id": "u1", "parentId": None, "timestamp": T0,
            "message": {"role": "user", "content": "hi"}}  # fmt: skip
    lines = [
        json.dumps(header),
        json.dumps(user),
        _assistant("a1", "u1", {"input": 1, "output": 1, "cost": {"total": -3}}),
        _assistant("a2", "a1", {"input": 1, "output": 1, "cost": {"total": 1.0}}).replace(
            '"total": 1.0', '"total": 1e400'
        ),
        _assistant("a3", "a2", {"input": 1, "output": 2**63, "cost": {"total": -1.0}}).replace(
            '"total": -1.0', '"total": -1e400'
        ),
        _assistant("a4", "a3", {"input": 1, "output": 1, "cost": {"total": 0.5}}),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    session = prime_nb.load(path)
    said = [(p.line, p.severity, p.message) for p in session.problems.itertuples()]
    assert said == [
        (3, "warning", "usage cost=-3 below 0; kept as written"),
        (4, "warning", "usage cost=inf infinite; kept as missing"),
        (
            5,
            "warning",
            "usage output=9223372036854775808, totalTokens=None outside -2**63..2**63-1; "
            "kept as missing",
        ),
        (5, "warning", "usage cost=-inf infinite; kept as missing"),
    ]
    costs = session.messages["cost"]
    assert costs.loc["a1"] == -3.0
    assert math.isnan(costs.loc["a2"]) and math.isnan(costs.loc["a3"])
    assert session.summary()["cost"] == -2.5  # finite: what the file says that is usable
