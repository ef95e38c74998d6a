"""The Dask path gives the same tables as the pandas path, on a real LocalCluster."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from prime_nb import corpus
from sessiongen import synthetic_session

if TYPE_CHECKING:  # only the tests given a cluster import distributed
    from distributed import Client


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    nested = root / "--home-dev-proj--"
    nested.mkdir()
    for k in range(5):
        where = nested if k % 2 else root
        synthetic_session(
            where / f"s{k}.jsonl",
            seed=k,
            version=3 if k < 4 else 2,
            dialect="spec" if k == 3 else "prime",
            forks=k % 3 + 1,
        )
    (root / "broken.jsonl").write_text("not a session\n")
    return root


def sort(frame: pd.DataFrame, *keys: str) -> pd.DataFrame:
    """Rows in a fixed order, dtypes untouched: the Dask tables keep pandas' own dtypes
    (text as pandas' ``str``, missing = NaN), not Dask's string dtype."""
    return frame.sort_values(list(keys), kind="stable").reset_index(drop=True)


def test_entries_match_pandas(folder: Path, client: Client) -> None:
    ddf = corpus.to_dask(folder, files_per_partition=2)
    assert ddf.npartitions == 3  # 6 files, 2 per partition
    expected = corpus.corpus_entries(folder, workers=1, progress=False)
    got = ddf.compute()
    assert list(got.columns) == list(ddf._meta.columns)  # meta declared, not inferred
    pd.testing.assert_frame_equal(sort(got, "path", "line"), sort(expected, "path", "line"))


def test_sessions_match_pandas_and_list_the_broken_file(folder: Path, client: Client) -> None:
    sessions = corpus.sessions_dask(folder, files_per_partition=4)
    got = sort(sessions.compute(), "path")
    expected = sort(corpus.load_corpus(folder, workers=1, progress=False), "path")
    assert sessions._meta.dtypes.equals(expected.dtypes)  # pandas' dtypes, not Dask's strings
    pd.testing.assert_frame_equal(got, expected)
    broken = got[got["path"].str.endswith("broken.jsonl")]
    assert broken["error"].str.contains("SessionFormatError").all()
    assert got["error"].isna().sum() == 5


def test_research_helpers_match_pandas(folder: Path, client: Client) -> None:
    sessions = corpus.sessions_dask(folder, files_per_partition=2)
    forensics = sort(corpus.compactions_dask(sessions).compute(), "path", "id")
    expected = sort(corpus.corpus_compactions(folder, workers=1, progress=False), "path", "id")
    raw = sum(
        line.count('"type":"compaction"')
        for f in folder.rglob("s*.jsonl")
        for line in f.read_text().splitlines()
    )
    assert len(expected) == raw >= 10
    pd.testing.assert_frame_equal(forensics, expected)
    branches = sort(corpus.branches_dask(sessions).compute(), "path", "fork_id", "branch_id")
    expected_b = sort(
        corpus.corpus_branches(folder, workers=1, progress=False), "path", "fork_id", "branch_id"
    )
    assert len(expected_b) > 0
    pd.testing.assert_frame_equal(branches, expected_b)


def test_fsspec_urls(folder: Path, client: Client) -> None:
    url = f"file://{folder}"
    got = corpus.sessions_dask(url).compute()
    assert len(got) == 6 and got["path"].str.startswith("file://").all()
    assert int(got["entries"].sum()) == int(
        corpus.load_corpus(folder, workers=1, progress=False)["entries"].sum()
    )


def test_no_files_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no session files"):
        corpus.to_dask(tmp_path)


def test_default_partitions_hold_about_the_same_number_of_files(tmp_path: Path) -> None:
    from prime_nb.corpus._dask import PARTITIONS_PER_THREAD, _groups, cluster_threads

    paths = []
    for k in range(6):
        path = tmp_path / f"f{k}.jsonl"
        path.write_bytes(b"x" * ((3 if k == 2 else 1) << 20))
        paths.append(str(path))
    assert _groups(paths, None) == [[p] for p in paths]  # fewer files than partitions
    partitions = PARTITIONS_PER_THREAD * cluster_threads()
    remote = [f"s3://bucket/s{k}.jsonl" for k in range(partitions * 3)]
    assert [len(g) for g in _groups(remote, None)] == [3] * partitions
    assert _groups(paths, 4) == [paths[:4], paths[4:]]


def test_partitions_follow_the_cluster_in_use(client: Client, tmp_path: Path) -> None:
    from prime_nb.corpus._dask import PARTITIONS_PER_THREAD, _groups, cluster_threads

    assert cluster_threads() == 2  # the two one-thread workers of the fixture's cluster
    paths = []
    for k in range(40):
        path = tmp_path / f"f{k}.jsonl"
        path.write_bytes(b"x" * (1 << 19))
        paths.append(str(path))
    assert len(_groups(paths, None)) == 2 * PARTITIONS_PER_THREAD  # 20 MB in 8 of 2.5 MB
