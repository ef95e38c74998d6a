"""Every research table has one schema, whatever the session: empty, clean or hostile.

Before, an empty table was all ``object``, a branch table whose leaves had no stop reason
had a ``float64`` column there, and ``since_previous`` was ``timedelta64[s]`` when the
times fell on whole seconds: code that concatenated sessions or used ``.str`` broke on
the one session that differed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from schema_checks import mismatches
from session_fuzz import research_tables as tables
from session_matrix import LOADED_CASES, write_case

import prime_nb
from prime_nb import analysis
from prime_nb.analysis._schemas import SCHEMAS, conform
from prime_nb.corpus import corpus_branches, corpus_compactions


@pytest.mark.parametrize("name", LOADED_CASES)
def test_every_table_of_every_session_has_its_schema(
    name: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    session = matrix_session(name)
    for table, frame in tables(session).items():
        assert mismatches(table, frame) == [], table


def test_the_schemas_hold_where_the_old_tables_drifted(tmp_path: Path) -> None:
    """The shapes that drifted, each pinned: no compaction, exactly one, no forks."""
    one = prime_nb.load(write_case("comp-on1-off0-forks0-v3-prime", tmp_path))
    table = analysis.compaction_forensics(one)
    assert len(table) == 1 and table["previous_compaction_id"].isna().all()
    assert table["previous_compaction_id"].dtype == "str"
    assert table["since_previous"].dtype == "timedelta64[us]"
    table["previous_compaction_id"].str.len()  # .str works on a column of missing ids
    linear = prime_nb.load(write_case("comp-on0-off0-forks0-v3-prime", tmp_path))
    for name, frame in tables(linear).items():
        assert mismatches(name, frame) == [], name
    assert analysis.branches(linear).empty
    assert analysis.compaction_forensics(linear).empty


def test_conform_gives_objects_and_an_empty_frame_the_schema(tmp_path: Path) -> None:
    session = prime_nb.load(write_case("comp-on2-off2-forks6-v3-prime", tmp_path))
    for name, frame in tables(session).items():
        loose = frame.astype(object)  # every column as plain objects
        loose.index = pd.Index(frame.index.tolist(), name=frame.index.name, dtype=object)
        pd.testing.assert_frame_equal(conform(loose, name), frame)
        assert mismatches(name, conform(pd.DataFrame(), name)) == [], name


def test_the_corpus_tables_share_the_schemas(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    for name in ("comp-on2-off2-forks6-v3-prime", "synthetic-v3-prime-forks0"):
        write_case(name, folder)
    kw = {"workers": 1, "progress": False}
    compactions, branches = corpus_compactions(folder, **kw), corpus_branches(folder, **kw)
    assert len(compactions) and len(branches)
    for frame, name, front in (
        (compactions, "compaction_forensics", ["session", "path", "id"]),
        (branches, "branches", ["session", "path"]),
    ):
        assert list(frame.columns) == [*front, *SCHEMAS[name]]
        rest = frame.drop(columns=front)
        if name == "compaction_forensics":
            rest.index = pd.Index(frame["id"].tolist(), name="id", dtype="str")
        assert mismatches(name, rest) == [], name
