"""corpus_retention (and its Dask twin) give each file's compaction_retention, read by the
summary pass, with ``session`` and ``path`` in front; files without compactions add none."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from schema_checks import mismatches
from session_matrix import CASES, write_case

import prime_nb
from prime_nb import corpus
from prime_nb.analysis import compaction_retention
from prime_nb.analysis._schemas import SCHEMAS, conform
from prime_nb.corpus._work import RETENTION, summarise

if TYPE_CHECKING:  # only the tests given a cluster import distributed
    from distributed import Client

NAMES = (
    "comp-on2-off2-forks6-v3-prime",
    "comp-on8-off0-forks0-v1-spec",
    "comp-on1-off1-forks1-v2-spec",
    "synthetic-v3-prime-forks0",
)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    for name in NAMES:
        write_case(name, folder)
    (folder / "broken.jsonl").write_text("not a session\n")
    return folder


def _expected(folder: Path) -> pd.DataFrame:
    frames = []
    for path in sorted(folder.glob("*.jsonl")):
        if path.name == "broken.jsonl":
            continue
        table = compaction_retention(path)
        table.insert(0, "path", str(path))
        table.insert(0, "session", prime_nb.load(path).id)
        frames.append(table)
    return _sorted(pd.concat(frames, ignore_index=True))


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["path"], kind="stable").reset_index(drop=True)


def test_the_corpus_table_is_each_sessions_table(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    got = corpus.corpus_retention(folder, workers=1, progress=False)
    assert list(got.columns) == ["session", "path", *SCHEMAS["compaction_retention"]]
    assert mismatches("compaction_retention", got.drop(columns=["session", "path"])) == []
    expected = _expected(folder)
    assert expected["needed_later"].sum() > 0 and len(expected) == len(got)
    pd.testing.assert_frame_equal(_sorted(got), expected)


def test_no_compaction_is_an_empty_table_with_the_schema(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    write_case("comp-on0-off0-forks0-v3-prime", folder)
    got = corpus.corpus_retention(folder, workers=1, progress=False)
    assert got.empty
    assert list(got.columns) == ["session", "path", *SCHEMAS["compaction_retention"]]
    assert mismatches("compaction_retention", got.drop(columns=["session", "path"])) == []


def test_the_dask_twin_matches(tmp_path: Path, client: Client) -> None:
    folder = _folder(tmp_path)
    sessions = corpus.sessions_dask(folder, files_per_partition=2)
    got = corpus.retention_dask(sessions).compute()
    expected = corpus.corpus_retention(folder, workers=1, progress=False)
    assert len(expected) > 0
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))


@pytest.mark.parametrize("name", CASES)
def test_the_pass_gives_the_analysis_rows_on_every_matrix_session(
    name: str, tmp_path: Path
) -> None:
    path = write_case(name, tmp_path)
    rows = summarise(str(path), (RETENTION,)).retention
    table = compaction_retention(path)
    if table.empty:
        assert rows == []
        return
    got = pd.DataFrame(rows).drop(columns=["session", "path"])
    pd.testing.assert_frame_equal(conform(got, "compaction_retention"), table)
