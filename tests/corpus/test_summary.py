"""The summary pass agrees with the full ``load()`` path, column by column, on every file.

The reference is built here from ``load()`` as the corpus tables were built before the
summary pass: the Session's summary and entries table for the row, and
``compaction_forensics`` / ``branches`` per file for the research tables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import FIXTURES, header, msg, write_lines
from research_sessions import branchy, compacted

from prime_nb.analysis import branches, compaction_forensics
from prime_nb.corpus import corpus_branches, corpus_compactions, load_corpus
from prime_nb.corpus._local import RESEARCH_DTYPES, conform, corpus_frame, empty, per_session
from prime_nb.corpus._work import BRANCHES, COMPACTIONS, summarise
from prime_nb.session import load
from sessiongen import synthetic_session, write_large_session

FORENSICS_DTYPES, BRANCH_DTYPES = RESEARCH_DTYPES[COMPACTIONS], RESEARCH_DTYPES[BRANCHES]


def full_row(path: str) -> dict[str, Any]:
    """The corpus row through ``load()``: the header's fields from ``Session.summary``, the
    figures counted on the entries table and the problems table (``Session.summary`` and
    the row count them on the columns, one way, so this is what checks both)."""
    try:
        session = load(path)
        summary = session.summary()
        entries = session.entries
        counted = {
            "leaves": int(entries["is_leaf"].sum()),
            "forks": int((entries["children"] > 1).sum()),
            "compactions": int((entries["type"] == "compaction").sum()),
            "tool_calls": len(session.tool_calls),
            "input_tokens": int(entries["input_tokens"].sum()),
            "output_tokens": int(entries["output_tokens"].sum()),
            "cache_read_tokens": int(entries["cache_read_tokens"].sum()),
            "cache_write_tokens": int(entries["cache_write_tokens"].sum()),
            "tokens": int(entries["total_tokens"].sum()),
            "cost": float(entries["cost"].sum()),
            "problems": len(session.problems),
        }
        stamps = entries["timestamp"].dropna()
        users = entries.loc[entries["role"] == "user", "text"].dropna()
        started: Any = stamps.min() if len(stamps) else pd.NaT
        ended: Any = stamps.max() if len(stamps) else pd.NaT
    except Exception as exc:
        return {"path": path, "error": f"{type(exc).__name__}: {exc}"}
    row = {key: summary[key] for key in ("id", "cwd", "name", "version", "dialect")}
    row.update(counted, entries=len(entries))
    row.update(
        path=path,
        started=started,
        ended=ended,
        duration=ended - started,
        first_user_message=users.iloc[0] if len(users) else None,
        error=None,
    )
    return row


def full_tables(path: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    compactions = conform(per_session(compaction_forensics, path), empty(FORENSICS_DTYPES))
    branch_rows = conform(per_session(branches, path), empty(BRANCH_DTYPES))
    return compactions, branch_rows


def hostile(folder: Path) -> list[Path]:
    """Files that break in every way the loader must survive."""
    folder.mkdir(parents=True, exist_ok=True)
    h = header()
    a = msg("a", None, "user", "hello", 1)
    b = msg("b", "a", "assistant", "hi", 2)
    files: dict[str, list[Any]] = {
        "malformed.jsonl": [h, a, b"{not json", b"[1, 2]", b'{"no": "type"}', b, b""],
        "bom_crlf.jsonl": [b"\xef\xbb\xbf" + json.dumps(h).encode() + b"\r", a, b],
        "bad_utf8.jsonl": [h, json.dumps(a).encode().replace(b"hello", b"hel\xfflo"), b],
        "duplicates.jsonl": [h, a, msg("a", None, "user", "again", 3), msg("b", "a", "user", "")],
        "cycle.jsonl": [h, msg("x", "y", "user", "x", 1), msg("y", "x", "assistant", "y", 2)],
        "orphans.jsonl": [h, msg("o", "gone", "user", "orphan", 1), msg("p", "o", "user", "")],
        "self_parent.jsonl": [h, msg("s", "s", "user", "me", 1)],
        "header_only.jsonl": [h],
        "no_header.jsonl": [a, b],  # the tail of a session: read, with a no_header problem
        "no_json.jsonl": [b"not JSON at all", b"[1, 2]"],
        "second_header.jsonl": [h, a, h, b],
        "no_ids.jsonl": [h, {"type": "message", "message": {"role": "user", "content": "x"}}],
        "odd_roles.jsonl": [
            h,
            {**msg("r", None, "user", "x", 1), "message": {"role": 5, "content": "x"}},
            {**msg("q", "r", "user", "", 2), "message": "not a dict"},
            msg("t", "q", "user", "", 3, content=[{"type": "toolCall", "name": "read"}, "odd"]),
        ],
        "child_usage.jsonl": [
            h,
            a,
            b,
            {
                "type": "child_usage_attributed",
                "id": "c",
                "parentId": "b",
                "targetId": "b",
                "aggregateUsage": {"input": 7, "output": 3, "totalTokens": 10, "cost": 0.5},
            },
        ],
        "no_times.jsonl": [h, {**a, "timestamp": "never"}, {**b, "timestamp": None}],
    }
    out = [write_lines(folder / name, lines) for name, lines in files.items()]
    torn = folder / "torn.jsonl"
    write_lines(torn, [h, a])
    with open(torn, "ab") as fh:
        fh.write(b'{"type": "message", "id": "z", "par')
    empty_file = folder / "empty.jsonl"
    empty_file.write_bytes(b"")
    folder_as_file = folder / "folder.jsonl"
    folder_as_file.mkdir(exist_ok=True)
    return [*out, torn, empty_file, folder_as_file]


def session_matrix(folder: Path) -> list[Path]:
    """Every fixture, the hand-written research sessions, synthetic sessions of every version
    and dialect (0 to many forks), generated large sessions, and the hostile files."""
    paths = sorted(FIXTURES.glob("*.jsonl")) + sorted((FIXTURES / "agent-written").glob("*.jsonl"))
    made = folder / "made"
    made.mkdir(parents=True)
    paths.append(branchy(made / "branchy.jsonl"))
    paths.append(compacted(made / "compacted.jsonl"))
    for version in (1, 2, 3):
        for dialect in ("prime", "spec"):
            for forks in (0, 1, 4):
                name = f"syn-v{version}-{dialect}-{forks}.jsonl"
                paths.append(
                    synthetic_session(
                        made / name, version=version, dialect=dialect, forks=forks, seed=forks
                    )
                )
    for seed, dialect in ((0, "prime"), (1, "spec"), (2, "prime")):
        paths.append(
            write_large_session(made / f"large-{seed}.jsonl", 400_000, seed=seed, dialect=dialect)
        )
    return [*paths, *hostile(folder / "hostile")]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return [str(p) for p in session_matrix(tmp_path_factory.mktemp("matrix"))]


def test_the_matrix_covers_what_it_should(matrix: list[str]) -> None:
    agent = [p for p in matrix if "agent-written" in p]
    assert len(agent) >= 14
    rows = corpus_frame([full_row(p) for p in matrix])
    assert rows["compactions"].max() >= 2 and rows["forks"].max() >= 4
    assert rows["problems"].max() >= 3 and rows["error"].notna().sum() >= 3
    assert (rows["entries"] == 0).any()  # the header-only session


def test_every_row_column_equals_the_full_load(matrix: list[str]) -> None:
    got = load_corpus(files=matrix, workers=1, progress=False)
    want = corpus_frame([full_row(p) for p in matrix if not Path(p).is_dir()])
    pd.testing.assert_frame_equal(got, want)


def test_a_folder_read_as_a_file_is_a_row_with_its_error(matrix: list[str]) -> None:
    """A folder in a list is searched (``test_corpus``), so the pass meets one only when a
    file is replaced by a folder after the listing: its row says so, as ``load`` does."""
    (folder,) = [p for p in matrix if Path(p).is_dir()]
    row = summarise(folder).row
    assert row == full_row(folder) and "is a folder" in row["error"]


def test_research_tables_equal_the_full_load(matrix: list[str]) -> None:
    compactions = corpus_compactions(files=matrix, workers=1, progress=False)
    branch_table = corpus_branches(files=matrix, workers=1, progress=False)
    want_c, want_b = zip(*(full_tables(p) for p in matrix), strict=True)
    want_compactions = conform(
        pd.concat([f for f in want_c if len(f)], ignore_index=True), empty(FORENSICS_DTYPES)
    )
    want_branches = conform(
        pd.concat([f for f in want_b if len(f)], ignore_index=True), empty(BRANCH_DTYPES)
    )
    assert len(want_compactions) >= 20 and len(want_branches) >= 20
    pd.testing.assert_frame_equal(compactions, want_compactions)
    pd.testing.assert_frame_equal(branch_table, want_branches)


def test_processes_give_the_same_tables(matrix: list[str], tmp_path: Path) -> None:
    one = load_corpus(files=matrix, workers=1, progress=False)
    two = load_corpus(files=matrix, workers=2, progress=False)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(
        corpus_branches(files=matrix, workers=1, progress=False),
        corpus_branches(files=matrix, workers=2, progress=False),
    )
    pd.testing.assert_frame_equal(
        corpus_compactions(files=matrix, workers=1, progress=False),
        corpus_compactions(files=matrix, workers=2, progress=False),
    )


def test_rows_equal_the_full_load_over_the_odd_value_matrix(tmp_path: Path) -> None:
    """The summary pass reports the same problems and spend as load() for every session
    of the shared matrix, one odd value per line included."""
    from session_matrix import CASES, write_case

    files = [str(write_case(name, tmp_path)) for name in CASES]
    got = load_corpus(files=files, workers=1, progress=False)
    want = corpus_frame([full_row(p) for p in files])
    pd.testing.assert_frame_equal(got, want)


def test_times_in_microseconds_equal_the_entries_table(tmp_path: Path) -> None:
    """A row's ``started`` and ``ended`` are its entries' first and last ``timestamp``
    to the microsecond, in the table and in ``session_row``. Before they shared the
    entries table's conversion, float ms went through ``pd.to_datetime``, whose ns cut
    to µs lost one µs on about half of such times (``.000022`` became ``.000021``)."""
    from prime_nb.corpus import session_row

    files = []
    for micros in (1, 22, 36, 999):
        first = msg("a", None, "user", "hi")
        last = msg("b", "a", "assistant", "yo", minute=1)
        first["timestamp"] = f"2026-01-05T10:00:00.{micros:06d}Z"
        last["timestamp"] = f"2026-01-05T10:01:00.{999 - micros:06d}Z"
        files.append(str(write_lines(tmp_path / f"t{micros}.jsonl", [header(), first, last])))
    table = load_corpus(files=files, workers=1, progress=False)
    for path, (_, row) in zip(files, table.iterrows(), strict=True):
        stamps = load(path).entries["timestamp"]
        single = session_row(path)
        assert (row["started"], row["ended"]) == (stamps.min(), stamps.max())
        assert (single["started"], single["ended"]) == (stamps.min(), stamps.max())
        assert single["duration"] == row["duration"] == stamps.max() - stamps.min()
