"""Every public function of analysis, plots, corpus, families, redact, the widget's data,
export_html and the CLI, over every session of the matrix (``session_matrix.CASES``): no
exception allowed.

Research helpers once raised on any session whose compactions had no previous one on their
path (one compaction, or two on different branches), because their tests only used
sessions with chained compactions; this test is the cure for that kind of blind spot.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from session_matrix import CASES, write_all, write_case

import prime_nb
from prime_nb import analysis, corpus, plots
from prime_nb.cli import main as cli
from prime_nb.widget import export_html
from prime_nb.widget._data import SessionData

#: at most this many leaves and entries per session are asked about one by one
SAMPLE = 20


def _sample(items: list[Any]) -> list[Any]:
    if len(items) <= SAMPLE:
        return items
    step = len(items) / SAMPLE
    return [items[int(k * step)] for k in range(SAMPLE)] + [items[-1]]


def _json(value: Any) -> None:
    """What the widget sends must serialise (the comm and the export use JSON)."""
    orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)


def run_session_api(session: prime_nb.Session) -> None:
    for table in ("entries", "messages", "tool_calls", "compactions", "leaves", "problems"):
        assert isinstance(getattr(session, table), pd.DataFrame)
    session.graph  # noqa: B018
    repr(session)
    json.dumps(session.summary(), default=str)
    session.labels  # noqa: B018
    session.header  # noqa: B018
    ids = list(session.entries.index)
    session.read_entries(ids)
    for entry_id in _sample(ids):
        session.entry(entry_id)
        session.children(entry_id)
    for leaf in [None, *_sample(list(session.leaves.index))]:
        session.path(leaf)
        session.context(leaf)
        session.agent_status_at(leaf)
        json.dumps(session.to_messages(leaf), default=str)
        json.dumps(
            session.to_messages(leaf, format="anthropic", images="drop", thinking=False),
            default=str,
        )
    for table in (
        "bash_runs",
        "branch_summaries",
        "child_usage",
        "custom_entries",
        "git_states",
        "label_table",
    ):
        assert isinstance(getattr(session, table), pd.DataFrame), table
    session.agent_status  # noqa: B018
    session.state  # noqa: B018


def run_analysis(session: prime_nb.Session) -> None:
    leaves = list(session.leaves.index)
    analysis.compaction_forensics(session)
    analysis.compaction_forensics(session, list(session.compactions.index)[:1])
    analysis.branches(session)
    analysis.fork_points(session)
    analysis.branch_segments(session)
    analysis.abandoned_share(session)
    analysis.compaction_retention(session)
    analysis.compaction_retention(session, detail=True)
    for leaf in [None, *_sample(leaves)]:
        frame = analysis.context_frame(session, leaf)
        assert isinstance(frame, pd.DataFrame)
    for message in session.context():
        analysis.estimate_tokens(message)
    pairs = list(itertools.pairwise(leaves))[:SAMPLE] or [(leaf, leaf) for leaf in leaves]
    for a, b in pairs:
        analysis.common_ancestor(session, a, b)
        analysis.compare(session, a, b)
        analysis.compare((session, a), (session, b))._repr_html_()


def run_plots(session: prime_nb.Session) -> None:
    for leaf in [None, *list(session.leaves.index)[:1]]:
        plots.context_timeline(session, leaf)
        plots.model_changes(session, leaf)
    plots.cost_by_branch(session)
    plots.tool_usage(session)
    plots.turn_timeline(session)
    plots.compaction_report(session)


def run_widget_data(session: prime_nb.Session) -> None:
    data = SessionData(session)
    _json({k: v for k, v in data.tree().items() if not isinstance(v, bytes | memoryview)})
    data.columns()
    _json(data.sparse())
    for index in _sample(list(range(data.n))):
        for what in ("entry", "preview", "context"):
            _json(data.answer({"what": what, "index": index}))
    _json(data.answer({"what": "lines", "indices": list(range(min(data.n, 50)))}))
    for query in ("a", "the", "🙂", ""):
        _json(data.answer({"what": "search", "query": query}))
    _json(data.refresh())


def run_family(path: Path) -> None:
    """The family of one file (it is its own family, unless the matrix links files)."""
    family = prime_nb.load_family(path)
    for table in (family.sessions, family.links, family.problems):
        assert isinstance(table, pd.DataFrame)
    json.dumps(family.totals, default=str)
    repr(family)
    family.outline()
    family.graph  # noqa: B018
    for key in family.roots:
        family.lineage(key)
        family.copied(key)
        family.context(key)
    prime_nb.list_sessions(path.parent)


def run_redact(path: Path, folder: Path) -> None:
    """A redacted copy keeps every entry and every problem but the repairs: only free text
    changes. A line the loader repaired (bad UTF-8, lone surrogates, nesting past its
    depth) is written repaired, so the copy has nothing left to report on that line."""
    folder.mkdir(parents=True, exist_ok=True)
    copy = prime_nb.load(prime_nb.redact(path, folder / "redacted.jsonl").path)
    original = prime_nb.load(path)
    assert len(copy) == len(original)
    repairs = {"lone_surrogate", "deep_nesting", "invalid_utf8"}
    problems = original.problems
    repaired = set(problems["line"][problems["kind"].isin(repairs)])

    def kinds(session: prime_nb.Session) -> list[tuple[int, str]]:
        rows = zip(session.problems["line"], session.problems["kind"], strict=True)
        return [(line, kind) for line, kind in rows if line not in repaired]

    assert kinds(copy) == kinds(original)


def run_cli(path: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / f"copy-{path.name}"
    shutil.copyfile(path, copy)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["info", "--json", str(copy)]) == 0
    assert json.loads(out.getvalue())["entries"] == len(prime_nb.load(copy))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli(["info", str(copy)]) == 0
        assert cli(["validate", str(copy)]) in (0, 1)
        assert cli(["validate", "-q", str(copy)]) in (0, 1)
        assert cli(["ls", str(folder)]) == 0
        assert cli(["ls", "--json", str(folder)]) == 0
        assert cli(["export", str(copy), "-o", str(folder / "cli.html")]) == 0
        assert cli(["family", str(copy)]) in (0, 1)  # 1: the family has problems
        assert cli(["upgrade", str(copy)]) == 0
    prime_nb.load(copy).summary()  # the upgraded file loads


def run_migrate(path: Path) -> None:
    """``migrate`` of the file's object lines (header first): current, header and all."""
    entries = []
    for line in path.read_bytes().splitlines():
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            entries.append(value)
    if entries and entries[0].get("type") in ("session", "header"):
        migrated = prime_nb.migrate(entries)
        assert len(migrated) == len(entries) and migrated[0]["version"] == 3


