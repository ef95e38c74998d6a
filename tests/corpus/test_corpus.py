"""Corpus loading: parallel, a broken file listed with its error, never aborting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from research_sessions import BRANCHY_TOTAL_COST, BRANCHY_TOTAL_TOKENS, branchy, compacted

import prime_nb
from prime_nb import corpus
from prime_nb.corpus import (
    corpus_branches,
    corpus_compactions,
    corpus_entries,
    families,
    load_corpus,
    to_parquet,
)
from prime_nb.family import family_of
from prime_nb.session import find_session_files


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    branchy(tmp_path / "branchy.jsonl")
    (tmp_path / "project").mkdir()
    compacted(tmp_path / "project" / "compacted.jsonl")
    (tmp_path / "broken.jsonl").write_text('["JSON", "but no entry"]\n{"type": "message"\n')
    (tmp_path / "garbage.jsonl").write_bytes(b"\x00\xff not json\n")
    (tmp_path / "notes.txt").write_text("not a session, not matched")
    return tmp_path


def test_load_corpus_in_parallel(corpus_dir: Path) -> None:
    frame = load_corpus(corpus_dir, workers=2, progress=False).set_index("path")
    assert len(frame) == 4
    good = frame.loc[str(corpus_dir / "branchy.jsonl")]
    # by hand: 10 entries, 2 leaves, 1 fork, 5 assistant turns
    assert good["entries"] == 10 and good["leaves"] == 2 and good["forks"] == 1
    assert good["tokens"] == BRANCHY_TOTAL_TOKENS
    assert good["cost"] == pytest.approx(BRANCHY_TOTAL_COST)
    assert good["compactions"] == 0 and good["problems"] == 0
    assert good["duration"] == pd.Timedelta(minutes=9)
    assert good["first_user_message"] == "start"
    assert good["cwd"] == "/proj" and good["version"] == 3 and good["dialect"] == "prime"
    assert pd.isna(good["error"])
    nested = frame.loc[str(corpus_dir / "project" / "compacted.jsonl")]
    assert nested["compactions"] == 2 and nested["entries"] == 14
    for name in ("broken.jsonl", "garbage.jsonl"):
        row = frame.loc[str(corpus_dir / name)]
        assert "SessionFormatError" in row["error"]
        assert pd.isna(row["entries"])


def test_load_corpus_in_process_gives_the_same(corpus_dir: Path) -> None:
    one = load_corpus(corpus_dir, workers=1, progress=False)
    two = load_corpus(corpus_dir, workers=2, progress=False)
    pd.testing.assert_frame_equal(one, two)


def test_corpus_entries_and_parquet(corpus_dir: Path, tmp_path: Path) -> None:
    entries = corpus_entries(corpus_dir, workers=1, progress=False)
    assert entries.groupby("session").size().to_dict() == {"sess-1": 24}  # same header id twice
    assert entries.groupby("path").size().tolist() == [10, 14]
    assert entries["total_tokens"].sum() == BRANCHY_TOTAL_TOKENS + 10 * 4 + 82 + 10
    corpus = load_corpus(corpus_dir, workers=1, progress=False)
    back = pd.read_parquet(to_parquet(corpus, tmp_path / "corpus.parquet"))
    assert back["path"].tolist() == corpus["path"].tolist()
    assert back["tokens"].tolist() == corpus["tokens"].tolist()
    out = to_parquet(entries, tmp_path / "entries.parquet")
    assert len(pd.read_parquet(out)) == 24


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such folder"):
        load_corpus(tmp_path / "nope", progress=False)


TABLES = [load_corpus, corpus_compactions, corpus_branches, corpus_entries, families]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True, [2]])
def test_odd_workers_are_a_clear_error(corpus_dir: Path, table: Any, workers: Any) -> None:
    """-1 reads as 'every core' elsewhere; here it would have meant one: said, not guessed."""
    with pytest.raises(ValueError, match=r"workers=.*whole number of processes.*None"):
        table(corpus_dir, workers=workers, progress=False)


@pytest.mark.parametrize("workers", [np.int64(2), 1, None])
def test_whole_numbers_of_any_kind_are_workers(corpus_dir: Path, workers: Any) -> None:
    assert len(load_corpus(corpus_dir, workers=workers, progress=False)) == 4


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.__name__)
def test_one_file_given_alone_is_one_file(corpus_dir: Path, table: Any) -> None:
    one = corpus_dir / "branchy.jsonl"
    for given in (str(one), one):
        got = table(files=given, workers=1, progress=False)
        pd.testing.assert_frame_equal(got, table(files=[one], workers=1, progress=False))
    assert len(load_corpus(files=str(one), workers=1, progress=False)) == 1


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.__name__)
def test_a_list_where_the_folder_goes_is_the_files(corpus_dir: Path, table: Any) -> None:
    """As the Dask tables take ``paths_or_dir``: ``load_corpus(paths)`` reads those files."""
    named = sorted(corpus_dir.rglob("*.jsonl"))[:3]
    expected = table(files=named, workers=1, progress=False)
    for given in (named, tuple(map(str, named)), pd.Series(named), (p for p in named)):
        pd.testing.assert_frame_equal(table(given, workers=1, progress=False), expected)
    with pytest.raises(ValueError, match="give the files once"):
        table(named, files=named, workers=1, progress=False)
    with pytest.raises(ValueError, match="a folder or files=, not both"):
        table(corpus_dir, files=named, workers=1, progress=False)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.__name__)
def test_a_list_may_name_folders(corpus_dir: Path, tmp_path_factory: Any, table: Any) -> None:
    """Sessions spread over several folders: each folder of a list is searched with the
    pattern, in the list's order; a file named twice (by a folder and by itself, or as
    two spellings of one path) is read once, under the name it was given first."""
    other = tmp_path_factory.mktemp("other")
    branchy(other / "second.jsonl")
    (other / "deeper").mkdir()
    compacted(other / "deeper" / "third.jsonl")
    kw: dict[str, Any] = {"workers": 1, "progress": False}
    mine, theirs = find_session_files(corpus_dir), find_session_files(other)
    want = table(files=[*theirs, *mine], **kw)
    assert len(want)
    named_twice = [other, theirs[0], corpus_dir, corpus_dir / "project" / ".." / "branchy.jsonl"]
    for given in ([other, corpus_dir], named_twice, (str(p) for p in (other, corpus_dir))):
        pd.testing.assert_frame_equal(table(given, **kw), want)
    pd.testing.assert_frame_equal(table(files=[other, corpus_dir], **kw), want)
    top = [other / "second.jsonl", *(p for p in mine if p.parent == corpus_dir)]
    pd.testing.assert_frame_equal(
        table([other, corpus_dir], pattern="*.jsonl", **kw), table(files=top, **kw)
    )


def test_each_file_of_a_list_is_one_row(corpus_dir: Path) -> None:
    mine = find_session_files(corpus_dir)
    got = load_corpus([*mine, corpus_dir, *reversed(mine)], workers=1, progress=False)
    assert got["path"].tolist() == list(map(str, mine))


def test_the_dask_tables_search_the_folders_of_a_list(
    corpus_dir: Path, tmp_path_factory: Any
) -> None:
    other = tmp_path_factory.mktemp("other")
    branchy(other / "second.jsonl")
    want = load_corpus([other, corpus_dir], workers=1, progress=False)
    got = corpus.sessions_dask([other, corpus_dir]).compute().reset_index(drop=True)
    assert got["path"].tolist() == want["path"].tolist()
    remote = "memory://bucket/s.jsonl"  # a URL in a list is one file, as given
    assert corpus._dask.resolve([remote, other]) == [remote, str(other / "second.jsonl")]


@pytest.mark.parametrize("odd", [3, None, ["a.jsonl"], b"a.jsonl", {"a": 1}])
def test_a_path_of_the_wrong_kind_is_one_clear_error(corpus_dir: Path, odd: Any) -> None:
    """What to pass instead, where ``Path(odd)`` only named the types it takes."""
    with pytest.raises(TypeError, match=r"a session must be a path.*load_corpus\(files="):
        prime_nb.load(odd)
    if odd is not None:  # no folder: the agent's own, for these
        with pytest.raises(TypeError, match=r"the folder must be a path.*name one folder"):
            prime_nb.list_sessions(odd)
    with pytest.raises(TypeError, match=r"load_family's target must be a path.*family_of"):
        prime_nb.load_family(odd)
    if not isinstance(odd, list):  # a list is the files (above)
        with pytest.raises(TypeError, match="the folder must be a path"):
            load_corpus(odd if odd is not None else 3, progress=False)
        with pytest.raises(TypeError, match=r"paths_or_dir must be a path.*list of files"):
            corpus.sessions_dask(odd)


@pytest.mark.parametrize(
    "lister",
    [load_corpus, prime_nb.load_family, find_session_files, corpus.sessions_dask],
    ids=lambda f: f.__name__,
)
def test_an_absolute_pattern_is_a_clear_error(corpus_dir: Path, lister: Any) -> None:
    with pytest.raises(ValueError, match="pattern below the folder"):
        lister(corpus_dir, pattern=str(corpus_dir / "*.jsonl"))


def test_family_of_one_path_alone_is_one_file(corpus_dir: Path) -> None:
    one = corpus_dir / "branchy.jsonl"
    for given in (str(one), one):
        assert len(family_of(given)) == 1


def test_cache_none_is_no_cache_and_an_odd_cache_is_a_clear_error(corpus_dir: Path) -> None:
    plain = load_corpus(corpus_dir, workers=1, progress=False)
    kw: dict[str, Any] = {"workers": 1, "progress": False}
    pd.testing.assert_frame_equal(load_corpus(corpus_dir, cache=None, **kw), plain)
    with pytest.raises(TypeError, match="cache=1: pass True"):
        load_corpus(corpus_dir, cache=1, **kw)


def test_a_worker_that_dies_does_not_stop_the_corpus(corpus_dir: Path) -> None:
    from research_sessions import row_or_die

    from prime_nb.corpus._runner import run
    from prime_nb.corpus._work import error_row

    (corpus_dir / "die.jsonl").write_text("")
    paths = [str(p) for p in sorted(corpus_dir.rglob("*.jsonl"))]
    rows = run(row_or_die, paths, 2, "sessions", False, error_row)
    assert [r["path"] for r in rows] == paths
    died = next(r for r in rows if r["path"].endswith("die.jsonl"))
    assert "BrokenProcessPool" in died["error"]
    others = [r for r in rows if not r["path"].endswith("die.jsonl")]
    assert all("BrokenProcessPool" not in str(r.get("error")) for r in others)
    assert sum(r.get("error") is None for r in others) == 2  # branchy and compacted
    good = [p for p in paths if not p.endswith("die.jsonl")]
    again = run(row_or_die, good, 2, "sessions", False, error_row)  # a pool that works
    assert [r.get("error") is None for r in again] == [r.get("error") is None for r in others]


def test_progress_ends_with_a_final_line(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    load_corpus(corpus_dir, workers=2, progress=True)
    out = capsys.readouterr()
    assert "4/4" in out.err  # the bar
    final = out.out.strip().splitlines()[-1]
    assert re.search(
        r"^4 files, \d+\.\d MB in \d+\.\d s \(\d+ MB/s\), 0 problems, 2 files unreadable$", final
    ), final


def test_the_final_line_counts_in_words(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    load_corpus(files=[corpus_dir / "broken.jsonl"], workers=1, progress=True)
    final = capsys.readouterr().out.strip().splitlines()[-1]
    assert final.startswith("1 file, ") and final.endswith(", 0 problems, 1 file unreadable")
    from prime_nb._words import counted

    assert [counted(n, "file") for n in (0, 1, 2, 12_345)] == [
        "0 files",
        "1 file",
        "2 files",
        "12,345 files",
    ]
