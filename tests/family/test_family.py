"""Session families: linking, fork/sub-agent kinds, counting once, moved folders, problems.

Ground truth for the roll-up is computed here from the raw JSON lines, independently of
prime_nb: on disk a message's ``usage`` is its own (the aggregate lives only in the
``child_usage_attributed`` entries), and a copied entry has the same id as its source.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, header, msg, write_lines

import prime_nb
from prime_nb.family import facts_of, families_frame, load_family
from sessiongen import synthetic_family, synthetic_session

AGENT = "agent-written"


def raw(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def own_cost_on_disk(paths: list[Path]) -> float:
    """Cost of the assistant messages of these files, each entry id once."""
    seen: dict[str, float] = {}
    for path in paths:
        for obj in raw(path)[1:]:
            message = obj.get("message") or {}
            if obj.get("type") == "message" and message.get("role") == "assistant":
                seen.setdefault(obj["id"], message["usage"]["cost"]["total"])
    return sum(seen.values())


def row(family: prime_nb.Family, path: Path) -> dict[str, Any]:
    sessions = family.sessions
    return sessions.loc[sessions["path"] == str(path)].iloc[0].to_dict()


# -- the agent-written fork ---------------------------------------------------------------
def test_agent_fork_links_to_its_source_by_id(fixtures_dir: Path) -> None:
    fork = fixtures_dir / AGENT / "agent-branched-a8.jsonl"
    source = fixtures_dir / AGENT / "feature-tour.jsonl"
    family = load_family(fork)
    assert sorted(family.sessions["path"]) == sorted([str(fork), str(source)])
    child = row(family, fork)
    assert child["kind"] == "fork" and child["resolved_by"] == "id"
    assert child["parent"] == "01a2377e-e8b6-726f-b5a9-b5ac2c2e4375"
    # the agent forked at 7834fdef: every entry up to it is a copy, the labels are new
    agent = json.loads((fixtures_dir / AGENT / "agent-branched-a8.agent.json").read_text())
    assert child["forked_from"] == "7834fdef"
    assert child["shared_entries"] == len(raw(fork)) - 1 - 2
    assert child["own_cost"] == 0.0 and child["own_tokens"] == 0
    # counted once: the family spends what the source spends (own + attributed child)
    source_summary = prime_nb.load(source).summary()
    assert family.totals["cost"] == pytest.approx(source_summary["cost"])
    assert family.totals["tokens"] == source_summary["tokens"]
    assert family.totals["naive_cost"] == pytest.approx(
        source_summary["cost"] + prime_nb.load(fork).summary()["cost"]
    )
    # the context at the fork's leaf is the agent's own
    context = family.context("agent-branched-a8.jsonl", agent["leafId"])
    expected = agent["contexts"][agent["leafId"]]["messages"]
    assert [m["entry_id"] for m in context] == [m["entryId"] for m in expected]
    links = family.links
    assert links.to_dict("records") == [
        {
            "parent": child["parent"],
            "parent_entry": "7834fdef",
            "child": child["session"],
            "child_root": "e0080488",
            "kind": "fork",
        }
    ]
    graph = family.graph
    assert graph.edges[(child["parent"], "7834fdef"), (child["session"], "e0080488")] == {
        "kind": "fork"
    }
    assert graph.number_of_nodes() == child["entries"] + row(family, source)["entries"]


def test_the_fixture_folder_reports_the_ambiguous_and_duplicate_sessions(
    fixtures_dir: Path,
) -> None:
    family = load_family(fixtures_dir)
    problems = family.problems
    ambiguous = problems[problems["kind"] == "ambiguous_parent"]
    assert ambiguous["path"].tolist() == [str(fixtures_dir / AGENT / "agent-branched-a8.jsonl")]
    assert (
        ambiguous["message"]
        .str.contains(r"matches 3 sessions by id; chose .*feature-tour\.jsonl$")
        .all()
    )
    duplicates = problems[problems["kind"] == "duplicate_session"]
    # agent-read/glued-repaired.jsonl is compaction-heavy again, first in path order, so
    # compaction-heavy and glued (the same session, two lines glued) are its duplicates
    assert sorted(Path(p).name for p in duplicates["path"]) == [
        "compaction-heavy-v1.jsonl",
        "compaction-heavy-v2.jsonl",
        "compaction-heavy.jsonl",
        "feature-tour-v1.jsonl",
        "feature-tour-v2.jsonl",
        "glued.jsonl",
    ]
    assert family.key("feature-tour-v1.jsonl").endswith("@feature-tour-v1.jsonl")
    assert len(family.roots) == len(family) - 1


ALL_FIXTURES = sorted(p.name for p in FIXTURES.rglob("*.jsonl"))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_a_lone_session_is_a_family_of_one_with_its_own_totals(
    fixtures_dir: Path, tmp_path: Path, name: str
) -> None:
    """Alone in a folder, every fixture's family spends exactly what the session does."""
    source = next(fixtures_dir.rglob(name))
    path = Path(shutil.copy(source, tmp_path / name))
    family = load_family(path)
    summary = prime_nb.load(path).summary()
    assert len(family) == 1
    assert family.totals["tokens"] == summary["tokens"]
    assert family.totals["cost"] == pytest.approx(summary["cost"])
    assert family.totals["unique_entries"] == summary["entries"]
    assert family.graph.number_of_nodes() == summary["entries"]
    first = json.loads(path.read_text().splitlines()[0])  # a later line may be glued
    expected = [] if "parentSession" not in first else ["missing_parent"]
    assert family.problems["kind"].tolist() == expected


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("dialect", ["prime", "spec"])
def test_synthetic_sessions_of_every_version_and_dialect(
    tmp_path: Path, version: int, dialect: str
) -> None:
    path = synthetic_session(tmp_path / "s.jsonl", version=version, dialect=dialect)
    family = load_family(path)
    summary = prime_nb.load(path).summary()
    assert family.totals["tokens"] == summary["tokens"]
    assert family.totals["cost"] == pytest.approx(summary["cost"])
    # its child_usage_attributed names a sub-agent that is not there: counted once, unmatched
    if version > 1:
        assert family.totals["unmatched_child_cost"] > 0
        assert family.sessions["child_cost"].iloc[0] == pytest.approx(
            family.totals["unmatched_child_cost"]
        )


