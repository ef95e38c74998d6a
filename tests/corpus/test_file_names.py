"""File names that are not UTF-8: every table, the cache, Dask, the CLI and the views.

A file name is bytes; Python keeps those that are not UTF-8 as lone surrogates, which
Arrow-backed text columns, JSON and a strict terminal refuse. One such name in a folder
used to fail every corpus table. Here a twin folder holds the same sessions under
UTF-8 names, and each table of the odd folder must equal the twin's, the names shown
with ``\\xNN`` escapes aside.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from conftest import header, msg, write_lines
from research_sessions import branchy, compacted
from test_cache import Reads

import prime_nb
from prime_nb import corpus, plots
from prime_nb._names import real_name, shown_name
from prime_nb.widget import export_html

#: Latin-1 bytes, as an old tool or another system may name a file: not UTF-8
ODD = os.fsdecode(b"caf\xe9-\xff")
PLAIN = "plain"


def fill(root: Path, tag: str) -> None:
    root.mkdir()
    branchy(root / f"{tag}-branchy.jsonl")
    compacted(root / f"{tag}-compacted.jsonl")
    (root / f"{tag}-broken.jsonl").write_text("not a session\n")


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path]:
    """(plain, odd): the same files, named in UTF-8 and not."""
    plain, odd = tmp_path / "plain", tmp_path / "odd"
    fill(plain, PLAIN)
    fill(odd, ODD)
    return plain, odd


def as_plain(frame: pd.DataFrame, plain: Path, odd: Path) -> pd.DataFrame:
    """The odd folder's table with its shown names turned into the twin's."""
    shown, twin = shown_name(f"{odd}{os.sep}{ODD}"), f"{plain}{os.sep}{PLAIN}"

    def swap(value: Any) -> Any:  # paths, then keys named after a file
        if not isinstance(value, str):
            return value
        return value.replace(shown, twin).replace(shown_name(ODD), PLAIN)

    out = frame.copy()
    for name in ("path", "error", "root_path", "session", "family", "parent"):
        if name in out and len(out):
            out[name] = out[name].astype(object).map(swap).astype(frame[name].dtype)
    return out


def test_shown_names_escape_what_is_not_utf8_and_lead_back_to_the_file(tmp_path: Path) -> None:
    assert shown_name("plain-café.jsonl") == "plain-café.jsonl"
    assert shown_name(ODD) == "caf\\xe9-\\xff"
    assert shown_name("x\ud800y") == "x\\ud800y"  # a surrogate no byte maps to
    target = tmp_path / f"{ODD}.jsonl"
    target.write_text("x")
    shown = shown_name(str(target))
    shown.encode("utf-8")  # what Arrow, JSON and a strict terminal need
    assert real_name(shown) == str(target)
    assert real_name(str(tmp_path / "missing\\xff.jsonl")) == str(tmp_path / "missing\\xff.jsonl")
    literal = tmp_path / "a\\xffb.jsonl"  # a real name that spells an escape
    literal.write_text("x")
    assert real_name(str(literal)) == str(literal)


@pytest.mark.parametrize("workers", [1, 2])
def test_corpus_tables(twins: tuple[Path, Path], workers: int) -> None:
    plain, odd = twins
    kw: dict[str, Any] = {"workers": workers, "progress": False}
    for table in (corpus.load_corpus, corpus.corpus_compactions, corpus.corpus_branches):
        got = table(odd, **kw)
        assert got["path"].str.contains("\\xff", regex=False).any()
        pd.testing.assert_frame_equal(as_plain(got, plain, odd), table(plain, **kw))


def test_the_cache_keeps_the_real_names(
    twins: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, odd = twins
    kw: dict[str, Any] = {"workers": 1, "progress": False, "cache": tmp_path / "cache"}
    first = corpus.load_corpus(odd, **kw)
    reads = Reads(monkeypatch)
    again = corpus.load_corpus(odd, **kw)
    assert reads.full == [] and reads.resumed == []  # every file found in the cache
    pd.testing.assert_frame_equal(again, first)
    pd.testing.assert_frame_equal(as_plain(again, plain, odd), corpus.load_corpus(plain, **kw))


def test_list_sessions_and_families(twins: tuple[Path, Path]) -> None:
    plain, odd = twins
    got = prime_nb.list_sessions(odd).drop(columns="modified")
    want = prime_nb.list_sessions(plain).drop(columns="modified")
    by_path = ["path"]
    pd.testing.assert_frame_equal(
        as_plain(got, plain, odd).sort_values(by_path, ignore_index=True),
        want.sort_values(by_path, ignore_index=True),
    )
    got = corpus.families(odd, workers=1, progress=False)
    want = corpus.families(plain, workers=1, progress=False)
    pd.testing.assert_frame_equal(as_plain(got, plain, odd), want)


def test_dask_tables(twins: tuple[Path, Path]) -> None:
    import dask  # here: dask.dataframe costs every worker's collection

    from prime_nb.corpus import _dask

    plain, odd = twins
    with dask.config.set(scheduler="synchronous"):
        for folder in (odd, plain):
            sessions = _dask.sessions_dask(folder)
            tables = [
                sessions.compute(),
                _dask.compactions_dask(sessions).compute(),  # opens the files by shown name
                _dask.branches_dask(sessions).compute(),
                _dask.to_dask(folder).compute(),
            ]
            if folder == odd:
                got = [as_plain(t, plain, odd) for t in tables]
            else:
                want = tables
    assert len(got[1]) and len(got[2]) and len(got[3])
    for a, b in zip(got, want, strict=True):
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


STRICT_COMMANDS = ("info", "validate", "family", "ls")

#: each command in turn in one child (one import of prime_nb for all), through ``main``
#: as ``python -m prime_nb.cli`` runs it, the names given as bytes on its command line;
#: each command's output ends with a NUL, its name and exit code, and a NUL
STRICT_RUNS = """
import sys
from prime_nb.cli import main
folder, file = sys.argv[1], sys.argv[2]
for command in sys.argv[3:]:
    assert sys.stdout.errors == "strict", sys.stdout.errors  # as a fresh process has it
    code = main([command, folder if command == "ls" else file])
    sys.stdout.flush()
    sys.stdout.buffer.write(b"\\0%s %d\\0" % (command.encode(), code))
    sys.stdout.buffer.flush()
