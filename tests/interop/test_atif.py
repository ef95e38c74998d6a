"""``to_atif``: every path of the session matrix is a valid ATIF trajectory (the ``atif``
package's models) that round-trips, with every message entry of the path in it; usage,
thinking, calls, compactions and sub-agents land where ATIF and Harbor put them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from session_matrix import CASES, clean_lines, write_case, write_lines

import prime_nb
from prime_nb.errors import EntryNotFoundError
from prime_nb.interop import to_atif
from sessiongen import synthetic_family

#: roles and entry types that say something: each must be a step, call or result
SAYING_ROLES = {"user", "assistant", "toolResult", "bashExecution", "custom"}
SAYING_TYPES = {"compaction", "branch_summary", "custom_message"}


def _read(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return doc


def _entry_ids(doc: dict[str, Any]) -> list[str]:
    """Every entry id a trajectory names: steps, tool calls, observation results."""
    out = []
    for step in doc["steps"]:
        out.append(step["extra"]["entry_id"])
        out += [c["extra"]["entry_id"] for c in step.get("tool_calls", [])]
        for result in (step.get("observation") or {}).get("results", []):
            if "entry_id" in (result.get("extra") or {}):
                out.append(result["extra"]["entry_id"])
    return out


def _saying(session: prime_nb.Session, leaf_id: str) -> set[str]:
    entries = session.entries.loc[session.path(leaf_id)]
    keep = entries["role"].isin(list(SAYING_ROLES)) | entries["type"].isin(list(SAYING_TYPES))
    return set(entries.index[keep])


@pytest.mark.parametrize("name", CASES)
def test_every_path_of_the_matrix_is_valid_atif(name: str, tmp_path: Path) -> None:
    import atif  # here: its pydantic models cost every worker's collection

    session = prime_nb.load(write_case(name, tmp_path))
    files = to_atif(session, tmp_path / "out", leaf="all", family=False)
    leaves = [str(x) for x in session.leaves.index]
    assert len(files) == len(set(files))
    written = {}
    for path in files:
        doc = _read(path)
        trajectory = atif.Trajectory.model_validate(doc)
        assert trajectory.to_json_dict() == doc  # round trip: nothing the models drop
        assert atif.Trajectory.model_validate_json(path.read_bytes()) == trajectory
        written[doc["extra"]["leaf_id"]] = doc
    for leaf_id in leaves:
        saying = _saying(session, leaf_id)
        if not saying:
            assert leaf_id not in written  # no message on the path: no file
            continue
        doc = written[leaf_id]
        named = _entry_ids(doc)
        assert set(named) == saying, "every message entry of the path, and only those"
        order = {eid: n for n, eid in enumerate(session.path(leaf_id))}
        steps = [s["extra"]["entry_id"] for s in doc["steps"]]
        assert [s["step_id"] for s in doc["steps"]] == list(range(1, len(steps) + 1))
        assert steps == sorted(steps, key=order.__getitem__)
        assert doc["session_id"] and doc["agent"]["name"] == "prime-agent"


def _rich_session(folder: Path) -> Path:
    """The matrix's clean session with cache usage and thinking on its first answer."""
    lines: list[Any] = clean_lines()
    answer = lines[2]["message"]
    answer["usage"] = {
        "input": 10,
        "output": 5,
        "cacheRead": 700,
        "cacheWrite": 30,
        "totalTokens": 745,
        "cost": {"total": 0.25},
    }
    answer["content"].insert(0, {"type": "thinking", "thinking": "look at a.py first"})
    path: Path = write_lines(folder / "rich.jsonl", lines)
    return path


def test_a_step_holds_usage_thinking_calls_and_results(tmp_path: Path) -> None:
    (path,) = to_atif(_rich_session(tmp_path), tmp_path / "out", family=False)
    steps = _read(path)["steps"]
    agent = next(s for s in steps if s["extra"]["entry_id"] == "a1")
    assert agent["source"] == "agent" and agent["model_name"] == "claude-x"
    assert agent["reasoning_content"] == "look at a.py first"
    assert agent["message"] == "reading"
    assert agent["metrics"]["prompt_tokens"] == 10 + 700 + 30
    assert agent["metrics"]["cached_tokens"] == 700
    assert agent["metrics"]["extra"]["cache_write_tokens"] == 30
    assert agent["metrics"]["completion_tokens"] == 5
    assert agent["metrics"]["cost_usd"] == 0.25
    (call,) = agent["tool_calls"]
    assert call["function_name"] == "read" and call["arguments"] == {"path": "src/a.py"}
    (result,) = agent["observation"]["results"]
    assert result["source_call_id"] == call["tool_call_id"]
    assert result["content"] == "print(1)" and result["extra"]["entry_id"] == "t1"