# -- the synthetic 3-level family ---------------------------------------------------------
@pytest.fixture(params=[(3, "prime"), (2, "prime"), (3, "spec")], ids=lambda p: f"v{p[0]}-{p[1]}")
def written(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Path]:
    version, dialect = request.param
    return synthetic_family(tmp_path / "agent", seed=3, version=version, dialect=dialect)


def test_three_levels_of_forks_and_subagents(written: dict[str, Path]) -> None:
    for start in written.values():  # any member finds the whole family
        family = load_family(start)
        assert sorted(family.sessions["path"]) == sorted(map(str, written.values()))
    sessions = family.sessions.set_index("path")
    by_role = {role: sessions.loc[str(path)] for role, path in written.items()}
    key = {role: r["session"] for role, r in by_role.items()}
    expect = {
        "root": ("root", None, 0, 0),
        "fork": ("fork", "root", 0, 1),
        "fork_of_fork": ("fork", "fork", 0, 2),
        "subagent": ("subagent", "root", 1, 1),
        "subagent_of_subagent": ("subagent", "subagent", 2, 2),
    }
    for role, (kind, parent, depth, level) in expect.items():
        r = by_role[role]
        assert (r["kind"], r["rlm_depth"], r["level"]) == (kind, depth, level), role
        assert (r["parent"] if isinstance(r["parent"], str) else None) == (
            key[parent] if parent else None
        )
        assert r["family"] == key["root"]
        assert r["resolved_by"] == ("path" if parent else None) or not parent
    assert family.problems.empty
    # fork points: a fork's last copied entry; a sub-agent's: the message attributed to
    for role in ("fork", "fork_of_fork"):
        lines = raw(written[role])[1:]
        source = {o["id"] for o in raw(written[expect[role][1]])[1:]}
        copied = [o["id"] for o in lines if o["id"] in source]
        assert by_role[role]["forked_from"] == copied[-1]
        assert by_role[role]["shared_entries"] == len(copied)
    for role in ("subagent", "subagent_of_subagent"):
        parent_lines = raw(written[expect[role][1]])[1:]
        targets = {o["targetId"] for o in parent_lines if o["type"] == "child_usage_attributed"}
        assert targets == {by_role[role]["forked_from"]}


