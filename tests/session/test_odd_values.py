"""One odd value in one line never breaks load() or a table: it is reported with its line
and kept as missing. Lines the agent's JSON.parse reads are never dropped, and nothing is
re-rooted or renamed silently. Each session is ``session_matrix``'s clean one with one line
changed (its lines: 1 header, 3 a1 with tool call k1, 5 a2, 6 u2, 8 compaction c1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from conftest import header, msg, write_lines
from session_matrix import write_case

import prime_nb
from prime_nb.format._reading import KEEP_DEPTH
from prime_nb.widget import export_html
from prime_nb.widget._data import SessionData


def load_odd(name: str, tmp_path: Path) -> prime_nb.Session:
    return prime_nb.load(write_case(f"odd-{name}", tmp_path))


def problems_on(session: prime_nb.Session, line: int) -> pd.DataFrame:
    frame = session.problems
    return frame[frame["line"] == line]


def everything_works(session: prime_nb.Session, tmp_path: Path) -> None:
    """The tables, the context at every leaf, the widget's data and the export."""
    for table in ("entries", "leaves", "tool_calls", "compactions", "problems", "messages"):
        getattr(session, table)
    session.graph  # noqa: B018
    session.summary()
    for leaf in session.leaves.index:
        session.context(leaf)
    data = SessionData(session)
    data.tree()
    for index in range(data.n):
        data.answer({"what": "entry", "index": index})
        data.answer({"what": "context", "index": index})
    export_html(session, tmp_path / "out.html")


ODD_CASES: list[tuple[str, int, str, Any]] = [
    # case, line, words in the problem, check of the kept value
    (
        "stop-reason-dict",
        5,
        "stopReason is {}",
        lambda s: pd.isna(s.entries.at["a2", "stop_reason"]),
    ),
    (
        "stop-reason-list",
        5,
        "stopReason is []",
        lambda s: pd.isna(s.entries.at["a2", "stop_reason"]),
    ),
    (
        "usage-2-63",
        5,
        "usage input=9223372036854775808",
        lambda s: (
            pd.isna(s.entries.at["a2", "input_tokens"]) and s.entries.at["a2", "total_tokens"] == 15
        ),
    ),
    (
        "usage-node-2-65",
        5,
        "usage output=3.6893488147419103e+19",
        lambda s: pd.isna(s.entries.at["a2", "output_tokens"]),
    ),
    (
        "usage-sum-past-int64",
        5,
        "totalTokens=None",
        lambda s: (
            pd.isna(s.entries.at["a2", "total_tokens"])
            and s.entries.at["a2", "input_tokens"] == 2**62
        ),
    ),
    (
        "usage-u64-max",
        5,
        "totalTokens=18446744073709551615",
        lambda s: pd.isna(s.entries.at["a2", "total_tokens"]),
    ),
    ("usage-negative", 5, "input=", lambda s: pd.isna(s.entries.at["a2", "input_tokens"])),
    (
        "tokens-before-u64",
        8,
        "tokensBefore is 18446744073709551615",
        lambda s: pd.isna(s.compactions.at["c1", "tokens_before"]),
    ),
    ("timestamp-1e20", 5, "timestamp 1e+20", lambda s: pd.isna(s.entries.at["a2", "timestamp"])),
    (
        "timestamp-2-63",
        5,
        "timestamp 9223372036854775808",
        lambda s: pd.isna(s.entries.at["a2", "timestamp"]),
    ),
    (
        "tool-call-id-object",
        3,
        "toolCall id is {'a': 1}",
        lambda s: s.tool_calls["call_id"].isna().all() and len(s.tool_calls) == 1,
    ),
    (
        "tool-call-id-list",
        3,
        "toolCall id is [1, 2]",
        lambda s: s.tool_calls["call_id"].isna().all(),
    ),
    (
        "first-kept-object",
        8,
        "firstKeptEntryId is {'id': 'u2'}",
        lambda s: pd.isna(s.compactions.at["c1", "first_kept_entry_id"]),
    ),
    (
        "first-kept-list",
        8,
        "firstKeptEntryId is ['u2']",
        lambda s: pd.isna(s.compactions.at["c1", "first_kept_entry_id"]),
    ),
]


