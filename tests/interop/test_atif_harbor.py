"""``to_atif``'s files read by Harbor, which defines ATIF, and by Scout's ATIF importer:
Harbor's own validator (``harbor.utils.trajectory_validator``) accepts every file and
its models round-trip it; Scout's ``atif`` source imports each path as one transcript,
with compactions as compaction events, sub-agents inlined as agent spans and copied
history flagged. Harbor's own agent for pi (whose session format this is) converts a
session's active path to ATIF itself: on ordinary files its tokens, cost, tool calls
and steps are ``to_atif``'s.

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

import prime_nb
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


#: Harbor's pi agent, run on session files without running pi: its conversion of each
#: file's active path, in the figures both conversions give
HARBOR_PI = """
import json, logging, sys, tempfile
from pathlib import Path
from harbor.agents.installed.pi import Pi

agent = Pi.__new__(Pi)  # the conversion only: no environment, no model
agent.model_name, agent.logger = None, logging.getLogger("pi")
agent.logs_dir, agent.version = Path(tempfile.mkdtemp()), lambda: "unknown"
out = {}
for path in sorted(Path(sys.argv[1]).glob("*.jsonl")):
    lines = path.read_text("utf-8").splitlines()
    events = [(n, json.loads(line)) for n, line in enumerate(lines, start=1)]
    t = agent._convert_session_events_to_trajectory(agent._active_session_events(events))
    out[path.name] = {
        "prompt": t.final_metrics.total_prompt_tokens,
        "completion": t.final_metrics.total_completion_tokens,
        "cached": t.final_metrics.total_cached_tokens,
        "cost": t.final_metrics.total_cost_usd or 0.0,
        "calls": [c.tool_call_id for s in t.steps for c in s.tool_calls or []],
        "results": [
            r.source_call_id for s in t.steps if s.observation for r in s.observation.results
        ],
        "entries": [
            s.extra["pi_event_id"] for s in t.steps if s.extra and "pi_event_id" in s.extra
        ],
    }
print(json.dumps(out))
"""

#: ordinary sessions in pi's own form (version 3, its dialect): compactions, forks,
#: tool calls, bash runs
PI_SESSIONS = (
    "comp-on0-off3-forks3-v3-prime",
    "comp-on1-off1-forks1-v3-prime",
    "comp-on2-off2-forks6-v3-prime",
    "comp-on8-off0-forks0-v3-prime",
    "synthetic-v3-prime-forks5",
)


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    """What Harbor's pi agent reports, read off a ``to_atif`` file."""
    steps, totals = doc["steps"], doc["final_metrics"]
    return {
        "prompt": totals["total_prompt_tokens"],
        "completion": totals["total_completion_tokens"],
        "cached": totals["total_cached_tokens"],
        "cost": totals.get("total_cost_usd", 0.0),
        "calls": [c["tool_call_id"] for s in steps for c in s.get("tool_calls", [])],
        "results": [
            r["source_call_id"]
            for s in steps
            for r in (s.get("observation") or {}).get("results", [])
            if "source_call_id" in r
        ],
    }


def test_harbor_pi_agent_converts_the_active_path_as_to_atif_does(tmp_path: Path) -> None:
    python = harbor_python()
    folder = tmp_path / "sessions"
    folder.mkdir()
    ours: dict[str, dict[str, Any]] = {}
    for name in PI_SESSIONS:
        source = folder / f"{name}.jsonl"
        source.write_bytes(shared_file(name).read_bytes())
        (written,) = to_atif(source, tmp_path / f"{name}.json", family=False)
        ours[source.name] = _doc(written)
    done = subprocess.run(
        [str(python), "-c", HARBOR_PI, str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    harbor = json.loads(done.stdout)
    assert sorted(harbor) == sorted(ours)
    for name, doc in ours.items():
        theirs = harbor[name]
        mine = _figures(doc)
        assert mine["calls"], "each session makes tool calls"
        for key in ("prompt", "completion", "cached", "calls", "results"):
            assert mine[key] == theirs[key], (name, key)
        assert mine["cost"] == pytest.approx(theirs["cost"])
        # the same entries, in the same order; to_atif also keeps bash runs and
        # extensions' messages (user steps), which Harbor's pi agent drops
        roles = prime_nb.load(folder / name).entries["role"]
        dropped = set(roles.index[roles.isin(["bashExecution", "custom"])])
        kept = [s["extra"]["entry_id"] for s in doc["steps"]]
        kept = [entry_id for entry_id in kept if entry_id not in dropped]
        assert kept == theirs["entries"]
