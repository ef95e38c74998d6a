"""``to_scout``: Scout's own scanners (grep, and an LLM question on Inspect's ``mockllm``)
run over the database it writes, and every message they cite is an entry of the path of
its session; ``scout_references`` and ``prime_nb.show(row)`` lead back to it. Offline:
Inspect's token counter gets a local tokenizer."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from session_matrix import CASES, clean_lines, write_case, write_lines

import prime_nb
from prime_nb.interop import compaction_probes, scout_references, to_scout
from sessiongen import use_local_tokenizer

if TYPE_CHECKING:
    import inspect_ai.model as inspect_model


def _scout() -> ModuleType:
    """inspect_scout, imported by the tests that use it: imported with the module, it
    cost every pytest worker seconds while collecting, run there or not."""
    import inspect_scout

    return inspect_scout


#: sessions of every kind for the LLM scanner (each transcript is a model call): the most
#: forked synthetic and compacted ones in both dialects, and the fixtures whose trees differ
#: (branches, heavy and off-path compaction, a labelled first-kept entry, the tour)
LLM_CASES = [
    c
    for c in CASES
    if (c.startswith("synthetic-v3") and c.endswith("forks5"))
    or c in ("comp-on2-off2-forks6-v2-spec", "comp-on2-off2-forks6-v3-prime")
    or c.endswith(
        (
            "agent-branched-a8.jsonl",
            "compaction-heavy.jsonl",
            "edge-compaction-offpath.jsonl",
            "edge-firstkept-label.jsonl",
            "feature-tour.jsonl",
            "before-compaction.jsonl",
        )
    )
]


def _grep_case(n: int, name: str) -> bool:
    """Every fixture and compaction shape once (v3 prime, and v1 in the spec dialect), every
    synthetic format version, and every sixth hostile variant: Scout spends a tenth of a
    second per transcript, and the dialect and fork-count variants it would repeat are
    converted (and checked) by ``to_scout`` over every case."""
    if name.startswith("odd"):
        return n % 6 == 0
    if name.startswith(("fixture", "empty")):
        return True
    if name.startswith("synthetic"):
        return name.startswith("synthetic-v1") or name.endswith("forks5")
    return name.endswith(("-v3-prime", "-v1-spec"))


#: what grep scans
GREP_CASES = [c for n, c in enumerate(CASES) if _grep_case(n, c)]


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No network, nothing written outside the test's folder (Scout's scan buffers)."""
    use_local_tokenizer()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


def _mock(answer: str, n: int) -> inspect_model.Model:
    import inspect_ai.model as inspect_model

    output = inspect_model.ModelOutput.from_content("mockllm/model", answer)
    return inspect_model.get_model("mockllm/model", custom_outputs=[output] * n)


def _scan(scanners: dict[str, Any], db: Path, model: inspect_model.Model | None = None) -> Any:
    scout = _scout()
    status = scout.scan(
        scanners,
        transcripts=scout.transcripts_from(str(db)),
        scans=str(db.parent / "scans"),
        model=model,
        display="none",
        max_processes=1,
    )
    assert status.complete
    return status


def _check_references(refs: pd.DataFrame) -> None:
    """Every cited message is an entry on the transcript's path in its session's file."""
    assert not refs.empty
    for (file, leaf), rows in refs.groupby(["file", "leaf_id"]):
        session = prime_nb.load(str(file))
        # a file with no header has no id: its transcripts take the file's name
        assert set(rows["session_id"]) == {session.id or Path(str(file)).stem}
        assert set(rows["entry_id"]) <= set(session.path(str(leaf)))


def test_every_case_converts_and_grep_cites_entries_of_its_session(tmp_path: Path) -> None:
    scout = _scout()
    folder = tmp_path / "sessions"
    written = {name: write_case(name, folder) for name in CASES}
    ids = to_scout(folder, tmp_path / "all")
    sessions = [prime_nb.load(p) for p in sorted(folder.glob("*.jsonl"))]
    assert len(ids) == sum(s.leaf_id is not None for s in sessions)  # empty ones have none
    probes = compaction_probes(folder, tmp_path / "probes")
    assert len(probes) == sum(len(s.compactions) for s in sessions)
    to_scout([written[name] for name in GREP_CASES], tmp_path / "db")
    status = _scan({"grep": scout.grep_scanner(["read", "hello"])}, tmp_path / "db")
    refs = scout_references(status)
    assert set(refs["scanner"]) == {"grep"}
    # one explanation per result, shared by its references: a str column would copy it
    # per row (a grep result cites every match and quotes them all)
    assert refs["explanation"].dtype == object
    _check_references(refs)
    assert refs["file"].nunique() > len(GREP_CASES) // 2