@pytest.mark.parametrize(
    ("case", "line", "words", "kept"), ODD_CASES, ids=[c[0] for c in ODD_CASES]
)
def test_one_odd_value_is_reported_and_kept_missing(
    case: str, line: int, words: str, kept: Any, tmp_path: Path
) -> None:
    session = load_odd(case, tmp_path)
    assert len(session) == 10  # every entry loaded
    found = problems_on(session, line)
    assert list(found["kind"]) == ["bad_value"], session.problems
    assert words in found["message"].iloc[0], found["message"].iloc[0]
    assert found["entry_id"].iloc[0] in {"a1", "a2", "c1"}
    assert kept(session)
    assert len(session.problems) == 1  # nothing else went wrong
    everything_works(session, tmp_path)


def test_a_usage_count_below_zero_is_kept_as_written_with_a_warning(tmp_path: Path) -> None:
    """A provider wrote ``usage.input: -154`` in a real file: the sums must match what it
    billed, so the number is kept, and the problem is a warning, not an error."""
    session = load_odd("usage-below-zero", tmp_path)
    row = session.entries.loc["a2"]
    written = session.entry("a2")["message"]["usage"]
    assert row["input_tokens"] == -154
    assert row["output_tokens"] == written["output"]
    assert row["total_tokens"] == written["totalTokens"]
    found = problems_on(session, 5)
    assert list(found["kind"]) == ["bad_value"]
    assert list(found["severity"]) == ["warning"]
    assert found["message"].iloc[0] == "usage input=-154 below 0; kept as written"
    assert len(session.problems) == 1
    everything_works(session, tmp_path)


def test_a_usage_count_past_int64_is_missing_with_a_warning(tmp_path: Path) -> None:
    session = load_odd("usage-negative", tmp_path)  # -(2**70): no int64 holds it
    assert pd.isna(session.entries.at["a2", "input_tokens"])
    assert list(session.problems["severity"]) == ["warning"]


@pytest.mark.parametrize(
    "case", ["parent-id-number", "parent-id-dict", "parent-id-list", "parent-id-true"]
)
def test_a_parent_id_that_is_not_a_string_is_reported(case: str, tmp_path: Path) -> None:
    session = load_odd(case, tmp_path)
    found = problems_on(session, 6)
    assert list(found["kind"]) == ["bad_parent_id"]
    assert found["message"].iloc[0].endswith("not a string; loaded as a root")
    assert found["entry_id"].iloc[0] == "u2"
    assert pd.isna(session.entries.at["u2", "parent_id"])
    everything_works(session, tmp_path)


def test_a_lone_surrogate_keeps_the_line(tmp_path: Path) -> None:
    """Node writes a string cut inside an emoji as "\\ud83d"; JSON.parse reads it."""
    session = load_odd("lone-surrogate", tmp_path)
    assert len(session) == 10
    assert session.entry("u2")["message"]["content"] == "emoji cut \ufffd"
    assert session.entries.at["a3", "parent_id"] == "u2"  # its child is not orphaned
    found = problems_on(session, 6)
    assert list(found["kind"]) == ["lone_surrogate"]
    assert found["message"].iloc[0] == "1 lone UTF-16 surrogates replaced with U+FFFD"
    assert len(session.problems) == 1
    everything_works(session, tmp_path)


def test_a_lone_surrogate_in_a_key_is_replaced(tmp_path: Path) -> None:
    session = load_odd("lone-low-surrogate-key", tmp_path)
    assert "\ufffd" in session.entry("u2")["message"]
    assert list(problems_on(session, 6)["kind"]) == ["lone_surrogate"]


def test_deep_nesting_keeps_the_entry_and_trims_the_value(tmp_path: Path) -> None:
    session = load_odd("deep-nesting", tmp_path)
    assert len(session) == 10
    found = problems_on(session, 3)
    assert list(found["kind"]) == ["deep_nesting"]
    assert found["message"].iloc[0] == "1 values nested deeper than 200 levels replaced with null"
    value = session.tool_calls.at[0, "arguments"]["deep"]
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    # 5 levels above: the line, message, content, the block, its arguments
    assert value is None and depth == KEEP_DEPTH - 5
    assert session.entries.at["t1", "parent_id"] == "a1"
    everything_works(session, tmp_path)


@pytest.mark.parametrize("case", ["version-string", "version-float"])
def test_header_versions_that_read_as_three(case: str, tmp_path: Path) -> None:
    session = load_odd(case, tmp_path)
    assert session.version == 3
    assert list(session.entries.index[:3]) == ["u1", "a1", "t1"]  # ids as written
    assert len(session.leaves) == 2  # the fork is kept: no flattening into one chain
    assert session.problems.empty


