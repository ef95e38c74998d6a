"""``to_atif``'s files read by Harbor, which defines ATIF, and by Scout's ATIF importer:
Harbor's own validator (``harbor.utils.trajectory_validator``) accepts every file and
its models round-trip it; Scout's ``atif`` source imports each path as one transcript,
with compactions as compaction events, sub-agents inlined as agent spans and copied
history flagged.

Harbor needs Python 3.12 or newer and Scout's importer needs Harbor, so both run from a
virtual environment of their own (``.venv-harbor``, made by ``.ci/test`` from a Python
3.12+ it finds; ``PRIME_NB_HARBOR_PYTHON`` names another interpreter that has
``harbor`` and ``inspect-scout``). Without it the test fails and says how to make it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from session_matrix import shared_file

from prime_nb.interop import to_atif
from sessiongen import synthetic_family

REPO = Path(__file__).resolve().parents[2]
#: a compaction on each of two paths, tool calls with results; and the spec's dialect
SESSIONS = ("comp-on2-off0-forks1-v3-prime", "comp-on1-off1-forks2-v3-spec")

#: run by Harbor's interpreter: each file's validator errors and round trip, then what
#: Scout's ATIF source imports from the folder
READ_BACK = """
import asyncio, collections, json, sys
from pathlib import Path
from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator
from inspect_scout.sources import atif

folder = Path(sys.argv[1])
checked = {}
for path in sorted(folder.rglob("*.json")):
    validator = TrajectoryValidator()
    ok = validator.validate(path)
    doc = json.loads(path.read_text("utf-8"))
    same = ok and Trajectory.model_validate(doc).to_json_dict() == doc
    checked[path.name] = {"errors": validator.errors, "round_trip": same}

async def imported(where):
    return [
        {
            "id": t.transcript_id,
            "file": Path(t.source_uri).name,
            "messages": len(t.messages),
            "events": collections.Counter(type(e).__name__ for e in t.events),
            "copied": bool(t.metadata.get("has_copied_context")),
        }
        async for t in atif(where)
    ]

transcripts = []
for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
    transcripts += asyncio.run(imported(sub))
print(json.dumps({"checked": checked, "transcripts": transcripts}))
"""


def harbor_python() -> Path:
    given = os.environ.get("PRIME_NB_HARBOR_PYTHON")
    python = Path(given) if given else REPO / ".venv-harbor" / "bin" / "python"
    if not python.exists():
        pytest.fail(
            f"{python}: no Python with harbor to test against; run .ci/test (it makes "
            ".venv-harbor with harbor and inspect-scout from a Python 3.12 or newer) or set "
            "PRIME_NB_HARBOR_PYTHON",
            pytrace=False,
        )
    return python


def _export(folder: Path) -> dict[str, Path]:
    """Every leaf of the two sessions and of a family with sub-agents, a folder each;
    each written file by name."""
    files: list[Path] = []
    for name in SESSIONS:
        files += to_atif(shared_file(name), folder / name, leaf="all", family=False)
    family = synthetic_family(folder.parent / "family", seed=4)
    files += to_atif(family["root"], folder / "family", leaf="all")
    return {path.name: path for path in files}


def _doc(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return doc


@pytest.mark.alone
def test_harbor_validates_and_scout_imports_every_trajectory(tmp_path: Path) -> None:
    python = harbor_python()
    written = _export(tmp_path / "atif")
    done = subprocess.run(
        [str(python), "-c", READ_BACK, str(tmp_path / "atif")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)

    checked = result["checked"]
    assert sorted(checked) == sorted(written)
    assert {name: c["errors"] for name, c in checked.items() if c["errors"]} == {}
    assert all(c["round_trip"] for c in checked.values())

    subagents = {name for name in written if name.startswith("subagent-")}
    assert subagents, "the family's root spawns sub-agents"
    transcripts = {t["file"]: t for t in result["transcripts"]}
    # a sub-agent's file is inlined into the path that spawned it, not a transcript
    assert sorted(transcripts) == sorted(set(written) - subagents)
    for name, got in transcripts.items():
        doc = _doc(written[name])
        steps = doc["steps"]
        assert got["id"] == doc["trajectory_id"]
        assert got["messages"] > 0
        compactions = [s for s in steps if "context_management" in (s.get("extra") or {})]
        assert got["events"].get("CompactionEvent", 0) == len(compactions)
        refs = [
            ref
            for s in steps
            for r in (s.get("observation") or {}).get("results", [])
            for ref in r.get("subagent_trajectory_ref", [])
        ]
        assert got["events"].get("SpanBeginEvent", 0) >= len(refs)
        assert got["copied"] == any(s.get("is_copied_context") for s in steps)
    assert sum(t["events"].get("CompactionEvent", 0) for t in transcripts.values()) >= 3
    assert any(t["copied"] for t in transcripts.values())
    assert sum(t["events"].get("SpanBeginEvent", 0) for t in transcripts.values()) >= 1