def test_llm_scanner_on_mockllm_cites_entries(tmp_path: Path) -> None:
    scout = _scout()
    folder = tmp_path / "sessions"
    for name in LLM_CASES:
        write_case(name, folder)
    ids = to_scout(folder, tmp_path / "db", leaves="all")
    scanner = scout.llm_scanner(question="Did the agent edit a file?", answer="boolean")
    model = _mock("It edits in [M2] after reading [M1]. ANSWER: yes", 500)
    refs = scout_references(_scan({"llm": scanner}, tmp_path / "db", model))
    assert set(refs["cite"]) == {"[M1]", "[M2]"}
    assert refs["value"].map(bool).all()
    _check_references(refs)
    assert set(refs["transcript_id"]) <= set(ids)
    assert refs["transcript_id"].nunique() > len(LLM_CASES)  # every leaf is a transcript


def test_session_and_leaf_are_columns_and_messages_keep_entry_ids(tmp_path: Path) -> None:
    scout = _scout()
    path = write_lines(tmp_path / "clean.jsonl", clean_lines())
    assert to_scout([path], tmp_path / "db", leaves="all") == ["odd:a4", "odd:x1"]
    (parquet,) = (tmp_path / "db").glob("*.parquet")
    table = pq.read_table(parquet).to_pandas().set_index("transcript_id")
    assert {"file", "session_id", "leaf_id", "is_active_leaf", "compactions"} <= set(table)
    assert table.loc["odd:a4", "leaf_id"] == "a4" and table.loc["odd:a4", "is_active_leaf"]
    assert table.loc["odd:x1", "file"] == str(path.resolve())
    # the side branch x1 leaves the active path after a2: u1, a1, t1, a2 are shared
    assert table.loc["odd:a4", "shared_messages"] == 0
    assert pd.isna(table.loc["odd:a4", "forked_from"])
    assert table.loc["odd:x1", "shared_messages"] == 4
    assert table.loc["odd:x1", "forked_from"] == "odd:a4"

    async def messages() -> list[str | None]:
        async with scout.transcripts_db(str(tmp_path / "db")) as db:
            info = [t async for t in db.select() if t.transcript_id == "odd:a4"]
            transcript = await db.read(info[0], scout.TranscriptContent(messages="all"))
        return [m.id for m in transcript.messages]

    import asyncio

    assert asyncio.run(messages()) == ["u1", "a1", "t1", "a2", "u2", "a3", "c1", "u3", "a4"]


def test_show_opens_a_reference_at_its_entry(tmp_path: Path) -> None:
    scout = _scout()
    path = write_lines(tmp_path / "clean.jsonl", clean_lines())
    to_scout(path, tmp_path / "db")
    refs = scout_references(_scan({"grep": scout.grep_scanner("story")}, tmp_path / "db"))
    (row,) = [r for _, r in refs.iterrows()]
    assert row["entry_id"] == "c1"  # the compaction's summary, "the story so far"
    widget = prime_nb.show(row)
    assert widget.session.file == path.resolve() and widget.selected_id == "c1"


def test_compaction_probes_hold_one_summary_each(tmp_path: Path) -> None:
    scout = _scout()
    write_case("comp-on2-off2-forks1-v3-prime", tmp_path / "s")
    probes = compaction_probes(tmp_path / "s", tmp_path / "db")
    session = prime_nb.load(probes["file"].iloc[0])
    assert probes["compaction_id"].tolist() == session.compactions.index.tolist()
    model = _mock("Only [M1] says so. ANSWER: no", 20)
    question = "Does this summary let you tell which files were edited?"
    scanner = scout.llm_scanner(question=question, answer="boolean")
    refs = scout_references(_scan({"probe": scanner}, tmp_path / "db", model))
    assert sorted(refs["entry_id"]) == sorted(probes["compaction_id"])
    assert not refs["value"].map(bool).any()


def test_without_the_extra_the_error_names_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_scout", None)
    with pytest.raises(ImportError, match=r"pip install 'prime-nb\[scout\]'"):
        to_scout(write_lines(tmp_path / "c.jsonl", clean_lines()), tmp_path / "db")
    with pytest.raises(ValueError, match="leaves must be 'active' or 'all'"):
        to_scout(tmp_path / "c.jsonl", tmp_path / "db", leaves="some")  # type: ignore[arg-type]