def test_an_unreadable_header_version_is_reported_and_ids_kept(tmp_path: Path) -> None:
    path = write_case("odd-version-garbage", tmp_path)
    before = path.read_bytes()
    session = prime_nb.load(path)
    found = problems_on(session, 1)
    assert list(found["kind"]) == ["bad_version"]
    assert found["message"].iloc[0] == (
        "header version 'three' is not a version number; read as version 3, ids kept as written"
    )
    assert list(session.entries.index[:3]) == ["u1", "a1", "t1"]
    assert len(session.leaves) == 2
    prime_nb.upgrade_file(path)  # never rewrites ids of a file it cannot read the version of
    assert path.read_bytes() == before


def test_a_renamed_duplicate_id_is_unique(tmp_path: Path) -> None:
    """Line 7 repeats id "a2", whose rename "a2@L7" line 6 already uses as its id."""
    session = load_odd("duplicate-id-taken-rename", tmp_path)
    index = session.entries.index
    assert index.is_unique
    dup = session.problems[session.problems["kind"] == "duplicate_id"]
    assert len(dup) == 1
    renamed = dup["message"].iloc[0].rsplit(" ", 1)[1]
    assert renamed in index and renamed != "a2@L7"
    assert session.entries.at[renamed, "line"] == 7


def test_a_missing_id_gets_a_free_name(tmp_path: Path) -> None:
    """Line 8 has no id: its name "L8" and that name's rename "L8@L8" are both taken."""
    session = load_odd("missing-id-taken-name", tmp_path)
    assert session.entries.index.is_unique
    assert session.entries.index[session.entries["line"] == 8].tolist() == ["L8@L8.2"]
    assert list(problems_on(session, 8)["kind"]) == ["missing_id", "duplicate_id"]


def test_the_rename_of_a_duplicate_is_free_when_the_name_is_taken(tmp_path: Path) -> None:
    lines = [
        '{"type":"session","version":3,"id":"s"}',
        '{"type":"custom","id":"x@L4","parentId":null}',
        '{"type":"custom","id":"x","parentId":null}',
        '{"type":"custom","id":"x","parentId":null}',
    ]
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join(lines) + "\n")
    session = prime_nb.load(path)
    assert session.entries.index.is_unique
    assert list(session.entries.index) == ["x@L4", "x", "x@L4.2"]
    assert session.problems["message"].iloc[0] == (
        "id x already used on line 3; this entry is named x@L4.2"
    )


def test_child_usage_aimed_at_itself_changes_nothing(tmp_path: Path) -> None:
    """A child_usage_attributed entry whose target is its own id: no assistant carries it
    (the loader used to crash here), and every table still works."""
    session = load_odd("child-usage-self", tmp_path)
    clean = prime_nb.load(write_case("odd-name-number", tmp_path / "clean"))
    assert session.entries.at["cu1", "type"] == "child_usage_attributed"
    assert pd.isna(session.entries.at["cu1", "total_tokens"])
    assert session.entries["total_tokens"].sum() == clean.entries["total_tokens"].sum()
    everything_works(session, tmp_path)


def test_a_repaired_line_keeps_big_int_writable(tmp_path: Path) -> None:
    """A line read by the fallback parser (a lone surrogate) with a 2**70 integer: the
    number is a float, as orjson and JavaScript read it, so the export can write it."""
    session = load_odd("lone-surrogate-big-int", tmp_path)
    assert session.entry("u2")["message"]["n"] == float(2**70)
    everything_works(session, tmp_path)


def test_deep_compaction_details_are_trimmed(tmp_path: Path) -> None:
    """260 levels parse (orjson reads 1,024) but cannot be written (orjson writes 254)."""
    session = load_odd("deep-details", tmp_path)
    details = session.compactions.at["c1", "details"]
    assert details["readFiles"] == ["src/a.py"]
    orjson.dumps([[details]])  # the table's value can be sent and saved
    everything_works(session, tmp_path)


