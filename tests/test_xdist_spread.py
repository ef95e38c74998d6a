"""The order ``--dist loadfile`` hands out tests in (tests/xdist_spread.py), and the
artefacts built once per run (tests/run_cache.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from run_cache import built_once
from xdist_spread import COSTS, GROUPS, PER_TEST, SPLIT, ordered_units, unit_of

REPO = Path(__file__).resolve().parents[1]


def test_costly_files_first_split_files_last_test_by_test() -> None:
    costly = max(COSTS, key=COSTS.__getitem__)
    split = sorted(SPLIT)[0]
    collection = [
        "tests/a.py::test_one",
        f"{split}::test_case[1]",
        f"{split}::test_case[2]",
        *(f"tests/b.py::test_{k}" for k in range(3)),
        f"{costly}::test_slow",
    ]
    units = ordered_units(collection)
    assert list(units) == [
        costly,
        "tests/b.py",  # three tests before one: a test's default cost each
        "tests/a.py",
        f"{split}::test_case[1]",
        f"{split}::test_case[2]",
    ]
    assert units["tests/b.py"] == {f"tests/b.py::test_{k}": False for k in range(3)}
    assert sorted(n for tests in units.values() for n in tests) == sorted(collection)
    assert COSTS[costly] > PER_TEST * 3


def test_a_split_files_costly_cases_go_first_among_the_split_tests() -> None:
    """A costly case handed out last would leave the other worker idle while it runs:
    the split tests ``COSTS`` names go first among the split tests, costliest first."""
    named = sorted((c for c in COSTS if "::" in c), key=COSTS.__getitem__)
    assert len(named) >= 2 and COSTS[named[0]] < COSTS[named[-1]]
    cheap, costly = named[0], named[-1]
    other = f"{cheap.split('::', 1)[0]}::test_plain_case"
    collection = ["tests/a.py::test_one", other, cheap, costly]
    assert list(ordered_units(collection)) == ["tests/a.py", costly, cheap, other]


def test_a_file_is_one_unit_unless_split() -> None:
    split = sorted(SPLIT)[0]
    assert unit_of("tests/x/test_y.py::TestZ::test_w[a::b]") == "tests/x/test_y.py"
    assert unit_of(f"{split}::test_case[a]") == f"{split}::test_case[a]"


def test_a_group_of_files_is_one_unit() -> None:
    """The files that share a server go to one worker, in collection order."""
    first, second = sorted(GROUPS)[:2]
    group = GROUPS[first]
    assert GROUPS[second] == group
    collection = [f"{first}::test_a", "tests/a.py::test_one", f"{second}::test_b[x]"]
    units = ordered_units(collection)
    assert units[group] == {f"{first}::test_a": False, f"{second}::test_b[x]": False}
    assert list(units) == [group, "tests/a.py"] and unit_of(f"{second}::t") == group


def test_every_file_named_is_there() -> None:
    """A renamed file would drop out of the order unseen."""
    files = [*SPLIT, *GROUPS, *(c for c in COSTS if c not in GROUPS.values())]
    assert [f for f in files if not (REPO / f.split("::", 1)[0]).is_file()] == []
    # a split test named by its id: its function and its matrix case still there
    from session_matrix import CASES

    for nodeid in (c for c in COSTS if "::" in c):
        file, test = nodeid.split("::", 1)
        function, _, case = test.partition("[")
        assert file in SPLIT and f"def {function}(" in (REPO / file).read_text(), nodeid
        assert not case or case.removesuffix("]") in CASES, nodeid


def test_built_once_builds_once_and_keeps_the_name(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    built: list[Path] = []

    def build(path: Path) -> None:
        built.append(path)
        path.write_text("made")

    key = f"test {tmp_path_factory.mktemp('key')}"  # a key no other test run shares
    first = built_once(tmp_path_factory, key, "big.jsonl", build)
    again = built_once(tmp_path_factory, key, "big.jsonl", build)
    assert first == again and first.name == "big.jsonl" and first.read_text() == "made"
    assert len(built) == 1 and built[0] != first  # written aside, then moved in place
    assert not built[0].parent.exists()  # the partial folder became the final one
    other = built_once(tmp_path_factory, key + "2", "big.jsonl", build)
    assert other != first and len(built) == 2


def test_every_alone_test_is_where_ci_runs_them() -> None:
    """``.ci/test`` runs the tests marked ``alone`` from tests/browser only, after the
    main phase has left them out: one marked elsewhere would run in neither."""
    script = (REPO / ".ci" / "test").read_text("utf-8")
    assert '-m "not alone"' in script and "-m alone tests/browser\n" in script
    marked = sorted(
        str(path.relative_to(REPO))
        for path in (REPO / "tests").rglob("*.py")
        if re.search(r"\bmark\.alone\b", path.read_text("utf-8"))
    )
    assert marked and all(path.startswith("tests/browser/") for path in marked), marked
