"""corpus.families: one row per family, the same locally, in worker processes and on Dask."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb import corpus
from prime_nb.family import FAMILY_COLUMNS
from sessiongen import synthetic_family, synthetic_session

if TYPE_CHECKING:  # only the tests given a cluster import distributed
    from distributed import Client


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two 3-level families (one in the spec dialect), a lone session, a broken file."""
    root = tmp_path_factory.mktemp("families")
    synthetic_family(root / "one", seed=1)
    synthetic_family(root / "two", seed=2, dialect="spec")
    synthetic_session(root / "alone.jsonl", seed=9)
    (root / "broken.jsonl").write_text("not a session\n")
    return root


def sort(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by family, dtypes untouched (the Dask table keeps pandas' own)."""
    return frame.sort_values("family", kind="stable").reset_index(drop=True)


def test_one_row_per_family_with_the_family_totals(folder: Path) -> None:
    table = corpus.families(folder, workers=1, progress=False)
    assert list(table.columns) == list(FAMILY_COLUMNS)
    assert [str(t) for t in table.dtypes] == [
        "str" if d == "str" else d for d in FAMILY_COLUMNS.values()
    ]
    assert len(table) == 4  # two families, the lone session, the broken file
    full = table[table["sessions"] == 5]
    assert len(full) == 2
    assert full["forks"].tolist() == [2, 2] and full["subagents"].tolist() == [2, 2]
    assert full["levels"].tolist() == [3, 3] and full["max_rlm_depth"].tolist() == [2, 2]
    for row in full.itertuples():
        family = prime_nb.load_family(Path(row.root_path))
        totals = family.totals
        assert row.cost == pytest.approx(totals["cost"])
        assert (row.tokens, row.unique_entries) == (totals["tokens"], totals["unique_entries"])
        assert row.naive_cost > row.cost
    broken = table[table["errors"] == 1]
    assert broken["root_path"].str.endswith("broken.jsonl").all()
    assert broken["problems"].tolist() == [1]


def test_worker_processes_give_the_same_table(folder: Path) -> None:
    pd.testing.assert_frame_equal(
        sort(corpus.families(folder, workers=2, progress=False)),
        sort(corpus.families(folder, workers=1, progress=False)),
    )


def test_an_empty_folder_gives_an_empty_typed_table(tmp_path: Path) -> None:
    table = corpus.families(tmp_path, workers=1, progress=False)
    assert table.empty and list(table.columns) == list(FAMILY_COLUMNS)


def test_dask_matches_pandas(folder: Path, client: Client) -> None:
    ddf = corpus.families_dask(folder, files_per_partition=3)
    assert list(ddf._meta.columns) == list(FAMILY_COLUMNS)  # declared, not inferred
    got = ddf.compute()
    expected = corpus.families(folder, workers=1, progress=False)
    pd.testing.assert_frame_equal(sort(got), sort(expected))
    url = corpus.families_dask(f"file://{folder}").compute()
    assert url["root_path"].str.startswith("file://").all()
    assert url["cost"].sum() == pytest.approx(expected["cost"].sum())


def test_the_agent_written_fork_is_one_family_with_its_source(fixtures_dir: Path) -> None:
    table = corpus.families(fixtures_dir / "agent-written", workers=1, progress=False)
    pair = table[table["sessions"] == 2]
    assert pair["root_path"].str.endswith("feature-tour.jsonl").all()
    assert (pair["forks"].tolist(), pair["subagents"].tolist()) == ([1], [0])
    source = prime_nb.load(fixtures_dir / "agent-written" / "feature-tour.jsonl").summary()
    assert pair["cost"].iloc[0] == pytest.approx(source["cost"])
    assert pair["problems"].tolist() == [1]  # the ambiguous match (3 files hold its id)
    assert len(table) == len(list((fixtures_dir / "agent-written").glob("*.jsonl"))) - 1


def test_a_parent_session_that_is_a_symlink_loop_is_a_missing_parent(tmp_path: Path) -> None:
    """Resolving the path raised RuntimeError (a symlink loop) out of the stitching."""
    loop = tmp_path / "loop-a.jsonl"
    loop.symlink_to(tmp_path / "loop-b.jsonl")
    (tmp_path / "loop-b.jsonl").symlink_to(loop)
    write_lines(
        tmp_path / "child.jsonl",
        [header(id="sess-c", parentSession=str(loop)), msg("c1", None, "user")],
    )
    table = corpus.families(tmp_path, workers=1, progress=False)
    assert table["family"].tolist() == ["sess-c"]
    assert table["problems"].tolist() == [1] and table["errors"].tolist() == [0]