def test_three_levels_count_each_entry_and_each_subagent_once(written: dict[str, Path]) -> None:
    family = load_family(written["root"])
    totals = family.totals
    lineage = [written["root"], written["fork"], written["fork_of_fork"]]
    expected = own_cost_on_disk(lineage) + sum(
        own_cost_on_disk([written[r]]) for r in ("subagent", "subagent_of_subagent")
    )
    assert totals["cost"] == pytest.approx(expected)
    assert totals["unmatched_child_cost"] == 0
    ids = [{o["id"] for o in raw(p)[1:]} for p in written.values()]
    assert totals["unique_entries"] == len(set.union(*ids[:3])) + len(ids[3]) + len(ids[4])
    assert totals["naive_cost"] > totals["cost"] * 1.5  # forks and sub-agents counted again
    graph = family.graph
    kinds = [d["kind"] for *_, d in graph.edges(data=True)]
    assert kinds.count("fork") == 2 and kinds.count("subagent") == 2
    assert graph.number_of_nodes() == totals["entries"]
    assert sum(d["shared"] for _, d in graph.nodes(data=True)) == (
        totals["entries"] - totals["unique_entries"]
    )
    for link in family.links.itertuples():
        assert graph.has_edge((link.parent, link.parent_entry), (link.child, link.child_root))
    # lineage and context
    leaf = family.session(str(written["fork_of_fork"])).leaf_id
    key = family.key(str(written["fork_of_fork"]))
    assert family.lineage(key)[0] == family.roots[0]
    assert len(family.lineage(key)) == 3
    context = family.context(key, leaf)
    assert context.leaf_id == leaf
    assert [m["entry_id"] for m in context] == [
        m["entry_id"] for m in prime_nb.load(written["fork_of_fork"]).context(leaf)
    ]


def test_a_moved_folder_resolves_by_file_name_then_by_id(tmp_path: Path) -> None:
    written = synthetic_family(tmp_path / "before", seed=5)
    moved = tmp_path / "elsewhere" / "after"
    shutil.move(tmp_path / "before", moved)
    at = {role: moved / path.relative_to(tmp_path / "before") for role, path in written.items()}
    family = load_family(moved)
    assert family.problems.empty
    assert set(family.sessions["resolved_by"].dropna()) == {"name"}
    assert family.totals["cost"] == pytest.approx(load_family(at["root"]).totals["cost"])
    # renamed to the bare id, as the agent's flat folder names files
    root_id = raw(at["root"])[0]["id"]
    at["root"].rename(at["root"].with_name(f"{root_id}.jsonl"))
    family = load_family(at["fork"])
    assert len(family) == 5
    resolved = family.sessions.set_index("path")["resolved_by"]
    assert resolved[str(at["fork"])] == "id" and resolved[str(at["subagent"])] == "id"


def test_a_file_moved_alone_follows_its_recorded_parent_or_search(tmp_path: Path) -> None:
    written = synthetic_family(tmp_path / "a", seed=1)
    (tmp_path / "b").mkdir()
    fork = Path(shutil.move(written["fork"], tmp_path / "b" / written["fork"].name))
    # the recorded path still exists: followed, and the folders around it searched too
    family = load_family(fork)
    assert len(family) == 5 and family.problems.empty
    resolved = family.sessions.set_index("path")["resolved_by"]
    assert resolved[str(fork)] == "path"
    assert resolved[str(written["fork_of_fork"])] == "name"  # its parent moved
    written["root"].rename(written["root"].with_name("renamed.jsonl"))
    alone = load_family(fork)
    assert alone.problems["kind"].tolist() == ["missing_parent"]
    assert alone.problems["message"].str.contains(r"is not among the sessions given").all()
    found = load_family(fork, search=tmp_path / "a")
    assert found.problems.empty and len(found) == 5
    assert found.sessions.set_index("path").loc[str(fork), "resolved_by"] == "id"