def test_a_compaction_is_a_system_step_keeping_its_summary(tmp_path: Path) -> None:
    (path,) = to_atif(_rich_session(tmp_path), tmp_path / "out", family=False)
    doc = _read(path)
    step = next(s for s in doc["steps"] if s["extra"]["entry_id"] == "c1")
    assert step["source"] == "system"
    assert step["message"] == "the story so far"
    managed = step["extra"]["context_management"]
    assert managed["type"] == "compaction" and managed["summary"] == "the story so far"
    assert managed["first_kept_entry_id"] == "u2" and managed["tokens_before"] == 1000
    assert doc["extra"]["leaf_id"] == "a4" and doc["extra"]["is_active_leaf"] is True


def test_leaf_chooses_the_path_and_a_json_dest_is_the_file(tmp_path: Path) -> None:
    source = _rich_session(tmp_path)
    (side,) = to_atif(source, tmp_path / "side.json", leaf="x1", family=False)
    assert side == tmp_path / "side.json"
    # steps u1, a1 (its call and the result t1 inside it), a2, x1
    assert _entry_ids(_read(side)) == ["u1", "a1", "a1", "t1", "a2", "x1"]
    with pytest.raises(EntryNotFoundError, match="'nope'"):
        to_atif(source, tmp_path / "x", leaf="nope", family=False)


def test_every_leaf_marks_the_history_an_earlier_file_holds_as_copied(tmp_path: Path) -> None:
    source = _rich_session(tmp_path)
    files = to_atif(source, tmp_path / "all", leaf="all", family=False)
    docs = [_read(path) for path in files]
    assert [doc["extra"]["is_active_leaf"] for doc in docs] == [True, False]
    assert not any(step.get("is_copied_context") for step in docs[0]["steps"])
    side = {s["extra"]["entry_id"]: s.get("is_copied_context", False) for s in docs[1]["steps"]}
    assert side == {"u1": True, "a1": True, "a2": True, "x1": False}
    # each entry is an original (not copied) step in exactly one file
    originals = [
        eid
        for doc in docs
        for step in doc["steps"]
        if not step.get("is_copied_context")
        for eid in [step["extra"]["entry_id"]]
    ]
    assert len(originals) == len(set(originals))
    assert set(originals) == {s["extra"]["entry_id"] for doc in docs for s in doc["steps"]}
    # the totals count the original steps only, so summed over the files each turn once
    session = prime_nb.load(source)
    tokens = session.entries["output_tokens"].fillna(0).sum()
    assert sum(doc["final_metrics"]["total_completion_tokens"] for doc in docs) == tokens
    assert [doc["final_metrics"]["total_steps"] for doc in docs] == [
        len(docs[0]["steps"]),
        1,
    ]


def test_an_empty_session_has_no_path(tmp_path: Path) -> None:
    path = write_case("empty-v3-prime", tmp_path)
    with pytest.raises(
        ValueError,
        match=r"empty-v3-prime\.jsonl: the session has no entries, so no path to write; pass",
    ):
        to_atif(path, tmp_path / "out", family=False)
    assert to_atif(path, tmp_path / "out", leaf="all", family=False) == []


def test_sub_agents_are_files_their_spawning_step_refers_to(tmp_path: Path) -> None:
    import atif  # here: its pydantic models cost every worker's collection

    files = synthetic_family(tmp_path / "family")
    written = to_atif(files["root"], tmp_path / "out")
    assert len(written) == 3  # the root's active path, the sub-agent, its own sub-agent
    family = prime_nb.load_family(files["root"])
    links = family.links[family.links["kind"] == "subagent"]
    refs = {}
    for path in written:
        doc = _read(path)
        atif.Trajectory.model_validate(doc)
        for step in doc["steps"]:
            for result in (step.get("observation") or {}).get("results", []):
                for ref in result.get("subagent_trajectory_ref") or []:
                    target = path.parent / ref["trajectory_path"]
                    assert target in written
                    refs[step["extra"]["entry_id"]] = _read(target)["session_id"]
    assert refs == dict(zip(links["parent_entry"], links["child"], strict=True))


def test_without_the_extra_the_error_names_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "atif", None)
    with pytest.raises(ImportError, match=r"pip install 'prime-nb\[atif\]'") as caught:
        to_atif(_rich_session(tmp_path), tmp_path / "out", family=False)
    assert isinstance(caught.value.__cause__, ImportError)


def test_a_step_the_models_refuse_stops_the_write(tmp_path: Path) -> None:
    """Each step is validated by ATIF's models (one step at a time, to hold one step's
    models): the last step with an unknown source, or a cost that is not a number,
    raises."""
    from pydantic import ValidationError

    from prime_nb.interop._atif import _Writer

    writer = _Writer(tmp_path, None)
    source = _rich_session(tmp_path)
    (path,) = to_atif(source, tmp_path / "ok.json", family=False)
    doc = _read(path)
    writer.validate(doc)  # what to_atif wrote passes
    last = len(doc["steps"]) - 1
    for bad, field in (({"source": "robot"}, "source"), ({"metrics": {"cost_usd": "x"}}, "cost")):
        steps = [*doc["steps"][:last], {**doc["steps"][last], **bad}]
        with pytest.raises(ValidationError, match=field):
            writer.validate({**doc, "steps": steps})