"""


@pytest.fixture(scope="module")
def strict_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, bytes]]:
    """Each command's exit code and output on the odd folder, from one child whose
    stdout is a strict UTF-8 terminal (surrogates raise)."""
    odd = tmp_path_factory.mktemp("strict") / "odd"
    fill(odd, ODD)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # strict: surrogates raise
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            STRICT_RUNS,
            os.fsencode(odd),
            os.fsencode(odd / f"{ODD}-branchy.jsonl"),
            *STRICT_COMMANDS,
        ],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    parts = done.stdout.split(b"\0")
    assert parts[-1] == b"" and len(parts) == 2 * len(STRICT_COMMANDS) + 1, done.stdout
    runs = {}
    for out, end in zip(parts[0:-1:2], parts[1:-1:2], strict=True):
        command, code = end.decode().split(" ")
        runs[command] = (int(code), out)
    return runs


@pytest.mark.parametrize("command", STRICT_COMMANDS)
def test_the_cli_on_a_strict_terminal(
    strict_runs: dict[str, tuple[int, bytes]], command: str
) -> None:
    code, out = strict_runs[command]
    assert code == 0
    if command != "family":  # family names sessions by id, not by file
        assert b"caf\\xe9-\\xff" in out


def test_views_of_a_session_named_by_its_file(tmp_path: Path) -> None:
    """No id and no name in the file: the export and the figures are titled by its name."""
    target = write_lines(
        tmp_path / f"{ODD}.jsonl",
        [header(id=None), msg("u1", None, "user", "hi", 0), msg("a1", "u1", "assistant", "yo", 1)],
    )
    session = prime_nb.load(target)
    assert session.id is None and session.name is None
    assert "caf\\xe9-\\xff" in repr(session)
    assert "caf\\xe9-\\xff" in orjson.loads(orjson.dumps(session.summary()))["file"]
    page = export_html(session, tmp_path / "out.html").read_text(encoding="utf-8")
    assert "caf\\xe9-\\xff" in page
    figure = plots.cost_by_branch(session)
    assert "caf\\xe9-\\xff" in figure.layout.title.text
    figure.to_json()  # what the notebook sends: JSON refuses a lone surrogate


def test_datasets_from_the_folder_and_from_its_corpus_table(twins: tuple[Path, Path]) -> None:
    """The corpus table shows the escaped name; the dataset still finds the file."""
    from prime_nb.datasets import from_sessions

    plain, odd = twins
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broken file is skipped, with a warning
        want = from_sessions(plain, progress=False).to_pandas()
    for given in (odd, corpus.load_corpus(odd, workers=1, progress=False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = from_sessions(given, progress=False).to_pandas()
        # only the file that is no session is skipped (a shown name once was too)
        assert [str(w.message).split(":")[0].endswith("-broken.jsonl") for w in caught] == [True]
        assert got["file"].str.contains("\\xff", regex=False).any()
        got["file"] = got["file"].str.replace(
            shown_name(f"{odd}{os.sep}{ODD}"), f"{plain}{os.sep}{PLAIN}", regex=False
        )
        pd.testing.assert_frame_equal(got, want)


def test_a_shown_name_opens_its_file(twins: tuple[Path, Path]) -> None:
    """The path column leads back to the file: load, the corpus's files= and family_of
    take the shown name, as a notebook loops over a corpus table's paths."""
    _, odd = twins
    table = corpus.load_corpus(odd, workers=1, progress=False)
    shown = [p for p in table.loc[table["error"].isna(), "path"] if "\\xff" in p]
    assert len(shown) == 2
    for path in shown:
        assert len(prime_nb.load(path)) > 0
    again = corpus.load_corpus(files=shown, workers=1, progress=False)
    assert again["error"].isna().all() and again["path"].tolist() == shown
    from prime_nb.family import family_of

    assert len(family_of(shown[0])) == 1