def test_missing_parents_are_reported_and_the_rest_still_counts(tmp_path: Path) -> None:
    written = synthetic_family(tmp_path, seed=2)
    written["root"].unlink()
    family = load_family(tmp_path)
    problems = family.problems
    assert sorted(problems["kind"]) == ["missing_parent", "missing_parent"]
    assert sorted(problems["path"]) == sorted([str(written["fork"]), str(written["subagent"])])
    sessions = family.sessions.set_index("path")
    assert sessions.loc[str(written["fork"]), "kind"] == "fork"
    assert sessions.loc[str(written["subagent"]), "kind"] == "subagent"
    assert sorted(family.roots) == sorted(
        sessions.loc[[str(written["fork"]), str(written["subagent"])], "session"]
    )
    # without its source, the fork's copied prefix is counted in the fork
    assert sessions.loc[str(written["fork"]), "shared_entries"] == 0
    table = families_frame([facts_of(p) for p in sorted(tmp_path.rglob("*.jsonl"))])
    assert sorted(table["sessions"]) == [2, 2]
    assert table["problems"].sum() == 2


def two_way(tmp_path: Path, a_parent: str, b_parent: str | None) -> tuple[Path, Path]:
    a = write_lines(
        tmp_path / "a.jsonl",
        [header(id="sess-a", parentSession=a_parent), msg("a1", None, "user", "hi", minute=1)],
    )
    b_header = header(id="sess-b", timestamp="2026-01-05T11:00:00.000Z")
    if b_parent is not None:
        b_header["parentSession"] = b_parent
    b = write_lines(tmp_path / "b.jsonl", [b_header, msg("b1", None, "user", "yo", minute=2)])
    return a, b


def test_cycles_are_broken_at_the_oldest_session_and_reported(tmp_path: Path) -> None:
    a, _ = two_way(tmp_path, "/old/place/b.jsonl", "/old/place/a.jsonl")
    family = load_family(tmp_path)
    assert family.problems["kind"].tolist() == ["cycle"]
    assert family.problems["message"].iloc[0].endswith("this session is taken as the root")
    assert family.roots == ["sess-a"]
    assert family.lineage("sess-b") == ["sess-a", "sess-b"]
    assert load_family(a).roots == ["sess-a"]  # from a file too, without looping


def test_a_session_that_names_itself_is_a_cycle(tmp_path: Path) -> None:
    a, _ = two_way(tmp_path, "a.jsonl", None)
    family = load_family(a)
    assert family.problems["kind"].tolist() == ["cycle"]
    assert family.roots == ["sess-a"] and len(family) == 1


def test_hostile_headers_and_files(tmp_path: Path) -> None:
    write_lines(
        tmp_path / "weird.jsonl",
        [header(id="sess-w", parentSession=42, rlmDepth="deep"), msg("w1", None, "user", "x")],
    )
    write_lines(
        tmp_path / "neg.jsonl",
        [header(id="sess-n", parentSession="weird.jsonl", rlmDepth=-1)],
    )
    write_lines(tmp_path / "garbage.jsonl", [b"\xff\xfe not json", "[1, 2]"])
    (tmp_path / "torn.jsonl").write_bytes(b'{"type":"session","version":3,"id":"t"')
    write_lines(
        tmp_path / "bool.jsonl",
        [header(id="sess-t", parentSession="../../etc/passwd", rlmDepth=True)],
    )
    family = load_family(tmp_path)
    sessions = family.sessions.set_index("session")
    assert sessions.loc["sess-w", "kind"] == "root"  # a non-string parentSession is no link
    assert sessions.loc["sess-n", "parent"] == "sess-w"
    assert sessions.loc["sess-n", "kind"] == "fork" and sessions.loc["sess-n", "entries"] == 0
    assert math.isnan(sessions.loc["sess-n", "own_cost"]) is False
    kinds = family.problems.groupby("kind").size().to_dict()
    assert kinds == {"load_error": 2, "missing_parent": 1}
    errors = family.sessions.dropna(subset=["error"])
    assert sorted(Path(p).name for p in errors["path"]) == ["garbage.jsonl", "torn.jsonl"]
    assert family.links.query("child == 'sess-n'")["child_root"].isna().all()
    assert family.graph.number_of_nodes() == 1 + 0  # weird's one entry; neg is header-only
    with pytest.raises(ValueError, match=r"garbage\.jsonl: could not be loaded"):
        family.session("garbage.jsonl")