@pytest.mark.parametrize("name", CASES)
def test_every_public_function_survives(name: str, tmp_path: Path) -> None:
    path = write_case(name, tmp_path / "in")
    session = prime_nb.load(path)
    run_session_api(session)
    run_analysis(session)
    run_plots(session)
    run_widget_data(session)
    html = export_html(session, tmp_path / "out.html")
    assert html.stat().st_size > 0
    corpus.session_row(str(path))
    corpus.session_entries(str(path))
    run_family(path)
    run_redact(path, tmp_path / "redact")
    run_cli(path, tmp_path / "cli")
    run_migrate(path)


def test_corpus_functions_over_the_whole_matrix(tmp_path: Path) -> None:
    paths = write_all(tmp_path / "all")
    files = sorted(str(p) for p in paths.values())
    rows = corpus.load_corpus(files=files, workers=1, progress=False)
    assert rows["error"].isna().all(), rows.loc[rows["error"].notna(), ["path", "error"]]
    entries = corpus.corpus_entries(files=files, workers=1, progress=False)
    assert len(entries) == sum(rows["entries"])
    compactions = corpus.corpus_compactions(files=files, workers=1, progress=False)
    branches = corpus.corpus_branches(files=files, workers=1, progress=False)
    corpus.corpus_retention(files=files, workers=1, progress=False)
    corpus.to_parquet(rows, tmp_path / "rows.parquet")
    corpus.to_parquet(entries, tmp_path / "entries.parquet")
    # workers left to prime_nb: this small corpus is read in this process, the same rows
    pd.testing.assert_frame_equal(corpus.load_corpus(files=files, progress=False), rows)
    sessions = corpus.sessions_dask(files, files_per_partition=16)
    computed = sessions.compute()
    assert computed["error"].isna().all()
    # the Dask tables equal the pandas ones, dtypes included (in file order, as read)
    same = pd.testing.assert_frame_equal
    same(computed.reset_index(drop=True), rows)
    dask_entries = corpus.to_dask(files, files_per_partition=16).compute()
    same(dask_entries.reset_index(drop=True), entries)
    same(corpus.compactions_dask(sessions).compute().reset_index(drop=True), compactions)
    same(corpus.branches_dask(sessions).compute().reset_index(drop=True), branches)
    families = corpus.families(files=files, workers=1, progress=False)
    assert families["sessions"].sum() == len(files)
    same(corpus.families_dask(files, files_per_partition=16).compute(), families)