def test_numbers_past_a_double_keep_the_line(tmp_path: Path) -> None:
    """JSON.parse reads 1e400 as Infinity; orjson refuses the line, the fallback keeps it
    (an integer of 400 digits, which Python cannot make a float of, too)."""
    session = load_odd("numbers-past-double", tmp_path)
    assert len(session) == 10
    message = session.entry("a2")["message"]
    assert message["usage"]["output"] == float("inf")
    assert message["usage"]["n"] == float("-inf")
    assert pd.isna(session.entries.at["a2", "output_tokens"])
    assert set(problems_on(session, 5)["kind"]) == {"lone_surrogate", "bad_value"}
    everything_works(session, tmp_path)


def test_summary_counts_equal_the_tables_on_every_case(tmp_path: Path) -> None:
    """``Session.summary`` counts on the columns (so the corpus's summary read has its
    figures without a table); on every session of the matrix, odd values included, each
    figure equals the same count on the tables."""
    from session_matrix import CASES

    for name in CASES:
        session = prime_nb.load(write_case(name, tmp_path))
        entries = session.entries
        figures = {
            "entries": len(entries),
            "messages": int(entries["role"].notna().sum()),
            "leaves": int(entries["is_leaf"].sum()),
            "forks": int((entries["children"] > 1).sum()),
            "compactions": len(session.compactions),
            "tool_calls": len(session.tool_calls),
            "input_tokens": int(entries["input_tokens"].sum()),
            "output_tokens": int(entries["output_tokens"].sum()),
            "cache_read_tokens": int(entries["cache_read_tokens"].sum()),
            "cache_write_tokens": int(entries["cache_write_tokens"].sum()),
            "tokens": int(entries["total_tokens"].sum()),
            "cost": round(float(entries["cost"].sum()), 10),
            "problems": len(session.problems),
        }
        summary = session.summary()
        assert {key: summary[key] for key in figures} == figures, name


@pytest.mark.parametrize(
    ("version", "read_as", "words"),
    [
        (-1, 1, "header version -1 is below 1; read as version 1, ids made from the lines"),
        (0, 1, "header version 0 is below 1; read as version 1"),
        (99, 3, "header version 99 is newer than prime_nb reads (3); read as version 3"),
        ("7", 3, "header version 7 is newer than prime_nb reads (3)"),
    ],
)
def test_a_whole_version_out_of_range_is_read_as_the_agent_reads_it_and_reported(
    tmp_path: Path, version: object, read_as: int, words: str
) -> None:
    """A header that says version 99 (or -1) is read as the agent reads it (as current,
    or migrated as version 1 with ids made from the lines), and a warning says so."""
    lines = [header(version=version), msg("u1", None, "user"), msg("a1", "u1", "assistant")]
    path = write_lines(tmp_path / "s.jsonl", lines)
    session = prime_nb.load(path)
    problems = session.problems
    assert problems[["line", "kind", "severity"]].values.tolist() == [[1, "bad_version", "warning"]]
    assert problems["message"].iloc[0].startswith(words)
    ids_as_written = list(session.entries.index) == ["u1", "a1"]
    assert ids_as_written == (read_as == 3)
    assert session.summary()["problems"] == 1


USAGE_NOT_NUMBERS = {
    "a list": ([1, 2], "usage is [1, 2]; kept as missing"),
    "text": ("lots", "usage is 'lots'; kept as missing"),
    "a count as text": (
        {"input": 10, "output": 5, "cacheRead": "12", "cacheWrite": 0, "cost": {"total": 0.5}},
        "usage cacheRead='12' not a number; a count read as 0",
    ),
    "a count an object, a cost a list": (
        {"input": {"x": 1}, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": [1]}},
        "usage input={'x': 1}, cost=[1] not a number; a count read as 0, a cost as missing",
    ),
}


@pytest.mark.parametrize("case", list(USAGE_NOT_NUMBERS))
def test_usage_that_is_no_number_is_reported(tmp_path: Path, case: str) -> None:
    """A usage that is no object, or a count or cost in it that is no number, was read
    as missing or 0 without a word; each is a ``bad_value`` warning at its line."""
    usage, words = USAGE_NOT_NUMBERS[case]
    lines = [header(), msg("u1", None, "user"), msg("a1", "u1", "assistant", usage=usage)]
    session = prime_nb.load(write_lines(tmp_path / "s.jsonl", lines))
    problems = session.problems
    assert problems[["line", "kind", "severity"]].values.tolist() == [[3, "bad_value", "warning"]]
    assert problems["message"].iloc[0].startswith(words)
    assert session.summary()["problems"] == 1
    assert len(session.entries) == 2