def test_a_same_named_file_elsewhere_is_not_the_parent_and_odd_paths_are_safe(
    tmp_path: Path,
) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    child = write_lines(
        tmp_path / "here" / "session.jsonl",
        [header(id="sess-c", parentSession="/gone/session.jsonl"), msg("c1", None, "user")],
    )
    family = load_family(child)
    assert family.problems["kind"].tolist() == ["missing_parent"]  # not a cycle with itself
    parent = write_lines(
        tmp_path / "there" / "session.jsonl", [header(id="sess-p"), msg("p1", None, "user")]
    )
    linked = load_family(child, search=tmp_path / "there")
    assert linked.lineage("sess-c") == ["sess-p", "sess-c"]
    assert linked.sessions.set_index("session").loc["sess-c", "resolved_by"] == "name"
    for odd in ["bad\x00name.jsonl", "x" * 5000 + ".jsonl", "C:\\Users\\dev\\session.jsonl"]:
        write_lines(parent, [header(id="sess-p", parentSession=odd)])
        kinds = load_family(tmp_path).problems["kind"].tolist()
        assert kinds == (["missing_parent"] if "Users" not in odd else ["cycle"]), odd


def test_legacy_subagent_without_rlm_depth_is_found_by_its_folder(tmp_path: Path) -> None:
    parent = write_lines(
        tmp_path / "p.jsonl",
        [header(id="sess-p"), msg("p1", None, "user", "go"), msg("p2", "p1", "assistant", "ok", 1)],
    )
    child_dir = tmp_path / "sub-0123abcd"
    child_dir.mkdir()
    write_lines(
        child_dir / "c.jsonl",
        [
            header(id="sess-c", parentSession=str(parent), timestamp="2026-01-05T10:02:00.000Z"),
            msg("c1", None, "user", "task"),
        ],
    )
    family = load_family(tmp_path)
    child = family.sessions.set_index("session").loc["sess-c"]
    assert (child["kind"], child["rlm_depth"], child["forked_from"]) == ("subagent", 1, "p2")


def test_bad_arguments_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nowhere: no such session file or folder"):
        load_family(tmp_path / "nowhere")
    path = synthetic_session(tmp_path / "s.jsonl")
    with pytest.raises(NotADirectoryError, match=r"s\.jsonl: search must name folders"):
        load_family(path, search=path)
    family = load_family(path)
    with pytest.raises(KeyError, match=r"nope: no such session in this family"):
        family.context("nope")
    assert prime_nb.load_family is load_family
    assert "sessions" in repr(family)


def test_a_parent_session_that_is_a_symlink_loop_is_a_missing_parent(tmp_path: Path) -> None:
    """Resolving the path raised RuntimeError (a symlink loop) out of the stitching."""
    loop = tmp_path / "loop-a.jsonl"
    loop.symlink_to(tmp_path / "loop-b.jsonl")
    (tmp_path / "loop-b.jsonl").symlink_to(loop)
    child = write_lines(
        tmp_path / "child.jsonl",
        [header(id="sess-c", parentSession=str(loop)), msg("c1", None, "user")],
    )
    for family in (load_family(child), load_family(tmp_path)):
        assert family.problems["kind"].tolist() == ["missing_parent"]
        assert family.roots == ["sess-c"] and len(family) == 1
