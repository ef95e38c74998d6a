"""export_html's page over the session matrix: what it holds is what the widget answers
from, read back whole, chunked as told, with a progress bar when it should."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from session_matrix import CASES, LOADED_CASES, write_case

import prime_nb
from prime_nb.widget import _export_parts, read_export
from prime_nb.widget._data import SessionData
from prime_nb.widget._export import PROGRESS_FROM, export_html
from prime_nb.widget._page import _PART, tree64
from sessiongen import large_session_entries, write_jsonl


def plain(value: Any) -> Any:
    """``value`` as the page's JSON reads it back."""
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY))


@pytest.mark.parametrize("case", LOADED_CASES)
def test_page_holds_the_answers_of_the_widget(
    case: str, tmp_path: Path, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    session = matrix_session(case)
    page = read_export(export_html(session, tmp_path / "out.html", view="branches"))
    assert page.pop("state") == {"view": "branches"}
    parts = {"tree", "lines", "previews", "entries", "texts", "extras", "contexts"}
    assert set(page) == parts
    data = SessionData(session)
    n = data.n
    assert page["tree"] == plain(tree64(data.tree()))
    assert page["lines"] == data.node_lines
    assert page["tree"]["n"] == n and len(page["entries"]) == n and len(page["texts"]) == n
    assert page["entries"] == plain(session.read_entries(data.ids))
    assert page["texts"] == data.search_texts()
    previews, lines = page["previews"], page["lines"]
    assert [
        {**{k: previews[k][i] for k in previews}, "first_line": lines[i]} for i in range(n)
    ] == plain([data.preview(i) for i in range(n)])
    extras = page["extras"]
    assert {data.ids[row]: text for row, text in extras["labels"]} == session.labels
    calls = extras["calls"]
    table = list(
        zip(calls["assistant"], calls["call_id"], calls["name"], calls["result"], strict=True)
    )
    for i in range(n):
        live = plain(data.entry(i))
        assert extras["cost"][i] == live["cost"]
        for call_id, result in live["tool_results"].items():
            assert any(a == i and c == call_id and r == result["index"] for a, c, _, r in table)
        if live["tool_call"] is not None:
            call = live["tool_call"]
            assert (call["assistant_index"], call["call_id"], call["name"], i) in table
    for row, answer in page["contexts"].items():
        assert answer == plain(data.context(int(row)))


def test_every_context_within_the_budget_and_the_active_one_always(tmp_path: Path) -> None:
    session = prime_nb.load(write_case("comp-on2-off2-forks6-v3-prime", tmp_path))
    data = SessionData(session)
    leaves = _export_parts.context_leaves(data)
    active = data.row_of[session.leaf_id]
    assert leaves[0] == active
    everything = _export_parts.contexts(data, budget=10**9)
    assert set(everything) == {str(r) for r in leaves}
    only_active = _export_parts.contexts(data, budget=0)
    assert list(only_active) == [str(active)]


def test_chunks_by_rows_and_by_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", large_session_entries(300, seed=3))
    session = prime_nb.load(path)
    whole = read_export(export_html(session, tmp_path / "whole.html"))
    monkeypatch.setattr(_export_parts, "CHUNK_ROWS", 7)
    by_rows = tmp_path / "rows.html"
    export_html(session, by_rows)
    index = json.loads(by_rows.read_text("utf-8").split('id="pnb-index">')[1].split("</script>")[0])
    assert index["chunks"] == list(range(0, len(session.entries), 7))
    assert [p for p in index["parts"] if p.startswith("entries-")] == [
        f"entries-{k}" for k in range(len(index["chunks"]))
    ]
    assert read_export(by_rows) == whole
    monkeypatch.setattr(_export_parts, "CHUNK_ROWS", 10**6)
    monkeypatch.setattr(_export_parts, "CHUNK_BYTES", 20_000)
    by_bytes = tmp_path / "bytes.html"
    export_html(session, by_bytes)
    page = by_bytes.read_text("utf-8")
    index = json.loads(page.split('id="pnb-index">')[1].split("</script>")[0])
    assert 5 < len(index["chunks"]) < len(session.entries)
    assert read_export(by_bytes) == whole


def entry_chunk_texts(page: str) -> list[str]:
    """The JSON text of each ``entries-K`` part of a page, in order."""
    parts = {name: data for name, data in _PART.findall(page)}
    names = [f"entries-{k}" for k in range(len(parts)) if f"entries-{k}" in parts]
    return [zlib.decompress(base64.b64decode(parts[n]), 47).decode("utf-8") for n in names]


def test_entry_chunks_hold_a_row_a_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page splits a chunk at its newlines and parses only the rows it is asked for
    (``Rows`` in standalone.ts): each entry is a line of its own, and a chunk is still
    one JSON array."""
    monkeypatch.setattr(_export_parts, "CHUNK_ROWS", 7)
    session = prime_nb.load(write_jsonl(tmp_path / "s.jsonl", large_session_entries(30, seed=3)))
    page = export_html(session, tmp_path / "p.html").read_text("utf-8")
    texts = entry_chunk_texts(page)
    assert len(texts) == -(-len(session.entries) // 7)
    rows: list[Any] = []
    for text in texts:
        lines = text.split("\n")
        assert lines[0] == "[" and lines[-1] == "]" and len(lines) - 2 <= 7
        chunk = [orjson.loads(line[1:] if k else line) for k, line in enumerate(lines[1:-1])]
        assert all(line.startswith(",") for line in lines[2:-1])
        assert orjson.loads(text) == chunk
        rows.extend(chunk)
    assert rows == plain(session.read_entries(SessionData(session).ids))


def test_empty_session_has_no_entry_chunks(tmp_path: Path) -> None:
    empty = next(c for c in CASES if c.startswith("empty-"))
    page = read_export(export_html(write_case(empty, tmp_path), tmp_path / "e.html"))
    assert page["entries"] == [] and page["texts"] == [] and page["contexts"] == {}
    assert page["tree"]["n"] == 0


@pytest.mark.parametrize(
    ("n", "progress", "shown"),
    [(40, None, False), (40, False, False), (40, True, True), (PROGRESS_FROM, None, True)],
)
def test_progress_bar(
    n: int,
    progress: bool | None,
    shown: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", large_session_entries(40, seed=1))
    if n >= PROGRESS_FROM:  # a big session, made cheaply: the threshold comes down to it
        monkeypatch.setattr("prime_nb.widget._export.PROGRESS_FROM", 40)
    capsys.readouterr()
    export_html(path, tmp_path / "s.html", progress=progress)
    err = capsys.readouterr().err
    assert ("export_html" in err) is shown
    if shown:
        assert f"{len(prime_nb.load(path).entries)}/{len(prime_nb.load(path).entries)}" in err


def test_export_of_a_big_session_is_smaller_than_it(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "big.jsonl", large_session_entries(5_000, seed=2))
    out = export_html(path, tmp_path / "big.html", progress=False)
    assert out.stat().st_size < 0.7 * path.stat().st_size
