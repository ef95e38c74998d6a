"""What one file contributes to a family: header links read cheaply, own usage, depth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import header, msg, write_lines
from session_matrix import CASES, write_case

import prime_nb
from prime_nb import corpus
from prime_nb.family import facts_of, header_facts
from prime_nb.family._facts import own_usage


def test_header_facts_read_only_the_header_like_the_loader(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    head = json.dumps(header(id="sess-h", parentSession="p.jsonl", rlmDepth=2)).encode()
    path.write_bytes(b"\n\xef\xbb\xbf" + head + b"\r\n" + b"x" * (3 << 20) + b"\n")
    facts = header_facts(path)
    assert (facts.id, facts.parent_session, facts.rlm_depth, facts.error) == (
        "sess-h",
        "p.jsonl",
        2,
        None,
    )
    assert facts.entry_ids == []  # nothing past the header was read into facts
    spec = write_lines(
        tmp_path / "spec.jsonl",
        [{"type": "header", "version": 3, "id": "sess-s", "workingDir": "/w", "timestamp": 0}],
    )
    assert (header_facts(spec).id, header_facts(spec).cwd) == ("sess-s", "/w")
    for name, body in [
        ("none.jsonl", b""),
        ("msg.jsonl", json.dumps(msg("a", None, "user")).encode()),
    ]:
        bad = tmp_path / name
        bad.write_bytes(body + b"\n")
        assert header_facts(bad).error == "SessionFormatError: no session header"
    assert header_facts(tmp_path / "gone.jsonl").error.startswith("FileNotFoundError")


def test_facts_of_a_file_that_fails_to_load_keeps_its_header(tmp_path: Path) -> None:
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    facts = facts_of(folder)
    assert facts.error is not None and "is a folder" in facts.error


@pytest.mark.parametrize(
    ("effective", "child", "own"),
    [
        # the agent keeps totalTokens at the parent's own context size
        (
            (25_000, 1_500, 3_000, 0, 29_500, 0.10),
            (100, 10, 0, 0, 110, 0.01),
            (24_900, 1_490, 3_000, 0, 29_390, 0.09),
        ),
        # a writer that adds the child's total too
        ((110, 20, 0, 0, 130, 0.03), (100, 10, 0, 0, 110, 0.02), (10, 10, 0, 0, 20, 0.01)),
        # attribution drift: clamped at zero, as the agent clamps
        ((5, 5, 0, 0, 10, 0.001), (100, 10, 0, 0, 110, 0.02), (0, 0, 0, 0, 0, 0.0)),
        ((5, 5, 0, 0, 10, 0.001), (0, 0, 0, 0, 0, 0.0), (5, 5, 0, 0, 10, 0.001)),
    ],
)
def test_own_usage(effective: tuple, child: tuple, own: tuple) -> None:
    got = own_usage(effective, child)
    assert got[:5] == own[:5] and got[5] == pytest.approx(own[5])


def test_rlm_depth_is_read_as_the_agent_reads_it(tmp_path: Path) -> None:
    """The family, the writers and the agent agree on a header's ``rlmDepth``: a safe
    integer, 0 or more (the agent's ``isValidRlmDepth``; JSON's 2.0 is the number 2).
    The writers once refused 2.0, and the family took depths past 2**53."""
    import json

    from prime_nb.family._facts import header_facts
    from prime_nb.format import rlm_depth_of
    from prime_nb.write._building import rlm_depth

    assert [rlm_depth_of(v) for v in (float("inf"), float("nan"), True, "1", None)] == [None] * 5
    values = (0, 3, 2.0, -1, 1.5, 2**53 - 1, 2**53, 2**63, 1e300)
    want = [0, 3, 2, None, None, 2**53 - 1, None, None, None]
    assert [rlm_depth_of(v) for v in values] == want
    path = tmp_path / "s.jsonl"
    for value, depth in zip(values, want, strict=True):
        header = {"type": "session", "version": 3, "id": "s", "rlmDepth": value}
        path.write_text(json.dumps(header) + "\n", encoding="utf-8")
        assert header_facts(path).rlm_depth == depth, value
        assert rlm_depth(header, path) == (0 if depth is None else depth), value  # no parent


@pytest.mark.parametrize("name", CASES)
def test_a_lone_file_s_family_spends_what_its_corpus_row_says(name: str, tmp_path: Path) -> None:
    """One odd usage value (a field out of range, a total kept as missing) once made the
    family drop a file ("could not be read") or a row's cost; the corpus row and the
    family of a file with no relatives must count the same tokens and cost."""
    path = write_case(name, tmp_path)
    family = prime_nb.load_family(path)
    assert family.problems.query("kind == 'load_error'").empty, family.problems
    if len(family) > 1:  # a fork of a file beside it in the fixtures: a family of two
        return
    if any(facts.attributions for facts in family._st.facts.values()):
        return  # sub-agent usage is counted once, apart from the message that carries it
    row = corpus.session_row(str(path))
    assert family.totals["tokens"] == row["tokens"]
    assert family.totals["cost"] == pytest.approx(row["cost"], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(("written", "read"), [(3, 3), ("3", 3), (3.0, 3), (None, 1), ("x", 3)])
def test_header_facts_read_the_version_as_the_loader_does(
    tmp_path: Path, written: object, read: int
) -> None:
    """The family ranks copies of a session by version; its header-only facts once read
    a version of "3" or 3.0 as 1, where the loader reads 3."""
    path = write_lines(tmp_path / "s.jsonl", [header(version=written)])
    assert header_facts(path).version == read == prime_nb.load(path).version
